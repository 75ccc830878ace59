"""Hard debiasing (Bolukbasi et al. 2016): a post-processing transformer, ``fit`` then ``transform``."""
from __future__ import annotations

import importlib.resources
import json

import numpy as np

from ... import backend as xb
from ...errors import NotFittedError
from ...linalg import unit_rows

__all__ = ["HardDebias", "debias_pairs"]


def debias_pairs(kind: str = "definitional") -> tuple:
    """The gender word pairs of Bolukbasi et al. (2016), as released in ``tolga-b/debiaswe``.

    Parameters
    ----------
    kind : {"definitional", "equalize"}, default "definitional"
        ``"definitional"``: the pairs (woman, man), (girl, boy), … whose differences span the gender
        subspace; ``"equalize"``: the pairs to make equidistant from every neutral word.

    Returns
    -------
    tuple of (str, str)
        The pairs, in the released file's order.

    Raises
    ------
    ValueError
        Another ``kind``.
    """
    if kind not in ("definitional", "equalize"):
        raise ValueError(f"kind must be 'definitional' or 'equalize', got {kind!r}")
    data = json.loads((importlib.resources.files(__package__) / "bolukbasi2016.json").read_text("utf-8"))
    return tuple(tuple(p) for p in data[f"{kind}_pairs"])


def _unit32(X):
    # float32 throughout, as gensim's get_normed_vectors (WEFE normalises the model so)
    return unit_rows(np.asarray(X, dtype=np.float32))


def _pairs(e, pairs, what):
    out = []
    for p in pairs:
        if len(p) != 2 or not all(isinstance(w, str) for w in p):
            raise ValueError(f"each {what} pair is two words, got {p!r}")
        if p[0] in e and p[1] in e:
            out.append(tuple(p))
    return out


class HardDebias:
    """Hard debiasing of Bolukbasi, Chang, Zou, Saligrama & Kalai (2016, NeurIPS, §5): neutralise and equalise.

    ``fit`` finds the bias direction b, the first principal component of the normalised definitional
    pairs' vectors, each centred on its pair's mean (the paper's Step 1, as WEFE's ``HardDebias``:
    scikit-learn's ``PCA(n_components)``). ``transform`` normalises every vector, removes its component
    along b (neutralise, Step 2a; the ``ignore`` words, e.g. gender-specific ones, are kept), normalises
    again, and moves each equalise pair (a, c) to ±z·b + ν with ν the neutralised mean of a and c and
    z = √(1 − ‖ν‖²), the sign of (a − c)·b kept (equalise, Step 2b), then normalises once more.

    Equal to WEFE 1.0.1's ``HardDebias().fit(...).transform(...)`` on the same pairs to 1e-6
    (``tests/test_bias.py``, golden file from ``benchmarks/reference/wefe_bias_golden.py``), but for the
    length of the equalised words that were also neutralised: WEFE writes them with
    ``WordEmbeddingModel.update``, which leaves gensim's cached norms stale, so its last normalisation
    divides them by their neutralised norm and they leave unit length (same direction). Here every output
    vector is a unit vector, as the paper's equalise step makes them. As in WEFE,
    a pair is used only when both of its words are in the vocabulary, looked up as written; each equalise
    pair is tried lower-cased, title-cased and upper-cased.

    Parameters
    ----------
    n_components : int, default 10
        Principal components fitted (only the first is the bias direction; the rest are reported in
        ``explained_variance_ratio_``).

    Attributes
    ----------
    bias_direction_ : ndarray, shape (dim,)
    explained_variance_ratio_ : ndarray
    definitional_pairs_, equalize_pairs_ : list of (str, str)
        The pairs found in the vocabulary and used.

    Examples
    --------
    >>> import numpy as np, embgeo
    >>> from embgeo.evaluate import bias
    >>> rng = np.random.default_rng(0)
    >>> words = ["he", "she", "man", "woman", "king", "queen", "doctor", "nurse"]
    >>> e = embgeo.Embeddings(words, rng.standard_normal((8, 6)).astype(np.float32))
    >>> hd = bias.HardDebias(n_components=2).fit(e, [("she", "he"), ("woman", "man"), ("queen", "king")],
    ...                                          [("he", "she")])
    >>> d = hd.transform(e, ignore=["he", "she", "man", "woman", "king", "queen"])
    >>> abs(float(d["doctor"] @ hd.bias_direction_)) < 1e-6
    True
    """

    def __init__(self, n_components: int = 10):
        self.n_components = n_components

    def fit(self, e, definitional_pairs=None, equalize_pairs=None) -> "HardDebias":
        """Find the bias direction from ``definitional_pairs`` and keep the normalised ``equalize_pairs``.

        Parameters
        ----------
        e : Embeddings
            The embeddings to debias.
        definitional_pairs : iterable of (str, str), optional
            Pairs whose centred vectors span the bias subspace (Step 1); None means
            ``debias_pairs("definitional")``. Pairs with a word out of vocabulary are skipped.
        equalize_pairs : iterable of (str, str), optional
            Pairs made equidistant from every neutralised word (Step 2b); None means
            ``debias_pairs("equalize")``. Each is tried lower-cased, title-cased and upper-cased.

        Returns
        -------
        HardDebias
            This object, fitted.

        Raises
        ------
        ValueError
            A pair that is not two words, or fewer found pairs than the PCA needs (the message counts them).
        """
        from sklearn.decomposition import PCA

        definitional = _pairs(e, debias_pairs("definitional") if definitional_pairs is None else definitional_pairs,
                              "definitional")
        if 2 * len(definitional) < self.n_components:
            raise ValueError(f"{len(definitional)} definitional pairs found in the vocabulary give "
                             f"{2 * len(definitional)} centred vectors, fewer than n_components={self.n_components}")
        rows = []
        for a, c in definitional:
            pair = _unit32(xb.to_numpy(e[[a, c]]).astype(np.float32))
            rows.append(pair - pair.mean(axis=0))
        pca = PCA(n_components=self.n_components).fit(np.concatenate(rows))
        self.bias_direction_ = pca.components_[0]
        self.explained_variance_ratio_ = pca.explained_variance_ratio_
        self.definitional_pairs_ = definitional
        pairs = debias_pairs("equalize") if equalize_pairs is None else equalize_pairs
        for p in pairs:
            if len(p) != 2:
                raise ValueError(f"each equalize pair is two words, got {p!r}")
        candidates = [v for a, c in pairs for v in ((a.lower(), c.lower()), (a.title(), c.title()),
                                                    (a.upper(), c.upper()))]
        self.equalize_pairs_ = _pairs(e, candidates, "equalize")
        self._equalize_vectors = [_unit32(xb.to_numpy(e[list(p)]).astype(np.float32)) for p in self.equalize_pairs_]
        return self

    def transform(self, e, target=None, ignore=None):
        """The debiased embeddings (a new :class:`~embgeo.Embeddings`, unit vectors, float32).

        Parameters
        ----------
        e : Embeddings
            The embeddings to debias (usually those given to :meth:`fit`).
        target : iterable of str, optional
            Neutralise only these words (default: the whole vocabulary).
        ignore : iterable of str, optional
            With ``target=None``: words not neutralised (the gender-specific words).

        Returns
        -------
        Embeddings
            The same words with debiased unit vectors (float32).

        Raises
        ------
        NotFittedError
            Before :meth:`fit`.
        """
        if not hasattr(self, "bias_direction_"):
            raise NotFittedError("this HardDebias is not fitted yet: call fit(e, definitional_pairs) first")
        b = self.bias_direction_
        X = _unit32(np.asarray(xb.to_numpy(e.vectors), dtype=np.float32))
        if target is not None:
            rows = np.array(sorted({e.index(w) for w in target if w in e}), dtype=np.int64)
        else:
            skip = {e.index(w) for w in (ignore or ()) if w in e}
            rows = np.array([i for i in range(len(e)) if i not in skip], dtype=np.int64)
        if rows.size:
            U = X[rows]
            X[rows] = (U - np.outer(U @ b, b) / (b @ b)).astype(np.float32)   # neutralise (WEFE's _drop)
        X = _unit32(X)
        for (a, c), pair in zip(self.equalize_pairs_, self._equalize_vectors):
            mean = (pair[0] + pair[1]) / 2
            nu = mean - b * (mean @ b) / (b @ b)
            z = np.sqrt(1 - np.linalg.norm(nu) ** 2)
            if (pair[0] - pair[1]) @ b < 0:
                z = -z
            X[e.index(a)] = (z * b + nu).astype(np.float32)
            X[e.index(c)] = (-z * b + nu).astype(np.float32)
        return e.with_vectors(_unit32(X))

"""Hard debiasing (Bolukbasi et al. 2016) and double-hard debiasing (Wang et al. 2020): post-processing
transformers, ``fit`` then ``transform``."""
from __future__ import annotations

import importlib.resources
import json
import string

import numpy as np

from ... import backend as xb
from ... import blocking
from ...embeddings import Embeddings
from ...errors import NotFittedError, UnknownWordError
from ...linalg import apply_matrix, centred_scatter, eigh_desc, unit_rows

__all__ = ["DoubleHardDebias", "HardDebias", "debias_pairs", "gender_specific_words"]


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


def gender_specific_words() -> tuple:
    """The gender-specific words of Wang et al. (2020), as released in ``uvavision/Double-Hard-Debias``.

    The union, in file order, of ``data/male_word_file.txt`` and ``data/female_word_file.txt`` (Zhao et al.
    2018's lists) and ``data/gender_specific_full.json`` (Bolukbasi et al. 2016's): the words the authors keep
    out of the ranking of biased words (:class:`DoubleHardDebias`), and a natural ``ignore=`` of
    :meth:`HardDebias.transform` (words whose gender is their meaning). 1,623 words, cased as released.

    Returns
    -------
    tuple of str
        The words, without repeats, in file order.
    """
    data = json.loads((importlib.resources.files(__package__) / "wang2020.json").read_text("utf-8"))
    return tuple(dict.fromkeys(data["male_words"] + data["female_words"] + data["gender_specific_full"]))


def _unit32(X):
    # float32 throughout, as gensim's get_normed_vectors (WEFE normalises the model so)
    return unit_rows(np.asarray(X, dtype=np.float32))


def _pairs(e, pairs, what, lower=False):
    """The pairs found in the vocabulary, as written (``lower``: else lower-cased)."""
    out = []
    for p in pairs:
        if len(p) != 2 or not all(isinstance(w, str) for w in p):
            raise ValueError(f"each {what} pair is two words, got {p!r}")
        for cand in ((p[0], p[1]), (p[0].lower(), p[1].lower())) if lower else (tuple(p),):
            if cand[0] in e and cand[1] in e:
                out.append(cand)
                break
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


def _plain_word(w: str) -> bool:
    """The authors' ``utils.limit_vocab`` filter: lower case, under 20 characters, no digit, no punctuation
    (but between the parts of an underscore-joined phrase)."""
    if w.lower() != w or len(w) >= 20 or any(c in "0123456789" for c in w):
        return False
    punct = set(string.punctuation)
    if "_" in w:
        return not any(any(c in punct for c in part) for part in w.split("_"))
    return not any(c in punct for c in w)


def _pair_direction(P, index, pairs):
    """First principal component of the pairs' vectors, each centred on its pair's mean (the authors'
    ``utils.doPCA``): the top right singular vector, as the centred rows already have mean zero."""
    rows = []
    for a, c in pairs:
        centre = (P[index[a]] + P[index[c]]) / 2
        rows += [P[index[a]] - centre, P[index[c]] - centre]
    return np.linalg.svd(np.asarray(rows), full_matrices=False)[2][0]


class DoubleHardDebias:
    """Double-hard debiasing of Wang, Lin, Rajani, McCann, Ordonez & Xiong (2020, ACL, Algorithm 1).

    Word frequency shapes the leading principal directions of an embedding and blurs the gender direction that
    hard debiasing removes. Double-hard debiasing first projects out one "frequency" direction and then hard
    debiases. ``fit`` (the choice of the frequency direction in Algorithm 1):

    1. decentralise: μ, the mean of all vectors (blocked, float64);
    2. the principal directions u₁ … u_d of the centred vocabulary (the eigenvectors of its d×d scatter,
       blocked: no centred copy);
    3. rank the first ``n_frequent`` words that pass the authors' ``limit_vocab`` filter (lower case, no
       digits or punctuation, under 20 characters) and are not ``exclude`` words by their bias by projection
       cos(w, he) − cos(w, she) on the original vectors, and take the ``n_words`` most male- and female-biased;
    4. for each candidate uᵢ (i < ``n_candidates``): w' = w − μ − (uᵢᵀw) uᵢ for those words and the
       definitional ones (the projection is of the uncentred w, as in the authors' notebook); the gender direction is the first principal component of the pair-centred w' of
       the definitional pairs; remove it (hard debias, neutralise); cluster the biased words into
       two with k-means and score the accuracy against their male/female labels, max(a, 1 − a);
    5. keep the uₖ of the lowest accuracy (the first on ties), and fit :class:`HardDebias` (the
       paper's Hard Debias, Bolukbasi et al. 2016: unit vectors, neutralise, equalise) on the purified
       vectors w' = w − μ − (uₖᵀw) uₖ of the definitional and equalise words.

    ``transform`` purifies every vector (:meth:`purify`) and hard-debiases them, as
    :meth:`HardDebias.transform` does (every output a unit vector, float32).

    Steps 1–4 equal the authors' code (``GloVe_Debias.ipynb`` and ``utils.py`` of uvavision/Double-Hard-Debias:
    μ, the components, the biased words, the accuracies, the selected component and the neutralised purified
    vectors; ``tests/test_bias.py``, golden file from ``benchmarks/reference/double_hard_debias_golden.py``);
    the notebook stops before the final step, which here is Algorithm 1's HardDebias with its equalise step.

    WEFE 1.0.1's ``DoubleHardDebias`` differs from the paper and the authors' code, and from this class:

    - its gender direction is fitted once, on the raw definitional vectors; the authors refit it on the
      purified vectors of each candidate (the HardDebias of w' inside the loop);
    - it tries 4 candidates (``n_components=4``) from an ``IncrementalPCA`` limited to 10 components
      (``pca_args``, shared with its gender PCA); the authors try 20 of the full PCA;
    - it ranks the biased words over the whole vocabulary less ``ignore`` (its ``target=`` is read and then
      overwritten); the authors rank the 50,000 most frequent words that pass ``limit_vocab``, less the
      gender-specific words (:func:`gender_specific_words`);
    - its k-means is unseeded, so the selected component can change from run to run; the authors seed it
      (``random_state=1``);
    - it changes only the 2 × ``n_words`` biased words (centred, purified and neutralised) and leaves every
      other vector as it was, uncentred; the paper debiases the whole vocabulary;
    - it does not equalise, and ``ignore`` only keeps words out of the ranking.

    Parameters
    ----------
    n_candidates : int, default 20
        Principal directions tried (the authors' 20); at most the dimension.
    n_words : int, default 1000
        Male- and female-biased words clustered, of each (the authors' 1,000).
    bias_words : (str, str), default ("he", "she")
        The words of the bias by projection cos(w, a) − cos(w, b): the first names the "male" side.
    n_frequent : int, default 50000
        The biased words are ranked among the first ``n_frequent`` rows (embeddings are stored most
        frequent first; the authors' ``vocab[:50000]``).
    n_components : int, default 10
        Passed to :class:`HardDebias` (its PCA) for the final step.
    n_init : int, default 10
        k-means restarts. The authors ran scikit-learn's ``KMeans(n_clusters=2, random_state=1)`` when its
        ``n_init`` defaulted to 10; since scikit-learn 1.4 that default means one run.
    random_state : int, default 1
        Seed of k-means (the authors' 1).
    memory_budget : int, optional
        Bytes for the vocabulary-wide passes (see :mod:`embgeo.blocking`).

    Attributes
    ----------
    mean_ : ndarray, shape (dim,)
    components_ : ndarray, shape (n_candidates, dim)
        The candidate directions u₁ …, by decreasing variance (signs are arbitrary).
    accuracies_ : ndarray, shape (n_candidates,)
        The clustering accuracy after removing each candidate and hard debiasing.
    component_ : int
        The index of the removed direction (argmin of ``accuracies_``).
    frequency_direction_ : ndarray, shape (dim,)
    male_words_, female_words_ : list of str
        The biased words clustered, least to most biased within each.
    definitional_pairs_ : list of (str, str)
        The definitional pairs found (as written, else lower-cased).
    hard_debias_ : HardDebias
        Fitted on the purified vectors; its ``bias_direction_`` is the final gender direction.

    References
    ----------
    T. Wang, X. V. Lin, N. F. Rajani, B. McCann, V. Ordonez, C. Xiong (2020). Double-Hard Debias: Tailoring
    Word Embeddings for Gender Bias Mitigation. ACL, 5443–5453. doi:10.18653/v1/2020.acl-main.484

    Examples
    --------
    >>> import numpy as np, embgeo
    >>> from embgeo.evaluate import bias
    >>> rng = np.random.default_rng(0)
    >>> words = ["he", "she", "man", "woman"] + [f"w{chr(97 + i // 26)}{chr(97 + i % 26)}" for i in range(60)]
    >>> e = embgeo.Embeddings(words, rng.standard_normal((64, 8)).astype(np.float32))
    >>> dhd = bias.DoubleHardDebias(n_candidates=4, n_words=20, n_components=2).fit(
    ...     e, [("she", "he"), ("woman", "man")], [("he", "she")])
    >>> d = dhd.transform(e, ignore=["he", "she", "man", "woman"])
    >>> abs(float(d["wab"] @ dhd.hard_debias_.bias_direction_)) < 1e-6
    True
    """

    def __init__(self, n_candidates: int = 20, n_words: int = 1000, bias_words=("he", "she"),
                 n_frequent: int = 50_000, n_components: int = 10, n_init: int = 10, random_state: int = 1,
                 memory_budget: int | None = None):
        self.n_candidates = n_candidates
        self.n_words = n_words
        self.bias_words = bias_words
        self.n_frequent = n_frequent
        self.n_components = n_components
        self.n_init = n_init
        self.random_state = random_state
        self.memory_budget = memory_budget

    def _check_params(self, dim):
        for name in ("n_candidates", "n_words", "n_frequent", "n_init"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
                raise ValueError(f"{name} must be a positive integer, got {v!r}")
        if self.n_candidates > dim:
            raise ValueError(f"n_candidates={self.n_candidates} exceeds the dimension {dim}: there are only "
                             f"{dim} principal directions")
        bw = self.bias_words
        if isinstance(bw, str) or len(bw) != 2 or not all(isinstance(w, str) for w in bw) or bw[0] == bw[1]:
            raise ValueError(f"bias_words must be two different words, e.g. ('he', 'she'), got {bw!r}")

    def _biased_words(self, e, X, exclude):
        """The ``n_words`` most female- and male-biased candidate rows (ascending bias within each)."""
        he, she = (X[e.index(w)].astype(np.float64) for w in self.bias_words)
        he, she = he / np.linalg.norm(he), she / np.linalg.norm(she)
        excluded = set(exclude)
        rows = np.array([i for i, w in enumerate(e.words[: self.n_frequent]) if w not in excluded and _plain_word(w)],
                        dtype=np.int64)
        if rows.size < 2 * self.n_words:
            raise ValueError(f"n_words={self.n_words} male- and female-biased words need {2 * self.n_words} "
                             f"candidates, but only {rows.size} of the first {self.n_frequent} words are lower-case "
                             "words without digits or punctuation outside the excluded (gender-specific) words")
        scores = np.empty(rows.size)
        step = blocking.block_rows(X.shape[1], 8, self.memory_budget)
        for s in range(0, rows.size, step):
            B = X[rows[s:s + step]].astype(np.float64)
            norms = np.linalg.norm(B, axis=1)
            norms[norms == 0] = 1
            scores[s:s + step] = (B @ he - B @ she) / norms
        order = rows[np.argsort(scores, kind="stable")]
        return order[-self.n_words:], order[: self.n_words]

    def fit(self, e, definitional_pairs=None, equalize_pairs=None, exclude=None) -> "DoubleHardDebias":
        """Choose the frequency direction (Algorithm 1) and fit the final :class:`HardDebias`.

        Parameters
        ----------
        e : Embeddings
            Most frequent words first (the candidates are ranked among the first ``n_frequent``).
        definitional_pairs, equalize_pairs : sequence of (str, str), optional
            Default: :func:`debias_pairs` (Bolukbasi et al.'s; a definitional pair is looked up as written,
            else lower-cased).
        exclude : iterable of str, optional
            Words kept out of the ranking of biased words (default: :func:`gender_specific_words`).

        Returns
        -------
        DoubleHardDebias
            ``self``, fitted: ``components_``, ``accuracies_``, ``component_``, ``frequency_direction_``,
            ``male_words_``, ``female_words_`` and the final ``hard_debias_``.

        Raises
        ------
        UnknownWordError
            A ``bias_words`` word is not in the vocabulary.
        ValueError
            A bad parameter, a pair that is not two words, no definitional pair found, or fewer candidate
            words than ``2 * n_words`` (each message names the count or the value).
        """
        from sklearn.cluster import KMeans

        X = np.asarray(xb.to_numpy(e.vectors))
        self._check_params(X.shape[1])
        for w in self.bias_words:
            if w not in e:
                raise UnknownWordError(w, context="a bias_words word of DoubleHardDebias")
        # the authors' lists are lower case (mary, john): a pair not found as written is tried lower-cased
        definitional = _pairs(e, debias_pairs("definitional") if definitional_pairs is None else definitional_pairs,
                              "definitional", lower=True)
        if not definitional:
            raise ValueError("none of the definitional pairs is in the vocabulary (looked up as written and "
                             "lower-cased)")
        scatter, mu = centred_scatter(X, "embeddings")
        self.mean_ = np.asarray(mu, dtype=np.float64)
        self.components_ = np.ascontiguousarray(eigh_desc(np.asarray(scatter))[1][:, : self.n_candidates].T)
        male, female = self._biased_words(e, X, gender_specific_words() if exclude is None else exclude)
        # the clustered words and the definitional ones: the notebook's c_vocab
        pair_rows = {w: e.index(w) for p in definitional for w in p}
        sub = np.concatenate([male, female, np.array(sorted(set(pair_rows.values())), dtype=np.int64)])
        index = {w: int(np.flatnonzero(sub == r)[0]) for w, r in pair_rows.items()}
        S = X[sub].astype(np.float64)
        y_true = np.r_[np.ones(len(male)), np.zeros(len(female))]
        accuracies = []
        for u in self.components_:
            P = S - self.mean_ - np.outer(S @ u, u)
            g = _pair_direction(P, index, definitional)
            Z = (P - np.outer(P @ g, g) / (g @ g))[: 2 * self.n_words]
            km = KMeans(n_clusters=2, n_init=self.n_init, random_state=self.random_state).fit(Z)
            a = float(np.mean(km.predict(Z) == y_true))
            accuracies.append(max(a, 1 - a))
        self.accuracies_ = np.array(accuracies)
        self.component_ = int(np.argmin(self.accuracies_))
        self.frequency_direction_ = self.components_[self.component_]
        self.male_words_ = [e.words[i] for i in male]
        self.female_words_ = [e.words[i] for i in female]
        self.definitional_pairs_ = definitional
        # the final HardDebias sees only the purified vectors of the pair words it looks up
        pairs = debias_pairs("equalize") if equalize_pairs is None else equalize_pairs
        needed = {w for p in definitional for w in p}
        for p in pairs:
            if len(p) == 2:
                needed |= {v for w in p for v in (w.lower(), w.title(), w.upper()) if v in e}
        words = sorted(needed)
        small = Embeddings(words, X[[e.index(w) for w in words]])
        self.hard_debias_ = HardDebias(self.n_components).fit(self.purify(small), definitional, pairs)
        return self

    def purify(self, e):
        """w' = w − μ − (uₖᵀw) uₖ for every word (Algorithm 1's purification): a new :class:`~embgeo.Embeddings`,
        float32, one GEMM, no float64 copy of the vectors.

        Parameters
        ----------
        e : Embeddings
            Vectors of the fitted dimension.

        Returns
        -------
        Embeddings
            The same words, the frequency direction projected out of the centred vectors.

        Raises
        ------
        NotFittedError
            Before :meth:`fit`.
        ValueError
            Vectors of another dimension than the fitted ones.
        """
        if not hasattr(self, "frequency_direction_"):
            raise NotFittedError("this DoubleHardDebias is not fitted yet: call fit(e) first")
        X = np.asarray(xb.to_numpy(e.vectors), dtype=np.float32)
        if X.shape[1] != self.mean_.shape[0]:
            raise ValueError(f"the embeddings have dimension {X.shape[1]}, the fitted ones {self.mean_.shape[0]}")
        u = self.frequency_direction_
        return e.with_vectors(apply_matrix(X, np.eye(len(u)) - np.outer(u, u), offset=self.mean_))

    def transform(self, e, target=None, ignore=None):
        """The debiased embeddings (Algorithm 1's last steps): :meth:`purify`, then the fitted
        :class:`HardDebias` (neutralise all words or ``target``, but ``ignore``; equalise); unit vectors,
        float32.

        Parameters
        ----------
        e : Embeddings
        target : iterable of str, optional
            Neutralise only these words (default: the whole vocabulary).
        ignore : iterable of str, optional
            With ``target=None``: words not neutralised, e.g. :func:`gender_specific_words`.

        Returns
        -------
        Embeddings
            The debiased vectors, unit length, float32.

        Raises
        ------
        NotFittedError
            Before :meth:`fit`.
        """
        purified = self.purify(e)            # refuses first when unfitted
        return self.hard_debias_.transform(purified, target=target, ignore=ignore)

"""The bias measures: WEAT, RIPA, ECT, RND, RNSB and MAC, their coverage, intervals and paired comparison.

Every measure is a function of the vectors of the query's sets (targets first, then attributes). The
result keeps those vectors (``vectors``, one float32 array per set), so :meth:`BiasResult.ci` resamples
the words of each set (a stratified bootstrap: each set is resampled within itself, paired sets such as
RIPA's pairs together) and recomputes the score; the model is never looked up again.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, fields
from typing import Any, Callable

import numpy as np

from ... import backend as xb
from ...errors import UnknownWordError
from ...linalg import unit_rows
from .._oov import lookup
from ...display import Display, Formatted, Interval, View
from ..report import Report
from ..stats import CI_METHODS, Comparison, bootstrap_interval
from ._queries import Query, load_query

__all__ = ["BiasResult", "weat", "ripa", "ect", "rnd", "rnsb", "mac", "BIAS_MEASURES", "EXACT_PARTITIONS",
           "ALTERNATIVES", "compare_bias", "bias_report", "RND_DISTANCES"]

#: WEAT's p-value enumerates every partition of the target words when there are at most this many.
EXACT_PARTITIONS = 10 ** 6
#: ``alternative=`` of :func:`weat`: Caliskan et al.'s one-sided test, or the two-sided one.
ALTERNATIVES = ("greater", "two-sided")
#: ``distance=`` of :func:`rnd`: Garg et al.'s Euclidean norm, or WEFE's cosine variant.
RND_DISTANCES = ("norm", "cos")
_OOV = ("skip", "raise")
#: Bytes of one batch of bootstrap or permutation indices.
_BATCH_BYTES = 32 << 20


# ------------------------------------------------------------------ scores of the set vectors
def _cos(P, Q):
    return unit_rows(P) @ unit_rows(Q).T


def _association(T, A, B):
    """s(w, A, B) = mean_a cos(w, a) − mean_b cos(w, b) for each row w of T (Caliskan et al., Methods)."""
    return _cos(T, A).mean(axis=1) - _cos(T, B).mean(axis=1)


def _weat_score(sets, params):
    X, Y, A, B = sets
    sx, sy = _association(X, A, B), _association(Y, A, B)
    sd = np.concatenate([sx, sy]).std()
    return float((sx.mean() - sy.mean()) / sd) if sd > 0 else float("nan")


def _ripa_score(sets, params):
    X, Y, A = sets
    b = unit_rows(X - Y)
    return float((A @ b.T).mean())


def _ect_score(sets, params):
    from scipy.stats import spearmanr

    X, Y, A = sets
    cx = _cos(A, X.mean(axis=0)[None])[:, 0]
    cy = _cos(A, Y.mean(axis=0)[None])[:, 0]
    if np.all(cx == cx[0]) or np.all(cy == cy[0]):
        return float("nan")
    return float(spearmanr(cx, cy)[0])


def _rnd_distances(sets, distance):
    X, Y, A = sets
    mx, my = X.mean(axis=0), Y.mean(axis=0)
    if distance == "norm":
        return np.linalg.norm(A - mx, axis=1) - np.linalg.norm(A - my, axis=1)
    return _cos(A, mx[None])[:, 0] - _cos(A, my[None])[:, 0]


def _rnd_score(sets, params):
    return float(_rnd_distances(sets, params["distance"]).mean())


def _mac_score(sets, params):
    nt = params["n_targets"]
    T = np.concatenate(sets[:nt])
    return float(np.mean([(1.0 - _cos(T, A)).mean(axis=1) for A in sets[nt:]]))


def _rnsb_score(sets, params):
    # the rows are the classifier's negative-class probabilities of the target words (fitted once)
    from scipy.stats import entropy

    p = np.concatenate([s[:, 0] for s in sets])
    return float(entropy(p / p.sum(), np.full(p.size, 1.0 / p.size)))


_SCORES: dict[str, Callable] = {"weat": _weat_score, "ripa": _ripa_score, "ect": _ect_score, "rnd": _rnd_score,
                                "mac": _mac_score, "rnsb": _rnsb_score}
#: The measures of :mod:`embgeo.evaluate.bias` by name, with the name of their score.
BIAS_MEASURES = {"weat": "effect_size", "ripa": "ripa", "ect": "ect", "rnd": "rnd", "rnsb": "rnsb", "mac": "mac"}


# ------------------------------------------------------------------ the result
@dataclass(frozen=True, repr=False)
class BiasResult(Display):
    """Outcome of a bias measure (:func:`weat`, :func:`ripa`, :func:`ect`, :func:`rnd`, :func:`rnsb`, :func:`mac`).

    Parameters
    ----------
    query : str
        The query's name.
    measure : str
        The measure (``"weat"``, ``"ripa"``, ``"ect"``, ``"rnd"``, ``"rnsb"``, ``"mac"``).
    score : float
        The headline number: WEAT's effect size, RIPA's mean, ECT's Spearman ρ, RND's mean distance
        difference, RNSB's KL divergence, MAC's mean cosine distance (``score_name`` says which).
    score_name : str
        What ``score`` is (the values of :data:`BIAS_MEASURES`: ``"effect_size"`` for WEAT).
    set_names : tuple of str
        Targets first, then attributes.
    words : tuple of tuple of str
        The words of each set that entered the score (as found in the vocabulary).
    n_words : tuple of int
        The words of each set in the query.
    coverage : tuple of float
        Share of each set found in the vocabulary (``len(words[k]) / n_words[k]``; RIPA counts whole pairs).
    oov_words : tuple of tuple of str
        The words of each set left out.
    oov : str
        The policy for missing words.
    statistic : float or None
        WEAT's test statistic s(X, Y, A, B) = Σ_x s(x, A, B) − Σ_y s(y, A, B) (WEFE's ``weat``).
    p_value : float or None
        WEAT's permutation p-value (``alternative``), from ``p_method``: ``"exact"`` (every partition of the
        target words, ``n_permutations`` of them) or ``"permutation"`` (``n_permutations`` random ones).
    p_method, alternative : str or None
        How ``p_value`` was computed, and its alternative hypothesis (one of :data:`ALTERNATIVES`);
        None without a p-value.
    n_permutations : int or None
        Partitions the p-value was computed from.
    details : dict
        Per-word values: WEAT ``association`` (s(w, A, B) of each target word); RIPA ``mean`` and ``std``
        (over the base pairs, for each attribute word: the spread the paper reports); RND ``distance``
        (of each attribute word); RNSB ``negative_probability`` (of each target word) and ``accuracy``
        (the classifier's, on the held-out attribute words); MAC ``distance`` (of each target word to each
        attribute set).
    vectors : tuple of ndarray
        The rows each set contributed (float32 vectors; RNSB: the target words' probabilities), for
        :meth:`ci` and :func:`compare_bias`.
    strata : tuple of tuple of int
        The sets resampled together, as indices into ``vectors`` (each set alone, or RIPA's target
        pairs as one stratum): the independent samples of :meth:`ci`.
    params : dict
        Options of the measure that its score needs again on a resample (RND's ``distance``, MAC's
        ``n_targets``).
    intervals : dict
        The intervals :meth:`ci` computed, by ``(level, ci_method)``; shown by ``repr``.
    """

    query: str
    measure: str
    score: float
    score_name: str
    set_names: tuple
    words: tuple
    n_words: tuple
    coverage: tuple
    oov_words: tuple
    oov: str
    statistic: float | None = None
    p_value: float | None = None
    p_method: str | None = None
    alternative: str | None = None
    n_permutations: int | None = None
    details: dict = field(default_factory=dict, repr=False, compare=False)
    vectors: tuple = field(default=(), repr=False, compare=False)
    strata: tuple = field(default=(), repr=False, compare=False)
    params: dict = field(default_factory=dict, repr=False, compare=False)
    intervals: dict = field(default_factory=dict, repr=False, compare=False)

    # ----------------------------------------------------------- intervals
    def _draws(self, n_resamples, rng, batch):
        """Batches of bootstrap indices: per batch, one (b, n) index array per stratum, in stratum order
        (the draws of :func:`scipy.stats.bootstrap` over independent samples for the same seed and batch)."""
        sizes = [len(self.vectors[s[0]]) for s in self.strata]
        step = batch or max(1, _BATCH_BYTES // (8 * max(1, sum(sizes))))
        for start in range(0, n_resamples, step):
            b = min(step, n_resamples - start)
            yield [rng.integers(0, n, (b, n)) for n in sizes]

    def _rows(self, idx_per_stratum):
        sets = [None] * len(self.vectors)
        for stratum, idx in zip(self.strata, idx_per_stratum):
            for k in stratum:
                sets[k] = self.vectors[k][idx]
        return sets

    def _recompute(self, sets):
        return _SCORES[self.measure]([np.asarray(s, dtype=np.float64) for s in sets], self.params)

    def bootstrap_distribution(self, n_resamples: int = 9999, random_state=None, *,
                               batch: int | None = None) -> np.ndarray:
        """The score of ``n_resamples`` stratified bootstrap resamples of the words (see :meth:`ci`).

        Parameters
        ----------
        n_resamples : int, default 9999
            How many resamples.
        random_state : int or numpy.random.Generator, optional
            Seed or generator of the draws (scipy's draws for the same seed and ``batch``).
        batch : int, optional
            Resamples drawn at a time (default: as many as fit 32 MiB of indices).

        Returns
        -------
        numpy.ndarray of float64, shape (n_resamples,)
            The score of each resample.
        """
        rng = random_state if isinstance(random_state, np.random.Generator) else np.random.default_rng(random_state)
        out = []
        for idx in self._draws(int(n_resamples), rng, batch):
            if self.measure == "weat":
                out.append(_weat_resamples(self.vectors, idx))
            else:
                out.append(np.array([self._recompute(self._rows([i[r] for i in idx])) for r in range(len(idx[0]))]))
        return np.concatenate(out)

    def jackknife(self) -> list:
        """Leave-one-out scores: one array per stratum (a word, or a pair, left out at a time).

        Returns
        -------
        list of numpy.ndarray
            Per stratum, the score with each of its words (or pairs) left out: the jackknife values
            of BCa's acceleration (:func:`~embgeo.evaluate.stats.bootstrap_interval`).
        """
        out = []
        for j, stratum in enumerate(self.strata):
            n = len(self.vectors[stratum[0]])
            full = [np.arange(len(self.vectors[s[0]])) for s in self.strata]
            vals = []
            for i in range(n):
                idx = list(full)
                idx[j] = np.delete(full[j], i)
                vals.append(self._recompute(self._rows(idx)))
            out.append(np.array(vals))
        return out

    def ci(self, level: float = 0.95, ci_method: str = "bca", n_resamples: int = 9999, random_state=None, *,
           batch: int | None = None) -> tuple[float, float]:
        """Bootstrap confidence interval of the score over the words of each set: ``(low, high)``.

        Each set is resampled within itself (RIPA's target pairs together; RNSB's target words only, the
        classifier being fitted once), as :func:`scipy.stats.bootstrap` resamples several independent
        samples; for the same ``random_state`` and ``batch`` the interval is scipy's (BCa with its
        multi-sample acceleration, Efron & Tibshirani 1993 §14.3 and eq. 15.36). The interval is kept in
        :attr:`intervals` and shown by ``repr``.

        Parameters
        ----------
        level : float, default 0.95
            Confidence level, in (0, 1).
        ci_method : {"bca", "percentile"}, default "bca"
            Bias-corrected and accelerated, or plain percentile.
        n_resamples : int, default 9999
            Bootstrap resamples.
        random_state : int or numpy.random.Generator, optional
            Seed or generator of the draws.
        batch : int, optional
            Resamples drawn at a time (default: as many as fit 32 MiB of indices).

        Returns
        -------
        (low, high) : tuple of float
            The interval.

        Raises
        ------
        ValueError
            A set of fewer than 2 words, an unknown ci_method or a level outside (0, 1).
        """
        if ci_method not in CI_METHODS:
            raise ValueError(f"ci_method must be one of {', '.join(CI_METHODS)}, got {ci_method!r}")
        if not 0 < level < 1:
            raise ValueError(f"level must be between 0 and 1, got {level}")
        if int(n_resamples) < 1:
            raise ValueError(f"n_resamples must be positive, got {n_resamples}")
        small = [self.set_names[s[0]] for s in self.strata if len(self.vectors[s[0]]) < 2]
        if small:
            raise ValueError(f"a bootstrap over words needs at least 2 words in each set; {small[0]!r} has fewer")
        theta_b = self.bootstrap_distribution(n_resamples, random_state, batch=batch)
        jack = self.jackknife() if ci_method == "bca" else None
        low, high = bootstrap_interval(self.score, theta_b, level, ci_method, jack)
        self.intervals[(level, ci_method)] = (low, high)
        return low, high

    # ----------------------------------------------------------- display
    def to_dict(self) -> dict:
        """The scalar fields and per-set coverage as plain Python values (JSON-ready).

        Returns
        -------
        dict
            The scalar fields, ``sets`` (per set: name, sizes, coverage, missing words) and the intervals.
        """
        keys = ("query", "measure", "score", "score_name", "statistic", "p_value", "p_method", "alternative",
                "n_permutations", "oov")
        out = {k: getattr(self, k) for k in keys}
        out["sets"] = [{"name": n, "n_words": t, "n_found": len(w), "coverage": c, "oov_words": list(m)}
                       for n, t, w, c, m in zip(self.set_names, self.n_words, self.words, self.coverage,
                                                self.oov_words)]
        out["intervals"] = [{"level": lv, "ci_method": m, "low": lo, "high": hi}
                            for (lv, m), (lo, hi) in self.intervals.items()]
        return out

    def _view(self) -> View:
        label = {"effect_size": "effect size"}.get(self.score_name, self.score_name)
        # the score beside each interval computed so far (ci() keeps them), or alone
        rows: list = [[label, Interval(self.score, low, high, f"{level:.0%} CI, {method}")]
                      for (level, method), (low, high) in self.intervals.items()] or [[label, self.score]]
        if self.statistic is not None:
            rows.append(["statistic", self.statistic])
        if self.p_value is not None:
            rows.append(["p-value", self.p_value])
            rows.append(["p-value from", f"{self.p_method} ({self.n_permutations} partitions, {self.alternative})"])
        rows += [[f"coverage of {name}", Formatted(f"{c:.1%}")] for name, c in zip(self.set_names, self.coverage)]
        notes = [f"from {self.measure}(…, {self.query!r}, oov={self.oov!r})"]
        missing = sum(len(m) for m in self.oov_words)
        if missing:
            notes.append(f"{missing} word{'s' if missing > 1 else ''} out of vocabulary (oov_words)")
        return View(f"BiasResult: {self.measure}, {self.query}", rows, notes=notes)


def _weat_resamples(vectors, idx):
    """WEAT's effect size of each resample at once: counts of the drawn words weight the cosine matrices."""
    X, Y, A, B = (np.asarray(v, dtype=np.float64) for v in vectors)
    T = np.concatenate([X, Y])
    nx, ny, na, nb = len(X), len(Y), len(A), len(B)
    WX, WY, WA, WB = (_counts(i, n) for i, n in zip(idx, (nx, ny, na, nb)))
    S = _cos(T, A) @ WA.T / na - _cos(T, B) @ WB.T / nb           # (targets, resamples)
    mx = np.einsum("rx,xr->r", WX, S[:nx]) / nx
    my = np.einsum("ry,yr->r", WY, S[nx:]) / ny
    W = np.concatenate([WX, WY], axis=1)
    m1 = np.einsum("rn,nr->r", W, S) / (nx + ny)
    m2 = np.einsum("rn,nr->r", W, S * S) / (nx + ny)
    sd = np.sqrt(np.maximum(m2 - m1 * m1, 0.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(sd > 0, (mx - my) / sd, np.nan)


def _counts(idx, n):
    W = np.zeros((idx.shape[0], n))
    np.add.at(W, (np.repeat(np.arange(idx.shape[0]), idx.shape[1]), idx.ravel()), 1.0)
    return W


# ------------------------------------------------------------------ words to vectors, with checks
def _as_query(targets, attributes, query) -> Query:
    if query is not None:
        if targets is not None or attributes is not None:
            raise TypeError("give either query= or targets= and attributes=, not both")
        return load_query(query) if isinstance(query, str) else query
    if isinstance(targets, (Query, str)):
        if attributes is not None:
            raise TypeError("a query already holds its attribute sets: give targets= and attributes= as word lists")
        return load_query(targets) if isinstance(targets, str) else targets
    if targets is None:
        raise TypeError("no targets: give targets=[X, Y] (word lists) or query= (a Query or a name such as 'weat1')")
    return Query(targets=targets, attributes=attributes if attributes is not None else ())


def _check_query(q: Query, measure: str, n_targets, n_attributes, equal_targets: bool = False) -> None:
    def count(n, got, what):
        if isinstance(n, int) and got != n:
            raise ValueError(f"{measure.upper()} takes {n} {what} sets, got {got}")
        if n == "n" and got < 1:
            raise ValueError(f"{measure.upper()} takes at least one {what} set, got none")

    count(n_targets, len(q.targets), "target")
    count(n_attributes, len(q.attributes), "attribute")
    for words, name, kind in zip(q.sets, q.set_names, ["target"] * len(q.targets) + ["attribute"] * len(q.attributes)):
        if not words:
            raise ValueError(f"{kind} set {name!r} is empty")
        seen = set()
        for w in words:
            if w in seen:
                raise ValueError(f"{kind} set {name!r} holds {w!r} twice")
            seen.add(w)
        if kind == "attribute" and len(words) < 2:
            raise ValueError(f"attribute set {name!r} has one word ({words[0]!r}): a mean association over one "
                             "word is that word's, not a set's; give at least 2")
    for i in range(len(q.targets)):
        for j in range(i + 1, len(q.targets)):
            shared = [w for w in q.targets[i] if w in set(q.targets[j])]
            if shared:
                raise ValueError(f"target sets {q.target_names[i]!r} and {q.target_names[j]!r} overlap: "
                                 f"{', '.join(map(repr, shared[:5]))}{' …' if len(shared) > 5 else ''}")
    if equal_targets and len({len(t) for t in q.targets}) > 1:
        sizes = ", ".join(f"{n!r} {len(t)}" for n, t in zip(q.target_names, q.targets))
        raise ValueError(f"{measure.upper()} pairs the target words (X[i] with Y[i]), so the target sets need equal "
                         f"sizes; got {sizes}")


def _lookup(e, q: Query, lowercase, oov, min_coverage, paired_targets=False):
    """Rows of each set's words in ``e``; ``(rows, found_words, missing_words, coverage)`` per set."""
    if oov not in _OOV:
        raise ValueError(f"oov must be one of {', '.join(_OOV)}, got {oov!r}")
    if not 0 <= min_coverage <= 1:
        raise ValueError(f"min_coverage must be between 0 and 1, got {min_coverage}")
    rows = [lookup(e, list(words), lowercase) for words in q.sets]
    if oov == "raise":
        for words, r, name in zip(q.sets, rows, q.set_names):
            miss = np.flatnonzero(r < 0)
            if len(miss):
                raise UnknownWordError(words[int(miss[0])], context=f"set {name!r} of query {q.name!r}",
                                       n_missing=len(miss))
    keep = [r >= 0 for r in rows]
    if paired_targets:      # a pair enters only with both its words
        both = keep[0] & keep[1]
        keep[0], keep[1] = both, both
    out = []
    for words, r, k, name in zip(q.sets, rows, keep, q.set_names):
        missing = tuple(w for w, kk in zip(words, k) if not kk)
        cov = float(k.mean())
        if not k.any():
            raise ValueError(f"set {name!r} of query {q.name!r}: none of its {len(words)} words is in the vocabulary "
                             f"({', '.join(words[:5])}{' …' if len(words) > 5 else ''})")
        if cov < min_coverage:
            raise ValueError(f"set {name!r} of query {q.name!r} covers {cov:.0%} of its words, under "
                             f"min_coverage={min_coverage:.0%}; missing: {', '.join(missing)}")
        found = tuple(e.words[i] if hasattr(e, "words") else words[j] for j, i in enumerate(r) if k[j])
        out.append((r[k], found, missing, cov))
    return out


def _vectors(e, rows):
    return xb.to_numpy(e.vectors[rows]).astype(np.float32, copy=False)


def _prepare(e, targets, attributes, query, measure, n_targets, n_attributes, *, lowercase, oov, min_coverage,
             paired=False):
    q = _as_query(targets, attributes, query)
    _check_query(q, measure, n_targets, n_attributes, equal_targets=paired)
    found = _lookup(e, q, lowercase, oov, min_coverage, paired_targets=paired)
    vectors = tuple(_vectors(e, r) for r, *_ in found)
    common = dict(query=q.name, measure=measure, score_name=BIAS_MEASURES[measure], set_names=q.set_names,
                  words=tuple(f[1] for f in found), n_words=tuple(len(s) for s in q.sets),
                  coverage=tuple(f[3] for f in found), oov_words=tuple(f[2] for f in found), oov=oov)
    return q, vectors, common


def _singletons(n):
    return tuple((k,) for k in range(n))


_COMMON_DOC = """
    e : Embeddings
        The embeddings measured.
    targets, attributes : list of list of str, optional
        The word sets (``targets=[X, Y], attributes=[A, B]``).
    query : Query or str, optional
        A :class:`Query`, or the name of a shipped one (``"weat1"`` … ``"weat10"``), instead of the lists.
    lowercase : bool or None, default None
        None looks a word up as written, then lower-cased (WEFE's ``preprocessors=[{}, {"lowercase": True}]``);
        True always lower-cases; False never does.
    oov : {"skip", "raise"}, default "skip"
        Words out of the vocabulary are left out (and listed in ``oov_words``), or raise
        :class:`~embgeo.errors.UnknownWordError` naming the first one and its set.
    min_coverage : float, default 0.8
        Refuse (ValueError listing the missing words) a set with a smaller share of its words found; WEFE
        returns NaN past the same 20 % loss (``lost_vocabulary_threshold=0.2``)."""


def _with_common_doc(f):
    """Fill the ``%s`` of a measure's docstring with the parameters every measure shares."""
    f.__doc__ = (f.__doc__ or "") % _COMMON_DOC
    return f


# ------------------------------------------------------------------ measures
@_with_common_doc
def weat(e, targets=None, attributes=None, *, query=None, lowercase: bool | None = None, oov: str = "skip",
         min_coverage: float = 0.8, alternative: str = "greater", n_permutations: int = 100_000,
         random_state=None) -> BiasResult:
    r"""Word Embedding Association Test (Caliskan, Bryson & Narayanan 2017): effect size and p-value.

    With s(w, A, B) = mean_{a∈A} cos(w, a) − mean_{b∈B} cos(w, b), the effect size (Methods, "WEAT") is

    .. math:: d = \frac{\mathrm{mean}_{x∈X} s(x,A,B) − \mathrm{mean}_{y∈Y} s(y,A,B)}{\mathrm{std}_{w∈X∪Y} s(w,A,B)}

    (the population standard deviation, as WEFE computes it), and the test statistic is
    s(X, Y, A, B) = Σ_x s(x, A, B) − Σ_y s(y, A, B). The one-sided p-value is Pr_i[s(X_i, Y_i, A, B) >
    s(X, Y, A, B)] over the partitions (X_i, Y_i) of X ∪ Y into sets of the sizes of X and Y.

    Parameters
    ----------%s
    alternative : {"greater", "two-sided"}, default "greater"
        The paper's one-sided test, or Pr_i[|s_i − E s_i| > |s − E s_i|] (E s_i = 0 for equal sizes).
    n_permutations : int, default 100000
        Random partitions drawn when there are more than :data:`EXACT_PARTITIONS` (10^6) of them; otherwise
        all are enumerated (``p_method="exact"``; a compiled pass over the precomputed s(w, A, B)).
    random_state : int or numpy.random.Generator, optional
        Seed of the random partitions.

    Returns
    -------
    BiasResult
        ``score`` the effect size, ``statistic``, ``p_value``, ``p_method`` (``"exact"``: the share of
        partitions, no +1; ``"permutation"``: (count + 1) / (n_permutations + 1)), per-word ``association``.

    Raises
    ------
    ValueError
        Not two target and two attribute sets; an empty set, overlapping target sets, an attribute set of
        one word; a set under ``min_coverage`` or entirely out of vocabulary (each message names the set).
    UnknownWordError
        With ``oov="raise"``.

    See Also
    --------
    bias_report : Several queries and measures in one report.
    compare_bias : The paired test of one measure in two spaces.

    Notes
    -----
    WEFE 1.0.1 (``WEAT().run_query``) gives the same effect size and statistic on the same words. Its
    p-value draws "permutations" with replacement (``rng.choice`` without ``replace=False``) and unseeded,
    so it is not compared.

    References
    ----------
    A. Caliskan, J. J. Bryson and A. Narayanan (2017). Semantics derived automatically from language
    corpora contain human-like biases. Science 356(6334), pp. 183–186 (Methods: the test statistic,
    effect size and permutation test).

    P. Badilla, F. Bravo-Marquez and J. Pérez (2020). WEFE: the word embeddings fairness evaluation
    framework. IJCAI, pp. 430–436 (the implementation these numbers equal).

    Examples
    --------
    >>> import numpy as np, embgeo
    >>> from embgeo.evaluate import bias
    >>> e = embgeo.Embeddings(["he", "she", "doctor", "nurse"], np.eye(4, dtype=np.float32) + 0.1)
    >>> r = bias.weat(e, targets=[["he"], ["she"]], attributes=[["doctor", "he"], ["nurse", "she"]], min_coverage=1)
    >>> r.p_method, r.n_permutations
    ('exact', 2)
    """
    if alternative not in ALTERNATIVES:
        raise ValueError(f"alternative must be one of {', '.join(ALTERNATIVES)}, got {alternative!r}")
    if int(n_permutations) < 1:
        raise ValueError(f"n_permutations must be positive, got {n_permutations}")
    q, vectors, common = _prepare(e, targets, attributes, query, "weat", 2, 2, lowercase=lowercase, oov=oov,
                                  min_coverage=min_coverage)
    X, Y, A, B = (v.astype(np.float64) for v in vectors)
    s = _association(np.concatenate([X, Y]), A, B)
    nx = len(X)
    effect = _weat_score([X, Y, A, B], {})
    statistic = float(s[:nx].sum() - s[nx:].sum())
    p, p_method, n_perm = _weat_p_value(s, nx, alternative, int(n_permutations), random_state)
    words = common["words"]
    association = dict(zip(words[0] + words[1], s.tolist()))
    return BiasResult(score=effect, statistic=statistic, p_value=p, p_method=p_method, alternative=alternative,
                      n_permutations=n_perm, details={"association": association}, vectors=vectors,
                      strata=_singletons(4), **common)



def _weat_p_value(s, nx, alternative, n_permutations, random_state):
    """``(p, method, n)``: the permutation p-value of WEAT's statistic from the associations ``s`` (X first)."""
    N = len(s)
    total_sum = float(s.sum())
    observed = float(s[:nx].sum())
    centre = nx * total_sum / N                     # E[sum of a random nx-subset]
    tol = 1e-10 * max(1.0, float(np.abs(s).sum()))  # the observed partition, summed in another order
    if alternative == "greater":
        above, below = observed + tol, -np.inf
    else:
        d = abs(observed - centre) + tol
        above, below = centre + d, centre - d
    n_partitions = math.comb(N, nx)
    if n_partitions <= EXACT_PARTITIONS:
        from ...kernels.bias import subset_sum_tails

        n_above, n_below, n = subset_sum_tails(np.ascontiguousarray(s, dtype=np.float64), nx, above, below)
        return (n_above + n_below) / n, "exact", int(n)
    rng = random_state if isinstance(random_state, np.random.Generator) else np.random.default_rng(random_state)
    step = max(1, _BATCH_BYTES // (16 * N))
    count = 0
    for start in range(0, n_permutations, step):
        b = min(step, n_permutations - start)
        chosen = np.argpartition(rng.random((b, N)), nx - 1, axis=1)[:, :nx]   # a uniform nx-subset per row
        sums = s[chosen].sum(axis=1)
        count += int(np.count_nonzero(sums > above) + np.count_nonzero(sums < below))
    return (count + 1) / (n_permutations + 1), "permutation", n_permutations


@_with_common_doc
def ripa(e, targets=None, attributes=None, *, query=None, lowercase: bool | None = None, oov: str = "skip",
         min_coverage: float = 0.8) -> BiasResult:
    """Relational Inner Product Association (Ethayarajh, Duvenaud & Hirst 2019, eq. 4): β(w; b) = ⟨w, b⟩.

    The targets are base pairs (X[i], Y[i]) defining relation vectors b_i = (x_i − y_i) / ‖x_i − y_i‖
    (one pair per relation vector, as WEFE does); for each attribute word w the RIPA over the pairs has a
    mean and a spread (``details["mean"]``, ``details["std"]``), and the score is the mean over attribute
    words and pairs. The word vectors are not normalised (β scales with ‖w‖, as in the paper).

    Parameters
    ----------%s

    Returns
    -------
    BiasResult
        ``score`` the mean RIPA; :meth:`BiasResult.ci` resamples the pairs together and the attribute words.

    Raises
    ------
    ValueError
        Not two target sets and one attribute set, target sets of unequal size (they are paired), an empty
        or overlapping set; a pair is left out when either of its words is missing.

    See Also
    --------
    bias_report : Several queries and measures in one report.
    compare_bias : The paired test of one measure in two spaces.

    References
    ----------
    K. Ethayarajh, D. Duvenaud and G. Hirst (2019). Understanding undesirable word embedding
    associations. ACL, pp. 1696–1705, eq. 4.

    P. Badilla, F. Bravo-Marquez and J. Pérez (2020). WEFE: the word embeddings fairness evaluation
    framework. IJCAI, pp. 430–436 (the implementation these numbers equal).
    """
    q, vectors, common = _prepare(e, targets, attributes, query, "ripa", 2, 1, lowercase=lowercase, oov=oov,
                                  min_coverage=min_coverage, paired=True)
    X, Y, A = (v.astype(np.float64) for v in vectors)
    beta = A @ unit_rows(X - Y).T                      # (attribute words, pairs)
    attr = common["words"][2]
    details = {"mean": dict(zip(attr, beta.mean(axis=1).tolist())), "std": dict(zip(attr, beta.std(axis=1).tolist()))}
    return BiasResult(score=_ripa_score([X, Y, A], {}), details=details, vectors=vectors,
                      strata=((0, 1), (2,)), **common)



@_with_common_doc
def ect(e, targets=None, attributes=None, *, query=None, lowercase: bool | None = None, oov: str = "skip",
        min_coverage: float = 0.8) -> BiasResult:
    """Embedding Coherence Test (Dev & Phillips 2019, §4): Spearman's ρ between the cosines of each attribute
    word to the mean vector of X and to the mean vector of Y (1: no bias; lower: more).

    Parameters
    ----------%s

    Returns
    -------
    BiasResult
        The score is Spearman's ρ (1: no bias).

    Raises
    ------
    ValueError
        Not two target sets and one attribute set; an empty, overlapping or uncovered set.

    See Also
    --------
    bias_report : Several queries and measures in one report.
    compare_bias : The paired test of one measure in two spaces.

    References
    ----------
    S. Dev and J. M. Phillips (2019). Attenuating bias in word vectors. AISTATS, PMLR 89, §4.

    P. Badilla, F. Bravo-Marquez and J. Pérez (2020). WEFE: the word embeddings fairness evaluation
    framework. IJCAI, pp. 430–436 (the implementation these numbers equal).
    """
    q, vectors, common = _prepare(e, targets, attributes, query, "ect", 2, 1, lowercase=lowercase, oov=oov,
                                  min_coverage=min_coverage)
    sets = [v.astype(np.float64) for v in vectors]
    return BiasResult(score=_ect_score(sets, {}), vectors=vectors, strata=_singletons(3), **common)



@_with_common_doc
def rnd(e, targets=None, attributes=None, *, query=None, lowercase: bool | None = None, oov: str = "skip",
        min_coverage: float = 0.8, distance: str = "norm") -> BiasResult:
    """Relative Norm Distance (Garg, Schiebinger, Jurafsky & Zou 2018, PNAS): the mean over attribute words a
    of ‖a − mean(X)‖ − ‖a − mean(Y)‖ (WEFE's mean; the paper sums, which scales by the attribute count).

    Parameters
    ----------%s
    distance : {"norm", "cos"}, default "norm"
        Euclidean (the paper's) or the cosine *similarity* difference (WEFE's ``distance="cos"``).

    Returns
    -------
    BiasResult
        ``details["distance"]``: each attribute word's difference.

    Raises
    ------
    ValueError
        Not two target sets and one attribute set; an empty, overlapping or uncovered set.

    See Also
    --------
    bias_report : Several queries and measures in one report.
    compare_bias : The paired test of one measure in two spaces.

    References
    ----------
    N. Garg, L. Schiebinger, D. Jurafsky and J. Zou (2018). Word embeddings quantify 100 years of
    gender and ethnic stereotypes. PNAS 115(16), E3635–E3644.

    P. Badilla, F. Bravo-Marquez and J. Pérez (2020). WEFE: the word embeddings fairness evaluation
    framework. IJCAI, pp. 430–436 (the implementation these numbers equal).
    """
    if distance not in RND_DISTANCES:
        raise ValueError(f"distance must be one of {', '.join(RND_DISTANCES)}, got {distance!r}")
    q, vectors, common = _prepare(e, targets, attributes, query, "rnd", 2, 1, lowercase=lowercase, oov=oov,
                                  min_coverage=min_coverage)
    sets = [v.astype(np.float64) for v in vectors]
    d = _rnd_distances(sets, distance)
    return BiasResult(score=float(d.mean()), details={"distance": dict(zip(common["words"][2], d.tolist()))},
                      vectors=vectors, strata=_singletons(3), params={"distance": distance}, **common)



@_with_common_doc
def mac(e, targets=None, attributes=None, *, query=None, lowercase: bool | None = None, oov: str = "skip",
        min_coverage: float = 0.8) -> BiasResult:
    """Mean Average Cosine distance (Manzini, Lim, Tsvetkov & Black 2019, eq. 6): the mean over target words t
    and attribute sets A_j of mean_{a∈A_j} (1 − cos(t, a)).

    Parameters
    ----------%s

    Returns
    -------
    BiasResult
        ``details["distance"]``: ``{target word: {attribute set: mean cosine distance}}``.

    Raises
    ------
    ValueError
        No target or no attribute set; an empty, overlapping or uncovered set.

    See Also
    --------
    bias_report : Several queries and measures in one report.
    compare_bias : The paired test of one measure in two spaces.

    References
    ----------
    T. Manzini, Y. C. Lim, Y. Tsvetkov and A. W. Black (2019). Black is to criminal as caucasian is to
    police: detecting and removing multiclass bias in word embeddings. NAACL-HLT, pp. 615–621, eq. 6.

    P. Badilla, F. Bravo-Marquez and J. Pérez (2020). WEFE: the word embeddings fairness evaluation
    framework. IJCAI, pp. 430–436 (the implementation these numbers equal).
    """
    q, vectors, common = _prepare(e, targets, attributes, query, "mac", "n", "n", lowercase=lowercase, oov=oov,
                                  min_coverage=min_coverage)
    sets = [v.astype(np.float64) for v in vectors]
    nt = len(q.targets)
    per = {}
    for words, T in zip(common["words"][:nt], sets[:nt]):
        d = [(1.0 - _cos(T, A)).mean(axis=1) for A in sets[nt:]]
        for i, w in enumerate(words):
            per[w] = {name: float(x[i]) for name, x in zip(q.attribute_names, d)}
    return BiasResult(score=_mac_score(sets, {"n_targets": nt}), details={"distance": per}, vectors=vectors,
                      strata=_singletons(len(sets)), params={"n_targets": nt}, **common)



@_with_common_doc
def rnsb(e, targets=None, attributes=None, *, query=None, lowercase: bool | None = None, oov: str = "skip",
         min_coverage: float = 0.8, holdout: bool = True, random_state=None) -> BiasResult:
    """Relative Negative Sentiment Bias (Sweeney & Najafian 2019, ACL): the KL divergence of the normalised
    negative-sentiment probabilities of the target words from the uniform distribution.

    A logistic regression is fitted to tell the first attribute set (positive, label +1) from the second
    (negative, −1), as WEFE 1.0.1 does: scikit-learn's ``LogisticRegression(solver="liblinear",
    max_iter=10000, random_state=random_state)`` on 80 %% of the attribute words
    (``train_test_split(test_size=0.2, stratify=labels, shuffle=True, random_state=random_state)``) with
    ``holdout=True``, or on all of them. The same ``random_state`` gives WEFE's number; None gives a fresh
    split and fit each call (WEFE's default), so pass an int for a reproducible score.

    Parameters
    ----------%s
    holdout : bool, default True
        Hold out 20 %% of the attribute words (the classifier's ``accuracy`` is measured on them).
    random_state : int, optional
        Seeds the split and the classifier; None draws new ones on each call.

    Returns
    -------
    BiasResult
        ``details["negative_probability"]`` of each target word and the classifier's ``accuracy``;
        :meth:`BiasResult.ci` resamples the target words with the classifier fixed.

    Raises
    ------
    ValueError
        Not two attribute sets or no target set; an empty, overlapping or uncovered set.

    See Also
    --------
    bias_report : Several queries and measures in one report.
    compare_bias : The paired test of one measure in two spaces.

    References
    ----------
    C. Sweeney and M. Najafian (2019). A transparent framework for evaluating unintended demographic
    bias in word embeddings. ACL, pp. 1662–1667.

    P. Badilla, F. Bravo-Marquez and J. Pérez (2020). WEFE: the word embeddings fairness evaluation
    framework. IJCAI, pp. 430–436 (the implementation these numbers equal).
    """
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split

    q, vectors, common = _prepare(e, targets, attributes, query, "rnsb", "n", 2, lowercase=lowercase, oov=oov,
                                  min_coverage=min_coverage)
    nt = len(q.targets)
    pos, neg = vectors[nt], vectors[nt + 1]
    Xa = np.concatenate([pos, neg])
    ya = np.concatenate([np.ones(len(pos)), -np.ones(len(neg))])
    if random_state is not None and not isinstance(random_state, (int, np.integer)):
        raise TypeError(f"random_state must be an int or None (scikit-learn's seed), got {type(random_state).__name__}")
    params = {"solver": "liblinear", "max_iter": 10000}
    if random_state is not None:
        params["random_state"] = int(random_state)
    if holdout:
        try:
            X_train, X_test, y_train, y_test = train_test_split(Xa, ya, shuffle=True, random_state=random_state,
                                                                test_size=0.2, stratify=ya)
        except ValueError as exc:
            raise ValueError(f"RNSB holds out 20 % of each attribute set, which needs more attribute words than "
                             f"{len(pos)} and {len(neg)} ({exc}); pass holdout=False") from None
        clf = LogisticRegression(**params).fit(X_train, y_train)
        accuracy = float(clf.score(X_test, y_test))
    else:
        clf = LogisticRegression(**params).fit(Xa, ya)
        accuracy = float(clf.score(Xa, ya))
    neg_col = int(np.flatnonzero(clf.classes_ == -1)[0])
    probs = tuple(clf.predict_proba(v)[:, neg_col].astype(np.float64)[:, None] for v in vectors[:nt])
    words = [w for ws in common["words"][:nt] for w in ws]
    details = {"negative_probability": dict(zip(words, np.concatenate(probs)[:, 0].tolist())), "accuracy": accuracy}
    return BiasResult(score=_rnsb_score(list(probs), {}), details=details, vectors=probs, strata=_singletons(nt),
                      **common)



_MEASURE_FUNCTIONS = {"weat": weat, "ripa": ripa, "ect": ect, "rnd": rnd, "rnsb": rnsb, "mac": mac}


# ------------------------------------------------------------------ two spaces, one query
def _common_rows(a: BiasResult, b: BiasResult):
    """For each stratum, the positions in ``a`` and in ``b`` of the words (or pairs) both results hold."""
    ia, ib = [], []
    for stratum in a.strata:
        keys_a = list(zip(*(a.words[k] for k in stratum)))
        keys_b = {key: i for i, key in enumerate(zip(*(b.words[k] for k in stratum)))}
        pos = [(i, keys_b[key]) for i, key in enumerate(keys_a) if key in keys_b]
        ia.append(np.array([p[0] for p in pos], dtype=np.int64))
        ib.append(np.array([p[1] for p in pos], dtype=np.int64))
    return ia, ib


def _restricted(r: BiasResult, idx) -> BiasResult:
    vectors = list(r.vectors)
    for stratum, i in zip(r.strata, idx):
        for k in stratum:
            vectors[k] = r.vectors[k][i]
    return BiasResult(**{**{f.name: getattr(r, f.name) for f in fields(r)},
                         "vectors": tuple(vectors), "intervals": {}})


def compare_bias(a: BiasResult, b: BiasResult, *, n_resamples: int = 9999, random_state=None,
                 labels=("a", "b")) -> Comparison:
    """Paired bootstrap test of one bias measure in two spaces (e.g. original and debiased vectors).

    Both results are restricted to the words (RIPA: the pairs) both spaces cover; each resample draws the
    same words of each set for both spaces, and the two-sided p-value is 2 · min(share of score differences
    ≤ 0, share ≥ 0), capped at 1 (as :func:`~embgeo.evaluate.stats.compare_results` does for scores that are
    not means). :func:`embgeo.evaluate.compare` calls this for two :class:`BiasResult`.

    Parameters
    ----------
    a, b : BiasResult
        The same measure of the same query in two spaces.
    n_resamples : int, default 9999
        Bootstrap resamples.
    random_state : int or numpy.random.Generator, optional
        Seed or generator of the resamples.
    labels : (str, str), default ("a", "b")
        Names of the two spaces in the result and its messages.

    Returns
    -------
    Comparison
        ``test="bootstrap"``, ``score_a``/``score_b`` on the common words, ``effect_size`` the difference over
        its bootstrap standard deviation.

    Raises
    ------
    ValueError
        Results of different queries or measures, or a set with fewer than 2 words common to both.
    TypeError
        ``a`` or ``b`` is not a :class:`BiasResult`.
    """
    if not isinstance(a, BiasResult) or not isinstance(b, BiasResult):
        raise TypeError(f"compare_bias takes two BiasResult, got {type(a).__name__} and {type(b).__name__}")
    if (a.query, a.measure) != (b.query, b.measure) or a.params != b.params:
        raise ValueError(f"the results are of different queries or measures: {a.measure} {a.query!r} and "
                         f"{b.measure} {b.query!r}")
    ia, ib = _common_rows(a, b)
    for stratum, i in zip(a.strata, ia):
        if len(i) < 2:
            raise ValueError(f"set {a.set_names[stratum[0]]!r} has {len(i)} word(s) common to {labels[0]} and "
                             f"{labels[1]} (need 2)")
    ra, rb = _restricted(a, ia), _restricted(b, ib)
    sa, sb = ra._recompute(ra.vectors), rb._recompute(rb.vectors)
    rng = random_state if isinstance(random_state, np.random.Generator) else np.random.default_rng(random_state)
    diffs = []
    for idx in ra._draws(int(n_resamples), rng, None):
        if ra.measure == "weat":
            diffs.append(_weat_resamples(ra.vectors, idx) - _weat_resamples(rb.vectors, idx))
        else:
            for r in range(len(idx[0])):
                rows = [i[r] for i in idx]
                diffs.append(np.array([ra._recompute(ra._rows(rows)) - rb._recompute(rb._rows(rows))]))
    d = np.concatenate(diffs)
    d = d[~np.isnan(d)]
    p = float(min(1.0, 2 * min(np.mean(d <= 0), np.mean(d >= 0)))) if d.size else float("nan")
    sd = float(np.std(d, ddof=1)) if d.size > 1 else float("nan")
    n_common = sum(len(i) * len(s) for i, s in zip(ia, a.strata))

    def coverage(r):
        return sum(len(w) for w in r.words[:len(r.vectors)]) / sum(r.n_words[:len(r.vectors)])

    return Comparison(dataset=a.query, score_name=a.score_name, test="bootstrap", score_a=sa, score_b=sb,
                      difference=sa - sb, p_value=p, statistic=sa - sb,
                      effect_size=(sa - sb) / sd if sd else float("nan"), effect_name="standardized_difference",
                      n=n_common, n_a=sum(len(w) for w in a.words[:len(a.vectors)]),
                      n_b=sum(len(w) for w in b.words[:len(b.vectors)]), coverage_a=coverage(a),
                      coverage_b=coverage(b), label_a=labels[0], label_b=labels[1],
                      details={"n_resamples": int(n_resamples), "measure": a.measure})


# ------------------------------------------------------------------ many queries, one table
def bias_report(e, queries=None, measures=("weat",), *, ci: float | None = None, ci_method: str = "bca",
                n_resamples: int = 9999, random_state=None, title: str | None = None, lowercase: bool | None = None,
                oov: str = "skip", min_coverage: float = 0.8, alternative: str = "greater",
                n_permutations: int = 100_000) -> Report:
    """Run bias measures on several queries and tabulate them (one row per query and measure).

    Parameters
    ----------
    e : Embeddings
        The embeddings measured.
    queries : iterable of str or Query, optional
        Default: the ten WEAT queries (``"weat1"`` … ``"weat10"``).
    measures : iterable of str
        Keys of :data:`BIAS_MEASURES`; a measure that does not fit a query's shape (RIPA on unequal target
        sets, ECT on two attribute sets …) raises.
    ci : float, optional
        Add columns ``low`` and ``high``: :meth:`BiasResult.ci` at this level;
        :meth:`~embgeo.evaluate.Report.plot_intervals` then draws the forest plot.
    ci_method, n_resamples, random_state
        For the intervals (and WEAT's random partitions).
    title : str, optional
        The report's title.
    lowercase, oov, min_coverage
        Passed to every measure (see :func:`weat`).
    alternative : {"greater", "two-sided"}
        WEAT's permutation test.
    n_permutations : int, default 100000
        WEAT's random partitions (when not enumerated).

    Returns
    -------
    Report
        Columns ``dataset`` (the query), ``measure``, ``score_name``, ``score``, ``p_value``, ``p_method``,
        ``n`` (words found), ``coverage`` (of all the query's words), then ``low``, ``high``; ``report.results``
        holds the :class:`BiasResult` of each row.

    Raises
    ------
    ValueError
        An unknown measure or ``ci_method``, ``ci`` outside (0, 1), or what a measure refuses (a query of
        the wrong shape, a set not covered).

    See Also
    --------
    weat, ripa, ect, rnd, rnsb, mac : The measures.
    load_query : The shipped WEAT queries.
    """
    from ..stats import CI_METHODS as _methods

    queries = list(queries) if queries is not None else [f"weat{i}" for i in range(1, 11)]
    measures = list(measures)
    for m in measures:
        if m not in _MEASURE_FUNCTIONS:
            raise ValueError(f"unknown bias measure {m!r}; choose from {', '.join(_MEASURE_FUNCTIONS)}")
    if ci is not None and not 0 < ci < 1:
        raise ValueError(f"ci must be a confidence level between 0 and 1, got {ci}")
    if ci_method not in _methods:
        raise ValueError(f"ci_method must be one of {', '.join(_methods)}, got {ci_method!r}")
    loaded = [load_query(q) if isinstance(q, str) else q for q in queries]   # a bad name fails before any work
    columns = ["dataset", "measure", "score_name", "score", "p_value", "p_method", "n", "coverage"]
    report = Report(columns=columns + (["low", "high"] if ci is not None else []), title=title,
                    formats={"coverage": "{:.1%}", "score": "{:.4g}", "p_value": "{:.4g}", "low": "{:.4g}",
                             "high": "{:.4g}"})
    rng = random_state if isinstance(random_state, np.random.Generator) else np.random.default_rng(random_state)
    for q in loaded:
        for m in measures:
            opts: dict[str, Any] = {"lowercase": lowercase, "oov": oov, "min_coverage": min_coverage}
            if m == "weat":
                opts.update(alternative=alternative, n_permutations=n_permutations, random_state=rng)
            if m == "rnsb" and random_state is not None:
                opts["random_state"] = random_state if isinstance(random_state, int) else 0
            r = _MEASURE_FUNCTIONS[m](e, query=q, **opts)
            n_found = sum(len(w) for w in r.words)
            row = {"dataset": r.query, "measure": m, "score_name": r.score_name, "score": r.score,
                   "p_value": r.p_value, "p_method": r.p_method, "n": n_found,
                   "coverage": n_found / sum(r.n_words)}
            if ci is not None:
                row["low"], row["high"] = r.ci(ci, ci_method, n_resamples, rng)
            report.append(row, result=r)
    return report

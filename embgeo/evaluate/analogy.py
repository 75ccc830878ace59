"""Word analogies a : b :: c : ? by 3CosAdd, 3CosMul, PairDirection, 3CosAvg and LRCos, batched over questions."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import ClassVar

import numpy as np

from .. import backend as xb
from ..data import AnalogyPairs, as_dataset
from ..blocking import block_rows, share
from ..linalg import cached_inverse_norms
from ..neighbors import select_topk
from ..progress import progress_bar
from .stats import Resampled

__all__ = ["analogy", "AnalogyResult", "METHODS", "SET_METHODS"]

METHODS = ("3cosadd", "3cosmul", "pairdirection", "3cosavg", "lrcos")
#: The solvers that learn the relation from the other pairs of its section (leave one pair out), as
#: Drozd, Gladkova & Matsuoka (2016) do; the others answer from one example pair a : b.
SET_METHODS = ("3cosavg", "lrcos")
#: Query rows each question puts in the GEMM (3CosAdd, 3CosMul and PairDirection batch by distinct rows instead).
_ROWS = {"3cosavg": 1, "lrcos": 2}
#: vecto's LRCos: each training word of the source class counts this many times among the negatives.
_LRCOS_SOURCE_WEIGHT = 4
@dataclass(frozen=True, repr=False)
class AnalogyResult(Resampled):
    """Outcome of :func:`analogy`.

    Parameters
    ----------
    dataset : str
        The dataset's name.
    method : str
        The solver, one of :data:`METHODS`.
    accuracy : float
        Correct answers among the covered questions (gensim's ``evaluate_word_analogies`` score).
    accuracy_all : float
        Correct answers among all questions: an uncovered question counts as wrong
        (gensim's ``dummy4unknown=True``).
    n_correct, n_evaluated, n_total : int
        Questions answered correctly, questions covered (and answered), questions in the dataset.
    coverage : float
        ``n_evaluated / n_total``: questions whose 4 words are all in the restricted vocabulary.
    restrict_vocab : int
        Size of the candidate vocabulary actually used.
    sections : dict
        Per section: ``{"accuracy", "n_correct", "n_evaluated", "n_total"}``, in file order.
    predictions : ndarray of int64
        Per question, the predicted (best) row of the embeddings (-1 for an uncovered question).
    topn : int
        A question counts as solved when the answer is among the ``topn`` best candidates (1: the usual
        accuracy; Bhat et al. 2020 count the top 5 in their Table 9).
    per_item : dict of ndarray
        One row per covered question: ``correct`` (bool), ``item`` (the question's row in the
        dataset) and ``rank`` (its gold rank), for :meth:`ci` and :func:`~embgeo.evaluate.compare`.
    ranks : ndarray of int64
        Per question, the gold answer's rank: how many candidates (the excluded words left out) rank
        before the best accepted answer, so 0 means solved; -1 for an uncovered question (and for a
        question answered by a ``scorer``, which returns no scores).
    item_sections : ndarray of int64
        Per question (indexed by ``per_item["item"]``), the position of its section in
        :attr:`sections`; :meth:`section` uses it.
    """

    _call = "analogy(…, {dataset!r}, {method!r}, restrict_vocab={restrict_vocab!r}, topn={topn})"

    score_name: ClassVar[str] = "accuracy"

    dataset: str
    method: str
    accuracy: float
    accuracy_all: float
    n_correct: int
    n_evaluated: int
    n_total: int
    coverage: float
    restrict_vocab: int
    sections: dict = field(default_factory=dict)
    predictions: np.ndarray | None = field(default=None, repr=False, compare=False)
    topn: int = 1
    per_item: dict = field(default_factory=dict, repr=False, compare=False)
    ranks: np.ndarray | None = field(default=None, repr=False, compare=False)
    item_sections: np.ndarray | None = field(default=None, repr=False, compare=False)

    def section(self, name: str) -> "AnalogyResult":
        """The result of one section alone (its accuracy, counts and per-item rows), e.g. for its :meth:`ci`.

        Parameters
        ----------
        name : str
            A key of :attr:`sections`.

        Returns
        -------
        AnalogyResult
            The section's result; ``dataset`` becomes ``"dataset/section"``.

        Raises
        ------
        KeyError
            ``name`` is not one of :attr:`sections` (they are listed).
        ValueError
            The result does not know its questions' sections.
        """
        if name not in self.sections:
            raise KeyError(f"no section {name!r} in {self.dataset}; sections: {', '.join(self.sections)}")
        if self.item_sections is None:
            raise ValueError("this AnalogyResult does not know its questions' sections")
        s = self.sections[name]
        keep = self.item_sections[self.per_item["item"]] == list(self.sections).index(name)

        def share(count):
            return count / s["n_total"] if s["n_total"] else float("nan")

        return replace(self, dataset=f"{self.dataset}/{name}", accuracy=s["accuracy"],
                       accuracy_all=share(s["n_correct"]), n_correct=s["n_correct"], n_evaluated=s["n_evaluated"],
                       n_total=s["n_total"], coverage=share(s["n_evaluated"]), sections={name: dict(s)},
                       per_item={key: v[keep] for key, v in self.per_item.items()})

    def statistic(self, per_item: dict) -> float:
        """Share of ``per_item["correct"]`` (the accuracy over covered questions).

        Parameters
        ----------
        per_item : dict of str to ndarray
            The result's ``per_item``, or a resample of it (as :meth:`ci` draws).

        Returns
        -------
        float
            The score.
        """
        return float(np.mean(per_item["correct"]))

    def _group(self, syntactic: bool):
        names = [s for s in self.sections if s.startswith("gram") == syntactic]
        n = sum(self.sections[s]["n_evaluated"] for s in names)
        return sum(self.sections[s]["n_correct"] for s in names) / n if n else float("nan")

    @property
    def semantic_accuracy(self) -> float:
        """Accuracy over the non-``gram*`` sections (the semantic half of the Google set)."""
        return self._group(False)

    @property
    def syntactic_accuracy(self) -> float:
        """Accuracy over the ``gram*`` sections (the syntactic half of the Google set)."""
        return self._group(True)

    def to_dict(self) -> dict:
        """The scalar fields and the sections as plain Python values (JSON-ready).

        Returns
        -------
        dict
            ``dataset``, ``method``, the accuracies, counts, ``coverage``, ``restrict_vocab``, ``topn`` and
            ``sections``; the per-question arrays are left out.
        """
        out = {k: getattr(self, k) for k in ("dataset", "method", "accuracy", "accuracy_all", "n_correct",
                                             "n_evaluated", "n_total", "coverage", "restrict_vocab", "topn")}
        out["sections"] = {k: dict(v) for k, v in self.sections.items()}
        return out


def _vocabulary_keys(words: Sequence[str], case_insensitive: bool
                     ) -> tuple[dict[str, int], np.ndarray | None]:
    """Key lookup over the restricted vocabulary and the canonical row of every row.

    With ``case_insensitive`` (gensim's convention) words are compared upper-cased and a key maps to
    its first (most frequent) row; ``canon[i]`` is that first row for the key of row ``i``.
    """
    if not case_insensitive:
        return {w: i for i, w in enumerate(words)}, None
    lookup: dict[str, int] = {}
    canon = np.fromiter((lookup.setdefault(w.upper(), i) for i, w in enumerate(words)),
                        dtype=np.int64, count=len(words))
    return lookup, canon



@dataclass
class _Plan:
    """The questions as rows of the restricted vocabulary.

    ``ids[q]`` = rows of a, b, c (-1: out of vocabulary; a set method's question has only c, the test
    word); ``answers[q]``: the accepted rows (canonical, in vocabulary); ``extra[q]``: further rows that
    may not answer (the other accepted answers of the example pair). For a set method, ``train[s]``
    holds section ``s``'s pairs as rows (word, first answer) and ``pair_of[q]`` question q's pair.
    """

    ids: np.ndarray
    answers: list
    covered: np.ndarray
    section_ids: np.ndarray
    section_names: list
    extra: list | None = None
    train: list | None = None
    pair_of: np.ndarray | None = None


def _section_pairs(data) -> dict:
    """Per section, its pairs ``(word, answers)``: BATS's as read; a questions file's, as the distinct
    pairs a : b and c : d of its questions in order of appearance."""
    if isinstance(data, AnalogyPairs):
        return data.sections
    out = {}
    for name, q in data.sections.items():
        seen: dict = {}
        for a, b, c, d in q.tolist():
            seen.setdefault((a, b), None)
            seen.setdefault((c, d), None)
        out[name] = [(w, (x,)) for w, x in seen]
    return out


def _plan(data, set_method: bool, row) -> _Plan:
    """Questions of ``data`` (AnalogyQuestions or AnalogyPairs) for a pairwise or a set method.

    Pairs become questions as vecto's analogy benchmark makes them: a set method asks each pair
    b : b' once, trained on the section's other pairs; a pairwise method asks b : ? for every other
    pair a : a' of the section as the example (test pair outer, example pair inner, both in file
    order), a' being the example's first answer.
    """
    names = list(data.sections)
    if not set_method and not isinstance(data, AnalogyPairs):
        Qw = data.questions
        q_ids = np.array([row(w) for w in Qw.ravel().tolist()], dtype=np.int64).reshape(-1, 4)
        return _Plan(q_ids[:, :3], [q_ids[q, 3:4] for q in range(len(q_ids))], np.all(q_ids >= 0, axis=1),
                     data.section_ids, names)
    ids: list = []
    answers: list = []
    covered: list = []
    sec: list = []
    extra: list = []
    train: list = []
    pair_of: list = []
    for s, pairs in enumerate(_section_pairs(data).values()):
        words = np.array([row(w) for w, _ in pairs], dtype=np.int64)
        accepted = [np.array([row(x) for x in ans], dtype=np.int64) for _, ans in pairs]
        first = np.array([a[0] for a in accepted], dtype=np.int64)
        # vecto's is_pair_missing: a pair needs its word and its first answer
        ok = (words >= 0) & (first >= 0)
        if set_method:
            train.append((words, first))
            for k in range(len(pairs)):
                ids.append((-1, -1, words[k]))
                answers.append(accepted[k][accepted[k] >= 0])
                covered.append(bool(ok[k]))
                sec.append(s)
                pair_of.append(k)
            continue
        for j in range(len(pairs)):
            for i in range(len(pairs)):
                if i == j:
                    continue
                ids.append((words[i], first[i], words[j]))
                answers.append(accepted[j][accepted[j] >= 0])
                covered.append(bool(ok[i] and ok[j]))
                sec.append(s)
                extra.append(accepted[i][accepted[i] >= 0])
    return _Plan(np.array(ids, dtype=np.int64).reshape(-1, 3), answers, np.array(covered, dtype=bool),
                 np.array(sec, dtype=np.int64), names, extra=extra or None, train=train or None,
                 pair_of=np.array(pair_of, dtype=np.int64) if set_method else None)


def analogy(e, questions, method: str = "3cosadd", *, restrict_vocab: int | None = 300000,
            case_insensitive: bool = True, epsilon: float = 1e-3, topn: int = 1, scorer=None,
            batch_size: int | None = None, memory_budget: int | None = None, random_state=None, data_dir=None,
            progress: bool | None = None) -> AnalogyResult:
    """Answer analogy questions a : b :: c : d by nearest word over a restricted vocabulary.

    3CosAdd (Mikolov et al. 2013) returns argmax_d cos(d, b) − cos(d, a) + cos(d, c), the cosine
    neighbour of b̂ − â + ĉ. 3CosMul (Levy & Goldberg 2014, "Linguistic regularities in sparse and
    explicit word representations", eq. 4) returns argmax_d cos(d, b)·cos(d, c) / (cos(d, a) + ε),
    with each cosine shifted to [0, 1] by (cos + 1)/2 (their footnote 7) and ε = 0.001.
    PairDirection (Levy & Goldberg 2014, Sec. 3; "PairDistance" in vecto and in Drozd et al. 2016)
    returns argmax_d cos(d̂ − ĉ, b̂ − â): the candidate whose offset from c points the way b's points from a.
    The three question words are never answers.

    The set-based solvers of Drozd, Gladkova & Matsuoka (2016), "Word embeddings, analogies, and
    machine learning: beyond king − man + woman = queen", COLING, Sec. 3, learn the relation from the
    other pairs (a_i, a'_i) of the question's section, leaving the question's own pair out:
    3CosAvg returns the cosine neighbour of mean(â'_i) − mean(â_i) + ĉ; LRCos returns argmax_d
    P(d ∈ target class) · cos(d, c), P from a logistic regression trained on the a'_i (positive) against
    the a_i and as many random vocabulary words (negative). Only c is excluded from their answers.
    A section of :class:`~embgeo.data.AnalogyQuestions` gives them its distinct pairs a : b and c : d,
    and each pair is one question; a BATS relation (:class:`~embgeo.data.AnalogyPairs`) gives each of
    its pairs, and for a pairwise method every ordered pair of its pairs, as vecto does.

    Parameters
    ----------
    e : Embeddings
        Vectors in frequency order (the restriction keeps the first rows).
    questions : AnalogyQuestions or AnalogyPairs, or str / Path
        Questions or BATS pairs, or a dataset name/path (``"google-analogy"``, ``"bats-3.0"``, a BATS folder).
    method : {"3cosadd", "3cosmul", "pairdirection", "3cosavg", "lrcos"}
    restrict_vocab : int or None, default 300000
        gensim's convention: only the first ``restrict_vocab`` words are candidates, and a question
        with a word outside them is not covered. None uses the whole vocabulary (vecto's setting).
    case_insensitive : bool, default True
        gensim's convention: compare words upper-cased; a key uses its first (most frequent) row, and
        every case variant of a question word is excluded from the answers.
    epsilon : float, default 1e-3
        3CosMul's ε (gensim's ``most_similar_cosmul`` uses 1e-6).
    topn : int, default 1
        A question is solved when an accepted answer is among the ``topn`` best candidates.
    scorer : callable, optional
        Another way of answering, e.g. :meth:`embgeo.fuzzy.FuzzyEmbeddings.analogy_scorer`:
        ``scorer(ia, ib, ic, exclude, k, n)`` gets the rows of a, b and c of a batch of questions, the
        rows each question may not answer (a list of int arrays) and returns the ``k`` best rows among
        the first ``n``, best first, as an int array of shape (batch, k). ``method`` is then only the
        label reported (default: the scorer's ``label``), and ``e`` needs only ``words`` and ``len``.
    batch_size : int, optional
        Questions per GEMM; by default as many as fit half of ``memory_budget`` bytes of scores (for
        3CosAdd, 3CosMul and PairDirection: as many consecutive questions as need that many distinct rows).
    memory_budget : int, optional
        Bytes of working memory (default :data:`embgeo.blocking.DEFAULT_MEMORY_BUDGET`, 256 MiB).
    random_state : int, Generator or None
        LRCos's random negative words (drawn with replacement from the candidates, one per source word).
    data_dir : str or path-like, optional
        Where a dataset name is looked up (:func:`embgeo.data.dataset_path`); None means
        ``$EMBGEO_DATA``.
    progress : bool, optional
        Progress bar over batches.

    Returns
    -------
    AnalogyResult
        Overall and per-section accuracy with coverage, and each question's prediction and gold
        rank; the accuracy equals gensim's ``KeyedVectors.evaluate_word_analogies`` for 3CosAdd.

    Raises
    ------
    ValueError
        An unknown ``method``, ``topn`` below 1, a ``restrict_vocab`` that leaves fewer than 4 candidate
        words, or a ``scorer`` answer of the wrong shape.

    See Also
    --------
    embgeo.data.read_analogies : Reads questions in the word2vec format.
    embgeo.data.read_bats : Reads BATS pairs (the set methods' data).
    embgeo.KeyedVectors.evaluate_word_analogies : The same 3CosAdd behind gensim's interface.

    Notes
    -----
    One GEMM per batch of questions against the restricted vocabulary (3CosAdd and 3CosMul: one row per
    distinct question word; PairDirection: one per distinct c and one per distinct pair a : b; 3CosAvg: one
    per question; LRCos: two per question), its columns scaled by the
    cached inverse row norms (no unit-length copy of the vectors); a compiled scan then scores every
    candidate from those rows, keeps the best and counts the candidates ahead of the gold answer, so
    memory is bounded by batch × vocabulary cosines. Ties go to the lower row.

    A pair (BATS: a word and its first answer) with a word outside the vocabulary is not covered,
    as vecto's ``is_pair_missing``; vecto's pairwise accuracy counts those questions as wrong (our
    ``accuracy_all``), its set-based accuracy leaves them out (our ``accuracy``). vecto's scores are
    computed on unit vectors (its default ``normalize=True``), as here.

    References
    ----------
    T. Mikolov, W. Yih and G. Zweig (2013). Linguistic regularities in continuous space word
    representations. NAACL-HLT, pp. 746–751 (3CosAdd).

    O. Levy and Y. Goldberg (2014). Linguistic regularities in sparse and explicit word representations.
    CoNLL, pp. 171–180: eq. 4 (3CosMul), Sec. 3 (PairDirection).

    A. Drozd, A. Gladkova and S. Matsuoka (2016). Word embeddings, analogies, and machine learning:
    beyond king − man + woman = queen. COLING, pp. 3519–3530 (3CosAvg, LRCos).
    """
    method, topn = _checked_method(method, topn, scorer)
    questions = as_dataset(questions, "analogy", data_dir)
    n_r = len(e) if restrict_vocab is None else min(int(restrict_vocab), len(e))
    if n_r < 4:
        raise ValueError(f"restrict_vocab={restrict_vocab} leaves {n_r} candidate words; need at least 4")
    lookup, canon = _vocabulary_keys(e.words[:n_r], case_insensitive)
    key = (lambda w: w.upper()) if case_insensitive else (lambda w: w)

    def row(w):
        return lookup.get(key(w), -1)

    set_method = scorer is None and method in SET_METHODS
    plan = _plan(questions, set_method, row)
    n_q = len(plan.covered)
    variants = _case_variants(canon, n_r)

    cos = _Cosines(e, n_r) if scorer is None else None  # a scorer needs only the words
    learned = None
    if cos is not None and set_method:
        learned = _set_queries(method, plan, cos.unit64, n_r, random_state)
        plan.covered &= learned[2]
    rows = np.flatnonzero(plan.covered)
    # the scan keeps only the batch's query cosines; the array-API path of 3CosAdd / 3CosMul also
    # holds its batch × vocabulary scores (its three stacked blocks of cosines and the scores)
    classic_xp = scorer is None and not xb.is_numpy(e.vectors) and method in ("3cosadd", "3cosmul")
    batches = _question_batches(plan, rows, method, n_r, scorer is not None, classic_xp, batch_size, memory_budget)

    top = np.full((n_q, topn), -1, dtype=np.int64)
    ranks = np.full(n_q, -1, dtype=np.int64)
    for batch in progress_bar(batches, total=len(batches), desc=f"analogy {method}", progress=progress, unit="batch"):
        excluded = _excluded_rows(plan.ids[batch], variants, [plan.extra[q] for q in batch] if plan.extra else None)
        if scorer is not None:
            top[batch] = _scorer_batch(scorer, plan.ids[batch], excluded, topn, n_r)
            continue
        accepted = [_with_variants(plan.answers[q], variants) for q in batch]
        if classic_xp:
            top[batch], ranks[batch] = _classic_batch(cos, method, plan.ids[batch], excluded, accepted, topn, epsilon)
        else:
            top[batch], ranks[batch] = _scanned_batch(cos, method, plan.ids[batch], batch, learned, excluded,
                                                      accepted, topn, epsilon)
    predictions = top[:, 0].copy()

    ok = _solved(plan.answers, rows, top, canon)
    covered = plan.covered
    sec = plan.section_ids
    sections = _section_counts(plan, ok)
    n_ok, n_eval = int(ok.sum()), int(covered.sum())
    if scorer is not None:
        ranks[:] = -1
    return AnalogyResult(
        dataset=questions.name, method=method,
        accuracy=n_ok / n_eval if n_eval else float("nan"), accuracy_all=n_ok / n_q if n_q else float("nan"),
        n_correct=n_ok, n_evaluated=n_eval, n_total=n_q, coverage=n_eval / n_q if n_q else float("nan"),
        restrict_vocab=n_r, sections=sections, predictions=predictions, topn=topn,
        per_item={"correct": ok[rows], "item": rows, "rank": ranks[rows]}, ranks=ranks,
        item_sections=np.asarray(sec, dtype=np.int64),
    )


def _checked_method(method, topn, scorer):
    """The reported method label (a scorer's own label by default) and ``topn`` as an int, or a ValueError."""
    if scorer is not None and method == "3cosadd":  # the default label: name the scorer instead
        method = str(getattr(scorer, "label", "scorer"))
    if scorer is None and method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    topn = int(topn)
    if topn < 1:
        raise ValueError(f"topn must be at least 1, got {topn}")
    return method, topn


def _case_variants(canon, n_r) -> dict[int, list[int]]:
    """Per canonical row with several case variants, all its rows: a question word's variants are excluded
    too (gensim drops them from the answers). Empty without case folding (``canon`` None)."""
    variants: dict[int, list[int]] = {}
    if canon is not None:
        multi = np.flatnonzero(np.bincount(canon, minlength=n_r) > 1)
        if multi.size:
            pos = np.flatnonzero(np.isin(canon, multi))
            for r in pos.tolist():
                variants.setdefault(int(canon[r]), []).append(r)
    return variants


class _Cosines:
    """Cosines against the first ``n_r`` rows from the raw rows and their cached inverse norms: no
    unit-length copy of the matrix."""

    def __init__(self, e, n_r):
        self.V = e.vectors[:n_r, ...]
        self.xp = xb.get_namespace(self.V)
        self.inv = cached_inverse_norms(e)[:n_r, ...]
        self.is_np = xb.is_numpy(self.V)
        self.VT = self.V.T if self.is_np else self.xp.matrix_transpose(self.V)

    def unit(self, i):
        """Rows ``i`` at unit length, in the vectors' namespace."""
        return xb.take_rows(self.V, i) * self.xp.reshape(xb.take_rows(self.inv, i), (-1, 1))

    def unit64(self, i):
        """Rows ``i`` at unit length as a float64 NumPy array (what the set methods learn from)."""
        return np.asarray(xb.to_numpy(self.unit(i)), dtype=np.float64)

    def scores(self, Q, in_place=None):
        """Cosines of the unit rows ``Q`` against every candidate (scaled in place on NumPy unless told)."""
        return _scale_columns(self.xp, Q @ self.VT, self.inv, self.is_np if in_place is None else in_place)


def _question_batches(plan, rows, method, n_r, has_scorer, classic_xp, batch_size, memory_budget):
    """The covered questions ``rows`` cut into the batches of one GEMM each."""
    # by default, half the budget for one batch of question-by-vocabulary scores, the other half for the rest
    if batch_size is None and not has_scorer and method in ("3cosadd", "3cosmul", "pairdirection") and not classic_xp:
        keys = plan.ids[rows].tolist()
        if method == "pairdirection":  # the rows of c and of the pair a : b
            keys = [(c, (a, b)) for a, b, c in keys]
        return _row_batches(rows, keys, block_rows(n_r, 4, share(memory_budget, 2)))
    if batch_size is not None:
        size = max(1, int(batch_size))
    elif has_scorer:  # a scorer keeps its own memory budget: give it every question at once
        size = max(1, len(rows))
    else:
        size = min(2048, block_rows(n_r * (5 if classic_xp else _ROWS.get(method, 1)), 4, share(memory_budget, 2)))
    return [rows[s:s + size] for s in range(0, len(rows), size)]


def _scorer_batch(scorer, ids, excluded, topn, n_r):
    """A batch's top rows from a user's ``scorer``, its shape checked."""
    got = np.asarray(xb.to_numpy(scorer(ids[:, 0], ids[:, 1], ids[:, 2], excluded, topn, n_r)), dtype=np.int64)
    if got.shape != (len(ids), topn):
        raise ValueError(f"the analogy scorer returned shape {got.shape}, expected {(len(ids), topn)}")
    return got


def _classic_batch(cos, method, ids, excluded, accepted, topn, epsilon):
    """3CosAdd or 3CosMul on an array-API namespace: a batch's top rows and gold ranks from its full score matrix."""
    xp = cos.xp
    ia, ib, ic = ids[:, 0], ids[:, 1], ids[:, 2]
    C = cos.scores(cos.unit(np.concatenate([ia, ib, ic])), in_place=False)
    S = _cosadd_scores(C, len(ia)) if method == "3cosadd" else _cosmul_scores(xp, C, len(ia), epsilon)
    S = _exclude(xp, S, excluded, False)
    if topn == 1:
        top = xb.to_numpy(xp.argmax(S, axis=1)).astype(np.int64)[:, None]
    else:
        top = xb.to_numpy(select_topk(S, topn)[1]).astype(np.int64)
    return top, _ranks_from_scores(np.asarray(xb.to_numpy(S)), accepted)


def _batch_queries(cos, method, ids, batch, learned):
    """A batch's query rows ``Q``, the scan's score mode, the rows of the cosines each question reads
    (``pos``, shape (batch, 3)) and its constant."""
    xp, B = cos.xp, len(ids)
    ia, ib, ic = ids[:, 0], ids[:, 1], ids[:, 2]
    consts = np.zeros(B)
    if method in ("3cosadd", "3cosmul"):
        # the batch's distinct question words: consecutive questions share them (a section pairs a
        # few dozen words), so the GEMM has fewer rows than one per question
        uniq, where = np.unique(np.concatenate([ia, ib, ic]), return_inverse=True)
        return cos.unit(uniq), (_ADD if method == "3cosadd" else _COSMUL), where.reshape(3, -1).T, consts
    if method == "pairdirection":
        # one row per distinct c and one per distinct example pair a : b (its unit offset)
        cs, wc = np.unique(ic, return_inverse=True)
        ab, wp = np.unique(np.stack([ia, ib], axis=1), axis=0, return_inverse=True)
        d = cos.unit(ab[:, 1]) - cos.unit(ab[:, 0])
        d = d / xp.reshape(xp.maximum(xp.sqrt(xp.sum(d * d, axis=1)), xp.asarray(1e-30, dtype=d.dtype)), (-1, 1))
        c = cos.unit(cs)
        wc, wp = wc.reshape(-1), wp.reshape(-1)
        consts = np.sum(np.asarray(xb.to_numpy(c), np.float64)[wc] * np.asarray(xb.to_numpy(d), np.float64)[wp],
                        axis=1)
        pos = np.stack([wc, len(cs) + wp, np.zeros(B, np.int64)], axis=1)
        return xp.concat([c, d], axis=0), _PAIRDIRECTION, pos, consts
    if method == "3cosavg":
        pos = np.stack([np.arange(B), np.zeros(B, np.int64), np.zeros(B, np.int64)], axis=1)
        return xb.asarray(learned[0][batch], like=cos.V), _SINGLE, pos, consts
    # lrcos
    Q = xp.concat([cos.unit(ic), xb.asarray(learned[0][batch], like=cos.V)], axis=0)
    return Q, _LRCOS, np.stack([np.arange(B), B + np.arange(B), np.zeros(B, np.int64)], axis=1), learned[1][batch]


def _scanned_batch(cos, method, ids, batch, learned, excluded, accepted, topn, epsilon):
    """A batch's top rows and gold ranks: its query rows' cosines in one GEMM, scored by the compiled scan."""
    Q, mode, pos, consts = _batch_queries(cos, method, ids, batch, learned)
    C = np.asarray(xb.to_numpy(cos.scores(Q)))
    if method == "3cosmul":
        C += 1.0
        C *= 0.5
    return _scan(C, pos, consts, mode, epsilon, excluded, accepted, topn)


def _solved(answers, rows, top, canon):
    """Per question, whether one of its ``topn`` best rows (compared by canonical row) is an accepted answer."""
    ok = np.zeros(len(top), dtype=bool)
    keys = np.where(top >= 0, canon[top] if canon is not None else top, -1)
    for q, got in zip(rows.tolist(), keys[rows].tolist()):
        accepted = answers[q].tolist()
        ok[q] = any(x in accepted for x in got if x >= 0)
    return ok


def _section_counts(plan, ok) -> dict:
    """Per section, in file order: its accuracy over covered questions and its counts."""
    sections = {}
    for k, name in enumerate(plan.section_names):
        m = plan.section_ids == k
        n_eval = int(np.sum(plan.covered & m))
        n_ok = int(np.sum(ok & m))
        sections[name] = {"accuracy": n_ok / n_eval if n_eval else float("nan"), "n_correct": n_ok,
                          "n_evaluated": n_eval, "n_total": int(m.sum())}
    return sections


# the score modes of embgeo.kernels.analogy (kept here so that importing this module does not import Numba)
_SINGLE, _COSMUL, _PAIRDIRECTION, _LRCOS, _ADD = 0, 1, 2, 3, 4


def _row_batches(rows, keys, max_rows):
    """``rows`` cut into consecutive batches whose questions need at most ``max_rows`` distinct GEMM rows,
    ``keys[i]`` naming those of question ``rows[i]`` (a batch has one question at least). 3CosAdd's and
    3CosMul's GEMM has one row per distinct word, PairDirection's one per distinct c and per distinct pair
    a : b, and the questions of a section share a few dozen of them: a batch of the budget's rows holds hundreds."""
    out, start, seen = [], 0, set()
    for i, need in enumerate(keys):
        if i > start and len(seen) + sum(x not in seen for x in set(need)) > max_rows:
            out.append(rows[start:i])
            start, seen = i, set()
        seen.update(need)
    if len(rows):
        out.append(rows[start:])
    return out


def _scan(C, pos, consts, mode, eps, excluded, accepted, topn):
    """Top ``topn`` rows and gold ranks of a batch, by :func:`embgeo.kernels.analogy.analogy_scan`."""
    from ..kernels.analogy import analogy_scan

    ex_ptr, ex_idx = _ragged(excluded)
    ans_ptr, ans_idx = _ragged(accepted)
    top = np.empty((len(pos), topn), dtype=np.int64)
    rank = np.empty(len(pos), dtype=np.int64)
    analogy_scan(np.ascontiguousarray(C), np.ascontiguousarray(pos, dtype=np.int64),
                 np.ascontiguousarray(consts, dtype=np.float64), mode,
                 np.float32(eps) if C.dtype == np.float32 else float(eps), ex_ptr, ex_idx, ans_ptr, ans_idx, top, rank)
    return top, rank


def _ragged(lists):
    ptr = np.zeros(len(lists) + 1, dtype=np.int64)
    ptr[1:] = np.cumsum([len(x) for x in lists])
    idx = np.concatenate(lists).astype(np.int64) if len(lists) else np.zeros(0, np.int64)
    return ptr, idx


def _with_variants(answers, variants):
    """The accepted rows with every case variant of them (each one ranks as the answer would)."""
    if not variants:
        return np.asarray(answers, dtype=np.int64)
    rows = set(answers.tolist())
    for x in answers.tolist():
        rows.update(variants.get(x, ()))
    return np.fromiter(sorted(rows), dtype=np.int64, count=len(rows))


def _ranks_from_scores(S, accepted):
    """Gold ranks from a batch's score matrix (excluded entries at -inf), as the scan counts them."""
    out = np.full(len(accepted), -1, dtype=np.int64)
    for q, ans in enumerate(accepted):
        if not len(ans):
            continue
        g = S[q, ans]
        if not np.isfinite(g).any():
            continue
        best = np.nanmax(g)
        j = int(ans[g == best].min())
        out[q] = int(np.sum(S[q] > best) + np.sum(S[q, :j] == best))
    return out


def _set_queries(method, plan, unit, n_r, random_state):
    """Per question of a set method, what it learns from the other pairs of its section (Drozd et al. 2016).

    3CosAvg: the query vector mean(â'_i) − mean(â_i) + ĉ (unit rows; the mean over the covered
    pairs other than the question's). LRCos: the logistic regression's weights and intercept, fitted
    as vecto's ``LRCos`` does: positives the other pairs' first answers in vocabulary, negatives their
    words in vocabulary, each :data:`_LRCOS_SOURCE_WEIGHT` times, and as many random candidate words,
    scikit-learn's ``LogisticRegression(solver="liblinear", class_weight="balanced", C=1)``.

    Returns ``(vectors, intercepts, learned)``: ``learned[q]`` is False where a question has no pair to
    learn from (3CosAvg with no other covered pair), which then counts as not covered.
    """
    n_q, ids = len(plan.covered), plan.ids
    rng = np.random.default_rng(random_state)
    learned = np.ones(n_q, dtype=bool)
    intercepts = np.zeros(n_q)
    vectors: np.ndarray | None = None
    for s, (words, first) in enumerate(plan.train):
        qs = np.flatnonzero(plan.section_ids == s)
        m = len(words)
        ok = (words >= 0) & (first >= 0)
        if method == "3cosavg":
            A, Ap = unit(words[ok]), unit(first[ok])
            sum_a, sum_ap, n_ok = A.sum(axis=0), Ap.sum(axis=0), int(ok.sum())
            pos_ok = np.cumsum(ok) - 1
        for q in qs.tolist():
            k = int(plan.pair_of[q])
            if method == "3cosavg":
                if not plan.covered[q]:
                    continue
                n = n_ok - 1
                if n < 1:
                    learned[q] = False
                    continue
                avg = (sum_ap - Ap[pos_ok[k]]) / n - (sum_a - A[pos_ok[k]]) / n + unit(ids[q, 2:3])[0]
                vectors = np.zeros((n_q, len(avg))) if vectors is None else vectors
                vectors[q] = avg
                continue
            # LRCos: the random words are drawn for every fold, covered or not, in vecto's order (the
            # negatives first, then a random positive if no first answer is known)
            others = np.arange(m) != k
            src = words[others & (words >= 0)]
            tgt = first[others & (first >= 0)]
            noise = rng.integers(0, n_r, size=len(src))
            if not len(tgt):
                tgt = rng.integers(0, n_r, size=1)
            if not plan.covered[q]:
                continue
            w, b = _fit_lrcos(unit, tgt, src, noise)
            vectors = np.zeros((n_q, len(w))) if vectors is None else vectors
            vectors[q], intercepts[q] = w, b
    if vectors is None:
        vectors = np.zeros((n_q, 1))
    return vectors, intercepts, learned


def _fit_lrcos(unit, positive, source, noise):
    """Weights and intercept of LRCos's classifier (vecto's ``gen_vec_single`` training set)."""
    from sklearn.linear_model import LogisticRegression

    X = unit(np.concatenate([positive, np.tile(source, _LRCOS_SOURCE_WEIGHT), noise]))
    y = np.zeros(len(X))
    y[:len(positive)] = 1.0
    clf = LogisticRegression(solver="liblinear", class_weight="balanced", C=1.0, random_state=0)
    clf.fit(X, y)
    return clf.coef_[0], float(clf.intercept_[0])


def _scale_columns(xp, S, inv, is_np):
    """Scores against raw rows divided by those rows' norms (in place for NumPy: S is ours)."""
    if is_np:
        S *= inv[None, :]
        return S
    return S * xp.reshape(inv, (1, -1))


def _cosadd_scores(C, B):
    """3CosAdd's cos(d, b) − cos(d, a) + cos(d, c) from the cosines ``C`` of the stacked a, b and c blocks
    (``B`` rows each): the cosine to b̂ − â + ĉ times that vector's norm, so the same ranking."""
    return (C[B:2 * B, ...] - C[:B, ...]) + C[2 * B:, ...]


def _cosmul_scores(xp, C, B, eps):
    """Levy & Goldberg (2014) eq. 4 with cosines shifted to [0, 1], from the cosines ``C`` of the
    stacked a, b and c blocks (``B`` rows each): one GEMM for the three terms."""
    C = (C + 1.0) / 2.0
    return C[B:2 * B, ...] * C[2 * B:, ...] / (C[:B, ...] + eps)


def _excluded_rows(ids, variants, extra=None):
    """Per question, the rows that may not be the answer: its question words (``ids``, -1 for none), their
    case variants, and ``extra[q]`` (the example pair's other accepted answers)."""
    excl = []
    for q, words in enumerate(ids.tolist()):
        rows = {x for x in words if x >= 0}
        if extra is not None:
            rows.update(extra[q].tolist())
        for x in list(rows):
            rows.update(variants.get(x, ()))
        excl.append(np.fromiter(rows, dtype=np.int64, count=len(rows)))
    return excl


def _exclude(xp, S, excl, is_np):
    if is_np:
        r = np.repeat(np.arange(len(excl)), [len(x) for x in excl])
        S[r, np.concatenate(excl)] = -np.inf
        return S
    mask = np.zeros(tuple(S.shape), dtype=bool)
    for i, cols in enumerate(excl):
        mask[i, cols] = True
    return xp.where(xp.asarray(mask), xp.asarray(-xp.inf, dtype=S.dtype), S)

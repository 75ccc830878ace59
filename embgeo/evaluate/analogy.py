"""Word analogies a : b :: c : ? by 3CosAdd and 3CosMul, batched over questions."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from .. import backend as xb
from ..data import as_dataset
from ..blocking import block_rows, share
from ..linalg import cached_inverse_norms
from ..neighbors import select_topk
from ..progress import progress_bar
from .stats import Resampled

__all__ = ["analogy", "AnalogyResult", "METHODS"]

METHODS = ("3cosadd", "3cosmul")

@dataclass(frozen=True)
class AnalogyResult(Resampled):
    """Outcome of :func:`analogy`.

    Attributes
    ----------
    dataset, method : str
    accuracy : float
        Correct answers among the covered questions (gensim's ``evaluate_word_analogies`` score).
    accuracy_all : float
        Correct answers among all questions: an uncovered question counts as wrong
        (gensim's ``dummy4unknown=True``).
    n_correct, n_evaluated, n_total : int
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
        One row per covered question: ``correct`` (bool) and ``item`` (the question's row in the
        dataset), for :meth:`ci` and :func:`~embgeo.evaluate.compare`.
    """

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

    def statistic(self, per_item: dict) -> float:
        """Share of ``per_item["correct"]`` (the accuracy over covered questions)."""
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


def analogy(e, questions, method: str = "3cosadd", *, restrict_vocab: int | None = 300000,
            case_insensitive: bool = True, epsilon: float = 1e-3, topn: int = 1, scorer=None,
            batch_size: int | None = None, memory_budget: int | None = None, data_dir=None,
            progress: bool | None = None) -> AnalogyResult:
    """Answer analogy questions a : b :: c : d by nearest word over a restricted vocabulary.

    3CosAdd (Mikolov et al. 2013) returns argmax_d cos(d, b) − cos(d, a) + cos(d, c), the cosine
    neighbour of b̂ − â + ĉ. 3CosMul (Levy & Goldberg 2014, "Linguistic regularities in sparse and
    explicit word representations", eq. 4) returns argmax_d cos(d, b)·cos(d, c) / (cos(d, a) + ε),
    with each cosine shifted to [0, 1] by (cos + 1)/2 (their footnote 7) and ε = 0.001.
    The three question words are never answers.

    Parameters
    ----------
    e : Embeddings
        Vectors in frequency order (the restriction keeps the first rows).
    questions : AnalogyQuestions, or str / Path
        Questions, or a dataset name/path (``"google-analogy"``).
    method : {"3cosadd", "3cosmul"}
    restrict_vocab : int or None, default 300000
        gensim's convention: only the first ``restrict_vocab`` words are candidates, and a question
        with a word outside them is not covered. None uses the whole vocabulary.
    case_insensitive : bool, default True
        gensim's convention: compare words upper-cased; a key uses its first (most frequent) row, and
        every case variant of a question word is excluded from the answers.
    epsilon : float, default 1e-3
        3CosMul's ε (gensim's ``most_similar_cosmul`` uses 1e-6).
    topn : int, default 1
        A question is solved when the answer is among the ``topn`` best candidates.
    scorer : callable, optional
        Another way of answering, e.g. :meth:`embgeo.fuzzy.FuzzyEmbeddings.analogy_scorer`:
        ``scorer(ia, ib, ic, exclude, k, n)`` gets the rows of a, b and c of a batch of questions, the
        rows each question may not answer (a list of int arrays) and returns the ``k`` best rows among
        the first ``n``, best first, as an int array of shape (batch, k). ``method`` is then only the
        label reported (default: the scorer's ``label``), and ``e`` needs only ``words`` and ``len``.
    batch_size : int, optional
        Questions per GEMM; by default as many as fit half of ``memory_budget`` bytes of scores.
    memory_budget : int, optional
        Bytes of working memory (default :data:`embgeo.blocking.DEFAULT_MEMORY_BUDGET`, 256 MiB).
    progress : bool, optional
        Progress bar over batches.

    Returns
    -------
    AnalogyResult
        Overall and per-section accuracy with coverage; the accuracy equals gensim's
        ``KeyedVectors.evaluate_word_analogies`` for 3CosAdd.

    Notes
    -----
    One GEMM per batch of questions against the restricted vocabulary (three stacked query blocks
    for 3CosMul), its columns scaled by the cached inverse row norms (no unit-length copy of the
    vectors); memory is bounded by batch × vocabulary scores. Ties go to the lower row.
    """
    if scorer is not None and method == "3cosadd":  # the default label: name the scorer instead
        method = str(getattr(scorer, "label", "scorer"))
    if scorer is None and method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    topn = int(topn)
    if topn < 1:
        raise ValueError(f"topn must be at least 1, got {topn}")
    questions = as_dataset(questions, "analogy", data_dir)
    n_r = len(e) if restrict_vocab is None else min(int(restrict_vocab), len(e))
    if n_r < 4:
        raise ValueError(f"restrict_vocab={restrict_vocab} leaves {n_r} candidate words; need at least 4")
    lookup, canon = _vocabulary_keys(e.words[:n_r], case_insensitive)
    Qw = questions.questions
    key = (lambda w: w.upper()) if case_insensitive else (lambda w: w)
    ids = np.array([lookup.get(key(w), -1) for w in Qw.ravel().tolist()], dtype=np.int64).reshape(-1, 4)
    covered = np.all(ids >= 0, axis=1)
    rows = np.flatnonzero(covered)

    # Case variants of a question word are excluded too (gensim drops them from the answers).
    variants: dict[int, list[int]] = {}
    if canon is not None:
        multi = np.flatnonzero(np.bincount(canon, minlength=n_r) > 1)
        if multi.size:
            pos = np.flatnonzero(np.isin(canon, multi))
            for r in pos.tolist():
                variants.setdefault(int(canon[r]), []).append(r)

    if scorer is None:
        # cosines from the raw rows and their cached inverse norms: no unit-length copy of the matrix
        V = e.vectors[:n_r, ...]
        xp = xb.get_namespace(V)
        inv = cached_inverse_norms(e)[:n_r, ...]
        is_np = xb.is_numpy(V)
        VT = V.T if is_np else xp.matrix_transpose(V)

        def unit(i):
            return xb.take_rows(V, i) * xp.reshape(xb.take_rows(inv, i), (-1, 1))
    # 3CosMul holds the cosines of a batch's distinct question words (at most 3 per question), and
    # for topn > 1 two batch × vocabulary arrays of scores
    factor = (3 if topn == 1 and xb.is_numpy(e.vectors) else 5) if method == "3cosmul" else 1
    if batch_size is None:
        # half the budget for one batch of question-by-vocabulary scores (and 3CosMul's
        # temporaries), the other half for the selection
        budget = share(memory_budget, 2)
        # a scorer keeps its own memory budget: give it every question at once
        batch_size = max(1, len(rows)) if scorer is not None else min(2048, block_rows(n_r * factor, 4, budget))
    batch_size = max(1, int(batch_size))

    top = np.full((len(Qw), topn), -1, dtype=np.int64)
    starts = range(0, len(rows), batch_size)
    for s in progress_bar(starts, total=len(starts), desc=f"analogy {method}", progress=progress, unit="batch"):
        batch = rows[s:s + batch_size]
        ia, ib, ic = ids[batch, 0], ids[batch, 1], ids[batch, 2]
        excluded = _excluded_rows(ia, ib, ic, variants)
        if scorer is not None:
            got = np.asarray(xb.to_numpy(scorer(ia, ib, ic, excluded, topn, n_r)), dtype=np.int64)
            if got.shape != (len(batch), topn):
                raise ValueError(f"the analogy scorer returned shape {got.shape}, expected {(len(batch), topn)}")
            top[batch] = got
            continue
        if method == "3cosadd":
            S = _scale_columns(xp, (unit(ib) - unit(ia) + unit(ic)) @ VT, inv, is_np)
        elif is_np and topn == 1:
            # the batch's distinct question words: consecutive questions share them (a section
            # pairs a few dozen words), so the GEMM has fewer rows than 3CosAdd's one per question,
            # and a compiled scan answers each question without a question × vocabulary matrix
            top[batch, 0] = _cosmul_answers(xp, unit, VT, inv, ia, ib, ic, excluded, epsilon)
            continue
        elif is_np:
            uniq, pos = np.unique(np.concatenate([ia, ib, ic]), return_inverse=True)
            C = _scale_columns(xp, unit(uniq) @ VT, inv, is_np)
            S = _cosmul_from_words(C, pos.reshape(3, -1), epsilon)
        else:
            C = _scale_columns(xp, unit(np.concatenate([ia, ib, ic])) @ VT, inv, is_np)
            S = _cosmul_scores(xp, C, len(ia), epsilon)
        S = _exclude(xp, S, excluded, is_np)
        if topn == 1:
            top[batch, 0] = xb.to_numpy(xp.argmax(S, axis=1)).astype(np.int64)
        else:
            top[batch] = xb.to_numpy(select_topk(S, topn)[1]).astype(np.int64)
    predictions = top[:, 0].copy()

    ok = np.zeros(len(Qw), dtype=bool)
    got = top[rows]
    answer = ids[rows, 3]
    ok[rows] = np.any((canon[got] if canon is not None else got) == answer[:, None], axis=1)
    sec = questions.section_ids
    sections = {}
    for k, name in enumerate(questions.section_names):
        m = sec == k
        n_eval = int(np.sum(covered & m))
        n_ok = int(np.sum(ok & m))
        sections[name] = {"accuracy": n_ok / n_eval if n_eval else float("nan"), "n_correct": n_ok,
                          "n_evaluated": n_eval, "n_total": int(m.sum())}
    n_ok, n_eval, n_tot = int(ok.sum()), int(covered.sum()), len(Qw)
    return AnalogyResult(
        dataset=questions.name, method=method,
        accuracy=n_ok / n_eval if n_eval else float("nan"), accuracy_all=n_ok / n_tot,
        n_correct=n_ok, n_evaluated=n_eval, n_total=n_tot, coverage=n_eval / n_tot,
        restrict_vocab=n_r, sections=sections, predictions=predictions, topn=topn,
        per_item={"correct": ok[rows], "item": rows},
    )


def _scale_columns(xp, S, inv, is_np):
    """Scores against raw rows divided by those rows' norms (in place for NumPy: S is ours)."""
    if is_np:
        S *= inv[None, :]
        return S
    return S * xp.reshape(inv, (1, -1))


def _cosmul_scores(xp, C, B, eps):
    """Levy & Goldberg (2014) eq. 4 with cosines shifted to [0, 1], from the cosines ``C`` of the
    stacked a, b and c blocks (``B`` rows each): one GEMM for the three terms."""
    C = (C + 1.0) / 2.0
    return C[B:2 * B, ...] * C[2 * B:, ...] / (C[:B, ...] + eps)


def _cosmul_answers(xp, unit, VT, inv, ia, ib, ic, excluded, eps):
    """The best row of eq. 4 for each question, from the shifted cosines of its distinct words."""
    from ..kernels.analogy import cosmul_argmax

    uniq, pos = np.unique(np.concatenate([ia, ib, ic]), return_inverse=True)
    C = _scale_columns(xp, unit(uniq) @ VT, inv, True)
    C += 1.0
    C *= 0.5
    pos = pos.reshape(3, -1).astype(np.int64)
    ex_ptr = np.zeros(len(excluded) + 1, dtype=np.int64)
    ex_ptr[1:] = np.cumsum([len(x) for x in excluded])
    ex_idx = np.concatenate(excluded).astype(np.int64) if excluded else np.zeros(0, np.int64)
    out = np.empty(len(ia), dtype=np.int64)
    cosmul_argmax(np.ascontiguousarray(C), pos[0], pos[1], pos[2], np.float32(eps) if C.dtype == np.float32
                  else float(eps), ex_ptr, ex_idx, out)
    return out


def _cosmul_from_words(C, pos, eps):
    """Eq. 4 from the cosines ``C`` of distinct words; ``pos[0|1|2][q]`` is the row of question q's a, b, c.

    The same float32 operations, in the same order, as :func:`_cosmul_scores` (shift, b·c, a + ε,
    divide), so the answers are those of the stacked form."""
    C += 1.0
    C *= 0.5
    S = np.take(C, pos[1], axis=0)
    S *= np.take(C, pos[2], axis=0)
    den = np.take(C, pos[0], axis=0)
    den += eps
    S /= den
    return S


def _excluded_rows(ia, ib, ic, variants):
    """Per question, the rows that may not be the answer: the three question words and their variants."""
    excl = []
    for q in zip(ia.tolist(), ib.tolist(), ic.tolist()):
        rows = set(q)
        for x in q:
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

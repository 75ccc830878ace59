"""Outlier detection: find the word that does not belong to a cluster (Camacho-Collados & Navigli 2016).

Camacho-Collados & Navigli (2016), "Find the word that does not belong: a framework for an intrinsic
evaluation of word vector representations", RepEval workshop, Sec. 2. A set W = C ∪ {o} holds the n
words of a cluster C and one outlier o. The compactness score of w ∈ W is the mean similarity of the
pairs of W \\ {w} (their eq. 1)::

    c(w) = 1/(n(n−1)) Σ_{wi ∈ W∖{w}} Σ_{wj ∈ W∖{w}, wj≠wi} sim(wi, wj)

and the detected outlier is the word of highest c(w). The paper computes it through the
pseudo-inverted compactness score (their eq. 2)::

    p(w) = 1/(2n) Σ_{wi ∈ W, wi≠w} (sim(wi, w) + sim(w, wi)),

the mean similarity of w to the other n words: c(w) = (T − 2n·p(w)) / (n(n−1)) with T the sum over all
ordered pairs of W, so ordering by c descending is ordering by p ascending. The outlier position OP(W)
is the position of o when W is sorted by c ascending (0 … n), outlier detection OD(W) = 1 when
OP(W) = n, and over a dataset D of sets::

    OPP = Σ_W OP(W) / n  / |D|        accuracy = Σ_W OD(W) / |D|

(the paper prints both ×100). ``sim`` is cosine similarity of the vectors, as in the paper.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import ClassVar

import numpy as np

from ..data import as_dataset
from ..linalg import unit_rows
from ._oov import check_finite, check_oov, lookup, mean_vector, raise_first_missing
from .stats import Resampled

__all__ = ["outlier_detection", "OutlierResult"]

_OOV = ("skip", "mean", "raise")


@dataclass(frozen=True, repr=False)
class OutlierResult(Resampled):
    """Outcome of :func:`outlier_detection`.

    Parameters
    ----------
    dataset : str
        The dataset's name.
    accuracy : float
        Share of sets whose outlier has the highest compactness score (the paper's accuracy / 100).
    opp : float
        Mean outlier position over n (the paper's OPP / 100).
    n_sets, n_found, n_total : int
        Sets scored, sets with every word in the vocabulary, sets in the dataset.
    coverage : float
        ``n_found / n_total``.
    oov : str
        The ``oov`` policy used for words not in the vocabulary (``"skip"``, ...).
    clusters : dict
        Per cluster (file order): ``n_words`` known (or clustered), ``n_sets``, ``accuracy``, ``opp``.
    items : list of (cluster, outlier)
        The sets scored, in the order of ``per_item``.
    per_item : dict of str to ndarray
        ``{"correct": bool, "position": OP(W), "size": n, "item": the set's number in the dataset}`` per set
        scored.
    """

    _call = "outlier_detection(…, {dataset!r}, oov={oov!r})"

    dataset: str
    accuracy: float
    opp: float
    n_sets: int
    n_found: int
    n_total: int
    coverage: float
    oov: str
    clusters: dict = field(repr=False)
    items: list = field(repr=False)
    per_item: dict = field(repr=False)

    score_name: ClassVar[str] = "accuracy"

    @property
    def score(self) -> float:
        """The headline score: :attr:`accuracy`."""
        return self.accuracy

    def statistic(self, per_item: dict) -> float:
        """Accuracy of a (resampled) ``per_item`` dict (NaN when empty).

        Parameters
        ----------
        per_item : dict of str to ndarray
            The result's ``per_item``, or a resample of it (as :meth:`ci` draws).

        Returns
        -------
        float
            The score.
        """
        return float(np.mean(per_item["correct"])) if len(per_item["correct"]) else float("nan")

    def table(self) -> list:
        """One row per cluster: ``cluster, n_words, n_sets, accuracy, opp``.

        Returns
        -------
        list of dict
            The rows, in file order (see :attr:`clusters`).
        """
        return [{"cluster": c, **v} for c, v in self.clusters.items()]

    def to_dict(self) -> dict:
        """The fields as plain Python values (JSON-ready).

        Returns
        -------
        dict
            Every field by name (``per_item``'s arrays as lists).
        """
        d = asdict(self)
        d["per_item"] = {k: v.tolist() for k, v in self.per_item.items()}
        return d


def positions(S: np.ndarray, s: np.ndarray, same: np.ndarray | None = None) -> np.ndarray:
    """Outlier positions OP(W) of one cluster's sets, from similarities.

    Parameters
    ----------
    S : ndarray, shape (n, n)
        Similarities among the cluster's words (the diagonal is ignored).
    s : ndarray, shape (k, n)
        ``s[o, i] = sim(outlier o, word i)``.
    same : ndarray of bool, shape (k, n), optional
        ``same[o, i]`` when outlier o and word i have equal vectors (two unknown words under
        ``oov="mean"``, or one word in both roles). Their p are then equal by definition, and the pair
        is a tie whatever the rounding of the two sums says.

    Returns
    -------
    ndarray of int64, shape (k,)
        For each outlier, the number of cluster words whose pseudo-inverted compactness p(w) is
        higher than the outlier's (its position in W sorted by c ascending; n means detected).
        A tie counts against detection.
    """
    n = S.shape[0]
    rest = S.sum(axis=1) - np.diagonal(S)
    p_words = (rest[None, :] + s) / n          # p(w_i) in W = C ∪ {o}: its n−1 cluster mates and o
    p_outlier = s.sum(axis=1) / n
    higher = p_words > p_outlier[:, None]
    if same is not None:
        # p(w_i) and p(o) are sums of the same terms in different orders, so rounding (which depends on
        # the BLAS and the order) would decide an exact tie: decided by the vectors instead
        higher &= ~same
    return higher.sum(axis=1)


def outlier_detection(model, dataset, *, oov: str = "skip", lowercase: bool | None = None, data_dir=None,
                      name: str | None = None) -> OutlierResult:
    """Outlier detection accuracy and OPP with the compactness score of Camacho-Collados & Navigli (2016).

    Parameters
    ----------
    model : Embeddings
        Anything with ``word in model``, ``model.index(word)``, ``model.vectors`` and ``model.dim``.
    dataset : OutlierSets, or str / Path
        Clusters with outliers, or a registry name (``"8-8-8"``, ``"wikisem500"``) or path.
    oov : {"skip", "mean", "raise"}, default "skip"
        A word outside the vocabulary: "skip" leaves it out (a cluster word: the cluster shrinks; an
        outlier: its set is not scored; a cluster with fewer than 2 known words is not scored), "mean"
        gives it the mean vector of the model (word-embeddings-benchmarks' policy), "raise" raises
        :class:`~embgeo.errors.UnknownWordError`. Multi-word names (``Mercedes_Benz``) are looked up as
        one token, as the paper's phrase vectors hold them, and otherwise follow this policy.
    lowercase : bool or None
        None looks a word up as written, then lower-cased (the datasets are cased; GloVe is not).
    data_dir : str or path-like, optional
        Where a dataset name is looked up (:func:`embgeo.data.dataset_path`); None means
        ``$EMBGEO_DATA``.
    name : str, optional
        The dataset's name in the result (default: the dataset's own name).

    Returns
    -------
    OutlierResult
        Accuracy and OPP over the scored sets, per cluster, with coverage.

    Raises
    ------
    ValueError
        An unknown ``oov``, or no set that can be scored.
    UnknownWordError
        With ``oov="raise"``, naming the first unknown word.

    See Also
    --------
    embgeo.data.read_outlier_sets : Reads the datasets.

    References
    ----------
    J. Camacho-Collados and R. Navigli (2016). Find the word that does not belong: a framework for an
    intrinsic evaluation of word vector representations. RepEval workshop, Sec. 2: eq. 1 (compactness
    score), eq. 2 (pseudo-inverted compactness), OPP and accuracy.
    """
    check_oov(oov, _OOV, "outlier_detection")
    data = as_dataset(dataset, "outliers", data_dir)
    words = [w for _, cluster, outliers in data.groups for w in (*cluster, *outliers)]
    rows = lookup(model, words, lowercase)
    if oov == "raise":
        raise_first_missing(words, rows, f"in outlier dataset {data.name}")
    known = rows >= 0
    check_finite(model, rows)
    # one gather and one normalisation for every word of the dataset
    U = np.empty((len(words), model.dim), dtype=np.float64)
    if known.any():
        U[known] = np.asarray(model.vectors[rows[known]], dtype=np.float64)
    if not known.all():
        U[~known] = mean_vector(model)
    U = unit_rows(U)
    correct, position, size, set_ids, items, per_cluster = [], [], [], [], [], {}
    n_found, start, first_set = 0, 0, 0
    for category, cluster, outliers in data.groups:
        c_idx = np.arange(start, start + len(cluster))
        o_idx = np.arange(start + len(cluster), start + len(cluster) + len(outliers))
        start += len(cluster) + len(outliers)
        o_ids = np.arange(first_set, first_set + len(outliers))
        first_set += len(outliers)
        n_found += int(known[c_idx].all()) * int(known[o_idx].sum())
        if oov == "skip":
            c_idx, o_keep = c_idx[known[c_idx]], known[o_idx]
            o_idx, o_ids = o_idx[o_keep], o_ids[o_keep]
            kept_outliers = [o for o, k in zip(outliers, o_keep) if k]
        else:
            kept_outliers = list(outliers)
        if len(c_idx) < 2 or not len(o_idx):
            per_cluster[category] = {"n_words": len(c_idx), "n_sets": 0, "accuracy": float("nan"), "opp": float("nan")}
            continue
        C, O = U[c_idx], U[o_idx]
        op = positions(C @ C.T, O @ C.T, (O[:, None, :] == C[None, :, :]).all(axis=2))
        n = len(c_idx)
        correct.append(op == n)
        position.append(op)
        size.append(np.full(len(op), n))
        set_ids.append(o_ids)
        items += [(category, o) for o in kept_outliers]
        per_cluster[category] = {"n_words": n, "n_sets": len(op), "accuracy": float(np.mean(op == n)),
                                 "opp": float(np.mean(op / n))}
    if not items:
        raise ValueError(f"{data.name}: no set can be scored ({int(known.sum())} of {len(words)} words are in the "
                         "model's vocabulary; a set needs its outlier and 2 cluster words)")
    per_item = {"correct": np.concatenate(correct), "position": np.concatenate(position),
                "size": np.concatenate(size), "item": np.concatenate(set_ids)}
    return OutlierResult(
        dataset=name or data.name, accuracy=float(per_item["correct"].mean()),
        opp=float(np.mean(per_item["position"] / per_item["size"])), n_sets=len(items), n_found=n_found,
        n_total=len(data), coverage=n_found / len(data), oov=oov, clusters=per_cluster, items=items,
        per_item=per_item)

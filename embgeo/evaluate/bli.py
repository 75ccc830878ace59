"""Bilingual lexicon induction (BLI): dictionary readers, held-out splits, P@k / MRR, and the CLI.

Protocol (MUSE, Conneau et al. 2018; VecMap's ``eval_translation.py``, Artetxe et al. 2018;
Glavaš et al. 2019, "How to (properly) evaluate cross-lingual word embeddings"):

- each test *source word* is one query, ranked against the **whole** target vocabulary by NN,
  CSLS or inverted softmax (:func:`embgeo.crosslingual.retrieval_factors`);
- a query is a hit at k when *any* of its gold translations is among the top k (multiple gold
  translations); MRR uses the rank of the best-ranked gold translation;
- OOV policy is explicit: ``oov="skip"`` scores covered queries only and reports coverage
  (MUSE/VecMap), ``oov="miss"`` counts uncovered queries as failures (Glavaš et al. 2019 report
  scores over the whole test set), ``oov="raise"`` refuses any uncovered pair.

Command line (``python -m embgeo bli``)::

    python -m embgeo bli --src glove-6b-50d --tgt fi.vec.gz --train en-fi.tsv --holdout 0.2 \\
        --lowercase --retrieval nn csls --postproc -0.25 0.15 --self-learning
"""
from __future__ import annotations

import math
import zlib
from pathlib import Path

import numpy as np

from .. import backend
from ..neighbors import block_rows
from ..progress import progress_bar

__all__ = ["bli", "read_dictionary", "split_dictionary", "group_dictionary", "gold_ranks",
           "add_arguments", "run"]

_FORMATS = ("auto", "muse", "vecmap", "tsv")


# ------------------------------------------------------------------------------- dictionaries
def read_dictionary(path, *, format: str = "auto", lowercase: bool = False, encoding: str = "utf-8"):
    """Read a bilingual dictionary into a list of (source, target) pairs.

    Parameters
    ----------
    path : str or Path
    format : {"auto", "muse", "vecmap", "tsv"}
        ``"muse"`` and ``"vecmap"``: two whitespace-separated words a line (MUSE's files use a
        space or a tab, VecMap splits on any whitespace); ``"tsv"``: exactly two tab-separated
        fields (words may then contain spaces). ``"auto"`` uses the tab when a line has one,
        otherwise whitespace.
    lowercase : bool
        Lower-case both words (for lower-cased vectors such as GloVe; some dictionaries capitalise
        entries). Pairs that become identical are kept once.
    encoding : str

    Returns
    -------
    list of (str, str)
        In file order, duplicates removed. A source word may have several translations.

    Raises
    ------
    ValueError
        Empty file, or a malformed line (the message names the file and line number).
    """
    if format not in _FORMATS:
        raise ValueError(f"format must be one of {', '.join(_FORMATS)}, got {format!r}")
    path = Path(path)
    pairs, seen = [], set()
    with open(path, encoding=encoding) as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n").rstrip("\r")
            if not line.strip():
                continue
            if format == "tsv" or (format == "auto" and "\t" in line):
                fields = [x.strip() for x in line.split("\t")]
            else:
                fields = line.split()
            if len(fields) != 2 or not all(fields):
                raise ValueError(
                    f"{path}:{n}: malformed dictionary line {line!r}: expected 2 fields "
                    f"(source and target word), found {len([x for x in fields if x])}"
                )
            s, t = (fields[0].lower(), fields[1].lower()) if lowercase else (fields[0], fields[1])
            if (s, t) not in seen:
                seen.add((s, t))
                pairs.append((s, t))
    if not pairs:
        raise ValueError(f"{path}: the dictionary is empty")
    return pairs


def group_dictionary(pairs):
    """{source word: [gold translations]} in first-seen order."""
    out = {}
    for s, t in pairs:
        lst = out.setdefault(s, [])
        if t not in lst:
            lst.append(t)
    return out


def split_dictionary(pairs, test_size: float = 0.2, *, seed: int = 0):
    """Deterministic held-out split **by source word** (all translations of a word go together).

    A word goes to the test part when ``crc32(f"{seed}:{word}") / 2³² < test_size``: the split
    does not depend on the order or size of the dictionary, so a word held out of the 5k
    dictionary is also held out of its 1k and 500 subsets.

    Returns
    -------
    train, test : lists of (source, target) pairs
    """
    if not 0 < test_size < 1:
        raise ValueError(f"test_size must be in (0, 1), got {test_size}")
    train, test = [], []
    for s, t in pairs:
        h = zlib.crc32(f"{seed}:{s}".encode("utf-8")) / 2**32
        (test if h < test_size else train).append((s, t))
    if not train or not test:
        raise ValueError(f"split of {len(pairs)} pairs left an empty part; use a larger dictionary")
    return train, test


# ----------------------------------------------------------------------------------- ranking
def gold_ranks(query_factors, target_factors, gold, *, memory_budget: int | None = None,
               progress=None):
    """Rank (1 = best) of the best-ranked gold target of every query, blocked over queries.

    Scores are ``query_factors @ target_factorsᵀ`` (see
    :func:`embgeo.crosslingual.retrieval_factors`); ties go to the lower target row, as in
    :func:`embgeo.neighbors.topk`, so rank ≤ k exactly when a gold row is in ``topk``'s top k.

    Parameters
    ----------
    gold : list of int arrays
        Gold target rows of each query (at least one each).

    Returns
    -------
    ranks : int64 NumPy array (q,)
    """
    xp = backend.get_namespace(target_factors)
    nq, n = query_factors.shape[0], target_factors.shape[0]
    if len(gold) != nq:
        raise ValueError(f"{len(gold)} gold lists for {nq} queries")
    width = max(len(g) for g in gold)
    pad = np.full((nq, width), -1, dtype=np.int64)
    for i, g in enumerate(gold):
        pad[i, :len(g)] = g
    step = block_rows(n, 4, memory_budget)
    TT = xp.matrix_transpose(target_factors)
    cols = xp.reshape(xp.arange(n, dtype=xp.int64), (1, -1))
    out = []
    starts = range(0, nq, step)
    for s in progress_bar(starts, total=len(starts), desc="BLI ranks", progress=progress, unit="block"):
        e = min(s + step, nq)
        S = query_factors[s:e, ...] @ TT
        g = backend.asarray(pad[s:e], like=S, dtype=None) if not backend.is_numpy(S) else pad[s:e]
        g = xp.astype(xp.asarray(g), xp.int64)
        valid = g >= 0
        gi = xp.where(valid, g, xp.zeros_like(g))
        gs = xp.take_along_axis(S, gi, axis=1)
        gs = xp.where(valid, gs, xp.full_like(gs, -math.inf))
        best = xp.max(gs, axis=1, keepdims=True)
        best_col = xp.min(xp.where(gs == best, gi, xp.full_like(gi, n)), axis=1, keepdims=True)
        above = xp.sum(xp.astype(S > best, xp.int64), axis=1)
        tied = xp.sum(xp.astype((S == best) & (cols < best_col), xp.int64), axis=1)
        out.append(backend.to_numpy(above + tied + 1))
    return np.concatenate(out).astype(np.int64) if out else np.zeros(0, dtype=np.int64)


# -------------------------------------------------------------------------------- evaluation
def bli(src, tgt, test_dictionary, retrieval: str = "nn", *, ks=(1, 5, 10), csls_knn: int = 10,
        isf_beta: float = 30.0, oov: str = "skip", source_size: int | None = None,
        lowercase: bool = False, memory_budget: int | None = None, progress=None) -> dict:
    """Bilingual lexicon induction scores of mapped embeddings.

    Parameters
    ----------
    src, tgt : Embeddings
        Source and target vectors **in the shared space** (e.g. ``Mapper.transform(src, tgt)``).
    test_dictionary : list of (source, target) pairs, or a path (:func:`read_dictionary`)
    retrieval : {"nn", "csls", "isf"}
        Nearest neighbour (cosine), CSLS with ``csls_knn`` neighbours (Conneau et al. 2018, eq. 3),
        or inverted softmax with inverse temperature ``isf_beta`` (Smith et al. 2017, eq. 4).
    ks : tuple of int
        The P@k reported.
    oov : {"skip", "miss", "raise"}
        Queries whose source word, or all of whose gold translations, are out of vocabulary:
        excluded (coverage < 1 reported), counted as failures, or an error.
    source_size : int, optional
        CSLS's r_S and the inverted-softmax denominators run over the first ``source_size``
        source rows (all by default; MUSE uses 200k).
    lowercase : bool
        Lower-case the dictionary when reading it from a path.

    Returns
    -------
    dict
        ``retrieval``, ``P@1``, ``P@5``, ``P@10`` (fractions), ``MRR``, ``coverage``,
        ``n_queries`` (scored), ``n_test`` (distinct test source words), ``n_pairs``.

    Raises
    ------
    ValueError
        Empty dictionary, no covered query, mismatched dimensions, unknown options.
    """
    from ..crosslingual import retrieval_factors

    if oov not in ("skip", "miss", "raise"):
        raise ValueError(f"oov must be 'skip', 'miss' or 'raise', got {oov!r}")
    if isinstance(test_dictionary, (str, Path)):
        test_dictionary = read_dictionary(test_dictionary, lowercase=lowercase)
    pairs = list(test_dictionary)
    if not pairs:
        raise ValueError("the test dictionary is empty")
    if src.dim != tgt.dim:
        raise ValueError(f"source ({src.dim}d) and target ({tgt.dim}d) are not in one space: map them first "
                         "(embgeo.crosslingual.Mapper)")
    groups = group_dictionary(pairs)
    queries, gold = [], []
    uncovered = []
    for s, ts in groups.items():
        g = [tgt.index(t) for t in ts if t in tgt]
        if s in src and g:
            queries.append(src.index(s))
            gold.append(np.asarray(g, dtype=np.int64))
        else:
            uncovered.append(s)
    n_test = len(groups)
    if uncovered and oov == "raise":
        s = uncovered[0]
        side = "source word" if s not in src else "all gold translations of"
        raise ValueError(f"{len(uncovered)} of {n_test} test queries are out of vocabulary "
                         f"(first: {side} {s!r}); use oov='skip' or 'miss'")
    if not queries:
        s, ts = next(iter(groups.items()))
        raise ValueError(
            f"none of the {n_test} test source words has itself and a gold translation in the "
            f"vocabularies (e.g. {s!r} in source: {s in src}, {ts[0]!r} in target: {ts[0] in tgt}); "
            "check the language direction and letter case (lowercase=True)")
    V = src.vectors
    Q = V[np.asarray(queries)] if backend.is_numpy(V) else backend.get_namespace(V).take(
        V, backend.get_namespace(V).asarray(np.asarray(queries)), axis=0)
    source = V if source_size is None else V[:int(source_size), ...]
    Qa, Ta = retrieval_factors(Q, tgt.vectors, retrieval, source=source, csls_knn=csls_knn,
                               isf_beta=isf_beta, memory_budget=memory_budget, progress=progress)
    ranks = gold_ranks(Qa, Ta, gold, memory_budget=memory_budget, progress=progress).astype(np.float64)
    denom = len(queries) if oov == "skip" else n_test
    res = {"retrieval": retrieval}
    for k in ks:
        res[f"P@{k}"] = float(np.sum(ranks <= k) / denom)
    res["MRR"] = float(np.sum(1.0 / ranks) / denom)
    res["coverage"] = len(queries) / n_test
    res["n_queries"] = len(queries)
    res["n_test"] = n_test
    res["n_pairs"] = len(pairs)
    return res


# ---------------------------------------------------------------------------------------- CLI
def add_arguments(parser) -> None:
    """Arguments of ``python -m embgeo bli``."""
    parser.add_argument("--src", required=True, help="source vectors: a name (glove-6b-50d) or a .vec[.gz] path")
    parser.add_argument("--tgt", required=True, help="target vectors: a name or a .vec[.gz] path")
    parser.add_argument("--train", required=True, help="training (seed) dictionary")
    parser.add_argument("--test", help="test dictionary; without it, --holdout of --train is held out")
    parser.add_argument("--holdout", type=float, default=0.2,
                        help="fraction of training source words held out for testing when no --test (0.2)")
    parser.add_argument("--seed-size", type=int, default=None,
                        help="seed = the first N pairs of --train minus the test words (the yacle 1k/500 "
                             "files are the first lines of the 5k file)")
    parser.add_argument("--src-vocab", type=int, default=200000, help="keep the N most frequent source words")
    parser.add_argument("--tgt-vocab", type=int, default=200000, help="keep the N most frequent target words")
    parser.add_argument("--recipe", default=None,
                        help="VecMap recipe: supervised (default), semi_supervised (default with "
                             "--self-learning), identical, acl2017, orthogonal")
    parser.add_argument("--self-learning", action="store_true", help="iterate mapping and dictionary induction")
    parser.add_argument("--vocabulary-cutoff", type=int, default=None, help="self-learning vocabulary cutoff")
    parser.add_argument("--max-iter", type=int, default=None, help="bound on self-learning iterations")
    parser.add_argument("--postproc", nargs=2, type=float, metavar=("ALPHA_SRC", "ALPHA_TGT"),
                        help="POSTPROC similarity-order exponents (paper: -0.25 0.15)")
    parser.add_argument("--pca", default=None, help="reduce the wider space by PCA: N or 'match'")
    parser.add_argument("--retrieval", nargs="+", default=["nn", "csls"], choices=["nn", "csls", "isf"])
    parser.add_argument("--source-size", type=int, default=None,
                        help="CSLS / inverted-softmax statistics over the N most frequent source words (all)")
    parser.add_argument("--oov", default="skip", choices=["skip", "miss", "raise"])
    parser.add_argument("--lowercase", action="store_true", help="lower-case the dictionaries")


def run(args) -> int:
    """Run ``python -m embgeo bli``: map, evaluate, print one table row per retrieval method."""
    import time

    from ..crosslingual import Mapper

    from ..io import load

    src = load(args.src, limit=args.src_vocab)
    tgt = load(args.tgt, limit=args.tgt_vocab)
    pairs = read_dictionary(args.train, lowercase=args.lowercase)
    if args.test:
        test = read_dictionary(args.test, lowercase=args.lowercase)
    else:
        _, test = split_dictionary(pairs, args.holdout)
    test_src = {s for s, _ in test}
    # a smaller seed = the first N pairs of the same file, minus the test words, so that the
    # held-out words (and hence the scores) stay comparable across seed sizes
    pool = pairs[:args.seed_size] if args.seed_size else pairs
    train = [p for p in pool if p[0] not in test_src]
    if not train:
        raise ValueError("no training pair is left after removing the test words")
    recipe = args.recipe or ("semi_supervised" if args.self_learning else "supervised")
    over = {}
    if args.self_learning:
        over["self_learning"] = True
    if args.vocabulary_cutoff:
        over["vocabulary_cutoff"] = args.vocabulary_cutoff
    if args.max_iter:
        over["max_iter"] = args.max_iter
    if args.postproc:
        over["postproc"] = tuple(args.postproc)
    if args.pca:
        over["pca"] = args.pca if args.pca == "match" else int(args.pca)
    mapper = Mapper.from_recipe(recipe, **over)
    t0 = time.perf_counter()
    mapper.fit(src, tgt, train)
    xs, zt = mapper.transform(src, tgt)
    fit_s = time.perf_counter() - t0
    rows = []
    for r in args.retrieval:
        res = bli(xs, zt, test, retrieval=r, oov=args.oov, source_size=args.source_size)
        rows.append(res)
    from .report import Report

    title = (f"BLI {args.src} ({len(src)}x{src.dim}) -> {args.tgt} ({len(tgt)}x{tgt.dim}); recipe {recipe}"
             f"{' ' + str(over) if over else ''}; {len(train)} seed pairs; {rows[0]['n_test']} test words; "
             f"fit {fit_s:.1f}s, {mapper.n_iter_} self-learning iterations")
    pct = {c: "{:.2%}" for c in ("P@1", "P@5", "P@10", "MRR", "coverage")}
    print(Report(rows, columns=["retrieval", "P@1", "P@5", "P@10", "MRR", "coverage", "n_queries"],
                 title=title, formats=pct))
    return 0

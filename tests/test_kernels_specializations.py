"""Each Numba kernel compiles once per genuinely different dtype combination, whoever calls it.

Numba compiles a kernel again for every new tuple of argument types, and a fresh environment (CI)
pays seconds per compile. Types that differ only in an array's read-only flag, an int64 / uint64
index, a literal constant or an omitted default argument are the same computation compiled twice;
the call sites avoid them (:func:`embgeo.kernels.readonly`, docs/contributing.md). The calls below
mix read-only vectors (an :class:`~embgeo.Embeddings`, a memory-mapped or ``bytes`` file) with
writeable float32 arrays through the same public functions, in a fresh interpreter (a dispatcher
keeps every signature its process used), and count each kernel's compiled signatures.

A kernel called only from another kernel is typed only when its caller compiles: loaded from the
cache, the caller brings its compiled callees along and the callee's dispatcher records nothing. Its
count is exact when the caller compiled in the probe (a cold cache, as a fresh CI clone), at most the
expected one otherwise.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]

#: float32 data and outputs only: one specialization each
EXPECTED = {
    "screen.screened_block": 1,
    "screen._max_row_norm": 1,
    "fuzzy.inverse_row_norms": 1,
    "fuzzy._column_partials": 1,
    "fuzzy.write_column_softmax": 1,
    "fuzzy.row_softmax": 1,
    "fuzzy.logit_stats": 1,
    "fuzzy.conditioned_logit": 1,
    "fuzzy.conditioned_logit_row": 1,
    "parse.parse_rows": 1,
    "parse.gather_words": 1,
    "parse.rest_is_blank": 1,
    "parse.format_rows": 1,
    "parse._write_decimal": 1,
    "crosslingual.topk_sweep": 1,
    "crosslingual.argmax_sweep": 1,
    "crosslingual.tile_dropout_argmax": 1,
    "alpha._from_ordered_": 1,
}

#: kernels called only by another kernel: their direct caller
CALLERS = {
    "screen._max_row_norm": "screen.screened_block",
    "fuzzy.conditioned_logit_row": "fuzzy.conditioned_logit",
    "parse._write_decimal": "parse.format_float32",
    "crosslingual.tile_dropout_argmax": "crosslingual.argmax_sweep",
    "alpha._from_ordered_": "alpha._row_f32",
}

PROBE = r"""
import json, sys, tempfile
from pathlib import Path

import numpy as np

import embgeo
from embgeo import neighbors
from embgeo.alpha import AlphaEmbeddings
from embgeo.crosslingual import induce_dictionary
from embgeo.fuzzy import FuzzyEmbeddings, fuzzify

rng = np.random.default_rng(0)
n, d = 9000, 24  # more rows than the screened search seeds with (SEED_ROWS): the index prunes the rest
basis = np.linalg.qr(rng.standard_normal((d, 6)))[0]
W = (rng.standard_normal((n, 6)) @ basis.T).astype(np.float32)  # writeable, rank 6: the index screens
e = embgeo.Embeddings([f"w{i}" for i in range(n)], W.copy())     # read-only vectors
Q = W[:16].copy()
for D in (W, e.vectors):
    for metric in ("cosine", "dot"):
        neighbors.topk(Q, D, 5, metric=metric, backend=neighbors.Exact(screen=True))
        neighbors.topk(Q, D, 5, metric=metric)
    neighbors.csls_topk(Q, D, 5)
e.neighbors(["w1", "w2"], 5, backend=neighbors.Exact(screen=True))

small = e.top(300)
for axis in ("vocabulary", "features"):
    for X in (W[:300], small.vectors):
        fuzzify(X, axis=axis, l2_normalize=True)
    F = FuzzyEmbeddings.from_embeddings(small, axis=axis)
    F.neighbors(["w1", "w2"], 3)
    F.neighbors(["w1", "w2"], 3, reverse=True)

with tempfile.TemporaryDirectory() as tmp:
    for name in ("a.vec", "a.vec.gz", "a.txt"):
        path = Path(tmp) / name
        embgeo.save(small, path, format="glove" if name == "a.txt" else None)
        embgeo.load(path, format="glove" if name == "a.txt" else None)  # memory-mapped / inflated as read
        embgeo.load(path, limit=10, format="glove" if name == "a.txt" else None)  # bytes

for X, Z in ((W[:400], W[400:800]), (e.vectors[:400], e.vectors[400:800])):
    for direction in ("forward", "backward", "union"):
        induce_dictionary(X, Z, direction=direction, retrieval="csls", keep_prob=0.5, random_state=0)

U = rng.standard_normal((60, 5)).astype(np.float32)
AlphaEmbeddings(U, U[::-1].copy(), counts=np.arange(1, 61)).alpha_vectors(0.5)

from embgeo.kernels import alpha, crosslingual, fuzzy, parse, screen
mods = dict(alpha=alpha, crosslingual=crosslingual, fuzzy=fuzzy, parse=parse, screen=screen)
def kernel(name):
    m, f = name.split(".")
    return getattr(mods[m], f)

expected, callers = json.loads(sys.argv[1]), json.loads(sys.argv[2])
sigs = {name: [str(s) for s in kernel(name).signatures] for name in expected}
compiled = {name: sum(kernel(c).stats.cache_misses.values()) > 0 for name, c in callers.items()}
print(json.dumps([sigs, compiled]))
"""


def test_readonly_is_a_view_never_a_copy():
    from embgeo.kernels import readonly

    a = np.arange(6.0).reshape(2, 3)
    v = readonly(a)
    assert np.shares_memory(v, a) and not v.flags.writeable and a.flags.writeable
    assert readonly(v) is v  # already read-only: itself
    assert readonly([1, 2]) == [1, 2]  # not a NumPy array: as it is


def test_each_kernel_compiles_once_per_dtype_combination():
    proc = subprocess.run([sys.executable, "-c", PROBE, json.dumps(EXPECTED), json.dumps(CALLERS)], cwd=REPO,
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    sigs, caller_compiled = json.loads(proc.stdout.strip().splitlines()[-1])
    extra = {k: v for k, v in sigs.items()
             if len(v) > EXPECTED[k] or (len(v) < EXPECTED[k] and caller_compiled.get(k, True))}
    assert extra == {}, "kernels not compiled once per dtype combination:\n" + "\n".join(
        f"{k} ({len(v)}, expected {EXPECTED[k]}):\n    " + "\n    ".join(v) for k, v in extra.items())

"""Golden numbers of MUSE's own ``dist_mean_cosine`` for ``tests/test_selection.py``.

MUSE (Conneau et al. 2018, facebookresearch/MUSE) selects a model without a seed dictionary by
``Evaluator.dist_mean_cosine`` (``src/evaluation/evaluator.py``): the mean cosine of the S2T
translations (NN and CSLS-10) of the 10,000 most frequent source words. This script calls that
unmodified method, in a separate Python with torch (``pip install torch==2.13.0 numpy scipy``;
never a dependency of embgeo), on synthetic spaces that ``tests/test_selection.py`` rebuilds from
the same seed (its ``_golden_spaces``, which :func:`golden_spaces` imports), mapped by three maps
(the true rotation, a perturbed one, a random one), and writes ``tests/data/muse_mean_cosine_golden.json``::

    python benchmarks/reference/muse_mean_cosine_golden.py --muse-dir /tmp/muse-src \
        --muse-python /tmp/ref-multi/bin/python

The target space has 11,000 rows in a shuffled order and the source 12,000, so that MUSE's
``dico_max_rank`` cut (translations whose target row exceeds 10,000 are dropped) takes effect.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "tests" / "data" / "muse_mean_cosine_golden.json"

_DRIVER = r'''
import json, sys
from argparse import Namespace
import numpy as np, torch
sys.path.insert(0, sys.argv[1])
from src.evaluation.evaluator import Evaluator

class _Emb:
    def __init__(self, a):
        self.weight = torch.from_numpy(a)

class _Fake:  # the attributes dist_mean_cosine reads from an Evaluator
    pass

data = np.load(sys.argv[2])
out = {}
for name in ("true", "perturbed", "random"):
    ev = _Fake()
    ev.src_emb, ev.tgt_emb = _Emb(np.ascontiguousarray(data[name])), _Emb(data["tgt"])
    ev.mapping = lambda x: x        # the source rows are given already mapped
    ev.params = Namespace(cuda=False, dico_method="csls_knn_10", dico_build="S2T", dico_threshold=0,
                          dico_max_rank=10000, dico_min_size=0, dico_max_size=10000)
    to_log = {}
    Evaluator.dist_mean_cosine(ev, to_log)
    out[name] = {"nn": float(to_log["mean_cosine-nn-S2T-10000"]),
                 "csls": float(to_log["mean_cosine-csls_knn_10-S2T-10000"])}
print(json.dumps(out))
'''


def golden_spaces():
    """The synthetic spaces and the three maps: ``tests/test_selection.py``'s ``_golden_spaces`` (one
    definition, so that the test rebuilds exactly what MUSE was run on)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("_test_selection", REPO / "tests" / "test_selection.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module._golden_spaces()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--muse-dir", default="/tmp/muse-src", help="a checkout of facebookresearch/MUSE")
    ap.add_argument("--muse-python", default="/tmp/ref-multi/bin/python", help="a Python with torch")
    args = ap.parse_args(argv)
    src, tgt, maps = golden_spaces()
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "spaces.npz"
        np.savez(path, tgt=tgt, **{k: (src @ W).astype(np.float32) for k, W in maps.items()})
        proc = subprocess.run([args.muse_python, "-c", _DRIVER, str(Path(args.muse_dir).resolve()), str(path)],
                              capture_output=True, text=True)
    if proc.returncode:
        raise SystemExit(f"MUSE failed:\n{proc.stderr[-3000:]}")
    golden = json.loads(proc.stdout.strip().splitlines()[-1])
    golden["fingerprint"] = {"src_sum": float(src.astype(np.float64).sum()),
                             "tgt_sum": float(tgt.astype(np.float64).sum())}
    golden["source"] = ("facebookresearch/MUSE src/evaluation/evaluator.py Evaluator.dist_mean_cosine, "
                        "run by benchmarks/reference/muse_mean_cosine_golden.py (torch 2.13.0 CPU)")
    OUT.write_text(json.dumps(golden, indent=1) + "\n")
    print(json.dumps(golden, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

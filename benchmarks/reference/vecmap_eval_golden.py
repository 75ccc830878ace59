"""Golden accuracies of VecMap's ``eval_translation.py`` for :mod:`embgeo.crosslingual`'s retrieval criteria.

VecMap (Artetxe et al.) is a script repository, not a package; clone it and point this script at
the clone::

    git clone https://github.com/artetxem/vecmap /tmp/vecmap
    python benchmarks/reference/vecmap_eval_golden.py --vecmap /tmp/vecmap

A small synthetic pair already in one space is written as text (VecMap's reader): a source space X
(400 × 12, rows of unequal norms), a target space that is a noisy copy of it in shuffled order, with a few "hub" target words pulled
towards the mean so that hubness corrections change the answers, and a test dictionary of 150
source words (20 with a second gold translation, 6 pairs out of vocabulary). ``eval_translation.py``
runs unmodified as a subprocess for ``--retrieval nn``, ``invnn``, ``csls``, ``invsoftmax`` and
``--dot``; its printed coverage and accuracy go with the vectors as VecMap read them (float32 of the
text) into ``tests/data/vecmap_eval_golden.npz``. ``tests/test_invnn.py`` checks
:func:`embgeo.evaluate.bli` against them (P@1 = accuracy, coverage).
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "tests" / "data" / "vecmap_eval_golden.npz"
#: case -> eval_translation.py options (invsoftmax at VecMap's default inverse temperature 1)
CASES = {
    "nn": ["--retrieval", "nn"],
    "invnn": ["--retrieval", "invnn"],
    "csls": ["--retrieval", "csls"],
    "dot": ["--retrieval", "nn", "--dot"],
}


def make_pair(seed=0, n=400, d=12, n_test=150, n_hubs=8):
    """Source words, target words, their float32 vectors as written ('%.6f') and the test pairs."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * rng.uniform(0.5, 2.0, (n, 1))   # unequal norms: --dot differs
    perm = rng.permutation(n)
    Z = X[perm] + 0.9 * rng.standard_normal((n, d))
    hubs = rng.choice(n, n_hubs, replace=False)
    Z[hubs] = 0.3 * Z[hubs] + 0.7 * Z.mean(axis=0) + 0.05 * rng.standard_normal((n_hubs, d))
    X = np.round(X, 6).astype(np.float32)
    Z = np.round(Z, 6).astype(np.float32)
    src = [f"s{i}" for i in range(n)]
    trg = [f"t{i}" for i in range(n)]
    where = np.argsort(perm)                      # target row of source word i
    test = [(src[i], trg[where[i]]) for i in range(n_test)]
    test += [(src[i], trg[(where[i] + 1) % n]) for i in range(0, 40, 2)]      # second gold translations
    test += [("oov_a", trg[0]), ("oov_b", trg[1]), (src[200], "oov_c"), ("oov_d", "oov_e"),
             (src[201], "oov_f"), ("oov_g", trg[2])]
    return src, trg, X, Z, test


def write_vec(path, words, M):
    with open(path, "w", encoding="utf-8") as f:
        f.write(f"{M.shape[0]} {M.shape[1]}\n")
        for w, row in zip(words, M):
            f.write(w + " " + " ".join(f"{x:.6f}" for x in row) + "\n")


def run(vecmap, src, trg, X, Z, test):
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        write_vec(tmp / "src.vec", src, X)
        write_vec(tmp / "trg.vec", trg, Z)
        (tmp / "test.txt").write_text("".join(f"{s} {t}\n" for s, t in test), encoding="utf-8")
        for case, opts in CASES.items():
            cmd = [sys.executable, str(Path(vecmap) / "eval_translation.py"), str(tmp / "src.vec"),
                   str(tmp / "trg.vec"), "-d", str(tmp / "test.txt")] + opts
            text = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
            m = re.search(r"Coverage:\s*([\d.]+)%\s+Accuracy:\s*([\d.]+)%", text)
            out[case] = (float(m.group(1)) / 100, float(m.group(2)) / 100)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vecmap", required=True, help="a clone of https://github.com/artetxem/vecmap")
    args = ap.parse_args()
    src, trg, X, Z, test = make_pair()
    res = run(args.vecmap, src, trg, X, Z, test)
    for case, (cov, acc) in res.items():
        print(f"{case:8s} coverage {cov:.4f} accuracy {acc:.4f}")
    np.savez_compressed(OUT, src=X, trg=Z, test=np.array(test), cases=np.array(list(res)),
                        coverage=np.array([c for c, _ in res.values()]),
                        accuracy=np.array([a for _, a in res.values()]))
    print(f"wrote {OUT.relative_to(REPO)}")


if __name__ == "__main__":
    main()

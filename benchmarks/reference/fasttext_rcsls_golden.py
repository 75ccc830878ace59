"""Regenerate tests/data/rcsls_fasttext_golden.npz by running fastText's alignment/align.py.

    python benchmarks/reference/fasttext_rcsls_golden.py [--repo /work/.mirror/facebookresearch+fastText/repo]

Writes a tiny problem (80 words a side, 6 dimensions, 40 training pairs) as .vec and dictionary
files, runs ``align.py`` itself (its ``alignment/`` directory extracted from the git repository,
executed with ``runpy`` so its final ``R`` can be read at full precision) with ``--knn 3
--maxneg 60 --niter 10`` at two learning rates (1.0, and 20.0 where the loss goes up and lr is
halved), and also evaluates its ``rcsls`` loss/gradient function at the Procrustes start. Stores
the vectors as align.py loaded them, the pairs, and its outputs. Nothing of fastText is copied
into embgeo.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import runpy
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parents[2] / "tests" / "data" / "rcsls_fasttext_golden.npz"


def _write_vec(path, words, X):
    with open(path, "w", encoding="utf-8") as f:
        f.write(f"{len(words)} {X.shape[1]}\n")
        for w, v in zip(words, X):
            f.write(w + " " + " ".join(f"{a:.8f}" for a in v) + "\n")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repo", default="/work/.mirror/facebookresearch+fastText/repo")
    args = ap.parse_args(argv)
    rng = np.random.default_rng(2018)
    n, d, n_train = 80, 6, 40
    X = rng.standard_normal((n, d))
    Q = np.linalg.qr(rng.standard_normal((d, d)))[0]
    Y = X @ Q + 0.6 * rng.standard_normal((n, d))
    perm = rng.permutation(n)                     # target words in another order
    Yp = np.empty_like(Y)
    Yp[perm] = Y
    src_words = [f"s{i}" for i in range(n)]
    tgt_words = [f"t{i}" for i in range(n)]
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        arch = subprocess.run(["git", "--git-dir", args.repo, "archive", "HEAD", "alignment"],
                              check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(tmp)], input=arch, check=True)
        _write_vec(tmp / "src.vec", src_words, X)
        _write_vec(tmp / "tgt.vec", tgt_words, Yp)
        with open(tmp / "train.txt", "w") as f:
            f.writelines(f"s{i} t{perm[i]}\n" for i in range(n_train))
        with open(tmp / "test.txt", "w") as f:
            f.writelines(f"s{i} t{perm[i]}\n" for i in range(n_train, n))
        sys.path.insert(0, str(tmp / "alignment"))
        for tag, lr in (("lr1", 1.0), ("lr20", 20.0)):
            sys.argv = ["align.py", "--src_emb", str(tmp / "src.vec"), "--tgt_emb", str(tmp / "tgt.vec"),
                        "--dico_train", str(tmp / "train.txt"), "--dico_test", str(tmp / "test.txt"),
                        "--knn", "3", "--maxneg", "60", "--niter", "10", "--lr", str(lr)]
            log = io.StringIO()
            with contextlib.redirect_stdout(log):
                g = runpy.run_path(str(tmp / "alignment" / "align.py"), run_name="__main__")
            out[f"R_{tag}"] = g["R"]
            out[f"final_lr_{tag}"] = g["lr"]
            print(f"lr={lr}: final lr {g['lr']}, " + log.getvalue().strip().splitlines()[-1])
        pairs = np.asarray(g["pairs"])
        R0 = g["procrustes"](g["X_src"], g["Y_tgt"])
        # align.py's accuracy printouts renormalise x_tgt in place (by 1 + 1e-8): rebuild every
        # argument from the stored x_src / x_tgt so that the golden loss matches them exactly
        x_src, x_tgt = g["x_src"], g["x_tgt"]
        f0, df0 = g["rcsls"](x_src[pairs[:, 0]], x_tgt[pairs[:, 1]], x_src[:60], x_tgt[:60], R0.copy(), 3)
        out.update(x_src=g["x_src"], x_tgt=g["x_tgt"], src_idx=pairs[:, 0], tgt_idx=pairs[:, 1],
                   R0=R0, loss0=f0, grad0=df0, knn=3, maxneg=60, niter=10)
    np.savez_compressed(OUT, **out)
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()

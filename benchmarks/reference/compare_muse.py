"""embgeo's MUSE refinement against MUSE's own ``supervised.py``: P@1 and seconds, en→fi.

MUSE (Conneau et al. 2018, facebookresearch/MUSE) is a PyTorch program, not a dependency of
embgeo: it runs here as a subprocess, from a checkout given by ``--muse-dir`` (or ``$MUSE_DIR``),
with the Python of a separate environment that has torch (``--muse-python``)::

    python3 -m venv /work/venv-muse && /work/venv-muse/bin/pip install torch==2.13.0 numpy scipy
    # a checkout of github.com/facebookresearch/MUSE in /work/ref/MUSE
    python benchmarks/reference/compare_muse.py --muse-dir /work/ref/MUSE --muse-python /work/venv-muse/bin/python

Both sides get the same files: English GloVe 6B 50d (the first ``--src-vocab`` words; MUSE's
``max_vocab``), Finnish floret 300d reduced to 50d by PCA (MUSE needs one dimension on both
sides; as ``compare_crosslingual.py``), and the yacle en-fi 5k dictionary split 80/20 by source
word (``split_dictionary``, random_state 0): the 80 % trains, the 20 % is MUSE's ``--dico_eval``
and embgeo's test set. MUSE runs its defaults (``--n_refinement 5``, CSLS-10 dictionaries,
``S2T&T2S``, ``dico_max_rank 10000``, no normalisation) on the CPU; embgeo runs
``Mapper.from_recipe("muse")``, which follows that loop. MUSE reports P@1 after every round and
keeps the round with the best CSLS P@1 *on the evaluation dictionary*; embgeo keeps the last
round (docs/crosslingual.md): both are printed.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
DATA = REPO.parent / "shared" / "data"
_LOG = re.compile(r"__log__:(\{.*\})")


def parse_muse_log(text: str) -> list[dict]:
    """The per-round records MUSE logs as ``__log__:{json}`` lines (round 0 is the seed's Procrustes).

    >>> parse_muse_log('INFO - x - __log__:{"n_iter": 0, "precision_at_1-nn": 12.5}\\nother line')
    [{'n_iter': 0, 'precision_at_1-nn': 12.5}]
    """
    return [json.loads(m.group(1)) for m in _LOG.finditer(text)]


def _write_vec(path: Path, words, X) -> None:
    with open(path, "w", encoding="utf-8") as f:
        f.write(f"{len(words)} {X.shape[1]}\n")
        for w, row in zip(words, X):
            f.write(w + " " + " ".join(f"{v:.6f}" for v in row) + "\n")


def _write_pairs(path: Path, pairs) -> None:
    with open(path, "w", encoding="utf-8") as f:
        f.writelines(f"{a} {b}\n" for a, b in pairs)


def run_muse(muse_dir: Path, python: str, tmp: Path, dim: int, max_vocab: int) -> tuple[list[dict], float]:
    cmd = [python, str(muse_dir / "supervised.py"), "--cuda", "False", "--src_lang", "en", "--tgt_lang", "fi",
           "--emb_dim", str(dim), "--max_vocab", str(max_vocab), "--n_refinement", "5",
           "--src_emb", str(tmp / "en.vec"), "--tgt_emb", str(tmp / "fi.vec"),
           "--dico_train", str(tmp / "train.txt"), "--dico_eval", str(tmp / "test.txt"),
           "--export", "", "--exp_path", str(tmp / "exp"), "--exp_name", "compare", "--exp_id", "run"]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=muse_dir, capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    if proc.returncode:
        raise SystemExit(f"MUSE failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return parse_muse_log(proc.stdout + proc.stderr), seconds


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--muse-dir", default=os.environ.get("MUSE_DIR", "/work/ref/MUSE"))
    ap.add_argument("--muse-python", default="/work/venv-muse/bin/python")
    ap.add_argument("--src-vocab", type=int, default=200000, help="English words (MUSE's max_vocab)")
    args = ap.parse_args(argv)
    muse_dir = Path(args.muse_dir)
    if not (muse_dir / "supervised.py").is_file():
        print(f"MUSE not found at {muse_dir} (a checkout of github.com/facebookresearch/MUSE): skipped")
        return 0
    if subprocess.run([args.muse_python, "-c", "import torch"], capture_output=True).returncode:
        print(f"{args.muse_python} cannot import torch (pip install torch==2.13.0 there): skipped")
        return 0
    if not DATA.is_dir():
        print(f"{DATA} not found: skipped")
        return 0

    import embgeo
    from embgeo.crosslingual import Mapper
    from embgeo.data import read_dictionary, split_dictionary
    from embgeo.evaluate import bli
    from embgeo.pca import principal_space

    embgeo.set_progress(False)
    en = embgeo.load("glove-6b-50d", limit=args.src_vocab)
    fi = principal_space(embgeo.load(str(DATA / "vectors" / "fi.floret.300d.30k.vec.gz")), en.dim)
    pairs = read_dictionary(DATA / "bli" / "yacle.train.freq.5k.en-fi.tsv", lowercase=True)
    train, test = split_dictionary(pairs, 0.2, random_state=0)
    print(f"en {en.shape} -> fi {fi.shape} (floret 300d, PCA to {en.dim}); {len(train)} training pairs, "
          f"{len(test)} test pairs; load average {os.getloadavg()[0]:.2f}", flush=True)

    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        _write_vec(tmp / "en.vec", en.words, np.asarray(en.vectors))
        _write_vec(tmp / "fi.vec", fi.words, np.asarray(fi.vectors))
        # MUSE reads its dictionaries with both words in its vocabularies and lower-cased
        _write_pairs(tmp / "train.txt", [(a, b) for a, b in train if a in en and b in fi])
        _write_pairs(tmp / "test.txt", [(a, b) for a, b in test if a in en and b in fi])
        # embgeo first, so that its Numba kernels are compiled (once per installation) before timing
        Mapper.from_recipe("muse", max_iter=1).fit(en.top(5000), fi.top(5000), train[:500])
        t0 = time.perf_counter()
        m = Mapper.from_recipe("muse").fit(en, fi, train)
        e_fit = time.perf_counter() - t0
        xs, zt = m.transform(en, fi)
        e_nn, e_csls = (bli(xs, zt, test, retrieval=r).p_at(1) for r in ("nn", "csls"))
        e_total = time.perf_counter() - t0
        print(f"embgeo done ({e_total:.1f} s); MUSE ...", flush=True)
        log, m_seconds = run_muse(muse_dir, args.muse_python, tmp, en.dim, args.src_vocab)

    if not log:
        raise SystemExit("no __log__ records in MUSE's output")
    best = max(log, key=lambda r: r["precision_at_1-csls_knn_10"])
    last = log[-1]
    print()
    print("round  MUSE P@1 NN  MUSE P@1 CSLS")
    for r in log:
        print(f"{r['n_iter']:5d} {r['precision_at_1-nn']:11.2f}% {r['precision_at_1-csls_knn_10']:13.2f}%")
    print()
    print(f"{'method':44s} {'P@1 NN':>8s} {'P@1 CSLS':>9s} {'seconds':>8s}")
    print(f"{'MUSE supervised.py, last round':44s} {last['precision_at_1-nn']:7.2f}% "
          f"{last['precision_at_1-csls_knn_10']:8.2f}% {m_seconds:8.1f}")
    print(f"{'MUSE supervised.py, best round (its choice)':44s} {best['precision_at_1-nn']:7.2f}% "
          f"{best['precision_at_1-csls_knn_10']:8.2f}% {'':>8s}")
    name = 'embgeo Mapper.from_recipe("muse"), last round'
    print(f"{name:44s} {100 * e_nn:7.2f}% {100 * e_csls:8.2f}% {e_total:8.1f}")
    print(f"\nseconds: MUSE (process: loading, 6 Procrustes, 5 dictionaries, 6 evaluations) / embgeo (fit + "
          f"the two evaluations) = {m_seconds / e_total:.1f}x; embgeo fit alone {e_fit:.1f} s")
    print(f"load average at the end: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Regenerate tests/data/geomm_golden.npz by running the released GeoMM code (anoopkunchukuttan/geomm).

    python benchmarks/reference/geomm_golden.py [--python /tmp/ref-geomm/bin/python]
        [--repo /work/.mirror/anoopkunchukuttan+geomm/repo]

The reference's ``geomm.py`` is run unchanged, as a subprocess, in its own environment: it needs
Python 3.7, NumPy 1.18, SciPy 1.4, Theano 1.0.5 and pymanopt 0.2.5 (its Theano backend), e.g.::

    ~/.pyenv/versions/3.7.16/bin/python -m venv /tmp/ref-geomm
    /tmp/ref-geomm/bin/pip install numpy==1.18.5 scipy==1.4.1 Theano==1.0.5 pymanopt==0.2.5 ipdb

Its files (``geomm.py``, ``embeddings.py``) are read from the git repository into a temporary
directory at run time; nothing of them is copied into embgeo. ``geomm.py`` imports CuPy for one
CSLS step (the target-side neighbourhoods, on the GPU); a stub module ``cupy`` that hands those
few calls (``cp.dot``, ``cp.partition``, ``cp.cuda.Device``, ...) to NumPy is put beside it, so
the reference runs on a CPU with the same arithmetic.

The problem: 40 source words (5d) and 50 target words (6d, the reference needs d_t >= d_s),
the target a noisy linear image of the source; 30 training pairs (two source words with two
translations each), 10 test words. ``--normalize unit center --l2_reg 2 --max_opt_iter 150
--normalize_eval`` (l2_reg 2 is C = 1). The golden file keeps the inputs, the reference's
U_src, U_tgt, B, its latent embeddings (unit length), its final cost (the last cost pymanopt
prints), its CSLS top-1 translations and accuracy.
"""
from __future__ import annotations

import argparse
import re
import subprocess
import tempfile
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parents[2] / "tests" / "data" / "geomm_golden.npz"

CUPY_STUB = '''"""NumPy standing in for the few CuPy calls of geomm.py (its GPU CSLS step)."""
import numpy as _np
from numpy import *  # noqa: F401,F403  (zeros, dot, transpose, partition, mean, asarray)


def asnumpy(a):
    return _np.asarray(a)


class _Device:
    def __init__(self, *args):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class cuda:  # noqa: N801
    Device = _Device
'''


def _show(repo, path):
    return subprocess.run(["git", "--git-dir", str(repo), "show", f"HEAD:{path}"], check=True,
                          capture_output=True, text=True).stdout


def write_vec(path, words, M):
    with open(path, "w", encoding="utf-8") as f:
        f.write(f"{len(words)} {M.shape[1]}\n")
        for w, v in zip(words, M):
            f.write(w + " " + " ".join(f"{x:.8f}" for x in v) + "\n")


def read_vec(path):
    with open(path, encoding="utf-8") as f:
        n, _ = map(int, f.readline().split())
        rows = [f.readline().rstrip("\n").split(" ") for _ in range(n)]
    return [r[0] for r in rows], np.array([[float(x) for x in r[1:] if x] for r in rows])


def problem(seed=2019):
    rng = np.random.default_rng(seed)
    ns, nt, ds, dt = 40, 50, 5, 6
    X = rng.standard_normal((ns, ds)) * np.array([1.0, 2.0, 0.5, 1.5, 1.0])
    M = rng.standard_normal((ds, dt))
    Z = np.empty((nt, dt))
    Z[:ns] = X @ M + 0.3 * rng.standard_normal((ns, dt))
    Z[ns:] = rng.standard_normal((nt - ns, dt)) * 2.0
    train = [(i, i) for i in range(28)] + [(3, 45), (7, 46)]
    test = [(i, i) for i in range(28, 38)]
    return X.astype(np.float32), Z.astype(np.float32), np.array(train), np.array(test)


def run_reference_files(python, repo, src_words, X, trg_words, Z, train, test, l2_reg, max_iter,
                        script="geomm.py"):
    """Run a released script on these vectors and (row-pair) dictionaries.

    Returns its outputs (U, V, B, the unit-length latent embeddings, the CSLS top-1 of each test
    word), its final cost and iterations (pymanopt's log), its accuracy and its solver seconds.
    """
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for f in (script, "embeddings.py"):
            (tmp / f).write_text(_show(repo, f), encoding="utf-8")
        (tmp / "cupy.py").write_text(CUPY_STUB, encoding="utf-8")
        write_vec(tmp / "src.vec", src_words, X)
        write_vec(tmp / "trg.vec", trg_words, Z)
        for name, pairs in (("train.txt", train), ("test.txt", test)):
            (tmp / name).write_text("".join(f"{src_words[a]} {trg_words[b]}\n" for a, b in pairs), encoding="utf-8")
        out = tmp / "out"
        cmd = [python, script, "src.vec", "trg.vec", "-dtrain", "train.txt", "-dtest", "test.txt",
               "--normalize", "unit", "center", "--l2_reg", str(l2_reg), "--max_opt_iter", str(max_iter),
               "--normalize_eval", "--csls_neighbourhood", "10", "--model_path", str(out),
               "--geomm_embeddings_path", str(out)]
        proc = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True, env={"PATH": "/usr/bin:/bin",
                              "HOME": str(Path.home()), "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"})
        if proc.returncode != 0:
            raise RuntimeError(f"the reference failed:\n{proc.stdout}\n{proc.stderr}")
        res = {"U": np.loadtxt(out / "U_src.csv", ndmin=2), "V": np.loadtxt(out / "U_tgt.csv", ndmin=2),
               "B": np.loadtxt(out / "B.csv", ndmin=2)}
        _, res["src_latent"] = read_vec(out / "src.vec")
        _, res["trg_latent"] = read_vec(out / "trg.vec")
        src_row = {w: i for i, w in enumerate(src_words)}
        trg_row = {w: i for i, w in enumerate(trg_words)}
        top1 = {}
        for line in (out / "translations.csv").read_text(encoding="utf-8").splitlines():
            s, _, ranked = line.split(",")
            top1[src_row[s]] = trg_row[ranked.split(":")[-1]]   # nn10 is in ascending score order
        res["top1"] = np.array(sorted(top1.items()))
    res["cost"], res["n_iter"] = final_cost(proc.stdout)
    res["accuracy"] = float(re.search(r"Accuracy:\s*([0-9.]+)%", proc.stdout).group(1)) / 100
    res["seconds"] = float(re.search(r"([0-9.]+) seconds\.", proc.stdout).group(1))
    return res


def final_cost(stdout):
    costs = re.findall(r"^\s*\d+\t([+-][0-9.e+-]+)\t", stdout, flags=re.M)
    return float(costs[-1]), len(costs) - 1


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--python", default="/tmp/ref-geomm/bin/python")
    ap.add_argument("--repo", default="/work/.mirror/anoopkunchukuttan+geomm/repo")
    args = ap.parse_args(argv)
    X, Z, train, test = problem()
    l2_reg, max_iter = 2.0, 150
    res = run_reference_files(args.python, args.repo, [f"s{i}" for i in range(X.shape[0])], X,
                              [f"t{j}" for j in range(Z.shape[0])], Z, train, test, l2_reg, max_iter)
    del res["seconds"]
    print(f"accuracy {res['accuracy']:.2f}, final cost {res['cost']:.10g} after {res['n_iter']} iterations")
    np.savez_compressed(OUT, X=X, Z=Z, train=train, test=test, l2_reg=l2_reg, max_iter=max_iter, **res)
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()

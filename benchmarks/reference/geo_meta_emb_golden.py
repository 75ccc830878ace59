"""Regenerate tests/data/geo_meta_emb_golden.npz from the released geo-meta-emb code.

    python benchmarks/reference/geo_meta_emb_golden.py [--repo /work/.mirror/SatyadevNtv+geo-meta-emb/repo/.git]

The reference (github.com/SatyadevNtv/geo-meta-emb, ``geomm.py``) builds its cost as a Theano
graph, and Theano does not run on current NumPy. This script therefore runs the reference's own
source lines, read from its git repository at run time, with NumPy standing in for the Theano
symbols (``TT.sum``, ``TT.nlinalg.trace``, ``shared``): the data preparation
(``XtAZ = Kx.T.dot(A.dot(Kz))`` …), the cost (``W = U1 B U2ᵀ``, ``0.5·Lambda·‖B‖²`` …), the
transformation (``Kx U1 sqrtm(B)``, ``length_normalize``) and ``generate-meta-embs.py``'s
average and concatenation. The Euclidean gradient is the central difference of that cost
(float64, h = 1e-6). Nothing of the reference is copied into embgeo; the golden file holds only
the inputs and the reference's outputs on a 15-word, 4-dimensional problem.
"""
from __future__ import annotations

import argparse
import subprocess
import textwrap
import types
from pathlib import Path

import numpy as np
import scipy.linalg
from scipy.sparse import coo_matrix

OUT = Path(__file__).resolve().parents[2] / "tests" / "data" / "geo_meta_emb_golden.npz"


def _show(repo, path):
    return subprocess.run(["git", "--git-dir", str(repo), "show", f"HEAD:{path}"], check=True,
                          capture_output=True, text=True).stdout


def _lines(src, first, last):
    """The reference's source lines from the one starting with ``first`` to the one with ``last``."""
    rows = src.splitlines()
    i = next(k for k, r in enumerate(rows) if r.strip().startswith(first))
    j = next(k for k in range(i, len(rows)) if rows[k].strip().startswith(last))
    return textwrap.dedent("\n".join(r for r in rows[i:j + 1] if r.strip()))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repo", default="/work/.mirror/SatyadevNtv+geo-meta-emb/repo/.git")
    args = ap.parse_args(argv)
    geomm = _show(args.repo, "geomm.py")
    meta = _show(args.repo, "generate-meta-embs.py")
    embeddings = types.ModuleType("embeddings")
    exec(_show(args.repo, "embeddings.py"), embeddings.__dict__)

    rng = np.random.default_rng(2020)
    n, d, Lambda = 15, 4, 1e2
    X = rng.standard_normal((n, d)) * np.array([1.0, 2.0, 0.5, 1.5])
    Z = rng.standard_normal((n, d)) + 0.5 * X
    # geomm.py STEP 0 with "--normalize unit unit" (its normalize_emb, run from its source)
    ns = {"embeddings": embeddings, "print": lambda *a, **k: None}
    exec(_lines(geomm, "def normalize_emb", "return emb"), ns)
    Xn, Zn = ns["normalize_emb"](X, "unit"), ns["normalize_emb"](Z, "unit")

    U1 = np.linalg.qr(rng.standard_normal((d, d)))[0]
    U2 = np.linalg.qr(rng.standard_normal((d, d)))[0]
    S = rng.standard_normal((d, d))
    B = S @ S.T / d + 0.5 * np.eye(d)

    TT = types.SimpleNamespace(sum=np.sum, nlinalg=types.SimpleNamespace(trace=np.trace))
    x_count = n
    A = coo_matrix(([1] * x_count, (list(range(x_count)), list(range(x_count)))), shape=(x_count, n))
    env = {"np": np, "TT": TT, "shared": lambda a: a, "A": A, "Xemb1": Xn, "Zemb2": Zn, "Lambda": Lambda}
    exec(_lines(geomm, "Kx, Kz = Xemb1, Zemb2", "AA = np.sum(A*A)"), env)
    cost_src = _lines(geomm, "W = (U1.dot(B)).dot(U2.T)", "cost += shared(AA)")

    def cost(u1, u2, b):
        local = dict(env, U1=u1, U2=u2, B=b)
        exec(cost_src, local)
        return float(local["cost"])

    def fd_grad(which):
        args = [U1, U2, B]
        g = np.zeros_like(args[which])
        h = 1e-6
        for idx in np.ndindex(g.shape):
            p = [a.copy() for a in args]
            m = [a.copy() for a in args]
            p[which][idx] += h
            m[which][idx] -= h
            g[idx] = (cost(*p) - cost(*m)) / (2 * h)
        return g

    f = cost(U1, U2, B)
    gU1, gU2, gB = fd_grad(0), fd_grad(1), fd_grad(2)

    tenv = {"np": np, "scipy": scipy, "embeddings": embeddings, "Kx": Xn, "Kz": Zn, "U1": U1, "U2": U2,
            "B": B}
    exec(_lines(geomm, "xw = Kx.dot(U1)", "zw = Kz.dot(U2)"), tenv)
    exec(_lines(geomm, "xw_n = embeddings.length_normalize(xw)", "zw_n = embeddings.length_normalize(zw)"),
         tenv)
    xw_n, zw_n = np.real(tenv["xw_n"]), np.real(tenv["zw_n"])
    # generate-meta-embs.py's avg and concatenate, per word (its --normalize left empty)
    avg_expr = _lines(meta, "vecs = np.vstack((e1.get(w) + e2.get(w))/2", "vecs = np.vstack((e1.get(w)")
    conc_expr = _lines(meta, "vecs = np.vstack(np.concatenate(", "vecs = np.vstack(np.concatenate(")
    e = {"e1": types.SimpleNamespace(get=lambda w: xw_n[w]), "e2": types.SimpleNamespace(get=lambda w: zw_n[w]),
         "np": np, "words": list(range(n))}
    exec(avg_expr.replace("np.vstack(", "np.vstack(list(", 1).rstrip() + ")", e)
    avg = e["vecs"]
    exec(conc_expr.replace("np.vstack(", "np.vstack(list(", 1).rstrip() + ")", e)
    conc = e["vecs"]
    np.savez_compressed(OUT, X=X, Z=Z, Xn=Xn, Zn=Zn, U1=U1, U2=U2, B=B, l2_reg=Lambda, cost=f,
                        grad_U1=gU1, grad_U2=gU2, grad_B=gB, xw_n=xw_n, zw_n=zw_n, avg=avg, conc=conc)
    print(f"wrote {OUT}: n={n}, d={d}, l2_reg={Lambda}, cost={f:.10g}")


if __name__ == "__main__":
    main()

"""One command for a machine with an NVIDIA GPU: the CUDA tests on the hardware, then the GPU figures.

    python benchmarks/gpu.py --out gpu_results.txt [--quick] [--skip-tests] [--vecmap PATH]

1. ``pytest tests/test_cuda.py`` (and the array-namespace tests) **without** the simulator: the
   kernels and the GPU engine on the hardware must give the CPU engine's lists.
2. Exact cosine top-10 of 10,000 queries against a synthetic 400k × 50 matrix (GloVe's shape; the
   GloVe data package is not on the GPU machine) and a synthetic 2M × 300 matrix, all float32:
   embgeo's GPU engine (CuPy arrays) vs embgeo's CPU engine (NumPy, all cores; on a subset of the
   queries for 2M × 300, reported as queries per second) vs a plain CuPy GEMM + argpartition
   baseline, and FAISS ``GpuIndexFlatIP`` where faiss with GPU support is importable. The GPU
   engine's lists are checked against the CPU engine's on the CPU's queries. The device memory
   peak of the 2M × 300 search is measured by a CuPy memory hook (target: ≤ 8 GiB, database
   included).
3. Each VecMap normalisation (unit, center, unitdim, centeremb) through embgeo's kernels vs the
   plain CuPy expression, on the 2M × 300 matrix.

Every figure is printed with the card's name, and everything is written to ``--out``. Timings are
the best of ``--repeat`` runs after one warm-up run (which pays the kernels' JIT compilation, also
reported). Needs CuPy and numba-cuda; nothing else beyond embgeo's own imports for this path.
numba-cuda 0.30.4 does not compile kernels with NumPy 2.5 (``np.row_stack`` was removed): use NumPy < 2.5.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
import traceback
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


class Log:
    def __init__(self, path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.lines = []

    def __call__(self, *parts):
        line = " ".join(str(p) for p in parts)
        print(line, flush=True)
        self.lines.append(line)
        self.path.write_text("\n".join(self.lines) + "\n")


def card_name(cp):
    props = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)
    name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
    try:
        smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        smi = "nvidia-smi not available"
    return f"{name} ({smi})"


def best_of(fn, repeat, sync):
    times = []
    out = None
    for _ in range(repeat):
        sync()
        t = time.perf_counter()
        out = fn()
        sync()
        times.append(time.perf_counter() - t)
    return min(times), out


def run_tests(log, out_dir):
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH")) if p)
    cmd = [sys.executable, "-m", "pytest", "-q", "-rf", "--tb=short", "-p", "no:cacheprovider",
           "-W", "ignore::numba.core.errors.NumbaPerformanceWarning", "tests/test_cuda.py",
           "tests/test_neighbors.py::test_every_namespace_and_device_matches_numpy",
           "tests/test_normalize.py::test_every_namespace_and_device_matches_numpy",
           "tests/test_backend.py::test_cuda_moves_to_cupy_or_is_a_clear_error_without_it"]
    log("$", " ".join(cmd[1:]))
    t = time.perf_counter()
    res = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True)
    full = Path(out_dir) / "gpu_tests_full.txt"
    full.write_text(res.stdout + res.stderr)
    for line in (res.stdout + res.stderr).strip().splitlines()[-60:]:
        log("   ", line)
    log(f"(the whole pytest output: {full})")
    log(f"tests: exit code {res.returncode} in {time.perf_counter() - t:.1f} s (on the GPU, no simulator)")
    return res.returncode


class PeakHook:
    """Largest bytes in use in CuPy's default memory pool, sampled after every allocation."""

    def __init__(self, cp):
        from cupy.cuda import memory_hook

        pool = cp.get_default_memory_pool()

        class Hook(memory_hook.MemoryHook):
            name = "embgeo-peak"

            def __init__(self):
                self.peak = 0

            def malloc_postprocess(self, **kwargs):
                self.peak = max(self.peak, pool.used_bytes())

        self.hook = Hook()
        self.pool = pool

    def __enter__(self):
        self.hook.peak = self.pool.used_bytes()
        self.hook.__enter__()
        return self.hook

    def __exit__(self, *exc):
        return self.hook.__exit__(*exc)


def baseline_topk(cp, Q, Dn, k, block):
    """The plain CuPy search: unit queries · unit database per block of queries, argpartition, sort."""
    outs, outi = [], []
    for s in range(0, Q.shape[0], block):
        Qb = Q[s:s + block]
        Qb = Qb / cp.linalg.norm(Qb, axis=1, keepdims=True)
        S = Qb @ Dn.T
        part = cp.argpartition(-S, k, axis=1)[:, :k]
        vals = cp.take_along_axis(S, part, axis=1)
        order = cp.argsort(-vals, axis=1)
        outs.append(cp.take_along_axis(vals, order, axis=1))
        outi.append(cp.take_along_axis(part, order, axis=1))
    return cp.concatenate(outs), cp.concatenate(outi)


def search_case(log, cp, nb, name, n, d, nq, k, cpu_queries, repeat, rng_seed):
    sync = cp.cuda.Device().synchronize
    rs = cp.random.RandomState(rng_seed)
    # rows of varied length (as word vectors): cosine differs from the dot product
    D = rs.standard_normal((n, d), dtype=cp.float32) * rs.lognormal(0, 0.3, (n, 1)).astype(cp.float32)
    Q = rs.standard_normal((nq, d), dtype=cp.float32)
    sync()
    log(f"\n== exact cosine top-{k}: {nq} queries vs {n} x {d} (synthetic, float32) ==")
    t = time.perf_counter()
    nb.topk(Q[:64], D[:50_000], min(k, n))
    sync()
    log(f"warm-up (kernel JIT + a small search): {time.perf_counter() - t:.2f} s")
    pool = cp.get_default_memory_pool()
    pool.free_all_blocks()
    base_bytes = pool.used_bytes()
    with PeakHook(cp) as hook:
        t_gpu, (s_gpu, i_gpu) = best_of(lambda: nb.topk(Q, D, k), repeat, sync)
    peak = hook.peak
    log(f"embgeo GPU engine : {t_gpu:8.3f} s  {nq / t_gpu:12,.0f} queries/s   device memory peak "
        f"{peak / 2**30:.2f} GiB in use (database {D.nbytes / 2**30:.2f} GiB + queries "
        f"{Q.nbytes / 2**30:.3f} GiB; before the search {base_bytes / 2**30:.2f} GiB)")
    # the plain CuPy baseline: a unit copy of the database, full-row score blocks of <= 1 GiB
    Dn = D / cp.linalg.norm(D, axis=1, keepdims=True)
    block = max(1, min(4096, 2**30 // (4 * n)))
    baseline_topk(cp, Q[:block], Dn, k, block)  # warm-up: CuPy compiles its kernels on first use
    t_base, (s_b, i_b) = best_of(lambda: baseline_topk(cp, Q, Dn, k, block), repeat, sync)
    agree = float((i_b == i_gpu).all(axis=1).mean())
    log(f"CuPy GEMM+argpartition: {t_base:8.3f} s  {nq / t_base:12,.0f} queries/s   (GPU engine / baseline time: "
        f"{t_gpu / t_base:.2f}x; identical lists for {agree:.1%} of the queries; float32 scores, not certified)")
    del Dn
    try:
        import faiss  # noqa: F401

        has_gpu = hasattr(faiss, "StandardGpuResources")
    except ImportError:
        has_gpu = None
    if has_gpu:
        res = faiss.StandardGpuResources()
        index = faiss.GpuIndexFlatIP(res, d)
        Dh = cp.asnumpy(D)
        Dh /= np.linalg.norm(Dh, axis=1, keepdims=True)
        index.add(Dh)
        Qh = cp.asnumpy(Q)
        Qh /= np.linalg.norm(Qh, axis=1, keepdims=True)
        t_f, _ = best_of(lambda: index.search(Qh, k), repeat, sync)
        log(f"FAISS GpuIndexFlatIP : {t_f:8.3f} s  {nq / t_f:12,.0f} queries/s   (GPU engine / FAISS time: "
            f"{t_gpu / t_f:.2f}x)")
    else:
        log("FAISS GpuIndexFlatIP : not run (" + ("faiss is not installed on this machine" if has_gpu is None
                                                  else "the installed faiss has no GPU support") + ")")
    # the CPU engine, on the first cpu_queries queries; its lists must equal the GPU engine's
    Dh, Qh = cp.asnumpy(D), cp.asnumpy(Q[:cpu_queries])
    t = time.perf_counter()
    s_cpu, i_cpu = nb.topk(Qh, Dh, k)
    t_cpu = time.perf_counter() - t
    same = bool(np.array_equal(i_cpu, cp.asnumpy(i_gpu[:cpu_queries])))
    close = float(np.abs(s_cpu - cp.asnumpy(s_gpu[:cpu_queries])).max())
    log(f"embgeo CPU engine : {t_cpu:8.3f} s for {cpu_queries} queries = {cpu_queries / t_cpu:12,.0f} queries/s on "
        f"{os.cpu_count()} cores (GPU engine / CPU engine throughput: {(nq / t_gpu) / (cpu_queries / t_cpu):.1f}x)")
    t = time.perf_counter()
    s_cn, i_cn = nb.topk(Qh, Dh, k, backend="cuda")
    t_np = time.perf_counter() - t
    same_np = bool(np.array_equal(i_cpu, i_cn)) and bool(np.array_equal(s_cpu, s_cn))
    log(f"GPU engine lists == CPU engine lists on those queries: {same} (max score difference {close:.2e}: CuPy's "
        f"inverse norms may differ in an ulp); NumPy input with backend='cuda' (database copied tile by tile): "
        f"identical lists and scores: {same_np}, {t_np:.2f} s")
    return D


def normalisation_case(log, cp, D, repeat):
    from embgeo.normalize import normalize

    sync = cp.cuda.Device().synchronize
    log(f"\n== VecMap normalisations of {D.shape[0]} x {D.shape[1]} float32 (embgeo kernels vs the plain CuPy "
        "expression, float64 accumulation in both) ==")

    def plain(step):
        X = D.astype(cp.float64)
        if step == "unit":
            n = cp.sqrt((X * X).sum(axis=1, keepdims=True))
            return (X / cp.where(n == 0, 1, n)).astype(D.dtype)
        if step == "center":
            return (X - X.mean(axis=0, keepdims=True)).astype(D.dtype)
        if step == "unitdim":
            n = cp.sqrt((X * X).sum(axis=0, keepdims=True))
            return (X / cp.where(n == 0, 1, n)).astype(D.dtype)
        return (X - X.mean(axis=1, keepdims=True)).astype(D.dtype)

    for step in ("unit", "center", "unitdim", "centeremb"):
        normalize(D[:1000], step)  # compiles the kernels
        t_e, Y = best_of(lambda: normalize(D, step), repeat, sync)
        t_p, Z = best_of(lambda: plain(step), repeat, sync)
        err = float(cp.abs(Y - Z).max())
        log(f"{step:10s} embgeo {t_e * 1e3:8.1f} ms   plain CuPy {t_p * 1e3:8.1f} ms   ratio {t_e / t_p:.2f}x   "
            f"max |difference| {err:.1e}")
        del Y, Z


def induction_case(log, cp, repeat, n):
    """The search of one VecMap self-learning iteration: CSLS dictionary induction both ways with dropout."""
    from embgeo.crosslingual import induce_dictionary
    from embgeo.normalize import normalize

    sync = cp.cuda.Device().synchronize
    rs = cp.random.RandomState(7)
    X = normalize(rs.standard_normal((n, 300), dtype=cp.float32), "unit", "center", "unit")
    Z = normalize(rs.standard_normal((n, 300), dtype=cp.float32), "unit", "center", "unit")
    opts = dict(direction="union", retrieval="csls", csls_knn=10, keep_prob=0.9, random_state=0)
    log(f"\n== dictionary induction of one self-learning iteration (VecMap's: {n} x {n}, d = 300, CSLS, both "
        "directions, dropout keep 0.9; synthetic) ==")
    induce_dictionary(X[:500], Z[:500], **opts)
    t_g, pairs_g = best_of(lambda: induce_dictionary(X, Z, **opts), repeat, sync)
    Xh, Zh = cp.asnumpy(X), cp.asnumpy(Z)
    t = time.perf_counter()
    pairs_c = induce_dictionary(Xh, Zh, **opts)
    t_c = time.perf_counter() - t
    same = float((pairs_g == pairs_c).all(axis=1).mean())
    log(f"GPU {t_g:.3f} s   CPU (embgeo fused, {os.cpu_count()} cores) {t_c:.3f} s   CPU / GPU {t_c / t_g:.1f}x   "
        f"identical pairs {same:.2%} (CSLS r terms and GEMM bits differ between the two, as VecMap's --cuda)")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="file the results are written to")
    ap.add_argument("--quick", action="store_true", help="smaller matrices (a smoke run)")
    ap.add_argument("--skip-tests", action="store_true")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--tiny", action="store_true", help=argparse.SUPPRESS)  # a smoke test of this script
    ap.add_argument("--vecmap", help="a VecMap checkout (its --cuda self-learning is compared when given)")
    args = ap.parse_args(argv)
    log = Log(args.out)
    os.environ.setdefault("EMBGEO_QUIET", "1")
    import warnings

    import cupy as cp
    from numba.core.errors import NumbaPerformanceWarning

    warnings.simplefilter("ignore", NumbaPerformanceWarning)  # small grids in the warm-ups

    import embgeo
    from embgeo import neighbors as nb

    embgeo.set_progress(False)
    log(f"card: {card_name(cp)}; CuPy {cp.__version__}; NumPy {np.__version__}; "
        f"numba-cuda {__import__('numba_cuda').__version__}; embgeo from {Path(embgeo.__file__).parent}")
    t0 = time.perf_counter()
    rc = 0 if args.skip_tests else run_tests(log, Path(args.out).resolve().parent)
    cases = [("glove-shaped", 400_000, 50, 10_000, 10_000), ("2M x 300", 2_000_000, 300, 10_000, 1_000)]
    if args.quick:
        cases = [("quick", 100_000, 50, 2_000, 500)]
    if args.tiny:
        cases = [("tiny", 300, 8, 6, 3)]
    D = None
    for i, (name, n, d, nq, cpu_q) in enumerate(cases):
        try:
            D = search_case(log, cp, nb, name, n, d, nq, 10, cpu_q, args.repeat, 1234 + i)
        except Exception:  # keep the other figures: the run is short and rare
            log(traceback.format_exc())
            rc = rc or 1
        cp.get_default_memory_pool().free_all_blocks()
    try:
        if D is None:
            D = cp.random.RandomState(0).standard_normal((200_000, 300), dtype=cp.float32)
        normalisation_case(log, cp, D, args.repeat)
    except Exception:
        log(traceback.format_exc())
        rc = rc or 1
    try:
        induction_case(log, cp, args.repeat, 2_000 if args.tiny else 20_000)
    except Exception:
        log(traceback.format_exc())
        rc = rc or 1
    if args.vecmap:
        log(f"VecMap --cuda comparison: not run (needs embedding files; checkout given: {args.vecmap})")
    log(f"\ntotal {time.perf_counter() - t0:.1f} s")
    return rc


if __name__ == "__main__":
    sys.exit(main())

"""Shared set-up for benchmarks: data that every bench file may ask for."""
from __future__ import annotations

import numpy as np


def random_embeddings(n: int, d: int, random_state: int = 0):
    """An Embeddings of ``n`` random float32 vectors (words ``w0 … w{n-1}``)."""
    import embgeo

    X = np.random.default_rng(random_state).standard_normal((n, d)).astype(np.float32)
    return embgeo.Embeddings([f"w{i}" for i in range(n)], X, check_finite=False)


def glove_or_none():
    """GloVe 6B 50d when the data extra is installed, else None (benchmarks then skip)."""
    try:
        import embgeo

        return embgeo.load("glove-6b-50d")
    except Exception:  # the data extra is optional for benchmarking
        return None


def best_of(f, repeat: int = 3) -> float:
    """The shortest wall time of ``repeat`` calls of ``f`` (for ratios measured in one process)."""
    import time

    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return min(times)


def timed(fn):
    """``(fn(), wall seconds, CPU seconds of this process)`` of one call (a compare script's row)."""
    import time

    t, c = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - t, time.process_time() - c

"""asv benchmarks: blocked natural alpha embeddings (embgeo.alpha) and their fused kernel."""
from __future__ import annotations

import numpy as np


def _model(n, d, random_state=0):
    rng = np.random.default_rng(random_state)
    U = (rng.standard_normal((n, d)) / np.sqrt(d)).astype(np.float32)
    V = (rng.standard_normal((n, d)) / np.sqrt(d)).astype(np.float32)
    counts = rng.zipf(1.3, n).clip(1, 10**7)
    return U, V, counts


class AlphaVectors:
    """W^α for every word: two GEMMs and the fused l^α kernel per block (4·n²·d flops)."""

    params = ([4000], [100], ["float32", "float64"], [1.0, -1.0])
    param_names = ["n", "d", "dtype", "alpha"]

    def setup(self, n, d, dtype, alpha):
        from embgeo.alpha import AlphaEmbeddings

        U, V, counts = _model(n, d)
        self.ae = AlphaEmbeddings(U, V, counts=counts, p0="ud", dtype=dtype)
        self.ae.fisher_cholesky
        self.ae.alpha_vectors(alpha, ["0"], progress=False)  # JIT warm-up outside the timing

    def time_alpha_vectors(self, n, d, dtype, alpha):
        self.ae.alpha_vectors(alpha, progress=False)

    def track_gflops(self, n, d, dtype, alpha):
        import time

        t = time.perf_counter()
        self.ae.alpha_vectors(alpha, progress=False)
        return 4.0 * n * n * d / (time.perf_counter() - t) / 1e9

    track_gflops.unit = "GFLOP/s"


class AlphaKernel:
    """The fused elementwise step alone (log-sum-exp + l^α) on one block of logits."""

    params = ([256], [20000], ["float32", "float64"], [0.0, 1.5, 40.0])
    param_names = ["rows", "n", "dtype", "beta"]

    def setup(self, rows, n, dtype, beta):
        from embgeo.kernels.alpha import alpha_log_map_

        rng = np.random.default_rng(0)
        self.S0 = (rng.standard_normal((rows, n)) * 2).astype(dtype)
        self.S = np.empty_like(self.S0)
        p0 = rng.dirichlet(np.ones(n))
        self.p0, self.lp0 = p0, np.log(p0)
        self.ls = np.empty(rows)
        self.kernel = alpha_log_map_
        np.copyto(self.S, self.S0)
        self.kernel(self.S, self.lp0, self.p0, beta, self.ls)

    def time_kernel(self, rows, n, dtype, beta):
        np.copyto(self.S, self.S0)
        self.kernel(self.S, self.lp0, self.p0, beta, self.ls)


class AlphaLimit:
    """Limit embeddings (α → −∞): one GEMM and a top-k per block."""

    params = ([1, 5], [False, True])
    param_names = ["top", "weighted"]

    def setup(self, top, weighted):
        from embgeo.alpha import AlphaEmbeddings

        U, V, counts = _model(3000, 100)
        self.ae = AlphaEmbeddings(U, V, counts=counts, p0="ud")
        self.ae.fisher_cholesky

    def time_limit(self, top, weighted):
        self.ae.limit(top=top, weighted=weighted, progress=False)


class AlphaSweep:
    """An α grid on a benchmark-sized word set: one logits GEMM per block serves all α."""

    def setup(self):
        from embgeo.alpha import AlphaEmbeddings

        U, V, counts = _model(5000, 100)
        self.ae = AlphaEmbeddings(U, V, counts=counts, p0="ud")
        rng = np.random.default_rng(1)
        w = [str(i) for i in rng.integers(0, 5000, 600)]
        self.pairs = (w[:300], w[300:], rng.random(300))
        self.ae.fisher_cholesky

    def time_sweep_9_alphas(self):
        from embgeo.alpha import alpha_sweep

        alpha_sweep(self.ae, np.linspace(-8, 8, 9), self.pairs, folds=3, progress=False)


class AlphaAnalogySweep:
    """The paper's α selection on analogies (eq. 6, 3-fold CV, top 3): every candidate embedded per α."""

    def setup(self):
        from embgeo.alpha import AlphaEmbeddings
        from embgeo.data import AnalogyQuestions

        U, V, counts = _model(3000, 50)
        self.ae = AlphaEmbeddings(U, V, counts=counts, p0="0", variant="U+V")
        rng = np.random.default_rng(2)
        q = rng.integers(0, 3000, (400, 4)).astype(str)
        self.questions = AnalogyQuestions({"capital": q[:200], "gram1": q[200:]})
        self.ae.fisher_cholesky

    def time_sweep_5_alphas_nF_pI(self):
        from embgeo.alpha import analogy_sweep

        analogy_sweep(self.ae, [-np.inf, -2.0, 0.0, 1.0, 2.0], self.questions, geometry="euclidean",
                      normalize="fisher", progress=False)

"""asv benchmarks for embgeo.meta (geometric meta-embeddings, Jawanpuria et al. 2020).

The fit is split as the method is: the one-off Gram precomputation (O(n·d²)) and the
Riemannian CG iterations on d×d matrices (O(d³) each, whatever n is).
"""
from __future__ import annotations

import numpy as np


def _sources(n, d1, d2, random_state=0):
    rng = np.random.default_rng(random_state)
    X = rng.standard_normal((n, d1)).astype(np.float32)
    Z = (X @ rng.standard_normal((d1, d2)) + rng.standard_normal((n, d2))).astype(np.float32)
    return X, Z


class GramPrecomputation:
    """Blocked float64 Gram blocks XXᵀ, ZZᵀ, XZᵀ (linear in n)."""

    params = [[10000, 50000], [(50, 384), (50, 50)]]
    param_names = ["n", "dims"]

    def setup(self, n, dims):
        self.X, self.Z = _sources(n, *dims)

    def time_pair_grams(self, n, dims):
        from embgeo.meta import _pair_grams

        _pair_grams([self.X, self.Z], progress=False)


class Iterations:
    """Ten CG iterations on precomputed Grams (independent of n by construction)."""

    params = [[10000, 50000], [(50, 50), (50, 384)]]
    param_names = ["n", "dims"]
    timeout = 120

    def setup(self, n, dims):
        from embgeo.meta import _pair_grams

        self.G = _pair_grams(list(_sources(n, *dims)), progress=False)
        self.n, self.dims = n, list(dims)

    def time_cg_10_iterations(self, n, dims):
        from embgeo.meta import GeometricMetaEmbedding

        gme = GeometricMetaEmbedding(C=1.0, max_iter=10, tol=0.0, progress=False)
        gme._fit_grams(self.G, self.n, self.dims, max(self.dims))


class Transform:
    """Geo-AVG of a fitted model, and the AVG / CONC / SVD baselines (linear in n)."""

    params = [[10000, 50000]]
    param_names = ["n"]

    def setup(self, n):
        from embgeo.meta import GeometricMetaEmbedding

        self.sources = list(_sources(n, 50, 384))
        self.gme = GeometricMetaEmbedding(max_iter=5, progress=False).fit(self.sources)

    def time_geo_avg(self, n):
        self.gme.transform(self.sources)

    def time_average(self, n):
        from embgeo.meta import average

        average(self.sources)

    def time_concatenate_svd(self, n):
        from embgeo.meta import concatenate_svd

        concatenate_svd(self.sources, dim=50, progress=False)

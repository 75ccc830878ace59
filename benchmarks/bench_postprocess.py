"""asv benchmarks for embgeo.postprocess: similarity order, whitening and PPA at vocabulary scale.

Shapes: 400k×50 (GloVe 6B 50d's shape, random data) and 100k×300 (random). Each transform is one
blocked float64 Gram pass + a d×d eigendecomposition + one GEMM, so time is O(n·d²).
"""
from __future__ import annotations

import numpy as np

SHAPES = ["400000x50", "100000x300"]
_CACHE: dict = {}


def _data(shape: str) -> np.ndarray:
    if shape not in _CACHE:
        n, d = (int(v) for v in shape.split("x"))
        _CACHE[shape] = np.random.default_rng(0).standard_normal((n, d), dtype=np.float32)
    return _CACHE[shape]


class SimilarityOrder:
    params = (SHAPES, [0.5, -0.25])
    param_names = ["shape", "alpha"]
    timeout = 120

    def setup(self, shape, alpha):
        self.X = _data(shape)

    def time_similarity_order(self, shape, alpha):
        from embgeo.postprocess import similarity_order

        similarity_order(self.X, alpha)

    def peakmem_similarity_order(self, shape, alpha):
        from embgeo.postprocess import similarity_order

        similarity_order(self.X, alpha)


class PPA:
    params = (SHAPES,)
    param_names = ["shape"]
    timeout = 120

    def setup(self, shape):
        self.X = _data(shape)
        self.d = self.X.shape[1]

    def time_all_but_the_top(self, shape):
        from embgeo.postprocess import all_but_the_top

        all_but_the_top(self.X, max(1, self.d // 100))

    def time_ppa_pca_ppa(self, shape):
        from embgeo.postprocess import ppa_pca_ppa

        ppa_pca_ppa(self.X, self.d // 2, max(1, self.d // 40))

    def time_whiten(self, shape):
        from embgeo.postprocess import whiten

        whiten(self.X)

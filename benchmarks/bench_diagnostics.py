"""asv benchmarks for embgeo.diagnostics: hubness (a self top-k pass plus a bincount), isotropy and IsoScore."""
from __future__ import annotations

from .bench_postprocess import SHAPES, _data  # the same random matrices as the postprocess benchmarks
from .common import random_embeddings


class Hubness:
    params = [10000, 50000]
    param_names = ["n_words"]
    timeout = 300

    def setup(self, n):
        import embgeo

        embgeo.set_progress(False)
        self.e = random_embeddings(n, 50)

    def time_hubness_nn_k10(self, n):
        from embgeo.diagnostics import hubness

        hubness(self.e, k=10)

    def time_self_topk_k10(self, n):
        # the pass hubness stands on: the ratio of the two is the overhead of the measures
        from embgeo.neighbors import self_topk

        self_topk(self.e.vectors, 10)

    def time_hubness_csls_k10(self, n):
        from embgeo.diagnostics import hubness

        hubness(self.e, k=10, retrieval="csls")


class Isotropy:
    params = (SHAPES,)
    param_names = ["shape"]
    timeout = 120

    def setup(self, shape):
        self.X = _data(shape)

    def time_isotropy(self, shape):
        from embgeo.diagnostics import isotropy

        isotropy(self.X)

    def time_isoscore(self, shape):
        # one covariance pass (issue 41: under 2 s on 400k × 50)
        from embgeo.diagnostics import isoscore

        isoscore(self.X)

    def peakmem_isotropy(self, shape):
        from embgeo.diagnostics import isotropy

        isotropy(self.X)

"""asv benchmarks for embgeo.pca: the variance profile and projections at vocabulary scale."""
from __future__ import annotations

from .bench_postprocess import SHAPES, _data  # the same random matrices as the postprocess benchmarks


class VarianceProfile:
    params = (SHAPES,)
    param_names = ["shape"]
    timeout = 120

    def setup(self, shape):
        from embgeo.pca import variance_profile

        self.X = _data(shape)
        self.profile = variance_profile(self.X)

    def time_variance_profile(self, shape):
        from embgeo.pca import variance_profile

        variance_profile(self.X)

    def time_principal_space_half(self, shape):
        from embgeo.pca import principal_space

        principal_space(self.X, self.X.shape[1] // 2, profile=self.profile)

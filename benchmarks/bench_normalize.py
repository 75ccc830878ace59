"""asv benchmarks for the VecMap normalisations (embgeo.normalize) at vocabulary scale."""
from .common import random_embeddings


class Normalize:
    params = (["unit", "center", "unitdim", "centeremb", "unit,center,unit"], [(400000, 50), (100000, 300)])
    param_names = ["steps", "shape"]

    def setup(self, steps, shape):
        self.e = random_embeddings(*shape)

    def time_normalize(self, steps, shape):
        self.e.normalize(*steps.split(","))

    def peakmem_normalize(self, steps, shape):
        self.e.normalize(*steps.split(","))

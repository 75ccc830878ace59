"""asv benchmarks for embgeo.diagnostics: isomorphism measures on a 5,000-pair sample, semantic change."""
from __future__ import annotations

import numpy as np

from .common import random_embeddings


class Isomorphism:
    params = (["eigenvector_similarity", "relational_similarity", "eigenvalue_divergence"],)
    param_names = ["measure"]
    timeout = 300

    def setup(self, measure):
        rng = np.random.default_rng(0)
        self.X = rng.standard_normal((20_000, 300)).astype(np.float32)
        self.Z = rng.standard_normal((20_000, 300)).astype(np.float32)
        self.pairs = np.stack([np.arange(5000), rng.permutation(20_000)[:5000]], axis=1)

    def time_measure(self, measure):
        from embgeo.diagnostics import isomorphism

        isomorphism(self.X, self.Z, self.pairs, measures=[measure], progress=False)


class SemanticChange:
    timeout = 300

    def setup(self):
        self.a = random_embeddings(20_000, 50, random_state=0)
        self.b = random_embeddings(20_000, 100, random_state=1)

    def time_align_same_language(self):
        from embgeo.diagnostics import align_same_language

        align_same_language(self.a, self.b, k=25, progress=False)

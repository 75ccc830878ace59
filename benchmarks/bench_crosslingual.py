"""asv benchmarks for embgeo.crosslingual: Procrustes, CSLS retrieval, dictionary induction (5k; 20k as in self-learning)."""
from __future__ import annotations

import numpy as np


class Procrustes:
    params = [(50, 300)]
    param_names = ["dim"]

    def setup(self, dim):
        rng = np.random.default_rng(0)
        self.X = rng.standard_normal((5000, dim)).astype(np.float32)
        Q, _ = np.linalg.qr(rng.standard_normal((dim, dim)))
        self.Z = (self.X @ Q).astype(np.float32)
        self.Z300 = rng.standard_normal((5000, 300)).astype(np.float32)

    def time_procrustes_square(self, dim):
        from embgeo.crosslingual import procrustes

        procrustes(self.X, self.Z)

    def time_procrustes_to_300d(self, dim):
        from embgeo.crosslingual import procrustes

        procrustes(self.X, self.Z300)


class CSLSRetrieval:
    params = [("nn", "csls", "isf")]
    param_names = ["method"]

    def setup(self, method):
        rng = np.random.default_rng(0)
        self.S = rng.standard_normal((10000, 50)).astype(np.float32)
        self.T = rng.standard_normal((20000, 50)).astype(np.float32)
        self.Q = self.S[:1000]

    def time_retrieve_1k_queries(self, method):
        from embgeo.crosslingual import retrieve

        retrieve(self.Q, self.T, 10, method, source=self.S, progress=False)


class DictionaryInduction:
    params = [("nn", "csls")]
    param_names = ["retrieval"]

    def setup(self, retrieval):
        from embgeo.normalize import normalize

        rng = np.random.default_rng(0)
        self.X = normalize(rng.standard_normal((5000, 50)).astype(np.float32), "unit")
        self.Z = normalize(rng.standard_normal((5000, 50)).astype(np.float32), "unit")

    def time_union_stochastic_5k(self, retrieval):
        from embgeo.crosslingual import induce_dictionary

        induce_dictionary(self.X, self.Z, direction="union", retrieval=retrieval, keep_prob=0.1, random_state=0)


class SelfLearningInduction:
    """The dictionary induction of one VecMap --semi_supervised iteration: 20k × 20k, 50d, union,
    CSLS 10, keep probability 0.1 (two GEMM passes over the score matrix, both directions)."""

    timeout = 300

    def setup(self):
        from embgeo.normalize import normalize

        rng = np.random.default_rng(0)
        self.X = normalize(rng.standard_normal((20000, 50)).astype(np.float32), "unit")
        self.Z = normalize(rng.standard_normal((20000, 50)).astype(np.float32), "unit")

    def time_union_csls_stochastic_20k(self):
        from embgeo.crosslingual import induce_dictionary

        induce_dictionary(self.X, self.Z, direction="union", retrieval="csls", csls_knn=10, keep_prob=0.1,
                          random_state=0)

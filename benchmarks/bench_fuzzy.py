"""asv benchmarks for embgeo.fuzzy: the feature-probability normalisation and vocabulary-wide top-k."""
from __future__ import annotations

import numpy as np

_CACHE: dict = {}


def _embeddings(n: int, d: int):
    if (n, d) not in _CACHE:
        import embgeo

        X = np.random.default_rng(3).standard_normal((n, d), dtype=np.float32)
        _CACHE[(n, d)] = embgeo.Embeddings([f"w{i}" for i in range(n)], X, check_finite=False)
    return _CACHE[(n, d)]


class Normalisation:
    """Exponentiate-and-normalise (Numba kernel), over the vocabulary and over the features."""

    params = (["200000x50", "50000x300"], ["vocabulary", "features"])
    param_names = ["shape", "axis"]
    timeout = 120

    def setup(self, shape, axis):
        from embgeo.fuzzy import fuzzify

        n, d = (int(v) for v in shape.split("x"))
        self.X = _embeddings(n, d).vectors
        fuzzify(self.X[:100], axis=axis)  # JIT outside the timing

    def time_fuzzify(self, shape, axis):
        from embgeo.fuzzy import fuzzify

        fuzzify(self.X, axis=axis)

    def peakmem_fuzzify(self, shape, axis):
        from embgeo.fuzzy import fuzzify

        fuzzify(self.X, axis=axis)


class CrossEntropyTopK:
    """Top-10 by cross-entropy (and KL reversed, Jaccard) for 200 queries against 100k words.

    ``precompute=False`` transforms the candidates block by block inside every call (bounded memory);
    ``True`` reuses a cached transformed vocabulary."""

    params = (["cross_entropy", "kl_reverse", "jaccard"], [False, True])
    param_names = ["measure", "precompute"]
    timeout = 120

    def setup(self, measure, precompute):
        from embgeo.fuzzy import FuzzyEmbeddings

        self.F = FuzzyEmbeddings.from_embeddings(_embeddings(100000, 50))
        self.queries = self.F.words[:200]
        self.measure, self.reverse = ("kl", True) if measure == "kl_reverse" else (measure, False)
        # JIT and (with precompute) the cache outside the timing
        self.F.neighbors(self.queries[:2], 10, measure=self.measure, reverse=self.reverse, precompute=precompute,
                         progress=False)

    def time_topk(self, measure, precompute):
        self.F.neighbors(self.queries, 10, measure=self.measure, reverse=self.reverse, precompute=precompute,
                         progress=False)

    def peakmem_topk(self, measure, precompute):
        self.F.neighbors(self.queries, 10, measure=self.measure, reverse=self.reverse, precompute=precompute,
                         progress=False)

    def time_cosine_topk_same_matrix(self, measure, precompute):
        from embgeo.neighbors import topk

        topk(self.F.memberships[:200], self.F.memberships, 10, progress=False)


class Statistics:
    """Entropies and cardinalities of the vocabulary (Numba kernel, blocks of rows)."""

    timeout = 120

    def setup(self):
        from embgeo.fuzzy import FuzzyEmbeddings

        self.P = FuzzyEmbeddings.from_embeddings(_embeddings(200000, 50)).memberships
        FuzzyEmbeddings([f"w{i}" for i in range(10)], self.P[:10]).entropy()

    def time_entropy(self):
        from embgeo.fuzzy import FuzzyEmbeddings

        FuzzyEmbeddings(_embeddings(200000, 50).words, self.P, check=False).entropy()

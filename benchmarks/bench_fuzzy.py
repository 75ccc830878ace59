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
    """Top-10 by cross-entropy (and KL reversed, Jaccard) for 200 queries against 100k words."""

    params = (["cross_entropy", "kl_reverse", "jaccard"],)
    param_names = ["measure"]
    timeout = 120

    def setup(self, measure):
        from embgeo.fuzzy import FuzzyEmbeddings

        self.F = FuzzyEmbeddings.from_embeddings(_embeddings(100000, 50))
        self.F._stats(reverse=True)  # the one-off precomputation is timed separately
        self.queries = self.F.words[:200]
        self.measure, self.reverse = ("kl", True) if measure == "kl_reverse" else (measure, False)

    def time_topk(self, measure):
        self.F.neighbors(self.queries, 10, measure=self.measure, reverse=self.reverse, progress=False)

    def time_cosine_topk_same_matrix(self, measure):
        from embgeo.neighbors import topk

        topk(self.F.memberships[:200], self.F.memberships, 10, progress=False)


class Precompute:
    """ln µ − ln(1 − µ), Σ ln(1 − µ), entropies and cardinalities of the vocabulary (Numba kernel)."""

    timeout = 120

    def setup(self):
        from embgeo.fuzzy import FuzzyEmbeddings

        self.P = FuzzyEmbeddings.from_embeddings(_embeddings(200000, 50)).memberships
        FuzzyEmbeddings([f"w{i}" for i in range(10)], self.P[:10])._stats()

    def time_stats(self):
        from embgeo.fuzzy import FuzzyEmbeddings

        FuzzyEmbeddings(_embeddings(200000, 50).words, self.P, check=False)._stats()

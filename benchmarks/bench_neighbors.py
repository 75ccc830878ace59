"""asv benchmarks: exact blocked top-k (Numba tiles and argpartition), CSLS, FAISS flat.

Data: 100,000 × 50 random float32 vectors (unit length) with 1,000 queries, made in ``setup``;
and GloVe 6B 50d (400k × 50) when the data extra is installed (skipped otherwise), where the
screened search (``embgeo.neighbors._screening``) and its index build are timed too.
"""
from __future__ import annotations

import numpy as np

from embgeo.neighbors import Exact, Faiss

from .common import glove_or_none, random_embeddings


def _unit(X):
    return (X / np.linalg.norm(X, axis=1, keepdims=True)).astype(np.float32)


def _random(n=100_000, d=50, q=1_000, random_state=0):
    rng = np.random.default_rng(random_state)
    D = _unit(rng.standard_normal((n, d)))
    return np.ascontiguousarray(D[:q]), D


class TopK:
    """Exact top-k of 1,000 queries over 100,000 × 50, by the two NumPy selectors."""

    params = (["numba", "argpartition"], [10, 100])
    param_names = ["selector", "k"]

    def setup(self, selector, k):
        from embgeo.neighbors import Exact, topk

        self.Q, self.D = _random()
        self.topk = topk
        self.engine = Exact(selector=selector)
        topk(self.Q[:4], self.D[:1000], k, metric="dot", backend=self.engine, progress=False)  # JIT warm-up

    def time_topk(self, selector, k):
        self.topk(self.Q, self.D, k, metric="dot", backend=self.engine, progress=False)

    def time_topk_self_excluded(self, selector, k):
        self.topk(self.Q, self.D, k, metric="dot", backend=self.engine, exclude=np.arange(len(self.Q)),
                  progress=False)


class CSLS:
    """CSLS top-10 of 1,000 queries over 100,000 targets, r terms (K=10) included."""

    def setup(self):
        from embgeo.neighbors import csls_topk

        self.Q, self.D = _random()
        self.S = _random(n=20_000, random_state=1)[1]
        self.csls = csls_topk
        csls_topk(self.Q[:4], self.D[:1000], 2, csls_knn=2, progress=False)

    def time_csls_given_source(self):
        self.csls(self.Q, self.D, 10, csls_knn=10, source=self.S, progress=False)

    def time_csls_queries_as_source(self):
        self.csls(self.Q, self.D, 10, csls_knn=10, progress=False)


class FaissFlat:
    """FAISS IndexFlatIP through embgeo's wrapper: same data as TopK."""

    def setup(self):
        from embgeo.neighbors.faiss_index import FaissIndex

        self.Q, self.D = _random()
        self.index = FaissIndex(self.D.shape[1], metric="dot", kind="flat")
        self.index.add(self.D)

    def time_search(self):
        self.index.search(self.Q, 10)

    def time_search_self_excluded(self):
        self.index.search(self.Q, 10, exclude=np.arange(len(self.Q)))


class GloveNeighbors:
    """GloVe 6B 50d (400k words): 1,000 query words, cosine top-10 with self-exclusion."""

    timeout = 300

    def setup(self):
        e = glove_or_none()
        if e is None:
            raise NotImplementedError("GloVe data extra not installed")
        self.e = e
        self.words = e.words[:1000]
        e.neighbors(self.words[:2], k=10, progress=False)  # caches the inverse norms, warms the JIT
        # Exact(screen=True) builds the certified screening index once and keeps it with e
        e.neighbors(self.words[:2], k=10, progress=False, backend=Exact(screen=True))

    def time_neighbors_exact(self):
        self.e.neighbors(self.words, k=10, progress=False)

    def time_neighbors_screened(self):
        """The same lists and scores, screened by the rotation index kept with e."""
        self.e.neighbors(self.words, k=10, progress=False, backend=Exact(screen=True))

    def time_screening_index_build(self):
        from embgeo.neighbors._screening import build_index

        build_index(self.e.vectors, "cosine")

    def time_most_similar(self):
        self.e.most_similar(positive=["king", "woman"], negative=["man"], topn=10)


class FaissCached:
    """Repeated ``e.neighbors(..., backend=Faiss("hnsw"))``: the index is built once (issue 11)."""

    timeout = 300

    def setup(self):

        self.e = random_embeddings(50_000, 50)
        self.words = self.e.words[:100]
        self.e.neighbors(self.words[:1], 10, backend=Faiss("hnsw"))  # builds and caches

    def time_hnsw_cached_100_queries(self):
        self.e.neighbors(self.words, 10, backend=Faiss("hnsw"))


class FirstCallMemory:
    """Peak extra memory (tracemalloc) of a first cosine search: bounded by the budget, not n."""

    def setup(self):
        from embgeo.neighbors import topk

        self.e = random_embeddings(200_000, 100)
        self.words = self.e.words[:200]
        topk(self.e.vectors[:2], self.e.vectors[:100], 2)  # compile outside the measurement

    def track_extra_memory_share_of_matrix(self):
        import tracemalloc

        import embgeo

        e = embgeo.Embeddings(self.e.words, self.e.vectors, check_finite=False)  # nothing cached
        tracemalloc.start()
        e.neighbors(self.words, 10, progress=False)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        return peak / e.vectors.nbytes

    track_extra_memory_share_of_matrix.unit = "x matrix"

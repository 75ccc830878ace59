"""asv benchmarks for embgeo.KeyedVectors (gensim's class with embgeo's loader) and Embeddings.most_similar."""
import os

import embgeo

from .common import random_embeddings


class KeyedVectorsLoad:
    """``KeyedVectors.load_word2vec_format`` of a 20k x 300 word2vec text file, and its conversions."""

    timeout = 300

    def setup_cache(self):
        embgeo.set_progress(False)
        embgeo.save(random_embeddings(20000, 300), "bench_kv.vec", format="word2vec")
        return os.path.abspath("bench_kv.vec")

    def setup(self, path):
        embgeo.set_progress(False)
        self.kv = embgeo.KeyedVectors.load_word2vec_format(path)  # also warms the parser's JIT cache

    def time_load_word2vec_format(self, path):
        embgeo.KeyedVectors.load_word2vec_format(path)

    def time_to_embeddings(self, path):
        self.kv.to_embeddings()


class MostSimilar:
    """One gensim-style analogy query over 100k x 300 (the unit vectors are cached by setup)."""

    def setup(self):
        self.e = random_embeddings(100_000, 300)
        self.e.most_similar("w1", topn=1)

    def time_most_similar_analogy(self):
        self.e.most_similar(positive=["w1", "w2"], negative=["w3"], topn=10)

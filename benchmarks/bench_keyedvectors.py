"""asv benchmarks for embgeo.KeyedVectors (gensim's class running embgeo's loader and engines) and
Embeddings.most_similar."""
import os

import numpy as np

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


class KeyedVectorsQueries:
    """embgeo.KeyedVectors' gensim-named methods, which run embgeo's engines, on 100k x 300 random rows.

    ``setup`` builds the cached Embeddings view, so the times are per query, as a user sees them
    after the first.
    """

    timeout = 300

    def setup(self):
        import tempfile

        embgeo.set_progress(False)
        self.kv = embgeo.KeyedVectors.from_embeddings(random_embeddings(100_000, 300))
        self.kv.most_similar("w1")
        words = self.kv.index_to_key
        rng = np.random.default_rng(0)
        self.tmp = tempfile.TemporaryDirectory()
        self.pairs = os.path.join(self.tmp.name, "pairs.tsv")
        with open(self.pairs, "w", encoding="utf8") as f:
            for a, b in rng.integers(0, 100_000, (1000, 2)):
                f.write(f"{words[a]}\t{words[b]}\t{rng.uniform(0, 10):.2f}\n")
        self.analogies = os.path.join(self.tmp.name, "questions.txt")
        with open(self.analogies, "w", encoding="utf8") as f:
            f.write(": random\n")
            for q in rng.integers(0, 30_000, (500, 4)):
                f.write(" ".join(words[i] for i in q) + "\n")
        self.kv.evaluate_word_pairs(self.pairs)  # the restricted key map is cached with the view

    def teardown(self):
        self.tmp.cleanup()

    def time_most_similar(self):
        self.kv.most_similar("w7", topn=10)

    def time_most_similar_analogy(self):
        self.kv.most_similar(positive=["w1", "w2"], negative=["w3"], topn=10)

    def time_distances(self):
        self.kv.distances("w5")

    def time_evaluate_word_pairs_1000(self):
        self.kv.evaluate_word_pairs(self.pairs)

    def time_evaluate_word_analogies_500(self):
        self.kv.evaluate_word_analogies(self.analogies, restrict_vocab=30_000)

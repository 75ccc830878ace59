"""asv benchmarks for embgeo.evaluate: analogy on a restricted vocabulary, word similarity."""
import numpy as np

from embgeo.data import AnalogyQuestions, WordPairs
from embgeo.evaluate import analogy, word_similarity
from embgeo.linalg import cached_inverse_norms

from .common import random_embeddings


def _synthetic(n_words=20000, dim=50, n_questions=2000, random_state=0):
    rng = np.random.default_rng(random_state + 1)
    e = random_embeddings(n_words, dim, random_state)
    words = e.words
    q = rng.integers(0, n_words, size=(n_questions, 4))
    qs = np.array(words)[q]
    questions = AnalogyQuestions({"s1": qs[: n_questions // 2], "s2": qs[n_questions // 2:]}, "synthetic")
    i, j = rng.integers(0, n_words, 3000), rng.integers(0, n_words, 3000)
    pairs = WordPairs([words[k] for k in i], [words[k] for k in j], rng.random(3000), "synthetic")
    return e, questions, pairs


class Analogy:
    """2,000 questions against a 20,000-word vocabulary (one GEMM per batch of questions)."""

    params = ["3cosadd", "3cosmul"]
    param_names = ["method"]

    def setup(self, method):
        self.e, self.questions, _ = _synthetic()
        cached_inverse_norms(self.e)  # the row norms once, outside the timing (analogy keeps no unit copy)

    def time_analogy(self, method):
        analogy(self.e, self.questions, method=method, restrict_vocab=20000, progress=False)

    def peakmem_analogy(self, method):
        analogy(self.e, self.questions, method=method, restrict_vocab=20000, progress=False)


class WordSimilarity:
    """3,000 pairs: lookup, cosine of aligned pairs, Spearman's rho."""

    def setup(self):
        self.e, _, self.pairs = _synthetic(n_questions=4)
        word_similarity(self.e, self.pairs)  # SciPy's first import stays out of the timing

    def time_word_similarity(self):
        word_similarity(self.e, self.pairs)

    def time_word_similarity_zero_oov(self):
        word_similarity(self.e, self.pairs, oov="zero")

"""asv benchmarks for the analogy solvers of Drozd et al. (2016) and BATS-style pairs (embgeo.evaluate.analogy)."""
import numpy as np

from embgeo.data import AnalogyPairs
from embgeo.evaluate import analogy
from embgeo.linalg import cached_inverse_norms

from .common import random_embeddings


def _bats_like(n_words=20000, dim=50, n_relations=8, n_pairs=50, random_state=0):
    """Random vectors and 8 relations of 50 pairs with 1-3 accepted answers, BATS's shape (40 × 50)."""
    rng = np.random.default_rng(random_state + 1)
    e = random_embeddings(n_words, dim, random_state)
    words = e.words
    sections = {}
    for r in range(n_relations):
        sections[f"R{r:02d}"] = [(words[int(rng.integers(n_words))],
                                  tuple(words[int(k)] for k in rng.integers(0, n_words, int(rng.integers(1, 4)))))
                                 for _ in range(n_pairs)]
    return e, AnalogyPairs(sections, "bats-like")


class Solvers:
    """Every solver on 8 × 50 pairs against 20,000 words: 400 questions for 3CosAvg / LRCos (one
    logistic regression each), 19,600 for the pairwise ones; the gold rank of each question included."""

    params = ["3cosadd", "3cosmul", "pairdirection", "3cosavg", "lrcos"]
    param_names = ["method"]
    timeout = 300

    def setup(self, method):
        self.e, self.pairs = _bats_like()
        cached_inverse_norms(self.e)
        analogy(self.e, AnalogyPairs({k: v[:3] for k, v in list(self.pairs.sections.items())[:1]}),
                method=method, progress=False, random_state=0)  # compile the scan outside the timing

    def time_analogy(self, method):
        analogy(self.e, self.pairs, method=method, progress=False, random_state=0)

    def peakmem_analogy(self, method):
        analogy(self.e, self.pairs, method=method, progress=False, random_state=0)

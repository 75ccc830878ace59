"""asv benchmarks for embgeo.evaluate.stats: bootstrap intervals over per-item scores.

Sizes of the real sets, synthetic scores (the model is never re-run): Google analogy's 19,544 questions
(issue 29's target: a 10,000-resample interval in at most 2 s) and MEN's 3,000 pairs (Spearman's ρ)."""
import numpy as np

from embgeo.evaluate.analogy import AnalogyResult
from embgeo.evaluate.similarity import SimilarityResult


def _accuracy_result(n=19544, random_state=0):
    correct = np.random.default_rng(random_state).random(n) < 0.46
    return AnalogyResult("google-analogy", "3cosadd", float(correct.mean()), float(correct.mean()), int(correct.sum()),
                         n, n, 1.0, 300000, per_item={"correct": correct, "item": np.arange(n)})


def _similarity_result(n=3000, random_state=0):
    rng = np.random.default_rng(random_state)
    gold = np.round(rng.uniform(0, 50, n))                 # MEN-like integer ratings, many ties
    pred = gold / 50 + rng.normal(scale=0.3, size=n)
    return SimilarityResult("men", "cosine", 0.0, 0.0, 0.0, 0.0, n, n, n, 1.0, "skip",
                            per_item={"gold": gold, "predicted": pred, "item": np.arange(n)})


class AccuracyInterval:
    """BCa and percentile intervals of an accuracy over 19,544 questions, 10,000 resamples."""

    params = ["bca", "percentile"]
    param_names = ["method"]

    def setup(self, method):
        self.r = _accuracy_result()
        self.r.ci(n_resamples=10, random_state=0)

    def time_ci(self, method):
        self.r.ci(ci_method=method, n_resamples=10000, random_state=0)


class SpearmanInterval:
    """BCa interval of Spearman's ρ over 3,000 pairs, 9,999 resamples (compiled ranks of each resample)."""

    timeout = 300

    def setup(self):
        self.r = _similarity_result()
        self.r.ci(n_resamples=10, random_state=0)   # JIT outside the timing

    def time_ci(self):
        self.r.ci(n_resamples=9999, random_state=0)

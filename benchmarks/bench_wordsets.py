"""asv benchmarks for the word-set evaluations: categorisation (purity), outlier detection, entailment."""
import numpy as np

from embgeo.data import Categories, EntailmentPairs, OutlierSets
from embgeo.evaluate import categorization, entailment, outlier_detection

from .common import random_embeddings


def _synthetic(n_words=20000, dim=50, random_state=0):
    """A Battig-sized categorisation set (5,231 items, 56 categories), a WikiSem500-sized outlier set (500
    clusters of 8 words, 6 outliers each) and BLESS-sized direction pairs (1,300) over random vectors."""
    rng = np.random.default_rng(random_state + 1)
    e = random_embeddings(n_words, dim, random_state)
    words = np.array(e.words)
    cats = Categories(list(words[rng.integers(0, n_words, 5231)]), [f"c{k}" for k in rng.integers(0, 56, 5231)],
                      "synthetic")
    groups = [(f"g{g}", list(words[rng.integers(0, n_words, 8)]), list(words[rng.integers(0, n_words, 6)]))
              for g in range(500)]
    i, j = rng.integers(0, n_words, 1300), rng.integers(0, n_words, 1300)
    pairs = EntailmentPairs(list(words[i]), list(words[j]), ["hyper"] * 1300, np.ones(1300), name="synthetic")
    return e, cats, OutlierSets(groups, "synthetic"), pairs


class WordSets:
    """Battig-, WikiSem500- and BLESS-sized sets over a 20,000 x 50 vocabulary."""

    timeout = 300

    def setup(self):
        self.e, self.cats, self.outliers, self.pairs = _synthetic()
        categorization(self.e, Categories(self.cats.words[:100], ["a", "b"] * 50))  # imports outside the timing

    def time_categorization_ward(self):
        categorization(self.e, self.cats)

    def time_categorization_kmeans(self):
        categorization(self.e, self.cats, clustering="kmeans")

    def time_outlier_detection(self):
        outlier_detection(self.e, self.outliers)

    def time_entailment_direction_cosine(self):
        entailment(self.e, self.pairs, "cosine")

    def peakmem_categorization_ward(self):
        categorization(self.e, self.cats)


class RegisteredSetsOnGlove:
    """Every registered categorisation and outlier set on GloVe 6B 50d (400,000 words), Ward and the
    compactness score; skipped without the data extra or the files (``EMBGEO_DATA`` pointing at them)."""

    timeout = 600
    number = 1
    repeat = 3

    def setup(self):
        try:
            import embgeo
            from embgeo import data

            self.e = embgeo.load("glove-6b-50d")
            self.cats = [data.load_dataset(n) for n in data.registry("categorization")]
            self.outliers = [data.load_dataset(n) for n in data.registry("outlier")]
        except Exception as exc:  # asv skips a benchmark whose setup raises this
            raise NotImplementedError(f"GloVe 6B 50d or a registered file not available: {exc}")
        categorization(self.e, self.cats[0])  # imports and first touches outside the timing

    def time_categorization_all_sets(self):
        for d in self.cats:
            categorization(self.e, d)

    def time_outlier_detection_all_sets(self):
        for d in self.outliers:
            outlier_detection(self.e, d)

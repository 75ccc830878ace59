"""asv benchmarks for embgeo.negatives: the vocabulary-wide synonym table and the hard-correction mask."""
import numpy as np

from .common import random_embeddings


class SynonymTable:
    params = [10000, 50000]
    param_names = ["n_words"]

    def setup(self, n):
        import embgeo

        embgeo.set_progress(False)
        self.e = random_embeddings(n, 50)

    def time_synonym_table_k10(self, n):
        from embgeo.negatives import synonym_table

        synonym_table(self.e, k=10)

    def time_synonym_table_mutual(self, n):
        from embgeo.negatives import synonym_table

        synonym_table(self.e, k=10, mutual=True)


class FalseNegativeMask:
    def setup(self):
        from embgeo.negatives import synonym_table

        import embgeo

        embgeo.set_progress(False)
        rng = np.random.default_rng(0)
        self.padded = synonym_table(random_embeddings(30000, 32), k=10).to_padded()
        self.gold = rng.integers(0, 30000, size=(64, 512))
        self.pred = rng.integers(0, 30000, size=(64, 512))

    def time_mask_batch_64x512(self):
        from embgeo.negatives import false_negative_mask

        false_negative_mask(self.pred, self.gold, self.padded)

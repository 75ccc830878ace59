"""asv benchmarks for embgeo.crosslingual.rcsls (Joulin et al. 2018): one loss/gradient evaluation and a short fit.

The cost per iteration is two blocked scans, pairs × negatives on each side, with top-k selection.
"""
from __future__ import annotations

import numpy as np


def _problem(n_neg, d_s, d_t, n_pairs, random_state=0):
    rng = np.random.default_rng(random_state)
    Xs = rng.standard_normal((n_neg, d_s)).astype(np.float32)
    Zt = rng.standard_normal((n_neg, d_t)).astype(np.float32)
    Xs /= np.linalg.norm(Xs, axis=1, keepdims=True)
    Zt /= np.linalg.norm(Zt, axis=1, keepdims=True)
    idx = rng.choice(n_neg, n_pairs, replace=False)
    return Xs, Zt, idx, rng.permutation(idx)


class LossGradient:
    """One RCSLS loss + subgradient: n_pairs × n_neg scores per side, top-10 each."""

    params = [[20000, 100000], [(50, 300)]]
    param_names = ["n_negatives", "dims"]

    def setup(self, n_neg, dims):
        self.Xs, self.Zt, self.src, self.tgt = _problem(n_neg, *dims, 2000)
        self.W = np.eye(dims[0], dims[1])

    def time_loss_gradient(self, n_neg, dims):
        from embgeo.crosslingual.rcsls import rcsls_loss

        rcsls_loss(self.W, self.Xs, self.Zt, self.src, self.tgt)


class Fit:
    """Three iterations (n_epochs=2) of the full-batch optimiser."""

    params = [[20000]]
    param_names = ["n_negatives"]
    timeout = 120

    def setup(self, n_neg):
        self.Xs, self.Zt, self.src, self.tgt = _problem(n_neg, 50, 300, 2000)

    def time_fit(self, n_neg):
        from embgeo.crosslingual.rcsls import rcsls

        rcsls(self.Xs, self.Zt, self.src, self.tgt, n_epochs=2)

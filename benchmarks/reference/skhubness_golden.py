"""Regenerate tests/data/skhubness_golden.npz with scikit-hubness (the reference of embgeo.diagnostics.hubness).

    /tmp/ref/bin/python benchmarks/reference/skhubness_golden.py

Run it with a Python where scikit-hubness imports, never embgeo's environment. scikit-hubness
0.21.2 (PyPI) pins scikit-learn 0.21.3, which has no build for Python 3.11; the analysis module of
its GitHub head (``VarIr/scikit-hubness`` c36a058, 0.30.0a1, ``pip install --no-deps`` plus numba)
runs on current scikit-learn and is what made the stored file.

Writes small spaces with a common direction (so that hubs form), their cosine k-NN graphs built by
scikit-learn (``kneighbors_graph``, the self excluded for a space against itself), and the
measures of ``skhubness.analysis.Hubness(metric="precomputed", shuffle_equal=False)``: a space
against itself (``fit(G).score()``) and queries against it (``score(G_queries)``). The precomputed
graph is the documented route; given vectors, ``Hubness.score()`` at that commit counts every point
in its own list (``_k_neighbors`` is passed the graph, so it keeps column 0, the self hit).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
from sklearn.neighbors import NearestNeighbors, kneighbors_graph
from skhubness.analysis import Hubness

OUT = Path(__file__).resolve().parents[2] / "tests" / "data" / "skhubness_golden.npz"
KEYS = ("k_skewness", "hub_occurrence", "antihub_occurrence", "robinhood")


def main():
    rng = np.random.default_rng(2010)
    X = rng.standard_normal((300, 12)) + 0.8 * rng.standard_normal(12)
    Q = rng.standard_normal((120, 12)) + 0.8 * rng.standard_normal(12)
    out = {"X": X, "Q": Q}
    for k in (1, 5, 10):
        G = kneighbors_graph(X, n_neighbors=k, mode="distance", metric="cosine", include_self=False)
        h = Hubness(k=k, metric="precomputed", return_value="all", shuffle_equal=False,
                    return_k_occurrence=True).fit(G)
        s = h.score()
        out[f"self_k{k}_k_occurrence"] = s["k_occurrence"]
        for key in KEYS:
            out[f"self_k{k}_{key}"] = s[key]

        Gq = NearestNeighbors(n_neighbors=k, metric="cosine").fit(X).kneighbors_graph(Q, mode="distance")
        s = h.score(Gq)
        out[f"query_k{k}_k_occurrence"] = s["k_occurrence"]
        for key in KEYS:
            out[f"query_k{k}_{key}"] = s[key]
    np.savez_compressed(OUT, **out)
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()

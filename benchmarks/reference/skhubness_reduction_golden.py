"""Regenerate tests/data/skhubness_reduction_golden.npz with scikit-hubness's hubness reductions.

    /work/refvenv-hub/bin/python benchmarks/reference/skhubness_reduction_golden.py /path/to/src

Run it with a Python that has numpy, scipy, scikit-learn, tqdm and numba (never embgeo's
environment), and ``/path/to/src`` a directory holding ``skhubness/reduction/*.py`` and
``skhubness/utils/kneighbors_graph.py`` of ``VarIr/scikit-hubness`` at c36a058 (0.30.0a1) with empty
``__init__.py`` files: the package's own ``__init__`` imports its neighbours module, which does not
import with current scikit-learn, while the reduction modules do.

The fixture: 80 unit vectors in 8 dimensions with a common direction (so that hubs form), and
scikit-learn's Euclidean k-NN graphs of them (on unit vectors, d² = 2 − 2 cos, embgeo's distance):

* K = 5 with the point itself in column 0 (``include_self=True``, K + 1 columns), which
  ``LocalScaling`` expects (it skips column 0), for "ls" and "nicdm";
* K = 5 without the point itself, for the empirical ``MutualProximity`` (``method="empiric"``, its
  "approximate" MP over the graph) and ``DisSimLocal`` (squared distances);
* K = 5 without the point itself for ``MutualProximity(method="normal")`` too (moments over the
  graph's row, embgeo's ``"mp-gauss"``), and the complete graph without the point itself
  (n − 1 columns), whose moments are those of all other points, as in the paper.

Each reduction is ``fit(G)`` then ``transform(G)`` (the space against itself); the stored arrays are
the sorted reduced distances and their columns.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from sklearn.neighbors import kneighbors_graph

sys.path.insert(0, sys.argv[1])
from skhubness.reduction._dis_sim import DisSimLocal  # noqa: E402
from skhubness.reduction._local_scaling import LocalScaling  # noqa: E402
from skhubness.reduction._mutual_proximity import MutualProximity  # noqa: E402

OUT = Path(__file__).resolve().parents[2] / "tests" / "data" / "skhubness_reduction_golden.npz"
K = 5


def _arrays(G):
    n = G.shape[0]
    return G.data.reshape(n, -1), G.indices.reshape(n, -1)


def main():
    rng = np.random.default_rng(2012)
    X = rng.standard_normal((80, 8)) + 1.0 * rng.standard_normal(8)
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    out = {"X": X, "K": K}
    with_self = kneighbors_graph(X, n_neighbors=K + 1, mode="distance", include_self=True)
    no_self = kneighbors_graph(X, n_neighbors=K, mode="distance", include_self=False)
    full = kneighbors_graph(X, n_neighbors=X.shape[0] - 1, mode="distance", include_self=False)
    squared = no_self.copy()
    squared.data **= 2
    runs = {
        "ls": (LocalScaling(k=K, method="standard"), with_self, {}),
        "nicdm": (LocalScaling(k=K, method="nicdm"), with_self, {}),
        "mp": (MutualProximity(method="empiric"), no_self, {}),
        "mp_gauss_knn": (MutualProximity(method="normal"), no_self, {}),
        "mp_gauss": (MutualProximity(method="normal"), full, {}),
        "dsl": (DisSimLocal(k=K), squared, {"vectors": X}),
    }
    for name, (reducer, G, kw) in runs.items():
        reducer.fit(G.copy(), **kw)
        data, idx = _arrays(reducer.transform(G.copy(), **kw))
        out[f"{name}_dist"], out[f"{name}_idx"] = data, idx.astype(np.int64)
    np.savez_compressed(OUT, **out)
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()

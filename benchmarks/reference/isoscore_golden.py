"""Regenerate tests/data/isoscore_golden.json with the ``isoscore`` package (the reference of IsoScore in embgeo.diagnostics).

    python3 -m venv /tmp/ref-iso && /tmp/ref-iso/bin/pip install torch isoscore==2.0.1
    /tmp/ref-iso/bin/python benchmarks/reference/isoscore_golden.py

Run it with a Python where ``IsoScore`` 2.0.1 imports (it needs torch), never embgeo's
environment. Writes small point clouds (isotropic, axis-scaled, one dominant direction, a large
mean, fewer points than dimensions) with ``IsoScore.IsoScore(points)`` and
``IsoScore.IsoScore_star(points, C0, zeta)`` for ζ ∈ {0, 0.2, 0.75, 1} and two shrinkage
targets: the identity (the package's advice without a larger sample) and the covariance of a
larger sample of the same distribution.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import torch
from IsoScore import IsoScore as iso

OUT = Path(__file__).resolve().parents[2] / "tests" / "data" / "isoscore_golden.json"
ZETAS = (0.0, 0.2, 0.75, 1.0)


def clouds(rng):
    d = 6
    yield "isotropic", rng.standard_normal((200, d)), rng.standard_normal((2000, d))
    scale = np.array([4.0, 2.0, 1.0, 1.0, 0.5, 0.1])
    yield "axis_scaled", rng.standard_normal((150, d)) * scale, rng.standard_normal((2000, d)) * scale
    u = rng.standard_normal(d)
    one = lambda m: np.outer(rng.standard_normal(m), u) * 3 + 0.1 * rng.standard_normal((m, d))  # noqa: E731
    yield "one_direction", one(120), one(2000)
    yield "large_mean", rng.standard_normal((100, d)) + 50.0, rng.standard_normal((2000, d)) + 50.0
    Q, _ = np.linalg.qr(rng.standard_normal((8, 8)))
    rot = lambda m: (rng.standard_normal((m, 8)) * np.arange(1, 9)) @ Q  # noqa: E731
    yield "fewer_points_than_dims", rot(5), rot(2000)


def main():
    rng = np.random.default_rng(2022)
    cases = []
    for name, X, big in clouds(rng):
        C_big = np.cov(big.T)
        case = {"name": name, "points": X.tolist(), "C0_sample": C_big.tolist(),
                "isoscore": float(iso.IsoScore(X)), "isoscore_star": []}
        for target, C0 in (("identity", np.eye(X.shape[1])), ("sample", C_big)):
            for z in ZETAS:
                val = float(iso.IsoScore_star(X, torch.tensor(C0), z))
                case["isoscore_star"].append({"C0": target, "zeta": z, "value": val})
        cases.append(case)
    OUT.write_text(json.dumps({"package": "isoscore 2.0.1", "torch": torch.__version__, "cases": cases}))
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()

"""embgeo's concept categorisation against word-embeddings-benchmarks' on GloVe 6B 50d: same purity, time ratio.

    git clone https://github.com/kudkudak/word-embeddings-benchmarks /tmp/web     # the reference code
    python3 -m venv /tmp/ref-web && /tmp/ref-web/bin/pip install numpy==1.23.5 scipy==1.10.1 \\
        scikit-learn==1.3.2 pandas==1.5.3 six tqdm                                 # its era's libraries
    EMBGEO_DATA=DIR python benchmarks/compare_categorization.py --web /tmp/web --python /tmp/ref-web/bin/python

``DIR`` holds the registry's files (``categorization/ap.csv``, ...: ``../shared/data`` has AP, BLESS and
ESSLLI; ``embgeo.data.fetch("battig")`` adds Battig). The reference runs in its own interpreter
(word-embeddings-benchmarks imports ``sklearn.datasets.base`` and passes ``affinity=``, gone from recent
scikit-learn; a one-line shim gives it ``sklearn.utils.Bunch`` under the old name, nothing of its code is
changed). Both sides get the same vectors and items, every word known or the mean vector (its only
policy, embgeo's ``oov="mean"``), and report:

* ``agglomerative``: word-embeddings-benchmarks' ``evaluate_categorization(method="agglomerative")``, the
  best purity of Ward and of average/complete linkage with cosine/Euclidean distance, against the maximum of
  embgeo's five ``categorization(linkage=, metric=)`` calls;
* ``kmeans``: its ``method="kmeans"`` (items shuffled by ``seed``, ``KMeans(n_init=10, random_state=seed)``)
  against embgeo's ``clustering="kmeans"`` (not shuffled): equal only up to k-means' initialisation;
* its ``calculate_purity`` on embgeo's Ward clustering against embgeo's ``purity``.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_REFERENCE = r"""
import json, sys, time, types
import numpy as np
import sklearn.utils
shim = types.ModuleType("sklearn.datasets.base"); shim.Bunch = sklearn.utils.Bunch
sys.modules["sklearn.datasets.base"] = shim
sys.path.insert(0, sys.argv[1])
from web.evaluate import calculate_purity, evaluate_categorization
tmp = sys.argv[2]
V = np.load(tmp + "/vectors.npy")
words = json.load(open(tmp + "/words.json"))
w = dict(zip(words, V))
t0 = time.perf_counter()
from web.embedding import Embedding
w = Embedding.from_dict(w)
t_dict = time.perf_counter() - t0
out = {"t_dict": t_dict}
for name, d in json.load(open(tmp + "/datasets.json")).items():
    X, y = np.array(d["words"]), np.array(d["categories"])
    t0 = time.perf_counter()
    agg = evaluate_categorization(w, X, y, method="agglomerative", seed=0)
    t_agg = time.perf_counter() - t0
    km = evaluate_categorization(w, X, y, method="kmeans", seed=0)
    out[name] = {"agglomerative": agg, "t_agglomerative": t_agg, "kmeans": km,
                 "purity_of_ward": calculate_purity(np.array(d["codes"]), np.array(d["ward_labels"]))}
print(json.dumps(out))
"""

_AGGLOMERATIVE = [("ward", "euclidean"), ("average", "cosine"), ("average", "euclidean"), ("complete", "cosine"),
                  ("complete", "euclidean")]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--web", required=True, help="a checkout of kudkudak/word-embeddings-benchmarks")
    ap.add_argument("--python", default=sys.executable, help="the interpreter with the reference's libraries")
    ap.add_argument("--datasets", nargs="+", default=["ap", "bless-categorization", "essli-2008", "battig"])
    args = ap.parse_args(argv)

    import numpy as np

    import embgeo
    from embgeo import data
    from embgeo.evaluate import categorization

    embgeo.set_progress(False)
    e = embgeo.load("glove-6b-50d")
    ours, payload = {}, {}
    for name in args.datasets:
        try:
            d = data.load_dataset(name)
        except (OSError, LookupError) as exc:
            print(f"{name}: skipped ({exc})")
            continue
        t0 = time.perf_counter()
        runs = {lm: categorization(e, d, linkage=lm[0], metric=lm[1], oov="mean") for lm in _AGGLOMERATIVE}
        t_agg = time.perf_counter() - t0
        km = categorization(e, d, clustering="kmeans", oov="mean", random_state=0)
        ward = runs[("ward", "euclidean")]
        ours[name] = {"agglomerative": max(r.purity for r in runs.values()), "t_agglomerative": t_agg,
                      "kmeans": km.purity, "ward": ward.purity,
                      "configs": {f"{lk}/{m}": r.purity for (lk, m), r in runs.items()}}
        payload[name] = {"words": d.words, "categories": d.categories, "codes": ward.per_item["category"].tolist(),
                         "ward_labels": ward.per_item["cluster"].tolist()}
    with tempfile.TemporaryDirectory() as tmp:
        np.save(os.path.join(tmp, "vectors.npy"), np.asarray(e.vectors))
        Path(tmp, "words.json").write_text(json.dumps(list(e.words)))
        Path(tmp, "datasets.json").write_text(json.dumps(payload))
        ref = subprocess.run([args.python, "-c", _REFERENCE, args.web, tmp], capture_output=True, text=True)
    if ref.returncode:
        sys.exit(f"the reference failed:\n{ref.stderr[-3000:]}")
    theirs = json.loads(ref.stdout.strip().splitlines()[-1])
    print(f"GloVe 6B 50d ({len(e)} words), oov='mean'; word-embeddings-benchmarks at {args.web}")
    print(f"{'dataset':<22}{'agglomerative best':>20}{'web':>8}{'kmeans':>8}{'web':>8}{'ward':>8}"
          f"{'web purity':>11}{'embgeo s':>10}{'web s':>8}")
    for name, o in ours.items():
        t = theirs[name]
        print(f"{name:<22}{o['agglomerative']:>20.4f}{t['agglomerative']:>8.4f}{o['kmeans']:>8.4f}{t['kmeans']:>8.4f}"
              f"{o['ward']:>8.4f}{t['purity_of_ward']:>11.4f}{o['t_agglomerative']:>10.2f}{t['t_agglomerative']:>8.2f}")
        print(f"{'':<22}" + ", ".join(f"{k} {v:.4f}" for k, v in o["configs"].items()))
    print(f"(web's Embedding.from_dict of the 400k words: {theirs['t_dict']:.1f} s, not in its times)")


if __name__ == "__main__":
    main()

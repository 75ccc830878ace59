"""Golden numbers of Wang et al.'s (2020) Double-Hard Debias for ``tests/test_bias.py``, from the authors' code.

The authors' repository (uvavision/Double-Hard-Debias) holds the algorithm as the notebook
``GloVe_Debias.ipynb`` with its helpers in ``utils.py``. This script executes the notebook's code cells
unchanged (but the ones that load GloVe and the IPython magics: ``wv``, ``w2i`` and ``vocab`` are given
instead) in a separate Python with scikit-learn (never a dependency of embgeo; the reference environment of
``wefe_bias_golden.py`` has it), on a small fixture it writes itself: 24-d vectors of the authors'
definitional words, some equalise and gender-specific words, words that the authors' ``limit_vocab`` drops
(capitals, digits, punctuation) and 2,300 lower-case pseudo-words, in "frequency" order (a frequency
direction whose weight falls with the row), with a gender direction mixed in. The notebook's selection loop
(cell 12) fixes 1,000 male- and 1,000 female-biased words and 20 candidate directions, so the fixture is
just large enough for both. Then the authors' ``hard_debias`` (cell 10) is applied to the whole vocabulary
with the selected component (their notebook stops at the plot; this is the last step of their Algorithm 1
before equalisation, as the Word2Vec notebook of the fork hyesunyun/Double-Hard-Debias runs it)::

    git clone https://github.com/uvavision/Double-Hard-Debias /tmp/dhd-authors
    PYTHONHASHSEED=0 /work/refvenv-bias/bin/python benchmarks/reference/double_hard_debias_golden.py /tmp/dhd-authors

writes ``tests/data/bias/double_hard_debias.npz``: the words, the vectors (``vectors16``: sixteenths as int8), the notebook's ``wv_mean``,
``main_pca.components_``, the rows of the biased words (``male``, ``female``, most biased last and first), the clustering accuracies
(``precisions``) and the debiased vectors of every 8th word (``debiased``, rows ``debiased_rows``), and the scikit-learn version
(KMeans' ``n_init`` default changed to "auto", one run, in 1.4; the authors ran it when it was 10).
"""
from __future__ import annotations

import json
import os
import string
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "tests" / "data" / "bias" / "double_hard_debias.npz"
DIM = 24
N_PLAIN = 2300
#: dropped by the authors' limit_vocab: capitals, digits, punctuation, 20 letters or more
FILTERED = ["Paris", "London", "abc1", "x2y", "don't", "a-b", "e.g", "abcdefghijklmnopqrstu"]
#: kept by limit_vocab: underscore-joined parts without punctuation
JOINED = ["new_york", "ice_cream"]
#: gender-specific words (in the authors' exclusion lists) besides the definitional ones
GENDERED = ["uncle", "aunt", "grandpa", "grandma", "spokesman", "spokeswoman", "king", "queen", "boys", "girls",
            "brother", "sister"]


def pseudo_words(n: int, rng) -> list[str]:
    letters = np.array(list(string.ascii_lowercase))
    words, seen = [], set()
    while len(words) < n:
        w = "".join(rng.choice(letters, size=int(rng.integers(4, 9))))
        if w not in seen:
            seen.add(w)
            words.append(w)
    return words


def fixture():
    """Words in "frequency" order and their 24-d vectors (multiples of 1/16, exact in float32 and float64)."""
    rng = np.random.default_rng(2020)
    definitional = [["she", "he"], ["herself", "himself"], ["her", "his"], ["daughter", "son"], ["girl", "boy"],
                    ["mother", "father"], ["woman", "man"], ["mary", "john"], ["gal", "guy"], ["female", "male"]]
    gendered = [w for p in definitional for w in p] + GENDERED
    plain = pseudo_words(N_PLAIN, rng)
    words = gendered + FILTERED + JOINED + plain
    order = np.concatenate([np.arange(20), 20 + rng.permutation(len(words) - 20)])  # he/she... stay frequent
    words = [words[i] for i in order]
    n = len(words)
    g = rng.standard_normal(DIM)
    g /= np.linalg.norm(g)
    f = rng.standard_normal(DIM)
    f -= (f @ g) * g * 0.5                      # a frequency direction that is not orthogonal to gender
    f /= np.linalg.norm(f)
    sign = {w: (1.0 if i % 2 else -1.0) for p in definitional for i, w in enumerate(p)}
    for a, b in zip(GENDERED[::2], GENDERED[1::2]):
        sign[a], sign[b] = 1.0, -1.0
    gender = np.array([3.0 * sign[w] if w in sign else rng.normal(0, 1.0) for w in words])
    rank = np.arange(n)
    freq = 1.0 - 0.8 * np.log1p(rank) / np.log1p(n)   # falls with the row, as GloVe's frequency direction
    h = rng.standard_normal(DIM)           # a wide direction that holds neither gender nor frequency
    h -= (h @ g) * g + (h @ f) * f
    h /= np.linalg.norm(h)
    X = (0.5 * rng.standard_normal((n, DIM)) + np.outer(gender, g) + np.outer(freq + 2.0 * (gender > 0), f)
         + np.outer(rng.normal(0, 2.5, n), h))
    X = np.round(X * 16) / 16
    assert np.abs(X).max() < 8      # stored as int8 sixteenths
    return words, X.astype(np.float32), definitional


def main(authors: Path) -> None:
    import codecs
    import operator
    import pickle

    import scipy.spatial.distance
    import sklearn

    words, X, definitional = fixture()
    # the notebook's code cells, run in its own namespace; cells 2 (imports, IPython magics) and 3 (reading
    # GloVe from ./data/vectors.txt) are replaced by the fixture
    nb = json.loads((authors / "GloVe_Debias.ipynb").read_text("utf-8"))
    cells = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]
    sys.path.insert(0, str(authors))
    os.chdir(authors)
    ns = {"codecs": codecs, "os": os, "json": json, "operator": operator, "pickle": pickle, "np": np,
          "scipy": scipy, "LA": np.linalg,
          "wv": X.astype(float), "w2i": {w: i for i, w in enumerate(words)}, "vocab": list(words)}
    assert "load_glove" in cells[1] and "%load_ext" in cells[0]
    for code in cells[2:8]:   # limit_vocab, bias by projection, PCA, hard_debias, k-means, the selection loop
        exec(compile(code, "GloVe_Debias.ipynb", "exec"), ns)
    assert ns["definitional_pairs"] == definitional
    precisions = np.array(ns["precisions"])
    k = int(np.argmin(precisions))
    debiased = ns["hard_debias"](ns["wv"], ns["w2i"], ns["w2i"], list(words), [k])
    kept = np.arange(0, len(words), 8)   # every 8th word's debiased vector, to keep the file small
    np.savez_compressed(OUT, words=np.array(words), vectors16=(X * 16).astype(np.int8), mean=ns["wv_mean"],
                        components=ns["main_pca"].components_[:20],
                        male=np.array([ns["w2i"][w] for w in ns["male"]], dtype=np.int16),
                        female=np.array([ns["w2i"][w] for w in ns["female"]], dtype=np.int16), precisions=precisions, component=k, debiased_rows=kept, debiased=debiased[kept].astype(np.float32),
                        excluded=np.array(sorted(set(ns["exclude_words"]))),
                        sklearn_version=np.array(sklearn.__version__))
    print(f"wrote {OUT} ({len(words)} words); precisions {np.round(precisions, 4).tolist()}; component {k}")


if __name__ == "__main__":
    main(Path(sys.argv[1]).resolve())

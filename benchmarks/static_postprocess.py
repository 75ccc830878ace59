"""Does post-processing help a distilled static model? The numbers of docs/static.md.

    python benchmarks/static_postprocess.py [--model ../shared/data/models/minilm-l6-m2v-256]

The Model2Vec model (all-MiniLM-L6-v2 distilled by model2vec 0.10.0, PCA to 256 dimensions) is read
by ``embgeo.static.load``; its token table (``model.tokens``) is post-processed and put back with
``model.with_tokens``, so that words and texts are composed from the new table as model2vec composes them.
Each variant is scored

- on word similarity: gensim's bundled WordSim-353 and SimLex-999, the words composed by ``model.words``
  (every word of both sets has a token, so coverage is 1.0), Spearman's ρ of cosines;
- on ``encode``-level similarity: the 50 news documents of Lee, Pincombe & Welsh (2005) and their 1,225
  human-rated pairs (gensim's test data: ``lee.cor``, ``similarities0-1.txt``), Spearman's ρ of the
  cosines of ``model.encode(documents)``;

and compared with the original by Steiger's test (``embgeo.evaluate.compare``: the two ρ share the gold
ratings). Post-processing: all-but-the-top (Mu & Viswanath 2018; D = 3, about d/100 as the paper advises),
similarity order (Artetxe et al. 2018; α = ±0.25), PPA-PCA-PPA to 128 dimensions (Raunak et al. 2019; D = 3).
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
from gensim.test.utils import datapath

import embgeo
import embgeo.static
from embgeo.data import WordPairs, load_dataset
from embgeo.evaluate import compare
from embgeo.postprocess import all_but_the_top, ppa_pca_ppa, similarity_order

DEFAULT_MODEL = Path(__file__).resolve().parents[2] / "shared" / "data" / "models" / "minilm-l6-m2v-256"


def lee():
    """Lee et al.'s 50 documents, and their rated pairs as WordPairs over document ids."""
    docs = Path(datapath("lee.cor")).read_text(encoding="latin-1").splitlines()
    rated = np.loadtxt(datapath("similarities0-1.txt"))
    i, j = np.triu_indices(len(docs), k=1)
    ids = [f"doc{k}" for k in range(len(docs))]
    return docs, ids, WordPairs([ids[a] for a in i], [ids[b] for b in j], rated[i, j], "lee")


def variants(model):
    t = model.tokens
    return {"original": model,
            "all-but-the-top, D=3": model.with_tokens(all_but_the_top(t, D=3)),
            "similarity order, α=−0.25": model.with_tokens(similarity_order(t, alpha=-0.25)),
            "similarity order, α=+0.25": model.with_tokens(similarity_order(t, alpha=0.25)),
            "PPA-PCA-PPA, 128 dims, D=3": model.with_tokens(ppa_pca_ppa(t, dim=128, D=3))}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", type=Path, default=DEFAULT_MODEL)
    args = ap.parse_args()
    start = time.perf_counter()
    base = embgeo.static.load(args.model)
    print(base)
    sets = {name: load_dataset(name) for name in ("wordsim353", "simlex999")}
    words = sorted({w for d in sets.values() for w in (*d.words1, *d.words2)})
    docs, ids, lee_pairs = lee()

    def spaces(model):
        return model.words(words, oov="skip"), embgeo.Embeddings(ids, model.encode(docs))

    base_words, base_docs = spaces(base)
    print(f"{len(base_words)} of {len(words)} words composed; {len(docs)} documents, {len(lee_pairs.scores)} pairs\n")
    print("| token table | WS-353 ρ | SimLex-999 ρ | Lee documents ρ (encode) |")
    print("|---|---|---|---|")
    for name, model in variants(base).items():
        w, d = spaces(model)
        cells = []
        for a, b, data in ((base_words, w, sets["wordsim353"]), (base_words, w, sets["simlex999"]),
                           (base_docs, d, lee_pairs)):
            c = compare(b, a, data, labels=(name, "original"))
            cells.append(f"{c.score_a:.3f}" if model is base else f"{c.score_a:.3f} ({c.difference:+.3f}, p = {c.p_value:.2g})")
        print(f"| {name} | " + " | ".join(cells) + " |")
    print(f"\n{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()

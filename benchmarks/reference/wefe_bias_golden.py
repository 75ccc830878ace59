"""Golden numbers of WEFE 1.0.1's bias metrics for ``tests/test_bias.py``.

WEFE (Badilla, Bravo-Marquez & Pérez, IJCAI 2020; dccuchile/wefe) is the maintained reference for WEAT,
RIPA, ECT, RND, RNSB and MAC. This script runs its unmodified ``run_query`` in a separate Python
(``python3 -m venv /tmp/refvenv && /tmp/refvenv/bin/pip install wefe==1.0.1``; never a dependency of
embgeo) on a small word2vec text file it writes itself (random 16-d vectors for the lower-cased words of
WEFE's WEAT word sets, less a few words so that coverage is exercised), and writes
``tests/data/bias/wefe_vectors.txt`` and ``tests/data/bias/wefe_golden.json``; then WEFE's ``HardDebias``
(Bolukbasi et al. 2016) on random 20-d vectors of the debiaswe definitional and equalise pairs' words
and 40 other words, written with its input and output to ``tests/data/bias/wefe_hard_debias.npz``::

    /tmp/refvenv/bin/python benchmarks/reference/wefe_bias_golden.py

The queries are WEFE's own WEAT 1-10 word sets (``wefe.datasets.load_weat``), stored in the golden file
with WEFE's whole ``WEAT.json`` (to check embgeo's package data against it). Words are looked up as
written, then lower-cased: ``preprocessors=[{}, {"lowercase": True}]``; ``normalize=False``.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "tests" / "data" / "bias"
DIM = 16
#: left out of the vocabulary: under 20 % of any set, so WEFE still answers
DROPPED = ("hyacinth", "gladiola", "bagpipe", "tyree", "lavon", "hakim", "impermanent", "wardell")
#: WEAT n: (targets, attributes), WEFE's set names (Caliskan et al. 2017's tests)
QUERIES = {
    1: (["flowers", "insects"], ["pleasant_5", "unpleasant_5a"]),
    2: (["instruments", "weapons"], ["pleasant_5", "unpleasant_5a"]),
    3: (["european_american_names_5", "african_american_names_5"], ["pleasant_5", "unpleasant_5b"]),
    4: (["european_american_names_7", "african_american_names_7"], ["pleasant_5", "unpleasant_5b"]),
    5: (["european_american_names_7", "african_american_names_7"], ["pleasant_9", "unpleasant_9"]),
    6: (["male_names", "female_names"], ["career", "family"]),
    7: (["math", "arts"], ["male_terms", "female_terms"]),
    8: (["science", "arts_2"], ["male_terms_2", "female_terms_2"]),
    9: (["mental_disease", "physical_disease"], ["temporary", "permanent"]),
    10: (["young_people_names", "old_people_names"], ["pleasant_9", "unpleasant_9"]),
}


def main() -> None:
    import wefe
    from gensim.models import KeyedVectors
    from wefe.datasets import load_weat
    from wefe.metrics import ECT, MAC, RIPA, RND, RNSB, WEAT
    from wefe.query import Query
    from wefe.word_embedding_model import WordEmbeddingModel

    sets = load_weat()
    vocab = sorted({w.lower() for words in sets.values() for w in words} - set(DROPPED))
    rng = np.random.default_rng(2017)
    vectors = rng.standard_normal((len(vocab), DIM)).astype(np.float32)
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / "wefe_vectors.txt"
    with open(path, "w", encoding="utf-8") as f:
        f.write(f"{len(vocab)} {DIM}\n")
        for w, v in zip(vocab, vectors):
            f.write(w + " " + " ".join(f"{x:.9g}" for x in v) + "\n")
    model = WordEmbeddingModel(KeyedVectors.load_word2vec_format(str(path)), "golden")
    pre = dict(preprocessors=[{}, {"lowercase": True}], lost_vocabulary_threshold=0.2)
    out = {"wefe_version": wefe.__version__, "preprocessors": pre["preprocessors"], "weat_json": sets, "queries": {}}
    for n, (t, a) in QUERIES.items():
        targets, attributes = [sets[s] for s in t], [sets[s] for s in a]
        q22 = Query(targets, attributes, t, a)
        q21 = Query(targets, attributes[:1], t, a[:1])
        w = WEAT().run_query(q22, model, **pre)
        res = {"targets": t, "attributes": a,
               "weat": {"statistic": float(w["weat"]), "effect_size": float(w["effect_size"])},
               "rnd_norm": float(RND().run_query(q21, model, distance="norm", **pre)["rnd"]),
               "rnd_cos": float(RND().run_query(q21, model, distance="cos", **pre)["rnd"]),
               "ect": float(ECT().run_query(q21, model, **pre)["ect"]),
               "mac": float(MAC().run_query(q22, model, **pre)["mac"]),
               "rnsb_holdout": float(RNSB().run_query(q22, model, random_state=0, holdout=True, **pre)["rnsb"]),
               "rnsb_all": float(RNSB().run_query(q22, model, random_state=0, holdout=False, **pre)["rnsb"])}
        # WEFE's RIPA pairs X[i] with Y[i] after dropping missing words from each set on its own, which
        # misaligns (or overruns) the pairs once a target word is missing: compared on fully covered targets only
        if len(targets[0]) == len(targets[1]) and not {w.lower() for s in targets for w in s} & set(DROPPED):
            r = RIPA().run_query(q21, model, **pre)
            res["ripa"] = float(r["ripa"])
            res["ripa_word_values"] = {k: [float(v["mean"]), float(v["std"])] for k, v in r["word_values"].items()}
        out["queries"][f"weat{n}"] = res
    (OUT / "wefe_golden.json").write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {path} ({len(vocab)} words) and {OUT / 'wefe_golden.json'}")
    hard_debias()


def hard_debias() -> None:
    from gensim.models import KeyedVectors
    from wefe.debias.hard_debias import HardDebias
    from wefe.word_embedding_model import WordEmbeddingModel

    pairs = json.loads((REPO / "embgeo" / "evaluate" / "bias" / "bolukbasi2016.json").read_text("utf-8"))
    gendered = {w for p in pairs["definitional_pairs"] + pairs["equalize_pairs"] for w in p}
    gendered |= {w.lower() for w in gendered}
    vocab = sorted(gendered) + [f"neutral{i}" for i in range(40)]
    rng = np.random.default_rng(2016)
    vectors = rng.standard_normal((len(vocab), 20)).astype(np.float32)
    ignore = sorted(gendered)[::2]
    target = [f"neutral{i}" for i in range(0, 40, 3)] + ["he", "she", "doctor_not_there"]
    results = {}
    for name, kwargs in (("ignore", {"ignore": ignore}), ("target", {"target": target})):
        kv = KeyedVectors(20)
        kv.add_vectors(vocab, vectors.copy())
        model = WordEmbeddingModel(kv, "golden")
        hd = HardDebias().fit(model, definitional_pairs=pairs["definitional_pairs"],
                              equalize_pairs=pairs["equalize_pairs"])
        out = hd.transform(model, **kwargs)
        results[f"debiased_{name}"] = np.array([out[w] for w in vocab])
        results["bias_direction"] = np.asarray(hd.bias_direction_)
    np.savez_compressed(OUT / "wefe_hard_debias.npz", words=np.array(vocab), vectors=vectors,
                        ignore=np.array(ignore), target=np.array(target), **results)
    print(f"wrote {OUT / 'wefe_hard_debias.npz'} ({len(vocab)} words)")


if __name__ == "__main__":
    main()

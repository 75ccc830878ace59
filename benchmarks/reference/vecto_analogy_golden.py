"""Golden numbers of vecto's analogy solvers (Drozd, Gladkova & Matsuoka 2016) on a small BATS fixture.

Two steps, the first in embgeo's environment, the second in one with vecto (PyPI ``vecto`` 0.2.21;
not a dependency of embgeo)::

    python benchmarks/reference/vecto_analogy_golden.py fixture tests/data/bats_vectors.txt
    /tmp/ref-solvers/bin/python benchmarks/reference/vecto_analogy_golden.py golden \\
        tests/data/bats tests/data/bats_vectors.txt tests/data/bats_vecto_golden.json

``fixture`` writes the vectors: every word of the fixture but three (so that out-of-vocabulary pairs
occur), each answer its word plus a per-relation offset plus noise, and distractor words.
``golden`` runs vecto's ``Analogy.run_category`` for 3CosAdd, 3CosMul, PairDistance (embgeo's
``"pairdirection"``), 3CosAvg and LRCos on each relation file in sorted path order (``Analogy.run``
walks folders in directory order) and records each question's rank and the accuracy.

vecto's LRCos draws its random negative words with Python's ``random.choice``; here that is replaced
by the indices embgeo's ``analogy(..., method="lrcos", random_state=SEED)`` draws (NumPy's
``default_rng(SEED).integers``, for every fold in the same order), so both train on the same words.
vecto imports nltk data at import time (``vecto.corpus``), which needs a network; ``vecto.corpus`` is
replaced by an empty module, which the analogy benchmark does not use.

vecto 0.2.21's ``Vocabulary.get_id`` returns 0, not -1, for an unknown word (since 2020, for
vocabularies whose row 0 is an unknown-word token), so its analogy code's out-of-vocabulary checks
(``get_id(w) >= 0``) never fire and an unknown word takes the vector of row 0. Here ``get_id``
returns -1 for an unknown word again (vsmlib's behaviour, for which the analogy code was written): a
pair with an unknown word or first answer is then "missing", as embgeo treats it.
"""
from __future__ import annotations

import json
import sys
import types
from pathlib import Path

import numpy as np

SEED = 0
METHODS = {"3cosadd": "3CosAdd", "3cosmul": "3CosMul", "pairdirection": "PairDistance",
           "3cosavg": "3CosAvg", "lrcos": "LRCos"}
_MISSING = ("zyzzyva", "zyzzyvas", "qwxfish")


def _files(bats: Path) -> list[Path]:
    return sorted(p for p in bats.rglob("*.txt") if not p.name.startswith("."))


def _pairs(f: Path) -> list:
    out = []
    for line in f.read_text(encoding="utf-8").splitlines():
        if line.strip():
            w, right = line.lower().split("\t")[:2]
            out.append((w.strip(), [x.strip() for x in right.split("/")]))
    return out


def fixture(out: str, bats: str = "tests/data/bats") -> None:
    rng = np.random.default_rng(2016)
    dim = 16
    vectors: dict[str, np.ndarray] = {}
    for f in _files(Path(bats)):
        offset = rng.normal(size=dim) * 1.5
        for w, answers in _pairs(f):
            base = vectors.setdefault(w, rng.normal(size=dim))
            for a in answers:
                vectors.setdefault(a, base + offset + rng.normal(size=dim) * 0.8)
    for i in range(40):
        vectors[f"distractor{i}"] = rng.normal(size=dim)
    with open(out, "w", encoding="utf-8") as fh:
        for w, v in vectors.items():
            if w not in _MISSING:
                fh.write(w + " " + " ".join(f"{x:.6f}" for x in v) + "\n")


def golden(bats: str, vectors: str, out: str, methods: str = ",".join(METHODS)) -> None:
    import logging
    import random
    import time

    logging.disable(logging.WARNING)

    for mod, names in (("vecto.corpus", ("DirCorpus", "FileCorpus", "ANNOTATED_TEXT_TOKENIZER")),
                       ("vecto.corpus.tokenization", ("Tokenizer", "word_tokenize_txt"))):
        sys.modules[mod] = types.ModuleType(mod)
        for name in names:
            setattr(sys.modules[mod], name, None)
    from vecto.benchmarks.analogy import solvers
    from vecto.benchmarks.analogy.analogy import Analogy, select_method
    from vecto.benchmarks.analogy.io import get_pairs
    from vecto.embeddings.dense import WordEmbeddingsDense
    from vecto.vocabulary import Vocabulary

    Vocabulary.get_id = lambda self, w: self.dic_words_ids.get(w, -1)

    result: dict = {"vecto": "0.2.21", "seed": SEED, "unknown_word_id": -1, "methods": {}}
    for method in methods.split(","):
        vecto_name = METHODS[method]
        embs = WordEmbeddingsDense()
        embs.load_from_text(vectors)
        bench = Analogy(method=vecto_name)
        bench.embs = embs
        embs.normalize()
        embs.cache_normalized_copy()
        vocab = embs.vocabulary
        n = len(vocab.lst_words)
        # the indices embgeo draws: per relation, per fold (every pair in turn), the negatives, then a
        # positive when no other pair's first answer is known
        rng = np.random.default_rng(SEED)
        stream: list[int] = []
        per_method: dict = {}
        files = _files(Path(bats))
        if method == "lrcos":
            for f in files:
                pairs = get_pairs(str(f))
                for k in range(len(pairs)):
                    others = [p for i, p in enumerate(pairs) if i != k]
                    n_src = sum(vocab.get_id(p[0]) >= 0 for p in others)
                    stream += rng.integers(0, n, size=n_src).tolist()
                    if not any(vocab.get_id(p[1][0]) >= 0 for p in others):
                        stream += rng.integers(0, n, size=1).tolist()
        it = iter(stream)
        start = time.perf_counter()
        solvers.random.choice = lambda seq: seq[next(it)]
        for f in files:
            bench.solver = select_method(vecto_name)(embs, exclude=True)
            got = bench.run_category(get_pairs(str(f)))
            per_method[f.name[:-4]] = {"ranks": [int(d["rank"]) for d in got["details"]],
                                       "cnt_correct": got["result"]["cnt_questions_correct"],
                                       "cnt_total": got["result"]["cnt_questions_total"],
                                       "accuracy": got["result"]["accuracy"]}
        if method == "lrcos" and next(it, None) is not None:
            raise RuntimeError("vecto drew fewer random words than embgeo: the streams are not aligned")
        solvers.random.choice = random.choice
        result.setdefault("seconds", {})[method] = time.perf_counter() - start
        result["methods"][method] = per_method
    Path(out).write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {out}")


if __name__ == "__main__":
    if sys.argv[1] == "fixture":
        fixture(*sys.argv[2:])
    else:
        golden(*sys.argv[2:])

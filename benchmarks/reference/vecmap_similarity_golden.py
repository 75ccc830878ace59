"""Golden numbers of VecMap's ``eval_similarity.py`` (Artetxe et al.) on a small cross-lingual fixture.

VecMap is a script repository (``git clone https://github.com/artetxem/vecmap /tmp/vecmap``); its
``eval_similarity.py`` runs unmodified as a subprocess (it needs NumPy and SciPy)::

    python benchmarks/reference/vecmap_similarity_golden.py fixture tests/data/xling_similarity
    python benchmarks/reference/vecmap_similarity_golden.py golden /tmp/vecmap tests/data/xling_similarity

``fixture`` writes two small vector files (``src.vec``: 40 English words, ``trg.vec``: 40 German
ones, 8 dimensions, in VecMap's text format with a header line) and ``pairs.tsv`` (``word1<TAB>word2<TAB>score``:
35 pairs, a few with a word in neither file, a few whose German word is capitalised in the vectors so
that ``-l`` loses it). ``golden`` runs ``eval_similarity.py src.vec trg.vec -i pairs.tsv`` with no
option, ``-l``, ``--backoff 0`` and ``--backoff 0.5`` (and once monolingually, ``src.vec`` alone on
``mono.tsv``) and writes what it prints, parsed, to ``golden.json``: coverage, Pearson and Spearman as
percentages with two decimals (the script's ``{:7.2%}``).
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np

CASES = {"plain": [], "lowercase": ["-l"], "backoff0": ["--backoff", "0"], "backoff05": ["--backoff", "0.5"]}
_LINE = re.compile(r"Coverage:\s*([-0-9.]+)%\s+Pearson:\s*([-0-9.]+)%\s+Spearman:\s*([-0-9.]+)%")


def fixture(out: str) -> None:
    out_dir = Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(2017)
    concepts = rng.normal(size=(40, 8))
    en = [f"en{i}" for i in range(40)]
    de = [(f"De{i}" if i % 7 == 0 else f"de{i}") for i in range(40)]
    src = concepts + rng.normal(size=(40, 8)) * 0.6
    trg = concepts + rng.normal(size=(40, 8)) * 0.6
    for path, words, X in ((out_dir / "src.vec", en, src), (out_dir / "trg.vec", de, trg)):
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(f"{len(words)} {X.shape[1]}\n")
            for w, v in zip(words, X):
                fh.write(w + " " + " ".join(f"{x:.6f}" for x in v) + "\n")
    lines, mono = [], []
    for _ in range(35):
        # no pair of a word with itself: its cosine 1 ties in exact arithmetic, which VecMap's float32
        # dot products break at random (1 ± 1 ulp), moving Spearman's average ranks
        i, j = rng.choice(40, size=2, replace=False)
        gold = float(concepts[i] @ concepts[j] / np.linalg.norm(concepts[i]) / np.linalg.norm(concepts[j]))
        score = round(float(np.clip(2 + 2 * gold + rng.normal() * 0.5, 0, 4)), 2)
        w1 = en[i] if rng.random() > 0.1 else f"unknown{i}"
        w2 = de[j] if rng.random() > 0.1 else f"unbekannt{j}"
        lines.append(f"{w1}\t{w2}\t{score}")
        mono.append(f"{w1}\t{en[j]}\t{score}")
    (out_dir / "pairs.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (out_dir / "mono.tsv").write_text("\n".join(mono) + "\n", encoding="utf-8")


def _run(vecmap: Path, args: list) -> dict:
    got = subprocess.run([sys.executable, str(vecmap / "eval_similarity.py"), *args], check=True,
                         capture_output=True, text=True, cwd=vecmap).stdout
    m = _LINE.search(got)
    if m is None:
        raise RuntimeError(f"unexpected output of eval_similarity.py: {got!r}")
    return {"coverage": float(m.group(1)), "pearson": float(m.group(2)), "spearman": float(m.group(3))}


def golden(vecmap: str, data: str) -> None:
    d, vm = Path(data).resolve(), Path(vecmap).resolve()
    commit = subprocess.run(["git", "-C", str(vm), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    out = {"script": "artetxem/vecmap eval_similarity.py", "commit": commit, "percent": True, "cases": {}}
    for case, opts in CASES.items():
        out["cases"][case] = _run(vm, [str(d / "src.vec"), str(d / "trg.vec"), "-i", str(d / "pairs.tsv"), *opts])
    out["cases"]["monolingual"] = _run(vm, [str(d / "src.vec"), "-i", str(d / "mono.tsv")])
    (d / "golden.json").write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    if sys.argv[1] == "fixture":
        fixture(*sys.argv[2:])
    else:
        golden(*sys.argv[2:])

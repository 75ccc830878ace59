"""Reading a distilled model and composing words: ``embgeo.static`` vs model2vec 0.10.0.

The issue's speed row for static models (issue 39): ``embgeo.static.load(dir)`` + ``.words(words)``
against ``model2vec.StaticModel.from_pretrained(dir)`` + ``.encode(words)`` for the same 50k words,
in wall seconds, the vectors checked equal (bit for bit).

model2vec is never a dependency of embgeo: it runs in its own environment, in a subprocess that times
itself and prints its seconds. Its Python is taken from ``$EMBGEO_MODEL2VEC_PYTHON``, by default
``/work/refvenv-static/bin/python``
(``python3 -m venv /work/refvenv-static && /work/refvenv-static/bin/pip install model2vec==0.10.0``).
embgeo runs the same way in this Python. Each side's process times its first call (imports
excluded: whatever the call imports lazily counts) and then the best of ``--repeat`` more; the two
sides alternate for ``--rounds`` rounds and the least of each is kept. model2vec encodes 50k texts
with its default thread pool (``use_multiprocessing=True``), embgeo with its defaults too.

The words are the first ``--n`` words of ``--vectors`` (by default the shared English 384d ``.vec.gz``,
50k frequent English words); the model is ``--model`` (the shared
``minilm-l6-m2v-256``). The load average is printed: timings taken while other jobs run are noisy,
ratios measured in one run less so.

Run::

    /work/venv/bin/python benchmarks/compare_static.py [--model DIR] [--vectors FILE] [--n 50000] \\
        [--repeat 3] [--rounds 2]
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
REPO = Path(__file__).resolve().parents[1]
MODEL2VEC_PYTHON = os.environ.get("EMBGEO_MODEL2VEC_PYTHON", "/work/refvenv-static/bin/python")
# each side runs in a fresh process of its own Python, imports excluded: the first call's seconds
# (with whatever the call imports lazily), then the best of `repeat`
_RUN = """
import json, sys, time
import numpy as np
{imports}
model_dir, words_file, out, repeat = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
words = json.load(open(words_file, encoding="utf-8"))
times = []
for _ in range(1 + repeat):
    t = time.perf_counter()
    vectors = {call}
    times.append(time.perf_counter() - t)
np.save(out, np.asarray(vectors))
print(times[0], min(times[1:]))
"""
SIDES = {
    "embgeo": ("import embgeo.static",
               "embgeo.static.load(model_dir).words(words, oov='skip').vectors"),
    "model2vec": ("from model2vec import StaticModel",
                  "StaticModel.from_pretrained(model_dir).encode(words)"),
}


def read_words(path: Path, n: int) -> list[str]:
    """The first ``n`` words of a word2vec text file (gzipped or not), header skipped."""
    opener = gzip.open if path.suffix == ".gz" else open
    words = []
    with opener(path, "rt", encoding="utf-8") as f:
        first = f.readline().split()
        if len(first) != 2:  # no header line
            words.append(first[0])
        for line in f:
            if len(words) >= n:
                break
            words.append(line.split(" ", 1)[0])
    return words[:n]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", type=Path, default=SHARED / "models" / "minilm-l6-m2v-256")
    p.add_argument("--vectors", type=Path, default=SHARED / "vectors" / "en.minilm-static.384d.50k.vec.gz")
    p.add_argument("--n", type=int, default=50_000)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--rounds", type=int, default=2)
    a = p.parse_args(argv)

    words = read_words(a.vectors, a.n)
    print(f"{len(words)} words of {a.vectors.name}, model {a.model.name}")
    print(f"load average before {os.getloadavg()}")
    first = {side: float("inf") for side in SIDES}
    best = dict(first)
    with tempfile.TemporaryDirectory() as tmp:
        words_file = Path(tmp) / "words.json"
        words_file.write_text(json.dumps(words), encoding="utf-8")
        for _ in range(a.rounds):  # the sides alternate, so that both see the same load
            for side, (imports, call) in SIDES.items():
                python = sys.executable if side == "embgeo" else MODEL2VEC_PYTHON
                env = {**os.environ, "PYTHONPATH": str(REPO)} if side == "embgeo" else None
                run = subprocess.run([python, "-c", _RUN.format(imports=imports, call=call), str(a.model),
                                      str(words_file), str(Path(tmp) / f"{side}.npy"), str(a.repeat)],
                                     capture_output=True, text=True, env=env)
                if run.returncode != 0:
                    sys.exit(f"{side}'s run failed ({python}):\n{run.stderr[-3000:]}")
                f, b = map(float, run.stdout.split()[-2:])
                first[side], best[side] = min(first[side], f), min(best[side], b)
        mine, ref = np.load(Path(tmp) / "embgeo.npy"), np.load(Path(tmp) / "model2vec.npy")
    # model2vec gives a word without a known token the zero vector; embgeo's .words leaves it out
    known = ref.any(axis=1)
    same = np.array_equal(mine, ref[known].astype(np.float32))
    print(f"load + {len(words)} words: best of {a.repeat} calls in a process, and the first call in a fresh process "
          f"(imports excluded), each the least over {a.rounds} rounds")
    print(f"  {'':42s} {'best':>8s} {'first':>8s}")
    for side, label in (("embgeo", "embgeo.static.load + .words"), ("model2vec", "model2vec from_pretrained + encode")):
        print(f"  {label:42s} {best[side]:7.3f}s {first[side]:7.3f}s")
    print(f"  model2vec / embgeo: best {best['model2vec'] / best['embgeo']:.2f}, "
          f"first {first['model2vec'] / first['embgeo']:.2f}")
    print(f"  same vectors (bit for bit): {same}   ({(~known).sum()} words without a known token left out)")
    print(f"load average after {os.getloadavg()}")

if __name__ == "__main__":
    main()

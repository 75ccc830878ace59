"""Reading a distilled model and composing words: ``embgeo.static`` vs model2vec 0.10.0.

The issue's speed row for static models (issue 39): ``embgeo.static.load(dir)`` + ``.words(words)``
against ``model2vec.StaticModel.from_pretrained(dir)`` + ``.encode(words)`` for the same 50k words,
in wall seconds, the vectors checked equal (bit for bit).

model2vec is never a dependency of embgeo: it runs in its own environment, in a subprocess that times
itself (imports excluded, as embgeo's are here) and prints its seconds. Its Python is taken from
``$EMBGEO_MODEL2VEC_PYTHON``, by default ``/work/refvenv-static/bin/python``
(``python3 -m venv /work/refvenv-static && /work/refvenv-static/bin/pip install model2vec==0.10.0``).
Each side runs ``--repeat`` times in one process and the best time is kept; model2vec encodes 50k
texts with its default thread pool (``use_multiprocessing=True``), embgeo with its default too.

The words are the first ``--n`` words of ``--vectors`` (by default the shared English 384d ``.vec.gz``,
whose vocabulary is the distilled model's words); the model is ``--model`` (the shared
``minilm-l6-m2v-256``). The load average is printed: timings taken while other jobs run are noisy,
ratios measured in one run less so.

Run::

    /work/venv/bin/python benchmarks/compare_static.py [--model DIR] [--vectors FILE] [--n 50000] [--repeat 3]
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
MODEL2VEC_PYTHON = os.environ.get("EMBGEO_MODEL2VEC_PYTHON", "/work/refvenv-static/bin/python")
# run in model2vec's environment: times from_pretrained + encode, best of `repeat`, saves the vectors
_REFERENCE = """
import json, sys, time
import numpy as np
from model2vec import StaticModel
model_dir, words_file, out, repeat = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
words = json.load(open(words_file, encoding="utf-8"))
best = float("inf")
for _ in range(repeat):
    t = time.perf_counter()
    vectors = StaticModel.from_pretrained(model_dir).encode(words)
    best = min(best, time.perf_counter() - t)
np.save(out, vectors)
print(best)
"""


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
    a = p.parse_args(argv)

    import embgeo
    import embgeo.static

    words = read_words(a.vectors, a.n)
    print(f"{len(words)} words of {a.vectors.name}, model {a.model.name}")
    print(f"load average before {os.getloadavg()}")
    embgeo.static.load(a.model).words(words[:10])  # compile outside the timing, as imports are
    best = float("inf")
    for _ in range(a.repeat):
        t = time.perf_counter()
        e = embgeo.static.load(a.model).words(words, oov="skip")
        best = min(best, time.perf_counter() - t)

    with tempfile.TemporaryDirectory() as tmp:
        words_file, out = Path(tmp) / "words.json", Path(tmp) / "vectors.npy"
        words_file.write_text(json.dumps(words), encoding="utf-8")
        run = subprocess.run([MODEL2VEC_PYTHON, "-c", _REFERENCE, str(a.model), str(words_file), str(out),
                              str(a.repeat)], capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit(f"model2vec's run failed ({MODEL2VEC_PYTHON}):\n{run.stderr[-3000:]}")
        t_ref = float(run.stdout.split()[-1])
        ref = np.load(out)
    # model2vec gives a word without a known token the zero vector; embgeo's .words leaves it out
    kept = np.array([w in e for w in words])
    same = np.array_equal(np.asarray(e.vectors), ref[kept].astype(np.float32)) and not ref[~kept].any()
    print(f"load + {len(words)} words, best of {a.repeat}")
    print(f"  embgeo.static.load + .words                 {best:7.3f} s")
    print(f"  model2vec from_pretrained + encode          {t_ref:7.3f} s   model2vec / embgeo = {t_ref / best:.2f}")
    print(f"  same vectors (bit for bit): {same}   ({(~kept).sum()} words without a known token left out)")
    print(f"load average after {os.getloadavg()}")


if __name__ == "__main__":
    main()

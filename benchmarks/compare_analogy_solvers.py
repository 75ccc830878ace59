"""embgeo's analogy solvers against vecto's (PyPI ``vecto`` 0.2.21), in one run: same ranks, time ratio.

    python benchmarks/compare_analogy_solvers.py --vecto-python /tmp/ref-solvers/bin/python \\
        [--limit 30000] [--methods 3cosavg,lrcos]

Writes the ``--limit`` most frequent words of GloVe 6B 50d (the embedded default) as a text file and the
sections of gensim's ``questions-words.txt`` (lower-cased) as BATS-format relation files, one line per
distinct pair a : b; runs ``embgeo.evaluate.analogy`` on them (``restrict_vocab=None``, exact-case lookup,
``random_state=0``) and vecto's solvers through ``benchmarks/reference/vecto_analogy_golden.py`` in the
interpreter given by ``--vecto-python`` (a separate environment with vecto installed), LRCos on the same
random words. Prints per method the accuracy of each, the share of questions whose gold rank agrees,
and the wall times (vecto's measured inside its own process, without loading the vectors).
"""
from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vecto-python", required=True, help="a Python with vecto 0.2.21 installed")
    ap.add_argument("--limit", type=int, default=30000)
    ap.add_argument("--methods", default="3cosavg,lrcos")
    args = ap.parse_args(argv)

    import embgeo
    from embgeo.data import load_dataset, read_bats
    from embgeo.evaluate import analogy
    from embgeo.evaluate.analogy import SET_METHODS

    embgeo.set_progress(False)
    e = embgeo.load("glove-6b-50d").top(args.limit)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        _write_text(e, tmp / "vectors.txt")
        bats = tmp / "bats"
        bats.mkdir()
        q = load_dataset("google-analogy").lower()
        for k, (name, rows) in enumerate(q.sections.items()):
            seen = dict.fromkeys((a, b) for r in rows.tolist() for a, b in (r[:2], r[2:]))
            (bats / f"{k:02d} [{name}].txt").write_text("".join(f"{a}\t{b}\n" for a, b in seen), encoding="utf-8")
        pairs = read_bats(bats)
        out = tmp / "vecto.json"
        subprocess.run([args.vecto_python, str(HERE / "reference" / "vecto_analogy_golden.py"), "golden",
                        str(bats), str(tmp / "vectors.txt"), str(out), args.methods], check=True,
                       capture_output=True)
        ref = json.loads(out.read_text())
    print(f"GloVe 6B 50d, {args.limit} words; Google analogy sections as BATS pairs ({len(pairs)} pairs)")
    print(f"{'method':>14} {'embgeo acc':>10} {'vecto acc':>10} {'ranks equal':>11} {'embgeo s':>9} {'vecto s':>8} {'ratio':>6}")
    for m in args.methods.split(","):
        t0 = time.perf_counter()
        r = analogy(e, pairs, method=m, restrict_vocab=None, case_insensitive=False, random_state=0)
        t = time.perf_counter() - t0
        got, want, correct, total = [], [], 0, 0
        stops = np.cumsum([s["n_total"] for s in r.sections.values()])
        for (name, s), stop in zip(r.sections.items(), stops):
            ranks = r.ranks[stop - s["n_total"]:stop]
            got += (ranks[ranks >= 0] if m in SET_METHODS else ranks).tolist()
            v = ref["methods"][m][name]
            want += v["ranks"]
            correct += v["cnt_correct"]
            total += v["cnt_total"]
        same = np.mean(np.asarray(got) == np.asarray(want)) if len(got) == len(want) else float("nan")
        acc = r.accuracy if m in SET_METHODS else r.accuracy_all
        vs = ref["seconds"][m]
        print(f"{m:>14} {acc:>10.4f} {correct / total:>10.4f} {same:>11.4f} {t:>9.1f} {vs:>8.1f} {vs / t:>6.1f}")


def _write_text(e, path):
    V = np.asarray(e.vectors)
    with open(path, "w", encoding="utf-8") as fh:
        for w, v in zip(e.words, V):
            fh.write(w + " " + " ".join(repr(float(x)) for x in v) + "\n")


if __name__ == "__main__":
    main()

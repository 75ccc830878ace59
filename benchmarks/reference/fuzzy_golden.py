"""Regenerate tests/data/fuzzy_reference/: outputs of the authors' released C programs (Bhat et al. 2020).

The programs are the authors' (AlokDebnath/fuzzy_embeddings, ``word2fuzzy/``): pass the paths of
their two executables, built by you from the authors' sources; this script only runs them, on small
inputs that it writes (random vectors, a SimLex-format pair file, a compound file in the 13-column
format ``compute-composition.cpp`` reads). Nothing of the authors' code is stored in embgeo: only
its outputs.

    python benchmarks/reference/fuzzy_golden.py SIMLEX_PROGRAM COMPOSITION_PROGRAM

Programs and what they reproduce:

* ``dump-accuracy-simlex.c`` (the paper's Table 8): per pair, ``100 - sim``, with option ``kl`` =
  H(S,T) + H(T,S) (Bernoulli cross-entropies) and option ``crossentropy`` = D(S‖T) (Bernoulli KL), on
  L2-normalised vectors, base 2, normalised over each word's features.
* ``compute-composition.cpp`` (Table 11): option ``xhsym`` = ``100 - (D(M‖H) + D(H‖M))`` and
  ``xhheadmod`` = ``-D(H‖M)`` (Bernoulli KL), on L2-normalised vectors, base 2, normalised over the
  vocabulary.
"""
from __future__ import annotations

import struct
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parents[2] / "tests" / "data" / "fuzzy_reference"
N_WORDS, DIM, N_PAIRS = 40, 10, 30


def inputs():
    """Write (once) the vectors, the SimLex-format pairs and the compounds; return their rows."""
    OUT.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(2020)
    words = [f"w{i}" for i in range(N_WORDS)]
    X = (rng.standard_normal((N_WORDS, DIM)) * 0.7).astype(np.float32)
    vec = OUT / "vectors.txt"
    if not vec.exists():
        lines = [f"{N_WORDS} {DIM}"] + [w + " " + " ".join(repr(float(v)) for v in row) for w, row in zip(words, X)]
        vec.write_text("\n".join(lines) + "\n")
    pairs = [(words[a], words[b], round(float(s), 2)) for a, b, s in
             zip(rng.integers(0, N_WORDS, N_PAIRS), rng.integers(0, N_WORDS, N_PAIRS), rng.uniform(0, 10, N_PAIRS))]
    pairs.append(("w1", "unknownword", 5.0))  # skipped by the programs
    sim = OUT / "simlex.txt"
    if not sim.exists():
        sim.write_text("word1\tword2\tPOS\tSimLex999\tconc(w1)\n"
                       + "".join(f"{a}\t{b}\tN\t{s:.2f}\t0\n" for a, b, s in pairs))
    comp = OUT / "compounds.tsv"
    if not comp.exists():
        rows = []
        for a, b, s in pairs:
            cols = ["x"] * 13
            cols[3], cols[4], cols[10] = a, b, f"{s / 2:.2f}"
            rows.append("\t".join(cols))
        comp.write_text("\n".join(rows) + "\n")
    return vec, sim, comp


def read_vectors(path):
    lines = Path(path).read_text().split("\n")[1:]
    rows = [ln.split() for ln in lines if ln.strip()]
    return [r[0] for r in rows], np.array([[float(v) for v in r[1:]] for r in rows], dtype=np.float32)


def write_binary(path, words, X):
    with open(path, "wb") as f:
        f.write(f"{len(words)} {X.shape[1]}\n".encode())
        for w, row in zip(words, X):
            f.write(w.encode() + b" " + struct.pack(f"{len(row)}f", *row.tolist()) + b"\n")


def main(simlex_program, composition_program):
    simlex, comp_program = Path(simlex_program), Path(composition_program)
    vec, sim, comp = inputs()
    words, X = read_vectors(vec)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        binpath = tmp / "vectors.bin"
        write_binary(binpath, words, X)
        for option in ("kl", "crossentropy"):
            out = OUT / f"simlex_{option}.txt"
            subprocess.run([str(simlex), str(binpath), str(sim), option, str(out)], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for option in ("xhsym", "xhheadmod"):
            res = subprocess.run([str(comp_program), str(binpath), str(comp), option], check=True,
                                 capture_output=True, text=True)
            (OUT / f"composition_{option}.txt").write_text(res.stdout)
    print("wrote", sorted(p.name for p in OUT.iterdir()))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: fuzzy_golden.py SIMLEX_PROGRAM COMPOSITION_PROGRAM (the authors' two executables)")
    main(sys.argv[1], sys.argv[2])

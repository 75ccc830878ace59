"""What debiasing costs the geometry: hard debias (Bolukbasi et al. 2016) and double-hard debias (Wang et al.
2020) on GloVe 6B 50d, the table of ``docs/bias.md`` ("Debiasing and its price").

Both are fitted with their defaults (the debiaswe definitional and equalise pairs; double-hard: 20
candidate directions, 1,000 + 1,000 biased words among the 50,000 most frequent, k-means seeded) and
transform every word but the authors' gender-specific ones (``bias.gender_specific_words()``). Then, for
the original and each debiased space:

- the gender WEATs (6: career/family, 7: math/arts, 8: science/arts) with 95 % BCa intervals over the
  words, and a paired bootstrap p-value against the original (``compare``, the same resampled words);
- word similarity (WS-353, SimLex-999: Spearman ρ, Steiger's test against the original) and analogy
  (Google, 3CosAdd over the 30,000 most frequent words: accuracy, exact McNemar against the original)::

    python benchmarks/report_debias_price.py            # about 5 minutes on 2 cores (k-means dominates)
"""
from __future__ import annotations

import time

import numpy as np

import embgeo
from embgeo.evaluate import bias, compare

N_RESAMPLES = 2000


def main() -> None:
    e = embgeo.load("glove-6b-50d")
    ignore = bias.gender_specific_words()
    t = time.perf_counter()
    hard = bias.HardDebias().fit(e).transform(e, ignore=ignore)
    t_hard = time.perf_counter() - t
    t = time.perf_counter()
    dhd = bias.DoubleHardDebias().fit(e)
    double = dhd.transform(e, ignore=ignore)
    t_double = time.perf_counter() - t
    print(f"hard debias {t_hard:.1f} s; double-hard debias {t_double:.1f} s: component {dhd.component_ + 1} of "
          f"{len(dhd.accuracies_)} removed, clustering accuracies {np.round(dhd.accuracies_, 4).tolist()}")
    spaces = {"hard": hard, "double-hard": double}
    print("\n| | GloVe 6B 50d | hard debias | p | double-hard debias | p |")
    print("|---|---|---|---:|---|---:|")
    for name in ("weat6", "weat7", "weat8"):
        cells = []
        for label, s in [("glove", e)] + list(spaces.items()):
            r = bias.weat(s, query=name)
            low, high = r.ci(0.95, n_resamples=N_RESAMPLES, random_state=0)
            cells.append(f"{r.score:.2f} [{low:.2f}, {high:.2f}]")
            if label != "glove":
                c = compare(e, s, name, n_resamples=N_RESAMPLES, random_state=0, labels=("glove", label))
                # no resample on the other side of zero: the bootstrap p-value is below 1 / resamples
                cells.append(f"{c.p_value:.3g}" if c.p_value > 0 else f"< {1 / N_RESAMPLES:.1g}")
        print(f"| {name.upper()} effect size [95 % BCa] | " + " | ".join(cells) + " |")
    for name, what, kwargs in (("wordsim353", "WS-353 Spearman ρ", {}), ("simlex999", "SimLex-999 Spearman ρ", {}),
                               ("google-analogy", "Google analogy accuracy (3CosAdd, top 30k)",
                                {"restrict_vocab": 30000})):
        cells = []
        for label, s in spaces.items():
            c = compare(e, s, name, labels=("glove", label), **kwargs)
            cells += [f"{c.score_b:.4f}", f"{c.p_value:.2g} ({c.test})"]
        print(f"| {what} | {c.score_a:.4f} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()

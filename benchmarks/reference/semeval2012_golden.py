"""Regenerate tests/data/semeval2012_1b* with the official SemEval-2012 Task 2 Perl scripts.

The fixture is synthetic, written here in the published layout of category 1b (no published answer
is copied): six MaxDiff questions over invented word pairs, answered 4 or 9 times each (pairs shown
a number of times that makes the ratings need the script's rounding to one decimal), three answers
with an empty (``""``) least or most choice, as 50 of the 79 published answer files have. The
golden files are what the official scripts print for it:

* ``GoldRatings-1b.txt``: ``maxdiff_to_scale.pl`` on the fixture's Phase2Answers file (pairs of
  equal rating come in Perl's hash order, which varies between runs);
* ``SystemRatings-1b.txt``: a fixed rating per pair (with ties), the "system" under test;
* ``ScoreMaxDiff-1b.txt``: ``scale_to_maxdiff.pl`` answers the unique questions from those
  ratings, ``score_maxdiff.pl`` scores them against the fixture's answers.

Usage (the package comes from ``fetch github:SBelkaid/degrees_of_similarities``)::

    python benchmarks/reference/semeval2012_golden.py /path/to/SemEval-2012-Complete-Data-Package

With a second argument, the published ``SemEval-2012-Gold-Ratings`` folder, it also checks that
the gold ratings ``embgeo.data.read_semeval2012`` derives for every category of the package
(Testing and Training) equal the official GoldRatings files exactly, and prints the count.
"""
from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

OUT = Path(__file__).resolve().parents[2] / "tests" / "data"


def main(package: Path) -> None:
    fixture, golden = OUT / "semeval2012_1b", OUT / "semeval2012_1b_golden"
    fixture.mkdir(exist_ok=True)
    golden.mkdir(exist_ok=True)
    prototypes = ["tool:hammer", "vehicle:car", "fruit:apple"]
    (fixture / "Phase1Questions-1b.txt").write_text(
        "Question 1(b) CLASS-INCLUSION: Functional (synthetic fixture)\n\nConsider the following word pairs:\n\n"
        + "\n".join(prototypes) + "\n\nWhat relation best describes these X:Y word pairs?\n")
    header = ("# pair1\tpair2\tpair3\tpair4\tleast_illustrative\tmost_illustrative\t"
              "user_selected_relation\n")
    pool = ["drink:tea", "metal:iron", "bird:crow", "game:chess", "tree:oak", "color:red", "dog:puppy",
            "flower:rose", "music:jazz", "cloth:silk"]
    questions = [tuple(pool[(3 * q + j) % len(pool)] for j in range(4)) for q in range(6)]
    def key(line):
        return tuple(line.split("\t")[:4])

    kept = []
    for q, pairs4 in enumerate(questions):
        for a in range(9 if q % 2 == 0 else 4):
            least, most = pairs4[(q + a) % 4], pairs4[(q + 2 * a + 1) % 4]
            if least == most:
                most = pairs4[(q + 2 * a + 2) % 4]
            fields = [f'"{p}"' for p in pairs4] + [f'"{least}"', f'"{most}"']
            if (q, a) in ((1, 2), (3, 0)):
                fields[4] = '""'
            if (q, a) == (4, 5):
                fields[5] = '""'
            kept.append("\t".join(fields + ['"Y functions as an X"']) + "\n")
    p2 = fixture / "Phase2Answers-1b.txt"
    p2.write_text(header + "".join(kept))

    def perl(script, *args):
        # run from tests/data so that the scripts' headers name the fixture files relatively
        subprocess.run(["perl", str(package / script), *(str(Path(a).relative_to(OUT)) if Path(a).is_relative_to(OUT)
                                                          else str(a) for a in args)],
                       check=True, capture_output=True, cwd=OUT)

    perl("maxdiff_to_scale.pl", p2, golden / "GoldRatings-1b.txt")
    pairs = sorted({f for line in kept for f in line.split("\t")[:4]})
    # a deterministic rating with many ties: word lengths mod 5
    ratings = {p: (len(p) * 7) % 5 for p in pairs}
    (golden / "SystemRatings-1b.txt").write_text("".join(f"{r}.0 {p}\n" for p, r in ratings.items()))
    with tempfile.TemporaryDirectory() as tmp:
        questions = Path(tmp) / "questions.txt"
        questions.write_text("".join(",".join(q) + "\n" for q in dict.fromkeys(map(key, kept))))
        answered = Path(tmp) / "answers.txt"
        perl("scale_to_maxdiff.pl", questions, golden / "SystemRatings-1b.txt", answered)
        result = Path(tmp) / "result.txt"
        perl("score_maxdiff.pl", p2, answered, result)
        # the report names the temporary files: keep only the numbers
        (golden / "ScoreMaxDiff-1b.txt").write_text(
            "".join(line for line in result.read_text().splitlines(keepends=True)
                    if line.startswith(("Number", "Accuracy", "Overall"))))


def check_gold(package: Path, gold_ratings: Path) -> None:
    from embgeo.data import read_semeval2012

    n = bad = 0
    for split in ("Testing", "Training"):
        for cat, data in read_semeval2012(package / split).items():
            official = {}
            for line in (gold_ratings / split / f"GoldRatings-{cat}.txt").read_text().splitlines():
                if line.strip() and not line.startswith("#"):
                    value, pair = line.split()
                    official[tuple(pair.strip('"').split(":"))] = float(value)
            n += 1
            bad += dict(zip(data.pairs, data.gold.tolist())) != official
    print(f"{n} categories, {n - bad} with gold ratings equal to the official GoldRatings files")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
    if len(sys.argv) > 2:
        check_gold(Path(sys.argv[1]), Path(sys.argv[2]))

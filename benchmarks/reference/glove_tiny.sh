#!/usr/bin/env bash
# Regenerates tests/data/glove_tiny/: a tiny GloVe model written by Stanford GloVe itself
# (stanfordnlp/GloVe; pass the directory holding its tools), in both of its `-model 0` outputs (text and
# binary, with context vectors and biases), for tests/test_alpha.py's reader tests.
#   bash benchmarks/reference/glove_tiny.sh /path/to/GloVe/build
set -euo pipefail
BUILD=${1:?usage: glove_tiny.sh GLOVE_BUILD_DIR}
OUT=$(cd "$(dirname "$0")/../.." && pwd)/tests/data/glove_tiny
TMP=$(mktemp -d)
mkdir -p "$OUT"
# corpus: gensim's lee_background.cor, lower-cased, letters only
python - "$TMP/corpus.txt" <<'PY'
import re, sys
from gensim.test.utils import datapath
with open(datapath("lee_background.cor"), encoding="utf8") as fh, open(sys.argv[1], "w") as out:
    for line in fh:
        out.write(" ".join(re.findall(r"[a-z]+", line.lower())) + "\n")
PY
cd "$TMP"
"$BUILD/vocab_count" -min-count 40 -verbose 0 < corpus.txt > vocab.txt
"$BUILD/cooccur" -memory 1.0 -vocab-file vocab.txt -verbose 0 -window-size 10 < corpus.txt > cooccurrence.bin
"$BUILD/shuffle" -memory 1.0 -verbose 0 -seed 1 < cooccurrence.bin > cooccurrence.shuf.bin
"$BUILD/glove" -save-file vectors -threads 1 -input-file cooccurrence.shuf.bin -x-max 10 -iter 15 \
    -vector-size 6 -binary 2 -model 0 -vocab-file vocab.txt -verbose 0 -seed 1
cp vocab.txt vectors.txt vectors.bin "$OUT/"
rm -rf "$TMP"
ls -l "$OUT"

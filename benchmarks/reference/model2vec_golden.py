"""Golden vectors of model2vec 0.10.0's ``StaticModel.encode`` for ``tests/test_static.py``.

Runs model2vec itself in a separate Python (never a dependency of embgeo)::

    python3 -m venv /work/refvenv-static && /work/refvenv-static/bin/pip install model2vec==0.10.0
    /work/refvenv-static/bin/python benchmarks/reference/model2vec_golden.py [../shared/data/models/minilm-l6-m2v-256]

and writes ``tests/data/static/model2vec_golden.npz``: for each variant of ``tests/static_models.py``
(float32, float16, float64, int8 tables, token weights, a quantised vocabulary, max_length 3) the
vectors of its ``TEXTS``, in the dtype model2vec returns; and, when the shared model's directory is
given, ``tests/data/static/minilm_golden.npz``: the vectors of a few sentences of that model
(float16, as model2vec returns them) and the sentences.
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import numpy as np
from model2vec import StaticModel

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))
from static_models import TEXTS, VARIANTS, write_model  # noqa: E402

OUT = REPO / "tests" / "data" / "static"
SENTENCES = ["The cat sat on the mat.", "A distilled model averages its token vectors!", "",
             "naïve café résumé", "日本語のテキスト", "Word embeddings and their geometry, 2026."]


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    golden = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, options in VARIANTS.items():
            model = StaticModel.from_pretrained(write_model(Path(tmp) / name, **options))
            golden[name] = model.encode(TEXTS)
    np.savez_compressed(OUT / "model2vec_golden.npz", **golden)
    if len(sys.argv) > 1:
        model = StaticModel.from_pretrained(sys.argv[1])
        np.savez_compressed(OUT / "minilm_golden.npz", vectors=model.encode(SENTENCES),
                            sentences=np.array(SENTENCES))
    print("wrote", sorted(p.name for p in OUT.iterdir()))


if __name__ == "__main__":
    main()

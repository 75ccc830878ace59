"""A sentence-transformers ``StaticEmbedding`` model saved by sentence-transformers itself, and its
``encode`` vectors, for ``tests/test_static.py``.

Runs sentence-transformers (with torch; never a dependency of embgeo) in a separate Python::

    python3 -m venv /work/refvenv-quant && /work/refvenv-quant/bin/pip install sentence-transformers==6.2.0
    /work/refvenv-quant/bin/python benchmarks/reference/st_static_golden.py [OUT]

For each variant (``plain``: ``SentenceTransformer(modules=[StaticEmbedding])``; ``normalized``: the
same followed by ``Normalize()``), a ``StaticEmbedding`` over the tiny WordPiece tokenizer of
``tests/static_models.py`` with seeded random float32 weights (75 tokens × 16), saved with
``model.save`` (``safe_serialization=True``) under ``OUT/<variant>`` (default
``tests/data/static/sentence_transformers``), and ``OUT/golden.npz``: ``model.encode(TEXTS)``
(float32) per variant, the texts, and the versions that wrote them. The model card (``README.md``)
is dropped; everything else is kept as sentence-transformers wrote it.

With ``--check DIR OUT.npz`` instead: load the directory ``DIR`` (written by embgeo) with
``SentenceTransformer(DIR)`` and save its ``encode(TEXTS)`` to ``OUT.npz`` (the optional test that
runs sentence-transformers, ``$EMBGEO_ST_PYTHON``).
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))
from static_models import TEXTS, tokenizer_json  # noqa: E402

OUT = REPO / "tests" / "data" / "static" / "sentence_transformers"
DIM = 16


def build(normalized: bool):
    import torch
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.models import Normalize, StaticEmbedding
    from tokenizers import Tokenizer

    tok = Tokenizer.from_str(tokenizer_json())
    weights = np.random.default_rng(7).standard_normal((tok.get_vocab_size(), DIM)).astype(np.float32)
    static = StaticEmbedding(tok, embedding_weights=torch.from_numpy(weights))
    return SentenceTransformer(modules=[static, Normalize()] if normalized else [static], device="cpu")


def main(argv: list[str]) -> None:
    import sentence_transformers
    import tokenizers
    import torch

    if argv[:1] == ["--check"]:
        from sentence_transformers import SentenceTransformer

        model = SentenceTransformer(argv[1], device="cpu")
        np.savez(argv[2], vectors=model.encode(TEXTS, convert_to_numpy=True))
        return
    out = Path(argv[0]) if argv else OUT
    golden = {"texts": np.array(TEXTS),
              "versions": np.array([f"sentence-transformers {sentence_transformers.__version__}",
                                    f"torch {torch.__version__}", f"tokenizers {tokenizers.__version__}"])}
    for name, normalized in (("plain", False), ("normalized", True)):
        model = build(normalized)
        folder = out / name
        model.save(str(folder), safe_serialization=True)
        (folder / "README.md").unlink(missing_ok=True)
        golden[name] = model.encode(TEXTS, convert_to_numpy=True)
    np.savez_compressed(out / "golden.npz", **golden)
    print("wrote", sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()))


if __name__ == "__main__":
    main(sys.argv[1:])

"""Tiny static models written by the tests (and by benchmarks/reference/model2vec_golden.py, which runs
model2vec 0.10.0 on the same directories): a WordPiece tokenizer with BERT's normaliser and
pre-tokeniser over a few dozen tokens, random tables.

Needs numpy, safetensors and tokenizers only, so that model2vec's own environment can import it.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

WORDS = ["the", "cat", "dog", "car", "auto", "run", "quick", "brown", "fox", "jump", "lazy", "over", "a"]
SUFFIXES = ["##mobile", "##ning", "##s", "##ed", "##er"]
SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]"]
LETTERS = [chr(c) for c in range(ord("a"), ord("z") + 1)]
VOCAB = list(dict.fromkeys(SPECIAL + WORDS + SUFFIXES + LETTERS + ["##" + c for c in LETTERS] + [".", ",", "!"]))
TEXTS = ["The quick brown fox jumps over the lazy dog.", "", "cars, automobile!", "running dogs",
         "€ 42 ¿", "the the the the the the the the", "CAT", "zzz qqq xyz",
         "the automobile runs over a cat " * 5, "dog"]
#: golden variants: name -> options of write_model
VARIANTS = {
    "float32": dict(dtype="float32", normalize=False),
    "float16_normalized": dict(dtype="float16", normalize=True),
    "float64": dict(dtype="float64", normalize=True),
    "int8": dict(dtype="int8", normalize=False),
    "weights": dict(dtype="float16", weights=True, normalize=True),
    "quantized": dict(dtype="float32", weights=True, clusters=8, normalize=False),
    "max_length_3": dict(dtype="float32", normalize=True, max_length=3),
}


def tokenizer_json() -> str:
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

    tok = Tokenizer(models.WordPiece({t: i for i, t in enumerate(VOCAB)}, unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    return tok.to_str()


def write_model(folder, *, dtype="float32", weights=False, clusters=None, normalize=True, max_length=None,
                dim=16, seed=0) -> Path:
    """A Model2Vec directory of the tiny vocabulary; ``max_length=None`` leaves it out of config.json."""
    from safetensors.numpy import save_file

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    rows = clusters or len(VOCAB)
    table = rng.standard_normal((rows, dim))
    table = (np.clip(np.rint(table * 40), -127, 127) if dtype == "int8" else table).astype(dtype)
    arrays = {"embeddings": table}
    if weights:
        arrays["weights"] = rng.uniform(0.2, 2.0, len(VOCAB)).astype(np.float32)
    if clusters:
        arrays["mapping"] = rng.integers(0, clusters, len(VOCAB)).astype(np.int64)
    save_file(arrays, str(folder / "model.safetensors"))
    (folder / "tokenizer.json").write_text(tokenizer_json(), encoding="utf-8")
    config = {"model_type": "model2vec", "architectures": ["StaticModel"], "normalize": normalize,
              "hidden_dim": dim, "embedding_dtype": dtype}
    if max_length is not None:
        config["max_length"] = max_length
    (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")
    return folder

"""Model directories: reading Model2Vec's and sentence-transformers' layouts, writing Model2Vec's.

Every file is read as data (JSON, safetensors); a torch pickle (``pytorch_model.bin``) is refused,
never loaded (see ``docs/security.md``). Errors are :class:`~embgeo.errors.FormatError` naming the file.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import FormatError
from ._model import (DEFAULT_MAX_LENGTH, StaticModel, _checked_table, module_kind, positive_or_none, require_extra,
                     tokenizer_model)

__all__ = ["load", "LAYOUTS"]

#: The layouts :func:`load` reads, with the files each needs.
LAYOUTS = {
    "model2vec": ("config.json", "model.safetensors", "tokenizer.json"),
    "sentence-transformers": ("modules.json", "<module>/model.safetensors", "<module>/tokenizer.json"),
}
#: tokenizer files of slow (Python) tokenizers, which embgeo does not read
_SLOW_TOKENIZERS = {"vocab.txt": "a WordPiece vocabulary", "tokenizer.model": "a SentencePiece model",
                    "spiece.model": "a SentencePiece model", "sentencepiece.bpe.model": "a SentencePiece model",
                    "vocab.json": "a BPE vocabulary (with merges.txt)"}

def load(path) -> StaticModel:
    """Read a Model2Vec or sentence-transformers ``StaticEmbedding`` model directory (see :data:`LAYOUTS`).

    Parameters
    ----------
    path : str or path-like
        The model's directory (a local path; nothing is downloaded).

    Returns
    -------
    StaticModel
        With model2vec's recipe and ``config.json``'s ``normalize`` (default False) and
        ``max_length`` (default 512) for a Model2Vec directory; with ``StaticEmbedding``'s recipe
        (normalised when a ``Normalize`` module follows it) otherwise.

    Raises
    ------
    FormatError
        Naming the file: a missing ``config.json`` or ``tokenizer.json`` (the second naming the slow
        tokenizer files found instead, if any), a tokenizer model other than WordPiece, BPE,
        Unigram or WordLevel (named), a table whose rows differ from the tokenizer's tokens (both
        numbers), a table that is not a 2-D float array, NaN or inf in it (the token named), a
        module other than ``StaticEmbedding`` + ``Normalize``, a module path leaving the
        directory, a torch pickle in place of ``model.safetensors``.
    ImportError
        Without the ``static`` extra (``pip install 'embgeo[static]'``).

    Examples
    --------
    >>> m = embgeo.static.load("minilm-l6-m2v-256")     # doctest: +SKIP
    >>> m.words(["car", "automobile"]).similarity("car", "automobile")   # doctest: +SKIP
    """
    safetensors, _ = require_extra()
    folder = Path(os.fspath(path)).expanduser()
    if not folder.exists():
        raise FileNotFoundError(f"no such directory: {str(folder)!r}")
    if not folder.is_dir():
        raise FormatError(folder, "not a directory: a Model2Vec or sentence-transformers model is a directory "
                                  f"({', '.join(LAYOUTS['model2vec'])})")
    if (folder / "config.json").exists() and (folder / "model.safetensors").exists():
        return _load_model2vec(folder, safetensors)
    if (folder / "modules.json").exists():
        return _load_sentence_transformers(folder, safetensors)
    missing = [f for f in LAYOUTS["model2vec"] if not (folder / f).exists()]
    raise FormatError(folder, f"not a Model2Vec model directory: {', '.join(missing)} missing (and no modules.json "
                              f"naming a sentence-transformers StaticEmbedding)")


def _load_model2vec(folder: Path, safetensors) -> StaticModel:
    config = _read_json(folder / "config.json", dict)
    normalize = config.get("normalize", False)
    if not isinstance(normalize, bool):
        raise FormatError(folder / "config.json", f"'normalize' must be true or false, got {normalize!r}")
    try:
        max_length = positive_or_none(config.get("max_length", DEFAULT_MAX_LENGTH), "'max_length'")
    except ValueError as exc:
        raise FormatError(folder / "config.json", str(exc)) from None
    tensors = _read_tensors(folder / "model.safetensors", safetensors, ("embeddings",))
    return _build(folder, folder, tensors, config=config, normalize=normalize, max_length=max_length,
                  recipe="model2vec")


def _load_sentence_transformers(folder: Path, safetensors) -> StaticModel:
    modules_file = folder / "modules.json"
    modules = _read_json(modules_file, list)
    kinds = [m.get("type") if isinstance(m, dict) else None for m in modules]
    roles = [module_kind(k) for k in kinds]
    if not roles or roles[0] != "StaticEmbedding" or any(r != "Normalize" for r in roles[1:]):
        found = " -> ".join(map(str, kinds)) or "no module"
        raise FormatError(modules_file, "embgeo reads a sentence-transformers StaticEmbedding module, optionally "
                                        f"followed by Normalize; this model has {found}")
    sub = modules[0].get("path", "")
    if not isinstance(sub, str) or os.path.isabs(sub) or ".." in Path(sub).parts:
        raise FormatError(modules_file, f"the StaticEmbedding module's path {sub!r} leaves the model directory")
    module = folder / sub
    if not module.resolve().is_relative_to(folder.resolve()):  # a symbolic link out of the directory
        raise FormatError(modules_file, f"the StaticEmbedding module's path {sub!r} leaves the model directory")
    if not (module / "model.safetensors").exists() and (module / "pytorch_model.bin").exists():
        raise FormatError(module / "pytorch_model.bin", "a torch pickle (saved with safe_serialization=False); "
                          "embgeo never unpickles, because unpickling runs code that the file names. Save the "
                          "model again with safe_serialization=True (model.safetensors)")
    tensors = _read_tensors(module / "model.safetensors", safetensors, ("embedding.weight", "embeddings"))
    return _build(folder, module, tensors, config={}, normalize=len(kinds) > 1, max_length=None,
                  recipe="sentence-transformers")


def _read_json(path: Path, kind: type):
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise FormatError(path, "missing") from None
    except UnicodeDecodeError as exc:
        raise FormatError(path, f"not UTF-8 text ({exc})") from None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise FormatError(path, f"not valid JSON ({exc.msg})", exc.lineno) from None
    if not isinstance(value, kind):
        raise FormatError(path, f"expected a JSON {'object' if kind is dict else 'list'}, got {type(value).__name__}")
    return value


def _read_tensors(path: Path, safetensors, table_names: tuple[str, ...]) -> dict:
    """The table (under the first of ``table_names`` present), and model2vec's ``weights``/``mapping``."""
    if not path.exists():
        raise FormatError(path, "missing")
    try:
        with safetensors.safe_open(str(path), framework="numpy") as f:
            names = set(f.keys())
            table = next((n for n in table_names if n in names), None)
            if table is None:
                raise FormatError(path, f"no token table: expected a tensor named {' or '.join(map(repr, table_names))}"
                                        f", found {sorted(names)[:8]}")
            out = {"table": f.get_tensor(table)}
            for name in ("weights", "mapping"):
                if name in names:
                    out[name] = f.get_tensor(name)
    except FormatError:
        raise
    # safetensors raises its own SafetensorError, and TypeError for a dtype NumPy lacks (bfloat16)
    except (safetensors.SafetensorError, TypeError, ValueError, OSError) as exc:
        if isinstance(exc, OSError) and exc.errno is not None:
            raise
        raise FormatError(path, f"not a valid safetensors file ({type(exc).__name__}: {exc})") from None
    T = out["table"]
    if T.ndim != 2 or T.shape[1] == 0 or not (T.dtype.kind == "f" or T.dtype == np.int8):
        raise FormatError(path, f"the token table must be a 2-D float (or int8) array, got {T.dtype} of shape "
                                f"{T.shape}")
    return out


def _build(folder: Path, module: Path, tensors: dict, **options) -> StaticModel:
    tok_file, table_file = module / "tokenizer.json", module / "model.safetensors"
    text, spec, tok = _read_tokenizer(tok_file)
    vocab = tok.get_vocab()
    T, W, M = tensors["table"], tensors.get("weights"), tensors.get("mapping")
    try:
        _checked_table(T, W, M, len(vocab))
    except ValueError as exc:
        raise FormatError(table_file, f"{exc} ({tok_file.name})") from None
    for name, arr in (("token table", T), ("weights", W)):
        if arr is not None and arr.dtype.kind == "f" and not np.isfinite(arr).all():
            bad = int(np.flatnonzero(~np.isfinite(arr.reshape(arr.shape[0], -1)).all(axis=1))[0])
            # a row of a quantised table is a cluster, not a token
            token = next((t for t, i in vocab.items() if i == bad), None) if M is None or name == "weights" else None
            raise FormatError(table_file, f"NaN or inf in the {name}, row {bad}" + (f" (token {token!r})" if token else ""))
    try:
        return StaticModel._from_parsed(text, spec, tok, vocab, T, weights=W, mapping=M, **options)
    except ValueError as exc:  # token ids with a gap, a repeated id
        raise FormatError(tok_file, str(exc)) from None


def _read_tokenizer(tok_file: Path) -> tuple[str, dict, Any]:
    """The text of ``tokenizer.json``, its parsed JSON and its ``tokenizers.Tokenizer``, checked as data first."""
    if not tok_file.exists():
        slow = [f"{name} ({what})" for name, what in _SLOW_TOKENIZERS.items() if (tok_file.parent / name).exists()]
        raise FormatError(tok_file, "missing" + (f"; found {', '.join(slow)}, a slow tokenizer, which embgeo does not "
                                                  "read: save the tokenizer as a fast one (tokenizer.json)" if slow else ""))
    spec = _read_json(tok_file, dict)
    try:
        tokenizer_model(spec)
    except ValueError as exc:
        raise FormatError(tok_file, str(exc)) from None
    _, tokenizers = require_extra()
    text = tok_file.read_text(encoding="utf-8")
    try:
        return text, spec, tokenizers.Tokenizer.from_str(text)
    except Exception as exc:  # the Rust library raises a bare Exception for a tokenizer it cannot build
        raise FormatError(tok_file, f"not a tokenizer the tokenizers library reads ({exc})") from None

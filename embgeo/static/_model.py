"""The :class:`StaticModel`: a tokenizer, a token table and model2vec's recipe to compose texts."""
from __future__ import annotations

import json
import os
import stat
from itertools import chain
from pathlib import Path
from typing import Sequence

import numpy as np

from .. import backend as xb
from ..embeddings import Embeddings
from ..io.atomic import atomic_dir
from ..kernels import readonly

__all__ = ["StaticModel"]

#: what ``recipe=`` may say: how a text becomes token ids (see :class:`StaticModel`)
RECIPES = ("model2vec", "sentence-transformers")
#: model2vec's default sequence length, in tokens (``model2vec.model.DEFAULT_MAX_LENGTH``)
DEFAULT_MAX_LENGTH = 512
#: the tokenizer models of the ``tokenizers`` library: the ``model.type`` of a ``tokenizer.json``
TOKENIZER_MODELS = ("WordPiece", "BPE", "Unigram", "WordLevel")
_INSTALL = "pip install 'embgeo[static]'"
#: the module types ``embgeo.save`` writes in ``modules.json`` (as model2vec does; sentence-transformers 6
#: still loads them); :func:`module_kind` also reads 6.x's own names, such as
#: ``sentence_transformers.sentence_transformer.modules.static_embedding.StaticEmbedding``
STATIC_MODULE = "sentence_transformers.models.StaticEmbedding"
NORMALIZE_MODULE = "sentence_transformers.models.Normalize"
#: files that make a directory a static model's (what embgeo.save may replace)
_MODEL_FILES = ("model.safetensors", "modules.json", "tokenizer.json", "config_sentence_transformers.json")


def require_extra():
    """``(safetensors, tokenizers)``, or an ImportError naming the missing package and the extra."""
    try:
        import safetensors
        import safetensors.numpy  # noqa: F401  (save_file)
        import tokenizers
    except ImportError as exc:
        raise ImportError(f"embgeo.static needs the optional package {exc.name!r} (safetensors and tokenizers); "
                          f"install them with: {_INSTALL}") from exc
    return safetensors, tokenizers


def tokenizer_model(spec: dict) -> tuple[str, int | None]:
    """``(model type, unk id or None)`` of a parsed ``tokenizer.json``; ValueError naming an unsupported type.

    The unknown token is found as model2vec finds it (``model2vec.model._get_unk_token_id``): the
    model's ``unk_token`` looked up in the vocabulary (WordPiece, BPE, WordLevel), Unigram's ``unk_id``.
    """
    model = spec.get("model") if isinstance(spec, dict) else None
    kind = model.get("type") if isinstance(model, dict) else None
    if kind not in TOKENIZER_MODELS:
        raise ValueError(f"the tokenizer model {kind!r} is not supported: embgeo reads the tokenizer.json of a "
                         f"{', '.join(TOKENIZER_MODELS)} tokenizer (Hugging Face's fast tokenizers)")
    assert isinstance(model, dict)
    if kind == "Unigram":
        unk = model.get("unk_id")
        return kind, unk if isinstance(unk, int) and not isinstance(unk, bool) else None
    unk_token = model.get("unk_token")
    if unk_token is None:
        return kind, None
    vocab = model.get("vocab")
    unk = vocab.get(unk_token) if isinstance(vocab, dict) else None
    if unk is None:  # an added token may carry it
        unk = next((t.get("id") for t in spec.get("added_tokens") or () if isinstance(t, dict)
                    and t.get("content") == unk_token), None)
    return kind, unk


def module_kind(module_type) -> str | None:
    """``"StaticEmbedding"`` or ``"Normalize"`` for a ``modules.json`` type naming that sentence-transformers
    class (its 5.x path ``sentence_transformers.models.X`` or a 6.x module path ending in ``.X``), else None."""
    if not isinstance(module_type, str) or not module_type.startswith("sentence_transformers."):
        return None
    name = module_type.rsplit(".", 1)[1]
    return name if name in ("StaticEmbedding", "Normalize") else None


#: texts in one call from which printable ASCII ones take the cheaper tokenizer (built once, ~30 ms)
_ASCII_ROUTE_MIN = 4096


def _ascii_equivalent(normalizer) -> dict | None:
    """A cheaper normaliser giving the same text as ``normalizer`` (a ``tokenizer.json`` entry) on
    printable ASCII, or None. ``BertNormalizer`` (about a third of a BERT tokenizer's time) only
    cleans control characters, spaces CJK characters, strips accents (NFD, then combining marks
    dropped) and lower-cases: on printable ASCII all but the last do nothing."""
    if not isinstance(normalizer, dict) or normalizer.get("type") != "BertNormalizer":
        return None
    return {"type": "Lowercase"} if normalizer.get("lowercase", True) else {"type": "Sequence", "normalizers": []}


def _batch_ids(tok, texts: list[str]) -> list[list[int]]:
    """``tok``'s ids of each text, without special tokens (no offsets computed where the library can skip them)."""
    encode = getattr(tok, "encode_batch_fast", tok.encode_batch)
    return [enc.ids for enc in encode(texts, add_special_tokens=False)]


def positive(value, name: str) -> int:
    """``value`` as an int; a ValueError naming ``name`` unless it is a positive integer."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value <= 0:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def positive_or_none(value, name: str) -> int | None:
    """:func:`positive`, or None."""
    return None if value is None else positive(value, f"{name} (or None)")


def _tokens_by_id(vocab: dict) -> list[str]:
    """The tokens in id order; a ValueError unless the ids are ``0 .. n - 1`` (model2vec's assumption)."""
    tokens: list = [None] * len(vocab)
    for t, i in vocab.items():
        if 0 <= i < len(tokens):
            tokens[i] = t
    if None in tokens:  # n ids in n slots: a slot left empty means an id outside 0 .. n - 1, or a repeat
        ids = sorted(vocab.values())
        missing = sorted(set(range(len(ids))) - set(ids))
        raise ValueError(f"the tokenizer's ids are not 0 .. {len(ids) - 1}: "
                         f"{'id ' + str(missing[0]) + ' is missing' if missing else 'an id repeats'}")
    return tokens


def _checked_table(vectors, weights, mapping, n: int):
    """``(vectors, weights, mapping)`` as NumPy arrays, checked against ``n`` tokens (ValueError naming the problem)."""
    vectors = np.asarray(xb.to_numpy(vectors))
    if vectors.ndim != 2 or vectors.shape[1] == 0 or vectors.dtype.kind not in "fi":
        raise ValueError(f"the token table must be a 2-D float (or int8) array, got {vectors.dtype} of shape "
                         f"{vectors.shape}")
    if mapping is None and vectors.shape[0] != n:
        raise ValueError(f"the token table has {vectors.shape[0]} rows but the tokenizer has {n} tokens")
    if mapping is not None:
        mapping = np.asarray(mapping)
        if mapping.shape != (n,) or mapping.dtype.kind not in "iu":
            raise ValueError(f"mapping must be {n} integers (one per token), got {mapping.dtype} of shape "
                             f"{mapping.shape}")
        if n and (mapping.min() < 0 or mapping.max() >= vectors.shape[0]):
            raise ValueError(f"mapping points outside the table's {vectors.shape[0]} rows")
    if weights is not None:
        weights = np.asarray(weights)
        if weights.shape != (n,) or weights.dtype.kind != "f":
            raise ValueError(f"weights must be {n} floats (one per token), got {weights.dtype} of shape "
                             f"{weights.shape}")
    return vectors, weights, mapping


def float16_round(x: np.ndarray) -> np.ndarray:
    """``x`` (float32) rounded in place to the nearest float16 values, as NumPy's
    ``x.astype(np.float16).astype(np.float32)`` (nearest, ties to even), about twice as fast.

    In float16's normal range the rounding keeps 10 of float32's 23 fraction bits, which a few
    integer operations on the bits do; the rare rest (subnormals, overflow, inf, NaN) takes NumPy's cast.
    """
    u = x.view(np.uint32)
    a = u & np.uint32(0x7FFFFFFF)
    r = (a + np.uint32(0x0FFF) + ((a >> np.uint32(13)) & np.uint32(1))) & np.uint32(0xFFFFE000)
    rest = (a < np.uint32(0x38800000)) | (r > np.uint32(0x477FE000))
    with np.errstate(over="ignore"):
        fixed = x[rest].astype(np.float16).astype(np.float32) if rest.any() else None
    u &= np.uint32(0x80000000)
    u |= r
    if fixed is not None:
        x[rest] = fixed
    return x


def _accumulation_dtype(dtype: np.dtype) -> np.dtype:
    """The dtype NumPy's ``mean`` sums ``dtype`` in: float32 for float16, float64 for integers."""
    if dtype == np.float16:
        return np.dtype(np.float32)
    if dtype.kind in "iub":
        return np.dtype(np.float64)
    return dtype


class StaticModel:
    """A static embedding model: a tokenizer, a token table, and the recipe that composes a text.

    Usually made by :func:`embgeo.static.load`, :meth:`from_embeddings` or :meth:`with_tokens`.
    A text's vector is model2vec's (``model2vec.StaticModel.encode``, 0.10.0): the text is cut to
    ``max_length`` times the median token length in characters, tokenised without special tokens,
    its ids cut to ``max_length``, the unknown token dropped; the rows of the token table are
    averaged (each row scaled by its token's weight first when the model has ``weights``; through
    ``mapping`` when the vocabulary was quantised), the mean rounded to the table's dtype
    (float16 for the usual distilled model), and, with ``normalize``, scaled to unit length. A text
    without a known token gets the zero vector. The arithmetic is NumPy's as model2vec does it, so
    the vectors are the same, bit for bit, returned as float32.

    Parameters
    ----------
    tokenizer : tokenizers.Tokenizer or str
        The fast tokenizer, or its JSON (the text of a ``tokenizer.json``). Its token ids must be
        ``0 .. n_tokens - 1``.
    vectors : array, shape (n_tokens, dim) or (n_clusters, dim) with ``mapping``
        The token table, as stored (float16, float32, float64 or model2vec's int8).
    weights : array, shape (n_tokens,), optional
        Per-token weights (model2vec's vocabulary quantisation).
    mapping : array of int, shape (n_tokens,), optional
        Row of ``vectors`` for each token id (vocabulary quantisation).
    normalize : bool, default False
        Scale each text's mean to unit length.
    max_length : int or None, default 512
        Tokens kept per text (None: all).
    config : dict, optional
        The rest of the model's ``config.json``, written back by ``embgeo.save``.
    recipe : {"model2vec", "sentence-transformers"}
        ``"sentence-transformers"`` is ``StaticEmbedding``'s (an ``EmbeddingBag`` in mean mode): the
        text is not cut, the unknown token is kept, and the tokenizer truncates as its file says
        (:func:`~embgeo.static.load` passes ``max_length=None``; a ``max_length`` cuts further);
        the mean is rounded as for model2vec (equal to torch's up to the last bit).

    Attributes
    ----------
    tokens : Embeddings
        The token table, float32, one row per token id (weights and mapping applied: the row a
        token adds to a mean), the words being the tokens' strings (``"##ing"``, ``"Ġthe"``).
    normalize, max_length, recipe, config
        As given.

    Examples
    --------
    >>> import numpy as np
    >>> from tokenizers import Tokenizer, models, pre_tokenizers
    >>> tok = Tokenizer(models.WordLevel({"[UNK]": 0, "cat": 1, "dog": 2}, unk_token="[UNK]"))
    >>> tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    >>> m = StaticModel(tok, np.array([[0, 0], [1, 0], [0, 2]], dtype=np.float32))
    >>> m.encode(["cat dog", "cat zebra"])          # the unknown "zebra" is dropped
    array([[0.5, 1. ],
           [1. , 0. ]], dtype=float32)
    >>> m.words(["cat", "dog"]).most_similar("cat", topn=1)[0][0]
    'dog'
    """

    def __init__(self, tokenizer, vectors, *, weights=None, mapping=None, normalize: bool = False,
                 max_length: int | None = DEFAULT_MAX_LENGTH, config: dict | None = None,
                 recipe: str = "model2vec"):
        _, tokenizers = require_extra()
        if recipe not in RECIPES:
            raise ValueError(f"recipe must be one of {RECIPES}, got {recipe!r}")
        if isinstance(tokenizer, tokenizers.Tokenizer):
            text = tokenizer.to_str()
        elif isinstance(tokenizer, str):
            text = tokenizer
        else:
            raise TypeError(f"tokenizer must be a tokenizers.Tokenizer or its JSON, got {type(tokenizer).__name__}")
        tok = tokenizers.Tokenizer.from_str(text)
        self._setup(text, json.loads(text), tok, tok.get_vocab(), vectors, weights=weights, mapping=mapping,
                    normalize=normalize, max_length=max_length, config=config, recipe=recipe)

    @classmethod
    def _from_parsed(cls, text: str, spec: dict, tok, vocab: dict, vectors, **options) -> "StaticModel":
        """The model of a ``tokenizer.json`` already read (its text, its parsed JSON, a Tokenizer of its
        own and its vocabulary), as :func:`~embgeo.static.load` has it: nothing is parsed twice."""
        self = cls.__new__(cls)
        self._setup(text, spec, tok, vocab, vectors, **options)
        return self

    def _setup(self, text, spec, tok, vocab, vectors, *, weights=None, mapping=None, normalize=False,
               max_length=DEFAULT_MAX_LENGTH, config=None, recipe="model2vec"):
        kind, unk = tokenizer_model(spec)
        tok.no_padding()  # padding would add pad tokens to the means
        if recipe == "model2vec":
            tok.no_truncation()  # the ids are cut to max_length here, per call (stateless, thread-safe)
        tokens = _tokens_by_id(vocab)
        vectors, weights, mapping = _checked_table(vectors, weights, mapping, len(tokens))
        max_length = positive_or_none(max_length, "max_length")
        self._tokenizer = tok
        self._tokenizer_json = text
        self._kind = kind
        self._unk = unk if recipe == "model2vec" else None
        self._stored, self._weights, self._mapping = readonly(vectors), weights, mapping
        self.normalize = bool(normalize)
        self.max_length = max_length
        self.recipe = recipe
        self.config = dict(config or {})
        # model2vec cuts a text to max_length * this many characters before tokenising it
        self._median_length = int(np.median([len(t) for t in tokens])) if tokens else 0
        self._ascii_normalizer = _ascii_equivalent(spec.get("normalizer"))
        self._ascii_tokenizer = None  # built on first use (see _encode_ids)
        self._table, self._out_dtype = self._pooling_table(vectors, weights, mapping)
        self._token_words = tokens
        self._tokens: Embeddings | None = None

    @staticmethod
    def _pooling_table(E, W, mapping):
        """The row each token adds to a sum, in the dtype NumPy's ``mean`` sums in (float16 rows kept
        as stored: :meth:`_pool` sums them in float32), and the dtype model2vec's output array has.

        model2vec multiplies ``E[mapping[ids]]`` by ``W[ids]`` in their common dtype, sums in float32
        (float64 for int8), divides by the count, rounds to float16 when the product was float16,
        and stores into an array of the table's dtype (float32 for int8). A per-token product
        computed once is the same product: every mean here is the one model2vec computes.
        """
        rows = E if mapping is None else E[mapping]
        product = np.result_type(E.dtype, W.dtype) if W is not None else E.dtype
        if W is not None:
            rows = rows.astype(product, copy=False) * W.astype(product, copy=False)[:, None]
        acc = np.dtype(np.float16) if product == np.float16 else _accumulation_dtype(np.dtype(product))
        out = np.dtype(np.float32) if E.dtype.kind in "iu" else E.dtype
        return readonly(np.ascontiguousarray(rows, dtype=acc)), out

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_embeddings(cls, e: Embeddings, *, normalize: bool = False, lowercase: bool = False) -> "StaticModel":
        """A word-level model over ``e``: a text is split on whitespace and each piece looked up as is
        (lower-cased first with ``lowercase``, for a lower-cased vocabulary such as GloVe's).

        The vocabulary is ``e.words`` plus an unknown token ``"[UNK]"`` (a zero row, dropped by the
        recipe) when ``e`` has none, so ``model.words(e.words)`` is ``e`` (normalised with
        ``normalize``); ``embgeo.save(e, path, format="model2vec")`` writes this model. Punctuation
        is not split off: tokenise texts first (``" ".join(gensim.utils.simple_preprocess(text))``).

        Parameters
        ----------
        e : Embeddings
            The words and their vectors: the model's vocabulary and token table.
        normalize : bool
            The model's ``normalize`` (``config.json``): scale each encoded text to unit length.
        lowercase : bool
            Lower-case texts before splitting them.

        Returns
        -------
        StaticModel
            A word-level model whose tokens are ``e``'s words.

        Raises
        ------
        ValueError
            An empty word, or one holding whitespace (it could never be looked up), named with its row.
        """
        _, tokenizers = require_extra()
        if not isinstance(e, Embeddings):
            raise TypeError(f"from_embeddings takes an Embeddings, got {type(e).__name__}")
        spaced = next((i for i, w in enumerate(e.words) if not w or any(c.isspace() for c in w)), None)
        if spaced is not None:
            raise ValueError(f"word {e.words[spaced]!r} (row {spaced}) is empty or holds whitespace: a word-level model "
                             f"splits texts on whitespace, so it could never be looked up")
        V = xb.to_numpy(e.vectors)
        vocab = {w: i for i, w in enumerate(e.words)}
        if "[UNK]" not in vocab:
            vocab["[UNK]"] = len(vocab)
            V = np.vstack([V, np.zeros((1, V.shape[1]), dtype=V.dtype)])
        tok = tokenizers.Tokenizer(tokenizers.models.WordLevel(vocab, unk_token="[UNK]"))
        tok.pre_tokenizer = tokenizers.pre_tokenizers.WhitespaceSplit()
        if lowercase:
            tok.normalizer = tokenizers.normalizers.Lowercase()
        return cls(tok, V, normalize=normalize, max_length=None,
                   config={"model_type": "model2vec", "architectures": ["StaticModel"]})

    def with_tokens(self, e: Embeddings) -> "StaticModel":
        """The same tokenizer and recipe over the token table ``e`` (``self.tokens`` post-processed,
        mapped, reduced: any dimension, the same tokens in any order).

        The result has neither weights nor a mapping: ``e``'s rows are what each token adds, as in
        :attr:`tokens`. Its table is ``e``'s dtype (float32 from :attr:`tokens`).

        Parameters
        ----------
        e : Embeddings
            A table of exactly this model's tokens.

        Returns
        -------
        StaticModel
            A new model; this one is unchanged.

        Raises
        ------
        TypeError
            ``e`` is not an Embeddings.
        ValueError
            ``e`` misses some of the model's tokens or holds others (counted, the first named).
        """
        if not isinstance(e, Embeddings):
            raise TypeError(f"with_tokens takes an Embeddings of this model's tokens, got {type(e).__name__}")
        if e.words != self._token_words:
            missing = [t for t in self._token_words if t not in e]
            if missing or len(e) != len(self._token_words):
                extra = len(e) - (len(self._token_words) - len(missing))
                raise ValueError(f"the table must hold exactly this model's {len(self._token_words)} tokens: "
                                 f"{len(missing)} missing (first {missing[:1]}), {extra} others")
            e = e.subset(self._token_words)
        return StaticModel(self._tokenizer_json, xb.to_numpy(e.vectors), normalize=self.normalize,
                           max_length=self.max_length, config=self.config, recipe=self.recipe)

    # ------------------------------------------------------------------ the table
    @property
    def tokens(self) -> Embeddings:
        """The token table as float32 Embeddings (see the class's Attributes)."""
        if self._tokens is None:
            V = self._table if self._table.dtype == np.float32 else self._table.astype(np.float32)
            self._tokens = Embeddings(self._token_words, V)
        return self._tokens

    @property
    def dim(self) -> int:
        """The width of the token table (after :meth:`with_tokens`, of the new table)."""
        return int(self._table.shape[1])

    @property
    def tokenizer_type(self) -> str:
        """The tokenizer's model: ``"WordPiece"``, ``"BPE"``, ``"Unigram"`` or ``"WordLevel"``."""
        return self._kind

    def __len__(self) -> int:
        return len(self._token_words)

    def __repr__(self) -> str:
        quantised = "" if self._mapping is None else f", {self._stored.shape[0]} clusters"
        return (f"StaticModel({len(self)} tokens, dim={self.dim}, {self._stored.dtype} table{quantised}, "
                f"{self._kind} tokenizer, normalize={self.normalize}, max_length={self.max_length}, "
                f"recipe={self.recipe!r})")

    # ------------------------------------------------------------------ composing texts
    def tokenize(self, texts: Sequence[str], *, max_length: int | None | str = "model") -> list[list[int]]:
        """The token ids the recipe averages for each text (unknown tokens dropped, cut to ``max_length``).

        Parameters
        ----------
        texts : sequence of str
            The texts.
        max_length : int, None or "model"
            Tokens kept per text: ``"model"`` follows the model (``config.json``), None keeps all.

        Returns
        -------
        list of list of int
            One list of token ids per text.
        """
        flat, lengths = self._ids(self._texts(texts), max_length)
        return [a.tolist() for a in np.split(flat, np.cumsum(lengths)[:-1])] if len(lengths) else []

    def encode(self, texts, *, normalize: bool | None = None, max_length: int | None | str = "model",
               batch_size: int = 8192):
        """Vectors of ``texts``: model2vec's ``StaticModel.encode`` (see the class), as float32.

        Parameters
        ----------
        texts : str or sequence of str
            One text gives one vector (1-D), as in model2vec.
        normalize : bool, optional
            Scale to unit length; None follows the model (``config.json``'s ``normalize``).
        max_length : int or None, optional
            Tokens kept per text; by default the model's.
        batch_size : int
            Texts tokenised and pooled at a time (bounds the memory of the gathered rows).

        Returns
        -------
        numpy.ndarray, shape (n_texts, dim) or (dim,)
        """
        step = positive(batch_size, "batch_size")
        single = isinstance(texts, str)
        texts = self._texts(texts)
        normalize = self.normalize if normalize is None else bool(normalize)
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for start in range(0, len(texts), step):
            batch = texts[start:start + step]
            out[start:start + len(batch)] = self._pool(*self._ids(batch, max_length), normalize)
        return out[0] if single else out

    def words(self, words: Sequence[str], *, normalize: bool | None = None, oov: str = "raise") -> Embeddings:
        """Embeddings of whole words, each composed as :meth:`encode` composes a text.

        Parameters
        ----------
        words : sequence of str
            Unique words (a word with several tokens gets their mean).
        normalize : bool, optional
            As in :meth:`encode` (None follows the model).
        oov : {"raise", "skip"}
            A word without a known token (only unknown tokens, or empty) has no vector:
            ``"raise"`` names it, ``"skip"`` leaves it out.

        Returns
        -------
        Embeddings
            float32, the words in the order given.
        """
        if oov not in ("raise", "skip"):
            raise ValueError(f"oov must be 'raise' or 'skip', got {oov!r}")
        words = self._texts(words)
        normalize = self.normalize if normalize is None else bool(normalize)
        flat, lengths = self._ids(words, "model")
        if not lengths.all():
            empty = np.flatnonzero(lengths == 0)
            if oov == "raise":
                raise ValueError(f"{len(empty)} words have no known token (first {words[empty[0]]!r}); "
                                 f"pass oov='skip' to leave them out")
            keep = lengths > 0
            words = [w for w, k in zip(words, keep) if k]
            lengths = lengths[keep]
            if not words:
                raise ValueError("no word has a known token")
        return Embeddings(words, self._pool(flat, lengths, normalize))

    # ------------------------------------------------------------------ the recipe
    @staticmethod
    def _texts(texts) -> list[str]:
        if isinstance(texts, str):
            return [texts]
        texts = list(texts)
        bad = next((t for t in texts if not isinstance(t, str)), None)
        if bad is not None:
            raise TypeError(f"texts must be strings, got {type(bad).__name__} ({bad!r})")
        return texts

    def _ids(self, texts: list[str], max_length) -> tuple[np.ndarray, np.ndarray]:
        """The token ids of ``texts`` end to end, and each text's count."""
        limit = self.max_length if max_length == "model" else positive_or_none(max_length, "max_length")
        if self.recipe == "model2vec" and limit is not None:
            cut = limit * self._median_length
            texts = [t[:cut] for t in texts]
        ids = self._encode_ids(texts)
        lengths = np.fromiter(map(len, ids), dtype=np.int64, count=len(ids))
        flat = np.fromiter(chain.from_iterable(ids), dtype=np.int64, count=int(lengths.sum()))
        if limit is not None and lengths.max(initial=0) > limit:
            # the tokenizer's truncation (right, no stride), before unk is dropped
            starts = np.cumsum(lengths) - lengths
            flat = flat[np.arange(flat.size) - np.repeat(starts, lengths) < limit]
            lengths = np.minimum(lengths, limit)
        if self._unk is not None:
            known = flat != self._unk
            if not known.all():
                owner = np.repeat(np.arange(len(ids)), lengths)
                flat = flat[known]
                lengths = np.bincount(owner[known], minlength=len(ids)).astype(np.int64)
        return flat, lengths

    def _encode_ids(self, texts: list[str]) -> list[list[int]]:
        """The tokenizer's ids of each text (no special tokens added). Printable ASCII texts of a large
        batch go through a copy of the tokenizer whose normaliser is the cheaper equivalent that
        :func:`_ascii_equivalent` names (the same ids: ``BertNormalizer`` does nothing else to them)."""
        if self._ascii_normalizer is None or len(texts) < _ASCII_ROUTE_MIN:
            return _batch_ids(self._tokenizer, texts)
        plain = [t.isascii() and t.isprintable() for t in texts]
        if self._ascii_tokenizer is None:
            spec = {**json.loads(self._tokenizer_json), "normalizer": self._ascii_normalizer}
            tok = type(self._tokenizer).from_str(json.dumps(spec))
            tok.no_padding()
            if self.recipe == "model2vec":
                tok.no_truncation()
            self._ascii_tokenizer = tok
        ascii_ids = iter(_batch_ids(self._ascii_tokenizer, [t for t, p in zip(texts, plain) if p]))
        other_ids = iter(_batch_ids(self._tokenizer, [t for t, p in zip(texts, plain) if not p]))
        return [next(ascii_ids) if p else next(other_ids) for p in plain]

    def _pool(self, flat: np.ndarray, lengths: np.ndarray, normalize: bool) -> np.ndarray:
        """Means of the rows of ``flat``, text by text, rounded and normalised as model2vec does.

        Each mean equals NumPy's ``table[ids].mean(axis=0)`` for one text's ids bit for bit: the tokens
        are added in text order (as NumPy's mean over a (texts, tokens, dim) block adds them in
        model2vec; ``np.add.reduceat`` would not, and the means would differ in the last bit), the
        first row being the start value, in the accumulation dtype, and the sum is divided by the
        count in that dtype. The texts go longest first, so that those with a p-th token are a
        prefix: one gather-and-add per token position, no Python loop over texts (and no Numba,
        whose start-up would cost a fresh process more than the whole call).
        """
        table = self._table
        acc = np.dtype(np.float32) if table.dtype == np.float16 else table.dtype
        order = np.argsort(-lengths, kind="stable")
        counts = lengths[order]
        starts = (np.cumsum(lengths) - lengths)[order]
        sums = np.zeros((len(lengths), self.dim), dtype=acc)
        longest = int(counts[0]) if counts.size else 0
        # texts with more than p tokens, for each position p
        having = np.searchsorted(-counts, -np.arange(longest), side="left")
        for p in range(longest):
            m = int(having[p])
            rows = table[flat[starts[:m] + p]]
            if p == 0:
                sums[:m] = rows
            else:
                sums[:m] += rows
        m = int(having[0]) if longest else 0
        np.divide(sums[:m], counts[:m, None].astype(acc), out=sums[:m])
        means = np.empty_like(sums)
        means[order] = sums
        out = self._rounded(means)
        if normalize:
            norm = np.linalg.norm(out, axis=1, keepdims=True) + 1e-32
            out = self._rounded(np.divide(out, norm, out=out))
        return out

    def _rounded(self, means: np.ndarray) -> np.ndarray:
        """``means`` stored into model2vec's output dtype and read back as float32 (in place when float32)."""
        if self._out_dtype == np.float16 and means.dtype == np.float32:
            return float16_round(means)
        return means.astype(self._out_dtype, copy=False).astype(np.float32, copy=False)

    # ------------------------------------------------------------------ writing
    def save(self, path) -> Path:
        """Write a Model2Vec directory that ``model2vec.StaticModel.from_pretrained`` loads; the same as
        ``embgeo.save(self, path, format="model2vec")``.

        The directory holds ``config.json``, ``model.safetensors`` (the table as stored: float16
        for a distilled model, float32 after :meth:`with_tokens`; ``weights`` and ``mapping`` when
        the model has them), ``tokenizer.json`` and ``modules.json`` (what model2vec's
        ``save_pretrained`` writes, less the model card), so sentence-transformers loads it too.
        The write is atomic: an existing model directory (or an empty one) at ``path`` is replaced
        whole in one swap; any other existing path is refused. A model read with
        ``StaticEmbedding``'s recipe is written with model2vec's (its ``max_length`` the
        tokenizer's truncation): model2vec drops the unknown token, ``StaticEmbedding`` keeps it.

        Parameters
        ----------
        path : str or path-like
            The model directory to write.

        Returns
        -------
        Path
            The directory written.
        """
        safetensors, _ = require_extra()
        path = Path(os.fspath(path)).expanduser()
        try:
            mode = os.stat(path).st_mode
        except FileNotFoundError:
            pass
        else:
            if not stat.S_ISDIR(mode):
                raise FileExistsError(f"{path} exists and is not a model directory")
            if any(path.iterdir()) and not any((path / f).exists() for f in _MODEL_FILES):
                raise FileExistsError(f"refusing to replace {path}: a non-empty directory that is not a static model")
        arrays = {"embeddings": np.ascontiguousarray(self._stored)}
        if self._weights is not None:
            arrays["weights"] = np.ascontiguousarray(self._weights)
        if self._mapping is not None:
            arrays["mapping"] = np.ascontiguousarray(self._mapping)
        max_length = self.max_length
        if self.recipe == "sentence-transformers" and max_length is None:
            max_length = (self._tokenizer.truncation or {}).get("max_length")
        config = {**self.config, "model_type": "model2vec", "architectures": ["StaticModel"],
                  "hidden_dim": self.dim, "normalize": self.normalize, "max_length": max_length,
                  "embedding_dtype": self._stored.dtype.name}
        if self._mapping is not None:
            config["vocabulary_quantization"] = int(self._stored.shape[0])
        else:
            config.pop("vocabulary_quantization", None)
        modules = [{"idx": 0, "name": "0", "path": ".", "type": STATIC_MODULE}]
        if self.normalize:
            modules.append({"idx": 1, "name": "1", "path": "1_Normalize", "type": NORMALIZE_MODULE})
        with atomic_dir(path) as tmp:
            safetensors.numpy.save_file(arrays, str(tmp / "model.safetensors"))
            (tmp / "tokenizer.json").write_text(self._tokenizer_json, encoding="utf-8")
            (tmp / "config.json").write_text(json.dumps(config, indent=4), encoding="utf-8")
            (tmp / "modules.json").write_text(json.dumps(modules, indent=4), encoding="utf-8")
        return path

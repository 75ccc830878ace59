"""embgeo.static: Model2Vec and sentence-transformers StaticEmbedding directories, read and written without torch.

The vectors are checked against model2vec 0.10.0 itself: golden files written by
``benchmarks/reference/model2vec_golden.py`` (its ``StaticModel.encode`` on the tiny models of
``tests/static_models.py`` and on the shared distilled model), and, when model2vec's environment is
there (``$EMBGEO_MODEL2VEC_PYTHON``, else ``/work/refvenv-static/bin/python``), model2vec loading what
``embgeo.save`` wrote. The sentence-transformers layout is checked against sentence-transformers
6.2.0: directories it saved and its vectors (``benchmarks/reference/st_static_golden.py``), and, with
``$EMBGEO_ST_PYTHON``, sentence-transformers run on what it writes today and on what embgeo wrote.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("safetensors")
pytest.importorskip("tokenizers")

import embgeo  # noqa: E402
import embgeo.static  # noqa: E402
from embgeo.errors import FormatError  # noqa: E402
from embgeo.static import StaticModel  # noqa: E402
from static_models import TEXTS, VARIANTS, VOCAB, tokenizer_json, write_model  # noqa: E402

GOLDEN = Path(__file__).parent / "data" / "static"
MODEL2VEC_PYTHON = Path(os.environ.get("EMBGEO_MODEL2VEC_PYTHON", "/work/refvenv-static/bin/python"))


@pytest.fixture
def model_dir(tmp_path):
    return write_model(tmp_path / "m2v", dtype="float16", normalize=True)


# ------------------------------------------------------------------ model2vec's vectors
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_encode_equals_model2vec_bit_for_bit(tmp_path, variant):
    """float16/32/64 and int8 tables, token weights, a quantised vocabulary, a short max_length: the
    vectors model2vec 0.10.0's encode gave for the same directory, to the last bit."""
    golden = np.load(GOLDEN / "model2vec_golden.npz")[variant]
    model = embgeo.static.load(write_model(tmp_path / variant, **VARIANTS[variant]))
    got = model.encode(TEXTS)
    assert got.dtype == np.float32 and got.shape == golden.shape
    assert np.array_equal(got, golden.astype(np.float32))


def test_encode_of_the_shared_distilled_model_equals_model2vec(shared_data):
    golden = np.load(GOLDEN / "minilm_golden.npz")
    model = embgeo.static.load(shared_data / "models" / "minilm-l6-m2v-256")
    assert (len(model), model.dim, model.normalize, model.max_length) == (29525, 256, True, 512)
    assert model.tokenizer_type == "WordPiece"
    assert np.array_equal(model.encode(list(golden["sentences"])), golden["vectors"].astype(np.float32))


def test_the_recipe_drops_unknown_tokens_and_cuts_to_max_length(model_dir):
    model = embgeo.static.load(model_dir)
    unk = VOCAB.index("[UNK]")
    assert model.tokenize(["cat €"]) == [[VOCAB.index("cat")]]           # "€" is [UNK], dropped
    assert all(unk not in ids for ids in model.tokenize(TEXTS))
    cut = model.tokenize(["the cat dog car"], max_length=2)[0]
    assert len(cut) == 2 and cut[0] == VOCAB.index("the")
    # model2vec first cuts the text to max_length times the median token length, in characters
    median = int(np.median([len(t) for t in VOCAB]))
    assert cut == model.tokenize(["the cat dog car"[:2 * median]], max_length=None)[0][:2]
    assert model.tokenize(["the cat dog car"], max_length=None) == [[VOCAB.index(w) for w in ("the", "cat", "dog", "car")]]
    # no special tokens ([CLS], [SEP]) are added; a text without a known token is the zero vector
    assert model.tokenize(["dog"]) == [[VOCAB.index("dog")]]
    assert not model.encode("€ ¿").any()
    # the mean of the token rows, normalised as the config says
    rows = model.tokens.vectors[[VOCAB.index("cat"), VOCAB.index("dog")]]
    mean = rows.mean(axis=0)
    np.testing.assert_allclose(model.encode("cat dog"), mean / np.linalg.norm(mean), atol=1e-3)
    np.testing.assert_allclose(model.encode("cat dog", normalize=False), mean, atol=1e-3)


def test_one_text_gives_one_vector_and_batches_do_not_change_the_vectors(model_dir):
    model = embgeo.static.load(model_dir)
    assert model.encode("cat").shape == (16,)
    whole = model.encode(TEXTS)
    assert np.array_equal(model.encode(TEXTS, batch_size=3), whole)
    assert np.array_equal(model.encode(TEXTS[2]), whole[2])


@pytest.mark.parametrize("dtype", ["float16", "float32", "int8"])
def test_long_texts_pool_as_numpys_mean_bit_for_bit(dtype):
    """Texts of up to 700 tokens: the pooling equals model2vec's NumPy arithmetic
    (``E[ids].mean(axis=1)`` per length, stored in the table's dtype, normalised in float32)."""
    rng = np.random.default_rng(1)
    from tokenizers import Tokenizer, models, pre_tokenizers

    words = [f"t{i}" for i in range(500)]
    tok = Tokenizer(models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="t0"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    table = rng.standard_normal((500, 24)) * 3
    table = (np.rint(table * 30).clip(-127, 127) if dtype == "int8" else table).astype(dtype)
    model = StaticModel(tok, table, max_length=None)
    ids = [rng.integers(1, 500, n) for n in rng.integers(1, 700, 40)]  # t0, the unknown token, is dropped
    texts = [" ".join(words[i] for i in row) for row in ids]
    expected = np.zeros((len(ids), 24), dtype=np.float32 if dtype == "int8" else dtype)
    for i, row in enumerate(ids):
        expected[i] = table[row[None, :]].mean(axis=1)[0]
    got = model.encode(texts, normalize=False)
    assert np.array_equal(got.view(np.uint32), expected.astype(np.float32).view(np.uint32))
    e32 = expected.astype(np.float32)
    unit = (e32 / (np.linalg.norm(e32, axis=1, keepdims=True) + 1e-32)).astype(expected.dtype).astype(np.float32)
    assert np.array_equal(model.encode(texts, normalize=True).view(np.uint32), unit.view(np.uint32))


def test_large_batches_tokenize_as_one_text_at_a_time(model_dir):
    """A batch of 5,000 texts (printable ASCII ones take a tokenizer whose BertNormalizer is replaced
    by lower-casing) gets the ids each text gets alone: upper case, accents, tabs, CJK, special tokens."""
    from embgeo.static._model import _ASCII_ROUTE_MIN

    model = embgeo.static.load(model_dir)
    odd = ["The CAT", "Café naïve", "cat\tdog", "dog\x00cat", "日本 cat", "[UNK] [CLS] cat", "ÀUTO", "  spaced  ",
           "A.B,C!", "ﬁ ligature", "x" * 2000]
    texts = [f"{t} {i % 7}" for i in range(5000) for t in (odd + TEXTS)[i % (len(odd) + len(TEXTS)):][:1]]
    assert len(texts) >= _ASCII_ROUTE_MIN
    assert model.tokenize(texts) == [model.tokenize([t])[0] for t in texts]


def test_load_words_and_encode_import_no_numba(model_dir):
    """A fresh process pays Numba's start-up (about 1.5 s) only when it needs a kernel: reading a
    model and composing words or texts needs none (the speed row of docs/static.md)."""
    code = ("import sys, embgeo.static; m = embgeo.static.load(sys.argv[1]); m.words(['cat', 'dog']); "
            "m.encode(['the cat sat']); print('numba' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code, str(model_dir)], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[1])
    assert out.stdout.strip() == "False", out.stderr


def test_float16_rounding_equals_numpys_cast():
    """Every float16 value, the midpoints between neighbours (ties to even), one float32 step either
    side, subnormals, overflow to inf, signed zeros: rounded as NumPy's ``astype(np.float16)``."""
    from embgeo.static._model import float16_round

    halves = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16)
    values = np.unique(halves[np.isfinite(halves)].astype(np.float32))
    mids = ((values[:-1].astype(np.float64) + values[1:]) / 2).astype(np.float32)
    extra = np.float32([65519.996, 65520, 65536, 1e6, 3e38, np.inf, 1e-8, 2.9802322e-08, 1e-45, 0.0])
    x = np.concatenate([values, mids, extra, -extra])
    x = np.concatenate([x, np.nextafter(x, np.float32(np.inf)), np.nextafter(x, np.float32(-np.inf))])
    got = float16_round(x.reshape(-1, 1).copy())
    with np.errstate(over="ignore"):
        expected = x.astype(np.float16).astype(np.float32)
    assert np.array_equal(got[:, 0].view(np.uint32), expected.view(np.uint32))


# ------------------------------------------------------------------ tokens and words
def test_tokens_is_the_float32_table_with_weights_and_mapping_applied(tmp_path):
    plain = embgeo.static.load(write_model(tmp_path / "f16", dtype="float16"))
    assert plain.tokens.words == VOCAB and plain.tokens.dtype == np.float32
    assert plain.tokens.shape == (len(VOCAB), 16)
    quantised = embgeo.static.load(write_model(tmp_path / "q", **VARIANTS["quantized"]))
    from safetensors.numpy import load_file

    stored = load_file(str(tmp_path / "q" / "model.safetensors"))
    expected = stored["embeddings"][stored["mapping"]] * stored["weights"][:, None]
    assert np.array_equal(quantised.tokens.vectors, expected.astype(np.float32))
    assert "8 clusters" in repr(quantised)


def test_words_are_composed_as_encode_composes_a_text(model_dir):
    model = embgeo.static.load(model_dir)
    e = model.words(["cat", "automobile", "running"])
    assert isinstance(e, embgeo.Embeddings) and e.words == ["cat", "automobile", "running"]
    assert np.array_equal(e.vectors, model.encode(["cat", "automobile", "running"]))
    with pytest.raises(ValueError, match="no known token.*'€'"):
        model.words(["cat", "€"])
    assert model.words(["cat", "€", "dog"], oov="skip").words == ["cat", "dog"]


def test_words_run_through_evaluators_and_search(model_dir):
    from embgeo.data import WordPairs

    model = embgeo.static.load(model_dir)
    e = model.words(["cat", "dog", "car", "automobile", "fox", "jumped"])
    pairs = WordPairs(["cat", "car", "fox", "dog"], ["dog", "automobile", "cat", "jumped"],
                      np.array([8.0, 9.0, 5.0, 1.0]), "tiny")
    result = embgeo.evaluate.word_similarity(e, pairs)
    assert result.n_pairs == 4 and -1 <= result.spearman <= 1
    assert e.most_similar("cat", topn=1)[0][0] in e.words


def test_with_tokens_uses_a_post_processed_table(model_dir):
    model = embgeo.static.load(model_dir)
    centred = embgeo.postprocess.all_but_the_top(model.tokens, D=1)
    new = model.with_tokens(centred)
    assert np.array_equal(new.tokens.vectors, centred.vectors)
    X = centred.vectors
    mean = X[[VOCAB.index("cat"), VOCAB.index("dog")]].mean(axis=0)
    np.testing.assert_allclose(new.encode("cat dog"), mean / np.linalg.norm(mean), rtol=1e-6, atol=1e-7)
    # the same tokens in another order are put back in the tokenizer's order; other tables are refused
    shuffled = centred.subset(centred.words[::-1])
    assert np.array_equal(model.with_tokens(shuffled).tokens.vectors, X)
    with pytest.raises(ValueError, match="1 missing"):
        model.with_tokens(centred.subset(centred.words[1:]))
    reduced = embgeo.postprocess.ppa_pca_ppa(model.tokens, dim=8, D=1)
    assert model.with_tokens(reduced).encode("cat").shape == (8,)


# ------------------------------------------------------------------ writing back
def test_save_and_load_round_trip(model_dir, tmp_path):
    model = embgeo.static.load(model_dir)
    out = embgeo.save(model, tmp_path / "copy")
    assert sorted(p.name for p in out.iterdir()) == ["config.json", "model.safetensors", "modules.json",
                                                     "tokenizer.json"]
    again = embgeo.static.load(out)
    assert np.array_equal(again.encode(TEXTS), model.encode(TEXTS))
    assert (again.normalize, again.max_length, again._stored.dtype) == (True, 512, np.float16)
    # a post-processed table is written (float32) and read back as it is
    post = model.with_tokens(embgeo.postprocess.all_but_the_top(model.tokens, D=2))
    embgeo.save(post, tmp_path / "post", format="model2vec")
    back = embgeo.static.load(tmp_path / "post")
    assert np.array_equal(back.tokens.vectors, post.tokens.vectors)
    assert np.array_equal(back.encode(TEXTS), post.encode(TEXTS))
    config = json.loads((tmp_path / "post" / "config.json").read_text())
    assert config["embedding_dtype"] == "float32" and config["normalize"] is True
    modules = json.loads((tmp_path / "post" / "modules.json").read_text())
    assert [m["type"].rsplit(".", 1)[1] for m in modules] == ["StaticEmbedding", "Normalize"]


def test_save_of_quantised_model_keeps_weights_and_mapping(tmp_path):
    model = embgeo.static.load(write_model(tmp_path / "q", **VARIANTS["quantized"]))
    embgeo.save(model, tmp_path / "copy")
    again = embgeo.static.load(tmp_path / "copy")
    assert np.array_equal(again.encode(TEXTS), model.encode(TEXTS))
    assert json.loads((tmp_path / "copy" / "config.json").read_text())["vocabulary_quantization"] == 8


def test_embeddings_are_saved_as_a_word_level_model(tmp_path, small_embeddings):
    e = small_embeddings
    embgeo.save(e, tmp_path / "words", format="model2vec")
    model = embgeo.static.load(tmp_path / "words")
    assert model.tokenizer_type == "WordLevel" and model.tokens.words == [*e.words, "[UNK]"]
    w = model.words(e.words)
    assert np.array_equal(w.vectors, np.asarray(e.vectors, dtype=np.float32))
    text = f"{e.words[0]} {e.words[3]} not-a-word"
    np.testing.assert_allclose(model.encode(text), (w.vectors[0] + w.vectors[3]) / 2, rtol=1e-6)
    # embgeo.load gives the token table back
    assert embgeo.load(tmp_path / "words").words == [*e.words, "[UNK]"]
    with pytest.raises(ValueError, match="'new york' \\(row 1\\) is empty or holds whitespace"):
        StaticModel.from_embeddings(embgeo.Embeddings(["a", "new york"], np.eye(2, dtype=np.float32)))


def test_save_is_atomic_and_replaces_only_a_model_directory(model_dir, tmp_path, monkeypatch):
    model = embgeo.static.load(model_dir)
    target = tmp_path / "out"
    embgeo.save(model, target)
    before = {p.name: p.read_bytes() for p in target.iterdir()}
    post = model.with_tokens(embgeo.postprocess.all_but_the_top(model.tokens, D=1))
    import safetensors.numpy

    def broken(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(safetensors.numpy, "save_file", broken)
    with pytest.raises(OSError, match="disk full"):
        embgeo.save(post, target)
    assert {p.name: p.read_bytes() for p in target.iterdir()} == before   # the old model, whole
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
    monkeypatch.undo()
    other = tmp_path / "notes"
    other.mkdir()
    (other / "a.txt").write_text("mine")
    with pytest.raises(FileExistsError, match="not a static model"):
        embgeo.save(model, other)
    assert (other / "a.txt").read_text() == "mine"


@pytest.mark.skipif(not MODEL2VEC_PYTHON.exists(), reason=f"model2vec's environment not found at {MODEL2VEC_PYTHON}")
def test_model2vec_loads_what_embgeo_saved(model_dir, tmp_path):
    """A post-processed table and a word-level model, written by embgeo.save, loaded by
    model2vec.StaticModel.from_pretrained: its encode equals embgeo's."""
    model = embgeo.static.load(model_dir)
    post = model.with_tokens(embgeo.postprocess.all_but_the_top(model.tokens, D=2))
    embgeo.save(post, tmp_path / "post")
    words = embgeo.Embeddings(["cat", "dog", "car"], np.arange(12, dtype=np.float32).reshape(3, 4))
    embgeo.save(words, tmp_path / "words", format="model2vec")
    code = ("import json, sys, numpy as np\nfrom model2vec import StaticModel\n"
            "texts = json.loads(sys.argv[3])\n"
            "for i, path in enumerate(sys.argv[1:3]):\n"
            "    np.save(f'{path}.npy', StaticModel.from_pretrained(path).encode(texts))\n")
    texts = [*TEXTS, "cat car zebra"]
    run = subprocess.run([str(MODEL2VEC_PYTHON), "-c", code, str(tmp_path / "post"), str(tmp_path / "words"),
                          json.dumps(texts)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    assert np.array_equal(np.load(f"{tmp_path / 'post'}.npy"), post.encode(texts))
    words_model = embgeo.static.load(tmp_path / "words")
    assert np.array_equal(np.load(f"{tmp_path / 'words'}.npy"), words_model.encode(texts))


# ------------------------------------------------------------------ embgeo.load
def test_embgeo_load_gives_the_token_table(model_dir):
    assert embgeo.io.detect_format(model_dir) == "model2vec"
    e = embgeo.load(model_dir)
    assert e.words == VOCAB and e.dtype == np.float32
    assert embgeo.load(model_dir, limit=5).words == VOCAB[:5]
    assert embgeo.load(model_dir, dtype="float64").dtype == np.float64
    with pytest.raises(ValueError, match="mmap=True needs"):
        embgeo.load(model_dir, mmap=True)


# ------------------------------------------------------------------ sentence-transformers
def _st_dir(tmp_path, normalize=True, modules_extra=()):
    from safetensors.numpy import save_file

    folder = tmp_path / "st"
    sub = folder / "0_StaticEmbedding"
    sub.mkdir(parents=True)
    table = np.random.default_rng(3).standard_normal((len(VOCAB), 8)).astype(np.float32)
    save_file({"embedding.weight": table}, str(sub / "model.safetensors"))
    (sub / "tokenizer.json").write_text(tokenizer_json(), encoding="utf-8")
    modules = [{"idx": 0, "name": "0", "path": "0_StaticEmbedding",
                "type": "sentence_transformers.models.StaticEmbedding"}]
    if normalize:
        modules.append({"idx": 1, "name": "1", "path": "1_Normalize", "type": "sentence_transformers.models.Normalize"})
    modules.extend(modules_extra)
    (folder / "modules.json").write_text(json.dumps(modules), encoding="utf-8")
    (folder / "config_sentence_transformers.json").write_text("{}", encoding="utf-8")
    return folder, table


def test_sentence_transformers_layout_is_an_embedding_bag_mean(tmp_path):
    folder, table = _st_dir(tmp_path)
    model = embgeo.static.load(folder)
    assert model.recipe == "sentence-transformers" and model.normalize
    unk, cat = VOCAB.index("[UNK]"), VOCAB.index("cat")
    assert model.tokenize(["cat €"]) == [[cat, unk]]       # StaticEmbedding keeps the unknown token
    mean = table[[cat, unk]].mean(axis=0)
    np.testing.assert_allclose(model.encode("cat €"), mean / np.linalg.norm(mean), rtol=1e-6)
    assert embgeo.load(folder).words == VOCAB
    # written back as a Model2Vec directory
    embgeo.save(model, tmp_path / "as-m2v")
    assert embgeo.static.load(tmp_path / "as-m2v").recipe == "model2vec"


ST_GOLDEN = GOLDEN / "sentence_transformers"
ST_PYTHON = Path(os.environ.get("EMBGEO_ST_PYTHON", "/nonexistent"))


def _within_two_float32_ulps(got, expected):
    """torch's EmbeddingBag mean and F.normalize may scale by a reciprocal or fuse differently across
    versions and CPUs, each step one rounding of at most half an ulp: two ulps bound the difference
    (the committed golden vectors, torch 2.14.1 on x86-64, are equal to embgeo's bit for bit)."""
    assert got.dtype == np.float32 and got.shape == expected.shape
    np.testing.assert_array_max_ulp(got, expected.astype(np.float32), maxulp=2)


@pytest.mark.parametrize("variant", ["plain", "normalized"])
def test_a_directory_sentence_transformers_saved_encodes_as_it_does(variant):
    """``SentenceTransformer(modules=[StaticEmbedding(...)(, Normalize())]).save(...)`` by
    sentence-transformers 6.2.0 (``benchmarks/reference/st_static_golden.py``): its 6.x module type
    names, the module at the root (``"path": ""``), the unknown token kept; ``encode`` as its own."""
    golden = np.load(ST_GOLDEN / "golden.npz")
    model = embgeo.static.load(ST_GOLDEN / variant)
    assert model.recipe == "sentence-transformers" and model.normalize == (variant == "normalized")
    _within_two_float32_ulps(model.encode(list(golden["texts"])), golden[variant])


@pytest.mark.skipif(not ST_PYTHON.exists(), reason="set EMBGEO_ST_PYTHON to a Python with sentence-transformers")
def test_sentence_transformers_writes_and_reads_what_embgeo_does(tmp_path):
    """Run sentence-transformers itself: the directories it writes today load in embgeo with its
    vectors, and it loads what embgeo.save wrote (a post-processed table) with embgeo's vectors,
    under its own recipe (the unknown token kept, no cut)."""
    from safetensors.numpy import load_file
    from tokenizers import Tokenizer

    script = Path(__file__).parents[1] / "benchmarks" / "reference" / "st_static_golden.py"
    run = subprocess.run([str(ST_PYTHON), str(script), str(tmp_path / "fresh")], capture_output=True, text=True,
                         timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    fresh = np.load(tmp_path / "fresh" / "golden.npz")
    for variant in ("plain", "normalized"):
        model = embgeo.static.load(tmp_path / "fresh" / variant)
        _within_two_float32_ulps(model.encode(TEXTS), fresh[variant])
    post = model.with_tokens(embgeo.postprocess.all_but_the_top(model.tokens, D=2))
    embgeo.save(post, tmp_path / "post")
    run = subprocess.run([str(ST_PYTHON), str(script), "--check", str(tmp_path / "post"), str(tmp_path / "st.npz")],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    as_st = StaticModel(Tokenizer.from_file(str(tmp_path / "post" / "tokenizer.json")),
                        load_file(str(tmp_path / "post" / "model.safetensors"))["embeddings"], normalize=True,
                        max_length=None, recipe="sentence-transformers")
    _within_two_float32_ulps(as_st.encode(TEXTS), np.load(tmp_path / "st.npz")["vectors"])


def test_sentence_transformers_other_modules_are_refused(tmp_path):
    dense = [{"idx": 2, "name": "2", "path": "2_Dense", "type": "sentence_transformers.models.Dense"}]
    folder, _ = _st_dir(tmp_path, modules_extra=dense)
    with pytest.raises(FormatError, match=r"modules\.json.*sentence_transformers\.models\.Dense"):
        embgeo.static.load(folder)


def test_module_path_leaving_the_directory_is_refused(tmp_path):
    folder, _ = _st_dir(tmp_path)
    modules = json.loads((folder / "modules.json").read_text())
    modules[0]["path"] = "../elsewhere"
    (folder / "modules.json").write_text(json.dumps(modules))
    with pytest.raises(FormatError, match="leaves the model directory"):
        embgeo.static.load(folder)


def test_module_folder_linking_out_of_the_directory_is_refused(tmp_path):
    folder, _ = _st_dir(tmp_path)
    outside = tmp_path / "outside"
    (folder / "0_StaticEmbedding").rename(outside)
    (folder / "0_StaticEmbedding").symlink_to(outside, target_is_directory=True)
    with pytest.raises(FormatError, match="leaves the model directory"):
        embgeo.static.load(folder)


def test_a_torch_pickle_is_refused_not_loaded(tmp_path):
    folder, _ = _st_dir(tmp_path)
    sub = folder / "0_StaticEmbedding"
    (sub / "model.safetensors").unlink()
    (sub / "pytorch_model.bin").write_bytes(b"\x80\x04not really")
    with pytest.raises(FormatError, match="pytorch_model.bin.*never unpickles"):
        embgeo.static.load(folder)


# ------------------------------------------------------------------ bad directories
def test_missing_tokenizer_is_named(model_dir):
    (model_dir / "tokenizer.json").unlink()
    (model_dir / "vocab.txt").write_text("\n".join(VOCAB))
    with pytest.raises(FormatError, match=r"tokenizer\.json: missing; found vocab\.txt.*slow tokenizer"):
        embgeo.static.load(model_dir)


def test_missing_config_is_named(model_dir):
    (model_dir / "config.json").unlink()
    with pytest.raises(FormatError, match=r"config\.json missing"):
        embgeo.static.load(model_dir)


def test_rows_that_do_not_match_the_vocabulary_name_both_numbers(model_dir):
    from safetensors.numpy import save_file

    save_file({"embeddings": np.zeros((len(VOCAB) - 2, 16), np.float32)}, str(model_dir / "model.safetensors"))
    with pytest.raises(FormatError, match=rf"model\.safetensors: the token table has {len(VOCAB) - 2} rows but "
                                          rf"the tokenizer has {len(VOCAB)} tokens \(tokenizer\.json\)"):
        embgeo.static.load(model_dir)


@pytest.mark.parametrize("arrays, match", [
    ({"embeddings": np.zeros((4, 2, 2), np.float32)}, "2-D float"),
    ({"weights": np.zeros(3, np.float32)}, "no token table"),
    ({"embeddings": np.full((len(VOCAB), 4), np.nan, np.float32)}, "NaN or inf in the token table, row 0 .*'\\[PAD\\]'"),
    ({"embeddings": np.zeros((len(VOCAB), 4), np.float32), "weights": np.ones(3, np.float32)},
     rf"weights must be {len(VOCAB)} floats"),
])
def test_bad_tables_are_format_errors(model_dir, arrays, match):
    from safetensors.numpy import save_file

    save_file(arrays, str(model_dir / "model.safetensors"))
    with pytest.raises(FormatError, match=match):
        embgeo.static.load(model_dir)


def test_a_bfloat16_table_is_a_format_error(model_dir):
    """NumPy has no bfloat16: the error names the file, not a TypeError from inside safetensors."""
    n, d = len(VOCAB), 4
    header = json.dumps({"embeddings": {"dtype": "BF16", "shape": [n, d], "data_offsets": [0, 2 * n * d]}}).encode()
    header += b" " * (-len(header) % 8)
    (model_dir / "model.safetensors").write_bytes(len(header).to_bytes(8, "little") + header + bytes(2 * n * d))
    with pytest.raises(FormatError, match=r"model\.safetensors: not a valid safetensors file"):
        embgeo.static.load(model_dir)


def test_corrupt_files_are_format_errors_naming_them(model_dir):
    (model_dir / "model.safetensors").write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00{not json}")
    with pytest.raises(FormatError, match=r"model\.safetensors: not a valid safetensors file"):
        embgeo.static.load(model_dir)
    write_model(model_dir)
    (model_dir / "config.json").write_text('{"normalize": "yes"}')
    with pytest.raises(FormatError, match=r"config\.json: 'normalize' must be true or false"):
        embgeo.static.load(model_dir)
    (model_dir / "config.json").write_text("{oops")
    with pytest.raises(FormatError, match=r"config\.json, line 1: not valid JSON"):
        embgeo.static.load(model_dir)


def test_unsupported_tokenizer_is_named(model_dir):
    spec = json.loads((model_dir / "tokenizer.json").read_text())
    spec["model"]["type"] = "CharLevel"
    (model_dir / "tokenizer.json").write_text(json.dumps(spec))
    with pytest.raises(FormatError, match=r"tokenizer\.json: the tokenizer model 'CharLevel' is not supported"):
        embgeo.static.load(model_dir)


def test_tokenizer_ids_with_a_gap_are_refused(model_dir):
    spec = json.loads((model_dir / "tokenizer.json").read_text())
    spec["model"]["vocab"]["fox"] = len(VOCAB) + 5
    (model_dir / "tokenizer.json").write_text(json.dumps(spec))
    with pytest.raises(FormatError, match=r"tokenizer\.json: the tokenizer's ids are not 0 \.\. \d+: id \d+ is missing"):
        embgeo.static.load(model_dir)


def test_a_file_or_an_unrelated_directory_is_not_a_model(tmp_path):
    (tmp_path / "f.txt").write_text("x")
    with pytest.raises(FormatError, match="not a directory"):
        embgeo.static.load(tmp_path / "f.txt")
    with pytest.raises(FormatError, match="not a Model2Vec model directory"):
        embgeo.static.load(tmp_path)
    with pytest.raises(FileNotFoundError):
        embgeo.static.load(tmp_path / "absent")


def test_without_the_extra_the_error_names_it(tmp_path):
    """``import embgeo`` and ``import embgeo.static`` work without safetensors and tokenizers; using it says
    what to install."""
    code = ("import sys\nsys.modules['tokenizers'] = None\nsys.modules['safetensors'] = None\n"
            "import embgeo, embgeo.static, embgeo.io\n"
            "try:\n    embgeo.static.load(sys.argv[1])\nexcept ImportError as exc:\n    print(exc)\n")
    root = str(Path(embgeo.__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": root}
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    assert "embgeo[static]" in out.stdout and "safetensors" in out.stdout


def test_constructor_checks_its_arguments():
    tok = tokenizer_json()
    with pytest.raises(ValueError, match="rows but the tokenizer has"):
        StaticModel(tok, np.zeros((3, 2), np.float32))
    with pytest.raises(ValueError, match="recipe"):
        StaticModel(tok, np.zeros((len(VOCAB), 2), np.float32), recipe="bag")
    with pytest.raises(ValueError, match="max_length"):
        StaticModel(tok, np.zeros((len(VOCAB), 2), np.float32), max_length=0)
    with pytest.raises(TypeError, match="tokenizers.Tokenizer or its JSON"):
        StaticModel(42, np.zeros((len(VOCAB), 2), np.float32))
    model = StaticModel(tok, np.ones((len(VOCAB), 2), np.float32))
    with pytest.raises(ValueError, match="batch_size"):
        model.encode(["cat"], batch_size=0)
    with pytest.raises(TypeError, match="texts must be strings"):
        model.encode(["cat", 3])

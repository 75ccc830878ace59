"""Every example in README.md and docs/*.md runs as written.

Each page's ```python blocks are executed in order in one namespace (as a reader pasting them into one
session would), in a fresh temporary directory; its ```bash lines that run ``python -m embgeo ...`` are run
through :func:`embgeo.cli.main` and must exit with 0. A block that truly cannot run here (it needs a download,
a GPU, a cluster) is preceded by the marker ``<!-- example: skip (reason) -->``; the reason is required.
The pages use the embedded GloVe, gensim's bundled corpora and data they build themselves.
"""
from __future__ import annotations

import copy
import re
import shlex
import time

import numpy as np
import pytest

import embgeo
from conftest import REPO

PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
_FENCE = re.compile(r"^(?P<marker><!--[^\n]*-->[ \t]*\n)?```(?P<lang>python|bash)[ \t]*\n(?P<code>.*?)^```",
                    flags=re.S | re.M)
_SKIP = re.compile(r"<!--\s*example:\s*skip\s*\((?P<reason>[^)]*\S[^)]*)\)\s*-->")


def blocks(text):
    """``(lang, code, first_line, skip_reason)`` for every fenced python / bash block of a page."""
    out = []
    for m in _FENCE.finditer(text):
        line = text.count("\n", 0, m.start("code")) + 1
        marker = m.group("marker")
        reason = None
        if marker and "example" in marker:
            skip = _SKIP.search(marker)
            assert skip, f"line {line}: a skip marker reads <!-- example: skip (why it cannot run) -->"
            reason = skip.group("reason")
        out.append((m.group("lang"), m.group("code"), line, reason))
    return out


def embgeo_commands(code):
    """The argument lists of the ``python -m embgeo ...`` lines of a bash block (comments dropped)."""
    cmds = []
    for ln in code.splitlines():
        words = shlex.split(ln, comments=True)
        if words[:3] == ["python", "-m", "embgeo"]:
            cmds.append(words[3:])
    return cmds


def test_blocks_finds_markers_and_commands():
    page = ("```python\nx = 1\n```\n<!-- example: skip (needs a GPU) -->\n```python\ny\n```\n"
            "```bash\npython -m embgeo neighbors king -k 3   # the three nearest\npip install x\n```\n")
    found = blocks(page)
    assert [(b[0], b[3]) for b in found] == [("python", None), ("python", "needs a GPU"), ("bash", None)]
    assert embgeo_commands(found[2][1]) == [["neighbors", "king", "-k", "3"]]
    with pytest.raises(AssertionError, match="skip marker"):
        blocks("<!-- example: skip -->\n```python\nz\n```\n")


#: Word2Vec models the pages trained, by their corpus file and arguments (see ``page_session``)
_TRAINED: dict = {}


@pytest.fixture
def page_session(tmp_path, monkeypatch, glove):
    """A fresh working directory, no windows, and what the pages load or train more than once, made once
    per test session: the embedded GloVe (the data extra; plot and dev extras as the README's install) and
    the Lee-corpus Word2Vec that four pages train."""
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    monkeypatch.chdir(tmp_path)
    real_load = embgeo.load

    def load(source, *args, **kwargs):  # Embeddings are immutable, so sharing one load is safe
        if source == "glove-6b-50d" and not args and set(kwargs) <= {"limit"}:
            return glove.top(kwargs["limit"]) if kwargs.get("limit") else glove
        return real_load(source, *args, **kwargs)

    monkeypatch.setattr(embgeo, "load", load)
    monkeypatch.setattr(embgeo.io, "load", load)  # the CLI's --embeddings
    gensim_models = pytest.importorskip("gensim.models")
    monkeypatch.setattr(gensim_models, "Word2Vec", _shared_word2vec(gensim_models.Word2Vec))
    return tmp_path


def _shared_word2vec(cls):
    """``cls`` (gensim's Word2Vec), except that a seeded one-worker model of a corpus file is trained once
    per session and each later call gets a deep copy: such a model is the same in every training (the test
    below checks it against a fresh one)."""
    from gensim.models.word2vec import LineSentence

    def make(sentences=None, **kwargs):
        if not (isinstance(sentences, LineSentence) and isinstance(sentences.source, str)
                and kwargs.get("workers") == 1 and "seed" in kwargs):
            return cls(sentences, **kwargs)
        key = (sentences.source, sentences.max_sentence_length, sentences.limit, tuple(sorted(kwargs.items())))
        if key not in _TRAINED:
            _TRAINED[key] = cls(sentences, **kwargs)
        return copy.deepcopy(_TRAINED[key])

    return make


def test_shared_word2vec_trains_once_and_hands_out_copies(tmp_path):
    models = pytest.importorskip("gensim.models")
    from gensim.models.word2vec import LineSentence

    corpus = tmp_path / "corpus.txt"
    corpus.write_text("the cat sat on the mat\nthe dog sat on the log\n" * 20)
    make = _shared_word2vec(models.Word2Vec)
    kw = dict(vector_size=8, min_count=1, seed=0, workers=1)
    before = len(_TRAINED)
    a, b = make(LineSentence(str(corpus)), **kw), make(LineSentence(str(corpus)), **kw)
    assert len(_TRAINED) == before + 1 and a is not b
    fresh = models.Word2Vec(LineSentence(str(corpus)), **kw)  # what the page would have trained
    for m in (a, b):
        np.testing.assert_array_equal(m.wv.vectors, fresh.wv.vectors)
        np.testing.assert_array_equal(m.syn1neg, fresh.syn1neg)
    b.wv.vectors[:] = 0  # a page may change its model: the next page's copy is untouched
    np.testing.assert_array_equal(make(LineSentence(str(corpus)), **kw).wv.vectors, fresh.wv.vectors)
    make(LineSentence(str(corpus)), **{**kw, "workers": 2})  # not reproducible: trained, never kept
    assert len(_TRAINED) == before + 1


def _runnable(page):
    return any(reason is None for _, _, _, reason in blocks(page.read_text(encoding="utf-8")))


@pytest.mark.parametrize("page", [p for p in PAGES if _runnable(p)], ids=lambda p: p.name)
def test_page_examples_run(page, page_session, capsys):
    from embgeo.cli import main

    namespace: dict = {"__name__": "__main__"}
    rel = page.relative_to(REPO)
    timings = []
    for lang, code, line, reason in blocks(page.read_text(encoding="utf-8")):
        if reason is not None:
            continue
        start = time.perf_counter()
        if lang == "python":
            exec(compile(code, f"{rel}:{line}", "exec"), namespace)
        else:
            for argv in embgeo_commands(code):
                code_ = main(argv)
                assert code_ == 0, f"{rel}:{line}: python -m embgeo {' '.join(argv)} exited {code_}: " \
                                   f"{capsys.readouterr().err[-2000:]}"
        timings.append((f"{rel}:{line}", time.perf_counter() - start))
    print("\n".join(f"{where}: {t:.1f} s" for where, t in timings))
    # a Dask cluster a page leaves open keeps its event loop and system monitor running for the rest
    # of the test session (its allocations showed in other tests' memory traces): pages close theirs
    dask = {name: v for name, v in namespace.items() if type(v).__module__.startswith("distributed")}
    dask.update({f"{name}.cluster": v.cluster for name, v in list(dask.items()) if getattr(v, "cluster", None)})
    left_open = [name for name, v in dask.items()
                 if hasattr(v, "close") and not str(getattr(v, "status", "closed")).endswith("closed")]
    for name in left_open:
        dask[name].close()
    assert not left_open, f"{rel} leaves Dask objects open: {left_open} (close them at the end of the example)"

"""gensim's own ``test_keyedvectors.py`` (shipped in gensim's wheel) against ``embgeo.KeyedVectors``.

The file is copied from the installed gensim at test time and only its imports are rewritten
(``from gensim.models.keyedvectors import KeyedVectors`` -> ``from embgeo import KeyedVectors``,
``gensim.models[.keyedvectors].KeyedVectors`` -> ``KeyedVectors``); the helpers ``REAL`` and
``pseudorandom_weak_vector`` still come from gensim.

The query methods of ``embgeo.KeyedVectors`` are embgeo's (``Embeddings.most_similar``, the cached
unit vectors), so the suite judges embgeo's code; the test also checks that the suite reaches it.
"""
import importlib.util
import io
import re
import sys
import unittest
from pathlib import Path

import pytest

gensim = pytest.importorskip("gensim")

SOURCE = Path(gensim.__file__).parent / "test" / "test_keyedvectors.py"
GENSIM_IMPORT = "from gensim.models.keyedvectors import KeyedVectors, REAL, pseudorandom_weak_vector"


def _rewritten(tmp_path):
    if not SOURCE.exists():
        pytest.skip(f"gensim's test file is not installed ({SOURCE})")
    text = SOURCE.read_text(encoding="utf-8")
    assert text.count(GENSIM_IMPORT) == 1, "gensim's test file changed: review the import rewrite"
    text = text.replace(GENSIM_IMPORT, "from embgeo import KeyedVectors\n"
                                       "from gensim.models.keyedvectors import REAL, pseudorandom_weak_vector")
    text = re.sub(r"gensim\.models\.(keyedvectors\.)?KeyedVectors\b", "KeyedVectors", text)
    # nothing may still reach gensim's class (the private loader is called with cls=KeyedVectors)
    assert not re.search(r"import KeyedVectors|models\.(keyedvectors\.)?KeyedVectors", text.replace(
        "from embgeo import KeyedVectors", ""))
    path = tmp_path / "gensim_test_keyedvectors_embgeo.py"
    path.write_text(text, encoding="utf-8")
    return path


def _load_module(path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    try:
        spec.loader.exec_module(module)
    finally:
        sys.modules.pop(path.stem, None)
    return module


def test_gensims_keyedvectors_suite_passes_against_embgeo(tmp_path, monkeypatch):
    import embgeo
    from embgeo.embeddings import Embeddings

    calls = []
    most_similar = Embeddings.most_similar
    monkeypatch.setattr(Embeddings, "most_similar", lambda *a, **k: calls.append(1) or most_similar(*a, **k))
    module = _load_module(_rewritten(tmp_path))
    assert module.KeyedVectors is embgeo.KeyedVectors
    suite = unittest.defaultTestLoader.loadTestsFromModule(module)
    result = unittest.TextTestRunner(stream=io.StringIO(), verbosity=0).run(suite)
    problems = [f"{t.id()}: {tb.strip().splitlines()[-1]}" for t, tb in result.failures + result.errors]
    assert not problems, "\n".join(problems)
    assert result.testsRun >= 33 and not result.skipped  # 33 in gensim 4.3 and 4.4
    assert len(calls) >= 10, "gensim's suite no longer reaches embgeo's most_similar"

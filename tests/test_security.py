"""Reading a file never runs code or touches other files; writes stay in the target's folder or the cache.

Each test works in ``tmp_path / "work"`` beside a folder ``tmp_path / "outside"`` of victims, and
checks that nothing outside ``work`` changed (the victims' names, bytes and links, and the listing
of the folder above ``tmp_path``). See ``docs/security.md``.
"""
import gzip
import hashlib
import io as _io
import json
import os
import pickle
import stat
import subprocess
import sys
import threading
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pytest

import embgeo
from embgeo import io
from embgeo.data import _registry as R
from embgeo.errors import FormatError
from embgeo.io import atomic
from conftest import kill_between_renames


def _snapshot(root: Path) -> dict:
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            rel = str(p.relative_to(root))
            if p.is_symlink():
                out[rel] = ("link", os.readlink(p))
            elif p.is_dir():
                out[rel] = ("dir",)
            else:
                out[rel] = ("file", p.read_bytes())
    return out


class _Guard:
    """The victims outside the work folder, and a check that none of them (nor the folder above) changed."""

    def __init__(self, tmp_path: Path):
        self.work, self.outside = tmp_path / "work", tmp_path / "outside"
        self.work.mkdir()
        (self.outside / "victim").mkdir(parents=True)
        (self.outside / "victim" / "precious.txt").write_text("keep me\n")
        (self.outside / "victim.txt").write_text("keep me too\n")
        self.above = tmp_path.parent
        self.before = (_snapshot(self.outside), sorted(os.listdir(self.above)), sorted(os.listdir(tmp_path)))
        self.tmp_path = tmp_path

    def check(self):
        after = (_snapshot(self.outside), sorted(os.listdir(self.above)), sorted(os.listdir(self.tmp_path)))
        assert after == self.before


@pytest.fixture
def guard(tmp_path):
    return _Guard(tmp_path)


@pytest.fixture
def emb():
    return embgeo.Embeddings([f"w{i}" for i in range(6)], np.arange(12.0, dtype=np.float32).reshape(6, 2))


# ------------------------------------------------------------------ 1. detection never unpickles
class _Payload:
    """Unpickling this calls ``os.mkdir(marker)``: the proof that a file's code ran."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return os.mkdir, (self.marker,)


@pytest.mark.parametrize("name", ["v.vec", "v.bin", "v.kv", "v.model", "v.txt", "v", "v.vec.gz"])
@pytest.mark.parametrize("protocol", [2, 4, 5])
def test_a_pickle_is_never_unpickled_unless_its_format_is_asked_for(guard, name, protocol):
    marker = guard.work / "code-ran"
    data = pickle.dumps(_Payload(marker), protocol=protocol)
    path = guard.work / name
    path.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    with pytest.raises(FormatError, match="looks like a pickle") as info:
        embgeo.load(path)
    assert info.value.path == str(path) and "format='gensim'" in str(info.value) and "runs code" in str(info.value)
    with pytest.raises(FormatError, match="looks like a pickle"):
        io.detect_format(path)
    with pytest.raises(FormatError, match="looks like a pickle"):
        embgeo.load(path, mmap=True)
    assert not marker.exists()
    # the payload is live: the explicit format (documented as running code) does run it
    with pytest.raises(FormatError):
        embgeo.load(path, format="gensim")
    assert marker.is_dir()
    guard.check()


# ------------------------------------------------------------------ 2. journals
def _dead_pid() -> int:
    out = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    return int(out.stdout)


def _journal_name(target: str, pid: int, kind="swap") -> str:
    return f".{target}.embgeo-{atomic._HOST}-{pid}-0badf00d.{kind}"


def _plant(folder: Path, target: str, plan: dict, pid: int, header: str = "signed") -> Path:
    """A journal file for ``target`` left by the dead process ``pid``: plain JSON (the layout of
    journals before they were signed), or signed with the body's sha256 (right or wrong)."""
    body = json.dumps(plan).encode()
    sha = hashlib.sha256(body).hexdigest()
    head = {"plain": b"", "signed": f"embgeo-journal 1 sha256={sha}\n".encode(),
            "bad-checksum": f"embgeo-journal 1 sha256={sha[::-1]}\n".encode()}[header]
    j = folder / _journal_name(target, pid)
    j.write_bytes(head + body)
    return j


@pytest.mark.parametrize("header", ["plain", "signed"])
@pytest.mark.parametrize("attack", ["absolute", "parent", "through-a-link", "a-link-out"])
def test_a_planted_journal_never_touches_anything_outside_its_folder(guard, emb, header, attack):
    work, outside = guard.work, guard.outside
    p = io.save(emb, work / "a.vec")
    pid = _dead_pid()
    if attack == "absolute":
        plan = {"renames": [], "remove": [str(outside / "victim"), str(outside / "victim.txt")]}
    elif attack == "parent":
        plan = {"renames": [["../outside/victim.txt", "stolen.txt"]], "remove": ["../outside/victim"]}
    elif attack == "through-a-link":
        os.symlink(outside, work / "door")
        plan = {"renames": [["door/victim.txt", "stolen.txt"]], "remove": ["door/victim"]}
    else:  # a plain name, but a link that leads out: renamed over, it would be its target that moves
        os.symlink(outside / "victim.txt", work / _journal_name("a.vec", pid, "tmp"))
        plan = {"renames": [[_journal_name("a.vec", pid, "tmp"), "a.vec"]], "remove": []}
    j = _plant(work, "a.vec", plan, pid, header)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            back = embgeo.load(p)
            io.save(emb, work / "a.vec")  # nor does a write of the file it claims
    finally:
        guard.check()
    assert not (work / "stolen.txt").exists()
    assert back.words == emb.words and j.exists()
    assert [str(w.message).split(":")[0] for w in caught] == [f"{j} is not replayed"] * 2


@pytest.mark.parametrize("header", ["plain", "bad-checksum"])
def test_only_a_journal_embgeo_wrote_is_replayed(guard, emb, header):
    """A journal that would be valid but for its header (none, or a wrong checksum) is not replayed."""
    work = guard.work
    p = io.save(emb, work / "a.vec")
    pid = _dead_pid()
    tmp = work / _journal_name("a.vec", pid, "tmp")
    tmp.write_text("1 2\nevil 6 6\n")
    j = _plant(work, "a.vec", {"renames": [[tmp.name, "a.vec"]], "remove": []}, pid, header)
    with pytest.warns(RuntimeWarning, match="no embgeo journal header|checksum does not match"):
        assert embgeo.load(p).words == emb.words
    assert j.exists() and tmp.exists()
    guard.check()


@pytest.mark.parametrize("name", ["b.npy", "b.embgeo"])
def test_a_journal_is_replayed_only_for_the_file_it_writes(guard, emb, name):
    work = guard.work
    new = embgeo.Embeddings(emb.words[::-1], -emb.vectors)
    b = io.save(emb, work / name)
    a = io.save(emb, work / "a.vec")
    kill_between_renames(b, new)
    journals = [f for f in os.listdir(work) if f.endswith(".swap")]
    left = sorted(os.listdir(work))
    assert len(journals) == 1
    # loading or writing another file of the folder neither replays it nor reaps the files it needs
    embgeo.load(a)
    io.save(emb, work / "c.vec")
    assert sorted(os.listdir(work)) == sorted(left + ["c.vec"])
    # loading the file it writes completes it: the new version, whole
    back = embgeo.load(b)
    assert back.words == new.words and np.array_equal(back.vectors, new.vectors)
    assert not [f for f in os.listdir(work) if f.startswith(".")]
    guard.check()


def test_a_journal_is_replayed_by_the_next_write_of_its_file(guard, emb):
    b = io.save(emb, guard.work / "b.npy")
    kill_between_renames(b, embgeo.Embeddings(emb.words[::-1], -emb.vectors))
    io.save(emb.subset(emb.words[:3]), b)
    assert embgeo.load(b).words == emb.words[:3]
    assert not [f for f in os.listdir(guard.work) if f.startswith(".")]
    guard.check()


# ------------------------------------------------------------------ 11. concurrent saves
@pytest.mark.parametrize("name", ["x.embgeo", "x.npy"])
def test_concurrent_saves_of_one_cache_all_succeed_and_the_last_one_wins(guard, name):
    n = 20
    path = guard.work / name
    versions = [embgeo.Embeddings([f"v{i}_{j}" for j in range(30)], np.full((30, 3), i, np.float32)) for i in range(n)]
    io.save(versions[0], path)
    errors = []
    barrier = threading.Barrier(n)

    def writer(i):
        barrier.wait()
        for _ in range(4):
            try:
                io.save(versions[i], path)
            except Exception as exc:  # noqa: BLE001 (any error is the failure this test is about)
                errors.append(f"{type(exc).__name__}: {exc}")

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    final = embgeo.load(path)
    i = int(final.vectors[0, 0])  # one writer's version, whole
    assert final.words == versions[i].words and np.array_equal(final.vectors, versions[i].vectors)
    assert not [f for f in os.listdir(guard.work) if f.startswith(".")]
    guard.check()


# ------------------------------------------------------------------ 3, 4. the data cache
def _zip(members: dict) -> bytes:
    buf = _io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in members.items():
            if isinstance(data, zipfile.ZipInfo):
                zf.writestr(data, b"target")
            else:
                zf.writestr(name, data)
    return buf.getvalue()


VECS = b"3 2\nthe 0.1 0.2\nof 0.3 -0.4\nand 1 2\n"


@pytest.fixture
def cache(guard, monkeypatch):
    root = guard.work / "cache"
    root.mkdir()
    monkeypatch.setenv("EMBGEO_DATA", str(root))
    return root


def _resource(name, archive: bytes, member, group="test", filename="a.zip"):
    return R.Resource(name, "vectors", "http://127.0.0.1:9/none.zip", filename, group, len(archive),
                      sha256=hashlib.sha256(archive).hexdigest(), checksum_source="test", format="word2vec",
                      member=member)


@pytest.mark.parametrize("field, value", [("group", "../../x"), ("group", "/abs"), ("group", "a/../../x"),
                                          ("filename", "../x.zip"), ("filename", "sub/x.zip"),
                                          ("member", "../../slipped.txt"), ("member", "/etc/slipped"),
                                          ("member", "a\\..\\..\\slipped.txt")])
def test_a_resource_whose_files_would_leave_the_cache_is_refused_at_registration(cache, monkeypatch, field, value):
    monkeypatch.setattr(R, "_REGISTRY", dict(R._entries()))
    fields = {"group": "test", "filename": "a.zip", "member": "v.txt", field: value}
    r = R.Resource("t-escape", "vectors", "http://127.0.0.1:9/none.zip", fields["filename"], fields["group"],
                   member=fields["member"])
    with pytest.raises(ValueError, match=f"{field} .* outside the cache"):
        embgeo.data.register(r)
    assert "t-escape" not in R.registry()


@pytest.mark.parametrize("member", ["../../../outside/slipped.txt", "../../slipped.txt", "/abs/slipped.txt"])
def test_zip_slip_with_a_valid_checksum_is_refused_naming_the_member(guard, cache, monkeypatch, member):
    archive = _zip({member: VECS})
    r = _resource("t-slip", archive, member)
    monkeypatch.setitem(R._entries(), "t-slip", r)  # past register(): the check at extraction
    (cache / "test").mkdir()
    (cache / "test" / "a.zip").write_bytes(archive)
    try:
        with pytest.raises(ValueError, match=f"{member}.*outside the cache|member {member!r}"):
            embgeo.data.fetch("t-slip")
    finally:
        guard.check()
    assert not [p for p in guard.work.rglob("*") if p.name.startswith("slipped")]


@pytest.mark.parametrize("kind", [stat.S_IFLNK, stat.S_IFIFO, stat.S_IFCHR])
def test_a_zip_member_that_is_not_a_plain_file_is_refused(guard, cache, monkeypatch, kind):
    info = zipfile.ZipInfo("v.txt")
    info.external_attr = (kind | 0o777) << 16
    archive = _zip({"v.txt": info})
    monkeypatch.setitem(R._entries(), "t-link", _resource("t-link", archive, "v.txt"))
    (cache / "test").mkdir()
    (cache / "test" / "a.zip").write_bytes(archive)
    with pytest.raises(FormatError, match="member 'v.txt' is not a plain file"):
        embgeo.data.fetch("t-link")
    assert not (cache / "test" / "v.txt").exists()
    guard.check()


def test_a_cache_folder_that_links_out_of_the_cache_is_refused(guard, cache, monkeypatch):
    archive = _zip({"v.txt": VECS})
    monkeypatch.setitem(R._entries(), "t-out", _resource("t-out", archive, "v.txt"))
    (guard.outside / "a.zip").write_bytes(archive)
    guard.before = (_snapshot(guard.outside), *guard.before[1:])
    os.symlink(guard.outside, cache / "test")
    with pytest.raises(ValueError, match="outside the cache"):
        embgeo.data.fetch("t-out")
    with pytest.raises(ValueError, match="outside the cache"):
        embgeo.data.cache_path("t-out")
    guard.check()  # nothing extracted beside the archive out there


def test_an_extracted_member_is_verified_on_every_use(guard, cache, monkeypatch):
    archive = _zip({"sub/v.txt": VECS})
    monkeypatch.setitem(R._entries(), "t-zip", _resource("t-zip", archive, "sub/v.txt"))
    (cache / "test").mkdir()
    (cache / "test" / "a.zip").write_bytes(archive)
    out = embgeo.data.fetch("t-zip")
    assert out == cache / "test" / "sub" / "v.txt" and out.read_bytes() == VECS
    manifest = json.loads((cache / "test" / "a.zip.members.json").read_text())
    assert manifest["members"]["sub/v.txt"]["sha256"] == hashlib.sha256(VECS).hexdigest()
    assert embgeo.data.fetch("t-zip") == out  # intact: used as is
    # an edit of the same size, with the old modification time: still caught, and undone
    st = out.stat()
    out.write_bytes(VECS.replace(b"0.1", b"9.9"))
    os.utime(out, ns=(st.st_atime_ns, st.st_mtime_ns))
    with pytest.warns(RuntimeWarning, match="was changed after it was extracted"):
        assert embgeo.data.fetch("t-zip") == out
    assert out.read_bytes() == VECS
    assert embgeo.load("t-zip").words == ["the", "of", "and"]
    guard.check()


def test_a_member_extracted_without_a_record_is_checked_against_the_archive(guard, cache, monkeypatch):
    archive = _zip({"v.txt": VECS})
    monkeypatch.setitem(R._entries(), "t-zip", _resource("t-zip", archive, "v.txt"))
    (cache / "test").mkdir()
    (cache / "test" / "a.zip").write_bytes(archive)
    (cache / "test" / "v.txt").write_bytes(b"1 2\nevil 6 6\n")  # placed there before any record
    with pytest.warns(RuntimeWarning, match="was changed after it was extracted"):
        out = embgeo.data.fetch("t-zip")
    assert out.read_bytes() == VECS
    guard.check()


@pytest.mark.parametrize("what", ["a link to a journal", "a pipe"])
def test_a_journal_that_is_not_a_regular_file_is_not_read(guard, emb, what):
    work = guard.work
    p = io.save(emb, work / "a.vec")
    pid = _dead_pid()
    j = work / _journal_name("a.vec", pid)
    if what == "a pipe":
        os.mkfifo(j)  # opened without O_NONBLOCK, reading it would hang the load
    else:
        real = _plant(guard.outside, "x", {"renames": [], "remove": ["victim.txt"]}, pid)
        guard.before = (_snapshot(guard.outside), *guard.before[1:])
        os.symlink(real, j)
    with pytest.warns(RuntimeWarning, match="is not replayed"):
        assert embgeo.load(p).words == emb.words
    guard.check()

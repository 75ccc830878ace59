"""Atomic, durable writes: a file appears whole under its name, or not at all, and survives a crash.

Temporary files are named ``.<name>.embgeo-<host>-<pid>-<random>.tmp`` beside the target, so that
one left by a killed writer (SIGKILL, power loss) is recognisable: the next atomic write into the
same directory removes those whose writer, on this host, is no longer running.

A write that takes more than one rename (a directory swapped for another: old → backup, new →
name; a group of files that belong together, such as ``X.npy`` and ``X.vocab.txt``) first writes
a journal ``.<name>.embgeo-<host>-<pid>-<random>.swap`` listing the renames, once every new file
is complete and on disk. A writer killed between two renames leaves the journal behind; the next
atomic write into the directory, or :func:`finish_interrupted` (which ``embgeo.load`` calls),
redoes the renames still to do, so the targets hold the new version, never a mixture or nothing.
"""
from __future__ import annotations

import errno
import json
import os
import re
import secrets
import shutil
import socket
import zlib
from contextlib import contextmanager
from pathlib import Path

__all__ = ["atomic_path", "atomic_paths", "atomic_dir", "temp_name", "fsync_file", "fsync_dir", "reap_stale",
           "finish_interrupted"]

_HOST = format(zlib.crc32(socket.gethostname().encode()), "08x")
_PATTERN = re.compile(r"\..+\.embgeo-(?P<host>[0-9a-f]{8})-(?P<pid>\d+)-[0-9a-f]{8}\.(?P<kind>tmp|old|swap)(\.gz)?")


def _temp_name(path: Path, kind: str = "tmp") -> Path:
    # keep a final .gz so that writers choosing compression by extension (gensim's smart_open) still compress
    suffix = ".gz" if path.name.endswith(".gz") and kind == "tmp" else ""
    return path.with_name(f".{path.name}.embgeo-{_HOST}-{os.getpid()}-{secrets.token_hex(4)}.{kind}{suffix}")


def temp_name(path) -> Path:
    """A fresh hidden name beside ``path`` for a temporary file or directory (embgeo's pattern)."""
    return _temp_name(Path(path))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's live process
        return True
    return True


def reap_stale(directory) -> list[Path]:
    """Remove embgeo temporary files and directories in ``directory`` left by dead writers.

    Only names of embgeo's pattern written on this host by a process that no longer exists are
    removed; a ``.old`` directory (an embgeo cache being swapped) only when its target exists
    again, since otherwise it holds the only copy. Returns the paths removed.
    """
    directory = Path(directory)
    removed: list[Path] = []
    # the renames of an interrupted swap first: they use temporary files that are reaped below
    finish_interrupted(directory)
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return removed
    for entry in entries:
        m = _PATTERN.fullmatch(entry.name)
        if m is None or m["host"] != _HOST or _alive(int(m["pid"])) or m["kind"] == "swap":
            continue
        p = Path(entry.path)
        if m["kind"] == "old":
            target = directory / entry.name[1:].split(".embgeo-", 1)[0]
            if not target.exists():
                continue
        try:
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(p)
            else:
                os.unlink(p)
            removed.append(p)
        except OSError:
            pass
    return removed


#: every rename of a multi-rename commit goes through this name (tests make it fail to simulate a crash)
_rename = os.replace


def finish_interrupted(directory) -> list[Path]:
    """Complete the multi-rename writes into ``directory`` that a dead writer left half done.

    Each journal (``.swap``) of a writer on this host that no longer runs is replayed: the renames it
    lists that were not done yet are done (every file it names was complete before the journal was
    written), then the backups it lists are removed and the journal with them. Journals of running
    writers are left alone. Returns the journals completed; errors (a read-only directory) are
    ignored, so that a reader never fails for a writer's leftovers.
    """
    directory = Path(directory)
    done: list[Path] = []
    try:
        entries = [e for e in os.scandir(directory) if e.name.endswith(".swap")]
    except OSError:
        return done
    for entry in entries:
        m = _PATTERN.fullmatch(entry.name)
        if m is None or m["kind"] != "swap" or m["host"] != _HOST or _alive(int(m["pid"])):
            continue
        try:
            with open(entry.path, encoding="utf-8") as f:
                plan = json.load(f)
            _replay(directory, plan["renames"], plan["remove"])
            os.unlink(entry.path)
            fsync_dir(directory)
            done.append(Path(entry.path))
        except (OSError, ValueError, KeyError):
            pass
    return done


def _replay(directory: Path, renames, remove) -> None:
    """Do the renames ``(src, dst)`` (names in ``directory``) not done yet, in order, then remove ``remove``.

    The renames run in order, so while the last one is still to do, a source that exists is one
    still to move (a later rename may recreate an earlier source: a swapped directory's name).
    """
    if renames and os.path.lexists(directory / renames[-1][0]):
        for src, dst in renames:
            if os.path.lexists(directory / src):
                _rename(directory / src, directory / dst)
        fsync_dir(directory)
    for name in remove:
        p = directory / name
        if p.is_dir() and not p.is_symlink():
            shutil.rmtree(p, ignore_errors=True)
        elif os.path.lexists(p):
            os.unlink(p)


def _commit(directory: Path, name: str, renames, remove=(), undo: bool = False) -> None:
    """Rename ``(src, dst)`` pairs of ``directory`` and remove ``remove``, recoverably (a journal first).

    ``undo``: on an error (not a crash) the renames done are reversed, which restores the old
    version when no rename overwrote a file (a directory swap); otherwise the journal stays, and
    the next write or :func:`finish_interrupted` after this process ends completes the renames.
    """
    renames = [(Path(a).name, Path(b).name) for a, b in renames]
    remove = [Path(r).name for r in remove]
    journal = _temp_name(directory / name, "swap")
    staging = _temp_name(directory / name)
    try:
        with open(staging, "x", encoding="utf-8") as f:
            json.dump({"renames": renames, "remove": remove}, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(staging, journal)
    except BaseException:
        if staging.exists():
            os.unlink(staging)
        raise
    fsync_dir(directory)
    try:
        _replay(directory, renames, ())
    except BaseException:
        if undo:
            for src, dst in reversed(renames):
                if os.path.lexists(directory / dst) and not os.path.lexists(directory / src):
                    os.replace(directory / dst, directory / src)
            os.unlink(journal)
            fsync_dir(directory)
        raise
    _replay(directory, (), remove)
    os.unlink(journal)
    fsync_dir(directory)


def fsync_file(path) -> None:
    """Flush ``path``'s data to disk."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def fsync_dir(path) -> None:
    """Flush a directory's entries (a rename into it) to disk; a no-op where directories cannot be opened."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


#: NumPy's message for a short write (``ndarray.tofile``, so ``np.save``), which carries no errno
_SHORT_WRITE = re.compile(r"\d+ requested and \d+ written")


@contextmanager
def _disk_full_named(path: Path):
    """Re-raise a full disk (ENOSPC, a quota, NumPy's short write) or a file too large for a size limit
    (EFBIG) as an OSError that names ``path``."""
    try:
        yield
    except OSError as exc:
        if exc.errno == errno.EFBIG:
            raise OSError(errno.EFBIG, f"cannot write {path}: the file is too large (a file size limit, "
                                       f"`ulimit -f`, or the file system's largest file); the old {path.name}, "
                                       f"if any, is unchanged: {exc}") from exc
        if exc.errno in (errno.ENOSPC, errno.EDQUOT) or (exc.errno is None and _SHORT_WRITE.search(str(exc))):
            try:
                free = f" ({shutil.disk_usage(path.absolute().parent).free:,} bytes free)"
            except OSError:
                free = ""
            raise OSError(errno.ENOSPC, f"cannot write {path}: the disk is full{free} (or a disk quota or "
                                        f"a file size limit is reached); the old {path.name}, if any, is "
                                        f"unchanged: {exc}") from exc
        raise


def _check_parent(path: Path) -> Path:
    parent = path.absolute().parent
    if not parent.is_dir():
        what = "is not a directory" if parent.exists() else "does not exist"
        raise FileNotFoundError(f"cannot write {path}: the directory {parent} {what}")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise PermissionError(f"cannot write {path}: no permission to create files in {parent}")
    return parent


@contextmanager
def atomic_path(path):
    """Yield a temporary path beside ``path``; move it over ``path`` only if the block succeeds.

    The temporary file lives in the same directory, so ``os.replace`` is atomic; it is fsynced
    before the rename and the directory after, so the new file survives a crash. On any error it
    is removed and an existing ``path`` is left untouched. Stale temporary files of killed
    writers are removed first (:func:`reap_stale`).
    """
    path = Path(path)
    parent = _check_parent(path)
    reap_stale(parent)
    tmp = _temp_name(path)
    # O_EXCL: never reuse someone's file; mode 0o666 so the umask applies as for a plain open()
    os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
    try:
        with _disk_full_named(path):
            yield tmp
            fsync_file(tmp)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    fsync_dir(parent)


@contextmanager
def atomic_paths(paths, remove=()):
    """:func:`atomic_path` for files that belong together (``X.npy`` and ``X.vocab.txt``).

    Yields one temporary path per path; when the block succeeds, all of them are moved into place
    and the files of ``remove`` (stale companions) are deleted, through one journal, so that a
    crash in the middle is completed by the next write or by :func:`finish_interrupted`: the
    files are never left half old, half new. On an error in the block nothing is touched.
    """
    paths = [Path(p) for p in paths]
    parents = {_check_parent(p) for p in paths}
    if len(parents) != 1:
        raise ValueError(f"atomic_paths needs files of one directory, got {sorted(map(str, parents))}")
    parent = parents.pop()
    reap_stale(parent)
    temps = [_temp_name(p) for p in paths]
    try:
        for t in temps:
            os.close(os.open(t, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
        with _disk_full_named(paths[0]):
            yield temps
            for t in temps:
                fsync_file(t)
        _commit(parent, paths[0].name, list(zip(temps, paths)), [r for r in remove if os.path.lexists(r)])
    finally:
        for t in temps:
            if os.path.lexists(t):
                os.unlink(t)


@contextmanager
def atomic_dir(path):
    """Yield a new temporary directory beside ``path``; when the block succeeds, it replaces
    ``path`` (an existing directory is renamed away first and removed after the swap, so a reader
    sees the old contents or the new, never a mixture). Files are fsynced before the swap, and the
    two renames go through a journal: a crash between them is completed by the next write or by
    :func:`finish_interrupted`. On error the temporary directory is removed.
    """
    path = Path(path)
    parent = _check_parent(path)
    reap_stale(parent)
    tmp = _temp_name(path)
    os.mkdir(tmp)
    try:
        with _disk_full_named(path):
            yield tmp
            for f in tmp.iterdir():
                fsync_file(f)
        fsync_dir(tmp)
        if path.exists():
            old = _temp_name(path, "old")
            _commit(parent, path.name, [(path, old), (tmp, path)], [old], undo=True)
        else:
            os.rename(tmp, path)
            fsync_dir(parent)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)

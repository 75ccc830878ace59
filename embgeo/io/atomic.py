"""Atomic, durable writes: a file appears whole under its name, or not at all, and survives a crash.

Temporary files are named ``.<name>.embgeo-<host>-<pid>-<random>.tmp`` beside the target, so that
one left by a killed writer (SIGKILL, power loss) is recognisable: the next atomic write into the
same directory removes those whose writer, on this host, is no longer running.
"""
from __future__ import annotations

import os
import re
import secrets
import shutil
import socket
import zlib
from contextlib import contextmanager
from pathlib import Path

__all__ = ["atomic_path", "atomic_dir", "temp_name", "fsync_file", "fsync_dir", "reap_stale"]

_HOST = format(zlib.crc32(socket.gethostname().encode()), "08x")
_PATTERN = re.compile(r"\..+\.embgeo-(?P<host>[0-9a-f]{8})-(?P<pid>\d+)-[0-9a-f]{8}\.(?P<kind>tmp|old)(\.gz)?")


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
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return removed
    for entry in entries:
        m = _PATTERN.fullmatch(entry.name)
        if m is None or m["host"] != _HOST or _alive(int(m["pid"])):
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
def atomic_dir(path):
    """Yield a new temporary directory beside ``path``; when the block succeeds, it replaces
    ``path`` (an existing directory is renamed away first and removed after the swap, so a reader
    sees the old contents or the new, never a mixture). Files are fsynced before the swap. On
    error the temporary directory is removed.
    """
    path = Path(path)
    parent = _check_parent(path)
    reap_stale(parent)
    tmp = _temp_name(path)
    os.mkdir(tmp)
    try:
        yield tmp
        for f in tmp.iterdir():
            fsync_file(f)
        fsync_dir(tmp)
        if path.exists():
            old = _temp_name(path, "old")
            os.rename(path, old)
            try:
                os.rename(tmp, path)
            except BaseException:
                os.rename(old, path)
                raise
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.rename(tmp, path)
        fsync_dir(parent)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)

"""Atomic, durable writes: a file appears whole under its name, or not at all, and survives a crash.

Temporary files are named ``.<name>.embgeo-<host>-<pid>-<random>.tmp`` beside the target, so that
one left by a killed writer (SIGKILL, power loss) is recognisable: the next atomic write into the
same directory removes those whose writer, on this host, is no longer running.

A write that takes more than one rename (a directory swapped for another: old → backup, new →
name; a group of files that belong together, such as ``X.npy`` and ``X.vocab.txt``) first writes
a journal ``.<name>.embgeo-<host>-<pid>-<random>.swap`` listing the renames, once every new file
is complete and on disk. A writer killed between two renames leaves the journal behind; the next
atomic write of one of its files, or :func:`finish_interrupted` (which ``embgeo.load`` calls on
the file it loads), redoes the renames still to do, so the targets hold the new version, never a
mixture or nothing.

A journal is a list of names to rename and remove, so a planted one must not move or delete
anything else: only a journal embgeo wrote is replayed (a versioned first line with the sha256 of
its body, a regular file of the current user), and only when every name it holds is a plain file
name of its own directory (no separator, no ``..``, no symbolic link that points out of the
directory), each rename pairing a file with an embgeo temporary name of that file and of the
journal's own writer. It is replayed only for a file it writes, never as a side effect of
writing or loading another file of the directory. Anything else is left alone, with a warning
when it claims the file being loaded or written.

Concurrent writers of one target (threads or processes) each complete: their renames are
serialised by a lock on the directory (``flock``, where the platform has it), so the last one
wins and nobody finds its rename's source moved away by another.
"""
from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import secrets
import shutil
import socket
import stat
import warnings
import zlib
from contextlib import contextmanager
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows: concurrent writers of one target are not serialised
    fcntl = None  # type: ignore[assignment]

__all__ = ["atomic_path", "atomic_paths", "atomic_dir", "temp_name", "fsync_file", "fsync_dir", "reap_stale",
           "finish_interrupted"]

_HOST = format(zlib.crc32(socket.gethostname().encode()), "08x")
_PATTERN = re.compile(r"\..+\.embgeo-(?P<host>[0-9a-f]{8})-(?P<pid>\d+)-[0-9a-f]{8}\.(?P<kind>tmp|old|swap)(\.gz)?")


def _temp_name(path: Path, kind: str = "tmp") -> Path:
    # keep a final .gz so that writers choosing compression by extension (gensim's smart_open) still compress
    suffix = ".gz" if path.name.endswith(".gz") and kind == "tmp" else ""
    return path.with_name(f".{path.name}.embgeo-{_HOST}-{os.getpid()}-{secrets.token_hex(4)}.{kind}{suffix}")


def temp_name(path) -> Path:
    """A fresh hidden name beside ``path`` for a temporary file or directory (embgeo's pattern).

    Parameters
    ----------
    path : str or path-like
        The file or directory to be written.

    Returns
    -------
    pathlib.Path
        ``.NAME.embgeo-HOST-PID-RANDOM.tmp`` in the same directory (a final ``.gz`` kept), a name
        :func:`reap_stale` recognises once its writer is gone.
    """
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
    again, since otherwise it holds the only copy; and nothing of a writer whose journal
    (``.swap``) is still there, since its renames, still to do, need those files (the journal is
    completed by the next load or write of a file it names: :func:`finish_interrupted`).

    Parameters
    ----------
    directory : str or path-like
        The directory cleaned (one that cannot be listed is left alone).

    Returns
    -------
    list of pathlib.Path
        The paths removed.
    """
    directory = Path(directory)
    removed: list[Path] = []
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return removed
    matches = [(e, _PATTERN.fullmatch(e.name)) for e in entries]
    journaled = {(m["host"], m["pid"]) for _, m in matches if m is not None and m["kind"] == "swap"}
    for entry, m in matches:
        if (m is None or m["host"] != _HOST or m["kind"] == "swap" or (m["host"], m["pid"]) in journaled
                or _alive(int(m["pid"]))):
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

#: the first line of a journal: its format's version, then the sha256 of the JSON body that follows
_JOURNAL_HEAD = re.compile(rb"embgeo-journal 1 sha256=(?P<sha>[0-9a-f]{64})\n")
_JOURNAL_MAX = 1 << 20


@contextmanager
def _locked(directory: Path):
    """Hold an exclusive lock on ``directory`` (``flock`` on the directory itself: no lock file is
    left behind), so that the renames of concurrent writers of one target, threads or processes,
    never interleave. Where directories cannot be opened or locked, nothing is held."""
    fd = None
    if fcntl is not None:
        try:
            fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
            fcntl.flock(fd, fcntl.LOCK_EX)
        except OSError:
            if fd is not None:
                os.close(fd)
            fd = None
    try:
        yield
    finally:
        if fd is not None:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)


def _encode_journal(renames, remove) -> bytes:
    body = json.dumps({"renames": renames, "remove": remove}).encode("utf-8")
    return b"embgeo-journal 1 sha256=" + hashlib.sha256(body).hexdigest().encode() + b"\n" + body


def _plain(name) -> bool:
    """A plain file name of the directory itself: no separator, no ``..``, not absolute, not empty."""
    return (isinstance(name, str) and name not in ("", ".", "..") and "/" not in name and "\0" not in name
            and os.sep not in name and (os.altsep is None or os.altsep not in name))


def _read_journal(path: Path, m) -> tuple[list, list, set[str]]:
    """``(renames, remove, targets)`` of an embgeo journal; ValueError saying why it is not one.

    ``targets`` are the visible names the journal writes (and removes). Each rename must pair a
    target with an embgeo temporary name of it from the journal's own writer (``.X.embgeo-…tmp``
    → ``X``, or ``X`` → ``.X.embgeo-…old``), each removed name be such a backup or a target, and
    no name be a symbolic link that leads out of the directory.
    """
    # no link followed, no wait on a pipe: what is checked is what is read
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise ValueError("not a regular file")
        if hasattr(os, "getuid") and st.st_uid != os.getuid():
            raise ValueError(f"owned by user id {st.st_uid}, not by this user")
        if st.st_size > _JOURNAL_MAX:
            raise ValueError(f"{st.st_size} bytes, more than a journal holds")
        data = f.read(_JOURNAL_MAX + 1)
    head = _JOURNAL_HEAD.match(data)
    if head is None:
        raise ValueError("no embgeo journal header")
    body = data[head.end():]
    if hashlib.sha256(body).hexdigest() != head["sha"].decode():
        raise ValueError("its checksum does not match its content")
    plan = json.loads(body.decode("utf-8"))
    renames, remove = plan["renames"], plan["remove"]
    if not (isinstance(renames, list) and isinstance(remove, list)
            and all(isinstance(r, list) and len(r) == 2 for r in renames)):
        raise ValueError("not a list of renames and removals")
    names = [n for r in renames for n in r] + remove
    bad = [n for n in names if not _plain(n)]
    if bad:
        raise ValueError(f"{bad[0]!r} is not a plain file name of the directory")

    def backup_of(name, kind):  # the visible name that the temporary ``name`` of this writer stands for
        t = _PATTERN.fullmatch(name)
        if t is None or t["kind"] != kind or (t["host"], t["pid"]) != (m["host"], m["pid"]):
            return None
        return name[1:].split(".embgeo-", 1)[0]

    targets: set[str] = set()
    for src, dst in renames:
        if backup_of(src, "tmp") == dst:
            targets.add(dst)
        elif backup_of(dst, "old") == src:
            targets.add(src)
        else:
            raise ValueError(f"the rename {src!r} -> {dst!r} is not one an embgeo write does")
    for name in remove:
        base = backup_of(name, "old")
        if base is None and _PATTERN.fullmatch(name) is None:
            targets.add(name)  # a stale companion that the write removes (``X.counts.npy``)
        elif base not in targets:
            raise ValueError(f"the removal of {name!r} is not one an embgeo write does")
    directory = path.parent.resolve()
    for name in set(names):
        p = path.parent / name
        if p.is_symlink() and directory not in p.resolve().parents:
            raise ValueError(f"{name!r} is a symbolic link that leads out of {directory}")
    return renames, remove, targets


def finish_interrupted(*paths) -> list[Path]:
    """Complete the multi-rename writes of ``paths`` that a dead writer left half done.

    A journal (``.swap``) in a path's directory, of a writer on this host that no longer runs and
    that writes that path, is replayed: the renames it lists that were not done yet are done
    (every file it names was complete before the journal was written), then the backups it lists
    are removed and the journal with them. Journals of running writers, and those writing only
    other files, are left alone; so is anything that is not a journal embgeo wrote or that names
    anything but plain file names of its directory (with a :class:`RuntimeWarning` when it
    claims one of ``paths``). Errors (a read-only directory) are ignored, so that a reader never
    fails for a writer's leftovers.

    Parameters
    ----------
    *paths : str or path-like
        The files (or cache directories) about to be read or written.

    Returns
    -------
    list of pathlib.Path
        The journals completed.
    """
    by_dir: dict[Path, set[str]] = {}
    for p in paths:
        p = Path(p).absolute()
        by_dir.setdefault(p.parent, set()).add(p.name)
    done: list[Path] = []
    for directory, names in by_dir.items():
        try:
            journals = [(Path(e.path), m) for e in os.scandir(directory) if e.name.endswith(".swap")
                        and (m := _PATTERN.fullmatch(e.name)) is not None and m["kind"] == "swap"
                        and m["host"] == _HOST and not _alive(int(m["pid"]))]
        except OSError:
            continue
        if not journals:
            continue
        with _locked(directory):  # a live writer's renames, or another reader replaying the same journal
            for journal, m in journals:
                try:
                    renames, remove, targets = _read_journal(journal, m)
                except FileNotFoundError:
                    continue  # replayed meanwhile
                except (OSError, ValueError, KeyError, TypeError, RuntimeError) as exc:  # RuntimeError: a link loop
                    claimed = journal.name[1:].split(".embgeo-", 1)[0]
                    if claimed in names:
                        warnings.warn(f"{journal} is not replayed: {exc}; it is not a journal of an embgeo "
                                      f"write into {directory} (delete it if you do not know where it comes "
                                      f"from)", RuntimeWarning, stacklevel=3)
                    continue
                if not names & targets:
                    continue
                try:
                    _replay(directory, renames, remove)
                    os.unlink(journal)
                    fsync_dir(directory)
                    done.append(journal)
                except OSError:
                    pass
    return done


def _replay(directory: Path, renames, remove) -> None:
    """Do the renames ``(src, dst)`` (names in ``directory``) not done yet, in order, then remove ``remove``.

    The renames run in order, so while the last one is still to do, a source that exists is one
    still to move (a later rename may recreate an earlier source: a swapped directory's name).
    Nothing is followed: a symbolic link is renamed or removed, never what it points to.
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

    The caller holds :func:`_locked` on ``directory``. ``undo``: on an error (not a crash) the
    renames done are reversed, which restores the old version when no rename overwrote a file (a
    directory swap); otherwise the journal stays, and the next load or write of one of its files
    after this process ends completes the renames.
    """
    renames = [(Path(a).name, Path(b).name) for a, b in renames]
    remove = [Path(r).name for r in remove]
    journal = _temp_name(directory / name, "swap")
    staging = _temp_name(directory / name)
    try:
        with open(staging, "xb") as f:
            f.write(_encode_journal(renames, remove))
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
    """Flush ``path``'s data to disk.

    Parameters
    ----------
    path : str or path-like
        A file that exists.
    """
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def fsync_dir(path) -> None:
    """Flush a directory's entries (a rename into it) to disk; a no-op where directories cannot be opened.

    Parameters
    ----------
    path : str or path-like
        The directory.
    """
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

    Parameters
    ----------
    path : str or path-like
        The file to write.

    Yields
    ------
    pathlib.Path
        The temporary path to write to.

    Raises
    ------
    FileNotFoundError
        The directory of ``path`` does not exist.
    PermissionError
        No permission to create files there.
    OSError
        The disk is full or the file too large (the message names ``path``).

    See Also
    --------
    atomic_paths : Several files that belong together.
    atomic_dir : A directory.
    """
    path = Path(path)
    parent = _check_parent(path)
    finish_interrupted(path)
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
    files are never left half old, half new (nor half one concurrent writer's, half another's:
    the renames are serialised). On an error in the block nothing is touched.

    Parameters
    ----------
    paths : sequence of str or path-like
        The files to write, in one directory.
    remove : sequence of str or path-like, default ()
        Files of that directory to delete once the new ones are in place.

    Yields
    ------
    list of pathlib.Path
        One temporary path per entry of ``paths``, in order.

    Raises
    ------
    ValueError
        The paths are not all in one directory.
    """
    paths = [Path(p) for p in paths]
    parents = {_check_parent(p) for p in paths}
    if len(parents) != 1:
        raise ValueError(f"atomic_paths needs files of one directory, got {sorted(map(str, parents))}")
    parent = parents.pop()
    finish_interrupted(*paths)
    reap_stale(parent)
    temps = [_temp_name(p) for p in paths]
    try:
        for t in temps:
            os.close(os.open(t, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
        with _disk_full_named(paths[0]):
            yield temps
            for t in temps:
                fsync_file(t)
        with _locked(parent):
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
    :func:`finish_interrupted`. Concurrent writers of ``path`` swap one after the other (the last
    one wins). On error the temporary directory is removed.

    Parameters
    ----------
    path : str or path-like
        The directory to write (replaced whole).

    Yields
    ------
    pathlib.Path
        The temporary directory to fill.
    """
    path = Path(path)
    parent = _check_parent(path)
    finish_interrupted(path)
    reap_stale(parent)
    tmp = _temp_name(path)
    os.mkdir(tmp)
    try:
        with _disk_full_named(path):
            yield tmp
            for f in tmp.iterdir():
                fsync_file(f)
        fsync_dir(tmp)
        # under the lock: another writer of path may be between its two renames (path moved away)
        with _locked(parent):
            if os.path.lexists(path):
                old = _temp_name(path, "old")
                _commit(parent, path.name, [(path, old), (tmp, path)], [old], undo=True)
            else:
                os.rename(tmp, path)
                fsync_dir(parent)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)

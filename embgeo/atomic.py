"""Atomic writes: a file appears whole under its name, or not at all."""
from __future__ import annotations

import os
import secrets
from contextlib import contextmanager
from pathlib import Path

__all__ = ["atomic_path"]


def _temp_name(path: Path) -> Path:
    # keep a final .gz so that writers choosing compression by extension (gensim's smart_open) still compress
    suffix = ".gz" if path.name.endswith(".gz") else ""
    return path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp{suffix}")


@contextmanager
def atomic_path(path):
    """Yield a temporary path beside ``path``; move it over ``path`` only if the block succeeds.

    The temporary file lives in the same directory, so ``os.replace`` is atomic; on any error it
    is removed and an existing ``path`` is left untouched.
    """
    path = Path(path)
    tmp = _temp_name(path)
    # O_EXCL: never reuse someone's file; mode 0o666 so the umask applies as for a plain open()
    os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
    try:
        yield tmp
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def temp_name(path) -> Path:
    """A fresh hidden name beside ``path`` for a temporary file or directory."""
    return _temp_name(Path(path))


@contextmanager
def atomic_dir(path):
    """Yield a new temporary directory beside ``path``; when the block succeeds, it replaces
    ``path`` (an existing directory is renamed away first and removed after the swap, so a reader
    sees the old contents or the new, never a mixture). On error the temporary directory is removed.
    """
    import shutil

    path = Path(path)
    tmp = _temp_name(path)
    os.mkdir(tmp)
    try:
        yield tmp
        if path.exists():
            old = path.with_name(f".{path.name}.{secrets.token_hex(4)}.old")
            os.rename(path, old)
            try:
                os.rename(tmp, path)
            except BaseException:
                os.rename(old, path)
                raise
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.rename(tmp, path)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)

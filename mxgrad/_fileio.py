"""Atomic file writing: the one helper every mxgrad file writer uses.

:func:`atomic_write` opens a temporary file in the target's folder and, only when the
``with`` block finishes without an exception, flushes it to disk and ``os.replace``\\ s it
onto the target. A crash, an exception or a ``SIGKILL`` mid-write leaves the previous file
untouched (at worst a stray ``.<name>.*.tmp`` file next to it).

Examples
--------
>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), 'out.bin')
>>> with atomic_write(path) as f:
...     _ = f.write(b'abc')
>>> open(path, 'rb').read()
b'abc'
>>> try:
...     with atomic_write(path) as f:
...         _ = f.write(b'partial')
...         raise KeyboardInterrupt
... except KeyboardInterrupt:
...     pass
>>> open(path, 'rb').read()               # the old content survives
b'abc'
"""
from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
from typing import IO, Iterator, Union

from .base import DTypeError, FileAccessError, FileMissingError

__all__ = ["atomic_write", "check_path", "open_for_read"]

_UMASK = None


def _umask() -> int:
    global _UMASK
    if _UMASK is None:
        mask = None
        try:   # read it without changing it (Linux)
            with open("/proc/self/status") as f:
                for line in f:
                    if line.startswith("Umask:"):
                        mask = int(line.split()[1], 8)
                        break
        except OSError:
            pass
        if mask is None:
            mask = os.umask(0o022)
            os.umask(mask)
        _UMASK = mask
    return _UMASK


def check_path(path, argname: str = "fname") -> str:
    """Return ``path`` as a ``str`` file name or raise a :class:`DTypeError` naming ``argname``.

    Examples
    --------
    >>> check_path('a.params')
    'a.params'
    """
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    if not isinstance(path, (str, os.PathLike)):
        raise DTypeError(f"{argname} must be a file name (str or os.PathLike), got "
                         f"{type(path).__name__}")
    path = os.fspath(path)
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    if not path:
        raise DTypeError(f"{argname} must be a non-empty file name")
    return path


@contextlib.contextmanager
def atomic_write(path: Union[str, os.PathLike], mode: str = "wb",
                 fsync: bool = True, encoding: str = "utf-8") -> Iterator[IO]:
    """Write ``path`` atomically: yield a temporary file that replaces ``path`` on success.

    Parameters
    ----------
    path : str or os.PathLike
        The file to create or replace.
    mode : {'wb', 'w'}
        Binary or text.
    fsync : bool
        Flush the data to disk before the rename (so a power loss cannot leave an empty
        file in place of the old one).
    encoding : str
        Text mode's encoding.
    """
    path = check_path(path, "path")
    if mode not in ("wb", "w"):
        raise DTypeError(f"atomic_write mode must be 'wb' or 'w', got {mode!r}")
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise FileAccessError(f"cannot write {path!r}: it is a folder; give a file name")
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix="." + os.path.basename(path) + ".",
                                   suffix=".tmp")
    except OSError as err:
        raise FileAccessError(f"cannot write {path!r}: {err.strerror or err} (check that "
                              f"the folder {folder!r} exists and is writable)") from None
    try:
        with os.fdopen(fd, mode, encoding=None if mode == "wb" else encoding) as f:
            yield f
            f.flush()
            if fsync:
                os.fsync(f.fileno())
        try:   # mkstemp makes 0600 files; give the file the usual permissions
            os.chmod(tmp, 0o666 & ~_umask())
        except OSError:
            pass
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def open_for_read(path, argname: str = "fname") -> IO:
    """Open ``path`` for binary reading; a missing file raises
    :class:`~mxgrad.base.FileMissingError` (an ``MXNetError`` and a ``FileNotFoundError``).

    Examples
    --------
    >>> try:
    ...     open_for_read('/nonexistent/x.params')
    ... except FileNotFoundError as err:
    ...     print(type(err).__name__)
    FileMissingError
    """
    path = check_path(path, argname)
    try:
        return open(path, "rb")
    except FileNotFoundError:
        raise FileMissingError(f"{argname} {path!r} does not exist") from None
    except OSError as err:
        raise FileAccessError(f"cannot read {argname} {path!r}: {err.strerror or err}") \
            from None


def file_sha1(path: Union[str, os.PathLike]) -> str:
    """The SHA-1 hex digest of a file's content (read in 1 MiB chunks).

    Examples
    --------
    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "f")
    >>> with open(p, "wb") as f:
    ...     _ = f.write(b"abc")
    >>> file_sha1(p)
    'a9993e364706816aba3e25717850c26c9cd0d89d'
    """
    h = hashlib.sha1()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()

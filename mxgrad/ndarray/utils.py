"""``nd.waitall``, ``nd.save``, ``nd.load`` and ``nd.load_frombuffer``.

Files are MXNet 1.x's binary NDArray format (see :mod:`mxgrad.ndarray._format`): what
mxgrad writes is byte-identical to MXNet 1.9's file for the same arrays and MXNet's files
load here. Files of mxgrad's earlier ``.npz`` format still load. Nothing is unpickled.
"""
from __future__ import annotations

from typing import Dict, List, Union

from ..base import DTypeError
from .._fileio import check_path
from .. import _format
from .._engine.ndarray import NDArray, wrap

__all__ = ["waitall", "save", "load", "load_frombuffer"]


def waitall() -> None:
    """Wait for all pending computation: a no-op, NumPy is synchronous.

    Examples
    --------
    >>> waitall()
    """


def _split(data, fn: str = "nd.save"):
    """``(names or None, numpy arrays)`` of ``data``, validated (nothing written yet)."""
    if isinstance(data, NDArray):
        return None, [data._data]
    if isinstance(data, dict):
        names, arrays = [], []
        for k, v in data.items():
            if not isinstance(k, str):
                raise DTypeError(f"{fn}: the keys of data must be str, got {k!r} "
                                 f"({type(k).__name__})")
            if not isinstance(v, NDArray):
                raise DTypeError(f"{fn}: data[{k!r}] must be an NDArray, got "
                                 f"{type(v).__name__}")
            names.append(k)
            arrays.append(v._data)
        return names, arrays
    if isinstance(data, (list, tuple)):
        for i, v in enumerate(data):
            if not isinstance(v, NDArray):
                raise DTypeError(f"{fn}: data[{i}] must be an NDArray, got "
                                 f"{type(v).__name__}")
        return None, [v._data for v in data]
    raise DTypeError(f"{fn}: data must be an NDArray, a list of NDArrays or a dict of str "
                     f"to NDArray, got {type(data).__name__}")


def save(fname: str, data: Union[NDArray, List[NDArray], Dict[str, NDArray]]) -> None:
    """Save an NDArray, a list of them or a dict of str to NDArray to ``fname``.

    The file is MXNet's binary NDArray format (MXNet 1.x loads it with ``mx.nd.load``),
    written atomically: a temporary file in the same folder replaces ``fname`` only once
    it is complete, so an interrupted save leaves the old file intact. Every key and value
    is checked before anything is written.

    Examples
    --------
    >>> import mxgrad as mx, os, tempfile
    >>> f = os.path.join(tempfile.mkdtemp(), 'x.nd')
    >>> mx.nd.save(f, {'a': mx.nd.ones((2,))}); mx.nd.load(f)['a'].shape
    (2,)
    >>> mx.nd.save(f, [mx.nd.zeros((1,), dtype='int32')]); mx.nd.load(f)[0].dtype
    <class 'numpy.int32'>
    """
    fname = check_path(fname, "fname")
    names, arrays = _split(data)
    _format.write_arrays(fname, arrays, names)


def _result(names, arrays):
    if not names:
        return [wrap(a) for a in arrays]
    return {k: wrap(a) for k, a in zip(names, arrays)}


def load(fname: str) -> Union[List[NDArray], Dict[str, NDArray]]:
    """Load what ``nd.save`` (mxgrad's or MXNet's) wrote: a list or a dict of NDArrays.

    A file saved from a dict gives a dict, from a list or a single NDArray a list. Sparse
    (row_sparse/CSR) records load as dense arrays. A file that is not an NDArray file
    raises :class:`~mxgrad.base.FileFormatError` saying what it is.

    Examples
    --------
    >>> import mxgrad as mx, os, tempfile
    >>> f = os.path.join(tempfile.mkdtemp(), 'x.nd')
    >>> mx.nd.save(f, mx.nd.arange(3)); mx.nd.load(f)
    [
    [0. 1. 2.]
    <NDArray 3 @cpu(0)>]
    """
    fname = check_path(fname, "fname")
    return _result(*_format.read_file(fname))


def load_frombuffer(buf) -> Union[List[NDArray], Dict[str, NDArray]]:
    """Load an NDArray list or dict from the bytes of an NDArray file.

    Examples
    --------
    >>> import mxgrad as mx, os, tempfile
    >>> f = os.path.join(tempfile.mkdtemp(), 'x.nd')
    >>> mx.nd.save(f, {'w': mx.nd.ones((1,))})
    >>> mx.nd.load_frombuffer(open(f, 'rb').read())['w'].asscalar()
    1.0
    """
    if isinstance(buf, str):
        buf = buf.encode("latin-1")
    if not isinstance(buf, (bytes, bytearray, memoryview)):
        raise DTypeError(f"nd.load_frombuffer: buf must be bytes, got {type(buf).__name__}")
    return _result(*_format.loads(buf))

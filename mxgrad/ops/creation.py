"""Array creation: ``array``, ``zeros``, ``ones``, ``full``, ``empty``, ``arange``,
``linspace``, ``eye``. float32 unless a dtype is given, as in MXNet."""
from __future__ import annotations

import numbers

import numpy as np

from ..base import DTypeError, ShapeError, as_dtype
from ..ndarray.ndarray import NDArray, wrap

__all__ = ["array", "zeros", "ones", "full", "empty", "arange", "linspace", "eye",
           "from_numpy", "concatenate_numpy"]


def _shape(shape):
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    try:
        return tuple(int(s) for s in shape)
    except TypeError:
        raise DTypeError(f"shape must be an int or a tuple of ints, got {shape!r}") from None


def array(source_array, ctx=None, dtype=None) -> NDArray:
    """Create an array from a list, a NumPy array or an NDArray (a copy).

    The dtype is float32 unless ``dtype`` is given, whatever the source's type (as in
    MXNet), except that an NDArray source keeps its dtype.

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.array([1, 2])
    <BLANKLINE>
    [1. 2.]
    <NDArray 2 @cpu(0)>
    >>> mx.nd.array([1, 2], dtype='int32').dtype
    <class 'numpy.int32'>
    """
    if isinstance(source_array, NDArray):
        dt = source_array._data.dtype if dtype is None else as_dtype(dtype)
        return wrap(source_array._data.astype(dt, copy=True))
    dt = as_dtype(dtype)
    try:
        data = np.array(source_array, dtype=dt, copy=True)
    except (ValueError, TypeError) as err:
        raise DTypeError(f"nd.array: cannot make a numeric array of dtype {dt} from "
                         f"{type(source_array).__name__} ({err}); give numbers, nested lists "
                         f"of numbers or a NumPy array") from None
    return wrap(data)   # a 0-d source gives a 0-d array, as in MXNet 1.9 (ops never make one)


def from_numpy(ndarray: np.ndarray, zero_copy: bool = True) -> NDArray:
    """Wrap a NumPy array without copying (its dtype is kept).

    Examples
    --------
    >>> import numpy as np, mxgrad as mx
    >>> mx.nd.from_numpy(np.arange(3.)).dtype
    <class 'numpy.float64'>
    """
    a = np.asarray(ndarray)
    return wrap(a if a.ndim else a.reshape(1))


def zeros(shape, ctx=None, dtype=None, **kwargs) -> NDArray:
    """An array of zeros (float32 by default).

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.zeros((2, 3)).shape
    (2, 3)
    """
    return wrap(np.zeros(_shape(shape), as_dtype(dtype)))


def ones(shape, ctx=None, dtype=None, **kwargs) -> NDArray:
    """An array of ones (float32 by default).

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.ones(2)
    <BLANKLINE>
    [1. 1.]
    <NDArray 2 @cpu(0)>
    """
    return wrap(np.ones(_shape(shape), as_dtype(dtype)))


def full(shape, val, ctx=None, dtype=None, **kwargs) -> NDArray:
    """An array filled with ``val`` (float32 by default).

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.full((2,), 7)
    <BLANKLINE>
    [7. 7.]
    <NDArray 2 @cpu(0)>
    """
    return wrap(np.full(_shape(shape), val, as_dtype(dtype)))


def empty(shape, ctx=None, dtype=None) -> NDArray:
    """An uninitialised array (float32 by default).

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.empty((2, 2)).shape
    (2, 2)
    """
    return wrap(np.empty(_shape(shape), as_dtype(dtype)))


def arange(start, stop=None, step=1.0, repeat=1, infer_range=False, ctx=None,
           dtype=None) -> NDArray:
    """Evenly spaced values in ``[start, stop)`` (float32 by default); each value
    ``repeat`` times.

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.arange(3)
    <BLANKLINE>
    [0. 1. 2.]
    <NDArray 3 @cpu(0)>
    """
    if stop is None:
        start, stop = 0, start
    data = np.arange(start, stop, step).astype(as_dtype(dtype))
    if repeat != 1:
        data = np.repeat(data, int(repeat))
    return wrap(data)


def linspace(start, stop, num, endpoint=True, ctx=None, dtype=None) -> NDArray:
    """``num`` evenly spaced values from ``start`` to ``stop``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.linspace(0, 1, 3)
    <BLANKLINE>
    [0.  0.5 1. ]
    <NDArray 3 @cpu(0)>
    """
    return wrap(np.linspace(start, stop, int(num), endpoint=endpoint).astype(as_dtype(dtype)))


def eye(N, M=0, k=0, ctx=None, dtype=None, **kwargs) -> NDArray:
    """A 2-D array with ones on the ``k``-th diagonal (``M=0`` means square).

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.eye(2)
    <BLANKLINE>
    [[1. 0.]
     [0. 1.]]
    <NDArray 2x2 @cpu(0)>
    """
    return wrap(np.eye(int(N), int(M) if M else None, int(k), dtype=as_dtype(dtype)))


def concatenate_numpy(arrays, axis=0):
    """Concatenate NDArrays into one NumPy array (not recorded)."""
    return np.concatenate([np.asarray(a) for a in arrays], axis=axis)

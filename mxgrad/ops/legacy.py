"""MXNet 1.x's older flat ``nd`` names that programs and MXNet's own tests still call:
``onehot_encode``, ``choose_element_0index``, ``fill_element_0index``, ``reset_arrays``.

Examples
--------
>>> import mxgrad as mx
>>> x = mx.nd.array([[1, 2, 3], [4, 5, 6]])
>>> mx.nd.choose_element_0index(x, mx.nd.array([0, 2])).asnumpy()
array([1., 6.], dtype=float32)
>>> mx.nd.fill_element_0index(x, mx.nd.array([9, 8]), mx.nd.array([0, 2])).asnumpy()
array([[9., 2., 3.],
       [4., 5., 8.]], dtype=float32)
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ..base import DTypeError, ShapeError
from .._engine.ndarray import NDArray, wrap
from .indexing import one_hot, pick

__all__ = ["onehot_encode", "choose_element_0index", "fill_element_0index", "reset_arrays"]


def _rows(index: NDArray, n: int, op: str) -> np.ndarray:
    idx = np.asarray(index.asnumpy() if isinstance(index, NDArray) else index).reshape(-1)
    if idx.shape[0] != n:
        raise ShapeError(f"{op}: need one index per row ({n}), got {idx.shape[0]}")
    return idx.astype(np.int64)


def onehot_encode(indices: NDArray, out: NDArray) -> NDArray:
    """Write the one-hot rows of ``indices`` into ``out`` (shape ``(N, depth)``); deprecated in
    MXNet in favour of :func:`one_hot`, which it calls.

    Examples
    --------
    >>> out = mx.nd.zeros((2, 3)); _ = mx.nd.onehot_encode(mx.nd.array([0, 2]), out)
    >>> out.asnumpy()
    array([[1., 0., 0.],
           [0., 0., 1.]], dtype=float32)
    """
    if not isinstance(out, NDArray) or out.ndim != 2:
        raise DTypeError("onehot_encode: out must be a 2-D NDArray (N, depth) to write into")
    idx = _rows(indices, out.shape[0], "onehot_encode")
    out._write(one_hot(idx, out.shape[1]))
    return out


def choose_element_0index(lhs: NDArray, rhs: NDArray, **kwargs: Any) -> NDArray:
    """``lhs[i, rhs[i]]`` for each row ``i`` (``pick`` along axis 1; differentiable)."""
    return pick(lhs, rhs, axis=1)


def fill_element_0index(lhs: NDArray, mhs: NDArray, rhs: NDArray, out: Optional[NDArray] = None,
                        **kwargs: Any) -> NDArray:
    """A copy of ``lhs`` (or ``out``) with ``[i, rhs[i]]`` set to ``mhs[i]`` for each row."""
    if not isinstance(lhs, NDArray) or lhs.ndim != 2:
        raise DTypeError("fill_element_0index: lhs must be a 2-D NDArray")
    idx = _rows(rhs, lhs.shape[0], "fill_element_0index")
    vals = np.asarray(mhs.asnumpy() if isinstance(mhs, NDArray) else mhs).reshape(-1)
    data = lhs._data.copy()
    data[np.arange(lhs.shape[0]), idx] = vals
    if out is None:
        return wrap(data)
    out._write(data)
    return out


def reset_arrays(*data: NDArray, num_arrays: Optional[int] = None, **kwargs: Any) -> None:
    """Set every given array to zero, in place.

    Examples
    --------
    >>> a, b = mx.nd.ones((2,)), mx.nd.ones((3,)); mx.nd.reset_arrays(a, b, num_arrays=2)
    >>> a.asnumpy().tolist(), b.asnumpy().tolist()
    ([0.0, 0.0], [0.0, 0.0, 0.0])
    """
    if num_arrays is not None and num_arrays != len(data):
        raise ShapeError(f"reset_arrays: num_arrays={num_arrays} but {len(data)} arrays given")
    for i, a in enumerate(data):
        if not isinstance(a, NDArray):
            raise DTypeError(f"reset_arrays: argument {i} must be an NDArray, got "
                             f"{type(a).__name__}")
        if a._node is not None:
            a._check_writable()
        a._write(0)

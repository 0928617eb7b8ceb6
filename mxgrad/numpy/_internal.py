"""``mx.np._internal``: the two of MXNet's internal NumPy operators that code calls
directly, boolean-mask assignment (what ``a[mask] = value`` runs in MXNet's NumPy
interface).

Each returns ``data`` with the masked entries replaced, as a new recorded array
(gradients flow to ``data`` outside the mask and to ``value``); ``out=`` writes the result
into an array (MXNet's ``out=data`` is its in-place form).

Examples
--------
>>> import mxgrad as mx
>>> a = mx.np.zeros((2, 3))
>>> mask = mx.np.array([[True, False, True], [False, False, True]], dtype=bool)
>>> mx.np._internal.boolean_mask_assign_scalar(a, mask, 7.0).asnumpy()
array([[7., 0., 7.],
       [0., 0., 7.]], dtype=float32)
"""
from __future__ import annotations

from typing import Any, Optional, cast

import numpy as _onp

from ..base import DTypeError, ShapeError
from .._engine.ndarray import NDArray, as_face
from ..ops._apply import write_out
from ..ops.indexing import index_assign
from .multiarray import ndarray

__all__ = ["boolean_mask_assign_scalar", "boolean_mask_assign_tensor"]


def _masked(op: str, data: Any, mask: Any, value: Any, start_axis: int,
            out: Optional[NDArray]) -> ndarray:
    if not isinstance(data, NDArray):
        raise DTypeError(f"np._internal.{op}: data must be an mx.np array, got "
                         f"{type(data).__name__}")
    m = _onp.asarray(mask.asnumpy() if isinstance(mask, NDArray) else mask)
    if m.dtype != _onp.bool_:
        raise DTypeError(f"np._internal.{op}: mask must be a boolean array, got {m.dtype}")
    start = int(start_axis)
    if not 0 <= start <= data.ndim - m.ndim or \
            tuple(data.shape[start:start + m.ndim]) != m.shape:
        raise ShapeError(f"np._internal.{op}: a mask of shape {m.shape} at start_axis="
                         f"{start} does not match data of shape {data.shape}")
    if not m.any():                         # nothing selected: data as it is
        result = as_face(data.copy(), ndarray)
    else:
        key = (slice(None),) * start + (m,)
        result = as_face(index_assign(data, key, value), ndarray)
    return result if out is None else cast(ndarray, write_out(out, result))


def boolean_mask_assign_scalar(data: NDArray, mask: NDArray, value: float,
                               start_axis: int = 0, out: Optional[NDArray] = None,
                               **kwargs: Any) -> ndarray:
    """``data`` with the entries where ``mask`` (over ``data``'s axes from
    ``start_axis``) is true set to the number ``value``."""
    return _masked("boolean_mask_assign_scalar", data, mask, float(value), start_axis, out)


def boolean_mask_assign_tensor(data: NDArray, mask: NDArray, value: NDArray,
                               start_axis: int = 0, out: Optional[NDArray] = None,
                               **kwargs: Any) -> ndarray:
    """``data`` with the entries where ``mask`` is true replaced by ``value`` (one value
    per true entry, or broadcast to them), as ``data[..., mask, ...] = value``."""
    return _masked("boolean_mask_assign_tensor", data, mask, value, start_axis, out)

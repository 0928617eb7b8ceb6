"""``mx.nd._internal``: the few of MXNet's internal operators that user code calls.

MXNet exposes its hidden operators here; programs (and MXNet's own tests) use the slice
assignments below. Each returns a new array, recorded like any op (``out=`` writes it into
an array, as MXNet's ``out=x`` does in place).

Examples
--------
>>> import mxgrad as mx
>>> x = mx.nd.ones((2, 3))
>>> mx.nd._internal._slice_assign_scalar(x, scalar=5, begin=(0, 1), end=(1, 3))
<BLANKLINE>
[[1. 5. 5.]
 [1. 1. 1.]]
<NDArray 2x3 @cpu(0)>
"""
from __future__ import annotations

from typing import Any, Optional

from ..ops._apply import write_out
from ..ops.indexing import index_assign
from ..ops.random import sample_unique_zipfian as _sample_unique_zipfian
from ..ops.shape import slice_key
from .._engine.ndarray import NDArray

__all__ = ["_slice_assign", "_slice_assign_scalar", "_crop_assign", "_crop_assign_scalar",
           "_sample_unique_zipfian"]


def _slice_assign(lhs: NDArray, rhs: NDArray, begin: Any, end: Any, step: Any = None,
                  out: Optional[NDArray] = None, name: Optional[str] = None) -> NDArray:
    """``lhs`` with the region ``begin:end:step`` replaced by ``rhs`` (a new array)."""
    key = slice_key(lhs.shape, begin, end, step, "_slice_assign")
    r = index_assign(lhs, key, rhs)
    return r if out is None else write_out(out, r)


def _slice_assign_scalar(data: NDArray, scalar: float = 0.0, begin: Any = (), end: Any = (),
                         step: Any = None, out: Optional[NDArray] = None,
                         name: Optional[str] = None) -> NDArray:
    """``data`` with the region ``begin:end:step`` set to ``scalar`` (a new array)."""
    key = slice_key(data.shape, begin, end, step, "_slice_assign_scalar")
    r = index_assign(data, key, scalar)
    return r if out is None else write_out(out, r)


_crop_assign = _slice_assign                # MXNet's older names of the same operators
_crop_assign_scalar = _slice_assign_scalar

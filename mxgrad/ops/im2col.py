"""``nd.im2col`` and ``nd.col2im``: the sliding-window columns of a convolution and their
adjoint (overlapping windows summed back), as MXNet 1.9's operators. Each is the other's
gradient, so both differentiate to any order.

``im2col`` takes ``(N, C, *spatial)`` and gives ``(N, C * prod(kernel), L)`` with ``L`` the
number of window positions; ``col2im`` takes that and ``output_size`` (the spatial shape)
back to ``(N, C, *output_size)``.

Examples
--------
>>> import mxgrad as mx
>>> x = mx.nd.arange(16).reshape((1, 1, 4, 4))
>>> cols = mx.nd.im2col(x, kernel=(2, 2), stride=(2, 2))
>>> cols.shape, cols[0, :, 0].asnumpy().tolist()
((1, 4, 4), [0.0, 1.0, 4.0, 5.0])
>>> mx.nd.col2im(cols, output_size=(4, 4), kernel=(2, 2), stride=(2, 2)).asnumpy().ravel()[:4]
array([0., 1., 2., 3.], dtype=float32)
"""
from __future__ import annotations

from typing import Any, Optional, Sequence, Tuple

import numpy as np

from ..base import DTypeError, ShapeError
from .._engine.ndarray import NDArray
from ._core import Op, call1, defop
from .conv import _columns_view, _conv_osize, _offset_slices, _offsets, _pad_input, _prod

__all__ = ["im2col", "col2im"]


def _geometry(op: str, nd: int, kernel, stride, dilate, pad) -> Tuple[tuple, ...]:
    def tup(v, default, what, minimum):
        if v is None or (isinstance(v, (tuple, list)) and len(v) == 0):
            v = (default,) * nd
        v = (int(v),) * nd if isinstance(v, (int, np.integer)) else tuple(int(e) for e in v)
        if len(v) != nd or min(v) < minimum:
            raise ShapeError(f"{op}: {what} must be {nd} int(s) >= {minimum}, got {v}")
        return v
    return (tup(kernel, 1, "kernel", 1), tup(stride, 1, "stride", 1),
            tup(dilate, 1, "dilate", 1), tup(pad, 0, "pad", 0))


def _im2col_fwd(x, kernel, stride, dilate, pad):
    osize = _conv_osize(x.shape[2:], kernel, stride, pad, dilate)
    cols = _columns_view(_pad_input(x, pad), kernel, stride, dilate, osize)
    return np.ascontiguousarray(cols).reshape(x.shape[0], x.shape[1] * _prod(kernel),
                                              _prod(osize))


def _col2im_fwd(col, output_size, kernel, stride, dilate, pad):
    n = col.shape[0]
    c = col.shape[1] // _prod(kernel)
    osize = _conv_osize(output_size, kernel, stride, pad, dilate)
    cols = col.reshape((n, c) + tuple(kernel) + tuple(osize))
    padded = tuple(s + 2 * p for s, p in zip(output_size, pad))
    buf = np.zeros((n, c) + padded, dtype=col.dtype)
    for off in _offsets(kernel):
        buf[(slice(None), slice(None)) + _offset_slices(off, dilate, stride, osize)] += \
            cols[(slice(None), slice(None)) + off]
    inner = tuple(slice(p, p + s) for p, s in zip(pad, output_size))
    return np.ascontiguousarray(buf[(slice(None), slice(None)) + inner])


def _im2col_grad(g, y, x, kernel, stride, dilate, pad):
    return call1(_COL2IM, g, {"output_size": tuple(x.shape[2:]), "kernel": kernel,
                              "stride": stride, "dilate": dilate, "pad": pad})


def _col2im_grad(g, y, col, output_size, kernel, stride, dilate, pad):
    return call1(_IM2COL, g, {"kernel": kernel, "stride": stride, "dilate": dilate,
                              "pad": pad})


def _im2col_tangent(t, y, x, **attrs):
    return call1(_IM2COL, t, attrs)


def _col2im_tangent(t, y, col, **attrs):
    return call1(_COL2IM, t, attrs)


_IM2COL: Op = defop("im2col", _im2col_fwd, [_im2col_grad], [_im2col_tangent], save=(0,))
_COL2IM: Op = defop("col2im", _col2im_fwd, [_col2im_grad], [_col2im_tangent], save=())


def _array(x, op: str) -> NDArray:
    if not isinstance(x, NDArray):
        raise DTypeError(f"{op}: data must be an NDArray, got {type(x).__name__}")
    return x


def im2col(data: NDArray, kernel: Sequence[int], stride: Any = (), dilate: Any = (),
           pad: Any = (), **kwargs: Any) -> NDArray:
    """The columns of ``data`` ``(N, C, *spatial)``: ``(N, C * prod(kernel), L)``, one column
    per window position (channels slowest, then kernel offsets, as MXNet)."""
    x = _array(data, "im2col")
    nd = len(tuple(kernel)) if not isinstance(kernel, int) else 1
    if x.ndim != nd + 2:
        raise ShapeError(f"im2col: a {nd}-D kernel needs data of {nd + 2} dims (N, C, "
                         f"*spatial), got shape {tuple(x.shape)}")
    kernel, stride, dilate, pad = _geometry("im2col", nd, kernel, stride, dilate, pad)
    osize = _conv_osize(x.shape[2:], kernel, stride, pad, dilate)
    if min(osize) < 1:
        raise ShapeError(f"im2col: the kernel {kernel} (dilate {dilate}) does not fit in the "
                         f"padded input {tuple(x.shape[2:])} (pad {pad})")
    return call1(_IM2COL, x, {"kernel": kernel, "stride": stride, "dilate": dilate,
                              "pad": pad})


def col2im(data: NDArray, output_size: Sequence[int], kernel: Sequence[int],
           stride: Any = (), dilate: Any = (), pad: Any = (), **kwargs: Any) -> NDArray:
    """Sum the columns ``(N, C * prod(kernel), L)`` back into an image ``(N, C,
    *output_size)`` (overlapping windows add up): the adjoint of :func:`im2col`."""
    col = _array(data, "col2im")
    size = (int(output_size),) if isinstance(output_size, int) else \
        tuple(int(v) for v in output_size)
    nd = len(size)
    kernel, stride, dilate, pad = _geometry("col2im", nd, kernel, stride, dilate, pad)
    osize = _conv_osize(size, kernel, stride, pad, dilate)
    k = _prod(kernel)
    if col.ndim != 3 or col.shape[1] % k or col.shape[2] != _prod(osize) or min(osize) < 1:
        raise ShapeError(f"col2im: data must be (N, C*{k}, {_prod(osize)}) for output_size "
                         f"{size}, kernel {kernel}, stride {stride}, dilate {dilate}, pad "
                         f"{pad}; got {tuple(col.shape)}")
    return call1(_COL2IM, col, {"output_size": size, "kernel": kernel, "stride": stride,
                                "dilate": dilate, "pad": pad})

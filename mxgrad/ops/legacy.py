"""MXNet 1.x's older flat ``nd`` names that programs and MXNet's own tests still call:
``onehot_encode``, ``choose_element_0index``, ``fill_element_0index``, ``reset_arrays``,
``Crop``.

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

from typing import Any, Optional, Sequence

import numpy as np

from ..base import DTypeError, ShapeError
from .._engine.ndarray import NDArray, wrap
from . import _shape_rules as _sr
from ._apply import write_out
from ._mxnet_op import mxnet_op
from .indexing import one_hot, pick
from .shape import slice_axis

__all__ = ["onehot_encode", "choose_element_0index", "fill_element_0index", "reset_arrays",
           "Crop"]


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


def _crop_window(op: str, shape, like, offset, h_w, center_crop: bool):
    """(top, left, height, width) of a Crop of an NCHW ``shape``: the size from ``like``'s
    last two axes or ``h_w``; the corner from ``offset`` or the centre."""
    if len(shape) != 4:
        raise ShapeError(f"{op}: data must be 4-D (batch, channel, height, width), got "
                         f"shape {tuple(shape)}")
    if like is not None:
        if len(like) < 2:
            raise ShapeError(f"{op}: the crop_like input must have height and width axes, "
                             f"got shape {tuple(like)}")
        h, w = int(like[-2]), int(like[-1])
    else:
        h, w = (int(v) for v in h_w)
    H, W = int(shape[2]), int(shape[3])
    if not (0 < h <= H and 0 < w <= W):
        raise ShapeError(f"{op}: crop size (h, w)=({h}, {w}) must be positive and fit the "
                         f"data's ({H}, {W}); give h_w or a second input (crop_like)")
    if center_crop:
        return (H - h) // 2, (W - w) // 2, h, w
    top, left = (int(v) for v in offset)
    if not (0 <= top <= H - h and 0 <= left <= W - w):
        raise ShapeError(f"{op}: offset=({top}, {left}) leaves no room for a ({h}, {w}) crop "
                         f"of ({H}, {W}); it must be at most ({H - h}, {W - w})")
    return top, left, h, w


def Crop(*data: NDArray, offset: Sequence[int] = (0, 0), h_w: Sequence[int] = (0, 0),
         center_crop: bool = False, num_args: Optional[int] = None,
         out: Optional[NDArray] = None, name: Optional[str] = None) -> NDArray:
    """MXNet's deprecated ``Crop``: the window of height and width ``h_w`` (or those of a
    second input, ``crop_like``) of an NCHW array, at ``offset`` ``(y, x)`` or centred.
    A slice, so its gradient pads back with zeros (the ``crop_like`` input gets none).

    Examples
    --------
    >>> import mxgrad as mx
    >>> x = mx.nd.arange(16).reshape((1, 1, 4, 4))
    >>> mx.nd.Crop(x, h_w=(2, 2), center_crop=True).asnumpy()[0, 0]
    array([[ 5.,  6.],
           [ 9., 10.]], dtype=float32)
    >>> mx.nd.Crop(x, mx.nd.zeros((1, 1, 1, 3)), num_args=2, offset=(3, 1)).shape
    (1, 1, 1, 3)
    """
    if num_args is not None and int(num_args) != len(data):
        raise ShapeError(f"Crop: num_args={num_args} but {len(data)} inputs given")
    if len(data) not in (1, 2):
        raise ShapeError(f"Crop: takes the data and at most one crop_like input, got "
                         f"{len(data)} inputs")
    for i, a in enumerate(data):
        if not isinstance(a, NDArray):
            raise DTypeError(f"Crop: input {i} must be an NDArray, got {type(a).__name__}")
    x = data[0]
    like = data[1].shape if len(data) > 1 else None
    top, left, h, w = _crop_window("Crop", x.shape, like, offset, h_w, bool(center_crop))
    res = slice_axis(slice_axis(x, 2, top, top + h), 3, left, left + w)
    return res if out is None else write_out(out, res)


def _crop_shape(kw, ins, outs):
    """Crop's shape rule: batch and channels of the data, height and width of ``h_w`` or
    of the crop_like input."""
    d = ins[0]
    like = ins[1] if len(ins) > 1 else None
    hw = None
    if len(ins) > 1:
        if like is not None and len(like) >= 2 and like[-2] >= 0 and like[-1] >= 0:
            hw = tuple(like[-2:])
    else:
        hw = _sr.as_tuple(kw.get("h_w"), 2)
    if d is None or hw is None:
        return list(ins), list(outs)
    return list(ins), [_sr.merge(outs[0], (d[0], d[1]) + hw)]


mxnet_op("Crop", None, shape=_crop_shape)

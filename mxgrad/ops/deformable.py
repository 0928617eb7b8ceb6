"""Deformable convolutions (Dai et al. 2017; Zhu et al. 2019 for the modulated one) as
MXNet 1.9's ``nd.contrib.DeformableConvolution`` and
``nd.contrib.ModulatedDeformableConvolution`` (2-D, ``NCHW``).

Each kernel tap of each output position reads the input bilinearly at its regular place
plus a learned ``offset`` (and, modulated, scaled by a ``mask``); the sampled columns then
meet the weight in one matrix product per group. Everything is written with mxgrad ops
around constant corner indices, so gradients reach data, offset, mask, weight and bias to
any order.

``offset`` is ``(N, 2 * num_deformable_group * kh * kw, Ho, Wo)``: per deformable group,
per tap ``k = i * kw + j``, channel ``2k`` moves the row and ``2k + 1`` the column;
``mask`` is ``(N, num_deformable_group * kh * kw, Ho, Wo)``. As in MXNet's CPU kernels,
``DeformableConvolution`` samples only points with ``0 <= y < H`` and ``0 <= x < W``
(clamped to the last row/column), ``ModulatedDeformableConvolution`` reads zero for
corners outside the image.

Examples
--------
>>> import mxgrad as mx
>>> x = mx.nd.arange(16).reshape((1, 1, 4, 4))
>>> w = mx.nd.ones((1, 1, 2, 2))
>>> off = mx.nd.zeros((1, 8, 3, 3))                  # zero offsets: a plain convolution
>>> y = mx.nd.contrib.DeformableConvolution(x, off, w, kernel=(2, 2), num_filter=1,
...                                         no_bias=True)
>>> y[0, 0, 0].asnumpy().tolist()
[10.0, 14.0, 18.0]
"""
from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np

from ..base import DTypeError, ShapeError, StateError
from .._engine.ndarray import NDArray, wrap
from ._mxnet_op import flag_unset, mxnet_op, optional_inputs
from .conv import _conv_osize, _conv_shape
from .im2col import _geometry
from .indexing import take
from .linalg import dot
from .shape import concat, reshape, slice_axis, transpose

__all__ = ["DeformableConvolution", "ModulatedDeformableConvolution"]


def _arr(x, op: str, arg: str) -> NDArray:
    if not isinstance(x, NDArray):
        raise DTypeError(f"{op}: {arg} must be an NDArray, got {type(x).__name__}")
    return x


def _sample_columns(x: NDArray, offset: NDArray, mask: Optional[NDArray], dg: int,
                    kernel, stride, dilate, pad, osize, clamp: bool) -> NDArray:
    """The deformable im2col: ``(N, C * kh * kw, Ho * Wo)`` in im2col's order."""
    n, c, h, w = x.shape
    kh, kw = kernel
    k, ho, wo = kh * kw, osize[0], osize[1]
    cg = c // dg
    dt = x.dtype
    # regular sampling places (K, Ho, Wo), then the learned offsets added
    ii, jj = np.divmod(np.arange(k), kw)
    base_h = (ii * dilate[0] - pad[0])[:, None, None] + (np.arange(ho) * stride[0])[:, None]
    base_w = (jj * dilate[1] - pad[1])[:, None, None] + (np.arange(wo) * stride[1])[None, :]
    off = reshape(offset, (n * dg, k, 2, ho, wo))
    py = reshape(slice_axis(off, axis=2, begin=0, end=1), (n * dg, k, ho, wo)) \
        + wrap(base_h.astype(dt))
    px = reshape(slice_axis(off, axis=2, begin=1, end=2), (n * dg, k, ho, wo)) \
        + wrap(base_w.astype(dt))
    yv, xv = py._data, px._data
    y0 = np.floor(yv).astype(np.int64)
    x0 = np.floor(xv).astype(np.int64)
    if clamp:
        # MXNet's deformable_im2col: only 0 <= y < H, 0 <= x < W; a corner past the last
        # row/column is that row/column (and the fraction there is dropped)
        valid = (yv >= 0) & (yv < h) & (xv >= 0) & (xv < w)
        ylast, xlast = y0 >= h - 1, x0 >= w - 1
        wy1 = (py - wrap(y0.astype(dt))) * wrap((~ylast).astype(dt))
        wx1 = (px - wrap(x0.astype(dt))) * wrap((~xlast).astype(dt))
        y0 = np.minimum(y0, h - 1)
        x0 = np.minimum(x0, w - 1)
        y1, x1 = np.minimum(y0 + 1, h - 1), np.minimum(x0 + 1, w - 1)
    else:
        valid = np.ones(yv.shape, dtype=bool)
        wy1 = py - wrap(y0.astype(dt))
        wx1 = px - wrap(x0.astype(dt))
        y1, x1 = y0 + 1, x0 + 1
    # one row of Cg channels per pixel of each (sample, deformable group)
    rows = reshape(transpose(reshape(x, (n * dg, cg, h * w)), axes=(0, 2, 1)),
                   (n * dg * h * w, cg))
    start = (np.arange(n * dg) * h * w).reshape(-1, 1, 1, 1)
    cols: Any = None
    for yy, wy in ((y0, 1 - wy1), (y1, wy1)):
        for xx, wx in ((x0, 1 - wx1), (x1, wx1)):
            inside = valid & (yy >= 0) & (yy <= h - 1) & (xx >= 0) & (xx <= w - 1)
            flat = np.where(inside, start + yy.clip(0, h - 1) * w + xx.clip(0, w - 1), 0)
            vals = take(rows, wrap(flat.reshape(-1)))                 # (N*dg*K*Ho*Wo, Cg)
            coef = reshape(wy * wx * wrap(inside.astype(dt)), (-1, 1))
            term = vals * coef
            cols = term if cols is None else cols + term
    if mask is not None:
        cols = cols * reshape(mask, (-1, 1))
    cols = transpose(reshape(cols, (n, dg, k, ho * wo, cg)), axes=(0, 1, 4, 2, 3))
    return reshape(cols, (n, c * k, ho * wo))


def _deformable(op: str, data, offset, mask, weight, bias, kernel, stride, dilate, pad,
                num_filter, num_group, num_deformable_group, no_bias, layout) -> NDArray:
    x = _arr(data, op, "data")
    off = _arr(offset, op, "offset")
    wt = _arr(weight, op, "weight")
    if layout not in (None, "NCHW"):
        raise StateError(f"{op}: layout must be 'NCHW' (the only one MXNet implements), "
                         f"got {layout!r}")
    if x.ndim != 4:
        raise ShapeError(f"{op}: data must be (N, C, H, W), got {tuple(x.shape)}")
    kernel, stride, dilate, pad = _geometry(op, 2, kernel, stride, dilate, pad)
    g, dg, f = int(num_group), int(num_deformable_group), int(num_filter)
    n, c, h, w = x.shape
    if f < 1 or g < 1 or dg < 1 or c % g or f % g or c % dg:
        raise ShapeError(f"{op}: num_filter ({f}) and the {c} data channels must divide by "
                         f"num_group ({g}), and the channels by num_deformable_group ({dg})")
    osize = _conv_osize((h, w), kernel, stride, pad, dilate)
    if min(osize) < 1:
        raise ShapeError(f"{op}: kernel {kernel} with dilate {dilate} does not fit data "
                         f"{(h, w)} padded by {pad}")
    k = kernel[0] * kernel[1]
    want = (n, 2 * dg * k) + tuple(osize)
    if tuple(off.shape) != want:
        raise ShapeError(f"{op}: offset must be {want} (N, 2 * num_deformable_group * kh * "
                         f"kw, Ho, Wo), got {tuple(off.shape)}")
    if mask is not None:
        m = _arr(mask, op, "mask")
        if tuple(m.shape) != (n, dg * k) + tuple(osize):
            raise ShapeError(f"{op}: mask must be {(n, dg * k) + tuple(osize)}, got "
                             f"{tuple(m.shape)}")
    if tuple(wt.shape) != (f, c // g) + tuple(kernel):
        raise ShapeError(f"{op}: weight must be {(f, c // g) + tuple(kernel)}, got "
                         f"{tuple(wt.shape)}")
    cols = _sample_columns(x, off, mask, dg, kernel, stride, dilate, pad, osize,
                           clamp=mask is None)
    cgk, fg = c // g * k, f // g
    w2 = reshape(wt, (f, cgk))
    outs = []
    for gi in range(g):
        col_g = transpose(slice_axis(cols, axis=1, begin=gi * cgk, end=(gi + 1) * cgk),
                          axes=(0, 2, 1))                                 # (N, L, CgK)
        w_g = slice_axis(w2, axis=0, begin=gi * fg, end=(gi + 1) * fg)    # (F/G, CgK)
        outs.append(transpose(dot(col_g, w_g, transpose_b=True), axes=(0, 2, 1)))
    out = outs[0] if g == 1 else concat(*outs, dim=1)
    out = reshape(out, (n, f) + tuple(osize))
    if not no_bias:
        if bias is None:
            raise StateError(f"{op}: bias is required unless no_bias=True")
        b = _arr(bias, op, "bias")
        if tuple(b.shape) != (f,):
            raise ShapeError(f"{op}: bias must be ({f},), got {tuple(b.shape)}")
        out = out + reshape(b, (1, f, 1, 1))
    return out


def DeformableConvolution(data: NDArray, offset: NDArray, weight: NDArray,
                          bias: Optional[NDArray] = None, kernel: Sequence[int] = (),
                          stride: Sequence[int] = (), dilate: Sequence[int] = (),
                          pad: Sequence[int] = (), num_filter: int = 1, num_group: int = 1,
                          num_deformable_group: int = 1, workspace: int = 1024,
                          no_bias: bool = False, layout: Optional[str] = None,
                          **kwargs: Any) -> NDArray:
    """2-D deformable convolution of ``data`` ``(N, C, H, W)``, sampling each kernel tap at
    its place plus ``offset`` (layout in the module docstring); ``weight`` is
    ``(num_filter, C / num_group, kh, kw)``, ``bias`` ``(num_filter,)``.

    >>> import mxgrad as mx
    >>> x = mx.nd.ones((1, 2, 3, 3))
    >>> off = mx.nd.zeros((1, 2, 3, 3))                     # 1x1 kernel: 2 offsets
    >>> mx.nd.contrib.DeformableConvolution(x, off, mx.nd.ones((4, 2, 1, 1)), mx.nd.ones(4),
    ...     kernel=(1, 1), num_filter=4).shape
    (1, 4, 3, 3)
    """
    return _deformable("DeformableConvolution", data, offset, None, weight, bias, kernel,
                       stride, dilate, pad, num_filter, num_group, num_deformable_group,
                       no_bias, layout)


def _deformable_shape(n_extra: int):
    """The shape rule of a deformable convolution with ``n_extra`` inputs (offsets, masks)
    between its data and its weight."""
    def rule(kw, ins, outs):
        """A deformable convolution's shapes: a Convolution's (weight and bias from the
        data's channels and the attributes, the output's spatial sizes), the offsets (and
        masks) as given."""
        conv_ins, new_outs = _conv_shape(kw, [ins[0]] + list(ins[1 + n_extra:]), outs)
        return [conv_ins[0]] + list(ins[1:1 + n_extra]) + conv_ins[1:], new_outs
    return rule


mxnet_op("_contrib_DeformableConvolution", ("data", "offset", "weight", "bias"),
         nd_name="contrib.DeformableConvolution", params=("weight", "bias"),
         shape=_deformable_shape(1), takes=optional_inputs(bias=flag_unset("no_bias")))


def ModulatedDeformableConvolution(data: NDArray, offset: NDArray, mask: NDArray,
                                   weight: NDArray, bias: Optional[NDArray] = None,
                                   kernel: Sequence[int] = (), stride: Sequence[int] = (),
                                   dilate: Sequence[int] = (), pad: Sequence[int] = (),
                                   num_filter: int = 1, num_group: int = 1,
                                   num_deformable_group: int = 1, workspace: int = 1024,
                                   no_bias: bool = False, im2col_step: int = 64,
                                   layout: Optional[str] = None, **kwargs: Any) -> NDArray:
    """Deformable convolution v2: as :func:`DeformableConvolution`, each sampled value
    scaled by ``mask`` ``(N, num_deformable_group * kh * kw, Ho, Wo)``; corners outside
    the image read zero.

    >>> import mxgrad as mx
    >>> x = mx.nd.ones((1, 1, 2, 2))
    >>> y = mx.nd.contrib.ModulatedDeformableConvolution(
    ...     x, mx.nd.zeros((1, 2, 2, 2)), mx.nd.ones((1, 1, 2, 2)) * 0.5,
    ...     mx.nd.ones((1, 1, 1, 1)), kernel=(1, 1), num_filter=1, no_bias=True)
    >>> y.asnumpy().ravel().tolist()
    [0.5, 0.5, 0.5, 0.5]
    """
    if mask is None:
        raise StateError("ModulatedDeformableConvolution: mask is required")
    return _deformable("ModulatedDeformableConvolution", data, offset, mask, weight, bias,
                       kernel, stride, dilate, pad, num_filter, num_group,
                       num_deformable_group, no_bias, layout)


mxnet_op("_contrib_ModulatedDeformableConvolution", ("data", "offset", "mask", "weight", "bias"),
         nd_name="contrib.ModulatedDeformableConvolution", params=("weight", "bias"),
         shape=_deformable_shape(2), takes=optional_inputs(bias=flag_unset("no_bias")))

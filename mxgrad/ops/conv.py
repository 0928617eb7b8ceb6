"""Convolution, transposed convolution (``Deconvolution``) and pooling.

Everything is built from a few private linear (or bilinear) ops whose gradients are
each other, so every public op is differentiable to any order:

* ``_conv(x, w, b)``      -- convolution (cross-correlation), im2col + one batched GEMM;
* ``_deconv(u, w, b)``    -- its transpose w.r.t. the data (GEMM + col2im, or with
  stride 1 a convolution with the flipped kernel);
* ``_wgrad(x, g)``        -- the weight gradient, bilinear in ``x`` and ``g``;
* ``_winsum``/``_winsum_t`` -- window sums (sum/avg pooling) and their transpose;
* ``_gather``/``_scatter``  -- read at / add to fixed flat positions (max pooling
  reads each window at its argmax, its gradient scatters back there).

Gradient table (``g`` is the output gradient)::

    _conv:    dx = _deconv(g, w)     dw = _wgrad(x, g)      db = sum(g)
    _deconv:  du = _conv(g, w)       dw = _wgrad(g, u)      db = sum(g)
    _wgrad:   dx = _deconv(g, gw)    dg = _conv(x, gw)
    _winsum <-> _winsum_t,  _gather <-> _scatter

The loops that remain run over kernel offsets (``kh*kw`` iterations), never over
pixels, channels or the batch.

Product layouts (the GEMMs are most of the time of a convolution network, so each
product is laid out for OpenBLAS; all layouts compute the same sums, the order of the
float additions differs):

* forward: per sample ``w (F, C*K) @ col (C*K, L)`` in one batched ``matmul``, the
  output already in (N, F, *spatial) order;
* weight gradient: per sample and summed, from the forward's own columns when it kept
  them (a recorded convolution whose weight needs a gradient and whose columns fit in
  ``_KEEP_COLUMNS_MAX``); else from columns built again: for wide layers one GEMM
  ``col (C*K, N*L) @ g (N*L, F)`` over the batch and the positions at once (columns
  built batch-in-the-middle), else per sample and summed;
* data gradient with stride 1: a convolution of the padded output gradient with the
  flipped kernel (im2col gathers; no col2im scatter-add), when its columns are not much
  larger than col2im's; otherwise one GEMM then col2im, batch-last.

Columns are built a chunk of the batch at a time, at most ``_COLUMNS_CHUNK`` (8 MB) of
them, each chunk used by its product while still in cache: a VGG-style layer on 112x112
images (batch 64) has ~460 MB of columns; built whole they made its training step ~25%
slower and doubled its peak memory. Only columns kept for the weight gradient (below)
are built whole.

Max pooling fixes each window's argmax at forward time (kept in the op's attributes,
like a saved value), so its gradient and every higher one are the linear
gather/scatter pair.
"""
from __future__ import annotations

from typing import Any, Optional

import functools
import itertools
import os

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ..base import DTypeError, ShapeError, StateError
from .._engine.ndarray import NDArray
from . import _shape_rules as _sr
from ._apply import records
from ._mxnet_op import flag_unset, mxnet_op, optional_inputs
from ._core import Op, PerCall, defop, call, call1, as_array, inplace_apply
from .reduce import sum as _nd_sum, reshape_exact
from .._typing import Shape
from .._threads import matmul as _matmul   # np.matmul on the thread policy's threads

__all__ = ["Convolution", "Deconvolution", "Pooling"]

_ALL = slice(None)


# ----------------------------------------------------------------- helpers
def _tuple(v, n: int, default: int, what: str, op: str):
    """MXNet shape parameter -> tuple of ``n`` ints (``()``/None -> default)."""
    if v is None or (isinstance(v, (tuple, list)) and len(v) == 0):
        return (default,) * n
    if isinstance(v, (int, np.integer)):
        return (int(v),) * n
    v = tuple(int(a) for a in v)
    if len(v) != n:
        raise StateError(f"{op}: {what}={v} has {len(v)} dimensions but kernel has {n}; "
                         f"give one value per spatial dimension")
    return v


def _prod(seq) -> int:
    r = 1
    for s in seq:
        r *= int(s)
    return r


def _pad_input(x, pad, padr=None, value=0):
    """Pad the spatial axes of ``x`` (N, C, *spatial): ``pad`` before, ``padr`` after."""
    if padr is None:
        padr = pad
    if not any(pad) and not any(padr):
        return x
    shape = x.shape[:2] + tuple(s + a + b for s, a, b in zip(x.shape[2:], pad, padr))
    xp = np.full(shape, value, dtype=x.dtype) if value != 0 else np.zeros(shape, x.dtype)
    xp[(_ALL, _ALL) + tuple(slice(a, a + s) for a, s in zip(pad, x.shape[2:]))] = x
    return xp


def _windows(xp, kernel, stride, dilate, osize, first=2):
    """Strided view (N, C, *osize, *kernel) of the windows of a padded input whose spatial
    axes start at ``first``; (C, *osize, N, *kernel) for a batch-last one (``first=1``)."""
    nd = len(kernel)
    dk = tuple(d * (k - 1) + 1 for k, d in zip(kernel, dilate))
    axes = tuple(range(first, first + nd))
    w = sliding_window_view(xp, dk, axis=axes)
    sl = (_ALL,) * first + tuple(slice(0, (o - 1) * s + 1, s) for o, s in zip(osize, stride)) \
        + (_ALL,) * (xp.ndim - first - nd) + tuple(slice(None, None, d) for d in dilate)
    return w[sl]


def _columns_view(xp, kernel, stride, dilate, osize, batch_mid=False):
    """The columns of a padded input as a strided view (N, C, *kernel, *osize); with
    ``batch_mid`` (C, *kernel, N, *osize). Nothing is copied."""
    nd = len(kernel)
    w = _windows(xp, kernel, stride, dilate, osize)
    if batch_mid:
        perm = (1,) + tuple(range(2 + nd, 2 + 2 * nd)) + (0,) + tuple(range(2, 2 + nd))
    else:
        perm = (0, 1) + tuple(range(2 + nd, 2 + 2 * nd)) + tuple(range(2, 2 + nd))
    return w.transpose(perm)


def _batch_chunks(n, sample_bytes):
    """(start, stop) ranges of the batch whose columns take at most ``_COLUMNS_CHUNK``
    bytes (one sample at least): columns are built and used a chunk at a time, so they
    stay in cache and never take more memory than that (a 16->32 channel 3x3 layer on
    112x112 images at batch 128 has 925 MB of columns: its forward took 480 ms with them
    built whole, 358 ms a sample at a time)."""
    nb = max(1, _COLUMNS_CHUNK // max(1, sample_bytes))
    return [(s, min(n, s + nb)) for s in range(0, n, nb)]


def _im2col_batch_last(x, pad, kernel, stride, dilate, osize):
    """Contiguous batch-last columns (C, *kernel, *osize, N) of an unpadded input (N, C,
    *spatial): the input is padded into a batch-last copy, so the window copies run over
    rows of windows times the batch instead of one short row."""
    nd = len(kernel)
    N, C = x.shape[:2]
    xt = np.zeros((C,) + tuple(s + 2 * p for s, p in zip(x.shape[2:], pad)) + (N,), x.dtype)
    xt[(_ALL,) + tuple(slice(p, p + s) for p, s in zip(pad, x.shape[2:]))] = \
        np.moveaxis(x, 0, -1)
    w = _windows(xt, kernel, stride, dilate, osize, first=1)
    perm = (0,) + tuple(range(2 + nd, 2 + 2 * nd)) + tuple(range(1, 2 + nd))
    return np.ascontiguousarray(w.transpose(perm))


def _batch_last_pays(n, osize) -> bool:
    """Whether the forward's columns are better built batch-last: output rows narrower
    than ``_BATCH_LAST_WIDTH`` make the per-sample copies run in short stretches, and a
    batch of ``_BATCH_LAST_MIN_BATCH`` or more makes the batch-last ones long (LeNet's
    second layer: the columns in a third of the time). Wider rows already copy fast per
    sample, and the per-sample product suits them better."""
    return osize[-1] < _BATCH_LAST_WIDTH and n >= _BATCH_LAST_MIN_BATCH


def _offsets(kernel):
    return itertools.product(*[range(k) for k in kernel])


def _offset_slices(off, dilate, stride, isize):
    return tuple(slice(o * d, o * d + (n - 1) * s + 1, s)
                 for o, d, s, n in zip(off, dilate, stride, isize))


def _conv_osize(isize, kernel, stride, pad, dilate):
    return tuple((x + 2 * p - d * (k - 1) - 1) // s + 1
                 for x, k, s, p, d in zip(isize, kernel, stride, pad, dilate))


def _bias_shape(b, nd):
    return (1, b.shape[0]) + (1,) * nd


def _add_bias(y, b):
    if b is not None:
        y += b.reshape(_bias_shape(b, y.ndim - 2)).astype(y.dtype, copy=False)
    return y


# --------------------------------------------------------- the three conv ops
# Choice of product layouts (measured with bench/bench_gluon.py --conv, OpenBLAS, one
# thread); tests set them to force each path.
_SINGLE_GEMM_MIN = 16   # weight gradient as one GEMM when both its sides are this wide
_GATHER_RATIO = 1.25    # stride-1 data gradient as a convolution up to this column ratio
_COLUMNS_CHUNK = 8 << 20  # bytes of im2col columns built at a time (see _batch_chunks)


def keep_columns_limit() -> int:
    """Bytes of im2col columns one recorded convolution may keep for its weight gradient:
    ``MXGRAD_CONV_KEEP_COLUMNS_MB`` in the environment (read at import; default 16, 0
    keeps none).

    Keeping them spares the backward a second im2col (about 10% of a LeNet training step)
    at the price of holding the columns from forward to backward (a 3x3 convolution's
    columns are 9x its input, a 5x5's 25x): LeNet's step peaks at ~31 MB instead of ~14 MB.
    Larger columns are always rebuilt in the backward.

    >>> keep_columns_limit() >= -1
    True
    """
    raw = os.environ.get("MXGRAD_CONV_KEEP_COLUMNS_MB", "16")
    try:
        mb = float(raw)
    except ValueError:
        raise StateError(f"MXGRAD_CONV_KEEP_COLUMNS_MB={raw!r} is not a number: set it to "
                         f"the megabytes of im2col columns a convolution may keep for its "
                         f"weight gradient (default 16, 0 keeps none)") from None
    return int(mb * (1 << 20)) if mb > 0 else -1


_KEEP_COLUMNS_MAX = keep_columns_limit()
# The forward builds batch-last columns for output rows narrower than _BATCH_LAST_WIDTH
# and batches of at least _BATCH_LAST_MIN_BATCH (see _batch_last_pays).
_BATCH_LAST_WIDTH = 16
_BATCH_LAST_MIN_BATCH = 16


class _KeptColumns(PerCall):
    """The im2col columns of one recorded convolution's forward, per sample (N, G,
    C/G*K, L) or batch-last (G, C/G*K, L*N), held in its node's attributes until its
    weight gradient takes them (once: a second backward through a retained graph
    rebuilds them)."""
    __slots__ = ("cols", "batch_last")

    def __init__(self):
        self.cols = None
        self.batch_last = False

    def take(self):
        cols, self.cols = self.cols, None
        return cols


def _keep_columns(x, w, stride, pad, dilate) -> Optional[_KeptColumns]:
    """A holder for the forward's columns when the convolution builds columns (not a
    plain 1x1 product) and they fit in ``_KEEP_COLUMNS_MAX``; else None."""
    kernel = w.shape[2:]
    if _prod(kernel) == 1 and not any(pad) and all(s == 1 for s in stride):
        return None
    osize = _conv_osize(x.shape[2:], kernel, stride, pad, dilate)
    nbytes = x.shape[0] * x.shape[1] * _prod(kernel) * _prod(osize) * np.dtype(x.dtype).itemsize
    return _KeptColumns() if nbytes <= _KEEP_COLUMNS_MAX else None


def _conv_fwd(x, w, b, stride, pad, dilate, groups, keep=None):
    """y[n, f, o] = sum_{c, k} xpad[n, g*Cg + c, o*s + k*d] * w[f, c, k] (+ b[f]);
    with ``keep`` (a :class:`_KeptColumns`) the columns are left in it."""
    N, C = x.shape[:2]
    F = w.shape[0]
    kernel = w.shape[2:]
    osize = _conv_osize(x.shape[2:], kernel, stride, pad, dilate)
    G = groups
    K = _prod(kernel)
    L = _prod(osize)
    w2 = w.reshape(G, F // G, (C // G) * K).astype(x.dtype, copy=False)
    if K == 1 and not any(pad) and all(s == 1 for s in stride):
        y = _matmul(w2, x.reshape(N, G, C // G, L)).reshape((N, F) + osize)
        return _add_bias(y, b)
    # kept columns are built whole (keeping them was judged worth their memory)
    chunks = [(0, N)] if keep is not None else _batch_chunks(N, C * K * L * x.itemsize)
    if _batch_last_pays(N, osize):
        y = np.empty((N, F) + osize, dtype=x.dtype)
        for s, e in chunks:
            col = _im2col_batch_last(x[s:e], pad, kernel, stride, dilate, osize)
            col = col.reshape(G, (C // G) * K, L * (e - s))
            if keep is not None:
                keep.cols, keep.batch_last = col, True
            y[s:e] = np.moveaxis(_matmul(w2, col).reshape((F,) + osize + (e - s,)), -1, 0)
        return _add_bias(y, b)
    view = _columns_view(_pad_input(x, pad), kernel, stride, dilate, osize)
    buf = np.empty((chunks[0][1],) + view.shape[1:], dtype=x.dtype)
    y = np.empty((N, G, F // G, L), dtype=x.dtype)
    for s, e in chunks:
        col = buf[:e - s]
        np.copyto(col, view[s:e])
        col = col.reshape(e - s, G, (C // G) * K, L)
        if keep is not None:          # one chunk: the whole batch's columns
            keep.cols = col
        _matmul(w2, col, out=y[s:e])
    return _add_bias(y.reshape((N, F) + osize), b)


def _col2im_t(col, buf, isize, kernel, stride, dilate):
    """Add batch-last columns (C, *kernel, *isize, N) into a batch-last padded image
    ``buf`` (C, *padded osize, N) -- the adjoint of im2col. Batch-last makes each strided
    add run over long contiguous stretches (a row of windows times the batch)."""
    for off in _offsets(kernel):
        buf[(_ALL,) + _offset_slices(off, dilate, stride, isize) + (_ALL,)] += \
            col[(_ALL,) + off]


def _gather_cheaper(cin, cout, kernel, pad, dilate, isize, osize):
    """Whether a stride-1 transposed convolution is better done as a convolution with
    the flipped kernel: only if its padding fits (p <= d*(k-1)) and its columns
    (cin * K * prod(osize)) are not much larger than col2im's (cout * K * prod(isize))."""
    if any(p > d * (k - 1) for k, d, p in zip(kernel, dilate, pad)):
        return False
    return cin * _prod(osize) <= _GATHER_RATIO * cout * _prod(isize)


def _deconv_fwd(u, w, b, stride, pad, dilate, groups, osize):
    """Transposed convolution: the adjoint of ``_conv_fwd`` (w.r.t. its data) whose data
    has spatial size ``osize``; ``w`` has shape (C_in, F/groups, *kernel)."""
    N, Cin = u.shape[:2]
    isize = u.shape[2:]
    G = groups
    Fg = w.shape[1]
    kernel = w.shape[2:]
    K = _prod(kernel)
    L = _prod(isize)
    F = G * Fg
    if all(s == 1 for s in stride) and _gather_cheaper(Cin, F, kernel, pad, dilate,
                                                        isize, osize):
        # stride 1: the transposed convolution is a convolution of ``u`` padded by
        # d*(k-1)-p with the flipped kernel (channels swapped within each group), so
        # im2col gathers and no col2im scatter-add is needed
        wf = w.reshape((G, Cin // G, Fg, K)).transpose(0, 2, 1, 3)[..., ::-1]
        wf = wf.reshape((F, Cin // G) + tuple(kernel))
        pad2 = tuple(d * (k - 1) - p for k, d, p in zip(kernel, dilate, pad))
        return _conv_fwd(u, wf, b, stride, pad2, dilate, groups)
    w2 = w.reshape(G, Cin // G, Fg * K).astype(u.dtype, copy=False)
    if K == 1 and not any(pad) and all(s == 1 for s in stride) and tuple(osize) == isize:
        y = _matmul(w2.transpose(0, 2, 1), u.reshape(N, G, Cin // G, L))
        return _add_bias(y.reshape((N, F) + isize), b)
    # batch-last, a chunk of the batch at a time (at most _COLUMNS_CHUNK bytes of
    # columns): one GEMM (G, Fg*K, Cin/G) @ (G, Cin/G, L*n), then col2im
    full = tuple(max(o + 2 * p, (i - 1) * s + d * (k - 1) + 1)
                 for o, p, i, s, d, k in zip(osize, pad, isize, stride, dilate, kernel))
    crop = (_ALL,) + tuple(slice(p, p + o) for p, o in zip(pad, osize)) + (_ALL,)
    wt = w2.transpose(0, 2, 1)
    y = np.empty((N, F) + tuple(osize), dtype=u.dtype)
    for s, e in _batch_chunks(N, F * K * L * u.itemsize):
        ut = np.ascontiguousarray(np.moveaxis(u[s:e], 0, -1)).reshape(G, Cin // G, L * (e - s))
        col = _matmul(wt, ut).reshape((F,) + kernel + isize + (e - s,))
        buf = np.zeros((F,) + full + (e - s,), dtype=u.dtype)
        _col2im_t(col, buf, isize, kernel, stride, dilate)
        y[s:e] = np.moveaxis(buf[crop], -1, 0)
    return _add_bias(y, b)


def _wgrad_fwd(x, g, stride, pad, dilate, groups, kernel):
    """dw[f, c, k] = sum_{n, o} g[n, f, o] * xpad[n, g*Cg + c, o*s + k*d]."""
    N, C = x.shape[:2]
    F = g.shape[1]
    osize = g.shape[2:]
    G = groups
    K = _prod(kernel)
    L = _prod(osize)
    wshape = (F, C // G) + tuple(kernel)
    CgK = (C // G) * K
    if K == 1 and not any(pad) and all(s == 1 for s in stride) and osize == x.shape[2:]:
        return _wgrad_per_sample(x.reshape(N, G, C // G, L), g, wshape)
    xp = _pad_input(x, pad)
    chunks = _batch_chunks(N, C * K * L * x.itemsize)
    dw = None
    if min(CgK, F // G) >= _SINGLE_GEMM_MIN:
        # one GEMM per group contracting over (batch, positions) at once (per chunk of the
        # batch): the columns are built batch-in-the-middle (same cost as im2col), only g
        # is transposed. Not for thin products (few channels), where OpenBLAS does
        # better per sample.
        view = _columns_view(xp, kernel, stride, dilate, osize, batch_mid=True)
        gt = np.ascontiguousarray(np.moveaxis(g, 0, 1).astype(x.dtype, copy=False))
        gt = gt.reshape(G, F // G, N * L)
        for s, e in chunks:
            col = np.ascontiguousarray(view[(_ALL,) * (1 + len(kernel)) + (slice(s, e),)])
            part = _matmul(col.reshape(G, CgK, (e - s) * L),
                             gt[:, :, s * L:e * L].transpose(0, 2, 1))
            dw = part if dw is None else np.add(dw, part, out=dw)
        return dw.transpose(0, 2, 1).reshape(wshape)
    view = _columns_view(xp, kernel, stride, dilate, osize)
    for s, e in chunks:
        col = np.ascontiguousarray(view[s:e]).reshape(e - s, G, CgK, L)
        part = _wgrad_per_sample(col, g[s:e], wshape)
        dw = part if dw is None else np.add(dw, part, out=dw)
    return dw


def _wgrad_batch_last(col, g, wshape):
    """The weight gradient from batch-last columns (G, C/G*K, L*N): one GEMM per group
    contracting over positions and batch at once."""
    G = col.shape[0]
    gt = np.ascontiguousarray(np.moveaxis(g, 0, -1).astype(col.dtype, copy=False))
    gt = gt.reshape(G, g.shape[1] // G, col.shape[-1])
    return _matmul(gt, col.transpose(0, 2, 1)).reshape(wshape)


def _wgrad_per_sample(col, g, wshape):
    """The weight gradient from columns (N, G, C/G*K, L): one GEMM per sample, then a
    sum over the batch (faster than a tensordot over (batch, positions), which has to
    copy both operands into transposed layouts)."""
    N, G = col.shape[:2]
    g2 = g.reshape(N, G, g.shape[1] // G, col.shape[-1]).astype(col.dtype, copy=False)
    return _matmul(g2, col.transpose(0, 1, 3, 2)).sum(axis=0).reshape(wshape)


def _sum_axes(nd):
    return (0,) + tuple(range(2, 2 + nd))


def _conv(x, w, b, stride, pad, dilate, groups):
    attrs = {"stride": stride, "pad": pad, "dilate": dilate, "groups": groups}
    if records(w):
        keep = _keep_columns(x, w, stride, pad, dilate)
        if keep is not None:
            attrs["keep"] = keep
    return call(_CONV, (x, w, b), attrs)


def _deconv(u, w, b, stride, pad, dilate, groups, osize):
    return call(_DECONV, (u, w, b), {"stride": stride, "pad": pad, "dilate": dilate,
                                     "groups": groups, "osize": tuple(osize)})


def _wgrad(x, g, stride, pad, dilate, groups, kernel):
    return call(_WGRAD, (x, g), {"stride": stride, "pad": pad, "dilate": dilate,
                                 "groups": groups, "kernel": tuple(kernel)})


def _bias_tangent(t, nd):
    return reshape_exact(t, (1, t.shape[0]) + (1,) * nd)


# _conv(x, w, b); ``keep``: the forward's columns, when it kept them
def _conv_gx(g, y, x, w, b, stride, pad, dilate, groups, keep=None):
    return _deconv(g, w, None, stride, pad, dilate, groups, x.shape[2:])


def _conv_gw(g, y, x, w, b, stride, pad, dilate, groups, keep=None):
    cols = None if keep is None else keep.take()
    if cols is not None and type(g) is np.ndarray:
        # an ordinary backward: the kept columns are constants. (With create_graph the
        # gradient must stay a function of x, so the columns are rebuilt in the graph.)
        if keep.batch_last:
            return _wgrad_batch_last(cols, g, w.shape)
        return _wgrad_per_sample(cols, g, w.shape)
    return _wgrad(x, g, stride, pad, dilate, groups, w.shape[2:])


def _conv_gb(g, y, x, w, b, stride, pad, dilate, groups, keep=None):
    return _nd_sum(g, axis=_sum_axes(len(stride)))


def _conv_tx(t, y, x, w, b, stride, pad, dilate, groups, keep=None):
    return _conv(t, w, None, stride, pad, dilate, groups)


def _conv_tw(t, y, x, w, b, stride, pad, dilate, groups, keep=None):
    return _conv(x, t, None, stride, pad, dilate, groups)


def _conv_tb(t, y, x, w, b, stride, pad, dilate, groups, keep=None):
    return _bias_tangent(t, len(stride))


_CONV = defop("Convolution", _conv_fwd, [_conv_gx, _conv_gw, _conv_gb],
              [_conv_tx, _conv_tw, _conv_tb], save=(0, 1))


# _deconv(u, w, b)
def _deconv_gu(g, y, u, w, b, stride, pad, dilate, groups, osize):
    return _conv(g, w, None, stride, pad, dilate, groups)


def _deconv_gw(g, y, u, w, b, stride, pad, dilate, groups, osize):
    return _wgrad(g, u, stride, pad, dilate, groups, w.shape[2:])


def _deconv_gb(g, y, u, w, b, stride, pad, dilate, groups, osize):
    return _nd_sum(g, axis=_sum_axes(len(stride)))


_DECONV = defop("Deconvolution", _deconv_fwd, [_deconv_gu, _deconv_gw, _deconv_gb], [
    lambda t, y, u, w, b, **a: _deconv(t, w, None, **a),
    lambda t, y, u, w, b, **a: _deconv(u, t, None, **a),
    lambda t, y, u, w, b, **a: _bias_tangent(t, len(a["stride"])),
], save=(0, 1))


# _wgrad(x, g) -> dw
def _wgrad_gx(gw, y, x, g, stride, pad, dilate, groups, kernel):
    return _deconv(g, gw, None, stride, pad, dilate, groups, x.shape[2:])


def _wgrad_gg(gw, y, x, g, stride, pad, dilate, groups, kernel):
    return _conv(x, gw, None, stride, pad, dilate, groups)


_WGRAD = defop("Convolution_weight_grad", _wgrad_fwd, [_wgrad_gx, _wgrad_gg], [
    lambda t, y, x, g, **a: _wgrad(t, g, **a),
    lambda t, y, x, g, **a: _wgrad(x, t, **a),
])


# ------------------------------------------------------------------ layouts
def _transpose_fwd(x, axes):
    return np.ascontiguousarray(np.transpose(x, axes))


def _inverse(axes):
    inv = [0] * len(axes)
    for i, a in enumerate(axes):
        inv[a] = i
    return tuple(inv)


_TRANSPOSE = defop("transpose", _transpose_fwd,
                   [lambda g, y, x, axes: _transpose(g, _inverse(axes))],
                   [lambda t, y, x, axes: _transpose(t, axes)], save=())


def _transpose(x, axes):
    return call1(_TRANSPOSE, x, {"axes": tuple(axes)})


def _to_channel_first(nd):
    return (0, nd + 1) + tuple(range(1, nd + 1))


def _to_channel_last(nd):
    return (0,) + tuple(range(2, nd + 2)) + (1,)


_LAYOUTS = {"NCW": (1, False), "NCHW": (2, False), "NCDHW": (3, False),
            "NWC": (1, True), "NHWC": (2, True), "NDHWC": (3, True)}


def _check_layout(layout, nd, op):
    """Return True for a channel-last layout; validate against the kernel's dims."""
    if layout is None:
        return False
    if layout not in _LAYOUTS:
        raise StateError(f"{op}: unknown layout {layout!r}; use one of "
                         f"{', '.join(_LAYOUTS)}")
    lnd, last = _LAYOUTS[layout]
    if lnd != nd:
        raise StateError(f"{op}: layout {layout!r} is for {lnd}-D data but the kernel "
                         f"has {nd} dimensions")
    return last


def _finish(y, out):
    """Honour MXNet's ``out=``: write the result into ``out`` and return it."""
    if out is None:
        return y
    if not isinstance(out, NDArray):
        raise StateError(f"out= must be an NDArray, got {type(out).__name__}")
    return inplace_apply(out, y if isinstance(y, NDArray) else NDArray(y))


def _as_input(x, op, arg="data"):
    if type(x) is np.ndarray or isinstance(x, NDArray):
        return x
    return as_array(x, op, arg)


# ------------------------------------------------------------- Convolution
def _conv_params(op, data, weight, kernel, stride, dilate, pad, nd_hint=None):
    if kernel is None or (isinstance(kernel, (tuple, list)) and len(kernel) == 0):
        if weight is None:
            raise StateError(f"{op}: 'kernel' is required")
        kernel = tuple(weight.shape[2:])
    kernel = _tuple(kernel, len(kernel) if isinstance(kernel, (tuple, list)) else 1, 1,
                    "kernel", op)
    nd = len(kernel)
    if nd not in (1, 2, 3):
        raise StateError(f"{op}: kernel={kernel}: only 1-D, 2-D and 3-D kernels are "
                         f"supported")
    if any(k <= 0 for k in kernel):
        raise StateError(f"{op}: kernel={kernel} must be positive")
    stride = _tuple(stride, nd, 1, "stride", op)
    dilate = _tuple(dilate, nd, 1, "dilate", op)
    pad = _tuple(pad, nd, 0, "pad", op)
    if any(s <= 0 for s in stride) or any(d <= 0 for d in dilate):
        raise StateError(f"{op}: stride={stride} and dilate={dilate} must be positive")
    if any(p < 0 for p in pad):
        raise StateError(f"{op}: pad={pad} must not be negative")
    if data.ndim != nd + 2:
        raise ShapeError(f"{op}: data of shape {tuple(data.shape)} must be {nd + 2}-D "
                         f"(batch, channel, {', '.join('spatial' for _ in range(nd))}) "
                         f"for the {nd}-D kernel {kernel}")
    return kernel, stride, dilate, pad


def _check_weight_shape(op, weight, data, expected, layout, last, nd, num_filter,
                        num_group, kernel) -> None:
    """Raise naming the expected weight layout (``layout``, then the kernel) when the
    weight's shape is not ``expected`` (shapes shown in the data's own layout)."""
    if tuple(weight.shape) == expected:
        return
    shown = expected if not last else (expected[0],) + tuple(kernel) + (expected[1],)
    got = tuple(weight.shape) if not last else \
        tuple(weight.shape[i] for i in _to_channel_last(nd)) \
        if weight.ndim == nd + 2 else tuple(weight.shape)
    raise ShapeError(f"{op}: weight has shape {got}, expected {shown} = ({layout}, *kernel) "
                     f"for data of shape "
                     f"{tuple(data.shape) if not last else _cl_shape(data.shape)}, "
                     f"num_filter={num_filter}, num_group={num_group}, kernel={kernel}")


def _check_groups(op, C, num_filter, num_group, what="num_filter"):
    if num_group <= 0:
        raise StateError(f"{op}: num_group={num_group} must be positive")
    if C % num_group:
        raise ShapeError(f"{op}: the {C} input channels cannot be split into "
                         f"num_group={num_group} groups")
    if num_filter % num_group:
        raise ShapeError(f"{op}: {what}={num_filter} is not divisible by "
                         f"num_group={num_group}")


def _check_dtypes(op, data, allowed=None, **params) -> None:
    """MXNet's type rules for a layer: ``data`` and each given parameter share one dtype
    ("This layer requires uniform type"; ``allowed``, when given, lists the parameter
    dtypes accepted instead, e.g. float32 statistics for float16 BatchNorm data), and
    the data is floating-point (MXNet refuses integer data: a ``uint8`` image would wrap
    around instead of being computed). Nothing is promoted silently."""
    dt = np.dtype(data.dtype)
    ok = (dt,) if allowed is None else tuple(np.dtype(a) for a in allowed)
    for name, p in params.items():
        if p is not None and np.dtype(p.dtype) not in ok:
            pt = np.dtype(p.dtype)
            fix = (f"cast the data (x.astype('{pt}'))" if dt.kind != "f" else
                   f"cast the data (x.astype('{pt}')) or the layer (net.cast('{dt}'))")
            raise DTypeError(f"{op}: this layer requires uniform type: data is {dt} but "
                             f"{name} is {pt}; {fix}")
    if dt.kind != "f":
        raise DTypeError(f"{op}: only floating-point data is supported, got {dt}; cast it "
                         f"first (e.g. x.astype('float32'), then scale uint8 images by "
                         f"1/255 if needed)")


def _check_bias(op, bias, num_filter):
    if bias is not None and tuple(bias.shape) != (num_filter,):
        raise ShapeError(f"{op}: bias has shape {tuple(bias.shape)}, expected "
                         f"({num_filter},) (one value per output channel)")


def Convolution(data: Optional[NDArray] = None, weight: Optional[NDArray] = None,
                bias: Optional[NDArray] = None, kernel: Optional[Shape] = None, stride: Shape = (),
                dilate: Shape = (), pad: Shape = (), num_filter: Optional[int] = None,
                num_group: int = 1, workspace: int = 1024, no_bias: bool = False,
                cudnn_tune: Optional[str] = None, cudnn_off: bool = False,
                layout: Optional[str] = None, out: Optional[NDArray] = None,
                name: Optional[str] = None, **kwargs: Any) -> NDArray:
    """N-D convolution (cross-correlation) of (N+2)-D input, as MXNet's
    ``Convolution``.

    For 2-D data of shape ``(batch, channel, height, width)`` and a weight of shape
    ``(num_filter, channel/num_group, kernel[0], kernel[1])``::

        out[n, f, i, j] = bias[f] + sum_{c, a, b} data[n, c', i*s0 + a*d0 - p0,
                                                       j*s1 + b*d1 - p1] * weight[f, c, a, b]

    with ``c'`` running over the channels of ``f``'s group. The output size per
    spatial dimension is ``floor((x + 2*p - d*(k-1) - 1)/s) + 1``.

    Parameters
    ----------
    data : NDArray
        ``(batch, channel, width)``, ``(batch, channel, height, width)`` or 3-D
        ``(batch, channel, depth, height, width)`` (channel-last with ``layout``).
    weight : NDArray
        ``(num_filter, channel/num_group, *kernel)``.
    bias : NDArray, optional
        ``(num_filter,)``; ignored when ``no_bias=True``.
    kernel : tuple of int
        Kernel size (taken from ``weight`` when omitted).
    stride, dilate, pad : tuple of int, optional
        Default 1, 1 and 0 in each dimension.
    num_filter : int
        Number of output channels (taken from ``weight`` when omitted).
    num_group : int, default 1
        Split channels and filters into this many groups.
    no_bias : bool, default False
    layout : str, optional
        ``NCW``/``NCHW``/``NCDHW`` (default) or channel-last ``NWC``/``NHWC``/``NDHWC``
        (then the weight is ``(num_filter, *kernel, channel/num_group)``).
    workspace, cudnn_tune, cudnn_off
        Accepted for compatibility; ignored.

    Returns
    -------
    NDArray
        ``(batch, num_filter, *out_spatial)``, the dtype of ``data``.

    Examples
    --------
    >>> import numpy as np, mxgrad as mx
    >>> x = mx.nd.array(np.arange(16).reshape(1, 1, 4, 4))
    >>> w = mx.nd.ones((1, 1, 2, 2))
    >>> mx.nd.Convolution(x, w, kernel=(2, 2), num_filter=1, no_bias=True, stride=(2, 2))
    <BLANKLINE>
    [[[[10. 18.]
       [42. 50.]]]]
    <NDArray 1x1x2x2 @cpu(0)>
    """
    op = "Convolution"
    if data is None or weight is None:
        raise StateError(f"{op}: 'data' and 'weight' are required")
    data = _as_input(data, op)
    weight = _as_input(weight, op, "weight")
    kernel, stride, dilate, pad = _conv_params(op, data, weight, kernel, stride, dilate,
                                               pad)
    nd = len(kernel)
    last = _check_layout(layout, nd, op)
    if last:
        data = _transpose(data, _to_channel_first(nd))
        if weight.ndim == nd + 2:
            weight = _transpose(weight, _to_channel_first(nd))
    C = data.shape[1]
    if num_filter is None:
        num_filter = weight.shape[0] if weight.ndim else 0
    num_filter, num_group = int(num_filter), int(num_group)
    _check_groups(op, C, num_filter, num_group)
    _check_weight_shape(op, weight, data, (num_filter, C // num_group) + kernel,
                        "num_filter, channels/num_group", last, nd, num_filter, num_group,
                        kernel)
    osize = _conv_osize(data.shape[2:], kernel, stride, pad, dilate)
    if any(o <= 0 for o in osize):
        dk = tuple(d * (k - 1) + 1 for k, d in zip(kernel, dilate))
        raise ShapeError(f"{op}: the (dilated) kernel {dk} does not fit in the input of "
                         f"spatial shape {tuple(data.shape[2:])} padded by {pad}")
    if no_bias:
        bias = None
    elif bias is not None:
        bias = _as_input(bias, op, "bias")
        _check_bias(op, bias, num_filter)
    _check_dtypes(op, data, weight=weight, bias=bias)
    y = _conv(data, weight, bias, stride, pad, dilate, num_group)
    if last:
        y = _transpose(y, _to_channel_last(nd))
    return _finish(y, out)


def _layout_axes(kw, nsp: int):
    """(channel axis, spatial axes) of a convolution/pooling layout."""
    layout = kw.get("layout") or ("NC" + "DHW"[3 - nsp:] if nsp <= 3 else None)
    if layout is None:
        return 1, tuple(range(2, 2 + nsp))
    return layout.index("C"), tuple(i for i, c in enumerate(layout) if c in "DHW")


def _conv_attrs(kw):
    """A (de)convolution's kernel, its number of spatial axes, stride, dilation and pad
    (0 read as 1 for the first two), groups, filters, channel axis and spatial axes."""
    k = _sr.as_tuple(kw["kernel"])
    nsp = len(k)
    s = tuple(x or 1 for x in _sr.as_tuple(kw.get("stride"), nsp))
    dl = tuple(x or 1 for x in _sr.as_tuple(kw.get("dilate"), nsp))
    p = _sr.as_tuple(kw.get("pad"), nsp)
    g, f = int(kw.get("num_group", 1)), int(kw["num_filter"])
    c_ax, sp = _layout_axes(kw, nsp)
    return k, nsp, s, dl, p, g, f, c_ax, sp


def _conv_shape(kw, ins, outs):
    """Convolution's shapes: the weight and bias from the data's channels and the
    attributes, the output's spatial sizes from the data's, the data's from the output's
    (stride 1) and its channels from the weight."""
    k, nsp, s, dl, p, g, f, c_ax, sp = _conv_attrs(kw)
    d, o = ins[0], outs[0]
    w = ins[1] if len(ins) > 1 else None
    nd_ = nsp + 2
    if d is not None and len(d) != nd_:
        raise ShapeError(f"Convolution: data of shape {_sr.fmt(d)} must be {nd_}-D (batch, "
                         f"channel and {nsp} spatial axes) for the {nsp}-D kernel {k}")
    d = _sr.merge(d, (-1,) * nd_) if d is not None or o is not None else None
    o = _sr.merge(o, (-1,) * nd_) if d is not None else o
    if d is None:
        return list(ins), [o]
    c = d[c_ax]
    if c < 0 and w is not None and w[1 if c_ax == 1 else -1] >= 0:
        c = w[1 if c_ax == 1 else -1] * g
    wshape = (f, c // g if c >= 0 else -1) + k if c_ax == 1 else \
        (f,) + k + (c // g if c >= 0 else -1,)
    dk = [dl[i] * (k[i] - 1) + 1 for i in range(nsp)]
    out = [-1] * nd_
    out[0], out[c_ax] = d[0], f
    new_d = list(d)
    new_d[c_ax] = c
    for i, ax in enumerate(sp):
        if d[ax] >= 0:
            out[ax] = (d[ax] + 2 * p[i] - dk[i]) // s[i] + 1
        elif o is not None and o[ax] >= 0 and s[i] == 1:
            new_d[ax] = o[ax] - 1 + dk[i] - 2 * p[i]
    if o is not None:
        new_d[0] = _sr.dim(new_d[0], o[0])
    o = _sr.merge(o, tuple(out))
    new_ins = [tuple(new_d), wshape] + ([(f,)] if len(ins) > 2 else [])
    return new_ins, [o]


mxnet_op("Convolution", ("data", "weight", "bias"), params=("weight", "bias"),
         shape=_conv_shape, takes=optional_inputs(bias=flag_unset("no_bias")))


def _cl_shape(shape):
    nd = len(shape) - 2
    return tuple(shape[i] for i in _to_channel_last(nd))


# ----------------------------------------------------------- Deconvolution
def Deconvolution(data: Optional[NDArray] = None, weight: Optional[NDArray] = None,
                  bias: Optional[NDArray] = None, kernel: Optional[Shape] = None,
                  stride: Shape = (), dilate: Shape = (), pad: Shape = (), adj: Shape = (),
                  target_shape: Shape = (), num_filter: Optional[int] = None, num_group: int = 1,
                  workspace: int = 512, no_bias: bool = True, cudnn_tune: Optional[str] = None,
                  cudnn_off: bool = False, layout: Optional[str] = None,
                  out: Optional[NDArray] = None, name: Optional[str] = None, **kwargs: Any
                  ) -> NDArray:
    """Transposed convolution (the gradient of ``Convolution`` w.r.t. its data), as
    MXNet's ``Deconvolution``.

    The weight has shape ``(channel, num_filter/num_group, *kernel)`` (the same array
    a ``Convolution`` from ``num_filter`` to ``channel`` channels would use). Each
    spatial output size is ``s*(x-1) + d*(k-1) + 1 - 2*p + adj``; with
    ``target_shape`` the padding and ``adj`` are computed to reach it (MXNet's rule:
    ``total = s*(x-1) + d*(k-1) + 1 - target``, ``pad = ceil(total/2)``,
    ``adj = total % 2``). Note MXNet's default ``no_bias=True`` here.

    Parameters
    ----------
    data : NDArray
        ``(batch, channel, *spatial)``.
    weight : NDArray
        ``(channel, num_filter/num_group, *kernel)``.
    bias : NDArray, optional
        ``(num_filter,)``, used only when ``no_bias=False``.
    kernel, stride, dilate, pad, adj, target_shape : tuple of int
        ``adj`` must be smaller than ``stride`` in each dimension.
    num_filter : int
        Output channels (taken from ``weight`` when omitted).
    num_group : int, default 1
    no_bias : bool, default True
    layout : str, optional
        ``NCW``/``NCHW``/``NCDHW`` or channel-last.

    Examples
    --------
    >>> import mxgrad as mx
    >>> x = mx.nd.array([[[1., 2.]]])
    >>> w = mx.nd.array([[[1., 1., 1.]]])
    >>> mx.nd.Deconvolution(x, w, kernel=(3,), stride=(2,), num_filter=1)
    <BLANKLINE>
    [[[1. 1. 3. 2. 2.]]]
    <NDArray 1x1x5 @cpu(0)>
    """
    op = "Deconvolution"
    if data is None or weight is None:
        raise StateError(f"{op}: 'data' and 'weight' are required")
    data = _as_input(data, op)
    weight = _as_input(weight, op, "weight")
    kernel, stride, dilate, pad = _conv_params(op, data, weight, kernel, stride, dilate,
                                               pad)
    nd = len(kernel)
    adj = _tuple(adj, nd, 0, "adj", op)
    last = _check_layout(layout, nd, op)
    if last:
        data = _transpose(data, _to_channel_first(nd))
        if weight.ndim == nd + 2:
            weight = _transpose(weight, _to_channel_first(nd))
    C = data.shape[1]
    isize = tuple(data.shape[2:])
    dk = tuple(d * (k - 1) + 1 for k, d in zip(kernel, dilate))
    if target_shape is not None and len(tuple(target_shape)) and any(target_shape):
        target = _tuple(target_shape, nd, 0, "target_shape", op)
        pad_l, adj_l = [], []
        for i in range(nd):
            total = stride[i] * (isize[i] - 1) + dk[i] - target[i]
            if total < 0:
                raise ShapeError(f"{op}: target_shape={target} is too big for input of "
                                 f"spatial shape {isize} (at most "
                                 f"{tuple(s * (x - 1) + k for s, x, k in zip(stride, isize, dk))})")
            adj_l.append(total % 2)
            pad_l.append((total + 1) // 2)
        pad, adj = tuple(pad_l), tuple(adj_l)
    for a, s in zip(adj, stride):
        if a < 0 or a >= s:
            how = (f"target_shape={tuple(target_shape)} needs adj={adj}, which"
                   if target_shape is not None and len(tuple(target_shape))
                   and any(target_shape) else f"adj={adj}")
            raise StateError(f"{op}: {how} must be smaller than stride={stride} "
                             f"(and not negative)")
    if num_filter is None:
        num_filter = weight.shape[1] * int(num_group) if weight.ndim > 1 else 0
    num_filter, num_group = int(num_filter), int(num_group)
    _check_groups(op, C, num_filter, num_group)
    _check_weight_shape(op, weight, data, (C, num_filter // num_group) + kernel,
                        "channels, num_filter/num_group", last, nd, num_filter, num_group,
                        kernel)
    osize = tuple(s * (x - 1) + k - 2 * p + a
                  for s, x, k, p, a in zip(stride, isize, dk, pad, adj))
    if any(o <= 0 for o in osize):
        raise ShapeError(f"{op}: output spatial shape {osize} is not positive for input "
                         f"{isize}, kernel {kernel}, stride {stride}, pad {pad}, adj {adj}")
    if no_bias:
        bias = None
    elif bias is not None:
        bias = _as_input(bias, op, "bias")
        _check_bias(op, bias, num_filter)
    _check_dtypes(op, data, weight=weight, bias=bias)
    y = _deconv(data, weight, bias, stride, pad, dilate, num_group, osize)
    if last:
        y = _transpose(y, _to_channel_last(nd))
    return _finish(y, out)


def _deconv_shape(kw, ins, outs):
    """Deconvolution's shapes: the weight and bias from the data's channels and the
    attributes, the output's spatial sizes from the data's (or ``target_shape``)."""
    k, nsp, s, dl, p, g, f, c_ax, sp = _conv_attrs(kw)
    adj = _sr.as_tuple(kw.get("adj"), nsp)
    target = _sr.as_tuple(kw.get("target_shape"))
    d, o = ins[0], outs[0]
    if d is None:
        return list(ins), [o]
    c = d[c_ax]
    wshape = (c, f // g) + k if c_ax == 1 else (c,) + k + (f // g,)
    out = [-1] * (nsp + 2)
    out[0], out[c_ax] = d[0], f
    for i, ax in enumerate(sp):
        if target and target[i] > 0:
            out[ax] = target[i]
        elif d[ax] >= 0:
            out[ax] = s[i] * (d[ax] - 1) + dl[i] * (k[i] - 1) + 1 - 2 * p[i] + adj[i]
    new_ins = [d, wshape] + ([(f,)] if len(ins) > 2 else [])
    return new_ins, [_sr.merge(o, tuple(out))]


mxnet_op("Deconvolution", ("data", "weight", "bias"), params=("weight", "bias"),
         shape=_deconv_shape,    # MXNet's Deconvolution has no bias unless no_bias=False
         takes=optional_inputs(bias=flag_unset("no_bias", default=True)))


# ------------------------------------------------------------------ pooling
@functools.lru_cache(maxsize=32)
def _pool_divisor(isize, osize, kernel, stride, pad, include_pad, dtype):
    """Per-output-position reciprocal window counts (avg pooling), MXNet's rule: with
    ``count_include_pad`` a window counts the padding but not what lies beyond it. A
    scalar when every window has the same count. Cached per geometry (read-only)."""
    if (include_pad or not any(pad)) and \
            all((o - 1) * s + k <= x + 2 * p for o, s, k, x, p in
                zip(osize, stride, kernel, isize, pad)):
        return np.dtype(dtype).type(1.0 / _prod(kernel))
    div = None
    for d, (x, o, k, s, p) in enumerate(zip(isize, osize, kernel, stride, pad)):
        start = np.arange(o) * s - p
        end = np.minimum(start + k, x + p)
        if include_pad:
            cnt = end - start
        else:
            cnt = np.minimum(end, x) - np.maximum(start, 0)
        cnt = np.maximum(cnt, 1).astype(np.float64)
        shape = [1] * len(isize)
        shape[d] = o
        cnt = cnt.reshape(shape)
        div = cnt if div is None else div * cnt
    r = (1.0 / div).astype(dtype)[None, None]
    r.flags.writeable = False
    return r


def _winsum_fwd(x, kernel, stride, pad, padr, isize, osize, avg, include_pad):
    """Sum (or average) of every pooling window."""
    if all(o == 1 for o in osize) and tuple(kernel) == tuple(isize) and not any(pad) \
            and not any(padr):
        y = x.sum(axis=tuple(range(2, x.ndim)), keepdims=True, dtype=x.dtype)
    else:
        xp = _pad_input(x, pad, padr)
        y = None
        for off in _offsets(kernel):
            v = xp[(_ALL, _ALL) + _offset_slices(off, (1,) * len(kernel), stride, osize)]
            y = v.copy() if y is None else np.add(y, v, out=y)
    if avg:
        y *= _pool_divisor(isize, osize, kernel, stride, pad, include_pad, y.dtype)
    return y


def _winsum_t_fwd(g, kernel, stride, pad, padr, isize, osize, avg, include_pad):
    """The transpose of ``_winsum_fwd``: spread each window's gradient over it."""
    if not any(pad) and not any(padr) and tuple(stride) == tuple(kernel) and \
            all(o * k == x for o, k, x in zip(osize, kernel, isize)):
        # the windows tile the input exactly: each element is written once (scaled in
        # the same pass), no zeroed buffer to add into
        out = np.empty(g.shape[:2] + tuple(isize), dtype=g.dtype)
        div = _pool_divisor(isize, osize, kernel, stride, pad, include_pad, g.dtype) \
            if avg else None
        for off in _offsets(kernel):
            dst = out[(_ALL, _ALL) + _offset_slices(off, (1,) * len(kernel), stride, osize)]
            if avg:
                np.multiply(g, div, out=dst)
            else:
                dst[...] = g
        return out
    if avg:
        g = g * _pool_divisor(isize, osize, kernel, stride, pad, include_pad, g.dtype)
    if all(o == 1 for o in osize) and tuple(kernel) == tuple(isize) and not any(pad) \
            and not any(padr):
        out = np.empty(g.shape[:2] + tuple(isize), dtype=g.dtype)
        out[...] = g
        return out
    full = tuple(x + a + b for x, a, b in zip(isize, pad, padr))
    buf = np.zeros(g.shape[:2] + full, dtype=g.dtype)
    for off in _offsets(kernel):
        buf[(_ALL, _ALL) + _offset_slices(off, (1,) * len(kernel), stride, osize)] += g
    crop = (_ALL, _ALL) + tuple(slice(p, p + x) for p, x in zip(pad, isize))
    out = buf[crop]
    return out if out.shape == buf.shape else np.ascontiguousarray(out)


_WINSUM: Op = defop("Pooling", _winsum_fwd,
                [lambda g, y, x, **a: call1(_WINSUM_T, g, a)],
                [lambda t, y, x, **a: call1(_WINSUM, t, a)], save=())
_WINSUM_T: Op = defop("Pooling_backward", _winsum_t_fwd,
                  [lambda g, y, x, **a: call1(_WINSUM, g, a)],
                  [lambda t, y, x, **a: call1(_WINSUM_T, t, a)], save=())


def _gather_fwd(x, idx, valid, ishape, oshape, unique, windows=None):
    """Read ``x`` (of shape ``ishape``) at flat positions ``idx`` (shape ``oshape``)."""
    y = np.take(x.reshape(-1), idx)     # take: about twice as fast as flat[idx]
    if valid is not None:
        y[~valid] = 0
    return y


def _scatter_fwd(g, idx, valid, ishape, oshape, unique, windows=None):
    """Add ``g`` (shape ``oshape``) into zeros of ``ishape`` at flat positions ``idx``.
    Positions may repeat unless ``unique``; with ``windows`` (overlapping pooling
    windows: each position is its window's kernel offset) the sums are strided adds, one
    per offset, instead of a bincount over the whole input (several times faster, and no
    float64 input-sized temporary)."""
    if not unique and windows is not None:
        return _scatter_windows(g, valid, ishape, *windows)
    size = _prod(ishape)
    if valid is not None:
        idx, g = idx[valid], g[valid]
    if unique:
        out = np.zeros(size, dtype=g.dtype)
        out[idx.reshape(-1)] = g.reshape(-1)
    else:
        out = np.bincount(idx.reshape(-1), weights=g.reshape(-1), minlength=size)
        out = out.astype(g.dtype, copy=False)
    return out.reshape(ishape)


def _scatter_windows(g, valid, ishape, arg, kernel, stride, pad, padr, osize):
    """``_scatter_fwd`` for pooling windows: add ``g`` into a padded zero image at each
    window's offset ``arg`` (one strided add per kernel offset), then crop the padding."""
    nd = len(kernel)
    ones = (1,) * nd
    if valid is not None:
        g = g * valid
    buf = np.zeros(tuple(ishape[:2]) + tuple(x + a + b for x, a, b in
                                             zip(ishape[2:], pad, padr)), dtype=g.dtype)
    part = np.empty(g.shape, dtype=g.dtype)
    hit = np.empty(g.shape, dtype=bool)
    for k, off in enumerate(_offsets(kernel)):
        np.equal(arg, k, out=hit)
        np.multiply(g, hit, out=part)
        buf[(_ALL, _ALL) + _offset_slices(off, ones, stride, osize)] += part
    out = buf[(_ALL, _ALL) + tuple(slice(p, p + x) for p, x in zip(pad, ishape[2:]))]
    return out if out.shape == buf.shape else np.ascontiguousarray(out)


_GATHER: Op = defop("Pooling", _gather_fwd,
                [lambda g, y, x, **a: call1(_SCATTER, g, a)],
                [lambda t, y, x, **a: call1(_GATHER, t, a)], save=())
_SCATTER: Op = defop("Pooling_backward", _scatter_fwd,
                 [lambda g, y, x, **a: call1(_GATHER, g, a)],
                 [lambda t, y, x, **a: call1(_SCATTER, t, a)], save=())


def _lowest(dtype):
    return np.finfo(dtype).min if dtype.kind == "f" else np.iinfo(dtype).min


class _MaxIndex(PerCall):
    """Where one max pooling's forward found its maxima, kept in its node's attributes for
    the gradient (and tangent) rules: the ``_GATHER``/``_SCATTER`` attributes of that
    call (flat indices, validity mask, overlapping windows' kernel offsets). Made by the
    forward from the input, so a planned graph runs max pooling as an op step."""
    __slots__ = ("attrs",)

    def __init__(self):
        self.attrs = None


def _maxpool_fwd(x, kernel, stride, pad, padr, osize, index=None):
    """Max of every pooling window (a window wholly in the padding gives the dtype's
    lowest value); where the maxima lie goes into ``index`` (a :class:`_MaxIndex`)."""
    idx, valid, arg = _argmax_positions(x, kernel, stride, pad, padr, osize)
    unique = all(s >= k for s, k in zip(stride, kernel))
    attrs = {"idx": idx, "valid": valid, "ishape": x.shape, "oshape": idx.shape,
             "unique": unique}
    if not unique and arg is not None:   # overlapping windows: see _scatter_windows
        attrs["windows"] = (arg, kernel, stride, pad, padr, osize)
    if index is not None:
        index.attrs = attrs
    y = np.take(x.reshape(-1), idx)
    if valid is not None:
        y[~valid] = _lowest(x.dtype)
    return y


# the rules read only where the forward found the maxima (its ``index``), not the input
_MAXPOOL: Op = defop("Pooling", _maxpool_fwd,
                     [lambda g, y, x, index, **a: call1(_SCATTER, g, index.attrs)],
                     [lambda t, y, x, index, **a: call1(_GATHER, t, index.attrs)], save=())


def _argmax_positions(x, kernel, stride, pad, padr, osize):
    """Flat input index of the (first) maximum of every window, a validity mask (None
    when every window holds at least one real element), and the kernel offset (in
    ``_offsets`` order) of each maximum (None for a global pooling)."""
    N, C = x.shape[:2]
    isize = x.shape[2:]
    nd = len(kernel)
    if all(o == 1 for o in osize) and tuple(kernel) == tuple(isize) and not any(pad) \
            and not any(padr):
        local = x.reshape(N, C, -1).argmax(axis=-1).reshape((N, C) + (1,) * nd)
        base = (np.arange(N * C) * _prod(isize)).reshape((N, C) + (1,) * nd)
        return local + base, None, None
    fill = -np.inf if x.dtype.kind == "f" else _lowest(x.dtype)
    xp = _pad_input(x, pad, padr, fill)
    offsets = list(_offsets(kernel))
    ones = (1,) * nd
    K = len(offsets)
    adt = np.int8 if K < 128 else (np.int16 if K < 32768 else np.int32)
    best = arg = None
    # running maximum over the kernel offsets; a strict '>' keeps the first maximum.
    # Branch-free updates: where v > best, arg becomes k, which exceeds every earlier
    # offset, so arg = maximum(arg, k * (v > best)) (masked copies with random masks
    # are several times slower). Two scratch buffers serve every offset.
    for k, off in enumerate(offsets):
        v = xp[(_ALL, _ALL) + _offset_slices(off, ones, stride, osize)]
        if best is None:
            best = v.copy()
            arg = np.zeros(best.shape, dtype=adt)
            m = np.empty(best.shape, dtype=bool)
            mk = np.empty(best.shape, dtype=adt)
        else:
            np.greater(v, best, out=m)
            np.maximum(best, v, out=best)
            np.multiply(m, adt(k), out=mk)
            np.maximum(arg, mk, out=arg)
    base, starts = _window_starts(N, C, tuple(isize), tuple(osize), tuple(stride),
                                  tuple(pad))
    strides = _plane_strides(isize)
    koff = np.array([sum(o * s for o, s in zip(off, strides)) for off in offsets],
                    dtype=base.dtype)
    flat = base + np.take(koff, arg)
    if not any(pad) and all((o - 1) * s + k <= x for o, s, k, x in
                            zip(osize, stride, kernel, isize)):
        return flat, None, arg
    # windows that may touch padding: check each position is inside the input
    valid = None
    offs = np.array(offsets, dtype=np.int64)
    for d in range(nd):
        pos = starts[d] + np.take(offs[:, d], arg)
        ok = (pos >= 0) & (pos < isize[d])
        valid = ok if valid is None else valid & ok
    if valid.all():
        return flat, None, arg
    return np.where(valid, flat, 0), valid, arg


def _plane_strides(isize):
    nd = len(isize)
    strides = [1] * nd
    for d in range(nd - 2, -1, -1):
        strides[d] = strides[d + 1] * isize[d + 1]
    return strides


@functools.lru_cache(maxsize=16)
def _window_starts(N, C, isize, osize, stride, pad):
    """Flat index of every window's first element (cached per geometry: a training loop
    pools the same shapes every step), and the per-dimension start positions."""
    nd = len(isize)
    total = N * C * _prod(isize)
    dt = np.int32 if total < 2 ** 31 else np.int64
    strides = _plane_strides(isize)
    ones = (1,) * nd
    base = (np.arange(N * C, dtype=dt) * _prod(isize)).reshape((N, C) + ones)
    starts = []
    for d in range(nd):
        shape = [1] * (nd + 2)
        shape[2 + d] = osize[d]
        st = (np.arange(osize[d], dtype=dt) * stride[d] - pad[d]).reshape(shape)
        starts.append(st)
        base = base + st * dt(strides[d])
    base.flags.writeable = False
    return base, tuple(starts)


_POOL_TYPES = ("max", "avg", "sum", "lp")
_CONVENTIONS = ("valid", "full", "same")


def Pooling(data: Optional[NDArray] = None, kernel: Shape = (), pool_type: str = "max",
            global_pool: bool = False, cudnn_off: bool = False, pooling_convention: str = "valid",
            stride: Shape = (), pad: Shape = (), p_value: Optional[int] = None,
            count_include_pad: Optional[bool] = None, layout: Optional[str] = None,
            out: Optional[NDArray] = None, name: Optional[str] = None, **kwargs: Any) -> NDArray:
    """Max, average, sum or Lp pooling over 1-D, 2-D or 3-D windows, as MXNet's
    ``Pooling``.

    The output size per spatial dimension is ``floor((x + 2*p - k)/s) + 1`` with
    ``pooling_convention='valid'`` (default), ``ceil((x + 2*p - k)/s) + 1`` with
    ``'full'`` (Caffe's rule; the last window may hang over the padded input) and
    ``ceil(x/s)`` with ``'same'`` (no padding allowed). ``global_pool=True`` pools
    each channel over its whole spatial extent (kernel, stride and pad ignored).

    Max pooling never picks padding; its gradient goes to the first maximum of each
    window and accumulates where windows overlap. Average pooling divides by the
    window size counting padding (``count_include_pad=True``, the default) but not
    what a ``'full'`` window hangs over; ``count_include_pad=False`` counts only real
    elements. Lp pooling (``p_value`` 1, 2 or 3) is ``(sum x**p)**(1/p)``.

    Parameters
    ----------
    data : NDArray
        ``(batch, channel, *spatial)`` (channel-last with ``layout='NWC'`` etc.).
    kernel : tuple of int
    pool_type : {'max', 'avg', 'sum', 'lp'}, default 'max'
    global_pool : bool, default False
    pooling_convention : {'valid', 'full', 'same'}, default 'valid'
    stride, pad : tuple of int, optional
        Default 1 and 0 in each dimension.
    p_value : int, optional
        Required for ``pool_type='lp'``.
    count_include_pad : bool, optional
        Default True.
    layout : str, optional
    cudnn_off
        Accepted for compatibility; ignored.

    Examples
    --------
    >>> import numpy as np, mxgrad as mx
    >>> x = mx.nd.array(np.arange(16).reshape(1, 1, 4, 4))
    >>> mx.nd.Pooling(x, kernel=(2, 2), stride=(2, 2))
    <BLANKLINE>
    [[[[ 5.  7.]
       [13. 15.]]]]
    <NDArray 1x1x2x2 @cpu(0)>
    >>> mx.nd.Pooling(x, pool_type='avg', global_pool=True).asnumpy()
    array([[[[7.5]]]], dtype=float32)
    """
    op = "Pooling"
    if data is None:
        raise StateError(f"{op}: 'data' is required")
    data = _as_input(data, op)
    _check_dtypes(op, data)
    if pool_type not in _POOL_TYPES:
        raise StateError(f"{op}: pool_type={pool_type!r}; use one of {_POOL_TYPES}")
    if pooling_convention not in _CONVENTIONS:
        raise StateError(f"{op}: pooling_convention={pooling_convention!r}; use one of "
                         f"{_CONVENTIONS}")
    if global_pool:
        nd = data.ndim - 2
        if nd not in (1, 2, 3):
            raise ShapeError(f"{op}: data of shape {tuple(data.shape)} must be 3-D, 4-D "
                             f"or 5-D (batch, channel, *spatial)")
    else:
        if kernel is None or len(tuple(np.atleast_1d(kernel))) == 0:
            raise StateError(f"{op}: 'kernel' is required unless global_pool=True")
        kernel = tuple(int(k) for k in np.atleast_1d(kernel))
        nd = len(kernel)
        if nd not in (1, 2, 3):
            raise StateError(f"{op}: kernel={kernel}: only 1-D, 2-D and 3-D pooling is "
                             f"supported")
        if data.ndim != nd + 2:
            raise ShapeError(f"{op}: data of shape {tuple(data.shape)} must be "
                             f"{nd + 2}-D (batch, channel, "
                             f"{', '.join('spatial' for _ in range(nd))}) for the "
                             f"{nd}-D kernel {kernel}")
    last = _check_layout(layout, nd, op)
    if last:
        data = _transpose(data, _to_channel_first(nd))
    isize = tuple(data.shape[2:])
    if global_pool:
        kernel, stride, pad = isize, (1,) * nd, (0,) * nd
        osize = (1,) * nd
        padr = pad
    else:
        if any(k <= 0 for k in kernel):
            raise StateError(f"{op}: kernel={kernel} must be positive")
        stride = _tuple(stride, nd, 1, "stride", op)
        pad = _tuple(pad, nd, 0, "pad", op)
        if any(s <= 0 for s in stride):
            raise StateError(f"{op}: stride={stride} must be positive")
        if any(p < 0 for p in pad):
            raise StateError(f"{op}: pad={pad} must not be negative")
        for k, x, p in zip(kernel, isize, pad):
            if k > x + 2 * p:
                raise ShapeError(f"{op}: kernel {kernel} exceeds the input of spatial "
                                 f"shape {isize} padded by {pad}")
        if pooling_convention == "valid":
            osize = tuple((x + 2 * p - k) // s + 1
                          for x, k, s, p in zip(isize, kernel, stride, pad))
        elif pooling_convention == "full":
            osize = tuple(-(-(x + 2 * p - k) // s) + 1
                          for x, k, s, p in zip(isize, kernel, stride, pad))
        else:
            if any(pad):
                raise StateError(f"{op}: pooling_convention='same' does not take pad "
                                 f"(got pad={pad})")
            osize = tuple(-(-x // s) for x, s in zip(isize, stride))
        padr = tuple(max(p, (o - 1) * s + k - x - p)
                     for o, s, k, x, p in zip(osize, stride, kernel, isize, pad))
    include_pad = True if count_include_pad is None else bool(count_include_pad)
    geo = {"kernel": tuple(kernel), "stride": tuple(stride), "pad": tuple(pad),
           "padr": tuple(padr), "isize": isize, "osize": tuple(osize)}
    if pool_type == "max":
        y = call1(_MAXPOOL, data, {"kernel": geo["kernel"], "stride": geo["stride"],
                                   "pad": geo["pad"], "padr": geo["padr"],
                                   "osize": geo["osize"], "index": _MaxIndex()})
    elif pool_type in ("avg", "sum"):
        y = call1(_WINSUM, data, dict(geo, avg=pool_type == "avg", include_pad=include_pad))
    else:
        if p_value is None:
            raise StateError(f"{op}: pool_type='lp' needs p_value (1, 2 or 3)")
        p = int(p_value)
        if p not in (1, 2, 3):
            raise StateError(f"{op}: p_value={p_value} is not supported; use 1, 2 or 3")
        from .elemwise import square, sqrt, cbrt
        if p == 1:
            y = call1(_WINSUM, data, dict(geo, avg=False, include_pad=include_pad))
        elif p == 2:
            y = sqrt(call1(_WINSUM, square(data), dict(geo, avg=False,
                                                       include_pad=include_pad)))
        else:
            y = cbrt(call1(_WINSUM, data * data * data, dict(geo, avg=False,
                                                             include_pad=include_pad)))
    if last:
        y = _transpose(y, _to_channel_last(nd))
    return _finish(y, out)


def _pool_shape(kw, ins, outs):
    """Pooling's shapes: the output's spatial sizes from the data's (1 for a global
    pool); max pooling's hidden workspace output is shaped as the output."""
    d = ins[0]
    if d is None:
        return list(ins), list(outs)
    nsp = len(d) - 2
    c_ax, sp = _layout_axes(kw, nsp)
    out = list(d)
    if kw.get("global_pool"):
        for ax in sp:
            out[ax] = 1
    else:
        k = _sr.as_tuple(kw.get("kernel"), nsp)
        s = tuple(x or 1 for x in _sr.as_tuple(kw.get("stride"), nsp)) or (1,) * nsp
        p = _sr.as_tuple(kw.get("pad"), nsp) or (0,) * nsp
        full = kw.get("pooling_convention", "valid") == "full"
        for i, ax in enumerate(sp):
            if d[ax] < 0:
                continue
            span = d[ax] + 2 * p[i] - k[i]
            out[ax] = (-(-span // s[i]) if full else span // s[i]) + 1
    o = _sr.merge(outs[0], tuple(out))
    return list(ins), [o] + [o] * (len(outs) - 1)


def _pool_outputs(kw):
    """Max pooling has a hidden second output (the workspace MXNet's MKLDNN kernel
    keeps)."""
    return 2 if kw.get("pool_type", "max") == "max" else 1


mxnet_op("Pooling", outputs=_pool_outputs, visible=1, out_names=("output", "workspace"),
         shape=_pool_shape)

"""MXNet operators built from other mxgrad ops: ``moments``, ``L2Normalization``, ``LRN``,
``UpSampling``, ``khatri_rao``, ``identity``, ``diag``, ``cumsum``, ``MakeLoss``,
``all_finite``.

Most are compositions of recorded ops, so their gradients of every order and their
tangents come from the parts. ``diag`` and ``cumsum`` are linear maps declared as ops
whose gradient rules call their adjoint op (so they too differentiate any number of
times); ``MakeLoss`` has MXNet's fixed gradient; ``all_finite`` is not differentiable.

Examples
--------
>>> import mxgrad as mx
>>> mean, var = mx.nd.moments(mx.nd.array([[1, 2], [3, 6]]), axes=0)
>>> mean.asnumpy(), var.asnumpy()
(array([2., 4.], dtype=float32), array([1., 4.], dtype=float32))
>>> mx.nd.cumsum(mx.nd.array([1, 2, 3])).asnumpy()
array([1., 3., 6.], dtype=float32)
"""
from __future__ import annotations

from typing import Any, Dict, Optional, Sequence, Tuple, Union

import numpy as np

from .._check import as_int, as_real
from ..base import DTypeError, ShapeError, StateError, as_dtype
from .._engine.ndarray import NDArray, wrap
from . import _shape_rules as _sr
from ._core import call1, defop
from ._mxnet_op import MXNetOp, mxnet_op
from .conv import Deconvolution
from .elemwise import sqrt, square
from .reduce import mean, normalize_axes, sum as _sum
from .shape import concat, pad as _pad, repeat, reshape, slice_axis, expand_dims

__all__ = ["moments", "L2Normalization", "LRN", "UpSampling", "khatri_rao", "identity", "diag",
           "cumsum", "MakeLoss", "make_loss", "all_finite"]


def _arr(x, op: str, arg: str = "data") -> NDArray:
    if not isinstance(x, NDArray):
        raise DTypeError(f"{op}: {arg} must be an NDArray, got {type(x).__name__}")
    return x


def _finish(result, out: Optional[NDArray]):
    if out is None:
        return result
    from ._apply import write_out
    return write_out(out, result)


# ------------------------------------------------------------------ statistics
def moments(data: NDArray, axes: Union[int, Sequence[int], None] = None, keepdims: bool = False,
            out: Optional[NDArray] = None, name: Optional[str] = None) -> Tuple[NDArray, NDArray]:
    """Mean and (biased) variance of ``data`` over ``axes`` (all axes when ``None``).

    Examples
    --------
    >>> import mxgrad as mx
    >>> m, v = mx.nd.moments(mx.nd.array([1, 2, 3, 6]), axes=0)
    >>> m.asscalar(), v.asscalar()
    (3.0, 3.5)
    """
    data = _arr(data, "moments")
    axes = normalize_axes(axes, data.ndim, op="moments")
    mu = mean(data, axis=axes, keepdims=True)
    var = mean(square(data - mu), axis=axes, keepdims=keepdims)
    if not keepdims:
        mu = reshape(mu, var.shape)
    return mu, var


mxnet_op("moments", outputs=2)


def L2Normalization(data: NDArray, eps: float = 1e-10, mode: str = "instance",
                    out: Optional[NDArray] = None, name: Optional[str] = None) -> NDArray:
    """``data / sqrt(sum(data ** 2) + eps)``, the sum over every axis but the first
    (``mode='instance'``), over axis 1 (``'channel'``) or over axes 2 and up
    (``'spatial'``).

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.L2Normalization(mx.nd.array([[3, 4]])).asnumpy()
    array([[0.6, 0.8]], dtype=float32)
    """
    data = _arr(data, "L2Normalization")
    eps = as_real(eps, "L2Normalization: eps")
    if mode == "instance":
        axes: Tuple[int, ...] = tuple(range(1, data.ndim))
    elif mode == "channel":
        axes = (1,)
    elif mode == "spatial":
        axes = tuple(range(2, data.ndim))
    else:
        raise StateError(f"L2Normalization: mode must be 'instance', 'channel' or 'spatial', "
                         f"got {mode!r}")
    if data.ndim < 2 or not axes:
        raise ShapeError(f"L2Normalization: mode {mode!r} needs more dimensions than "
                         f"data's shape {data.shape}")
    return _finish(data / sqrt(_sum(square(data), axis=axes, keepdims=True) + eps), out)


mxnet_op("L2Normalization", shape=_sr.same)


def LRN(data: NDArray, alpha: float = 1e-4, beta: float = 0.75, knorm: float = 2.0,
        nsize: Optional[int] = None, out: Optional[NDArray] = None,
        name: Optional[str] = None) -> NDArray:
    """Local response normalisation across channels (AlexNet's):
    ``data / (knorm + alpha / nsize * sum of data ** 2 over the nsize channels around)
    ** beta``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> y = mx.nd.LRN(mx.nd.ones((1, 3, 1, 1)), nsize=3, alpha=3., beta=1., knorm=0.)
    >>> y.asnumpy().ravel().tolist()          # 1 / (3/3 * (number of channels around))
    [0.5, 0.3333333432674408, 0.5]
    """
    data = _arr(data, "LRN")
    if nsize is None:
        raise StateError("LRN: nsize (the number of channels to sum over, odd) is required")
    nsize = as_int(nsize, "LRN: nsize", minimum=1)
    if data.ndim < 2:
        raise ShapeError(f"LRN: data needs a channel axis (N, C, ...), got shape {data.shape}")
    channels = data.shape[1]
    half = nsize // 2
    sq = square(data)
    if half:    # zero channels on both sides (an op of sq: a planned graph's op step)
        sq = _pad(sq, mode="constant", pad_width=(0, 0, half, half) + (0, 0) * (data.ndim - 2))
    window = slice_axis(sq, axis=1, begin=0, end=channels)
    for j in range(1, nsize):
        window = window + slice_axis(sq, axis=1, begin=j, end=j + channels)
    scale = window * (as_real(alpha, "LRN: alpha") / nsize) + as_real(knorm, "LRN: knorm")
    return _finish(data / scale ** as_real(beta, "LRN: beta"), out)


mxnet_op("LRN", shape=_sr.same)


# ------------------------------------------------------------------ shapes
def UpSampling(*data: NDArray, scale: int, sample_type: str = "nearest",
               num_filter: int = 0, multi_input_mode: str = "concat",
               num_args: Optional[int] = None, workspace: int = 512,
               out: Optional[NDArray] = None, name: Optional[str] = None) -> NDArray:
    """Upsample ``(N, C, H, W)`` maps by the integer ``scale``.

    ``sample_type='nearest'`` repeats pixels; with several inputs each is upsampled to
    the first one's output size and the results are concatenated on the channels
    (``multi_input_mode='concat'``) or added (``'sum'``). ``sample_type='bilinear'``
    takes ``(data, weight)`` and is a grouped transposed convolution with kernel
    ``2 * scale - scale % 2``, stride ``scale`` (``weight`` of shape
    ``(num_filter, 1, k, k)``, usually from ``mx.init.Bilinear``), as in MXNet.

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.UpSampling(mx.nd.array([[[[1, 2]]]]), scale=2).asnumpy()
    array([[[[1., 1., 2., 2.],
             [1., 1., 2., 2.]]]], dtype=float32)
    """
    scale = as_int(scale, "UpSampling: scale", minimum=1)
    if not data:
        raise StateError("UpSampling: give at least one input array")
    inputs = [_arr(d, "UpSampling", f"data[{i}]") for i, d in enumerate(data)]
    for i, d in enumerate(inputs):
        if d.ndim != 4:
            raise ShapeError(f"UpSampling: data[{i}] must be 4-D (N, C, H, W), got shape "
                             f"{d.shape}")
    if sample_type == "bilinear":
        if len(inputs) != 2:
            raise StateError("UpSampling: sample_type='bilinear' takes (data, weight)")
        x, weight = inputs
        num_filter = as_int(num_filter, "UpSampling: num_filter", minimum=1)
        kernel = 2 * scale - scale % 2
        pad = int(np.ceil((scale - 1) / 2.0))
        return _finish(Deconvolution(x, weight, kernel=(kernel, kernel), stride=(scale, scale),
                                     pad=(pad, pad), num_filter=num_filter,
                                     num_group=num_filter, no_bias=True), out)
    if sample_type != "nearest":
        raise StateError(f"UpSampling: sample_type must be 'nearest' or 'bilinear', got "
                         f"{sample_type!r}")
    if multi_input_mode not in ("concat", "sum"):
        raise StateError(f"UpSampling: multi_input_mode must be 'concat' or 'sum', got "
                         f"{multi_input_mode!r}")
    height, width = inputs[0].shape[2] * scale, inputs[0].shape[3] * scale
    ups = []
    for i, d in enumerate(inputs):
        sh, sw = height // d.shape[2], width // d.shape[3]
        if sh * d.shape[2] != height or sw * d.shape[3] != width or sh != sw:
            raise ShapeError(f"UpSampling: data[{i}] of shape {d.shape} cannot be scaled to "
                             f"the first input's output size ({height}, {width})")
        ups.append(repeat(repeat(d, sh, axis=2), sw, axis=3) if sh > 1 else d)
    if len(ups) == 1:
        result = ups[0]
    elif multi_input_mode == "concat":
        result = concat(*ups, dim=1)
    else:
        result = ups[0]
        for u in ups[1:]:
            result = result + u
    return _finish(result, out)


def _upsampling_shape(kw, ins, outs):
    """UpSampling's shapes: the output's height and width ``scale`` times the data's (its
    channels summed over the inputs with ``multi_input_mode='concat'``), the bilinear
    kernel's weight ``(num_filter, 1, k, k)``."""
    scale = int(kw["scale"])
    d = ins[0]
    if d is None:
        return list(ins), list(outs)
    out = (d[0], d[1], d[2] * scale if d[2] >= 0 else -1, d[3] * scale if d[3] >= 0 else -1)
    new = list(ins)
    if kw.get("sample_type") == "bilinear":
        k = 2 * scale - scale % 2
        new[1] = (int(kw.get("num_filter", d[1])), 1, k, k)
    elif len(ins) > 1:
        if kw.get("multi_input_mode", "concat") == "concat":
            chans = [s[1] if s is not None else -1 for s in ins]
            out = (out[0], sum(chans) if all(c >= 0 for c in chans) else -1) + out[2:]
    return new, [_sr.merge(outs[0], out)]


def _upsampling_variant(kw: dict) -> MXNetOp:
    """A bilinear UpSampling node takes ``(data, weight)``, its weight a learnable
    parameter (a symbolic call without it makes ``<name>_weight``, as MXNet); a nearest
    one any number of data inputs."""
    if kw.get("sample_type") != "bilinear":
        return _UPSAMPLING
    rec = _UPSAMPLING_BILINEAR.get("record")
    if rec is None:         # derived once, after the registry resolved the run
        rec = _UPSAMPLING.derive(inputs=("data", "weight"), params=("weight",), variant=None)
        _UPSAMPLING_BILINEAR["record"] = rec
    return rec


_UPSAMPLING_BILINEAR: Dict[str, MXNetOp] = {}
_UPSAMPLING = mxnet_op("UpSampling", None, shape=_upsampling_shape, variant=_upsampling_variant)


def khatri_rao(*args: NDArray, num_args: Optional[int] = None, out: Optional[NDArray] = None,
               name: Optional[str] = None) -> NDArray:
    """Column-wise Kronecker product of matrices ``(n_i, k)``: shape ``(prod n_i, k)``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> a = mx.nd.array([[1, 2], [3, 4]]); b = mx.nd.array([[1, 0], [0, 1]])
    >>> mx.nd.khatri_rao(a, b).asnumpy()
    array([[1., 0.],
           [0., 2.],
           [3., 0.],
           [0., 4.]], dtype=float32)
    """
    if not args:
        raise StateError("khatri_rao: give at least one matrix")
    mats = [_arr(a, "khatri_rao", f"args[{i}]") for i, a in enumerate(args)]
    k = mats[0].shape[-1]
    for i, m in enumerate(mats):
        if m.ndim != 2 or m.shape[1] != k:
            raise ShapeError(f"khatri_rao: args[{i}] must be a matrix with {k} columns, got "
                             f"shape {m.shape}")
    result = mats[0]
    for m in mats[1:]:
        result = reshape(expand_dims(result, 1) * expand_dims(m, 0), (-1, k))
    return _finish(result, out)


mxnet_op("khatri_rao", None)


def identity(data: NDArray, out: Optional[NDArray] = None,
             name: Optional[str] = None) -> NDArray:
    """A copy of ``data`` (recorded: the gradient passes through unchanged).

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.identity(mx.nd.array([1, 2])).asnumpy()
    array([1., 2.], dtype=float32)
    """
    return _finish(_arr(data, "identity").copy(), out)


# ------------------------------------------------------------------ linear maps
def _diag_extract_fwd(x, k, axis1, axis2):
    return np.diagonal(x, k, axis1, axis2).copy()


def _diag_embed_fwd(d, k, axis1, axis2, shape):
    full = np.zeros(shape, dtype=d.dtype)
    rows = np.arange(d.shape[-1]) + max(-k, 0)
    view = np.moveaxis(full, (axis1, axis2), (-2, -1))
    view[..., rows, rows + k] = d
    return full


def _extract_grad(g, y, x, k, axis1, axis2):
    return _diag_embed(g, k, axis1, axis2, x.shape)


def _embed_grad(g, y, d, k, axis1, axis2, shape):
    return _diag_extract(g, k, axis1, axis2)


_DIAG_EXTRACT = defop("diag", _diag_extract_fwd, [_extract_grad],
                      [lambda t, y, x, k, axis1, axis2: _diag_extract(t, k, axis1, axis2)],
                      save=(0,))
_DIAG_EMBED = defop("diag", _diag_embed_fwd, [_embed_grad],
                    [lambda t, y, d, k, axis1, axis2, shape:
                     _diag_embed(t, k, axis1, axis2, shape)], save=())


def _diag_extract(x, k, axis1, axis2):
    return call1(_DIAG_EXTRACT, x, {"k": k, "axis1": axis1, "axis2": axis2})


def _diag_embed(d, k, axis1, axis2, shape):
    return call1(_DIAG_EMBED, d, {"k": k, "axis1": axis1, "axis2": axis2,
                                  "shape": tuple(shape)})


def diag(data: NDArray, k: int = 0, axis1: int = 0, axis2: int = 1,
         out: Optional[NDArray] = None, name: Optional[str] = None) -> NDArray:
    """The ``k``-th diagonal of ``data`` (2-D and up: taken over ``axis1``/``axis2`` and
    put last), or, for 1-D ``data``, the square matrix with ``data`` on that diagonal.

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.diag(mx.nd.array([[1, 2], [3, 4]])).asnumpy()
    array([1., 4.], dtype=float32)
    >>> mx.nd.diag(mx.nd.array([1, 2]), k=1).asnumpy()
    array([[0., 1., 0.],
           [0., 0., 2.],
           [0., 0., 0.]], dtype=float32)
    """
    data = _arr(data, "diag")
    k = as_int(k, "diag: k")
    if data.ndim == 1:
        n = data.shape[0] + abs(k)
        return _finish(_diag_embed(data, k, 0, 1, (n, n)), out)
    axis1 = normalize_axes(axis1, data.ndim, op="diag")[0]
    axis2 = normalize_axes(axis2, data.ndim, op="diag")[0]
    if axis1 == axis2:
        raise StateError(f"diag: axis1 and axis2 must differ, both are {axis1}")
    h, w = data.shape[axis1], data.shape[axis2]
    if min(h + min(k, 0), w - max(k, 0)) < 0:
        raise ShapeError(f"diag: the diagonal k={k} does not exist in a {h}x{w} matrix "
                         f"(axes {axis1}, {axis2}); k must lie in [{-h}, {w}]")
    return _finish(_diag_extract(data, k, axis1, axis2), out)


mxnet_op("diag")


def _cumsum_fwd(x, axis, dtype):
    return np.cumsum(x if axis is not None else x.reshape(-1), axis=axis or 0, dtype=dtype)


def _reverse_cumsum_fwd(g, axis, dtype, shape):
    flat = g if axis is not None else g.reshape(-1)
    ax = axis or 0
    r = np.flip(np.cumsum(np.flip(flat, ax), axis=ax), ax)
    return np.ascontiguousarray(r).reshape(shape).astype(dtype, copy=False)


_CUMSUM = defop("cumsum", _cumsum_fwd,
                [lambda g, y, x, axis, dtype: _reverse_cumsum(g, axis, x.dtype, x.shape)],
                [lambda t, y, x, axis, dtype: _cumsum(t, axis, y.dtype)], save=(0,))
_REVERSE_CUMSUM = defop(
    "cumsum", _reverse_cumsum_fwd,
    [lambda g, y, x, axis, dtype, shape: _cumsum(g, axis, x.dtype).reshape(x.shape)],
    [lambda t, y, x, axis, dtype, shape: _reverse_cumsum(t, axis, y.dtype, shape)], save=(0,))


def _cumsum(x, axis, dtype):
    return call1(_CUMSUM, x, {"axis": axis, "dtype": np.dtype(dtype)})


def _reverse_cumsum(g, axis, dtype, shape):
    return call1(_REVERSE_CUMSUM, g, {"axis": axis, "dtype": np.dtype(dtype),
                                      "shape": tuple(shape)})


def cumsum(a: NDArray, axis: Optional[int] = None, dtype: Any = None,
           out: Optional[NDArray] = None, name: Optional[str] = None) -> NDArray:
    """Cumulative sum along ``axis`` (of the flattened array when ``None``); ``dtype``
    defaults to ``a``'s.

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.cumsum(mx.nd.array([[1, 2], [3, 4]]), axis=0).asnumpy()
    array([[1., 2.],
           [4., 6.]], dtype=float32)
    """
    a = _arr(a, "cumsum", "a")
    if axis is not None:
        axis = normalize_axes(axis, a.ndim, op="cumsum")[0]
    dt = a._data.dtype if dtype is None else np.dtype(as_dtype(dtype))
    return _finish(_cumsum(a, axis, dt), out)


mxnet_op("cumsum", ("a",))


# ------------------------------------------------------------------ losses & checks
def _make_loss_grad(g, y, x, grad_scale, valid_thresh, normalization):
    shape = g.shape
    if normalization == "batch":
        scale = grad_scale / max(shape[0], 1)
    elif normalization == "valid":
        data = y._data if isinstance(y, NDArray) else y
        scale = grad_scale / max(int(np.count_nonzero(data > valid_thresh)), 1)
    else:
        scale = grad_scale
    full = np.full(shape, scale, dtype=g.dtype)
    return wrap(full) if isinstance(g, NDArray) else full


_MAKE_LOSS = defop("MakeLoss", lambda x, grad_scale, valid_thresh, normalization: x.copy(),
                   [_make_loss_grad], [lambda t, y, x, **attrs: t], save=(), save_out=True)


def MakeLoss(data: NDArray, grad_scale: float = 1.0, valid_thresh: float = 0.0,
             normalization: str = "null", out: Optional[NDArray] = None,
             name: Optional[str] = None) -> NDArray:
    """Mark ``data`` as a loss: the forward is the identity; the backward ignores the head
    gradient and gives ``grad_scale`` everywhere, divided by the batch size
    (``normalization='batch'``) or by the number of elements above ``valid_thresh``
    (``'valid'``), as MXNet's ``MakeLoss``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> x = mx.nd.array([1., 2.]); x.attach_grad()
    >>> with mx.autograd.record():
    ...     loss = mx.nd.MakeLoss(x * x, grad_scale=3)
    >>> loss.backward(); x.grad.asnumpy()
    array([ 6., 12.], dtype=float32)
    """
    data = _arr(data, "MakeLoss")
    if normalization not in ("null", "batch", "valid"):
        raise StateError(f"MakeLoss: normalization must be 'null', 'batch' or 'valid', got "
                         f"{normalization!r}")
    attrs = {"grad_scale": as_real(grad_scale, "MakeLoss: grad_scale"),
             "valid_thresh": as_real(valid_thresh, "MakeLoss: valid_thresh"),
             "normalization": normalization}
    return _finish(call1(_MAKE_LOSS, data, attrs), out)


mxnet_op("MakeLoss", shape=_sr.same)


def make_loss(data: NDArray, out: Optional[NDArray] = None, name: Optional[str] = None
              ) -> NDArray:
    """MXNet's other loss marker: the identity forward, a gradient of ones whatever the
    head gradient (``MakeLoss`` with its defaults; MXNet's ``make_loss`` has no options).

    Examples
    --------
    >>> import mxgrad as mx
    >>> x = mx.nd.array([1., 2.]); x.attach_grad()
    >>> with mx.autograd.record():
    ...     loss = mx.nd.make_loss(x * x)
    >>> loss.backward(mx.nd.array([5., 5.])); x.grad.asnumpy()
    array([2., 4.], dtype=float32)
    """
    return MakeLoss(data, out=out, name=name)


mxnet_op("make_loss", out_names=("loss",), shape=_sr.same)   # MXNet names its output <name>_loss


def all_finite(data: NDArray, init_output: bool = True, out: Optional[NDArray] = None,
               name: Optional[str] = None) -> NDArray:
    """``[1.]`` (float32) when every element of ``data`` is finite, else ``[0.]``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.all_finite(mx.nd.array([1., float('inf')])).asnumpy()
    array([0.], dtype=float32)
    """
    data = _arr(data, "all_finite")
    flag = bool(np.isfinite(data._data).all())
    return _finish(wrap(np.array([1.0 if flag else 0.0], dtype=np.float32)), out)

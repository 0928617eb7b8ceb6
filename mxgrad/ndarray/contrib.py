"""``mx.nd.contrib``: MXNet's contrib operators that exist in mxgrad.

The control-flow operators ``foreach``, ``while_loop`` and ``cond`` run imperatively in Python
(as MXNet's NDArray versions do): the loop body calls ordinary nd ops, so the loop is recorded
by autograd and differentiable (to any order) like any other computation.

Examples
--------
>>> import mxgrad as mx
>>> from mxgrad.ndarray import contrib
>>> step = lambda x, states: (x + states[0], [x + states[0]])   # running sum
>>> outs, states = contrib.foreach(step, mx.nd.array([[1., 2.], [3., 4.], [5., 6.]]),
...                                [mx.nd.zeros((2,))])
>>> outs
<BLANKLINE>
[[ 1.  2.]
 [ 4.  6.]
 [ 9. 12.]]
<NDArray 3x2 @cpu(0)>
"""
from __future__ import annotations

from typing import Any, Optional

import math

import numpy as _np

from ..base import DTypeError, ShapeError, StateError
from ..ops import _dtype_rules as _dr
from ..ops import _shape_rules as _sr
from ..ops._core import call1, defop
from ..ops._mxnet_op import mxnet_op
from ..ops.creation import zeros
from ..ops.random import _log_uniform_classes
from ..ops.elemwise import round as _round, sign as _sign
from ..ops.indexing import boolean_mask, take, where
from ..ops.linalg import dot
from ..ops.shape import concat, split, stack, swapaxes
from ..ops.detection import MultiBoxPrior, MultiBoxTarget, MultiBoxDetection  # noqa: F401
from ..ops.ctc import CTCLoss, ctc_loss  # noqa: F401  (MXNet keeps contrib aliases)
from ..ops.numeric import allclose, quantize, dequantize  # noqa: F401
from ..ops.resize2d import BilinearResize2D  # noqa: F401
from ..ops.hawkes import hawkesll  # noqa: F401
from ..ops.roi import ROIAlign, RROIAlign, PSROIPooling  # noqa: F401
from ..ops.deformable import (DeformableConvolution,  # noqa: F401
                              ModulatedDeformableConvolution)
from ..ops.proposal import Proposal, MultiProposal  # noqa: F401
from ..ops.syncbn import SyncBatchNorm  # noqa: F401
from ..ops.nn import BatchNormWithReLU  # noqa: F401
from ..ops.adamw import (adamw_update, mp_adamw_update, multi_adamw_update,  # noqa: F401
                         multi_mp_adamw_update)
from ..ops.transformer import (interleaved_matmul_selfatt_qk,  # noqa: F401
                               interleaved_matmul_selfatt_valatt, interleaved_matmul_encdec_qk,
                               interleaved_matmul_encdec_valatt)
from ..ops.boxes import (box_iou, box_nms, box_non_maximum_suppression,  # noqa: F401
                         box_encode, box_decode, bipartite_matching)
from .._engine.ndarray import NDArray, wrap
from ..context import Context

__all__ = ["boolean_mask", "arange_like", "div_sqrt_dim", "foreach", "while_loop", "cond",
           "isinf", "isfinite", "isnan", "index_copy", "index_array", "quadratic",
           "gradientmultiplier", "round_ste", "sign_ste", "AdaptiveAvgPooling2D",
           "rand_zipfian", "MultiBoxPrior", "MultiBoxTarget", "MultiBoxDetection",
           "CTCLoss", "ctc_loss", "allclose", "box_iou", "box_nms",
           "box_non_maximum_suppression", "box_encode", "box_decode", "bipartite_matching",
           "BilinearResize2D", "quantize", "dequantize", "hawkesll",
           "interleaved_matmul_selfatt_qk", "interleaved_matmul_selfatt_valatt",
           "interleaved_matmul_encdec_qk", "interleaved_matmul_encdec_valatt", "ROIAlign",
           "PSROIPooling", "multi_adamw_update", "RROIAlign",
           "adamw_update", "mp_adamw_update", "multi_mp_adamw_update",
           "DeformableConvolution", "ModulatedDeformableConvolution", "Proposal",
           "MultiProposal", "SyncBatchNorm", "BatchNormWithReLU"]


def _nd(x, op, arg="data") -> NDArray:
    if isinstance(x, NDArray):
        return x
    if isinstance(x, _np.ndarray):
        return wrap(x if x.ndim else x.reshape(1))
    raise DTypeError(f"contrib.{op}: argument '{arg}' must be an NDArray, got "
                     f"{type(x).__name__}; wrap data with mx.nd.array(...) first")


# ------------------------------------------------------------------ simple ops
def arange_like(data: NDArray, start: float = 0.0, step: float = 1.0, repeat: int = 1,
                ctx: Optional[Context] = None, axis: Optional[int] = None, **kwargs: Any
                ) -> NDArray:
    """Evenly spaced values shaped like ``data`` (or, with ``axis``, a 1-D array as long as
    ``data.shape[axis]``): ``start + step * (i // repeat)`` for the i-th element in row-major
    order. The result has ``data``'s dtype and is a constant (no gradient).

    Examples
    --------
    >>> import mxgrad as mx
    >>> from mxgrad.ndarray import contrib
    >>> contrib.arange_like(mx.nd.zeros((2, 3)))
    <BLANKLINE>
    [[0. 1. 2.]
     [3. 4. 5.]]
    <NDArray 2x3 @cpu(0)>
    >>> contrib.arange_like(mx.nd.zeros((2, 4)), start=1, step=2, repeat=2, axis=-1)
    <BLANKLINE>
    [1. 1. 3. 3.]
    <NDArray 4 @cpu(0)>
    """
    data = _nd(data, "arange_like")
    repeat = int(repeat)
    if repeat <= 0:
        raise StateError(f"contrib.arange_like: repeat must be positive, got {repeat}")
    shape = tuple(data.shape)
    if axis is None:
        n, oshape = int(_np.prod(shape, dtype=_np.int64)), shape
    else:
        ax = int(axis)
        if not -len(shape) <= ax < len(shape):
            raise ShapeError(f"contrib.arange_like: axis {axis} is out of range for data of "
                             f"shape {shape}")
        n = shape[ax]
        oshape = (n,)
    vals = float(start) + float(step) * (_np.arange(n, dtype=_np.float64) // repeat)
    return wrap(vals.astype(data.dtype).reshape(oshape))


def div_sqrt_dim(data: NDArray, **kwargs: Any) -> NDArray:
    """``data / sqrt(data.shape[-1])`` (the scaling of dot-product attention).

    Examples
    --------
    >>> import mxgrad as mx
    >>> from mxgrad.ndarray import contrib
    >>> contrib.div_sqrt_dim(mx.nd.full((1, 4), 6.))
    <BLANKLINE>
    [[3. 3. 3. 3.]]
    <NDArray 1x4 @cpu(0)>
    """
    data = _nd(data, "div_sqrt_dim")
    return data / math.sqrt(data.shape[-1])


mxnet_op("_contrib_div_sqrt_dim", nd_name="contrib.div_sqrt_dim", shape=_sr.same)


def _mask(data, fn, op) -> NDArray:
    data = _nd(data, op)
    a = data._data
    return wrap(fn(a).astype(a.dtype if a.dtype.kind == "f" else _np.float32))


def isinf(data: NDArray) -> NDArray:
    """1 where ``data`` is +inf or -inf, else 0 (same dtype as ``data``).

    Examples
    --------
    >>> import mxgrad as mx
    >>> from mxgrad.ndarray import contrib
    >>> contrib.isinf(mx.nd.array([float('inf'), -float('inf'), float('nan'), -1]))
    <BLANKLINE>
    [1. 1. 0. 0.]
    <NDArray 4 @cpu(0)>
    """
    return _mask(data, _np.isinf, "isinf")


def isfinite(data: NDArray) -> NDArray:
    """1 where ``data`` is neither infinite nor NaN, else 0.

    Examples
    --------
    >>> import mxgrad as mx
    >>> from mxgrad.ndarray import contrib
    >>> contrib.isfinite(mx.nd.array([float('inf'), float('nan'), -1]))
    <BLANKLINE>
    [0. 0. 1.]
    <NDArray 3 @cpu(0)>
    """
    return _mask(data, _np.isfinite, "isfinite")


def isnan(data: NDArray) -> NDArray:
    """1 where ``data`` is NaN, else 0.

    Examples
    --------
    >>> import mxgrad as mx
    >>> from mxgrad.ndarray import contrib
    >>> contrib.isnan(mx.nd.array([float('nan'), -1]))
    <BLANKLINE>
    [1. 0.]
    <NDArray 2 @cpu(0)>
    """
    return _mask(data, _np.isnan, "isnan")


def quadratic(data: NDArray, a: float = 0.0, b: float = 0.0, c: float = 0.0, **kwargs: Any
              ) -> NDArray:
    """``a * data**2 + b * data + c`` elementwise (differentiable).

    Examples
    --------
    >>> import mxgrad as mx
    >>> from mxgrad.ndarray import contrib
    >>> contrib.quadratic(mx.nd.array([1., 2.]), a=1, b=2, c=3)
    <BLANKLINE>
    [ 6. 11.]
    <NDArray 2 @cpu(0)>
    """
    data = _nd(data, "quadratic")
    return data * data * float(a) + data * float(b) + float(c)


mxnet_op("_contrib_quadratic", nd_name="contrib.quadratic", shape=_sr.same)


_GRADMUL = defop("gradientmultiplier", lambda x, scalar: x.copy(),
                 [lambda g, y, x, scalar: g * scalar], [lambda t, y, x, scalar: t * scalar],
                 save=())


def gradientmultiplier(data: NDArray, scalar: float = 1.0, **kwargs: Any) -> NDArray:
    """The identity in the forward pass; the backward pass multiplies the gradient by
    ``scalar`` (e.g. ``-1`` for a gradient-reversal layer).

    Examples
    --------
    >>> import mxgrad as mx
    >>> from mxgrad.ndarray import contrib
    >>> x = mx.nd.array([1., 2.]); x.attach_grad()
    >>> with mx.autograd.record():
    ...     y = contrib.gradientmultiplier(x, scalar=-0.5)
    >>> y.backward(); y, x.grad
    (
    [1. 2.]
    <NDArray 2 @cpu(0)>, 
    [-0.5 -0.5]
    <NDArray 2 @cpu(0)>)
    """
    return call1(_GRADMUL, _nd(data, "gradientmultiplier"), {"scalar": float(scalar)})


mxnet_op("_contrib_gradientmultiplier", nd_name="contrib.gradientmultiplier",
         shape=_sr.same)


_ROUND_STE = defop("round_ste", lambda x: _round(x), [lambda g, y, x: g], [lambda t, y, x: t],
                   save=())
_SIGN_STE = defop("sign_ste", lambda x: _sign(x), [lambda g, y, x: g], [lambda t, y, x: t],
                  save=())


def round_ste(data: NDArray, **kwargs: Any) -> NDArray:
    """``round(data)`` (halves away from zero) with the straight-through gradient: the
    gradient passes unchanged (instead of being 0 as for ``round``).

    Examples
    --------
    >>> import mxgrad as mx
    >>> from mxgrad.ndarray import contrib
    >>> x = mx.nd.array([-2.5, 0.4, 1.6]); x.attach_grad()
    >>> with mx.autograd.record():
    ...     y = contrib.round_ste(x)
    >>> y.backward(); y.asnumpy().tolist(), x.grad.asnumpy().tolist()
    ([-3.0, 0.0, 2.0], [1.0, 1.0, 1.0])
    """
    return call1(_ROUND_STE, _nd(data, "round_ste"))


mxnet_op("_contrib_round_ste", nd_name="contrib.round_ste", shape=_sr.same)


def sign_ste(data: NDArray, **kwargs: Any) -> NDArray:
    """``sign(data)`` with the straight-through gradient (the gradient passes unchanged).

    Examples
    --------
    >>> import mxgrad as mx
    >>> from mxgrad.ndarray import contrib
    >>> contrib.sign_ste(mx.nd.array([-2., 0., 3.])).asnumpy().tolist()
    [-1.0, 0.0, 1.0]
    """
    return call1(_SIGN_STE, _nd(data, "sign_ste"))


mxnet_op("_contrib_sign_ste", nd_name="contrib.sign_ste", shape=_sr.same)


def _adaptive_matrix(n_in, n_out, dtype):
    """(n_in, n_out) averaging matrix: column o averages rows floor(o*n_in/n_out) to
    ceil((o+1)*n_in/n_out) - 1."""
    m = _np.zeros((n_in, n_out), dtype=_np.float64)
    for o in range(n_out):
        start = (o * n_in) // n_out
        end = -((-(o + 1) * n_in) // n_out)
        m[start:end, o] = 1.0 / (end - start)
    return wrap(m.astype(dtype))


def AdaptiveAvgPooling2D(data: NDArray, output_size=(), **kwargs: Any) -> NDArray:
    """Adaptive average pooling of ``(N, C, H, W)`` data to ``(N, C, oh, ow)``: output cell
    ``(i, j)`` averages rows ``floor(i*H/oh)`` to ``ceil((i+1)*H/oh) - 1`` and the columns
    likewise. ``output_size`` is ``()`` (1x1), an int (square) or ``(oh, ow)``.
    Differentiable (it is two matrix products).

    Examples
    --------
    >>> import mxgrad as mx
    >>> from mxgrad.ndarray import contrib
    >>> x = mx.nd.arange(16).reshape((1, 1, 4, 4))
    >>> contrib.AdaptiveAvgPooling2D(x, output_size=2)
    <BLANKLINE>
    [[[[ 2.5  4.5]
       [10.5 12.5]]]]
    <NDArray 1x1x2x2 @cpu(0)>
    >>> contrib.AdaptiveAvgPooling2D(x).asnumpy().ravel().tolist()
    [7.5]
    """
    data = _nd(data, "AdaptiveAvgPooling2D")
    if data.ndim != 4:
        raise ShapeError(f"contrib.AdaptiveAvgPooling2D: data must be 4-D (N, C, H, W), got "
                         f"shape {tuple(data.shape)}")
    if isinstance(output_size, (int, _np.integer)):
        oh = ow = int(output_size)
    else:
        size = tuple(int(v) for v in output_size)
        if len(size) == 0:
            oh = ow = 1
        elif len(size) == 1:
            oh = ow = size[0]
        elif len(size) == 2:
            oh, ow = size
        else:
            raise ShapeError(f"contrib.AdaptiveAvgPooling2D: output_size must be an int or "
                             f"a pair, got {output_size!r}")
    if oh <= 0 or ow <= 0:
        raise ShapeError(f"contrib.AdaptiveAvgPooling2D: output_size must be positive, got "
                         f"{(oh, ow)}")
    _, _, h, w = data.shape
    cols = dot(data, _adaptive_matrix(w, ow, data.dtype))            # (N, C, H, ow)
    rows = dot(swapaxes(cols, 2, 3), _adaptive_matrix(h, oh, data.dtype))  # (N, C, ow, oh)
    return swapaxes(rows, 2, 3)


def index_copy(old_tensor, index_vector, new_tensor, **kwargs: Any) -> NDArray:
    """A copy of ``old_tensor`` whose rows ``index_vector[i]`` are replaced by
    ``new_tensor[i]`` (differentiable in both tensors; a repeated index keeps the last row).

    Examples
    --------
    >>> import mxgrad as mx
    >>> from mxgrad.ndarray import contrib
    >>> contrib.index_copy(mx.nd.zeros((4, 2)), mx.nd.array([3, 0]),
    ...                    mx.nd.array([[1., 2.], [3., 4.]]))
    <BLANKLINE>
    [[3. 4.]
     [0. 0.]
     [0. 0.]
     [1. 2.]]
    <NDArray 4x2 @cpu(0)>
    """
    old = _nd(old_tensor, "index_copy", "old_tensor")
    new = _nd(new_tensor, "index_copy", "new_tensor")
    idx = _numpy_int(index_vector, "index_copy")
    if idx.ndim != 1 or old.ndim == 0 or tuple(new.shape) != (idx.size,) + tuple(old.shape[1:]):
        raise ShapeError(f"contrib.index_copy: need a 1-D index_vector and new_tensor of shape "
                         f"(len(index_vector),) + old_tensor.shape[1:]; got index_vector "
                         f"{idx.shape}, old_tensor {tuple(old.shape)}, new_tensor "
                         f"{tuple(new.shape)}")
    n = old.shape[0]
    if idx.size and (idx.min() < -n or idx.max() >= n):
        raise ShapeError(f"contrib.index_copy: index_vector values must be in [0, {n}), got "
                         f"{idx.tolist()}")
    src = _np.full(n, -1, dtype=_np.int64)
    src[idx % n] = _np.arange(idx.size)
    if idx.size == 0:
        return old + 0
    rows = take(new, wrap(_np.maximum(src, 0).astype(_np.float32)), axis=0)
    return where(wrap((src >= 0).astype(old.dtype)), rows, old)


# the output has old_tensor's dtype; the index vector is of any dtype
mxnet_op("_contrib_index_copy", ("old_tensor", "index_vector", "new_tensor"),
         nd_name="contrib.index_copy", dtype=_dr.free(1))


def _numpy_int(x, op):
    a = x._data if isinstance(x, NDArray) else _np.asarray(x)
    if a.dtype.kind == "f":
        a = a.astype(_np.int64)
    elif a.dtype.kind not in "iu":
        raise DTypeError(f"contrib.{op}: indices must be numbers, got dtype {a.dtype}")
    return a.astype(_np.int64, copy=False)


def index_array(data: NDArray, axes=None, **kwargs: Any) -> NDArray:
    """The index of every element: shape ``data.shape + (len(axes),)`` (``axes`` default all
    axes), ``out[i1, ..., in, j] = i_{axes[j]}``, dtype int64.

    Examples
    --------
    >>> import mxgrad as mx
    >>> from mxgrad.ndarray import contrib
    >>> contrib.index_array(mx.nd.zeros((2, 2)))[1].asnumpy().tolist()
    [[1, 0], [1, 1]]
    >>> contrib.index_array(mx.nd.zeros((2, 3)), axes=(1,)).shape
    (2, 3, 1)
    """
    data = _nd(data, "index_array")
    shape = tuple(data.shape)
    nd_ = len(shape)
    if axes is None:
        axes = tuple(range(nd_))
    elif isinstance(axes, int):
        axes = (axes,)
    axes = tuple(int(a) + nd_ if int(a) < 0 else int(a) for a in axes)
    for a in axes:
        if not 0 <= a < nd_:
            raise ShapeError(f"contrib.index_array: axis out of range for data of shape "
                             f"{shape}")
    grids = _np.indices(shape, dtype=_np.int64)
    out = _np.stack([grids[a] for a in axes], axis=-1) if axes else \
        _np.zeros(shape + (0,), dtype=_np.int64)
    return wrap(_np.ascontiguousarray(out))


def rand_zipfian(true_classes, num_sampled: int, range_max: int, ctx: Optional[Context] = None):
    """Sample ``num_sampled`` classes from ``[0, range_max)`` with the approximately Zipfian
    distribution ``P(c) = (log(c + 2) - log(c + 1)) / log(range_max + 1)``.

    Returns ``(samples int64, expected_count_true float64, expected_count_sample float64)``,
    the expected counts being ``P(c) * num_sampled``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> from mxgrad.ndarray import contrib
    >>> s, ct, cs = contrib.rand_zipfian(mx.nd.array([3]), 4, 5)
    >>> s.shape, s.dtype.__name__, round(float(ct.asscalar()), 6)
    ((4,), 'int64', 0.498155)
    """
    log_range = math.log(range_max + 1)
    sampled = _log_uniform_classes(int(num_sampled), int(range_max))
    true_cls = _nd(true_classes, "rand_zipfian", "true_classes")._data.astype(_np.float64)

    def expected(c):
        return _np.log((c + 2.0) / (c + 1.0)) / log_range * num_sampled
    return (wrap(sampled), wrap(expected(true_cls)),
            wrap(expected(sampled.astype(_np.float64))))


# ------------------------------------------------------------------ control flow
def _flatten(args, what):
    """Flatten an NDArray or nested lists of NDArrays: (flat list, format)."""
    if isinstance(args, NDArray):
        return [args], 0
    if not isinstance(args, (list, tuple)):
        raise DTypeError(f"{what} must be an NDArray or a (nested) list of NDArrays, got "
                         f"{type(args).__name__}")
    flat, fmts = [], []
    for a in args:
        f, fmt = _flatten(a, what)
        flat.extend(f)
        fmts.append(fmt)
    return flat, fmts


def _regroup(flat, fmt):
    """Inverse of _flatten: (structure, remaining items)."""
    if fmt == 0:
        return flat[0], flat[1:]
    out = []
    for f in fmt:
        item, flat = _regroup(flat, f)
        out.append(item)
    return out, flat


def foreach(body, data: NDArray, init_states):
    """Run ``body`` over the slices of ``data`` along axis 0, carrying states.

    ``out, states = body(data[i], states)`` for each ``i`` (``data`` may be a list of
    NDArrays; ``body`` then gets the list of their ``i``-th slices). Returns the outputs of all
    steps stacked along a new axis 0 (in the structure ``body`` returns them: an NDArray or
    nested lists) and the states of the last step.

    Parameters
    ----------
    body : callable
        ``body(data_slice, states) -> (outputs, new_states)``.
    data : NDArray or list of NDArray
        Iterated along axis 0 (all with the same length).
    init_states : NDArray or nested list of NDArray
        The states of the first step.

    Examples
    --------
    >>> import mxgrad as mx
    >>> from mxgrad.ndarray import contrib
    >>> step = lambda x, s: (x * s[0], [s[0] * 2])
    >>> outs, states = contrib.foreach(step, mx.nd.array([1., 1., 1.]), [mx.nd.array([1.])])
    >>> outs.asnumpy().ravel().tolist(), states[0].asscalar()
    ([1.0, 2.0, 4.0], 8.0)
    """
    flat_data, _ = _flatten(data, "contrib.foreach: data")
    _flatten(init_states, "contrib.foreach: init_states")
    if not flat_data:
        raise ShapeError("contrib.foreach: data must contain at least one NDArray")
    single = isinstance(data, NDArray)
    arrays = [data] if single else list(data)
    for a in arrays:
        if not isinstance(a, NDArray):
            raise DTypeError("contrib.foreach: data must be an NDArray or a list of NDArrays")
    num_iters = arrays[0].shape[0] if arrays[0].ndim else 0
    for a in arrays:
        if a.ndim == 0 or a.shape[0] != num_iters:
            raise ShapeError(f"contrib.foreach: every data array must have the same length "
                             f"along axis 0, got shapes {[tuple(x.shape) for x in arrays]}")
    if num_iters == 0:
        raise ShapeError("contrib.foreach: data has length 0 along axis 0; there is no step "
                         "to run")
    # one split per array (its gradient is one concat, not one scatter per step)
    slices = []
    for a in arrays:
        parts = split(a, num_outputs=num_iters, axis=0, squeeze_axis=a.ndim > 1)
        parts = [parts] if isinstance(parts, NDArray) else list(parts)
        slices.append(parts)
    states = init_states
    outputs, out_fmt = [], None
    for i in range(num_iters):
        eles = slices[0][i] if single else [s[i] for s in slices]
        res = body(eles, states)
        if not isinstance(res, (list, tuple)) or len(res) != 2:
            raise StateError("contrib.foreach: body must return a pair (outputs, new_states)")
        outs, states = res
        flat, fmt = _flatten(outs, "contrib.foreach: the outputs of body")
        if out_fmt is not None and fmt != out_fmt:
            raise StateError(f"contrib.foreach: body returned outputs structured as {fmt} at "
                             f"step {i}, but as {out_fmt} before")
        out_fmt = fmt
        outputs.append(flat)
    stacked = [stack(*items, axis=0) for items in zip(*outputs)]
    result, _ = _regroup(stacked, out_fmt)
    return result, states


def _as_bool(x, what) -> bool:
    if hasattr(x, "asscalar"):
        try:
            x = x.asscalar()
        except Exception:
            raise StateError(f"{what} must be a scalar (an NDArray of one element), got "
                             f"shape {tuple(x.shape)}") from None
    try:
        return bool(x)
    except Exception:
        raise StateError(f"Cannot convert {what} to a Python bool") from None


def while_loop(cond, func, loop_vars, max_iterations=None):
    """Run ``func`` while ``cond`` holds, at most ``max_iterations`` times.

    ``cond(*loop_vars)`` returns a one-element NDArray (or a Python bool);
    ``func(*loop_vars)`` returns ``(step_output, new_loop_vars)``. Returns
    ``(outputs, final_loop_vars)``: each step output stacked along axis 0, padded with zeros
    to ``max_iterations`` rows (MXNet's NDArray ``while_loop`` also returns ``max_iterations``
    rows; the rows after the last step are undefined there and zeros here), and the loop
    variables after the last step. With no step at all, ``outputs`` is ``[]``.

    Parameters
    ----------
    cond : callable
    func : callable
    loop_vars : NDArray or list of NDArray
    max_iterations : int
        Required.

    Examples
    --------
    >>> import mxgrad as mx
    >>> from mxgrad.ndarray import contrib
    >>> cond = lambda i, s: i <= 5
    >>> func = lambda i, s: ([i + s], [i + 1, s + i])
    >>> outs, states = contrib.while_loop(cond, func, (mx.nd.array([0]), mx.nd.array([1])),
    ...                                   max_iterations=8)
    >>> outs[0].asnumpy().ravel().tolist()
    [1.0, 2.0, 4.0, 7.0, 11.0, 16.0, 0.0, 0.0]
    >>> [s.asscalar() for s in states]
    [6.0, 16.0]
    """
    if max_iterations is None:
        raise StateError("contrib.while_loop: max_iterations should be specified")
    if hasattr(max_iterations, "asscalar"):
        max_iterations = max_iterations.asscalar()
    try:
        max_iterations = int(max_iterations)
    except (TypeError, ValueError):
        raise StateError(f"contrib.while_loop: cannot convert max_iterations "
                         f"{max_iterations!r} to a Python int") from None
    single = isinstance(loop_vars, NDArray)
    lvars = [loop_vars] if single else loop_vars
    if not isinstance(lvars, (list, tuple)) or len(lvars) == 0:
        raise StateError("contrib.while_loop: loop_vars should be an NDArray or a non-empty "
                         "list of NDArrays")
    steps, outputs, out_fmt = 0, [], None
    while steps < max_iterations and _as_bool(cond(*lvars),
                                              "contrib.while_loop: the return value of cond"):
        res = func(*lvars)
        if not isinstance(res, (list, tuple)) or len(res) != 2:
            raise StateError("contrib.while_loop: func must return a pair (step_output, "
                             "new_loop_vars)")
        step_output, new_vars = res
        step_output = [] if step_output is None else step_output
        new_vars = [] if new_vars is None else new_vars
        if isinstance(step_output, tuple):
            step_output = list(step_output)
        new_vars = [new_vars] if isinstance(new_vars, NDArray) else list(new_vars)
        if len(new_vars) != len(lvars):
            raise StateError(f"contrib.while_loop: func returned {len(new_vars)} loop "
                             f"variables, expected {len(lvars)}; the number of loop_vars "
                             f"must stay the same")
        flat, fmt = _flatten(step_output, "contrib.while_loop: step_output")
        if outputs and len(flat) != len(outputs[0]):
            raise StateError("contrib.while_loop: number of elements in step_output should "
                             "be the same in each step")
        out_fmt = fmt
        outputs.append(flat)
        lvars = new_vars
        steps += 1
    stacked = []
    for k, items in enumerate(zip(*outputs)):
        shapes = {tuple(x.shape) for x in items}
        if len(shapes) != 1:
            raise ShapeError(f"contrib.while_loop: shapes of the {k}-th elements of "
                             f"step_output differ between steps: "
                             f"{[tuple(x.shape) for x in items]}")
        out = stack(*items, axis=0)
        if steps < max_iterations:
            pad = zeros((max_iterations - steps,) + tuple(items[0].shape),
                        dtype=items[0].dtype)
            out = concat(out, pad, dim=0)
        stacked.append(out)
    if out_fmt is not None:
        stacked, _ = _regroup(stacked, out_fmt)
    if single:
        lvars = lvars[0]
    return stacked, lvars


def cond(pred: NDArray, then_func, else_func):
    """``then_func()`` if ``pred`` (a one-element NDArray) is non-zero, else ``else_func()``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> from mxgrad.ndarray import contrib
    >>> a, b = mx.nd.array([1]), mx.nd.array([2])
    >>> contrib.cond(a * b < 5, lambda: (a + 5) * (b + 5), lambda: (a - 5) * (b - 5))
    <BLANKLINE>
    [42.]
    <NDArray 1 @cpu(0)>
    """
    if _as_bool(pred, "contrib.cond: pred"):
        return then_func()
    return else_func()



# every error on bad arguments is an MXNetError naming the argument (issue 11)
from .._check import guard_namespace as _guard_namespace  # noqa: E402
_guard_namespace(globals(), "nd.contrib")

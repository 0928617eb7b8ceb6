"""Indexing: ``take``, ``pick``, ``gather_nd``/``scatter_nd``, ``one_hot``, ``where``,
``boolean_mask`` and the NDArray ``[]`` operators.

Every gather is the ``_index`` op of :mod:`mxgrad.ops.shape` (its gradient scatters
back with accumulation, so repeated indices add up) and every scatter its adjoint
``_index_add``; both are linear and differentiable to any order.

``x[key]`` follows MXNet 1.9: ints, slices (with steps), ``...``, ``None`` and integer
arrays (NDArray, NumPy or lists; float arrays are truncated to ints, as MXNet does),
NumPy-style advanced indexing. Indexing every dimension with an int gives shape
``(1,)`` (MXNet has no 0-d arrays). A basic index whose result is contiguous in
memory returns a view sharing the buffer (as in MXNet); otherwise a copy. Boolean
index arrays (NumPy ``bool`` or NDArrays of dtype ``bool``) select like NumPy's masks;
note that a float NDArray such as ``x > 0`` is 0.0/1.0 and indexes like integers, as
in MXNet.

Examples
--------
>>> import mxgrad as mx
>>> x = mx.nd.arange(6).reshape((2, 3))
>>> x[1, 2]
<BLANKLINE>
[5.]
<NDArray 1 @cpu(0)>
>>> x[:, [0, 2]].shape
(2, 2)
"""
from __future__ import annotations

import functools
from typing import Any, Optional, Sequence, Union

from typing_extensions import overload

from numbers import Number

import numpy as np

from .._check import as_int, as_real
from ..base import DTypeError, InPlaceError, OutOfRangeError, ShapeError, StateError, as_dtype
from .._engine.ndarray import NDArray, wrap
from . import _dtype_rules as _dr
from . import _shape_rules as _sr
from ._apply import records
from ._core import PerCall, defop, call, call1, as_array, inplace_apply, linear_pair, no_grad
from ._mxnet_op import mxnet_op
from .reduce import reshape_exact, broadcast_to
from .shape import (index_spec, index_apply, index_add_apply, _axis, _arr, _isint,
                    _index_fwd, _index_add_fwd)
from .._typing import DTypeLike

__all__ = ["index_assign", "take", "batch_take", "pick", "gather_nd", "scatter_nd", "one_hot",
           "where", "boolean_mask", "ravel_multi_index", "unravel_index"]


def _int_indices(indices, op):
    """Index values as an int64 NumPy array (floats truncated, as MXNet casts them)."""
    if isinstance(indices, NDArray):
        a = indices._data
    elif isinstance(indices, np.ndarray):
        a = indices
    elif isinstance(indices, (list, tuple, range)) or _isint(indices):
        a = np.asarray(indices)
    else:
        raise DTypeError(f"{op}: indices must be an NDArray, a NumPy array or a list, got "
                         f"{type(indices).__name__}")
    if a.dtype.kind not in "iu":
        if a.dtype.kind not in "fb":
            raise DTypeError(f"{op}: indices must be numbers, got dtype {a.dtype}")
        if a.dtype.kind == "f" and not np.all(np.isfinite(a)):
            raise ShapeError(f"{op}: indices contain NaN or infinity")
        a = a.astype(np.int64)
    return a


def _fix_mode(idx, n, mode, op):
    if mode == "clip":
        return np.clip(idx, 0, max(n - 1, 0))
    if mode == "wrap":
        return np.mod(idx, n) if n else idx
    if mode == "raise":
        if idx.size and (idx.min() < 0 or idx.max() >= n):
            bad = idx.min() if idx.min() < 0 else idx.max()
            raise OutOfRangeError(f"{op}: index {int(bad)} is out of range [0, {n}) (mode='raise')")
        return idx
    raise StateError(f"{op}: unknown mode {mode!r}; use 'clip', 'wrap' or 'raise'")


_no_grad = no_grad


class _Key(PerCall):
    """The NumPy key (or ``_index`` attributes) one call of an indexing op made from its
    index input: made once (the public function's checks make it; in a planned graph,
    the forward), then read by the forward and by the adjoint of the same call."""
    __slots__ = ("key",)

    def __init__(self):
        self.key = None


def _held(held, make, *args):
    """``held.key``, made by ``make(*args)`` if it is not made yet (no holder: made)."""
    if held is None:
        return make(*args)
    if held.key is None:
        held.key = make(*args)
    return held.key


# ===================================================================== take
def take(a: NDArray, indices: NDArray, axis: int = 0, mode: str = "clip", **kwargs: Any
         ) -> NDArray:
    """Take slices of ``a`` along ``axis`` at ``indices``.

    The result has shape ``a.shape[:axis] + indices.shape + a.shape[axis+1:]``.
    ``mode='clip'`` (default) clamps indices into range (so -1 becomes 0), ``'wrap'``
    wraps them around, ``'raise'`` refuses them. The gradient accumulates over repeated
    indices.

    Examples
    --------
    >>> import mxgrad as mx
    >>> x = mx.nd.array([[1, 2], [3, 4], [5, 6]])
    >>> mx.nd.take(x, mx.nd.array([0, 2, 2]))
    <BLANKLINE>
    [[1. 2.]
     [5. 6.]
     [5. 6.]]
    <NDArray 3x2 @cpu(0)>
    >>> mx.nd.take(x, mx.nd.array([-1, 3]), mode='wrap')[:, 0]
    <BLANKLINE>
    [5. 1.]
    <NDArray 2 @cpu(0)>
    """
    a = _arr(a, "take")
    ax = _axis(axis, a.ndim, "take")
    if not isinstance(indices, (NDArray, np.ndarray)):
        indices = np.asarray(_int_indices(indices, "take"))
    held = _Key()
    idx = _held(held, _take_key, indices, tuple(a.shape), ax, mode)[-1]   # the checks first
    if a.shape[ax] == 0 and idx.size:
        raise ShapeError(f"take: cannot take from the empty axis {ax} of shape {a.shape}")
    return call(_TAKE, (a, indices), {"ashape": tuple(a.shape), "axis": ax, "mode": mode,
                                      "key": held})


def _take_shape(kw, ins, outs):
    """take's shape rule: the data's shape with the indices' shape in place of ``axis``."""
    a, idx = ins
    if a is None or idx is None:
        return list(ins), list(outs)
    ax = int(kw.get("axis", 0)) % len(a)
    return list(ins), [_sr.merge(outs[0], tuple(a[:ax]) + tuple(idx) + tuple(a[ax + 1:]))]


# the indexing operators' output has the data's dtype; the indices are of any dtype
_indices_dtype = _dr.free(1)
mxnet_op("take", ("a", "indices"), shape=_take_shape, dtype=_indices_dtype)


def _take_key(indices, ashape, axis, mode):
    """The NumPy key of ``take``: full slices before ``axis``, then the int indices."""
    idx = _int_indices(indices, "take")
    if idx.ndim == 0:
        idx = idx.reshape(1)
    return (slice(None),) * axis + (_fix_mode(idx, ashape[axis], mode, "take"),)


def _take_fwd(a, indices, ashape, axis, mode, key=None):
    return a[_held(key, _take_key, indices, ashape, axis, mode)]


def _take_t_fwd(g, indices, ashape, axis, mode, key=None):
    """The adjoint of ``take``: ``g`` added into zeros of ``ashape`` at the indices
    (repeated indices add up, in order)."""
    z = np.zeros(ashape, dtype=g.dtype)
    np.add.at(z, _held(key, _take_key, indices, ashape, axis, mode), g)
    return z


# take is one op of (data, indices) whose forward makes the key from the indices (so a
# planned graph runs it as an op step); the indices get no gradient. Both ops take the
# same attributes (``ashape``: the data's shape).
_TAKE, _TAKE_T = linear_pair("take", _take_fwd, "_take_backward", _take_t_fwd)


def batch_take(a: NDArray, indices: NDArray, **kwargs: Any) -> NDArray:
    """``out[i] = a[i, indices[i]]`` for a 2-D ``a`` (clipped indices).

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.batch_take(mx.nd.array([[1, 2], [3, 4]]), mx.nd.array([1, 0]))
    <BLANKLINE>
    [2. 3.]
    <NDArray 2 @cpu(0)>
    """
    a = _arr(a, "batch_take")
    if a.ndim != 2:
        raise ShapeError(f"batch_take needs a 2-D array, got shape {a.shape}")
    return pick(a, indices, axis=1)


mxnet_op("batch_take", ("a", "indices"), dtype=_indices_dtype)


# ===================================================================== pick
def _pick_index(index, shape, ax, mode):
    """The int indices of ``pick`` along axis ``ax`` of an array of ``shape``, shaped
    like it with that axis 1 (``index`` has the shape without it, or with it as 1, or
    broadcasts to that), clipped/wrapped by ``mode``."""
    idx = _int_indices(index, "pick")
    kshape = shape[:ax] + (1,) + shape[ax + 1:]
    rshape = shape[:ax] + shape[ax + 1:]
    if idx.shape == rshape or (idx.size == 1 and not rshape):
        idx = idx.reshape(kshape)
    elif idx.shape != kshape:
        try:
            idx = np.broadcast_to(idx.reshape(idx.shape[:ax] + (1,) + idx.shape[ax:])
                                  if idx.ndim == len(rshape) else idx, kshape)
        except ValueError:
            raise ShapeError(f"pick: index of shape {idx.shape} does not fit data of shape "
                             f"{shape} along axis {ax}; it must have shape {rshape} or "
                             f"{kshape}") from None
    return _fix_mode(idx, shape[ax], mode, "pick")


def _pick_oshape(shape, ax, keepdims):
    if keepdims:
        return shape[:ax] + (1,) + shape[ax + 1:]
    return shape[:ax] + shape[ax + 1:] or (1,)


@functools.lru_cache(maxsize=64)
def _pick_grids(shape, ax):
    """``arange`` of every axis but ``ax``, shaped to broadcast (read-only, cached)."""
    grids = []
    for i, n in enumerate(shape):
        g = None
        if i != ax:
            g = np.arange(n).reshape(tuple(n if j == i else 1 for j in range(len(shape))))
            g.flags.writeable = False
        grids.append(g)
    return tuple(grids)


def _pick_key(index, shape, ax, mode):
    """The NumPy key of ``pick``: the indices along ``ax``, aranges on the other axes."""
    key = list(_pick_grids(shape, ax))
    key[ax] = _pick_index(index, shape, ax, mode)
    return tuple(key)


def _pick_fwd(x, index, xshape, axis, keepdims, mode, key=None):
    r = x[_held(key, _pick_key, index, xshape, axis, mode)]
    return r.reshape(_pick_oshape(xshape, axis, keepdims))


def _pick_t_fwd(g, index, xshape, axis, keepdims, mode, key=None):
    """The adjoint of ``pick``: ``g`` put at the picked positions of zeros of ``xshape``
    (one position per row along ``axis``: nothing adds up)."""
    z = np.zeros(xshape, dtype=g.dtype)
    k = _held(key, _pick_key, index, xshape, axis, mode)
    z[k] = g.reshape(k[axis].shape)
    return z


# pick is one op of (data, index): its forward finds the positions from the index (so a
# planned graph runs it as an op step); the index gets no gradient, as in MXNet. Both ops
# take the same attributes (``xshape``: the data's shape).
_PICK, _PICK_T = linear_pair("pick", _pick_fwd, "_pick_backward", _pick_t_fwd)


def pick(data: NDArray, index: NDArray, axis: Optional[int] = -1, keepdims: bool = False,
         mode: str = "clip", **kwargs: Any) -> NDArray:
    """Pick one element along ``axis`` for every position of the other axes.

    ``index`` has the shape of ``data`` without ``axis`` (or with it as 1). Indices
    are clipped (``mode='clip'``, default) or wrapped (``'wrap'``).

    Examples
    --------
    >>> import mxgrad as mx
    >>> x = mx.nd.array([[1, 2], [3, 4], [5, 6]])
    >>> mx.nd.pick(x, mx.nd.array([0, 1, 0]), axis=1)
    <BLANKLINE>
    [1. 4. 5.]
    <NDArray 3 @cpu(0)>
    >>> mx.nd.pick(x, mx.nd.array([0, 1, 0]), axis=1, keepdims=True).shape
    (3, 1)
    """
    data = _arr(data, "pick")
    if axis is None:
        idx = _int_indices(index, "pick")
        flat = reshape_exact(data, (data.size,))
        idx = _fix_mode(idx.reshape(-1), data.size, mode, "pick")
        r = index_apply(flat, index_spec(flat.shape, (idx,), copy=True))
        return r
    ax = _axis(axis, data.ndim, "pick")
    if not isinstance(index, (NDArray, np.ndarray)):
        index = np.asarray(_int_indices(index, "pick"))
    held = _Key()
    _held(held, _pick_key, index, tuple(data.shape), ax, mode)   # the checks, before recording
    return call(_PICK, (data, index), {"xshape": tuple(data.shape), "axis": ax,
                                       "keepdims": bool(keepdims), "mode": mode, "key": held})


def _pick_shape(kw, ins, outs):
    """pick's shape rule (MXNet's PickOpShape): the output is the data reduced over
    ``axis`` (kept as 1 with ``keepdims``); the index has the data's rank with a 1 there,
    or the reduced shape (also when it is unknown)."""
    d, idx = ins
    o = outs[0]
    axis = kw.get("axis", -1)
    if d is None or axis is None:
        return [d, idx], [_sr.merge(o, idx) if not kw.get("keepdims") else o]
    ax = int(axis) % len(d)
    kept = tuple(1 if i == ax else v for i, v in enumerate(d))
    dropped = tuple(v for i, v in enumerate(d) if i != ax)
    o = _sr.merge(o, kept if bool(kw.get("keepdims", False)) else dropped)
    idx = _sr.merge(idx, kept if idx is not None and len(idx) == len(d) else dropped)
    return [d, idx], [o]


mxnet_op("pick", ("data", "index"), shape=_pick_shape, dtype=_indices_dtype)


# ========================================================= gather / scatter nd
def _nd_key(indices, op):
    idx = _int_indices(indices, op)
    if idx.ndim == 0:
        idx = idx.reshape(1)
    return tuple(idx[i] for i in range(idx.shape[0])), idx


def gather_nd(data: NDArray, indices: NDArray, **kwargs: Any) -> NDArray:
    """Gather by multi-indices: ``indices`` of shape ``(M, Y0, ..., Yk)`` indexes the
    first ``M`` dimensions; the result has shape ``(Y0, ..., Yk) + data.shape[M:]``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> data = mx.nd.array([[0, 1], [2, 3]])
    >>> mx.nd.gather_nd(data, mx.nd.array([[1, 1, 0], [0, 1, 0]]))
    <BLANKLINE>
    [2. 3. 0.]
    <NDArray 3 @cpu(0)>
    """
    data = _arr(data, "gather_nd")
    if not isinstance(indices, (NDArray, np.ndarray)):
        indices = np.asarray(_int_indices(indices, "gather_nd"))
    held = _Key()
    _held(held, _gather_nd_spec, indices, tuple(data.shape))   # the checks, before recording
    return call(_GATHER_ND, (data, indices), {"dshape": tuple(data.shape), "key": held})


mxnet_op("gather_nd", ("data", "indices"), dtype=_indices_dtype)


def _gather_nd_spec(indices, dshape):
    """The ``_index`` attributes of ``gather_nd`` on data of shape ``dshape``."""
    key, idx = _nd_key(indices, "gather_nd")
    if len(key) > len(dshape):
        raise ShapeError(f"gather_nd: indices of shape {idx.shape} index {len(key)} "
                         f"dimensions, data of shape {dshape} has {len(dshape)}")
    kn = index_spec(dshape, key, copy=True)
    kn["oshape"] = (tuple(idx.shape[1:]) + tuple(dshape[len(key):])) or (1,)
    return kn


# gather_nd is one op of (data, indices) whose forward makes the key from the indices (so
# a planned graph runs it as an op step); its adjoint scatter-adds (repeated positions add
# up); the indices get no gradient. Both ops take the data's shape (``dshape``).
_GATHER_ND, _GATHER_ND_T = linear_pair(
    "gather_nd", lambda x, i, dshape, key=None: _index_fwd(
        x, **_held(key, _gather_nd_spec, i, dshape)),
    "_gather_nd_backward", lambda g, i, dshape, key=None: _index_add_fwd(
        g, **_held(key, _gather_nd_spec, i, dshape)))


def scatter_nd(data: NDArray, indices: NDArray, shape: Sequence[int], **kwargs: Any) -> NDArray:
    """Scatter ``data`` into zeros of ``shape`` at the multi-indices ``indices`` (the
    inverse of :func:`gather_nd`; repeated indices add up).

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.scatter_nd(mx.nd.array([2, 3, 0]), mx.nd.array([[1, 1, 0], [0, 1, 0]]),
    ...                  shape=(2, 2))
    <BLANKLINE>
    [[0. 0.]
     [2. 3.]]
    <NDArray 2x2 @cpu(0)>
    """
    data = _arr(data, "scatter_nd")
    shape = tuple(int(s) for s in shape)
    key, idx = _nd_key(indices, "scatter_nd")
    if len(key) > len(shape):
        raise ShapeError(f"scatter_nd: indices of shape {idx.shape} index {len(key)} "
                         f"dimensions, the target shape {shape} has {len(shape)}")
    want = tuple(idx.shape[1:]) + shape[len(key):]
    if tuple(data.shape) != (want or (1,)):
        raise ShapeError(f"scatter_nd: data of shape {data.shape} does not fit indices of "
                         f"shape {idx.shape} and target shape {shape}; data must have shape "
                         f"{want or (1,)}")
    kn = index_spec(shape, key, copy=True)
    kn["oshape"] = want or (1,)
    return index_add_apply(data, kn)


# ================================================================== one_hot
def _one_hot_fwd(idx, depth, on, off, dtype):
    i = idx.astype(np.int64) if idx.dtype.kind != "i" else idx
    hot = i[..., None] == np.arange(depth)
    return np.where(hot, np.asarray(on, dtype), np.asarray(off, dtype))


_ONE_HOT = defop("one_hot", _one_hot_fwd, None, None, save=())


@overload
def one_hot(indices: np.ndarray, depth: int, on_value: float = 1.0, off_value: float = 0.0,
            dtype: DTypeLike = "float32", **kwargs: Any) -> np.ndarray: ...
@overload
def one_hot(indices: Union[NDArray, Sequence[int]], depth: int, on_value: float = 1.0,
            off_value: float = 0.0, dtype: DTypeLike = "float32", **kwargs: Any) -> NDArray: ...
def one_hot(indices: Union[NDArray, np.ndarray, Sequence[int]], depth: int,
            on_value: float = 1.0, off_value: float = 0.0, dtype: DTypeLike = "float32",
            **kwargs: Any) -> Union[NDArray, np.ndarray]:
    """One-hot encoding: shape ``indices.shape + (depth,)``, float32 by default.
    Indices outside ``[0, depth)`` give a row of ``off_value``. Not differentiable.

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.one_hot(mx.nd.array([1, 0, 2]), 3)
    <BLANKLINE>
    [[0. 1. 0.]
     [1. 0. 0.]
     [0. 0. 1.]]
    <NDArray 3x3 @cpu(0)>
    """
    if isinstance(indices, (list, tuple)):
        indices = np.asarray(indices)
    if type(indices) is not np.ndarray:
        indices = as_array(indices, "one_hot", "indices")
    depth = as_int(depth, "one_hot: depth", minimum=0)
    on = as_real(on_value, "one_hot: on_value", finite=False)
    off = as_real(off_value, "one_hot: off_value", finite=False)
    return call1(_ONE_HOT, indices, {"depth": depth, "on": on, "off": off,
                                     "dtype": as_dtype(dtype)})


def _one_hot_shape(kw, ins, outs):
    """one_hot's shape rule: the indices' shape with ``depth`` appended."""
    if ins[0] is None:
        return list(ins), list(outs)
    return list(ins), [_sr.merge(outs[0], tuple(ins[0]) + (int(kw["depth"]),))]


# the output has the ``dtype`` attribute (float32 without one)
mxnet_op("one_hot", ("indices",), shape=_one_hot_shape, dtype=_dr.from_attr())


# ==================================================================== where
def _cond_mask(c, xshape):
    if c.shape != xshape and c.ndim == 1 and len(xshape) > 1:
        c = c.reshape(c.shape + (1,) * (len(xshape) - 1))
    return c != 0


def _where_fwd(c, x, y):
    m = _cond_mask(c, x.shape)
    r = np.where(m, x, y)
    if r.dtype != x.dtype:
        r = r.astype(x.dtype)
    return r


def _zeros(g):
    from .elemwise import zeros_like
    return zeros_like(g)


_WHERE = defop(
    "where", _where_fwd,
    [lambda g, out, c, x, y: None,
     lambda g, out, c, x, y: where(c, g, _zeros(g)),
     lambda g, out, c, x, y: where(c, _zeros(g), g)],
    [lambda t, out, c, x, y: None,
     lambda t, out, c, x, y: where(c, t, _zeros(t)),
     lambda t, out, c, x, y: where(c, _zeros(t), t)],
    save=(0,))


def where(condition: NDArray, x: NDArray, y: NDArray, **kwargs: Any) -> NDArray:
    """``x`` where ``condition`` is non-zero, else ``y``.

    ``condition`` has the shape of ``x`` or is 1-D of length ``x.shape[0]`` (it then
    selects whole rows, as in MXNet). The gradient goes to ``x`` where the condition
    holds and to ``y`` elsewhere; none to the condition.

    Examples
    --------
    >>> import mxgrad as mx
    >>> c = mx.nd.array([[1, 0], [0, 1]])
    >>> mx.nd.where(c, mx.nd.ones((2, 2)), mx.nd.zeros((2, 2)))
    <BLANKLINE>
    [[1. 0.]
     [0. 1.]]
    <NDArray 2x2 @cpu(0)>
    >>> mx.nd.where(mx.nd.array([0, 1]), mx.nd.ones((2, 2)), mx.nd.zeros((2, 2)))
    <BLANKLINE>
    [[0. 0.]
     [1. 1.]]
    <NDArray 2x2 @cpu(0)>
    """
    args = []
    for name, v in (("condition", condition), ("x", x), ("y", y)):
        if type(v) is not np.ndarray and not isinstance(v, NDArray):
            v = as_array(v, "where", name)
        args.append(v)
    c, xa, ya = args
    if tuple(c.shape) != tuple(xa.shape) and not (c.ndim == 1 and xa.ndim >= 1
                                                   and c.shape[0] == xa.shape[0]):
        raise ShapeError(f"where: condition of shape {tuple(c.shape)} must have the shape of "
                         f"x {tuple(xa.shape)} or be 1-D of length x.shape[0]")
    return call(_WHERE, (c, xa, ya))


def _where_shape(kw, ins, outs):
    """where's shape rule: ``x``, ``y`` and the output one shape; the condition that
    shape or, as a vector, its first dimension."""
    c, x, y = ins
    if not _sr.known(c):
        return list(ins), list(outs)
    s = _sr.merge(_sr.merge(_sr.merge(None, x), y), outs[0])
    if _sr.known(s) and (c != s if len(c) == len(s) else len(c) != 1 or c[0] != s[0]):
        raise ShapeError(f"where: condition {_sr.fmt(c)} does not match {_sr.fmt(s)}")
    return [c, s, s], [s]


# the output has the dtype of x and y; the condition is of any dtype
mxnet_op("where", ("condition", "x", "y"), shape=_where_shape, dtype=_dr.free(0))


# ============================================================= boolean_mask
def boolean_mask(data: NDArray, index: NDArray, axis: int = 0, **kwargs: Any) -> NDArray:
    """Keep the slices along ``axis`` where ``index`` is non-zero (``index`` is 1-D of
    length ``data.shape[axis]``).

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.boolean_mask(mx.nd.array([[1, 2], [3, 4], [5, 6]]), mx.nd.array([0, 1, 1]))
    <BLANKLINE>
    [[3. 4.]
     [5. 6.]]
    <NDArray 2x2 @cpu(0)>
    """
    data = _arr(data, "boolean_mask")
    ax = _axis(axis, data.ndim, "boolean_mask")
    m = index._data if isinstance(index, NDArray) else np.asarray(index)
    if m.ndim != 1 or m.shape[0] != data.shape[ax]:
        raise ShapeError(f"boolean_mask: index of shape {m.shape} must be 1-D of length "
                         f"{data.shape[ax]} (axis {ax} of shape {data.shape})")
    sel = np.nonzero(m)[0]
    key = (slice(None),) * ax + (sel,)
    return index_apply(data, index_spec(data.shape, key, copy=True))


# ============================================================ ravel / unravel
def _strides(shape):
    st_ = [1] * len(shape)
    for i in range(len(shape) - 2, -1, -1):
        st_[i] = st_[i + 1] * int(shape[i + 1])
    return st_


def ravel_multi_index(data: NDArray, shape: Sequence[int], **kwargs: Any) -> NDArray:
    """Flat indices from multi-indices: ``data`` of shape ``(ndim, N)`` gives shape
    ``(N,)`` (the first entry of ``shape`` may be -1). Not differentiable.

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.ravel_multi_index(mx.nd.array([[3, 6, 6], [4, 5, 1]]), shape=(7, 6))
    <BLANKLINE>
    [22. 41. 37.]
    <NDArray 3 @cpu(0)>
    """
    d = data._data if isinstance(data, NDArray) else np.asarray(data)
    shape = tuple(int(s) for s in shape)
    if d.shape[0] != len(shape):
        raise ShapeError(f"ravel_multi_index: data of shape {d.shape} must have {len(shape)} "
                         f"rows, one per dimension of shape {shape}")
    flat = np.tensordot(np.asarray(_strides(shape), np.int64), d.astype(np.int64), axes=1)
    return wrap(np.asarray(flat).astype(d.dtype).reshape(d.shape[1:] or (1,)))


def unravel_index(data: NDArray, shape: Sequence[int], **kwargs: Any) -> NDArray:
    """Multi-indices from flat indices: ``data`` of shape ``(N,)`` gives shape
    ``(ndim, N)`` (the first entry of ``shape`` may be -1). Not differentiable.

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.unravel_index(mx.nd.array([22, 41, 37]), shape=(7, 6))
    <BLANKLINE>
    [[3. 6. 6.]
     [4. 5. 1.]]
    <NDArray 2x3 @cpu(0)>
    """
    d = data._data if isinstance(data, NDArray) else np.asarray(data)
    shape = tuple(int(s) for s in shape)
    flat = d.astype(np.int64)
    rows = []
    for i, stride in enumerate(_strides(shape)):
        q = flat // stride
        rows.append(q if i == 0 else q % shape[i])
        flat = flat - q * stride if i else flat % stride
    return wrap(np.stack(rows).astype(d.dtype))


# ======================================================== __getitem__ / set
def _getitem(self, key):
    """``x[key]``: see the module docstring for the supported keys.

    Examples
    --------
    >>> import mxgrad as mx
    >>> x = mx.nd.arange(8).reshape((2, 2, 2))
    >>> x[0, ..., 1]
    <BLANKLINE>
    [1. 3.]
    <NDArray 2 @cpu(0)>
    >>> x[None, 1].shape
    (1, 2, 2)
    """
    d = self._data
    # fast path: one int on an array of 2+ dims (a contiguous row view)
    if _isint(key) and d.ndim > 1 and d.flags.c_contiguous and d.flags.writeable:
        n = d.shape[0]
        if not -n <= key < n:
            raise OutOfRangeError(f"index {key} is out of bounds for axis 0 with size {n}")
        kn = {"key": (slice(int(key) % n, int(key) % n + 1),), "xshape": d.shape,
              "ishape": d.shape, "mid": (1,) + d.shape[1:], "oshape": d.shape[1:],
              "basic": True, "copy": False}
        return index_apply(self, kn)
    return gather(self, key)


def gather(x, key, zero_d: bool = False):
    """``x[key]`` by NumPy's rules (:func:`index_spec`; ``zero_d``: NumPy's 0-d results,
    the ``mx.np`` face): a view of ``x`` when the region is contiguous, else a copy;
    differentiable."""
    d = x._data
    kn = index_spec(d.shape, key, copy=False, zero_d=zero_d)
    if kn["basic"]:
        xs = kn["xshape"]
        probe = (d.reshape(xs) if xs != d.shape else d)[kn["key"]]
        kn["copy"] = not (probe.flags.c_contiguous and probe.flags.writeable)
    else:
        kn["copy"] = True
    return index_apply(x, kn)


def _prepare_value(value, oshape, dtype, op="setitem"):
    """Value as an array broadcastable to ``oshape`` (leading 1-dims trimmed, as MXNet)."""
    if isinstance(value, NDArray):
        v = value
        vs = v.shape
    else:
        v = np.asarray(value, dtype=dtype)
        vs = v.shape
    if len(vs) > len(oshape):
        lead = len(vs) - len(oshape)
        if any(s != 1 for s in vs[:lead]):
            raise ShapeError(f"{op}: cannot assign a value of shape {vs} to a region of shape "
                             f"{oshape}")
        vs = vs[lead:] or (1,)
        v = reshape_exact(v, vs) if isinstance(v, NDArray) else v.reshape(vs)
    try:
        np.broadcast_shapes(vs, oshape)
        if np.broadcast_shapes(vs, oshape) != tuple(oshape):
            raise ValueError
    except ValueError:
        raise ShapeError(f"{op}: cannot broadcast a value of shape {tuple(vs)} to the indexed "
                         f"region of shape {tuple(oshape)}") from None
    return v


def _target(d, xshape):
    """``d`` reshaped to ``xshape`` as a view, or (copy, True) when it cannot be."""
    if d.shape == xshape:
        return d, False
    v = d.reshape(xshape)
    if np.may_share_memory(v, d):
        return v, False
    return v, True


def _setitem_fwd(old, v, key, xshape, ishape, mid, oshape, basic, copy):
    r = old.copy()
    t = r.reshape(xshape)
    t[key] = v.reshape(mid)
    return r


def _fill0_fwd(g, key, xshape, ishape, mid, oshape, basic, copy):
    r = g.copy()
    r.reshape(xshape)[key] = 0
    return r


def _fill0(g, kn):
    return call1(_FILL0, g, kn)


_FILL0 = defop("_index_fill0", _fill0_fwd, [lambda g, y, x, **kn: _fill0(g, kn)],
               [lambda t, y, x, **kn: _fill0(t, kn)], save=())

_SETITEM = defop(
    "setitem", _setitem_fwd,
    [lambda g, y, old, v, **kn: _fill0(g, kn),
     lambda g, y, old, v, **kn: index_apply(g, dict(kn, copy=False))],
    [lambda t, y, old, v, **kn: _fill0(t, kn),
     lambda t, y, old, v, **kn: index_add_apply(t, kn)],
    save=())


def _assign(data: NDArray, kn: dict, value: NDArray) -> NDArray:
    v = _prepare_value(value, kn["oshape"], data._data.dtype)
    if v.dtype != data._data.dtype:
        v = v.astype(data._data.dtype)
    if tuple(v.shape) != tuple(kn["oshape"]):
        v = broadcast_to(v, kn["oshape"])
    return call(_SETITEM, (data, v), kn)


def index_assign(data: NDArray, key: Any, value: Any) -> NDArray:
    """``data`` with ``data[key]`` replaced by ``value``, out of place: a new array,
    recorded (gradients flow to ``data`` outside the region and to ``value``), where
    ``x[key] = value`` would be an in-place write. MXNet's ``_slice_assign`` and
    ``_crop_assign`` are this for slices.

    Examples
    --------
    >>> import mxgrad as mx
    >>> x = mx.nd.zeros((2, 3))
    >>> mx.nd.index_assign(x, (slice(None), 1), mx.nd.array([5, 6]))
    <BLANKLINE>
    [[0. 5. 0.]
     [0. 6. 0.]]
    <NDArray 2x3 @cpu(0)>
    """
    data = as_array(data, "index_assign")
    if not isinstance(value, NDArray):
        value = wrap(np.asarray(value, dtype=data._data.dtype).reshape(
            np.shape(value) or (1,)))
    return _assign(data, index_spec(data._data.shape, key, copy=False), value)


def _whole(key) -> bool:
    """Whether ``x[key] = v`` assigns the whole array (MXNet's copy, not an in-place op)."""
    return (key is None or key is Ellipsis or (isinstance(key, tuple) and not key) or
            (isinstance(key, slice) and key == slice(None)))


def _setitem(self, key, value):
    """``x[key] = value``: writes into ``x``'s buffer (a scalar, a NumPy array, a list
    or an NDArray broadcast to the indexed region).

    Outside ``autograd.record()`` (or when nothing is in a graph) this is a plain
    in-place write that bumps the array's version, so a saved copy of it is detected
    at backward. Inside ``record()``, as in MXNet, writing into an array that is in the
    graph, or writing a recorded value into part of an array, raises
    :class:`~mxgrad.base.InPlaceError`; assigning a recorded value to the whole of an
    array not in the graph (``x[:] = value``, ``x[...]``, ``x[None]``) records a copy:
    the array takes the value's history and gradients flow to the value.

    Examples
    --------
    >>> import mxgrad as mx
    >>> x = mx.nd.zeros((2, 3))
    >>> x[:, 1:] = 2
    >>> x[1] = mx.nd.array([7, 8, 9])
    >>> x
    <BLANKLINE>
    [[0. 2. 2.]
     [7. 8. 9.]]
    <NDArray 2x3 @cpu(0)>
    """
    self._check_writable()
    d = self._data
    kn = index_spec(d.shape, key, copy=False)
    oshape, mid = kn["oshape"], kn["mid"]
    is_nd = isinstance(value, NDArray)
    recorded = is_nd and records(value)
    if recorded and (not _whole(key) or d.dtype.kind != "f"):   # an integer target ends the graph
        raise InPlaceError(
            f"Inplace operations (+=, -=, x[:]=, etc) are not supported when recording "
            f"with autograd (as in MXNet): x[{key!r}] = value writes a recorded value into "
            f"part of an array of shape {self.shape}. Assign the whole array (x[:] = value), "
            f"or build the result out of place (nd.concat, nd.where, ...)")
    if recorded or (is_nd and (value._tan is not None or self._tan is not None)):
        snap = wrap(d.copy())
        snap._tan = self._tan
        r = _assign(snap, kn, value)
        inplace_apply(self, r)
        self._tan = r._tan
        return
    if isinstance(value, Number) and not isinstance(value, complex):
        val = value
    else:
        val = _prepare_value(value._data if is_nd else value, oshape, d.dtype)
        if tuple(val.shape) != tuple(oshape):
            val = np.broadcast_to(val, oshape)
        val = val.reshape(mid)
    t, copied = _target(d, kn["xshape"])
    try:
        t[kn["key"]] = val
    except ValueError as err:
        raise ShapeError(f"setitem: cannot assign the value to the region of shape {oshape} "
                         f"({err})") from None
    if copied:
        d[...] = t.reshape(d.shape)
    self._write()
    if self._tan is not None:
        tz = self._tan._data.copy()
        tz.reshape(kn["xshape"])[kn["key"]] = 0
        self._tan = wrap(tz)



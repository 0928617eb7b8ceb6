"""Ordering ops: ``argmax``, ``argmin``, ``argsort``, ``sort`` and ``topk``, as in MXNet 1.9.

Indices are returned as *floating point* arrays by default, as MXNet does: ``argmax`` and
``argmin`` in the input's dtype (float32 for the usual float32 data), ``argsort`` and
``topk`` in their ``dtype`` argument (default ``'float32'``). Index outputs are not
differentiable (MXNet gives them a zero gradient). ``sort`` and the values of ``topk``
are differentiable: they gather elements along an axis, and the gradient scatters the
output gradient back through the same permutation (the private ``_take_along`` /
``_put_along`` op pair below, each the other's gradient, so higher orders work too).

Ties are ordered by position (the lower index first), for ascending and descending
order alike; MXNet leaves the order of ties unspecified.
"""
from __future__ import annotations

from typing import Any, List, Optional, Sequence, Union

from typing_extensions import Literal, overload

import numpy as np

from ..base import DTypeError, ShapeError, StateError, as_dtype
from .._engine.ndarray import NDArray, wrap
from . import _dtype_rules as _dr
from ._apply import records
from ._core import defop, call1, as_array, inplace_apply
from ._mxnet_op import mxnet_op
from .reduce import reshape_exact
from .._typing import DTypeLike

__all__ = ["argmax", "argmin", "argmax_channel", "argsort", "sort", "topk"]


def _data(x, op):
    """NumPy data of an op argument (NDArray or NumPy array)."""
    if type(x) is np.ndarray:
        return x
    return as_array(x, op)._data


def _axis(axis, ndim, op):
    try:
        a = int(axis)
    except (TypeError, ValueError):
        raise StateError(f"{op}: axis must be an int or None, got {axis!r}") from None
    if not -ndim <= a < ndim:
        raise ShapeError(f"{op}: axis {a} is out of range for an array with {ndim} "
                         f"dimensions")
    return a % ndim


def _index_dtype(dtype, n, op):
    dt = as_dtype(dtype)
    if dt.kind not in "fiu":
        raise DTypeError(f"{op}: dtype of the indices must be a numeric type, got {dt}")
    if n > 0:
        if dt.kind == "f":
            exact = 2 ** (np.finfo(dt).nmant + 1)
        else:
            exact = np.iinfo(dt).max
        if n - 1 > exact:
            raise DTypeError(f"{op}: dtype {dt} cannot represent the indices up to {n - 1} "
                             f"exactly; choose a wider dtype (e.g. 'int64' or 'float64')")
    return dt


def _sort_key(x, is_ascend):
    """An array whose ascending order is the wanted order of ``x``."""
    if is_ascend:
        return x
    if x.dtype.kind == "f":
        return -x
    if x.dtype.kind == "b":
        x = x.astype(np.uint8)
    return ~x  # reverses the order of signed and unsigned integers without overflow


def _order(x, axis, is_ascend, k=None):
    """Positions of the first ``k`` (default: all) elements of ``x`` along ``axis`` in
    sorted order. Ties keep the lower index first, in both orders.

    A fast unstable sort (or, for a small ``k``, a partition) is used, falling back on
    a stable sort only when ties make the two differ."""
    key = np.moveaxis(_sort_key(x, is_ascend), axis, -1)
    n = key.shape[-1]
    k = n if k is None else k
    if 0 < k < n and k * 8 <= n:
        part = np.argpartition(key, k - 1, axis=-1)[..., :k]
        sel = np.take_along_axis(key, part, -1)
        kth = sel.max(axis=-1, keepdims=True)
        # unless the k-th value also occurs outside the selection, the selection is
        # exactly the k first elements of the stable order
        if (np.count_nonzero(key == kth, axis=-1)
                == np.count_nonzero(sel == kth, axis=-1)).all():
            part.sort(axis=-1)  # index order, so that the stable sort breaks ties by index
            sel = np.take_along_axis(key, part, -1)
            idx = np.take_along_axis(part, np.argsort(sel, axis=-1, kind="stable"), -1)
            return np.moveaxis(idx, -1, axis)
    idx = np.argsort(key, axis=-1)
    if n > 1:
        sv = np.take_along_axis(key, idx, -1)
        tied = (sv[..., 1:] == sv[..., :-1]).any(axis=-1)
        if tied.any():  # re-sort only the lanes with ties, stably
            idx[tied] = np.argsort(key[tied], axis=-1, kind="stable")
    if k < n:
        idx = idx[..., :k]
    return np.moveaxis(idx, -1, axis)


# ------------------------------------------- differentiable gather / scatter pair
def _take_fwd(x, idx, axis, ishape):
    return np.take_along_axis(x, idx, axis)


def _put_fwd(x, idx, axis, ishape):
    out = np.zeros(ishape, dtype=x.dtype)
    np.put_along_axis(out, idx, x, axis)
    return out


_TAKE = defop("take_along_axis",
              _take_fwd,
              [lambda g, y, x, idx, axis, ishape: _put_along(g, idx, axis, ishape)],
              [lambda t, y, x, idx, axis, ishape: _take_along(t, idx, axis)], save=())
_PUT = defop("put_along_axis",
             _put_fwd,
             [lambda g, y, x, idx, axis, ishape: _take_along(g, idx, axis)],
             [lambda t, y, x, idx, axis, ishape: _put_along(t, idx, axis, ishape)], save=())


def _take_along(x, idx, axis):
    """``x`` gathered along ``axis`` at integer positions ``idx`` (differentiable in x)."""
    return call1(_TAKE, x, {"idx": idx, "axis": axis, "ishape": tuple(x.shape)})


def _put_along(x, idx, axis, shape):
    """Zeros of ``shape`` with ``x`` written along ``axis`` at positions ``idx``
    (positions unique within each lane, as a permutation's are); the transpose of
    :func:`_take_along`."""
    return call1(_PUT, x, {"idx": idx, "axis": axis, "ishape": tuple(shape)})


def _flat_or_axis(data, axis, op):
    """Return (array, axis): the array flattened when ``axis`` is None."""
    if axis is None:
        if type(data) is not np.ndarray:
            data = as_array(data, op)
        return reshape_exact(data, (data.size,)), 0
    if type(data) is not np.ndarray:
        data = as_array(data, op)
    return data, _axis(axis, data.ndim, op)


# ------------------------------------------------------------ argmax / argmin
def _arg_extreme(fn, data, axis, keepdims, op):
    x = _data(data, op)
    if x.size == 0:
        raise ShapeError(f"{op}: cannot take the {op} of an empty array of shape {x.shape}")
    dt = x.dtype if x.dtype.kind in "fiu" else np.dtype(np.float32)
    if axis is None:
        r = np.asarray(fn(x.reshape(-1)))
        shape = (1,) * x.ndim if keepdims else (1,)
        r = r.reshape(shape)
    else:
        a = _axis(axis, x.ndim, op)
        r = fn(x, axis=a, keepdims=bool(keepdims))
        if r.ndim == 0:
            r = r.reshape(1)
    r = r.astype(dt)
    return r if type(data) is np.ndarray else wrap(r, None, 0, type(data))


def argmax(data: NDArray, axis: Optional[int] = None, keepdims: bool = False,
           out: Optional[NDArray] = None, name: Optional[str] = None, **kwargs: Any) -> NDArray:
    """Indices of the maximum values along ``axis`` (the first one among ties).

    With ``axis=None`` the index into the flattened array, of shape ``(1,)``. As in
    MXNet the indices have the input's dtype (float32 for float32 data); no gradient.

    Parameters
    ----------
    data : NDArray
    axis : int, optional
    keepdims : bool, default False

    Examples
    --------
    >>> import mxgrad as mx
    >>> x = mx.nd.array([[0., 1., 2.], [3., 4., 5.]])
    >>> mx.nd.argmax(x, axis=0)
    <BLANKLINE>
    [1. 1. 1.]
    <NDArray 3 @cpu(0)>
    >>> x.argmax(axis=1, keepdims=True)
    <BLANKLINE>
    [[2.]
     [2.]]
    <NDArray 2x1 @cpu(0)>
    >>> x.argmax()
    <BLANKLINE>
    [5.]
    <NDArray 1 @cpu(0)>
    """
    return _write(_arg_extreme(np.argmax, data, axis, keepdims, "argmax"), out)


mxnet_op("argmax")


def argmin(data: NDArray, axis: Optional[int] = None, keepdims: bool = False,
           out: Optional[NDArray] = None, name: Optional[str] = None, **kwargs: Any) -> NDArray:
    """Indices of the minimum values along ``axis`` (the first one among ties).

    With ``axis=None`` the index into the flattened array, of shape ``(1,)``. As in
    MXNet the indices have the input's dtype (float32 for float32 data); no gradient.

    Examples
    --------
    >>> import mxgrad as mx
    >>> x = mx.nd.array([[0., 1., 2.], [3., -4., 5.]])
    >>> mx.nd.argmin(x, axis=1)
    <BLANKLINE>
    [0. 1.]
    <NDArray 2 @cpu(0)>
    >>> x.argmin()
    <BLANKLINE>
    [4.]
    <NDArray 1 @cpu(0)>
    """
    return _write(_arg_extreme(np.argmin, data, axis, keepdims, "argmin"), out)


mxnet_op("argmin")


def argmax_channel(data: NDArray, out: Optional[NDArray] = None, name: Optional[str] = None,
                   **kwargs: Any) -> NDArray:
    """``argmax(data, axis=1)``, MXNet's legacy channel argmax.

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.argmax_channel(mx.nd.array([[0., 1., 2.], [3., 4., 5.]]))
    <BLANKLINE>
    [2. 2.]
    <NDArray 2 @cpu(0)>
    """
    x = _data(data, "argmax_channel")
    return argmax(data, axis=1 if x.ndim > 1 else 0, out=out)


mxnet_op("argmax_channel")


def _write(r, out):
    if out is None:
        return r
    if not isinstance(out, NDArray):
        raise DTypeError(f"out= must be an NDArray, got {type(out).__name__}")
    if not isinstance(r, NDArray):
        r = wrap(np.asarray(r))
    return inplace_apply(out, r)


# ------------------------------------------------------------ argsort / sort
def argsort(data: NDArray, axis: Optional[int] = -1, is_ascend: bool = True,
            dtype: DTypeLike = "float32", out: Optional[NDArray] = None,
            name: Optional[str] = None, **kwargs: Any) -> NDArray:
    """Indices that sort ``data`` along ``axis`` (``axis=None``: the flattened array).

    Ties keep their original order. The indices are ``dtype`` (float32 by default, as
    in MXNet) and have no gradient.

    Parameters
    ----------
    data : NDArray
    axis : int or None, default -1
    is_ascend : bool, default True
    dtype : str, default 'float32'

    Examples
    --------
    >>> import mxgrad as mx
    >>> x = mx.nd.array([[0.3, 0.2, 0.4], [0.1, 0.3, 0.2]])
    >>> mx.nd.argsort(x)
    <BLANKLINE>
    [[1. 0. 2.]
     [0. 2. 1.]]
    <NDArray 2x3 @cpu(0)>
    >>> x.argsort(axis=None, is_ascend=False, dtype='int32')
    <BLANKLINE>
    [2 0 4 1 5 3]
    <NDArray 6 @cpu(0)>
    """
    x = _data(data, "argsort")
    if axis is None:
        x, a = x.reshape(-1), 0
    else:
        a = _axis(axis, x.ndim, "argsort")
    dt = _index_dtype(dtype, x.shape[a] if x.ndim else 1, "argsort")
    r = _order(x, a, bool(is_ascend)).astype(dt)
    return _write(r if type(data) is np.ndarray else wrap(r, None, 0, type(data)), out)


def _argsort_dtype(kw, ins, outs):
    """argsort's dtype rule: the indices have the ``dtype`` attribute (float32 without)."""
    return list(ins), [_dr.as_dtype(kw.get("dtype") or "float32")]


mxnet_op("argsort", dtype=_argsort_dtype)


def sort(data: NDArray, axis: Optional[int] = -1, is_ascend: bool = True,
         out: Optional[NDArray] = None, name: Optional[str] = None, **kwargs: Any) -> NDArray:
    """A sorted copy of ``data`` along ``axis`` (``axis=None``: the flattened array).

    Differentiable: the gradient of each input element is the gradient of the output
    position it was sorted to.

    Parameters
    ----------
    data : NDArray
    axis : int or None, default -1
    is_ascend : bool, default True

    Examples
    --------
    >>> import mxgrad as mx
    >>> x = mx.nd.array([[1., 4.], [3., 1.]])
    >>> mx.nd.sort(x)
    <BLANKLINE>
    [[1. 4.]
     [1. 3.]]
    <NDArray 2x2 @cpu(0)>
    >>> x.sort(axis=None, is_ascend=False)
    <BLANKLINE>
    [4. 3. 1. 1.]
    <NDArray 4 @cpu(0)>
    """
    x, a = _flat_or_axis(data, axis, "sort")
    if isinstance(x, NDArray) and x._tan is None and not records(x):
        # no gradient or tangent can be asked for: sort the values directly (faster)
        d = x._data
        if is_ascend:
            r = np.sort(d, axis=a)
        elif d.dtype.kind == "f":
            r = np.negative(np.sort(np.negative(d), axis=a))
        else:
            r = np.flip(np.sort(d, axis=a), axis=a)
        return _write(wrap(r, None, 0, type(x)), out)
    idx = _order(_data(x, "sort"), a, bool(is_ascend))
    return _write(_take_along(x, idx, a), out)


def _sort_dtype(kw, ins, outs):
    """sort's dtype rule: the values have the data's dtype, the hidden indices float32."""
    new_ins, (t,) = _dr.same(kw, ins, outs[:1])
    return new_ins, [t] + [_dr.F32] * (len(outs) - 1)


mxnet_op("sort", outputs=2, visible=1, dtype=_sort_dtype)   # hidden second output: indices


# ----------------------------------------------------------------------- topk
_RET_TYPES = ("indices", "value", "both", "mask")


@overload
def topk(data: NDArray, axis: Optional[int] = -1, k: int = 1,
         ret_typ: Literal["indices", "value", "mask"] = "indices", is_ascend: bool = False,
         dtype: DTypeLike = "float32", out: Optional[NDArray] = None, name: Optional[str] = None,
         **kwargs: Any) -> NDArray: ...
@overload
def topk(data: NDArray, axis: Optional[int] = -1, k: int = 1, *, ret_typ: Literal["both"],
         is_ascend: bool = False, dtype: DTypeLike = "float32",
         out: Optional[Sequence[NDArray]] = None, name: Optional[str] = None,
         **kwargs: Any) -> List[NDArray]: ...
def topk(data: NDArray, axis: Optional[int] = -1, k: int = 1, ret_typ: str = "indices",
         is_ascend: bool = False, dtype: DTypeLike = "float32", out: Any = None,
         name: Optional[str] = None, **kwargs: Any) -> Union[NDArray, List[NDArray]]:
    """The ``k`` largest (or, with ``is_ascend=True``, smallest) elements along ``axis``.

    Parameters
    ----------
    data : NDArray
    axis : int or None, default -1
        ``None`` uses the flattened array.
    k : int, default 1
        How many elements; ``k < 1`` selects all of them (a full sort).
    ret_typ : {'indices', 'value', 'both', 'mask'}, default 'indices'
        ``'indices'``: their positions along ``axis`` (in ``dtype``); ``'value'``: their
        values, sorted; ``'both'``: the list ``[values, indices]``; ``'mask'``: an array
        of ``data``'s shape and dtype, 1 at the selected elements and 0 elsewhere.
    is_ascend : bool, default False
    dtype : str, default 'float32'
        The dtype of the indices.

    The values (``'value'``, ``'both'``) are differentiable: the gradient goes back to
    the selected elements. Indices and masks have no gradient.

    Examples
    --------
    >>> import mxgrad as mx
    >>> x = mx.nd.array([[0.3, 0.2, 0.4], [0.1, 0.3, 0.2]])
    >>> mx.nd.topk(x)
    <BLANKLINE>
    [[2.]
     [1.]]
    <NDArray 2x1 @cpu(0)>
    >>> x.topk(k=2, ret_typ='value', is_ascend=True)
    <BLANKLINE>
    [[0.2 0.3]
     [0.1 0.2]]
    <NDArray 2x2 @cpu(0)>
    >>> v, i = mx.nd.topk(x, axis=0, k=1, ret_typ='both')
    >>> i
    <BLANKLINE>
    [[0. 1. 0.]]
    <NDArray 1x3 @cpu(0)>
    >>> mx.nd.topk(x, k=2, ret_typ='mask')
    <BLANKLINE>
    [[1. 0. 1.]
     [0. 1. 1.]]
    <NDArray 2x3 @cpu(0)>
    """
    if ret_typ not in _RET_TYPES:
        raise StateError(f"topk: ret_typ must be one of {_RET_TYPES}, got {ret_typ!r}")
    raw = type(data) is np.ndarray
    if not raw:
        data = as_array(data, "topk")
    x, a = _flat_or_axis(data, axis, "topk")
    xd = _data(x, "topk")
    n = xd.shape[a]
    kk = n if k is None or int(k) < 1 else int(k)
    if kk > n:
        raise ShapeError(f"topk: k={kk} is larger than the {n} elements along axis "
                         f"{'None (flattened)' if axis is None else axis} of an array of "
                         f"shape {tuple(data.shape)}; use k <= {n}")
    idx = _order(xd, a, bool(is_ascend), kk)
    if ret_typ == "mask":
        mask = np.zeros(xd.shape, dtype=xd.dtype if xd.dtype.kind in "fiu" else np.float32)
        np.put_along_axis(mask, idx, 1, a)
        mask = mask.reshape(data.shape)
        return _write(mask if raw else wrap(mask, None, 0, type(data)), out)
    if ret_typ in ("indices", "both"):
        ind = idx.astype(_index_dtype(dtype, n, "topk"))
        ind = ind if raw else wrap(ind, None, 0, type(data))
        if ret_typ == "indices":
            return _write(ind, out)
    val = _take_along(x, idx, a)
    if ret_typ == "value":
        return _write(val, out)
    if out is not None:
        if not isinstance(out, (list, tuple)) or len(out) != 2:
            raise StateError("topk: with ret_typ='both', out= must be a list of two NDArrays")
        return [_write(val, out[0]), _write(ind, out[1])]
    return [val, ind]


def _topk_dtype(kw, ins, outs):
    """topk's dtype rule: the indices have the ``dtype`` attribute (float32 without), the
    values and the mask the data's dtype (the data's from the values when unknown)."""
    idx = _dr.as_dtype(kw.get("dtype") or "float32")
    data = ins[0] if ins[0] is not None else (outs[0] if kw.get("ret_typ") in
                                              ("value", "both", "mask") else None)
    ret = kw.get("ret_typ", "indices")
    if ret == "indices":
        return [data], [idx] + [data] * (len(outs) - 1)
    return [data], [data] + [idx] * (len(outs) - 1)


# 'value' keeps the indices as a hidden second output
mxnet_op("topk", outputs=lambda kw: 2 if kw.get("ret_typ") in ("both", "value") else 1,
         visible=lambda kw: 2 if kw.get("ret_typ") == "both" else 1, dtype=_topk_dtype)



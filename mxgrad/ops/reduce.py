"""Reductions (sum, mean, ...) and the broadcast pair the engine relies on
(``broadcast_to`` and ``sum_to``, each the other's gradient)."""
from __future__ import annotations

import numpy as np

from ..base import ShapeError
from ..ndarray.ndarray import NDArray
from ._core import defop, call1, register_method, as_array

__all__ = ["sum", "mean", "sum_to", "broadcast_to", "reshape_exact", "normalize_axes",
           "nansum", "nanprod"]


def normalize_axes(axis, ndim: int, exclude: bool = False, op: str = "reduce"):
    """Turn MXNet's ``axis``/``exclude`` into a sorted tuple of non-negative axes."""
    if axis is None or axis == ():
        axes = tuple(range(ndim))
    else:
        if isinstance(axis, (int, np.integer)):
            axis = (int(axis),)
        axes = []
        for a in axis:
            a = int(a)
            if not -ndim <= a < max(ndim, 1):
                raise ShapeError(f"{op}: axis {a} is out of range for an array with {ndim} "
                                 f"dimensions")
            axes.append(a % ndim if ndim else 0)
        axes = tuple(sorted(set(axes)))
    if exclude:
        axes = tuple(i for i in range(ndim) if i not in axes)
    return axes


def _kshape(ishape, axes):
    return tuple(1 if i in axes else s for i, s in enumerate(ishape))


def _no0d(r):
    if not isinstance(r, np.ndarray) or r.ndim == 0:
        return np.reshape(r, (1,))
    return r


# ----------------------------------------------------------- reshape (exact)
def _reshape_fwd(x, shape, ishape):
    try:
        return x.reshape(shape)
    except ValueError:
        raise ShapeError(f"reshape: cannot reshape an array of shape {x.shape} ({x.size} "
                         f"elements) to {shape}") from None


_RESHAPE = defop("reshape", _reshape_fwd,
                 [lambda g, y, x, shape, ishape: reshape_exact(g, ishape)],
                 [lambda t, y, x, shape, ishape: reshape_exact(t, shape)], save=())


def reshape_exact(data, shape):
    """Reshape to an exact shape (no MXNet codes); a view when NumPy can make one.

    Examples
    --------
    >>> import mxgrad as mx
    >>> reshape_exact(mx.nd.ones((2, 3)), (3, 2)).shape
    (3, 2)
    """
    shape = tuple(int(s) for s in shape)
    if type(data) is np.ndarray:
        return data.reshape(shape)
    data = as_array(data, "reshape")
    if data.shape == shape:
        return data
    r = call1(_RESHAPE, data, {"shape": shape, "ishape": data.shape})
    if r._data.base is not None:
        r._ver = data._ver
    return r


# ---------------------------------------------------------- broadcast / sum_to
def _broadcast_fwd(x, shape, ishape):
    try:
        return np.broadcast_to(x, shape)
    except ValueError:
        raise ShapeError(f"broadcast_to: cannot broadcast shape {x.shape} to {shape}; each "
                         f"dimension must match or be 1") from None


_BROADCAST = defop("broadcast_to", _broadcast_fwd,
                   [lambda g, y, x, shape, ishape: sum_to(g, ishape)],
                   [lambda t, y, x, shape, ishape: broadcast_to(t, shape)], save=())


def broadcast_to(data, shape):
    """Broadcast ``data`` to ``shape`` (MXNet: a 0 in ``shape`` keeps that dimension).

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.broadcast_to(mx.nd.array([[1.], [2.]]), (2, 3))
    <BLANKLINE>
    [[1. 1. 1.]
     [2. 2. 2.]]
    <NDArray 2x3 @cpu(0)>
    """
    ishape = data.shape
    shape = tuple(int(s) for s in shape)
    if len(shape) == len(ishape):
        shape = tuple(i if s == 0 else s for s, i in zip(shape, ishape))
    if shape == ishape:
        return data
    r = call1(_BROADCAST, data, {"shape": shape, "ishape": ishape})
    if type(r) is NDArray:
        r._data = np.array(r._data)  # a writable array for users
    return r


def _sum_to_axes(ishape, shape):
    lead = len(ishape) - len(shape)
    if lead < 0:
        raise ShapeError(f"sum_to: cannot reduce shape {ishape} to {shape}")
    axes = list(range(lead))
    for i, s in enumerate(shape):
        d = ishape[lead + i]
        if s == d:
            continue
        if s == 1:
            axes.append(lead + i)
        else:
            raise ShapeError(f"sum_to: cannot reduce shape {ishape} to {shape}")
    return tuple(axes)


def _sum_to_fwd(x, shape, ishape):
    axes = _sum_to_axes(x.shape, shape)
    r = x.sum(axis=axes) if axes else x
    return np.reshape(r, shape)


_SUM_TO = defop("sum_to", _sum_to_fwd,
                [lambda g, y, x, shape, ishape: broadcast_to(g, ishape)],
                [lambda t, y, x, shape, ishape: sum_to(t, shape)], save=())


def sum_to(data, shape):
    """Sum ``data`` down to ``shape`` (the reverse of broadcasting).

    Examples
    --------
    >>> import mxgrad as mx
    >>> sum_to(mx.nd.ones((2, 3)), (1, 3))
    <BLANKLINE>
    [[2. 2. 2.]]
    <NDArray 1x3 @cpu(0)>
    """
    shape = tuple(shape)
    ishape = data.shape
    if ishape == shape:
        return data
    _sum_to_axes(ishape, shape)
    return call1(_SUM_TO, data, {"shape": shape, "ishape": ishape})


# ------------------------------------------------------------------ sum, mean
def _sum_fwd(x, axis, keepdims, ishape):
    return _no0d(np.sum(x, axis=axis, keepdims=keepdims))


def _sum_grad(g, y, x, axis, keepdims, ishape):
    if not keepdims:
        g = reshape_exact(g, _kshape(ishape, axis))
    return broadcast_to(g, ishape)


def _sum_jvp(t, y, x, axis, keepdims, ishape):
    return sum(t, axis=axis, keepdims=keepdims)


_SUM = defop("sum", _sum_fwd, [_sum_grad], [_sum_jvp], save=())


def _reduce_attrs(data, axis, keepdims, exclude, op):
    return {"axis": normalize_axes(axis, data.ndim, exclude, op), "keepdims": bool(keepdims),
            "ishape": data.shape}


def sum(data, axis=None, keepdims=False, exclude=False, out=None, name=None, **kwargs):
    """Sum over ``axis`` (all axes by default; a full reduction has shape ``(1,)``).

    Parameters
    ----------
    data : NDArray
    axis : int or tuple of int, optional
    keepdims : bool, default False
    exclude : bool, default False
        Reduce over every axis *except* those in ``axis``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> x = mx.nd.array([[1., 2.], [3., 4.]])
    >>> x.sum()
    <BLANKLINE>
    [10.]
    <NDArray 1 @cpu(0)>
    >>> mx.nd.sum(x, axis=1, keepdims=True).shape
    (2, 1)
    """
    if type(data) is not np.ndarray:
        data = as_array(data, "sum")
    return call1(_SUM, data, _reduce_attrs(data, axis, keepdims, exclude, "sum"))


def _count(ishape, axis):
    n = 1
    for a in axis:
        n *= ishape[a]
    return n


def _mean_fwd(x, axis, keepdims, ishape):
    r = np.mean(x, axis=axis, keepdims=keepdims)
    return _no0d(r).astype(x.dtype, copy=False)


def _mean_grad(g, y, x, axis, keepdims, ishape):
    return _sum_grad(g, y, x, axis, keepdims, ishape) / float(max(_count(ishape, axis), 1))


def _mean_jvp(t, y, x, axis, keepdims, ishape):
    return mean(t, axis=axis, keepdims=keepdims)


_MEAN = defop("mean", _mean_fwd, [_mean_grad], [_mean_jvp], save=())


def mean(data, axis=None, keepdims=False, exclude=False, out=None, name=None, **kwargs):
    """Mean over ``axis`` (all axes by default; a full reduction has shape ``(1,)``).

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.array([[1., 2.], [3., 4.]]).mean(axis=0)
    <BLANKLINE>
    [2. 3.]
    <NDArray 2 @cpu(0)>
    """
    if type(data) is not np.ndarray:
        data = as_array(data, "mean")
    return call1(_MEAN, data, _reduce_attrs(data, axis, keepdims, exclude, "mean"))


def _nan_fwd(fn):
    def f(x, axis, keepdims, ishape):
        return _no0d(fn(x, axis=axis, keepdims=keepdims)).astype(x.dtype, copy=False)
    return f


def _nansum_grad(g, y, x, axis, keepdims, ishape):
    from .elemwise import where_mask
    return where_mask(x == x, _sum_grad(g, y, x, axis, keepdims, ishape), 0.0)


_NANSUM = defop("nansum", _nan_fwd(np.nansum), [_nansum_grad], None, save=(0,))
_NANPROD = defop("nanprod", _nan_fwd(np.nanprod), None, None, save=())


def nansum(data, axis=None, keepdims=False, exclude=False, **kwargs):
    """Sum treating NaN as zero.

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.nansum(mx.nd.array([1., float('nan'), 2.])).asscalar()
    3.0
    """
    data = as_array(data, "nansum") if type(data) is not np.ndarray else data
    return call1(_NANSUM, data, _reduce_attrs(data, axis, keepdims, exclude, "nansum"))


def nanprod(data, axis=None, keepdims=False, exclude=False, **kwargs):
    """Product treating NaN as one (not differentiable).

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.nanprod(mx.nd.array([2., float('nan'), 3.])).asscalar()
    6.0
    """
    data = as_array(data, "nanprod") if type(data) is not np.ndarray else data
    return call1(_NANPROD, data, _reduce_attrs(data, axis, keepdims, exclude, "nanprod"))


for _n in ("sum", "mean", "nansum", "nanprod", "broadcast_to"):
    register_method(_n, globals()[_n])

"""Reductions (sum, mean, prod, max, min, norm, nansum, nanprod) and the broadcast pair
the engine relies on (``broadcast_to`` and ``sum_to``, each the other's gradient).

Every reduction takes MXNet's ``axis`` (int, tuple or None for all axes), ``keepdims``
and ``exclude`` (reduce over every axis *not* listed). A reduction over all axes has
shape ``(1,)``: MXNet has no 0-d arrays.

Gradients follow MXNet where users rely on it and are exact where MXNet is not:

* ``max``/``min`` give the *full* output gradient to every tied extreme element;
* ``prod`` is exact also where some elements are zero (MXNet divides by the input);
* ``norm`` (ord 2) has gradient ``x / norm``, defined as 0 where the norm is 0.

All rules are written with mxgrad ops, so every reduction has derivatives of any order.
"""
from __future__ import annotations

from typing import Any, Optional, Sequence

import builtins

import numpy as np

from ..base import DTypeError, ShapeError, StateError, as_dtype
from .._engine.ndarray import NDArray, wrap
from ._core import defop, call1, as_array, inplace_apply
from ._mxnet_op import mxnet_op
from ._apply import _RAW  # NumPy data in a raw backward (0-d ops give scalars)
# the exact-shape reshape, broadcast and sum-to are the op record's (gradient fitting)
from ._core import reshape_exact, broadcast_exact, sum_to  # noqa: F401
from .._typing import ArrayT, Axis, DTypeLike

__all__ = ["sum", "mean", "prod", "max", "min", "norm", "nansum", "nanprod",
           "sum_axis", "max_axis", "min_axis", "sum_to", "broadcast_to", "broadcast_exact", "reshape_exact",
           "normalize_axes"]


def normalize_axes(axis, ndim: int, exclude: bool = False, op: str = "reduce",
                   duplicates: bool = False):
    """Turn MXNet's ``axis``/``exclude`` into a sorted tuple of non-negative axes.

    An axis named twice (``(0, 0)`` or ``(1, -1)`` on 2-D) is an error, as in MXNet,
    unless ``duplicates`` (then it counts once)."""
    if axis is None or (isinstance(axis, (tuple, list)) and len(axis) == 0):
        # MXNet: no axis means every axis, with or without exclude
        return tuple(range(ndim))
    else:
        if isinstance(axis, (int, np.integer)) and not isinstance(axis, (bool, np.bool_)):
            axis = (int(axis),)
        if not isinstance(axis, (tuple, list)):
            raise DTypeError(f"{op}: axis must be an int, a tuple of ints or None, got "
                             f"{type(axis).__name__} {axis!r}")
        axes: Any = []
        for a in axis:
            if isinstance(a, (bool, np.bool_)) or not isinstance(a, (int, np.integer)):
                raise DTypeError(f"{op}: axis must be an int, a tuple of ints or None, got "
                                 f"{axis!r}")
            a = int(a)
            if not -ndim <= a < builtins.max(ndim, 1):
                raise ShapeError(f"{op}: axis {a} is out of range for an array with {ndim} "
                                 f"dimensions")
            axes.append(a % ndim if ndim else 0)
        if not duplicates and len(set(axes)) != len(axes):
            raise ShapeError(f"{op}: axis {tuple(axis)} names an axis twice; give each "
                             f"axis once")
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


def _keep(a, axis, keepdims, ishape):
    """Give a reduced array (gradient or output) the kept-dims shape, so that it
    broadcasts against the reduction's input."""
    return a if keepdims else reshape_exact(a, _kshape(ishape, axis))


def _raw(a):
    """The NumPy data of an array argument of a rule (NumPy array or NDArray)."""
    return a if isinstance(a, _RAW) else a._data


def _cmask(like, cond):
    """A constant 0/1 mask from a NumPy bool array ``cond``, of ``like``'s dtype and
    kind (a NumPy array in a raw backward, an NDArray outside any graph otherwise).

    Masks are constants of the gradient rules (comparisons are not differentiable), so
    they are computed on the data directly: no graph node and no tangent to carry."""
    dt = _raw(like).dtype
    dt = dt if dt.kind == "f" else np.dtype(np.float32)
    m = cond.astype(dt)
    return m if isinstance(like, _RAW) else wrap(m, None, 0, type(like))


def _to_out(r, out):
    if out is None:
        return r
    if not isinstance(out, NDArray):
        raise DTypeError(f"out= must be an NDArray, got {type(out).__name__}")
    return inplace_apply(out, r)


def _prep(data, op):
    return data if isinstance(data, _RAW) else as_array(data, op)


def broadcast_to(data: NDArray, shape: Sequence[int]) -> NDArray:
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
    return broadcast_exact(data, shape)


# ------------------------------------------------------------------ sum, mean
def _sum_fwd(x, axis, keepdims, ishape):
    # integer sums keep their dtype, as in MXNet (NumPy would widen int32 to int64)
    return _no0d(np.sum(x, axis=axis, keepdims=keepdims,
                        dtype=x.dtype if x.dtype.kind in "iu" else None))


def _sum_grad(g, y, x, axis, keepdims, ishape):
    if not keepdims:
        g = reshape_exact(g, _kshape(ishape, axis))
    return broadcast_exact(g, ishape)


def _sum_jvp(t, y, x, axis, keepdims, ishape):
    return sum(t, axis=axis, keepdims=keepdims)


_SUM = defop("sum", _sum_fwd, [_sum_grad], [_sum_jvp], save=())


def _reduce_attrs(data, axis, keepdims, exclude, op):
    return {"axis": normalize_axes(axis, data.ndim, exclude, op), "keepdims": bool(keepdims),
            "ishape": data.shape}


def _no_unknown(kwargs, op: str) -> None:
    """MXNet's reductions reject keyword arguments they do not have (a typo, usually)."""
    if kwargs:
        raise StateError(f"{op}: unknown keyword argument(s) {sorted(kwargs)}; it takes axis, "
                         f"keepdims, exclude, out and name")


def sum(data: ArrayT, axis: Axis = None, keepdims: bool = False, exclude: bool = False,
        out: Optional[NDArray] = None, name: Optional[str] = None, **kwargs: Any) -> ArrayT:
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
    _no_unknown(kwargs, "sum")
    data = _prep(data, "sum")
    return _to_out(call1(_SUM, data, _reduce_attrs(data, axis, keepdims, exclude, "sum")), out)


def _count(ishape, axis):
    n = 1
    for a in axis:
        n *= ishape[a]
    return n


def _mean_fwd(x, axis, keepdims, ishape):
    r = np.mean(x, axis=axis, keepdims=keepdims)
    return _no0d(r).astype(x.dtype, copy=False)


def _mean_grad(g, y, x, axis, keepdims, ishape):
    return _sum_grad(g, y, x, axis, keepdims, ishape) / float(builtins.max(_count(ishape, axis), 1))


def _mean_jvp(t, y, x, axis, keepdims, ishape):
    return mean(t, axis=axis, keepdims=keepdims)


_MEAN = defop("mean", _mean_fwd, [_mean_grad], [_mean_jvp], save=())


def mean(data: NDArray, axis: Axis = None, keepdims: bool = False, exclude: bool = False,
         out: Optional[NDArray] = None, name: Optional[str] = None, **kwargs: Any) -> NDArray:
    """Mean over ``axis`` (all axes by default; a full reduction has shape ``(1,)``).

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.array([[1., 2.], [3., 4.]]).mean(axis=0)
    <BLANKLINE>
    [2. 3.]
    <NDArray 2 @cpu(0)>
    """
    _no_unknown(kwargs, "mean")
    data = _prep(data, "mean")
    return _to_out(call1(_MEAN, data, _reduce_attrs(data, axis, keepdims, exclude, "mean")),
                   out)




# ------------------------------------------------------------------- prod
def _prod_fwd(x, axis, keepdims, ishape):
    return _no0d(np.prod(x, axis=axis, keepdims=keepdims,
                         dtype=x.dtype if x.dtype.kind in "iu" else None))


def _prod_partials(y, x, axis, keepdims, ishape):
    """d prod(x) / d x_i = prod of the other elements, exact also where x has zeros.

    Without zeros this is ``y / x``. With zeros, per reduced slice with ``nz`` zeros
    and ``P`` the product of its non-zero elements (``S`` is the sum of the zero
    elements: 0 in value, but it carries their derivative, which makes the second
    derivative exact as well)::

        nz == 1:  P at the zero, S * P / x elsewhere
        nz == 2:  (S - x) * P at the zeros, 0 elsewhere
        nz >= 3:  0
    """
    zero = _raw(x) == 0
    if not zero.any():
        return _keep(y, axis, keepdims, ishape) / x
    m = _cmask(x, zero)
    xs = x * (1.0 - m) + m  # zeros replaced by ones
    p = prod(xs, axis=axis, keepdims=True)
    s = sum(x * m, axis=axis, keepdims=True)
    nz = np.sum(zero, axis=axis, keepdims=True)
    c0, c1, c2 = _cmask(x, nz == 0), _cmask(x, nz == 1), _cmask(x, nz == 2)
    return c0 * p / xs + c1 * (m * p + (1.0 - m) * s * p / xs) + c2 * m * (s - x) * p


def _prod_grad(g, y, x, axis, keepdims, ishape):
    return _keep(g, axis, keepdims, ishape) * _prod_partials(y, x, axis, keepdims, ishape)


def _prod_jvp(t, y, x, axis, keepdims, ishape):
    return sum(t * _prod_partials(y, x, axis, keepdims, ishape), axis=axis, keepdims=keepdims)


_PROD = defop("prod", _prod_fwd, [_prod_grad], [_prod_jvp], save=(0,), save_out=True)


def prod(data: NDArray, axis: Axis = None, keepdims: bool = False, exclude: bool = False,
         out: Optional[NDArray] = None, name: Optional[str] = None, **kwargs: Any) -> NDArray:
    """Product over ``axis`` (all axes by default; a full reduction has shape ``(1,)``).

    The gradient is the product of the other elements, exact also where some
    elements are zero (MXNet divides the output by the input there).

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
    >>> x.prod()
    <BLANKLINE>
    [24.]
    <NDArray 1 @cpu(0)>
    >>> mx.nd.prod(x, axis=0)
    <BLANKLINE>
    [3. 8.]
    <NDArray 2 @cpu(0)>
    >>> x = mx.nd.array([0., 2., 3.]); x.attach_grad()
    >>> with mx.autograd.record():
    ...     y = x.prod()
    >>> y.backward(); x.grad
    <BLANKLINE>
    [6. 0. 0.]
    <NDArray 3 @cpu(0)>
    """
    _no_unknown(kwargs, "prod")
    data = _prep(data, "prod")
    return _to_out(call1(_PROD, data, _reduce_attrs(data, axis, keepdims, exclude, "prod")),
                   out)


# --------------------------------------------------------------- max, min
def _extreme_fwd(fn):
    def f(x, axis, keepdims, ishape):
        if x.size == 0 and builtins.any(x.shape[a] == 0 for a in axis):
            raise ShapeError(f"{fn.__name__}: cannot reduce over axes {axis} of the empty "
                             f"array of shape {x.shape} (no elements to take the "
                             f"{fn.__name__} of)")
        return _no0d(fn(x, axis=axis, keepdims=keepdims))
    return f


def _extreme_mask(y, x, axis, keepdims, ishape):
    # every element equal to the extreme gets the full gradient (MXNet semantics)
    return _cmask(x, _raw(x) == _raw(_keep(y, axis, keepdims, ishape)))


def _extreme_grad(g, y, x, axis, keepdims, ishape):
    return _keep(g, axis, keepdims, ishape) * _extreme_mask(y, x, axis, keepdims, ishape)


def _extreme_jvp(t, y, x, axis, keepdims, ishape):
    # the transpose of the gradient rule: tied elements' tangents are summed
    return sum(t * _extreme_mask(y, x, axis, keepdims, ishape), axis=axis, keepdims=keepdims)


_MAX = defop("max", _extreme_fwd(np.max), [_extreme_grad], [_extreme_jvp], save=(0,),
             save_out=True)
_MIN = defop("min", _extreme_fwd(np.min), [_extreme_grad], [_extreme_jvp], save=(0,),
             save_out=True)


def max(data: NDArray, axis: Axis = None, keepdims: bool = False, exclude: bool = False,
        out: Optional[NDArray] = None, name: Optional[str] = None, **kwargs: Any) -> NDArray:
    """Maximum over ``axis`` (all axes by default; a full reduction has shape ``(1,)``).

    As in MXNet, every element equal to the maximum receives the full output
    gradient (ties are not split).

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
    >>> x = mx.nd.array([[1., 5.], [5., 2.]])
    >>> x.max()
    <BLANKLINE>
    [5.]
    <NDArray 1 @cpu(0)>
    >>> mx.nd.max(x, axis=1, keepdims=True).shape
    (2, 1)
    >>> x.attach_grad()
    >>> with mx.autograd.record():
    ...     y = x.max()
    >>> y.backward(); x.grad
    <BLANKLINE>
    [[0. 1.]
     [1. 0.]]
    <NDArray 2x2 @cpu(0)>
    """
    _no_unknown(kwargs, "max")
    data = _prep(data, "max")
    return _to_out(call1(_MAX, data, _reduce_attrs(data, axis, keepdims, exclude, "max")), out)


def min(data: NDArray, axis: Axis = None, keepdims: bool = False, exclude: bool = False,
        out: Optional[NDArray] = None, name: Optional[str] = None, **kwargs: Any) -> NDArray:
    """Minimum over ``axis`` (all axes by default; a full reduction has shape ``(1,)``).

    As in MXNet, every element equal to the minimum receives the full output
    gradient (ties are not split).

    Examples
    --------
    >>> import mxgrad as mx
    >>> x = mx.nd.array([[1., 5.], [3., 2.]])
    >>> x.min(axis=0)
    <BLANKLINE>
    [1. 2.]
    <NDArray 2 @cpu(0)>
    >>> mx.nd.min(x, axis=0, exclude=True)
    <BLANKLINE>
    [1. 2.]
    <NDArray 2 @cpu(0)>
    """
    _no_unknown(kwargs, "min")
    data = _prep(data, "min")
    return _to_out(call1(_MIN, data, _reduce_attrs(data, axis, keepdims, exclude, "min")), out)


sum_axis = sum
max_axis = max
min_axis = min
# MXNet's reduction operators (no shape rule: a node runs once on zeros to find its shape)
mxnet_op("sum", aliases=("sum_axis",))
mxnet_op("mean")
mxnet_op("max", aliases=("max_axis",))
mxnet_op("min", aliases=("min_axis",))
mxnet_op("prod")


# -------------------------------------------------------------------- norm
def _l2(x, axis, keepdims):
    with np.errstate(over="ignore", under="ignore"):
        r = np.sqrt(np.sum(np.square(x), axis=axis, keepdims=keepdims))
    if r.size and (not np.isfinite(r).all() or not r.all()) and np.isfinite(x).all():
        # overflow or underflow of the squares: rescale by the largest magnitude
        m = np.max(np.abs(x), axis=axis, keepdims=True)
        m = np.where(m == 0, 1, m).astype(x.dtype, copy=False)
        r = np.sqrt(np.sum(np.square(x / m), axis=axis, keepdims=True)) * m
        if not keepdims:
            r = np.squeeze(r, axis=axis)
    return r


def _norm_fwd(x, ord, axis, keepdims, ishape):
    xf = x if x.dtype.kind == "f" else x.astype(np.float64)
    if ord == 1:
        r = np.sum(np.abs(xf), axis=axis, keepdims=keepdims)
    else:
        r = _l2(xf, axis, keepdims)
    return _no0d(r).astype(x.dtype, copy=False)


def _norm_partials(y, x, ord, axis, keepdims, ishape):
    from .elemwise import sign
    if ord == 1:
        return sign(x)
    yk = _keep(y, axis, keepdims, ishape)
    m = _cmask(yk, _raw(yk) == 0)
    return x / (yk * (1.0 - m) + m)  # x / norm, 0 where the norm is 0


def _norm_grad(g, y, x, ord, axis, keepdims, ishape):
    return _keep(g, axis, keepdims, ishape) * _norm_partials(y, x, ord, axis, keepdims, ishape)


def _norm_jvp(t, y, x, ord, axis, keepdims, ishape):
    return sum(t * _norm_partials(y, x, ord, axis, keepdims, ishape), axis=axis,
               keepdims=keepdims)


_NORM = defop("norm", _norm_fwd, [_norm_grad], [_norm_jvp], save=(0,), save_out=True)


def norm(data: NDArray, ord: int = 2, axis: Axis = None, out_dtype: DTypeLike = None,
         keepdims: bool = False, exclude: bool = False, out: Optional[NDArray] = None,
         name: Optional[str] = None, **kwargs: Any) -> NDArray:
    """The L2 (``ord=2``, default) or L1 (``ord=1``) norm over ``axis``.

    By default the norm of all elements, of shape ``(1,)``. A 2-tuple ``axis`` gives
    the Frobenius norm (``ord=2``) or the sum of absolute values (``ord=1``) of the
    matrices in those axes.

    Parameters
    ----------
    data : NDArray
    ord : {2, 1}, default 2
    axis : int or tuple of int, optional
    out_dtype : str, optional
        The dtype of the result (default: the input's).
    keepdims : bool, default False
    exclude : bool, default False
        Reduce over every axis *except* those in ``axis`` (an mxgrad extension).

    The gradient is ``x / norm`` (0 where the norm is 0) for ``ord=2`` and
    ``sign(x)`` for ``ord=1``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> x = mx.nd.array([[3., 4.], [6., 8.]])
    >>> mx.nd.norm(x, axis=1)
    <BLANKLINE>
    [ 5. 10.]
    <NDArray 2 @cpu(0)>
    >>> x.norm(ord=1)
    <BLANKLINE>
    [21.]
    <NDArray 1 @cpu(0)>
    """
    data = _prep(data, "norm")
    if ord not in (1, 2):
        raise StateError(f"norm: ord must be 1 or 2 (as in MXNet), got {ord!r}")
    attrs = _reduce_attrs(data, axis, keepdims, exclude, "norm")
    attrs["ord"] = int(ord)
    r = call1(_NORM, data, attrs)
    if out_dtype is not None and as_dtype(out_dtype) != r.dtype:
        from .elemwise import cast
        r = cast(r, as_dtype(out_dtype))
    return _to_out(r, out)


mxnet_op("norm")


# --------------------------------------------------------- nansum, nanprod
def _nansum_fwd(x, axis, keepdims, ishape):
    return _no0d(np.nansum(x, axis=axis, keepdims=keepdims)).astype(x.dtype, copy=False)


def _notnan(x):
    d = _raw(x)
    return _cmask(x, d == d)


def _nansum_grad(g, y, x, axis, keepdims, ishape):
    return _sum_grad(g, y, x, axis, keepdims, ishape) * _notnan(x)


def _nansum_jvp(t, y, x, axis, keepdims, ishape):
    return sum(t * _notnan(x), axis=axis, keepdims=keepdims)


_NANSUM = defop("nansum", _nansum_fwd, [_nansum_grad], [_nansum_jvp], save=(0,))


def _nan_to_one_fwd(x):
    if x.dtype.kind != "f":
        return x.copy()
    return np.where(np.isnan(x), np.ones((), x.dtype), x)


def _nan_to_one_rule(g, y, x):
    return g * _notnan(x)


_NAN_TO_ONE = defop("nan_to_one", _nan_to_one_fwd, [_nan_to_one_rule], [_nan_to_one_rule],
                    save=(0,))


def nansum(data: NDArray, axis: Axis = None, keepdims: bool = False, exclude: bool = False,
           out: Optional[NDArray] = None, name: Optional[str] = None, **kwargs: Any) -> NDArray:
    """Sum treating NaN as zero (NaN elements get zero gradient).

    Examples
    --------
    >>> import mxgrad as mx
    >>> print(mx.nd.nansum(mx.nd.array([1., float('nan'), 2.])).asscalar())
    3.0
    """
    _no_unknown(kwargs, "nansum")
    data = _prep(data, "nansum")
    return _to_out(call1(_NANSUM, data, _reduce_attrs(data, axis, keepdims, exclude, "nansum")),
                   out)


def nanprod(data: NDArray, axis: Axis = None, keepdims: bool = False, exclude: bool = False,
            out: Optional[NDArray] = None, name: Optional[str] = None, **kwargs: Any) -> NDArray:
    """Product treating NaN as one (NaN elements get zero gradient).

    Examples
    --------
    >>> import mxgrad as mx
    >>> print(mx.nd.nanprod(mx.nd.array([2., float('nan'), 3.])).asscalar())
    6.0
    """
    _no_unknown(kwargs, "nanprod")
    data = _prep(data, "nanprod")
    return prod(call1(_NAN_TO_ONE, data), axis=axis, keepdims=keepdims, exclude=exclude,
                out=out)


mxnet_op("nansum")
mxnet_op("nanprod")

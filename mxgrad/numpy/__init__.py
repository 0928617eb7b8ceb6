"""``mx.np``: MXNet's NumPy interface (``from mxnet import np, npx``) on mxgrad's engine.

The functions follow NumPy's signatures and semantics with MXNet 1.9.1's twists
(creation functions default to float32, even from Python ints; ``mean`` of integers is
float32; an integer array meeting a float array takes the float's dtype). Each one
applies the same op records as ``mx.nd`` (no op is declared twice), so everything is
differentiable under ``autograd.record()`` to any order, and ``mx.np`` arrays and
``mx.nd`` arrays share the graph (see :mod:`mxgrad.numpy.multiarray`).

Examples
--------
>>> from mxgrad import np, npx, autograd
>>> x = np.arange(4.0)
>>> x.attach_grad()
>>> with autograd.record():
...     y = (x * x).sum()
>>> y.backward()
>>> x.grad
array([0., 2., 4., 6.])
"""
from __future__ import annotations

import builtins as _builtins
import functools as _functools
from typing import Any, List, Optional, Sequence, Tuple

import numpy as _onp

from ..base import DTypeError, MXNetError, NotSupportedError, ShapeError, UnknownArgumentError
from ..context import Context, cpu
from .._engine.ndarray import NDArray, wrap as _wrap
from ..ops import elemwise as _E
from ..ops import reduce as _R
from ..ops import shape as _S
from ..ops import indexing as _I
from ..ops import linalg as _L
from ..ops._apply import unary_fast
from .multiarray import (RULES, ndarray, promoted_dtype, to_np as _np, from_input as _in, promote as _promote,
                         numpy_call,
                         numpy_shape as _numpy_shape, _np_dtype, _host, _DEFAULT,
                         sum, mean, prod, max, min, amax, amin, var, std, argmax, argmin,
                         cumsum, all, any, reshape, squeeze, dot, clip, round, sort,
                         argsort, nonzero, matmul)
from . import random, linalg  # noqa: E402
from ._ufunc import check_kwargs as _check_kwargs, finish as _finish, \
    unary_keywords as _unary_keywords

__all__ = ["logspace", "ndarray", "array", "asarray", "zeros", "ones", "full", "empty", "arange",
           "linspace", "eye", "identity", "zeros_like", "ones_like", "full_like",
           "empty_like", "meshgrid", "genfromtxt", "sum", "mean", "prod", "max", "min", "amax",
           "amin", "var", "std", "argmax", "argmin", "cumsum", "all", "any", "reshape",
           "squeeze", "dot", "clip", "round", "sort", "argsort", "nonzero", "unique", "where",
           "concatenate", "stack", "split", "array_split", "transpose", "swapaxes", "moveaxis",
           "expand_dims", "tile", "repeat", "flip", "broadcast_to", "ravel", "matmul",
           "tensordot", "outer", "inner", "vdot", "einsum", "maximum", "minimum", "add",
           "subtract", "multiply", "divide", "true_divide", "power", "mod", "remainder",
           "equal", "not_equal", "greater", "greater_equal", "less", "less_equal",
           "logical_not", "isnan", "isinf", "isfinite", "random", "linalg", "float16",
           "float32", "float64", "int8", "int32", "int64", "uint8", "bool_", "pi", "e", "inf",
           "nan", "newaxis", "dtype", "diag", "tril", "triu", "copy", "cos"]

# NumPy's type names and constants, as mx.np re-exports them
float16, float32, float64 = _onp.float16, _onp.float32, _onp.float64
int8, int32, int64, uint8, bool_ = _onp.int8, _onp.int32, _onp.int64, _onp.uint8, _onp.bool_
pi, e, inf, nan, newaxis = _onp.pi, _onp.e, _onp.inf, _onp.nan, None
dtype = _onp.dtype


def _ctx(ctx: Any) -> None:
    if ctx is not None and not isinstance(ctx, (Context, str)):
        raise DTypeError(f"ctx must be a Context such as mx.cpu(), got {type(ctx).__name__}")


# ====================================================================== creation
def array(object: Any, dtype: Any = None, ctx: Any = None) -> ndarray:
    """An array from ``object`` (lists and Python numbers become float32 unless ``dtype``
    says otherwise; NumPy and mxgrad arrays keep their dtype).

    Examples
    --------
    >>> from mxgrad import np
    >>> np.array([1, 2])
    array([1., 2.])
    >>> np.array([1, 2], dtype='int32')
    array([1, 2], dtype=int32)
    """
    _ctx(ctx)
    return _wrap(_host(object, dtype), None, 0, ndarray)


def asarray(a: Any, dtype: Any = None, ctx: Any = None) -> ndarray:
    """``a`` as an array: an ``mx.np`` array of that dtype is returned as is."""
    if type(a) is ndarray and (dtype is None or _np_dtype(dtype) == a._data.dtype):
        return a
    if isinstance(a, NDArray) and dtype is None:
        return _np(a)
    return array(a, dtype, ctx)


def _shape_arg(shape: Any, who: str) -> Tuple[int, ...]:
    if isinstance(shape, (int, _onp.integer)):
        shape = (int(shape),)
    try:
        shape = tuple(int(s) for s in shape)
    except TypeError:
        raise DTypeError(f"{who}: shape must be an int or a tuple of ints, got "
                         f"{type(shape).__name__}") from None
    if _builtins.any(s < 0 for s in shape):
        raise ShapeError(f"{who}: negative dimensions are not allowed, got {shape}")
    return shape


def _filled(shape: Any, value: Any, dtype: Any, who: str, order: str = "C") -> ndarray:
    if order != "C":
        raise NotSupportedError(f"{who}: order={order!r} is not supported; only 'C' (row "
                                f"major), as in MXNet")
    shape = _shape_arg(shape, who)
    return _wrap(_onp.full(shape, value, dtype=_np_dtype(dtype)), None, 0, ndarray)


def zeros(shape: Any, dtype: Any = None, order: str = "C", ctx: Any = None) -> ndarray:
    """An array of zeros (float32 by default).

    Examples
    --------
    >>> from mxgrad import np
    >>> np.zeros((2,))
    array([0., 0.])
    """
    _ctx(ctx)
    return _filled(shape, 0, dtype, "np.zeros", order)


def ones(shape: Any, dtype: Any = None, order: str = "C", ctx: Any = None) -> ndarray:
    """An array of ones (float32 by default)."""
    _ctx(ctx)
    return _filled(shape, 1, dtype, "np.ones", order)


def full(shape: Any, fill_value: Any, dtype: Any = None, order: str = "C",
         ctx: Any = None) -> ndarray:
    """An array filled with ``fill_value`` (float32 unless ``dtype``, or the dtype of an
    array ``fill_value``)."""
    _ctx(ctx)
    if isinstance(fill_value, NDArray):
        if dtype is None:
            dtype = fill_value._data.dtype
        fill_value = fill_value._data
    return _filled(shape, fill_value, dtype, "np.full", order)


def empty(shape: Any, dtype: Any = None, order: str = "C", ctx: Any = None) -> ndarray:
    """An uninitialised array (zeros in mxgrad)."""
    _ctx(ctx)
    return _filled(shape, 0, dtype, "np.empty", order)


def _like(a: Any, value: Any, dtype: Any) -> ndarray:
    a = _in(a)
    dt = a._data.dtype if dtype is None else _np_dtype(dtype)
    return _wrap(_onp.full(a.shape, value, dtype=dt), None, 0, ndarray)


def zeros_like(a: Any, dtype: Any = None, order: str = "C", ctx: Any = None,
              subok: bool = True, shape: Any = None) -> ndarray:
    """Zeros of ``a``'s shape and dtype."""
    return _like(a, 0, dtype)


def ones_like(a: Any, dtype: Any = None, order: str = "C", ctx: Any = None,
              subok: bool = True, shape: Any = None) -> ndarray:
    """Ones of ``a``'s shape and dtype."""
    return _like(a, 1, dtype)


def full_like(a: Any, fill_value: Any, dtype: Any = None, order: str = "C",
              ctx: Any = None) -> ndarray:
    """``fill_value`` in ``a``'s shape and dtype."""
    return _like(a, fill_value, dtype)


def empty_like(a: Any, dtype: Any = None, order: str = "C", ctx: Any = None,
              subok: bool = True, shape: Any = None) -> ndarray:
    """An array of ``a``'s shape and dtype (zeros in mxgrad)."""
    return _like(a, 0, dtype)


def arange(start: Any, stop: Any = None, step: Any = 1, dtype: Any = None,
           ctx: Any = None) -> ndarray:
    """Evenly spaced values in ``[start, stop)`` (float32 unless ``dtype``, as MXNet).

    Examples
    --------
    >>> from mxgrad import np
    >>> np.arange(3)
    array([0., 1., 2.])
    """
    _ctx(ctx)
    if stop is None:
        start, stop = 0, start
    return _wrap(_onp.arange(start, stop, step).astype(_np_dtype(dtype)), None, 0, ndarray)


def linspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True,
             retstep: bool = False, dtype: Any = None, axis: int = 0, ctx: Any = None) -> Any:
    """``num`` evenly spaced values from ``start`` to ``stop`` (float32 by default)."""
    _ctx(ctx)
    d, step = _onp.linspace(start, stop, num, endpoint=endpoint, retstep=True, axis=axis)
    r = _wrap(d.astype(_np_dtype(dtype)), None, 0, ndarray)
    return (r, step) if retstep else r


def logspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True, base: float = 10.0,
             dtype: Any = None, axis: int = 0, ctx: Any = None) -> ndarray:
    """``num`` values spaced evenly on a log scale (float32 by default)."""
    _ctx(ctx)
    d = _onp.logspace(start, stop, num, endpoint=endpoint, base=base, axis=axis)
    return _wrap(d.astype(_np_dtype(dtype)), None, 0, ndarray)


def eye(N: int, M: Optional[int] = None, k: int = 0, dtype: Any = None,
        ctx: Any = None) -> ndarray:
    """A 2-d array with ones on the ``k``-th diagonal."""
    _ctx(ctx)
    if int(N) < 0 or (M is not None and int(M) < 0):
        raise ShapeError(f"np.eye: N and M must be >= 0, got N={N}, M={M}")
    return _wrap(_onp.eye(N, M, k, dtype=_np_dtype(dtype)), None, 0, ndarray)


def identity(n: int, dtype: Any = None, ctx: Any = None) -> ndarray:
    """The ``n`` x ``n`` identity matrix."""
    return eye(n, dtype=dtype, ctx=ctx)


def meshgrid(*xi: Any, indexing: str = "xy", sparse: bool = False,
             copy: bool = True) -> List[ndarray]:
    """Coordinate matrices from coordinate vectors, as NumPy's ``meshgrid``."""
    grids = _onp.meshgrid(*[_in(x)._data for x in xi], indexing=indexing,  # type: ignore
                          sparse=sparse)
    return [_wrap(_onp.ascontiguousarray(g), None, 0, ndarray) for g in grids]


def genfromtxt(*args: Any, **kwargs: Any) -> ndarray:
    """NumPy's ``genfromtxt``, giving an ``mx.np`` array (float32 unless ``dtype``)."""
    dt = kwargs.pop("dtype", None)
    return array(_onp.genfromtxt(*args, **kwargs), dtype=dt)


def copy(a: Any) -> ndarray:
    """A copy of ``a`` (recorded)."""
    return _np(_E.identity_copy(_in(a)))


# ==================================================================== elementwise
def _unary(name: str, nd_fn: Any) -> Any:
    """``np.<name>``: the op of ``mx.nd.<name>`` through the one fast-path factory, with
    the face's rules (:data:`~mxgrad.numpy.multiarray.RULES`, applied inline); a Python
    number gives a number, a list an array."""
    def fallback(x: Any) -> Any:
        if not isinstance(x, NDArray):
            if _onp.ndim(x) == 0 and not isinstance(x, _onp.ndarray):
                return getattr(_onp, name)(x)      # a Python number gives a number
            return f(_in(x))
        return f(_np(x))
    f = unary_fast(nd_fn.op, ndarray, RULES, fallback, _unary_keywords)
    f.__name__ = name
    f.__doc__ = (f"``{name}`` element-wise (NumPy's signature, mx.nd's op: "
                 f"differentiable; ``out=`` an mx.np array of the result's shape and "
                 f"dtype, NumPy's other ufunc keywords at their defaults only, as MXNet).")
    return f


_UNARY = ("sqrt", "exp", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "arcsin",
          "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh",
          "abs", "sign", "square", "floor", "ceil", "trunc", "rint", "fix", "negative",
          "reciprocal", "cbrt", "degrees", "radians")
for _name in _UNARY:
    globals()[_name] = _unary(_name, getattr(_E, _name))
absolute = globals()["abs"]
fabs = absolute
__all__ += list(_UNARY) + ["absolute", "fabs"]


def _no_kwargs(name: str, kwargs: Any) -> None:
    """MXNet 1.9.1's ``np.true_divide`` and comparisons take no ufunc keywords."""
    if kwargs:
        raise UnknownArgumentError(f"np.{name}: got an unexpected keyword argument "
                                   f"{next(iter(kwargs))!r} (it takes x1, x2 and out=)")


def _binary(method: str, rmethod: str, np_name: str, ufunc: bool = True) -> Any:
    check = _check_kwargs if ufunc else _no_kwargs

    def f(x1: Any, x2: Any, out: Any = None, **kwargs: Any) -> Any:
        if kwargs:
            check(np_name, kwargs)
        if isinstance(x1, NDArray):
            r = getattr(x1 if type(x1) is ndarray else _np(x1), method)(x2)
        elif isinstance(x2, NDArray):
            if isinstance(x1, (list, tuple, _onp.ndarray)):
                r = getattr(_in(x1), method)(x2)
            else:
                r = getattr(x2 if type(x2) is ndarray else _np(x2), rmethod)(x1)
        else:
            r = getattr(_onp, np_name)(x1, x2)
            return r if out is None else _finish(out, array(r, dtype=out.dtype), np_name)
        return _finish(out, r, np_name)
    f.__name__ = np_name
    f.__doc__ = (f"NumPy's ``{np_name}`` with broadcasting and MXNet's promotion "
                 f"(differentiable; ``out=`` an mx.np array of the result's shape and "
                 f"dtype" + (", NumPy's other ufunc keywords at their defaults only, as "
                             "MXNet)." if ufunc else ")."))
    return f


add = _binary("__add__", "__radd__", "add")
subtract = _binary("__sub__", "__rsub__", "subtract")
multiply = _binary("__mul__", "__rmul__", "multiply")
divide = _binary("__truediv__", "__rtruediv__", "divide")
true_divide = _binary("__truediv__", "__rtruediv__", "true_divide", ufunc=False)
power = _binary("__pow__", "__rpow__", "power")
mod = remainder = _binary("__mod__", "__rmod__", "mod")
floor_divide = _binary("__floordiv__", "__rfloordiv__", "floor_divide")
equal = _binary("__eq__", "__eq__", "equal", ufunc=False)
not_equal = _binary("__ne__", "__ne__", "not_equal", ufunc=False)
greater = _binary("__gt__", "__lt__", "greater", ufunc=False)
greater_equal = _binary("__ge__", "__le__", "greater_equal", ufunc=False)
less = _binary("__lt__", "__gt__", "less", ufunc=False)
less_equal = _binary("__le__", "__ge__", "less_equal", ufunc=False)


def _extremum(nd_fn: Any, np_name: str) -> Any:
    def f(x1: Any, x2: Any, out: Any = None, **kwargs: Any) -> Any:
        if kwargs:
            _check_kwargs(np_name, kwargs)
        if not isinstance(x1, NDArray) and not isinstance(x2, NDArray):
            r = getattr(_onp, np_name)(x1, x2)
            return r if out is None else _finish(out, array(r, dtype=out.dtype), np_name)
        like = x1 if isinstance(x1, NDArray) else x2
        a, b = _in(x1, like), _in(x2, like)
        a, b = _promote(a, b)
        r = nd_fn(a, b)
        if r._data.dtype != a._data.dtype and a._data.dtype.kind in "iu":
            r = _E.cast(r, a._data.dtype)    # MXNet: integers in, integers out
        return _finish(out, _np(r), np_name)
    f.__name__ = np_name
    f.__doc__ = f"Element-wise ``{np_name}`` of two arrays (or an array and a number)."
    return f


maximum = _extremum(_E.maximum, "maximum")
minimum = _extremum(_E.minimum, "minimum")
fmax, fmin = maximum, minimum
hypot = _extremum(_E.hypot, "hypot")
arctan2 = _extremum(_E.arctan2, "arctan2")
__all__ += ["fmax", "fmin", "hypot", "arctan2", "floor_divide"]


def _predicate(np_fn: Any) -> Any:
    name = np_fn.__name__

    def f(x: Any, out: Any = None, **kwargs: Any) -> Any:
        if kwargs:
            _check_kwargs(name, kwargs)
        if not isinstance(x, NDArray) and _onp.ndim(x) == 0 and \
                not isinstance(x, _onp.ndarray) and out is None:
            return np_fn(x)                      # a Python number gives a NumPy bool
        r = _wrap(_onp.asarray(np_fn(_in(x)._data)), None, 0, ndarray)
        return _finish(out, r, name)
    f.__name__ = name
    f.__doc__ = (f"NumPy's ``{name}`` (bool result; ``out=`` a bool mx.np array; NumPy's "
                 f"other ufunc keywords at their defaults only, as MXNet).")
    return f


isnan, isinf, isfinite = _predicate(_onp.isnan), _predicate(_onp.isinf), \
    _predicate(_onp.isfinite)
isposinf, isneginf, logical_not = _predicate(_onp.isposinf), _predicate(_onp.isneginf), \
    _predicate(_onp.logical_not)


def where(condition: Any, x: Any = None, y: Any = None) -> Any:
    """Elements of ``x`` where ``condition`` holds, else of ``y`` (broadcasting);
    ``where(condition)`` is ``nonzero(condition)``."""
    if x is None and y is None:
        return nonzero(condition)
    like = x if isinstance(x, NDArray) else (y if isinstance(y, NDArray) else None)
    xa = _in(x, like) if like is not None else _in(x)
    ya = _in(y, xa)
    xa, ya = _promote(xa, ya)
    c = _in(condition)
    shape = _onp.broadcast_shapes(c.shape, xa.shape, ya.shape)
    c = c if c.shape == shape else _R.broadcast_exact(c, shape)
    xa = xa if xa.shape == shape else _R.broadcast_exact(xa, shape)
    ya = ya if ya.shape == shape else _R.broadcast_exact(ya, shape)
    cd = c if c._data.dtype == xa._data.dtype else _E.cast(c, xa._data.dtype)
    return _np(_I.where(cd, xa, ya))


# ==================================================================== shape functions
def transpose(a: Any, axes: Any = None) -> ndarray:
    """``a`` with its axes permuted (reversed by default)."""
    return _np(_S.transpose(_in(a), None if axes is None else tuple(axes)))


def swapaxes(a: Any, axis1: int, axis2: int) -> ndarray:
    """``a`` with two axes interchanged."""
    return _np(_S.swapaxes(_in(a), axis1, axis2))


def moveaxis(a: Any, source: Any, destination: Any) -> ndarray:
    """``a`` with axes moved to new positions."""
    return _np(_S.moveaxis(_in(a), source, destination))


def expand_dims(a: Any, axis: int) -> ndarray:
    """``a`` with a new length-1 axis at ``axis``."""
    return _np(_S.expand_dims(_in(a), axis))


def ravel(a: Any, order: str = "C") -> ndarray:
    """``a`` flattened to 1-d."""
    return reshape(a, (-1,), order)


def broadcast_to(array: Any, shape: Any) -> ndarray:
    """``array`` broadcast to ``shape`` (differentiable). As in MXNet, a ``-2`` in ``shape``
    keeps the input's size there (the input's axes aligned to the end of ``shape``).

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.np.broadcast_to(mx.np.ones((5,)), (3, 4, -2)).shape
    (3, 4, 5)
    """
    a = _in(array)
    target = (int(shape),) if isinstance(shape, (int, _onp.integer)) else \
        tuple(int(d) for d in shape)
    if -2 in target:
        lead = len(target) - a.ndim
        if lead < 0 or _builtins.any(d == -2 and i < lead for i, d in enumerate(target)):
            raise ShapeError(f"broadcast_to: a -2 in shape {target} keeps an axis of the "
                             f"input's shape {a.shape}, aligned to the end; the input has "
                             f"no axis there")
        target = tuple(a.shape[i - lead] if d == -2 else d for i, d in enumerate(target))
    return _np(_R.broadcast_exact(a, target))


def tile(A: Any, reps: Any) -> ndarray:
    """``A`` repeated ``reps`` times along each axis."""
    return _np(_S.tile(_in(A), reps))


def repeat(a: Any, repeats: int, axis: Optional[int] = None) -> ndarray:
    """Each element of ``a`` repeated ``repeats`` times (flattened when ``axis`` is None)."""
    return _np(_S.repeat(_in(a), repeats, axis))


def flip(m: Any, axis: Any = None) -> ndarray:
    """``m`` with the order of elements reversed along ``axis`` (all axes by default)."""
    a = _in(m)
    if a.ndim == 0:
        return copy(a)                  # NumPy: nothing to reverse
    if axis is None:
        axis = tuple(range(a.ndim))
    return _np(_S.flip(a, axis))


def concatenate(seq: Sequence[Any], axis: Optional[int] = 0, out: Any = None) -> ndarray:
    """Join arrays along an existing axis (flattened first when ``axis`` is None).

    Examples
    --------
    >>> from mxgrad import np
    >>> np.concatenate([np.ones((1, 2)), np.zeros((1, 2))]).shape
    (2, 2)
    """
    arrs = [_in(a) for a in seq]
    if not arrs:
        raise ShapeError("np.concatenate: need at least one array to concatenate")
    if axis is None:
        arrs, axis = [reshape(a, (-1,)) for a in arrs], 0
    dt = _functools.reduce(promoted_dtype, (a._data.dtype for a in arrs))
    arrs = [a if a._data.dtype == dt else _E.cast(a, dt) for a in arrs]
    if arrs[0].ndim == 0:
        raise ShapeError("np.concatenate: zero-dimensional arrays cannot be concatenated")
    return _finish(out, _np(_S.concat(*arrs, dim=axis)), "concatenate")


def stack(arrays: Sequence[Any], axis: int = 0, out: Any = None) -> ndarray:
    """Join arrays along a new axis."""
    arrs = [_in(a) for a in arrays]
    if not arrs:
        raise ShapeError("np.stack: need at least one array to stack")
    return _finish(out, _np(_S.stack(*arrs, axis=axis)), "stack")


def vstack(tup: Sequence[Any]) -> ndarray:
    """Stack arrays vertically (rows); 0-d and 1-d arrays become rows."""
    arrs = [_in(a) for a in tup]
    return concatenate([reshape(a, (1, -1)) if a.ndim < 2 else a for a in arrs], axis=0)


def hstack(tup: Sequence[Any]) -> ndarray:
    """Stack arrays horizontally (columns); 0-d arrays as 1-d."""
    arrs = [reshape(a, (1,)) if _in(a).ndim == 0 else _in(a) for a in tup]
    return concatenate(arrs, axis=0 if arrs[0].ndim == 1 else 1)


def split(ary: Any, indices_or_sections: Any, axis: int = 0) -> List[ndarray]:
    """Split into equal sections (an int, which must divide the axis) or at indices."""
    a = _in(ary)
    if isinstance(indices_or_sections, (int, _onp.integer)) and \
            a.shape[axis] % int(indices_or_sections):
        raise ShapeError(f"np.split: array split does not result in an equal division "
                         f"({a.shape[axis]} into {indices_or_sections}); use array_split")
    return array_split(a, indices_or_sections, axis)


def array_split(ary: Any, indices_or_sections: Any, axis: int = 0) -> List[ndarray]:
    """Split into sections (possibly unequal) or at indices; differentiable."""
    a = _in(ary)
    n = a.shape[axis]
    if isinstance(indices_or_sections, (int, _onp.integer)):
        k = int(indices_or_sections)
        if k <= 0:
            raise ShapeError("np.array_split: number of sections must be larger than 0")
        q, r = _builtins.divmod(n, k)
        bounds, pos = [], 0
        for i in range(k):
            pos += q + (1 if i < r else 0)
            bounds.append(pos)
        bounds = bounds[:-1]
    else:
        bounds = [int(i) for i in indices_or_sections]
    edges = [0] + [_builtins.min(_builtins.max(b, 0), n) for b in bounds] + [n]
    nd = a.ndim
    ax = axis % nd
    out = []
    for lo, hi in zip(edges[:-1], edges[1:]):
        key = (slice(None),) * ax + (slice(lo, _builtins.max(lo, hi)),)
        out.append(a[key] if type(a) is ndarray else _np(a)[key])
    return out


def vsplit(ary: Any, indices_or_sections: Any) -> List[ndarray]:
    """Split along the first axis (of an array of at least 2 dimensions)."""
    if _in(ary).ndim < 2:
        raise ShapeError("np.vsplit only works on arrays of 2 or more dimensions")
    return split(ary, indices_or_sections, axis=0)


def hsplit(ary: Any, indices_or_sections: Any) -> List[ndarray]:
    """Split along the second axis (the first for 1-d arrays)."""
    a = _in(ary)
    if a.ndim == 0:
        raise ShapeError("np.hsplit only works on arrays of 1 or more dimensions")
    return split(a, indices_or_sections, axis=1 if a.ndim > 1 else 0)


def diag(v: Any, k: int = 0) -> ndarray:
    """The ``k``-th diagonal of a 2-d array, or a 2-d array with ``v`` on it."""
    from ..ops import composed as _C
    x = _in(v)
    if x.ndim == 2 and not -x.shape[0] < k < x.shape[1]:
        return diagonal(x, k)                         # NumPy: an empty diagonal
    return _np(_C.diag(x, k=k))


def tril(m: Any, k: int = 0) -> ndarray:
    """The lower triangle of ``m`` (below the ``k``-th diagonal), differentiable."""
    a = _in(m)
    mask = _wrap(_onp.tril(_onp.ones(a.shape[-2:], a._data.dtype), k), None, 0, ndarray)
    return _np(a * mask)


def triu(m: Any, k: int = 0) -> ndarray:
    """The upper triangle of ``m``, differentiable."""
    a = _in(m)
    mask = _wrap(_onp.triu(_onp.ones(a.shape[-2:], a._data.dtype), k), None, 0, ndarray)
    return _np(a * mask)


def unique(ar: Any, return_index: bool = False, return_inverse: bool = False,
           return_counts: bool = False, axis: Optional[int] = None) -> Any:
    """The sorted unique elements (and, as asked, indices, inverse and counts: int64)."""
    res = _onp.unique(_in(ar)._data, return_index, return_inverse,  # type: ignore
                      return_counts, axis)
    if not isinstance(res, tuple):
        return _wrap(res, None, 0, ndarray)
    return tuple(_wrap(r if i == 0 else r.astype(_onp.int64), None, 0, ndarray)
                 for i, r in enumerate(res))


# ==================================================================== products
def tensordot(a: Any, b: Any, axes: Any = 2) -> ndarray:
    """Sum products over the given axes (NumPy's ``tensordot``), differentiable."""
    a, b = _promote(_in(a), _in(b))
    if isinstance(axes, (int, _onp.integer)):
        n = int(axes)
        ax_a, ax_b = list(range(a.ndim - n, a.ndim)), list(range(n))
    else:
        ax_a, ax_b = axes
        ax_a = [ax_a] if isinstance(ax_a, int) else list(ax_a)
        ax_b = [ax_b] if isinstance(ax_b, int) else list(ax_b)
    ax_a = [x % a.ndim for x in ax_a]
    ax_b = [x % b.ndim for x in ax_b]
    free_a = [i for i in range(a.ndim) if i not in ax_a]
    free_b = [i for i in range(b.ndim) if i not in ax_b]
    at = transpose(a, free_a + ax_a) if free_a + ax_a != list(range(a.ndim)) else a
    bt = transpose(b, ax_b + free_b) if ax_b + free_b != list(range(b.ndim)) else b
    k = int(_onp.prod([a.shape[i] for i in ax_a]))
    m = int(_onp.prod([a.shape[i] for i in free_a]))
    n = int(_onp.prod([b.shape[i] for i in free_b]))
    r = dot(reshape(at, (m, k)), reshape(bt, (k, n)))
    return reshape(r, tuple(a.shape[i] for i in free_a) + tuple(b.shape[i] for i in free_b))


def outer(a: Any, b: Any) -> ndarray:
    """The outer product of two vectors (flattened first)."""
    return _np(reshape(a, (-1, 1)) * reshape(b, (1, -1)))


def inner(a: Any, b: Any) -> ndarray:
    """Inner product over the last axes."""
    return tensordot(a, b, axes=([-1], [-1]))


def vdot(a: Any, b: Any) -> ndarray:
    """The dot product of the flattened arrays."""
    return dot(ravel(a), ravel(b))


def einsum(subscripts: str, *operands: Any, **kwargs: Any) -> ndarray:
    """Einstein summation for two operands or one, built from differentiable ops
    (transpose, broadcasting multiply, sum)."""
    ops = [_in(o) for o in operands]
    spec = subscripts.replace(" ", "")
    ins, res = spec.split("->") if "->" in spec else (spec, None)
    terms = ins.split(",")
    if len(terms) != len(ops):
        raise DTypeError(f"np.einsum: subscripts {subscripts!r} name {len(terms)} operands, "
                         f"got {len(ops)}")
    ell = ""
    if "..." in spec:           # '...' stands for the leading axes an operand has left over
        free = [c for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ" if c not in spec]
        counts = [o.ndim - len(t.replace("...", "")) if "..." in t else 0
                  for t, o in zip(terms, ops)]
        ell = "".join(free[:_builtins.max(counts)])
        terms = [t.replace("...", ell[len(ell) - n:] if n else "") for t, n in zip(terms, counts)]
        if res is not None:
            res = res.replace("...", ell)
    if res is None:
        letters = "".join(terms)
        res = ell + "".join(sorted(c for c in set(letters) if letters.count(c) == 1
                                   and c not in ell))
    if _builtins.any("." in t for t in terms) or "." in res:
        raise DTypeError(f"np.einsum: subscripts {subscripts!r}: '.' only as '...'")
    # a letter repeated inside one term takes that operand's diagonal (NumPy's rule)
    terms = list(terms)
    for k, (t, o) in enumerate(zip(terms, ops)):
        if len(t) != o.ndim:
            raise ShapeError(f"np.einsum: term {t!r} does not fit an operand of shape "
                             f"{o.shape}")
        while len(set(t)) != len(t):
            c = next(ch for ch in t if t.count(ch) > 1)
            i = t.index(c)
            j = t.index(c, i + 1)
            o = diagonal(o, 0, i, j)            # the diagonal becomes the last axis
            t = "".join(ch for n, ch in enumerate(t) if n not in (i, j)) + c
        terms[k], ops[k] = t, o
    allc = []
    for t in terms:
        for c in t:
            if c not in allc:
                allc.append(c)
    aligned = []
    for t, o in zip(terms, ops):
        perm = sorted(range(len(t)), key=lambda i: allc.index(t[i]))
        x = transpose(o, perm) if perm != list(range(len(t))) else o
        shape = tuple(o.shape[t.index(c)] if c in t else 1 for c in allc)   # broadcasts
        aligned.append(reshape(x, shape))
    prodx: Any = aligned[0]
    for x in aligned[1:]:
        prodx = prodx * x
    red = tuple(i for i, c in enumerate(allc) if c not in res)
    r = sum(prodx, axis=red) if red else prodx
    kept = [c for c in allc if c in res]
    perm = [kept.index(c) for c in res]
    return transpose(r, perm) if perm != list(range(len(perm))) else r


finfo = _onp.finfo
iinfo = _onp.iinfo
__all__ += ["vstack", "hstack", "array_split", "vsplit", "hsplit", "finfo", "iinfo"]


# ------------------------------------------------------- differentiable compositions
def roll(a: Any, shift: Any, axis: Any = None) -> ndarray:
    """Elements rolled by ``shift`` along ``axis`` (of the flattened array when None);
    differentiable."""
    x = _in(a)
    if isinstance(shift, (tuple, list)) and not isinstance(axis, (tuple, list)):
        if axis is None:
            total = _builtins.sum(int(s_) for s_ in shift)
            return roll(x, total, None)
        return roll(x, [int(s_) for s_ in shift], [axis] * len(shift))
    if axis is None:
        return reshape(roll(reshape(x, (-1,)), shift, 0), x.shape)
    if isinstance(axis, (tuple, list)):
        shifts = shift if isinstance(shift, (tuple, list)) else [shift] * len(axis)
        for s_, ax in zip(shifts, axis):
            x = roll(x, s_, ax)
        return _np(x)
    ax = axis % x.ndim
    n = x.shape[ax]
    if n == 0:
        return _np(x)
    k = int(shift) % n
    if k == 0:
        return _np(x)
    lead = (slice(None),) * ax
    xs = _np(x)
    return concatenate([xs[lead + (slice(n - k, n),)], xs[lead + (slice(0, n - k),)]], axis=ax)


def diagonal(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> ndarray:
    """The ``offset`` diagonal over ``axis1``/``axis2`` (NumPy's layout: the diagonal
    last); differentiable."""
    from ..ops import composed as _C
    x = _in(a)
    nd = x.ndim
    if nd < 2:
        raise ShapeError(f"np.diagonal/np.trace: the array must have at least 2 dimensions, "
                         f"got shape {x.shape}")
    if not (-nd <= axis1 < nd and -nd <= axis2 < nd) or axis1 % nd == axis2 % nd:
        raise ShapeError(f"np.diagonal/np.trace: axis1={axis1} and axis2={axis2} must be two "
                         f"different axes of an array of {nd} dimensions")
    n1, n2 = x.shape[axis1], x.shape[axis2]
    if not -n1 < offset < n2:       # no such diagonal: NumPy gives it empty
        # recorded (a sum over an empty axis), so that a backward through it works
        moved = moveaxis(x, (axis1, axis2), (-2, -1))
        return sum(_np(moved)[..., :0, :0], axis=-1)
    return _np(_C.diag(x, k=offset, axis1=axis1, axis2=axis2))


def trace(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype: Any = None,
          out: Any = None) -> ndarray:
    """The sum along a diagonal; differentiable."""
    return sum(diagonal(a, offset, axis1, axis2), axis=-1, dtype=dtype)


def diff(a: Any, n: int = 1, axis: int = -1, prepend: Any = None,
         append: Any = None) -> ndarray:
    """The ``n``-th discrete difference along ``axis``; differentiable."""
    x = _np(_in(a))
    ax = axis % x.ndim
    lead = (slice(None),) * ax
    for _ in range(n):
        x = x[lead + (slice(1, None),)] - x[lead + (slice(None, -1),)]
    return x


def average(a: Any, axis: Any = None, weights: Any = None, returned: bool = False) -> Any:
    """The (weighted) average over ``axis``; differentiable."""
    x = _np(_in(a))
    if weights is None:
        avg = mean(x, axis)
        wsum = full_like(avg, x.size / _builtins.max(avg.size, 1))
    else:
        w = _in(weights, x)
        if w.shape != x.shape:
            if axis is None or w.ndim != 1:
                raise ShapeError("np.average: weights must have the shape of a, or be 1-d "
                                 "along axis")
            shape = [1] * x.ndim
            shape[axis] = w.shape[0]
            w = reshape(w, tuple(shape))
        wsum = sum(broadcast_to(w, x.shape), axis)
        avg = _np(sum(x * w, axis) / wsum)
    return (avg, wsum) if returned else avg


def append(arr: Any, values: Any, axis: Optional[int] = None) -> ndarray:
    """``values`` appended to ``arr`` (both flattened when ``axis`` is None)."""
    a = _np(_in(arr))
    v = _in(values, a)
    if axis is None:
        return concatenate([ravel(a), ravel(v)], axis=0)
    return concatenate([a, v], axis=axis)


def _atleast(n: int) -> Any:
    def f(*arys: Any) -> Any:
        out = []
        for x in arys:
            x = _np(_in(x))
            if x.ndim < n:
                shape = {0: (1,) * n, 1: (1,) + x.shape + (1,) * (n - 2)}.get(
                    x.ndim, x.shape + (1,) * (n - x.ndim))
                if n == 2 and x.ndim == 1:
                    shape = (1,) + x.shape
                x = reshape(x, shape)
            out.append(x)
        return out[0] if len(out) == 1 else out
    f.__name__ = f"atleast_{n}d"
    f.__doc__ = f"Inputs viewed with at least {n} dimensions (NumPy's rule)."
    return f


atleast_1d, atleast_2d, atleast_3d = _atleast(1), _atleast(2), _atleast(3)


def take_along_axis(arr: Any, indices: Any, axis: Optional[int]) -> ndarray:
    """Values of ``arr`` at ``indices`` along ``axis`` (NumPy's rule); differentiable."""
    a = _np(_in(arr))
    idx = _in(indices)._data.astype(_onp.int64)
    if axis is None:
        a, axis = ravel(a), 0
    ax = axis % a.ndim
    key = tuple(idx if i == ax else _onp.arange(a.shape[i]).reshape(
        [-1 if j == i else 1 for j in range(a.ndim)]) for i in range(a.ndim))
    return a[key]


def deg2rad(x: Any, out: Any = None, **kwargs: Any) -> ndarray:
    """Degrees to radians; differentiable."""
    if kwargs:
        _check_kwargs("deg2rad", kwargs)
    return _finish(out, _np(_in(x) * (pi / 180.0)), "deg2rad")


def rad2deg(x: Any, out: Any = None, **kwargs: Any) -> ndarray:
    """Radians to degrees; differentiable."""
    if kwargs:
        _check_kwargs("rad2deg", kwargs)
    return _finish(out, _np(_in(x) * (180.0 / pi)), "rad2deg")


def positive(x: Any) -> ndarray:
    """``+x`` (a copy)."""
    return copy(x)


around = round_ = round


def ptp(a: Any, axis: Any = None, keepdims: bool = False) -> ndarray:
    """Range (max - min) over ``axis``; differentiable."""
    return _np(max(a, axis, keepdims=keepdims) - min(a, axis, keepdims=keepdims))


def flipud(m: Any) -> ndarray:
    """Flip along the first axis."""
    return flip(m, 0)


def fliplr(m: Any) -> ndarray:
    """Flip along the second axis."""
    return flip(m, 1)


def rot90(m: Any, k: int = 1, axes: Tuple[int, int] = (0, 1)) -> ndarray:
    """Rotate by 90 degrees ``k`` times in the plane of ``axes``; differentiable."""
    x = _np(_in(m))
    k %= 4
    a0, a1 = axes
    perm = list(range(x.ndim))
    perm[a0], perm[a1] = perm[a1], perm[a0]
    for _ in range(k):
        x = transpose(flip(x, a1), perm)
    return x


def column_stack(tup: Sequence[Any]) -> ndarray:
    """0-d and 1-d arrays as columns of a 2-d array (others joined along axis 1)."""
    return concatenate([reshape(a, (-1, 1)) if _in(a).ndim < 2 else a for a in tup], axis=1)


row_stack = vstack


def dstack(tup: Sequence[Any]) -> ndarray:
    """Arrays joined along the third axis."""
    return concatenate([atleast_3d(a) for a in tup], axis=2)


alltrue, sometrue, product = all, any, prod


def msort(a: Any) -> ndarray:
    """A copy sorted along the first axis."""
    return sort(a, axis=0)


__all__ += ["roll", "diagonal", "trace", "diff", "average", "append", "atleast_1d",
            "atleast_2d", "atleast_3d", "take_along_axis", "deg2rad", "rad2deg", "positive",
            "around", "round_", "ptp", "flipud", "fliplr", "rot90", "column_stack",
            "row_stack", "dstack", "alltrue", "sometrue", "product", "msort", "in1d",
            "trapz", "hanning", "hamming", "blackman", "quantile", "percentile", "delete",
            "dsplit", "ediff1d", "diagflat", "polyval", "nan_to_num", "pad"]


# ------------------------------------------------------------------ NumPy's others
from ._fallback import NAMES as _FB_NAMES, fallback as _fallback  # noqa: E402
for _name in _FB_NAMES:
    if _name not in globals() and hasattr(_onp, _name):
        globals()[_name] = _fallback(getattr(_onp, _name), _name)
        __all__.append(_name)


def _fallback_ufunc(name: str) -> Any:
    """A ufunc MXNet computes by NumPy, with MXNet's checks of the ufunc keywords and
    ``out=``."""
    fb = globals()[name]

    def f(*args: Any, out: Any = None, **kwargs: Any) -> Any:
        if kwargs:
            _check_kwargs(name, kwargs)
        return _finish(out, fb(*args), name)
    f.__name__, f.__doc__ = name, fb.__doc__
    return f


for _name in ("invert", "bitwise_not", "lcm", "copysign", "bitwise_and", "bitwise_xor",
              "bitwise_or", "ldexp"):
    globals()[_name] = _fallback_ufunc(_name)


def _window(name: str) -> Any:
    np_fn = getattr(_onp, name)

    def f(M: int, dtype: Any = None, ctx: Any = None) -> ndarray:
        _ctx(ctx)
        return _wrap(np_fn(M).astype(_np_dtype(dtype)), None, 0, ndarray)
    f.__name__ = name
    f.__doc__ = f"NumPy's ``{name}`` window, float32 unless ``dtype`` (as MXNet)."
    return f


hanning, hamming, blackman = _window("hanning"), _window("hamming"), _window("blackman")


def _quantile_fn(name: str) -> Any:
    np_fn = getattr(_onp, name)

    def f(a: Any, q: Any, axis: Any = None, out: Any = None, overwrite_input: Any = None,
          interpolation: str = "linear", keepdims: bool = False) -> ndarray:
        r = numpy_call(np_fn, (a, q), {"axis": axis, "method": interpolation,
                                       "keepdims": keepdims})
        if not isinstance(r, NDArray):
            r = array(r)
        return _finish(out, r, name)
    f.__name__ = name
    f.__doc__ = (f"NumPy's ``{name}`` with MXNet 1.9.1's ``interpolation=`` keyword (NumPy's "
                 f"``method=``); computed by NumPy, not differentiable.")
    return f


quantile, percentile = _quantile_fn("quantile"), _quantile_fn("percentile")


def delete(arr: Any, obj: Any, axis: Optional[int] = None) -> ndarray:
    """``arr`` without the entries ``obj`` (indices, a slice or a mask) along ``axis``.
    Indices given as an ``mx.np`` array are taken as MXNet takes them: as integers (also
    from a float array: ``np.array([0, 1])`` is float32), negative and out-of-range ones
    ignored.

    Examples
    --------
    >>> from mxgrad import np
    >>> np.delete(np.arange(5.), np.array([-1, 0, 3, 9]))
    array([1., 2., 4.])
    """
    if isinstance(obj, NDArray) and obj._data.dtype != _onp.bool_:
        a = _in(arr)
        n = a.size if axis is None else a.shape[axis]
        idx = obj._data.astype(_onp.int64).ravel()
        obj = idx[(idx >= 0) & (idx < n)]
    return numpy_call(_onp.delete, (arr, obj), {"axis": axis})


def dsplit(ary: Any, indices_or_sections: Any) -> List[ndarray]:
    """Split along the third axis (of an array of at least 3 dimensions); differentiable."""
    if _in(ary).ndim < 3:
        raise ShapeError("np.dsplit only works on arrays of 3 or more dimensions")
    return split(ary, indices_or_sections, axis=2)


def ediff1d(ary: Any, to_end: Any = None, to_begin: Any = None) -> ndarray:
    """Differences of consecutive elements of the flattened array, with ``to_begin`` and
    ``to_end`` around them; differentiable."""
    x = ravel(_in(ary))
    parts: List[Any] = [] if to_begin is None else [ravel(_in(to_begin, x))]
    parts.append(x[1:] - x[:-1])
    if to_end is not None:
        parts.append(ravel(_in(to_end, x)))
    return parts[0] if len(parts) == 1 else concatenate(parts, axis=0)


def diagflat(v: Any, k: int = 0) -> ndarray:
    """A 2-d array with the flattened ``v`` on its ``k``-th diagonal; differentiable."""
    return diag(ravel(_in(v)), k)


def polyval(p: Any, x: Any) -> ndarray:
    """The polynomial with coefficients ``p`` (highest power first) at ``x`` (Horner's
    rule); differentiable in ``p`` and ``x``."""
    pa, xa = _np(_in(p)), _in(x)
    if pa.ndim != 1:
        raise ShapeError(f"np.polyval: p must be 1-d, got shape {pa.shape}")
    if pa.shape[0] == 0:
        return zeros_like(xa)
    y = pa[0] * ones_like(xa)
    for i in range(1, pa.shape[0]):
        y = y * xa + pa[i]
    return _np(y)


def nan_to_num(x: Any, copy: bool = True, nan: float = 0.0, posinf: Any = None,
               neginf: Any = None) -> ndarray:
    """``x`` with NaN, +inf and -inf replaced by ``nan``, ``posinf`` and ``neginf`` (the
    dtype's largest finite values by default); differentiable (zero gradient where a
    value was replaced). ``copy=False`` writes into ``x`` as MXNet, except for a variable
    being recorded (mxgrad never overwrites a recorded variable)."""
    a = _np(_in(x))
    if a._data.dtype.kind != "f":
        return a if not copy else positive(a)
    big = _onp.finfo(a._data.dtype).max
    d = a._data
    r = a
    for mask, value in ((_onp.isnan(d), nan), (_onp.isposinf(d), big if posinf is None
                                                 else posinf),
                        (_onp.isneginf(d), -big if neginf is None else neginf)):
        if mask.any():
            r = where(_wrap(mask, None, 0, ndarray), full_like(a, value), r)
    if r is a:
        r = positive(a)
    if not copy and isinstance(x, NDArray):
        from .._engine.scope import is_recording
        if not (is_recording() and x._node is not None):
            x[...] = r           # in place, as MXNet (under recording: the new array only)
            return _np(x)
    return r


def pad(array: Any, pad_width: Any, mode: str = "constant", **kwargs: Any) -> ndarray:
    """``array`` padded as NumPy's ``pad``; ``mode='constant'`` (with a number
    ``constant_values``) is differentiable, the other modes are computed by NumPy."""
    x = _np(_in(array))
    cv = kwargs.get("constant_values", 0)
    if mode != "constant" or _onp.ndim(cv) != 0 or _builtins.any(
            k != "constant_values" for k in kwargs):
        return numpy_call(_onp.pad, (x, pad_width), dict(kwargs, mode=mode))
    try:
        widths = _onp.broadcast_to(_onp.asarray(pad_width, dtype=_onp.int64), (x.ndim, 2))
    except ValueError:
        raise ShapeError(f"np.pad: pad_width {pad_width!r} does not fit an array of "
                         f"{x.ndim} dimensions") from None
    if (widths < 0).any():
        raise ShapeError(f"np.pad: pad_width must not be negative, got {pad_width!r}")
    for ax, (lo, hi) in enumerate(widths.tolist()):
        parts = []
        for n in (lo, hi):
            shape = x.shape[:ax] + (n,) + x.shape[ax + 1:]
            parts.append(full(shape, cv, dtype=x._data.dtype) if n else None)
        if parts[0] is not None or parts[1] is not None:
            x = concatenate([p_ for p_ in (parts[0], x, parts[1]) if p_ is not None], axis=ax)
    return x


NAN = NaN = nan
NINF, PINF, NZERO, PZERO = -inf, inf, -0.0, 0.0
globals()["bool"] = _onp.bool_   # mx.np.bool, as MXNet names it (not shadowing the type)
result_type, promote_types, min_scalar_type = _onp.result_type, _onp.promote_types, \
    _onp.min_scalar_type
set_printoptions = _onp.set_printoptions
__all__ += ["NAN", "NaN", "NINF", "PINF", "NZERO", "PZERO", "bool", "result_type",
            "promote_types", "min_scalar_type", "set_printoptions", "shape", "size", "ndim",
            "may_share_memory", "shares_memory", "take"]


def shape(a: Any) -> Tuple[int, ...]:
    """The shape of ``a``."""
    return tuple(a.shape) if isinstance(a, NDArray) else _onp.shape(a)


def size(a: Any, axis: Optional[int] = None) -> int:
    """The number of elements of ``a`` (along ``axis``)."""
    return int(a.size if axis is None else a.shape[axis]) if isinstance(a, NDArray) else \
        int(_onp.size(a, axis))


def ndim(a: Any) -> int:
    """The number of dimensions of ``a``."""
    return a.ndim if isinstance(a, NDArray) else _onp.ndim(a)


def may_share_memory(a: Any, b: Any, max_work: Optional[int] = None) -> bool:
    """Whether ``a`` and ``b`` may share memory."""
    return _builtins.bool(_onp.may_share_memory(_in(a)._data, _in(b)._data))


shares_memory = may_share_memory


def take(a: Any, indices: Any, axis: Optional[int] = None, mode: str = "raise",
         out: Any = None) -> ndarray:
    """Elements of ``a`` at ``indices`` along ``axis`` (of the flattened array when None);
    differentiable in ``a``."""
    arr = _in(a)
    idx = indices if isinstance(indices, NDArray) else array(indices, dtype="int64")
    if axis is None:
        arr, axis = reshape(arr, (-1,)), 0
    n = arr.shape[axis]
    d = idx._data
    if mode == "raise" and d.size and (d.min() < -n or d.max() >= n):
        raise ShapeError(f"np.take: index out of bounds for axis {axis} with size {n}")
    r = _I.take(arr, idx, axis=axis, mode="wrap" if mode in ("raise", "wrap") else "clip")
    if d.ndim == 0:      # a 0-d index drops the axis (NumPy), where mx.nd's take keeps it
        r = reshape(_np(r), tuple(arr.shape[:axis]) + tuple(arr.shape[axis + 1:]))
    return _finish(out, _np(r), "take")

in1d = _fallback(lambda ar1, ar2, *a, **k: _onp.isin(_onp.ravel(ar1), ar2, *a, **k), "in1d")
trapz = _fallback(getattr(_onp, "trapezoid", None) or getattr(_onp, "trapz"), "trapz")


# ------------------------------------------------------- NumPy's dispatch protocols
def _register_dispatch() -> None:
    from ..numpy_dispatch_protocol import (_NUMPY_ARRAY_FUNCTION_LIST,
                                           _NUMPY_ARRAY_UFUNC_LIST)
    from .multiarray import ARRAY_FUNCTIONS, ARRAY_UFUNCS
    for name in _NUMPY_ARRAY_FUNCTION_LIST:
        mod_np, mod_mx = (_onp.linalg, linalg) if name.startswith("linalg.") else (_onp, None)
        short = name.split(".")[-1]
        np_fn = getattr(mod_np, short, None)
        mx_fn = getattr(mod_mx, short, None) if mod_mx is not None else globals().get(short)
        if np_fn is not None and mx_fn is not None:
            ARRAY_FUNCTIONS[np_fn] = mx_fn
    for name in _NUMPY_ARRAY_UFUNC_LIST:
        np_fn, mx_fn = getattr(_onp, name, None), globals().get(name)
        if np_fn is not None and mx_fn is not None:
            ARRAY_UFUNCS[np_fn] = mx_fn


_register_dispatch()
from . import fallback, fallback_linalg  # noqa: E402  (MXNet's lists of NumPy-computed names)
from . import _internal  # noqa: E402,F401  (MXNet's boolean-mask assignment operators)


def __dir__() -> List[str]:
    """The public names (as ``dir()`` of MXNet's module lists them)."""
    return sorted(set(__all__))

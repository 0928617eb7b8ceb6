"""``mx.np.ndarray``: the NumPy face of mxgrad's arrays.

One engine, two faces (DESIGN principle 17): ``mx.np.ndarray`` is a subclass of
``NDArray`` with no state of its own (``__slots__ = ()``). It shares the op table,
the graph, the version counters and the scopes with ``mx.nd``; ops applied to it give
arrays of its face (:func:`mxgrad.ops._apply.face_of`), and converting between faces
(:meth:`ndarray.as_nd_ndarray`, ``NDArray.as_np_ndarray``) is a free view that is
recorded through. What this class adds is *semantics*, as MXNet 1.9.1's ``mx.np`` has
them:

* 0-d arrays exist: full reductions, integer indexing and ``dot`` of vectors give
  shape ``()``;
* comparisons give ``bool`` arrays; reductions and ``argmax`` follow NumPy's dtypes
  (``argmax`` int64, ``mean`` of ints float32);
* arithmetic between arrays of different dtypes promotes as MXNet's NumPy interface
  does (an integer or bool array with a float array takes the float's dtype; two
  floats or two integers take the wider);
* methods take NumPy's signatures (``x.reshape(2, 3)``, ``x.transpose(1, 0)``,
  ``x.sum(axis=0)``, ``x.std()``...);
* ``repr`` is NumPy's (``array([1., 2.])``, float32 shown without its dtype as MXNet
  does).

Examples
--------
>>> from mxgrad import np
>>> x = np.array([[1, 2], [3, 4]])
>>> x
array([[1., 2.],
       [3., 4.]])
>>> x.sum(), x[0, 1].shape, (x > 2).dtype
(array(10.), (), dtype('bool'))
"""
from __future__ import annotations

import builtins
from typing import Any, Optional, Sequence, Tuple, Union

import numpy as _onp

from ..base import ArgumentTypeError, DTypeError, NotSupportedError, OutOfRangeError, \
    ShapeError, as_dtype
from .._engine.ndarray import FACES, NDArray, as_face, wrap
from ..ops import elemwise as _E
from ..ops._apply import FaceRules
from ..ops import reduce as _R
from ..ops import shape as _S
from ..ops import ordering as _O
from ..ops import linalg as _L
from ..ops import composed as _C
from ..ops.indexing import gather
from ._ufunc import check_kwargs, finish

__all__ = ["ndarray", "to_np", "from_input", "promote", "promoted_dtype", "numpy_shape",
           "matmul"]

_DEFAULT = _onp.dtype(_onp.float32)


class ndarray(NDArray):
    """An array of MXNet's NumPy interface (``mx.np``), on mxgrad's one engine.

    Create arrays with :func:`mxgrad.numpy.array` and the other ``mx.np`` functions;
    ``ndarray(obj)`` converts ``obj`` (as ``np.array`` does).

    Examples
    --------
    >>> from mxgrad import np
    >>> a = np.ones((2, 3))
    >>> a.T.shape, a.sum(axis=0)
    ((3, 2), array([2., 2., 2.]))
    """

    __slots__ = ()

    def __init__(self, data: Any = None, ctx: Any = None, dtype: Any = None) -> None:
        arr = _host(data if data is not None else (), dtype)
        self._data = arr
        self._node = None
        self._oidx = 0
        self._vbox = None
        self._tan = None

    # ---------------------------------------------------------------- basics
    @property
    def dtype(self) -> _onp.dtype:  # type: ignore[override]
        """The element type, as a NumPy dtype (``dtype('float32')`` by default)."""
        return self._data.dtype

    def __repr__(self) -> str:
        d = self._data
        if d.dtype == _DEFAULT and d.size:   # MXNet's NumPy interface: float32 shown bare
            return "array(" + _onp.array2string(d, separator=", ", prefix="array(") + ")"
        r = _onp.array_repr(d)
        if d.dtype == _DEFAULT:
            r = r.replace(", dtype=float32)", ")")
        elif d.dtype.kind != "b" and "dtype=" not in r:  # NumPy's own defaults it names
            r = f"{r[:-1]}, dtype={d.dtype.name})"
        return r

    def __str__(self) -> str:
        return str(self._data)

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        p.text(self.__repr__())

    def __format__(self, spec: str) -> str:
        """``f'{x:.3f}'``: a 0-d array formats as its number; an array with dimensions
        takes no format spec (MXNet 1.9.1's rule)."""
        if not spec:
            return str(self)
        if self._data.ndim == 0:
            return format(self._data.item(), spec)
        raise ArgumentTypeError(f"Cannot format mxnet.numpy.ndarray with format_spec {spec!r}"
                                f" (only 0-d arrays take one; format x.item() or "
                                f"x.asnumpy())")

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise DTypeError("len() of a 0-d array (it has no length); use .item()")
        return self._data.shape[0]

    def __hash__(self) -> int:
        return object.__hash__(self)

    def item(self, *args: Any) -> Any:
        """The element as a Python number (``x.item()``: a size-1 array; ``x.item(i)``).

        Examples
        --------
        >>> from mxgrad import np
        >>> np.array([2.5]).item()
        2.5
        """
        if not args and self._data.size != 1:
            raise ShapeError(f"item(): the array has {self._data.size} elements; only a "
                             f"size-1 array converts to a Python scalar (or give an index)")
        return self._data.item(*args)

    def asnumpy(self) -> _onp.ndarray:
        """A copy of the data as a NumPy array.

        Examples
        --------
        >>> from mxgrad import np
        >>> np.array([1, 2]).asnumpy()
        array([1., 2.], dtype=float32)
        """
        return self._data.copy()

    def copy(self, order: str = "C") -> "ndarray":
        """A copy (recorded: gradients flow through it)."""
        if order not in ("C", "K", "A"):
            raise NotSupportedError(f"copy(order={order!r}): only C order is supported")
        return to_np(_E.identity_copy(self))

    def detach(self) -> "ndarray":
        """The same data, cut from the graph."""
        out = wrap(self._data, None, 0, ndarray)
        out._ver = self._ver
        return out

    def __array__(self, dtype: Any = None, copy: Optional[bool] = None) -> _onp.ndarray:
        return NDArray.__array__(self, dtype, copy)

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        """NumPy's functions on ``mx.np`` arrays: mx.np's implementation where it has one
        (:mod:`mxgrad.numpy_dispatch_protocol`), else NumPy's on the data, as MXNet."""
        impl = ARRAY_FUNCTIONS.get(func)
        if impl is not None:
            return impl(*args, **kwargs)
        return numpy_call(func, args, kwargs)

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        """NumPy's ufuncs on ``mx.np`` arrays (``onp.exp(x)``, ``onp_array + x``)."""
        impl = ARRAY_UFUNCS.get(ufunc) if method == "__call__" and "out" not in kwargs \
            else None
        if impl is not None:
            return impl(*inputs, **kwargs)
        return numpy_call(getattr(ufunc, method), inputs, kwargs)

    # ----------------------------------------------------------- indexing
    def __getitem__(self, key: Any) -> "ndarray":
        """NumPy indexing: integers drop their axis (down to 0-d), slices, ``None``,
        ``...``, integer and boolean arrays; differentiable."""
        d = self._data
        if isinstance(key, (bool, _onp.bool_)) or (isinstance(key, NDArray) and
                                                  key._data.dtype == _onp.bool_ and
                                                  key._data.ndim == 0):
            # NumPy: a 0-d boolean index adds an axis of length 1 (True) or 0 (False)
            keep = bool(key._data) if isinstance(key, NDArray) else bool(key)
            return self[None] if keep else self[None][:0]
        if isinstance(key, NDArray) and key._data.dtype == _onp.bool_ and \
                key._data.shape != d.shape[:key._data.ndim]:
            raise OutOfRangeError(f"boolean index of shape {key.shape} does not match the "
                                  f"indexed array's leading dimensions {d.shape}")
        return to_np(gather(self, key, zero_d=True))

    def __setitem__(self, key: Any, value: Any) -> None:
        """NumPy's assignment; a Python ``True`` in a tuple key is a new axis of length 1
        and a ``False`` selects nothing (NumPy's rule), the rest as ``mx.nd``'s."""
        if type(key) is tuple and builtins.any(type(k) is bool for k in key):
            if builtins.any(k is False for k in key):
                return
            key = tuple(None if k is True else k for k in key)
        NDArray.__setitem__(self, key, value)

    # --------------------------------------------------------- conversions
    def astype(self, dtype: Any, copy: bool = True) -> "ndarray":
        """The array cast to ``dtype`` (differentiable between float types)."""
        dt = _np_dtype(dtype)
        if not copy and dt == self._data.dtype:
            return self
        return to_np(_E.cast(self, dt))

    # ------------------------------------------------------------- shapes
    @property
    def T(self) -> "ndarray":
        """The transposed array (axes reversed)."""
        return self.transpose()

    def reshape(self, *shape: Any, order: str = "C", **kwargs: Any) -> "ndarray":
        """NumPy's reshape: ``x.reshape(2, 3)`` or ``x.reshape((2, -1))``."""
        if "newshape" in kwargs:
            shape = (kwargs.pop("newshape"),)
        if "shape" in kwargs:
            shape = (kwargs.pop("shape"),)
        if kwargs:
            raise DTypeError(f"reshape(): unknown keyword argument(s) {sorted(kwargs)}")
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        return reshape(self, shape, order)

    def transpose(self, *axes: Any) -> "ndarray":
        """The array with its axes permuted (reversed by default)."""
        if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
            axes = () if axes[0] is None else tuple(axes[0])
        return to_np(_S.transpose(self, tuple(axes) if axes else None))

    def flatten(self, order: str = "C") -> "ndarray":  # type: ignore[override]
        """A 1-d copy of the array."""
        return reshape(self, (-1,))

    def ravel(self, order: str = "C") -> "ndarray":
        """The array as 1-d."""
        return reshape(self, (-1,))

    def squeeze(self, axis: Any = None) -> "ndarray":  # type: ignore[override]
        """The array without its length-1 axes (or those in ``axis``)."""
        return squeeze(self, axis)

    def swapaxes(self, axis1: int, axis2: int) -> "ndarray":  # type: ignore[override]
        return to_np(_S.swapaxes(self, axis1, axis2))

    def expand_dims(self, axis: int) -> "ndarray":  # type: ignore[override]
        return to_np(_S.expand_dims(self, axis))

    def repeat(self, repeats: int, axis: Optional[int] = None) -> "ndarray":  # type: ignore[override]
        return to_np(_S.repeat(self, repeats, axis))

    # --------------------------------------------------------- reductions
    def sum(self, axis: Any = None, dtype: Any = None, out: Any = None,  # type: ignore[override]
            keepdims: bool = False) -> "ndarray":
        return sum(self, axis, dtype, out, keepdims)

    def mean(self, axis: Any = None, dtype: Any = None, out: Any = None,  # type: ignore[override]
             keepdims: bool = False) -> "ndarray":
        return mean(self, axis, dtype, out, keepdims)

    def prod(self, axis: Any = None, dtype: Any = None, out: Any = None,  # type: ignore[override]
             keepdims: bool = False) -> "ndarray":
        return prod(self, axis, dtype, out, keepdims)

    def max(self, axis: Any = None, out: Any = None, keepdims: bool = False) -> "ndarray":  # type: ignore[override]
        return max(self, axis, out, keepdims)

    def min(self, axis: Any = None, out: Any = None, keepdims: bool = False) -> "ndarray":  # type: ignore[override]
        return min(self, axis, out, keepdims)

    def std(self, axis: Any = None, dtype: Any = None, out: Any = None, ddof: int = 0,
            keepdims: bool = False) -> "ndarray":
        return std(self, axis, dtype, out, ddof, keepdims)

    def var(self, axis: Any = None, dtype: Any = None, out: Any = None, ddof: int = 0,
            keepdims: bool = False) -> "ndarray":
        return var(self, axis, dtype, out, ddof, keepdims)

    def argmax(self, axis: Optional[int] = None, out: Any = None) -> "ndarray":  # type: ignore[override]
        return argmax(self, axis)

    def argmin(self, axis: Optional[int] = None, out: Any = None) -> "ndarray":  # type: ignore[override]
        return argmin(self, axis)

    def cumsum(self, axis: Optional[int] = None, dtype: Any = None, out: Any = None) -> "ndarray":
        return cumsum(self, axis, dtype)

    def all(self, axis: Any = None, keepdims: bool = False) -> "ndarray":
        return all(self, axis, keepdims=keepdims)

    def any(self, axis: Any = None, keepdims: bool = False) -> "ndarray":
        return any(self, axis, keepdims=keepdims)

    # ------------------------------------------------------------- others
    def dot(self, b: Any) -> "ndarray":  # type: ignore[override]
        return dot(self, b)

    def clip(self, a_min: Any = None, a_max: Any = None, **kwargs: Any) -> "ndarray":  # type: ignore[override]
        """Values limited to ``[a_min, a_max]`` (NumPy 2's ``min=``/``max=`` too)."""
        return clip(self, kwargs.get("min", a_min), kwargs.get("max", a_max))

    def round(self, decimals: int = 0) -> "ndarray":  # type: ignore[override]
        return round(self, decimals)

    def sort(self, axis: int = -1, kind: Any = None, order: Any = None) -> "ndarray":  # type: ignore[override]
        return sort(self, axis, kind)

    def argsort(self, axis: int = -1, kind: Any = None, order: Any = None) -> "ndarray":  # type: ignore[override]
        return argsort(self, axis, kind)

    def nonzero(self) -> Tuple["ndarray", ...]:
        return nonzero(self)

    def tolist(self) -> Any:
        return self._data.tolist()

    def diag(self, k: int = 0) -> "ndarray":
        """The ``k``-th diagonal (2-d) or a diagonal matrix (1-d)."""
        return to_np(_C.diag(self, k=k))

    def reshape_view(self, *shape: Any) -> "ndarray":
        """A reshaped view sharing the data (as ``reshape`` here)."""
        return self.reshape(*shape)

    def slice_assign(self, rhs: Any, begin: Any, end: Any, step: Any) -> "ndarray":
        """``self[begin:end:step] = rhs`` (MXNet's per-axis triplets); returns ``self``."""
        self[_S.slice_key(self.shape, begin, end, step, "slice_assign")] = rhs
        return self

    def slice_assign_scalar(self, value: float, begin: Any, end: Any,
                            step: Any) -> "ndarray":
        """``self[begin:end:step] = value``; returns ``self``."""
        return self.slice_assign(value, begin, end, step)

    @property
    def writable(self) -> bool:
        """Whether the array can be written in place."""
        return bool(self._data.flags.writeable)


FACES["np"] = ndarray

#: NumPy function or ufunc -> mx.np implementation (filled by :mod:`mxgrad.numpy`)
ARRAY_FUNCTIONS: dict = {}
ARRAY_UFUNCS: dict = {}


def to_numpy(x: Any) -> Any:
    """Arrays (also inside lists, tuples and dicts) as their NumPy data."""
    if isinstance(x, NDArray):
        return x._data
    if isinstance(x, (list, tuple)):
        return type(x)(to_numpy(e) for e in x)
    if isinstance(x, dict):
        return {k: to_numpy(v) for k, v in x.items()}
    return x


def from_numpy(r: Any) -> Any:
    """NumPy results as ``mx.np`` arrays (scalars from reductions as 0-d arrays)."""
    if isinstance(r, _onp.generic):
        return wrap(_onp.asarray(r), None, 0, ndarray)
    if isinstance(r, _onp.ndarray):
        return wrap(_onp.ascontiguousarray(r) if r.ndim else r, None, 0, ndarray)
    if isinstance(r, tuple) and hasattr(r, "_fields"):     # a named tuple
        return type(r)(*(from_numpy(e) for e in r))
    if isinstance(r, (list, tuple)):
        return type(r)(from_numpy(e) for e in r)
    return r


def numpy_call(fn: Any, args: Any, kwargs: Any) -> Any:
    """``fn`` (NumPy's) on the arrays' data, results as ``mx.np`` arrays (not recorded)."""
    return from_numpy(fn(*to_numpy(tuple(args)), **to_numpy(dict(kwargs))))


# ====================================================================== helpers
def to_np(x: Any) -> Any:
    """Give an op's result(s) the NumPy face (a tuple or list of arrays element-wise)."""
    t = type(x)
    if t is ndarray:
        return x
    if isinstance(x, NDArray):
        return as_face(x, ndarray)
    if t is tuple or t is list:
        return t(to_np(a) for a in x)
    return x


def _np_dtype(dtype: Any) -> _onp.dtype:
    if dtype is None:
        return _DEFAULT
    if dtype is bool or dtype == "bool":
        return _onp.dtype(_onp.bool_)
    return _onp.dtype(as_dtype(dtype))


def _host(obj: Any, dtype: Any = None) -> _onp.ndarray:
    """The NumPy data of ``np.array(obj, dtype)`` with MXNet's defaults: Python numbers
    and lists become float32 (as in MXNet 1.9.1), NumPy and mxgrad arrays keep their
    dtype."""
    if isinstance(obj, NDArray):
        d = obj._data
        return d.astype(_np_dtype(dtype)) if dtype is not None else d.copy()
    if isinstance(obj, _onp.ndarray):
        d = _onp.array(obj)
        if type(d) is not _onp.ndarray:
            d = d.view(_onp.ndarray)
        return d.astype(_np_dtype(dtype), copy=False) if dtype is not None else d
    if isinstance(obj, (list, tuple)) and builtins.any(isinstance(e, NDArray) for e in obj):
        obj = [e._data if isinstance(e, NDArray) else e for e in obj]
    d = _onp.array(obj)
    if d.dtype == object:
        raise DTypeError(f"np.array: cannot make an array of {type(obj).__name__} "
                         f"{obj!r:.60}; give numbers, nested lists of numbers or arrays")
    return d.astype(_np_dtype(dtype), copy=False)


def from_input(x: Any, like: Optional[NDArray] = None) -> NDArray:
    """An op argument as an array: arrays pass through; NumPy arrays, Python numbers
    and lists are converted (numbers take ``like``'s dtype when given)."""
    if isinstance(x, NDArray):
        return x
    if like is not None and isinstance(x, (int, float, bool, _onp.number)):
        return wrap(_onp.asarray(x, dtype=like._data.dtype), None, 0, ndarray)
    return wrap(_host(x), None, 0, ndarray)


def promoted_dtype(da: _onp.dtype, db: _onp.dtype) -> _onp.dtype:
    """MXNet's NumPy-interface promotion of two dtypes: an integer or bool meeting a float
    takes the float; otherwise NumPy's rule (the wider type)."""
    if da == db:
        return da
    fa, fb = da.kind == "f", db.kind == "f"
    if fa != fb:
        return da if fa else db
    return _onp.result_type(da, db)


def promote(a: NDArray, b: NDArray) -> Tuple[NDArray, NDArray]:
    """Two arrays cast (recorded) to their :func:`promoted_dtype`."""
    da, db = a._data.dtype, b._data.dtype
    if da == db:
        return a, b
    dt = promoted_dtype(da, db)
    return (a if da == dt else _E.cast(a, dt)), (b if db == dt else _E.cast(b, dt))


def numpy_shape(size: int, shape: Any, who: str = "reshape") -> Tuple[int, ...]:
    """NumPy's ``reshape`` target: one ``-1`` inferred, every other entry >= 0."""
    if isinstance(shape, (int, _onp.integer)):
        shape = (int(shape),)
    shape = tuple(int(s) for s in shape)
    unknown = [i for i, s in enumerate(shape) if s == -1]
    if len(unknown) > 1 or builtins.any(s < -1 for s in shape):
        raise ShapeError(f"{who}: shape {shape} may hold one -1 and sizes >= 0 only (MXNet's "
                         f"special codes -2..-6 are npx.reshape's)")
    known = 1
    for s in shape:
        if s != -1:
            known *= s
    if unknown:
        if known == 0 or size % known:
            raise ShapeError(f"{who}: cannot reshape an array of size {size} into {shape}")
        shape = tuple(size // known if s == -1 else s for s in shape)
    elif known != size:
        raise ShapeError(f"{who}: cannot reshape an array of size {size} into shape {shape}")
    return shape


def _copy_of(r: NDArray, src: NDArray) -> Any:
    """``r`` (a reshape of ``src``) as its own array: MXNet's NumPy interface gives copies
    from ``reshape``/``flatten``/``squeeze``/``ravel`` (a write into the result leaves the
    source alone, unlike mx.nd's reshape); recorded, so gradients pass."""
    if r is src or _onp.may_share_memory(r._data, src._data):
        r = _E.identity_copy(r)
    return to_np(r)


def _0d(r: NDArray, shape: Tuple[int, ...]) -> Any:
    """``r`` (an mx.nd-semantics result, never 0-d) in NumPy's ``shape``, as the face."""
    if r._data.shape != shape:
        r = _R.reshape_exact(r, shape)
    return to_np(r)


def _axis_shape(shape: Tuple[int, ...], axis: Any, keepdims: bool) -> Tuple[int, ...]:
    """NumPy's result shape of a reduction over ``axis``."""
    nd = len(shape)
    if axis is None:
        axes = set(range(nd))
    else:
        if isinstance(axis, (int, _onp.integer)):
            axis = (axis,)
        axes = set()
        for a in axis:
            a = int(a)
            if not -nd <= a < builtins.max(nd, 1):
                raise ShapeError(f"axis {a} is out of bounds for an array of dimension {nd}")
            axes.add(a % nd if nd else 0)
    if keepdims:
        return tuple(1 if i in axes else s for i, s in enumerate(shape))
    return tuple(s for i, s in enumerate(shape) if i not in axes)


def _reduce(fn: Any, a: Any, axis: Any, keepdims: bool, dtype: Any = None) -> Any:
    """A reduction of mx.nd's op in NumPy's shapes; with ``dtype``, computed in the wider
    of the input's and float64/int64 and cast to ``dtype`` (MXNet 1.9.1's results)."""
    a = from_input(a)
    if dtype is not None:
        want = _np_dtype(dtype)
        kind = a._data.dtype.kind
        wide = _onp.float64 if kind == "f" or want.kind == "f" else _onp.int64
        a = _E.cast(a, wide) if a._data.dtype != wide else a
        r = _reduce(fn, a, axis, keepdims)
        return to_np(r if r._data.dtype == want else _E.cast(r, want))
    if isinstance(axis, (tuple, list)) and len(axis) == 0:
        return to_np(_E.identity_copy(a))      # NumPy: axis=() reduces nothing
    shape = _axis_shape(a.shape, axis, keepdims)
    if a._data.ndim == 0:
        a = _R.reshape_exact(a, (1,))
        axis = None
    ax = None if axis is None else (tuple(axis) if isinstance(axis, (tuple, list)) else axis)
    return _0d(fn(a, axis=ax, keepdims=keepdims), shape)


def _as_float(a: NDArray) -> NDArray:
    return a if a._data.dtype.kind == "f" else _E.cast(a, _DEFAULT)


# =================================================================== reductions
def sum(a: Any, axis: Any = None, dtype: Any = None, out: Any = None,
        keepdims: bool = False, initial: Any = None) -> ndarray:
    """Sum of elements over ``axis`` (a 0-d array for a full sum).

    Examples
    --------
    >>> from mxgrad import np
    >>> np.sum(np.ones((2, 3)), axis=1)
    array([3., 3.])
    """
    a = from_input(a)
    if dtype is None and a._data.dtype == _onp.bool_:
        dtype = _onp.int64
    r = _reduce(_R.sum, a, axis, keepdims, dtype)
    return finish(out, r if initial is None else r + initial, "sum")


def mean(a: Any, axis: Any = None, dtype: Any = None, out: Any = None,
         keepdims: bool = False) -> ndarray:
    """Mean over ``axis``; integer arrays average in float32 as in MXNet.

    Examples
    --------
    >>> from mxgrad import np
    >>> np.mean(np.array([1, 2, 3, 4], dtype='int32'))
    array(2.5)
    """
    a = from_input(a)
    if dtype is None and a._data.dtype.kind != "f":
        dtype = _DEFAULT
    return finish(out, _reduce(_R.mean, a, axis, keepdims, dtype), "mean")


def prod(a: Any, axis: Any = None, dtype: Any = None, out: Any = None,
         keepdims: bool = False) -> ndarray:
    """Product of elements over ``axis``."""
    return finish(out, _reduce(_R.prod, a, axis, keepdims, dtype), "prod")


def max(a: Any, axis: Any = None, out: Any = None, keepdims: bool = False) -> ndarray:
    """Maximum over ``axis``."""
    return finish(out, _reduce(_R.max, a, axis, keepdims), "max")


def min(a: Any, axis: Any = None, out: Any = None, keepdims: bool = False) -> ndarray:
    """Minimum over ``axis``."""
    return finish(out, _reduce(_R.min, a, axis, keepdims), "min")


amax, amin = max, min


def var(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, ddof: int = 0,
        keepdims: bool = False) -> ndarray:
    """Variance over ``axis`` (``ddof``: delta degrees of freedom).

    Examples
    --------
    >>> from mxgrad import np
    >>> np.var(np.array([1., 2., 3., 4.]))
    array(1.25)
    """
    r, want = _var_wide(a, axis, dtype, ddof, keepdims)
    return finish(out, r if want is None else to_np(_E.cast(r, want)), "var")


def _var_wide(a: Any, axis: Any, dtype: Any, ddof: int, keepdims: bool) -> Any:
    """The variance, computed in float64 when ``dtype`` is given (cast by the caller to
    ``dtype``, as MXNet's reductions accumulate wide), and that dtype."""
    a = _as_float(from_input(a))
    want = None if dtype is None else _np_dtype(dtype)
    if want is not None and a._data.dtype != _onp.float64:
        a = to_np(_E.cast(a, _onp.float64))
    m = mean(a, axis, keepdims=True)
    sq = (a - m) ** 2
    n = a.size if axis is None else int(_onp.prod([a.shape[i] for i in
                                                   ((axis,) if isinstance(axis, int) else axis)]))
    s = sum(sq, axis, keepdims=keepdims)
    return to_np(s / (n - ddof) if n - ddof > 0 else s / 0.0), want


def std(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, ddof: int = 0,
        keepdims: bool = False) -> ndarray:
    """Standard deviation over ``axis``."""
    r, want = _var_wide(a, axis, dtype, ddof, keepdims)
    r = _E.sqrt(r)
    return finish(out, to_np(r if want is None else _E.cast(r, want)), "std")


def _arg(fn: Any, a: Any, axis: Optional[int]) -> ndarray:
    a = from_input(a)
    if a.ndim == 0 and axis in (0, -1):
        axis = None                              # NumPy: axis 0 or -1 of a 0-d array
    if a.size == 0 and axis is not None and a.shape[axis] != 0:
        # an empty result (the other axes are empty), as NumPy: nothing to search
        return wrap(_onp.zeros(_axis_shape(a.shape, axis, False), _onp.int64), None, 0,
                    ndarray)
    if axis is None:
        r = fn(_R.reshape_exact(a, (-1,) if a.size else (0,)), axis=0)
        return _0d(_E.cast(r, _onp.int64), ())
    shape = _axis_shape(a.shape, axis, False)
    return _0d(_E.cast(fn(a, axis=axis), _onp.int64), shape)


def argmax(a: Any, axis: Optional[int] = None, out: Any = None) -> ndarray:
    """Indices (int64) of the maxima over ``axis`` (of the flattened array by default).

    Examples
    --------
    >>> from mxgrad import np
    >>> np.argmax(np.array([[1, 5], [7, 2]]), axis=1)
    array([1, 0], dtype=int64)
    """
    return finish(out, _arg(_O.argmax, a, axis), "argmax")


def argmin(a: Any, axis: Optional[int] = None, out: Any = None) -> ndarray:
    """Indices (int64) of the minima over ``axis``."""
    return finish(out, _arg(_O.argmin, a, axis), "argmin")


def cumsum(a: Any, axis: Optional[int] = None, dtype: Any = None, out: Any = None) -> ndarray:
    """Cumulative sum over ``axis`` (of the flattened array by default)."""
    a = from_input(a)
    if dtype is None and a._data.dtype == _onp.bool_:
        dtype = _onp.int64                     # NumPy's and MXNet's: bools count as int64
    if axis is None:
        a = _R.reshape_exact(a, (a.size,))
        axis = 0
    r = to_np(_C.cumsum(a, axis=axis, dtype=None if dtype is None else _np_dtype(dtype)))
    return finish(out, r, "cumsum")


def all(a: Any, axis: Any = None, out: Any = None, keepdims: bool = False) -> ndarray:
    """Whether every element over ``axis`` is true (bool)."""
    a = from_input(a)
    d = _onp.all(a._data, axis=axis, keepdims=keepdims)
    return finish(out, wrap(_onp.asarray(d), None, 0, ndarray), "all")


def any(a: Any, axis: Any = None, out: Any = None, keepdims: bool = False) -> ndarray:
    """Whether any element over ``axis`` is true (bool)."""
    a = from_input(a)
    d = _onp.any(a._data, axis=axis, keepdims=keepdims)
    return finish(out, wrap(_onp.asarray(d), None, 0, ndarray), "any")


# ================================================================== shape functions
def reshape(a: Any, newshape: Any, order: str = "C") -> ndarray:
    """``a`` in ``newshape`` (NumPy's rule: one ``-1`` inferred); differentiable."""
    if order != "C":
        raise DTypeError(f"reshape: order={order!r} is not supported; only 'C'")
    a = from_input(a)
    shape = numpy_shape(a.size, newshape)
    return _copy_of(_R.reshape_exact(a, shape), a)


def squeeze(a: Any, axis: Any = None) -> ndarray:
    """``a`` without length-1 axes (those in ``axis`` only, when given)."""
    a = from_input(a)
    shape = a.shape
    if not shape and axis is not None and builtins.all(int(x) in (0, -1) for x in
                                              ((axis,) if isinstance(axis, int) else axis)):
        axis = None                              # NumPy: axis 0 or -1 of a 0-d array
    if axis is None:
        new = tuple(s for s in shape if s != 1)
    else:
        nd = len(shape)
        axes = set()
        for x in ((axis,) if isinstance(axis, int) else axis):
            if not -nd <= int(x) < nd:
                raise ShapeError(f"squeeze: axis {x} is out of bounds for an array of "
                                 f"dimension {nd}")
            axes.add(int(x) % nd)
        for i in axes:
            if shape[i] != 1:
                raise ShapeError(f"squeeze: axis {i} has length {shape[i]}, not 1")
        new = tuple(s for i, s in enumerate(shape) if i not in axes)
    return _copy_of(_R.reshape_exact(a, new), a)


def dot(a: Any, b: Any, out: Any = None) -> ndarray:
    """NumPy's ``dot``: inner product of vectors (0-d), matrix products, scalars.

    Examples
    --------
    >>> from mxgrad import np
    >>> np.dot(np.array([1., 2.]), np.array([3., 4.]))
    array(11.)
    """
    return finish(out, _dot(a, b), "dot")


def _dot(a: Any, b: Any) -> ndarray:
    if not isinstance(a, NDArray) or not isinstance(b, NDArray):
        if _onp.ndim(a) == 0 or _onp.ndim(b) == 0:
            return to_np(from_input(a) * from_input(b)) if isinstance(a, NDArray) else \
                to_np(from_input(b) * a)
    a, b = promote(from_input(a), from_input(b))
    if a.ndim == 0 or b.ndim == 0:
        return to_np(a * b)
    if a.ndim == 1 and b.ndim == 1:
        return _0d(_R.sum(a * b), ())
    if b.ndim <= 2:
        shape = a.shape[:-1] + b.shape[1:]
        if a.ndim == 1:
            r = _L.dot(_R.reshape_exact(a, (1, a.shape[0])), b)
        else:
            r = _L.dot(a, b)
        return _0d(r, shape)
    # NumPy: the last axis of a with the second-to-last of b (mx.nd's dot takes b's first)
    axes = (b.ndim - 2,) + tuple(range(b.ndim - 2)) + (b.ndim - 1,)
    return to_np(_L.dot(a, _S.transpose(b, axes)))


def matmul(a: Any, b: Any, out: Any = None, **kwargs: Any) -> ndarray:
    """NumPy's ``matmul`` (``@``): batched matrix products with broadcasting (the ufunc
    keywords at their defaults only, as MXNet 1.9.1)."""
    if kwargs:
        check_kwargs("matmul", kwargs)
    a, b = promote(from_input(a), from_input(b))
    if a.ndim <= 2 and b.ndim <= 2:
        return finish(out, _dot(a, b), "matmul")
    return finish(out, to_np(_L.matmul(a, b)), "matmul")


def clip(a: Any, a_min: Any = None, a_max: Any = None, out: Any = None) -> ndarray:
    """Values limited to ``[a_min, a_max]`` (either may be None)."""
    a = from_input(a)
    lo = -_onp.inf if a_min is None else float(a_min)
    hi = _onp.inf if a_max is None else float(a_max)
    return finish(out, to_np(_E.clip(a, lo, hi)), "clip")


def round(x: Any, decimals: int = 0, out: Any = None) -> ndarray:
    """Round to ``decimals`` places (half to even, as NumPy)."""
    x = from_input(x)
    if decimals == 0:
        return finish(out, to_np(_E.rint(x)), "round")
    f = 10.0 ** decimals
    return finish(out, to_np(_E.rint(x * f) / f), "round")


def sort(a: Any, axis: Optional[int] = -1, kind: Any = None, order: Any = None) -> ndarray:
    """A sorted copy (ascending) along ``axis`` (flattened when None)."""
    a = from_input(a)
    if axis is None:
        a, axis = _R.reshape_exact(a, (a.size,)), 0
    return to_np(_O.sort(a, axis=axis))


def argsort(a: Any, axis: Optional[int] = -1, kind: Any = None, order: Any = None) -> ndarray:
    """Indices (int64) that sort ``a`` along ``axis``."""
    a = from_input(a)
    if axis is None:
        a, axis = _R.reshape_exact(a, (a.size,)), 0
    return to_np(_O.argsort(a, axis=axis, dtype="int64"))


def nonzero(a: Any) -> Tuple[ndarray, ...]:
    """The indices (int64) of the non-zero elements, one array per dimension (a 0-d array
    as a 1-d one, as MXNet: NumPy 2 refuses it)."""
    a = from_input(a)
    d = a._data if a._data.ndim else a._data.reshape(1)
    return tuple(wrap(i.astype(_onp.int64), None, 0, ndarray) for i in _onp.nonzero(d))


# ================================================================== operators
def _promote_data(a: _onp.ndarray, b: _onp.ndarray) -> Tuple[_onp.ndarray, _onp.ndarray]:
    """:func:`promote` on NumPy data (inside an op's forward)."""
    dt = promoted_dtype(a.dtype, b.dtype)
    return a.astype(dt, copy=False), b.astype(dt, copy=False)


#: the face's semantics for op results (MXNet's promotion of two arrays of different
#: dtypes, 0-d results kept arrays, integer dtypes kept by one-input ops), applied inline
#: by the fast-path factories of ops._apply
RULES = FaceRules(_promote_data)


def _true_divide(method: Any) -> Any:
    """``/`` of the face: integer operands divide in float32, as in MXNet 1.9.1."""
    def op(self: NDArray, other: Any) -> Any:
        if self._data.dtype.kind != "f":
            if isinstance(other, NDArray):
                if other._data.dtype.kind != "f":
                    self, other = _E.cast(self, _DEFAULT), _E.cast(other, _DEFAULT)
            else:
                self = _E.cast(self, _DEFAULT)
        return method(self, other)
    op.__name__ = getattr(method, "__name__", "operator")
    return op


def _boolean(method: Any) -> Any:
    """A comparison of the face: the shared operator, then a ``bool`` result."""
    def op(self: NDArray, other: Any) -> Any:
        if isinstance(other, (list, tuple, _onp.ndarray)):
            other = from_input(other)
        r = method(self, other)
        if r is NotImplemented:
            return r
        # the comparison's node is kept (its gradient is zero), so that a backward from a
        # comparison works and gives zeros, as MXNet's
        return wrap(r._data.astype(_onp.bool_), r._node, r._oidx, ndarray)
    return op


def _install_operators() -> None:
    from ..ops._apply import inplace_operator
    ops = _E.operators(ndarray, RULES)
    for name in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__",
                 "__pow__", "__rpow__", "__mod__", "__rmod__", "__floordiv__",
                 "__rfloordiv__", "__neg__", "__pos__", "__abs__"):
        setattr(ndarray, name, ops[name])
    for name in ("__truediv__", "__rtruediv__", "__div__", "__rdiv__"):
        setattr(ndarray, name, _true_divide(ops[name]))
    for name in ("__eq__", "__ne__", "__gt__", "__ge__", "__lt__", "__le__"):
        setattr(ndarray, name, _boolean(ops[name]))
    for name, base in (("__iadd__", "__add__"), ("__isub__", "__sub__"),
                       ("__imul__", "__mul__"), ("__itruediv__", "__truediv__"),
                       ("__imod__", "__mod__")):
        setattr(ndarray, name, inplace_operator(getattr(ndarray, base)))
    ndarray.__hash__ = object.__hash__  # type: ignore[method-assign]

    def __invert__(self: NDArray) -> ndarray:
        d = self._data
        return wrap(~d if d.dtype.kind in "biu" else (d == 0), None, 0, ndarray)

    def __matmul__(self: NDArray, other: Any) -> ndarray:
        return matmul(self, other)

    setattr(ndarray, "__invert__", __invert__)
    ndarray.__matmul__ = __matmul__


_install_operators()

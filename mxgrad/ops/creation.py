"""Array creation: ``array``, ``zeros``, ``ones``, ``full``, ``empty``, ``arange``,
``linspace``, ``eye``. float32 unless a dtype is given, as in MXNet."""
from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np

from .._check import allocate, as_int, as_real, as_shape, is_attribute_keyword
from ..util import is_np_shape, is_unknown_dim
from ..base import DTypeError, NotSupportedError, ShapeError, StateError, as_dtype
from ..context import as_context
from .._engine.ndarray import NDArray, wrap
from . import _dtype_rules as _dr
from . import _shape_rules as _sr
from ._mxnet_op import mxnet_op
from .._typing import DTypeLike, ShapeLike
from ..context import Context

__all__ = ["array", "zeros", "ones", "full", "empty", "arange", "linspace", "eye",
           "from_numpy", "concatenate_numpy"]


def _shape(shape, dtype=None, where="shape"):
    return as_shape(shape, where, itemsize=np.dtype(dtype or np.float32).itemsize)


def _make(where, fill, shape, ctx, dtype):
    """Check the arguments every creation function shares and allocate."""
    as_context(ctx, f"{where}: ctx")
    dt = as_dtype(dtype)
    shp = _shape(shape, dt, f"{where}: shape")
    return wrap(allocate(lambda: fill(shp, dt), where))


def _not_0d(shape: ShapeLike, where: str) -> ShapeLike:
    """MXNet 1.x's ``zeros``/``ones``/``full`` refuse shape ``()`` (an unknown shape in its
    legacy shape semantics); so does mxgrad, with a message that says what to use. In NumPy
    shape semantics (``mx.np_shape(True)``) ``()`` is a 0-d array's shape, as in MXNet."""
    if isinstance(shape, (tuple, list)) and len(shape) == 0 and not is_np_shape():
        raise ShapeError(f"{where}: shape () is not allowed (mx.nd arrays have at least one "
                         f"dimension, as in MXNet 1.x); use shape (1,) for a scalar")
    return shape


def _into(kwargs, result: NDArray) -> NDArray:
    """MXNet's ``out=``: write ``result`` into the given NDArray and return it."""
    unknown = sorted(k for k in set(kwargs) - {"out", "name", "stype"}
                     if not is_attribute_keyword(k))
    if unknown:   # as MXNet's creation ops (a typo, usually)
        raise StateError(f"unknown keyword argument(s) {unknown}; creation functions take "
                         f"shape, ctx, dtype, out and name")
    if kwargs.get("stype") in ("csr", "row_sparse"):
        raise NotSupportedError(f"stype={kwargs['stype']!r}: sparse storage (row_sparse, csr) "
                                f"is not supported by mxgrad; use dense arrays "
                                f"(stype='default')")
    if kwargs.get("stype") not in (None, "default"):
        raise StateError(f"stype={kwargs['stype']!r} is unknown; use stype='default'")
    out = kwargs.get("out")
    if out is None:
        return result
    from ._apply import write_out
    return write_out(out, result)


def array(source_array: Any, ctx: Optional[Context] = None, dtype: DTypeLike = None
          ) -> NDArray:
    """Create an array from a list, a NumPy array or an NDArray (a copy).

    The dtype is float32 unless ``dtype`` is given, whatever the source's type (as in
    MXNet), except that an NDArray source keeps its dtype.

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.array([1, 2])
    <BLANKLINE>
    [1. 2.]
    <NDArray 2 @cpu(0)>
    >>> mx.nd.array([1, 2], dtype='int32').dtype
    <class 'numpy.int32'>
    """
    as_context(ctx, "nd.array: ctx")
    if isinstance(source_array, NDArray):
        dt = source_array._data.dtype if dtype is None else as_dtype(dtype)
        return wrap(source_array._data.astype(dt, copy=True))
    dt = as_dtype(dtype)
    try:
        data = np.array(source_array, dtype=dt, copy=True)
    except (ValueError, TypeError) as err:
        raise DTypeError(f"nd.array: cannot make a numeric array of dtype {dt} from "
                         f"{type(source_array).__name__} ({err}); give numbers, nested lists "
                         f"of numbers or a NumPy array") from None
    return wrap(data)   # a 0-d source gives a 0-d array, as in MXNet 1.9 (ops never make one)


def from_numpy(ndarray: np.ndarray, zero_copy: bool = True) -> NDArray:
    """An NDArray of the NumPy array ``ndarray`` (its dtype is kept).

    With ``zero_copy=True`` (the default, as in MXNet) the NDArray uses ``ndarray``'s
    memory, which must be C-contiguous, and ``ndarray`` itself becomes read-only: the
    NDArray owns the data from then on (writes through the NDArray still show in it).
    ``zero_copy=False`` copies. A read-only array that owns its memory (one an earlier
    ``from_numpy`` took, say) is shared all the same, as MXNet does; a read-only view of
    memory it does not own (a read-only memory map) is copied.

    Examples
    --------
    >>> import numpy as np, mxgrad as mx
    >>> a = np.arange(3.)
    >>> x = mx.nd.from_numpy(a); x.dtype, a.flags.writeable
    (<class 'numpy.float64'>, False)
    >>> x[0] = 7; a.tolist()
    [7.0, 1.0, 2.0]
    """
    if not isinstance(ndarray, np.ndarray):
        raise DTypeError(f"from_numpy: ndarray must be a numpy.ndarray, got "
                         f"{type(ndarray).__name__}; use mx.nd.array(...) for other data")
    if not zero_copy:
        return wrap(np.array(ndarray, copy=True))    # 0-d stays 0-d, as in MXNet 1.9
    if not ndarray.flags.c_contiguous:
        raise StateError("from_numpy: zero_copy=True needs a C-contiguous array; pass "
                         "np.ascontiguousarray(ndarray) or zero_copy=False")
    if not ndarray.flags.writeable:
        if ndarray.base is not None:       # read-only memory we do not own: copy
            return wrap(np.array(ndarray, copy=True))
        ndarray.flags.writeable = True     # an array an earlier from_numpy took, say
    view = ndarray.view()
    ndarray.flags.writeable = False        # the NDArray owns the memory from now on
    return wrap(view)


def zeros(shape: ShapeLike, ctx: Optional[Context] = None, dtype: DTypeLike = None, **kwargs: Any
          ) -> NDArray:
    """An array of zeros (float32 by default).

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.zeros((2, 3)).shape
    (2, 3)
    """
    return _into(kwargs, _make("nd.zeros", np.zeros, _not_0d(shape, "nd.zeros"), ctx, dtype))


def _creation_shape(kw, ins, outs):
    """The shape rule of ``_zeros``/``_ones``/``_full``: the ``shape`` attribute (a 0 in
    it, as in a Gluon export's begin states, an unknown dimension)."""
    shape = tuple(-1 if is_unknown_dim(v) else v for v in _sr.as_tuple(kw.get("shape")))
    return list(ins), [_sr.merge(outs[0], shape)]


# the creation operators' outputs have the ``dtype`` attribute (float32 without one)
_creation_dtype = _dr.from_attr()
mxnet_op("_zeros", (), run=lambda ins, kw: zeros(kw["shape"], dtype=kw.get("dtype", "float32")),
         attrs=("shape", "dtype"), shape=_creation_shape, dtype=_creation_dtype)


def ones(shape: ShapeLike, ctx: Optional[Context] = None, dtype: DTypeLike = None, **kwargs: Any
         ) -> NDArray:
    """An array of ones (float32 by default).

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.ones(2)
    <BLANKLINE>
    [1. 1.]
    <NDArray 2 @cpu(0)>
    """
    return _into(kwargs, _make("nd.ones", np.ones, _not_0d(shape, "nd.ones"), ctx, dtype))


mxnet_op("_ones", (), run=lambda ins, kw: ones(kw["shape"], dtype=kw.get("dtype", "float32")),
         attrs=("shape", "dtype"), shape=_creation_shape, dtype=_creation_dtype)


def full(shape: ShapeLike, val: float, ctx: Optional[Context] = None, dtype: DTypeLike = None,
         **kwargs: Any) -> NDArray:
    """An array filled with ``val`` (float32 by default).

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.full((2,), 7)
    <BLANKLINE>
    [7. 7.]
    <NDArray 2 @cpu(0)>
    """
    val = as_real(val, "nd.full: val", finite=False)
    return _into(kwargs, _make("nd.full", lambda shp, dt: np.full(shp, val, dt),
                               _not_0d(shape, "nd.full"), ctx,
                               dtype))


mxnet_op("_full", (), run=lambda ins, kw: full(kw["shape"], kw["value"],
                                                dtype=kw.get("dtype", "float32")),
         attrs=("shape", "dtype", "value"), shape=_creation_shape, dtype=_creation_dtype)


def empty(shape: ShapeLike, ctx: Optional[Context] = None, dtype: DTypeLike = None) -> NDArray:
    """An uninitialised array (float32 by default).

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.empty((2, 2)).shape
    (2, 2)
    """
    return _make("nd.empty", np.empty, shape, ctx, dtype)


def arange(start: float, stop: Optional[float] = None, step: float = 1.0, repeat: int = 1,
           infer_range: bool = False, ctx: Optional[Context] = None, dtype: DTypeLike = None,
           out: Optional[NDArray] = None, name: Optional[str] = None) -> NDArray:
    """Evenly spaced values in ``[start, stop)`` (float32 by default); each value
    ``repeat`` times.

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.arange(3)
    <BLANKLINE>
    [0. 1. 2.]
    <NDArray 3 @cpu(0)>
    """
    as_context(ctx, "nd.arange: ctx")
    dt = as_dtype(dtype)
    if stop is None:       # arange(n) is [0, n)
        start, stop = 0.0, as_real(start, "nd.arange: start")
    else:
        start, stop = as_real(start, "nd.arange: start"), as_real(stop, "nd.arange: stop")
    step = as_real(step, "nd.arange: step")
    repeat = as_int(repeat, "nd.arange: repeat", minimum=1)
    if step == 0:
        raise StateError("nd.arange: step must not be 0")
    if (stop - start) * step < 0:
        raise StateError(f"nd.arange: invalid range (start, stop, step) = ({start:g}, "
                         f"{stop:g}, {step:g}): step goes away from stop")
    n = max(0, math.ceil((stop - start) / step))
    _shape((n * repeat,), dt, "nd.arange: length")
    # NumPy's own arange in the result dtype, as MXNet computes it (an integer dtype takes
    # the first value and the first step truncated: arange(1.3, 9, 1.3, dtype=int32) counts by 1)
    data = allocate(lambda: np.arange(start, stop, step, dtype=dt), "nd.arange")
    if repeat != 1:
        data = np.repeat(data, repeat)
    return _into({"out": out}, wrap(data))


mxnet_op("_arange", (), run=lambda ins, kw: arange(
    kw.get("start", 0), kw.get("stop"), kw.get("step", 1.0), kw.get("repeat", 1),
    dtype=kw.get("dtype", "float32")),
    attrs=("start", "stop", "step", "repeat", "infer_range", "dtype"), dtype=_creation_dtype)


def linspace(start: float, stop: float, num: int, endpoint: bool = True,
             ctx: Optional[Context] = None, dtype: DTypeLike = None) -> NDArray:
    """``num`` evenly spaced values from ``start`` to ``stop``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.linspace(0, 1, 3)
    <BLANKLINE>
    [0.  0.5 1. ]
    <NDArray 3 @cpu(0)>
    """
    as_context(ctx, "nd.linspace: ctx")
    dt = as_dtype(dtype)
    start = as_real(start, "nd.linspace: start")
    stop = as_real(stop, "nd.linspace: stop")
    num = as_int(num, "nd.linspace: num", minimum=0)
    _shape((num,), dt, "nd.linspace: num")
    return wrap(allocate(lambda: np.linspace(start, stop, num, endpoint=bool(endpoint))
                         .astype(dt), "nd.linspace"))


mxnet_op("_linspace", (), run=lambda ins, kw: linspace(
    kw["start"], kw["stop"], int(kw["num"]), endpoint=bool(kw.get("endpoint", True)),
    dtype=kw.get("dtype")), attrs=("start", "stop", "num", "endpoint", "dtype", "ctx",
                                   "step", "repeat", "infer_range"))


def eye(N: int, M: int = 0, k: int = 0, ctx: Optional[Context] = None, dtype: DTypeLike = None,
        **kwargs: Any) -> NDArray:
    """A 2-D array with ones on the ``k``-th diagonal (``M=0`` means square).

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.eye(2)
    <BLANKLINE>
    [[1. 0.]
     [0. 1.]]
    <NDArray 2x2 @cpu(0)>
    """
    as_context(ctx, "nd.eye: ctx")
    dt = as_dtype(dtype)
    N = as_int(N, "nd.eye: N", minimum=0)
    M = as_int(M, "nd.eye: M", minimum=0) or N
    k = as_int(k, "nd.eye: k")
    _shape((N, M), dt, "nd.eye: (N, M)")
    return wrap(allocate(lambda: np.eye(N, M, k, dtype=dt), "nd.eye"))


mxnet_op("_eye", (), run=lambda ins, kw: eye(int(kw["N"]), int(kw.get("M", 0)),
                                              int(kw.get("k", 0)), dtype=kw.get("dtype")),
         attrs=("N", "M", "k", "dtype", "ctx"))


def concatenate_numpy(arrays, axis=0):
    """Concatenate NDArrays into one NumPy array (not recorded)."""
    return np.concatenate([np.asarray(a) for a in arrays], axis=axis)

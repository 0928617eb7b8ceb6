"""The NDArray class: a thin handle on a NumPy array plus its place in the graph.

The bottom of the house: this module imports only ``mxgrad.base``, ``mxgrad.context``
and ``mxgrad.util``. The class body below holds an array's state and the methods that
need only NumPy; the methods that need the engine (``attach_grad``, ``backward``,
``grad``...) or the op table (operators, indexing, ``reshape``, ``sum``...) are the class
body of its base class, :class:`~mxgrad.ndarray._methods.NDArrayMethods`, defined above
the op table (``ndarray/_methods.py``), so no import runs upwards.

Examples
--------
>>> import mxgrad as mx
>>> x = mx.nd.array([1, 2])
>>> x
<BLANKLINE>
[1. 2.]
<NDArray 2 @cpu(0)>
>>> x.dtype, x.shape
(<class 'numpy.float32'>, (2,))
"""
from __future__ import annotations

from typing import (TYPE_CHECKING, Any, Dict, Iterator, List, Optional, Tuple, Type, TypeVar,
                    Union, overload)

import numpy as np

from ..base import (ArgumentTypeError, DTypeError, FileFormatError, ShapeError, StateError,
                    as_dtype)
from ..context import Context, as_context, cpu
from ..util import is_np_array
from .._host_array import host_copy
from .._typing import DTypeLike, GradReq

__all__ = ["NDArray", "wrap", "as_face", "FACES", "mode_face"]

# Names MXNet 1.9's ndarray.ndarray module has that programs (and MXNet's tests) import.
_STORAGE_TYPE_STR_TO_ID = {"undefined": -1, "default": 0, "row_sparse": 1, "csr": 2}
_STORAGE_TYPE_ID_TO_STR = {v: k for k, v in _STORAGE_TYPE_STR_TO_ID.items()}
py_slice = slice

if TYPE_CHECKING:
    from ..ndarray._methods import NDArrayMethods as _OpMethods
else:
    class _OpMethods:
        """NDArray's base until ``ndarray/_methods.py`` (imported by ``mx.nd``) makes
        :class:`~mxgrad.ndarray._methods.NDArrayMethods` its base: the methods backed by
        the engine and the op table, which are built on this class."""
        __slots__ = ()


class NDArray(_OpMethods):
    """An n-dimensional array on NumPy with MXNet's API.

    Use :func:`mxgrad.nd.array` and the other creation functions rather than this
    constructor; ``NDArray(numpy_array)`` wraps an existing NumPy array without copying.

    Examples
    --------
    >>> import mxgrad as mx
    >>> a = mx.nd.ones((2, 3))
    >>> (a * 2).sum().asscalar()
    12.0
    """

    __slots__ = ("_data", "_node", "_oidx", "_vbox", "_tan", "__weakref__")
    __array_priority__ = 1000.0
    _data: np.ndarray
    _node: Any                # a graph Node, a Leaf (variable) or None
    _oidx: int
    _vbox: Optional[List[int]]  # the version box, made on first use (see _ver)
    _tan: Optional[NDArray]   # forward-mode tangent

    def __init__(self, data: Any = None, ctx: Optional[Context] = None,
                 dtype: DTypeLike = None) -> None:
        if data is None:
            data = np.zeros((0,), dtype=as_dtype(dtype))
        elif not isinstance(data, np.ndarray) or dtype is not None:
            data = np.asarray(data, dtype=as_dtype(dtype))
        elif type(data) is not np.ndarray:
            data = data.view(np.ndarray)     # a subclass: see wrap
        if data.ndim == 0:
            data = data.reshape(1)
        self._data = data
        self._node = None
        self._oidx = 0
        self._vbox = None
        self._tan = None

    # ----------------------------------------------------------------- basics
    @property
    def shape(self) -> Tuple[int, ...]:
        """Tuple of the array's dimensions."""
        return self._data.shape

    @property
    def dtype(self) -> Type[np.generic]:
        """The element type, as a NumPy type (``numpy.float32`` by default)."""
        return self._data.dtype.type

    @property
    def size(self) -> int:
        """Number of elements."""
        return self._data.size

    @property
    def ndim(self) -> int:
        """Number of dimensions."""
        return self._data.ndim

    @property
    def context(self) -> Context:
        """The device context; always ``cpu(0)`` in mxgrad."""
        return cpu()

    ctx = context

    @property
    def stype(self) -> str:
        """Storage type; mxgrad arrays are always dense (``'default'``)."""
        return "default"

    def tostype(self, stype: str) -> "NDArray":
        """A copy in storage type ``stype``: only ``'default'`` (dense) exists in mxgrad.

        Examples
        --------
        >>> import mxgrad as mx
        >>> mx.nd.ones((2,)).tostype('default').stype
        'default'
        """
        if stype != "default":
            from ..base import SparseNotSupportedError
            raise SparseNotSupportedError(
                f"tostype({stype!r}): sparse storage (row_sparse, csr) is not supported by "
                f"mxgrad; arrays are dense ('default')")
        return wrap(self._data.copy())

    @property
    def handle(self) -> np.ndarray:
        """The underlying NumPy array (MXNet exposes a C handle here)."""
        return self._data

    def asnumpy(self) -> np.ndarray:
        """Return a copy of the data as a NumPy array.

        The array is a :class:`~mxgrad._host_array.HostArray`, an ``np.ndarray`` subclass that
        differs only in converting to a Python number when it has one element, as NumPy < 2
        did, so MXNet habits such as ``'%f' % loss.mean().asnumpy()`` keep working.

        Examples
        --------
        >>> import mxgrad as mx
        >>> mx.nd.array([1, 2]).asnumpy()
        array([1., 2.], dtype=float32)
        >>> 'loss: %.2f' % mx.nd.array([0.25]).asnumpy()
        'loss: 0.25'
        """
        return host_copy(self._data)

    def asscalar(self) -> Any:
        """Return the only element of a size-1 array as a NumPy scalar.

        Examples
        --------
        >>> import mxgrad as mx
        >>> mx.nd.array([3]).asscalar()
        3.0
        """
        if self._data.size != 1:
            raise ShapeError(f"asscalar() needs an array of size 1, got shape {self.shape}; "
                             f"reduce it first (e.g. .sum()) or index one element")
        return self._data.reshape(-1)[0]

    def tolist(self) -> Any:
        """The data as nested Python lists."""
        return self._data.tolist()

    def wait_to_read(self) -> None:
        """No-op kept for MXNet compatibility (NumPy computes synchronously)."""

    def wait_to_write(self) -> None:
        """No-op kept for MXNet compatibility."""

    def __array__(self, dtype: DTypeLike = None, copy: Optional[bool] = None) -> np.ndarray:
        """NumPy's conversion protocol: ``np.array(x)`` (``copy=True``) is a snapshot;
        ``np.asarray(x)`` (no copy) is a **read-only** view, so a write through it cannot
        bypass the version counter that protects saved values (``asnumpy()`` is a
        writable copy).

        Examples
        --------
        >>> import numpy as np, mxgrad as mx
        >>> x = mx.nd.array([1., 2.])
        >>> snap = np.array(x); x += 1; snap
        array([1., 2.], dtype=float32)
        >>> np.asarray(x).flags.writeable
        False
        """
        data = self._data
        if copy:
            return np.array(data, dtype=dtype, copy=True)
        if dtype is not None and np.dtype(dtype) != data.dtype:
            if copy is False:
                raise StateError(f"cannot convert an NDArray of dtype {data.dtype} to "
                                 f"{np.dtype(dtype)} without a copy (copy=False); use "
                                 f"x.asnumpy().astype(...)")
            return data.astype(dtype)
        view = data.view()
        view.flags.writeable = False
        return view

    def __repr__(self) -> str:
        shape = "x".join(str(s) for s in self.shape)
        return f"\n{self._data}\n<NDArray {shape} @{self.context}>"

    def __str__(self) -> str:
        return self.__repr__()

    def _repr_pretty_(self, p, cycle):  # IPython display
        p.text(self.__repr__().lstrip("\n"))

    def __len__(self) -> int:
        return self._data.shape[0]

    def __iter__(self) -> Iterator[NDArray]:
        for i in range(self._data.shape[0]):
            yield self[i]

    def __bool__(self) -> bool:
        if self._data.size == 1:
            return bool(self._data.reshape(-1)[0])
        if self._data.size == 0:
            return False
        raise ShapeError("The truth value of an NDArray with more than one element is "
                         "ambiguous; use .asnumpy().any() or .all()")

    def __float__(self) -> float:
        return float(self.asscalar())

    def __int__(self) -> int:
        return int(self.asscalar())

    def __index__(self) -> int:
        return int(self.asscalar())

    __hash__ = object.__hash__

    def __getstate__(self) -> Dict[str, Any]:
        return {"data": self._data}

    def __setstate__(self, st: Dict[str, Any]) -> None:
        if not isinstance(st, dict):
            raise FileFormatError(f"a pickled NDArray's state must be a dict, got "
                                  f"{type(st).__name__}")
        if "data" in st:
            data = st["data"]
            if not isinstance(data, np.ndarray) or data.dtype.kind not in "biuf":
                what = (f"an array of dtype {data.dtype}" if isinstance(data, np.ndarray)
                        else type(data).__name__)
                raise FileFormatError(f"a pickled NDArray's 'data' must be a numeric NumPy "
                                      f"array (bool, int, uint or float), got {what}")
            if type(data) is not np.ndarray or not data.dtype.isnative:
                data = np.array(data, dtype=data.dtype.newbyteorder("="), subok=False)
        else:   # MXNet's pickled state: {'handle': the array's raw NDArray record}
            from .._format import loads_one   # the file format, needed on this path only
            raw = st.get("handle")
            if not isinstance(raw, (bytes, bytearray)):
                raise FileFormatError("a pickled NDArray without its data ('data' or "
                                      "MXNet's 'handle')")
            data = loads_one(raw)
        self._data = data
        self._node = None
        self._oidx = 0
        self._vbox = None
        self._tan = None

    # ------------------------------------------------------------- conversion
    def copyto(self, other: Union[NDArray, Context]) -> NDArray:
        """Copy into ``other`` (an NDArray of the same shape) or to a context.

        Examples
        --------
        >>> import mxgrad as mx
        >>> b = mx.nd.zeros((2,)); _ = mx.nd.array([1, 2]).copyto(b); b
        <BLANKLINE>
        [1. 2.]
        <NDArray 2 @cpu(0)>
        """
        if isinstance(other, Context):
            as_context(other, "copyto: the target context")
            return self.copy()
        if not isinstance(other, NDArray):
            raise DTypeError(f"copyto() takes an NDArray or a Context, got {type(other).__name__}")
        if other is self:
            return other
        if other.shape != self.shape:
            raise ShapeError(f"copyto(): shape {self.shape} does not match target shape "
                             f"{other.shape}")
        other[:] = self
        return other

    def as_in_context(self, context: Context) -> "NDArray":
        """Return this array (every array is on the CPU in mxgrad).

        ``context`` must be a :class:`~mxgrad.Context`, as in MXNet, which refuses a string
        such as ``'gpu'``; a GPU context raises :class:`~mxgrad.base.NotSupportedError`
        (MXNet built without CUDA does too).

        Examples
        --------
        >>> import mxgrad as mx
        >>> x = mx.nd.ones((2,))
        >>> x.as_in_context(mx.cpu()) is x
        True
        """
        if not isinstance(context, Context):
            raise ArgumentTypeError(f"as_in_context: context must be a Context such as "
                                    f"mx.cpu(), got {type(context).__name__} {context!r}")
        as_context(context, "as_in_context: context")
        return self

    as_in_ctx = as_in_context

    def detach(self) -> "NDArray":
        """Return an array sharing the data but cut from the graph.

        Examples
        --------
        >>> import mxgrad as mx
        >>> x = mx.nd.ones((2,)); x.attach_grad()
        >>> with mx.autograd.record():
        ...     y = (x * 2).detach() * x
        >>> y.backward(); x.grad
        <BLANKLINE>
        [2. 2.]
        <NDArray 2 @cpu(0)>
        """
        out = wrap(self._data)
        out._ver = self._ver
        return out

    def as_np_ndarray(self) -> "NDArray":
        """This array seen as an ``mx.np.ndarray`` (no copy; recorded through).

        Examples
        --------
        >>> import mxgrad as mx
        >>> mx.nd.ones((2,)).as_np_ndarray()
        array([1., 1.])
        """
        return as_face(self, FACES["np"])

    def as_nd_ndarray(self) -> "NDArray":
        """This array seen as an ``mx.nd.NDArray`` (itself, for an NDArray)."""
        return as_face(self, NDArray)

    @property
    def _ver(self) -> List[int]:
        """The version box: ``[n]``, bumped by every in-place write; views and detached
        copies share their source's box. Made on first use: most arrays are never
        written in place nor saved for backward, and a fresh array is version 0 (hot
        paths read ``_vbox`` directly: ``None`` means version 0)."""
        box = self._vbox
        if box is None:
            box = self._vbox = [0]
        return box

    @_ver.setter
    def _ver(self, box: List[int]) -> None:
        self._vbox = box

    def _write(self, value: Any = None, casting: str = "unsafe") -> None:
        """Record an in-place write: copy ``value`` (broadcast, NumPy ``casting``) into
        this array's buffer when given, then bump the version, so a backward that saved
        the array refuses the changed value. Every in-place write goes through here;
        ``x._write()`` alone marks a write the caller made into ``x._data`` itself (a
        kernel updating a buffer in place). The caller checks ``_check_writable()``
        first when a recorded graph may hold the array.

        Examples
        --------
        >>> import mxgrad as mx
        >>> x = mx.nd.zeros((2,)); x._write([1, 2]); x._ver[0], x.asnumpy().tolist()
        (1, [1.0, 2.0])
        """
        if value is not None:
            np.copyto(self._data, value, casting=casting)  # type: ignore[arg-type]
        box = self._vbox
        if box is None:
            self._vbox = [1]     # version 0 was implicit (see _ver)
        else:
            box[0] += 1


_Face = TypeVar("_Face", bound=NDArray)


@overload
def wrap(data: Any, node: Any = None, oidx: int = 0) -> NDArray: ...
@overload  # noqa: E302
def wrap(data: Any, node: Any, oidx: int, face: Type[_Face]) -> _Face: ...
def wrap(data: Any, node: Any = None, oidx: int = 0, face: Any = NDArray) -> Any:  # noqa: E302
    """Wrap a NumPy array (no copy) in a new array of class ``face`` (``NDArray``, or the
    ``mx.np.ndarray`` face). Internal fast constructor.

    A subclass of ``np.ndarray`` (``asnumpy()``'s HostArray, a ``np.matrix``...) is held
    as a plain-``ndarray`` view of the same memory: ops on it would otherwise give that
    subclass back, and the engine takes arrays of exactly ``np.ndarray``."""
    if type(data) is not np.ndarray:
        # a subclass as a plain view; a NumPy scalar (a ufunc on 0-d data, mx.np's face)
        # as a 0-d array
        data = data.view(np.ndarray) if isinstance(data, np.ndarray) else np.asarray(data)
    a: Any = _new(face)
    a._data = data
    a._node = node
    a._oidx = oidx
    a._vbox = None
    a._tan = None
    return a


_new = object.__new__

# The faces of the one array, by name: "nd" is NDArray; "np" (``mx.np.ndarray``) is
# entered by mxgrad.numpy.multiarray when it is defined (the class lives above this floor).
FACES: Dict[str, type] = {"nd": NDArray}


def mode_face() -> type:
    """The face Gluon hands out now: ``mx.np.ndarray`` in NumPy arrays mode
    (``npx.set_np()``), ``NDArray`` otherwise."""
    return FACES["np"] if is_np_array() else NDArray


def as_face(x: NDArray, face: Type[_Face]) -> _Face:
    """``x`` seen through another face (``NDArray`` or ``mx.np.ndarray``): the same data,
    graph place, version box and tangent, so the conversion is free and recorded
    through (a gradient reaching the view reaches ``x``'s history). Returns ``x`` itself
    when it already has that face.

    Examples
    --------
    >>> import mxgrad as mx
    >>> from mxgrad.ndarray.ndarray import as_face
    >>> x = mx.nd.ones((2,))
    >>> as_face(x, mx.nd.NDArray) is x
    True
    """
    if type(x) is face:
        return x
    a: Any = _new(face)
    a._data = x._data
    a._node = x._node
    a._oidx = x._oidx
    a._vbox = x._ver     # one version box for both views
    a._tan = x._tan
    return a

"""``mx.util``: the switches of MXNet 1.9's ``mxnet.util`` that programs use, among them
the NumPy mode of MXNet's NumPy interface (``npx.set_np()``).

NumPy mode has two halves, as in MXNet: *NumPy shapes* (0-d and zero-size arrays are
real shapes) and *NumPy arrays* (Gluon's parameters, data loaders and ``F`` give
``mx.np`` arrays). ``set_np()`` turns both on for the process; ``np_shape``/
``np_array`` (scopes) and ``use_np`` (a decorator) turn them on in the calling thread
for a while. mxgrad's ``mx.np`` arrays work whatever the mode; the mode only decides
what Gluon hands out.

Examples
--------
>>> from mxgrad.util import is_np_array, use_np, np_array
>>> is_np_array()
False
>>> with np_array(True):
...     is_np_array()
True
>>> @use_np
... def f(): return is_np_array()
>>> f()
True
"""
from __future__ import annotations

import functools
import inspect
import os
import threading
from typing import Any, Callable, Optional, TypeVar

from .base import StateError

__all__ = ["is_np_array", "is_np_shape", "set_np", "set_np_shape", "reset_np", "use_np",
           "use_np_array", "use_np_shape", "np_shape", "np_array", "getenv", "setenv",
           "set_np_array"]

_T = TypeVar("_T")

_global = {"shape": False, "array": False}   # set_np(): the whole process


class _Local(threading.local):
    shape: Optional[bool] = None    # a scope's setting in this thread (None: the global)
    array: Optional[bool] = None


_local = _Local()


def is_np_array() -> bool:
    """Whether NumPy arrays mode is on (Gluon hands out ``mx.np`` arrays)."""
    v = _local.array
    return _global["array"] if v is None else v


def is_np_shape() -> bool:
    """Whether NumPy shape semantics are on (0-d and zero-size shapes)."""
    v = _local.shape
    return _global["shape"] if v is None else v


def is_unknown_dim(d: int) -> bool:
    """Whether a dimension of a shape given to a graph reads as unknown (to be inferred):
    -1 always, 0 in MXNet's legacy shape semantics (``mx.sym.zeros((0, n))``).

    Examples
    --------
    >>> is_unknown_dim(-1), is_unknown_dim(0), is_unknown_dim(3)
    (True, True, False)
    """
    return d < 0 or (d == 0 and not is_np_shape())


def _flag(value: Any, what: str) -> bool:
    if not isinstance(value, (bool, int)):
        raise StateError(f"{what} must be True or False, got {type(value).__name__}")
    return bool(value)


def set_np(shape: bool = True, array: bool = True, dtype: bool = False) -> None:
    """Turn MXNet's NumPy mode on for the process (``set_np(False, False)`` turns it off).

    ``array=True`` needs ``shape=True``, as in MXNet. ``dtype=True`` (MXNet 2's float64
    defaults) is not provided.
    """
    shape, array = _flag(shape, "set_np: shape"), _flag(array, "set_np: array")
    if array and not shape:
        raise StateError("set_np(shape=False, array=True): NumPy arrays need NumPy shapes; "
                         "pass shape=True")
    if dtype:
        raise StateError("set_np(dtype=True): MXNet 2's float64 default dtype is not "
                         "provided by mxgrad (MXNet 1.9.1 has float32 defaults); leave "
                         "dtype=False")
    _global["shape"], _global["array"] = shape, array
    _local.shape = _local.array = None


def reset_np() -> None:
    """Turn NumPy mode off (``set_np(False, False)``)."""
    set_np(False, False)


def set_np_shape(active: bool) -> bool:
    """Turn NumPy shape semantics on or off for the process; returns the previous state."""
    prev = is_np_shape()
    _global["shape"] = _flag(active, "set_np_shape: active")
    _local.shape = None
    return prev


def set_np_array(active: bool) -> bool:
    """Turn NumPy arrays mode on or off for the process; returns the previous state."""
    prev = is_np_array()
    _global["array"] = _flag(active, "set_np_array: active")
    _local.array = None
    return prev


class np_shape:
    """``with mx.np_shape(active):`` NumPy shape semantics in this thread for a while.

    Examples
    --------
    >>> import mxgrad as mx
    >>> with mx.np_shape(True):
    ...     mx.is_np_shape()
    True
    >>> mx.is_np_shape()
    False
    """
    _field = "shape"

    def __init__(self, active: bool = True) -> None:
        self._active = _flag(active, f"np_{self._field}: active")
        self._prev: Optional[bool] = None

    def __enter__(self) -> "np_shape":
        self._prev = getattr(_local, self._field)
        setattr(_local, self._field, self._active)
        return self

    def __exit__(self, *exc: Any) -> None:
        setattr(_local, self._field, self._prev)


class np_array(np_shape):
    """``with mx.util.np_array(active):`` NumPy arrays mode in this thread for a while."""
    _field = "array"


class _NumpyArrayScope:
    """MXNet's (private) scope object of the NumPy-array mode, for code that imports it:
    ``with _NumpyArrayScope(True):`` is :class:`np_array`."""

    _current: Optional["_NumpyArrayScope"] = None

    def __init__(self, is_np_array: bool = True) -> None:
        self._is_np_array = bool(is_np_array)
        self._scope = np_array(self._is_np_array)

    def __enter__(self) -> "_NumpyArrayScope":
        self._scope.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._scope.__exit__(*exc)


def use_np(func: _T) -> _T:
    """Decorator: run a function (or every method of a class, e.g. a Gluon block) with
    NumPy shapes and arrays on."""
    if inspect.isclass(func):
        # every method, inherited ones too (a Gluon block's forward and __call__ run
        # deferred initialization, which must see NumPy mode), as MXNet does
        for name, member in inspect.getmembers(func, inspect.isfunction):
            if not name.startswith("__") or name in ("__init__", "__call__"):
                if not getattr(member, "_np_wrapped", False):
                    setattr(func, name, use_np(member))
        return func

    @functools.wraps(func)  # type: ignore[arg-type]
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with np_shape(True), np_array(True):
            return func(*args, **kwargs)  # type: ignore[operator]
    wrapper._np_wrapped = True  # type: ignore[attr-defined]
    return wrapper  # type: ignore[return-value]


use_np_array = use_np
use_np_shape = use_np


def getenv(name: str) -> Optional[str]:
    """The value of environment variable ``name`` (None when unset)."""
    return os.environ.get(name)


def setenv(name: str, value: Optional[str]) -> None:
    """Set (or, with None, unset) environment variable ``name``."""
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = value

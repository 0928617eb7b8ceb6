"""``mx.util``: the few switches of MXNet 1.9's ``mxnet.util`` that programs import.

mxgrad has only MXNet 1.x's classic NDArray semantics, so the NumPy-compatible mode of
MXNet 2 (``npx.set_np``) is always off; asking to turn it on raises.

Examples
--------
>>> from mxgrad.util import is_np_array, use_np
>>> is_np_array()
False
>>> @use_np
... def f(): return 1
>>> f()
1
"""
from __future__ import annotations

import os
from typing import Callable, Optional, TypeVar

from .base import StateError

__all__ = ["is_np_array", "is_np_shape", "set_np", "set_np_shape", "reset_np", "use_np",
           "use_np_array", "use_np_shape", "np_shape", "np_array", "getenv", "setenv"]

_T = TypeVar("_T")


def is_np_array() -> bool:
    """Always False: mxgrad arrays are MXNet 1.x NDArrays."""
    return False


def is_np_shape() -> bool:
    """Always False: shapes follow MXNet 1.x (no 0-d arrays)."""
    return False


def _refuse(what: str, active: bool) -> bool:
    if active:
        raise StateError(f"{what}(True): MXNet 2's NumPy-compatible mode does not exist in "
                         f"mxgrad; use mx.nd (MXNet 1.x semantics)")
    return False


def set_np(shape: bool = True, array: bool = True, dtype: bool = False) -> None:
    """Refuse to turn on MXNet 2's NumPy mode (``set_np(False, False)`` is accepted)."""
    _refuse("set_np", shape or array or dtype)


def set_np_shape(active: bool) -> bool:
    """Refuse NumPy shape semantics; returns the previous state (False)."""
    return _refuse("set_np_shape", active)


class np_shape:
    """MXNet's ``with mx.np_shape(active):`` scope. ``np_shape(False)`` (MXNet 1.x shapes,
    what mxgrad has) is accepted; ``np_shape(True)`` raises, as :func:`set_np_shape` does.

    Examples
    --------
    >>> import mxgrad as mx
    >>> with mx.np_shape(False):
    ...     mx.is_np_shape()
    False
    """

    def __init__(self, active: bool = True) -> None:
        _refuse("np_shape", active)

    def __enter__(self) -> "np_shape":
        return self

    def __exit__(self, *exc) -> None:
        return None


class np_array(np_shape):
    """MXNet's ``with mx.util.np_array(active):``; only ``False`` is accepted."""

    def __init__(self, active: bool = True) -> None:
        _refuse("np_array", active)


class _NumpyArrayScope:
    """MXNet's (private) scope object of the NumPy-array mode, for code that imports it;
    it records a flag and changes nothing (mx.nd never switches to NumPy arrays)."""

    _current: Optional["_NumpyArrayScope"] = None

    def __init__(self, is_np_array: bool = True) -> None:
        self._is_np_array = bool(is_np_array)


def reset_np() -> None:
    """Nothing to reset."""


def use_np(func: _T) -> _T:
    """Decorator of MXNet 2's NumPy mode; here it returns ``func`` (or the class) unchanged."""
    return func


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

"""The keywords of ``mx.np``'s functions, checked as MXNet 1.9.1 checks them.

MXNet 1.9.1's element-wise functions (``np.exp``, ``np.add``...) take NumPy's ufunc
keywords ``where``, ``casting``, ``order``, ``dtype`` and ``subok`` at their defaults only
(``where=True``, ``casting='same_kind'``, ``order='K'``, ``dtype=None``, ``subok=True``):
another value NumPy knows is "not implemented yet" (a ``NotImplementedError``), a value
NumPy does not know and any other keyword are a ``TypeError``. :func:`check_kwargs` gives
mxgrad's errors for the same cases (:class:`~mxgrad.base.NotSupportedError`, a
``NotImplementedError``; :class:`~mxgrad.base.ArgumentTypeError` and
:class:`~mxgrad.base.UnknownArgumentError`, ``TypeError`` s), naming the argument.

``out=`` is an ``mx.np`` array of the result's shape and dtype (MXNet neither casts nor
broadcasts into it); :func:`into_out` writes the result there, recorded, so a gradient
flows through ``out`` as in MXNet, and returns ``out``.

Examples
--------
>>> from mxgrad import np
>>> x = np.array([1., 2.])
>>> o = np.zeros(2)
>>> np.negative(x, out=o) is o, o
(True, array([-1., -2.]))
>>> try:
...     np.exp(x, where=False)
... except NotImplementedError as err:
...     print(err)
np.exp: where=False is not implemented yet (MXNet 1.9.1 takes only where=True); compute the whole result, then choose with np.where(condition, result, other)
"""
from __future__ import annotations

from typing import Any, Dict, Optional

import numpy as _onp

from ..base import ArgumentTypeError, DTypeError, NotSupportedError, ShapeError, \
    UnknownArgumentError
from .._engine.ndarray import NDArray
from ..ops._apply import write_out

__all__ = ["DEFAULTS", "check_kwargs", "into_out", "finish"]

#: the ufunc keywords MXNet 1.9.1's element-wise functions take, with the one value each
DEFAULTS: Dict[str, Any] = {"where": True, "casting": "same_kind", "order": "K",
                            "dtype": None, "subok": True}

_CASTINGS = ("no", "equiv", "safe", "same_kind", "unsafe")
_DTYPES = ("int8", "uint8", "int32", "int64", "float16", "float32", "float64")
_HINTS = {
    "where": "compute the whole result, then choose with np.where(condition, result, other)",
    "casting": "cast the inputs with astype() first",
    "order": "the result is always in C order",
    "dtype": "cast the input or the result with astype()",
    "subok": "the result is always an mx.np.ndarray",
}


def _is_default(key: str, value: Any) -> bool:
    default = DEFAULTS[key]
    if default is None:
        return value is None
    if isinstance(value, (NDArray, _onp.ndarray)):
        return False                  # a where= mask is not the default
    try:
        return bool(value == default)  # MXNet compares with ==: where=1 is where=True
    except (TypeError, ValueError):
        return False


def _known(key: str, value: Any) -> bool:
    """Whether NumPy knows ``value`` for ``key`` (MXNet: not implemented, not a TypeError)."""
    if key == "where":
        return True
    if key == "casting":
        return isinstance(value, str) and value in _CASTINGS
    if key == "order":
        return isinstance(value, str)
    if key == "dtype":
        try:
            return _onp.dtype(value).name in _DTYPES
        except TypeError:
            return False
    return isinstance(value, bool)    # subok


def check_kwargs(name: str, kwargs: Dict[str, Any]) -> None:
    """Refuse the ufunc keywords of ``np.<name>`` that MXNet 1.9.1 refuses.

    Examples
    --------
    >>> check_kwargs("exp", {"where": True, "order": "K"})     # the defaults pass
    >>> try:
    ...     check_kwargs("exp", {"axis": 0})
    ... except TypeError as err:
    ...     print(err)
    np.exp: axis is an invalid keyword (it takes its inputs, out= and the ufunc keywords where=True, casting='same_kind', order='K', dtype=None, subok=True)
    """
    for key, value in kwargs.items():
        if key not in DEFAULTS:
            allowed = ", ".join(f"{k}={v!r}" for k, v in DEFAULTS.items())
            raise UnknownArgumentError(
                f"np.{name}: {key} is an invalid keyword (it takes its inputs, out= and the ufunc "
                f"keywords {allowed})")
        if _is_default(key, value):
            continue
        shown = value if isinstance(value, str) else repr(value)
        if not _known(key, value):
            raise ArgumentTypeError(
                f"np.{name}: {key}={shown} not understood; MXNet 1.9.1 takes only "
                f"{key}={DEFAULTS[key]!r}")
        raise NotSupportedError(
            f"np.{name}: {key}={shown} is not implemented yet (MXNet 1.9.1 takes only "
            f"{key}={DEFAULTS[key]!r}); {_HINTS[key]}")


def into_out(out: Any, result: NDArray, name: str) -> NDArray:
    """Write ``result`` into ``out`` (an ``mx.np`` array of its shape and dtype; recorded)
    and return ``out``.

    Examples
    --------
    >>> from mxgrad import np
    >>> o = np.zeros(2, dtype='float64')
    >>> try:
    ...     into_out(o, np.ones(2), "add")
    ... except TypeError as err:
    ...     print(err)
    np.add: out= has dtype float64 but the result is float32 (MXNet does not cast into out=); pass an out= of dtype float32, or cast the result with astype()
    """
    if type(out) is not type(result):
        hint = " (x.as_np_ndarray() views an mx.nd array as one)" \
            if isinstance(out, NDArray) else ""
        raise ArgumentTypeError(f"np.{name}: out= must be an mx.np.ndarray, got "
                                f"{type(out).__module__}.{type(out).__name__}{hint}")
    if out._data.dtype != result._data.dtype:
        raise DTypeError(f"np.{name}: out= has dtype {out._data.dtype} but the result is "
                         f"{result._data.dtype} (MXNet does not cast into out=); pass an "
                         f"out= of dtype {result._data.dtype}, or cast the result with "
                         f"astype()")
    if out._data.shape != result._data.shape:
        raise ShapeError(f"np.{name}: out= has shape {out.shape} but the result has shape "
                         f"{result.shape} (MXNet does not broadcast into out=)")
    return write_out(out, result)


def finish(out: Optional[Any], result: Any, name: str) -> Any:
    """``result``, or ``out`` holding it when ``out`` is given (see :func:`into_out`)."""
    return result if out is None else into_out(out, result, name)


def unary_keywords(fn: Any, x: Any, out: Any, kwargs: Dict[str, Any]) -> Any:
    """The slow path of a one-input ``mx.np`` function called with ``out=`` or ufunc
    keywords: the keywords checked, then ``fn(x)`` written into ``out``."""
    name = fn.__name__
    if kwargs:
        check_kwargs(name, kwargs)
    r = fn(x)
    if out is None:
        return r
    if not isinstance(r, NDArray):
        raise ArgumentTypeError(f"np.{name}: out= needs an array input, got "
                                f"{type(x).__name__}")
    return into_out(out, r, name)

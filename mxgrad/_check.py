"""Argument checks at the API boundary: one home for "is this an int, a real number, a
shape", so every public function rejects bad input with an :class:`~mxgrad.base.MXNetError`
that names the argument (``where``) instead of letting NumPy or Python fail deeper down.

Examples
--------
>>> as_shape((2, 3), "nd.zeros: shape")
(2, 3)
>>> as_int('a', "one_hot: depth")
Traceback (most recent call last):
...
mxgrad.base.DTypeError: one_hot: depth must be an int, got str 'a'
"""
from __future__ import annotations

import math
import operator
import sys
from typing import Callable, Optional

import numpy as np

from .base import DTypeError, MXNetError, ShapeError, StateError

__all__ = ["as_int", "as_real", "as_shape", "as_positive_real", "allocate", "OutOfMemoryError"]


class OutOfMemoryError(MXNetError, MemoryError):
    """An array too large for the memory of this machine."""


def _describe(value) -> str:
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{type(value).__name__} {text}"


def as_int(value, where: str, *, minimum: Optional[int] = None) -> int:
    """``value`` as a Python int (an int, a NumPy integer or an integral one-element
    array); bools, floats and strings are refused. ``minimum`` bounds it from below.

    Examples
    --------
    >>> as_int(np.int64(3), "depth")
    3
    >>> as_int(-1, "depth", minimum=0)
    Traceback (most recent call last):
    ...
    mxgrad.base.StateError: depth must be >= 0, got -1
    """
    if isinstance(value, (bool, np.bool_)) or isinstance(value, (float, np.floating)):
        raise DTypeError(f"{where} must be an int, got {_describe(value)}")
    try:
        out = operator.index(value)
    except TypeError:
        raise DTypeError(f"{where} must be an int, got {_describe(value)}") from None
    if minimum is not None and out < minimum:
        raise StateError(f"{where} must be >= {minimum}, got {out}")
    return out


def as_real(value, where: str, *, finite: bool = True) -> float:
    """``value`` as a Python float (an int, a float, a NumPy scalar); strings, None and
    bools are refused, and NaN/Inf too unless ``finite=False``.

    Examples
    --------
    >>> as_real(1, "a_min")
    1.0
    >>> as_real(None, "a_min")
    Traceback (most recent call last):
    ...
    mxgrad.base.DTypeError: a_min must be a real number, got NoneType None
    """
    if isinstance(value, (bool, np.bool_, str, bytes)) or value is None:
        raise DTypeError(f"{where} must be a real number, got {_describe(value)}")
    try:
        out = float(value)
    except (TypeError, ValueError):
        raise DTypeError(f"{where} must be a real number, got {_describe(value)}") from None
    if finite and not math.isfinite(out):
        raise StateError(f"{where} must be a finite number, got {out}")
    return out


def as_positive_real(value, where: str) -> float:
    """``value`` as a finite float > 0.

    Examples
    --------
    >>> as_positive_real(0, "batch_size")
    Traceback (most recent call last):
    ...
    mxgrad.base.StateError: batch_size must be > 0, got 0.0
    """
    out = as_real(value, where)
    if out <= 0:
        raise StateError(f"{where} must be > 0, got {out}")
    return out


def as_shape(shape, where: str, *, itemsize: int = 4) -> tuple:
    """A shape (an int or a sequence of ints, each >= 0) as a tuple of ints, whose
    total size in bytes (at ``itemsize`` bytes per element) fits in memory addresses.

    Examples
    --------
    >>> as_shape(3, "shape")
    (3,)
    >>> as_shape('a', "nd.zeros: shape")
    Traceback (most recent call last):
    ...
    mxgrad.base.DTypeError: nd.zeros: shape must be an int or a tuple of ints, got str 'a'
    """
    if isinstance(shape, (str, bytes)) or shape is None:
        raise DTypeError(f"{where} must be an int or a tuple of ints, got {_describe(shape)}")
    if hasattr(shape, "__index__") and not isinstance(shape, (bool, np.bool_)):
        dims = (operator.index(shape),)
    else:
        try:
            items = tuple(shape)
        except TypeError:
            raise DTypeError(f"{where} must be an int or a tuple of ints, got "
                             f"{_describe(shape)}") from None
        try:
            dims = tuple(as_int(s, where) for s in items)
        except DTypeError:
            raise DTypeError(f"{where} must be an int or a tuple of ints, got "
                             f"{_describe(shape)}") from None
    for d in dims:
        if d < 0:
            raise ShapeError(f"{where} has a negative dimension: {dims}; sizes are >= 0")
    total = itemsize
    for d in dims:
        total *= d
    if total > sys.maxsize:
        raise ShapeError(f"{where} {dims} is too large: {total} bytes")
    return dims


def allocate(make: Callable[[], np.ndarray], where: str) -> np.ndarray:
    """Run ``make()`` (a NumPy allocation) and turn running out of memory into an
    :class:`OutOfMemoryError` naming ``where``.

    Examples
    --------
    >>> allocate(lambda: np.zeros(2), "nd.zeros").shape
    (2,)
    """
    try:
        return make()
    except MemoryError as err:
        raise OutOfMemoryError(f"{where}: not enough memory ({err}); use a smaller "
                               f"shape") from None

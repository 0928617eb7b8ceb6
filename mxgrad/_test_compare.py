"""Comparing arrays in tests (``mx.test_utils`` re-exports all of it): MXNet 1.9's default
tolerances per dtype and ``assert_almost_equal`` with its error naming the worst element.
A module of its own so that test helpers built on Symbols (:mod:`mxgrad.symbol._checks`)
compare without importing ``mx.test_utils``, which re-exports them (no import cycle).

Examples
--------
>>> import numpy as np
>>> get_tols(np.float32(1), np.float64(1), None, None)
(0.0001, 0.001)
"""
from __future__ import annotations

import numbers
from typing import Dict, Optional, Tuple, Union, cast

import numpy as np

from ._typing import DTypeLike
from ._engine.ndarray import NDArray

_Arr = Union[NDArray, np.ndarray]


def default_dtype() -> type:
    """The dtype tests use by default: float32."""
    return np.float32


def default_rtols() -> Dict[np.dtype, float]:
    """Relative tolerance per dtype used when ``rtol=None`` (MXNet 1.9's table)."""
    return {np.dtype(np.float16): 1e-2, np.dtype(np.float32): 1e-4,
            np.dtype(np.float64): 1e-5, **{np.dtype(t): 0 for t in _EXACT_TYPES}}


def default_atols() -> Dict[np.dtype, float]:
    """Absolute tolerance per dtype used when ``atol=None`` (MXNet 1.9's table)."""
    return {np.dtype(np.float16): 1e-1, np.dtype(np.float32): 1e-3,
            np.dtype(np.float64): 1e-20, **{np.dtype(t): 0 for t in _EXACT_TYPES}}


def default_numeric_eps() -> Dict[np.dtype, float]:
    """Finite-difference step per dtype (powers of two: no bits lost in ``x + eps``)."""
    return {np.dtype(np.float16): 1.0 / 2 ** 6, np.dtype(np.float32): 1.0 / 2 ** 9,
            np.dtype(np.float64): 1.0 / 2 ** 14}


_EXACT_TYPES = (np.bool_, np.int8, np.uint8, np.int32, np.uint32, np.int64, np.uint64)


def _dtype_of(x) -> np.dtype:
    if isinstance(x, numbers.Number):
        return np.asarray(x).dtype
    return np.dtype(getattr(x, "dtype", np.asarray(x).dtype))


def get_tolerance(dat, tol, default_tol) -> float:
    """``tol`` itself when it is a number, else its (or ``default_tol``'s) entry for ``dat``'s dtype."""
    if isinstance(tol, numbers.Number):
        return cast(float, tol)
    dtype = _dtype_of(dat)
    tol = {} if tol is None else tol
    if dtype in tol:
        return tol[dtype]
    return default_tol.get(dtype, default_tol[np.dtype(np.float64)])


def get_tols(x: _Arr, y: _Arr, rtol: Optional[float], atol: Optional[float]
             ) -> Tuple[float, float]:
    """The (rtol, atol) for comparing ``x`` and ``y``: the looser default of the two dtypes."""
    return (max(get_tolerance(x, rtol, default_rtols()), get_tolerance(y, rtol, default_rtols())),
            max(get_tolerance(x, atol, default_atols()), get_tolerance(y, atol, default_atols())))


def get_rtol(rtol: Optional[float] = None, dtype: DTypeLike = np.dtype(np.float64)) -> float:
    """``rtol``, or the default relative tolerance of ``dtype``."""
    return default_rtols()[np.dtype(dtype)] if rtol is None else rtol


def get_atol(atol: Optional[float] = None, dtype: DTypeLike = np.dtype(np.float64)) -> float:
    """``atol``, or the default absolute tolerance of ``dtype``."""
    return default_atols()[np.dtype(dtype)] if atol is None else atol


def get_etol(etol=None) -> float:
    """``etol``, or 0: the share of elements allowed to differ."""
    return 0 if etol is None else etol


def _np(x):
    return x.asnumpy() if isinstance(x, NDArray) else np.asarray(x)


def _check_shapes(a, b):
    if a.shape != b.shape:
        raise AssertionError(f"a.shape = {a.shape} and b.shape = {b.shape} are not equal")


def almost_equal(a: _Arr, b: _Arr, rtol: Optional[float] = None, atol: Optional[float] = None,
                 equal_nan: bool = False, use_broadcast: bool = True) -> bool:
    """Whether ``a`` and ``b`` are elementwise close (``None`` tolerances: float64 defaults).

    Examples
    --------
    >>> import mxgrad as mx
    >>> almost_equal(mx.nd.array([1.]), [1.00001], rtol=1e-4)
    True
    """
    a, b = _np(a), _np(b)
    if not use_broadcast:
        _check_shapes(a, b)
    return bool(np.allclose(a, b, rtol=get_rtol(rtol), atol=get_atol(atol), equal_nan=equal_nan))


def _max_violation(a, b, rtol, atol):
    with np.errstate(invalid="ignore"):
        diff = np.where(np.equal(a, b), 0, np.abs(a - b))
        violation = diff / (atol + rtol * np.abs(b) + 1e-20)
    violation = np.nan_to_num(np.broadcast_to(violation, np.broadcast(a, b).shape), nan=np.inf)
    loc = np.unravel_index(int(np.argmax(violation)), violation.shape) if violation.size else ()
    return loc, (float(violation[loc]) if violation.size else 0.0)


def assert_almost_equal(a: _Arr, b: _Arr, rtol: Optional[float] = None,
                        atol: Optional[float] = None, names: Tuple[str, str] = ("a", "b"),
                        equal_nan: bool = False, use_broadcast: bool = True,
                        mismatches: Tuple[int, int] = (10, 10)) -> None:
    """Assert ``a`` and ``b`` (NDArrays, NumPy arrays or numbers) are elementwise close.

    As MXNet 1.9: ``rtol``/``atol`` of ``None`` take the defaults of the inputs' dtypes
    (float32: 1e-4 / 1e-3; float64: 1e-5 / 1e-20; integers and bool: exact), a number is used
    as given, a dict maps dtypes to tolerances; the inputs broadcast unless
    ``use_broadcast=False``; the error names the worst element with ``names``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> assert_almost_equal(mx.nd.array([1.]), [1.00005])
    >>> assert_almost_equal(mx.nd.array([1.]), [1.1], names=('out', 'expected'))
    Traceback (most recent call last):
    ...
    AssertionError: ...out=1.00000000, expected=1.10000000...
    """
    rtol, atol = get_tols(a, b, rtol, atol)
    a, b = _np(a), _np(b)
    if not use_broadcast:
        _check_shapes(a, b)
    if a.dtype == np.bool_ and b.dtype == np.bool_:
        np.testing.assert_equal(a, b)
        return
    if np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan):
        return
    a_b, b_b = np.broadcast_arrays(a, b)
    loc, rel = _max_violation(a_b, b_b, rtol, atol)
    with np.errstate(invalid="ignore"):
        bad = ~np.isclose(a_b, b_b, rtol=rtol, atol=atol, equal_nan=equal_nan)
    share = 100.0 * bad.sum() / max(bad.size, 1)
    raise AssertionError(
        f"Error {rel:f} exceeds tolerance rtol={rtol:e}, atol={atol:e} (mismatch {share:f}%).\n"
        f"Location of maximum error: {loc}, {names[0]}={float(a_b[loc]):.8f}, "
        f"{names[1]}={float(b_b[loc]):.8f}")


def assert_allclose(a: _Arr, b: _Arr, rtol: float = 1e-07, atol: float = 0, equal_nan: bool = True
                    ) -> None:
    """:func:`assert_almost_equal` with NumPy's ``assert_allclose`` defaults."""
    assert_almost_equal(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)


def assert_almost_equal_ignore_nan(a: _Arr, b: _Arr, rtol: Optional[float] = None,
                                   atol: Optional[float] = None,
                                   names: Tuple[str, str] = ("a", "b")) -> None:
    """:func:`assert_almost_equal` where a NaN in either input matches anything."""
    a, b = np.array(_np(a), dtype=np.float64), np.array(_np(b), dtype=np.float64)
    a, b = np.broadcast_arrays(a, b)
    a, b = a.copy(), b.copy()
    nan = np.isnan(a) | np.isnan(b)
    a[nan] = 0
    b[nan] = 0
    assert_almost_equal(a, b, rtol, atol, names)

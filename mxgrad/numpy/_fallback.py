"""NumPy functions of MXNet 1.9.1's ``mx.np`` that have no op of their own: computed by
NumPy on the arrays' data and returned as ``mx.np`` arrays, as MXNet does for them (its
"fallback" functions). They are not differentiable: under ``autograd.record()`` their
results are constants, as in MXNet.

Examples
--------
>>> from mxgrad import np
>>> np.searchsorted(np.array([1., 2., 3.]), np.array([2.5]))
array([2], dtype=int64)
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as _onp

from .multiarray import numpy_call

__all__ = ["fallback", "NAMES", "LINALG_NAMES"]

# the names mx.np takes from NumPy this way
NAMES = (
    "allclose", "alltrue", "apply_along_axis", "apply_over_axes", "argpartition", "argwhere",
    "array_equal", "array_equiv", "bincount", "bitwise_and", "bitwise_not", "bitwise_or",
    "bitwise_xor", "blackman", "broadcast_arrays", "choose", "compress", "copysign",
    "corrcoef", "correlate", "count_nonzero", "cov", "delete", "diag_indices_from", "digitize",
    "divmod", "ediff1d", "extract", "flatnonzero", "frexp", "hamming", "hanning", "heaviside",
    "histogram", "histogram2d", "histogram_bin_edges", "histogramdd", "i0", "in1d", "indices",
    "insert", "interp", "intersect1d", "invert", "isclose", "isin", "isneginf", "isposinf",
    "ix_", "lcm", "ldexp", "lexsort", "logspace", "modf", "msort", "nan_to_num", "nanargmax",
    "nanargmin", "nancumprod", "nancumsum", "nanmax", "nanmedian", "nanmin", "nanpercentile",
    "nanprod", "nanquantile", "packbits", "partition", "percentile", "piecewise", "poly",
    "polyadd", "polydiv", "polyfit", "polyint", "polymul", "polysub", "polyval", "quantile",
    "real", "resize", "roots", "searchsorted", "select", "setdiff1d", "setxor1d", "signbit",
    "spacing", "trapz", "tril_indices_from", "trim_zeros", "triu_indices_from", "union1d",
    "unpackbits", "unravel_index", "unwrap", "vander", "median", "gcd", "fmod", "logaddexp",
    "cross", "kron", "convolve", "diff", "trace", "diagonal", "ptp", "average", "roll",
    "rot90", "fliplr", "flipud", "pad", "append", "take_along_axis", "tril_indices",
    "triu_indices", "diag_indices", "float_power", "deg2rad", "rad2deg", "positive", "around",
    "round_", "atleast_1d", "atleast_2d", "atleast_3d", "column_stack", "row_stack", "dstack",
    "dsplit", "diagflat", "rollaxis", "product", "sometrue", "nonzero_count", "ravel_multi_index",
    "logical_and", "logical_or", "logical_xor", "cumprod", "nansum", "exp2", "sinc",
    "left_shift", "right_shift", "bitwise_left_shift",
)

LINALG_NAMES = ("cond", "eig", "eigvals", "lstsq", "qr", "tensorinv", "tensorsolve",
                "matrix_power", "multi_dot", "eigvalsh", "pinv", "matrix_rank")


def fallback(fn: Callable[..., Any], name: str) -> Callable[..., Any]:
    """``fn`` (a NumPy function) on ``mx.np`` arrays: arguments as their data, results
    as ``mx.np`` arrays (not recorded)."""
    def f(*args: Any, **kwargs: Any) -> Any:
        return numpy_call(fn, args, kwargs)
    f.__name__ = name
    f.__doc__ = (f"NumPy's ``{name}`` on mx.np arrays (computed by NumPy, as MXNet's "
                 f"fallback; not differentiable).")
    return f

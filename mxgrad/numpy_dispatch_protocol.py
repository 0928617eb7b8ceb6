"""NumPy's dispatch protocols for ``mx.np`` arrays (MXNet's ``mxnet.numpy_dispatch_protocol``).

``onp.mean(x)`` (NumPy's function on an ``mx.np`` array) runs ``mx.np.mean`` and gives an
``mx.np`` array, as in MXNet, through ``__array_function__``; NumPy's ufuncs
(``onp.exp(x)``, ``onp_array + x``) through ``__array_ufunc__``. The functions listed here
dispatch to mx.np's own (differentiable) implementations; any other NumPy function runs on
the arrays' data and gives ``mx.np`` arrays (not recorded), as MXNet's fallbacks do.

Examples
--------
>>> import numpy as onp
>>> from mxgrad import np
>>> onp.mean(np.array([1., 2.]))
array(1.5)
>>> onp.exp(np.zeros(2))
array([1., 1.])
"""
from __future__ import annotations

import functools
from typing import Any, Callable, List

import numpy as _onp

from .base import MXNetError

__all__ = ["with_array_function_protocol", "with_array_ufunc_protocol",
           "_NUMPY_ARRAY_FUNCTION_LIST", "_NUMPY_ARRAY_UFUNC_LIST"]

#: NumPy functions that run mx.np's own implementation (as MXNet 1.9.1 registers them)
_NUMPY_ARRAY_FUNCTION_LIST: List[str] = [
    "all", "any", "sometrue", "argmin", "argmax", "around", "round", "round_", "argsort",
    "sort", "append", "broadcast_arrays", "broadcast_to", "clip", "concatenate", "copy",
    "cumsum", "diag", "diagonal", "diagflat", "dot", "expand_dims", "fix", "flip",
    "flipud", "fliplr", "inner", "insert", "max", "amax", "mean", "min", "amin", "nonzero",
    "ones_like", "atleast_1d", "atleast_2d", "atleast_3d", "prod", "product", "ravel",
    "repeat", "reshape", "roll", "split", "array_split", "hsplit", "vsplit", "dsplit",
    "squeeze", "stack", "std", "sum", "swapaxes", "take", "tensordot", "tile", "transpose",
    "unique", "unravel_index", "diag_indices_from", "delete", "var", "vdot", "vstack",
    "column_stack", "hstack", "dstack", "zeros_like", "linalg.norm", "linalg.cholesky",
    "linalg.inv", "linalg.solve", "linalg.tensorinv", "linalg.tensorsolve", "linalg.pinv",
    "linalg.eigvals", "linalg.eig", "linalg.eigvalsh", "linalg.eigh", "shape", "trace",
    "tril", "meshgrid", "outer", "einsum", "polyval", "shares_memory", "may_share_memory",
    "quantile", "percentile", "diff", "ediff1d", "resize", "where", "full_like",
    "bincount", "empty_like", "nan_to_num", "isnan", "isfinite", "isposinf", "isneginf",
    "isinf", "pad",
]

#: NumPy ufuncs that run mx.np's own implementation
_NUMPY_ARRAY_UFUNC_LIST: List[str] = [
    "abs", "fabs", "add", "arctan2", "copysign", "degrees", "hypot", "lcm", "subtract",
    "multiply", "true_divide", "negative", "power", "mod", "matmul", "absolute", "rint",
    "sign", "exp", "log", "log2", "log10", "expm1", "sqrt", "square", "cbrt", "reciprocal",
    "invert", "bitwise_not", "remainder", "sin", "cos", "tan", "sinh", "cosh", "tanh",
    "arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh", "maximum", "minimum",
    "ceil", "trunc", "floor", "bitwise_and", "bitwise_xor", "bitwise_or", "logical_not",
    "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
]


def _protocol_runner(func: Callable[..., Any], what: str) -> Callable[..., Any]:
    @functools.wraps(func)
    def run(*args: Any, **kwargs: Any) -> None:
        try:
            func(*args, **kwargs)
        except Exception as err:
            raise MXNetError(f"Running function {func.__name__} with NumPy {what} "
                             f"protocol failed with exception {err}") from err
    return run


def with_array_function_protocol(func: Callable[..., Any]) -> Callable[..., Any]:
    """Decorator of MXNet's tests: run ``func``, reporting a failure as the protocol's."""
    return _protocol_runner(func, "array function")


def with_array_ufunc_protocol(func: Callable[..., Any]) -> Callable[..., Any]:
    """Decorator of MXNet's tests: run ``func``, reporting a failure as the protocol's."""
    return _protocol_runner(func, "array ufunc")

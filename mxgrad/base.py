"""Exceptions and dtype defaults shared by every mxgrad module.

Every error mxgrad raises is an :class:`MXNetError` (so MXNet code that catches
``mx.base.MXNetError`` keeps working) and also the natural built-in exception
(``ValueError``, ``TypeError``, ...), so plain Python code can catch it too.

Examples
--------
>>> import mxgrad as mx
>>> try:
...     mx.nd.ones((2, 3)) + mx.nd.ones((4,))
... except ValueError as err:
...     print(type(err).__name__)
ShapeError
"""
from __future__ import annotations

import numpy as np

__all__ = [
    "MXNetError", "ShapeError", "DTypeError", "GraphError", "InPlaceError",
    "StateError", "default_dtype", "as_dtype", "numeric_types", "integer_types",
    "string_types", "py_str", "mx_real_t",
]

#: MXNet's default real type (``mx.base.mx_real_t``)
mx_real_t = np.float32


class MXNetError(RuntimeError):
    """Base class of every error raised by mxgrad (MXNet's ``MXNetError``)."""


class ShapeError(MXNetError, ValueError):
    """Shapes that do not fit together (broadcasting, reshape, head gradients)."""


class DTypeError(MXNetError, TypeError):
    """A dtype or a Python type that an operation cannot take."""


class GraphError(MXNetError, RuntimeError):
    """Backward cannot run: nothing recorded, graph freed, no variable upstream."""


class InPlaceError(MXNetError, RuntimeError):
    """An in-place write that would corrupt a recorded graph or its saved values."""


class StateError(MXNetError, ValueError):
    """A bad argument value (unknown grad_req, mismatched lists, ...)."""


numeric_types = (float, int, np.generic, bool)
integer_types = (int, np.integer)
string_types = (str,)


def py_str(x) -> str:
    """A Python ``str`` from the bytes (UTF-8) or str MXNet's C API would hand back.

    Examples
    --------
    >>> py_str(b'dense0_weight'), py_str('x')
    ('dense0_weight', 'x')
    """
    return x.decode("utf-8") if isinstance(x, (bytes, bytearray)) else str(x)

default_dtype = np.dtype(np.float32)

_DTYPE_ALIASES = {
    "float32": np.float32, "float64": np.float64, "float16": np.float16,
    "int32": np.int32, "int64": np.int64, "int8": np.int8, "uint8": np.uint8,
    "bool": np.bool_, "bfloat16": np.float32,
}


def as_dtype(dtype) -> np.dtype:
    """Return the NumPy dtype for ``dtype`` (a name, a NumPy type or ``None``).

    ``None`` means mxgrad's default, float32.

    Examples
    --------
    >>> as_dtype('float64')
    dtype('float64')
    >>> as_dtype(None)
    dtype('float32')
    >>> as_dtype(object)
    Traceback (most recent call last):
    ...
    mxgrad.base.DTypeError: dtype <class 'object'> (object) is not numeric; NDArrays hold ...
    """
    if dtype is None:
        return default_dtype
    if isinstance(dtype, str) and dtype in _DTYPE_ALIASES:
        return np.dtype(_DTYPE_ALIASES[dtype])
    try:
        if isinstance(dtype, str):      # NumPy 2 warns on deprecated aliases ('a'...)
            import warnings
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                dt = np.dtype(dtype)
        else:
            dt = np.dtype(dtype)
    except (TypeError, ValueError) as err:
        raise DTypeError(f"unknown dtype {dtype!r}; use a NumPy dtype or a name "
                         f"such as 'float32'") from err
    if dt.kind not in "biuf":
        raise DTypeError(f"dtype {dtype!r} ({dt}) is not numeric; NDArrays hold booleans, "
                         f"integers or floats: use e.g. 'float32', 'int64' or 'bool'")
    return dt


class FileFormatError(MXNetError, ValueError):
    """A file that is not what the loader reads (truncated, foreign, corrupt or unsafe)."""


__all__.append("FileFormatError")


class FileMissingError(MXNetError, FileNotFoundError):
    """A file to load does not exist (MXNet raises ``MXNetError`` here)."""


__all__.append("FileMissingError")


class FileAccessError(MXNetError, OSError):
    """A file that cannot be opened or written (a folder, no permission, no such folder)."""


__all__.append("FileAccessError")


class OutOfRangeError(MXNetError, IndexError):
    """An index outside the array (``take(mode='raise')``, indexing)."""


__all__.append("OutOfRangeError")


class UnknownArgumentError(DTypeError):
    """A keyword argument the function does not take (MXNet's "Cannot find argument")."""


__all__.append("UnknownArgumentError")


# ------------------------------------------------------------------ MXNet's base helpers
# Names MXNet programs and MXNet's own tests import from ``mxnet.base``.

class NotImplementedForSymbol(MXNetError, NotImplementedError):
    """An NDArray-only function was called on a Symbol (MXNet's class and message).

    Examples
    --------
    >>> def asnumpy(x): pass
    >>> str(NotImplementedForSymbol(asnumpy, None))
    'Function asnumpy is not implemented for Symbol and only available in NDArray.'
    """

    def __init__(self, function, alias, *args):
        super().__init__()
        self.function = getattr(function, "__name__", str(function))
        self.alias = alias
        self.args = [str(type(a)) for a in args]

    def __str__(self) -> str:
        msg = f"Function {self.function}"
        if self.alias:
            msg += f' (namely operator "{self.alias}")'
        if self.args:
            msg += f" with arguments ({', '.join(self.args)})"
        return msg + " is not implemented for Symbol and only available in NDArray."


def _as_list(obj):
    """``obj`` if it is a list, its items if a tuple, else ``[obj]`` (MXNet's helper).

    Examples
    --------
    >>> _as_list(1), _as_list([1, 2]), _as_list((1, 2))
    ([1], [1, 2], [1, 2])
    """
    if isinstance(obj, list):
        return obj
    if isinstance(obj, tuple):
        return list(obj)
    return [obj]


def data_dir_default() -> str:
    """MXNet's default data folder: ``%APPDATA%\\mxnet`` on Windows, else ``~/.mxnet``."""
    import os
    import platform
    if platform.system() == "Windows":
        return os.path.join(os.environ.get("APPDATA", os.path.expanduser("~")), "mxnet")
    return os.path.join(os.path.expanduser("~"), ".mxnet")


def data_dir() -> str:
    """The folder for downloaded data and models: ``$MXNET_HOME`` or the default.

    Examples
    --------
    >>> import os
    >>> data_dir() == os.environ.get("MXNET_HOME", data_dir_default())
    True
    """
    import os
    return os.getenv("MXNET_HOME", data_dir_default())


def _ctypes_handle():
    import ctypes
    return ctypes.c_void_p


# MXNet's C handle types: mxgrad has no C library, the names exist for code that imports them
NDArrayHandle = SymbolHandle = ExecutorHandle = KVStoreHandle = _ctypes_handle()


def c_str(string: str):
    """``string`` as a C ``char *`` (``ctypes.c_char_p``), as MXNet's helper."""
    import ctypes
    return ctypes.c_char_p(string.encode("utf-8"))


def check_call(ret: int) -> None:
    """MXNet's check of a C API return code: raise :class:`MXNetError` if it is not 0
    (mxgrad has no C API; kept for code that wraps its own calls with it)."""
    if ret != 0:
        raise MXNetError(f"C API call failed with return code {ret}")


__all__ += ["NotImplementedForSymbol", "data_dir", "data_dir_default", "NDArrayHandle",
            "c_str", "check_call"]


class ArgumentTypeError(MXNetError, TypeError):
    """An argument of the wrong Python type (a Symbol where an NDArray goes, a str where an
    int goes); a wrong array dtype is a :class:`DTypeError` instead."""


__all__.append("ArgumentTypeError")


class NotSupportedError(MXNetError, NotImplementedError):
    """A part of MXNet that mxgrad does not provide (``mx.mod``, sparse storage, GPUs); the
    message names the feature and what to use instead."""


__all__.append("NotSupportedError")


class SparseNotSupportedError(NotSupportedError):
    """Sparse storage (row_sparse, csr) is not part of mxgrad (``mx.nd.sparse`` re-exports
    it; defined here so that the NDArray class raises it without importing ``mx.nd``)."""


__all__.append("SparseNotSupportedError")


class UnsupportedFeatureError(NotSupportedError, AttributeError):
    """An unsupported part of MXNet looked up as an attribute (``mx.mod``); also an
    ``AttributeError``, so ``hasattr(mx, 'mod')`` is ``False``."""


__all__.append("UnsupportedFeatureError")

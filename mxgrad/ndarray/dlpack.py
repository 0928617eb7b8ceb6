"""DLPack: share an NDArray's memory with PyTorch, NumPy, JAX... without a copy.

MXNet 1.x's functions ``to_dlpack_for_read``, ``to_dlpack_for_write`` and ``from_dlpack``
(also NDArray methods), and the ``__dlpack__``/``__dlpack_device__`` protocol, so that
``torch.from_dlpack(x)`` and ``np.from_dlpack(x)`` take an NDArray directly. Every array
here is on the CPU (DLPack device type 1).

The capsules are DLPack's classic ``"dltensor"`` ones (what MXNet made and PyTorch's
``torch.utils.dlpack`` reads and writes); a capsule can be imported once.

Writes that other libraries make through shared memory are invisible to autograd's
check that a value saved for backward is unchanged. So ``to_dlpack_for_write`` counts
as a write: it bumps the array's version, and a backward that saved the array raises
instead of using data that may have changed. ``to_dlpack_for_read`` does not.

Examples
--------
>>> import numpy as np, mxgrad as mx
>>> x = mx.nd.array([1, 2, 3])
>>> y = mx.nd.from_dlpack(x.to_dlpack_for_write())   # the same memory
>>> y[0] = 7
>>> x.asnumpy().tolist()
[7.0, 2.0, 3.0]
>>> np.from_dlpack(x).tolist()
[7.0, 2.0, 3.0]
"""
from __future__ import annotations

import ctypes
from typing import Any, Optional, Tuple

import numpy as np

from ..base import DTypeError, StateError
from .._engine.ndarray import NDArray, wrap

__all__ = ["to_dlpack_for_read", "to_dlpack_for_write", "from_dlpack"]

_CPU = 1  # DLPack's device type of host memory (kDLCPU)

_capsule_name = ctypes.pythonapi.PyCapsule_GetName
_capsule_name.restype = ctypes.c_char_p
_capsule_name.argtypes = [ctypes.py_object]


def _check_array(data: Any, fn: str) -> NDArray:
    if not isinstance(data, NDArray):
        raise DTypeError(f"{fn}: data must be an NDArray, got {type(data).__name__}")
    return data


def to_dlpack_for_read(data: NDArray) -> Any:
    """A DLPack capsule of ``data`` for another library to read.

    The capsule shares ``data``'s memory (a read-only array, such as a broadcast view,
    is exported as a copy: DLPack's classic capsules cannot say "read-only").

    Examples
    --------
    >>> import mxgrad as mx
    >>> x = mx.nd.ones((2, 3))
    >>> mx.nd.from_dlpack(mx.nd.to_dlpack_for_read(x)).shape
    (2, 3)
    """
    return _export_for_read(_check_array(data, "to_dlpack_for_read")._data)


def _export_for_read(d: np.ndarray, **kwargs: Any) -> Any:
    """A classic capsule of ``d``, or of a copy when ``d`` is read-only."""
    return (d if d.flags.writeable else d.copy()).__dlpack__(**kwargs)


def to_dlpack_for_write(data: NDArray) -> Any:
    """A DLPack capsule of ``data`` for another library to write into.

    The capsule shares ``data``'s memory; exporting it counts as a write to ``data``
    (its version is bumped: a backward that saved ``data`` raises rather than use a value
    that may have changed).

    Examples
    --------
    >>> import mxgrad as mx
    >>> x = mx.nd.zeros((2,))
    >>> mx.nd.from_dlpack(mx.nd.to_dlpack_for_write(x))[:] = 5
    >>> x.asnumpy().tolist()
    [5.0, 5.0]
    """
    data = _check_array(data, "to_dlpack_for_write")
    data._check_writable()
    d = data._data
    if not d.flags.writeable:
        raise StateError("to_dlpack_for_write: this array is a read-only view; copy it "
                         "(x.copy()) and export the copy")
    capsule = d.__dlpack__()
    data._write()
    return capsule


class _Capsule:
    """A bare DLPack capsule dressed in the protocol NumPy's ``from_dlpack`` reads."""

    __slots__ = ("capsule",)

    def __init__(self, capsule: Any):
        self.capsule = capsule

    def __dlpack__(self, stream: Any = None, **kwargs: Any) -> Any:
        return self.capsule

    def __dlpack_device__(self) -> Tuple[int, int]:
        return (_CPU, 0)


def _writable_alias(a: np.ndarray) -> np.ndarray:
    """A writable view of the memory of ``a`` (NumPy marks arrays imported from classic
    capsules read-only, which cannot say otherwise; MXNet's ``from_dlpack`` gives a
    writable array). Kept as is when already writable, empty, or with negative strides."""
    if a.flags.writeable or a.size == 0 or any(s < 0 for s in a.strides):
        return a
    span = sum((n - 1) * s for n, s in zip(a.shape, a.strides)) + a.itemsize
    buf = (ctypes.c_char * span).from_address(a.ctypes.data)
    buf._owner = a          # the imported array holds the producer's memory: keep it
    flat = np.frombuffer(buf, dtype=a.dtype)
    return np.lib.stride_tricks.as_strided(flat, a.shape, a.strides, writeable=True)


def from_dlpack(dlpack: Any) -> NDArray:
    """An NDArray sharing the memory of a DLPack capsule (or of any object with a
    ``__dlpack__`` method, such as a PyTorch tensor on the CPU).

    Writes through the NDArray show in the producer's array and the other way round.

    Examples
    --------
    >>> import numpy as np, mxgrad as mx
    >>> a = np.arange(4.0)
    >>> x = mx.nd.from_dlpack(a)
    >>> x += 1
    >>> a.tolist()
    [1.0, 2.0, 3.0, 4.0]
    """
    if type(dlpack).__name__ == "PyCapsule":
        name = _capsule_name(dlpack)
        if name == b"used_dltensor":
            raise StateError("from_dlpack: this DLPack capsule was already imported; a "
                             "capsule can be imported once (export the array again)")
        if name != b"dltensor":
            raise DTypeError(f"from_dlpack: a capsule named {name!r} is not a DLPack "
                             f"tensor (expected 'dltensor')")
        source: Any = _Capsule(dlpack)
    elif hasattr(dlpack, "__dlpack__"):
        source = dlpack
    else:
        raise DTypeError(f"from_dlpack: expected a DLPack capsule or an object with "
                         f"__dlpack__ (a PyTorch tensor, a NumPy array...), got "
                         f"{type(dlpack).__name__}")
    try:
        a = np.from_dlpack(source)
    except (BufferError, RuntimeError, TypeError, ValueError) as err:
        raise DTypeError(f"from_dlpack: NumPy cannot import this tensor ({err}); mxgrad "
                         f"takes CPU tensors of NumPy's dtypes (move it to the CPU, or "
                         f"cast bfloat16 to float32, first)") from None
    a = np.asarray(a)
    if a.dtype.kind not in "biuf":   # MXNet: "Unknown DLDataType"
        raise DTypeError(f"from_dlpack: the tensor has dtype {a.dtype}, which NDArrays do "
                         f"not hold (bool, integers and floats only); take the real part "
                         f"or cast it first")
    return wrap(_writable_alias(a))


def dlpack_method(self: NDArray, stream: Optional[Any] = None, **kwargs: Any) -> Any:
    """``__dlpack__``: the NDArray's memory for ``torch.from_dlpack``/``np.from_dlpack``
    (a read export, as :func:`to_dlpack_for_read`)."""
    if stream is not None:
        raise StateError("__dlpack__: mxgrad arrays are on the CPU, which has no streams; "
                         "pass stream=None")
    return _export_for_read(self._data, **kwargs)


def dlpack_device_method(self: NDArray) -> Tuple[int, int]:
    """``__dlpack_device__``: (CPU, 0)."""
    return (_CPU, 0)

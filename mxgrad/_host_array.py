"""What ``NDArray.asnumpy()`` returns: a NumPy array that keeps MXNet-era habits working.

Under NumPy < 2 (MXNet's time) a one-element array converted to a Python number, so one of the
most common lines of MXNet code was ``print('loss: %f' % l.mean().asnumpy())`` or
``float(l.asnumpy())``. NumPy 2 raises ``TypeError: only 0-dimensional arrays can be converted
to Python scalars`` there. :class:`HostArray` is an ``np.ndarray`` subclass that differs from a
plain array in exactly that: ``float``/``int``/``complex`` of an array with one element give its
value (as NumPy 1.x did, without the deprecation warning). Shape, dtype, values, printing and
every NumPy function are unchanged; ``isinstance(a, np.ndarray)`` holds, and ``np.asarray(a)``
gives a plain array when one is needed.

Examples
--------
>>> import numpy as np
>>> a = np.array([1.5], dtype=np.float32).view(HostArray)
>>> '%f' % a, float(a), int(a * 2), a.shape
('1.500000', 1.5, 3, (1,))
>>> a
array([1.5], dtype=float32)
>>> float(np.zeros((2,)).view(HostArray))
Traceback (most recent call last):
...
TypeError: only 0-dimensional arrays can be converted to Python scalars
"""
from __future__ import annotations

import numpy as np

__all__ = ["HostArray", "host_copy"]


class HostArray(np.ndarray):
    """``np.ndarray`` whose one-element instances convert to Python numbers (NumPy 1.x rule)."""

    def _one(self):
        if self.size == 1:
            return np.asarray(self).reshape(-1)[0]
        return None

    def __float__(self) -> float:
        v = self._one()
        return float(v) if v is not None else np.asarray(self).__float__()

    def __int__(self) -> int:
        v = self._one()
        return int(v) if v is not None else np.asarray(self).__int__()

    def __complex__(self) -> complex:
        v = self._one()
        return complex(v) if v is not None else np.asarray(self).__complex__()

    def __repr__(self) -> str:
        return repr(np.asarray(self))

    def __array_wrap__(self, arr, context=None, return_scalar=False):
        # results with no dimensions are NumPy scalars, as for a plain array (a.sum(), a[0, 0])
        if arr.ndim == 0:
            return arr[()]
        return super().__array_wrap__(arr, context, return_scalar)

    def __reduce__(self):   # pickles (and copies through pickle) as a plain ndarray
        return np.asarray(self).__reduce__()


def host_copy(data: np.ndarray) -> HostArray:
    """A copy of ``data`` as a :class:`HostArray` (what ``asnumpy()`` returns)."""
    return data.copy().view(HostArray)

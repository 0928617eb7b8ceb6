"""``mx.np``: MXNet 2's NumPy-compatible array interface is not part of mxgrad.

The module exists so that programs (and MXNet 1.9's tests) that import it load; any use of it
raises a clear error. mxgrad implements MXNet 1.x's ``mx.nd`` arrays.

Examples
--------
>>> import mxgrad.numpy as mnp
>>> mnp.ones((2,))
Traceback (most recent call last):
...
mxgrad.numpy.NumpyInterfaceError: mx.np.ones: MXNet 2's NumPy interface (mx.np / mx.npx) is not provided by mxgrad; use mx.nd (MXNet 1.x arrays)
"""
from __future__ import annotations

from ..base import MXNetError

__all__ = ["NumpyInterfaceError"]


class NumpyInterfaceError(MXNetError, AttributeError):
    """``mx.np`` (MXNet 2's NumPy interface) is out of mxgrad's scope."""


def __getattr__(name: str):
    if name.startswith("__"):
        raise AttributeError(name)
    raise NumpyInterfaceError(f"mx.np.{name}: MXNet 2's NumPy interface (mx.np / mx.npx) is not "
                              f"provided by mxgrad; use mx.nd (MXNet 1.x arrays)")

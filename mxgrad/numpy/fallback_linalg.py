"""``mx.np.fallback_linalg``: the ``mx.np.linalg`` functions MXNet 1.9.1 computes by NumPy
itself, listed as MXNet lists them.

Examples
--------
>>> from mxgrad import np
>>> np.fallback_linalg.qr is np.linalg.qr
True
"""
from __future__ import annotations

from typing import List

from . import linalg as _linalg

_MXNET_NAMES = ("cond", "lstsq", "matrix_power", "matrix_rank", "multi_dot", "qr")
__all__: List[str] = [n for n in _MXNET_NAMES if hasattr(_linalg, n)]
globals().update({n: getattr(_linalg, n) for n in __all__})

"""``mx.sym.np.linalg``: symbolic ``mx.np.linalg`` functions (MXNet's operators).

Examples
--------
>>> import mxgrad as mx
>>> x = mx.sym.var('x').as_np_ndarray()
>>> float(mx.sym.np.linalg.norm(x).eval(x=mx.np.array([3.0, 4.0]))[0])
5.0
"""
from __future__ import annotations

from ._functions import missing, LINALG_FUNCS as _F

__all__ = sorted(_F)
globals().update(_F)


__getattr__ = missing("mx.sym.np.linalg")

"""``mx.sym.np.linalg``: symbolic ``mx.np.linalg`` functions (MXNet's operators).

Examples
--------
>>> import mxgrad as mx
>>> x = mx.sym.var('x').as_np_ndarray()
>>> float(mx.sym.np.linalg.norm(x).eval(x=mx.np.array([3.0, 4.0]))[0])
5.0
"""
from __future__ import annotations

from typing import Any

from ._functions import LINALG_FUNCS as _F

__all__ = sorted(_F)
globals().update(_F)


def __getattr__(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(name)
    raise AttributeError(f"mx.sym.np.linalg has no function {name!r} in mxgrad")

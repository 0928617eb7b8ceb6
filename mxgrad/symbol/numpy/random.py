"""``mx.sym.np.random``: symbolic draws (MXNet's ``_npi_normal``...; a new draw at every
run of the graph).

Examples
--------
>>> import mxgrad as mx
>>> mx.sym.np.random.normal(0, 1, size=(2, 3)).eval()[0].shape
(2, 3)
"""
from __future__ import annotations

from typing import Any

from ._functions import RANDOM_FUNCS as _F

__all__ = sorted(_F)
globals().update(_F)


def __getattr__(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(name)
    raise AttributeError(f"mx.sym.np.random has no function {name!r} in mxgrad")

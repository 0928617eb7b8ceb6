"""``mx.sym.np.random``: symbolic draws (MXNet's ``_npi_normal``...; a new draw at every
run of the graph).

Examples
--------
>>> import mxgrad as mx
>>> mx.sym.np.random.normal(0, 1, size=(2, 3)).eval()[0].shape
(2, 3)
"""
from __future__ import annotations

from ._functions import missing, RANDOM_FUNCS as _F

__all__ = sorted(_F)
globals().update(_F)


__getattr__ = missing("mx.sym.np.random")

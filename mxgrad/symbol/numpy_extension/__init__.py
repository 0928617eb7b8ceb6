"""``mx.sym.npx``: the NumPy interface's extension operators on Symbols (``F.npx`` in a
NumPy-mode ``hybrid_forward``): ``relu``, ``fully_connected``, ``batch_norm``... as MXNet
writes them (``_npx_relu``, ``FullyConnected``, ``BatchNorm``).

Examples
--------
>>> import mxgrad as mx
>>> x = mx.sym.var('x').as_np_ndarray()
>>> mx.sym.npx.relu(x, name='r')
<_Symbol r>
"""
from __future__ import annotations

from ..numpy._functions import NPX as _F, missing
from ...util import (set_np, reset_np, is_np_array, is_np_shape, use_np,  # noqa: F401
                     use_np_array, use_np_shape)

__all__ = sorted(_F) + ["set_np", "reset_np", "is_np_array", "is_np_shape", "use_np",
                        "use_np_array", "use_np_shape"]
globals().update(_F)


__getattr__ = missing("mx.sym.npx")

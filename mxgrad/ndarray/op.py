"""``mx.nd.op``: MXNet's module of the generated operator functions (``mx.nd.op.exp``,
``from mxnet.ndarray.op import *``). The functions are the ones of ``mx.nd``: this module only
gives them their MXNet home.

Examples
--------
>>> import mxgrad as mx
>>> from mxgrad.ndarray import op
>>> op.exp is mx.nd.exp, op.FullyConnected is mx.nd.FullyConnected
(True, True)
"""
from __future__ import annotations

import inspect
import sys

_nd = sys.modules[__name__.rsplit(".", 1)[0]]

__all__ = sorted(n for n, v in vars(_nd).items()
                 if not n.startswith("_") and callable(v) and not inspect.isclass(v)
                 and not inspect.ismodule(v))
globals().update({n: getattr(_nd, n) for n in __all__})

"""``mx.sym.linalg``: the Symbol counterpart of every ``mx.nd.linalg`` function.

Each builds a node of MXNet's operator ``_linalg_<name>``, which runs ``mx.nd.linalg.<name>``.

Examples
--------
>>> import mxgrad as mx
>>> y = mx.sym.linalg.gemm2(mx.sym.var('a'), mx.sym.var('b'), transpose_b=True)
>>> y.eval(a=mx.nd.ones((2, 3)), b=mx.nd.ones((4, 3)))[0].shape
(2, 4)
"""
from __future__ import annotations

from ._ops import namespace as _namespace, missing as _missing

globals().update(_namespace("_linalg_"))


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise _missing("linalg", name)

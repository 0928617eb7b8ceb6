"""``mx.sym._internal``: every registered operator by its MXNet name, underscores included
(``_plus_scalar``, ``_identity_with_attr_like_rhs``, ``_contrib_box_nms``...).

Examples
--------
>>> import mxgrad as mx
>>> w = mx.sym.var('w')
>>> y = mx.sym._internal._identity_with_attr_like_rhs(w * 2, w)
>>> y.infer_shape(w=(2, 3))[1]
[(2, 3)]
"""
from __future__ import annotations

from . import _ops
from ._registry import lookup


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    spec = lookup(name)
    if spec is None:
        raise _ops.missing("_internal", name)
    f = _ops.function(spec.name, name.lower())
    globals()[name] = f
    return f

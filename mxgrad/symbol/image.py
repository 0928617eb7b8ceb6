"""``mx.sym.image``: the Symbol counterpart of every ``mx.nd.image`` function.

Each builds a node of MXNet's operator ``_image_<name>``, which runs ``mx.nd.image.<name>``.

Examples
--------
>>> import mxgrad as mx
>>> y = mx.sym.image.to_tensor(mx.sym.var('img'))
>>> y.infer_shape(img=(4, 5, 3))[1]
[(3, 4, 5)]
"""
from __future__ import annotations

from ._ops import namespace as _namespace, missing as _missing

globals().update(_namespace("_image_"))


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise _missing("image", name)

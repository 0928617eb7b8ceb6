"""``mx.sym.contrib``: the Symbol counterpart of every ``mx.nd.contrib`` function.

Each builds a node of MXNet's operator ``_contrib_<name>``, which runs ``mx.nd.contrib.<name>``.
MXNet's control-flow ops (``foreach``, ``while_loop``, ``cond``) take Python functions: they
are nodes holding the subgraphs those functions build (:mod:`._control_flow`).

Examples
--------
>>> import mxgrad as mx
>>> y = mx.sym.contrib.box_iou(mx.sym.var('a'), mx.sym.var('b'))
>>> y.name, y.list_arguments()
('box_iou0', ['a', 'b'])
"""
from __future__ import annotations

from ._ops import namespace as _namespace, missing as _missing, function as _function

globals().update(_namespace("_contrib_"))
from ._control_flow import foreach, while_loop, cond  # noqa: E402,F401
# optimizer updates MXNet lists under contrib but registers without the prefix
adamw_update = _function("_adamw_update", "adamw_update")
mp_adamw_update = _function("_mp_adamw_update", "mp_adamw_update")


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise _missing("contrib", name)

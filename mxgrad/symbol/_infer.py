"""Shapes of a graph's parameters from the shapes of its inputs.

``SymbolBlock`` built from a Symbol without a parameter file initializes its parameters
at the first call; the shapes come from the rules of the operators that own parameters
(the same rules Gluon's layers apply), found by running the graph once on the input
with zeros for the parameters whose shape is being worked out.

Examples
--------
>>> import mxgrad as mx
>>> y = mx.sym.FullyConnected(mx.sym.var('x'), num_hidden=4, name='fc')
>>> infer_param_shapes(y, {'x': mx.nd.ones((2, 3))}, {})
{'fc_weight': (4, 3), 'fc_bias': (4,)}
"""
from __future__ import annotations

from typing import Any, Dict

from .. import autograd
from .. import ndarray as nd
from ..base import ShapeError
from .symbol import _run_node
from ._registry import LABEL_OPS, lookup
from . import _shape

__all__ = ["infer_param_shapes"]


def _rule(op: str, kw: dict, x_shape: tuple) -> Dict[str, tuple]:
    """``{parameter input name: shape}`` of an ``op`` node whose data has ``x_shape``: the
    op's shape rule (:mod:`._shape`, the one home of those rules) with only the data known."""
    spec = lookup(op)
    f = _shape.node_rule_for(op)
    if spec is None or f is None or not spec.inputs:
        return {}
    ins = [tuple(x_shape)] + [None] * (len(spec.inputs) - 1)
    new_ins, _ = f(kw, ins, [None] * spec.num_outputs(kw))
    labels = ("label",) if op in LABEL_OPS else ()
    return {name: tuple(s) for name, s in zip(spec.inputs[1:], new_ins[1:])
            if s is not None and name in spec.params and name not in labels
            and _shape.known(s)}


def infer_param_shapes(sym, inputs: dict, params) -> Dict[str, tuple]:
    """``{variable: shape}`` for the variables of ``sym`` that are neither in
    ``inputs`` (name -> NDArray) nor initialized Parameters in ``params``."""
    found: Dict[str, tuple] = {}
    env: Dict[int, Any] = {}
    # a plain lookup: ParameterDict.get would create a Parameter for a name it lacks
    # (a label left out of the inputs, say)
    known = dict(params.items()) if hasattr(params, "items") else {}
    with autograd.pause(train_mode=False):
        for n in sym._nodes():
            if n.op == "null":
                if n.name in inputs:
                    env[id(n)] = (inputs[n.name],)
                    continue
                p = known.get(n.name)
                try:
                    env[id(n)] = (p.data(),) if p is not None else None
                except Exception:   # not initialized yet: shape worked out below
                    env[id(n)] = None
                continue
            missing = [i for i, (src, _) in enumerate(n.inputs) if env.get(id(src)) is None]
            if missing:
                if 0 in missing:
                    raise ShapeError(f"cannot infer shapes at node '{n.name}': its data "
                                     f"input has no value")
                x = env[id(n.inputs[0][0])][n.inputs[0][1]]
                shapes = _rule(n.op, n.kwargs, x.shape)
                names = n.spec.inputs or ()
                for i in missing:
                    src = n.inputs[i][0]
                    if src.op != "null":
                        raise ShapeError(f"cannot infer shapes at node '{n.name}'")
                    key = names[i] if i < len(names) else None
                    if key not in shapes:
                        if n.op in LABEL_OPS:      # a label left out: not a parameter
                            env[id(src)] = (None,)
                            continue
                        raise ShapeError(
                            f"cannot infer the shape of parameter '{src.name}' (input "
                            f"{key} of node '{n.name}', op {n.op}); give it a shape")
                    found[src.name] = shapes[key]
                    env[id(src)] = (nd.zeros(shapes[key], dtype=x.dtype),)
            args = [env[id(src)][j] for src, j in n.inputs]
            env[id(n)] = _run_node(n, args)
    return found

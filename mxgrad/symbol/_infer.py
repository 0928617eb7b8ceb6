"""Parameter shapes from input shapes: the one home of that inference.

MXNet works out the shapes of a layer's parameters by tracing ``hybrid_forward`` on
Symbols and running the operators' shape inference over the graph
(``infer_shape_partial``). mxgrad does the same with the operators' rules of
:mod:`._shape` (the one home of those rules); no layer carries shape code.

- :func:`param_examples`: while a block is traced on example data (``Symbol.shape``
  works in ``hybrid_forward``), a node whose parameter variables have no value yet gets
  zeros for them, shaped by the node's rule from its data, so the trace goes on.
- :func:`var_shapes`: the shapes of the variables wanted: their example values when the
  graph was traced on example data, else partial shape inference over the graph from
  the input shapes. ``HybridBlock.infer_shape`` (deferred initialization of every
  HybridBlock) and ``SymbolBlock`` (a graph loaded without its parameters) use it.

Examples
--------
>>> import mxgrad as mx
>>> y = mx.sym.FullyConnected(mx.sym.var('x'), num_hidden=4, name='fc')
>>> var_shapes(y, {'x': (2, 3)}, {'fc_weight', 'fc_bias'})
{'fc_weight': (4, 3), 'fc_bias': (4,)}
"""
from __future__ import annotations

from typing import Collection, Dict, List, Sequence, Union

from .. import ndarray as nd
from ..base import MXNetError, ShapeError
from ._core import Symbol, Group, _FLAG_DTYPES
from ._registry import LABEL_OPS, lookup
from . import _shape

__all__ = ["param_examples", "var_shapes"]


def _rule(op: str, kw: dict, x_shape: tuple) -> Dict[str, tuple]:
    """``{parameter input name: shape}`` of an ``op`` node whose data has ``x_shape``: the
    op's shape rule with only the data known."""
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


def param_examples(node) -> None:
    """Give the parameter variables of ``node`` (a node being traced on example data)
    that have no example value zeros shaped by the node's rule from its data, in the
    Parameter's own dtype (else the data's)."""
    missing = [i for i, (src, _) in enumerate(node.inputs)
               if src.shadow is None and src.is_var]
    if not missing:
        return
    x = node.inputs[0][0].shadow[node.inputs[0][1]]
    try:
        shapes = _rule(node.op, node.kwargs, x.shape)
    except (KeyError, IndexError, ValueError, TypeError):
        return      # the node's own run says what is wrong with its data
    names = node.spec.inputs or ()
    for i in missing:
        key = names[i] if i < len(names) else None
        if key in shapes:
            src = node.inputs[i][0]
            flag = src.attrs.get("__dtype__")
            dt = _FLAG_DTYPES.get(int(flag), x.dtype) if flag is not None else x.dtype
            src.shadow = (nd.zeros(shapes[key], dtype=dt),)


def var_shapes(outputs: Union[Symbol, Sequence[Symbol]], given: Dict[str, tuple],
               wanted: Collection[str]) -> Dict[str, tuple]:
    """``{name: shape}`` for the variables ``wanted`` of the graph ``outputs`` whose shape
    is found: a variable's example value (a trace on example data), else what partial
    shape inference over the graph works out from the shapes ``given`` by variable name
    (and the variables' ``__shape__``). A variable it cannot size is left out; shapes that
    contradict each other raise the operator's ``ShapeError``."""
    flat: List[Symbol] = [outputs] if isinstance(outputs, Symbol) else list(outputs)
    if not flat:
        return {}
    sym = flat[0] if len(flat) == 1 else Group(flat)
    nodes = [n for n in sym._nodes() if n.is_var and n.name in wanted]
    found = {n.name: tuple(n.shadow[0].shape) for n in nodes if n.shadow is not None}
    if len(found) == len({n.name for n in nodes}):
        return found
    try:
        shapes = _shape.infer(sym, {k: tuple(v) for k, v in given.items()})
    except ShapeError:
        raise
    except MXNetError:
        return found
    for n in nodes:
        s = shapes.get((id(n), 0))
        if n.name not in found and s is not None and _shape.known(s):
            found[n.name] = tuple(s)
    return found

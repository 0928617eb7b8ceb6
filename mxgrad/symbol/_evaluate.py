"""Running a Symbol graph node by node: :func:`evaluate` (``Symbol.eval``, control-flow
bodies, one-off runs), and :func:`with_inferred_shapes`, what MXNet's executor does at bind
time for the nodes that make arrays of a partly unknown shape (``mx.sym.zeros((0, n))``).

Above the core (``_core``) and shape inference (``_shape``); the planned executor
(:mod:`mxgrad.symbol.plan`) is the other way to run a graph.

Examples
--------
>>> import mxgrad as mx
>>> x = mx.sym.var('x')
>>> evaluate(x * 2 + 1, {'x': mx.nd.array([1.0, 2.0])})[0].asnumpy().tolist()
[3.0, 5.0]
"""
from __future__ import annotations

from typing import Dict, List

from .._engine.ndarray import NDArray
from ..base import MXNetError, ShapeError
from ..util import is_unknown_dim
from ._core import Symbol, _Node, _run_node
from ._registry import LABEL_OPS
from ._shape import infer_entries, from_user, known

__all__ = ["evaluate", "with_inferred_shapes"]


def _eval(heads, nodes, values):
    env = {}
    for n in nodes:
        if n.is_var:
            if n.name not in values:
                raise MXNetError(f"no value for variable '{n.name}'")
            env[id(n)] = (values[n.name],)
        else:
            args = []
            for src, j in n.inputs:
                outs = env[id(src)]
                if j >= len(outs):
                    raise MXNetError(f"node '{n.name}' (op {n.op}) reads output {j} of "
                                     f"'{src.name}', which mxgrad's {src.op} does not "
                                     f"compute")
                args.append(outs[j])
            env[id(n)] = _run_node(n, args)
    return [env[id(n)][i] for n, i in heads], env


#: operators that make an array from a ``shape`` attribute, where -1 (and, in MXNet's legacy
#: shapes, 0) reads as "unknown, inferred from the graph" (``mx.sym.zeros((0, n))``: RNN
#: states; ``mx.sym.ones((2, -1))``)
_SHAPE_ATTR_OPS = ("_zeros", "_ones", "_full")


def _unknown_dims(node) -> bool:
    if node.op not in _SHAPE_ATTR_OPS:
        return False
    shape = (node.kwargs or {}).get("shape")
    if shape is None:
        return False
    return any(is_unknown_dim(d)
               for d in ((shape,) if isinstance(shape, int) else tuple(shape)))


def with_inferred_shapes(symbol: Symbol, shapes: Dict[str, tuple]) -> Symbol:
    """``symbol`` itself, or a copy in which the nodes making arrays of a shape with
    unknown (0) dimensions have the shape that inference finds from ``shapes`` (the
    variables' shapes by name): what MXNet's executor does at bind time."""
    nodes = symbol._nodes()
    todo = [n for n in nodes if _unknown_dims(n)]
    if not todo:
        return symbol
    found = infer_entries(nodes, {k: from_user(v) for k, v in shapes.items()})
    fixed = {}
    for n in todo:
        s = found.get((id(n), 0))
        if s is None or not known(s):
            raise ShapeError(f"node '{n.name}' ({n.op}) has shape "
                             f"{tuple(n.kwargs['shape'])} with unknown (0 or -1) dimensions that "
                             f"the graph does not determine; give them")
        fixed[id(n)] = tuple(s)
    new = {}
    for n in nodes:
        if n.is_var:
            new[id(n)] = n
            continue
        kwargs = dict(n.kwargs, shape=fixed[id(n)]) if id(n) in fixed else n.kwargs
        copy = _Node(n.op, n.name, dict(n.attrs), [(new[id(src)], j) for src, j in n.inputs],
                     n.spec, kwargs)
        copy.seq = n.seq        # it stands for n: the same place in the order of calls
        new[id(n)] = copy
    return type(symbol)([(new[id(n)], i) for n, i in symbol._outputs])


def evaluate(symbol: Symbol, values: Dict[str, NDArray]) -> List[NDArray]:
    """Run ``symbol`` with the NDArrays ``values`` (by variable name) through ``mx.nd``.

    Runs under the caller's autograd scope: inside ``record()`` the result is
    differentiable, in training mode BatchNorm uses and updates batch statistics.
    Variables that only feed a training loss's label (``SoftmaxOutput``) may be left
    out.
    """
    symbol = with_inferred_shapes(symbol, {k: v.shape for k, v in values.items()
                                           if v is not None})
    nodes = symbol._nodes()
    labels = symbol._labels
    if labels is None:
        labels = symbol._labels = tuple(
            n.inputs[1][0].name for n in nodes
            if n.op in LABEL_OPS and len(n.inputs) > 1 and n.inputs[1][0].is_var)
    if labels:
        values = dict(values)
        for name in labels:
            values.setdefault(name, None)  # type: ignore[arg-type]
    return _eval(symbol._outputs, nodes, values)[0]



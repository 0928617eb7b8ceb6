"""Shape inference on a Symbol graph from partial information (MXNet's ``InferShape`` pass).

Every output of every node has a shape that is unknown (``None``), partly known (a tuple
with ``-1`` for each unknown dimension) or known. Each operator has a rule that, from
whatever is known about its inputs and outputs, works out more: FullyConnected gives its
weight ``(num_hidden, features)`` from the data and the data's batch size from its output,
an elementwise op makes its inputs and output one shape, Concat sums along its axis and
fills in a missing input from the output... The pass applies the rules forward and backward
over the graph until nothing changes, so a shape given anywhere (a variable, an output
through ``a + b``) flows everywhere it determines. A rule that finds two different sizes for
one dimension raises :class:`~mxgrad.base.ShapeError` naming the node and both shapes.

An operator without a rule of its own is run once on zeros when all its inputs are known
(the same ``mx.nd`` function as at run time, so the shapes cannot disagree).

Examples
--------
>>> import mxgrad as mx
>>> a = mx.sym.var('a', shape=(0, 10))
>>> fc = mx.sym.FullyConnected(a, num_hidden=4, name='fc')
>>> y = fc + mx.sym.var('c', shape=(5, 0))
>>> s = infer(y, {})
>>> [s[(id(n), 0)] for n in y._nodes() if n.is_var]
[(5, 10), (4, 10), (4,), (5, 4)]
"""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple, cast

import numpy as np

from .. import autograd
from .. import ndarray as nd
from ..base import MXNetError, ShapeError, DTypeError
from ..util import is_np_shape
from ..ops._mxnet_op import lookup as _lookup
from ..ops._shape_rules import Rule, Shape, known, merge

__all__ = ["infer", "infer_entries", "node_rule_for", "to_user", "from_user"]

# ------------------------------------------------------------------ running an op on zeros
def _run_on_zeros(node, ins: List[Shape], dtypes=None) -> List[Shape]:
    from ._core import _run_node
    args = []
    for i, s in enumerate(ins):
        dt = dtypes[i] if dtypes and dtypes[i] is not None else "float32"
        args.append(nd.zeros(cast(Tuple[int, ...], s), dtype=dt))
    with autograd.pause(train_mode=False):
        outs = _run_node(node, args)
    return [tuple(o.shape) for o in outs]


def node_rule_for(op: str) -> Optional[Rule]:
    """The shape rule of the operator ``op`` (its record's), or None (then it is run on
    zeros)."""
    rec = _lookup(op)
    return rec.shape if rec is not None else None


# ------------------------------------------------------------------ the pass
def infer_entries(nodes, given: Dict) -> Dict[tuple, Shape]:
    """``{(id(node), output index): shape}`` for every entry of the graph ``nodes``
    (topological order), from the shapes ``given`` by variable name or node id (internal
    form: ``None`` unknown, ``-1`` unknown dimension)."""
    shapes: Dict[tuple, Shape] = {}
    for n in nodes:
        if n.is_var:
            shapes[(id(n), 0)] = given.get(id(n), given.get(n.name))
    order = [n for n in nodes if not n.is_var]
    tried: set = set()
    for sweep in range(2 * len(order) + 2):
        changed = False
        seq = order if sweep % 2 == 0 else list(reversed(order))
        for n in seq:
            changed |= _apply(n, shapes, tried)
        if not changed and sweep % 2 == 1:
            break
    return shapes


def _apply(n, shapes, tried) -> bool:
    keys_in = [(id(src), j) for src, j in n.inputs]
    keys_out = [(id(n), i) for i in range(n.num_outputs())]
    ins = [shapes.get(k) for k in keys_in]
    outs = [shapes.get(k) for k in keys_out]
    where = f"Error in operator {n.name}: "
    f = n.spec.shape          # the operator's record (ops/_mxnet_op.py), or the node's own
    try:
        if f is not None:
            new_ins, new_outs = f(n.kwargs, ins, outs)
        elif all(known(s) for s in ins) and not all(known(s) for s in outs) \
                and id(n) not in tried:
            tried.add(id(n))
            try:
                new_ins, new_outs = list(ins), _run_on_zeros(n, ins)
            except (ShapeError, DTypeError) as err:
                raise ShapeError(f"{where}{err}") from None
            except MXNetError:      # a value zeros do not satisfy (a Cholesky factor...)
                return False
            new_outs = new_outs + [None] * (len(outs) - len(new_outs))
        else:
            return False
    except ShapeError as err:
        msg = str(err)
        raise ShapeError(msg if msg.startswith("Error in operator") else where + msg) from None
    except (KeyError, TypeError, ValueError, IndexError, ZeroDivisionError) as err:
        raise ShapeError(f"{where}cannot infer shapes ({type(err).__name__}: {err})") from None
    changed = False
    for keys, old, new in ((keys_in, ins, new_ins), (keys_out, outs, new_outs)):
        for k, a, b in zip(keys, old, new):
            if b is None:
                continue
            m = merge(a, b, where)
            if m != a:
                # several inputs may be one entry: merge with what is stored now
                m = merge(shapes.get(k), m, where)
                if m != shapes.get(k):
                    shapes[k] = m
                    changed = True
    return changed


def infer(sym, given: Dict[str, Shape]) -> Dict[tuple, Shape]:
    """``{(id(node), output index): shape}`` (internal form) for every entry of ``sym``,
    from the shapes ``given`` by variable name and the variables' ``__shape__``."""
    nodes = sym._nodes()
    start: Dict[int, Shape] = {}
    for n in nodes:
        if n.is_var:
            if n.name in given:
                start[id(n)] = given[n.name]
            elif "__shape__" in n.attrs:
                start[id(n)] = from_user(parse_shape_attr(n.attrs["__shape__"]))
    return infer_entries(nodes, start)


# ------------------------------------------------------------------ conversions
def parse_shape_attr(text: str) -> Optional[tuple]:
    """A ``__shape__`` attribute as a tuple (``None`` when it is not one)."""
    try:
        dims = tuple(int(d) for d in text.strip("()[] ").split(",") if d.strip())
    except ValueError:
        return None
    return dims


def from_user(shape) -> Shape:
    """A shape as a user gives it (legacy: ``0`` unknown dimension, ``()`` unknown; NumPy
    shape mode: ``-1`` and ``None``) in internal form."""
    if shape is None:
        return None
    if isinstance(shape, (int, np.integer)):
        shape = (int(shape),)
    shape = tuple(int(d) for d in shape)
    if is_np_shape():
        return tuple(-1 if d < 0 else d for d in shape)
    if not shape:
        return None
    return tuple(-1 if d <= 0 else d for d in shape)


def to_user(shape: Shape):
    """An internal shape as MXNet returns it (legacy: ``()`` unknown, ``0`` unknown
    dimension; NumPy shape mode: ``None`` and ``-1``)."""
    if is_np_shape():
        return None if shape is None else tuple(shape)
    if shape is None:
        return ()
    return tuple(0 if d < 0 else d for d in shape)


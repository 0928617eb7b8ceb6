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

from typing import Callable, Dict, List, Optional, Tuple, cast

import numpy as np

from .. import autograd
from .. import ndarray as nd
from ..base import MXNetError, ShapeError, DTypeError
from ..util import is_np_shape, is_unknown_dim
from ..ops._mxnet_op import lookup as _lookup
from ..ops._shape_rules import (Rule, Shape, as_tuple, broadcast, broadcast_rule, dim, fmt,
                                known, merge, prod, same)

__all__ = ["infer", "infer_entries", "node_rule_for", "to_user", "from_user"]

_RULES: Dict[str, Rule] = {}
_fmt, _dim, _prod, _tuple = fmt, dim, prod, as_tuple


def rule(*ops: str):
    def deco(f: Rule) -> Rule:
        for op in ops:
            _RULES[op] = f
        return f
    return deco


# ------------------------------------------------------------------ rules
_SAME = (
    # unary math and activations
    "relu", "sigmoid", "tanh", "exp", "log", "log2", "log10", "log1p", "expm1", "sqrt",
    "rsqrt", "cbrt", "rcbrt", "square", "abs", "negative", "reciprocal", "sign", "floor",
    "ceil", "round", "rint", "fix", "trunc", "sin", "cos", "tan", "arcsin", "arccos",
    "arctan", "sinh", "cosh", "arcsinh", "arccosh", "arctanh", "degrees", "radians", "erf",
    "erfinv", "gamma", "gammaln", "softsign", "logical_not", "zeros_like", "ones_like",
    "clip", "_copy", "BlockGrad", "Cast",
    "smooth_l1",
    "amp_cast", "gelu", "mish", "log_sigmoid", "softrelu",
    "_contrib_gradientmultiplier", "_contrib_round_ste", "_contrib_sign_ste",
    "_contrib_div_sqrt_dim", "_contrib_quadratic", "_contrib_isfinite", "_contrib_isinf",
    "_contrib_isnan",
    # binary, same shape
    "elemwise_add", "elemwise_sub", "elemwise_mul", "elemwise_div", "_maximum", "_minimum",
    "_power", "_mod", "_hypot", "_equal", "_not_equal", "_greater", "_greater_equal",
    "_lesser", "_lesser_equal", "_logical_and", "_logical_or", "_logical_xor", "add_n",
    "arctan2",
)


_same = same


for _op in _SAME:
    _RULES[_op] = _same


_broadcast, _broadcast_rule = broadcast, broadcast_rule


for _op in ("broadcast_add", "broadcast_sub", "broadcast_mul", "broadcast_div",
            "broadcast_maximum", "broadcast_minimum", "broadcast_power", "broadcast_mod",
            "broadcast_equal", "broadcast_not_equal", "broadcast_greater",
            "broadcast_greater_equal", "broadcast_lesser", "broadcast_lesser_equal",
            "broadcast_hypot", "broadcast_logical_and", "broadcast_logical_or",
            "broadcast_logical_xor"):
    _RULES[_op] = _broadcast_rule


@rule("pick")
def _pick(kw, ins, outs):
    # MXNet's PickOpShape: the output is the data reduced over axis (kept as 1 with
    # keepdims); the index has the data's rank with a 1 there, or the reduced shape
    d, idx = ins
    o = outs[0]
    axis = kw.get("axis", -1)
    if d is None or axis is None:
        return [d, idx], [merge(o, idx) if not kw.get("keepdims") else o]
    ax = int(axis) % len(d)
    kept = tuple(1 if i == ax else v for i, v in enumerate(d))
    dropped = tuple(v for i, v in enumerate(d) if i != ax)
    o = merge(o, kept if bool(kw.get("keepdims", False)) else dropped)
    if idx is not None:
        idx = merge(idx, kept if len(idx) == len(d) else dropped)
    return [d, idx], [o]


@rule("where")
def _where(kw, ins, outs):
    c, x, y = ins
    if not known(c):
        return list(ins), list(outs)
    s = merge(merge(merge(None, x), y), outs[0])
    if known(s) and (c != s if len(c) == len(s) else len(c) != 1 or c[0] != s[0]):
        raise ShapeError(f"where: condition {_fmt(c)} does not match {_fmt(s)}")
    return [c, s, s], [s]


@rule("take")
def _take(kw, ins, outs):
    a, idx = ins
    if a is None or idx is None:
        return list(ins), list(outs)
    ax = int(kw.get("axis", 0)) % len(a)
    return list(ins), [merge(outs[0], tuple(a[:ax]) + tuple(idx) + tuple(a[ax + 1:]))]


@rule("one_hot")
def _one_hot(kw, ins, outs):
    if ins[0] is None:
        return list(ins), list(outs)
    return list(ins), [merge(outs[0], tuple(ins[0]) + (int(kw["depth"]),))]


@rule("_zeros", "_ones", "_full")
def _creation(kw, ins, outs):
    shape = tuple(-1 if is_unknown_dim(v) else v for v in _tuple(kw.get("shape")))
    return list(ins), [merge(outs[0], shape)]


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
    """The shape rule of the operator ``op``, or None (then it is run on zeros)."""
    return _rule_of(op)


def _rule_of(op: str) -> Optional[Rule]:
    rec = _lookup(op)
    if rec is not None and rec.shape is not None:
        return rec.shape
    f = _RULES.get(op)
    if f is None and op.endswith("_scalar"):       # _plus_scalar, _rpower_scalar...
        return _same
    return f


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
    f = n.spec.shape or _rule_of(n.op)       # the node's own record first (a foreach's)
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


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
    "reverse",
    "_identity_with_attr_like_rhs", "amp_cast", "gelu", "mish", "log_sigmoid", "softrelu",
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


def register_same(op: str) -> None:
    """Give ``op`` the rule "every input and output has one shape"."""
    _RULES[op] = _same


_broadcast, _broadcast_rule = broadcast, broadcast_rule


for _op in ("broadcast_add", "broadcast_sub", "broadcast_mul", "broadcast_div",
            "broadcast_maximum", "broadcast_minimum", "broadcast_power", "broadcast_mod",
            "broadcast_equal", "broadcast_not_equal", "broadcast_greater",
            "broadcast_greater_equal", "broadcast_lesser", "broadcast_lesser_equal",
            "broadcast_hypot", "broadcast_logical_and", "broadcast_logical_or",
            "broadcast_logical_xor"):
    _RULES[_op] = _broadcast_rule


@rule("_rnn_param_concat")
def _rnn_param_concat(kw, ins, outs):
    """Concat of an RNN layer's flattened weights and biases: the RNN op's rule gives the
    total; the inputs left unknown are the first layer's input-to-hidden weights (one per
    direction, of one size), which share what the known ones leave."""
    new_ins, new_outs = _concat(kw, ins, outs)
    o = new_outs[0]
    unknown = [i for i, x in enumerate(new_ins) if x is None or len(x) != 1 or x[0] < 0]
    if o is not None and len(o) == 1 and o[0] >= 0 and unknown and \
            all(new_ins[i] is None or len(new_ins[i]) == 1 for i in unknown):
        left = o[0] - sum(x[0] for i, x in enumerate(new_ins) if i not in unknown)
        if left >= 0 and left % len(unknown) == 0:
            for i in unknown:
                new_ins[i] = (left // len(unknown),)
    return new_ins, new_outs


@rule("Concat")
def _concat(kw, ins, outs):
    dim = int(kw.get("dim", 1))
    nds = {len(s) for s in list(ins) + list(outs) if s is not None}
    if not nds:
        return list(ins), list(outs)
    if len(nds) > 1:
        raise ShapeError(f"Concat: inputs of different ranks {sorted(nds)}")
    n = nds.pop()
    ax = dim % n
    rest: Shape = (-1,) * n
    for s in list(ins) + list(outs):
        if s is not None:
            rest = merge(rest, tuple(-1 if i == ax else v for i, v in enumerate(s)))
    new_ins = []
    for s in ins:
        s = merge(s, rest)
        new_ins.append(s)
    sizes = [s[ax] for s in new_ins]
    o = merge(outs[0], rest)
    if all(v >= 0 for v in sizes):
        o = merge(o, tuple(sum(sizes) if i == ax else v for i, v in enumerate(rest)))
    return new_ins, [o]


@rule("SliceChannel")
def _split(kw, ins, outs):
    n = int(kw.get("num_outputs", 1))
    axis = int(kw.get("axis", 1))
    squeeze = bool(kw.get("squeeze_axis", False))
    d = ins[0]
    part: Shape = None
    for s in outs:
        part = merge(part, s)
    if d is not None:
        ax = axis % len(d)
        if squeeze:
            p = tuple(v for i, v in enumerate(d) if i != ax)
        else:
            p = tuple((v // n if v >= 0 else -1) if i == ax else v for i, v in enumerate(d))
        part = merge(part, p)
    if part is not None:
        nd_ = len(part) + (1 if squeeze else 0)
        ax = axis % nd_
        full = list(part)
        if squeeze:
            full.insert(ax, n)
        else:
            full[ax] = full[ax] * n if full[ax] >= 0 else -1
        d = merge(d, tuple(full))
    return [d], [part] * len(outs)


@rule("Flatten")
def _flatten(kw, ins, outs):
    d, o = ins[0], outs[0]
    if d is not None:
        o = merge(o, (d[0], _prod(d[1:])) if len(d) > 1 else (d[0], 1))
    return [d], [o]


@rule("transpose")
def _transpose(kw, ins, outs):
    d, o = ins[0], outs[0]
    n = len(d) if d is not None else (len(o) if o is not None else None)
    if n is None:
        return [d], [o]
    axes = _tuple(kw.get("axes"))
    axes = tuple(a % n for a in axes) if axes else tuple(reversed(range(n)))
    if d is not None:
        o = merge(o, tuple(d[a] for a in axes))
    if o is not None:
        inv = [0] * n
        for i, a in enumerate(axes):
            inv[a] = i
        d = merge(d, tuple(o[inv[j]] for j in range(n)))
    return [d], [o]


def _np_contract(matmul: bool):
    """NumPy's ``dot`` / ``matmul`` shapes (MXNet's ``_np_dot`` / ``_npi_matmul``): the
    contracted sizes are made one (so a weight's unknown input size comes from the data),
    and the output follows."""
    def f(kw, ins, outs):
        a, b = ins
        if a is None or b is None:
            return list(ins), list(outs)
        if len(a) == 0 or len(b) == 0:
            if matmul:
                raise ShapeError("matmul: an input is 0-d")
            return list(ins), [merge(outs[0], b if len(a) == 0 else a)]
        if len(b) == 1:
            k = _dim(a[-1], b[0])
            a2, b2 = tuple(a[:-1]) + (k,), (k,)
            out = tuple(a[:-1])
        elif len(a) == 1 and matmul:
            k = _dim(a[0], b[-2])
            a2, b2 = (k,), tuple(b[:-2]) + (k, b[-1])
            out = tuple(b[:-2]) + (b[-1],)
        else:
            k = _dim(a[-1], b[-2])
            a2 = tuple(a[:-1]) + (k,)
            b2 = tuple(b[:-2]) + (k, b[-1])
            if matmul:
                lead = _broadcast(tuple(a[:-2]), tuple(b[:-2])) or ()
                out = tuple(lead) + (a[-2], b[-1])
            else:
                out = tuple(a[:-1]) + tuple(b[:-2]) + (b[-1],)
        where = "matmul: " if matmul else "dot: "
        return [merge(a, a2, where), merge(b, b2, where)], [merge(outs[0], out, where)]
    return f


_RULES["_np_dot"] = _np_contract(False)
_RULES["_npi_matmul"] = _np_contract(True)


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


def _slice_len(dim: int, b, e, st) -> int:
    if dim < 0:
        return -1
    return len(range(*slice(b, e, st).indices(dim)))


@rule("slice")
def _slice(kw, ins, outs):
    d = ins[0]
    if d is None:
        return list(ins), list(outs)
    begin, end = tuple(kw.get("begin") or ()), tuple(kw.get("end") or ())
    step = tuple(kw.get("step") or ())
    out = list(d)
    for i in range(len(begin)):
        st = step[i] if i < len(step) and step[i] is not None else None
        e = end[i] if i < len(end) else None
        out[i] = _slice_len(d[i], begin[i], e, st)
    return list(ins), [merge(outs[0], tuple(out))]


@rule("slice_axis")
def _slice_axis(kw, ins, outs):
    d = ins[0]
    if d is None:
        return list(ins), list(outs)
    ax = int(kw["axis"]) % len(d)
    out = list(d)
    out[ax] = _slice_len(d[ax], kw.get("begin"), kw.get("end"), None)
    return list(ins), [merge(outs[0], tuple(out))]


@rule("Reshape")
def _reshape(kw, ins, outs):
    from ..ops.shape import _infer_reshape      # MXNet's reshape codes, one home
    from ._registry import reshape_target
    d, o = ins[0], outs[0]
    target = reshape_target(kw, d)
    if target is None:
        return list(ins), list(outs)
    if known(d):
        return list(ins), [merge(o, _infer_reshape(d, target, bool(kw.get("reverse"))))]
    return [reshaped_input(d, o)], list(outs)


def reshaped_input(d: Shape, o: Shape) -> Shape:
    """The input shape ``d`` of a reshape with its one unknown dimension worked out from
    the known output ``o`` (the same number of elements), else ``d``."""
    if d is not None and known(o) and sum(1 for v in d if v < 0) == 1:
        rest = _prod(v for v in d if v >= 0)
        total = _prod(o)
        if rest > 0 and total % rest == 0:
            return tuple(total // rest if v < 0 else v for v in d)
    return d


@rule("_zeros", "_ones", "_full")
def _creation(kw, ins, outs):
    shape = tuple(-1 if is_unknown_dim(v) else v for v in _tuple(kw.get("shape")))
    return list(ins), [merge(outs[0], shape)]


# ------------------------------------------------------------------ running an op on zeros
def _run_on_zeros(node, ins: List[Shape], dtypes=None) -> List[Shape]:
    from .symbol import _run_node
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


@rule("_foreach")
def _foreach(kw, ins, outs):
    """A foreach node: its body's shapes from the slices of the data (axis 0 dropped), the
    states and the free variables, inferred in the body's graph; then outputs stacked along
    the time axis, final states shaped as the states, and whatever the body found about
    the states and free variables (a cell's weights) sent back to the node's inputs."""
    sub = kw["_subgraphs"][0]
    d_names, s_names, f_names = kw["d_names"], kw["s_names"], kw["f_names"]
    nd_, ns, n_out = len(d_names), len(s_names), kw["n_out"]
    data, states, free = list(ins[:nd_]), list(ins[nd_:nd_ + ns]), list(ins[nd_ + ns:])
    steps = [d[0] for d in data if d is not None and len(d) > 0]
    t = steps[0] if steps else -1
    nodes = sub._nodes()
    heads = [(id(n), i) for n, i in sub._outputs]
    body_outs: List[Shape] = [None] * len(heads)
    for _ in range(2):          # a state the body alone determines: once more with it
        given: Dict[str, Shape] = {}
        for name, d in zip(d_names, data):
            given[name] = None if d is None or len(d) == 0 else tuple(d[1:])
        given.update(zip(s_names, states))
        given.update(zip(f_names, free))
        found = infer_entries(nodes, {k: v for k, v in given.items() if v is not None})
        body_outs = [found.get(h) for h in heads]
        by_name = {n.name: found.get((id(n), 0)) for n in nodes if n.is_var}
        states = [merge(merge(s, by_name.get(name)), body_outs[n_out + i])
                  for i, (name, s) in enumerate(zip(s_names, states))]
        free = [merge(f, by_name.get(name)) for name, f in zip(f_names, free)]
        data = [d if d is not None or by_name.get(name) is None else (t,) + by_name[name]
                for name, d in zip(d_names, data)]
    new_outs = [None if o is None else (t,) + tuple(o) for o in body_outs[:n_out]]
    new_outs += states
    return data + states + free, [merge(a, b) for a, b in zip(outs, new_outs)]


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
    f = _rule_of(n.op)
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


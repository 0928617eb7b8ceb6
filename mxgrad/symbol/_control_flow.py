"""``mx.sym.contrib.foreach``, ``while_loop`` and ``cond``: control flow as Symbol nodes.

MXNet builds each as one node holding subgraphs traced from the Python functions given.
mxgrad does the same: the functions run once on placeholder variables, the Symbols they
return become the node's subgraph(s), and the node's inputs are the loop's data and states
plus every other variable the subgraphs read (parameters, outer inputs). Running the node
calls ``mx.nd.contrib``'s function of the same name with Python functions that evaluate the
subgraphs, so the node is differentiable and plans (``bind``, ``hybridize``) unroll it into
the ops of each step.

Such a graph runs, binds, infers shapes and is written to / read from JSON in MXNet's format
(each node's ``subgraphs`` with the ``*_locs`` of their inputs), both ways.

Examples
--------
>>> import mxgrad as mx
>>> data, h = mx.sym.var('data'), mx.sym.var('h')
>>> out, state = mx.sym.contrib.foreach(lambda x, s: (x + s, x + s), data, h)
>>> ex = mx.sym.Group([out, state]).bind(mx.cpu(), {'data': mx.nd.array([1., 2., 3.]),
...                                                 'h': mx.nd.array([0.])})
>>> [o.asnumpy().ravel().tolist() for o in ex.forward()]
[[1.0, 3.0, 6.0], [6.0]]
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Tuple

from .. import autograd
from .. import ndarray as nd
from ..base import DTypeError, MXNetError
from ..ndarray.contrib import _regroup  # the inverse of a flattening (one home)
from ..ops._shape_rules import Shape, merge
from ._registry import OpSpec
from ._shape import infer_entries
from ._core import Symbol, _Node, Group, var, _make_name
from ._evaluate import evaluate

__all__ = ["foreach", "while_loop", "cond"]


# ------------------------------------------------------------------ structures
def _flatten(x, leaf) -> Tuple[list, Any]:
    """The leaves of nested lists/tuples ``x`` and the structure (0 for a leaf)."""
    if isinstance(x, leaf):
        return [x], 0
    if isinstance(x, (list, tuple)):
        flat, fmt = [], []
        for e in x:
            f, m = _flatten(e, leaf)
            flat.extend(f)
            fmt.append(m)
        return flat, fmt
    raise DTypeError(f"expected Symbols (or nested lists of them), got {type(x).__name__}")


def _group(flat: list, fmt) -> Any:
    return _regroup(list(flat), fmt)[0]


# ------------------------------------------------------------------ the nodes
def _free_variables(subs: List[Symbol], placeholders: set) -> List[Symbol]:
    """The variables the subgraphs read besides the placeholders, once each, in order."""
    seen, out = set(), []
    for sub in subs:
        for n in sub._nodes():
            if n.is_var and n.name not in placeholders and n.name not in seen:
                seen.add(n.name)
                out.append(Symbol([(n, 0)]))
    return out


def _node(op: str, full: str, inputs: List[Symbol], kwargs: dict, n_out: int,
          run: Callable, shape: Optional[Callable] = None) -> _Node:
    entries = []
    for s in inputs:
        if len(s._outputs) != 1:
            raise MXNetError(f"{op}: an input Symbol has {len(s._outputs)} outputs; select "
                             f"one with sym[i]")
        entries.append(s._outputs[0])
    spec = OpSpec(op, None, run=run, attrs=None, outputs=n_out, shape=shape)
    attrs = {"num_args": str(len(inputs)), "num_outputs": str(n_out)}
    return _Node(op, full, attrs, entries, spec, kwargs)


def _placeholders(prefix: str, n: int) -> List[Symbol]:
    return [var(f"{prefix}{i}") for i in range(n)]


def _as_list(x) -> list:
    return list(x) if isinstance(x, (list, tuple)) else [x]


def foreach(body: Callable, data, init_states, name: Optional[str] = None):
    """Run ``body`` over the slices of ``data`` along axis 0, carrying states (MXNet's
    ``mx.sym.contrib.foreach``): ``body(data_slice, states) -> (outputs, new_states)``.

    Returns ``(outputs, states)``: every step's outputs stacked along axis 0, in the
    structure ``body`` returns them, and the final states in ``init_states``' structure.
    """
    flat_data, data_fmt = _flatten(data, Symbol)
    flat_init, state_fmt = _flatten(init_states, Symbol)
    full = _make_name(name, "foreach")
    d_vars = _placeholders(f"{full}_data", len(flat_data))
    s_vars = _placeholders(f"{full}_state", len(flat_init))
    res = body(_group(d_vars, data_fmt), _group(s_vars, state_fmt))
    if not isinstance(res, (list, tuple)) or len(res) != 2:
        raise MXNetError("foreach: body must return a pair (outputs, new_states)")
    outs, new_states = res
    flat_out, out_fmt = _flatten(outs, Symbol)
    flat_new, new_fmt = _flatten(new_states, Symbol)
    if len(flat_new) != len(flat_init):
        raise MXNetError(f"foreach: body returned {len(flat_new)} states for "
                         f"{len(flat_init)} initial states")
    sub = Group([s for o in flat_out + flat_new for s in _split(o)])
    holders = {v.name for v in d_vars + s_vars}
    free = _free_variables([sub], holders)
    kw = {"_subgraphs": (sub,), "d_names": [v.name for v in d_vars],
          "s_names": [v.name for v in s_vars], "f_names": [f.name for f in free],
          "data_fmt": data_fmt, "state_fmt": state_fmt, "out_fmt": out_fmt,
          "n_out": len(flat_out)}
    n_out = len(flat_out) + len(flat_new)
    node = _node("_foreach", full, flat_data + flat_init + free, kw, n_out, _run_foreach,
                 _foreach_shape)
    syms = [Symbol([(node, i)]) for i in range(n_out)]
    return _group(syms[:len(flat_out)], out_fmt), _group(syms[len(flat_out):], state_fmt)


def _split(s: Symbol) -> List[Symbol]:
    return [s] if len(s._outputs) == 1 else [s[i] for i in range(len(s._outputs))]


def _values(kw, free, names, arrays) -> dict:
    values = dict(zip(kw["f_names"], free))
    values.update(zip(names, arrays))
    return values


def _run_foreach(inputs, kw):
    nd_, ns = len(kw["d_names"]), len(kw["s_names"])
    data, init, free = inputs[:nd_], inputs[nd_:nd_ + ns], inputs[nd_ + ns:]
    sub, n_out = kw["_subgraphs"][0], kw["n_out"]

    def step(d, s):
        flat_d = _flatten(d, nd.NDArray)[0]
        flat_s = _flatten(s, nd.NDArray)[0]
        outs = evaluate(sub, _values(kw, free, kw["d_names"] + kw["s_names"],
                                     flat_d + flat_s))
        return _group(outs[:n_out], kw["out_fmt"]), _group(outs[n_out:], kw["state_fmt"])
    outs, states = nd.contrib.foreach(step, _group(data, kw["data_fmt"]),
                                      _group(init, kw["state_fmt"]))
    return tuple(_flatten(outs, nd.NDArray)[0] + _flatten(states, nd.NDArray)[0])


def _foreach_shape(kw, ins, outs):
    """A foreach node's shape rule: its body's shapes from the slices of the data (axis 0
    dropped), the states and the free variables, inferred in the body's graph; then
    outputs stacked along the time axis, final states shaped as the states, and whatever
    the body found about the states and free variables (a cell's weights) sent back to
    the node's inputs."""
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


def while_loop(cond: Callable, func: Callable, loop_vars, max_iterations=None,
               name: Optional[str] = None):
    """MXNet's ``mx.sym.contrib.while_loop``: run ``func(*loop_vars) -> (step_output,
    new_loop_vars)`` while ``cond(*loop_vars)`` is non-zero, at most ``max_iterations``
    times. Returns ``(outputs, final_loop_vars)``; each output has ``max_iterations`` rows
    (those after the last step are zeros)."""
    if max_iterations is None:
        raise MXNetError("while_loop: max_iterations should be specified")
    flat_vars, var_fmt = _flatten(loop_vars, Symbol)
    full = _make_name(name, "while_loop")
    l_vars = _placeholders(f"{full}_var", len(flat_vars))
    c = cond(*l_vars)
    res = func(*l_vars)
    if not isinstance(res, (list, tuple)) or len(res) != 2:
        raise MXNetError("while_loop: func must return a pair (step_output, new_loop_vars)")
    step_out, new_vars = res
    flat_out, out_fmt = _flatten([] if step_out is None else step_out, Symbol)
    flat_new, _ = _flatten(new_vars, Symbol)
    if len(flat_new) != len(flat_vars):
        raise MXNetError(f"while_loop: func returned {len(flat_new)} loop variables, "
                         f"expected {len(flat_vars)}")
    cond_sub = c if isinstance(c, Symbol) else None
    func_sub = Group([s for o in flat_out + flat_new for s in _split(o)])
    holders = {v.name for v in l_vars}
    free = _free_variables([func_sub] + ([cond_sub] if cond_sub is not None else []),
                           holders)
    kw = {"_subgraphs": (func_sub, cond_sub, c), "v_names": [v.name for v in l_vars],
          "f_names": [f.name for f in free], "out_fmt": out_fmt, "n_out": len(flat_out),
          "max_iterations": int(max_iterations)}
    n_out = len(flat_out) + len(flat_new)
    node = _node("_while_loop", full, flat_vars + free, kw, n_out, _run_while_loop)
    syms = [Symbol([(node, i)]) for i in range(n_out)]
    outs = _group(syms[:len(flat_out)], out_fmt) if flat_out else []
    return outs, _group(syms[len(flat_out):], var_fmt)


def _run_while_loop(inputs, kw):
    nv = len(kw["v_names"])
    lvars, free = list(inputs[:nv]), inputs[nv:]
    func_sub, cond_sub, constant = kw["_subgraphs"]
    n_out, names = kw["n_out"], kw["v_names"]

    def cond(*v):
        if cond_sub is None:
            return bool(constant)
        return evaluate(cond_sub, _values(kw, free, names, v))[0]

    def func(*v):
        outs = evaluate(func_sub, _values(kw, free, names, v))
        return list(outs[:n_out]), list(outs[n_out:])
    outs, final = nd.contrib.while_loop(cond, func, lvars, max_iterations=kw["max_iterations"])
    flat_out = _flatten(outs, nd.NDArray)[0] if outs else []
    if len(flat_out) < n_out:
        # no step ran: MXNet's outputs are max_iterations rows of zeros, shaped as a step's
        # output would be (one step is run on the loop variables to know it, not kept)
        with autograd.pause():
            one, _ = func(*lvars)
        flat_out = [nd.zeros((kw["max_iterations"],) + tuple(o.shape), dtype=o.dtype)
                    for o in one]
    return tuple(flat_out + _flatten(final, nd.NDArray)[0])


def cond(pred: Symbol, then_func: Callable, else_func: Callable, name: Optional[str] = None):
    """MXNet's ``mx.sym.contrib.cond``: ``then_func()`` where the one-element ``pred`` is
    non-zero, else ``else_func()`` (both return Symbols of the same structure)."""
    if not isinstance(pred, Symbol):
        raise DTypeError(f"cond: pred must be a Symbol, got {type(pred).__name__}")
    full = _make_name(name, "cond")
    then_out = then_func()
    else_out = else_func()
    flat_then, fmt = _flatten(then_out, Symbol)
    flat_else, efmt = _flatten(else_out, Symbol)
    if len(flat_then) != len(flat_else):
        raise MXNetError(f"cond: then_func gives {len(flat_then)} outputs, else_func "
                         f"{len(flat_else)}; they must give the same number")
    then_sub, else_sub = Group(flat_then), Group(flat_else)
    free = _free_variables([pred, then_sub, else_sub], set())
    kw = {"_subgraphs": (pred, then_sub, else_sub), "f_names": [f.name for f in free]}
    node = _node("_cond", full, free, kw, len(flat_then), _run_cond)
    syms = [Symbol([(node, i)]) for i in range(len(flat_then))]
    return _group(syms, fmt)


def _run_cond(inputs, kw):
    pred, then_sub, else_sub = kw["_subgraphs"]
    values = dict(zip(kw["f_names"], inputs))
    p = evaluate(pred, values)[0]
    chosen = then_sub if nd.contrib._as_bool(p, "cond: pred") else else_sub
    return tuple(evaluate(chosen, values))


# ------------------------------------------------------------------ MXNet's JSON
def _locs(text: str) -> List[int]:
    import ast
    v = ast.literal_eval(text)
    if not isinstance(v, (list, tuple)) or not all(isinstance(i, int) for i in v):
        raise MXNetError(f"a control-flow node's locations must be a list of ints: {text!r}")
    return list(v)


def to_json_entry(node, sub_json: Callable[[Symbol], dict]) -> Tuple[dict, list]:
    """``(attrs, subgraphs)`` of a control-flow node as MXNet writes them: each subgraph
    with the positions (``*_locs``) of its inputs among the node's inputs."""
    kw = node.kwargs
    pos = {name: k for k, name in enumerate(_input_names(node))}

    def locs(sub):
        return str([pos[n] for n in sub.list_inputs()])
    n_in = len(node.inputs)
    if node.op == "_foreach":
        sub = kw["_subgraphs"][0]
        names = sub.list_inputs()
        where = {n: i for i, n in enumerate(names)}
        attrs = {"in_data_locs": str([where[n] for n in kw["d_names"] if n in where]),
                 "in_state_locs": str([where[n] for n in kw["s_names"] if n in where]),
                 "remain_locs": str([where[n] for n in kw["f_names"] if n in where]),
                 "num_args": str(n_in + 1), "num_out_data": str(kw["n_out"]),
                 "num_outputs": str(node.num_outputs())}
        if len(names) != n_in:
            raise MXNetError(f"tojson: foreach node {node.name!r} has inputs its body does "
                             f"not read (it reads {names} of {n_in}); MXNet's format cannot "
                             f"say so")
        return attrs, [sub_json(sub)]
    if node.op == "_while_loop":
        func_sub, cond_sub, _ = kw["_subgraphs"]
        if cond_sub is None:
            raise MXNetError(f"tojson: while_loop node '{node.name}' has a Python constant "
                             f"as its condition; MXNet's format needs a Symbol")
        fnames = func_sub.list_inputs()
        attrs = {"cond_input_locs": locs(cond_sub), "func_input_locs": locs(func_sub),
                 "func_var_locs": str([fnames.index(n) for n in kw["v_names"]]),
                 "max_iterations": str(kw["max_iterations"]), "num_args": str(n_in + 2),
                 "num_out_data": str(kw["n_out"]), "num_outputs": str(node.num_outputs())}
        return attrs, [sub_json(cond_sub), sub_json(func_sub)]
    pred, then_sub, else_sub = kw["_subgraphs"]
    attrs = {"cond_input_locs": locs(pred), "then_input_locs": locs(then_sub),
             "else_input_locs": locs(else_sub), "num_args": str(n_in + 3),
             "num_outputs": str(node.num_outputs())}
    return attrs, [sub_json(pred), sub_json(then_sub), sub_json(else_sub)]


def _input_names(node) -> List[str]:
    """The name each node input has inside the subgraphs."""
    kw = node.kwargs
    if node.op == "_foreach":
        return kw["d_names"] + kw["s_names"] + kw["f_names"]
    if node.op == "_while_loop":
        return kw["v_names"] + kw["f_names"]
    return list(kw["f_names"])


def from_json(op: str, name: str, attrs: dict, inputs: list, subs: List[Symbol]) -> _Node:
    """The node of an MXNet ``_foreach`` / ``_while_loop`` / ``_cond`` entry whose
    subgraphs are already loaded as Symbols."""
    n_in = len(inputs)
    names: List[Any] = [None] * n_in
    shape: Optional[Callable] = None       # while_loop, cond: run on zeros

    def bind(sub, locs):
        sub_in = sub.list_inputs()
        if len(sub_in) != len(locs) or any(not 0 <= k < n_in for k in locs):
            raise MXNetError(f"node '{name}' ({op}): its subgraph reads {len(sub_in)} "
                             f"inputs but its locations are {locs}")
        for n, k in zip(sub_in, locs):
            if names[k] not in (None, n):
                raise MXNetError(f"node '{name}' ({op}): input {k} has two names in its "
                                 f"subgraphs ({names[k]}, {n}); mxgrad cannot run it")
            names[k] = n
        return sub_in
    if op == "_foreach":
        (sub,) = subs
        sub_in = sub.list_inputs()
        dl, sl, rl = (_locs(attrs[k]) for k in ("in_data_locs", "in_state_locs",
                                                 "remain_locs"))
        n_out = int(attrs.get("num_out_data", "1"))
        kw: Dict[str, Any] = {"_subgraphs": (sub,), "d_names": [sub_in[i] for i in dl],
              "s_names": [sub_in[i] for i in sl], "f_names": [sub_in[i] for i in rl],
              "data_fmt": 0 if len(dl) == 1 else [0] * len(dl),
              "state_fmt": [0] * len(sl), "out_fmt": 0 if n_out == 1 else [0] * n_out,
              "n_out": n_out}
        total = n_out + len(sl)
        run, shape = _run_foreach, _foreach_shape
    elif op == "_while_loop":
        cond_sub, func_sub = subs
        bind(cond_sub, _locs(attrs["cond_input_locs"]))
        f_in = bind(func_sub, _locs(attrs["func_input_locs"]))
        var_locs = _locs(attrs["func_var_locs"])
        v_names = [f_in[i] for i in var_locs]
        n_out = int(attrs.get("num_out_data", "0"))
        kw = {"_subgraphs": (func_sub, cond_sub, None), "v_names": v_names,
              "f_names": [n for n in names[len(v_names):]],
              "out_fmt": [0] * n_out, "n_out": n_out,
              "max_iterations": int(attrs["max_iterations"])}
        total = n_out + len(v_names)
        run = _run_while_loop
    else:
        pred, then_sub, else_sub = subs
        for sub, key in ((pred, "cond_input_locs"), (then_sub, "then_input_locs"),
                         (else_sub, "else_input_locs")):
            bind(sub, _locs(attrs[key]))
        kw = {"_subgraphs": (pred, then_sub, else_sub), "f_names": names}
        total = int(attrs.get("num_outputs", str(len(then_sub._outputs))))
        run = _run_cond
    spec = OpSpec(op, None, run=run, attrs=None, outputs=total, shape=shape)
    return _Node(op, name, dict(attrs), inputs, spec, kw)

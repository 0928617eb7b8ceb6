"""A plan's steps written out as straight-line Python: one forward function per plan and
one backward function per set of variables needing gradients.

A loop over step records pays, per op, for unpacking the record, testing its kind and
indexing lists; the generated functions do only the calls (values in local variables,
constants bound by name), which halves the per-op overhead of a planned graph of tiny
ops. Values nothing later reads are released as soon as their last reader has run
(``del``), in forward and in backward, so peak memory follows the graph's live values
(values backward reads too, in a forward that is not recorded).

The generated source is built only from slot numbers and names of this module's own
making (never from a graph's strings), and compiled with ``compile``/``exec``.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from functools import partial
from typing import Any, Callable, Dict, List, Tuple

import numpy as np

from ..ops._core import fit_gradient
from ..ops._core import PerCall

_OPSTEP = 0


_CODE: "OrderedDict[str, Any]" = OrderedDict()   # source -> code object (most recent last)
_CODE_LOCK = threading.Lock()
_CODE_MAX = 64


def _compiled(src: str, filename: str):
    """``compile(src)``, reused for the same source: a plan of another input signature of the
    same graph (a smaller last batch) writes the same text, only its names are bound to other
    values, and compiling is most of what planning a large graph costs."""
    with _CODE_LOCK:
        code = _CODE.get(src)
        if code is not None:
            _CODE.move_to_end(src)
            return code
    code = compile(src, filename, "exec")
    with _CODE_LOCK:
        _CODE[src] = code
        while len(_CODE) > _CODE_MAX:
            _CODE.popitem(last=False)
    return code


def fresh(attrs: dict) -> Callable[[], dict]:
    """A maker of ``attrs`` with a new instance of every PerCall value."""
    items = tuple(attrs.items())

    def make():
        return {k: type(v)() if isinstance(v, PerCall) else v for k, v in items}
    return make


def per_call(attrs) -> bool:
    return bool(attrs) and any(isinstance(v, PerCall) for v in attrs.values())


def compile_forward(plan, mem=None) -> Callable:
    """``run(datas, ctx, mode)`` -> ``(outputs, vals)``: ``datas`` the variables' raw
    arrays; ``ctx`` what node steps need (see Plan.forward); ``mode`` 0 returns no vals,
    1 the values backward reads (others None), 2 every value (a monitor: not with
    ``mem``, whose buffers hold several values in turn). ``mem``: a memory plan
    (:class:`._plan_memory.Memory`): ops write into the buffers it chooses; a call takes
    a set of static buffers from the function's pool (or makes one) and puts it back at
    the end."""
    ns: Dict[str, Any] = {}
    lines: List[str] = []
    how: Dict[int, Tuple[str, Any]] = {}
    static = mem is not None
    if static:
        how = mem.how
        ns["POOL"] = []
        ns["NEW"] = partial(_new_buffers, tuple(mem.metas))
        if mem.metas:
            names = ", ".join(f"b{i}" for i in range(len(mem.metas)))
            lines.append("    try: P = POOL.pop()")
            lines.append("    except IndexError: P = NEW()")
            lines.append(f"    {names}{',' if len(mem.metas) == 1 else ''} = P")
    nv = plan.nvars
    steps = plan.steps
    keep = plan.keep
    outs_set = set(plan.out_slots)
    # the last step reading each slot (values only the forward reads die after it)
    last: Dict[int, int] = {}
    for k, st in enumerate(steps):
        for s in st[2]:
            if s >= 0:
                last[s] = k
    args = ", ".join(f"v{i}" for i in range(nv))
    lines.append(f"    {args}{',' if nv == 1 else ''} = datas" if nv else "    pass")
    static_bufs = static and bool(mem.metas)
    for k, st in enumerate(steps):
        outs = st[3]
        lhs = ", ".join(f"v{o}" for o in outs) + ("," if len(outs) == 1 and st[0] != _OPSTEP
                                                  else "")
        if st[0] == _OPSTEP:
            op, ins, attrs = st[1], st[2], st[4]
            call_args = ", ".join("None" if i < 0 else f"v{i}" for i in ins)
            kind, where = how.get(k, ("new", None))
            if where is not None:
                call_args += f", out={'b' if kind == 'static' else 'v'}{where}"
            if per_call(attrs):
                ns[f"m{k}"] = fresh(attrs)
                ns[f"f{k}"] = op.fwd
                lines.append(f"    a{k} = m{k}()")
                lines.append(f"    if calls is not None: calls[{k}] = a{k}")
                rhs = f"f{k}({call_args}, **a{k})"
            else:
                ns[f"f{k}"] = partial(op.fwd, **attrs) if attrs else op.fwd
                rhs = f"f{k}({call_args})"
            lines.append(f"    {lhs} = {rhs}")
            if per_call(attrs):      # (its state lives on in calls only: backward's)
                lines.append(f"    del a{k}")
            if static and k in mem.guard:     # (a view or an input: copied, see Memory)
                ns["SEP"] = mem.separate
                ins_t = "".join(f"v{i}, " for i in ins if i >= 0)
                for o in outs:
                    lines.append(f"    if not SEP(v{o}, ({ins_t})): v{o} = v{o}.copy()")
        else:
            ns[f"n{k}"] = partial(plan._node_step, k)
            call_args = ", ".join(f"v{i}" for i in st[2])
            lines.append(f"    {lhs} = n{k}(ctx, ({call_args}{',' if len(st[2]) == 1 else ''}))")
        dead = sorted(s for s in set(st[2]) if s >= nv and last.get(s) == k
                      and s not in outs_set)
        if any(s not in keep for s in dead):
            lines.append("    if mode != 2: del " + ", ".join(f"v{s}" for s in dead
                                                              if s not in keep))
        if any(s in keep for s in dead):    # (kept for backward: only when recording)
            lines.append("    if mode == 0: del " + ", ".join(f"v{s}" for s in dead
                                                              if s in keep))
    res = ", ".join(f"v{s}" for s in plan.out_slots)
    kept = ", ".join(f"v{s}" if (s < nv or s in keep) else "None"
                     for s in range(plan.nslots))
    every = ", ".join(f"v{s}" for s in range(plan.nslots))
    lines.append(f"    outs = [{res}]")
    if static_bufs:
        lines.append("    POOL.append(P)")
    lines.append("    if mode == 0: return outs, None")
    lines.append(f"    if mode == 1: return outs, [{kept}]")
    lines.append(f"    return outs, [{every}]")
    src = "def run(datas, ctx, mode, calls):\n" + "\n".join(lines) + "\n"
    code = _compiled(src, f"<plan {'static ' if static else ''}forward {plan.symbol.name}>")
    exec(code, ns)   # noqa: S102 - source made above from slot numbers only
    return ns["run"]


def _new_buffers(metas) -> tuple:
    """A set of static buffers of the (shape, dtype) ``metas``."""
    return tuple(np.empty(shape, dtype) for shape, dtype in metas)


def compile_backward(plan, key: Tuple[bool, ...], keep_grads: bool = False) -> Callable:
    """``run(V, G, calls)``: gradients flow from ``G`` (a list by slot, the outputs'
    gradients set) to the variables' slots of ``G``, reading the kept values ``V``.
    ``keep_grads`` leaves every slot's gradient (and value) in place (a monitor reads
    them after the run)."""
    ns: Dict[str, Any] = {"ND": np.ndarray, "FIT": fit_gradient, "zeros": np.zeros}
    lines: List[str] = []
    dep = plan._grad_slots(key)
    steps = plan.steps
    nv = plan.nvars
    # the last step (in backward order) reading each kept value: released after it
    order = list(range(len(steps) - 1, -1, -1))
    reads: Dict[int, int] = {}
    for k in order:
        st = steps[k]
        if st[0] != _OPSTEP:
            continue
        op, ins, outs = st[1], st[2], st[3]
        save = op.save_in
        for j, s in enumerate(ins):
            if s >= 0 and (save == "all" or (save and j in save)):
                reads[s] = k
        if op.save_out:
            for o in outs:
                reads[o] = k
    for k in order:
        st = steps[k]
        if st[0] != _OPSTEP:
            if any(s in dep for s in st[2]):
                ns[f"n{k}"] = partial(plan._node_step_backward, k)
                lines.append(f"    n{k}(G, calls)")
            continue
        op, ins, outs, attrs, metas = st[1], st[2], st[3], st[4], st[5]
        need = [(j, s) for j, s in enumerate(ins) if s >= 0 and s in dep]
        if not need:
            continue
        save = op.save_in
        argv = ["None" if s < 0 or not (save == "all" or (save and j in save)) else f"V[{s}]"
                for j, s in enumerate(ins)]
        if per_call(attrs):
            ns[f"A{k}"] = attrs
            kw = f", **(calls.get({k}) or A{k})"
        elif attrs:
            ns[f"A{k}"] = attrs
            kw = f", **A{k}"
        else:
            kw = ""
        if len(outs) == 1:
            out_expr = f"V[{outs[0]}]" if op.save_out else "None"
            lines.append(f"    t = G[{outs[0]}]")
            lines.append("    if t is not None:")
        else:
            out_expr = ("(" + ", ".join(f"V[{o}]" for o in outs) + ",)") if op.save_out \
                else "None"
            ns[f"OM{k}"] = st[6]
            gl = ", ".join(f"G[{o}]" for o in outs)
            lines.append(f"    t = ({gl},)")
            lines.append("    if any(x is not None for x in t):")
            lines.append(f"        t = tuple(x if x is not None else zeros(m[0], m[1]) "
                         f"for x, m in zip(t, OM{k}))")
        # a one-input op's raw rule takes NumPy arrays with dimensions; a 0-d gradient
        # goes to its composed rule (as Op.backward chooses; the shape is known here)
        composed = len(ins) == 1 and op.raw_grads is not op.grads and not st[6][0][0]
        for j, s in need:
            ns[f"r{k}_{j}"] = (op.grads if composed else op.raw_grads)[j]
            ns[f"M{k}_{j}"] = metas[j]
            ns[f"S{k}_{j}"], ns[f"D{k}_{j}"] = metas[j]
            ns[f"W{k}_{j}"] = (f"op '{op.name}'", f"input {j}")
            lines.append(f"        r = r{k}_{j}(t, {out_expr}, {', '.join(argv)}{kw})")
            lines.append("        if r is not None:")
            lines.append(f"            if r.__class__ is not ND or r.shape != S{k}_{j} or "
                         f"r.dtype is not D{k}_{j}:")
            lines.append(f"                r = FIT(r, M{k}_{j}, *W{k}_{j}, False)")
            lines.append(f"            p = G[{s}]")
            lines.append(f"            G[{s}] = r if p is None else p + r")
            lines.append("        r = p = None")
        for o in outs:
            if o not in ins and not keep_grads:
                lines.append(f"        G[{o}] = None")
        lines.append("        t = None")
        free = [] if keep_grads else [s for s, last in reads.items() if last == k and s >= nv]
        if free:
            lines.append("    " + "; ".join(f"V[{s}] = None" for s in sorted(free)))
    src = "def run(V, G, calls):\n" + ("\n".join(lines) or "    pass") + "\n"
    code = _compiled(src, f"<plan backward {plan.symbol.name}>")
    exec(code, ns)   # noqa: S102 - source made above from slot numbers only
    return ns["run"]

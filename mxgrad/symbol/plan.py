"""The one graph executor: a Symbol planned once per input signature, then run as a flat
list of NumPy kernels, forward and backward.

``hybridize()`` and the symbolic API (``Symbol.bind``, executors, ``mx.mod``) both run
Symbols through a :class:`Plan`. Planning walks the graph once on example values:

* every node is run once through ``mx.nd`` on fresh leaf arrays while the op
  applications it makes are *captured* (the records :mod:`mxgrad.ops._apply` makes for the
  engine);
* a node whose outputs are made by captured ops alone, from its inputs alone (no value
  computed in Python on the side, no array among the ops' attributes; state an op keeps
  between its forward and its rules is a ``PerCall`` attribute, made anew for every
  call: max pooling's argmax, BatchNorm's batch statistics, Dropout's mask), and whose
  capture, replayed on perturbed inputs from the same random state, equals the node run
  anew, becomes its ops: *op steps*, which run the op's NumPy forward on the raw arrays
  and, in backward, its raw gradient rules; nothing else runs per op (no argument
  checks, no wrappers, no nodes, no recording decision). An op that draws random numbers
  in its forward (Dropout) draws them in step order, the traced block's order of calls:
  the imperative masks. A node may write variables in place as imperative code does
  (training BatchNorm's running statistics): the plan bumps their versions after each
  run; a node writing into a value the graph computes stays a node step;
* a node making a constant (``_CONSTANT``: zeros, arange, ones_like..., whose outputs
  depend on attributes and input shapes only, fixed for a plan) is made once at planning
  and becomes an op step that copies it (RNN layers' begin states);
* a node of one non-differentiable op (``_NO_GRADIENT``: stop_gradient, one_hot,
  argmax..., which the engine never records) becomes an op step running its function on
  the raw arrays, with no gradient;
* any other node (random draws outside ops: samplers; data-dependent code) stays a
  *node step*: run through ``mx.nd`` at every call, differentiated by the engine on a
  small graph of its own, so it keeps its imperative semantics exactly.

A call of the plan is recorded into the caller's graph as one node (:class:`PlanOp`):
``autograd.grad``, hooks, ``grad_req='add'``, version checks and freed-graph errors behave
as for imperative code. ``create_graph=True`` through a planned call re-runs the graph
imperatively from the saved inputs (random state and auxiliary states as at the call) and
differentiates that.

Examples
--------
>>> import numpy as np, mxgrad as mx
>>> from mxgrad.symbol.plan import Plan
>>> x = mx.sym.var('x')
>>> y = mx.sym.tanh(x) * 2
>>> plan = Plan.build(y, ['x'], [mx.nd.array([0.0, 1.0])], training=False)
>>> outs, call = plan.forward([mx.nd.array([0.0, 1.0])], keep=True, needs=[True])
>>> [round(float(v), 4) for v in outs[0]]
[0.0, 1.5232]
>>> g = plan.backward(call, [np.ones(2, np.float32)], (True,))[0]
>>> [round(float(v), 4) for v in g]
[2.0, 0.8399]
"""
from __future__ import annotations

import threading
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from .._engine.scope import state, _Scope
from .._engine import graph as _graph
from ..base import MXNetError
from .._engine.ndarray import NDArray, FACES, wrap
from ..ops import _apply
from ..ops import _core
from ..ops._core import Op, PerCall
from ..random import generator as _generator
from ._core import Symbol, _run_node
from ._evaluate import with_inferred_shapes
from ._plan_codegen import compile_forward, compile_backward, fresh, per_call
from ._plan_memory import plan_memory, separate

__all__ = ["Plan", "PlanOp", "run_planned"]

_OPSTEP, _NODESTEP = 0, 1


# ------------------------------------------------------------------ capturing op records
class _CaptureState(threading.local):
    entries: Optional[list] = None    # the capture list of this thread (None: not capturing)
    inside = False                    # within a captured `record` (its _record1/2 are not new)


_cap = _CaptureState()
_hook_lock = threading.Lock()
_hook_users = [0]
_orig: Dict[str, Any] = {}


def _hooked_record(op, args, outs, attrs=None):
    entries = _cap.entries
    if entries is None or _cap.inside:
        return _orig["record"](op, args, outs, attrs)
    entries.append((op, tuple(args), tuple(outs), attrs))
    _cap.inside = True
    try:
        return _orig["record"](op, args, outs, attrs)
    finally:
        _cap.inside = False


def _hooked_record1(op, x, out, attrs):
    entries = _cap.entries
    if entries is not None and not _cap.inside:
        entries.append((op, (x,), (out,), attrs))
    return _orig["_record1"](op, x, out, attrs)


def _hooked_record2(op, a, b, out, attrs):
    entries = _cap.entries
    if entries is not None and not _cap.inside:
        entries.append((op, (a, b), (out,), attrs))
    return _orig["_record2"](op, a, b, out, attrs)


_HOOKS = {"record": _hooked_record, "_record1": _hooked_record1, "_record2": _hooked_record2}


class _Capturing:
    """Within: this thread's op records are appended to ``entries``. The engine's three
    record functions are swapped for hooked ones only while some thread captures (other
    threads pass straight through them), so ordinary code pays nothing."""

    def __init__(self) -> None:
        self.entries: list = []

    def __enter__(self) -> "_Capturing":
        with _hook_lock:
            if _hook_users[0] == 0:
                for name, fn in _HOOKS.items():
                    _orig[name] = getattr(_apply, name)
                    setattr(_apply, name, fn)
            _hook_users[0] += 1
        _cap.entries = self.entries
        return self

    def __exit__(self, *exc: object) -> None:
        _cap.entries = None
        with _hook_lock:
            _hook_users[0] -= 1
            if _hook_users[0] == 0:
                for name in _HOOKS:
                    setattr(_apply, name, _orig[name])


# ------------------------------------------------------------------ random state
def _rng_state(with_numpy: bool = True):
    """mxgrad's generator state and (``with_numpy``: ~25 us to read) NumPy's global one,
    which only arbitrary code (a custom op in a node step) may draw from."""
    return _generator().bit_generator.state, np.random.get_state() if with_numpy else None


def _set_rng_state(saved) -> None:
    _generator().bit_generator.state = saved[0]
    if saved[1] is not None:
        np.random.set_state(saved[1])


def _gen_state():
    """The state of mxgrad's generator, which ops draw from in their forward (Dropout):
    cheap to read, unlike NumPy's global state (no op draws from that one)."""
    return _generator().bit_generator.state


def _set_gen_state(saved) -> None:
    _generator().bit_generator.state = saved


_PLAIN = (int, float, bool, str, type(None), np.dtype, type, slice, np.generic)


def _plain_attr(v) -> bool:
    if isinstance(v, _PLAIN):
        return True
    if isinstance(v, (tuple, list)):
        return all(_plain_attr(e) for e in v)
    if isinstance(v, dict):
        return all(_plain_attr(e) for e in v.values())
    return False


def _same(a, b) -> bool:
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind in "fc":
        return bool(np.array_equal(a, b, equal_nan=True))
    return bool(np.array_equal(a, b))


# ------------------------------------------------------------------ the plan
class _NodeCall:
    """What a node step keeps from one call for its backward: its leaves and outputs."""

    __slots__ = ("leaves", "leaf_pos", "outs")

    def __init__(self, leaves, leaf_pos, outs) -> None:
        self.leaves, self.leaf_pos, self.outs = leaves, leaf_pos, outs


class Plan:
    """A Symbol planned for one input signature (see the module docstring).

    Build with :meth:`build`; run with :meth:`forward` and :meth:`backward` on raw
    NumPy data held by NDArrays (the variables, in the order given to :meth:`build`).
    """

    __slots__ = ("names", "nvars", "nslots", "steps", "out_slots", "out_metas", "out_faces",
                 "var_metas",
                 "keep", "var_keep", "_bwd", "nodes", "symbol", "training", "random",
                 "has_node_steps",
                 "aux_pos", "node_slots", "written", "static", "__weakref__")
    names: List[str]
    nvars: int
    nslots: int
    steps: list
    out_slots: List[int]
    out_metas: list
    out_faces: list
    var_metas: list
    keep: frozenset
    var_keep: tuple
    _bwd: dict
    nodes: list
    symbol: Symbol
    training: bool
    random: bool
    has_node_steps: bool
    aux_pos: frozenset
    node_slots: list
    written: tuple
    static: bool

    # ---------------------------------------------------------------- building
    @classmethod
    def build(cls, symbol: Symbol, names: Sequence[str], values: Sequence[NDArray],
              training: bool, traced: bool = False, static_alloc: bool = False) -> "Plan":
        """Plan ``symbol`` for variables ``names`` with example ``values`` (their shapes
        and dtypes are the signature). Nothing of ``values`` is modified and the random
        state is left as it was (planning runs every node once or twice). ``traced``:
        run the nodes in the order they were made (a traced ``hybrid_forward``'s order of
        calls, so random ops draw as the imperative block does), not in MXNet's order.
        ``static_alloc``: plan the forward's memory (:mod:`._plan_memory`): buffers
        reused from call to call and in place, the same values."""
        # nodes making arrays of a shape with unknown (0) dimensions (mx.sym.zeros((0, n)):
        # RNN begin states) get the shape inference finds, as MXNet's bind does
        symbol = with_inferred_shapes(symbol, {n: v.shape for n, v in zip(names, values)})
        plan = cls.__new__(cls)
        plan.symbol = symbol
        plan.names = list(names)
        plan.nvars = len(names)
        plan.training = bool(training)
        plan.static = bool(static_alloc)
        plan.var_metas = [(v._data.shape, v._data.dtype) for v in values]
        plan._bwd = {}
        index = {n: i for i, n in enumerate(names)}
        nodes = symbol._nodes()
        if traced:
            nodes = sorted(nodes, key=_seq)   # (inputs are made before the nodes using them)
        plan.nodes = nodes
        slot_of: Dict[Tuple[int, int], int] = {}
        env: Dict[int, tuple] = {}
        steps: list = []
        nslots = plan.nvars
        aux_pos = set()
        written: List[int] = []
        random = False
        node_slots = []
        saved_rng = _rng_state()
        try:
            for n in nodes:
                if n.is_var:
                    if n.name not in index:
                        raise MXNetError(f"no value for variable '{n.name}'")
                    i = index[n.name]
                    slot_of[(id(n), 0)] = i
                    env[id(n)] = (values[i],)
                    continue
                in_slots = [slot_of[(id(src), j)] for src, j in n.inputs]
                args = [env[id(src)][j] for src, j in n.inputs]
                if n.spec is not None:
                    for k in n.spec.aux:
                        if k < len(in_slots):
                            aux_pos.add(in_slots[k])
                npf = n.npface
                captured = _capture_node(n, args, plan.training, npf, plan.static)
                if captured is not None and any(in_slots[k] >= plan.nvars
                                                for k in captured[3]):
                    captured = None     # writes into a value of the graph: run as a node
                if captured is None:
                    outs = _run_copy(n, args, plan.training, npf)
                    out_slots = list(range(nslots, nslots + len(outs)))
                    nslots += len(outs)
                    steps.append((_NODESTEP, n, tuple(in_slots), tuple(out_slots), npf))
                else:
                    ops, outs, node_out, wrote, draws = captured
                    written.extend(in_slots[k] for k in wrote)
                    random = random or draws
                    local = {k: s for k, s in enumerate(in_slots)}
                    local[-1] = -1                 # an absent (None) input
                    nlocal = len(in_slots)
                    for op, ins, attrs, nout, metas, outmetas, outok, owns in ops:
                        o = tuple(range(nslots, nslots + nout))
                        nslots += nout
                        sins = tuple(local[i] for i in ins)
                        steps.append((_OPSTEP, op, sins, o, attrs, metas, outmetas, outok,
                                      owns))
                        for k in range(nout):
                            local[nlocal] = o[k]
                            nlocal += 1
                    out_slots = [local[i] for i in node_out]
                for k, s in enumerate(out_slots):
                    slot_of[(id(n), k)] = s
                node_slots.append((n, tuple(in_slots), tuple(out_slots)))
                env[id(n)] = tuple(outs)
        finally:
            _set_rng_state(saved_rng)
        plan.nslots = nslots
        plan.steps = steps
        plan.node_slots = node_slots
        plan.written = tuple(written)
        plan.aux_pos = frozenset(aux_pos) | frozenset(written)
        plan.has_node_steps = any(s[0] == _NODESTEP for s in steps)
        plan.random = random or plan.has_node_steps
        plan.out_slots = [slot_of[(id(n), j)] for n, j in symbol._outputs]
        plan.out_metas = []
        plan.out_faces = []          # each output's array class (mx.nd's or mx.np's)
        for n, j in symbol._outputs:
            v = env[id(n)][j]
            plan.out_metas.append((v._data.shape, v._data.dtype))
            plan.out_faces.append(type(v))
        # slots whose values backward reads: saved inputs/outputs of op steps, and every
        # input of a node step (its engine graph holds them anyway)
        keep = set()
        for st in steps:
            if st[0] == _OPSTEP:
                op = st[1]
                save = op.save_in
                for k, s in enumerate(st[2]):
                    if save == "all" or (save and k in save):
                        keep.add(s)
                if op.save_out:
                    keep.update(st[3])
        plan.keep = frozenset(keep)
        plan.var_keep = tuple(i for i in range(plan.nvars) if i in keep)
        return plan

    # ---------------------------------------------------------------- forward
    def forward(self, arrays: Sequence[NDArray], keep: bool,
                needs: Optional[Sequence[bool]] = None,
                monitor: Optional[Callable] = None) -> Tuple[list, Any]:
        """Run the plan on the variables' arrays; return (raw outputs, call state).

        ``keep`` keeps what backward needs (the call state; None otherwise); ``needs``
        says which variables need gradients (node steps record only then);
        ``monitor(node, inputs, outputs)`` is called for every Symbol node after the run
        (raw arrays)."""
        tag = ("sfwd", keep) if self.static and monitor is None else "fwd"
        run = self._bwd.get(tag)
        if run is None:
            run = self._bwd[tag] = compile_forward(
                self, None if tag == "fwd" else plan_memory(self, keep))
        calls: Optional[dict] = {} if keep else None
        grad_slots = self._grad_slots(needs) if keep and needs is not None else None
        ctx = (arrays, self.training, calls, grad_slots)
        outs, vals = run([a._data for a in arrays], ctx,
                         2 if monitor is not None else (1 if keep else 0), calls)
        for i in self.written:     # op steps that wrote a variable in place (BatchNorm's
            arrays[i]._write()       # running statistics): as the imperative op does
        if monitor is not None:
            for n, ins, o in self.node_slots:
                monitor(n, [vals[i] for i in ins], [vals[i] for i in o])
            keepset = self.keep
            vals = [v if (i < self.nvars or i in keepset) else None
                    for i, v in enumerate(vals)]
        if not keep:
            return outs, None
        return outs, (vals, calls)

    def _node_step(self, k: int, ctx, ins: tuple) -> tuple:
        """Run node step ``k`` on its inputs' data; return its outputs' data."""
        arrays, training, calls, grad_slots = ctx
        st = self.steps[k]
        n, slots = st[1], st[2]
        nv = self.nvars
        leaves = []
        leaf_pos = []
        args = []
        for j, (s, d) in enumerate(zip(slots, ins)):
            if grad_slots is not None and s in grad_slots:
                a = wrap(d)
                a._node = _graph.Leaf(a, "write")
                leaves.append(a)
                leaf_pos.append(j)
            elif s < nv:
                a = arrays[s]          # the caller's array (auxiliary states updated in place)
            else:
                a = wrap(d)
            args.append(a)
        with _Scope(bool(leaves), training):
            res = _run_node(n, args, st[4])
        if leaves:
            calls[("node", k)] = _NodeCall(leaves, leaf_pos, res)
        return tuple(v._data for v in res)

    def _grad_slots(self, needs) -> frozenset:
        """Slots that depend on a variable that needs a gradient."""
        key = tuple(bool(x) for x in needs)
        got = self._bwd.get(("slots", key))
        if got is not None:
            return got
        dep = set(i for i, x in enumerate(key) if x)
        for st in self.steps:
            if any(s in dep for s in st[2] if s >= 0):
                dep.update(st[3])
        got = self._bwd[("slots", key)] = frozenset(dep)
        return got

    # ---------------------------------------------------------------- backward
    def backward(self, call, out_grads: Sequence[Optional[np.ndarray]],
                 needs: Sequence[bool], free: bool = True,
                 monitor: Optional[Callable] = None) -> List[Optional[np.ndarray]]:
        """Gradients of the variables (raw arrays; None for those not needed or not
        reached) from the outputs' gradients (None: no gradient for that output).

        ``free`` releases the call's saved values as backward passes them (False keeps
        the call for another backward: ``retain_graph``). ``monitor(node, input_grads)``
        is called for every Symbol node after the run, last node first, with the
        gradients of all its inputs (all are computed then, as MXNet's executors do)."""
        vals, calls = call
        key = tuple(bool(x) for x in needs)
        run_key = key if monitor is None else (True,) * self.nvars
        tag = "bwd" if monitor is None else "bwdmon"
        run = self._bwd.get((tag, run_key))
        if run is None:
            run = self._bwd[(tag, run_key)] = compile_backward(self, run_key,
                                                               monitor is not None)
        gs: list = [None] * self.nslots
        for s, g in zip(self.out_slots, out_grads):
            if g is not None:
                gs[s] = g if gs[s] is None else gs[s] + g
        calls["free"] = free
        calls["keep_grads"] = monitor is not None
        kept = vals if free and monitor is None else list(vals)
        run(kept, gs, calls)
        if monitor is not None:     # (an input no gradient reached shows zeros, as MXNet's)
            for n, ins, _ in reversed(self.node_slots):
                monitor(n, [gs[i] if gs[i] is not None or kept[i] is None
                            else np.zeros_like(kept[i]) for i in ins])
        return [gs[i] if key[i] else None for i in range(self.nvars)]

    def _node_step_backward(self, k: int, gs: list, calls: dict) -> None:
        """Backward of node step ``k``: its small engine graph, from its outputs'
        gradients in ``gs`` to its inputs'."""
        st = self.steps[k]
        outs = st[3]
        nc = calls.get(("node", k))
        if nc is None:
            for o in outs:
                gs[o] = None
            return
        heads, hgs = [], []
        keep = calls.get("keep_grads", False)
        for o, h in zip(outs, nc.outs):
            g = gs[o]
            if not keep:
                gs[o] = None
            if g is not None and h._node is not None:
                heads.append(h)
                hgs.append(wrap(g))
        if not heads:
            return
        retain = not calls.get("free", True)
        grads = _graph.grad_impl(heads, nc.leaves, hgs, retain, False, self.training,
                                 False, True)
        for j, gr in zip(nc.leaf_pos, grads):
            s = st[2][j]
            d = gr._data
            prev = gs[s]
            gs[s] = d if prev is None else prev + d


def _seq(node) -> int:
    return node.seq


def _run_copy(n, args, training, npface):
    """Run node ``n`` once on copies of ``args`` (no side effect reaches them); return
    its outputs (arrays not in any graph)."""
    copies = [None if a is None else wrap(a._data.copy()) for a in args]
    with _Scope(False, training):
        return [wrap(o._data, None, 0, type(o)) for o in _run_node(n, copies, npface)]


# nodes whose op sequence depends on values (a loop's iteration count, a branch): always run
# through mx.nd, never replayed from one capture
_DYNAMIC = frozenset({"_while_loop", "_cond"})


def _as_tuple(r) -> tuple:
    return r if isinstance(r, tuple) else (r,)


# nodes whose outputs depend on their attributes and on their inputs' shapes and dtypes
# only (fixed for a plan): made once at planning, copied at every call
_CONSTANT = frozenset({"_zeros", "_ones", "_full", "_arange", "_eye", "_linspace",
                       "zeros_like", "ones_like"})


def _constant_op(name: str, data: np.ndarray) -> Op:
    """An op without inputs whose forward returns a new copy of ``data``."""
    data = data.copy()
    data.flags.writeable = False
    return Op(name, data.copy, None, None, (), False, 1)


# nodes of one non-differentiable op (no gradient flows through them; the engine records
# none of them, so nothing is captured): run by their function on the raw arrays
_NO_GRADIENT = frozenset({"BlockGrad", "one_hot", "argmax", "argmin", "argmax_channel",
                          "argsort", "shape_array", "size_array"})


def _no_gradient(*args, **attrs):
    return None


def _no_gradient_op(n, nin: int, npface: bool) -> Op:
    """An op running node ``n`` (of ``_NO_GRADIENT``) on raw arrays, without gradient."""
    def fwd(*raw):
        res = [o._data for o in _run_node(n, [wrap(r) for r in raw], npface)]
        res = [d.copy() if any(d is r for r in raw) else d for d in res]
        return res[0] if len(res) == 1 else tuple(res)
    return Op(n.op, fwd, (_no_gradient,) * nin, None, (), False, n.num_outputs())


def _capture_node(n, args, training, npface, check_out=False):
    """Capture node ``n`` on ``args``: ``(ops, outputs, output positions, positions of
    the inputs it writes in place, whether it draws random numbers)`` when its outputs
    come from captured ops on its inputs alone and a replay on perturbed inputs (from the
    same random state) equals the node run anew, or it makes constants (``_CONSTANT``);
    None otherwise. Each op is ``(op, input positions, attrs, number of outputs, input
    metas, output metas, outok, owns)``, with ``check_out``: ``outok`` whether its
    forward fills an ``out=`` buffer with the values it computed (:func:`_fills_out`),
    ``owns`` whether its outputs were new arrays (not views, not its inputs)."""
    if n.op in _CONSTANT:
        with _Scope(False, training):
            made = _run_node(n, [None if a is None else wrap(a._data.copy()) for a in args],
                             npface)
        return ([(_constant_op(n.op, o._data), [], None, 1, (),
                  ((o._data.shape, o._data.dtype),), False, False) for o in made],
                [wrap(o._data, None, 0, type(o)) for o in made],
                [len(args) + k for k in range(len(made))], (), False)   # (after the inputs)
    if any(a is None for a in args) or n.op in _DYNAMIC:
        return None
    if n.op in _NO_GRADIENT:
        op = _no_gradient_op(n, len(args), npface)
        with _Scope(False, training):
            face = FACES["np"] if npface else NDArray
            made = [wrap(d, None, 0, face)
                    for d in _as_tuple(op.fwd(*[a._data.copy() for a in args]))]
        metas = tuple((a._data.shape, a._data.dtype) for a in args)
        return ([(op, list(range(len(args))), None, len(made), metas,
                  tuple((o._data.shape, o._data.dtype) for o in made), False, False)],
                made, [len(args) + k for k in range(len(made))], (), False)
    leaves = []
    face = FACES["np"] if npface else NDArray   # the arrays the node's ops will see
    for a in args:
        leaf = wrap(a._data.copy(), None, 0, face)
        leaf._node = _graph.Leaf(leaf, "write")
        leaves.append(leaf)
    rng = _gen_state()
    try:
        with _Capturing() as cap, _Scope(True, training):
            outs = _run_node(n, leaves, npface)
    except MXNetError:
        raise
    except Exception:          # noqa: BLE001 - the node step will raise it at run time
        return None
    # whether its ops drew random numbers (Dropout's mask, drawn in its op's forward): a
    # plan of such ops keeps the random state of each call for create_graph's replay
    random = rng != _gen_state()
    # inputs the node wrote in place (bumping their versions, as BatchNorm's running
    # statistics in training): the plan bumps the caller's arrays' versions likewise
    written = tuple(k for k, a in enumerate(leaves) if a._vbox is not None and a._vbox[0])
    pos: Dict[int, int] = {id(a): k for k, a in enumerate(leaves)}
    ops = []
    for op, in_arrays, out_arrays, attrs in cap.entries:
        if type(op) is not Op or (attrs and not all(
                _plain_attr(v) or isinstance(v, PerCall) for v in attrs.values())):
            return None
        ins = []
        metas = []
        for a in in_arrays:
            if a is None:
                ins.append(-1)
                metas.append(None)
                continue
            k = pos.get(id(a))
            if k is None:
                return None            # a value the ops did not make: computed on the side
            ins.append(k)
            metas.append((a._data.shape, a._data.dtype))
        base = len(pos)
        for j, o in enumerate(out_arrays):
            pos[id(o)] = base + j
        # (a PerCall value is kept empty: what the capture's forward left in it, a
        # convolution's columns, would otherwise stay alive with the plan)
        ops.append((op, ins, fresh(attrs)() if attrs else None, len(out_arrays), tuple(metas),
                    tuple((o._data.shape, o._data.dtype) for o in out_arrays),
                    check_out and _fills_out(op, in_arrays, out_arrays, attrs),
                    check_out and _owns(in_arrays, out_arrays)))
    node_out = []
    for o in outs:
        k = pos.get(id(o))
        if k is None:
            # a no-op (a reshape to the input's own shape) returns its input's data:
            # the node is that input, no step
            k = next((i for i, a in enumerate(leaves) if o._data is a._data), None)
            if k is None:
                return None
        node_out.append(k)
    # no leaf may be an output of an op (ids of freed arrays could repeat otherwise)
    if not _replays(n, args, ops, node_out, training, npface):
        return None
    return ops, [wrap(o._data, None, 0, type(o)) for o in outs], node_out, written, random


def _fills_out(op, in_arrays, out_arrays, attrs) -> bool:
    """Whether ``op`` (``takes_out``) run with ``out=`` a new buffer on the captured
    inputs fills it with the captured output (its dtype and shape are those of the
    signature, so a failing cast or a 0-d result shows here, at planning)."""
    if not op.takes_out or len(out_arrays) != 1 or per_call(attrs):
        return False
    ref = out_arrays[0]._data
    if type(ref) is not np.ndarray or ref.ndim == 0:
        return False
    buf = np.empty(ref.shape, ref.dtype)
    ins = [None if a is None else a._data for a in in_arrays]
    try:
        with np.errstate(all="ignore"):     # (the capture's run has shown its warnings)
            res = op.fwd(*ins, out=buf, **attrs) if attrs else op.fwd(*ins, out=buf)
    except Exception:          # noqa: BLE001 - (a cast NumPy refuses): allocate as always
        return False
    return res is buf and _same(buf, ref)


def _owns(in_arrays, out_arrays) -> bool:
    """Whether the outputs are arrays sharing no memory with the inputs."""
    ins = [a._data for a in in_arrays if a is not None]
    return all(type(o._data) is np.ndarray and separate(o._data, ins) for o in out_arrays)


_NOISE: list = [np.empty(0), np.empty(0)]


def _noise(size: int):
    """Fixed pseudo-random factors in [0.5, 1.5) and shifts in [-0.1, 0.1) (the same at
    every build; drawn once and grown as needed, not per node)."""
    if _NOISE[0].size < size:
        rng = np.random.default_rng(12345)
        n = max(size, 2 * _NOISE[0].size, 4096)
        _NOISE[0] = rng.uniform(0.5, 1.5, n)
        _NOISE[1] = rng.uniform(-0.1, 0.1, n)
    return _NOISE[0][:size], _NOISE[1][:size]


def _perturbed(args, whole: bool) -> list:
    """The inputs' data, floats scaled and shifted by :func:`_noise`; with ``whole``, a
    float input holding whole numbers only (labels, lengths, indices) is rolled by one
    position instead, so that it stays a valid index (other dtypes stay as they are)."""
    pert = []
    for a in args:
        d = a._data
        if d.dtype.kind == "f" and d.size:
            if whole and bool(np.all(np.floor(d) == d)):
                d = np.roll(d, 1).astype(d.dtype)
            else:
                scale, shift = _noise(d.size)
                d = (d * scale.reshape(d.shape) + shift.reshape(d.shape)).astype(d.dtype)
        else:
            d = d.copy()
        pert.append(d)
    return pert


def _replays(n, args, ops, node_out, training, npface) -> bool:
    """Whether the captured ops, run on perturbed inputs, give what the node gives. A
    node that refuses the perturbed inputs (a length or an index that is no longer a
    whole number) is tried again with its whole-number inputs rolled instead. (The
    perturbed values may leave an op's domain, sqrt's near 0: no floating-point warning
    is shown for them.)"""
    with np.errstate(all="ignore"):
        return _replays_quietly(n, args, ops, node_out, training, npface)


def _replays_quietly(n, args, ops, node_out, training, npface) -> bool:
    rng = _gen_state()
    for whole in (False, True):
        pert = _perturbed(args, whole)
        try:
            with _Scope(False, training):
                ref = _run_node(n, [wrap(d.copy()) for d in pert], npface)
        except Exception:      # noqa: BLE001 - the node refuses these inputs
            _set_gen_state(rng)
            continue
        break
    else:
        return False
    try:
        _set_gen_state(rng)    # the replay draws what the node drew (ops that draw)
        vals = list(pert)
        for op, ins, attrs, nout, _, _, _, _ in ops:
            a = [None if i < 0 else vals[i] for i in ins]
            if per_call(attrs):
                attrs = fresh(attrs)()
            r = op.fwd(*a, **attrs) if attrs else op.fwd(*a)
            if nout == 1:
                vals.append(r)
            else:
                vals.extend(r)
    except Exception:          # noqa: BLE001 - not replayable: keep the node as it is
        return False
    return len(ref) == len(node_out) and all(
        isinstance(vals[k], np.ndarray) and _same(vals[k], r._data)
        for k, r in zip(node_out, ref))


# ------------------------------------------------------------------ one node per call
class PlanOp:
    """The engine-facing op of one planned call (``node.op``); the call's state is the
    node's ``out`` (freed by the engine with the graph)."""

    __slots__ = ("plan", "name", "nout", "arrays", "rng", "aux")
    grads = ()
    jvps = None

    def __init__(self, plan: Plan, name: str, arrays, rng, aux) -> None:
        self.plan = plan
        self.name = name
        self.nout = len(plan.out_slots)
        self.arrays = arrays
        self.rng = rng
        self.aux = aux

    def __repr__(self) -> str:
        return f"<PlanOp {self.name}>"

    def backward(self, node, gouts, needs, create_graph):
        if create_graph:
            return self._replay_backward(node, gouts, needs)
        call = node.out
        free = not _graph.retaining()
        grads = self.plan.backward(call, list(gouts), [bool(x) for x in needs], free=free)
        if free:       # the graph is freed with this backward: nothing will replay the call,
            self.arrays = self.rng = self.aux = None   # and its inputs need not stay alive
        metas = self.plan.var_metas
        res = []
        for i, g in enumerate(grads):
            if g is not None and (g.shape != metas[i][0] or g.dtype != metas[i][1]):
                g = _core.fit_gradient(g, metas[i], f"op '{self.name}'", f"input {i}", False)
            res.append(g)
        return res

    def _replay_backward(self, node, gouts, needs):
        """``create_graph``: run the graph again imperatively (recorded) from the saved
        inputs, with the random and auxiliary states of the call, and differentiate it."""
        from ._evaluate import _eval
        plan = self.plan
        arrays = self.arrays
        leaves = []
        values = {}
        for i, (name, a) in enumerate(zip(plan.names, arrays)):
            v = a
            if needs[i]:
                v = _apply.as_array(a, self.name)
            values[name] = v
            leaves.append(v)
        current_rng = _rng_state()
        aux_now = {i: arrays[i]._data.copy() for i in plan.aux_pos}
        try:
            if self.rng is not None:
                _set_rng_state(self.rng)
            for i, d in (self.aux or {}).items():
                np.copyto(arrays[i]._data, d)
            with _Scope(True, plan.training):
                outs = _eval(plan.symbol._outputs, plan.nodes, values)[0]
        finally:
            _set_rng_state(current_rng)
            for i, d in aux_now.items():
                np.copyto(arrays[i]._data, d)
        heads, hgs = [], []
        for o, g in zip(outs, gouts):
            if g is not None and o._node is not None:
                heads.append(o)
                hgs.append(g)
        var_idx = [i for i in range(plan.nvars) if needs[i] and leaves[i]._node is not None]
        res: List[Any] = [None] * plan.nvars
        if not heads or not var_idx:
            return res
        grads = _graph.grad_impl(heads, [leaves[i] for i in var_idx], hgs, True, True,
                                 plan.training, False, True)
        for i, g in zip(var_idx, grads):
            res[i] = g
        return res


def run_planned(plan: Plan, arrays: Sequence[NDArray], name: str) -> List[NDArray]:
    """Run ``plan`` on ``arrays`` as one op of the caller's graph: recorded as one node
    when recording is on and some array is in a graph."""
    needs = [a._node is not None for a in arrays] if state.recording else None
    record = needs is not None and any(needs)
    faces = plan.out_faces
    if not record:
        outs, _ = plan.forward(arrays, False)
        return [wrap(o, None, 0, f) for o, f in zip(outs, faces)]
    rng = _rng_state(plan.has_node_steps) if plan.random else None
    aux = {i: arrays[i]._data.copy() for i in plan.aux_pos} if plan.aux_pos else None
    outs, call = plan.forward(arrays, True, needs)
    res = [wrap(o, None, 0, f) for o, f in zip(outs, faces)]
    saved = tuple(arrays[i] for i in plan.var_keep)
    vers = tuple(0 if a._vbox is None else a._vbox[0] for a in saved)
    op = PlanOp(plan, name, tuple(arrays), rng, aux)
    _apply.make_node(op, res, inputs=arrays, saved=saved, vers=vers, out=call,
                     outmetas=True)
    return res

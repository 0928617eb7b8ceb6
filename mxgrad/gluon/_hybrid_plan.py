"""What ``hybridize()`` runs: a hybridized block's calls through a planned graph.

At the first call with an input signature (input shapes and dtypes, training mode, how
lists of arrays nest among the inputs) the block's ``hybrid_forward`` is traced once
with ``F = mx.sym`` (as in MXNet: a ``print`` in it shows Symbols, once; the block's own
hooks are not called by the trace, they see each call's arrays) and the Symbol is
planned (:class:`mxgrad.symbol.plan.Plan`, its nodes in the order ``hybrid_forward``
made them, so random ops draw as imperatively); every later call with that signature
runs the plan. Lists and tuples of arrays among the inputs (a cell's states) are
flattened and regrouped, as MXNet does; ``None`` is an omitted input. A block that
cannot be planned runs imperatively, as before ``hybridize()``: inputs that are not
arrays, forward-mode tangents, parameters not initialized yet
(the first call of a deferred initialization), a block whose calls pass values to each other outside
their inputs (a class attribute ``_state_between_calls`` says what: ZoneoutCell's
previous output), or a graph mxgrad's Symbols cannot express (for these two a warning
names the reason, once per block). ``hybridize(static_alloc=True)`` plans each
signature's forward memory as well (:mod:`mxgrad.symbol._plan_memory`: ops in place and
into buffers reused across calls, the same numbers).
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from .._engine.scope import state
from .. import autograd
from ..base import ArgumentTypeError, MXNetError
from .._engine.ndarray import NDArray
from .._engine.ndarray import FACES
from ..symbol.symbol import Symbol, example_var
from ..util import is_np_array
from ..symbol._registry import UnknownOpError
from ..symbol.plan import Plan, run_planned
from .._warn import warn as _warn

__all__ = ["call_planned", "NOT_PLANNED", "clear_plans", "check_np_outputs",
           "traced_symbol"]

NOT_PLANNED = object()     # the call is to run imperatively
_FACES = (NDArray, FACES["np"])   # the array faces a plan takes (mx.nd's, mx.np's)
_MAX_PLANS = 16            # signatures kept per block (oldest dropped first)
# plans made per block before new signatures run imperatively: a block fed ever new shapes
# (sequences of every length) would spend its time planning (a plan costs a few forward
# passes); the plans it has keep serving their signatures
_MAX_BUILDS = 64


class _Entry:
    """One planned signature of a block."""

    __slots__ = ("plan", "params", "structure", "metas", "traced")

    def __init__(self, plan, params, structure, metas, traced=None) -> None:
        self.traced = traced          # the Symbol hybrid_forward made (None: a SymbolBlock's)
        self.plan = plan
        self.params = params          # the Parameters after the inputs, in plan order
        self.structure = structure    # how the flat outputs nest (see _flatten)
        self.metas = metas            # the parameters' (shape, dtype) when planned


def traced_symbol(block, specs) -> Optional[Symbol]:
    """The Symbol ``hybrid_forward`` made for a planned signature whose inputs have the
    (shape, dtype) ``specs`` (what ``export`` writes: MXNet exports the graph cached at
    the first call, without calling ``hybrid_forward`` again), or None."""
    for key, entry in (block.__dict__.get("_plans") or {}).items():
        fmt = key[2]
        if entry is NOT_PLANNED or entry.traced is None or (
                fmt is not None and any(f != -1 for f in fmt)):   # (only flat arrays)
            continue
        if len(key[0]) == len(specs) and all(
                s is not None and tuple(k[0]) == tuple(s[0]) and k[1] == s[1]
                for k, s in zip(key[0], specs)):
            return entry.traced
    return None


def clear_plans(block) -> None:
    """Forget ``block``'s plans (``hybridize()`` again, a new structure)."""
    block.__dict__.pop("_plans", None)
    block.__dict__.pop("_plan_builds", None)


def call_planned(block, args: tuple) -> Any:
    """Run ``block`` (hybridized) on ``args`` through its plan for their signature, or
    return :data:`NOT_PLANNED`."""
    fmt = None
    for a in args:
        if type(a) is not NDArray or a._tan is not None:   # (mx.np arrays too: flattened)
            flat: List[NDArray] = []
            fmt = _flatten_args(args, flat)   # lists of arrays (a cell's states), as MXNet
            if fmt is None:
                return NOT_PLANNED
            args = tuple(flat)
            break
    training = state.training
    key = (tuple((a._data.shape, a._data.dtype, type(a)) for a in args), training, fmt)
    plans = block.__dict__.get("_plans")
    if plans is None:
        plans = block.__dict__["_plans"] = {}
    entry = plans.get(key)
    if entry is None:
        builds = block.__dict__.get("_plan_builds", 0)
        if builds >= _MAX_BUILDS:
            if builds == _MAX_BUILDS:
                block.__dict__["_plan_builds"] = builds + 1
                _warn(f"{block.name}: hybridize() has planned {builds} input signatures of "
                      f"this block; new ones run imperatively (same results). Pad inputs to "
                      f"a few shapes (bucketing) to keep the speed-up")
            return NOT_PLANNED
        block.__dict__["_plan_builds"] = builds + 1
        entry = _make_entry(block, args, training, fmt)
        if entry is None or entry is NOT_PLANNED:
            if entry is not None:
                plans[key] = entry
            return NOT_PLANNED
        if len(plans) >= _MAX_PLANS:
            plans.pop(next(iter(plans)))
        plans[key] = entry
    elif entry is NOT_PLANNED:
        reason = block.__dict__.pop("_plan_reason", None)
        if reason is not None:    # said at the second call: the first one ran imperatively
            _warn(f"{block.name}: hybridize() runs this block imperatively (mxgrad could "
                  f"not plan its graph: {reason}); results are the same, without the "
                  f"speed-up")
        return NOT_PLANNED
    arrays = list(args)
    for p, m in zip(entry.params, entry.metas):
        d = p.data()
        if type(d) is not m[2] or d._data.shape != m[0] or d._data.dtype != m[1]:
            plans.pop(key, None)  # parameters re-initialized, cast or of another face: plan anew
            if type(d) not in _FACES:
                return NOT_PLANNED
            return call_planned(block, args if fmt is None else _regroup(args, fmt))
        arrays.append(d)
    outs = run_planned(entry.plan, arrays, block.name)
    return _unflatten(entry.structure, outs)


def _make_entry(block, args, training, fmt) -> Any:
    """Trace and plan ``block`` for ``args`` (flat; grouped as ``fmt`` says, None: as
    they are): an _Entry, NOT_PLANNED for good (this signature cannot be planned), or
    None (not now: parameters still uninitialized)."""
    params = block.collect_params()
    for p in params.values():
        if p._var is None:
            return None
    shared = getattr(block, "_state_between_calls", None)
    if shared:       # each call depends on Python-held values of the previous one
        _warn_once(block, _Unplannable(f"{type(block).__name__}: {shared}"))
        return NOT_PLANNED
    given = block._plan_symbol()
    if given is not None:          # a SymbolBlock: its graph, not a trace
        out, names = given
        names = list(names)
        if len(names) != len(args):
            return NOT_PLANNED
    else:
        names = ["data"] if len(args) == 1 else [f"data{i}" for i in range(len(args))]
    try:
        if given is None:
            inputs = [example_var(n, a) for n, a in zip(names, args)]
            grouped = inputs if fmt is None else _regroup(inputs, fmt)
            # hybrid_forward with F = mx.sym, as MXNet builds its graph: not __call__,
            # whose hooks see the arrays of each call, not Symbols; in the mode of the
            # signature, so a Python branch on autograd.is_training() takes its side
            with autograd.pause(train_mode=training):
                out = block._symbolic_forward(*grouped)
            if is_np_array():
                check_np_outputs(block, out)
        flat: List[Symbol] = []
        structure = _flatten(out, flat)
        sym = flat[0] if len(flat) == 1 else _group(flat)
        by_name = {p.name: p for p in params.values()}
        order = list(names)
        plist = []
        for n in sym.list_inputs():
            if n in names:
                continue
            p = by_name.get(n)
            if p is None:
                raise _Unplannable(f"the graph reads a variable '{n}' that is neither an "
                                   f"input nor a parameter of the block")
            order.append(n)
            plist.append(p)
        values = list(args) + [p.data() for p in plist]
        if any(type(v) not in _FACES for v in values):
            return NOT_PLANNED
        plan = Plan.build(sym, order, values, training, traced=given is None,
                          static_alloc=bool(dict(block._flags).get("static_alloc")))
        if given is None:
            # the trace's example values (every node's, from this call's inputs) are not
            # needed any more: the plan keeps the graph, not a forward pass's activations
            for n in sym._nodes():
                n.shadow = None
    except (_Unplannable, UnknownOpError, AttributeError, TypeError, NotImplementedError) as err:
        if isinstance(err, MXNetError) and not isinstance(err, (_Unplannable, UnknownOpError)):
            raise
        _warn_once(block, err)
        return NOT_PLANNED
    metas = tuple((v._data.shape, v._data.dtype, type(v)) for v in values[len(args):])
    return _Entry(plan, plist, structure, metas, sym if given is None else None)


def check_np_outputs(block, out) -> None:
    """In NumPy mode a block's outputs are all ``mx.np`` arrays (or NumPy-interface
    Symbols), as MXNet requires; a legacy array among them is a TypeError naming the
    block."""
    stack = [out]
    while stack:
        o = stack.pop()
        if isinstance(o, (list, tuple)):
            stack.extend(o)
        elif (isinstance(o, NDArray) and type(o) is NDArray) or (
                isinstance(o, Symbol) and not o._npface):
            raise ArgumentTypeError(
                f"{block.name}: in NumPy mode a block's outputs must be mx.np.ndarray (or "
                f"mx.sym.np._Symbol while hybridized); got {type(o).__name__}. Convert "
                f"with as_np_ndarray()")


class _Unplannable(MXNetError):
    pass


def _warn_once(block, err) -> None:
    if block.__dict__.get("_plan_warned"):
        return
    block.__dict__["_plan_warned"] = True
    block.__dict__["_plan_reason"] = f"{type(err).__name__}: {err}"


def _flatten_args(args, flat: list) -> Any:
    """Append the arrays of ``args`` (lists and tuples of arrays, nested) to ``flat``;
    return their nesting (a tuple: -1 an array, None an omitted input, ``(0 or 1,
    nesting)`` a list or a tuple), or None when something else is among them."""
    fmt: List[Any] = []
    for a in args:
        if type(a) in _FACES and a._tan is None:
            flat.append(a)
            fmt.append(-1)
        elif a is None:           # an omitted input (CTCLoss without pred_lengths)
            fmt.append(None)
        elif isinstance(a, (list, tuple)):
            sub = _flatten_args(a, flat)
            if sub is None:
                return None
            fmt.append((0 if isinstance(a, list) else 1, sub))
        else:
            return None
    return tuple(fmt)


def _regroup(flat, fmt) -> tuple:
    """The arguments ``_flatten_args`` flattened into ``flat``, grouped again."""
    it = iter(flat)

    def build(f):
        res = []
        for e in f:
            if e is None:
                res.append(None)
            elif e == -1:
                res.append(next(it))
            else:
                sub = build(e[1])
                res.append(sub if e[0] == 0 else tuple(sub))
        return res
    return tuple(build(fmt))


def _group(flat):
    from ..symbol import Group
    return Group(flat)


def _flatten(out, flat: list) -> Any:
    """Append the Symbols of ``out`` to ``flat``; return the nesting: an int (a Symbol
    with that many outputs at this position) or a list/tuple of nestings."""
    if isinstance(out, Symbol):
        flat.append(out)
        n = len(out._outputs)
        return n if n > 1 else -1
    if isinstance(out, (list, tuple)):
        return type(out)(_flatten(o, flat) for o in out)
    raise _Unplannable(f"hybrid_forward returned {type(out).__name__}, not Symbols")


def _unflatten(structure, outs: List[NDArray]) -> Any:
    it = iter(outs)
    return _build(structure, it)


def _build(structure, it):
    if isinstance(structure, int):
        if structure == -1:
            return next(it)
        return [next(it) for _ in range(structure)]
    return type(structure)(_build(s, it) for s in structure)

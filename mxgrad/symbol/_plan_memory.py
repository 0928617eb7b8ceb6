"""Memory planning of a planned graph's forward under ``hybridize(static_alloc=True)``.

An op step whose op takes ``out=`` (``Op.takes_out``, checked on the planning call's
values: the step's ``outok``) can write its one output into a buffer the plan chooses:

* **in place** into the buffer of one of its inputs when that value dies at this step:
  no later step reads it or any view of it (a step that does not take ``out=`` may
  return a view of any of its inputs, so its outputs count as views of all of them,
  unless they were separate from its inputs at planning (:func:`separate`: new arrays
  or views of new arrays): then the step is *guarded*, an output that is not separate at
  a later call is copied there, so it never shares an input's memory), it
  is not kept for backward, not an output of the graph, not held by a node step or by a
  per-call attribute, and has the output's shape and dtype. Chains of elementwise ops
  (Dense + activation, ``x * a + b``) so run in one buffer;
* into a **static buffer**, allocated once per plan and reused at every call, when no
  value sharing that buffer ever leaves the forward (the conditions above for all of
  them, for the whole call): intermediates only the forward reads (in a forward that
  is not recorded, all but the outputs: it keeps nothing for backward, so it has a
  memory plan of its own). Values that leave
  the forward (kept for backward, outputs) are allocated anew at every call, so a
  second forward before the first one's backward, or an output the caller still holds,
  is never overwritten. Static buffers of the same shape and dtype whose lives do not
  overlap are one buffer;
* otherwise the op allocates its output as it always does.

Outputs smaller than :data:`MIN_OUT_BYTES` are always allocated: for them, passing
``out=`` costs NumPy more than allocating (a 64-float multiply: 1.05x with ``out=``;
256 floats: 0.92x; 64K floats: 0.63x).

The values are bit-identical to those of the plan without ``static_alloc``: an op taking
``out=`` computes the same numbers into a given buffer (see ``Op.takes_out``).

A call takes a set of static buffers from the plan's pool and puts it back when its
forward has finished (a call that raises drops its set); calls on other threads, or a
call made while another one of the same plan runs, take another set.

Examples
--------
>>> import mxgrad as mx
>>> from mxgrad.symbol.plan import Plan
>>> x = mx.sym.var('x')
>>> y = mx.sym.sum(mx.sym.relu(x * 2 + 1) * 3)
>>> plan = Plan.build(y, ['x'], [mx.nd.ones((256,))], training=False, static_alloc=True)
>>> [s[1].name for s in plan.steps]
['_mul_scalar', '_plus_scalar', 'relu', '_mul_scalar', 'sum']
>>> mem = plan_memory(plan)     # (relu's output is kept for backward: * 3 needs a buffer)
>>> [mem.how[k] for k in range(4)]
[('new', None), ('inplace', 1), ('inplace', 2), ('static', 0)]
>>> mem.metas
[((256,), dtype('float32'))]
"""
from __future__ import annotations

from typing import Dict, List, Optional, Set, Tuple

import numpy as np

from ._plan_codegen import per_call

__all__ = ["Memory", "plan_memory", "separate"]

_OPSTEP = 0
MIN_OUT_BYTES = 1024      # smaller outputs are allocated by the op (see the docstring)


def separate(v, ins) -> bool:
    """Whether array ``v`` provably shares no memory with the arrays ``ins`` (None
    skipped): it owns its data or is a view of an array owning its data (NumPy points a
    view's ``base`` at the owner) that is no input and no input's owner.

    >>> a = np.ones(4)
    >>> separate(a * 2, [a]), separate(a[1:], [a]), separate(a, [a])
    (True, False, False)
    """
    b = v.base
    if b is None:
        root = v
    elif type(b) is np.ndarray and b.base is None:
        root = b
    else:
        return False
    for i in ins:
        if i is None:
            continue
        ib = i.base
        if ib is None:
            if i is root:
                return False
        elif type(ib) is not np.ndarray or ib.base is not None or ib is root:
            return False
    return True


class Memory:
    """Where each op step writes its output: ``how[k]`` is ``("new", None)`` (the op
    allocates), ``("static", b)`` (static buffer ``b`` of ``metas[b]``'s shape and
    dtype) or ``("inplace", s)`` (the buffer of slot ``s``, an input of the step); steps
    not in ``how`` run as they always do, those in ``guard`` copy an output that is a
    view or one of their inputs."""

    __slots__ = ("how", "metas", "guard")
    separate = staticmethod(separate)     # the guards' test (for the generated code)

    def __init__(self, how: Dict[int, Tuple[str, Optional[int]]], metas: List[tuple],
                 guard: Set[int]) -> None:
        self.how = how
        self.metas = metas
        self.guard = guard


def plan_memory(plan, keep: bool = True) -> Memory:
    """The memory plan of ``plan``'s forward (see the module docstring); ``keep``: for a
    forward that keeps what backward reads (recording), else for one that keeps nothing
    (values saved for backward and per-call attributes do not leave it then)."""
    steps = plan.steps
    nv = plan.nvars
    last: Dict[int, int] = {}
    leaves: Set[int] = set(plan.out_slots)    # values leaving the forward
    if keep:
        leaves.update(plan.keep)
    for k, st in enumerate(steps):
        for s in st[2]:
            if s >= 0:
                last[s] = k
        if st[0] != _OPSTEP or (keep and per_call(st[4])):
            leaves.update(s for s in st[2] if s >= 0)
    alias: Dict[int, frozenset] = {}     # slot -> the buffers its value may be a view of
    exact: Dict[int, int] = {}           # slot -> the buffer its value is
    end: Dict[int, int] = {}             # buffer -> the last step reading it (or a view)
    escapes: Set[int] = set()            # buffers some value of which leaves the forward
    meta: Dict[int, tuple] = {}
    born: Dict[int, int] = {}
    how: Dict[int, Tuple[str, Optional[int]]] = {}
    guard: Set[int] = set()
    empty: frozenset = frozenset()

    def note(s: int, bufs, k: int) -> None:
        alias[s] = bufs
        for b in bufs:
            end[b] = max(end[b], last.get(s, k))
            if s in leaves:
                escapes.add(b)

    for k, st in enumerate(steps):
        ins, outs = st[2], st[3]
        if st[0] == _OPSTEP and len(st) > 7 and st[7]:
            o = outs[0]
            if _nbytes(st[6][0]) < MIN_OUT_BYTES:
                alias[o] = empty          # a new array of its own, left to the op
                continue
            m = st[6][0]
            buf = None
            for j, s in enumerate(ins):
                b = exact.get(s)
                if (b is None or end[b] != k or b in escapes or meta[b] != m
                        or any(b in alias.get(t, empty) for t in ins if t != s)):
                    continue
                buf = b
                how[k] = ("inplace", s)
                break
            if buf is None:
                buf = len(meta)
                meta[buf], end[buf], born[buf] = m, k, k
                how[k] = ("new", buf)
            exact[o] = buf
            note(o, frozenset((buf,)), k)
            continue
        bufs = frozenset().union(*(alias.get(s, empty) for s in ins if s >= nv))
        if bufs and st[0] == _OPSTEP and len(st) > 8 and st[8]:
            guard.add(k)          # new arrays: copied at a call where they are not
            bufs = empty
        for o in outs:
            note(o, bufs, k)
    # static buffers: the buffers no value of which leaves the forward, shared by those of
    # one shape and dtype whose lives do not overlap
    static: Dict[int, int] = {}
    metas: List[tuple] = []
    free: Dict[tuple, List[Tuple[int, int]]] = {}     # meta -> [(end, static index)]
    for b in sorted(born, key=born.__getitem__):
        if b in escapes:
            continue
        pool = free.setdefault(meta[b], [])
        got = next((i for i, (e, _) in enumerate(pool) if e < born[b]), None)
        if got is None:
            static[b] = len(metas)
            metas.append(meta[b])
        else:
            static[b] = pool.pop(got)[1]
        pool.append((end[b], static[b]))
    for k, (kind, where) in list(how.items()):
        if kind == "new":
            how[k] = ("static", static[where]) if where in static else ("new", None)
    return Memory(how, metas, guard)


def _nbytes(meta) -> int:
    n = np.dtype(meta[1]).itemsize
    for d in meta[0]:
        n *= d
    return n

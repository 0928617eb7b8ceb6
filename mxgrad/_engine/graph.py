"""The recorded graph and the backward walk.

Ownership runs one way: an output NDArray holds its :class:`Node`, a node holds its
parents' nodes and exactly the values its rule saved; a variable's :class:`Leaf` holds
the gradient buffer. No reference cycles, so dropping the outputs frees the graph at
once. The one piece of global state is the table of ``grad_req='null'`` buffers (by
weak reference: an entry goes with its array).

This module is the engine: it imports nothing above the NDArray class and the scopes.
A node's op is anything with ``name``, ``nout`` and ``backward(node, gouts, needs,
create_graph)`` returning one gradient per input already fitted to that input's shape
and dtype (built-in ops: :class:`mxgrad.ops._core.Op`; custom Functions).

Backward is iterative: nodes are visited newest first (a node is always newer than its
inputs, so this is a topological order) from a heap, each node's saved values are
released as soon as it has run (unless ``retain_graph``), and variable gradients are
written into their buffers only once the whole walk has succeeded.
"""
from __future__ import annotations

import heapq
import itertools
import threading
import weakref
from typing import Any, List, Optional, Sequence, Union

import numpy as np

from ..base import GraphError, InPlaceError, ShapeError, StateError, DTypeError
from .ndarray import NDArray, as_face, wrap
from .scope import _Scope, state
from .reuse import GETREFCOUNT_OWN as _ARG, refcount as _getrefcount
from . import forward_ad as _fad
from .._typing import GradReq

_new = object.__new__

__all__ = ["Node", "Leaf", "mark_variables", "backward", "grad", "get_symbol", "set_debug",
           "is_debug", "NonFiniteError"]

_seq = itertools.count()
_PKG_DIR = __file__.rsplit("_engine", 1)[0]  # frames inside mxgrad are not the user's
_debug = [False]  # debug mode: creation stacks on nodes, NaN/Inf checks (see set_debug)
_FREED = ("freed",)
GRAD_REQS = ("write", "add", "null")
# buffers of grad_req='null' variables, by id (NDArray's == is elementwise, so no
# WeakKeyDictionary); entries vanish with their array
_null_grads: dict = {}


class Leaf:
    """The graph node of a variable: its gradient buffer and how to fill it."""

    __slots__ = ("seq", "grad", "req", "fresh", "__weakref__")
    saved = None   # a leaf is never freed (Node.saved is _FREED after a backward)

    def __init__(self, grad_buf: NDArray, req: GradReq) -> None:
        self.seq = next(_seq)
        self.grad = grad_buf
        self.req = req
        self.fresh = False

    @property
    def name(self) -> str:
        return "Variable"

    @property
    def next_functions(self) -> tuple:
        return ()

    def __repr__(self) -> str:
        return f"<Leaf req={self.req!r} shape={self.grad.shape}>"


class Node:
    """One recorded op application (made by :func:`new_node`).

    ``parents[i]`` is ``(node, output_index)`` of input ``i`` or ``None`` when that
    input needs no gradient; ``saved``/``vers`` hold the inputs the rule declared it
    needs and their versions at record time; ``out`` holds the saved output data.
    """

    __slots__ = ("op", "seq", "parents", "saved", "vers", "metas", "out", "outvers",
                 "attrs", "hooks", "metadata", "outmetas", "outtans", "__weakref__")
    op: Any
    seq: int
    parents: tuple
    saved: Any               # a tuple of inputs (or None), or _FREED after backward
    vers: Optional[tuple]
    metas: tuple
    out: Any
    outvers: Optional[tuple]
    attrs: Optional[dict]
    hooks: Any
    metadata: Optional[dict]
    outmetas: Optional[tuple]
    outtans: Optional[list]

    @property
    def name(self) -> str:
        """The op's name (e.g. ``'exp'`` or a custom Function's class name)."""
        return self.op.name

    @property
    def next_functions(self) -> tuple:
        """``((parent_node, output_index) | (None, 0), ...)`` one per input, as in PyTorch."""
        return tuple(p if p is not None else (None, 0) for p in self.parents)

    @property
    def freed(self) -> bool:
        return self.saved is _FREED

    def __repr__(self) -> str:
        return f"<Node {self.op.name} #{self.seq}>"


def new_node(op, parents, saved, vers, metas, out, outvers, attrs) -> Node:
    """Make a :class:`Node` (the one constructor; a plain function because it runs once
    per recorded op and costs half of what ``Node.__init__`` through ``Node(...)`` does)."""
    n = _new(Node)
    n.op = op
    n.seq = next(_seq)
    n.parents = parents
    n.saved = saved
    n.vers = vers
    n.metas = metas
    n.out = out
    n.outvers = outvers
    n.attrs = attrs
    n.hooks = None
    n.outmetas = None
    n.outtans = None
    if _debug[0]:
        import traceback
        frames = traceback.extract_stack(limit=30)
        n.metadata = {"stack": [f for f in frames if not f.filename.startswith(_PKG_DIR)][-10:]}
    else:
        n.metadata = None
    return n


# -------------------------------------------------------------------- debug mode
class NonFiniteError(GraphError, FloatingPointError):
    """Debug mode found a NaN or an infinity."""


def set_debug(flag: bool) -> bool:
    """Turn debug mode on or off (process-wide); return the previous value.

    In debug mode every recorded node keeps the stack where it was created
    (``node.metadata['stack']``), and recorded forward outputs and every gradient are
    checked for NaN and infinity: the first one found raises :class:`NonFiniteError`
    naming the op and where it was created. It slows recording down; off by default.

    Examples
    --------
    >>> import mxgrad as mx
    >>> prev = mx.autograd.set_debug(True)
    >>> x = mx.nd.array([float("inf")]); x.attach_grad()
    >>> with mx.autograd.record():
    ...     try:
    ...         y = x * 2
    ...     except mx.autograd.NonFiniteError as e:
    ...         print("caught:", str(e).split(" (")[0])
    caught: op '_mul_scalar' produced a non-finite value in forward
    >>> _ = mx.autograd.set_debug(prev)
    """
    prev = _debug[0]
    _debug[0] = bool(flag)
    return prev


def is_debug() -> bool:
    """Whether debug mode is on."""
    return _debug[0]


def check_finite(node, arrays, where: str) -> None:
    """Raise NonFiniteError if any of ``arrays`` (NumPy arrays or NDArrays) has NaN/Inf."""
    for a in arrays:
        if a is None:
            continue
        d = a._data if isinstance(a, NDArray) else a
        if d.dtype.kind in "fc" and not np.isfinite(d).all():
            where_made = ""
            stack = (node.metadata or {}).get("stack")
            if stack:
                fr = stack[-1]
                where_made = f" (op created at {fr.filename}:{fr.lineno}, in {fr.name})"
            raise NonFiniteError(f"op '{node.op.name}' produced a non-finite value in {where}"
                                 f"{where_made}; check its inputs (log of 0, division by 0, "
                                 f"overflow)")


# --------------------------------------------------------------------- variables
def mark_variable(var: NDArray, grad_buf: NDArray, req: GradReq) -> None:
    if req not in GRAD_REQS:
        raise StateError(f"unknown grad_req {req!r}; use one of 'write', 'add', 'null'")
    if not isinstance(grad_buf, NDArray):
        raise DTypeError(f"the gradient buffer must be an NDArray, got {type(grad_buf).__name__}")
    if grad_buf.shape != var.shape:
        raise ShapeError(f"gradient buffer of shape {grad_buf.shape} does not match its "
                         f"variable of shape {var.shape}")
    key = id(var)
    if req == "null":
        var._node = None
        _null_grads[key] = (
            weakref.ref(var, lambda _r, _k=key: _null_grads.pop(_k, None)),  # type: ignore[misc]
            grad_buf)
    else:
        _null_grads.pop(key, None)
        var._node = Leaf(grad_buf, req)
    var._oidx = 0


def null_grad(var: NDArray) -> Optional[NDArray]:
    """The buffer given to a variable marked with grad_req 'null' (or None)."""
    entry = _null_grads.get(id(var))
    if entry is None or entry[0]() is not var:
        return None
    return entry[1]


def mark_variables(variables: Union[NDArray, Sequence[NDArray]],
                   gradients: Union[NDArray, Sequence[NDArray]],
                   grad_reqs: Union[GradReq, Sequence[GradReq]] = "write") -> None:
    """Mark arrays as variables whose gradients go into the given buffers.

    Parameters
    ----------
    variables : NDArray or list of NDArray
    gradients : NDArray or list of NDArray
        One buffer per variable, of its shape; it is written in place.
    grad_reqs : str or list of str
        'write', 'add' or 'null', one for all or one per variable.

    Examples
    --------
    >>> import mxgrad as mx
    >>> x = mx.nd.array([1., 2.]); g = mx.nd.zeros((2,))
    >>> mx.autograd.mark_variables(x, g)
    >>> with mx.autograd.record():
    ...     y = x * x + 1
    >>> mx.autograd.backward(y); g
    <BLANKLINE>
    [2. 4.]
    <NDArray 2 @cpu(0)>
    """
    if isinstance(variables, NDArray):
        variables = [variables]
    if isinstance(gradients, NDArray):
        gradients = [gradients]
    variables, gradients = list(variables), list(gradients)
    if isinstance(grad_reqs, str):
        grad_reqs = [grad_reqs] * len(variables)
    grad_reqs = list(grad_reqs)
    if not (len(variables) == len(gradients) == len(grad_reqs)):
        raise StateError(f"mark_variables needs one gradient buffer and one grad_req per "
                         f"variable: got {len(variables)} variables, {len(gradients)} "
                         f"gradients and {len(grad_reqs)} grad_reqs")
    for v in variables:
        if not isinstance(v, NDArray):
            raise DTypeError(f"mark_variables takes NDArrays, got {type(v).__name__}")
    for req in grad_reqs:
        if req not in GRAD_REQS:
            raise StateError(f"unknown grad_req {req!r}; use one of 'write', 'add', 'null'")
    for v, g, r in zip(variables, gradients, grad_reqs):
        mark_variable(v, g, r)


# ---------------------------------------------------------------------- backward
def _as_list(x, what):
    if x is None:
        return None
    if isinstance(x, NDArray):
        return [x]
    if isinstance(x, (list, tuple)):
        return list(x)
    raise DTypeError(f"{what} must be an NDArray or a list of NDArrays, got {type(x).__name__}")


def _heads(heads, where):
    """The heads as a non-empty list (``None`` or ``[]`` is an error naming ``where``)."""
    out = _as_list(heads, f"{where}: heads")
    if not out:
        raise StateError(f"{where}: heads must be an NDArray or a non-empty list of NDArrays, "
                         f"got {heads!r}")
    return out


def _seed(heads, head_grads, create_graph):
    """Return [(node, oidx, grad)] for the heads, checking shapes."""
    if head_grads is None:
        head_grads = [None] * len(heads)
    if len(head_grads) != len(heads):
        raise StateError(f"got {len(heads)} heads but {len(head_grads)} head gradients; "
                         f"give one per head (None for ones)")
    seeds = []
    for i, (h, hg) in enumerate(zip(heads, head_grads)):
        if not isinstance(h, NDArray):
            raise DTypeError(f"head {i} is a {type(h).__name__}, not an NDArray")
        if h._node is None:
            raise GraphError(
                f"cannot differentiate head {i} (shape {h.shape}): it was not recorded or no "
                f"variable upstream needs a gradient. Call attach_grad() on the inputs "
                f"(with grad_req other than 'null') and compute the head inside "
                f"`with autograd.record():`")
        if hg is None:
            g = np.ones(h._data.shape, h._data.dtype)
            if create_graph:
                g = wrap(g)
        else:
            if not isinstance(hg, NDArray):
                if isinstance(hg, np.ndarray):
                    hg = wrap(hg)
                else:
                    raise DTypeError(f"head gradient {i} must be an NDArray, got "
                                     f"{type(hg).__name__}")
            if hg.shape != h.shape:
                raise ShapeError(f"head gradient {i} has shape {hg.shape} but its head has "
                                 f"shape {h.shape}; pass a gradient of the head's shape")
            if hg._data.dtype != h._data.dtype:
                hg = hg.astype(h._data.dtype)
            g = hg if create_graph else hg._data
        seeds.append((h._node, h._oidx, g))
    return seeds


def _discover(seeds):
    """Visit the reachable graph: check it is intact and its saved values unchanged.

    Returns (the reached leaves, every reached node and leaf). Raises before anything is
    modified."""
    seen = set()
    stack = []
    for s in seeds:
        if s[0] not in seen:
            seen.add(s[0])
            stack.append(s[0])
    leaves = []
    add, push, pop = seen.add, stack.append, stack.pop
    freed = _FREED
    while stack:
        n = pop()
        if type(n) is Leaf:
            leaves.append(n)
            continue
        saved = n.saved
        if saved:
            if saved is freed:
                raise GraphError(
                    f"the graph through op '{n.op.name}' was freed by an earlier backward. "
                    f"To differentiate the same graph twice, pass retain_graph=True to the "
                    f"first backward (or record the forward pass again)")
            for a, v in zip(saved, n.vers):
                if a is not None:
                    box = a._vbox    # None: never written, version 0
                    if (0 if box is None else box[0]) != v:
                        _stale_input(n, a, v)
        if n.outvers:
            for box, v in n.outvers:
                if box[0] != v:
                    raise InPlaceError(
                        f"the output of op '{n.op.name}' was modified in place after it was "
                        f"saved for backward; its gradient would be wrong. Write to a copy "
                        f"instead or recompute the forward pass")
        for p in n.parents:
            if p is not None and p[0] not in seen:
                add(p[0])
                push(p[0])
    return leaves, seen


def _stale_input(n, a, v):
    i = next(k for k, b in enumerate(n.saved) if b is a)
    raise InPlaceError(
        f"input {i} of op '{n.op.name}' (shape {a.shape}) was modified in place after the op "
        f"saved it for backward (version {v} -> {a._ver[0]}); its gradient would be wrong. "
        f"Write to a copy instead (x = x + 1 rather than x += 1) or recompute the forward "
        f"pass")


def _needed(seen, targets):
    """Nodes from which some target is reachable (for autograd.grad pruning)."""
    need = set(targets)
    for n in sorted(seen, key=lambda n: n.seq):
        if n in need or type(n) is Leaf:
            continue
        for p in n.parents:
            if p is not None and p[0] in need:
                need.add(n)
                break
    return need


class _WalkState(threading.local):
    retain = False      # the retain_graph of the backward walk running in this thread


_walking = _WalkState()


def retaining() -> bool:
    """Whether the backward walk running in this thread keeps the graph (``retain_graph``):
    an op's ``backward`` may release what it saved only when it does not."""
    return _walking.retain


def _walk(seeds, retain_graph, create_graph, need=None, capture=None):
    """:func:`_walk_graph` with ``retain_graph`` readable by ops (:func:`retaining`)."""
    prev = _walking.retain
    _walking.retain = retain_graph
    try:
        return _walk_graph(seeds, retain_graph, create_graph, need, capture)
    finally:
        _walking.retain = prev


def _walk_graph(seeds, retain_graph, create_graph, need=None, capture=None):
    """Run the backward walk; return ({leaf: gradient}, {captured node: gradients}).

    Each op's ``backward`` returns gradients of its inputs' shapes and dtypes."""
    acc, heap = {}, []
    push, pop = heapq.heappush, heapq.heappop
    for node, oidx, g in seeds:
        slot = acc.get(node)
        if slot is None:
            slot = acc[node] = [None] * (1 if type(node) is Leaf else node.op.nout)
            push(heap, (-node.seq, node))
        slot[oidx] = g if slot[oidx] is None else slot[oidx] + g
    leaf_grads = {}
    captured = {}
    owned = set()  # (node, output index) slots holding a sum we allocated: add in place
    freed = _FREED
    debug = _debug[0]
    acc_get, acc_pop = acc.get, acc.pop
    # `nxt`: the one pending node when there is only one (a chain of ops, the commonest
    # graph), kept out of the heap: it is the next node in any order. Invariant: `nxt`
    # is set only while the heap is empty.
    nxt = None
    while nxt is not None or heap:
        if nxt is not None:
            node, nxt = nxt, None
        else:
            node = pop(heap)[1]
        gouts = acc_pop(node)
        if capture is not None and node in capture:
            captured[node] = list(gouts)  # a second holder: rules must not reuse them
        if type(node) is Leaf:
            leaf_grads[node] = gouts[0]
            continue
        parents = node.parents
        if need is None:
            needs = parents  # a parent entry is truthy exactly when its input needs a grad
        else:
            needs = tuple(p is not None and p[0] in need for p in parents)
            if not any(needs):
                continue
        hooks = node.hooks
        if hooks is not None:
            gouts = hooks.run_pre(node, gouts)
        grads = node.op.backward(node, gouts, needs, create_graph)
        if hooks is not None:
            grads = hooks.run_post(node, grads, gouts)
        if debug:
            check_finite(node, grads, "backward (gradient of an input)")
        i = 0
        for g in grads:
            if g is not None and needs[i]:
                p = parents[i]
                pnode = p[0]
                slot = acc_get(pnode)
                if slot is None:
                    slot = acc[pnode] = [None] * (1 if type(pnode) is Leaf else pnode.op.nout)
                    if nxt is None and not heap:
                        nxt = pnode
                    else:
                        if nxt is not None:
                            push(heap, (-nxt.seq, nxt))
                            nxt = None
                        push(heap, (-pnode.seq, pnode))
                k = p[1]
                prev = slot[k]
                if prev is None:
                    slot[k] = g
                elif create_graph:
                    slot[k] = prev + g
                elif (pnode, k) in owned or (
                        _getrefcount(prev) <= 2 + _ARG and prev.base is None and prev.flags.writeable
                        and prev.dtype == g.dtype):
                    # nobody else holds this array (known: the slot, `prev`; a rule's
                    # fresh result, or a sum we made): accumulate in place instead of allocating another buffer
                    prev += g
                else:
                    slot[k] = prev + g
                    owned.add((pnode, k))
            i += 1
        grads = g = prev = None  # drop this frame's references: rules may reuse buffers
        if not retain_graph:
            node.saved = freed
            node.out = None
    return leaf_grads, captured


class _BackwardScope(_Scope):
    """The scope gradient rules run in: recording as ``create_graph`` says, training as
    ``train_mode`` says, and ``state.backward`` raised (mx.nd's one-dtype rule for its
    operators is MXNet's rule for user code, not for rules mixing a promoted mx.np
    operation's inputs)."""

    __slots__ = ()

    def __enter__(self) -> "_BackwardScope":
        super().__enter__()
        state.backward += 1
        return self

    def __exit__(self, *exc: object) -> Any:
        state.backward -= 1
        return super().__exit__(*exc)


def _backward_scope(create_graph, train_mode):
    return _BackwardScope(bool(create_graph), bool(train_mode))


def backward(heads: Union[NDArray, Sequence[NDArray]],
             head_grads: Union[NDArray, Sequence[Optional[NDArray]], None] = None,
             retain_graph: Optional[bool] = None,
             train_mode: bool = True, create_graph: bool = False) -> None:
    """Compute the gradients of ``heads`` with respect to the marked variables.

    Parameters
    ----------
    heads : NDArray or list of NDArray
        Output arrays, recorded inside ``autograd.record()``.
    head_grads : NDArray or list of (NDArray or None), optional
        Gradient of each head, of the head's shape; ones where omitted.
    retain_graph : bool, optional
        Keep the graph so that it can be differentiated again. Defaults to
        ``create_graph`` (so False in MXNet's usual call), as in R torch's
        ``autograd_backward``.
    train_mode : bool, default True
        Training mode during the backward pass.
    create_graph : bool, default False
        Record the backward pass too: the gradients written into ``.grad`` can then be
        differentiated again.

    Examples
    --------
    >>> import mxgrad as mx
    >>> x = mx.nd.array([1., 2.]); x.attach_grad()
    >>> with mx.autograd.record():
    ...     y = 3 * x
    >>> mx.autograd.backward(y, mx.nd.array([1., 10.])); x.grad
    <BLANKLINE>
    [ 3. 30.]
    <NDArray 2 @cpu(0)>
    """
    heads = _heads(heads, "backward")
    head_grads = _as_list(head_grads, "head_grads")
    if retain_graph is None:
        retain_graph = create_graph
    if head_grads is not None and len(heads) == 1 and len(head_grads) != 1:
        raise StateError(f"one head but {len(head_grads)} head gradients")
    seeds = _seed(heads, head_grads, create_graph)
    leaves, _ = _discover(seeds)
    with _backward_scope(create_graph, train_mode):
        leaf_grads, _ = _walk(seeds, retain_graph, create_graph)
        _write_leaves(leaves, leaf_grads, create_graph)


# Writing gradients into the shared .grad buffers is one critical section: NumPy releases
# the GIL inside ``+=`` on large arrays, so two threads accumulating ('add') into one
# variable would otherwise lose additions.
_WRITE_LOCK = threading.Lock()


def _write_leaves(leaves, leaf_grads, create_graph):
    with _WRITE_LOCK:
        _write_leaves_locked(leaves, leaf_grads, create_graph)


def _write_leaves_locked(leaves, leaf_grads, create_graph):
    for leaf in leaves:
        buf = leaf.grad
        g = leaf_grads.get(leaf)
        if create_graph:
            if g is None:
                g = wrap(np.zeros_like(buf._data))
            if leaf.req == "add":
                g = buf.detach() + g if buf._node is None else buf + g
            np.copyto(buf._data, g._data, casting="unsafe")
            buf._node, buf._oidx = g._node, g._oidx
        elif leaf.req == "write":
            d = buf._data
            if g is None:
                d.fill(0)
            elif (_getrefcount(g) <= 2 + _ARG and _getrefcount(d) <= 2 + _ARG and d.base is None
                  and g.dtype == d.dtype
                  and g.shape == d.shape and g.flags.writeable and g.flags.c_contiguous
                  and (g.base is None or (g.base.base is None and _getrefcount(g.base) <= 1 + _ARG))):
                # nobody else can see either array (known: g's list slot and `g`; the
                # buffer's `_data` and `d`; g's base held by g alone) and the
                # buffer owns its memory (it is not a view of a fused buffer, such as the
                # Trainer's allreduce bucket): hand the fresh gradient to the buffer
                # instead of copying it (unobservable)
                buf._data = g
            else:
                np.copyto(d, g, casting="unsafe")
        elif g is not None:
            buf._data += g
        buf._write()
        leaf.fresh = True


class _GradLink:
    """The node op that keeps a gradient computed with ``create_graph=True`` a function of
    its variable, as in MXNet, whose backward ops take the forward's inputs: value ``g``,
    d/dg = identity, d/dx = 0. Differentiating ``g`` again so gives zeros where nothing
    else connects it to ``x`` (radians, dropout, x * constant) instead of "not recorded".
    The engine's own op: it needs no NumPy kernel, only a node."""

    __slots__ = ()
    name = "_grad_link"
    nout = 1
    save_in = ()
    save_out = False

    def backward(self, node, gouts, needs, create_graph):
        return (gouts[0], None)


_GRAD_LINK = _GradLink()


def _linked(g, v):
    """``g`` as a new array sharing its data, recorded as a function of ``g`` and ``v``."""
    if not state.recording:
        return g
    ng, nv = g._node, v._node
    if ng is None and nv is None:
        return g
    out = wrap(g._data, None, 0, type(g))
    dg, dv = g._data, v._data
    out._node = new_node(_GRAD_LINK,
                         (None if ng is None else (ng, g._oidx), None if nv is None else (nv, v._oidx)),
                         None, None,
                         (None if ng is None else (dg.shape, dg.dtype),
                          None if nv is None else (dv.shape, dv.dtype)),
                         None, None, None)
    if g._tan is not None:   # forward mode: the tangent passes unchanged (d/dg = identity)
        out._tan = g._tan
        _fad.note_tangent(out)
    return out


def grad(heads: Union[NDArray, Sequence[NDArray]], variables: Union[NDArray, Sequence[NDArray]],
         head_grads: Union[NDArray, Sequence[Optional[NDArray]], None] = None,
         retain_graph: Optional[bool] = None,
         create_graph: bool = False, train_mode: bool = True) -> List[NDArray]:
    """Return the gradients of ``heads`` with respect to ``variables``.

    ``.grad`` buffers are not touched. With ``create_graph=True`` the returned gradients
    are recorded and can be differentiated again.

    Parameters
    ----------
    heads : NDArray or list of NDArray
    variables : NDArray or list of NDArray
        Marked variables (or recorded intermediate arrays).
    head_grads : NDArray or list, optional
    retain_graph : bool, optional
        Defaults to ``create_graph``.
    create_graph : bool, default False
    train_mode : bool, default True

    Returns
    -------
    list of NDArray
        One gradient per variable, also when a single NDArray is passed.

    Examples
    --------
    >>> import mxgrad as mx
    >>> x = mx.nd.array([2.]); x.attach_grad()
    >>> with mx.autograd.record():
    ...     y = x ** 3
    ...     dy = mx.autograd.grad(y, x, create_graph=True)[0]
    >>> dy.backward(); x.grad.asscalar()  # d2y/dx2 = 6x
    12.0
    """
    return grad_impl(heads, variables, head_grads, retain_graph, create_graph, train_mode, True)


def grad_impl(heads, variables, head_grads, retain_graph, create_graph, train_mode, link,
              allow_unused=None):
    """:func:`grad`; ``link=False`` (PyTorch semantics, for autograd.functional) leaves a
    create_graph gradient unconnected to a variable it does not depend on.
    ``allow_unused`` (default: ``not link``) gives zeros for a variable the heads do not
    depend on instead of MXNet's error (numeric checkers use it)."""
    if allow_unused is None:
        allow_unused = not link
    heads = _heads(heads, "grad")
    variables = _as_list(variables, "grad: variables")
    if not variables:
        raise StateError(f"grad: variables must be an NDArray or a non-empty list of NDArrays "
                         f"(the arrays to differentiate with respect to), got {variables!r}")
    head_grads = _as_list(head_grads, "head_grads")
    if retain_graph is None:
        retain_graph = create_graph
    targets = []
    for i, v in enumerate(variables):
        if not isinstance(v, NDArray):
            raise DTypeError(f"variable {i} is a {type(v).__name__}, not an NDArray")
        if v._node is None:
            raise GraphError(f"variable {i} (shape {v.shape}) is not part of any graph: call "
                             f"attach_grad() on it (grad_req 'write' or 'add') before "
                             f"recording")
        targets.append((v._node, v._oidx))
    seeds = _seed(heads, head_grads, create_graph)
    _, seen = _discover(seeds)
    if not allow_unused:     # MXNet's API: a variable the heads do not depend on is an error
        for i, (node, _) in enumerate(targets):
            if node not in seen:
                raise GraphError(
                    f"grad: the heads do not depend on variable {i} (shape "
                    f"{variables[i].shape}): it was not used to compute them while "
                    f"recording. Pass only the variables the heads were computed from")
    tnodes = {t[0] for t in targets}
    need = _needed(seen, tnodes)
    out = []
    with _backward_scope(create_graph, train_mode):
        _, captured = _walk(seeds, retain_graph, create_graph, need, tnodes)
        for v, (node, oidx) in zip(variables, targets):
            gl = captured.get(node)
            g = None if gl is None else gl[oidx]
            if create_graph and link:   # recorded, kept a function of v (_GradLink)
                out.append(_linked(wrap(np.zeros_like(v._data)) if g is None else g, v))
            elif create_graph and g is not None:
                out.append(g)
            elif g is None:
                out.append(wrap(np.zeros_like(v._data)))
            else:
                out.append(wrap(g))
    # each gradient shows the face (NDArray or mx.np.ndarray) of its variable
    return [o if type(o) is type(v) else as_face(o, type(v)) for o, v in zip(out, variables)]


def get_symbol(x: NDArray) -> Any:
    """MXNet's export of a recorded graph as a Symbol: not available in mxgrad.

    mxgrad's recording keeps only what gradients need (not every operator's parameters),
    so a Symbol cannot be rebuilt from it. To get a Symbol of a model, call a
    ``HybridBlock`` on ``mx.sym.var('data')`` or use ``HybridBlock.export``; to inspect a
    recorded graph, walk ``x.grad_fn`` (``name``, ``next_functions``) as in PyTorch.

    Raises
    ------
    GraphError
        Always, with the alternatives above.
    """
    raise GraphError("autograd.get_symbol is not supported by mxgrad: the recording keeps "
                     "only what gradients need, not every operator's parameters. For a "
                     "Symbol of a model call the HybridBlock on mx.sym.var('data') or use "
                     "HybridBlock.export; to inspect the recorded graph walk x.grad_fn "
                     "(.name, .next_functions)")

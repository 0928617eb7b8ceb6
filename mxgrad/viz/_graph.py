"""What mx.viz knows about a recorded autograd graph, read in one place.

Every access to the engine's node objects (``NDArray._node`` and the attributes of
:class:`~mxgrad.autograd.graph.Node` and :class:`~mxgrad.autograd.graph.Leaf`) lives in
:func:`read_graph`; the rest of ``mx.viz`` works on the plain records it returns, so a
change to the engine's internals needs a change here only.
"""
from __future__ import annotations

from typing import Dict, Iterable, List, Optional, Sequence, Set, Tuple

import numpy as np

from ..base import GraphError
from .._engine.ndarray import NDArray

__all__ = ["OpRecord", "VarRecord", "RecordedGraph", "read_graph", "flatten_arrays"]

Shape = Tuple[int, ...]


class OpRecord:
    """One recorded op application.

    ``inputs`` lists ``(source_key, output_index, shape, dtype)`` for each input that
    is part of the graph (constants are not); ``outputs`` the ``(shape, dtype)`` of each
    output (``None`` where no consumer or head told it); ``saved`` the
    ``(shape, dtype, nbytes)`` of each value kept for backward; ``freed`` whether a
    backward already released them.
    """

    __slots__ = ("key", "op", "seq", "inputs", "n_inputs", "outputs", "attrs", "saved",
                 "freed")

    def __init__(self, key, op, seq, n_inputs, n_outputs, attrs, saved, freed):
        self.key = key
        self.op = op
        self.seq = seq
        self.inputs: List[Tuple[int, int, Optional[Shape], Optional[np.dtype]]] = []
        self.n_inputs = n_inputs
        self.outputs: List[Optional[Tuple[Shape, Optional[np.dtype]]]] = [None] * n_outputs
        self.attrs = attrs
        self.saved = saved
        self.freed = freed

    @property
    def saved_nbytes(self) -> int:
        return sum(s[2] for s in self.saved)


class VarRecord:
    """A variable (an array marked with ``attach_grad``/``mark_variables``)."""

    __slots__ = ("key", "seq", "shape", "dtype", "req")

    def __init__(self, key, seq, shape, dtype, req):
        self.key = key
        self.seq = seq
        self.shape = shape
        self.dtype = dtype
        self.req = req


class RecordedGraph:
    """Ops and variables reachable from ``heads``, both in recording order.

    ``heads`` is ``[(key, output_index, shape, dtype)]``; keys are the ``id`` of the
    engine's node objects (valid while the arrays are alive).
    """

    __slots__ = ("ops", "variables", "heads")

    def __init__(self, ops, variables, heads):
        self.ops: List[OpRecord] = ops
        self.variables: List[VarRecord] = variables
        self.heads = heads


def flatten_arrays(obj) -> List[NDArray]:
    """The NDArrays in a (nested) list/tuple/dict of outputs, in order."""
    out: List[NDArray] = []
    stack = [obj]
    while stack:
        o = stack.pop()
        if isinstance(o, NDArray):
            out.append(o)
        elif isinstance(o, (list, tuple)):
            stack.extend(reversed(o))
        elif isinstance(o, dict):
            stack.extend(reversed(list(o.values())))
    return out


def node_key(array: NDArray) -> Optional[int]:
    """The key of the graph node an array belongs to (None when it is not recorded)."""
    node = array._node
    return None if node is None else id(node)


def _simple_attrs(attrs) -> Dict[str, object]:
    """The attributes worth showing: numbers, strings, booleans and tuples of them."""
    if not isinstance(attrs, dict):
        return {}
    simple = (bool, int, float, str, np.integer, np.floating)
    out: Dict[str, object] = {}
    for k, v in attrs.items():
        if isinstance(v, simple) or (isinstance(v, tuple) and all(isinstance(x, simple)
                                                                   for x in v)):
            out[str(k)] = v
    return out


def _saved_arrays(node) -> Tuple[List[Tuple[Shape, np.dtype, int]], bool]:
    """``[(shape, dtype, nbytes)]`` of what the node keeps for backward, and freed."""
    saved = getattr(node, "saved", None)
    freed = bool(getattr(node, "freed", False))
    items: List[Tuple[Shape, np.dtype, int]] = []
    if freed:
        return items, True

    def add(a):
        if isinstance(a, NDArray):
            a = a._data
        if isinstance(a, np.ndarray):
            items.append((tuple(a.shape), a.dtype, int(a.nbytes)))

    for a in saved or ():
        add(a)
    out = getattr(node, "out", None)
    for a in (out if isinstance(out, tuple) else (out,)):
        add(a)
    attrs = getattr(node, "attrs", None)
    if isinstance(attrs, dict):
        for v in attrs.values():
            add(v)
    return items, False


def read_graph(heads: Sequence[NDArray]) -> RecordedGraph:
    """Read the graph recorded for ``heads`` (arrays computed under ``record()``).

    Raises
    ------
    GraphError
        When no head was recorded.
    """
    from .._engine.graph import Leaf   # the engine's variable node type

    head_recs: list = []
    stack: list = []
    for h in heads:
        node = h._node
        if node is None:
            continue
        head_recs.append((id(node), h._oidx, tuple(h.shape), h.dtype))
        stack.append(node)
    if not stack:
        raise GraphError("plot_network: the array was not recorded; compute it inside "
                         "`with mx.autograd.record():` from arrays that have attach_grad() "
                         "(or plot a Block with shape=...)")
    ops: Dict[int, OpRecord] = {}
    variables: Dict[int, VarRecord] = {}
    seen: Set[int] = set()
    while stack:
        node = stack.pop()
        key = id(node)
        if key in seen:
            continue
        seen.add(key)
        seq = getattr(node, "seq", 0)
        if type(node) is Leaf:
            buf = node.grad
            variables[key] = VarRecord(key, seq, tuple(buf.shape), buf.dtype, node.req)
            continue
        parents = node.parents
        metas = node.metas or (None,) * len(parents)
        outmetas = getattr(node, "outmetas", None)
        saved, freed = _saved_arrays(node)
        rec = OpRecord(key, node.name, seq, len(parents), len(outmetas) if outmetas else 1,
                       _simple_attrs(getattr(node, "attrs", None)), saved, freed)
        if outmetas:
            rec.outputs = [(tuple(m[0]), m[1]) for m in outmetas]
        ops[key] = rec
        for p, m in zip(parents, metas):
            if p is None:
                continue
            pnode, oidx = p
            if pnode is None:
                continue
            shape, dtype = (tuple(m[0]), m[1]) if m is not None else (None, None)
            rec.inputs.append((id(pnode), oidx, shape, dtype))
            if id(pnode) not in seen:
                stack.append(pnode)
    # each input edge tells the shape of its source's output
    for rec in ops.values():
        for src, oidx, shape, dtype in rec.inputs:
            srec = ops.get(src)
            if srec is not None and shape is not None:
                if oidx >= len(srec.outputs):
                    srec.outputs.extend([None] * (oidx + 1 - len(srec.outputs)))
                if srec.outputs[oidx] is None:
                    srec.outputs[oidx] = (shape, dtype)
    for key, oidx, shape, dtype in head_recs:
        hrec = ops.get(key)
        if hrec is not None:
            if oidx >= len(hrec.outputs):
                hrec.outputs.extend([None] * (oidx + 1 - len(hrec.outputs)))
            if hrec.outputs[oidx] is None:
                hrec.outputs[oidx] = (shape, dtype)
    return RecordedGraph(sorted(ops.values(), key=lambda r: r.seq),
                         sorted(variables.values(), key=lambda r: r.seq), head_recs)


def nodes_between(outputs: Iterable[NDArray], inputs: Iterable[NDArray]) -> Set[int]:
    """Keys of the nodes reachable from ``outputs`` without passing through ``inputs``.

    A block's own ops are those between its outputs and its inputs (its parameters,
    as variables, are included).
    """
    stop = {id(a._node) for a in inputs if a._node is not None}
    found: Set[int] = set()
    stack = [a._node for a in outputs if a._node is not None]
    while stack:
        node = stack.pop()
        key = id(node)
        if key in found or key in stop:
            continue
        found.add(key)
        for p in getattr(node, "parents", ()):
            if p is not None and p[0] is not None:
                stack.append(p[0])
    return found

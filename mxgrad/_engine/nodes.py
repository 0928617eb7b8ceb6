"""Node making: the engine's node factory and the record functions built-in ops call.

The one home of how an op application becomes a graph node: :func:`make_node` (the one
keyword factory; built-in ops through :func:`record` and custom Functions use it),
:func:`record` and its two hot-path specialisations ``_record1``/``_record2``, and the
rule for inputs from a graph an earlier backward freed (:func:`_from_freed`).

Layering: imports only the NDArray class and ``autograd.graph``; nothing from ``ops/``.
``ops/_apply.py`` imports these names into its own namespace, where its fast paths look
them up as module globals (``symbol/plan.py`` swaps them there to capture op records).
"""
from __future__ import annotations

from typing import Optional, Sequence

from .ndarray import NDArray
from .graph import _FREED, Node, _debug, check_finite, new_node

__all__ = ["make_node", "record"]

_ALL = "all"   # an op's ``save_in`` when it saves every input (``ops._core.defop``)


# ------------------------------------------------------------------- node building
def make_node(op, outs: Sequence[NDArray], *, inputs: Optional[Sequence] = None,
              parents: Optional[tuple] = None, metas: Optional[tuple] = None,
              attrs: Optional[dict] = None, saved: Optional[tuple] = None,
              vers: Optional[tuple] = None, out=None, outvers: Optional[tuple] = None,
              outmetas: bool = False, skip=()) -> Node:
    """Build a graph node and make it the history of ``outs``.

    The one node factory: built-in ops (through :func:`record`) and custom Functions
    use it. Give either ``inputs`` (arrays or ``None``; those in a graph become parents)
    or ``parents`` and ``metas`` directly. ``saved``/``vers`` are the inputs the rules
    read and their versions, ``out``/``outvers`` the saved output data and its version
    boxes; ``outmetas`` keeps every output's (shape, dtype) (always for more than one
    output); outputs at the positions in ``skip`` are left out of the graph.
    """
    if inputs is not None:
        ps: list = []
        ms: list = []
        for a in inputs:
            if a is not None and a._node is not None and not _from_freed(op, a):
                ps.append((a._node, a._oidx))
                d = a._data
                ms.append((d.shape, d.dtype))
            else:
                ps.append(None)
                ms.append(None)
        parents, metas = tuple(ps), tuple(ms)
    node = new_node(op, parents, saved, vers, metas, out, outvers, attrs)
    if outmetas or len(outs) > 1:
        node.outmetas = tuple((o._data.shape, o._data.dtype) for o in outs)
    for k, o in enumerate(outs):
        if k in skip:
            o._node = None
        else:
            o._node = node
            o._oidx = k
    if _debug[0]:
        check_finite(node, outs, "forward")
    return node


def record(op, args: Sequence, outs: Sequence[NDArray], attrs: Optional[dict] = None) -> Node:
    """Record one application of a declared op: save what its declaration asks for."""
    if len(outs) == 1:
        if len(args) == 2 and args[0] is not None and args[1] is not None:
            return _record2(op, args[0], args[1], outs[0], attrs)
        if len(args) == 1 and args[0] is not None and args[0]._node is not None:
            return _record1(op, args[0], outs[0], attrs)
    save = op.save_in
    if save == _ALL:
        saved = tuple(args)
    elif save:
        saved = tuple(a if i in save else None for i, a in enumerate(args))
    else:
        saved = None
    vers = None if saved is None else tuple(None if a is None else a._ver[0] for a in saved)
    out = outvers = None
    if op.save_out:
        out = outs[0]._data if len(outs) == 1 else tuple(o._data for o in outs)
        outvers = tuple((o._ver, o._ver[0]) for o in outs)
    return make_node(op, outs, inputs=args, attrs=attrs, saved=saved, vers=vers, out=out,
                     outvers=outvers)


def _from_freed(op, x) -> bool:
    """Whether ``x`` is the output of a graph an earlier backward freed. MXNet clears an
    array's history at backward, so such an array (an RNN's hidden state carried into the
    next batch, say) is a constant in a new recording: mxgrad treats it so (a second
    backward through the freed graph itself still raises)."""
    if x._node.saved is not _FREED:
        return False
    if _debug[0]:
        import warnings
        warnings.warn(f"op '{op.name}': an input (shape {x.shape}) comes from a graph freed "
                      f"by an earlier backward; it is used as a constant (call .detach() on "
                      f"it to say so)", stacklevel=4)
    return True


# The two specialisations of `record` for the commonest shapes of call (the hot path).
def _record1(op, x, out, attrs):
    """``record`` for one input (in a graph) and one output."""
    if x._node.saved is _FREED and _from_freed(op, x):
        return None            # a constant input: the output is not in any graph
    d = x._data
    if op.save_in:
        saved = (x,)
        box = x._vbox
        vers = (0 if box is None else box[0],)
    else:
        saved = vers = None
    if op.save_out:
        box = out._vbox = [0]   # a fresh output: its first box
        node = new_node(op, ((x._node, x._oidx),), saved, vers, ((d.shape, d.dtype),),
                        out._data, ((box, box[0]),), attrs)
    else:
        node = new_node(op, ((x._node, x._oidx),), saved, vers, ((d.shape, d.dtype),),
                        None, None, attrs)
    out._node = node
    if _debug[0]:
        check_finite(node, (out,), "forward")
    return node


def _record2(op, a, b, out, attrs):
    """``record`` for two array inputs and one output."""
    na, nb = a._node, b._node
    if na is not None and na.saved is _FREED and _from_freed(op, a):
        na = None
    if nb is not None and nb.saved is _FREED and _from_freed(op, b):
        nb = None
    if na is None and nb is None:
        return None            # constants only: the output is not in any graph
    da, db = a._data, b._data
    parents = (None if na is None else (na, a._oidx), None if nb is None else (nb, b._oidx))
    metas = (None if na is None else (da.shape, da.dtype),
             None if nb is None else (db.shape, db.dtype))
    save = op.save_in
    if save == _ALL:
        saved = (a, b)
        va, vb = a._vbox, b._vbox
        vers = (0 if va is None else va[0], 0 if vb is None else vb[0])
    elif save:
        saved = (a if 0 in save else None, b if 1 in save else None)
        vers = tuple(None if x is None else x._ver[0] for x in saved)
    else:
        saved = vers = None
    if op.save_out:
        box = out._vbox = [0]   # a fresh output: its first box
        node = new_node(op, parents, saved, vers, metas, out._data, ((box, box[0]),), attrs)
    else:
        node = new_node(op, parents, saved, vers, metas, None, None, attrs)
    out._node = node
    out._oidx = 0
    if _debug[0]:
        check_finite(node, (out,), "forward")
    return node

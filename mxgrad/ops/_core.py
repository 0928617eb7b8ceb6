"""The op table machinery: declare an op once, call it on NDArrays or NumPy arrays.

An op is declared with :func:`defop`: a NumPy forward, one gradient (vector-Jacobian)
rule per input and one tangent (Jacobian-vector) rule per input, side by side.

Rules are written with mxgrad's own ops, and every op dispatches on the type of its
inputs: called on NumPy arrays it runs its NumPy forward directly (no graph, no
wrapping), called on NDArrays it records. The engine runs the rules on raw NumPy
arrays for an ordinary backward, and on recorded NDArrays when ``create_graph=True``,
so every op is differentiable to any order from one declaration.

Rule signatures (``attrs`` are the op's keyword parameters)::

    grad_i(g, out, *inputs, **attrs)  -> gradient for input i (None means zero)
    jvp_i(t_i, out, *inputs, **attrs) -> tangent contribution of input i to the output

``g``/``out`` are tuples for multi-output ops. Inputs the op does not save arrive as
``None``; the engine reduces a broadcast gradient to its input's shape and casts it
to its input's dtype.
"""
from __future__ import annotations

from numbers import Number as _Number
from typing import Callable, Optional, Sequence

import numpy as np

from ..base import DTypeError, InPlaceError, ShapeError
from ..ndarray.ndarray import NDArray, wrap
from ..autograd.scope import state
from ..autograd.graph import Node, _debug, check_finite

__all__ = ["Op", "defop", "call", "call1", "call2", "fit_gradient", "register_method",
           "as_array", "inplace_apply"]

_ALL = "all"


class Op:
    """One op of the table: forward, gradient rules, tangent rules and what to save."""

    __slots__ = ("name", "fwd", "grads", "jvps", "save_in", "save_out", "nout", "raw_grads")

    def __init__(self, name, fwd, grads, jvps, save_in, save_out, nout, raw_grads=None):
        self.name = name
        self.fwd = fwd
        self.grads = grads
        self.raw_grads = raw_grads or grads
        self.jvps = jvps
        self.save_in = save_in
        self.save_out = save_out
        self.nout = nout

    def __repr__(self) -> str:
        return f"<Op {self.name}>"

    def backward(self, node, gouts, needs, create_graph):
        """Run the gradient rules of the inputs in ``needs``; return one grad per input."""
        if create_graph:
            return self._backward_recorded(node, gouts, needs)
        saved = node.saved
        attrs = node.attrs
        grads = self.raw_grads
        g = gouts[0] if self.nout == 1 else tuple(
            x if x is not None else np.zeros(m[0], m[1]) for x, m in zip(gouts, node.outmetas))
        out = node.out
        n = len(grads)
        if n == 1:
            x = saved[0] if saved else None
            if x is not None:
                x = x._data
            return (grads[0](g, out, x, **attrs) if attrs else grads[0](g, out, x),)
        if saved:
            ins = [None if a is None else a._data for a in saved]
        else:
            ins = [None] * n
        if n == 2:
            a, b = ins
            if attrs:
                return (grads[0](g, out, a, b, **attrs) if needs[0] else None,
                        grads[1](g, out, a, b, **attrs) if needs[1] else None)
            return (grads[0](g, out, a, b) if needs[0] else None,
                    grads[1](g, out, a, b) if needs[1] else None)
        if attrs:
            return [rule(g, out, *ins, **attrs) if needs[i] else None
                    for i, rule in enumerate(grads)]
        return [rule(g, out, *ins) if needs[i] else None for i, rule in enumerate(grads)]

    def _backward_recorded(self, node, gouts, needs):
        """create_graph=True: run the rules on NDArrays while recording."""
        ins = node.saved or (None,) * len(self.grads)
        if self.save_out:
            out = _bound_output(node, node.out, 0) if self.nout == 1 else tuple(
                _bound_output(node, o, k) for k, o in enumerate(node.out))
        else:
            out = None
        if self.nout == 1:
            g = gouts[0]
        else:
            g = tuple(x if x is not None else wrap(np.zeros(m[0], m[1]))
                      for x, m in zip(gouts, node.outmetas))
        attrs = node.attrs
        return [(rule(g, out, *ins, **attrs) if attrs else rule(g, out, *ins))
                if needs[i] else None for i, rule in enumerate(self.grads)]


def _bound_output(node, data, k):
    a = wrap(data, node, k)
    a._ver = node.outvers[k][0]
    if node.outtans is not None:  # forward-over-reverse: the output keeps its tangent
        a._tan = node.outtans[k]
    return a


def defop(name: str, fwd: Callable, grads: Optional[Sequence[Callable]] = None,
          jvps: Optional[Sequence[Callable]] = None, save=_ALL, save_out: bool = False,
          nout: int = 1, raw_grads: Optional[Sequence[Callable]] = None) -> Op:
    """Declare an op.

    Parameters
    ----------
    name : str
        The op's name, used in error messages.
    fwd : callable
        ``fwd(*numpy_inputs, **attrs)`` returning a NumPy array (a tuple if ``nout > 1``).
    grads : sequence of callables, optional
        One gradient rule per input; ``None`` makes the op non-differentiable (its output
        is never recorded, like ``argmax``).
    jvps : sequence of callables, optional
        One tangent rule per input (forward mode).
    save : 'all', tuple of int, or ()
        Which inputs the gradient rules read (others arrive as ``None``).
    save_out : bool
        Whether the rules read the output.
    nout : int
        Number of outputs.
    raw_grads : sequence of callables, optional
        Fused NumPy-only versions of ``grads`` (same signature, NumPy arguments) used in an
        ordinary backward to save temporaries; ``grads`` still serve ``create_graph=True``.
        They must not modify their arguments.
    """
    if grads is not None:
        grads = tuple(grads)
    if jvps is not None:
        jvps = tuple(jvps)
    if raw_grads is not None:
        raw_grads = tuple(raw_grads)
    return Op(name, fwd, grads, jvps, save, save_out, nout, raw_grads)


def as_array(x, op_name: str, arg: str = "data") -> NDArray:
    """Convert an op argument to an NDArray (NumPy arrays are wrapped, others refused)."""
    if isinstance(x, NDArray):
        return x
    if isinstance(x, np.ndarray):
        return wrap(x if x.ndim else x.reshape(1))
    raise DTypeError(f"{op_name}: argument '{arg}' must be an NDArray, got "
                     f"{type(x).__name__}; wrap data with mx.nd.array(...) first")


# ------------------------------------------------------------------ recording
def _make_node(op, args, outs, attrs):
    if len(args) == 2 and len(outs) == 1:
        return _make_node2(op, args[0], args[1], outs[0], attrs)
    parents = []
    saved = None
    vers = None
    metas = []
    for a in args:
        if a is not None and a._node is not None:
            parents.append((a._node, a._oidx))
            d = a._data
            metas.append((d.shape, d.dtype))
        else:
            parents.append(None)
            metas.append(None)
    save = op.save_in
    if save == _ALL:
        saved = tuple(args)
        vers = tuple(None if a is None else a._ver[0] for a in args)
    elif save:
        saved = tuple(a if i in save else None for i, a in enumerate(args))
        vers = tuple(None if a is None else a._ver[0] for a in saved)
    if op.save_out:
        if len(outs) == 1:
            out = outs[0]._data
        else:
            out = tuple(o._data for o in outs)
        outvers = tuple((o._ver, o._ver[0]) for o in outs)
    else:
        out = None
        outvers = None
    node = Node(op, tuple(parents), saved, vers, tuple(metas), out, outvers, attrs)
    if op.nout > 1:
        node.outmetas = tuple((o._data.shape, o._data.dtype) for o in outs)
    for k, o in enumerate(outs):
        o._node = node
        o._oidx = k
    if _debug[0]:
        check_finite(node, outs, "forward")
    return node


def _make_node2(op, a, b, out, attrs):
    """``_make_node`` for two array inputs and one output."""
    na, nb = a._node, b._node
    da, db = a._data, b._data
    parents = (None if na is None else (na, a._oidx), None if nb is None else (nb, b._oidx))
    metas = (None if na is None else (da.shape, da.dtype),
             None if nb is None else (db.shape, db.dtype))
    save = op.save_in
    if save == _ALL:
        saved = (a, b)
        vers = (a._ver[0], b._ver[0])
    elif save:
        saved = (a if 0 in save else None, b if 1 in save else None)
        vers = tuple(None if x is None else x._ver[0] for x in saved)
    else:
        saved = vers = None
    if op.save_out:
        box = out._ver
        node = Node(op, parents, saved, vers, metas, out._data, ((box, box[0]),), attrs)
    else:
        node = Node(op, parents, saved, vers, metas, None, None, attrs)
    out._node = node
    out._oidx = 0
    if _debug[0]:
        check_finite(node, (out,), "forward")
    return node


def _make_node1(op, x, out, attrs):
    """``_make_node`` for the common one-input, one-output case."""
    d = x._data
    if op.save_in:
        saved = (x,)
        vers = (x._ver[0],)
    else:
        saved = vers = None
    if op.save_out:
        box = out._ver
        node = Node(op, ((x._node, x._oidx),), saved, vers, ((d.shape, d.dtype),), out._data,
                    ((box, box[0]),), attrs)
    else:
        node = Node(op, ((x._node, x._oidx),), saved, vers, ((d.shape, d.dtype),), None, None,
                    attrs)
    out._node = node
    if _debug[0]:
        check_finite(node, (out,), "forward")
    return node


# ------------------------------------------------------------------- dispatch
def _shape_error(op, err, args):
    if isinstance(err, ShapeError):
        return err
    shapes = ", ".join(str(a.shape) for a in args if a is not None)
    return ShapeError(f"{op.name}: inputs of shapes {shapes} do not fit together ({err}). "
                      f"Check the shapes; binary ops broadcast NumPy-style")


def call1(op: Op, x, attrs: Optional[dict] = None):
    """Apply a one-input op to ``x`` (NDArray: recorded if needed; NumPy: raw)."""
    if type(x) is np.ndarray:
        return op.fwd(x, **attrs) if attrs else op.fwd(x)
    if type(x) is not NDArray:
        x = as_array(x, op.name)
    try:
        data = op.fwd(x._data, **attrs) if attrs else op.fwd(x._data)
    except ValueError as err:
        raise _shape_error(op, err, (x,)) from None
    if op.nout == 1:
        out = wrap(data)
        if x._node is not None and state.recording and op.grads is not None:
            _make_node1(op, x, out, attrs)
        if x._tan is not None:
            _forward_tangents(op, (x,), (out,), attrs)
        return out
    outs = tuple(wrap(d) for d in data)
    if x._node is not None and state.recording and op.grads is not None:
        _make_node(op, (x,), outs, attrs)
    if x._tan is not None:
        _forward_tangents(op, (x,), outs, attrs)
    return outs


def call2(op: Op, a, b, attrs: Optional[dict] = None):
    """Apply a two-input op (both arrays)."""
    ta, tb = type(a), type(b)
    if ta is np.ndarray and tb is np.ndarray:
        return op.fwd(a, b, **attrs) if attrs else op.fwd(a, b)
    if ta is not NDArray:
        a = as_array(a, op.name, "lhs")
    if tb is not NDArray:
        b = as_array(b, op.name, "rhs")
    try:
        data = op.fwd(a._data, b._data, **attrs) if attrs else op.fwd(a._data, b._data)
    except ValueError as err:
        raise _shape_error(op, err, (a, b)) from None
    out = wrap(data)
    if (a._node is not None or b._node is not None) and state.recording \
            and op.grads is not None:
        _make_node(op, (a, b), (out,), attrs)
    if a._tan is not None or b._tan is not None:
        _forward_tangents(op, (a, b), (out,), attrs)
    return out


def call(op: Op, args: Sequence, attrs: Optional[dict] = None):
    """Apply an op to any number of array inputs (``None`` for an absent optional one)."""
    raw = True
    for x in args:
        if x is not None and type(x) is not np.ndarray:
            raw = False
            break
    if raw:
        return op.fwd(*args, **attrs) if attrs else op.fwd(*args)
    args = tuple(None if x is None else (x if type(x) is NDArray else as_array(x, op.name))
                 for x in args)
    datas = [None if x is None else x._data for x in args]
    try:
        data = op.fwd(*datas, **attrs) if attrs else op.fwd(*datas)
    except ValueError as err:
        raise _shape_error(op, err, args) from None
    outs = (wrap(data),) if op.nout == 1 else tuple(wrap(d) for d in data)
    if op.grads is not None and state.recording:
        for x in args:
            if x is not None and x._node is not None:
                _make_node(op, args, outs, attrs)
                break
    for x in args:
        if x is not None and x._tan is not None:
            _forward_tangents(op, args, outs, attrs)
            break
    return outs[0] if op.nout == 1 else outs


# ------------------------------------------------- specialised fast dispatchers
_new = object.__new__


def unary_fast(op: Op):
    """A dispatcher for a one-input op without attrs, inlined for the NDArray case
    (this is the per-op overhead everyone pays, so it avoids every avoidable call)."""
    fwd = op.fwd
    differentiable = op.grads is not None

    def apply(x, out=None, name=None):
        if out is not None:
            return inplace_apply(out, apply(x))
        if type(x) is NDArray:
            try:
                data = fwd(x._data)
            except ValueError as err:
                raise _shape_error(op, err, (x,)) from None
            out = _new(NDArray)
            out._data = data
            out._node = None
            out._oidx = 0
            out._ver = [0]
            out._tan = None
            if x._node is not None and differentiable and state.recording:
                _make_node1(op, x, out, None)
            if x._tan is not None:
                _forward_tangents(op, (x,), (out,), None)
            return out
        return call1(op, x)
    return apply


def binary_fast(op: Op):
    """A dispatcher for a two-input op without attrs, inlined for two NDArrays."""
    fwd = op.fwd
    differentiable = op.grads is not None

    def apply(a, b, out=None, name=None):
        if out is not None:
            return inplace_apply(out, apply(a, b))
        if type(a) is NDArray and type(b) is NDArray:
            try:
                data = fwd(a._data, b._data)
            except ValueError as err:
                raise _shape_error(op, err, (a, b)) from None
            out = _new(NDArray)
            out._data = data
            out._node = None
            out._oidx = 0
            out._ver = [0]
            out._tan = None
            if (a._node is not None or b._node is not None) and differentiable \
                    and state.recording:
                _make_node(op, (a, b), (out,), None)
            if a._tan is not None or b._tan is not None:
                _forward_tangents(op, (a, b), (out,), None)
            return out
        scalar_ops = apply.scalar_ops
        if scalar_ops is not None:
            # MXNet's nd.add/maximum/greater/... accept a Python scalar on either side
            if isinstance(b, _Number) and isinstance(a, (NDArray, np.ndarray)):
                return _with_scalar(scalar_ops[0], a, b)
            if isinstance(a, _Number) and isinstance(b, (NDArray, np.ndarray)):
                return _with_scalar(scalar_ops[1], b, a)
        return call2(op, a, b)
    apply.scalar_ops = None
    return apply


def _with_scalar(op, x, s):
    if type(x) is np.ndarray:
        r = op.fwd(x, s)
        return r
    from .elemwise import scalar_call
    return scalar_call(op, x, s)


# ------------------------------------------------------------- engine helpers
def fit_gradient(g, meta, node, i, create_graph):
    """Reduce a broadcast gradient to its input's shape and cast it to its dtype."""
    data = g._data if create_graph else g
    if not isinstance(data, np.ndarray):
        raise DTypeError(f"gradient rule {i} of op '{node.op.name}' returned a "
                         f"{type(g).__name__}, not an array")
    shape, dtype = meta
    if data.shape != shape:
        from .reduce import sum_to
        try:
            g = sum_to(g, shape)
        except ShapeError:
            raise ShapeError(f"op '{node.op.name}': gradient for input {i} has shape "
                             f"{data.shape}, which cannot be reduced to the input's shape "
                             f"{shape}") from None
        data = g._data if create_graph else g
    if data.dtype != dtype:
        g = g.astype(dtype)
    return g


def _strip_tangent(a):
    if a is None or a._tan is None:
        return a
    b = wrap(a._data, a._node, a._oidx)
    b._ver = a._ver
    return b


def _forward_tangents(op, args, outs, attrs):
    """Propagate tangents (forward-mode AD) through one op application."""
    from ..autograd import forward_ad as fad
    if op.jvps is None:
        if op.grads is None:  # not differentiable (comparisons, argmax): no tangent
            return
        raise fad.tangent_rule_missing(op.name)
    clean = tuple(_strip_tangent(a) for a in args)
    outv = _strip_tangent(outs[0]) if len(outs) == 1 else tuple(_strip_tangent(o) for o in outs)
    total = None
    for i, a in enumerate(args):
        if a is None or a._tan is None:
            continue
        rule = op.jvps[i]
        if rule is None:
            continue
        t = rule(a._tan, outv, *clean, **attrs) if attrs else rule(a._tan, outv, *clean)
        if t is None:
            continue
        if total is None:
            total = t
        elif isinstance(total, tuple):
            total = tuple(x if y is None else (y if x is None else x + y)
                          for x, y in zip(total, t))
        else:
            total = total + t
    if total is None:
        return
    if not isinstance(total, tuple):
        total = (total,)
    from .reduce import broadcast_exact
    for o, t in zip(outs, total):
        if t is None:
            continue
        if t.shape != o.shape:
            t = broadcast_exact(t, o.shape)
        if t._data.dtype != o._data.dtype:
            t = t.astype(o._data.dtype)
        o._tan = t
        fad.note_tangent(o)  # dropped when the dual level exits
        node = o._node
        if op.save_out and type(node) is Node and node.op is op:
            # a create_graph backward rebuilds this output from node.out: keep its tangent
            if node.outtans is None:
                node.outtans = [None] * len(outs)
                fad.note_tangent(node, "outtans")
            node.outtans[o._oidx] = t


# -------------------------------------------------------------- registration
def register_method(name: str, fn: Callable) -> None:
    """Attach ``fn`` (whose first argument is the array) as an NDArray method."""
    setattr(NDArray, name, fn)


def inplace_apply(target: NDArray, result: NDArray) -> NDArray:
    """Write ``result`` into ``target``'s buffer, as ``x += y`` does.

    Outside recording (or when nothing is in a graph) the data is copied and the
    version bumped; if the result is recorded, ``target`` takes its history."""
    target._check_writable()
    if result._data.shape != target._data.shape:
        raise ShapeError(f"in-place operation: result shape {result.shape} does not fit "
                         f"the target's shape {target.shape}")
    np.copyto(target._data, result._data, casting="unsafe")
    target._ver[0] += 1
    if result._node is not None:
        target._node, target._oidx = result._node, result._oidx
    return target

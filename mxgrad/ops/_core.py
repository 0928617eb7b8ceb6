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
``None``; :meth:`Op.backward` reduces a broadcast gradient to its input's shape and
casts it to its input's dtype (:func:`fit_gradient`), so the engine
receives gradients that fit. Applying an op (output arrays, recording, nodes, tangents)
is :mod:`mxgrad.ops._apply`'s job; its dispatchers are re-exported here.
"""
from __future__ import annotations

import textwrap
from string import Template
from typing import Callable, Optional, Sequence

import numpy as np

from ..base import DTypeError, ShapeError
from .._engine.ndarray import NDArray, as_face, wrap
from .._engine.reuse import GETREFCOUNT_OWN as _ARG, refcount as _getrefcount
from .._engine.nodes import _ALL
# How an op is applied (output arrays, recording, nodes, tangents) lives in _apply; its
# dispatchers are re-exported here under the names op modules have always imported.
from ._apply import (apply, apply1, apply2, call, call1, call2, as_array, inplace_apply,
                     generate, unary_fast, binary_fast, _RAW)

__all__ = ["Op", "defop", "PerCall", "reusable", "apply", "apply1", "apply2", "call",
           "call1", "call2", "as_array", "inplace_apply", "fit_gradient", "unary_fast",
           "binary_fast", "no_grad", "linear_pair", "reshape_exact", "broadcast_exact",
           "sum_to"]


# A raw (NumPy-only) rule of a one-input op is called by Op.backward as rule(g, out, x);
# inside `reusable`, g's known references are 4: the engine's gradient list, Op.backward's
# `g`, the rule's parameter and `reusable`'s. No more (the engine's one rule,
# _engine/reuse.py) means nobody else can see g, so the rule may write its result into g
# instead of allocating (large arrays: fewer page faults and cache misses).
_OWN = 4


class PerCall:
    """Base of an op attribute value that holds one application's state between the
    op's forward and its gradient rules (a convolution's im2col columns). A planned
    graph (:mod:`mxgrad.symbol.plan`) gives every call a fresh instance (``type(v)()``)
    instead of sharing the one its capture saw."""
    __slots__ = ()


def reusable(g, like=None) -> bool:
    """Whether a raw rule of a one-input op may write its result into ``g`` (``like``:
    the other operand, whose shape and dtype the result takes; None when the result is
    shaped like ``g``). Valid only inside a raw rule called by :meth:`Op.backward`."""
    return (_getrefcount(g) <= _OWN + _ARG and g.base is None and g.flags.writeable
            and (like is None or (g.shape == like.shape and g.dtype == like.dtype)))


# ------------------------------------------------------------------ fitting gradients
def fit_gradient(g, meta, who: str, what: str, create_graph: bool, float_only: bool = False):
    """Fit a gradient returned by a rule to its input: check it is an array, sum a
    broadcast gradient down to the input's shape and cast it to the input's dtype.

    ``g`` is a NumPy array in an ordinary backward and an NDArray with ``create_graph``
    (a NumPy array is then wrapped); ``meta`` is the input's (shape, dtype). ``who`` and
    ``what`` name the rule and the input in errors (``"op 'exp'"``, ``"input 0"``;
    ``"Function 'F'"``, ``"argument 'x'"``). ``float_only`` refuses a gradient of a
    non-float dtype for a float input (custom Functions) instead of casting it.
    """
    if isinstance(g, np.generic):  # a rule's NumPy arithmetic on 0-d arrays gives scalars
        g = np.asarray(g)
    if create_graph and isinstance(g, np.ndarray):
        g = wrap(g if g.ndim or meta[0] == () else g.reshape(1))
    data = g._data if isinstance(g, NDArray) else g
    if not isinstance(data, np.ndarray):
        raise DTypeError(f"{who}: backward returned a {type(g).__name__} as the gradient of "
                         f"{what}; return an NDArray or None")
    shape, dtype = meta
    if float_only and data.dtype.kind != "f" and dtype.kind == "f":
        raise DTypeError(f"{who}: the gradient of {what} has dtype {data.dtype} but the "
                         f"argument has dtype {dtype}; return a floating-point gradient")
    if data.shape != shape and data.size == 1 and (data.ndim == 0 or not shape) and \
            len(shape) <= 1 and data.ndim <= 1:
        # one value between a 0-d array (mx.np) and the (1,) view its rules work on
        g = reshape_exact(g, shape) if isinstance(g, NDArray) else data.reshape(shape)
        data = g._data if isinstance(g, NDArray) else g
    if data.shape != shape:
        try:
            ok = np.broadcast_shapes(shape, data.shape) == data.shape
        except ValueError:
            ok = False
        if not ok:
            raise ShapeError(f"{who}: backward returned a gradient of shape {data.shape} for "
                             f"{what} of shape {shape}; return a gradient of the input's "
                             f"shape (or one that broadcasts to it)")
        g = sum_to(g, shape)
        data = g._data if isinstance(g, NDArray) else g
    if data.dtype != dtype:
        g = g.astype(dtype)
    return g


# Op.backward is generated (ops/_apply.py's factory): a gradient rule's call and the
# check that its result fits the input (else fit_gradient) are written once, below, and
# inlined for the one- and two-input ops (the engine calls backward once per node).
_RULE = """\
$r = $rule(g, out, $ins, **attrs) if attrs else $rule(g, out, $ins)
if $r is not None:
    m = metas[$i]
    if type($r) is not ndarray or $r.shape != m[0] or (
            $r.dtype is not m[1] and $r.dtype != m[1]):
        $r = fit_gradient($r, m, f"op '{self.name}'", "input $i", False)
"""
_BACKWARD = """\
def backward(self, node, gouts, needs, create_graph):
    \"\"\"Run the gradient rules of the inputs in ``needs``; return one gradient per
    input (None for none), of the input's shape and dtype.\"\"\"
    if create_graph:
        return self._backward_recorded(node, gouts, needs)
    saved = node.saved
    attrs = node.attrs
    grads = self.raw_grads
    g = gouts[0] if self.nout == 1 else tuple(
        x if x is not None else np.zeros(m[0], m[1]) for x, m in zip(gouts, node.outmetas))
    out = node.out
    metas = node.metas
    n = len(grads)
    if n == 1:  # the references _OWN counts: gouts (the engine's list) and `g`
        x = saved[0] if saved else None
        if x is not None:
            x = x._data
        rule = grads[0]
        if grads is not self.grads and (type(g) is not ndarray or not g.shape):
            rule = self.grads[0]   # a 0-d (mx.np) gradient: the composed rule, not the
            #                        raw one that writes into NumPy arrays in place
$one
        return (r,)
    ins = [None if a is None else a._data for a in saved] if saved else [None] * n
    if n == 2:
        a, b = ins
        ga = gb = None
        if needs[0]:
$ga
        if needs[1]:
$gb
        return ga, gb
    if attrs:
        res = [rule(g, out, *ins, **attrs) if needs[i] else None
               for i, rule in enumerate(grads)]
    else:
        res = [rule(g, out, *ins) if needs[i] else None for i, rule in enumerate(grads)]
    return self._fit(node, res, False)
"""


def _rule_src(r: str, rule: str, ins: str, i: int, indent: int) -> str:
    return textwrap.indent(Template(_RULE).substitute(r=r, rule=rule, ins=ins, i=i),
                           " " * indent)


_BACKWARD_METHOD = generate(Template(_BACKWARD).substitute(
    one=_rule_src("r", "rule", "x", 0, 8), ga=_rule_src("ga", "grads[0]", "a, b", 0, 12),
    gb=_rule_src("gb", "grads[1]", "a, b", 1, 12)), "backward", "Op.backward",
    ndarray=np.ndarray, fit_gradient=fit_gradient)
_BACKWARD_METHOD.__qualname__ = "Op.backward"


class Op:
    """One op of the table: forward, gradient rules, tangent rules and what to save."""

    __slots__ = ("name", "fwd", "grads", "jvps", "save_in", "save_out", "nout", "raw_grads",
                 "takes_out")

    def __init__(self, name, fwd, grads, jvps, save_in, save_out, nout, raw_grads=None,
                 takes_out=False):
        self.name = name
        # the forward accepts ``out=`` (an array of its one output's shape and dtype, which
        # it fills and returns: the same values as without it, also when ``out`` is the
        # memory of an input of that shape and dtype); without ``out`` it returns a new
        # array, never a view of an input. A planned graph under static_alloc reuses
        # buffers through it (mxgrad.symbol._plan_memory)
        self.takes_out = takes_out
        self.fwd = fwd
        self.grads = grads
        self.raw_grads = raw_grads or grads
        self.jvps = jvps
        self.save_in = save_in
        self.save_out = save_out
        self.nout = nout

    def __repr__(self) -> str:
        return f"<Op {self.name}>"

    backward = _BACKWARD_METHOD

    @staticmethod
    def fit_tangent(t, shape):
        """A tangent computed by a rule, broadcast (recorded) to its output's ``shape``."""
        return broadcast_exact(t, shape)

    def _backward_recorded(self, node, gouts, needs):
        """create_graph=True: run the rules on NDArrays while recording."""
        # rules see the NDArray face whatever face the user computed with (mx.np's
        # semantics are presentation; the rules are written against mx.nd's), and never a
        # 0-d array (mx.nd has none): such values reach them as recorded (1,) views
        ins = tuple(_rule_view(a) for a in node.saved) if node.saved else \
            (None,) * len(self.grads)
        gouts = [_rule_view(x) for x in gouts]
        if self.save_out:
            out = _rule_view(_bound_output(node, node.out, 0)) if self.nout == 1 else tuple(
                _rule_view(_bound_output(node, o, k)) for k, o in enumerate(node.out))
        else:
            out = None
        if self.nout == 1:
            g = gouts[0]
        else:
            g = tuple(x if x is not None else wrap(np.zeros(m[0], m[1]))
                      for x, m in zip(gouts, node.outmetas))
        attrs = node.attrs
        res = [(rule(g, out, *ins, **attrs) if attrs else rule(g, out, *ins))
               if needs[i] else None for i, rule in enumerate(self.grads)]
        return self._fit(node, res, True)

    def _fit(self, node, res, create_graph):
        """Fit each gradient to its input's shape and dtype (usually already so)."""
        metas = node.metas
        for i, g in enumerate(res):
            if g is not None:
                m = metas[i]
                if m is None:
                    continue
                if create_graph:
                    d = g._data if type(g) is NDArray else g
                    if d.shape == m[0] and d.dtype == m[1] and type(g) is NDArray:
                        continue
                elif type(g) is np.ndarray and g.shape == m[0] and g.dtype == m[1]:
                    continue
                if type(res) is tuple:
                    res = list(res)
                res[i] = fit_gradient(g, m, f"op '{self.name}'", f"input {i}", create_graph)
        return res


def _rule_view(a):
    """``a`` as a gradient rule under ``create_graph`` takes it: the ``NDArray`` face, and
    a 0-d array as a recorded ``(1,)`` view (gradients of the view reach ``a``)."""
    if a is None:
        return a
    if type(a) is not NDArray:
        a = as_face(a, NDArray)
    if a._data.ndim == 0:
        a = reshape_exact(a, (1,))
    return a


def _bound_output(node, data, k):
    a = wrap(data, node, k)
    a._ver = node.outvers[k][0]
    if node.outtans is not None:  # forward-over-reverse: the output keeps its tangent
        a._tan = node.outtans[k]
    return a


def defop(name: str, fwd: Callable, grads: Optional[Sequence[Callable]] = None,
          jvps: Optional[Sequence[Callable]] = None, save=_ALL, save_out: bool = False,
          nout: int = 1, raw_grads: Optional[Sequence[Callable]] = None,
          takes_out: Optional[bool] = None) -> Op:
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
        They must not modify their arguments, except that a one-input op's raw rule may
        write its result into ``g`` when :func:`reusable` says so.
    takes_out : bool, optional
        Whether ``fwd`` accepts ``out=`` (see ``Op.takes_out``); by default, whether
        ``fwd`` is a NumPy ufunc.
    """
    if grads is not None:
        grads = tuple(grads)
    if jvps is not None:
        jvps = tuple(jvps)
    if raw_grads is not None:
        raw_grads = tuple(raw_grads)
    if takes_out is None:
        takes_out = isinstance(fwd, np.ufunc) and nout == 1
    return Op(name, fwd, grads, jvps, save, save_out, nout, raw_grads, bool(takes_out))




def no_grad(*args, **kwargs):
    """The gradient (or tangent) rule of an input that gets none (an index, a length)."""
    return None


def linear_pair(name: str, fwd: Callable, adjoint_name: str, adjoint_fwd: Callable):
    """Two ops of ``(values, index)``, linear in the values, each the other's adjoint: a
    gather (``take``, ``pick``...) and its scatter. Each is the other's gradient rule and
    its own tangent rule; the index gets no gradient and is saved (both take the same
    attributes). Returns ``(op, adjoint)``.

    Examples
    --------
    >>> import numpy as np
    >>> g, s = linear_pair("first", lambda x, i: x[i], "first_t",
    ...                    lambda g, i: np.add.at(z := np.zeros(3), i, g) or z)
    >>> g.name, s.name
    ('first', 'first_t')
    """
    pair: list = []

    def grad(g, y, x, index, **a):
        return call(pair[1], (g, index), a)

    def tangent(t, y, x, index, **a):
        return call(pair[0], (t, index), a)

    def adjoint_grad(h, r, g, index, **a):
        return call(pair[0], (h, index), a)

    def adjoint_tangent(t, r, g, index, **a):
        return call(pair[1], (t, index), a)
    pair.append(defop(name, fwd, [grad, no_grad], [tangent, no_grad], save=(1,)))
    pair.append(defop(adjoint_name, adjoint_fwd, [adjoint_grad, no_grad],
                      [adjoint_tangent, no_grad], save=(1,)))
    return pair[0], pair[1]


# ------------------------------------------------ the ops gradient fitting records
# Reshape, broadcast and sum-to with exact shapes: what fit_gradient, Op.fit_tangent and
# the create_graph rule views apply (recorded, so fitted gradients differentiate again).
def _reshape_fwd(x, shape, ishape):
    try:
        return x.reshape(shape)
    except ValueError:
        raise ShapeError(f"reshape: cannot reshape an array of shape {x.shape} ({x.size} "
                         f"elements) to {shape}") from None


_RESHAPE = defop("reshape", _reshape_fwd,
                 [lambda g, y, x, shape, ishape: reshape_exact(g, ishape)],
                 [lambda t, y, x, shape, ishape: reshape_exact(t, shape)], save=())


def reshape_exact(data, shape):
    """Reshape to an exact shape (no MXNet codes); a view when NumPy can make one.

    Examples
    --------
    >>> import mxgrad as mx
    >>> reshape_exact(mx.nd.ones((2, 3)), (3, 2)).shape
    (3, 2)
    """
    shape = tuple(int(s) for s in shape)
    if isinstance(data, _RAW):
        return data if data.shape == shape else data.reshape(shape)
    data = as_array(data, "reshape")
    if data.shape == shape:
        return data
    r = call1(_RESHAPE, data, {"shape": shape, "ishape": data.shape})
    if r._data.base is not None:
        r._ver = data._ver
    return r


# ---------------------------------------------------------- broadcast / sum_to
def _broadcast_fwd(x, shape, ishape):
    try:
        return np.broadcast_to(x, shape)
    except ValueError:
        raise ShapeError(f"broadcast_to: cannot broadcast shape {x.shape} to {shape}; each "
                         f"dimension must match or be 1") from None


_BROADCAST = defop("broadcast_to", _broadcast_fwd,
                   [lambda g, y, x, shape, ishape: sum_to(g, ishape)],
                   [lambda t, y, x, shape, ishape: broadcast_exact(t, shape)], save=())


def broadcast_exact(data, shape):
    """Broadcast ``data`` to exactly ``shape`` (NumPy rules, no MXNet 0 code); used by
    the engine and gradient rules, where a 0 in ``shape`` is an empty dimension.

    Examples
    --------
    >>> import mxgrad as mx
    >>> broadcast_exact(mx.nd.ones((1,)), (0,)).shape
    (0,)
    """
    ishape = data.shape
    shape = tuple(shape)
    if shape == ishape:
        return data
    r = call1(_BROADCAST, data, {"shape": shape, "ishape": ishape})
    if isinstance(r, NDArray):
        r._data = np.array(r._data)  # a writable array for users
    return r


def _sum_to_axes(ishape, shape):
    lead = len(ishape) - len(shape)
    if lead < 0:
        raise ShapeError(f"sum_to: cannot reduce shape {ishape} to {shape}")
    axes = list(range(lead))
    for i, s in enumerate(shape):
        d = ishape[lead + i]
        if s == d:
            continue
        if s == 1:
            axes.append(lead + i)
        else:
            raise ShapeError(f"sum_to: cannot reduce shape {ishape} to {shape}")
    return tuple(axes)


def _sum_to_fwd(x, shape, ishape):
    axes = _sum_to_axes(x.shape, shape)
    r = x.sum(axis=axes) if axes else x
    return np.reshape(r, shape)


_SUM_TO = defop("sum_to", _sum_to_fwd,
                [lambda g, y, x, shape, ishape: broadcast_exact(g, ishape)],
                [lambda t, y, x, shape, ishape: sum_to(t, shape)], save=())


def sum_to(data, shape):
    """Sum ``data`` down to ``shape`` (the reverse of broadcasting).

    Examples
    --------
    >>> import mxgrad as mx
    >>> sum_to(mx.nd.ones((2, 3)), (1, 3))
    <BLANKLINE>
    [[2. 2. 2.]]
    <NDArray 1x3 @cpu(0)>
    """
    shape = tuple(shape)
    ishape = data.shape
    if ishape == shape:
        return data
    _sum_to_axes(ishape, shape)
    return call1(_SUM_TO, data, {"shape": shape, "ishape": ishape})



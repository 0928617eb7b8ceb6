"""Functional transforms: ``vjp``, ``jvp``, ``jacobian``, ``hessian``, ``hvp``, ``vhp``.

The API and conventions are PyTorch's ``torch.autograd.functional``: ``func`` takes
NDArrays and returns an NDArray or a tuple of them; ``inputs`` is one NDArray or a tuple;
results are nested the same way (a tuple of tuples for the Jacobian of a tuple-valued
function of a tuple of inputs). mxgrad has no 0-d arrays, so a "scalar" function returns
shape ``(1,)``: its Jacobian w.r.t. an ``(n,)`` input is ``(1, n)``, its Hessian
``(n, n)`` (the leading 1 is dropped, as PyTorch drops the 0-d output's empty shape).

The transforms never touch the caller's arrays: they work on fresh arrays sharing the
inputs' data, run ``func`` in a private recording scope (the training flag is left as
the caller has it) and use :func:`mxgrad.autograd.grad`, so no ``.grad`` buffer, no
recording/training flag and no dual level of the caller changes. With
``create_graph=False`` (the default) the results are plain arrays outside any graph;
with ``create_graph=True`` they are recorded and can be differentiated again, also
with respect to the caller's inputs when those are in a recorded graph.

``strict=True`` raises an error when some output does not depend on some input
(instead of returning zeros), as in PyTorch.

Examples
--------
>>> import mxgrad as mx
>>> from mxgrad.autograd.functional import jacobian, hessian
>>> x = mx.nd.array([1., 2.])
>>> jacobian(lambda x: x ** 2, x)
<BLANKLINE>
[[2. 0.]
 [0. 4.]]
<NDArray 2x2 @cpu(0)>
>>> hessian(lambda x: (x ** 3).sum(), x)
<BLANKLINE>
[[ 6.  0.]
 [ 0. 12.]]
<NDArray 2x2 @cpu(0)>
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from ..base import DTypeError, GraphError, ShapeError, StateError
from .._engine.ndarray import NDArray, wrap
from .._engine import forward_ad as fwAD
from .._engine.scope import _Scope, state

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]

_STRATEGIES = ("reverse-mode", "forward-mode")


# =========================================================== private helper ops
# Identity without a copy (PyTorch's ``view_as``): gives an input that is already in a
# graph a node of its own, so that gradients w.r.t. it exclude other uses of the input.
# Stacking and picking rows (differentiable, with tangent rules) build Jacobians when
# the result must stay in the graph (create_graph=True or forward-over-reverse).
_OPS: dict = {}


def _ops():
    if not _OPS:
        from ..ops._core import defop
        _OPS["view"] = defop("functional_view", lambda x: x, [lambda g, y, x: g],
                             [lambda t, y, x: t], save=())
        _OPS["pick"] = defop(
            "functional_pick", lambda x, index, axis, n: np.take(x, index, axis=axis),
            [lambda g, y, x, index, axis, n: _place(g, index, axis, n)],
            [lambda t, y, x, index, axis, n: _pick(t, index, axis)], save=())
        _OPS["place"] = defop(
            "functional_place", _place_fwd,
            [lambda g, y, x, index, axis, n: _pick(g, index, axis)],
            [lambda t, y, x, index, axis, n: _place(t, index, axis, n)], save=())
    return _OPS


def _place_fwd(x, index, axis, n):
    shape = list(x.shape)
    shape.insert(axis, n)
    out = np.zeros(shape, x.dtype)
    idx = [slice(None)] * len(shape)
    idx[axis] = index
    out[tuple(idx)] = x
    return out


def _pick(x, index, axis):
    """``x`` at position ``index`` along ``axis`` (that axis removed)."""
    from ..ops._core import call1
    n = x.shape[axis]
    return call1(_ops()["pick"], x, {"index": index, "axis": axis, "n": n})


def _place(x, index, axis, n):
    """Zeros with a new axis of length ``n`` at ``axis``, ``x`` at position ``index``."""
    from ..ops._core import call1
    return call1(_ops()["place"], x, {"index": index, "axis": axis, "n": n})


def _view(x: NDArray) -> NDArray:
    from ..ops._core import call1
    out = call1(_ops()["view"], x)
    out._ver = x._ver
    return out


_STACK: dict = {}


def _stack(arrays, axis):
    """Differentiable ``np.stack(arrays, axis)`` (arrays of one shape)."""
    from ..ops._core import call, defop
    n = len(arrays)
    op = _STACK.get(n)
    if op is None:
        grads = [(lambda g, y, *xs, axis, _i=i: _pick(g, _i, axis)) for i in range(n)]
        jvps = [(lambda t, y, *xs, axis, _i=i: _place(t, _i, axis, n)) for i in range(n)]
        op = defop("functional_stack", lambda *xs, axis: np.stack(xs, axis=axis), grads, jvps,
                   save=())
        _STACK[n] = op
    return call(op, tuple(arrays), {"axis": axis})


def _assemble(parts, axis, shape, differentiable):
    """Stack the rows/columns of a Jacobian and give it its final shape."""
    if not differentiable:
        return wrap(np.stack([p._data for p in parts], axis=axis).reshape(shape))
    from ..ops.reduce import reshape_exact
    return reshape_exact(_stack(parts, axis), shape)


# ================================================================ small helpers
def _private_scope(recording=True):
    """Recording on (or as asked), the training flag left as the caller has it."""
    return _Scope(recording, None)


def _as_tuple(inp, arg_name, fn_name):
    is_tuple = isinstance(inp, (tuple, list))
    items = tuple(inp) if is_tuple else (inp,)
    for i, el in enumerate(items):
        if not isinstance(el, NDArray):
            where = f"the value at index {i} has type {type(el).__name__}" if is_tuple else \
                f"the given {arg_name} has type {type(el).__name__}"
            raise DTypeError(f"The {arg_name} given to {fn_name} must be either an NDArray or "
                             f"a tuple of NDArrays but {where}")
    return is_tuple, items


def _tuple_postprocess(res, to_unpack):
    if isinstance(to_unpack, tuple):
        if not to_unpack[1]:
            res = tuple(el[0] for el in res)
        if not to_unpack[0]:
            res = res[0]
    elif not to_unpack:
        res = res[0]
    return res


def _fresh(x: NDArray, need_graph: bool) -> NDArray:
    """A new array sharing ``x``'s data, outside any graph (a variable if need_graph).

    A tangent of ``x`` (inside the caller's dual level) is kept, so that the transforms
    compose with forward mode (forward-over-reverse)."""
    d = wrap(x._data)
    d._ver = x._ver
    if need_graph:
        if d._data.dtype.kind not in "fc":
            raise DTypeError(f"inputs to differentiate must be floating-point arrays, got "
                             f"dtype {d._data.dtype}; cast them first (x.astype('float32'))")
        d.attach_grad()
    if x._tan is not None and fwAD.level_active():
        d._tan = x._tan
        fwAD.note_tangent(d)
    return d


def _grad_preprocess(inputs, create_graph, need_graph):
    res = []
    for x in inputs:
        if create_graph and x._node is not None:
            res.append(_view(x))  # stays connected to the caller's graph
        else:
            res.append(_fresh(x, need_graph))
    return tuple(res)


def _grad_postprocess(items, create_graph):
    if isinstance(items, tuple):
        return tuple(_grad_postprocess(i, create_graph) for i in items)
    if create_graph or items is None:
        return items
    return items.detach()


def _validate_v(v, other, is_other_tuple, fn_name):
    if len(other) != len(v):
        if is_other_tuple:
            raise ShapeError(f"{fn_name}: v is a tuple of invalid length: should be "
                             f"{len(other)} but got {len(v)}")
        raise ShapeError(f"{fn_name}: the given v should contain a single NDArray")
    for idx, (el_v, el_o) in enumerate(zip(v, other)):
        if el_v.shape != el_o.shape:
            prefix = f"entry {idx} in " if is_other_tuple else ""
            raise ShapeError(f"{fn_name}: {prefix}v has invalid shape: should be "
                             f"{el_o.shape} but got {el_v.shape}")


def _prep_v(v, create_graph, fn_name, like):
    _, v = _as_tuple(v, "v", fn_name)
    out = []
    for el, ref in zip(v, like):
        if not create_graph:
            el = el.detach()
        out.append(el)
    return tuple(out)


def _check_requires_grad(items, kind, strict):
    """PyTorch's strict-mode checks on outputs / gradients / Jacobians."""
    if not strict:
        return
    for i, a in enumerate(items):
        if a is None:
            raise GraphError(f"The output of the user-provided function is independent of "
                             f"input {i}. This is not allowed in strict mode.")
        if a._node is None:
            if kind == "hessian":
                raise GraphError(
                    f"The hessian of the user-provided function with respect to input {i} is "
                    f"independent of the input. This is not allowed in strict mode. You should "
                    f"ensure that your function is thrice differentiable and that the hessian "
                    f"depends on the inputs.")
            if kind == "jacobian":
                raise GraphError(
                    f"While computing the hessian, found that the jacobian of the "
                    f"user-provided function with respect to input {i} is independent of the "
                    f"input. This is not allowed in strict mode. You should ensure that your "
                    f"function is twice differentiable and that the jacobian depends on the "
                    f"inputs (this would be violated by a linear function for example).")
            if kind == "grad_inputs":
                raise GraphError(
                    f"The gradient with respect to input {i} is independent of the inputs of "
                    f"the user-provided function. This is not allowed in strict mode.")
            raise GraphError(
                f"Output {i} of the user-provided function does not require gradients. The "
                f"outputs must be computed in a differentiable manner from the input when "
                f"running in strict mode.")


def _reached(head, targets):
    """Indices of ``targets`` whose graph node can be reached from ``head``'s node."""
    from .._engine.graph import Leaf
    if head is None or head._node is None:
        return set()
    where = {}
    for j, t in enumerate(targets):
        where.setdefault(id(t._node), []).append(j)
    found, seen, stack = set(), set(), [head._node]
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        hit = where.get(id(n))
        if hit:
            found.update(hit)
            if len(found) == len(targets):
                break
        if type(n) is Leaf:
            continue
        for p in getattr(n, "parents", ()) or ():
            if p is not None:
                stack.append(p[0])
    return found


def _autograd_grad(outputs, inputs, grad_outputs=None, create_graph=False,
                   retain_graph=None, need_reach=False):
    """``autograd.grad`` that skips outputs outside the graph and, with ``need_reach``,
    returns None for inputs no output reaches (PyTorch's ``allow_unused``)."""
    from .._engine.graph import grad_impl
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    heads, hgrads = [], []
    for o, g in zip(outputs, grad_outputs):
        if o is not None and o._node is not None:
            heads.append(o)
            hgrads.append(g)
    if not heads:
        return (None,) * len(inputs)
    reach = None
    if need_reach:
        reach = set()
        for h in heads:
            reach |= _reached(h, inputs)
    res = grad_impl(heads, list(inputs), hgrads, retain_graph, create_graph, state.training,
                link=False)   # PyTorch's semantics: strict mode sees independence
    if reach is not None:
        res = [g if j in reach else None for j, g in enumerate(res)]
    return tuple(res)


def _fill_in_zeros(grads, refs, strict, create_graph, stage):
    res = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                if stage == "back":
                    msg = (f"The output of the user-provided function is independent of input "
                           f"{i}. This is not allowed in strict mode.")
                elif stage == "back_trick":
                    msg = (f"The gradient with respect to the input is independent of entry {i} "
                           f"in the grad_outputs when using the double backward trick to compute "
                           f"forward mode gradients. This is not allowed in strict mode.")
                elif stage == "double_back":
                    msg = (f"The jacobian of the user-provided function is independent of input "
                           f"{i}. This is not allowed in strict mode.")
                else:
                    msg = (f"The hessian of the user-provided function is independent of entry "
                           f"{i} in the grad_jacobian. This is not allowed in strict mode as it "
                           f"prevents from using the double backward trick to replace forward "
                           f"mode AD.")
                raise GraphError(msg)
            g = wrap(np.zeros_like(refs[i]._data))
        elif strict and create_graph and g._node is None:
            what = "hessian" if "double" in stage else "jacobian"
            raise GraphError(f"The {what} of the user-provided function is independent of "
                             f"input {i}. This is not allowed in strict mode when "
                             f"create_graph=True.")
        res.append(g)
    return tuple(res)


def _check_func(func, fn_name):
    if not callable(func):
        raise DTypeError(f"{fn_name}: func must be a callable taking NDArrays, got "
                         f"{type(func).__name__}")


def _call_func(func, xs, fn_name):
    out = func(*xs)
    return _as_tuple(out, "outputs of the user-provided function", fn_name) + (out,)


def _zeros_like_var(a):
    z = wrap(np.zeros_like(a._data))
    z.attach_grad()
    return z


# ======================================================================== vjp
def vjp(func: Callable, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """Vector-Jacobian product ``v^T J`` of ``func`` at ``inputs`` (reverse mode).

    Parameters
    ----------
    func : callable
        Takes NDArrays, returns an NDArray or a tuple of NDArrays.
    inputs : NDArray or tuple of NDArray
    v : NDArray or tuple of NDArray, optional
        One array per output, of its shape; may be omitted when ``func`` returns a single
        array with one element (then it is ``1``).
    create_graph : bool, default False
        Record the computation, so the results can be differentiated again.
    strict : bool, default False
        Raise an error when some input has no effect on the outputs (instead of a zero
        vjp).

    Returns
    -------
    (outputs, vjp)
        ``func(*inputs)`` and the product, shaped like the inputs.

    Examples
    --------
    >>> import mxgrad as mx
    >>> from mxgrad.autograd.functional import vjp
    >>> out, g = vjp(lambda x: x ** 2, mx.nd.array([1., 2.]), mx.nd.array([1., 10.]))
    >>> g
    <BLANKLINE>
    [ 2. 40.]
    <NDArray 2 @cpu(0)>
    >>> out, (ga, gb) = vjp(lambda a, b: (a * b).sum(), (mx.nd.array([2.]), mx.nd.array([3.])))
    >>> ga.asscalar(), gb.asscalar()
    (3.0, 2.0)
    """
    _check_func(func, "vjp")
    with _private_scope():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        xs = _grad_preprocess(inputs, create_graph, need_graph=True)
        is_outputs_tuple, outputs, _ = _call_func(func, xs, "vjp")
        _check_requires_grad(outputs, "outputs", strict)
        if v is not None:
            v = _prep_v(v, create_graph, "vjp", outputs)
            _validate_v(v, outputs, is_outputs_tuple, "vjp")
        elif len(outputs) != 1 or outputs[0].size != 1:
            raise ShapeError("vjp: the vector v can only be None if the user-provided function "
                             "returns a single NDArray with a single element; got outputs of "
                             f"shapes {[o.shape for o in outputs]}")
        grads = _autograd_grad(outputs, xs, v, create_graph=create_graph, need_reach=strict)
        res = _fill_in_zeros(grads, xs, strict, create_graph, "back")
    outputs = _grad_postprocess(outputs, create_graph)
    res = _grad_postprocess(res, create_graph)
    return (_tuple_postprocess(outputs, is_outputs_tuple),
            _tuple_postprocess(res, is_inputs_tuple))


# ======================================================================== jvp
def jvp(func: Callable, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """Jacobian-vector product ``J v`` of ``func`` at ``inputs``, by forward mode.

    One forward pass of ``func`` on dual arrays (see :mod:`.forward_ad`) computes the
    product, whatever the number of inputs and outputs. Inside a dual level of the
    caller (forward mode cannot nest) the double-backward trick is used instead.

    Parameters
    ----------
    func : callable
        Takes NDArrays, returns an NDArray or a tuple of NDArrays.
    inputs : NDArray or tuple of NDArray
    v : NDArray or tuple of NDArray, optional
        The direction, one array per input, of its shape; may be omitted for a single
        input with one element (then it is ``1``).
    create_graph : bool, default False
        Record the computation, so the results can be differentiated again.
    strict : bool, default False
        Raise an error when some output does not depend on the inputs (instead of a zero
        jvp).

    Returns
    -------
    (outputs, jvp)
        ``func(*inputs)`` and the product, shaped like the outputs.

    Examples
    --------
    >>> import mxgrad as mx
    >>> from mxgrad.autograd.functional import jvp
    >>> out, t = jvp(lambda x: (x ** 2).sum(), mx.nd.array([1., 2.]), mx.nd.array([1., 1.]))
    >>> out.asscalar(), t.asscalar()
    (5.0, 6.0)
    """
    _check_func(func, "jvp")
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
    if fwAD.level_active():
        return _jvp_double_backward(func, inputs, is_inputs_tuple, v, create_graph, strict)
    with _private_scope(recording=bool(create_graph)):
        xs = _grad_preprocess(inputs, create_graph, need_graph=bool(create_graph))
        vs = _jvp_directions(v, xs, is_inputs_tuple, create_graph)
        with fwAD.dual_level():
            duals = [fwAD.make_dual(x, t) for x, t in zip(xs, vs)]
            is_outputs_tuple, outputs, _ = _call_func(func, duals, "jvp")
            prim, tans = [], []
            for o in outputs:
                p, t = fwAD.unpack_dual(o)
                prim.append(p)
                tans.append(t)
        for i, t in enumerate(tans):
            if t is None and strict:
                raise GraphError(f"Output {i} of the user-provided function is independent of "
                                 f"the inputs. This is not allowed in strict mode.")
        res = _fill_in_zeros(tans, prim, strict, create_graph, "back")
    outputs = _grad_postprocess(tuple(prim), create_graph)
    res = _grad_postprocess(res, create_graph)
    return (_tuple_postprocess(outputs, is_outputs_tuple),
            _tuple_postprocess(res, is_outputs_tuple))


def _jvp_directions(v, xs, is_inputs_tuple, create_graph):
    if v is None:
        if len(xs) != 1 or xs[0].size != 1:
            raise ShapeError("jvp: the vector v can only be None if the input to the "
                             "user-provided function is a single NDArray with a single "
                             f"element; got inputs of shapes {[x.shape for x in xs]}")
        return (wrap(np.ones_like(xs[0]._data)),)
    vs = _prep_v(v, create_graph, "jvp", xs)
    _validate_v(vs, xs, is_inputs_tuple, "jvp")
    return tuple(t if t._data.dtype == x._data.dtype else t.astype(x._data.dtype)
                 for t, x in zip(vs, xs))


def _jvp_double_backward(func, inputs, is_inputs_tuple, v, create_graph, strict):
    """``J v`` as the vjp of the (linear in u) vjp ``u -> J^T u``."""
    with _private_scope():
        xs = _grad_preprocess(inputs, create_graph, need_graph=True)
        vs = _jvp_directions(v, xs, is_inputs_tuple, create_graph)
        is_outputs_tuple, outputs, _ = _call_func(func, xs, "jvp")
        _check_requires_grad(outputs, "outputs", strict)
        us = tuple(_zeros_like_var(o) for o in outputs)
        gin = _autograd_grad(outputs, xs, us, create_graph=True, need_reach=strict)
        _check_requires_grad(gin, "grad_inputs", strict)
        res = _autograd_grad(gin, us, vs, create_graph=create_graph, need_reach=strict)
        res = _fill_in_zeros(res, outputs, strict, create_graph, "back_trick")
    outputs = _grad_postprocess(tuple(outputs), create_graph)
    res = _grad_postprocess(res, create_graph)
    return (_tuple_postprocess(outputs, is_outputs_tuple),
            _tuple_postprocess(res, is_outputs_tuple))


# =================================================================== jacobian
def jacobian(func: Callable, inputs, create_graph: bool = False, strict: bool = False,
             vectorize: bool = False, strategy: str = "reverse-mode"):
    """The Jacobian of ``func`` at ``inputs``.

    Parameters
    ----------
    func : callable
        Takes NDArrays, returns an NDArray or a tuple of NDArrays.
    inputs : NDArray or tuple of NDArray
    create_graph : bool, default False
        Record the computation, so the Jacobian can be differentiated again.
    strict : bool, default False
        Raise an error when some output does not depend on some input (instead of a
        zero block).
    vectorize : bool, default False
        Accepted for PyTorch compatibility; mxgrad computes the rows (or columns) one by
        one either way, and the result is the same.
    strategy : {'reverse-mode', 'forward-mode'}
        'reverse-mode' runs ``func`` once and one backward pass per output element;
        'forward-mode' runs ``func`` once per input element with a one-hot tangent
        (better when there are more outputs than inputs).

    Returns
    -------
    NDArray, tuple of NDArray or tuple of tuples
        For one input and one output, an array of shape ``out.shape + in.shape``; a tuple
        over the inputs (or the outputs) if one of them is a tuple; if both are tuples,
        ``J[i][j]`` is the Jacobian of output ``i`` w.r.t. input ``j``.

    Notes
    -----
    Unlike PyTorch, every combination of ``strategy``, ``vectorize``, ``strict`` and
    ``create_graph`` is supported (PyTorch refuses forward mode without ``vectorize``,
    and ``strict`` or ``create_graph`` with forward mode). Forward mode cannot run inside
    the caller's own ``forward_ad.dual_level`` (levels do not nest).

    Examples
    --------
    >>> import mxgrad as mx
    >>> from mxgrad.autograd.functional import jacobian
    >>> J = jacobian(lambda x: x.sum(), mx.nd.array([1., 2., 3.]))
    >>> J.shape
    (1, 3)
    >>> Ja, Jb = jacobian(lambda a, b: a * b, (mx.nd.array([1., 2.]), mx.nd.array([3., 4.])),
    ...                   strategy='forward-mode')
    >>> Jb
    <BLANKLINE>
    [[1. 0.]
     [0. 2.]]
    <NDArray 2x2 @cpu(0)>
    """
    _check_func(func, "jacobian")
    if strategy not in _STRATEGIES:
        raise StateError(f"jacobian: strategy must be 'forward-mode' or 'reverse-mode', got "
                         f"{strategy!r}. Hint: if your function has more outputs than inputs, "
                         f"'forward-mode' tends to be faster; otherwise prefer 'reverse-mode'")
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
    if strategy == "forward-mode":
        res, is_outputs_tuple = _jacobian_forward(func, inputs, create_graph, strict)
    else:
        res, is_outputs_tuple = _jacobian_reverse(func, inputs, create_graph, strict)
    res = _grad_postprocess(res, create_graph)
    return _tuple_postprocess(res, (is_outputs_tuple, is_inputs_tuple))


def _jacobian_reverse(func, inputs, create_graph, strict):
    with _private_scope():
        xs = _grad_preprocess(inputs, create_graph, need_graph=True)
        is_outputs_tuple, outputs, _ = _call_func(func, xs, "jacobian")
        _check_requires_grad(outputs, "outputs", strict)
        result = []
        for i, out in enumerate(outputs):
            reach = _reached(out, xs) if strict else None
            if strict:
                for j in range(len(xs)):
                    if j not in reach:
                        raise GraphError(f"Output {i} of the user-provided function is "
                                         f"independent of input {j}. This is not allowed in "
                                         f"strict mode.")
            rows = [[] for _ in xs]
            differentiable = bool(create_graph)
            if out._node is not None and out.size:
                for k in range(out.size):
                    # a fresh one-hot head each time: gradients may alias their head
                    head = np.zeros(out.shape, out._data.dtype)
                    head.flat[k] = 1
                    gs = _autograd_grad((out,), xs, (wrap(head),), create_graph=create_graph,
                                        retain_graph=True)
                    for j, g in enumerate(gs):
                        if create_graph and strict and g._node is None:
                            raise GraphError(f"The jacobian of the user-provided function is "
                                             f"independent of input {j}. This is not allowed "
                                             f"in strict mode when create_graph=True.")
                        if g._tan is not None:
                            differentiable = True
                        rows[j].append(g)
            blocks = []
            for j, x in enumerate(xs):
                shape = out.shape + x.shape
                if not rows[j]:
                    blocks.append(wrap(np.zeros(shape, x._data.dtype)))
                else:
                    blocks.append(_assemble(rows[j], 0, shape, differentiable))
            result.append(tuple(blocks))
    return tuple(result), is_outputs_tuple


def _jacobian_forward(func, inputs, create_graph, strict):
    if fwAD.level_active():
        raise StateError("jacobian(strategy='forward-mode') cannot run inside an active "
                         "forward_ad.dual_level (forward-AD levels do not nest); exit the "
                         "level or use strategy='reverse-mode'")
    with _private_scope(recording=bool(create_graph)):
        xs = _grad_preprocess(inputs, create_graph, need_graph=bool(create_graph))
        cols = None          # cols[i][j]: list of output-i tangents, one per input-j element
        outputs = None
        with fwAD.dual_level():
            for j, x in enumerate(xs):
                for k in range(x.size):
                    t = np.zeros(x.shape, x._data.dtype)
                    t.flat[k] = 1
                    t = wrap(t)
                    args = list(xs)
                    args[j] = fwAD.make_dual(x, t)
                    is_outputs_tuple, outs, _ = _call_func(func, args, "jacobian")
                    if cols is None:
                        outputs = [fwAD.unpack_dual(o).primal for o in outs]
                        cols = [[[] for _ in xs] for _ in outs]
                    elif len(outs) != len(cols):
                        raise ShapeError("jacobian: the user-provided function returned a "
                                         "different number of outputs on different calls")
                    for i, o in enumerate(outs):
                        cols[i][j].append(fwAD.unpack_dual(o).tangent)
                    args[j] = None
            if outputs is None:  # every input is empty: one plain call for the outputs
                is_outputs_tuple, outs, _ = _call_func(func, xs, "jacobian")
                outputs = list(outs)
                cols = [[[] for _ in xs] for _ in outs]
        result = []
        for i, out in enumerate(outputs):
            blocks = []
            for j, x in enumerate(xs):
                shape = out.shape + x.shape
                cs = cols[i][j]
                present = [c for c in cs if c is not None]
                if strict and cs and not present:
                    raise GraphError(f"Output {i} of the user-provided function is independent "
                                     f"of input {j}. This is not allowed in strict mode.")
                if strict and create_graph and any(c._node is None for c in present):
                    raise GraphError(f"The jacobian of the user-provided function is "
                                     f"independent of input {j}. This is not allowed in "
                                     f"strict mode when create_graph=True.")
                if not present:
                    blocks.append(wrap(np.zeros(shape, out._data.dtype)))
                    continue
                zero = None
                full = []
                for c in cs:
                    if c is None:
                        if zero is None:
                            zero = wrap(np.zeros(out.shape, present[0]._data.dtype))
                        c = zero
                    full.append(c)
                diff = bool(create_graph) or any(c._tan is not None for c in present)
                blocks.append(_assemble(full, out.ndim, shape, diff))
            result.append(tuple(blocks))
    return tuple(result), is_outputs_tuple


# ==================================================================== hessian
def _scalar_output(func, strict, fn_name):
    def f(*inp):
        out = func(*inp)
        is_tuple, t_out = _as_tuple(out, "outputs of the user-provided function", fn_name)
        _check_requires_grad(t_out, "outputs", strict)
        if is_tuple:
            raise ShapeError(f"The function given to {fn_name} should return a single NDArray "
                             f"(it returned a tuple of {len(t_out)})")
        if out.size != 1:
            raise ShapeError(f"The NDArray returned by the function given to {fn_name} should "
                             f"contain a single element (a scalar function, e.g. y.sum()); "
                             f"got shape {out.shape}")
        return out
    return f


def hessian(func: Callable, inputs, create_graph: bool = False, strict: bool = False,
            vectorize: bool = False, outer_jacobian_strategy: str = "reverse-mode"):
    """The Hessian of a scalar function ``func`` at ``inputs``.

    Parameters
    ----------
    func : callable
        Takes NDArrays, returns one NDArray with a single element (shape ``(1,)``).
    inputs : NDArray or tuple of NDArray
    create_graph : bool, default False
        Record the computation, so the Hessian can be differentiated again.
    strict : bool, default False
        Raise an error when the gradient w.r.t. some input does not depend on the inputs.
    vectorize : bool, default False
        Accepted for PyTorch compatibility (see :func:`jacobian`).
    outer_jacobian_strategy : {'reverse-mode', 'forward-mode'}
        How the Jacobian of the gradient is computed: reverse-over-reverse, or
        forward-over-reverse (one pass per input element).

    Returns
    -------
    NDArray or tuple of tuples
        For one input, an array of shape ``in.shape + in.shape``; for a tuple of inputs,
        ``H[i][j]`` of shape ``in_i.shape + in_j.shape``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> from mxgrad.autograd.functional import hessian
    >>> H = hessian(lambda x, y: (x * x * y).sum(), (mx.nd.array([1.]), mx.nd.array([2.])))
    >>> [[h.asscalar() for h in row] for row in H]
    [[4.0, 2.0], [2.0, 0.0]]
    """
    _check_func(func, "hessian")
    if outer_jacobian_strategy not in _STRATEGIES:
        raise StateError(f"hessian: outer_jacobian_strategy must be 'forward-mode' or "
                         f"'reverse-mode', got {outer_jacobian_strategy!r}")
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    scalar_func = _scalar_output(func, strict, "hessian")

    def jac_func(*inp):
        from ..ops.reduce import reshape_exact
        jac = jacobian(scalar_func, inp, create_graph=True)
        jac = tuple(reshape_exact(j, x.shape) for j, x in zip(jac, inp))
        _check_requires_grad(jac, "jacobian", strict)
        return jac

    res = jacobian(jac_func, inputs, create_graph=create_graph, strict=strict,
                   vectorize=vectorize, strategy=outer_jacobian_strategy)
    return _tuple_postprocess(res, (is_inputs_tuple, is_inputs_tuple))


# ================================================================== vhp / hvp
def _hessian_products(func, inputs, v, create_graph, strict, fn_name, trick):
    _check_func(func, fn_name)
    with _private_scope():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", fn_name)
        xs = _grad_preprocess(inputs, create_graph, need_graph=True)
        if v is not None:
            vs = _prep_v(v, create_graph, fn_name, xs)
            _validate_v(vs, xs, is_inputs_tuple, fn_name)
        elif len(xs) != 1 or xs[0].size != 1:
            raise ShapeError(f"{fn_name}: the vector v can only be None if the input to the "
                             f"user-provided function is a single NDArray with a single "
                             f"element; got inputs of shapes {[x.shape for x in xs]}")
        else:
            vs = (wrap(np.ones_like(xs[0]._data)),)
        out = _scalar_output(func, strict, fn_name)(*xs)
        jac = _autograd_grad((out,), xs, create_graph=True, need_reach=strict)
        _check_requires_grad(jac, "jacobian", strict)
        if trick:   # H v = d/du <grad_x <jac, u>, v>: double backward (as PyTorch's hvp)
            us = tuple(_zeros_like_var(x) for x in xs)
            dbl = _autograd_grad(jac, xs, us, create_graph=True, need_reach=strict)
            res = _autograd_grad(dbl, us, vs, create_graph=create_graph, need_reach=strict)
            res = _fill_in_zeros(res, xs, strict, create_graph, "double_back_trick")
        else:       # v^T H = grad_x <jac, v>
            res = _autograd_grad(jac, xs, vs, create_graph=create_graph, need_reach=strict)
            res = _fill_in_zeros(res, xs, strict, create_graph, "double_back")
    out = _grad_postprocess(out, create_graph)
    res = _grad_postprocess(res, create_graph)
    return out, _tuple_postprocess(res, is_inputs_tuple)


def vhp(func: Callable, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """Vector-Hessian product ``v^T H`` of a scalar function at ``inputs``.

    Parameters
    ----------
    func : callable
        Takes NDArrays, returns one NDArray with a single element.
    inputs : NDArray or tuple of NDArray
    v : NDArray or tuple of NDArray, optional
        One array per input, of its shape (optional for one input with one element).
    create_graph, strict : bool
        As in :func:`vjp`.

    Returns
    -------
    (output, vhp)
        ``func(*inputs)`` and the product, shaped like the inputs.

    Examples
    --------
    >>> import mxgrad as mx
    >>> from mxgrad.autograd.functional import vhp
    >>> out, p = vhp(lambda x: (x ** 3).sum(), mx.nd.array([1., 2.]), mx.nd.array([1., 1.]))
    >>> out.asscalar(), p.asnumpy().tolist()
    (9.0, [6.0, 12.0])
    """
    return _hessian_products(func, inputs, v, create_graph, strict, "vhp", trick=False)


def hvp(func: Callable, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """Hessian-vector product ``H v`` of a scalar function at ``inputs``.

    Computed with the double-backward trick, as PyTorch does (for a twice continuously
    differentiable function ``H`` is symmetric and :func:`vhp` gives the same result,
    faster).

    Parameters
    ----------
    func : callable
        Takes NDArrays, returns one NDArray with a single element.
    inputs : NDArray or tuple of NDArray
    v : NDArray or tuple of NDArray, optional
        One array per input, of its shape (optional for one input with one element).
    create_graph, strict : bool
        As in :func:`vjp`.

    Returns
    -------
    (output, hvp)
        ``func(*inputs)`` and the product, shaped like the inputs.

    Examples
    --------
    >>> import mxgrad as mx
    >>> from mxgrad.autograd.functional import hvp
    >>> out, p = hvp(lambda x, y: (x * y * y).sum(), (mx.nd.array([1.]), mx.nd.array([3.])),
    ...              (mx.nd.array([1.]), mx.nd.array([0.])))
    >>> [a.asscalar() for a in p]
    [0.0, 6.0]
    """
    return _hessian_products(func, inputs, v, create_graph, strict, "hvp", trick=True)

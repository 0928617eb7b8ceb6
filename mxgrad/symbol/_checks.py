"""MXNet's operator checks on Symbols (``mx.test_utils.check_symbolic_forward``,
``check_symbolic_backward``, ``check_numeric_gradient(sym, ...)``, ``check_consistency``,
``simple_forward``), built on :meth:`Symbol.bind` / :meth:`Symbol.simple_bind` as MXNet 1.9.1's
are, so MXNet's operator tests run unchanged. ``mx.test_utils`` re-exports them.

Examples
--------
>>> import numpy as np
>>> import mxgrad as mx
>>> a, b = mx.sym.var('a'), mx.sym.var('b')
>>> x, y = np.array([[1., 2.]]), np.array([[3., 4.]])
>>> _ = check_symbolic_forward(a * b, [x, y], [x * y])
>>> _ = check_symbolic_backward(a * b, [x, y], [np.ones((1, 2))], [y, x])
>>> check_numeric_gradient(mx.sym.sin(a) * b, {'a': x, 'b': y}, numeric_eps=1e-3, rtol=1e-2)
"""
from __future__ import annotations

import traceback
from typing import Any, Dict, List, Optional

import numpy as np

from .. import ndarray as nd
from .. import _test_compare as _cmp
from ..base import StateError, DTypeError
from ..context import current_context
from .._engine.ndarray import NDArray
from ._core import Symbol

__all__ = ["check_symbolic_forward", "check_symbolic_backward", "check_numeric_gradient",
           "check_consistency", "simple_forward", "numeric_grad"]

_FLOATS = (np.float16, np.float32, np.float64)


def _check_dtype(dtype, allow_asnumpy=True) -> None:
    if (allow_asnumpy and isinstance(dtype, str) and dtype == "asnumpy") or \
            (not isinstance(dtype, str) and dtype in _FLOATS):
        return
    allowed = ('"asnumpy", ' if allow_asnumpy else "") + "np.float16, np.float32 or np.float64"
    raise DTypeError(f"dtype must be {allowed}, got {dtype!r}")


def _as_nd(v, ctx, dtype) -> NDArray:
    if isinstance(v, NDArray):
        return v
    a = np.asarray(v)
    dt = a.dtype if isinstance(dtype, str) else dtype
    return nd.array(a, ctx=ctx, dtype=dt)


def _parse_location(sym: Symbol, location, ctx, dtype) -> Dict[str, NDArray]:
    """``location`` (a list in :meth:`~Symbol.list_arguments` order or a dict by name) as
    NDArrays of ``dtype`` (``"asnumpy"``: each array's own)."""
    names = sym.list_arguments()
    if isinstance(location, dict):
        if set(location) != set(names):
            raise StateError(f"Symbol arguments and keys of the given location do not match. "
                             f"symbol args:{set(names)}, location.keys():{set(location)}")
    elif isinstance(location, (list, tuple)):
        if len(location) != len(names):
            raise StateError(f"location has {len(location)} arrays for the {len(names)} "
                             f"arguments {names}")
        location = dict(zip(names, location))
    else:
        raise DTypeError(f"location must be a list or a dict of arrays, got "
                         f"{type(location).__name__}")
    return {k: _as_nd(location[k], ctx, dtype) for k in sorted(location)}


def _parse_aux_states(sym: Symbol, aux_states, ctx, dtype) -> Optional[Dict[str, NDArray]]:
    if aux_states is None:
        return None
    names = sym.list_auxiliary_states()
    if isinstance(aux_states, dict):
        if set(aux_states) != set(names):
            raise StateError(f"Symbol aux_states names and given aux_states do not match. "
                             f"symbol aux_names:{set(names)}, aux_states.keys:{set(aux_states)}")
    else:
        aux_states = dict(zip(names, aux_states))
    return {k: _as_nd(v, ctx, dtype) for k, v in aux_states.items()}


def _ctx(ctx):
    return ctx if ctx is not None else current_context()


def simple_forward(sym: Symbol, ctx=None, is_train: bool = False, **inputs) -> Any:
    """Run ``sym`` on NumPy ``inputs`` (by name); the output as NumPy, or a list of them.

    Examples
    --------
    >>> import mxgrad as mx
    >>> simple_forward(mx.sym.var('x') * 2, x=np.array([1., 2.])).tolist()
    [2.0, 4.0]
    """
    ctx = _ctx(ctx)
    exe = sym.bind(ctx, args={k: nd.array(v, ctx=ctx) for k, v in inputs.items()})
    exe.forward(is_train=is_train)
    outs = [o.asnumpy() for o in exe.outputs]
    return outs[0] if len(outs) == 1 else outs


def check_symbolic_forward(sym: Symbol, location, expected, rtol=None, atol=None,
                           aux_states=None, ctx=None, equal_nan: bool = False,
                           dtype=np.float32) -> List[NDArray]:
    """Bind ``sym`` at ``location``, run forward (not training) and compare each output
    with ``expected`` (a list in :meth:`~Symbol.list_outputs` order or a dict by name);
    returns the outputs."""
    _check_dtype(dtype)
    ctx = _ctx(ctx)
    location = _parse_location(sym, location, ctx, dtype)
    aux = _parse_aux_states(sym, aux_states, ctx, dtype)
    if isinstance(expected, dict):
        expected = [expected[k] for k in sym.list_outputs()]
    grads = {k: nd.zeros(v.shape, ctx=ctx, dtype=v.dtype) for k, v in location.items()}
    exe = sym.bind(ctx, args=location, args_grad=grads, aux_states=aux)
    exe.forward(is_train=False)
    for name, want, got in zip(sym.list_outputs(), expected, exe.outputs):
        _cmp.assert_almost_equal(want, got, rtol, atol, (f"EXPECTED_{name}", f"FORWARD_{name}"),
                                 equal_nan=equal_nan)
    return exe.outputs


def _grad_req_dict(grad_req, names) -> Dict[str, str]:
    if isinstance(grad_req, str):
        return {k: grad_req for k in names}
    if isinstance(grad_req, (list, tuple)):
        return dict(zip(names, grad_req))
    return dict(grad_req)


def check_symbolic_backward(sym: Symbol, location, out_grads, expected, rtol=None, atol=None,
                            aux_states=None, grad_req="write", ctx=None, grad_stypes=None,
                            equal_nan: bool = False, dtype=np.float32) -> Dict[str, NDArray]:
    """Bind ``sym`` at ``location``, run forward (training) and backward with ``out_grads``
    (list, dict by output name, or None for loss outputs) and compare the gradients with
    ``expected`` (list in argument order or dict by name) as ``grad_req`` says: ``write``
    the gradient, ``add`` what was added to random initial buffers, ``null`` buffers left
    as they were. Returns the gradient arrays by name."""
    _check_dtype(dtype)
    ctx = _ctx(ctx)
    location = _parse_location(sym, location, ctx, dtype)
    aux = _parse_aux_states(sym, aux_states, ctx, dtype)
    if isinstance(expected, (list, tuple)):
        expected = dict(zip(sym.list_arguments(), expected))
    rng = np.random
    init = {k: rng.normal(size=np.shape(v)) for k, v in sorted(expected.items())}
    grads = {}
    for k, v in init.items():
        dt = np.asarray(expected[k]).dtype if isinstance(dtype, str) else dtype
        grads[k] = nd.array(v, ctx=ctx, dtype=dt)
    reqs = _grad_req_dict(grad_req, sym.list_arguments())
    exe = sym.bind(ctx, args=location, args_grad=grads, aux_states=aux, grad_req=reqs)
    exe.forward(is_train=True)
    if isinstance(out_grads, (list, tuple)):
        out_grads = [_as_nd(g, ctx, dtype) for g in out_grads]
    elif isinstance(out_grads, dict):
        out_grads = {k: _as_nd(g, ctx, dtype) for k, g in out_grads.items()}
    elif isinstance(out_grads, np.ndarray):
        out_grads = [_as_nd(out_grads, ctx, dtype)]
    if any(r != "null" for r in reqs.values()):
        exe.backward(out_grads)     # (with every grad_req 'null' a backward changes nothing)
    tu = _cmp
    for name in expected:
        names = (f"EXPECTED_{name}", f"BACKWARD_{name}")
        req = reqs.get(name, "null")
        got = grads[name].asnumpy()
        if req == "write":
            tu.assert_almost_equal(expected[name], got, rtol, atol, names, equal_nan=equal_nan)
        elif req == "add":
            tu.assert_almost_equal(expected[name], got - init[name], rtol, atol, names,
                                   equal_nan=equal_nan)
        elif req == "null":
            tu.assert_almost_equal(init[name], got, rtol, atol, names, equal_nan=equal_nan)
        else:
            raise StateError(f"Invalid grad_req {req} for argument {name}")
    return grads


def numeric_grad(executor, location: Dict[str, np.ndarray], aux_states=None, eps: float = 1e-4,
                 use_forward_train: bool = True, dtype=np.float32) -> Dict[str, np.ndarray]:
    """Central differences of the sum of ``executor``'s first output with respect to each
    floating-point argument in ``location`` (NumPy arrays by name), each element moved by
    ``±eps/2`` (MXNet's ``numeric_grad``)."""
    _check_dtype(dtype, allow_asnumpy=False)
    approx = {k: np.zeros(v.shape, dtype=dtype) for k, v in location.items()}
    args = executor.arg_dict
    for k, v in location.items():
        args[k][...] = v.astype(dtype)

    def run() -> float:
        if aux_states is not None:
            for key, val in aux_states.items():
                executor.aux_dict[key][...] = val
        executor.forward(is_train=use_forward_train)
        return executor.outputs[0].asnumpy().astype(np.float64).sum()

    for k, v in location.items():
        v = np.array(v, order="C")
        if v.dtype.kind != "f":
            continue
        flat = v.reshape(-1)
        for i in range(flat.size):
            old = flat[i]
            flat[i] = old + eps / 2.0
            args[k][...] = v.astype(dtype)
            f_plus = run()
            flat[i] = old - eps / 2.0
            args[k][...] = v.astype(dtype)
            f_minus = run()
            approx[k].reshape(-1)[i] = (f_plus - f_minus) / eps
            flat[i] = old
        args[k][...] = v.astype(dtype)
    return approx


def check_numeric_gradient(sym: Symbol, location, aux_states=None, numeric_eps=None, rtol=None,
                           atol=None, grad_nodes=None, use_forward_train: bool = True, ctx=None,
                           grad_stype_dict=None, dtype=np.float32) -> None:
    """Check ``sym``'s backward against finite differences (MXNet's form): the gradients
    of ``sum(sym * P)`` for a random projection ``P`` at ``location`` (list or dict), for
    ``grad_nodes`` (names, or a dict name -> grad_req), with ``numeric_eps``, ``rtol``,
    ``atol`` and ``dtype`` as MXNet's defaults give them."""
    from .. import symbol as S
    _check_dtype(dtype, allow_asnumpy=False)
    ctx = _ctx(ctx)
    loc = _parse_location(sym, location, ctx, dtype)
    loc_np = {k: v.asnumpy() for k, v in loc.items()}
    aux = _parse_aux_states(sym, aux_states, ctx, dtype)
    aux_np = {k: v.asnumpy() for k, v in aux.items()} if aux is not None else None
    if grad_nodes is None:
        grad_nodes = sym.list_arguments()
        reqs = {k: "write" for k in grad_nodes}
    elif isinstance(grad_nodes, (list, tuple)):
        grad_nodes = list(grad_nodes)
        reqs = {k: "write" for k in grad_nodes}
    elif isinstance(grad_nodes, dict):
        reqs = dict(grad_nodes)
        grad_nodes = list(grad_nodes)
    else:
        raise DTypeError(f"grad_nodes must be a list or a dict, got {type(grad_nodes).__name__}")
    _, out_shapes, _ = sym.infer_shape(**{k: v.shape for k, v in loc.items()})
    if out_shapes is None or len(out_shapes) != 1:
        raise StateError("check_numeric_gradient: the Symbol must have one output whose shape "
                         "the location determines")
    proj = S.var("__random_proj")
    out = S.make_loss(sym * proj)
    loc["__random_proj"] = nd.array(np.random.rand(*out_shapes[0]) + 0.1, ctx=ctx, dtype=dtype)
    init = {k: np.random.normal(0, 0.01, size=loc[k].shape) for k in grad_nodes}
    init["__random_proj"] = np.random.normal(0, 0.01, size=out_shapes[0])
    grads = {k: nd.array(v, ctx=ctx, dtype=dtype) for k, v in init.items()}
    exe = out.bind(ctx, args=loc, args_grad=grads, grad_req=reqs, aux_states=aux)
    exe.forward(is_train=True)
    tu = _cmp
    eps = tu.get_tolerance(exe.outputs[0], numeric_eps, tu.default_numeric_eps())
    exe.backward()
    loc_np["__random_proj"] = loc["__random_proj"].asnumpy()
    numeric = numeric_grad(exe, {k: v for k, v in loc_np.items()}, aux_np, eps=eps,
                           use_forward_train=use_forward_train, dtype=dtype)
    for name in grad_nodes:
        fd, got = numeric[name], grads[name].asnumpy()
        names = (f"NUMERICAL_{name}", f"BACKWARD_{name}")
        req = reqs[name]
        if req == "write":
            tu.assert_almost_equal(fd, got, rtol, atol, names)
        elif req == "add":
            tu.assert_almost_equal(fd, got - init[name], rtol, atol, names)
        elif req == "null":
            tu.assert_almost_equal(init[name], got, rtol, atol, names)
        else:
            raise StateError(f"Invalid grad_req {req} for argument {name}")


def _smaller_dtype(dt1, dt2):
    return dt1 if dt2 is None or np.dtype(dt1).itemsize < np.dtype(dt2).itemsize else dt2


def check_consistency(sym, ctx_list, scale: float = 1.0, grad_req="write", arg_params=None,
                      aux_params=None, rtol=None, atol=None, raise_on_err: bool = True,
                      ground_truth=None, equal_nan: bool = False, use_uniform: bool = False,
                      rand_type=np.float64) -> Dict[str, Any]:
    """Run ``sym`` (or one Symbol per entry) bound by ``simple_bind(**ctx)`` for each dict of
    ``ctx_list`` (context, shapes, ``type_dict``) on the same random inputs, and check that
    outputs and gradients agree with the most precise run (or ``ground_truth``)."""
    if len(ctx_list) < 2:
        raise StateError("check_consistency needs at least two entries in ctx_list")
    syms = [sym] * len(ctx_list) if isinstance(sym, Symbol) else list(sym)
    if len(syms) != len(ctx_list):
        raise StateError("check_consistency: one Symbol per entry of ctx_list")
    out_names, arg_names = syms[0].list_outputs(), syms[0].list_arguments()
    exes = []
    for s, c in zip(syms, ctx_list):
        if s.list_arguments() != arg_names or s.list_outputs() != out_names:
            raise StateError("check_consistency: the Symbols differ in arguments or outputs")
        exes.append(s.simple_bind(grad_req=grad_req, **c))
    arg_params = {} if arg_params is None else arg_params
    aux_params = {} if aux_params is None else aux_params
    for n, arr in sorted(exes[0].arg_dict.items()):
        if n not in arg_params:
            if use_uniform:
                arg_params[n] = np.random.uniform(-0.92 * scale, 0.92 * scale,
                                                  size=arr.shape).astype(rand_type)
            else:
                arg_params[n] = np.random.normal(size=arr.shape, scale=scale).astype(rand_type)
    for n in exes[0].aux_dict:
        aux_params.setdefault(n, 0)
    for exe in exes:
        for n, arr in exe.arg_dict.items():
            arr[:] = arg_params[n]
        for n, arr in exe.aux_dict.items():
            arr[:] = aux_params[n]
        if grad_req == "add":
            for arr in exe.grad_arrays:
                if arr is not None:
                    arr[:] = 0
    dtypes = [np.dtype(exe.outputs[0].dtype) for exe in exes]
    gt_idx = int(np.argmax([d.itemsize for d in dtypes]))
    gt = ground_truth
    if gt is None:
        gt = dict(exes[gt_idx].output_dict)
        if grad_req != "null":
            gt.update(exes[gt_idx].grad_dict)
    for exe in exes:
        exe.forward(is_train=False)
    tu = _cmp

    def compare(arr, want, rt, at, what, i):
        try:
            tu.assert_almost_equal(arr, want, rtol=rt, atol=at, equal_nan=equal_nan)
        except AssertionError:
            print(f"{what} Err: ctx {i} vs ctx {gt_idx}")
            traceback.print_exc()
            if raise_on_err:
                raise

    for i, exe in enumerate(exes):
        if i != gt_idx:
            for name, arr in zip(out_names, exe.outputs):
                compare(arr, gt[name], rtol, atol, f"Predict at {name}", i)
    if grad_req != "null":
        for exe in exes:
            exe.forward(is_train=True)
        least = [o.dtype for o in exes[0].outputs]
        for exe in exes:
            least = [_smaller_dtype(o.dtype, dt) for o, dt in zip(exe.outputs, least)]
        golden = [o.asnumpy().astype(dt) for o, dt in zip(exes[0].outputs, least)]
        for exe in exes:
            exe.backward([nd.array(g, dtype=o.dtype) for g, o in zip(golden, exe.outputs)])
        for i, exe in enumerate(exes):
            if i == gt_idx:
                continue
            for name, arr in zip(out_names + arg_names, list(exe.outputs) + list(exe.grad_arrays)):
                want = gt[name]
                if want is None:
                    if arr is not None:
                        raise AssertionError(f"check_consistency: {name} has a gradient in "
                                             f"ctx {i} but not in ctx {gt_idx}")
                    continue
                rt, at = rtol, atol
                small_arr = _smaller_dtype(arr.dtype, dtypes[i])
                small_gt = _smaller_dtype(want.dtype, dtypes[gt_idx])
                if small_arr != arr.dtype or small_gt != want.dtype:
                    rt, at = tu.get_tols(arr.astype(small_arr), want.astype(small_gt), rtol, atol)
                compare(arr, want, rt, at, f"Train at {name}", i)
    return gt

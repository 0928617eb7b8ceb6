"""Testing helpers: numerical gradient checks and closeness assertions.

Examples
--------
>>> import mxgrad as mx
>>> check_numeric_gradient(lambda x: (x * x).sum(), [mx.nd.array([1., 2.])])
True
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from .base import MXNetError
from .ndarray.ndarray import NDArray, wrap

__all__ = ["assert_almost_equal", "almost_equal", "numeric_grad", "check_numeric_gradient",
           "check_second_order", "check_jvp", "check_gradgrad", "default_context", "same",
           "rand_ndarray", "rand_shape_nd"]


def default_context():
    """The default context, ``cpu(0)``."""
    from .context import cpu
    return cpu()


def _np(x):
    return x.asnumpy() if isinstance(x, NDArray) else np.asarray(x)


def almost_equal(a, b, rtol=1e-5, atol=1e-20, equal_nan=False) -> bool:
    """Whether ``a`` and ``b`` are elementwise close."""
    return bool(np.allclose(_np(a), _np(b), rtol=rtol, atol=atol, equal_nan=equal_nan))


def assert_almost_equal(a, b, rtol=1e-5, atol=1e-20, names=("a", "b"), equal_nan=False):
    """Assert that ``a`` and ``b`` (NDArrays or NumPy arrays) are elementwise close.

    Examples
    --------
    >>> import mxgrad as mx
    >>> assert_almost_equal(mx.nd.array([1.]), [1.0000001])
    """
    np.testing.assert_allclose(_np(a), _np(b), rtol=rtol, atol=atol, equal_nan=equal_nan,
                               err_msg=f"{names[0]} and {names[1]} differ")


def same(a, b) -> bool:
    """Whether two arrays are exactly equal."""
    return bool(np.array_equal(_np(a), _np(b)))


def rand_shape_nd(num_dim, dim=10):
    """A random shape with ``num_dim`` dimensions, each in ``[1, dim]``."""
    return tuple(np.random.randint(1, dim + 1, size=num_dim).tolist())


def rand_ndarray(shape, dtype="float32", **kwargs) -> NDArray:
    """A random uniform array of ``shape``."""
    return wrap(np.random.uniform(-1, 1, size=shape).astype(dtype))


def _scalar_fn(f, inputs, head):
    """Return a function of float64 NumPy inputs giving sum(head * f(inputs))."""
    def g(*arrays):
        out = f(*[wrap(a) for a in arrays])
        outs = out if isinstance(out, (list, tuple)) else [out]
        total = 0.0
        for k, o in enumerate(outs):
            total += float(np.sum(o.asnumpy().astype(np.float64) * head[k]))
        return total
    return g


def numeric_grad(f: Callable[..., float], arrays: Sequence[np.ndarray], eps: float = 1e-6):
    """Central-difference gradients of a scalar function of float64 arrays."""
    grads = []
    arrays = [np.array(a, dtype=np.float64) for a in arrays]
    for i, a in enumerate(arrays):
        g = np.zeros_like(a)
        flat, gflat = a.reshape(-1), g.reshape(-1)
        for j in range(flat.size):
            old = flat[j]
            flat[j] = old + eps
            fp = f(*arrays)
            flat[j] = old - eps
            fm = f(*arrays)
            flat[j] = old
            gflat[j] = (fp - fm) / (2 * eps)
        grads.append(g)
    return grads


def check_numeric_gradient(fn: Callable, inputs: Sequence, head_grads=None, eps: float = 1e-6,
                           rtol: float = 1e-4, atol: float = 1e-6, grad_nodes=None) -> bool:
    """Check the autograd gradients of ``fn`` against central differences in float64.

    Parameters
    ----------
    fn : callable
        Takes NDArrays, returns an NDArray or a tuple of them.
    inputs : sequence of NDArray or array-like
        Points at which to check; they are converted to float64.
    head_grads : sequence of arrays, optional
        Weights of each output (random when omitted).

    Returns
    -------
    True, or raises ``AssertionError`` naming the input that differs.

    Examples
    --------
    >>> import mxgrad as mx
    >>> check_numeric_gradient(mx.nd.sin, [mx.nd.array([0.3, 1.2])])
    True
    """
    from . import autograd
    xs = [np.array(_np(x), dtype=np.float64) for x in inputs]
    vars_ = [wrap(x.copy()) for x in xs]
    for v in vars_:
        v.attach_grad()
    with autograd.record():
        out = fn(*vars_)
    outs = list(out) if isinstance(out, (list, tuple)) else [out]
    rng = np.random.default_rng(0)
    if head_grads is None:
        head = [rng.uniform(0.5, 1.5, size=o.shape) for o in outs]
    else:
        head = [np.asarray(_np(h), dtype=np.float64) for h in head_grads]
    autograd.backward(outs, [wrap(h) for h in head])
    num = numeric_grad(_scalar_fn(fn, xs, head), xs, eps)
    for i, (v, n) in enumerate(zip(vars_, num)):
        if grad_nodes is not None and i not in grad_nodes:
            continue
        np.testing.assert_allclose(v.grad.asnumpy(), n, rtol=rtol, atol=atol,
                                   err_msg=f"gradient of input {i} differs from the "
                                           f"numerical gradient")
    return True


def check_second_order(fn: Callable, inputs: Sequence, eps: float = 1e-5, rtol: float = 1e-3,
                       atol: float = 1e-5) -> bool:
    """Check second derivatives: the gradient of ``sum(v * grad(fn))`` (computed with
    ``create_graph=True``) against central differences of the first gradient.

    Examples
    --------
    >>> import mxgrad as mx
    >>> check_second_order(lambda x: x ** 3, [mx.nd.array([0.5, 2.])])
    True
    """
    from . import autograd
    xs = [np.array(_np(x), dtype=np.float64) for x in inputs]
    rng = np.random.default_rng(1)
    vars_ = [wrap(x.copy()) for x in xs]
    for v in vars_:
        v.attach_grad()
    with autograd.record():
        out = fn(*vars_)
    outs = list(out) if isinstance(out, (list, tuple)) else [out]
    head = [rng.uniform(0.5, 1.5, size=o.shape) for o in outs]
    weights = [rng.uniform(0.5, 1.5, size=x.shape) for x in xs]
    with autograd.record():
        out = fn(*vars_)
        outs = list(out) if isinstance(out, (list, tuple)) else [out]
        grads = autograd.grad(outs, vars_, [wrap(h) for h in head], create_graph=True)
        total = None
        for g, w in zip(grads, weights):
            term = (g * wrap(w)).sum()
            total = term if total is None else total + term
    if total._node is None:
        analytic = [np.zeros_like(x) for x in xs]
    else:
        analytic = [g.asnumpy() for g in autograd.grad(total, vars_)]

    def first(*arrays):
        vs = [wrap(a.copy()) for a in arrays]
        for v in vs:
            v.attach_grad()
        with autograd.record():
            o = fn(*vs)
            os_ = list(o) if isinstance(o, (list, tuple)) else [o]
        gs = autograd.grad(os_, vs, [wrap(h) for h in head])
        return float(sum(np.sum(g.asnumpy() * w) for g, w in zip(gs, weights)))

    num = numeric_grad(first, xs, eps)
    for i, (a, n) in enumerate(zip(analytic, num)):
        np.testing.assert_allclose(a, n, rtol=rtol, atol=atol,
                                   err_msg=f"second derivative of input {i} differs from "
                                           f"the numerical one")
    return True


def _outs_f64(out):
    outs = list(out) if isinstance(out, (list, tuple)) else [out]
    return [o.asnumpy().astype(np.float64) for o in outs]


def check_jvp(fn: Callable, inputs: Sequence, tangents=None, eps: float = 1e-6,
              rtol: float = 1e-4, atol: float = 1e-6, seed: int = 0) -> bool:
    """Check forward-mode AD: the tangents of ``fn``'s outputs computed with dual arrays
    (``autograd.forward_ad``) against central differences of ``fn`` along the tangents,
    in float64.

    Parameters
    ----------
    fn : callable
        Takes NDArrays, returns an NDArray or a tuple of them.
    inputs : sequence of NDArray or array-like
        Point of the check; converted to float64.
    tangents : sequence of arrays, optional
        One direction per input (random normal when omitted).
    eps, rtol, atol : float
        Finite-difference step and tolerances.
    seed : int
        Seed of the random tangents.

    Returns
    -------
    True, or raises ``AssertionError`` naming the output that differs.

    Examples
    --------
    >>> import mxgrad as mx
    >>> check_jvp(lambda x, y: mx.nd.sin(x) * y,
    ...           [mx.nd.array([0.3, 1.2]), mx.nd.array([2., 3.])])
    True
    """
    from .autograd import forward_ad
    xs = [np.array(_np(x), dtype=np.float64) for x in inputs]
    rng = np.random.default_rng(seed)
    if tangents is None:
        ts = [rng.standard_normal(x.shape) for x in xs]
    else:
        ts = [np.array(_np(t), dtype=np.float64).reshape(x.shape) for t, x in zip(tangents, xs)]
    with forward_ad.dual_level():
        duals = [forward_ad.make_dual(wrap(x.copy()), wrap(t.copy())) for x, t in zip(xs, ts)]
        out = fn(*duals)
        outs = list(out) if isinstance(out, (list, tuple)) else [out]
        analytic = []
        for o in outs:
            t = forward_ad.unpack_dual(o).tangent
            analytic.append(None if t is None else t.asnumpy().astype(np.float64))
    plus = _outs_f64(fn(*[wrap(x + eps * t) for x, t in zip(xs, ts)]))
    minus = _outs_f64(fn(*[wrap(x - eps * t) for x, t in zip(xs, ts)]))
    for k, (a, p, m) in enumerate(zip(analytic, plus, minus)):
        num = (p - m) / (2 * eps)
        if a is None:
            a = np.zeros_like(num)
        np.testing.assert_allclose(a, num, rtol=rtol, atol=atol,
                                   err_msg=f"forward-mode tangent of output {k} differs from "
                                           f"the numerical directional derivative")
    return True


def check_gradgrad(fn: Callable, inputs: Sequence, grad_outputs=None, eps: float = 1e-6,
                   rtol: float = 1e-4, atol: float = 1e-6, seed: int = 0) -> bool:
    """Check second-order reverse mode, like PyTorch's ``gradgradcheck``.

    The vector-Jacobian product ``G(x, u) = grad(fn(x), x, head_grads=u)`` is computed
    with ``create_graph=True`` and differentiated again, with respect to the inputs ``x``
    and to the head gradients ``u``; both are compared with central differences of
    ``G`` (float64). Works for built-in ops and for custom ``autograd.Function``
    classes whose backward is written with differentiable ops.

    Parameters
    ----------
    fn : callable
        Takes NDArrays, returns an NDArray or a tuple of them.
    inputs : sequence of NDArray or array-like
        Point of the check; converted to float64.
    grad_outputs : sequence of arrays, optional
        The head gradients ``u`` (random when omitted), one per output.
    eps, rtol, atol : float
        Finite-difference step and tolerances.

    Returns
    -------
    True, or raises ``AssertionError`` naming what differs.

    Examples
    --------
    >>> import mxgrad as mx
    >>> check_gradgrad(lambda x, y: mx.nd.exp(x) * y * y, [mx.nd.array([0.1, 0.7]),
    ...                                                   mx.nd.array([1.5, -2.])])
    True
    """
    from . import autograd
    xs = [np.array(_np(x), dtype=np.float64) for x in inputs]
    rng = np.random.default_rng(seed)
    with autograd.pause():
        probe = fn(*[wrap(x.copy()) for x in xs])
    probe = list(probe) if isinstance(probe, (list, tuple)) else [probe]
    if grad_outputs is None:
        us = [rng.uniform(0.5, 1.5, size=o.shape) for o in probe]
    else:
        us = [np.array(_np(u), dtype=np.float64) for u in grad_outputs]
    nx = len(xs)
    weights = [rng.uniform(0.5, 1.5, size=x.shape) for x in xs]

    def first(x_arrays, u_arrays, create_graph):
        vs = [wrap(a.copy()) for a in x_arrays]
        hs = [wrap(a.copy()) for a in u_arrays]
        for v in vs + hs:
            v.attach_grad()
        with autograd.record():
            o = fn(*vs)
            os_ = list(o) if isinstance(o, (list, tuple)) else [o]
            gs = autograd.grad(os_, vs, hs, create_graph=create_graph)
            total = None
            for g, w in zip(gs, weights):
                term = (g * wrap(w)).sum()
                total = term if total is None else total + term
        return vs, hs, total

    vs, hs, total = first(xs, us, True)
    if total._node is None:
        analytic = [np.zeros_like(a) for a in xs + us]
    else:
        analytic = [g.asnumpy() for g in autograd.grad(total, vs + hs)]

    def scalar(*arrays):
        _, _, t = first(arrays[:nx], arrays[nx:], False)
        return float(t.asscalar())

    num = numeric_grad(scalar, xs + us, eps)
    for i, (a, n) in enumerate(zip(analytic, num)):
        what = f"input {i}" if i < nx else f"head gradient {i - nx}"
        np.testing.assert_allclose(a, n, rtol=rtol, atol=atol,
                                   err_msg=f"second-order gradient w.r.t. {what} differs from "
                                           f"the numerical one")
    return True

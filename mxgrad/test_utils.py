"""Testing helpers: numerical gradient checks and closeness assertions.

Examples
--------
>>> import mxgrad as mx
>>> check_numeric_gradient(lambda x: (x * x).sum(), [mx.nd.array([1., 2.])])
True
"""
from __future__ import annotations

import contextlib
import functools
import numbers
import os
import sys
from typing import (TYPE_CHECKING, Any, Callable, Iterator, Optional, Sequence, Tuple, Type,
                    Union, cast)

import numpy as np

import json
import logging
import time
from collections import OrderedDict

import numpy.random as rnd
import numpy.testing as npt

from . import ndarray as _nd
from .base import ArgumentTypeError, DTypeError, ShapeError, StateError
from .context import Context, current_context
from ._engine.ndarray import NDArray, wrap
from .ndarray import array
from .util import getenv, setenv, use_np
from ._typing import Axis, DTypeLike

if TYPE_CHECKING:
    from .optimizer import Optimizer
    import mxgrad as mx   # set by mxgrad/__init__ (no import of the package from here)

_Arr = Union[NDArray, np.ndarray]

__all__ = ["assert_almost_equal", "almost_equal", "assert_allclose",
           "assert_almost_equal_ignore_nan", "numeric_grad", "check_numeric_gradient",
           "check_second_order", "check_jvp", "check_gradgrad", "default_context",
           "set_default_context", "default_dtype", "default_rtols", "default_atols",
           "default_numeric_eps", "get_tolerance", "get_tols", "get_rtol", "get_atol", "get_etol",
           "same", "same_array", "assert_exception", "retry", "environment", "discard_stderr",
           "random_arrays", "random_uniform_arrays", "random_sample", "rand_ndarray",
           "rand_shape_2d", "rand_shape_3d", "rand_shape_nd", "np_reduce", "collapse_sum_like",
           "compare_ndarray_tuple", "compare_optimizer", "check_symbolic_forward",
           "check_symbolic_backward", "check_consistency", "simple_forward"]
# MXNet 1.9's test_utils has no __all__, so ``from mxnet.test_utils import *`` also hands its
# importers the modules and names it imported; MXNet's own test files rely on these.
__all__ += ["mx", "np", "npt", "rnd", "os", "sys", "time", "json", "numbers", "logging",
            "OrderedDict", "Context", "current_context", "array", "use_np", "getenv", "setenv"]


def default_context() -> Context:
    """The context tests run on: the one in force in this thread (``cpu(0)`` by default)."""
    return current_context()


def set_default_context(ctx: Context) -> None:
    """Make ``ctx`` the context in force in this thread (what :func:`default_context` returns).

    Examples
    --------
    >>> set_default_context(mx.cpu(0)); default_context()
    cpu(0)
    """
    if not isinstance(ctx, Context):
        raise DTypeError(f"set_default_context takes a Context such as mx.cpu(), got "
                         f"{type(ctx).__name__}")
    Context._default_ctx.value = ctx


from ._test_compare import (  # noqa: E402  (the comparisons: one home, re-exported)
    default_dtype, default_rtols, default_atols, default_numeric_eps, get_tolerance, get_tols,
    get_rtol, get_atol, get_etol, almost_equal, assert_almost_equal, assert_allclose,
    assert_almost_equal_ignore_nan, _np)


def same(a: _Arr, b: _Arr) -> bool:
    """Whether two arrays are exactly equal (same shape, same values).

    Examples
    --------
    >>> same(mx.nd.array([1, 2]), np.array([1., 2.]))
    True
    """
    return bool(np.array_equal(_np(a), _np(b)))


def same_array(array1: NDArray, array2: NDArray) -> bool:
    """Whether two NDArrays share memory (a write to one shows in the other).

    Examples
    --------
    >>> x = mx.nd.ones((2,)); same_array(x, x), same_array(x, x.copy())
    (True, False)
    """
    return bool(np.shares_memory(array1._data, array2._data))


def assert_exception(f: Callable[..., Any], exception_type: Type[BaseException], *args: Any,
                     **kwargs: Any) -> None:
    """Assert that ``f(*args, **kwargs)`` raises ``exception_type``.

    Examples
    --------
    >>> assert_exception(int, ValueError, 'x')
    """
    try:
        f(*args, **kwargs)
    except exception_type:
        return
    raise AssertionError(f"{getattr(f, '__name__', f)} did not raise "
                         f"{getattr(exception_type, '__name__', exception_type)}")


def retry(n: int):
    """Decorator: run a stochastic test up to ``n`` times until it passes no AssertionError."""
    if n <= 0:
        raise StateError(f"retry takes a positive number of tries, got n={n}")

    def decorate(f):
        @functools.wraps(f)
        def wrapper(*args, **kwargs):
            for i in range(n):
                try:
                    return f(*args, **kwargs)
                except AssertionError:
                    if i == n - 1:
                        raise
        return wrapper
    return decorate


@contextlib.contextmanager
def environment(*args) -> Iterator[None]:
    """Set environment variables inside a ``with`` block and restore them afterwards.

    ``environment('NAME', 'value')`` or ``environment({'A': '1', 'B': None})``; ``None`` unsets.
    Also a decorator (as any ``contextmanager``).

    Examples
    --------
    >>> import os
    >>> with environment('MXGRAD_DOCTEST_VAR', '1'):
    ...     os.environ['MXGRAD_DOCTEST_VAR']
    '1'
    >>> 'MXGRAD_DOCTEST_VAR' in os.environ
    False
    """
    if len(args) == 1 and isinstance(args[0], dict):
        env_vars = dict(args[0])
    elif len(args) == 2:
        env_vars = {args[0]: args[1]}
    else:
        raise StateError("environment takes one dict {name: value} or two arguments "
                         "(name, value)")
    for k, v in env_vars.items():
        if not isinstance(k, str) or not (v is None or isinstance(v, str)):
            raise DTypeError(f"environment: variable {k!r} needs a str name and a str or None "
                             f"value, got {v!r}")
    snapshot = {k: os.environ.get(k) for k in env_vars}

    def apply(values):
        for k, v in values.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v

    apply(env_vars)
    try:
        yield
    finally:
        apply(snapshot)


@contextlib.contextmanager
def discard_stderr() -> Iterator[None]:
    """Discard what is written to the process's standard error inside the block."""
    try:
        fd = sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):  # not a real file (e.g. captured)
        yield
        return
    saved = os.dup(fd)
    try:
        with open(os.devnull, "w") as sink:
            sys.stderr.flush()
            os.dup2(sink.fileno(), fd)
            yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, fd)
        os.close(saved)


def random_arrays(*shapes):
    """Standard normal float32 NumPy arrays of the given shapes (one array if one shape).

    Examples
    --------
    >>> [a.shape for a in random_arrays((2,), (3, 1))]
    [(2,), (3, 1)]
    """
    arrays = [np.array(np.random.randn(), dtype=default_dtype()) if len(s) == 0
              else np.random.randn(*s).astype(default_dtype()) for s in shapes]
    return arrays[0] if len(arrays) == 1 else arrays


def random_uniform_arrays(*shapes, low: float = 0.0, high: float = 1.0, dtype: DTypeLike = None):
    """Uniform NumPy arrays in ``[low, high)``, one per shape (always a list)."""
    dtype = default_dtype() if dtype is None else dtype
    return [np.random.uniform(low, high, size=s).astype(dtype) for s in shapes]


def random_sample(population, k: int) -> list:
    """``k`` elements of ``population`` in random order (NumPy's global generator)."""
    if not 0 <= k <= len(population):
        raise StateError(f"random_sample: k={k} must be in [0, {len(population)}]")
    pop = list(population)
    np.random.shuffle(pop)
    return pop[:k]


def rand_shape_2d(dim0: int = 10, dim1: int = 10, allow_zero_size: bool = False
                  ) -> Tuple[int, int]:
    """A random 2-D shape with sides in ``[1, dim]`` (``[0, dim]`` if ``allow_zero_size``)."""
    low = 0 if allow_zero_size else 1
    return int(np.random.randint(low, dim0 + 1)), int(np.random.randint(low, dim1 + 1))


def rand_shape_3d(dim0: int = 10, dim1: int = 10, dim2: int = 10,
                  allow_zero_size: bool = False) -> Tuple[int, int, int]:
    """A random 3-D shape with sides in ``[1, dim]`` (``[0, dim]`` if ``allow_zero_size``)."""
    low = 0 if allow_zero_size else 1
    return (int(np.random.randint(low, dim0 + 1)), int(np.random.randint(low, dim1 + 1)),
            int(np.random.randint(low, dim2 + 1)))


def rand_shape_nd(num_dim: int, dim: int = 10, allow_zero_size: bool = False) -> Tuple[int, ...]:
    """A random shape with ``num_dim`` dimensions, each in ``[1, dim]`` (or from 0).

    Examples
    --------
    >>> len(rand_shape_nd(3)), all(1 <= d <= 4 for d in rand_shape_nd(5, 4))
    (3, True)
    """
    low = 0 if allow_zero_size else 1
    return tuple(int(d) for d in np.random.randint(low, dim + 1, size=num_dim))


def rand_ndarray(shape: Sequence[int], stype: str = "default", density=None,
                 dtype: DTypeLike = None, modifier_func=None, shuffle_csr_indices: bool = False,
                 distribution=None, ctx: Optional[Context] = None) -> NDArray:
    """A random standard-normal NDArray of ``shape`` (float32 unless ``dtype``).

    Only dense storage exists in mxgrad: ``stype`` other than ``'default'`` raises.

    Examples
    --------
    >>> rand_ndarray((2, 3)).shape, rand_ndarray((2,), dtype='float64').dtype
    ((2, 3), <class 'numpy.float64'>)
    """
    if stype != "default":
        raise StateError(f"rand_ndarray: stype={stype!r} is sparse storage, which mxgrad does "
                         f"not have; use stype='default'")
    from .ndarray import array
    return array(random_arrays(tuple(shape)), dtype=dtype or default_dtype(), ctx=ctx)


def np_reduce(dat: np.ndarray, axis: Axis, keepdims: bool, numpy_reduce_func) -> np.ndarray:
    """Reduce ``dat`` over ``axis`` (int, list or None) one axis at a time with a NumPy reducer.

    Examples
    --------
    >>> np_reduce(np.ones((2, 3, 4)), (0, 2), True, np.sum).shape
    (1, 3, 1)
    """
    if isinstance(axis, int):
        axis = [axis]
    else:
        axis = list(axis) if axis is not None else list(range(dat.ndim))
    ret = dat
    for i in sorted(axis, reverse=True):
        ret = numpy_reduce_func(ret, axis=i)
    if keepdims:
        shape = list(dat.shape)
        for i in axis:
            shape[i] = 1
        ret = np.reshape(ret, shape)
    return ret


def collapse_sum_like(a: np.ndarray, shape: Sequence[int]) -> np.ndarray:
    """Sum ``a`` over the axes that broadcasting added or stretched to reach ``shape``."""
    shape = tuple(shape)
    if a.ndim < len(shape):
        raise ShapeError(f"collapse_sum_like: a has {a.ndim} dims, fewer than shape {shape}")
    if a.size == 0 or int(np.prod(shape)) == 0:
        return np.zeros(shape, dtype=a.dtype)
    lead = a.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(lead + i for i, d in enumerate(shape)
                                      if d == 1 and a.shape[lead + i] != 1)
    return a.sum(axis=axes).reshape(shape) if axes else a.reshape(shape)


def compare_ndarray_tuple(t1, t2, rtol: Optional[float] = None, atol: Optional[float] = None
                          ) -> None:
    """Assert two (nested tuples of) arrays are almost equal; ``None`` on either side passes."""
    if t1 is None or t2 is None:
        return
    if isinstance(t1, tuple):
        for s1, s2 in zip(t1, t2):
            compare_ndarray_tuple(s1, s2, rtol, atol)
    else:
        assert_almost_equal(t1, t2, rtol=rtol, atol=atol)


def compare_optimizer(opt1: Optimizer, opt2: Optimizer, shape: Sequence[int], dtype: DTypeLike,
                      w_stype: str = "default", g_stype: str = "default", rtol: float = 1e-4,
                      atol: float = 1e-5, compare_states: bool = True, ntensors: int = 1) -> None:
    """Run one update of two optimizers on the same random weight and gradient and assert
    the weights (and states) agree. ``shape`` may be a list of shapes (one index each)."""
    from . import random as mxrandom
    if w_stype != "default" or g_stype != "default":
        raise StateError("compare_optimizer: sparse weights/gradients do not exist in mxgrad; "
                         "use w_stype='default' and g_stype='default'")
    shapes = shape if isinstance(shape, list) else [shape]
    for i, s in enumerate(shapes):
        w2 = mxrandom.uniform(shape=s, dtype=dtype)
        g2 = mxrandom.uniform(shape=s, dtype=dtype)
        w1, g1 = w2.copy(), g2.copy()
        state1 = opt1.create_state_multi_precision(i, w1)
        state2 = opt2.create_state_multi_precision(i, w2)
        if compare_states:
            compare_ndarray_tuple(state1, state2)
        opt1.update_multi_precision(i, w1, g1, state1)
        opt2.update_multi_precision(i, w2, g2, state2)
        if compare_states:
            compare_ndarray_tuple(state1, state2, rtol=rtol, atol=atol)
        assert_almost_equal(w1, w2, rtol=rtol, atol=atol)


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


def numeric_grad(f: Callable[..., float], arrays: Sequence[np.ndarray], eps: float = 1e-6,
                 *args: Any, **kwargs: Any):
    """Central-difference gradients of a scalar function of float64 arrays; with an
    executor and a location dict, MXNet's form (:func:`mxgrad.symbol._checks.numeric_grad`)."""
    if hasattr(f, "arg_dict"):
        from .symbol._checks import numeric_grad as _executor_form
        return _executor_form(f, cast(Any, arrays), eps, *args, **kwargs)
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


def check_numeric_gradient(fn: Optional[Callable] = None, inputs: Optional[Sequence] = None,
                           *args: Any, **kwargs: Any) -> bool:
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

    MXNet's form with a Symbol (``check_numeric_gradient(sym, location, aux_states=None,
    numeric_eps=None, rtol=None, atol=None, grad_nodes=None, use_forward_train=True,
    ctx=None, grad_stype_dict=None, dtype=np.float32)``) binds it and compares with finite
    differences as MXNet does (see :mod:`mxgrad.symbol._checks`; returns None):

    >>> sym = mx.sym.sin(mx.sym.var('x')) * mx.sym.var('y')
    >>> check_numeric_gradient(sym, [np.array([0.3]), np.array([2.0])], numeric_eps=1e-3)
    """
    from .symbol import Symbol
    if fn is None:                       # MXNet's keywords: sym=..., location=...
        fn = kwargs.pop("sym", None)
    if inputs is None:
        inputs = kwargs.pop("location", None)
    if isinstance(fn, Symbol):
        from .symbol._checks import check_numeric_gradient as _symbolic
        _symbolic(fn, inputs, *args, **kwargs)
        return None  # type: ignore[return-value]
    if inputs is None:
        raise ArgumentTypeError("check_numeric_gradient: give the inputs (location)")
    if not callable(fn):
        raise ArgumentTypeError(f"check_numeric_gradient: fn must be a function of NDArrays "
                                f"(or a Block), got {type(fn).__name__}")
    return _check_numeric_gradient_fn(fn, inputs, *args, **kwargs)


def _check_numeric_gradient_fn(fn: Callable, inputs: Sequence, head_grads=None,
                               eps: float = 1e-6, rtol: float = 1e-4, atol: float = 1e-6,
                               grad_nodes=None) -> bool:
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
        np.testing.assert_allclose(cast(NDArray, v.grad).asnumpy(), n, rtol=rtol, atol=atol,
                                   err_msg=f"gradient of input {i} differs from the "
                                           f"numerical gradient")
    return True


def _symbolic_check(name: str):
    def f(*args: Any, **kwargs: Any) -> Any:
        from .symbol import _checks
        return getattr(_checks, name)(*args, **kwargs)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = (f"MXNet's ``{name}`` on Symbols, built on ``Symbol.bind``: see "
                 f":func:`mxgrad.symbol._checks.{name}`.")
    return f


check_symbolic_forward = _symbolic_check("check_symbolic_forward")
check_symbolic_backward = _symbolic_check("check_symbolic_backward")
check_consistency = _symbolic_check("check_consistency")
simple_forward = _symbolic_check("simple_forward")


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
        grads = _grad_allow_unused(outs, vars_, [wrap(h) for h in head], create_graph=True)
        total = None
        for g, w in zip(grads, weights):
            term = (g * wrap(w)).sum()
            total = term if total is None else total + term
    total = cast(NDArray, total)
    if total._node is None:
        analytic = [np.zeros_like(x) for x in xs]
    else:
        analytic = [g.asnumpy() for g in _grad_allow_unused(total, vars_)]

    def first(*arrays):
        vs = [wrap(a.copy()) for a in arrays]
        for v in vs:
            v.attach_grad()
        with autograd.record():
            o = fn(*vs)
            os_ = list(o) if isinstance(o, (list, tuple)) else [o]
        gs = _grad_allow_unused(os_, vs, [wrap(h) for h in head])
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
    from ._engine import forward_ad
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
            gs = _grad_allow_unused(os_, vs, hs, create_graph=create_graph)
            total = None
            for g, w in zip(gs, weights):
                term = (g * wrap(w)).sum()
                total = term if total is None else total + term
        return vs, hs, total

    vs, hs, total = first(xs, us, True)
    if total._node is None:
        analytic = [np.zeros_like(a) for a in xs + us]
    else:
        analytic = [g.asnumpy() for g in _grad_allow_unused(total, vs + hs)]

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


def _grad_allow_unused(heads, variables, head_grads=None, retain_graph=None,
                       create_graph=False, train_mode=True):
    """``autograd.grad`` giving zeros for an input the outputs do not depend on (a numeric
    check may have such inputs, e.g. gamma under ``fix_gamma``)."""
    from ._engine.graph import grad_impl
    return grad_impl(heads, variables, head_grads, retain_graph, create_graph, train_mode,
                     True, allow_unused=True)


# --------------------------------------------------------------- more of MXNet's helpers
# (MXNet's tests import these; the statistical checks and downloads have their own modules)
from ._test_stats import (gen_buckets_probs_with_ppf, mean_check, var_check,  # noqa: E402
                          chi_square_check, verify_generator)
from ._test_data import download, download_model, get_mnist, get_mnist_ubyte  # noqa: E402
from ._test_data import get_mnist_iterator  # noqa: E402
from ._test_data import list_gpus  # noqa: E402
from .io.io import DataIter as _DataIter  # noqa: E402


def effective_dtype(dat: _Arr) -> np.dtype:
    """The dtype whose tolerances apply to ``dat``: its own (MXNet lowers float32 to
    float16 only for TF32 GPUs, which mxgrad does not run on).

    Examples
    --------
    >>> effective_dtype(np.zeros(2, dtype=np.float32))
    dtype('float32')
    """
    return np.dtype(dat.dtype)


def is_aarch64_run() -> bool:
    """Whether this machine is aarch64 (MXNet's tests skip some cases there)."""
    import platform
    return platform.machine() == "aarch64"


def is_cd_run() -> bool:
    """Whether the tests run in MXNet's continuous-delivery job (``CD_JOB=1``)."""
    return os.environ.get("CD_JOB", "0") == "1"


def has_tvm_ops() -> bool:
    """Whether TVM-generated operators exist: never in mxgrad."""
    return False


def is_op_runnable() -> bool:
    """Whether the operators under test run here: always on mxgrad's CPU."""
    return True


def assign_each(the_input: np.ndarray, function: Optional[Callable] = None) -> np.ndarray:
    """``function`` applied to each element of ``the_input`` (float64 result), or a copy.

    Examples
    --------
    >>> assign_each(np.array([1, 2]), lambda v: v * 10).tolist()
    [10.0, 20.0]
    """
    if function is None:
        return np.array(the_input)
    flat = np.asarray(the_input).reshape(-1)
    return np.array([function(v) for v in flat], dtype=np.float64).reshape(
        np.shape(the_input))


def assign_each2(input1: np.ndarray, input2: np.ndarray,
                 function: Optional[Callable] = None) -> np.ndarray:
    """``function(a, b)`` of each pair of elements (float64 result), or a copy of input1."""
    if function is None:
        return np.array(input1)
    if np.shape(input1) != np.shape(input2):
        raise ShapeError(f"assign_each2: shapes differ, {np.shape(input1)} and "
                         f"{np.shape(input2)}")
    a, b = np.asarray(input1).reshape(-1), np.asarray(input2).reshape(-1)
    return np.array([function(x, y) for x, y in zip(a, b)], dtype=np.float64).reshape(
        np.shape(input1))


def create_vector(size: int, dtype: DTypeLike = np.int64) -> NDArray:
    """``arange(size)`` (MXNet's large-tensor tests)."""
    return _nd.arange(0, size, dtype=dtype)


def create_2d_tensor(rows: int, columns: int, dtype: DTypeLike = np.int64) -> NDArray:
    """A ``(rows, columns)`` array whose row ``i`` holds ``i``."""
    return _nd.broadcast_to(_nd.arange(0, rows, dtype=dtype).reshape((rows, 1)),
                            shape=(rows, columns))


def get_identity_mat(size: int) -> NDArray:
    """The ``size x size`` identity (float32)."""
    return _nd.array(np.eye(size, dtype=np.float32))


def get_identity_mat_batch(size: int) -> NDArray:
    """Two stacked identities, shape ``(2, size, size)``."""
    return _nd.array(np.stack([np.eye(size, dtype=np.float32)] * 2))


def rand_coord_2d(x_low: int, x_high: int, y_low: int, y_high: int) -> Tuple[int, int]:
    """A random integer point in ``[x_low, x_high) x [y_low, y_high)``."""
    return (int(np.random.randint(x_low, x_high, dtype=np.int64)),
            int(np.random.randint(y_low, y_high, dtype=np.int64)))


def new_matrix_with_real_eigvals_2d(n: int) -> np.ndarray:
    """A random ``n x n`` matrix ``Q^-1 D Q`` with real eigenvalues ``D`` in [-10, 10] and
    ``Q`` a well-conditioned (condition number < 3) reflection times a diagonal."""
    while True:
        d = np.diag(np.random.uniform(-1.0, 1.0, n))
        v = np.random.uniform(-1.0, 1.0, (n, 1))
        v /= np.linalg.norm(v, axis=0, keepdims=True)
        q = (np.eye(n) - 2 * v @ v.T) @ d
        if np.linalg.cond(q, 2) < 3:
            break
    return np.linalg.inv(q) @ np.diag(np.random.uniform(-10.0, 10.0, n)) @ q


def new_matrix_with_real_eigvals_nd(shape: Sequence[int]) -> np.ndarray:
    """A batch of :func:`new_matrix_with_real_eigvals_2d` of the given ``(..., n, n)`` shape.

    Examples
    --------
    >>> m = new_matrix_with_real_eigvals_nd((2, 3, 3))
    >>> m.shape, bool(np.abs(np.linalg.eigvals(m).imag).max() < 1e-8)
    ((2, 3, 3), True)
    """
    count = int(np.prod(shape[:-2])) if len(shape) > 2 else 1
    return np.array([new_matrix_with_real_eigvals_2d(shape[-1])
                     for _ in range(count)]).reshape(shape)


def new_orthonormal_matrix_2d(n: int) -> np.ndarray:
    """A random ``n x n`` orthonormal matrix."""
    x = np.random.randn(n, n)
    return np.linalg.qr(x.T @ x)[0]


def new_sym_matrix_with_real_eigvals_2d(n: int) -> np.ndarray:
    """A random symmetric ``n x n`` matrix with eigenvalues in [-10, 10]."""
    q = new_orthonormal_matrix_2d(n)
    return q.T @ np.diag(np.random.uniform(-10.0, 10.0, n)) @ q


def new_sym_matrix_with_real_eigvals_nd(shape: Sequence[int]) -> np.ndarray:
    """A batch of :func:`new_sym_matrix_with_real_eigvals_2d` of shape ``(..., n, n)``."""
    count = int(np.prod(shape[:-2])) if len(shape) > 2 else 1
    return np.array([new_sym_matrix_with_real_eigvals_2d(shape[-1])
                     for _ in range(count)]).reshape(shape)


def same_symbol_structure(sym1, sym2) -> bool:
    """Whether two Symbols have the same operator at each node position."""
    nodes1 = json.loads(sym1.tojson())["nodes"]
    nodes2 = json.loads(sym2.tojson())["nodes"]
    return all(a["op"] == b["op"] for a, b in zip(nodes1, nodes2))


class DummyIter(_DataIter):
    """An iterator that returns the first batch of ``real_iter`` forever (speed tests)."""

    def __init__(self, real_iter) -> None:
        super().__init__()
        self.real_iter = real_iter
        self.provide_data = real_iter.provide_data
        self.provide_label = real_iter.provide_label
        self.batch_size = real_iter.batch_size
        self.the_batch = next(real_iter)

    def __iter__(self):
        return self

    def next(self):
        return self.the_batch


__all__ += ["effective_dtype", "is_aarch64_run", "is_cd_run", "has_tvm_ops", "is_op_runnable",
            "assign_each", "assign_each2", "create_vector", "create_2d_tensor",
            "get_identity_mat", "get_identity_mat_batch", "rand_coord_2d",
            "new_matrix_with_real_eigvals_2d", "new_matrix_with_real_eigvals_nd",
            "new_orthonormal_matrix_2d", "new_sym_matrix_with_real_eigvals_2d",
            "new_sym_matrix_with_real_eigvals_nd", "same_symbol_structure", "DummyIter",
            "gen_buckets_probs_with_ppf", "mean_check", "var_check", "chi_square_check",
            "verify_generator", "download", "get_mnist", "get_mnist_ubyte",
            "get_mnist_iterator", "list_gpus"]


def check_gluon_hybridize_consistency(net_builder: Callable, data_l: Sequence[Any],
                                      numpy_func: Optional[Callable] = None,
                                      test_grad: bool = True, rtol: float = 1e-4,
                                      atol: float = 1e-4) -> None:
    """MXNet's check that a network gives the same outputs (and input gradients) with
    ``hybridize()`` on and off, and equals ``numpy_func`` when given.

    Examples
    --------
    >>> import mxgrad as mx
    >>> check_gluon_hybridize_consistency(lambda: mx.gluon.nn.Dense(2, in_units=3),
    ...                                   [mx.np.ones((1, 3))])
    """
    from . import autograd as _ag
    from .initializer import Load
    # as MXNet: every build is named 'net_' (so parameter names agree) and initialized with
    # the first build's values, taken after its first call (deferred shapes are known then)
    first: Optional[list] = None        # the first build's parameter values, in order
    saved_out: Optional[list] = None
    saved_grads: Optional[list] = None
    for hybridize in (False, True):
        for use_autograd in ((False, True) if test_grad else (False,)):
            try:
                net = net_builder(prefix="net_")
            except TypeError:           # a builder without a prefix argument
                net = net_builder()
            params = net.collect_params()
            if first is None:
                net.initialize()
            else:   # by position: a builder without a prefix names each build anew
                net.initialize(Load(dict(zip(params.keys(), first))))
            if hybridize:
                net.hybridize()
            ins = [x.copy() for x in data_l]
            if use_autograd:
                for x in ins:
                    x.attach_grad()
                with _ag.record():
                    out = net(*ins)
                outs = list(out) if isinstance(out, (list, tuple)) else [out]
                _ag.backward(outs, head_grads=outs)     # MXNet's out.backward(out)
            else:
                out = net(*ins)
                outs = list(out) if isinstance(out, (list, tuple)) else [out]
            if first is None:
                first = [p.data().copy() for p in params.values()]
            values = [o.asnumpy() for o in outs]
            if saved_out is None:
                saved_out = values
            else:
                for a, b in zip(values, saved_out):
                    assert_almost_equal(a, b, rtol=rtol, atol=atol)
            if use_autograd:
                grads = [x.grad.asnumpy() for x in ins]
                if saved_grads is None:
                    saved_grads = grads
                else:
                    for a, b in zip(grads, saved_grads):
                        assert_almost_equal(a, b, rtol=rtol, atol=atol)
    if numpy_func is not None and saved_out is not None:
        want = numpy_func(*[x.asnumpy() for x in data_l])
        want = list(want) if isinstance(want, (list, tuple)) else [want]
        for o, w in zip(saved_out, want):
            assert_almost_equal(o, w, rtol=rtol, atol=atol)

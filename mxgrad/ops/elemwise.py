"""Elementwise ops: unary math, broadcasting binary arithmetic, scalar arithmetic,
comparisons, casts, and which NDArray operators and methods they provide.

A rule table (as HIPS autograd's ``numpy_vjps.py``): each op is one entry, with its
NumPy forward, one gradient rule per input and one tangent rule per input. Rules use
mxgrad ops, so they run on NumPy arrays in an ordinary backward and are recorded under
``create_graph=True``. How an op is applied (and the inlined fast paths) is
:mod:`mxgrad.ops._apply`'s business, not this module's.
"""
from __future__ import annotations

from typing import Any, Optional

import math
import operator as _operator

import numpy as np

from ..base import ShapeError, as_dtype
from .._engine.ndarray import NDArray, wrap
from . import _dtype_rules as _dr
from . import _shape_rules as _sr
from ._core import defop, reusable
from ._mxnet_op import mxnet_op
from ._apply import (apply, apply1, as_array, binary_fast, inplace_operator, operator,
                     unary_fast, write_out, _RAW)
from .._typing import ArrayT, BinaryOp, DTypeLike, UnaryOp

__all__ = [
    # unary
    "exp", "log", "log2", "log10", "log1p", "expm1", "sqrt", "rsqrt", "cbrt", "rcbrt",
    "square", "reciprocal", "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh",
    "cosh", "tanh", "arcsinh", "arccosh", "arctanh", "sigmoid", "relu", "softsign", "erf",
    "erfinv", "abs", "negative", "sign", "floor", "ceil", "round", "rint", "fix", "trunc",
    "degrees", "radians", "gamma", "gammaln", "clip", "cast", "identity_copy", "zeros_like",
    "ones_like", "stop_gradient", "BlockGrad", "smooth_l1",
    # binary
    "add", "subtract", "multiply", "divide", "power", "maximum", "minimum", "modulo",
    "floor_divide", "hypot", "arctan2", "equal", "not_equal", "greater", "greater_equal",
    "lesser", "lesser_equal", "logical_and", "logical_or", "logical_xor", "logical_not",
    "elemwise_add", "elemwise_sub", "elemwise_mul", "elemwise_div",
    "broadcast_add", "broadcast_sub", "broadcast_mul", "broadcast_div", "broadcast_plus",
    "broadcast_minus", "broadcast_maximum", "broadcast_minimum", "broadcast_power",
    "broadcast_mod", "broadcast_equal", "broadcast_not_equal", "broadcast_greater",
    "broadcast_greater_equal", "broadcast_lesser", "broadcast_lesser_equal",
    "broadcast_hypot", "broadcast_logical_and", "broadcast_logical_or",
    "broadcast_logical_xor", "add_n", "ElementWiseSum",
]


def _unary(name, fwd, grad, jvp=None, save=(0,), save_out=False, doc="", example_in="[0.5, 1.]",
           raw=None, takes_out=None) -> UnaryOp:
    """Declare a unary elementwise op and its `mx.nd` function (NDArray's method of the
    same name, if any, is this function: ndarray/_methods.py). ``grad(g, y, x)`` doubles
    as the tangent rule unless
    ``jvp`` is given; ``raw`` is a NumPy-only version of ``grad`` for ordinary backward;
    ``takes_out``: ``fwd`` accepts ``out=`` (``Op.takes_out``; a ufunc does)."""
    op = defop(name, fwd, None if grad is None else [grad],
               None if grad is None and jvp is None else [jvp or _jvp_from_grad(grad)],
               save=save if grad is not None else (), save_out=save_out,
               raw_grads=None if raw is None else [raw], takes_out=takes_out)

    f = unary_fast(op)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"""{doc or name + ' of each element.'}

    Parameters
    ----------
    data : NDArray
        Input array.

    Returns
    -------
    NDArray
        Same shape and dtype as ``data``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> y = mx.nd.{name}(mx.nd.array({example_in}))
    >>> y.shape
    (2,)
    """
    return f


def _jvp_from_grad(grad):
    """For an elementwise unary op the tangent rule equals the gradient rule."""
    return grad


# --------------------------------------------------------------------- erf
_erf_vec = np.vectorize(math.erf, otypes=[np.float64])


_ERFC_COEFFS = (0.17087277, -0.82215223, 1.48851587, -1.13520398, 0.27886807, -0.18628806,
                0.09678418, 0.37409196, 1.00002368, -1.26551223)


def _erf(x):
    """erf: exact (math.erf) for float64, a vectorised Chebyshev fit (relative error of
    erfc < 1.2e-7, Numerical Recipes' erfcc) for float32 and smaller, 15x faster."""
    if x.dtype == np.float64 or x.dtype.kind != "f":
        return _erf_vec(x).astype(x.dtype, copy=False)
    z = np.abs(x)
    t = 1.0 / (1.0 + 0.5 * z)
    p = np.full_like(t, _ERFC_COEFFS[0])
    for c in _ERFC_COEFFS[1:]:
        p *= t
        p += c
    p -= z * z
    np.exp(p, out=p)
    p *= t  # erfc(|x|)
    np.subtract(1.0, p, out=p)
    return np.copysign(p, x, out=p)


def _erfinv(x):
    # Newton iterations on erf(y) = x from a good starting point (Giles' approximation)
    x64 = x.astype(np.float64)
    w = -np.log((1.0 - x64) * (1.0 + x64))
    y = np.where(w < 5.0,
                 _poly(w - 2.5, [2.81022636e-08, 3.43273939e-07, -3.5233877e-06,
                                 -4.39150654e-06, 0.00021858087, -0.00125372503,
                                 -0.00417768164, 0.246640727, 1.50140941]),
                 _poly(np.sqrt(np.maximum(w, 5.0)) - 3.0,
                       [-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844,
                        0.00573950773, -0.0076224613, 0.00943887047, 1.00167406,
                        2.83297682])) * x64
    for _ in range(2):
        err = _erf_vec(y) - x64
        y = y - err / (2.0 / math.sqrt(math.pi) * np.exp(-y * y))
    return y.astype(x.dtype, copy=False)


def _poly(w, coeffs):
    p = np.full_like(w, coeffs[0])
    for c in coeffs[1:]:
        p = p * w + c
    return p


def _trigamma(x):
    """Trigamma by recurrence and an asymptotic series (float64)."""
    x = np.asarray(x, dtype=np.float64).copy()
    res = np.zeros_like(x)
    for _ in range(6):
        small = x < 6
        res = np.where(small, res + 1.0 / (x * x), res)
        x = np.where(small, x + 1, x)
    inv = 1.0 / x
    inv2 = inv * inv
    res = res + inv + 0.5 * inv2 + inv * inv2 * (1 / 6 - inv2 * (1 / 30 - inv2 / 42))
    return res


_lgamma_vec = np.vectorize(math.lgamma, otypes=[np.float64])
_gamma_vec = np.vectorize(math.gamma, otypes=[np.float64])


def _digamma(x):
    """Digamma by recurrence and an asymptotic series (float64)."""
    x = np.asarray(x, dtype=np.float64).copy()
    res = np.zeros_like(x)
    for _ in range(6):
        small = x < 6
        res = np.where(small, res - 1.0 / x, res)
        x = np.where(small, x + 1, x)
    inv = 1.0 / x
    inv2 = inv * inv
    res = res + np.log(x) - 0.5 * inv - inv2 * (1 / 12 - inv2 * (1 / 120 - inv2 / 252))
    return res


def _sigmoid_fwd(x, out=None):
    # 1 / (1 + exp(-x)) as MXNet computes it, in place in one buffer (four passes); for
    # x below about -88 (float32) exp overflows to inf and the result is 0, as MXNet's
    e = np.negative(x if x.dtype.kind == "f" else x.astype(np.float64), out=out)  # ints: as tanh
    if type(e) is not np.ndarray:           # 0-d data (mx.np) gives a NumPy scalar
        e = np.array(e)
    with np.errstate(over="ignore"):
        np.exp(e, out=e)
    e += 1.0
    np.reciprocal(e, out=e)
    return e


def _relu_fwd(x, out=None):
    return np.maximum(x, 0, dtype=x.dtype, out=out) if x.dtype.kind == "f" else \
        np.maximum(x, 0, out=out)


def _rsqrt(x):
    return 1.0 / np.sqrt(x)


def _recip(x):
    return 1.0 / x


def _square(x):
    return x * x


# raw rules (NumPy only, ordinary backward); reusable(g) says when g may take the result
def _tanh_raw(g, y, x):
    t = np.multiply(y, y, out=np.empty_like(y)) if y.ndim == 0 else y * y
    np.subtract(1.0, t, out=t)
    t *= g
    return t


def _sigmoid_raw(g, y, x):
    t = 1.0 - y
    t *= y
    t *= g
    return t


def _relu_raw(g, y, x):
    if reusable(g, y):
        return np.multiply(g, y > 0, out=g)
    return np.multiply(g, y > 0, dtype=y.dtype)


def _exp_raw(g, y, x):
    if reusable(g, y):
        return np.multiply(g, y, out=g)
    return g * y


def _neg_raw(g, y, x):
    if reusable(g):
        return np.negative(g, out=g)
    return -g


# gradient rules (g = output gradient, y = output, x = input); they double as tangent
# rules for unary elementwise ops, with t in place of g.
exp = _unary("exp", np.exp, lambda g, y, x: g * y, save=(), save_out=True,
             doc="Exponential of each element.", raw=_exp_raw)
log = _unary("log", np.log, lambda g, y, x: g / x, doc="Natural logarithm.",
             example_in="[1., 2.]")
log2 = _unary("log2", np.log2, lambda g, y, x: g / (x * math.log(2.0)), doc="Base-2 logarithm.",
              example_in="[1., 2.]")
log10 = _unary("log10", np.log10, lambda g, y, x: g / (x * math.log(10.0)),
               doc="Base-10 logarithm.", example_in="[1., 2.]")
log1p = _unary("log1p", np.log1p, lambda g, y, x: g / (x + 1.0), doc="log(1 + x), accurate near 0.")
expm1 = _unary("expm1", np.expm1, lambda g, y, x: g * (y + 1.0), save=(), save_out=True,
               doc="exp(x) - 1, accurate near 0.")
sqrt = _unary("sqrt", np.sqrt, lambda g, y, x: g / (2.0 * y), save=(), save_out=True,
              doc="Square root.")
rsqrt = _unary("rsqrt", _rsqrt, lambda g, y, x: g * (-0.5) * y / x, save=(0,), save_out=True,
               doc="Reciprocal square root, 1/sqrt(x).")
cbrt = _unary("cbrt", np.cbrt, lambda g, y, x: g / (3.0 * y * y), save=(), save_out=True,
              doc="Cube root.")
rcbrt = _unary("rcbrt", lambda x: 1.0 / np.cbrt(x), lambda g, y, x: g * (-1.0 / 3.0) * y / x,
               save=(0,), save_out=True, doc="Reciprocal cube root.")
square = _unary("square", _square, lambda g, y, x: g * 2.0 * x, doc="Square of each element.")
reciprocal = _unary("reciprocal", _recip, lambda g, y, x: -g * y * y, save=(), save_out=True,
                    doc="1/x.")
sin = _unary("sin", np.sin, lambda g, y, x: g * cos(x), doc="Sine.")
cos: UnaryOp = _unary("cos", np.cos, lambda g, y, x: -g * sin(x), doc="Cosine.")
tan = _unary("tan", np.tan, lambda g, y, x: g * (y * y + 1.0), save=(), save_out=True,
             doc="Tangent.")
arcsin = _unary("arcsin", np.arcsin, lambda g, y, x: g * rsqrt(1.0 - x * x), doc="Inverse sine.")
arccos = _unary("arccos", np.arccos, lambda g, y, x: -g * rsqrt(1.0 - x * x), doc="Inverse cosine.")
arctan = _unary("arctan", np.arctan, lambda g, y, x: g / (x * x + 1.0), doc="Inverse tangent.")
sinh = _unary("sinh", np.sinh, lambda g, y, x: g * cosh(x), doc="Hyperbolic sine.")
cosh: UnaryOp = _unary("cosh", np.cosh, lambda g, y, x: g * sinh(x), doc="Hyperbolic cosine.")
tanh = _unary("tanh", np.tanh, lambda g, y, x: g * (1.0 - y * y), save=(), save_out=True,
              doc="Hyperbolic tangent.", raw=_tanh_raw)
arcsinh = _unary("arcsinh", np.arcsinh, lambda g, y, x: g * rsqrt(x * x + 1.0),
                 doc="Inverse hyperbolic sine.")
arccosh = _unary("arccosh", np.arccosh, lambda g, y, x: g * rsqrt(x * x - 1.0),
                 doc="Inverse hyperbolic cosine.", example_in="[1.5, 2.]")
arctanh = _unary("arctanh", np.arctanh, lambda g, y, x: g / (1.0 - x * x),
                 doc="Inverse hyperbolic tangent.")
sigmoid = _unary("sigmoid", _sigmoid_fwd, lambda g, y, x: g * y * (1.0 - y), save=(),
                 save_out=True, doc="Logistic sigmoid, 1/(1+exp(-x)).", raw=_sigmoid_raw,
                 takes_out=True)
# (the rule reads the output, y > 0 where x > 0, not the input: a layer's pre-activation
# need not stay alive for backward, and a planned graph computes relu in its buffer)
relu = _unary("relu", _relu_fwd, lambda g, y, x: g * (y > 0), save=(), save_out=True,
              doc="max(x, 0); gradient 0 at 0.", raw=_relu_raw, takes_out=True)
softsign = _unary("softsign", lambda x: x / (1.0 + np.abs(x)),
                  lambda g, y, x: g / square(1.0 + abs(x)), doc="``x / (1 + |x|)``.")
erf = _unary("erf", _erf, lambda g, y, x: g * (2.0 / math.sqrt(math.pi)) * exp(-(x * x)),
             doc="Gauss error function.")
erfinv = _unary("erfinv", _erfinv,
                lambda g, y, x: g * (math.sqrt(math.pi) / 2.0) * exp(y * y), save=(),
                save_out=True, doc="Inverse error function.", example_in="[0.1, 0.5]")
abs: UnaryOp = _unary("abs", np.abs, lambda g, y, x: g * sign(x),
                      doc="Absolute value; gradient 0 at 0.")
negative = _unary("negative", np.negative, lambda g, y, x: -g, save=(), doc="-x.",
                 raw=_neg_raw)
degrees = _unary("degrees", np.degrees, lambda g, y, x: g * (180.0 / math.pi), save=(),
                 doc="Radians to degrees.")
radians = _unary("radians", np.radians, lambda g, y, x: g * (math.pi / 180.0), save=(),
                 doc="Degrees to radians.")
gamma = _unary("gamma", lambda x: _gamma_vec(x).astype(x.dtype, copy=False),
               lambda g, y, x: g * y * _digamma_op(x), save=(0,), save_out=True,
               doc="Gamma function.", example_in="[1.5, 2.]")
gammaln = _unary("gammaln", lambda x: _lgamma_vec(x).astype(x.dtype, copy=False),
                 lambda g, y, x: g * _digamma_op(x), doc="Log of the absolute gamma function.",
                 example_in="[1.5, 2.]")
_trigamma_f = _unary("trigamma", lambda x: _trigamma(x).astype(x.dtype, copy=False), None,
                     doc="Trigamma function (not differentiable in mxgrad).")
_digamma_f = _unary("digamma", lambda x: _digamma(x).astype(x.dtype, copy=False),
                    lambda g, y, x: g * _trigamma_f(x), doc="Digamma function.")


def _digamma_op(x):
    return _digamma_f(x)


def _zero_rule(g, y, x):
    return None


def _zero_tangent(t, y, x):
    return None


def _piecewise(name, fwd, doc) -> UnaryOp:
    op = defop(name, fwd, [_zero_rule], [_zero_tangent], save=())

    def f(data, out=None, name=None):
        r = apply1(op, data)
        return write_out(out, r) if out is not None else r
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"""{doc} The gradient is zero everywhere (as in MXNet).

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.{name}(mx.nd.array([-1.5, 2.5])).shape
    (2,)
    """
    f.op = op  # type: ignore[attr-defined]
    return f


sign: UnaryOp = _piecewise("sign", np.sign, "Sign of each element (-1, 0 or 1).")
floor = _piecewise("floor", np.floor, "Largest integer not greater than each element.")
ceil = _piecewise("ceil", np.ceil, "Smallest integer not less than each element.")
round = _piecewise("round", lambda x: np.where(x >= 0, np.floor(x + 0.5), np.ceil(x - 0.5))
                   .astype(x.dtype, copy=False), "Round half away from zero, as MXNet does.")
rint = _piecewise("rint", np.rint, "Round to the nearest integer (half to even).")
fix = _piecewise("fix", np.fix, "Round towards zero.")
trunc = _piecewise("trunc", np.trunc, "Truncate towards zero.")

# MXNet's operators of the unary family: the output has the input's shape
for _n in ("relu", "sigmoid", "tanh", "exp", "log", "log2", "log10", "log1p", "expm1",
           "sqrt", "rsqrt", "cbrt", "rcbrt", "square", "abs", "negative", "reciprocal",
           "sign", "floor", "ceil", "round", "rint", "fix", "trunc", "sin", "cos", "tan",
           "arcsin", "arccos", "arctan", "sinh", "cosh", "arcsinh", "arccosh", "arctanh",
           "degrees", "radians", "erf", "erfinv", "gamma", "gammaln", "softsign"):
    mxnet_op(_n, shape=_sr.same)


# --------------------------------------------------------------- clip & casts
def _clip_fwd(x, a_min, a_max):
    return np.clip(x, a_min, a_max).astype(x.dtype, copy=False)


def _clip_grad(g, y, x, a_min, a_max):
    # gradient passes on the boundary (as MXNet does)
    return g * ((x >= a_min) * (x <= a_max))


_CLIP = defop("clip", _clip_fwd, [_clip_grad], [_clip_grad], save=(0,))


def clip(data: NDArray, a_min: float, a_max: float, out: Optional[NDArray] = None,
         name: Optional[str] = None) -> NDArray:
    """Clip each element to ``[a_min, a_max]``; the gradient passes where
    ``a_min <= x <= a_max`` (boundaries included), as in MXNet.

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.clip(mx.nd.array([-2., 0.5, 3.]), -1, 1)
    <BLANKLINE>
    [-1.   0.5  1. ]
    <NDArray 3 @cpu(0)>
    """
    from .._check import as_real
    lo = as_real(a_min, "clip: a_min", finite=False)
    hi = as_real(a_max, "clip: a_max", finite=False)
    r = apply1(_CLIP, data, {"a_min": lo, "a_max": hi})
    return write_out(out, r) if out is not None else r


mxnet_op("clip", shape=_sr.same)


def _cast_fwd(x, dtype):
    return x.astype(dtype)


def _cast_grad(g, y, x, dtype):
    return g  # the engine casts back to the input's dtype


_CAST = defop("cast", _cast_fwd, [_cast_grad], [lambda t, y, x, dtype: cast(t, dtype)], save=())


def cast(data: NDArray, dtype: DTypeLike, out: Optional[NDArray] = None, name: Optional[str] = None
         ) -> NDArray:
    """Return ``data`` cast to ``dtype`` (differentiable between float types).

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.cast(mx.nd.array([1.5]), dtype='float64').dtype
    <class 'numpy.float64'>
    """
    dt = as_dtype(dtype)
    if isinstance(data, _RAW):
        return data.astype(dt)
    data = as_array(data, "cast")
    if dt.kind not in "fc" or data._data.dtype.kind not in "fc":
        return wrap(data._data.astype(dt), None, 0, type(data))
    return apply1(_CAST, data, {"dtype": dt})


Cast = cast
# the output has the ``dtype`` attribute (float32 without one)
_cast_dtype = _dr.from_attr()
mxnet_op("Cast", nd_name="cast", aliases=("cast",), shape=_sr.same, dtype=_cast_dtype)
mxnet_op("amp_cast", shape=_sr.same, dtype=_cast_dtype)

_COPY = defop("copy", lambda x: x.copy(), [lambda g, y, x: g], [lambda t, y, x: t], save=())


def _zero_rule2(g, y, a, b):
    return None


def identity_copy(data: ArrayT) -> ArrayT:
    """A recorded copy of ``data`` (gradient passes unchanged).

    Examples
    --------
    >>> import mxgrad as mx
    >>> identity_copy(mx.nd.array([1.])).asscalar()
    1.0
    """
    return apply1(_COPY, data)


def _copy_run(inputs, kwargs):
    """MXNet's ``_copy`` (``identity``) node: a copy of its input."""
    return inputs[0].copy()


mxnet_op("_copy", run=_copy_run, aliases=("identity",), attrs=(), shape=_sr.same)


def zeros_like(data: NDArray, dtype: DTypeLike = None, **kwargs: Any) -> NDArray:
    """An array of zeros with the shape (and dtype) of ``data``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.zeros_like(mx.nd.ones((2,)))
    <BLANKLINE>
    [0. 0.]
    <NDArray 2 @cpu(0)>
    """
    if isinstance(data, _RAW):
        return np.zeros_like(data, dtype=dtype)
    data = as_array(data, "zeros_like")
    r = wrap(np.zeros_like(data._data, dtype=None if dtype is None else as_dtype(dtype)))
    return r if kwargs.get("out") is None else write_out(kwargs["out"], r)


mxnet_op("zeros_like", shape=_sr.same)


def ones_like(data: NDArray, dtype: DTypeLike = None, **kwargs: Any) -> NDArray:
    """An array of ones with the shape (and dtype) of ``data``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.ones_like(mx.nd.zeros((2,)))
    <BLANKLINE>
    [1. 1.]
    <NDArray 2 @cpu(0)>
    """
    if isinstance(data, _RAW):
        return np.ones_like(data, dtype=dtype)
    data = as_array(data, "ones_like")
    r = wrap(np.ones_like(data._data, dtype=None if dtype is None else as_dtype(dtype)))
    return r if kwargs.get("out") is None else write_out(kwargs["out"], r)


mxnet_op("ones_like", shape=_sr.same)


def stop_gradient(data: NDArray, name: Optional[str] = None, **kwargs: Any) -> NDArray:
    """Return ``data`` as a constant: no gradient flows back through it.

    Examples
    --------
    >>> import mxgrad as mx
    >>> x = mx.nd.ones((1,)); x.attach_grad()
    >>> with mx.autograd.record():
    ...     y = x * mx.nd.stop_gradient(x * 3)
    >>> y.backward(); x.grad.asscalar()
    3.0
    """
    if isinstance(data, _RAW):
        return data
    data = as_array(data, "stop_gradient")
    return wrap(data._data.copy())   # new memory, as MXNet's (a later write to data is not seen)


BlockGrad = stop_gradient
mxnet_op("BlockGrad", aliases=("stop_gradient",), shape=_sr.same)


def _smooth_l1_fwd(x, scalar):
    s2 = scalar * scalar
    ax = np.abs(x)
    return np.where(ax < 1.0 / s2, 0.5 * s2 * x * x, ax - 0.5 / s2).astype(x.dtype, copy=False)


def _smooth_l1_grad(g, y, x, scalar):
    s2 = scalar * scalar
    return g * where_mask(abs(x) < 1.0 / s2, x * s2, sign(x))


def where_mask(mask, a, b):
    """``a`` where ``mask`` else ``b`` (mask a 0/1 or bool array); works on both kinds."""
    return a * mask + b * (1 - mask) if not isinstance(mask, np.ndarray) or mask.dtype != bool \
        else np.where(mask, a, b)


_SMOOTH_L1 = defop("smooth_l1", _smooth_l1_fwd, [_smooth_l1_grad], [_smooth_l1_grad], save=(0,))


def smooth_l1(data: NDArray, scalar: float = 1.0, **kwargs: Any) -> NDArray:
    """Smooth L1: ``0.5*(s*x)**2`` where ``|x| < 1/s**2``, else ``|x| - 0.5/s**2``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.smooth_l1(mx.nd.array([0.5, 2.]))
    <BLANKLINE>
    [0.125 1.5  ]
    <NDArray 2 @cpu(0)>
    """
    return apply1(_SMOOTH_L1, data, {"scalar": float(scalar)})


mxnet_op("smooth_l1", shape=_sr.same)


# --------------------------------------------------------------- scalar ops
def _scalar_op(name, fwd, grad, save=(0,), save_out=False):
    """A binary op between an array and a Python scalar (the scalar is an attr); ``fwd``
    (made by :func:`_keep`) accepts ``out=``."""
    return defop(name, fwd, [grad], [grad], save=save, save_out=save_out, takes_out=True)


def _keep(fn):
    """``fn(x, scalar)`` in ``x``'s dtype; ``fn`` a ufunc or a function taking ``out=``."""
    def f(x, scalar, out=None):
        if out is not None:
            return fn(x, scalar, out=out)
        r = fn(x, scalar)
        if r.dtype != x.dtype:
            r = r.astype(x.dtype)
        return r
    return f


_PLUS_S = _scalar_op("_plus_scalar", _keep(np.add), lambda g, y, x, scalar: g, save=())
_MINUS_S = _scalar_op("_minus_scalar", _keep(np.subtract), lambda g, y, x, scalar: g, save=())
_RMINUS_S = _scalar_op("_rminus_scalar", _keep(lambda x, s, out=None: np.subtract(s, x, out=out)),
                       lambda g, y, x, scalar: -g, save=())
_MUL_S = _scalar_op("_mul_scalar", _keep(np.multiply), lambda g, y, x, scalar: g * scalar, save=())
_DIV_S = _scalar_op("_div_scalar", _keep(np.true_divide), lambda g, y, x, scalar: g / scalar,
                    save=())
_RDIV_S = _scalar_op("_rdiv_scalar", _keep(lambda x, s, out=None: np.true_divide(s, x, out=out)),
                     lambda g, y, x, scalar: -g * y / x, save=(0,), save_out=True)
_POW_S = _scalar_op("_power_scalar", _keep(np.power),
                    lambda g, y, x, scalar: g * scalar * x ** (scalar - 1.0)
                    if scalar != 2.0 else g * 2.0 * x, save=(0,))
_RPOW_S = _scalar_op("_rpower_scalar", _keep(lambda x, s, out=None: np.power(s, x, out=out)),
                     lambda g, y, x, scalar: g * y * math.log(scalar) if scalar > 0 else None,
                     save=(), save_out=True)
_MOD_S = _scalar_op("_mod_scalar", _keep(np.mod), lambda g, y, x, scalar: g, save=())
_RMOD_S = _scalar_op("_rmod_scalar", _keep(lambda x, s, out=None: np.mod(s, x, out=out)),
                     lambda g, y, x, scalar: -g * floor(scalar / x), save=(0,))
_FDIV_S = _scalar_op("_floor_divide_scalar", _keep(np.floor_divide),
                     lambda g, y, x, scalar: None, save=())
_RFDIV_S = _scalar_op("_rfloor_divide_scalar",
                      _keep(lambda x, s, out=None: np.floor_divide(s, x, out=out)),
                      lambda g, y, x, scalar: None, save=())
_MAX_S = _scalar_op("_maximum_scalar", _keep(np.maximum),
                    lambda g, y, x, scalar: g * (x >= scalar), save=(0,))
_MIN_S = _scalar_op("_minimum_scalar", _keep(np.minimum),
                    lambda g, y, x, scalar: g * (x <= scalar), save=(0,))


def _zero_rule_s(g, y, x, scalar):
    return None


def _cmp_s(name, ufunc):
    # recorded with a zero gradient, as MXNet: (x > 0).backward() gives zeros, and gradient
    # rules that use a comparison (relu, clip, ...) stay connected to x, so their second
    # derivative is zero instead of "not recorded"
    return defop(name, lambda x, scalar: ufunc(x, scalar).astype(x.dtype), [_zero_rule_s],
                 [_zero_rule_s], save=())


_EQ_S = _cmp_s("_equal_scalar", np.equal)
_NE_S = _cmp_s("_not_equal_scalar", np.not_equal)
_GT_S = _cmp_s("_greater_scalar", np.greater)
_GE_S = _cmp_s("_greater_equal_scalar", np.greater_equal)
_LT_S = _cmp_s("_lesser_scalar", np.less)
_LE_S = _cmp_s("_lesser_equal_scalar", np.less_equal)


# ------------------------------------------------------------------ binary ops
def _same_dtype(fn):
    """``fn(a, b)`` in ``a``'s dtype; accepts ``out=`` (``fn`` a ufunc)."""
    def f(a, b, out=None):
        if out is not None:
            return fn(a, b, out=out)
        r = fn(a, b)
        if r.dtype != a.dtype:
            r = r.astype(a.dtype)
        return r
    return f


def _binary(name, fwd, grads, jvps, save=(0, 1), save_out=False, doc="", scalar=None,
            py=None, takes_out=None) -> BinaryOp:
    """Declare a broadcasting binary op and its `mx.nd` function. ``scalar`` = (op of
    ``array <op> s``, op of ``s <op> array``) lets a Python scalar stand on either side;
    ``py(a, b)`` is the op on two Python scalars (MXNet then returns a Python number)."""
    op = defop(name, fwd, grads, jvps, save=save, save_out=save_out, takes_out=takes_out)
    f = binary_fast(op, scalar, py)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"""{doc} Broadcasts NumPy-style.

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.{name}(mx.nd.array([[1., 2.]]), mx.nd.array([[3.], [4.]])).shape
    (2, 2)
    """
    return f


def _div_grad_b(g, y, a, b):
    return -g * a / (b * b)


def _pow_grad_a(g, y, a, b):
    return g * b * a ** (b - 1.0)


def _pow_grad_b(g, y, a, b):
    # d/db a**b = a**b * log(a); defined as 0 where a == 0 (and b > 0)
    return g * y * log(where_mask(a > 0, a, ones_like(a)))


def _max_ga(g, y, a, b):
    return g * (a >= b)


def _max_gb(g, y, a, b):
    return g * (b >= a)


def _min_ga(g, y, a, b):
    return g * (a <= b)


def _min_gb(g, y, a, b):
    return g * (b <= a)


add = _binary("add", np.add, [lambda g, y, a, b: g, lambda g, y, a, b: g],
              [lambda t, y, a, b: t, lambda t, y, a, b: t], save=(), doc="Elementwise sum.",
              scalar=(_PLUS_S, _PLUS_S), py=_operator.add)
subtract = _binary("subtract", np.subtract, [lambda g, y, a, b: g, lambda g, y, a, b: -g],
                   [lambda t, y, a, b: t, lambda t, y, a, b: -t], save=(),
                   doc="Elementwise difference.", scalar=(_MINUS_S, _RMINUS_S),
                   py=_operator.sub)
multiply = _binary("multiply", np.multiply, [lambda g, y, a, b: g * b, lambda g, y, a, b: g * a],
                   [lambda t, y, a, b: t * b, lambda t, y, a, b: a * t],
                   doc="Elementwise product.", scalar=(_MUL_S, _MUL_S), py=_operator.mul)
divide = _binary("divide", _same_dtype(np.true_divide),
                 [lambda g, y, a, b: g / b, _div_grad_b],
                 [lambda t, y, a, b: t / b, lambda t, y, a, b: _div_grad_b(t, y, a, b)],
                 doc="Elementwise quotient.", scalar=(_DIV_S, _RDIV_S),
                 py=_operator.truediv, takes_out=True)
power = _binary("power", _same_dtype(np.power), [_pow_grad_a, _pow_grad_b],
                [_pow_grad_a, _pow_grad_b], save_out=True, doc="Elementwise power a**b.",
                scalar=(_POW_S, _RPOW_S), py=_operator.pow, takes_out=True)
maximum = _binary("maximum", np.maximum, [_max_ga, _max_gb], [_max_ga, _max_gb],
                  doc="Elementwise maximum; ties give the gradient to both inputs (as MXNet).",
                  scalar=(_MAX_S, _MAX_S), py=max)
minimum = _binary("minimum", np.minimum, [_min_ga, _min_gb], [_min_ga, _min_gb],
                  doc="Elementwise minimum; ties give the gradient to both inputs (as MXNet).",
                  scalar=(_MIN_S, _MIN_S), py=min)
modulo = _binary("modulo", _same_dtype(np.mod),
                 [lambda g, y, a, b: g, lambda g, y, a, b: -g * floor(a / b)],
                 [lambda t, y, a, b: t, lambda t, y, a, b: -t * floor(a / b)],
                 doc="Elementwise remainder (sign of the divisor, as NumPy).",
                 scalar=(_MOD_S, _RMOD_S), py=_operator.mod, takes_out=True)
floor_divide = _binary("floor_divide", _same_dtype(np.floor_divide),
                       [lambda g, y, a, b: None, lambda g, y, a, b: None],
                       [lambda t, y, a, b: None, lambda t, y, a, b: None], save=(),
                       doc="Elementwise floor division (zero gradient).",
                       scalar=(_FDIV_S, _RFDIV_S), py=_operator.floordiv, takes_out=True)
hypot = _binary("hypot", np.hypot, [lambda g, y, a, b: g * a / y, lambda g, y, a, b: g * b / y],
                [lambda t, y, a, b: t * a / y, lambda t, y, a, b: t * b / y], save_out=True,
                doc="sqrt(a**2 + b**2).", py=math.hypot)
arctan2 = _binary("arctan2", np.arctan2,
                  [lambda g, y, a, b: g * b / (a * a + b * b),
                   lambda g, y, a, b: -g * a / (a * a + b * b)],
                  [lambda t, y, a, b: t * b / (a * a + b * b),
                   lambda t, y, a, b: -t * a / (a * a + b * b)], doc="Angle of (b, a).")


def _compare(name, ufunc, doc, scalar=None) -> BinaryOp:
    def fwd(a, b):
        return ufunc(a, b).astype(np.result_type(a, b) if a.dtype != b.dtype else a.dtype)
    return _binary(name, fwd, [_zero_rule2, _zero_rule2], [_zero_rule2, _zero_rule2], save=(),
                   doc=doc + " Returns 0/1 in the input dtype (its gradient is zero).",
                   scalar=scalar, py=lambda a, b: int(ufunc(a, b)))


equal = _compare("equal", np.equal, "a == b.", (_EQ_S, _EQ_S))
not_equal = _compare("not_equal", np.not_equal, "a != b.", (_NE_S, _NE_S))
greater = _compare("greater", np.greater, "a > b.", (_GT_S, _LT_S))
greater_equal = _compare("greater_equal", np.greater_equal, "a >= b.", (_GE_S, _LE_S))
lesser = _compare("lesser", np.less, "a < b.", (_LT_S, _GT_S))
lesser_equal = _compare("lesser_equal", np.less_equal, "a <= b.", (_LE_S, _GE_S))
logical_and = _compare("logical_and", np.logical_and, "a and b.")
logical_or = _compare("logical_or", np.logical_or, "a or b.")
logical_xor = _compare("logical_xor", np.logical_xor, "a xor b.")
_LNOT = defop("logical_not", lambda x: np.logical_not(x).astype(x.dtype), [_zero_rule],
              [_zero_tangent], save=())


def logical_not(data: NDArray, **kwargs: Any) -> NDArray:
    """1 where ``data`` is 0, else 0, in the input dtype.

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.logical_not(mx.nd.array([0., 2.]))
    <BLANKLINE>
    [1. 0.]
    <NDArray 2 @cpu(0)>
    """
    return apply1(_LNOT, data)


mxnet_op("logical_not", shape=_sr.same)


def _same_shape(fn, name) -> BinaryOp:
    def f(lhs, rhs, out=None, name=None, **kwargs):
        if isinstance(lhs, NDArray) and isinstance(rhs, NDArray) and lhs.shape != rhs.shape:
            raise ShapeError(f"{f.__name__}: inputs must have the same shape, got {lhs.shape} "
                             f"and {rhs.shape}; use the broadcast_* version (or the "
                             f"operator) to broadcast")
        return fn(lhs, rhs, out=out)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"""Elementwise ``{fn.__name__}`` of two arrays of the same shape (MXNet's
    ``{name}``; no broadcasting).

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.{name}(mx.nd.ones((2,)), mx.nd.ones((2,))).shape
    (2,)
    """
    return f


# MXNet's aliases
broadcast_add = broadcast_plus = add
broadcast_sub = broadcast_minus = subtract
broadcast_mul = multiply
broadcast_div = divide
elemwise_add = _same_shape(add, "elemwise_add")
elemwise_sub = _same_shape(subtract, "elemwise_sub")
elemwise_mul = _same_shape(multiply, "elemwise_mul")
elemwise_div = _same_shape(divide, "elemwise_div")
broadcast_power = power
broadcast_maximum = maximum
broadcast_minimum = minimum
broadcast_mod = modulo
broadcast_hypot = hypot
broadcast_equal = equal
broadcast_not_equal = not_equal
broadcast_greater = greater
broadcast_greater_equal = greater_equal
broadcast_lesser = lesser
broadcast_lesser_equal = lesser_equal
broadcast_logical_and = logical_and
broadcast_logical_or = logical_or
broadcast_logical_xor = logical_xor

# MXNet's binary operators: the elemwise_* and _maximum... ones take one shape, the
# broadcast_* ones broadcast
_BINARY = ("lhs", "rhs")
mxnet_op("elemwise_add", _BINARY, aliases=("_plus", "_Plus", "_add", "_grad_add"),
         shape=_sr.same)
mxnet_op("elemwise_sub", _BINARY, aliases=("_minus", "_Minus", "_sub"), shape=_sr.same)
mxnet_op("elemwise_mul", _BINARY, aliases=("_mul", "_Mul"), shape=_sr.same)
mxnet_op("elemwise_div", _BINARY, aliases=("_div", "_Div"), shape=_sr.same)
for _n, _fn in (("_maximum", "maximum"), ("_minimum", "minimum"), ("_power", "power"),
                ("_mod", "modulo"), ("_hypot", "hypot"), ("_equal", "equal"),
                ("_not_equal", "not_equal"), ("_greater", "greater"),
                ("_greater_equal", "greater_equal"), ("_lesser", "lesser"),
                ("_lesser_equal", "lesser_equal")):
    mxnet_op(_n, _BINARY, nd_name=_fn, shape=_sr.same,
             aliases={"_maximum": ("_Maximum",), "_minimum": ("_Minimum",),
                      "_power": ("_Power",), "_mod": ("_Mod",),
                      "_hypot": ("_Hypot",)}.get(_n, ()))
for _n in ("broadcast_add", "broadcast_sub", "broadcast_mul", "broadcast_div",
           "broadcast_maximum", "broadcast_minimum", "broadcast_power", "broadcast_mod",
           "broadcast_equal", "broadcast_not_equal", "broadcast_greater",
           "broadcast_greater_equal", "broadcast_lesser", "broadcast_lesser_equal",
           "broadcast_hypot", "broadcast_logical_and", "broadcast_logical_or",
           "broadcast_logical_xor"):
    mxnet_op(_n, _BINARY, aliases={"broadcast_add": ("broadcast_plus",),
                                   "broadcast_sub": ("broadcast_minus",)}.get(_n, ()),
             shape=_sr.broadcast_rule)


def scalar_value(kwargs: dict):
    """The scalar of a ``*_scalar`` node: an int when MXNet's ``is_int`` says the Python
    scalar was one (so integer arrays stay integer), else a float.

    Examples
    --------
    >>> scalar_value({'scalar': '2.0', 'is_int': True}), scalar_value({'scalar': 2})
    (2, 2.0)
    """
    s = kwargs.get("scalar", 0.0)
    if kwargs.get("is_int") and float(s).is_integer():
        return int(float(s))
    return float(s)


def _scalar_run(fn):
    """The run of a ``*_scalar`` node: ``fn(array, scalar)``."""
    def run(inputs, kwargs):
        return fn(inputs[0], scalar_value(kwargs))
    return run


# MXNet's operators of the scalar family: name -> (array op scalar, aliases)
_SCALAR_OPS = {
    "_plus_scalar": (lambda x, s: x + s, ("_PlusScalar",)),
    "_minus_scalar": (lambda x, s: x - s, ("_MinusScalar",)),
    "_rminus_scalar": (lambda x, s: s - x, ("_RMinusScalar",)),
    "_mul_scalar": (lambda x, s: x * s, ("_MulScalar",)),
    "_div_scalar": (lambda x, s: x / s, ("_DivScalar",)),
    "_rdiv_scalar": (lambda x, s: s / x, ("_RDivScalar",)),
    "_power_scalar": (lambda x, s: x ** s, ("_PowerScalar",)),
    "_rpower_scalar": (lambda x, s: s ** x, ("_RPowerScalar",)),
    "_mod_scalar": (lambda x, s: x % s, ("_ModScalar",)),
    "_rmod_scalar": (lambda x, s: s % x, ("_RModScalar",)),
    "_maximum_scalar": (lambda x, s: maximum(x, s), ("_MaximumScalar",)),
    "_minimum_scalar": (lambda x, s: minimum(x, s), ("_MinimumScalar",)),
    "_hypot_scalar": (lambda x, s: sqrt(x * x + s * s), ("_HypotScalar",)),
    "_equal_scalar": (lambda x, s: x == s, ("_EqualScalar",)),
    "_not_equal_scalar": (lambda x, s: x != s, ("_NotEqualScalar",)),
    "_greater_scalar": (lambda x, s: x > s, ("_GreaterScalar",)),
    "_greater_equal_scalar": (lambda x, s: x >= s, ("_GreaterEqualScalar",)),
    "_lesser_scalar": (lambda x, s: x < s, ("_LesserScalar",)),
    "_lesser_equal_scalar": (lambda x, s: x <= s, ("_LesserEqualScalar",)),
}
for _n, (_f, _al) in _SCALAR_OPS.items():
    mxnet_op(_n, run=_scalar_run(_f), aliases=_al, attrs=("scalar", "is_int"), shape=_sr.same)


def _add_n_fwd(*xs):
    out = xs[0].copy()
    for x in xs[1:]:
        out += x
    return out


def add_n(*args: NDArray, **kwargs: Any) -> NDArray:
    """Sum of any number of arrays of the same shape.

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.add_n(mx.nd.ones((2,)), mx.nd.ones((2,)), mx.nd.ones((2,)))
    <BLANKLINE>
    [3. 3.]
    <NDArray 2 @cpu(0)>
    """
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = tuple(args[0])
    shapes = {a.shape for a in args}
    if len(shapes) > 1:
        raise ShapeError(f"add_n: all inputs must have the same shape, got {sorted(shapes)}")
    n = len(args)
    op = _ADD_N.get(n)
    if op is None:
        op = defop("add_n", _add_n_fwd, [lambda g, y, *xs: g] * n, [lambda t, y, *xs: t] * n,
                   save=())
        _ADD_N[n] = op
    return apply(op, args)


_ADD_N: dict = {}
ElementWiseSum = add_n
mxnet_op("add_n", None, aliases=("ElementWiseSum",), attrs=("num_args",),
         run=lambda ins, kw: add_n(*ins), shape=_sr.same)




# ------------------------------------------------------------ NDArray operators
def _rsub(x, s):
    return s - x


def _rdiv(x, s):
    return s / x


def operators(face=NDArray, rules=None) -> dict:
    """The operator methods (``__add__``... ``__imod__``) of the array class ``face``,
    built by one factory (:func:`~mxgrad.ops._apply.operator`) for each face: ``NDArray``
    gets them below, ``mx.np.ndarray`` wraps its own around them (NumPy promotion, bool
    comparisons)."""
    # operator: (array op, array-scalar op, scalar-array op, NumPy forward of the scalar
    # case for the inlined path, reflected NumPy forward)
    kw = {"face": face, "rules": rules}
    add_m = operator(add, _PLUS_S, np_fn=np.add, **kw)
    mul_m = operator(multiply, _MUL_S, np_fn=np.multiply, **kw)
    sub_m, rsub_m = operator(subtract, _MINUS_S, _RMINUS_S, np.subtract, _rsub, **kw)
    div_m, rdiv_m = operator(divide, _DIV_S, _RDIV_S, np.true_divide, _rdiv, **kw)
    pow_m, rpow_m = operator(power, _POW_S, _RPOW_S, **kw)
    mod_m, rmod_m = operator(modulo, _MOD_S, _RMOD_S, **kw)
    fdiv_m, rfdiv_m = operator(floor_divide, _FDIV_S, _RFDIV_S, **kw)
    return {
        "__add__": add_m, "__radd__": add_m, "__sub__": sub_m, "__rsub__": rsub_m,
        "__mul__": mul_m, "__rmul__": mul_m, "__truediv__": div_m, "__rtruediv__": rdiv_m,
        "__div__": div_m, "__rdiv__": rdiv_m,
        "__pow__": pow_m, "__rpow__": rpow_m, "__mod__": mod_m, "__rmod__": rmod_m,
        "__floordiv__": fdiv_m, "__rfloordiv__": rfdiv_m,
        "__neg__": negative, "__pos__": lambda self: self, "__abs__": abs,
        "__eq__": operator(equal, _EQ_S, **kw),
        "__ne__": operator(not_equal, _NE_S, **kw),
        "__gt__": operator(greater, _GT_S, **kw),
        "__ge__": operator(greater_equal, _GE_S, **kw),
        "__lt__": operator(lesser, _LT_S, **kw),
        "__le__": operator(lesser_equal, _LE_S, **kw),
        "__iadd__": inplace_operator(add_m), "__isub__": inplace_operator(sub_m),
        "__imul__": inplace_operator(mul_m), "__itruediv__": inplace_operator(div_m),
        "__idiv__": inplace_operator(div_m), "__imod__": inplace_operator(mod_m),
    }

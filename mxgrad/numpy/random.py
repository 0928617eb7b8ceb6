"""``mx.np.random``: NumPy's sampling signatures (``size=``) on mxgrad's generator
(``mx.random.seed`` / ``np.random.seed`` seed both faces alike).

Examples
--------
>>> from mxgrad import np
>>> np.random.seed(0)
>>> a = np.random.normal(0, 1, size=(2,))
>>> np.random.seed(0)
>>> bool((a == np.random.normal(0, 1, size=(2,))).all())
True
"""
from __future__ import annotations

import builtins as _builtins
from typing import List, Any, Optional

import numpy as _onp

from ..base import DTypeError, ShapeError
from .._engine.ndarray import NDArray, wrap
from .. import random as _random
from ..ops import elemwise as _E
from .multiarray import ndarray, _np_dtype, to_np

__all__ = ["seed", "uniform", "normal", "randn", "rand", "randint", "choice", "shuffle",
           "multinomial", "exponential", "gamma", "poisson", "bernoulli", "beta", "laplace",
           "gumbel", "logistic", "lognormal", "permutation"]


def _size(size: Any) -> Any:
    if size is None:
        return None
    if isinstance(size, (int, _onp.integer)):
        return (int(size),)
    try:
        return tuple(int(s) for s in size)
    except TypeError:
        raise DTypeError(f"size must be an int or a tuple of ints, got "
                         f"{type(size).__name__}") from None


def _param(p: Any) -> Any:
    return p._data if isinstance(p, NDArray) else p


def _in_graph(*params: Any) -> bool:
    """Whether a parameter is an array a gradient must reach (recording, in a graph)."""
    from .._engine.scope import is_recording
    return is_recording() and _builtins.any(isinstance(p, NDArray) and p._node is not None
                                            for p in params)


def _shape_of(size: Any, *params: Any) -> Any:
    return _size(size) or _onp.broadcast_shapes(*(_onp.shape(_param(p)) for p in params))


def _noise(draw: Any, like: Any) -> ndarray:
    """Parameter-free samples as a constant array of the parameters' float dtype."""
    dt = _builtins.next((p._data.dtype for p in like if isinstance(p, NDArray) and
                         p._data.dtype.kind == "f"), _onp.dtype(_onp.float32))
    return wrap(_onp.asarray(draw, dtype=dt), None, 0, ndarray)


def _pathwise(params: Any, size: Any, draw: Any, compose: Any) -> ndarray:
    """A sample as a recorded function of its parameters (the reparameterization MXNet
    differentiates its samplers by): ``compose(noise, *params)`` with ``noise`` drawn by
    ``draw(shape)`` from the parameter-free distribution."""
    noise = _noise(draw(_shape_of(size, *params)), params)
    args = [to_np(p) if isinstance(p, NDArray) else p for p in params]
    return to_np(compose(noise, *args))


def _out(draw: Any, dtype: Any) -> ndarray:
    d = _onp.asarray(draw)
    return wrap(d.astype(_np_dtype(dtype), copy=False), None, 0, ndarray)


def seed(seed: int, ctx: Any = "all") -> None:
    """Seed the generator (the same one ``mx.random.seed`` seeds)."""
    _random.seed(seed)


def _rng() -> _onp.random.Generator:
    return _random.generator()


def uniform(low: Any = 0.0, high: Any = 1.0, size: Any = None, dtype: Any = None,
            ctx: Any = None, out: Any = None) -> ndarray:
    """Samples from ``U[low, high)`` (float32 by default; a 0-d array without ``size``;
    constants under autograd, as MXNet's give zero gradients)."""
    return _out(_rng().uniform(_param(low), _param(high), _size(size)), dtype)


def normal(loc: Any = 0.0, scale: Any = 1.0, size: Any = None, dtype: Any = None,
           ctx: Any = None, out: Any = None) -> ndarray:
    """Samples from a normal distribution."""
    if _onp.any(_onp.asarray(_param(scale)) < 0):
        raise ShapeError("np.random.normal: scale must be >= 0")
    if _in_graph(loc, scale):
        return _pathwise((loc, scale), size, _rng().standard_normal,
                         lambda e, m, s_: m + s_ * e)
    return _out(_rng().normal(_param(loc), _param(scale), _size(size)), dtype)


def lognormal(mean: Any = 0.0, sigma: Any = 1.0, size: Any = None, dtype: Any = None,
              ctx: Any = None, out: Any = None) -> ndarray:
    """Samples from a log-normal distribution (differentiable in array parameters)."""
    if _in_graph(mean, sigma):
        return _pathwise((mean, sigma), size, _rng().standard_normal,
                         lambda e, m, s_: _E.exp(m + s_ * e))
    return _out(_rng().lognormal(_param(mean), _param(sigma), _size(size)), dtype)


def randn(*size: int, **kwargs: Any) -> ndarray:
    """Standard normal samples of shape ``size``."""
    return normal(0.0, 1.0, size if size else None, kwargs.get("dtype"))


def rand(*size: int, **kwargs: Any) -> ndarray:
    """Uniform ``[0, 1)`` samples of shape ``size``."""
    return uniform(0.0, 1.0, size if size else None, kwargs.get("dtype"))


def randint(low: int, high: Optional[int] = None, size: Any = None, dtype: Any = None,
            ctx: Any = None, out: Any = None) -> ndarray:
    """Random integers in ``[low, high)`` (int64 by default, as MXNet)."""
    if high is None:
        low, high = 0, low
    if high <= low:
        raise ShapeError(f"np.random.randint: high ({high}) must be greater than low ({low})")
    return _out(_rng().integers(low, high, _size(size)), dtype or _onp.int64)


def choice(a: Any, size: Any = None, replace: bool = True, p: Any = None,
           ctx: Any = None, out: Any = None) -> ndarray:
    """Random samples from ``a`` (an int n means ``arange(n)``); int64 indices."""
    src = _param(a)
    r = _rng().choice(src, _size(size), replace, None if p is None else _param(p))
    r = _onp.asarray(r)
    return wrap(r.astype(_onp.int64) if r.dtype.kind in "iu" else r, None, 0, ndarray)


def multinomial(n: int, pvals: Any, size: Any = None) -> ndarray:
    """Draw counts of ``n`` trials over the categories ``pvals`` (int64)."""
    p = _onp.asarray(_param(pvals), dtype=_onp.float64)
    if p.size == 0:       # MXNet: no categories give an empty result (NumPy 2 refuses)
        return wrap(_onp.zeros((_size(size) or ()) + (0,), _onp.int64), None, 0, ndarray)
    total = p.sum()
    if total > 1.0 and total < 1.0 + 1e-5:   # float32 probabilities that sum to 1 + rounding
        p = p / total
    return wrap(_rng().multinomial(n, p, _size(size)).astype(_onp.int64), None, 0, ndarray)


def shuffle(x: NDArray) -> None:
    """Shuffle ``x`` in place along its first axis."""
    d = x._data
    x._write(d[_rng().permutation(d.shape[0])])


def permutation(x: Any) -> ndarray:
    """A permuted ``arange(x)`` (an int) or a shuffled copy of ``x``."""
    if isinstance(x, (int, _onp.integer)):
        return wrap(_rng().permutation(int(x)).astype(_onp.int64), None, 0, ndarray)
    d = _param(x)
    return wrap(d[_rng().permutation(d.shape[0])], None, 0, ndarray)


def exponential(scale: Any = 1.0, size: Any = None, ctx: Any = None, out: Any = None) -> ndarray:
    """Samples from an exponential distribution (differentiable in an array ``scale``)."""
    if _onp.any(_onp.asarray(_param(scale)) < 0):
        raise ShapeError("np.random.exponential: scale must be >= 0")
    if _in_graph(scale):
        return _pathwise((scale,), size, _rng().standard_exponential, lambda e, b: b * e)
    return _out(_rng().exponential(_param(scale), _size(size)), None)


def gamma(shape: Any = 1.0, scale: Any = 1.0, size: Any = None, dtype: Any = None,
          ctx: Any = None, out: Any = None) -> ndarray:
    """Samples from a gamma distribution (``shape`` and ``scale`` > 0, as MXNet)."""
    k, theta = _param(shape), _param(scale)
    if _onp.any(_onp.asarray(k) <= 0) or _onp.any(_onp.asarray(theta) <= 0):
        raise ShapeError("np.random.gamma: shape and scale must be greater than 0")
    return _out(_rng().gamma(k, theta, _size(size)), dtype)


def beta(a: Any, b: Any, size: Any = None, dtype: Any = None, ctx: Any = None) -> ndarray:
    """Samples from a beta distribution."""
    return _out(_rng().beta(_param(a), _param(b), _size(size)), dtype)


def poisson(lam: Any = 1.0, size: Any = None, dtype: Any = None, ctx: Any = None) -> ndarray:
    """Samples from a Poisson distribution."""
    return _out(_rng().poisson(_param(lam), _size(size)), dtype)


def bernoulli(prob: Any = 0.5, size: Any = None, dtype: Any = None, ctx: Any = None) -> ndarray:
    """0/1 samples with probability ``prob`` of 1."""
    return _out(_rng().random(_size(size) if size is not None else _onp.shape(_param(prob)))
                < _param(prob), dtype)


def laplace(loc: Any = 0.0, scale: Any = 1.0, size: Any = None, dtype: Any = None,
            ctx: Any = None, out: Any = None) -> ndarray:
    """Samples from a Laplace distribution."""
    return _out(_rng().laplace(_param(loc), _param(scale), _size(size)), dtype)


def gumbel(loc: Any = 0.0, scale: Any = 1.0, size: Any = None, ctx: Any = None,
           out: Any = None) -> ndarray:
    """Samples from a Gumbel distribution (differentiable in array parameters)."""
    if _in_graph(loc, scale):
        return _pathwise((loc, scale), size, lambda sh: _rng().gumbel(0.0, 1.0, sh),
                         lambda e, m, s_: m + s_ * e)
    return _out(_rng().gumbel(_param(loc), _param(scale), _size(size)), None)


def logistic(loc: Any = 0.0, scale: Any = 1.0, size: Any = None, ctx: Any = None,
             out: Any = None) -> ndarray:
    """Samples from a logistic distribution (differentiable in array parameters)."""
    if _in_graph(loc, scale):
        return _pathwise((loc, scale), size, lambda sh: _rng().logistic(0.0, 1.0, sh),
                         lambda e, m, s_: m + s_ * e)
    return _out(_rng().logistic(_param(loc), _param(scale), _size(size)), None)


def _one_param(name: str, param: str, default: Any) -> Any:
    def f(*args: Any, size: Any = None, ctx: Any = None, out: Any = None, dtype: Any = None,
          **kwargs: Any) -> ndarray:
        value = args[0] if args else kwargs.pop(param, default)
        if len(args) > 1:
            size = args[1]
        if kwargs:
            raise DTypeError(f"np.random.{name}: unknown argument(s) {sorted(kwargs)}; it "
                             f"takes {param}, size, dtype")
        v = _onp.asarray(_param(value))
        if _onp.any(v <= 0) if param in ("a", "df") else _onp.any(v < 0):
            raise ShapeError(f"np.random.{name}: {param} must be "
                             f"{'> 0' if param in ('a', 'df') else '>= 0'}, got {value!r}")
        if name in _PATHWISE and _in_graph(value):
            draw, compose = _PATHWISE[name]
            return _pathwise((value,), size, draw, compose)
        return _out(getattr(_rng(), name)(_param(value), size=_size(size)), dtype)
    f.__name__ = name
    f.__doc__ = (f"Samples of NumPy's ``{name}`` distribution (``{param}``; float32 by "
                 f"default).")
    return f


# one-parameter samplers MXNet differentiates: (parameter-free draw, sample from it)
_PATHWISE = {
    "rayleigh": (lambda sh: _rng().rayleigh(1.0, sh), lambda r, s_: s_ * r),
    "weibull": (lambda sh: _rng().standard_exponential(sh), lambda e, a: e ** (1.0 / a)),
    "pareto": (lambda sh: _rng().standard_exponential(sh), lambda e, a: _E.exp(e / a) - 1.0),
}
chisquare = _one_param("chisquare", "df", 1.0)
pareto = _one_param("pareto", "a", 1.0)
power = _one_param("power", "a", 1.0)
rayleigh = _one_param("rayleigh", "scale", 1.0)
weibull = _one_param("weibull", "a", 1.0)
__all__ += ["chisquare", "pareto", "power", "rayleigh", "weibull"]


def multivariate_normal(mean: Any, cov: Any, size: Any = None, check_valid: str = "warn",
                        tol: float = 1e-8) -> ndarray:
    """Samples of a multivariate normal distribution; ``mean`` (``(..., k)``) and ``cov``
    (``(..., k, k)``) may carry batch axes, broadcast together as MXNet does (the result
    is ``size + batch + (k,)``)."""
    m = _onp.asarray(_param(mean), dtype=_onp.float64)
    c = _onp.asarray(_param(cov), dtype=_onp.float64)
    if m.ndim == 1 and c.ndim == 2:
        return _out(_rng().multivariate_normal(m, c, _size(size),
                                               check_valid, tol),  # type: ignore[arg-type]
                    None)
    k = m.shape[-1]
    if c.ndim < 2 or c.shape[-2:] != (k, k):
        raise ShapeError(f"np.random.multivariate_normal: cov must end in ({k}, {k}) "
                         f"to fit mean of shape {m.shape}, got {c.shape}")
    batch = _onp.broadcast_shapes(m.shape[:-1], c.shape[:-2])
    chol = _onp.linalg.cholesky(_onp.broadcast_to(c, batch + (k, k)))
    shape = (_size(size) or ()) + batch + (k,)
    z = _rng().standard_normal(shape)
    r = _onp.broadcast_to(m, batch + (k,)) + _onp.einsum("...ij,...j->...i", chol, z)
    return _out(r, None)


__all__.append("multivariate_normal")


def __dir__() -> List[str]:
    """The public names (as ``dir()`` of MXNet's module lists them)."""
    return sorted(set(__all__))

"""MXNet's ``sample_*`` operators: one draw per element of parameter arrays (``mx.nd``'s
flat names; ``nd.random.*`` call the same samplers). Each parameter is an NDArray and all have
one shape ``P``; the result has shape ``P + shape`` (``shape`` extra draws per element) and
is float32 unless ``dtype`` says otherwise. The draws are constants for autograd (MXNet gives
these operators no gradient).

Examples
--------
>>> import mxgrad as mx
>>> mu, sigma = mx.nd.array([0., 10.]), mx.nd.array([1., 0.])
>>> out = mx.nd.sample_normal(mu, sigma, shape=3)
>>> out.shape, out[1].asnumpy().tolist()
((2, 3), [10.0, 10.0, 10.0])
"""
from __future__ import annotations

from typing import Any, Optional

from . import _dtype_rules as _dr
from . import random as _random
from ._mxnet_op import mxnet_op
from ..base import DTypeError, ShapeError
from .._engine.ndarray import NDArray
from .._typing import DTypeLike, ShapeLike

__all__ = ["sample_uniform", "sample_normal", "sample_gamma", "sample_exponential",
           "sample_poisson", "sample_negative_binomial",
           "sample_generalized_negative_binomial"]


def _arrays(op: str, **params: Any) -> None:
    shapes = set()
    for name, v in params.items():
        if not isinstance(v, NDArray):
            raise DTypeError(f"{op}: {name} must be an NDArray of parameters (use "
                             f"mx.nd.random.* for scalar parameters), got {type(v).__name__}")
        shapes.add(tuple(v.shape))
    if len(shapes) > 1:
        raise ShapeError(f"{op}: the parameter arrays must have one shape, got "
                         + ", ".join(f"{n}{tuple(v.shape)}" for n, v in params.items()))


def sample_uniform(low: NDArray, high: NDArray, shape: Optional[ShapeLike] = None,
                   dtype: DTypeLike = None, **kwargs: Any) -> NDArray:
    """Uniform draws in ``[low, high)`` per element."""
    _arrays("sample_uniform", low=low, high=high)
    return _random.uniform(low, high, shape=shape, dtype=dtype)


def sample_normal(mu: NDArray, sigma: NDArray, shape: Optional[ShapeLike] = None,
                  dtype: DTypeLike = None, **kwargs: Any) -> NDArray:
    """Normal draws with mean ``mu`` and standard deviation ``sigma`` per element."""
    _arrays("sample_normal", mu=mu, sigma=sigma)
    return _random.normal(mu, sigma, shape=shape, dtype=dtype)


def sample_gamma(alpha: NDArray, beta: NDArray, shape: Optional[ShapeLike] = None,
                 dtype: DTypeLike = None, **kwargs: Any) -> NDArray:
    """Gamma draws with shape ``alpha`` and scale ``beta`` per element."""
    _arrays("sample_gamma", alpha=alpha, beta=beta)
    return _random.gamma(alpha, beta, shape=shape, dtype=dtype)


def sample_exponential(lam: NDArray, shape: Optional[ShapeLike] = None,
                       dtype: DTypeLike = None, **kwargs: Any) -> NDArray:
    """Exponential draws with rate ``lam`` per element."""
    _arrays("sample_exponential", lam=lam)
    return _random.exponential(1.0 / lam, shape=shape, dtype=dtype)


def sample_poisson(lam: NDArray, shape: Optional[ShapeLike] = None, dtype: DTypeLike = None,
                   **kwargs: Any) -> NDArray:
    """Poisson draws with rate ``lam`` per element."""
    _arrays("sample_poisson", lam=lam)
    return _random.poisson(lam, shape=shape, dtype=dtype)


def sample_negative_binomial(k: NDArray, p: NDArray, shape: Optional[ShapeLike] = None,
                             dtype: DTypeLike = None, **kwargs: Any) -> NDArray:
    """Negative binomial draws (failures before the ``k``-th success) per element."""
    _arrays("sample_negative_binomial", k=k, p=p)
    return _random.negative_binomial(k, p, shape=shape, dtype=dtype)


def sample_generalized_negative_binomial(mu: NDArray, alpha: NDArray,
                                         shape: Optional[ShapeLike] = None,
                                         dtype: DTypeLike = None, **kwargs: Any) -> NDArray:
    """Generalized negative binomial draws (mean ``mu``, dispersion ``alpha``) per element."""
    _arrays("sample_generalized_negative_binomial", mu=mu, alpha=alpha)
    return _random.generalized_negative_binomial(mu, alpha, shape=shape, dtype=dtype)


def _sample_dtype(kw, ins, outs):
    """``sample_<dist>``'s dtype rule: the draws have the ``dtype`` attribute (float32
    without one), the parameter arrays one dtype."""
    t = _dr.as_dtype(kw.get("dtype")) if kw.get("dtype") not in (None, "None") else _dr.F32
    new_ins, _ = _dr.same(kw, ins, [None] * len(outs))
    return new_ins, [t] * len(outs)


# MXNet's operators with their parameter arrays (sample_<dist>: MXNet's alias, made one by
# symbol/_registry.py's _flat_names_as_aliases with the other flat names)
for _d, _inputs in (("uniform", ("low", "high")), ("normal", ("mu", "sigma")),
                    ("gamma", ("alpha", "beta")), ("exponential", ("lam",)),
                    ("poisson", ("lam",)), ("negative_binomial", ("k", "p")),
                    ("generalized_negative_binomial", ("mu", "alpha"))):
    mxnet_op(f"_sample_{_d}", _inputs, nd_name=f"sample_{_d}", dtype=_sample_dtype)

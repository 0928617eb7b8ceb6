"""``mx.sym.random``: random sampling as Symbol nodes (MXNet's ``mx.sym.random``).

With numbers for the distribution's parameters a function builds MXNet's ``_random_<dist>``
node (one sample of ``shape``); with Symbols it builds ``_sample_<dist>`` (``shape`` samples
per element of the parameters), as in MXNet. Samples are drawn from ``mx.random``'s
generator when the graph runs.

Examples
--------
>>> import mxgrad as mx
>>> y = mx.sym.random.uniform(0, 1, shape=(2, 3))
>>> y.infer_shape()[1], y.name.startswith('_random_uniform')
([(2, 3)], True)
>>> mu = mx.sym.var('mu')
>>> z = mx.sym.random.normal(mu, mx.sym.var('sigma'), shape=4)
>>> z.infer_shape(mu=(2,), sigma=(2,))[1]
[(2, 4)]
"""
from __future__ import annotations

from ..base import DTypeError
from . import _ops
from ._core import Symbol

__all__ = ["uniform", "normal", "randn", "poisson", "exponential", "gamma",
           "negative_binomial", "generalized_negative_binomial", "multinomial", "shuffle",
           "randint", "uniform_like", "normal_like", "poisson_like", "exponential_like",
           "gamma_like", "negative_binomial_like", "generalized_negative_binomial_like"]


def _helper(dist: str, names, values, shape, dtype, kwargs) -> Symbol:
    name = kwargs.pop("name", None)
    attrs = {k: v for k, v in kwargs.items()}
    if shape is not None:
        attrs["shape"] = shape
    if dtype is not None:
        attrs["dtype"] = dtype
    if isinstance(values[0], Symbol):
        for v in values[1:]:
            if not isinstance(v, Symbol):
                raise DTypeError(f"mx.sym.random.{dist}: distribution parameters must all be "
                                 f"Symbols or all numbers, got {type(v).__name__}")
        return _ops.call(f"_sample_{dist}", f"_sample_{dist}", tuple(values),
                         dict(attrs, name=name))
    for v in values:
        if isinstance(v, Symbol):
            raise DTypeError(f"mx.sym.random.{dist}: distribution parameters must all be "
                             f"Symbols or all numbers")
    attrs.update(zip(names, values))
    return _ops.call(f"_random_{dist}", f"_random_{dist}", (), dict(attrs, name=name))


def uniform(low=0, high=1, shape=None, dtype=None, **kwargs) -> Symbol:
    """Samples from ``U[low, high)``."""
    return _helper("uniform", ("low", "high"), [low, high], shape, dtype, kwargs)


def normal(loc=0, scale=1, shape=None, dtype=None, **kwargs) -> Symbol:
    """Samples from ``N(loc, scale**2)``."""
    return _helper("normal", ("loc", "scale"), [loc, scale], shape, dtype, kwargs)


def randn(*shape, loc=0, scale=1, dtype=None, **kwargs) -> Symbol:
    """``normal(loc, scale, shape)`` with the shape given positionally."""
    return normal(loc, scale, shape or None, dtype, **kwargs)


def poisson(lam=1, shape=None, dtype=None, **kwargs) -> Symbol:
    """Samples from a Poisson distribution of rate ``lam``."""
    return _helper("poisson", ("lam",), [lam], shape, dtype, kwargs)


def exponential(scale=1, shape=None, dtype=None, **kwargs) -> Symbol:
    """Samples from an exponential distribution of mean ``scale`` (rate ``1/scale``)."""
    lam = 1.0 / scale
    return _helper("exponential", ("lam",), [lam], shape, dtype, kwargs)


def gamma(alpha=1, beta=1, shape=None, dtype=None, **kwargs) -> Symbol:
    """Samples from a gamma distribution (shape ``alpha``, scale ``beta``)."""
    return _helper("gamma", ("alpha", "beta"), [alpha, beta], shape, dtype, kwargs)


def negative_binomial(k=1, p=1, shape=None, dtype=None, **kwargs) -> Symbol:
    """Samples from a negative binomial distribution."""
    return _helper("negative_binomial", ("k", "p"), [k, p], shape, dtype, kwargs)


def generalized_negative_binomial(mu=1, alpha=1, shape=None, dtype=None,
                                  **kwargs) -> Symbol:
    """Samples from a generalized negative binomial distribution."""
    return _helper("generalized_negative_binomial", ("mu", "alpha"), [mu, alpha], shape,
                   dtype, kwargs)


def randint(low, high, shape=None, dtype=None, **kwargs) -> Symbol:
    """Integers sampled uniformly from ``[low, high)``."""
    return _helper("randint", ("low", "high"), [low, high], shape, dtype, kwargs)


def multinomial(data, shape=None, get_prob=True, dtype="int32", **kwargs) -> Symbol:
    """Samples from the categorical distributions of the rows of ``data`` and, with
    ``get_prob`` (the default here, as MXNet's Symbol API), their log-probabilities."""
    attrs = dict(kwargs, get_prob=get_prob, dtype=dtype)
    if shape is not None:
        attrs["shape"] = shape
    return _ops.call("_sample_multinomial", "_sample_multinomial", (data,), attrs)


def shuffle(data, **kwargs) -> Symbol:
    """``data`` with its first axis shuffled."""
    return _ops.call("_shuffle", "_shuffle", (data,), kwargs)


def _like(dist: str, names):
    def f(data, *args, **kwargs):
        name = kwargs.pop("name", None)
        kwargs.update(zip(names, args))
        if dist == "exponential" and "scale" in kwargs:
            kwargs["lam"] = 1.0 / kwargs.pop("scale")
        return _ops.call(f"_random_{dist}_like", f"_random_{dist}_like", (data,),
                         dict(kwargs, name=name))
    f.__name__ = f"{dist}_like"
    f.__doc__ = f"Samples of ``{dist}`` with the shape and dtype of ``data``."
    return f


uniform_like = _like("uniform", ("low", "high"))
normal_like = _like("normal", ("loc", "scale"))
poisson_like = _like("poisson", ("lam",))
exponential_like = _like("exponential", ("lam",))
gamma_like = _like("gamma", ("alpha", "beta"))
negative_binomial_like = _like("negative_binomial", ("k", "p"))
generalized_negative_binomial_like = _like("generalized_negative_binomial", ("mu", "alpha"))



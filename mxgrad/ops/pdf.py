"""MXNet's ``random_pdf_*`` operators: the density (or its log) of samples under
per-distribution parameters.

Each parameter array has one value per distribution; ``sample`` has that shape followed by
any number of further axes (samples of the same distribution), and the result has
``sample``'s shape (Dirichlet: without the last axis, which holds one sample's components).
The log-densities are compositions of recorded ops, so gradients with respect to the
samples and the parameters, of any order, and tangents come from the parts. As in MXNet
1.9.1: the gradient with respect to the samples of a discrete distribution (Poisson,
negative binomial) is zero; the uniform and exponential densities do not check that a
sample lies in the support (MXNet's kernels do not); Gamma's ``beta`` is the rate.

Each operator is declared once: its function here and, right after it, its MXNet record
(``ops/_mxnet_op.py``: the name MXNet's JSON writes, its inputs, its shape rule), which is
all ``mx.sym.random_pdf_*`` and a loaded graph need.

Examples
--------
>>> import mxgrad as mx
>>> mx.nd.random_pdf_normal(mx.nd.array([[-1, 0, 1]]), mx.nd.array([0]),
...                         mx.nd.array([1])).asnumpy().round(4)
array([[0.242 , 0.3989, 0.242 ]], dtype=float32)
"""
from __future__ import annotations

import math
from typing import Optional, Sequence

from ..base import ShapeError
from .._engine.ndarray import NDArray
from . import _shape_rules as _sr
from ._apply import write_out
from ._mxnet_op import mxnet_op
from .elemwise import (add, divide, exp, gammaln, log, multiply, square, stop_gradient,
                       subtract)
from .reduce import broadcast_to, sum as _sum
from .shape import reshape

__all__ = ["random_pdf_normal", "random_pdf_uniform", "random_pdf_gamma",
           "random_pdf_exponential", "random_pdf_poisson", "random_pdf_negative_binomial",
           "random_pdf_generalized_negative_binomial", "random_pdf_dirichlet"]

_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)


def _per_sample(op: str, sample: NDArray, params: Sequence[NDArray], names: Sequence[str],
                event: int = 0) -> list:
    """``params`` reshaped to broadcast against ``sample`` (one value per distribution,
    the distribution's axes leading ``sample``'s; ``event`` trailing axes belong to one
    sample, as Dirichlet's components). ShapeError naming the argument when they do not."""
    first = params[0].shape
    for p, n in zip(params[1:], names[1:]):
        if p.shape != first:
            raise ShapeError(f"{op}: {n} has shape {p.shape} but {names[0]} has {first}; "
                             f"give every parameter one value per distribution (one shape)")
    lead = len(first) - event
    s = sample.shape
    if len(s) < len(first) or s[:lead] != first[:lead] or s[len(s) - event:] != first[lead:]:
        where = "lead" if not event else "lead and end"
        raise ShapeError(f"{op}: {names[0]} of shape {first} must {where} the shape of sample "
                         f"{s} (one distribution per parameter value, its samples along "
                         f"the further axes)")
    extra = (1,) * (len(s) - len(first))
    shape = first[:lead] + extra + first[lead:]
    return [reshape(p, shape) if p.shape != shape else p for p in params]


def _density(logp: NDArray, sample: NDArray, is_log: bool, out: Optional[NDArray],
             event: int = 0) -> NDArray:
    """The log-density ``logp`` in the sample's shape, as a density unless ``is_log``,
    written into ``out`` when given."""
    out_shape = sample.shape[:len(sample.shape) - event]
    if logp.shape != out_shape:
        logp = broadcast_to(logp, out_shape)
    result = logp if is_log else exp(logp)
    return result if out is None else write_out(out, result)


def _pdf_shape(event: int):
    """The shape rule of a ``random_pdf_*`` operator: the output is the sample's shape
    (without its ``event`` last axes), and back."""
    def rule(kw, ins, outs):
        s, o = ins[0], outs[0]
        if s is not None:
            o = _sr.merge(o, tuple(s[:len(s) - event]))
        elif o is not None and event == 0:
            s = o
        return [s] + list(ins[1:]), [o]
    return rule


def _declare(fn, inputs: Sequence[str], event: int = 0) -> None:
    short = fn.__name__
    mxnet_op("_" + short, tuple(inputs), nd_name=short, aliases=(short,),
             shape=_pdf_shape(event))


def random_pdf_normal(sample: NDArray, mu: NDArray, sigma: NDArray, is_log: bool = False,
                      out: Optional[NDArray] = None, name: Optional[str] = None) -> NDArray:
    """Density of ``sample`` under normal distributions of means ``mu`` and standard
    deviations ``sigma``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.random_pdf_normal(mx.nd.array([[1, 2], [3, 4]]), mx.nd.array([0, 1]),
    ...                         mx.nd.array([1, 2]), is_log=True).asnumpy().round(4)
    array([[-1.4189, -2.9189],
           [-2.1121, -2.7371]], dtype=float32)
    """
    m, s = _per_sample("random_pdf_normal", sample, [mu, sigma], ["mu", "sigma"])
    z = divide(subtract(sample, m), s)
    logp = subtract(subtract(multiply(square(z), -0.5), log(s)), _HALF_LOG_2PI)
    return _density(logp, sample, is_log, out)


_declare(random_pdf_normal, ("sample", "mu", "sigma"))


def random_pdf_uniform(sample: NDArray, low: NDArray, high: NDArray, is_log: bool = False,
                       out: Optional[NDArray] = None, name: Optional[str] = None) -> NDArray:
    """Density of ``sample`` under uniform distributions on ``[low, high)``: ``1 / (high -
    low)`` for every sample (MXNet does not test the bounds).

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.random_pdf_uniform(mx.nd.array([[1, 2, 3]]), mx.nd.array([0]),
    ...                          mx.nd.array([10])).asnumpy()
    array([[0.1, 0.1, 0.1]], dtype=float32)
    """
    lo, hi = _per_sample("random_pdf_uniform", sample, [low, high], ["low", "high"])
    width = subtract(hi, lo)
    density = multiply(log(width), -1.0) if is_log else divide(1.0, width)
    return _density(density, sample, True, out)     # 1 / width exactly, as MXNet


_declare(random_pdf_uniform, ("sample", "low", "high"))


def random_pdf_gamma(sample: NDArray, alpha: NDArray, beta: NDArray, is_log: bool = False,
                     out: Optional[NDArray] = None, name: Optional[str] = None) -> NDArray:
    """Density of ``sample`` under gamma distributions of shapes ``alpha`` and rates
    ``beta`` (MXNet 1.9.1's kernel reads ``beta`` as the rate, whatever its docstring says).

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.random_pdf_gamma(mx.nd.array([[1, 2, 3]]), mx.nd.array([5]),
    ...                        mx.nd.array([1])).asnumpy().round(4)
    array([[0.0153, 0.0902, 0.168 ]], dtype=float32)
    """
    a, b = _per_sample("random_pdf_gamma", sample, [alpha, beta], ["alpha", "beta"])
    logp = add(multiply(a, log(b)), multiply(subtract(a, 1.0), log(sample)))
    logp = subtract(subtract(logp, multiply(b, sample)), gammaln(a))
    return _density(logp, sample, is_log, out)


_declare(random_pdf_gamma, ("sample", "alpha", "beta"))


def random_pdf_exponential(sample: NDArray, lam: NDArray, is_log: bool = False,
                           out: Optional[NDArray] = None,
                           name: Optional[str] = None) -> NDArray:
    """Density ``lam * exp(-lam * sample)`` of exponential distributions of rates ``lam``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.random_pdf_exponential(mx.nd.array([[1, 2]]), mx.nd.array([1])).asnumpy().round(4)
    array([[0.3679, 0.1353]], dtype=float32)
    """
    (rate,) = _per_sample("random_pdf_exponential", sample, [lam], ["lam"])
    return _density(subtract(log(rate), multiply(rate, sample)), sample, is_log, out)


_declare(random_pdf_exponential, ("sample", "lam"))


def random_pdf_poisson(sample: NDArray, lam: NDArray, is_log: bool = False,
                       out: Optional[NDArray] = None, name: Optional[str] = None) -> NDArray:
    """Probability of the counts ``sample`` under Poisson distributions of rates ``lam``
    (``lam**k * exp(-lam) / Gamma(k + 1)``, so a fractional count has a value too).

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.random_pdf_poisson(mx.nd.array([[0, 1, 2]]), mx.nd.array([1])).asnumpy().round(4)
    array([[0.3679, 0.3679, 0.1839]], dtype=float32)
    """
    (rate,) = _per_sample("random_pdf_poisson", sample, [lam], ["lam"])
    k = stop_gradient(sample)
    logp = subtract(subtract(multiply(k, log(rate)), rate), gammaln(add(k, 1.0)))
    return _density(logp, sample, is_log, out)


_declare(random_pdf_poisson, ("sample", "lam"))


def _negative_binomial_log(sample: NDArray, k: NDArray, p: NDArray) -> NDArray:
    """log P(sample failures before the k-th success), success probability ``p``."""
    x = stop_gradient(sample)
    logp = subtract(subtract(gammaln(add(x, k)), gammaln(add(x, 1.0))), gammaln(k))
    return add(logp, add(multiply(k, log(p)), multiply(x, log(subtract(1.0, p)))))


def random_pdf_negative_binomial(sample: NDArray, k: NDArray, p: NDArray, is_log: bool = False,
                                 out: Optional[NDArray] = None,
                                 name: Optional[str] = None) -> NDArray:
    """Probability of ``sample`` under negative binomial distributions with ``k`` (which may
    be real) and ``p``: ``Gamma(x + k) / (Gamma(x + 1) Gamma(k)) * p**k * (1 - p)**x``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.random_pdf_negative_binomial(mx.nd.array([[1, 2, 3]]), mx.nd.array([1]),
    ...                                    mx.nd.array([0.5])).asnumpy()
    array([[0.25  , 0.125 , 0.0625]], dtype=float32)
    """
    kk, pp = _per_sample("random_pdf_negative_binomial", sample, [k, p], ["k", "p"])
    return _density(_negative_binomial_log(sample, kk, pp), sample, is_log, out)


_declare(random_pdf_negative_binomial, ("sample", "k", "p"))


def random_pdf_generalized_negative_binomial(sample: NDArray, mu: NDArray, alpha: NDArray,
                                             is_log: bool = False,
                                             out: Optional[NDArray] = None,
                                             name: Optional[str] = None) -> NDArray:
    """Probability of ``sample`` under negative binomial distributions of means ``mu`` and
    dispersions ``alpha`` (``k = 1 / alpha``, ``p = 1 / (mu * alpha + 1)``).

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.random_pdf_generalized_negative_binomial(
    ...     mx.nd.array([[1, 2, 3]]), mx.nd.array([2]), mx.nd.array([0.5])).asnumpy()
    array([[0.25  , 0.1875, 0.125 ]], dtype=float32)
    """
    m, a = _per_sample("random_pdf_generalized_negative_binomial", sample, [mu, alpha],
                       ["mu", "alpha"])
    k = divide(1.0, a)
    p = divide(1.0, add(multiply(m, a), 1.0))
    return _density(_negative_binomial_log(sample, k, p), sample, is_log, out)


_declare(random_pdf_generalized_negative_binomial, ("sample", "mu", "alpha"))


def random_pdf_dirichlet(sample: NDArray, alpha: NDArray, is_log: bool = False,
                         out: Optional[NDArray] = None, name: Optional[str] = None) -> NDArray:
    """Density of ``sample`` (its last axis: one sample's components) under Dirichlet
    distributions of concentrations ``alpha`` (last axis: the components); the result
    drops that axis.

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.random_pdf_dirichlet(mx.nd.array([[0.2, 0.8], [0.5, 0.5]]),
    ...                            mx.nd.array([2.5, 2.5])).asnumpy().round(4)
    array([0.8692, 1.6977], dtype=float32)
    """
    if alpha.ndim < 1:
        raise ShapeError("random_pdf_dirichlet: alpha must have at least one axis (the "
                         "components of a sample)")
    (a,) = _per_sample("random_pdf_dirichlet", sample, [alpha], ["alpha"], event=1)
    logp = _sum(multiply(subtract(a, 1.0), log(sample)), axis=-1)
    norm = subtract(gammaln(_sum(a, axis=-1)), _sum(gammaln(a), axis=-1))
    return _density(add(logp, norm), sample, is_log, out, event=1)


_declare(random_pdf_dirichlet, ("sample", "alpha"), event=1)

"""The samplers of ``mx.random`` (``uniform``, ``normal``, ``gamma``, ...; also ``mx.nd.random.*``),
an op family below the namespaces: ``mx.nd``'s ``sample_*`` operators (:mod:`mxgrad.ops.sampling`)
call them, and ``mx.random`` re-exports them with :func:`mxgrad._rng.seed`. Every draw comes
from the one generator (:func:`mxgrad._rng.generator`). float32 unless a dtype is given.

Examples
--------
>>> import mxgrad as mx
>>> mx.random.seed(3)
>>> uniform(0, 1, shape=(2,)).shape
(2,)
"""
from __future__ import annotations

from typing import Any, List, Optional, Union

import numpy as np

from .._check import allocate, as_int, as_real, as_shape
from ..base import as_dtype, DTypeError, ShapeError, StateError
from ..context import Context, as_context
from .._engine.ndarray import NDArray, wrap
from .._rng import generator
from .._typing import DTypeLike, ShapeLike
from . import _dtype_rules as _dr
from . import _shape_rules as _sr
from ._mxnet_op import is_set, mxnet_op

_Param = Union[float, NDArray]

__all__ = ["uniform", "normal", "randn", "randint", "shuffle", "exponential", "gamma",
           "poisson", "multinomial", "bernoulli", "negative_binomial",
           "generalized_negative_binomial", "uniform_like", "normal_like", "gamma_like",
           "exponential_like", "poisson_like", "negative_binomial_like",
           "generalized_negative_binomial_like"]


def _shape(shape, where="random: shape"):
    if shape is None or (isinstance(shape, tuple) and shape == ()):
        return (1,)
    return as_shape(shape, where, itemsize=8)


def _checked(name, params, names, ctx, dtype):
    """Check the common arguments of a sampler: scalar parameters are finite real
    numbers, ``ctx`` a context, ``dtype`` numeric."""
    as_context(ctx, f"random.{name}: ctx")
    as_dtype(dtype)
    return tuple(p if isinstance(p, NDArray) else as_real(p, f"random.{name}: {n}")
                 for p, n in zip(params, names))


def _param(p):
    return p._data if isinstance(p, NDArray) else p


def _sample(draw, params, shape, dtype):
    name = getattr(draw, "__name__", "sample")
    if not any(isinstance(p, NDArray) for p in params):
        shape = _shape(shape, f"random.{name}: shape")
    try:
        return allocate(lambda: _sample_unchecked(draw, params, shape, dtype),
                        f"random.{name}")
    except ValueError as err:
        name = getattr(draw, "__name__", "sample")
        raise StateError(f"random.{name}: invalid parameters {params!r} ({err}); check that "
                         f"scales and rates are non-negative and low < high") from None


def _sample_unchecked(draw, params, shape, dtype):
    arrays = [p for p in params if isinstance(p, NDArray)]
    if arrays:
        base = np.broadcast_shapes(*[a.shape for a in arrays])
        full = base + (tuple(_shape(shape)) if shape is not None and shape != () else ())
        vals = [_param(p) for p in params]
        vals = [v.reshape(v.shape + (1,) * (len(full) - v.ndim)) if isinstance(v, np.ndarray)
                else v for v in vals]
        out = draw(*vals, size=full)
    else:
        out = draw(*params, size=_shape(shape))
    return wrap(np.asarray(out).astype(as_dtype(dtype)))


def uniform(low: _Param = 0.0, high: _Param = 1.0, shape: Optional[ShapeLike] = None,
            ctx: Optional[Context] = None, dtype: DTypeLike = None, out: Optional[NDArray] = None,
            **kwargs: Any) -> NDArray:
    """Samples from U[low, high).

    Examples
    --------
    >>> uniform(-1, 1, shape=(2, 3)).shape
    (2, 3)
    """
    low, high = _checked("uniform", (low, high), ("low", "high"), ctx, dtype)
    if not isinstance(low, NDArray) and not isinstance(high, NDArray) and low > high:
        raise StateError(f"random.uniform: low ({low}) must not exceed high ({high})")
    r = _sample(generator().uniform, (low, high), shape, dtype)
    return _out(out, r)


def normal(loc: _Param = 0.0, scale: _Param = 1.0, shape: Optional[ShapeLike] = None,
           ctx: Optional[Context] = None, dtype: DTypeLike = None, out: Optional[NDArray] = None,
           **kwargs: Any) -> NDArray:
    """Samples from N(loc, scale**2).

    Examples
    --------
    >>> normal(0, 1, shape=(3,)).shape
    (3,)
    """
    loc, scale = _checked("normal", (loc, scale), ("loc", "scale"), ctx, dtype)
    r = _sample(generator().normal, (loc, scale), shape, dtype)
    return _out(out, r)


def randn(*shape: int, loc: _Param = 0.0, scale: _Param = 1.0, dtype: DTypeLike = None,
          ctx: Optional[Context] = None, out: Optional[NDArray] = None,
          **kwargs: Any) -> NDArray:
    """Normal samples (standard unless ``loc``/``scale`` say otherwise) of the given shape.

    Examples
    --------
    >>> randn(2, 2).shape
    (2, 2)
    """
    return normal(loc, scale, shape=shape, ctx=ctx, dtype=dtype, out=out)


def randint(low: int, high: int, shape: Optional[ShapeLike] = None, ctx: Optional[Context] = None,
            dtype: DTypeLike = "int32", out: Optional[NDArray] = None, **kwargs: Any) -> NDArray:
    """Integers uniformly from ``[low, high)`` (int32 by default, as in MXNet).

    Examples
    --------
    >>> int(randint(0, 1, shape=(2,)).sum().asscalar())
    0
    """
    as_context(ctx, "random.randint: ctx")
    low = as_int(low, "random.randint: low")
    high = as_int(high, "random.randint: high")
    if low >= high:
        raise StateError(f"random.randint: low ({low}) must be smaller than high ({high})")
    r = wrap(generator().integers(low, high, size=_shape(shape)).astype(as_dtype(dtype)))
    return _out(out, r)


def exponential(scale: _Param = 1.0, shape: Optional[ShapeLike] = None,
                ctx: Optional[Context] = None, dtype: DTypeLike = None, **kwargs: Any) -> NDArray:
    """Samples from an exponential distribution with the given scale (1/lambda).

    Examples
    --------
    >>> exponential(1.0, shape=(2,)).shape
    (2,)
    """
    params = _checked("exponential", (scale,), ("scale",), ctx, dtype)
    return _sample(generator().exponential, params, shape, dtype)


def gamma(alpha: _Param = 1.0, beta: _Param = 1.0, shape: Optional[ShapeLike] = None,
          ctx: Optional[Context] = None, dtype: DTypeLike = None, **kwargs: Any) -> NDArray:
    """Samples from a gamma distribution (shape ``alpha``, scale ``beta``).

    Examples
    --------
    >>> gamma(2.0, 1.0, shape=(2,)).shape
    (2,)
    """
    params = _checked("gamma", (alpha, beta), ("alpha", "beta"), ctx, dtype)
    return _sample(generator().gamma, params, shape, dtype)


def poisson(lam: _Param = 1.0, shape: Optional[ShapeLike] = None, ctx: Optional[Context] = None,
            dtype: DTypeLike = None, **kwargs: Any) -> NDArray:
    """Samples from a Poisson distribution.

    Examples
    --------
    >>> poisson(3.0, shape=(2,)).shape
    (2,)
    """
    params = _checked("poisson", (lam,), ("lam",), ctx, dtype)
    return _sample(generator().poisson, params, shape, dtype)


def _negative_binomial_draw(k, p, size=None):
    return generator().negative_binomial(k, p, size=size)


def _generalized_negative_binomial_draw(mu, alpha, size=None):
    """Gamma-Poisson mixture with mean ``mu`` and dispersion ``alpha`` (Poisson at 0)."""
    rng = generator()
    mu, alpha = np.broadcast_arrays(np.asarray(mu, dtype=np.float64),
                                    np.asarray(alpha, dtype=np.float64))
    if size is not None:
        mu, alpha = np.broadcast_to(mu, size), np.broadcast_to(alpha, size)
    safe = np.where(alpha > 0, alpha, 1.0)
    lam = np.where(alpha > 0, rng.gamma(1.0 / safe, mu * safe), mu)
    return rng.poisson(lam)


_negative_binomial_draw.__name__ = "negative_binomial"
_generalized_negative_binomial_draw.__name__ = "generalized_negative_binomial"


def negative_binomial(k: _Param = 1, p: _Param = 1, shape: Optional[ShapeLike] = None,
                      ctx: Optional[Context] = None, dtype: DTypeLike = None,
                      **kwargs: Any) -> NDArray:
    """Failures before the ``k``-th success of trials that succeed with probability ``p``.

    Examples
    --------
    >>> negative_binomial(3, 1.0, shape=(2,)).asnumpy().tolist()
    [0.0, 0.0]
    """
    params = _checked("negative_binomial", (k, p), ("k", "p"), ctx, dtype)
    return _sample(_negative_binomial_draw, params, shape, dtype)


def generalized_negative_binomial(mu: _Param = 1, alpha: _Param = 1,
                                  shape: Optional[ShapeLike] = None,
                                  ctx: Optional[Context] = None, dtype: DTypeLike = None,
                                  **kwargs: Any) -> NDArray:
    """Counts with mean ``mu`` and variance ``mu + alpha * mu**2`` (a gamma-Poisson mixture;
    ``alpha = 0`` is Poisson).

    Examples
    --------
    >>> generalized_negative_binomial(2.0, 0.5, shape=(3,)).shape
    (3,)
    """
    params = _checked("generalized_negative_binomial", (mu, alpha), ("mu", "alpha"), ctx,
                      dtype)
    return _sample(_generalized_negative_binomial_draw, params, shape, dtype)


def bernoulli(prob: _Param = 0.5, shape: Optional[ShapeLike] = None, dtype: DTypeLike = None,
              **kwargs: Any) -> NDArray:
    """0/1 samples that are 1 with probability ``prob``.

    Examples
    --------
    >>> bernoulli(1.0, shape=(2,))
    <BLANKLINE>
    [1. 1.]
    <NDArray 2 @cpu(0)>
    """
    p = _param(prob) if isinstance(prob, NDArray) else as_real(prob, "random.bernoulli: prob")
    if np.any((np.asarray(p) < 0) | (np.asarray(p) > 1) | np.isnan(p)):
        raise StateError("random.bernoulli: prob must lie in [0, 1]")
    size = _shape(shape) if not isinstance(p, np.ndarray) else p.shape
    return wrap((generator().random(size) < p).astype(as_dtype(dtype)))


def multinomial(data: NDArray, shape: Optional[ShapeLike] = None, get_prob: bool = False,
                dtype: DTypeLike = "int32", **kwargs: Any
                ) -> Union[NDArray, List[NDArray]]:
    """Draw category indices from the probability rows of ``data``.

    With ``get_prob=True`` returns the list ``[indices, log_prob]`` (as MXNet), where
    ``log_prob`` is ``log(data[..., k])`` of each drawn ``k``, recorded by autograd so that
    its gradient (``1 / data[k]`` per draw, MXNet's) trains a policy by REINFORCE. Rows
    that do not sum to 1 are normalised for drawing (MXNet assumes they do).

    Examples
    --------
    >>> import mxgrad as mx
    >>> multinomial(mx.nd.array([[0., 1.]])).asnumpy().tolist()
    [1]
    >>> idx, logp = multinomial(mx.nd.array([0.25, 0.75]), shape=3, get_prob=True)
    >>> idx.shape, logp.shape
    ((3,), (3,))
    """
    if not isinstance(data, NDArray):
        raise DTypeError(f"random.multinomial: data must be an NDArray of probabilities, "
                         f"got {type(data).__name__}")
    p = _param(data).astype(np.float64)
    if p.ndim == 0 or p.shape[-1] == 0 or not np.all(np.isfinite(p)) or np.any(p < 0) \
            or np.any(p.reshape(-1, p.shape[-1]).sum(axis=1) <= 0):
        raise StateError("random.multinomial: data must hold rows of non-negative finite "
                         "probabilities, each row with a positive sum")
    n = 1 if shape is None else int(np.prod(_shape(shape)))
    flat = p.reshape(-1, p.shape[-1])
    flat = flat / flat.sum(axis=1, keepdims=True)
    draws = np.stack([generator().choice(flat.shape[1], size=n, p=row) for row in flat])
    extra = () if shape is None else _shape(shape)
    idx = draws.reshape(p.shape[:-1] + extra) if extra else draws.reshape(p.shape[:-1] or (1,))
    out = wrap(idx.astype(as_dtype(dtype)))
    if get_prob:
        from .elemwise import log
        from .indexing import take
        flat_idx = np.arange(flat.shape[0])[:, None] * flat.shape[1] + draws
        picked = take(data.reshape((-1,)), wrap(flat_idx.reshape(idx.shape).astype(np.int64)))
        return [out, log(picked)]
    return out


def _multinomial_run(inputs, kwargs):
    """A ``_sample_multinomial`` node: the samples, and their log-probabilities with
    ``get_prob`` (MXNet's ``mx.sym.random.multinomial`` sets it by default)."""
    out = multinomial(inputs[0], **kwargs)
    return tuple(out) if isinstance(out, list) else out


def _multinomial_outputs(kw: dict) -> int:
    return 2 if is_set(kw.get("get_prob", False)) else 1


def _multinomial_dtype(kw, ins, outs):
    """sample_multinomial's dtype rule: the samples have the ``dtype`` attribute (int32
    without one), the log-probabilities the data's dtype."""
    t = _dr.as_dtype(kw.get("dtype") or "int32")
    return list(ins), [t] + [ins[0]] * (len(outs) - 1)


def _multinomial_shape(kw, ins, outs):
    """sample_multinomial's shapes: one draw (or ``shape`` draws) per distribution, the
    rows of ``data`` (its last axis holds the probabilities); log-probabilities alike."""
    d = ins[0]
    if d is None:
        return list(ins), list(outs)
    shape = kw.get("shape")
    extra = () if shape in (None, (), "()") else _sr.as_tuple(shape)
    o = tuple(d[:-1]) + extra
    return list(ins), [_sr.merge(x, o) for x in outs]


mxnet_op("_sample_multinomial", ("data",), nd_name="sample_multinomial", run=_multinomial_run,
         outputs=_multinomial_outputs, dtype=_multinomial_dtype, shape=_multinomial_shape,
         aliases=("sample_multinomial",))


def _log_uniform_classes(n: int, range_max: int) -> np.ndarray:
    """``n`` classes in ``[0, range_max)`` drawn from the approximately log-uniform (Zipfian)
    distribution ``P(c) = log((c + 2) / (c + 1)) / log(range_max + 1)``."""
    r = generator().uniform(0.0, np.log(range_max + 1.0), size=n)
    return (np.exp(r) - 1.0).astype(np.int64) % range_max


def sample_unique_zipfian(range_max: int, shape: ShapeLike = (1, 1),
                          **kwargs: Any) -> List[NDArray]:
    """MXNet's ``_sample_unique_zipfian``: for each of ``shape[0]`` rows, ``shape[1]``
    distinct classes from the log-uniform distribution over ``[0, range_max)`` (drawn until
    that many distinct ones came up), and the number of draws each row took (what a
    sampled softmax needs to correct its expected counts). Both int64.

    Examples
    --------
    >>> import mxgrad as mx
    >>> classes, tries = mx.nd._internal._sample_unique_zipfian(50, shape=(2, 10))
    >>> classes.shape, tries.shape, len(set(classes[0].asnumpy().tolist()))
    ((2, 10), (2,), 10)
    """
    range_max = as_int(range_max, "_sample_unique_zipfian: range_max", minimum=1)
    rows, n = (as_int(v, "_sample_unique_zipfian: shape", minimum=0)
               for v in as_shape(shape, "_sample_unique_zipfian: shape"))
    if n > range_max:
        raise ShapeError(f"_sample_unique_zipfian: cannot draw {n} distinct classes out of "
                         f"range_max={range_max}; ask for at most range_max")
    out = np.empty((rows, n), dtype=np.int64)
    tries = np.zeros(rows, dtype=np.int64)
    for i in range(rows):
        got = np.empty(0, dtype=np.int64)
        while got.size < n:
            draw = _log_uniform_classes(max(2 * (n - got.size), 64), range_max)
            _, first = np.unique(draw, return_index=True)
            new = np.zeros(draw.size, dtype=bool)
            new[first] = True                      # first time in this chunk...
            new &= ~np.isin(draw, got)             # ...and not drawn before
            need = n - got.size
            hits = np.flatnonzero(new)
            if hits.size >= need:                  # the draw that completed the row
                tries[i] += hits[need - 1] + 1
                got = np.concatenate([got, draw[hits[:need]]])
            else:
                tries[i] += draw.size
                got = np.concatenate([got, draw[hits]])
        out[i] = got
    return [wrap(out), wrap(tries)]


def _unique_zipfian_run(inputs, kwargs):
    return tuple(sample_unique_zipfian(**kwargs))


def _unique_zipfian_shape(kw, ins, outs):
    """``_sample_unique_zipfian``'s shapes: ``shape`` and one count per row."""
    shape = _sr.as_tuple(kw.get("shape", (1, 1)))
    return list(ins), [_sr.merge(outs[0], shape), _sr.merge(outs[1], shape[:1])]


mxnet_op("_sample_unique_zipfian", (), run=_unique_zipfian_run, attrs=("range_max", "shape"),
         outputs=2, shape=_unique_zipfian_shape,
         dtype=lambda kw, ins, outs: (list(ins), [np.dtype("int64")] * len(outs)))


def shuffle(data: NDArray, **kwargs: Any) -> NDArray:
    """A copy of ``data`` with its first axis shuffled.

    Examples
    --------
    >>> import mxgrad as mx
    >>> sorted(shuffle(mx.nd.arange(4)).asnumpy().tolist())
    [0.0, 1.0, 2.0, 3.0]
    """
    if not isinstance(data, NDArray) or data.ndim == 0:
        raise DTypeError(f"random.shuffle: data must be an NDArray with at least one "
                         f"dimension, got {type(data).__name__}")
    d = _param(data)
    return wrap(d[generator().permutation(d.shape[0])])


mxnet_op("shuffle", aliases=("_shuffle",))


def _out(out, r):
    if out is None:
        return r
    if out.shape != r.shape:
        raise ShapeError(f"out= has shape {out.shape}, the sample has shape {r.shape}")
    out._write(r._data)
    return out


# ------------------------------------------------------------------ samples shaped like an array
def _like(sampler, data: NDArray, op: str, out: Optional[NDArray], **params: Any) -> NDArray:
    """Samples of ``sampler`` with ``params`` (scalars) in ``data``'s shape and dtype."""
    if not isinstance(data, NDArray):
        raise DTypeError(f"random.{op}: data must be an NDArray (its shape and dtype are "
                         f"the samples'), got {type(data).__name__}")
    r = sampler(shape=data.shape, dtype=data.dtype, **params)
    return _out(out, r if r.shape == data.shape else r.reshape(data.shape))


def uniform_like(data: NDArray, low: float = 0.0, high: float = 1.0,
                 out: Optional[NDArray] = None, **kwargs: Any) -> NDArray:
    """Samples from ``U[low, high)`` in the shape and dtype of ``data``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.random.uniform_like(mx.nd.zeros((2, 3), dtype='float64')).dtype
    <class 'numpy.float64'>
    """
    return _like(uniform, data, "uniform_like", out, low=low, high=high)


def normal_like(data: NDArray, loc: float = 0.0, scale: float = 1.0,
                out: Optional[NDArray] = None, **kwargs: Any) -> NDArray:
    """Samples from ``N(loc, scale**2)`` in the shape and dtype of ``data``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.random.normal_like(mx.nd.zeros((2, 3)), loc=1.0).shape
    (2, 3)
    """
    return _like(normal, data, "normal_like", out, loc=loc, scale=scale)


def gamma_like(data: NDArray, alpha: float = 1.0, beta: float = 1.0,
               out: Optional[NDArray] = None, **kwargs: Any) -> NDArray:
    """Samples from a gamma distribution (shape ``alpha``, scale ``beta``) in the shape and
    dtype of ``data``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> bool((mx.nd.random.gamma_like(mx.nd.zeros((4,)), alpha=2.0) > 0).asnumpy().all())
    True
    """
    return _like(gamma, data, "gamma_like", out, alpha=alpha, beta=beta)


def exponential_like(data: NDArray, lam: float = 1.0, out: Optional[NDArray] = None,
                     **kwargs: Any) -> NDArray:
    """Samples from an exponential distribution of rate ``lam`` in the shape and dtype of
    ``data``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.random.exponential_like(mx.nd.zeros((2, 2)), lam=4.0).shape
    (2, 2)
    """
    lam = as_real(lam, "random.exponential_like: lam")
    if lam <= 0:
        raise StateError(f"random.exponential_like: lam={lam} must be a positive rate")
    return _like(exponential, data, "exponential_like", out, scale=1.0 / lam)


def poisson_like(data: NDArray, lam: float = 1.0, out: Optional[NDArray] = None,
                 **kwargs: Any) -> NDArray:
    """Samples from a Poisson distribution of rate ``lam`` in the shape and dtype of
    ``data``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.random.poisson_like(mx.nd.zeros((3,)), lam=2.0).shape
    (3,)
    """
    return _like(poisson, data, "poisson_like", out, lam=lam)


def negative_binomial_like(data: NDArray, k: float = 1, p: float = 1,
                           out: Optional[NDArray] = None, **kwargs: Any) -> NDArray:
    """Samples from a negative binomial distribution (``k`` successes, success probability
    ``p``) in the shape and dtype of ``data``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.random.negative_binomial_like(mx.nd.zeros((3,)), k=3, p=0.4).shape
    (3,)
    """
    return _like(negative_binomial, data, "negative_binomial_like", out, k=k, p=p)


def generalized_negative_binomial_like(data: NDArray, mu: float = 1, alpha: float = 1,
                                       out: Optional[NDArray] = None,
                                       **kwargs: Any) -> NDArray:
    """Samples from a negative binomial distribution of mean ``mu`` and dispersion
    ``alpha`` in the shape and dtype of ``data``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.random.generalized_negative_binomial_like(mx.nd.zeros((3,)), mu=2.0).shape
    (3,)
    """
    return _like(generalized_negative_binomial, data, "generalized_negative_binomial_like",
                 out, mu=mu, alpha=alpha)


_LIKE = {"uniform": uniform_like, "normal": normal_like, "gamma": gamma_like,
         "exponential": exponential_like, "poisson": poisson_like,
         "negative_binomial": negative_binomial_like,
         "generalized_negative_binomial": generalized_negative_binomial_like}


# MXNet's sampling operators with scalar parameters: _random_<dist> (the ``shape``
# attribute) and _random_<dist>_like (its input's shape); dist -> (sampler, parameters)
_RANDOM_OPS = {"uniform": (uniform, ("low", "high")), "normal": (normal, ("loc", "scale")),
               "gamma": (gamma, ("alpha", "beta")), "exponential": (exponential, ("lam",)),
               "poisson": (poisson, ("lam",)),
               "negative_binomial": (negative_binomial, ("k", "p")),
               "generalized_negative_binomial": (generalized_negative_binomial,
                                                 ("mu", "alpha")),
               "randint": (randint, ("low", "high"))}


def _sampler_run(dist: str, like: bool):
    """The run of a ``_random_<dist>`` node (``like``: of ``_random_<dist>_like``)."""
    draw = _RANDOM_OPS[dist][0]

    def run(inputs, kwargs):
        kw = dict(kwargs)
        kw.pop("ctx", None)
        if like:
            dtype = kw.pop("dtype", None)
            data = inputs[0] if dtype in (None, "None") else inputs[0].astype(dtype)
            return _LIKE[dist](data, **kw)
        if dist == "exponential":           # MXNet's operator takes the rate
            kw["scale"] = 1.0 / float(kw.pop("lam", 1.0))
        return draw(**kw)
    return run


def _like_dtype(kw, ins, outs):
    """``_random_<dist>_like``'s dtype rule: the data's dtype unless ``dtype`` is given."""
    if kw.get("dtype") not in (None, "None"):
        return list(ins), [_dr.as_dtype(kw["dtype"])] * len(outs)
    return _dr.same(kw, ins, outs)


for _d, (_, _names) in _RANDOM_OPS.items():
    mxnet_op(f"_random_{_d}", (), run=_sampler_run(_d, False),
             attrs=_names + ("shape", "dtype", "ctx"), aliases=(f"random_{_d}",),
             dtype=_dr.from_attr("int32") if _d == "randint" else None)
    if _d != "randint":
        mxnet_op(f"_random_{_d}_like", ("data",), run=_sampler_run(_d, True),
                 attrs=_names + ("dtype",), dtype=_like_dtype)

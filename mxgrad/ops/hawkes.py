"""``nd.contrib.hawkesll``: log-likelihood of marked sequences under multivariate Hawkes
processes with exponential kernels (MXNet 1.9's operator), written with mxgrad ops over the
time steps, so gradients reach ``mu``, ``alpha`` and ``beta`` (to any order).

For sequence ``i`` and mark ``k`` the intensity is ``mu[i, k] + alpha[k] * beta[k] *
sum(exp(-beta[k] * (t - t_j)))`` over its earlier points of mark ``k``; the result is
``[loglike (N,), states (N, K)]`` where ``states`` carry the kernel sums to ``max_time`` (to
continue a sequence later).

Examples
--------
>>> import mxgrad as mx
>>> ll, st = mx.nd.contrib.hawkesll(mx.nd.array([[1.5]]), mx.nd.array([0.2]),
...                                 mx.nd.array([1.0]), mx.nd.zeros((1, 1)),
...                                 mx.nd.array([[6, 7, 8, 3, 2, 1, 7]]),
...                                 mx.nd.zeros((1, 7), dtype='int32'), mx.nd.array([7]),
...                                 mx.nd.array([100]))
>>> round(float(ll.asscalar()), 2)
-148.48
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..base import DTypeError, ShapeError
from .._engine.ndarray import NDArray, wrap
from ._mxnet_op import mxnet_op
from .elemwise import exp, log
from .indexing import where
from .linalg import dot
from .reduce import sum as _sum

__all__ = ["hawkesll"]


def _arr(x, arg: str) -> NDArray:
    if not isinstance(x, NDArray):
        raise DTypeError(f"hawkesll: {arg} must be an NDArray, got {type(x).__name__}")
    return x


def hawkesll(lda: NDArray, alpha: NDArray, beta: NDArray, state: NDArray, lags: NDArray,
             marks: NDArray, valid_length: NDArray, max_time: NDArray, **kwargs: Any):
    """``[loglike, out_state]`` of sequences given by inter-arrival times ``lags`` (N, T)
    and ``marks`` (N, T) (first ``valid_length`` entries each), background intensities
    ``lda`` (N, K), excitation ``alpha`` (K,), decay ``beta`` (K,), starting ``state``
    (N, K), observed up to ``max_time`` (N,)."""
    mu, a, b, s0 = (_arr(v, n) for v, n in ((lda, "lda"), (alpha, "alpha"), (beta, "beta"),
                                           (state, "state")))
    lag = _arr(lags, "lags")._data.astype(np.float64)
    mark = _arr(marks, "marks")._data.astype(np.int64)
    vlen = _arr(valid_length, "valid_length")._data.astype(np.int64).reshape(-1)
    tmax = _arr(max_time, "max_time")._data.astype(np.float64).reshape(-1)
    if mu.ndim != 2:
        raise ShapeError(f"hawkesll: lda must be (N, K), got {tuple(mu.shape)}")
    n, k = mu.shape
    if a.shape != (k,) or b.shape != (k,) or s0.shape != (n, k) or lag.ndim != 2 \
            or lag.shape[0] != n or mark.shape != lag.shape or vlen.shape != (n,) \
            or tmax.shape != (n,):
        raise ShapeError(f"hawkesll: expected lda (N, K), alpha and beta (K,), state (N, K), "
                         f"lags and marks (N, T), valid_length and max_time (N,) with N={n}, "
                         f"K={k}")
    if (mark < 0).any() or (mark >= k).any():
        raise ShapeError(f"hawkesll: marks must be in [0, {k})")
    dt = mu.dtype
    t = np.zeros(n)
    last = np.zeros((n, k))
    st: Any = s0
    ll: Any = wrap(np.zeros(n, dtype=dt))
    for j in range(int(vlen.max()) if n else 0):
        active = j < vlen
        onehot = np.zeros((n, k), dtype=dt)
        onehot[np.arange(n), mark[:, j]] = 1
        t = t + np.where(active, lag[:, j], 0)
        d = np.where(active, t - last[np.arange(n), mark[:, j]], 0).astype(dt)
        oh = wrap(onehot)
        mu_c = _sum(mu * oh, axis=1)
        a_c, b_c = dot(oh, a), dot(oh, b)
        st_c = _sum(st * oh, axis=1)
        ed = exp(-b_c * wrap(d))
        lam = mu_c + a_c * b_c * st_c * ed
        comp = mu_c * wrap(d) + a_c * st_c * (1 - ed)
        act = wrap(active.astype(dt))
        ll = ll + act * (log(where(act, lam, wrap(np.ones(n, dtype=dt)))) - comp)
        new_c = 1 + st_c * ed
        st = st + oh * ((new_c - st_c) * act).reshape((n, 1))
        last[np.arange(n)[active], mark[active, j]] = t[active]
    d_end = wrap((tmax[:, None] - last).astype(dt))
    ed_end = exp(-b.reshape((1, k)) * d_end)
    rem = mu * d_end + a.reshape((1, k)) * st * (1 - ed_end)
    return [ll - _sum(rem, axis=1), ed_end * st]


mxnet_op("_contrib_hawkesll", ("lda", "alpha", "beta", "state", "lags", "marks",
                               "valid_length", "max_time"), nd_name="contrib.hawkesll",
         outputs=2)

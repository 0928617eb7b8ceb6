"""Statistical checks of random generators (MXNet's ``test_utils.chi_square_check``,
``verify_generator``, ``mean_check``, ``var_check``, ``gen_buckets_probs_with_ppf``), with the
chi-square p-value computed here (no SciPy needed).

Examples
--------
>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> buckets, probs = gen_buckets_probs_with_ppf(lambda p: p, 5)    # uniform on [0, 1)
>>> p, obs, exp = chi_square_check(lambda n: rng.random(n), buckets, probs, nsamples=10000)
>>> bool(p > 0.01), int(obs.sum()), exp.tolist()
(True, 10000, [2000, 2000, 2000, 2000, 2000])
"""
from __future__ import annotations

import math
from typing import Callable, List, Sequence, Tuple

import numpy as np

from .base import StateError

__all__ = ["gen_buckets_probs_with_ppf", "mean_check", "var_check", "chi_square_check",
           "verify_generator", "chi2_sf"]


def _gammaincc(a: float, x: float) -> float:
    """Regularised upper incomplete gamma Q(a, x): a series below a+1, a continued fraction
    (modified Lentz) above, both to double precision."""
    if x <= 0:
        return 1.0
    log_front = -x + a * math.log(x) - math.lgamma(a)
    if x < a + 1:
        term = total = 1.0 / a
        n = a
        for _ in range(10000):
            n += 1
            term *= x / n
            total += term
            if abs(term) < abs(total) * 1e-16:
                break
        return max(0.0, 1.0 - total * math.exp(log_front))
    tiny = 1e-300
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 10000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-16:
            break
    return math.exp(log_front) * h


def chi2_sf(x: float, dof: int) -> float:
    """P(X > x) for a chi-square variable with ``dof`` degrees of freedom.

    Examples
    --------
    >>> round(chi2_sf(3.841458820694124, 1), 6)
    0.05
    """
    return _gammaincc(dof / 2.0, x / 2.0)


def gen_buckets_probs_with_ppf(ppf: Callable[[float], float], nbuckets: int
                               ) -> Tuple[List[tuple], List[float]]:
    """``nbuckets`` equally likely ranges ``(ppf(i/n), ppf((i+1)/n))`` and their
    probabilities ``1/n`` (``ppf`` is the quantile function)."""
    if nbuckets <= 0:
        raise StateError(f"gen_buckets_probs_with_ppf: nbuckets must be positive, got "
                         f"{nbuckets}")
    probs = [1.0 / nbuckets] * nbuckets
    buckets = [(ppf(i / float(nbuckets)), ppf((i + 1) / float(nbuckets)))
               for i in range(nbuckets)]
    return buckets, probs


def mean_check(generator: Callable[[int], Sequence[float]], mu: float, sigma: float,
               nsamples: int = 1000000) -> bool:
    """Whether the sample mean lies within ``mu -+ 3 sigma / sqrt(n)``."""
    mean = np.asarray(generator(nsamples), dtype=np.float64).mean()
    half = 3 * sigma / np.sqrt(nsamples)
    return bool(mu - half < mean < mu + half)


def var_check(generator: Callable[[int], Sequence[float]], sigma: float,
              nsamples: int = 1000000) -> bool:
    """Whether the sample variance lies within ``sigma**2 -+ 3 sqrt(2 sigma**4 / (n-1))``."""
    var = np.asarray(generator(nsamples), dtype=np.float64).var(ddof=1)
    half = 3 * np.sqrt(2 * sigma ** 4 / (nsamples - 1))
    return bool(sigma ** 2 - half < var < sigma ** 2 + half)


def chi_square_check(generator: Callable[[int], Sequence[float]], buckets: list,
                     probs: Sequence[float], nsamples: int = 1000000):
    """Pearson's chi-square test of ``generator(nsamples)`` against ``probs``.

    ``buckets`` are ascending, disjoint ``(low, high)`` ranges for a continuous
    distribution or the possible values of a discrete one. Returns
    ``(p_value, observed_counts, expected_counts)`` as MXNet's.
    """
    if not isinstance(buckets, list) or len(buckets) != len(probs) or not buckets:
        raise StateError("chi_square_check: buckets must be a non-empty list with one "
                         "probability in probs per bucket")
    samples = np.asarray(generator(nsamples))
    continuous = isinstance(buckets[0], (list, tuple))
    if continuous:
        edges = np.asarray(buckets, dtype=np.float32).reshape(-1)
        if np.any(np.diff(edges) < 0):
            raise StateError("chi_square_check: buckets must be ascending and disjoint")
        # a sample inside bucket i gets 2i+1; one in the gap before bucket i gets 2i and is
        # counted in bucket i (MXNet's rule); one past the last bucket is not counted
        ids = np.searchsorted(edges, samples.reshape(-1), side="right") // 2
        obs = np.bincount(ids, minlength=len(buckets) + 1)[:len(buckets)].astype(np.int64)
    else:
        flat = samples.reshape(-1)
        obs = np.array([(flat == b).sum() for b in buckets], dtype=np.int64)
    expected = (nsamples * np.asarray(probs, dtype=np.float32)).astype(np.int32)
    # SciPy's chisquare (what MXNet calls) rescales nothing: sum((o - e)^2 / e)
    stat = float((((obs - expected) ** 2) / expected.astype(np.float64)).sum())
    return chi2_sf(stat, len(buckets) - 1), obs, expected


def verify_generator(generator: Callable[[int], Sequence[float]], buckets: list,
                     probs: Sequence[float], nsamples: int = 1000000, nrepeat: int = 5,
                     success_rate: float = 0.2, alpha: float = 0.05) -> List[float]:
    """Run :func:`chi_square_check` ``nrepeat`` times; raise ``AssertionError`` unless at
    least ``success_rate`` of the p-values exceed ``alpha``. Returns the p-values."""
    results = [chi_square_check(generator, buckets, probs, nsamples) for _ in range(nrepeat)]
    pvals = [r[0] for r in results]
    if (np.array(pvals) > alpha).sum() < nrepeat * success_rate:
        raise AssertionError(f"Generator test fails, Chi-square p={pvals}, "
                             f"obs_freq={[r[1] for r in results]}, "
                             f"expected_freq={[r[2] for r in results]}.\n"
                             f"buckets={buckets}, probs={list(probs)}")
    return pvals

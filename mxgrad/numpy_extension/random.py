"""``mx.npx.random``: MXNet's extra samplers of the NumPy interface.

Examples
--------
>>> from mxgrad import np, npx
>>> npx.random.seed(1)
>>> npx.random.bernoulli(prob=1.0, size=(2,))
array([1., 1.])
"""
from __future__ import annotations

from typing import Any

import numpy as _onp

from ..base import ShapeError
from .._engine.ndarray import NDArray, wrap
from ..numpy.multiarray import ndarray, _np_dtype
from ..numpy.random import seed, uniform, normal  # noqa: F401
from ..numpy.random import _param, _rng

__all__ = ["seed", "bernoulli", "uniform_n", "normal_n"]


def _batch(batch_shape: Any) -> tuple:
    if batch_shape is None:
        return ()
    if isinstance(batch_shape, (int, _onp.integer)):
        return (int(batch_shape),)
    return tuple(int(b) for b in batch_shape)


def bernoulli(prob: Any = None, logit: Any = None, size: Any = None, dtype: Any = None,
              ctx: Any = None, out: Any = None) -> ndarray:
    """0/1 samples with probability ``prob`` of 1 (or ``sigmoid(logit)``; give exactly
    one); float32 unless ``dtype``.

    Examples
    --------
    >>> from mxgrad import npx
    >>> npx.random.bernoulli(prob=1.0, size=(2,)).tolist()
    [1.0, 1.0]
    """
    if (prob is None) == (logit is None):
        raise ShapeError("npx.random.bernoulli: give either prob or logit (exactly one)")
    if prob is not None:
        p = _onp.asarray(_param(prob), dtype=_onp.float64)
        if _onp.any((p < 0) | (p > 1)):
            raise ShapeError("npx.random.bernoulli: prob must lie in [0, 1]")
    else:
        p = 1.0 / (1.0 + _onp.exp(-_onp.asarray(_param(logit), dtype=_onp.float64)))
    shape = _onp.shape(p) if size is None else (
        (int(size),) if isinstance(size, (int, _onp.integer)) else tuple(size))
    draw = _rng().random(shape) < _onp.broadcast_to(p, shape)
    return wrap(_onp.asarray(draw).astype(_np_dtype(dtype)), None, 0, ndarray)


def uniform_n(low: Any = 0.0, high: Any = 1.0, batch_shape: Any = None, dtype: Any = None,
              ctx: Any = None) -> ndarray:
    """Uniform samples of shape ``batch_shape + broadcast(low, high).shape``."""
    shape = _batch(batch_shape) + _onp.broadcast_shapes(_onp.shape(_param(low)),
                                                        _onp.shape(_param(high)))
    return uniform(low, high, size=shape, dtype=dtype)


def normal_n(loc: Any = 0.0, scale: Any = 1.0, batch_shape: Any = None, dtype: Any = None,
             ctx: Any = None) -> ndarray:
    """Normal samples of shape ``batch_shape + broadcast(loc, scale).shape``."""
    shape = _batch(batch_shape) + _onp.broadcast_shapes(_onp.shape(_param(loc)),
                                                        _onp.shape(_param(scale)))
    return normal(loc, scale, size=shape, dtype=dtype)

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

from ..numpy.random import bernoulli, seed  # noqa: F401
from ..numpy.random import uniform, normal  # noqa: F401

__all__ = ["seed", "bernoulli", "uniform_n", "normal_n"]


def uniform_n(low: Any = 0.0, high: Any = 1.0, batch_shape: Any = None, dtype: Any = None,
              ctx: Any = None) -> Any:
    """Uniform samples of shape ``batch_shape + broadcast(low, high).shape``."""
    import numpy as _onp
    shape = tuple(batch_shape or ()) + _onp.broadcast_shapes(_onp.shape(low), _onp.shape(high))
    return uniform(low, high, size=shape, dtype=dtype)


def normal_n(loc: Any = 0.0, scale: Any = 1.0, batch_shape: Any = None, dtype: Any = None,
             ctx: Any = None) -> Any:
    """Normal samples of shape ``batch_shape + broadcast(loc, scale).shape``."""
    import numpy as _onp
    shape = tuple(batch_shape or ()) + _onp.broadcast_shapes(_onp.shape(loc), _onp.shape(scale))
    return normal(loc, scale, size=shape, dtype=dtype)

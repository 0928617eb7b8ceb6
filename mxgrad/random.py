"""Random numbers: ``mx.random.seed`` and samplers (``uniform``, ``normal``, ...), also
reachable as ``mx.nd.random.*``. float32 unless a dtype is given.

Examples
--------
>>> import mxgrad as mx
>>> mx.random.seed(42)
>>> a = mx.nd.random.uniform(shape=(2,))
>>> mx.random.seed(42)
>>> bool((a == mx.nd.random.uniform(shape=(2,))).asnumpy().all())
True
"""
from __future__ import annotations

from ._rng import _rng, generator, seed  # noqa: F401  (_rng: the state, one list)
from .ops.random import *  # noqa: F401,F403  (the samplers)
from .ops.random import __all__ as _samplers

__all__ = ["seed", "generator"] + list(_samplers)

# every error on bad arguments is an MXNetError naming the argument (issue 11)
from ._check import guard_namespace as _guard_namespace  # noqa: E402
_guard_namespace(globals(), "random")

"""``gluon.contrib.nn``: :class:`Concurrent`, :class:`HybridConcurrent` and
:class:`Identity` (MXNet 1.x ``mxnet.gluon.contrib.nn``).

Examples
--------
>>> import mxgrad as mx
>>> from mxgrad.gluon.contrib.nn import Concurrent, Identity
>>> net = Concurrent(axis=0); net.add(Identity(), Identity())
>>> net(mx.nd.ones((2, 3))).shape
(4, 3)
"""
from .basic_layers import Concurrent, HybridConcurrent, Identity
from . import basic_layers

__all__ = basic_layers.__all__

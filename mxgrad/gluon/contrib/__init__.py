"""``gluon.contrib``: MXNet 1.x's contributed Gluon layers that mxgrad provides.

Examples
--------
>>> import mxgrad as mx
>>> from mxgrad.gluon.contrib.nn import HybridConcurrent
>>> net = HybridConcurrent(axis=1)
>>> net.add(mx.gluon.nn.Identity(), mx.gluon.nn.Identity())
>>> net(mx.nd.ones((2, 3))).shape
(2, 6)
"""
from . import nn

__all__ = ["nn"]

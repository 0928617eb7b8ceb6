"""``gluon.nn``: neural network layers (and the Block classes, as in MXNet).

Examples
--------
>>> import mxgrad as mx
>>> net = mx.gluon.nn.Sequential()
>>> net.add(mx.gluon.nn.Dense(3, activation='relu'), mx.gluon.nn.Dense(1))
>>> net.initialize(); net(mx.nd.ones((2, 5))).shape
(2, 1)
"""
from ..block import Block, HybridBlock, SymbolBlock  # noqa: F401
from .activations import *  # noqa: F401,F403
from .basic_layers import *  # noqa: F401,F403
from .conv_layers import *  # noqa: F401,F403
from .batchnorm_relu import BatchNormReLU  # noqa: F401
from . import activations, basic_layers, conv_layers  # noqa: F401

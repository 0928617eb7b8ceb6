"""Gluon: MXNet's high-level interface (parameters, blocks, layers, losses, Trainer).

Examples
--------
>>> import mxgrad as mx
>>> from mxgrad import gluon, autograd
>>> net = gluon.nn.Sequential()
>>> net.add(gluon.nn.Dense(4, activation='relu'), gluon.nn.Dense(1))
>>> net.initialize(mx.init.Xavier())
>>> trainer = gluon.Trainer(net.collect_params(), 'adam', {'learning_rate': 0.01})
>>> x, y = mx.nd.ones((8, 3)), mx.nd.zeros((8, 1))
>>> with autograd.record():
...     loss = gluon.loss.L2Loss()(net(x), y)
>>> loss.backward()
>>> trainer.step(batch_size=8)
>>> loss.shape
(8,)
"""
from .parameter import Parameter, Constant, ParameterDict, DeferredInitializationError
from .block import Block, HybridBlock, SymbolBlock
from . import nn
from . import loss
from . import utils
from .trainer import Trainer
from . import data
from . import contrib
from . import model_zoo
from . import rnn

__all__ = ["Parameter", "Constant", "ParameterDict", "DeferredInitializationError", "Block",
           "HybridBlock", "SymbolBlock", "nn", "loss", "utils", "Trainer", "data", "contrib", "model_zoo", "rnn"]

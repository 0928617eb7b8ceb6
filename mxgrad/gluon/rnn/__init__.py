"""``gluon.rnn``: recurrent cells (one step per call, ``unroll``) and the fused layers
``RNN``, ``LSTM``, ``GRU`` (whole sequences through :func:`mxgrad.nd.RNN`), as MXNet 1.9.

Examples
--------
>>> import mxgrad as mx
>>> layer = mx.gluon.rnn.GRU(6, num_layers=2, layout='NTC')
>>> layer.initialize()
>>> layer(mx.nd.ones((4, 7, 3))).shape
(4, 7, 6)
"""
from .rnn_cell import *  # noqa: F401,F403
from .rnn_layer import *  # noqa: F401,F403
from . import rnn_cell, rnn_layer  # noqa: F401

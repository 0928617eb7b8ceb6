"""``mx.rnn.rnn_cell``: MXNet 1.9.1's symbolic RNN cells (all of them, by their MXNet
module path).

Examples
--------
>>> import mxgrad as mx
>>> mx.rnn.rnn_cell.LSTMCell is mx.rnn.LSTMCell
True
"""
from ._base import RNNParams, BaseRNNCell
from ._cells import (RNNCell, LSTMCell, GRUCell, SequentialRNNCell, BidirectionalCell,
                     DropoutCell, ModifierCell, ZoneoutCell, ResidualCell)
from ._fused import FusedRNNCell
from ._conv import BaseConvRNNCell, ConvRNNCell, ConvLSTMCell, ConvGRUCell

__all__ = ["RNNParams", "BaseRNNCell", "RNNCell", "LSTMCell", "GRUCell", "FusedRNNCell",
           "SequentialRNNCell", "DropoutCell", "ModifierCell", "ZoneoutCell", "ResidualCell",
           "BidirectionalCell", "BaseConvRNNCell", "ConvRNNCell", "ConvLSTMCell",
           "ConvGRUCell"]

"""``gluon.contrib.rnn``: MXNet 1.x's contributed recurrent cells (``LSTMPCell``,
``VariationalDropoutCell``, the convolutional ``Conv{1,2,3}D{RNN,LSTM,GRU}Cell``)."""
from .rnn_cell import LSTMPCell, VariationalDropoutCell  # noqa: F401
from .conv_rnn_cell import (Conv1DRNNCell, Conv2DRNNCell, Conv3DRNNCell,  # noqa: F401
                            Conv1DLSTMCell, Conv2DLSTMCell, Conv3DLSTMCell, Conv1DGRUCell,
                            Conv2DGRUCell, Conv3DGRUCell)

__all__ = ["LSTMPCell", "VariationalDropoutCell", "Conv1DRNNCell", "Conv2DRNNCell",
           "Conv3DRNNCell", "Conv1DLSTMCell", "Conv2DLSTMCell", "Conv3DLSTMCell",
           "Conv1DGRUCell", "Conv2DGRUCell", "Conv3DGRUCell"]

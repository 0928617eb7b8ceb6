"""``mx.rnn``: MXNet 1.x's symbolic RNN cells, bucketing sentence iterator and RNN
checkpoints (MXNet 1.9.1's ``mxnet.rnn``, used by its bucketing examples with
``mx.mod.BucketingModule``). For new code, ``mx.gluon.rnn`` is the maintained API.

Examples
--------
>>> import mxgrad as mx
>>> cell = mx.rnn.LSTMCell(num_hidden=3, prefix='lstm_')
>>> outputs, states = cell.unroll(4, mx.sym.var('data'), merge_outputs=False)
>>> [o.name for o in outputs], [s.name for s in states]
(['lstm_t0_out', 'lstm_t1_out', 'lstm_t2_out', 'lstm_t3_out'], ['lstm_t3_out', 'lstm_t3_state'])
>>> sorted(cell.params._params)
['lstm_h2h_bias', 'lstm_h2h_weight', 'lstm_i2h_bias', 'lstm_i2h_weight']
"""
from .. import initializer as _initializer
from . import rnn_cell
from .rnn_cell import *  # noqa: F401,F403
from .rnn_cell import __all__ as _cell_all
from . import rnn
from .rnn import *  # noqa: F401,F403
from .rnn import __all__ as _rnn_all
from . import io
from .io import *  # noqa: F401,F403
from .io import __all__ as _io_all
from ._fused import FusedRNN as _FusedRNN

# MXNet's mx.init.FusedRNN initializes a FusedRNNCell's packed vector; it lives with the
# cell (it is built from it) and is registered by name ('fusedrnn') when mx.rnn loads
setattr(_initializer, "FusedRNN", _FusedRNN)

__all__ = list(_cell_all) + list(_rnn_all) + list(_io_all)

"""MXNet's convolutional RNN cells: ``ConvRNNCell``, ``ConvLSTMCell`` (Xingjian et al.,
2015) and ``ConvGRUCell``; ``i2h`` and ``h2h`` are convolutions instead of products.

Examples
--------
>>> import mxgrad as mx
>>> cell = mx.rnn.ConvLSTMCell(input_shape=(1, 3, 8, 6), num_hidden=4, prefix='c_')
>>> cell.state_shape
[(0, 4, 8, 6), (0, 4, 8, 6)]
>>> begin = cell.begin_state(func=mx.sym.Variable)
>>> outs, _ = cell.unroll(2, [mx.sym.var('x0'), mx.sym.var('x1')], begin_state=begin)
>>> [o.name for o in outs]
['c_t0_out', 'c_t1_out']
"""
from __future__ import annotations

import functools
from typing import Any, Dict, List, Optional, Sequence, Tuple

from .. import symbol
from ..base import StateError, NotSupportedError
from ..symbol import Symbol
from ._base import BaseRNNCell, RNNParams
from ._cells import gru_state

__all__ = ["BaseConvRNNCell", "ConvRNNCell", "ConvLSTMCell", "ConvGRUCell"]

_LEAKY = functools.partial(symbol.LeakyReLU, act_type="leaky", slope=0.2)


class BaseConvRNNCell(BaseRNNCell):
    """Base of the convolutional cells: the convolutions, the state shape (inferred from
    ``input_shape``) and the weights.

    Parameters
    ----------
    input_shape : tuple of int
        Shape of one step's input (batch first).
    num_hidden : int
        Number of channels of the state.
    h2h_kernel, h2h_dilate : tuple of int
        State-to-state convolution (odd kernel; padded to keep the shape).
    i2h_kernel, i2h_stride, i2h_pad, i2h_dilate : tuple of int
        Input-to-state convolution.
    i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
    h2h_bias_initializer : str or Initializer
        Set as the weights' ``__init__`` attribute.
    activation : str or callable
    prefix : str
    params : RNNParams, optional
    conv_layout : str, default 'NCHW'
    """

    _default_prefix = ""    # each cell's own (ConvRNN_, ConvLSTM_, ConvGRU_)

    def __init__(self, input_shape, num_hidden, h2h_kernel=(3, 3), h2h_dilate=(1, 1),
                 i2h_kernel=(3, 3), i2h_stride=(1, 1), i2h_pad=(1, 1), i2h_dilate=(1, 1),
                 i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros",
                 activation=_LEAKY, prefix: Optional[str] = None,
                 params: Optional[RNNParams] = None, conv_layout: str = "NCHW") -> None:
        super().__init__(prefix=self._default_prefix if prefix is None else prefix,
                         params=params)
        if not all(k % 2 == 1 for k in h2h_kernel):
            raise StateError(f"{type(self).__name__}: h2h_kernel must have odd sizes (the "
                             f"state keeps its shape), got {tuple(h2h_kernel)}")
        self._h2h_kernel = h2h_kernel
        self._h2h_pad = tuple(d * (k - 1) // 2 for d, k in zip(h2h_dilate, h2h_kernel))
        self._h2h_dilate = h2h_dilate
        self._i2h_kernel = i2h_kernel
        self._i2h_stride = i2h_stride
        self._i2h_pad = i2h_pad
        self._i2h_dilate = i2h_dilate
        self._num_hidden = num_hidden
        self._input_shape = input_shape
        self._conv_layout = conv_layout
        self._activation = activation
        data = symbol.Variable("data")
        conv = symbol.Convolution(data=data, num_filter=num_hidden, kernel=i2h_kernel,
                                  stride=i2h_stride, pad=i2h_pad, dilate=i2h_dilate,
                                  layout=conv_layout)
        out_shape = conv.infer_shape(data=tuple(input_shape))[1][0]
        self._state_shape = (0,) + tuple(out_shape[1:])
        self._iW = self.params.get("i2h_weight", init=i2h_weight_initializer)
        self._hW = self.params.get("h2h_weight", init=h2h_weight_initializer)
        self._iB = self.params.get("i2h_bias", init=i2h_bias_initializer)
        self._hB = self.params.get("h2h_bias", init=h2h_bias_initializer)

    @property
    def _num_gates(self) -> int:
        return len(self._gate_names)

    @property
    def state_info(self) -> List[Dict[str, Any]]:
        return [{"shape": self._state_shape, "__layout__": self._conv_layout}]

    def _conv_forward(self, inputs, states, name):
        n = self._num_hidden * self._num_gates
        i2h = symbol.Convolution(name="%si2h" % name, data=inputs, num_filter=n,
                                 kernel=self._i2h_kernel, stride=self._i2h_stride,
                                 pad=self._i2h_pad, dilate=self._i2h_dilate,
                                 weight=self._iW, bias=self._iB, layout=self._conv_layout)
        h2h = symbol.Convolution(name="%sh2h" % name, data=states[0], num_filter=n,
                                 kernel=self._h2h_kernel, dilate=self._h2h_dilate,
                                 pad=self._h2h_pad, stride=(1, 1), weight=self._hW,
                                 bias=self._hB, layout=self._conv_layout)
        return i2h, h2h

    def __call__(self, inputs: Symbol, states: List[Symbol]) -> Tuple[Symbol, List[Symbol]]:
        raise NotSupportedError("BaseConvRNNCell is abstract; use ConvRNNCell, ConvLSTMCell "
                                "or ConvGRUCell")


class ConvRNNCell(BaseConvRNNCell):
    """Convolutional Elman RNN cell (see :class:`BaseConvRNNCell` for the parameters;
    default activation: leaky ReLU with slope 0.2, prefix ``'ConvRNN_'``)."""

    _default_prefix = "ConvRNN_"

    @property
    def _gate_names(self) -> Sequence[str]:
        return ("",)

    def __call__(self, inputs: Symbol, states: List[Symbol]) -> Tuple[Symbol, List[Symbol]]:
        name = self._step_name()
        i2h, h2h = self._conv_forward(inputs, states, name)
        output = self._get_activation(i2h + h2h, self._activation, name="%sout" % name)
        return output, [output]


class ConvLSTMCell(BaseConvRNNCell):
    """Convolutional LSTM cell (see :class:`BaseConvRNNCell` for the parameters; prefix
    ``'ConvLSTM_'``)."""

    _default_prefix = "ConvLSTM_"

    @property
    def _gate_names(self) -> Sequence[str]:
        return ["_i", "_f", "_c", "_o"]

    @property
    def state_info(self) -> List[Dict[str, Any]]:
        return [{"shape": self._state_shape, "__layout__": self._conv_layout},
                {"shape": self._state_shape, "__layout__": self._conv_layout}]

    def __call__(self, inputs: Symbol, states: List[Symbol]) -> Tuple[Symbol, List[Symbol]]:
        name = self._step_name()
        i2h, h2h = self._conv_forward(inputs, states, name)
        gates = symbol.SliceChannel(i2h + h2h, num_outputs=4,
                                    axis=self._conv_layout.find("C"), name="%sslice" % name)
        in_gate = symbol.Activation(gates[0], act_type="sigmoid", name="%si" % name)
        forget_gate = symbol.Activation(gates[1], act_type="sigmoid", name="%sf" % name)
        in_transform = self._get_activation(gates[2], self._activation, name="%sc" % name)
        out_gate = symbol.Activation(gates[3], act_type="sigmoid", name="%so" % name)
        next_c = symbol.elemwise_add(forget_gate * states[1], in_gate * in_transform,
                                     name="%sstate" % name)
        next_h = symbol.elemwise_mul(out_gate, self._get_activation(next_c, self._activation),
                                     name="%sout" % name)
        return next_h, [next_h, next_c]


class ConvGRUCell(BaseConvRNNCell):
    """Convolutional GRU cell (see :class:`BaseConvRNNCell` for the parameters; prefix
    ``'ConvGRU_'``)."""

    _default_prefix = "ConvGRU_"

    @property
    def _gate_names(self) -> Sequence[str]:
        return ["_r", "_z", "_o"]

    def __call__(self, inputs: Symbol, states: List[Symbol]) -> Tuple[Symbol, List[Symbol]]:
        name = self._step_name()
        i2h, h2h = self._conv_forward(inputs, states, name)
        next_h = gru_state(self, i2h, h2h, states[0], name, self._activation)
        return next_h, [next_h]

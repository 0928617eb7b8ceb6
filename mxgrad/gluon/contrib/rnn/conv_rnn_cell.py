"""MXNet 1.9.1's convolutional recurrent cells (``gluon.contrib.rnn``): ``Conv{1,2,3}D``
``RNNCell`` / ``LSTMCell`` / ``GRUCell`` (Shi et al. 2015), whose input-to-state and
state-to-state maps are convolutions (the state keeps the spatial shape: the recurrent
convolution is padded to 'same', so its kernel must be odd).

``input_shape`` is one step's shape without the batch axis, in ``conv_layout`` (e.g.
``(C, H, W)`` for ``'NCHW'``); int settings apply to every spatial axis. Weights are
laid out as MXNet's (``(gates * hidden_channels, in_channels, *kernel)`` for channels
first), gates in MXNet's order (LSTM ``i, f, c, o``; GRU ``r, z, o``).

Examples
--------
>>> import mxgrad as mx
>>> cell = mx.gluon.contrib.rnn.Conv2DLSTMCell((3, 8, 8), 4, i2h_kernel=3, h2h_kernel=3,
...                                            i2h_pad=1)
>>> cell.initialize()
>>> out, states = cell(mx.nd.ones((2, 3, 8, 8)), cell.begin_state(batch_size=2))
>>> out.shape, [s.shape for s in states]
((2, 4, 8, 8), [(2, 4, 8, 8), (2, 4, 8, 8)])
"""
from __future__ import annotations

from typing import Any, List, Sequence, Tuple, Union

from ....base import StateError
from ...rnn.rnn_cell import HybridRecurrentCell

__all__ = ["Conv1DRNNCell", "Conv2DRNNCell", "Conv3DRNNCell", "Conv1DLSTMCell",
           "Conv2DLSTMCell", "Conv3DLSTMCell", "Conv1DGRUCell", "Conv2DGRUCell",
           "Conv3DGRUCell"]

Spec = Union[int, Sequence[int]]
_LAYOUTS = {1: ("NCW", "NWC"), 2: ("NCHW", "NHWC"), 3: ("NCDHW", "NDHWC")}


class _BaseConvRNNCell(HybridRecurrentCell):
    _dims = 0
    _gates = 1
    _kind = ""

    def __init__(self, input_shape: Sequence[int], hidden_channels: int, i2h_kernel: Spec,
                 h2h_kernel: Spec, i2h_pad: Spec = 0, i2h_dilate: Spec = 1,
                 h2h_dilate: Spec = 1, i2h_weight_initializer: Any = None,
                 h2h_weight_initializer: Any = None, i2h_bias_initializer: Any = "zeros",
                 h2h_bias_initializer: Any = "zeros", conv_layout: Any = None,
                 activation: Any = "tanh", prefix: Any = None, params: Any = None) -> None:
        super().__init__(prefix=prefix, params=params)
        name, dims = type(self).__name__, self._dims
        layout = _LAYOUTS[dims][0] if conv_layout is None else conv_layout
        if layout not in _LAYOUTS[dims]:
            raise StateError(f"{name}: conv_layout must be one of {_LAYOUTS[dims]}, got "
                             f"{conv_layout!r}")
        input_shape = tuple(int(v) for v in input_shape)
        if len(input_shape) != dims + 1:
            raise StateError(f"{name}: input_shape must have {dims + 1} entries (channels "
                             f"and {dims} spatial sizes, in {layout} order), got {input_shape}")
        if not isinstance(hidden_channels, int) or hidden_channels <= 0:
            raise StateError(f"{name}: hidden_channels must be a positive int, got "
                             f"{hidden_channels!r}")

        def spec(v: Spec, what: str) -> Tuple[int, ...]:
            t = (int(v),) * dims if isinstance(v, int) else tuple(int(x) for x in v)
            if len(t) != dims:
                raise StateError(f"For {dims}D convolution, the convolution settings can "
                                 f"only be either int or list/tuple of length {dims} "
                                 f"({what}={v!r})")
            return t
        self._i2h_kernel = spec(i2h_kernel, "i2h_kernel")
        self._i2h_pad = spec(i2h_pad, "i2h_pad")
        self._i2h_dilate = spec(i2h_dilate, "i2h_dilate")
        self._h2h_kernel = spec(h2h_kernel, "h2h_kernel")
        self._h2h_dilate = spec(h2h_dilate, "h2h_dilate")
        if any(k % 2 == 0 for k in self._h2h_kernel):
            raise StateError(f"{name}: only odd h2h_kernel sizes are supported, got "
                             f"{h2h_kernel!r}")
        self._stride = (1,) * dims
        self._hidden_channels = hidden_channels
        self._input_shape = input_shape
        self._conv_layout = layout
        self._activation = activation
        self._channel_axis = layout.find("C")
        first = self._channel_axis == 1
        self._in_channels = input_shape[0] if first else input_shape[-1]
        space = input_shape[1:] if first else input_shape[:-1]
        out = tuple(x + 2 * p - d * (k - 1) - 1 + 1 if x else 0 for x, k, p, d in
                    zip(space, self._i2h_kernel, self._i2h_pad, self._i2h_dilate))
        self._h2h_pad = tuple(d * (k - 1) // 2 for d, k in zip(self._h2h_dilate,
                                                                self._h2h_kernel))
        g = hidden_channels * self._gates
        if first:
            i2h_shape = (g, self._in_channels) + self._i2h_kernel
            h2h_shape = (g, hidden_channels) + self._h2h_kernel
            self._state_shape = (hidden_channels,) + out
        else:
            i2h_shape = (g,) + self._i2h_kernel + (self._in_channels,)
            h2h_shape = (g,) + self._h2h_kernel + (hidden_channels,)
            self._state_shape = out + (hidden_channels,)
        self.i2h_weight = self.params.get("i2h_weight", shape=i2h_shape,
                                          init=i2h_weight_initializer,
                                          allow_deferred_init=True)
        self.h2h_weight = self.params.get("h2h_weight", shape=h2h_shape,
                                          init=h2h_weight_initializer,
                                          allow_deferred_init=True)
        self.i2h_bias = self.params.get("i2h_bias", shape=(g,), init=i2h_bias_initializer,
                                        allow_deferred_init=True)
        self.h2h_bias = self.params.get("h2h_bias", shape=(g,), init=h2h_bias_initializer,
                                        allow_deferred_init=True)

    def _alias(self) -> str:
        return self._kind


    def __repr__(self) -> str:
        shape = self.i2h_weight.shape or (0,) * (self._dims + 2)
        cin = shape[1 if self._channel_axis == 1 else -1]
        return (f"{type(self).__name__}({cin if cin else None} -> {shape[0]}, "
                f"{self._activation}, {self._conv_layout})")

    def state_info(self, batch_size: int = 0) -> List[dict]:
        one = {"shape": (batch_size,) + self._state_shape, "__layout__": self._conv_layout}
        return [one, dict(one)] if self._gates == 4 else [one]

    def _conv(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        n = len(self.state_info())
        if not isinstance(states, (list, tuple)) or len(states) != n:
            raise StateError(f"{self.name}: states must be a list of {n} array(s), got "
                             f"{type(states).__name__}")
        nf = self._hidden_channels * self._gates
        i2h = F.Convolution(inputs, i2h_weight, i2h_bias, kernel=self._i2h_kernel,
                            stride=self._stride, pad=self._i2h_pad, dilate=self._i2h_dilate,
                            num_filter=nf, layout=self._conv_layout)
        h2h = F.Convolution(states[0], h2h_weight, h2h_bias, kernel=self._h2h_kernel,
                            stride=self._stride, pad=self._h2h_pad, dilate=self._h2h_dilate,
                            num_filter=nf, layout=self._conv_layout)
        return i2h, h2h


class _ConvRNNCell(_BaseConvRNNCell):
    _kind = "conv_rnn"

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        i2h, h2h = self._conv(F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias)
        output = self._get_activation(F, i2h + h2h, self._activation, **self._out_name())
        return output, [output]


class _ConvLSTMCell(_BaseConvRNNCell):
    _kind = "conv_lstm"
    _gates = 4

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        i2h, h2h = self._conv(F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias)
        gi, gf, gc, go = F.split(i2h + h2h, num_outputs=4, axis=self._channel_axis)
        in_gate, forget_gate, out_gate = F.sigmoid(gi), F.sigmoid(gf), F.sigmoid(go)
        in_transform = self._get_activation(F, gc, self._activation)
        next_c = forget_gate * states[1] + in_gate * in_transform
        next_h = F.elemwise_mul(out_gate, self._get_activation(F, next_c, self._activation),
                                **self._out_name())
        return next_h, [next_h, next_c]


class _ConvGRUCell(_BaseConvRNNCell):
    _kind = "conv_gru"
    _gates = 3

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        i2h, h2h = self._conv(F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias)
        i2h_r, i2h_z, i2h_o = F.split(i2h, num_outputs=3, axis=self._channel_axis)
        h2h_r, h2h_z, h2h_o = F.split(h2h, num_outputs=3, axis=self._channel_axis)
        reset_gate = F.sigmoid(i2h_r + h2h_r)
        update_gate = F.sigmoid(i2h_z + h2h_z)
        cand = self._get_activation(F, i2h_o + reset_gate * h2h_o, self._activation)
        next_h = F.elemwise_add((1.0 - update_gate) * cand, update_gate * states[0],
                                **self._out_name())
        return next_h, [next_h]


class Conv1DRNNCell(_ConvRNNCell):
    """1-D convolutional RNN cell: ``h' = act(W_i * x + b_i + W_h * h + b_h)``
    (layout ``'NCW'`` or ``'NWC'``)."""
    _dims = 1


class Conv2DRNNCell(_ConvRNNCell):
    """2-D convolutional RNN cell (layout ``'NCHW'`` or ``'NHWC'``)."""
    _dims = 2


class Conv3DRNNCell(_ConvRNNCell):
    """3-D convolutional RNN cell (layout ``'NCDHW'`` or ``'NDHWC'``)."""
    _dims = 3


class Conv1DLSTMCell(_ConvLSTMCell):
    """1-D convolutional LSTM cell (states ``[h, c]``)."""
    _dims = 1


class Conv2DLSTMCell(_ConvLSTMCell):
    """2-D convolutional LSTM cell (states ``[h, c]``)."""
    _dims = 2


class Conv3DLSTMCell(_ConvLSTMCell):
    """3-D convolutional LSTM cell (states ``[h, c]``)."""
    _dims = 3


class Conv1DGRUCell(_ConvGRUCell):
    """1-D convolutional GRU cell."""
    _dims = 1


class Conv2DGRUCell(_ConvGRUCell):
    """2-D convolutional GRU cell."""
    _dims = 2


class Conv3DGRUCell(_ConvGRUCell):
    """3-D convolutional GRU cell."""
    _dims = 3

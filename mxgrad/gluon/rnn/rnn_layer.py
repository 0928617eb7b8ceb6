"""Fused recurrent layers ``RNN``, ``LSTM`` and ``GRU`` over whole sequences, as MXNet 1.9's
``gluon.rnn`` layers: the same arguments and defaults, parameters named ``l0_i2h_weight``,
``l0_h2h_weight``, ``l0_i2h_bias``, ``l0_h2h_bias`` (``r0_...`` for the reverse direction)
with MXNet's shapes, and the same ``.params`` file keys (``_unfused.0.i2h_weight``, or
``_unfused.0.l_cell.i2h_weight`` when bidirectional), so files saved by MXNet load here.

They run :func:`mxgrad.nd.RNN` (a NumPy forward and a hand-written backward through time).

Examples
--------
>>> import mxgrad as mx
>>> layer = mx.gluon.rnn.LSTM(8, num_layers=2, bidirectional=True)
>>> layer.initialize()
>>> out, (h, c) = layer(mx.nd.ones((5, 3, 4)), layer.begin_state(batch_size=3))
>>> out.shape, h.shape, c.shape
((5, 3, 16), (4, 3, 8), (4, 3, 8))
"""
from __future__ import annotations

import re
from typing import Callable, List, Optional, Tuple, cast

from ... import ndarray as nd
from ...base import ShapeError, StateError
from ..._engine.ndarray import NDArray
from ... import symbol as _sym
from ...symbol.symbol import Symbol
from ..block import HybridBlock
from ..parameter import Parameter
from . import rnn_cell

__all__ = ["RNN", "LSTM", "GRU"]

_KEY = re.compile(r"(l|r)(\d+)_(i2h|h2h|h2r)_(weight|bias)\Z")


class _RNNLayer(HybridBlock):
    """Shared implementation of the fused layers."""

    l0_i2h_weight: Parameter   # the first of the parameters registered by name

    def __init__(self, hidden_size, num_layers, layout, dropout, bidirectional, input_size,
                 i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                 h2h_bias_initializer, mode, projection_size, h2r_weight_initializer,
                 lstm_state_clip_min, lstm_state_clip_max, lstm_state_clip_nan, dtype,
                 use_sequence_length=False, **kwargs):
        super().__init__(**kwargs)
        if layout not in ("TNC", "NTC"):
            raise StateError(f"Invalid layout {layout!r}; must be one of ['TNC' or 'NTC']")
        if projection_size and (mode != "lstm" or not 0 < projection_size <= hidden_size):
            raise StateError(f"{type(self).__name__}: projection_size must be in (0, "
                             f"hidden_size={hidden_size}], got {projection_size!r}")
        if lstm_state_clip_min is not None or lstm_state_clip_max is not None:
            raise StateError(f"{type(self).__name__}: state clipping is not supported by "
                             f"mxgrad (MXNet 1.9 implements it with cuDNN only)")
        if use_sequence_length:
            raise StateError(f"{type(self).__name__}: use_sequence_length is not supported "
                             f"by mxgrad (MXNet 1.9 implements it with cuDNN only); unroll "
                             f"the cells of layer._unfuse() with valid_length instead")
        if not isinstance(num_layers, int) or num_layers < 1:
            raise StateError(f"{type(self).__name__}: num_layers must be a positive int, "
                             f"got {num_layers!r}")
        self._hidden_size = hidden_size
        self._projection_size = projection_size if projection_size else None
        self._num_layers = num_layers
        self._mode = mode
        self._layout = layout
        self._dropout = dropout
        self._dir = 2 if bidirectional else 1
        self._input_size = input_size
        self._i2h_weight_initializer = i2h_weight_initializer
        self._h2h_weight_initializer = h2h_weight_initializer
        self._i2h_bias_initializer = i2h_bias_initializer
        self._h2h_bias_initializer = h2h_bias_initializer
        self._h2r_weight_initializer = h2r_weight_initializer
        self._lstm_state_clip_min = lstm_state_clip_min
        self._lstm_state_clip_max = lstm_state_clip_max
        self._lstm_state_clip_nan = lstm_state_clip_nan
        self._dtype = dtype
        self._use_sequence_length = use_sequence_length
        self.skip_states = None
        self._gates = {"rnn_relu": 1, "rnn_tanh": 1, "lstm": 4, "gru": 3}[mode]
        ng, ni, nh = self._gates, input_size, hidden_size
        nr = self._projection_size or nh
        for i in range(num_layers):
            for j in ["l", "r"][:self._dir]:
                self._register_param(f"{j}{i}_i2h_weight", (ng * nh, ni),
                                     i2h_weight_initializer, dtype)
                self._register_param(f"{j}{i}_h2h_weight", (ng * nh, nr),
                                     h2h_weight_initializer, dtype)
                self._register_param(f"{j}{i}_i2h_bias", (ng * nh,), i2h_bias_initializer,
                                     dtype)
                self._register_param(f"{j}{i}_h2h_bias", (ng * nh,), h2h_bias_initializer,
                                     dtype)
                if self._projection_size:
                    self._register_param(f"{j}{i}_h2r_weight", (nr, nh),
                                         h2r_weight_initializer, dtype)
            ni = nr * self._dir

    def _register_param(self, name, shape, init, dtype):
        p = self.params.get(name, shape=shape, init=init, allow_deferred_init=True,
                            dtype=dtype)
        setattr(self, name, p)
        return p

    def __repr__(self) -> str:
        shape = cast(Tuple[int, ...], self.l0_i2h_weight.shape)   # known from the constructor
        s = (f"{type(self).__name__}({shape[1] if shape[1] else None} -> "
             f"{shape[0] // self._gates}, {self._layout}")
        if self._num_layers != 1:
            s += f", num_layers={self._num_layers}"
        if self._dropout != 0:
            s += f", dropout={self._dropout}"
        if self._dir == 2:
            s += ", bidirectional"
        return s + ")"

    def _collect_params_with_prefix(self, prefix=""):
        # MXNet 1.x saves the fused layer's parameters under the names of the unfused
        # cells (for compatibility with its older format); so do we
        if prefix:
            prefix += "."
        bidirectional = self._dir == 2

        def convert(key):
            d, l, g, t = _KEY.match(key).groups()
            if bidirectional:
                return f"_unfused.{l}.{d}_cell.{g}_{t}"
            return f"_unfused.{l}.{g}_{t}"

        ret = {prefix + convert(k): v for k, v in self._reg_params.items()}
        for name, child in self._children.items():
            ret.update(child._collect_params_with_prefix(prefix + name))
        return ret


    def state_info(self, batch_size: int = 0) -> List[dict]:
        """Shape, layout and dtype of each state."""
        raise NotImplementedError

    def _unfuse(self):
        """The same network as a stack of cells sharing this layer's parameters."""
        if self._projection_size:
            raise StateError(f"{self.name}: _unfuse does not support a projection layer "
                             f"(as in MXNet)")
        get_cell = {"rnn_relu": lambda **kw: rnn_cell.RNNCell(self._hidden_size,
                                                              activation="relu", **kw),
                    "rnn_tanh": lambda **kw: rnn_cell.RNNCell(self._hidden_size,
                                                              activation="tanh", **kw),
                    "lstm": lambda **kw: rnn_cell.LSTMCell(self._hidden_size, **kw),
                    "gru": lambda **kw: rnn_cell.GRUCell(self._hidden_size, **kw)}[self._mode]
        stack = rnn_cell.HybridSequentialRNNCell(prefix=self.prefix, params=self.params)
        with stack.name_scope():
            ni = self._input_size
            for i in range(self._num_layers):
                kwargs = {"input_size": ni,
                          "i2h_weight_initializer": self._i2h_weight_initializer,
                          "h2h_weight_initializer": self._h2h_weight_initializer,
                          "i2h_bias_initializer": self._i2h_bias_initializer,
                          "h2h_bias_initializer": self._h2h_bias_initializer}
                if self._dir == 2:
                    stack.add(rnn_cell.BidirectionalCell(get_cell(prefix=f"l{i}_", **kwargs),
                                                         get_cell(prefix=f"r{i}_", **kwargs)))
                else:
                    stack.add(get_cell(prefix=f"l{i}_", **kwargs))
                if self._dropout > 0 and i != self._num_layers - 1:
                    stack.add(rnn_cell.DropoutCell(self._dropout))
                ni = self._hidden_size * self._dir
        return stack

    def cast(self, dtype) -> None:
        super().cast(dtype)
        self._dtype = dtype

    def begin_state(self, batch_size: int = 0, func: Callable = nd.zeros,
                    **kwargs) -> List[NDArray]:
        """Initial states, ``func(shape=..., dtype=..., **kwargs)`` each (zeros).

        Examples
        --------
        >>> import mxgrad as mx
        >>> [s.shape for s in mx.gluon.rnn.GRU(4, 2).begin_state(batch_size=3)]
        [(2, 3, 4)]
        """
        states = []
        for i, info in enumerate(self.state_info(batch_size)):
            info = dict(info)           # __layout__ included: an attribute, as in MXNet
            info.update(kwargs)
            states.append(func(name=f"{self.prefix}h0_{i}", **info))    # MXNet's names
        return states

    def __call__(self, inputs, states=None, sequence_length=None, **kwargs):
        if sequence_length is not None:
            raise StateError(f"{self.name}: sequence_length needs use_sequence_length, which "
                             f"mxgrad does not support")
        self.skip_states = states is None
        if states is None:
            if isinstance(inputs, Symbol):
                # traced for export: zeros with an unknown (0) batch, as MXNet writes them
                # (the graph's RNN op takes the batch from the data when it runs)
                states = self.begin_state(0, func=_sym.zeros)
            elif not isinstance(inputs, NDArray):
                raise StateError(f"{self.name}: inputs must be an NDArray (or a Symbol), got "
                                 f"{type(inputs).__name__}")
            else:
                batch_size = inputs.shape[self._layout.find("N")]
                states = self.begin_state(batch_size, dtype=inputs.dtype)
        if isinstance(states, (NDArray, Symbol)):
            states = [states]
        # hybrid_forward returns (output, states) always, so a hybridized layer's graph
        # does not depend on whether states were given; they are dropped here
        out = super().__call__(inputs, states, **kwargs)
        return out[0] if self.skip_states else out

    def hybrid_forward(self, F, inputs, states, **kwargs):
        if isinstance(inputs, Symbol):       # traced for export: shapes checked when run
            return self._forward_kernel(F, inputs, states, **kwargs)
        if inputs.ndim != 3:
            raise ShapeError(f"{self.name}: inputs must be 3-D in layout {self._layout!r}, got "
                             f"shape {inputs.shape}")
        batch_size = inputs.shape[self._layout.find("N")]
        infos = self.state_info(batch_size)
        if len(states) != len(infos):
            raise StateError(f"{self.name}: expected {len(infos)} state(s), got {len(states)}")
        for state, info in zip(states, infos):
            if state.shape != info["shape"]:
                raise ShapeError(f"Invalid recurrent state shape. Expecting {info['shape']}, "
                                 f"got {state.shape}.")
        return self._forward_kernel(F, inputs, states, **kwargs)

    def _forward_kernel(self, F, inputs, states, **kwargs):
        if self._layout == "NTC":
            inputs = F.swapaxes(inputs, 0, 1)
        gs = ["i2h", "h2h", "h2r"] if self._projection_size else ["i2h", "h2h"]
        params = [kwargs[f"{d}{l}_{g}_{t}"].reshape(-1)      # MXNet's attrs: shape='-1'
                  for t in ["weight", "bias"]
                  for l in range(self._num_layers)
                  for d in ["l", "r"][:self._dir]
                  for g in gs if g != "h2r" or t != "bias"]
        # MXNet's graphs hold the weights' concatenation as _rnn_param_concat
        params = (F._rnn_param_concat if F is _sym else F.concat)(*params, dim=0)
        rnn = F.RNN(inputs, params, *states, state_size=self._hidden_size,
                    num_layers=self._num_layers, bidirectional=self._dir == 2,
                    p=self._dropout, state_outputs=True, mode=self._mode,
                    projection_size=self._projection_size, use_sequence_length=False,
                    lstm_state_clip_min=None, lstm_state_clip_max=None,
                    lstm_state_clip_nan=False)
        if self._mode == "lstm":
            outputs, states = rnn[0], [rnn[1], rnn[2]]
        else:
            outputs, states = rnn[0], [rnn[1]]
        if self._layout == "NTC":
            outputs = F.swapaxes(outputs, 0, 1)
        return outputs, states


class RNN(_RNNLayer):
    r"""Multi-layer Elman RNN, ``h_t = act(W_ih x_t + b_ih + W_hh h_{t-1} + b_hh)``.

    Parameters
    ----------
    hidden_size : int
    num_layers : int, default 1
    activation : {'relu', 'tanh'}, default 'relu'
    layout : {'TNC', 'NTC'}, default 'TNC'
    dropout : float, default 0
        Dropout on the outputs of each layer but the last (training mode).
    bidirectional : bool, default False
    i2h_weight_initializer, h2h_weight_initializer : Initializer, optional
    i2h_bias_initializer, h2h_bias_initializer : default 'zeros'
    input_size : int, default 0 (inferred at the first call)
    dtype : str, default 'float32'

    Inputs ``data`` in ``layout`` and optional ``states`` (list of one
    ``(num_layers*D, N, hidden_size)`` array); returns ``out`` or, when states were given,
    ``(out, new_states)``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> layer = mx.gluon.rnn.RNN(100, 3)
    >>> layer.initialize()
    >>> output, hn = layer(mx.nd.ones((5, 3, 10)), mx.nd.zeros((3, 3, 100)))
    >>> output.shape, hn[0].shape
    ((5, 3, 100), (3, 3, 100))
    """

    def __init__(self, hidden_size: int, num_layers: int = 1, activation: str = "relu",
                 layout: str = "TNC", dropout: float = 0, bidirectional: bool = False,
                 i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros",
                 input_size: int = 0, dtype="float32", **kwargs):
        if activation not in ("relu", "tanh"):
            raise StateError(f"RNN: activation must be 'relu' or 'tanh', got {activation!r}")
        super().__init__(hidden_size, num_layers, layout, dropout, bidirectional, input_size,
                         i2h_weight_initializer, h2h_weight_initializer,
                         i2h_bias_initializer, h2h_bias_initializer, "rnn_" + activation,
                         None, None, None, None, False, dtype, **kwargs)

    def state_info(self, batch_size: int = 0) -> List[dict]:
        return [{"shape": (self._num_layers * self._dir, batch_size, self._hidden_size),
                 "__layout__": "LNC", "dtype": self._dtype}]


class LSTM(_RNNLayer):
    r"""Multi-layer long short-term memory layer (gates ``i, f, g, o``, see
    :class:`LSTMCell`). Arguments as :class:`RNN` (no ``activation``); states are
    ``[h, c]``, each ``(num_layers*D, N, hidden_size)``.

    ``projection_size=P`` makes an LSTMP: ``r = W_hr h`` (parameters ``l0_h2r_weight``
    ``(P, hidden_size)``, initialised by ``h2r_weight_initializer``) is the output and
    the recurrent state (``h`` has shape ``(num_layers*D, N, P)``). MXNet 1.9's CPU
    operator only runs it forward; mxgrad also trains it. State clipping
    (``state_clip_min/max``) is not supported.

    Examples
    --------
    >>> import mxgrad as mx
    >>> layer = mx.gluon.rnn.LSTM(100, 3)
    >>> layer.initialize()
    >>> h0, c0 = mx.nd.zeros((3, 3, 100)), mx.nd.zeros((3, 3, 100))
    >>> output, hn = layer(mx.nd.ones((5, 3, 10)), [h0, c0])
    >>> output.shape, len(hn)
    ((5, 3, 100), 2)
    """

    def __init__(self, hidden_size: int, num_layers: int = 1, layout: str = "TNC",
                 dropout: float = 0, bidirectional: bool = False, input_size: int = 0,
                 i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros",
                 projection_size: Optional[int] = None, h2r_weight_initializer=None,
                 state_clip_min=None, state_clip_max=None, state_clip_nan: bool = False,
                 dtype="float32", **kwargs):
        super().__init__(hidden_size, num_layers, layout, dropout, bidirectional, input_size,
                         i2h_weight_initializer, h2h_weight_initializer,
                         i2h_bias_initializer, h2h_bias_initializer, "lstm", projection_size,
                         h2r_weight_initializer, state_clip_min, state_clip_max,
                         state_clip_nan, dtype, **kwargs)

    def state_info(self, batch_size: int = 0) -> List[dict]:
        shape = (self._num_layers * self._dir, batch_size, self._hidden_size)
        hshape = (self._num_layers * self._dir, batch_size,
                  self._projection_size or self._hidden_size)
        return [{"shape": hshape, "__layout__": "LNC", "dtype": self._dtype},
                {"shape": shape, "__layout__": "LNC", "dtype": self._dtype}]


class GRU(_RNNLayer):
    r"""Multi-layer gated recurrent unit layer (gates ``r, z, n``, see :class:`GRUCell`).
    Arguments as :class:`RNN` (no ``activation``).

    Examples
    --------
    >>> import mxgrad as mx
    >>> layer = mx.gluon.rnn.GRU(100, 3, layout='NTC')
    >>> layer.initialize()
    >>> layer(mx.nd.ones((3, 5, 10))).shape
    (3, 5, 100)
    """

    def __init__(self, hidden_size: int, num_layers: int = 1, layout: str = "TNC",
                 dropout: float = 0, bidirectional: bool = False, input_size: int = 0,
                 i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros",
                 dtype="float32", **kwargs):
        super().__init__(hidden_size, num_layers, layout, dropout, bidirectional, input_size,
                         i2h_weight_initializer, h2h_weight_initializer,
                         i2h_bias_initializer, h2h_bias_initializer, "gru", None, None, None,
                         None, False, dtype, **kwargs)

    def state_info(self, batch_size: int = 0) -> List[dict]:
        return [{"shape": (self._num_layers * self._dir, batch_size, self._hidden_size),
                 "__layout__": "LNC", "dtype": self._dtype}]

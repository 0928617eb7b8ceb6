"""Recurrent cells (one time step per call) and ``unroll``, as MXNet 1.9's
``gluon.rnn`` cells: the same classes, constructor arguments, parameter names and shapes
(``i2h_weight`` ``(G*H, input_size)``, ``h2h_weight`` ``(G*H, H)``, ``i2h_bias``,
``h2h_bias``), gate orders (LSTM ``i, f, g, o``; GRU ``r, z, n`` with the reset gate
applied to ``h2h``'s output including its bias) and state lists.

Cells are written with ``mx.nd`` ops, so autograd differentiates them to any order.

Examples
--------
>>> import mxgrad as mx
>>> cell = mx.gluon.rnn.LSTMCell(4, input_size=3)
>>> cell.initialize()
>>> out, states = cell.unroll(5, mx.nd.ones((2, 5, 3)), layout='NTC', merge_outputs=True)
>>> out.shape, [s.shape for s in states]
((2, 5, 4), [(2, 4), (2, 4)])
"""
from __future__ import annotations

from numbers import Number
from typing import Callable, Dict, List, Optional, Sequence, Union, cast

import numpy as np

from ... import ndarray as nd
from ...base import ShapeError, StateError
from ..._engine.ndarray import NDArray
from ... import symbol as _sym
from ...symbol.symbol import Symbol
from ..block import Block, HybridBlock

__all__ = ["RecurrentCell", "HybridRecurrentCell", "RNNCell", "LSTMCell", "GRUCell",
           "SequentialRNNCell", "HybridSequentialRNNCell", "DropoutCell", "ModifierCell",
           "ZoneoutCell", "ResidualCell", "BidirectionalCell"]

Inputs = Union[NDArray, Sequence[NDArray]]


def _as_list(x) -> list:
    """A list of arrays: a list/tuple as is, a multi-output Symbol split into its outputs."""
    if isinstance(x, (list, tuple)) or (isinstance(x, Symbol) and len(x) > 1):
        return list(x)
    return [x]


def _cells_state_info(cells, batch_size):
    return sum([c.state_info(batch_size) for c in cells], [])


def _cells_begin_state(cells, **kwargs):
    return sum([c.begin_state(**kwargs) for c in cells], [])


def _check_layout(layout: str) -> None:
    if not isinstance(layout, str) or sorted(layout) != ["C", "N", "T"]:
        raise StateError(f"layout must be 'NTC' or 'TNC', got {layout!r}")


def _is_tensor(x) -> bool:
    """One array (an NDArray, or a Symbol while a hybridized block is traced), not a list."""
    return isinstance(x, (NDArray, Symbol))


def _F(x):
    """The op namespace of ``x``: ``mx.sym`` for Symbols, ``mx.nd`` otherwise."""
    first = x if _is_tensor(x) else (x[0] if isinstance(x, (list, tuple)) and x else None)
    return _sym if isinstance(first, Symbol) else nd


def _format_sequence(length, inputs, layout, merge, in_layout=None):
    """Inputs as one array (``merge=True``), a list of per-step ``(N, C)`` arrays
    (``merge=False``) or as given (``None``); returns ``(inputs, axis, F, batch_size)``.
    Works on NDArrays and on Symbols (whose shapes are known while tracing)."""
    if inputs is None:
        raise StateError("unroll needs the inputs: an NDArray of the layout's shape or a "
                         "list of (batch, channels) NDArrays, one per time step")
    _check_layout(layout)
    axis = layout.find("T")
    in_axis = in_layout.find("T") if in_layout is not None else axis
    F = _F(inputs)
    if _is_tensor(inputs):
        shape = _known_shape(inputs)
        batch_size = shape[layout.find("N")] if shape else 0
        if merge is False:
            if shape is None and length is None:
                raise StateError("unroll: a Symbol of unknown shape needs length=")
            steps = shape[in_axis] if shape else length
            if length is not None and length != steps:
                raise ShapeError(f"unroll: length={length} but the inputs have {steps} time "
                                 f"steps along axis {in_axis} (layout {layout!r})")
            inputs = _as_list(F.split(inputs, axis=in_axis, num_outputs=steps,
                                      squeeze_axis=True))
    else:
        inputs = list(inputs)
        if length is not None and len(inputs) != length:
            raise ShapeError(f"unroll: length={length} but {len(inputs)} inputs were given")
        if not inputs:
            raise StateError("unroll: the list of inputs is empty")
        first_shape = _known_shape(inputs[0])
        batch_size = first_shape[0] if first_shape else 0
        if merge is True:
            inputs = F.stack(*inputs, axis=axis)
            in_axis = axis
    if _is_tensor(inputs) and axis != in_axis:
        inputs = F.swapaxes(inputs, dim1=axis, dim2=in_axis)
    return inputs, axis, F, batch_size


def _known_shape(x):
    """``x.shape``, or None for a Symbol whose shape is not known (not traced on data)."""
    if isinstance(x, Symbol):
        try:
            return tuple(x.shape)
        except ShapeError:
            return None
    return tuple(x.shape)


def _get_begin_state(cell, begin_state, inputs, batch_size):
    if begin_state is None:
        first = inputs if _is_tensor(inputs) else inputs[0]
        if isinstance(first, Symbol):
            # zeros whose batch axis follows the data's, so an exported graph takes any
            # batch size (MXNet infers a 0 batch dimension instead)
            dtype = first.dtype if _known_shape(first) is not None else "float32"

            def func(shape, **kwargs):
                one = _sym.zeros(shape=(1,) + tuple(shape[1:]), dtype=dtype)
                return _sym.broadcast_like(one, first, lhs_axes=(0,), rhs_axes=(0,))
            return cell.begin_state(func=func, batch_size=batch_size)
        begin_state = cell.begin_state(func=nd.zeros, batch_size=batch_size,
                                       dtype=first.dtype)
    return begin_state


def _lengths(F, valid_length, dtype):
    if isinstance(valid_length, (NDArray, Symbol)):
        return valid_length
    return nd.array(np.asarray(valid_length), dtype=dtype)


def _mask_sequence_variable_length(data, length, valid_length, time_axis, merge):
    """Zero the steps past each sequence's ``valid_length`` (MXNet's SequenceMask)."""
    F = _F(data)
    if not _is_tensor(data):
        data = F.stack(*data, axis=time_axis)
    outputs = F.SequenceMask(data, _lengths(F, valid_length, data.dtype),
                             use_sequence_length=True, axis=time_axis)
    if not merge:
        outputs = _as_list(F.split(outputs, num_outputs=length, axis=time_axis,
                                   squeeze_axis=True))
    return outputs


def _sequence_last(states: List[NDArray], valid_length) -> NDArray:
    """Each sequence's state at its last valid step (MXNet's SequenceLast)."""
    F = _F(states)
    stacked = F.stack(*states, axis=0)
    lengths = _lengths(F, valid_length, stacked.dtype)
    if isinstance(lengths, Symbol):
        # Block.export traces the graph on zeros, which SequenceLast refuses as lengths;
        # valid lengths are >= 1, so this changes nothing on real data
        lengths = F.maximum(lengths, 1)
    return F.SequenceLast(stacked, lengths, use_sequence_length=True, axis=0)


def _reverse_sequences(sequences, unroll_step, valid_length=None):
    """The steps in reverse order; with ``valid_length`` only each sequence's valid part
    is reversed and the padding stays in place (MXNet's SequenceReverse)."""
    if valid_length is None:
        return list(reversed(sequences))
    F = _F(sequences)
    stacked = F.stack(*sequences, axis=0)
    rev = F.SequenceReverse(stacked, _lengths(F, valid_length, stacked.dtype),
                            use_sequence_length=True, axis=0)
    return _as_list(F.split(rev, axis=0, num_outputs=unroll_step, squeeze_axis=True))


class RecurrentCell(Block):
    """Abstract base class of recurrent cells: one step per call
    (``output, new_states = cell(input, states)``) and :meth:`unroll` over a sequence.

    Parameters
    ----------
    prefix : str, optional
    params : ParameterDict, optional
    """

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._modified = False
        self.reset()

    def reset(self) -> None:
        """Reset the step counters before a new sequence."""
        self._init_counter = -1
        self._counter = -1
        for cell in self._children.values():
            cast(RecurrentCell, cell).reset()

    def state_info(self, batch_size: int = 0) -> List[dict]:
        """Shape and layout of each state."""
        raise NotImplementedError()

    def begin_state(self, batch_size: int = 0, func: Callable = nd.zeros,
                    **kwargs) -> List[NDArray]:
        """Initial states, made by ``func(shape=..., **kwargs)`` (zeros by default).

        Examples
        --------
        >>> import mxgrad as mx
        >>> [s.shape for s in mx.gluon.rnn.LSTMCell(5).begin_state(batch_size=2)]
        [(2, 5), (2, 5)]
        """
        if self._modified:
            raise StateError("After applying modifier cells (e.g. ZoneoutCell) the base cell "
                             "cannot be called directly. Call the modifier cell instead.")
        states = []
        for info in self.state_info(batch_size):
            self._init_counter += 1
            info = dict(info) if info is not None else {}
            info.pop("__layout__", None)
            info.update(kwargs)
            states.append(func(**info))
        return states

    def unroll(self, length: int, inputs: Inputs, begin_state=None, layout: str = "NTC",
               merge_outputs: Optional[bool] = None, valid_length=None):
        """Run the cell over ``length`` steps.

        Parameters
        ----------
        length : int
        inputs : NDArray or list of NDArray
            One array in ``layout`` or a list of ``(N, C)`` arrays, one per step.
        begin_state : list of NDArray, optional
            Defaults to :meth:`begin_state` (zeros).
        layout : {'NTC', 'TNC'}, default 'NTC'
        merge_outputs : bool, optional
            True: one array in ``layout``; False: a list; None: as the inputs came.
        valid_length : NDArray, optional
            ``(N,)`` lengths: outputs past a sequence's end are zero and its states are
            those of its last valid step.

        Returns
        -------
        (outputs, states)
        """
        self.reset()
        inputs, axis, F, batch_size = _format_sequence(length, inputs, layout, False)
        begin_state = _get_begin_state(self, begin_state, inputs, batch_size)
        states = begin_state
        outputs, all_states = [], []
        for i in range(length):
            output, states = self(inputs[i], states)
            outputs.append(output)
            if valid_length is not None:
                all_states.append(states)
        if valid_length is not None:
            states = [_sequence_last(list(ele), valid_length) for ele in zip(*all_states)]
            outputs = _mask_sequence_variable_length(outputs, length, valid_length, axis, True)
        outputs, _, _, _ = _format_sequence(length, outputs, layout, merge_outputs)
        return outputs, states

    def _get_activation(self, F, inputs, activation, **kwargs):
        func = {"tanh": F.tanh, "relu": F.relu, "sigmoid": F.sigmoid,
                "softsign": F.softsign}.get(activation) if isinstance(activation, str) else None
        if func is not None:
            return func(inputs, **kwargs)
        if isinstance(activation, str):
            return F.Activation(inputs, act_type=activation, **kwargs)
        alpha = getattr(activation, "_alpha", None)
        if alpha is not None and type(activation).__name__ == "LeakyReLU":
            return F.LeakyReLU(inputs, act_type="leaky", slope=alpha, **kwargs)
        return activation(inputs)

    def _out_name(self) -> dict:
        """``name=t<step>_out`` for a step's output Symbol (MXNet's node names, so traced
        graphs list ``<prefix>t0_out_output``...); nothing for NDArrays."""
        return {"name": f"t{self._counter}_out"}

    def forward(self, inputs, states):
        """One step: ``(output, new_states)``."""
        self._counter += 1
        return super().forward(inputs, states)


class HybridRecurrentCell(RecurrentCell, HybridBlock):
    """A recurrent cell written with ``hybrid_forward(F, inputs, states, **params)``."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)

    def hybrid_forward(self, F, x, *args, **kwargs):
        raise NotImplementedError


class _GatedCell(HybridRecurrentCell):
    """Shared parameters of RNNCell, LSTMCell and GRUCell (``gates`` blocks of H rows)."""

    _ngates = 1

    def __init__(self, hidden_size, i2h_weight_initializer, h2h_weight_initializer,
                 i2h_bias_initializer, h2h_bias_initializer, input_size, prefix, params):
        super().__init__(prefix=prefix, params=params)
        if not isinstance(hidden_size, (int, np.integer)) or hidden_size <= 0:
            raise StateError(f"{type(self).__name__}: hidden_size must be a positive int, got "
                             f"{hidden_size!r}")
        self._hidden_size = int(hidden_size)
        self._input_size = input_size
        g = self._ngates * self._hidden_size
        self.i2h_weight = self.params.get("i2h_weight", shape=(g, input_size),
                                          init=i2h_weight_initializer,
                                          allow_deferred_init=True)
        self.h2h_weight = self.params.get("h2h_weight", shape=(g, self._hidden_size),
                                          init=h2h_weight_initializer,
                                          allow_deferred_init=True)
        self.i2h_bias = self.params.get("i2h_bias", shape=(g,), init=i2h_bias_initializer,
                                        allow_deferred_init=True)
        self.h2h_bias = self.params.get("h2h_bias", shape=(g,), init=h2h_bias_initializer,
                                        allow_deferred_init=True)


    def state_info(self, batch_size: int = 0) -> List[dict]:
        return [{"shape": (batch_size, self._hidden_size), "__layout__": "NC"}]

    def __repr__(self) -> str:
        shape = self.i2h_weight.shape
        act = f", {self._activation}" if isinstance(self, RNNCell) else ""
        return f"{type(self).__name__}({shape[1] if shape[1] else None} -> {shape[0]}{act})"

    def _check_states(self, states):
        n = len(self.state_info())
        if not isinstance(states, (list, tuple)) or len(states) != n:
            raise StateError(f"{self.name}: states must be a list of {n} NDArray(s), got "
                             f"{type(states).__name__}")


class RNNCell(_GatedCell):
    r"""Elman RNN cell: ``h' = act(W_i x + b_i + W_h h + b_h)``.

    Parameters
    ----------
    hidden_size : int
    activation : str or callable, default 'tanh'
    i2h_weight_initializer, h2h_weight_initializer : Initializer, optional
    i2h_bias_initializer, h2h_bias_initializer : default 'zeros'
    input_size : int, default 0 (inferred from the first input)
    prefix : str, default 'rnn_'
    params : ParameterDict, optional

    Examples
    --------
    >>> import mxgrad as mx
    >>> cell = mx.gluon.rnn.RNNCell(3); cell.initialize()
    >>> out, [h] = cell(mx.nd.ones((2, 4)), cell.begin_state(batch_size=2))
    >>> out.shape, h.shape
    ((2, 3), (2, 3))
    """

    def __init__(self, hidden_size: int, activation="tanh", i2h_weight_initializer=None,
                 h2h_weight_initializer=None, i2h_bias_initializer="zeros",
                 h2h_bias_initializer="zeros", input_size: int = 0, prefix=None, params=None):
        super().__init__(hidden_size, i2h_weight_initializer, h2h_weight_initializer,
                         i2h_bias_initializer, h2h_bias_initializer, input_size, prefix, params)
        self._activation = activation

    def _alias(self) -> str:
        return "rnn"

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        self._check_states(states)
        i2h = F.FullyConnected(inputs, i2h_weight, i2h_bias, num_hidden=self._hidden_size)
        h2h = F.FullyConnected(states[0], h2h_weight, h2h_bias, num_hidden=self._hidden_size)
        output = self._get_activation(F, i2h + h2h, self._activation, **self._out_name())
        return output, [output]


class LSTMCell(_GatedCell):
    r"""Long short-term memory cell (gates ``i, f, g, o`` in that order)::

        i, f, o = sigmoid(.), g = tanh(W_i x + b_i + W_h h + b_h) (one block each)
        c' = f * c + i * g,   h' = o * tanh(c')

    States ``[h, c]``. Parameters as :class:`RNNCell` (weights have ``4*hidden_size``
    rows), plus ``activation='tanh'`` and ``recurrent_activation='sigmoid'``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> cell = mx.gluon.rnn.LSTMCell(3, input_size=4); cell.initialize()
    >>> cell.i2h_weight.shape
    (12, 4)
    """

    _ngates = 4

    def __init__(self, hidden_size: int, i2h_weight_initializer=None,
                 h2h_weight_initializer=None, i2h_bias_initializer="zeros",
                 h2h_bias_initializer="zeros", input_size: int = 0, prefix=None, params=None,
                 activation="tanh", recurrent_activation="sigmoid"):
        super().__init__(hidden_size, i2h_weight_initializer, h2h_weight_initializer,
                         i2h_bias_initializer, h2h_bias_initializer, input_size, prefix, params)
        self._activation = activation
        self._recurrent_activation = recurrent_activation

    def _alias(self) -> str:
        return "lstm"

    def state_info(self, batch_size: int = 0) -> List[dict]:
        return [{"shape": (batch_size, self._hidden_size), "__layout__": "NC"},
                {"shape": (batch_size, self._hidden_size), "__layout__": "NC"}]

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        self._check_states(states)
        H = self._hidden_size
        i2h = F.FullyConnected(inputs, i2h_weight, i2h_bias, num_hidden=4 * H)
        h2h = F.FullyConnected(states[0], h2h_weight, h2h_bias, num_hidden=4 * H)
        gi, gf, gc, go = F.split(i2h + h2h, num_outputs=4, axis=1)
        rec = self._recurrent_activation
        in_gate = self._get_activation(F, gi, rec)
        forget_gate = self._get_activation(F, gf, rec)
        in_transform = self._get_activation(F, gc, self._activation)
        out_gate = self._get_activation(F, go, rec)
        next_c = forget_gate * states[1] + in_gate * in_transform
        next_h = F.elemwise_mul(out_gate, F.Activation(next_c, act_type=self._activation),
                                **self._out_name())
        return next_h, [next_h, next_c]


class GRUCell(_GatedCell):
    r"""Gated recurrent unit cell (gates ``r, z, n``, as MXNet and cuDNN)::

        r = sigmoid(W_ir x + b_ir + W_hr h + b_hr)
        z = sigmoid(W_iz x + b_iz + W_hz h + b_hz)
        n = tanh(W_in x + b_in + r * (W_hn h + b_hn))
        h' = (1 - z) * n + z * h

    Parameters as :class:`RNNCell` (weights have ``3*hidden_size`` rows), plus
    ``activation='tanh'`` and ``recurrent_activation='sigmoid'``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> cell = mx.gluon.rnn.GRUCell(2, input_size=3); cell.initialize()
    >>> out, [h] = cell(mx.nd.ones((1, 3)), cell.begin_state(batch_size=1)); out.shape
    (1, 2)
    """

    _ngates = 3

    def __init__(self, hidden_size: int, i2h_weight_initializer=None,
                 h2h_weight_initializer=None, i2h_bias_initializer="zeros",
                 h2h_bias_initializer="zeros", input_size: int = 0, prefix=None, params=None,
                 activation="tanh", recurrent_activation="sigmoid"):
        super().__init__(hidden_size, i2h_weight_initializer, h2h_weight_initializer,
                         i2h_bias_initializer, h2h_bias_initializer, input_size, prefix, params)
        self._activation = activation
        self._recurrent_activation = recurrent_activation

    def _alias(self) -> str:
        return "gru"

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        self._check_states(states)
        H = self._hidden_size
        prev_h = states[0]
        i2h = F.FullyConnected(inputs, i2h_weight, i2h_bias, num_hidden=3 * H)
        h2h = F.FullyConnected(prev_h, h2h_weight, h2h_bias, num_hidden=3 * H)
        i2h_r, i2h_z, i2h_n = F.split(i2h, num_outputs=3, axis=1)
        h2h_r, h2h_z, h2h_n = F.split(h2h, num_outputs=3, axis=1)
        rec = self._recurrent_activation
        reset_gate = self._get_activation(F, i2h_r + h2h_r, rec)
        update_gate = self._get_activation(F, i2h_z + h2h_z, rec)
        next_h_tmp = self._get_activation(F, i2h_n + reset_gate * h2h_n, self._activation)
        next_h = F.elemwise_add(F.elemwise_mul(1.0 - update_gate, next_h_tmp),
                                F.elemwise_mul(update_gate, prev_h), **self._out_name())
        return next_h, [next_h]


class _SequentialBase:
    """Stack of cells: each cell's output is the next one's input."""

    # from the Block the concrete classes also derive from
    _children: Dict[str, Block]
    _modified: bool
    register_child: Callable[..., None]

    def __repr__(self) -> str:
        mods = "\n".join(f"({i}): {m!r}" for i, m in self._children.items())
        return f"{type(self).__name__}(\n{mods}\n)"

    def add(self, cell) -> None:
        """Append a cell."""
        self.register_child(cell)

    def state_info(self, batch_size: int = 0) -> List[dict]:
        return _cells_state_info(self._children.values(), batch_size)

    def begin_state(self, **kwargs) -> List[NDArray]:
        if self._modified:
            raise StateError("After applying modifier cells (e.g. ZoneoutCell) the base cell "
                             "cannot be called directly. Call the modifier cell instead.")
        return _cells_begin_state(self._children.values(), **kwargs)

    def __call__(self, inputs, states):
        self._counter += 1
        next_states = []
        p = 0
        for cell in self._children.values():
            if isinstance(cell, BidirectionalCell):
                raise StateError("a BidirectionalCell cannot be stepped: call unroll() on the "
                                 "sequential cell instead")
            n = len(cell.state_info())
            state = states[p:p + n]
            p += n
            inputs, state = cell(inputs, state)
            next_states.append(state)
        return inputs, sum(next_states, [])

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None,
               valid_length=None):
        self.reset()
        inputs, _, F, batch_size = _format_sequence(length, inputs, layout, None)
        num_cells = len(self._children)
        begin_state = _get_begin_state(self, begin_state, inputs, batch_size)
        p = 0
        next_states = []
        for i, cell in enumerate(self._children.values()):
            n = len(cell.state_info())
            states = begin_state[p:p + n]
            p += n
            inputs, states = cell.unroll(length, inputs=inputs, begin_state=states,
                                         layout=layout,
                                         merge_outputs=None if i < num_cells - 1
                                         else merge_outputs,
                                         valid_length=valid_length)
            next_states.extend(states)
        return inputs, next_states

    def __getitem__(self, i):
        return self._children[str(i)]

    def __len__(self) -> int:
        return len(self._children)


class SequentialRNNCell(_SequentialBase, RecurrentCell):  # type: ignore[misc]
    """A stack of recurrent cells run one after the other at each step.

    Examples
    --------
    >>> import mxgrad as mx
    >>> stack = mx.gluon.rnn.SequentialRNNCell()
    >>> stack.add(mx.gluon.rnn.LSTMCell(4)); stack.add(mx.gluon.rnn.GRUCell(3))
    >>> stack.initialize()
    >>> out, states = stack.unroll(2, mx.nd.ones((1, 2, 5)), merge_outputs=True)
    >>> out.shape, len(states)
    ((1, 2, 3), 3)
    """

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)


class HybridSequentialRNNCell(_SequentialBase, HybridRecurrentCell):  # type: ignore[misc]
    """:class:`SequentialRNNCell` of hybrid cells (what ``_unfuse`` returns)."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)

    def hybrid_forward(self, F, inputs, states):
        return self.__call__(inputs, states)


class DropoutCell(HybridRecurrentCell):
    """Dropout on the inputs of each step (no state); ``axes`` share one mask value.

    Examples
    --------
    >>> import mxgrad as mx
    >>> out, _ = mx.gluon.rnn.DropoutCell(0.5)(mx.nd.ones((2, 3)), [])
    >>> out.asnumpy().tolist()        # not training: the identity
    [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]
    """

    def __init__(self, rate: float, axes=(), prefix=None, params=None):
        super().__init__(prefix, params)
        if not isinstance(rate, Number):
            raise StateError(f"DropoutCell: rate must be a number, got {type(rate).__name__}")
        self._rate = rate
        self._axes = axes

    def __repr__(self) -> str:
        return f"{type(self).__name__}(rate={self._rate}, axes={self._axes})"

    def state_info(self, batch_size: int = 0) -> List[dict]:
        return []

    def _alias(self) -> str:
        return "dropout"

    def hybrid_forward(self, F, inputs, states):
        if self._rate > 0:
            inputs = F.Dropout(inputs, p=self._rate, axes=self._axes)
        return inputs, states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None,
               valid_length=None):
        self.reset()
        inputs, _, F, _ = _format_sequence(length, inputs, layout, merge_outputs)
        if _is_tensor(inputs):
            return self.hybrid_forward(F, inputs, begin_state if begin_state else [])
        return super().unroll(length, inputs, begin_state=begin_state, layout=layout,
                              merge_outputs=merge_outputs, valid_length=None)


class ModifierCell(HybridRecurrentCell):
    """Base class of cells that wrap another cell (its parameters are the base cell's)."""

    def __init__(self, base_cell):
        if base_cell._modified:
            raise StateError(f"Cell {base_cell.name} is already modified. One cell cannot be "
                             f"modified twice")
        base_cell._modified = True
        super().__init__(prefix=base_cell.prefix + self._alias(), params=None)
        self.base_cell = base_cell

    @property
    def params(self):
        return self.base_cell.params

    def state_info(self, batch_size: int = 0) -> List[dict]:
        return self.base_cell.state_info(batch_size)

    def begin_state(self, func=nd.zeros, **kwargs) -> List[NDArray]:  # type: ignore[override]
        if self._modified:
            raise StateError("After applying modifier cells (e.g. DropoutCell) the base cell "
                             "cannot be called directly. Call the modifier cell instead.")
        self.base_cell._modified = False
        try:
            begin = self.base_cell.begin_state(func=func, **kwargs)
        finally:
            self.base_cell._modified = True
        return begin

    def hybrid_forward(self, F, inputs, states):
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.base_cell!r})"


class ZoneoutCell(ModifierCell):
    """Zoneout (Krueger et al. 2016): in training, each output/state element keeps its
    previous value with probability ``zoneout_outputs``/``zoneout_states``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> cell = mx.gluon.rnn.ZoneoutCell(mx.gluon.rnn.RNNCell(3), 0.5, 0.5)
    >>> cell.initialize()
    >>> cell.unroll(4, mx.nd.ones((2, 4, 1)), merge_outputs=True)[0].shape
    (2, 4, 3)
    """

    # a step reads the previous step's output, kept here, not among its inputs: a
    # hybridized ZoneoutCell called step by step runs imperatively (see _hybrid_plan);
    # unrolled inside a hybridized block, the whole sequence is one graph
    _state_between_calls = "a step reads the previous step's output, kept in the cell"

    def __init__(self, base_cell, zoneout_outputs: float = 0.0, zoneout_states: float = 0.0):
        if isinstance(base_cell, BidirectionalCell):
            raise StateError("BidirectionalCell doesn't support zoneout since it doesn't "
                             "support step. Please add ZoneoutCell to the cells underneath "
                             "instead.")
        super().__init__(base_cell)
        self.zoneout_outputs = zoneout_outputs
        self.zoneout_states = zoneout_states
        self._prev_output = None

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(p_out={self.zoneout_outputs}, "
                f"p_state={self.zoneout_states}, {self.base_cell!r})")

    def _alias(self) -> str:
        return "zoneout"

    def reset(self) -> None:
        super().reset()
        self._prev_output = None

    def hybrid_forward(self, F, inputs, states):
        cell, p_outputs, p_states = self.base_cell, self.zoneout_outputs, self.zoneout_states
        next_output, next_states = cell(inputs, states)

        def mask(p, like):
            return F.Dropout(F.ones_like(like), p=p)

        prev_output = self._prev_output
        if prev_output is None:
            prev_output = F.zeros_like(next_output)
        output = (F.where(mask(p_outputs, next_output), next_output, prev_output)
                  if p_outputs != 0.0 else next_output)
        states = ([F.where(mask(p_states, new_s), new_s, old_s)
                   for new_s, old_s in zip(next_states, states)]
                  if p_states != 0.0 else next_states)
        self._prev_output = output
        return output, states


class ResidualCell(ModifierCell):
    """Adds the input to the base cell's output (``output + input``).

    Examples
    --------
    >>> import mxgrad as mx
    >>> cell = mx.gluon.rnn.ResidualCell(mx.gluon.rnn.GRUCell(3)); cell.initialize()
    >>> cell.unroll(2, mx.nd.ones((1, 2, 3)), merge_outputs=True)[0].shape
    (1, 2, 3)
    """

    def __init__(self, base_cell):
        super().__init__(base_cell)

    def hybrid_forward(self, F, inputs, states):
        output, states = self.base_cell(inputs, states)
        return output + inputs, states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None,
               valid_length=None):
        self.reset()
        self.base_cell._modified = False
        try:
            outputs, states = self.base_cell.unroll(length, inputs=inputs,
                                                    begin_state=begin_state, layout=layout,
                                                    merge_outputs=merge_outputs,
                                                    valid_length=valid_length)
        finally:
            self.base_cell._modified = True
        merge_outputs = _is_tensor(outputs) if merge_outputs is None \
            else merge_outputs
        inputs, axis, F, _ = _format_sequence(length, inputs, layout, merge_outputs)
        if valid_length is not None:
            inputs = _mask_sequence_variable_length(inputs, length, valid_length, axis,
                                                    merge_outputs)
        if merge_outputs:
            outputs = outputs + inputs
        else:
            outputs = [i + j for i, j in zip(outputs, inputs)]
        return outputs, states


class BidirectionalCell(HybridRecurrentCell):
    """Runs ``l_cell`` forward and ``r_cell`` backward in time and concatenates their
    outputs (only :meth:`unroll`, no single steps).

    Examples
    --------
    >>> import mxgrad as mx
    >>> bi = mx.gluon.rnn.BidirectionalCell(mx.gluon.rnn.LSTMCell(3), mx.gluon.rnn.LSTMCell(3))
    >>> bi.initialize()
    >>> out, states = bi.unroll(4, mx.nd.ones((2, 4, 5)), merge_outputs=True)
    >>> out.shape, len(states)
    ((2, 4, 6), 4)
    """

    def __init__(self, l_cell, r_cell, output_prefix: str = "bi_"):
        super().__init__(prefix="", params=None)
        self.register_child(l_cell, "l_cell")
        self.register_child(r_cell, "r_cell")
        self._output_prefix = output_prefix

    def __call__(self, inputs, states):
        raise StateError("Bidirectional cannot be stepped. Please use unroll")

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(forward={self._children['l_cell']!r}, "
                f"backward={self._children['r_cell']!r})")

    def state_info(self, batch_size: int = 0) -> List[dict]:
        return _cells_state_info(self._children.values(), batch_size)

    def begin_state(self, **kwargs) -> List[NDArray]:  # type: ignore[override]
        if self._modified:
            raise StateError("After applying modifier cells (e.g. DropoutCell) the base cell "
                             "cannot be called directly. Call the modifier cell instead.")
        return _cells_begin_state(self._children.values(), **kwargs)

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None,
               valid_length=None):
        self.reset()
        inputs, axis, F, batch_size = _format_sequence(length, inputs, layout, False)
        reversed_inputs = _reverse_sequences(inputs, length, valid_length)
        begin_state = _get_begin_state(self, begin_state, inputs, batch_size)
        states = begin_state
        l_cell, r_cell = self._children.values()
        nl = len(l_cell.state_info(batch_size))
        l_outputs, l_states = l_cell.unroll(length, inputs=inputs, begin_state=states[:nl],
                                            layout=layout, merge_outputs=merge_outputs,
                                            valid_length=valid_length)
        r_outputs, r_states = r_cell.unroll(length, inputs=reversed_inputs,
                                            begin_state=states[nl:], layout=layout,
                                            merge_outputs=False, valid_length=valid_length)
        reversed_r_outputs = _reverse_sequences(r_outputs, length, valid_length)
        if merge_outputs is None:
            merge_outputs = _is_tensor(l_outputs)
            l_outputs, _, _, _ = _format_sequence(None, l_outputs, layout, merge_outputs)
            reversed_r_outputs, _, _, _ = _format_sequence(None, reversed_r_outputs, layout,
                                                           merge_outputs)
        if merge_outputs:
            if not _is_tensor(reversed_r_outputs):
                reversed_r_outputs = F.stack(*reversed_r_outputs, axis=axis)
            outputs = F.concat(l_outputs, reversed_r_outputs, dim=2,
                               name=f"{self._output_prefix}out")
        else:
            outputs = [F.concat(l_o, r_o, dim=1, name=f"{self._output_prefix}t{i}")
                       for i, (l_o, r_o) in enumerate(zip(l_outputs, reversed_r_outputs))]
        if valid_length is not None:
            outputs = _mask_sequence_variable_length(outputs, length, valid_length, axis,
                                                     merge_outputs)
        return outputs, l_states + r_states

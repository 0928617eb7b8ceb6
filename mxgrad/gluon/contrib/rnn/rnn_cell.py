"""MXNet 1.9.1's ``gluon.contrib.rnn`` cells: ``LSTMPCell`` (an LSTM whose recurrent
state is a projection of its hidden state) and ``VariationalDropoutCell`` (one dropout
mask per sequence for inputs, the first state and outputs).

Examples
--------
>>> import mxgrad as mx
>>> cell = mx.gluon.contrib.rnn.LSTMPCell(6, 3, input_size=4); cell.initialize()
>>> out, (r, c) = cell(mx.nd.ones((2, 4)), cell.begin_state(batch_size=2))
>>> out.shape, r.shape, c.shape
((2, 3), (2, 3), (2, 6))
"""
from __future__ import annotations

from typing import List

from ....base import StateError
from ...rnn.rnn_cell import (BidirectionalCell, HybridRecurrentCell, ModifierCell,
                             SequentialRNNCell, _as_list, _format_sequence, _get_begin_state,
                             _is_tensor, _mask_sequence_variable_length)

__all__ = ["LSTMPCell", "VariationalDropoutCell", "dynamic_unroll"]


class VariationalDropoutCell(ModifierCell):
    """Variational dropout (Gal and Ghahramani 2016): the same dropout mask at every
    step, separately for the inputs (``drop_inputs``), the first state (``drop_states``,
    the ``h`` of LSTMs) and the outputs (``drop_outputs``). Masks are drawn at the first
    step and kept until :meth:`reset` (``unroll`` resets); outside training dropout is
    the identity.

    Examples
    --------
    >>> import mxgrad as mx
    >>> cell = mx.gluon.contrib.rnn.VariationalDropoutCell(mx.gluon.rnn.GRUCell(3), 0.5,
    ...                                                    0.5, 0.5)
    >>> cell.initialize()
    >>> cell.unroll(4, mx.nd.ones((2, 4, 5)), merge_outputs=True)[0].shape
    (2, 4, 3)
    """

    # the masks drawn at the first step are kept for the next ones (see ZoneoutCell)
    _state_between_calls = "the dropout masks drawn at the first step are kept in the cell"

    def __init__(self, base_cell, drop_inputs: float = 0.0, drop_states: float = 0.0,
                 drop_outputs: float = 0.0):
        if drop_states and isinstance(base_cell, BidirectionalCell):
            raise StateError("BidirectionalCell doesn't support variational state dropout. "
                             "Please add VariationalDropoutCell to the cells underneath "
                             "instead.")
        if drop_states and isinstance(base_cell, SequentialRNNCell) \
                and getattr(base_cell, "_bidirectional", False):
            raise StateError("Bidirectional SequentialRNNCell doesn't support variational "
                             "state dropout. Please add VariationalDropoutCell to the cells "
                             "underneath instead.")
        super().__init__(base_cell)
        self.drop_inputs = drop_inputs
        self.drop_states = drop_states
        self.drop_outputs = drop_outputs
        self.drop_inputs_mask = None
        self.drop_states_mask = None
        self.drop_outputs_mask = None

    def _alias(self) -> str:
        return "vardrop"

    def reset(self) -> None:
        super().reset()
        self.drop_inputs_mask = None
        self.drop_states_mask = None
        self.drop_outputs_mask = None

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(p_out = {self.drop_outputs}, "
                f"p_state = {self.drop_states})")

    def hybrid_forward(self, F, inputs, states):
        cell = self.base_cell
        if self.drop_states and self.drop_states_mask is None:
            self.drop_states_mask = F.Dropout(F.ones_like(states[0]), p=self.drop_states)
        if self.drop_inputs and self.drop_inputs_mask is None:
            self.drop_inputs_mask = F.Dropout(F.ones_like(inputs), p=self.drop_inputs)
        if self.drop_states:
            states = list(states)
            states[0] = states[0] * self.drop_states_mask   # h: always the first state
        if self.drop_inputs:
            inputs = inputs * self.drop_inputs_mask
        next_output, next_states = cell(inputs, states)
        if self.drop_outputs and self.drop_outputs_mask is None:
            self.drop_outputs_mask = F.Dropout(F.ones_like(next_output), p=self.drop_outputs)
        if self.drop_outputs:
            next_output = next_output * self.drop_outputs_mask
        return next_output, next_states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None,
               valid_length=None):
        """As :meth:`RecurrentCell.unroll`; without state dropout, input and output
        dropout run once on the whole sequence (one mask shared over the time axis)."""
        if self.drop_states:
            return super().unroll(length, inputs, begin_state, layout, merge_outputs,
                                  valid_length=valid_length)
        self.reset()
        inputs, axis, F, batch_size = _format_sequence(length, inputs, layout, True)
        states = _get_begin_state(self, begin_state, inputs, batch_size)
        if self.drop_inputs:
            inputs = F.Dropout(inputs, p=self.drop_inputs, axes=(axis,))
        outputs, states = self.base_cell.unroll(length, inputs, states, layout,
                                                merge_outputs=True, valid_length=valid_length)
        if self.drop_outputs:
            outputs = F.Dropout(outputs, p=self.drop_outputs, axes=(axis,))
        merge_outputs = _is_tensor(outputs) if merge_outputs is None else merge_outputs
        outputs, _, _, _ = _format_sequence(length, outputs, layout, merge_outputs)
        if valid_length is not None:
            outputs = _mask_sequence_variable_length(outputs, length, valid_length, axis,
                                                     merge_outputs)
        return outputs, states


class LSTMPCell(HybridRecurrentCell):
    r"""LSTM with a projected recurrent state (Sak et al. 2014)::

        i, f, o = sigmoid(.), g = tanh(W_i x + b_i + W_h r + b_h)  (gates i, f, g, o)
        c' = f * c + i * g,   h = o * tanh(c'),   r' = W_hr h

    The output is ``r'``; states ``[r, c]`` of shapes ``(N, projection_size)`` and
    ``(N, hidden_size)``.

    Parameters
    ----------
    hidden_size, projection_size : int
    i2h_weight_initializer, h2h_weight_initializer, h2r_weight_initializer : optional
    i2h_bias_initializer, h2h_bias_initializer : default 'zeros'
    input_size : int, default 0 (inferred from the first input)
    prefix : str, default 'lstmp_'
    params : ParameterDict, optional

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.gluon.contrib.rnn.LSTMPCell(8, 2, input_size=5)
    LSTMPCell(5 -> 32 -> 2)
    """

    def __init__(self, hidden_size: int, projection_size: int, i2h_weight_initializer=None,
                 h2h_weight_initializer=None, h2r_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros",
                 input_size: int = 0, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        for name, v in (("hidden_size", hidden_size), ("projection_size", projection_size)):
            if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
                raise StateError(f"LSTMPCell: {name} must be a positive int, got {v!r}")
        self._hidden_size = hidden_size
        self._input_size = input_size
        self._projection_size = projection_size
        g = 4 * hidden_size
        self.i2h_weight = self.params.get("i2h_weight", shape=(g, input_size),
                                          init=i2h_weight_initializer,
                                          allow_deferred_init=True)
        self.h2h_weight = self.params.get("h2h_weight", shape=(g, projection_size),
                                          init=h2h_weight_initializer,
                                          allow_deferred_init=True)
        self.h2r_weight = self.params.get("h2r_weight", shape=(projection_size, hidden_size),
                                          init=h2r_weight_initializer,
                                          allow_deferred_init=True)
        self.i2h_bias = self.params.get("i2h_bias", shape=(g,), init=i2h_bias_initializer,
                                        allow_deferred_init=True)
        self.h2h_bias = self.params.get("h2h_bias", shape=(g,), init=h2h_bias_initializer,
                                        allow_deferred_init=True)


    def state_info(self, batch_size: int = 0) -> List[dict]:
        return [{"shape": (batch_size, self._projection_size), "__layout__": "NC"},
                {"shape": (batch_size, self._hidden_size), "__layout__": "NC"}]

    def _alias(self) -> str:
        return "lstmp"

    def __repr__(self) -> str:
        shape = self.i2h_weight.shape or (0, 0)
        proj = (self.h2r_weight.shape or (0,))[0]
        return f"{type(self).__name__}({shape[1] if shape[1] else None} -> {shape[0]} -> {proj})"

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, h2r_weight,
                       i2h_bias, h2h_bias):
        if not isinstance(states, (list, tuple)) or len(states) != 2:
            raise StateError(f"{self.name}: states must be a list of 2 arrays [r, c], got "
                             f"{type(states).__name__}")
        H = self._hidden_size
        i2h = F.FullyConnected(inputs, i2h_weight, i2h_bias, num_hidden=4 * H)
        h2h = F.FullyConnected(states[0], h2h_weight, h2h_bias, num_hidden=4 * H)
        gi, gf, gc, go = F.split(i2h + h2h, num_outputs=4, axis=1)
        in_gate, forget_gate = F.sigmoid(gi), F.sigmoid(gf)
        in_transform, out_gate = F.tanh(gc), F.sigmoid(go)
        next_c = forget_gate * states[1] + in_gate * in_transform
        hidden = out_gate * F.Activation(next_c, act_type="tanh")
        next_r = F.FullyConnected(hidden, h2r_weight, num_hidden=self._projection_size,
                                  no_bias=True, **self._out_name())
        return next_r, [next_r, next_c]


def dynamic_unroll(cell, inputs, begin_state, drop_inputs: float = 0.0,
                   drop_outputs: float = 0.0, layout: str = "TNC", valid_length=None):
    """Run ``cell`` over the time axis of ``inputs`` with ``F.contrib.foreach`` (MXNet's
    ``gluon.contrib.rnn.rnn_cell.dynamic_unroll``): returns ``(outputs, states)``,
    outputs merged in ``layout``. With ``valid_length`` ``(N,)``, each sequence's
    states stop at its last valid step and its later outputs are zero. Dropout on inputs
    and outputs shares one mask over time.

    Examples
    --------
    >>> import mxgrad as mx
    >>> cell = mx.gluon.rnn.GRUCell(3, input_size=2); cell.initialize()
    >>> x = mx.nd.ones((4, 5, 2))                       # (T, N, C)
    >>> out, states = mx.gluon.contrib.rnn.rnn_cell.dynamic_unroll(
    ...     cell, x, cell.begin_state(batch_size=5), valid_length=mx.nd.array([1, 2, 3, 4, 4]))
    >>> out.shape, float(out[3, 0].abs().sum().asscalar())
    ((4, 5, 3), 0.0)
    """
    inputs, axis, F, _ = _format_sequence(None, inputs, layout, True)
    axes = list(range(len(layout)))
    if axis != 0:
        axes[0], axes[axis] = axes[axis], axes[0]
        inputs = F.transpose(inputs, axes=axes)
    states = begin_state
    if drop_inputs:
        inputs = F.Dropout(inputs, p=drop_inputs, axes=(axis,))
    if valid_length is None:
        def loop_body(step, st):
            return cell(step, st)
    else:
        states = list(_as_list(states)) + [F.zeros((1,))]

        def loop_body(step, st):
            cell_states, iter_no = st[:-1], st[-1]
            out, new_states = cell(step, cell_states)
            new_states = list(new_states)
            for i, old in enumerate(cell_states):
                new_states[i] = F.where(F.broadcast_greater(valid_length, iter_no),
                                        new_states[i], old)
            return out, new_states + [iter_no + 1]
    outputs, states = F.contrib.foreach(loop_body, inputs, states)
    if drop_outputs:
        outputs = F.Dropout(outputs, p=drop_outputs, axes=(axis,))
    if axis != 0:
        outputs = F.transpose(outputs, axes=axes)
    if valid_length is not None:
        outputs = F.SequenceMask(outputs, sequence_length=valid_length,
                                 use_sequence_length=True, axis=axis)
        return outputs, states[:-1]
    return outputs, states

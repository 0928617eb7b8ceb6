"""MXNet's step cells (``RNNCell``, ``LSTMCell``, ``GRUCell``) and the cells that combine
or modify others (``SequentialRNNCell``, ``BidirectionalCell``, ``DropoutCell``,
``ModifierCell``, ``ZoneoutCell``, ``ResidualCell``), built on ``mx.sym``.

Node and weight names follow MXNet 1.9.1 (``lstm_t0_out``, ``lstm_i2h_weight``...), so the
graphs' outputs and the checkpoints of MXNet's ``mx.rnn`` models keep their names.

Examples
--------
>>> import mxgrad as mx
>>> stack = mx.rnn.SequentialRNNCell()
>>> stack.add(mx.rnn.LSTMCell(4, prefix='l0_'))
>>> stack.add(mx.rnn.GRUCell(4, prefix='l1_'))
>>> outs, states = stack.unroll(3, mx.sym.var('data'))
>>> [o.name for o in outs], [s.name for s in states]
(['l1_t0_out', 'l1_t1_out', 'l1_t2_out'], ['l0_t2_out', 'l0_t2_state', 'l1_t2_out'])
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple, cast

from .. import symbol
from ..base import StateError, NotSupportedError, numeric_types
from ..initializer import LSTMBias
from .._engine.ndarray import NDArray
from ..symbol import Symbol
from ._base import (BaseRNNCell, RNNParams, Inputs, normalize_sequence, cells_state_info,
                    cells_begin_state, cells_unpack_weights, cells_pack_weights,
                    _check_unmodified)

__all__ = ["RNNCell", "LSTMCell", "GRUCell", "SequentialRNNCell", "BidirectionalCell",
           "DropoutCell", "ModifierCell", "ZoneoutCell", "ResidualCell"]


class RNNCell(BaseRNNCell):
    """Elman RNN cell: ``out = act(W_i x + b_i + W_h h + b_h)``.

    Parameters
    ----------
    num_hidden : int
        Number of units of the output.
    activation : str or callable, default 'tanh'
        ``act_type`` of ``mx.sym.Activation`` or a function of a Symbol.
    prefix : str, default 'rnn_'
    params : RNNParams, optional

    Examples
    --------
    >>> import mxgrad as mx
    >>> cell = mx.rnn.RNNCell(3, prefix='r_')
    >>> out, _ = cell(mx.sym.var('x'), cell.begin_state())
    >>> out.name, sorted(cell.params._params)
    ('r_t0_out', ['r_h2h_bias', 'r_h2h_weight', 'r_i2h_bias', 'r_i2h_weight'])
    """

    def __init__(self, num_hidden: int, activation: Any = "tanh", prefix: str = "rnn_",
                 params: Optional[RNNParams] = None) -> None:
        super().__init__(prefix=prefix, params=params)
        self._num_hidden = num_hidden
        self._activation = activation
        self._iW = self.params.get("i2h_weight")
        self._iB = self.params.get("i2h_bias")
        self._hW = self.params.get("h2h_weight")
        self._hB = self.params.get("h2h_bias")

    @property
    def state_info(self) -> List[Dict[str, Any]]:
        return [{"shape": (0, self._num_hidden), "__layout__": "NC"}]

    @property
    def _gate_names(self) -> Sequence[str]:
        return ("",)

    def __call__(self, inputs: Symbol, states: List[Symbol]) -> Tuple[Symbol, List[Symbol]]:
        name = self._step_name()
        i2h = symbol.FullyConnected(data=inputs, weight=self._iW, bias=self._iB,
                                    num_hidden=self._num_hidden, name="%si2h" % name)
        h2h = symbol.FullyConnected(data=states[0], weight=self._hW, bias=self._hB,
                                    num_hidden=self._num_hidden, name="%sh2h" % name)
        output = self._get_activation(i2h + h2h, self._activation, name="%sout" % name)
        return output, [output]


class LSTMCell(BaseRNNCell):
    """LSTM cell (gates in the order input, forget, cell, output, as MXNet's).

    Parameters
    ----------
    num_hidden : int
        Number of units of the output.
    prefix : str, default 'lstm_'
    params : RNNParams, optional
    forget_bias : float, default 1.0
        Initial value of the forget gate's part of ``i2h_bias`` (its ``LSTMBias``
        initializer).

    Examples
    --------
    >>> import mxgrad as mx
    >>> cell = mx.rnn.LSTMCell(2, prefix='l_')
    >>> out, states = cell(mx.sym.var('x'), cell.begin_state())
    >>> out.name, [s.name for s in states], cell.params.get('i2h_bias').attr('__init__')
    ('l_t0_out', ['l_t0_out', 'l_t0_state'], '["lstmbias", {"forget_bias": 1.0}]')
    """

    def __init__(self, num_hidden: int, prefix: str = "lstm_",
                 params: Optional[RNNParams] = None, forget_bias: float = 1.0) -> None:
        super().__init__(prefix=prefix, params=params)
        self._num_hidden = num_hidden
        self._iW = self.params.get("i2h_weight")
        self._hW = self.params.get("h2h_weight")
        self._iB = self.params.get("i2h_bias", init=LSTMBias(forget_bias=forget_bias))
        self._hB = self.params.get("h2h_bias")

    @property
    def state_info(self) -> List[Dict[str, Any]]:
        return [{"shape": (0, self._num_hidden), "__layout__": "NC"},
                {"shape": (0, self._num_hidden), "__layout__": "NC"}]

    @property
    def _gate_names(self) -> Sequence[str]:
        return ["_i", "_f", "_c", "_o"]

    def __call__(self, inputs: Symbol, states: List[Symbol]) -> Tuple[Symbol, List[Symbol]]:
        name = self._step_name()
        i2h = symbol.FullyConnected(data=inputs, weight=self._iW, bias=self._iB,
                                    num_hidden=self._num_hidden * 4, name="%si2h" % name)
        h2h = symbol.FullyConnected(data=states[0], weight=self._hW, bias=self._hB,
                                    num_hidden=self._num_hidden * 4, name="%sh2h" % name)
        gates = symbol.SliceChannel(i2h + h2h, num_outputs=4, name="%sslice" % name)
        in_gate = symbol.Activation(gates[0], act_type="sigmoid", name="%si" % name)
        forget_gate = symbol.Activation(gates[1], act_type="sigmoid", name="%sf" % name)
        in_transform = symbol.Activation(gates[2], act_type="tanh", name="%sc" % name)
        out_gate = symbol.Activation(gates[3], act_type="sigmoid", name="%so" % name)
        next_c = symbol.elemwise_add(forget_gate * states[1], in_gate * in_transform,
                                     name="%sstate" % name)
        next_h = symbol.elemwise_mul(out_gate, symbol.Activation(next_c, act_type="tanh"),
                                     name="%sout" % name)
        return next_h, [next_h, next_c]


class GRUCell(BaseRNNCell):
    """GRU cell in cuDNN's form (the reset gate multiplies ``W_h h + b_h``), as MXNet's.

    Parameters
    ----------
    num_hidden : int
        Number of units of the output.
    prefix : str, default 'gru_'
    params : RNNParams, optional

    Examples
    --------
    >>> import mxgrad as mx
    >>> cell = mx.rnn.GRUCell(2, prefix='g_')
    >>> out, _ = cell(mx.sym.var('x'), cell.begin_state())
    >>> out.name, [n for n in out.list_arguments() if n != 'x']
    ('g_t0_out', ['g_i2h_weight', 'g_i2h_bias', 'g_h2h_weight', 'g_h2h_bias'])
    """

    def __init__(self, num_hidden: int, prefix: str = "gru_",
                 params: Optional[RNNParams] = None) -> None:
        super().__init__(prefix=prefix, params=params)
        self._num_hidden = num_hidden
        self._iW = self.params.get("i2h_weight")
        self._iB = self.params.get("i2h_bias")
        self._hW = self.params.get("h2h_weight")
        self._hB = self.params.get("h2h_bias")

    @property
    def state_info(self) -> List[Dict[str, Any]]:
        return [{"shape": (0, self._num_hidden), "__layout__": "NC"}]

    @property
    def _gate_names(self) -> Sequence[str]:
        return ["_r", "_z", "_o"]

    def __call__(self, inputs: Symbol, states: List[Symbol]) -> Tuple[Symbol, List[Symbol]]:
        name = self._step_name()
        prev_h = states[0]
        i2h = symbol.FullyConnected(data=inputs, weight=self._iW, bias=self._iB,
                                    num_hidden=self._num_hidden * 3, name="%s_i2h" % name)
        h2h = symbol.FullyConnected(data=prev_h, weight=self._hW, bias=self._hB,
                                    num_hidden=self._num_hidden * 3, name="%s_h2h" % name)
        next_h = gru_state(self, i2h, h2h, prev_h, name, "tanh")
        return next_h, [next_h]


def gru_state(cell: BaseRNNCell, i2h: Symbol, h2h: Symbol, prev_h: Symbol, name: str,
              activation: Any) -> Symbol:
    """A GRU step's new state from its input and state projections (3 gates each, in
    MXNet's order r, z, candidate), named as MXNet's GRU cells name their nodes."""
    i2h_r, i2h_z, i2h = symbol.SliceChannel(i2h, num_outputs=3, name="%s_i2h_slice" % name)
    h2h_r, h2h_z, h2h = symbol.SliceChannel(h2h, num_outputs=3, name="%s_h2h_slice" % name)
    reset_gate = symbol.Activation(i2h_r + h2h_r, act_type="sigmoid", name="%s_r_act" % name)
    update_gate = symbol.Activation(i2h_z + h2h_z, act_type="sigmoid",
                                    name="%s_z_act" % name)
    next_h_tmp = cell._get_activation(i2h + reset_gate * h2h, activation,
                                      name="%s_h_act" % name)
    return symbol.elemwise_add((1. - update_gate) * next_h_tmp, update_gate * prev_h,
                               name="%sout" % name)


class SequentialRNNCell(BaseRNNCell):
    """A stack of cells: each one's output is the next one's input.

    Parameters
    ----------
    params : RNNParams, optional
        Weights for all the cells (then the cells must not have been given their own).

    Examples
    --------
    >>> import mxgrad as mx
    >>> stack = mx.rnn.SequentialRNNCell()
    >>> stack.add(mx.rnn.RNNCell(3, prefix='a_')); stack.add(mx.rnn.RNNCell(3, prefix='b_'))
    >>> out, states = stack(mx.sym.var('x'), stack.begin_state())
    >>> out.name, [s.name for s in stack.begin_state()]
    ('b_t0_out', ['a_begin_state_1', 'b_begin_state_1'])
    """

    def __init__(self, params: Optional[RNNParams] = None) -> None:
        super().__init__(prefix="", params=params)
        self._override_cell_params = params is not None
        self._cells = []

    def add(self, cell: BaseRNNCell) -> None:
        """Append ``cell`` to the stack."""
        self._cells.append(cell)
        if self._override_cell_params:
            if not cell._own_params:
                raise StateError("SequentialRNNCell: give params either to the "
                                 "SequentialRNNCell or to its cells, not both")
            cell.params._params.update(self.params._params)
        self.params._params.update(cell.params._params)

    @property
    def state_info(self) -> List[Dict[str, Any]]:
        return cells_state_info(self._cells)

    def begin_state(self, **kwargs: Any) -> List[Symbol]:  # type: ignore[override]
        _check_unmodified(self)
        return cells_begin_state(self._cells, **kwargs)

    def unpack_weights(self, args: Dict[str, NDArray]) -> Dict[str, NDArray]:
        return cells_unpack_weights(self._cells, args)

    def pack_weights(self, args: Dict[str, NDArray]) -> Dict[str, NDArray]:
        return cells_pack_weights(self._cells, args)

    def __call__(self, inputs: Symbol, states: List[Symbol]) -> Tuple[Symbol, List[Symbol]]:
        self._counter += 1
        next_states: List[Symbol] = []
        p = 0
        for cell in self._cells:
            if isinstance(cell, BidirectionalCell):
                raise NotSupportedError("SequentialRNNCell holding a BidirectionalCell "
                                        "cannot be stepped; use unroll")
            n = len(cell.state_info)
            inputs, state = cell(inputs, states[p:p + n])
            p += n
            next_states.extend(state)
        return inputs, next_states

    def unroll(self, length: int, inputs: Inputs, begin_state: Optional[List[Symbol]] = None,
               layout: str = "NTC", merge_outputs: Optional[bool] = None
               ) -> Tuple[Inputs, List[Any]]:
        self.reset()
        num_cells = len(self._cells)
        if begin_state is None:
            begin_state = self.begin_state()
        p = 0
        next_states: List[Symbol] = []
        for i, cell in enumerate(self._cells):
            n = len(cell.state_info)
            inputs, states = cell.unroll(
                length, inputs=inputs, begin_state=begin_state[p:p + n], layout=layout,
                merge_outputs=None if i < num_cells - 1 else merge_outputs)
            p += n
            next_states.extend(states)
        return inputs, next_states


class DropoutCell(BaseRNNCell):
    """Dropout on the input (a cell without states, for stacks).

    Parameters
    ----------
    dropout : float
        Fraction of the elements to drop.
    prefix : str, default 'dropout_'
    params : RNNParams, optional

    Examples
    --------
    >>> import mxgrad as mx
    >>> out, states = mx.rnn.DropoutCell(0.5).unroll(2, mx.sym.var('x'), merge_outputs=True)
    >>> out.infer_shape(x=(4, 2, 3))[1], states
    ([(4, 2, 3)], [])
    """

    def __init__(self, dropout: float, prefix: str = "dropout_",
                 params: Optional[RNNParams] = None) -> None:
        super().__init__(prefix, params)
        if not isinstance(dropout, numeric_types):
            raise StateError(f"DropoutCell: the dropout probability must be a number, got "
                             f"{type(dropout).__name__}")
        self.dropout = dropout

    @property
    def state_info(self) -> List[Dict[str, Any]]:
        return []

    def __call__(self, inputs: Symbol, states: List[Symbol]) -> Tuple[Symbol, List[Symbol]]:
        if self.dropout > 0:
            inputs = symbol.Dropout(data=inputs, p=self.dropout)
        return inputs, states

    def unroll(self, length: int, inputs: Inputs, begin_state: Optional[List[Symbol]] = None,
               layout: str = "NTC", merge_outputs: Optional[bool] = None
               ) -> Tuple[Inputs, List[Any]]:
        self.reset()
        inputs, _ = normalize_sequence(length, inputs, layout, merge_outputs)
        if isinstance(inputs, Symbol):
            return self(inputs, [])
        return super().unroll(length, inputs, begin_state=begin_state, layout=layout,
                              merge_outputs=merge_outputs)


class ModifierCell(BaseRNNCell):
    """Base of the cells that wrap one cell and change it (``ZoneoutCell``,
    ``ResidualCell``); the wrapped cell must then be used only through the wrapper.

    Parameters
    ----------
    base_cell : BaseRNNCell
    """

    def __init__(self, base_cell: BaseRNNCell) -> None:
        super().__init__()
        base_cell._modified = True
        self.base_cell = base_cell

    @property
    def params(self) -> RNNParams:
        self._own_params = False
        return self.base_cell.params

    @property
    def state_info(self) -> List[Dict[str, Any]]:
        return self.base_cell.state_info

    def begin_state(self, init_sym=symbol.zeros, **kwargs):  # pylint: disable=arguments-differ
        _check_unmodified(self)
        self.base_cell._modified = False
        try:
            return self.base_cell.begin_state(init_sym, **kwargs)
        finally:
            self.base_cell._modified = True

    def unpack_weights(self, args: Dict[str, NDArray]) -> Dict[str, NDArray]:
        return self.base_cell.unpack_weights(args)

    def pack_weights(self, args: Dict[str, NDArray]) -> Dict[str, NDArray]:
        return self.base_cell.pack_weights(args)

    def __call__(self, inputs: Symbol, states: List[Symbol]) -> Tuple[Symbol, List[Symbol]]:
        raise NotSupportedError(f"{type(self).__name__} must define __call__")


class ZoneoutCell(ModifierCell):
    """Zoneout on a cell's outputs and states: in training, each element keeps its previous
    value with probability ``zoneout_outputs`` / ``zoneout_states``.

    Parameters
    ----------
    base_cell : BaseRNNCell
        A steppable cell (not fused, not bidirectional).
    zoneout_outputs : float, default 0
    zoneout_states : float, default 0

    Examples
    --------
    >>> import mxgrad as mx
    >>> cell = mx.rnn.ZoneoutCell(mx.rnn.RNNCell(3, prefix='r_'), zoneout_states=0.5)
    >>> outs, states = cell.unroll(2, [mx.sym.var('x0'), mx.sym.var('x1')])
    >>> len(outs), len(states), cell.state_info == cell.base_cell.state_info
    (2, 1, True)
    """

    def __init__(self, base_cell: BaseRNNCell, zoneout_outputs: float = 0.,
                 zoneout_states: float = 0.) -> None:
        if getattr(base_cell, "_fused", False):
            raise StateError("FusedRNNCell does not support zoneout; unfuse() it first")
        if isinstance(base_cell, BidirectionalCell):
            raise StateError("BidirectionalCell does not support zoneout (it cannot be "
                             "stepped); wrap the cells inside it in ZoneoutCell instead")
        if isinstance(base_cell, SequentialRNNCell) and any(
                isinstance(c, BidirectionalCell) for c in base_cell._cells):
            raise StateError("a SequentialRNNCell holding a BidirectionalCell does not "
                             "support zoneout; wrap the cells inside it in ZoneoutCell")
        super().__init__(base_cell)
        self.zoneout_outputs = zoneout_outputs
        self.zoneout_states = zoneout_states
        self.prev_output: Optional[Symbol] = None

    def reset(self) -> None:
        super().reset()
        self.prev_output = None

    def __call__(self, inputs: Symbol, states: List[Symbol]) -> Tuple[Symbol, List[Symbol]]:
        p_outputs, p_states = self.zoneout_outputs, self.zoneout_states
        next_output, next_states = self.base_cell(inputs, states)

        def mask(p, like):
            return symbol.Dropout(symbol.ones_like(like), p=p)

        prev_output = (self.prev_output if self.prev_output is not None
                       else symbol.zeros((0, 0)))
        output = (symbol.where(mask(p_outputs, next_output), next_output, prev_output)
                  if p_outputs != 0. else next_output)
        states = ([symbol.where(mask(p_states, new), new, old)
                   for new, old in zip(next_states, states)]
                  if p_states != 0. else next_states)
        self.prev_output = output
        return output, states


class ResidualCell(ModifierCell):
    """A cell whose output is the base cell's output plus its input (Wu et al., 2016).

    Parameters
    ----------
    base_cell : BaseRNNCell

    Examples
    --------
    >>> import mxgrad as mx
    >>> cell = mx.rnn.ResidualCell(mx.rnn.GRUCell(3, prefix='g_'))
    >>> outs, _ = cell.unroll(2, [mx.sym.var('x0'), mx.sym.var('x1')])
    >>> [o.name for o in outs]
    ['g_t0_out_plus_residual', 'g_t1_out_plus_residual']
    """

    def __call__(self, inputs: Symbol, states: List[Symbol]) -> Tuple[Symbol, List[Symbol]]:
        output, states = self.base_cell(inputs, states)
        output = symbol.elemwise_add(output, inputs, name="%s_plus_residual" % output.name)
        return output, states

    def unroll(self, length: int, inputs: Inputs, begin_state: Optional[List[Symbol]] = None,
               layout: str = "NTC", merge_outputs: Optional[bool] = None
               ) -> Tuple[Inputs, List[Any]]:
        self.reset()
        self.base_cell._modified = False
        try:
            outputs, states = self.base_cell.unroll(length, inputs=inputs,
                                                    begin_state=begin_state, layout=layout,
                                                    merge_outputs=merge_outputs)
        finally:
            self.base_cell._modified = True
        if merge_outputs is None:
            merge_outputs = isinstance(outputs, Symbol)
        inputs, _ = normalize_sequence(length, inputs, layout, merge_outputs)
        if merge_outputs:
            merged = cast(Symbol, outputs)
            outputs = symbol.elemwise_add(merged, inputs,
                                          name="%s_plus_residual" % merged.name)
        else:
            outputs = [symbol.elemwise_add(o, i, name="%s_plus_residual" % o.name)
                       for o, i in zip(outputs, inputs)]
        return outputs, states


class BidirectionalCell(BaseRNNCell):
    """Two cells over the sequence, one forward and one backward, outputs concatenated.

    Parameters
    ----------
    l_cell : BaseRNNCell
        The cell run forward in time.
    r_cell : BaseRNNCell
        The cell run backward in time.
    params : RNNParams, optional
    output_prefix : str, default 'bi_'
        Prefix of the output nodes (``bi_t0``... or ``bi_out`` when merged).

    Examples
    --------
    >>> import mxgrad as mx
    >>> cell = mx.rnn.BidirectionalCell(mx.rnn.GRUCell(2, prefix='l_'),
    ...                                 mx.rnn.GRUCell(2, prefix='r_'))
    >>> outs, states = cell.unroll(3, mx.sym.var('x'), merge_outputs=True)
    >>> outs.name, [len(s) for s in states]
    ('bi_out', [1, 1])
    """

    def __init__(self, l_cell: BaseRNNCell, r_cell: BaseRNNCell,
                 params: Optional[RNNParams] = None, output_prefix: str = "bi_") -> None:
        super().__init__("", params=params)
        self._output_prefix = output_prefix
        self._override_cell_params = params is not None
        if self._override_cell_params:
            if not (l_cell._own_params and r_cell._own_params):
                raise StateError("BidirectionalCell: give params either to the "
                                 "BidirectionalCell or to its cells, not both")
            l_cell.params._params.update(self.params._params)
            r_cell.params._params.update(self.params._params)
        self.params._params.update(l_cell.params._params)
        self.params._params.update(r_cell.params._params)
        self._cells = [l_cell, r_cell]

    def unpack_weights(self, args: Dict[str, NDArray]) -> Dict[str, NDArray]:
        return cells_unpack_weights(self._cells, args)

    def pack_weights(self, args: Dict[str, NDArray]) -> Dict[str, NDArray]:
        return cells_pack_weights(self._cells, args)

    def __call__(self, inputs: Symbol, states: List[Symbol]) -> Tuple[Symbol, List[Symbol]]:
        raise NotSupportedError("BidirectionalCell cannot be stepped; use unroll")

    @property
    def state_info(self) -> List[Dict[str, Any]]:
        return cells_state_info(self._cells)

    def begin_state(self, **kwargs: Any) -> List[Symbol]:  # type: ignore[override]
        _check_unmodified(self)
        return cells_begin_state(self._cells, **kwargs)

    def unroll(self, length: int, inputs: Inputs, begin_state: Optional[List[Symbol]] = None,
               layout: str = "NTC", merge_outputs: Optional[bool] = None
               ) -> Tuple[Inputs, List[Any]]:
        self.reset()
        inputs, axis = normalize_sequence(length, inputs, layout, False)
        if begin_state is None:
            begin_state = self.begin_state()
        l_cell, r_cell = self._cells
        n_l = len(l_cell.state_info)
        l_outputs, l_states = l_cell.unroll(length, inputs=inputs,
                                            begin_state=begin_state[:n_l], layout=layout,
                                            merge_outputs=merge_outputs)
        r_outputs, r_states = r_cell.unroll(length, inputs=list(reversed(inputs)),
                                            begin_state=begin_state[n_l:], layout=layout,
                                            merge_outputs=merge_outputs)
        if merge_outputs is None:
            merge_outputs = isinstance(l_outputs, Symbol) and isinstance(r_outputs, Symbol)
            if not merge_outputs:
                l_outputs = _as_steps(l_outputs, axis, length)
                r_outputs = _as_steps(r_outputs, axis, length)
        if merge_outputs:
            l_list, r_list = [l_outputs], [symbol.reverse(r_outputs, axis=axis)]
        else:
            l_list, r_list = list(l_outputs), list(reversed(r_outputs))
        outputs = [symbol.Concat(l_o, r_o, dim=1 + merge_outputs,
                                 name=("%sout" % self._output_prefix if merge_outputs
                                       else "%st%d" % (self._output_prefix, i)))
                   for i, (l_o, r_o) in enumerate(zip(l_list, r_list))]
        # MXNet returns the two cells' states as two lists
        states: Any = [l_states, r_states]
        return (outputs[0] if merge_outputs else outputs), states


def _as_steps(outputs, axis: int, length: int):
    if isinstance(outputs, Symbol):
        return list(symbol.SliceChannel(outputs, axis=axis, num_outputs=length,
                                        squeeze_axis=1))
    return outputs

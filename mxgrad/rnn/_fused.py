"""MXNet's ``FusedRNNCell`` (all layers and steps in one ``mx.sym.RNN`` node, one flat
``parameters`` vector in cuDNN's layout) and its ``FusedRNN`` initializer.

The flat vector holds, for each layer and direction, the ``i2h`` weights of every gate,
then the ``h2h`` weights; after all the weights come the biases in the same order.
``unpack_weights`` cuts it into MXNet's per-gate names (``lstm_l0_i2h_i_weight``...);
``unfuse()`` gives the equivalent stack of step cells, whose packed weights have the same
values.

Examples
--------
>>> import mxgrad as mx
>>> cell = mx.rnn.FusedRNNCell(4, num_layers=2, mode='gru', prefix='g_')
>>> out, _ = cell.unroll(3, mx.sym.var('data'), layout='TNC', merge_outputs=True)
>>> out.name, out.list_arguments()
('g_rnn', ['data', 'g_parameters'])
>>> sorted(cell.unpack_weights({'g_parameters': mx.nd.zeros((540,))}))[:3]
['g_l0_h2h_o_bias', 'g_l0_h2h_o_weight', 'g_l0_h2h_r_bias']
"""
from __future__ import annotations

import warnings
from typing import Any, Dict, List, Optional, Sequence, Tuple

from .. import symbol
from .. import ndarray
from .. import initializer
from ..base import StateError, NotSupportedError, string_types
from ..initializer import Initializer, InitDesc
from .._engine.ndarray import NDArray
from ..symbol import Symbol
from ._base import BaseRNNCell, RNNParams, Inputs, normalize_sequence
from ._cells import (RNNCell, LSTMCell, GRUCell, SequentialRNNCell, BidirectionalCell,
                     DropoutCell)

__all__ = ["FusedRNNCell", "FusedRNN"]

_GATES = {"rnn_relu": [""], "rnn_tanh": [""], "lstm": ["_i", "_f", "_c", "_o"],
          "gru": ["_r", "_z", "_o"]}


class FusedRNNCell(BaseRNNCell):
    """Several RNN layers over all time steps as one ``RNN`` operator.

    Parameters
    ----------
    num_hidden : int
        Number of units of each layer (and direction).
    num_layers : int, default 1
    mode : str, default 'lstm'
        'rnn_relu', 'rnn_tanh', 'lstm' or 'gru'.
    bidirectional : bool, default False
        Run each layer both ways; the output has ``2 * num_hidden`` features.
    dropout : float, default 0
        Dropout between layers (in training).
    get_next_state : bool, default False
        Also return the final states.
    forget_bias : float, default 1.0
        Initial forget-gate bias of LSTMs (through the ``FusedRNN`` initializer).
    prefix : str, optional
        ``mode + '_'`` by default.
    params : RNNParams, optional

    Examples
    --------
    >>> import mxgrad as mx
    >>> cell = mx.rnn.FusedRNNCell(3, mode='lstm', prefix='f_')
    >>> cell.state_info
    [{'shape': (1, 0, 3), '__layout__': 'LNC'}, {'shape': (1, 0, 3), '__layout__': 'LNC'}]
    """

    _fused = True

    def __init__(self, num_hidden: int, num_layers: int = 1, mode: str = "lstm",
                 bidirectional: bool = False, dropout: float = 0.,
                 get_next_state: bool = False, forget_bias: float = 1.0,
                 prefix: Optional[str] = None, params: Optional[RNNParams] = None) -> None:
        if mode not in _GATES:
            raise StateError(f"FusedRNNCell: mode must be one of {sorted(_GATES)}, got "
                             f"{mode!r}")
        if prefix is None:
            prefix = "%s_" % mode
        super().__init__(prefix=prefix, params=params)
        self._num_hidden = num_hidden
        self._num_layers = num_layers
        self._mode = mode
        self._bidirectional = bidirectional
        self._dropout = dropout
        self._get_next_state = get_next_state
        self._directions = ["l", "r"] if bidirectional else ["l"]
        init = FusedRNN(None, num_hidden, num_layers, mode, bidirectional, forget_bias)
        self._parameter = self.params.get("parameters", init=init)

    @property
    def state_info(self) -> List[Dict[str, Any]]:
        b = self._bidirectional + 1
        n = (self._mode == "lstm") + 1
        return [{"shape": (b * self._num_layers, 0, self._num_hidden), "__layout__": "LNC"}
                for _ in range(n)]

    @property
    def _gate_names(self) -> Sequence[str]:
        return _GATES[self._mode]

    @property
    def _num_gates(self) -> int:
        return len(self._gate_names)

    def _slice_weights(self, arr: NDArray, li: int, lh: int) -> Dict[str, NDArray]:
        """Views into the flat vector ``arr``, one per weight and bias, by MXNet's names."""
        args: Dict[str, NDArray] = {}
        gates, directions = self._gate_names, self._directions
        b = len(directions)
        p = 0
        for layer in range(self._num_layers):
            cols = li if layer == 0 else b * lh
            for direction in directions:
                for group, n_in in (("i2h", cols), ("h2h", lh)):
                    for gate in gates:
                        name = "%s%s%d_%s%s_weight" % (self._prefix, direction, layer, group,
                                                       gate)
                        args[name] = arr[p:p + lh * n_in].reshape((lh, n_in))
                        p += lh * n_in
        for layer in range(self._num_layers):
            for direction in directions:
                for group in ("i2h", "h2h"):
                    for gate in gates:
                        name = "%s%s%d_%s%s_bias" % (self._prefix, direction, layer, group,
                                                     gate)
                        args[name] = arr[p:p + lh]
                        p += lh
        if p != arr.size:
            raise StateError(f"FusedRNNCell {self._prefix!r}: the parameter vector has "
                             f"{arr.size} elements but {self._mode} with {self._num_layers} "
                             f"layer(s), {self._num_hidden} hidden units and {li} inputs "
                             f"needs {p}")
        return args

    def _input_size(self, size: int) -> int:
        b, m, h = len(self._directions), self._num_gates, self._num_hidden
        return size // b // h // m - (self._num_layers - 1) * (h + b * h + 2) - h - 2

    def unpack_weights(self, args: Dict[str, NDArray]) -> Dict[str, NDArray]:
        args = dict(args)
        name = self._parameter.name
        if name not in args:
            raise StateError(f"the parameter dict has no {name!r} (the FusedRNNCell's "
                             f"packed weights)")
        arr = args.pop(name)
        nargs = self._slice_weights(arr, self._input_size(arr.size), self._num_hidden)
        args.update({k: v.copy() for k, v in nargs.items()})
        return args

    def pack_weights(self, args: Dict[str, NDArray]) -> Dict[str, NDArray]:
        args = dict(args)
        b, m, h = self._bidirectional + 1, self._num_gates, self._num_hidden
        first = "%sl0_i2h%s_weight" % (self._prefix, self._gate_names[0])
        if first not in args:
            raise StateError(f"the parameter dict has no {first!r} (needed to pack the "
                             f"FusedRNNCell's weights)")
        w0 = args[first]
        num_input = w0.shape[1]
        total = ((num_input + h + 2) * h * m * b
                 + (self._num_layers - 1) * m * h * (h + b * h + 2) * b)
        arr = ndarray.zeros((total,), ctx=w0.context, dtype=w0.dtype)
        for name, view in self._slice_weights(arr, num_input, h).items():
            if name not in args:
                raise StateError(f"the parameter dict has no {name!r} (needed to pack the "
                                 f"FusedRNNCell's weights)")
            view[:] = args.pop(name)
        args[str(self._parameter.name)] = arr
        return args

    def __call__(self, inputs: Symbol, states: List[Symbol]) -> Tuple[Symbol, List[Symbol]]:
        raise NotSupportedError("FusedRNNCell cannot be stepped; use unroll (or unfuse())")

    def unroll(self, length: int, inputs: Inputs, begin_state: Optional[List[Symbol]] = None,
               layout: str = "NTC", merge_outputs: Optional[bool] = None
               ) -> Tuple[Inputs, List[Any]]:
        self.reset()
        inputs, axis = normalize_sequence(length, inputs, layout, True)
        if axis == 1:
            warnings.warn("NTC layout detected. Consider using TNC for FusedRNNCell for "
                          "faster speed", stacklevel=2)
            inputs = symbol.swapaxes(inputs, dim1=0, dim2=1)
        elif axis != 0:
            raise StateError(f"FusedRNNCell: unsupported layout {layout!r} (use 'TNC' or "
                             f"'NTC')")
        if begin_state is None:
            begin_state = self.begin_state()
        states: Dict[str, Any] = {"state": begin_state[0]}
        if self._mode == "lstm":
            states["state_cell"] = begin_state[1]
        rnn = symbol.RNN(data=inputs, parameters=self._parameter,
                         state_size=self._num_hidden, num_layers=self._num_layers,
                         bidirectional=self._bidirectional, p=self._dropout,
                         state_outputs=self._get_next_state, mode=self._mode,
                         name=self._prefix + "rnn", **states)
        out_states: List[Any]
        if not self._get_next_state:
            outputs, out_states = rnn, []
        else:
            n = 3 if self._mode == "lstm" else 2
            # MXNet sets __layout__ on the state outputs, i.e. on the RNN node they share
            # (Symbol._set_attr); mx.sym has no public setter for it
            rnn._outputs[0][0].attrs["__layout__"] = "LNC"
            outputs, out_states = rnn[0], [rnn[i] for i in range(1, n)]
        if axis == 1:
            outputs = symbol.swapaxes(outputs, dim1=0, dim2=1)
        outputs, _ = normalize_sequence(length, outputs, layout, merge_outputs)
        return outputs, out_states

    def unfuse(self) -> SequentialRNNCell:
        """The same network as a :class:`SequentialRNNCell` of step cells (named
        ``prefix + 'l0_'``..., bidirectional layers ``prefix + 'bi_l0_'``), which can be
        stepped and whose ``pack_weights`` gives this cell's parameter vector.

        Examples
        --------
        >>> import mxgrad as mx
        >>> stack = mx.rnn.FusedRNNCell(2, num_layers=2, prefix='f_').unfuse()
        >>> [type(c).__name__ for c in stack._cells], stack._cells[1]._prefix
        (['LSTMCell', 'LSTMCell'], 'f_l1_')
        """
        def get_cell(prefix: str) -> BaseRNNCell:
            h = self._num_hidden
            if self._mode == "rnn_relu":
                return RNNCell(h, activation="relu", prefix=prefix)
            if self._mode == "rnn_tanh":
                return RNNCell(h, activation="tanh", prefix=prefix)
            if self._mode == "lstm":
                return LSTMCell(h, prefix=prefix)
            return GRUCell(h, prefix=prefix)

        stack = SequentialRNNCell()
        for i in range(self._num_layers):
            if self._bidirectional:
                stack.add(BidirectionalCell(get_cell("%sl%d_" % (self._prefix, i)),
                                            get_cell("%sr%d_" % (self._prefix, i)),
                                            output_prefix="%sbi_l%d_" % (self._prefix, i)))
            else:
                stack.add(get_cell("%sl%d_" % (self._prefix, i)))
            if self._dropout > 0 and i != self._num_layers - 1:
                stack.add(DropoutCell(self._dropout,
                                      prefix="%s_dropout%d_" % (self._prefix, i)))
        return stack


@initializer.register
class FusedRNN(Initializer):
    """Initializer of a :class:`FusedRNNCell`'s flat parameter vector: each unpacked weight
    and bias is initialized by ``init`` (the global initializer if None), LSTM forget-gate
    biases of ``i2h`` and ``h2h`` are set to ``forget_bias``.

    Parameters
    ----------
    init : Initializer, str or None
    num_hidden, num_layers, mode, bidirectional, forget_bias
        As given to the :class:`FusedRNNCell`.

    Examples
    --------
    >>> import mxgrad as mx
    >>> init = mx.init.FusedRNN(mx.init.One(), 2, 1, 'lstm', forget_bias=3.0)
    >>> arr = mx.nd.zeros((2 * 4 * (1 + 2 + 2),))   # 1 input, 2 hidden units, 4 gates
    >>> init(mx.init.InitDesc('f_parameters', {'__init__': init.dumps()}), arr)
    >>> arr[:4].asnumpy().tolist()          # weights: One
    [1.0, 1.0, 1.0, 1.0]
    >>> arr[-16:].asnumpy().tolist()        # biases: zero, forget gates: forget_bias
    [0.0, 0.0, 3.0, 3.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 3.0, 3.0, 0.0, 0.0, 0.0, 0.0]
    """

    def __init__(self, init: Any, num_hidden: int, num_layers: int, mode: str,
                 bidirectional: bool = False, forget_bias: float = 1.0) -> None:
        if isinstance(init, string_types):
            init = initializer.create(init)
        super().__init__(init=init.dumps() if init is not None else None,
                         num_hidden=num_hidden, num_layers=num_layers, mode=mode,
                         bidirectional=bidirectional, forget_bias=forget_bias)
        self._init = init
        self._num_hidden = num_hidden
        self._num_layers = num_layers
        self._mode = mode
        self._bidirectional = bidirectional
        self._forget_bias = forget_bias

    def _init_weight(self, desc, arr):
        cell = FusedRNNCell(self._num_hidden, self._num_layers, self._mode,
                            self._bidirectional, forget_bias=self._forget_bias, prefix="")
        args = cell.unpack_weights({"parameters": arr})
        global_init = getattr(desc, "global_init", None)
        for name in args:
            if self._mode == "lstm" and name.endswith("_f_bias"):
                args[name][:] = self._forget_bias
            elif self._init is not None:
                self._init(InitDesc(name, global_init=global_init), args[name])
            elif global_init is not None:
                global_init(InitDesc(name, global_init=global_init), args[name])
            else:
                raise StateError(f"FusedRNN initializer of {desc!r}: no init was given and "
                                 f"there is no global initializer to fall back to; pass "
                                 f"init=, e.g. mx.init.FusedRNN(mx.init.Xavier(), ...)")
        arr[:] = cell.pack_weights(args)["parameters"]

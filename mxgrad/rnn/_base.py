"""The base of MXNet's symbolic RNN cells: :class:`RNNParams` and :class:`BaseRNNCell`.

A cell builds Symbols for one step (``cell(inputs, states)``) or for a whole sequence
(``cell.unroll(length, inputs)``); its weights are ``mx.sym`` variables held in an
:class:`RNNParams` container, named ``prefix + 'i2h_weight'`` and so on exactly as in
MXNet 1.9.1, so parameters saved by MXNet's ``mx.rnn`` models load here.

Examples
--------
>>> import mxgrad as mx
>>> params = mx.rnn.RNNParams('lstm_')
>>> w = params.get('i2h_weight')
>>> w.name, params.get('i2h_weight') is w
('lstm_i2h_weight', True)
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

from .. import symbol
from .. import ndarray
from ..base import StateError, NotSupportedError, string_types
from .._engine.ndarray import NDArray
from ..symbol import Symbol

__all__ = ["RNNParams", "BaseRNNCell"]

Inputs = Union[Symbol, List[Symbol]]


def _check_unmodified(cell: "BaseRNNCell") -> None:
    if cell._modified:
        raise StateError(f"{type(cell).__name__} (prefix {cell._prefix!r}): after applying "
                         f"a modifier cell (e.g. ZoneoutCell, ResidualCell) the base cell "
                         f"cannot be called directly; call the modifier cell instead")


def normalize_sequence(length: Optional[int], inputs, layout: str, merge: Optional[bool],
                       in_layout: Optional[str] = None) -> Tuple[Inputs, int]:
    """``inputs`` as a list of per-step Symbols (``merge=False``), one Symbol with a time
    axis (``merge=True``) or as given (``merge=None``), and the time axis of ``layout``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> steps, axis = normalize_sequence(3, mx.sym.var('x'), 'NTC', False)
    >>> len(steps), axis
    (3, 1)
    """
    if inputs is None:
        raise StateError("unroll(inputs=None) is not supported (deprecated in MXNet): "
                         "create the input variables first, e.g. mx.sym.var('data')")
    if not isinstance(layout, str) or "T" not in layout:
        raise StateError(f"unroll: layout must be a string with a 'T' (time) axis such as "
                         f"'NTC' or 'TNC', got {layout!r}")
    axis = layout.find("T")
    in_axis = in_layout.find("T") if in_layout is not None else axis
    if isinstance(inputs, Symbol):
        if merge is False:
            if len(inputs.list_outputs()) != 1:
                raise StateError("unroll: a grouped Symbol cannot be the input; pass a list "
                                 "of Symbols (list(inputs)) or one Symbol with a time axis")
            inputs = list(symbol.split(inputs, axis=in_axis, num_outputs=length,
                                       squeeze_axis=1))
    else:
        inputs = list(inputs)
        if length is not None and len(inputs) != length:
            raise StateError(f"unroll: length is {length} but {len(inputs)} input Symbols "
                             f"were given")
        if merge is True:
            inputs = symbol.Concat(*[symbol.expand_dims(i, axis=axis) for i in inputs],
                                   dim=axis)
            in_axis = axis
    if isinstance(inputs, Symbol) and axis != in_axis:
        inputs = symbol.swapaxes(inputs, dim1=axis, dim2=in_axis)
    return inputs, axis


class RNNParams:
    """Container of the weight variables of one or more cells (sharing weights between
    cells that are given the same container).

    Parameters
    ----------
    prefix : str
        Prepended to the name of every variable this container creates.

    Examples
    --------
    >>> import mxgrad as mx
    >>> shared = mx.rnn.RNNParams('enc_')
    >>> a = mx.rnn.LSTMCell(4, prefix='a_', params=shared)
    >>> b = mx.rnn.LSTMCell(4, prefix='b_', params=shared)
    >>> sorted(shared._params)
    ['enc_h2h_bias', 'enc_h2h_weight', 'enc_i2h_bias', 'enc_i2h_weight']
    """

    def __init__(self, prefix: str = "") -> None:
        self._prefix = prefix
        self._params: Dict[str, Symbol] = {}

    def get(self, name: str, **kwargs: Any) -> Symbol:
        """The variable ``prefix + name``, created (with ``mx.sym.Variable(**kwargs)``) the
        first time it is asked for."""
        name = self._prefix + name
        if name not in self._params:
            self._params[name] = symbol.Variable(name, **kwargs)
        return self._params[name]


class BaseRNNCell:
    """Abstract base of the symbolic RNN cells (MXNet's ``mx.rnn.BaseRNNCell``).

    Subclasses define ``state_info`` and ``__call__(inputs, states)`` (one step); the base
    class provides ``begin_state``, ``unroll``, ``unpack_weights``/``pack_weights`` (from
    ``_gate_names`` and ``_num_hidden``) and ``reset``.

    Parameters
    ----------
    prefix : str
        Prefix of the names of the cell's nodes (and of its weights when ``params`` is
        None).
    params : RNNParams, optional
        Container for weights shared with other cells; a new one is made if None.

    Examples
    --------
    >>> import mxgrad as mx
    >>> cell = mx.rnn.RNNCell(3, prefix='r_')
    >>> outs, states = cell.unroll(2, [mx.sym.var('x0'), mx.sym.var('x1')])
    >>> [o.name for o in outs], cell.state_info
    (['r_t0_out', 'r_t1_out'], [{'shape': (0, 3), '__layout__': 'NC'}])
    """

    _cells: List["BaseRNNCell"]
    _num_hidden: int

    def __init__(self, prefix: str = "", params: Optional[RNNParams] = None) -> None:
        if params is None:
            params = RNNParams(prefix)
            self._own_params = True
        else:
            self._own_params = False
        self._prefix = prefix
        self._params = params
        self._modified = False
        self.reset()

    def reset(self) -> None:
        """Reset the step counters before building another graph with this cell."""
        self._init_counter = -1
        self._counter = -1
        for cell in getattr(self, "_cells", ()):
            cell.reset()

    def __call__(self, inputs: Symbol, states: List[Symbol]) -> Tuple[Symbol, List[Symbol]]:
        """One step: ``(output, new_states)`` from a ``(batch, features)`` input."""
        raise NotSupportedError(f"{type(self).__name__} does not define one step "
                                f"(__call__); subclasses of BaseRNNCell must")

    @property
    def params(self) -> RNNParams:
        """The cell's weight container (asking for it marks the weights as shared)."""
        self._own_params = False
        return self._params

    @property
    def state_info(self) -> List[Dict[str, Any]]:
        """Shape (0 for the batch size) and ``__layout__`` of each state."""
        raise NotSupportedError(f"{type(self).__name__} does not define state_info")

    @property
    def state_shape(self) -> List[tuple]:
        """The shape of each state (0 for the batch size)."""
        return [ele["shape"] for ele in self.state_info]

    @property
    def _gate_names(self) -> Sequence[str]:
        return ()

    def begin_state(self, func: Callable[..., Symbol] = symbol.zeros,
                    **kwargs: Any) -> List[Symbol]:
        """Symbols for the initial states, made by ``func`` (``mx.sym.zeros`` by default,
        or ``mx.sym.Variable`` to feed the states as inputs) named
        ``prefix + 'begin_state_%d'``, with each state's shape and layout."""
        _check_unmodified(self)
        states = []
        for info in self.state_info:
            self._init_counter += 1
            if info is not None:
                kwargs.update(info)
            states.append(func(name="%sbegin_state_%d" % (self._prefix, self._init_counter),
                               **kwargs))
        return states

    def _weight_names(self, group: str) -> Tuple[str, str]:
        return ("%s%s_weight" % (self._prefix, group), "%s%s_bias" % (self._prefix, group))

    def unpack_weights(self, args: Dict[str, NDArray]) -> Dict[str, NDArray]:
        """A copy of ``args`` with this cell's fused ``i2h``/``h2h`` weights and biases split
        into one array per gate (``prefix + 'i2h_i_weight'``, ...)."""
        args = dict(args)
        gates = self._gate_names
        if not gates:
            return args
        h = self._num_hidden
        for group in ("i2h", "h2h"):
            wname, bname = self._weight_names(group)
            weight, bias = _pop(args, wname), _pop(args, bname)
            for j, gate in enumerate(gates):
                args["%s%s%s_weight" % (self._prefix, group, gate)] = \
                    weight[j * h:(j + 1) * h].copy()
                args["%s%s%s_bias" % (self._prefix, group, gate)] = \
                    bias[j * h:(j + 1) * h].copy()
        return args

    def pack_weights(self, args: Dict[str, NDArray]) -> Dict[str, NDArray]:
        """The reverse of :meth:`unpack_weights`: one ``i2h``/``h2h`` weight and bias from
        the per-gate arrays."""
        args = dict(args)
        gates = self._gate_names
        if not gates:
            return args
        for group in ("i2h", "h2h"):
            weights = [_pop(args, "%s%s%s_weight" % (self._prefix, group, g)) for g in gates]
            biases = [_pop(args, "%s%s%s_bias" % (self._prefix, group, g)) for g in gates]
            wname, bname = self._weight_names(group)
            args[wname] = ndarray.concatenate(weights)
            args[bname] = ndarray.concatenate(biases)
        return args

    def unroll(self, length: int, inputs: Inputs, begin_state: Optional[List[Symbol]] = None,
               layout: str = "NTC", merge_outputs: Optional[bool] = None
               ) -> Tuple[Inputs, List[Symbol]]:
        """The cell unrolled over ``length`` steps.

        Parameters
        ----------
        length : int
            Number of steps.
        inputs : Symbol or list of Symbol
            One Symbol of shape ``(batch, length, ...)`` (``layout='NTC'``) or
            ``(length, batch, ...)`` (``'TNC'``), or one ``(batch, ...)`` Symbol per step.
        begin_state : list of Symbol, optional
            Initial states (``begin_state()`` if None).
        layout : str
            ``'NTC'`` or ``'TNC'``.
        merge_outputs : bool, optional
            True: one Symbol with a time axis; False: a list, one per step; None: whichever
            is cheaper.

        Returns
        -------
        outputs : Symbol or list of Symbol
        states : list of Symbol
            The states after the last step.
        """
        self.reset()
        steps, _ = normalize_sequence(length, inputs, layout, False)
        states = self.begin_state() if begin_state is None else begin_state
        outputs = []
        for i in range(length):
            output, states = self(steps[i], states)
            outputs.append(output)
        merged, _ = normalize_sequence(length, outputs, layout, merge_outputs)
        return merged, states

    def _step_name(self) -> str:
        """The name prefix of this cell's next step (``<prefix>t<k>_``, MXNet's)."""
        self._counter += 1
        return "%st%d_" % (self._prefix, self._counter)

    def _get_activation(self, inputs: Symbol, activation, **kwargs: Any) -> Symbol:
        """``activation`` (an ``act_type`` name or a function of a Symbol) of ``inputs``."""
        if isinstance(activation, string_types):
            return symbol.Activation(inputs, act_type=activation, **kwargs)
        return activation(inputs, **kwargs)


def _pop(args: Dict[str, NDArray], name: str) -> NDArray:
    try:
        return args.pop(name)
    except KeyError:
        raise StateError(f"the parameter dict has no {name!r} (needed to pack/unpack the "
                         f"cell's weights); its keys are {sorted(args)[:8]}...") from None


def cells_state_info(cells: Sequence[BaseRNNCell]) -> List[Dict[str, Any]]:
    """The states of ``cells``, one after another."""
    return [info for c in cells for info in c.state_info]


def cells_begin_state(cells: Sequence[BaseRNNCell], **kwargs: Any) -> List[Symbol]:
    """The initial states of ``cells``, one after another."""
    return [s for c in cells for s in c.begin_state(**kwargs)]


def cells_unpack_weights(cells: Sequence[BaseRNNCell], args):
    """``args`` unpacked by every cell in turn."""
    for cell in cells:
        args = cell.unpack_weights(args)
    return args


def cells_pack_weights(cells: Sequence[BaseRNNCell], args):
    """``args`` packed by every cell in turn."""
    for cell in cells:
        args = cell.pack_weights(args)
    return args

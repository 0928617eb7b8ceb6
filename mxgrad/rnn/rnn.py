"""``mx.rnn.rnn``: checkpoints of models built with RNN cells.

The parameters are saved unpacked (one array per gate: ``lstm_i2h_i_weight``...), as
MXNet's ``save_rnn_checkpoint`` writes them, and packed again when loaded, so checkpoint
files move both ways between MXNet 1.x and mxgrad. The files themselves are
``mx.model``'s (``prefix-symbol.json`` and ``prefix-%04d.params``).

Examples
--------
>>> import mxgrad as mx
>>> cb = mx.rnn.do_rnn_checkpoint(mx.rnn.LSTMCell(2), '/tmp/never-written', period=2)
>>> callable(cb)
True
"""
from __future__ import annotations

import importlib
import warnings
from typing import Callable, Dict, Optional, Sequence, Tuple, Union

from .._engine.ndarray import NDArray
from ..symbol import Symbol
from ._base import BaseRNNCell

__all__ = ["rnn_unroll", "save_rnn_checkpoint", "load_rnn_checkpoint", "do_rnn_checkpoint"]

Cells = Union[BaseRNNCell, Sequence[BaseRNNCell]]
Params = Dict[str, NDArray]


def _model():
    # mx.model (checkpoint files) imports optimizers and kvstores: loaded when first used
    return importlib.import_module("mxgrad.model")


def _as_list(cells: Cells):
    return [cells] if isinstance(cells, BaseRNNCell) else list(cells)


def rnn_unroll(cell: BaseRNNCell, length: int, inputs=None, begin_state=None,
               input_prefix: str = "", layout: str = "NTC"):
    """Deprecated (as in MXNet): call ``cell.unroll`` instead."""
    warnings.warn("rnn_unroll is deprecated. Please call cell.unroll directly.",
                  DeprecationWarning, stacklevel=2)
    return cell.unroll(length=length, inputs=inputs, begin_state=begin_state, layout=layout)


def save_rnn_checkpoint(cells: Cells, prefix: str, epoch: int, symbol: Optional[Symbol],
                        arg_params: Params, aux_params: Params) -> None:
    """Save ``symbol`` and the parameters (unpacked by ``cells``) as
    ``prefix-symbol.json`` and ``prefix-%04d.params``.

    Parameters
    ----------
    cells : BaseRNNCell or list of BaseRNNCell
        The cells of the model (their ``unpack_weights`` is applied in turn).
    prefix : str
    epoch : int
    symbol : Symbol
    arg_params, aux_params : dict of str to NDArray
    """
    for cell in _as_list(cells):
        arg_params = cell.unpack_weights(arg_params)
    _model().save_checkpoint(prefix, epoch, symbol, arg_params, aux_params)


def load_rnn_checkpoint(cells: Cells, prefix: str, epoch: int
                        ) -> Tuple[Symbol, Params, Params]:
    """``(symbol, arg_params, aux_params)`` from a checkpoint, the arguments packed by
    ``cells`` (the reverse of :func:`save_rnn_checkpoint`)."""
    symbol, arg, aux = _model().load_checkpoint(prefix, epoch)
    for cell in _as_list(cells):
        arg = cell.pack_weights(arg)
    return symbol, arg, aux


def do_rnn_checkpoint(cells: Cells, prefix: str, period: int = 1) -> Callable[..., None]:
    """An epoch-end callback for ``Module.fit`` saving an RNN checkpoint every ``period``
    epochs (numbered from 1)."""
    period = int(max(1, period))

    def _callback(iter_no: int, sym: Optional[Symbol] = None, arg: Optional[Params] = None,
                  aux: Optional[Params] = None) -> None:
        if (iter_no + 1) % period == 0:
            save_rnn_checkpoint(cells, prefix, iter_no + 1, sym, arg or {}, aux or {})
    return _callback

"""Checkpoint files and the parameter-update helpers Module uses (MXNet 1.9.1's
``mx.model`` functions, re-exported there). A module below ``mxgrad.model`` so that
``mx.module`` and ``mx.callback`` use them without importing ``FeedForward``'s module, which
trains through ``mx.module`` (no import cycle).

A checkpoint is two files, as MXNet writes them: ``prefix-symbol.json`` (the graph, from
:meth:`Symbol.save`) and ``prefix-%04d.params`` (an MXNet NDArray file whose keys are
``arg:<name>`` for arguments and ``aux:<name>`` for auxiliary states).

Examples
--------
>>> BatchEndParam(epoch=0, nbatch=1, eval_metric=None, locals=None).nbatch
1
"""
from __future__ import annotations

import logging
import os
from collections import namedtuple
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from . import kvstore as kvs
from . import ndarray as nd
from . import optimizer as opt
from . import symbol as sym
from .base import DTypeError, FileFormatError
from .context import cpu
from .ndarray import NDArray


__all__ = ["BatchEndParam", "save_checkpoint", "load_checkpoint", "load_params", "split_params"]

#: What ``batch_end_callback``\\ s receive: the epoch, the batch number, the metric and the
#: caller's ``locals()`` (MXNet's namedtuple, with MXNet's type name).
BatchEndParam = namedtuple(  # type: ignore[name-match]
    "BatchEndParams", ["epoch", "nbatch", "eval_metric", "locals"])


def _param_dict(params, what: str) -> Dict[str, NDArray]:
    if params is None:
        return {}
    if not isinstance(params, dict):
        raise DTypeError(f"save_checkpoint: {what} must be a dict of str to NDArray, got "
                         f"{type(params).__name__}")
    for k, v in params.items():
        if not isinstance(k, str) or not isinstance(v, NDArray):
            raise DTypeError(f"save_checkpoint: {what} must map str to NDArray; key {k!r} "
                             f"holds {type(v).__name__}")
    return params


def save_checkpoint(prefix: str, epoch: int, symbol: Optional[sym.Symbol],
                    arg_params: Dict[str, NDArray], aux_params: Dict[str, NDArray],
                    remove_amp_cast: bool = True) -> None:
    """Write ``prefix-symbol.json`` (when ``symbol`` is given) and ``prefix-%04d.params``.

    Parameters
    ----------
    prefix : str
        Path prefix of the two files.
    epoch : int
        The epoch number in the params file's name.
    symbol : Symbol or None
        The network; None writes only the parameters.
    arg_params, aux_params : dict of str to NDArray
        Saved under the keys ``arg:<name>`` and ``aux:<name>`` (in the dicts' order).
    remove_amp_cast : bool, default True
        Passed to :meth:`Symbol.save`.

    Examples
    --------
    >>> import os, tempfile
    >>> import mxgrad as mx
    >>> prefix = os.path.join(tempfile.mkdtemp(), 'm')
    >>> mx.model.save_checkpoint(prefix, 3, None, {'w': mx.nd.ones((2,))}, {})
    >>> sorted(mx.nd.load(prefix + '-0003.params'))
    ['arg:w']
    """
    arg_params = _param_dict(arg_params, "arg_params")
    aux_params = _param_dict(aux_params, "aux_params")
    if symbol is not None:
        symbol.save(f"{prefix}-symbol.json", remove_amp_cast=remove_amp_cast)
    save_dict = {f"arg:{k}": v.as_in_context(cpu()) for k, v in arg_params.items()}
    save_dict.update({f"aux:{k}": v.as_in_context(cpu()) for k, v in aux_params.items()})
    param_name = "%s-%04d.params" % (prefix, epoch)
    nd.save(param_name, save_dict)
    logging.info('Saved checkpoint to "%s"', param_name)


def split_params(save_dict, fname: str) -> Tuple[Dict[str, NDArray], Dict[str, NDArray]]:
    """Split a loaded params file's ``arg:``/``aux:`` keys into two dicts (other prefixes
    are ignored, as MXNet does; a key without a prefix is an error naming ``fname``)."""
    if not isinstance(save_dict, dict):
        raise FileFormatError(f"{fname}: holds a list of arrays, not the named arrays of a "
                              f"params file (keys 'arg:<name>' and 'aux:<name>')")
    arg_params: Dict[str, NDArray] = {}
    aux_params: Dict[str, NDArray] = {}
    for k, v in save_dict.items():
        if ":" not in k:
            raise FileFormatError(f"{fname}: key {k!r} has no 'arg:' or 'aux:' prefix; this "
                                  f"is not a Module/checkpoint params file (for a Gluon "
                                  f"file use net.load_parameters)")
        tp, name = k.split(":", 1)
        if tp == "arg":
            arg_params[name] = v
        elif tp == "aux":
            aux_params[name] = v
    return arg_params, aux_params


def load_params(prefix: str, epoch: int) -> Tuple[Dict[str, NDArray], Dict[str, NDArray]]:
    """``(arg_params, aux_params)`` from ``prefix-%04d.params``.

    Examples
    --------
    >>> import os, tempfile
    >>> import mxgrad as mx
    >>> prefix = os.path.join(tempfile.mkdtemp(), 'm')
    >>> mx.model.save_checkpoint(prefix, 0, None, {'w': mx.nd.ones((2,))},
    ...                          {'m': mx.nd.zeros((1,))})
    >>> arg, aux = mx.model.load_params(prefix, 0); sorted(arg), sorted(aux)
    (['w'], ['m'])
    """
    fname = "%s-%04d.params" % (prefix, epoch)
    save_dict = nd.load(fname)
    if not save_dict:
        logging.warning("Params file '%s' is empty", fname)
        return {}, {}
    return split_params(save_dict, fname)


def load_checkpoint(prefix: str, epoch: int
                    ) -> Tuple[sym.Symbol, Dict[str, NDArray], Dict[str, NDArray]]:
    """``(symbol, arg_params, aux_params)`` from ``prefix-symbol.json`` and
    ``prefix-%04d.params`` (what :func:`save_checkpoint` or MXNet wrote).

    Examples
    --------
    >>> import os, tempfile
    >>> import mxgrad as mx
    >>> prefix = os.path.join(tempfile.mkdtemp(), 'm')
    >>> net = mx.sym.var('data') * 2
    >>> mx.model.save_checkpoint(prefix, 2, net, {'w': mx.nd.ones((1,))}, {})
    >>> mx.model.load_checkpoint(prefix, 2)[0].list_arguments()
    ['data']
    """
    symbol = sym.load(f"{prefix}-symbol.json")
    arg_params, aux_params = load_params(prefix, epoch)
    return symbol, arg_params, aux_params


# ---------------------------------------------------------------- kvstore and updates
def _create_kvstore(kvstore, num_device: int, arg_params: Dict[str, NDArray]):
    """``(kvstore or None, update_on_kvstore)`` as MXNet decides them.

    A kvstore name with one device and no ``dist`` gives no kvstore; updates run on the
    kvstore unless ``MXNET_UPDATE_ON_KVSTORE=0`` or a ``'local'`` store holds an array of
    more than 16M elements."""
    update_on_kvstore = bool(int(os.getenv("MXNET_UPDATE_ON_KVSTORE", "1")))
    if kvstore is None:
        kv = None
    elif isinstance(kvstore, kvs.KVStore):
        kv = kvstore
    elif isinstance(kvstore, str):
        if num_device == 1 and "dist" not in kvstore:
            kv = None
        else:
            kv = kvs.create(kvstore)
            if kvstore == "local" and arg_params:
                max_size = max(int(np.prod(p.shape)) for p in arg_params.values())
                if max_size > 1024 * 1024 * 16:
                    update_on_kvstore = False
    else:
        raise DTypeError(f"kvstore must be a KVStore, a name such as 'local' or None, got "
                         f"{type(kvstore).__name__}")
    if kv is None:
        update_on_kvstore = False
    else:
        update_on_kvstore &= kv.is_capable("optimizer")
    return kv, update_on_kvstore


def _initialize_kvstore(kvstore, param_arrays: Sequence[List[NDArray]],
                        arg_params: Dict[str, NDArray], param_names: Sequence[str],
                        update_on_kvstore: bool) -> None:
    """Put every parameter in the kvstore (and, when it updates, on every device)."""
    for idx, param_on_devs in enumerate(param_arrays):
        name = param_names[idx]
        if not update_on_kvstore:
            kvstore.init(name, arg_params[name])
        else:
            kvstore.broadcast(name, arg_params[name], out=param_on_devs)


def _update_params_on_kvstore(param_arrays, grad_arrays, kvstore,
                              param_names: Sequence[str]) -> None:
    """Push each gradient list to the kvstore (which runs the optimizer) and pull the
    new weights to every device."""
    for index, (arg_list, grad_list) in enumerate(zip(param_arrays, grad_arrays)):
        if grad_list[0] is None:
            continue
        kvstore.pushpull(param_names[index], grad_list, out=arg_list, priority=-index)


def _update_params(param_arrays, grad_arrays, updater, num_device: int, kvstore=None,
                   param_names: Any = None) -> None:
    """Sum gradients over devices through ``kvstore`` (if any), then run ``updater`` on
    each device's copy; parameter ``i`` on device ``k`` has index ``i*num_device + k``."""
    updates: List[List[Any]] = [[] for _ in range(num_device)]
    for index, (arg_list, grad_list) in enumerate(zip(param_arrays, grad_arrays)):
        if grad_list[0] is None:
            continue
        if kvstore:
            kvstore.pushpull(param_names[index], grad_list, priority=-index)
        for k, (w, g) in enumerate(zip(arg_list, grad_list)):
            updates[k].append((index * num_device + k, g, w))
    for dev_updates in updates:
        if not dev_updates:
            continue
        if type(updater) is opt.Updater:     # the Updater's loop without a call per item
            updater._update_params(dev_updates)
        else:
            i, g, w = zip(*dev_updates)
            updater(list(i), list(g), list(w))


def _multiple_callbacks(callbacks, *args, **kwargs) -> None:
    """Call ``callbacks`` (None, one callable or a list of them) with the arguments."""
    if isinstance(callbacks, list):
        for cb in callbacks:
            cb(*args, **kwargs)
        return
    if callbacks:
        callbacks(*args, **kwargs)

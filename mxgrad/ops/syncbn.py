"""``nd.contrib.SyncBatchNorm`` (MXNet 1.9's cross-device batch normalisation) on one process.

mxgrad runs one process, so there are no other devices to synchronise with: the statistics are
this batch's, the output and gradients are ``BatchNorm``'s (channel axis 1), and ``ndev`` and
``key`` are checked and kept for MXNet compatibility only (as ``gluon.contrib.nn.SyncBatchNorm``
does with ``num_devices``).

Examples
--------
>>> import mxgrad as mx
>>> x = mx.nd.array([[1., 2.], [3., 6.]])
>>> with mx.autograd.train_mode():
...     y, mean, var = mx.nd.contrib.SyncBatchNorm(
...         x, mx.nd.ones((2,)), mx.nd.zeros((2,)), mx.nd.zeros((2,)), mx.nd.ones((2,)),
...         eps=0., output_mean_var=True, key="bn0")
>>> y.asnumpy().tolist(), mean.asnumpy().tolist(), var.asnumpy().tolist()
([[-1.0, -1.0], [1.0, 1.0]], [2.0, 4.0], [1.0, 4.0])
"""
from __future__ import annotations

from typing import Any, List, Optional, Union, cast

import numpy as np

from .._engine.scope import state
from ..base import DTypeError, StateError
from .._engine.ndarray import NDArray, wrap
from ._mxnet_op import mxnet_op
from .nn import BATCH_NORM_FIELDS, BatchNorm, _BN_INPUTS

__all__ = ["SyncBatchNorm"]


def SyncBatchNorm(data: NDArray, gamma: NDArray, beta: NDArray, moving_mean: NDArray,
                  moving_var: NDArray, eps: float = 1e-3, momentum: float = 0.9,
                  fix_gamma: bool = True, use_global_stats: bool = False,
                  output_mean_var: bool = False, ndev: int = 1, key: Optional[str] = None,
                  **kwargs: Any) -> Union[NDArray, List[NDArray]]:
    """Batch normalisation over every axis but 1, MXNet's ``contrib.SyncBatchNorm`` on one
    process: ``BatchNorm(data, gamma, beta, moving_mean, moving_var, eps, momentum,
    fix_gamma, use_global_stats, axis=1)`` with its gradients.

    Two differences from ``BatchNorm``, both MXNet's: ``key`` (a name shared by the copies of
    one layer) is required, and ``output_mean_var=True`` returns the batch mean and the
    *variance* (``BatchNorm`` gives the inverse standard deviation). Outside training (or with
    ``use_global_stats``) those two are copies of ``moving_mean``/``moving_var`` (MXNet leaves
    them unwritten). The mean/var outputs are constants for autograd, as in MXNet. With
    ``fix_gamma`` MXNet also overwrites ``gamma`` with ones; mxgrad leaves it unchanged and
    uses 1 (its gradient is 0 either way).

    Parameters
    ----------
    data : NDArray
        At least 2-D, channels on axis 1.
    gamma, beta, moving_mean, moving_var : NDArray
        Shape ``(C,)``; the running statistics are updated in place in training mode.
    eps, momentum, fix_gamma, use_global_stats, output_mean_var
        As ``BatchNorm``'s (``eps`` default 1e-3, ``momentum`` 0.9).
    ndev : int, default 1
        Number of devices in MXNet's synchronisation; must be >= 1 (one process here).
    key : str
        The layer's synchronisation key (e.g. the Block's prefix); required.
    """
    op = "contrib.SyncBatchNorm"
    if key is None or not isinstance(key, str):
        raise StateError(f"{op}: parameter 'key' is required (a string naming the layer, e.g. "
                         f"its Block prefix), got {key!r}")
    if isinstance(ndev, bool) or not isinstance(ndev, (int, np.integer)) or ndev < 1:
        raise StateError(f"{op}: ndev must be a positive int, got {ndev!r}")
    if not isinstance(data, NDArray):
        raise DTypeError(f"{op}: data must be an NDArray, got {type(data).__name__}; wrap "
                         f"data with mx.nd.array(...) first")
    out = cast(NDArray, BatchNorm(data, gamma, beta, moving_mean, moving_var, eps=eps,
                                  momentum=momentum, fix_gamma=fix_gamma,
                                  use_global_stats=use_global_stats, axis=1))
    if not output_mean_var:
        return out
    if state.training and not use_global_stats:
        x = data._data
        axes = tuple(i for i in range(x.ndim) if i != 1)
        mean = x.mean(axis=axes)
        var = np.square(x - mean.reshape((1, -1) + (1,) * (x.ndim - 2))).mean(axis=axes)
        return [out, wrap(mean.astype(x.dtype)), wrap(var.astype(x.dtype))]
    return [out, wrap(np.array(moving_mean._data)), wrap(np.array(moving_var._data))]


mxnet_op("_contrib_SyncBatchNorm", _BN_INPUTS, nd_name="contrib.SyncBatchNorm",
         **BATCH_NORM_FIELDS)

"""MXNet's two remaining optimizers: ``mx.optimizer.contrib.GroupAdaGrad`` (AdaGrad with
one accumulator per row) and ``mx.optimizer.LBSGD`` (large-batch SGD: gradients
accumulated over ``batch_scale`` calls, the learning rate warmed up or scaled by LARS),
with MXNet 1.9.1's formulas. ``import mxgrad`` makes them ``mx.optimizer.LBSGD`` and
``mx.optimizer.contrib.GroupAdaGrad`` and registers them (``'lbsgd'``,
``'groupadagrad'``).

Examples
--------
>>> import mxgrad as mx
>>> opt = mx.optimizer.contrib.GroupAdaGrad(learning_rate=0.1, eps=0.0)
>>> w = mx.nd.ones((2, 2)); g = mx.nd.array([[3., 4.], [0., 1.]])
>>> s = opt.create_state(0, w); opt.update(0, w, g, s); s.asnumpy().ravel().tolist()
[12.5, 0.5]
"""
from __future__ import annotations

import math
from typing import Any, Dict

import numpy as np

from .base import ShapeError, StateError
from ._engine.ndarray import NDArray, wrap
from .ops import optimizer_update as _k
from .optimizer import Optimizer, _buf, _zeros_like, register

__all__ = ["GroupAdaGrad", "LBSGD"]


@register
class GroupAdaGrad(Optimizer):
    """AdaGrad with one learning rate per row of a 2-D weight (MXNet's contrib)::

        g = clip(rescale_grad * grad, clip_gradient)
        history += mean(g**2, axis=1, keepdims=True)
        weight -= lr * g / sqrt(history + eps)

    Weight decay is not supported (``wd`` must be 0, as MXNet).

    Examples
    --------
    >>> import mxgrad as mx
    >>> opt = GroupAdaGrad(learning_rate=1.0, eps=0.0)
    >>> w = mx.nd.zeros((1, 2)); s = opt.create_state(0, w)
    >>> opt.update(0, w, mx.nd.array([[1., 1.]]), s); w.asnumpy().tolist()
    [[-1.0, -1.0]]
    """

    def __init__(self, eps: float = 1e-5, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.float_stable_eps = eps

    def create_state(self, index: int, weight: NDArray) -> Any:
        if weight.ndim != 2:
            raise ShapeError(f"GroupAdaGrad: weight {index!r} must be 2-D (one accumulator "
                             f"per row), got shape {tuple(weight.shape)}")
        return wrap(np.zeros((weight.shape[0], 1), dtype=weight.dtype))

    def update(self, index: int, weight: NDArray, grad: NDArray, state: Any) -> None:
        lr, wd, w, g = self._prepare(index, weight, grad)
        if wd != 0:
            raise StateError(f"GroupAdaGrad does not support weight decay (wd={wd} for "
                             f"{index!r}); create it with wd=0")
        self._clip(g)
        h = _buf(state)
        h += np.mean(np.square(g), axis=1, keepdims=True)
        w -= lr * g / np.sqrt(h + self.float_stable_eps)
        state._write()
        weight._write()


@register
class LBSGD(Optimizer):
    """Large-batch SGD (MXNet's): each call adds the gradient to a per-weight sum; every
    ``batch_scale``-th call (counting from ``begin_epoch * updates_per_epoch``) applies
    MXNet's SGD update (``sgd_update``/``sgd_mom_update``) to the mean of the summed
    gradients, with the learning rate times the warmup multiplier (``'linear'``,
    ``'power2'``, ``'sqrt'`` from 1 to ``batch_scale`` over ``warmup_epochs *
    updates_per_epoch`` calls; another name: 1) or, with ``warmup_strategy='lars'``, the layer-wise
    ``sqrt(|w|^2 / (|g|^2 + wd |w|^2))`` clipped to ``[0.01, 100]``. The learning rate is
    read before the update is counted, as MXNet.

    Examples
    --------
    >>> import mxgrad as mx
    >>> opt = LBSGD(learning_rate=0.1, batch_scale=2, warmup_epochs=0)
    >>> w = mx.nd.zeros((1,)); s = opt.create_state(0, w)
    >>> opt.update(0, w, mx.nd.array([1.]), s); w.asnumpy().tolist()   # accumulated only
    [0.0]
    >>> opt.update(0, w, mx.nd.array([3.]), s); w.asnumpy().tolist()   # lr*2 * mean
    [-0.4000000059604645]
    """

    def __init__(self, momentum: float = 0.0, multi_precision: bool = False,
                 warmup_strategy: str = "linear", warmup_epochs: int = 5,
                 batch_scale: int = 1, updates_per_epoch: int = 32, begin_epoch: int = 0,
                 num_epochs: int = 60, **kwargs: Any) -> None:
        super().__init__(multi_precision=multi_precision, **kwargs)
        self.momentum = momentum
        self.warmup_strategy = warmup_strategy
        self.warmup_epochs = warmup_epochs
        self.batch_scale = batch_scale
        self.updates_per_epoch = updates_per_epoch
        self.init_updates = begin_epoch * updates_per_epoch
        self.num_epochs = num_epochs
        self.cumgrads: Dict[Any, Dict[str, Any]] = {}

    def create_state(self, index: int, weight: NDArray) -> Any:
        return _zeros_like(weight) if self.momentum != 0.0 else None

    def _get_lbmult(self, nup: int) -> float:
        nwup = self.warmup_epochs * self.updates_per_epoch
        maxmult = float(self.batch_scale)
        if nup >= nwup:
            return maxmult
        if nwup <= 1:
            return 1.0
        if self.warmup_strategy == "linear":
            return 1.0 + (maxmult - 1) * nup / nwup
        if self.warmup_strategy == "power2":
            return 1.0 + (maxmult - 1) * (nup * nup) / (nwup * nwup)
        if self.warmup_strategy == "sqrt":
            return 1.0 + (maxmult - 1) * math.sqrt(float(nup) / nwup)
        return 1.0

    @staticmethod
    def _get_lars(w: np.ndarray, g: np.ndarray, wd: float) -> float:
        w2 = float(np.sum(w * w))
        g2 = float(np.sum(g * g))
        return min(max(math.sqrt(w2 / (g2 + wd * w2 + 1e-18)), 0.01), 100.0)

    def update(self, index: int, weight: NDArray, grad: NDArray, state: Any) -> None:
        lr = self._get_lr(index)
        wd = self._get_wd(index)
        _, _, w, graw = self._prepare_raw(index, weight, grad)    # counts the update
        c = self.cumgrads.get(index)
        if c and c["num_cums"] > 0:
            c = {"cum_grad": c["cum_grad"] + graw, "num_cums": c["num_cums"] + 1}
        else:
            c = {"cum_grad": graw.copy(), "num_cums": self.init_updates + 1}
        self.cumgrads[index] = c
        if c["num_cums"] % self.batch_scale != 0:
            return                            # MXNet runs sgd_update with lr=0: no change
        g = c["cum_grad"] / self.batch_scale
        if self.warmup_strategy == "lars":
            lr *= self._get_lars(w, g.astype(w.dtype), wd)
        else:
            lr *= self._get_lbmult(c["num_cums"])
        clip = self.clip_gradient if self.clip_gradient else None   # MXNet passes it if truthy
        step = _k.prepare_grad(g, w.dtype, self.rescale_grad, clip)
        step += wd * w
        step *= lr
        mom = None if state is None or self.momentum <= 0 else _buf(state)
        _k.sgd_step(w, step, mom, self.momentum)
        c["cum_grad"] = 0
        if mom is not None:
            state._write()
        weight._write()


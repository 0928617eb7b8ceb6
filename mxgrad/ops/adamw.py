"""MXNet's AdamW update operators of ``nd.contrib``: ``adamw_update``, ``mp_adamw_update``
(float16 weights with a float32 master copy) and their several-weights forms
``multi_adamw_update`` / ``multi_mp_adamw_update``, as MXNet 1.9.1 computes them::

    g = clip(rescale_grad * grad, clip_gradient)       # clip_gradient < 0: none
    mean = beta1 * (mean - g) + g;  var = beta2 * (var - g**2) + g**2
    weight -= eta * (lr * mean / (sqrt(var) + epsilon) + wd * weight)

``rescale_grad`` is a number or a 1-element NDArray; 0 or a non-finite value skips the
update (weights and moments unchanged), as MXNet. Results go to ``out`` (usually the
weights) and are returned.

Examples
--------
>>> import mxgrad as mx
>>> w, g = [mx.nd.ones((2,))], [mx.nd.ones((2,))]
>>> m, v = [mx.nd.zeros((2,))], [mx.nd.zeros((2,))]
>>> _ = mx.nd.contrib.multi_adamw_update(w, g, m, v, 1.0, lrs=[0.1], wds=[0.0],
...                                      etas=[1.0], out=w)
>>> [round(x, 4) for x in w[0].asnumpy().tolist()]
[0.6838, 0.6838]
"""
from __future__ import annotations

from typing import Any, List, Optional, Sequence, Union

import numpy as np

from .._check import as_real
from ..base import ShapeError
from .._engine.ndarray import NDArray
from ._mxnet_op import mxnet_op
from .optimizer_update import _buffers, _finish, _nd, prepare_grad

__all__ = ["adamw_update", "mp_adamw_update", "multi_adamw_update", "multi_mp_adamw_update"]

Scale = Union[float, NDArray]


def _scale(op: str, rescale_grad: Scale) -> float:
    if isinstance(rescale_grad, NDArray):
        return float(rescale_grad.asnumpy().reshape(-1)[0])
    return as_real(rescale_grad, f"{op}: rescale_grad", finite=False)


def _step(w: np.ndarray, g: np.ndarray, m: np.ndarray, v: np.ndarray, lr: float, wd: float,
          eta: float, beta1: float, beta2: float, epsilon: float) -> None:
    dt = w.dtype.type
    m[...] = dt(beta1) * (m - g) + g
    g2 = np.square(g)
    v[...] = dt(beta2) * (v - g2) + g2
    w -= dt(eta) * (dt(lr) * m / (np.sqrt(v) + dt(epsilon)) + dt(wd) * w)


def _run(op: str, weights, grads, mean, var, weights32, rescale_grad, lrs, wds, etas, out,
         n: int, beta1: float, beta2: float, epsilon: float, clip_gradient: float
         ) -> List[NDArray]:
    lists = {"weights": weights, "grads": grads, "mean": mean, "var": var, "lrs": lrs,
             "wds": wds, "etas": etas}
    if weights32 is not None:
        lists["weights32"] = weights32
    if out is not None:
        lists["out"] = out
    for what, entries in lists.items():
        if not isinstance(entries, (list, tuple)) or len(entries) < n:
            raise ShapeError(f"{op}: {what} must be a list of {n} entries (one per weight)")
    scale = _scale(op, rescale_grad)
    for h, val in (("beta1", beta1), ("beta2", beta2), ("epsilon", epsilon),
                   ("clip_gradient", clip_gradient)):
        as_real(val, f"{op}: {h}")
    hyper = [(as_real(lrs[i], f"{op}: lrs"), as_real(wds[i], f"{op}: wds"),
              as_real(etas[i], f"{op}: etas")) for i in range(n)]
    res: List[NDArray] = []
    if weights32 is None:
        checked = [_buffers(op, weights[i], grads[i], (("mean", mean[i]), ("var", var[i])),
                            None if out is None else out[i]) for i in range(n)]
        if scale == 0 or not np.isfinite(scale):
            return [weights[i] if out is None else out[i] for i in range(n)]
        for i, (weight, grad, w) in enumerate(checked):
            g = prepare_grad(grad._data, w.dtype, scale, clip_gradient)
            _step(w, g, mean[i]._data, var[i]._data, *hyper[i], beta1, beta2, epsilon)
            res.append(_finish(weight, w, None if out is None else out[i], mean[i], var[i]))
        return res
    for i in range(n):          # master copies: float32 weights32 of the weights' shapes
        _buffers(op, weights32[i], grads[i], (("mean", mean[i]), ("var", var[i])), None)
        _nd(weights[i], "weights", op)
    if scale == 0 or not np.isfinite(scale):
        return [weights[i] if out is None else out[i] for i in range(n)]
    for i in range(n):
        master = weights32[i]._data
        # the low-precision gradient is widened first (MXNet scales it in float32)
        g = prepare_grad(grads[i]._data.astype(master.dtype), master.dtype, scale,
                         clip_gradient)
        _step(master, g, mean[i]._data, var[i]._data, *hyper[i], beta1, beta2, epsilon)
        weights32[i]._write()
        low = master.astype(weights[i].dtype)
        if out is None:
            res.append(_finish(weights[i], low, None, mean[i], var[i]))
        else:
            target = _nd(out[i], "out", op)
            target._data[...] = low
            res.append(_finish(target, target._data, target, mean[i], var[i]))
    return res


def adamw_update(weight: NDArray, grad: NDArray, mean: NDArray, var: NDArray,
                 rescale_grad: Scale, lr: float, eta: float, beta1: float = 0.9,
                 beta2: float = 0.999, epsilon: float = 1e-8, wd: float = 0.0,
                 clip_gradient: float = -1.0, out: Optional[NDArray] = None,
                 name: Optional[str] = None, **kwargs: Any) -> NDArray:
    """AdamW on one weight (see the module for the formula)."""
    return _run("adamw_update", [weight], [grad], [mean], [var], None, rescale_grad, [lr],
                [wd], [eta], None if out is None else [out], 1, beta1, beta2, epsilon,
                clip_gradient)[0]


# an optimizer update MXNet registers without the _contrib_ prefix
mxnet_op("_adamw_update", ("weight", "grad", "mean", "var", "rescale_grad"),
         nd_name="contrib.adamw_update")


def mp_adamw_update(weight: NDArray, grad: NDArray, mean: NDArray, var: NDArray,
                    weight32: NDArray, rescale_grad: Scale, lr: float, eta: float,
                    beta1: float = 0.9, beta2: float = 0.999, epsilon: float = 1e-8,
                    wd: float = 0.0, clip_gradient: float = -1.0,
                    out: Optional[NDArray] = None, name: Optional[str] = None,
                    **kwargs: Any) -> NDArray:
    """AdamW on the float32 master copy ``weight32`` of a low-precision ``weight``; the
    result is the master cast to ``weight``'s dtype."""
    return _run("mp_adamw_update", [weight], [grad], [mean], [var], [weight32], rescale_grad,
                [lr], [wd], [eta], None if out is None else [out], 1, beta1, beta2, epsilon,
                clip_gradient)[0]


mxnet_op("_mp_adamw_update", ("weight", "grad", "mean", "var", "weight32", "rescale_grad"),
         nd_name="contrib.mp_adamw_update")


def multi_adamw_update(weights: Sequence[NDArray], grads: Sequence[NDArray],
                       mean: Sequence[NDArray], var: Sequence[NDArray], rescale_grad: Scale,
                       lrs: Sequence[float], wds: Sequence[float], etas: Sequence[float],
                       out: Optional[Sequence[NDArray]] = None, name: Optional[str] = None,
                       size: int = 0, beta1: float = 0.9, beta2: float = 0.999,
                       epsilon: float = 1e-8, clip_gradient: float = -1.0, **kwargs: Any
                       ) -> List[NDArray]:
    """AdamW on several weights at once, one ``lr``, ``wd``, ``eta`` each; returns the
    updated weights as a list (see the module)."""
    n = int(size) if size else len(weights)
    return _run("multi_adamw_update", weights, grads, mean, var, None, rescale_grad, lrs, wds,
                etas, out, n, beta1, beta2, epsilon, clip_gradient)


def multi_mp_adamw_update(weights: Sequence[NDArray], grads: Sequence[NDArray],
                          mean: Sequence[NDArray], var: Sequence[NDArray],
                          weights32: Sequence[NDArray], rescale_grad: Scale,
                          lrs: Sequence[float], wds: Sequence[float], etas: Sequence[float],
                          out: Optional[Sequence[NDArray]] = None, name: Optional[str] = None,
                          size: int = 0, beta1: float = 0.9, beta2: float = 0.999,
                          epsilon: float = 1e-8, clip_gradient: float = -1.0, **kwargs: Any
                          ) -> List[NDArray]:
    """:func:`mp_adamw_update` on several weights at once."""
    n = int(size) if size else len(weights)
    return _run("multi_mp_adamw_update", weights, grads, mean, var, weights32, rescale_grad,
                lrs, wds, etas, out, n, beta1, beta2, epsilon, clip_gradient)



"""Optimizer update rules: the one home of their arithmetic, and MXNet's ``nd.*_update`` ops.

The ``*_step`` kernels update NumPy buffers in place from a gradient already rescaled and
clipped the way each algorithm wants (:func:`prepare_grad`); the optimizer classes of
:mod:`mxgrad.optimizer` call them, and so do the ``nd.sgd_update``-style operators below, which
take MXNet 1.9's arguments (``clip_gradient < 0`` means no clipping), update the state arrays in
place and write the new weight to ``out`` (usually the weight itself) or return it.

These ops are not recorded by autograd (they are updates, not functions to differentiate).

Examples
--------
>>> import mxgrad as mx
>>> w, g, mom = mx.nd.array([1.0, 2.0]), mx.nd.array([0.5, -0.5]), mx.nd.zeros((2,))
>>> _ = mx.nd.sgd_mom_update(w, g, mom, lr=0.1, momentum=0.9, out=w)
>>> w.asnumpy(), mom.asnumpy()
(array([0.95, 2.05], dtype=float32), array([-0.05,  0.05], dtype=float32))
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ..base import DTypeError, ShapeError
from .._engine.ndarray import NDArray, wrap
from .._typing import DTypeLike

__all__ = ["sgd_update", "sgd_mom_update", "nag_mom_update", "mp_sgd_update",
           "mp_sgd_mom_update", "mp_nag_mom_update", "signsgd_update", "signum_update",
           "adam_update", "rmsprop_update", "rmspropalex_update", "ftrl_update", "ftml_update",
           "lamb_update_phase1", "lamb_update_phase2"]


# ------------------------------------------------------------------- kernels (NumPy)
def prepare_grad(g: np.ndarray, dtype: DTypeLike, rescale: float, clip: Optional[float],
                 w: Optional[np.ndarray] = None, wd: float = 0.0) -> np.ndarray:
    """A new array ``clip(rescale * g + wd * w, clip)`` in ``dtype`` (``clip`` None or negative:
    no clipping; ``w`` None: no weight decay term)."""
    out = g * np.asarray(rescale, dtype=dtype) if g.dtype == dtype else \
        (g * rescale).astype(dtype)
    if w is not None and wd:
        out += wd * w
    if clip is not None and clip >= 0:
        np.clip(out, -clip, clip, out=out)
    return out


def sgd_step(w, step, mom, momentum: float) -> None:
    """``w -= step`` (``step`` = lr * gradient), or with momentum
    ``mom = momentum * mom - step; w += mom``. ``step`` may be overwritten."""
    if mom is None:
        w -= step
    else:
        mom *= momentum
        mom -= step
        w += mom


def nag_step(w, g, mom, lr: float, momentum: float) -> None:
    """MXNet 1.9's NAG: ``mom = momentum * mom - lr * g; w += momentum * mom - lr * g``."""
    g *= lr
    if mom is None:
        w -= g
    else:
        mom *= momentum
        mom -= g
        w += momentum * mom
        w -= g


def signsgd_step(w, g, lr: float, wd: float) -> None:
    """``w = (1 - lr * wd) * w - lr * sign(g)``."""
    w *= (1.0 - lr * wd)
    w -= lr * np.sign(g)


def signum_step(w, g, mom, lr: float, momentum: float, wd: float, wd_lh: float) -> None:
    """``mom = momentum * mom - (1 - momentum) * (g + wd * w);
    w = (1 - lr * wd_lh) * w + lr * sign(mom)`` (MXNet's sign convention for ``mom``)."""
    mom *= momentum
    mom -= (1.0 - momentum) * (g + wd * w)
    w *= (1.0 - lr * wd_lh)
    w += lr * np.sign(mom)


def adam_moments(g, m, v, beta1: float, beta2: float) -> None:
    """Adam's (and AdamW's) moment updates, in place."""
    m *= beta1
    m += (1.0 - beta1) * g
    v *= beta2
    v += (1.0 - beta2) * np.square(g)


def adam_step(w, g, m, v, lr: float, beta1: float, beta2: float, epsilon: float) -> None:
    """Adam's moments and step (no bias correction: the optimizer folds it into ``lr``)."""
    adam_moments(g, m, v, beta1, beta2)
    w -= lr * m / (np.sqrt(v) + epsilon)


def rmsprop_step(w, g, n, lr: float, gamma1: float, epsilon: float,
                 clip_weights: Optional[float]) -> None:
    """``n = gamma1 * n + (1 - gamma1) * g**2; w -= lr * g / sqrt(n + epsilon)``."""
    n *= gamma1
    n += (1.0 - gamma1) * np.square(g)
    w -= lr * g / np.sqrt(n + epsilon)
    if clip_weights is not None and clip_weights > 0:
        np.clip(w, -clip_weights, clip_weights, out=w)


def rmspropalex_step(w, g, n, g_avg, delta, lr: float, gamma1: float, gamma2: float,
                     epsilon: float, clip_weights: Optional[float]) -> None:
    """Centered RMSProp (Graves, 2013): running mean of g and g**2, momentum ``delta``."""
    n *= gamma1
    n += (1.0 - gamma1) * np.square(g)
    g_avg *= gamma1
    g_avg += (1.0 - gamma1) * g
    delta *= gamma2
    delta -= lr * g / np.sqrt(n - np.square(g_avg) + epsilon)
    w += delta
    if clip_weights is not None and clip_weights > 0:
        np.clip(w, -clip_weights, clip_weights, out=w)


def ftrl_step(w, g, z, n, lr: float, lamda1: float, beta: float, wd: float) -> None:
    """FTRL-Proximal: ``z += g - (sqrt(n + g**2) - sqrt(n)) * w / lr; n += g**2;
    w = (sign(z) * lamda1 - z) / ((beta + sqrt(n)) / lr + wd) * (|z| > lamda1)``."""
    z += g - (np.sqrt(n + np.square(g)) - np.sqrt(n)) * w / lr
    n += np.square(g)
    w[...] = (np.sign(z) * lamda1 - z) / ((beta + np.sqrt(n)) / lr + wd) * (np.abs(z) > lamda1)


def ftml_step(w, g, d, v, z, lr: float, t: int, beta1: float, beta2: float,
              epsilon: float) -> None:
    """FTML (Zheng & Kwok, 2017) with the step count ``t`` (from 1)."""
    v *= beta2
    v += (1.0 - beta2) * np.square(g)
    d_t = (1.0 - beta1 ** t) / lr * (np.sqrt(v / (1.0 - beta2 ** t)) + epsilon)
    z *= beta1
    z += (1.0 - beta1) * g - (d_t - beta1 * d) * w
    d[...] = d_t
    w[...] = -z / d_t


def lamb_direction(w, g, mean, var, t: int, beta1: float, beta2: float, epsilon: float,
                   bias_correction: bool, wd: float) -> np.ndarray:
    """LAMB's phase 1: update ``mean``/``var`` in place; return the direction ``r``."""
    mean *= beta1
    mean += (1.0 - beta1) * g
    var *= beta2
    var += (1.0 - beta2) * np.square(g)
    m_hat, v_hat = mean, var
    if bias_correction:
        m_hat = mean / (1.0 - beta1 ** t)
        v_hat = var / (1.0 - beta2 ** t)
    return m_hat / (np.sqrt(v_hat) + epsilon) + wd * w


def lamb_apply(w, r, r1: float, r2: float, lr: float, lower_bound=None, upper_bound=None) -> None:
    """LAMB's phase 2: ``w -= lr * trust * r`` with trust ``clip(r1, lower, upper) / r2``
    (1 when either norm is 0; a bound of None or below 0 is not applied)."""
    if lower_bound is not None and lower_bound > 0:
        r1 = max(r1, lower_bound)
    if upper_bound is not None and upper_bound > 0:
        r1 = min(r1, upper_bound)
    ratio = 1.0 if r1 == 0.0 or r2 == 0.0 else r1 / r2
    w -= (lr * ratio) * r


def norm64(a: np.ndarray) -> float:
    """The L2 norm of ``a`` accumulated in float64."""
    return float(np.linalg.norm(a.astype(np.float64, copy=False).ravel()))


# ------------------------------------------------------------------ the nd operators
def _nd(x, name: str, op: str) -> NDArray:
    if not isinstance(x, NDArray):
        raise DTypeError(f"{op}: {name} must be an NDArray, got {type(x).__name__}")
    return x



_HYPER = frozenset(("lr", "wd", "rescale_grad", "clip_gradient", "momentum", "beta1", "beta2",
                    "epsilon", "gamma1", "gamma2", "clip_weights", "lamda1", "beta", "clip_grad",
                    "wd_lh", "lower_bound", "upper_bound", "t"))


def _checked_hyper(fn):
    """Check ``fn``'s scalar hyper-parameters (finite real numbers) before any state is
    touched, so a bad ``lr`` cannot leave ``mom``/``mean``/``var`` half updated."""
    import functools
    import inspect
    from .._check import as_real
    sig = inspect.signature(fn)
    names = [n for n in sig.parameters if n in _HYPER]
    where = fn.__name__

    @functools.wraps(fn)
    def checked(*args, **kwargs):
        try:
            bound = sig.bind(*args, **kwargs)
        except TypeError as err:
            raise DTypeError(f"{where}: {err}") from None
        for n in names:
            if n in bound.arguments:
                as_real(bound.arguments[n], f"{where}: {n}")
        return fn(*args, **kwargs)
    return checked

def _buffers(op: str, weight, grad, states, out):
    weight = _nd(weight, "weight", op)
    grad = _nd(grad, "grad", op)
    for name, s in states:
        _nd(s, name, op)
        if s.shape != weight.shape:
            raise ShapeError(f"{op}: {name} has shape {s.shape}, weight {weight.shape}")
    if grad.shape != weight.shape:
        raise ShapeError(f"{op}: grad has shape {grad.shape}, weight {weight.shape}")
    if out is not None:
        _nd(out, "out", op)
        if out.shape != weight.shape:
            raise ShapeError(f"{op}: out has shape {out.shape}, weight {weight.shape}")
    w = weight._data if out is weight else weight._data.copy()
    return weight, grad, w


def _finish(weight, w, out, *states):
    for s in states:
        s._write()
    if out is None:
        return wrap(w)
    out._write(None if out is weight else w)
    return out


@_checked_hyper
def sgd_update(weight: NDArray, grad: NDArray, lr: float, wd: float = 0.0,
               rescale_grad: float = 1.0, clip_gradient: float = -1.0, lazy_update: bool = True,
               out: Optional[NDArray] = None, name: Optional[str] = None, **kwargs: Any
               ) -> NDArray:
    """``weight - lr * (clip(rescale_grad * grad) + wd * weight)``."""
    weight, grad, w = _buffers("sgd_update", weight, grad, (), out)
    g = prepare_grad(grad._data, w.dtype, rescale_grad, clip_gradient)
    g += wd * w
    g *= lr
    sgd_step(w, g, None, 0.0)
    return _finish(weight, w, out)


@_checked_hyper
def sgd_mom_update(weight: NDArray, grad: NDArray, mom: NDArray, lr: float, momentum: float = 0.0,
                   wd: float = 0.0, rescale_grad: float = 1.0, clip_gradient: float = -1.0,
                   lazy_update: bool = True, out: Optional[NDArray] = None,
                   name: Optional[str] = None, **kwargs: Any) -> NDArray:
    """``mom = momentum * mom - lr * (clip(rescale_grad * grad) + wd * weight);
    weight += mom``."""
    weight, grad, w = _buffers("sgd_mom_update", weight, grad, (("mom", mom),), out)
    g = prepare_grad(grad._data, w.dtype, rescale_grad, clip_gradient)
    g += wd * w
    g *= lr
    sgd_step(w, g, mom._data, momentum)
    return _finish(weight, w, out, mom)


@_checked_hyper
def nag_mom_update(weight: NDArray, grad: NDArray, mom: NDArray, lr: float, momentum: float = 0.0,
                   wd: float = 0.0, rescale_grad: float = 1.0, clip_gradient: float = -1.0,
                   out: Optional[NDArray] = None, name: Optional[str] = None, **kwargs: Any
                   ) -> NDArray:
    """Nesterov momentum: ``mom = momentum * mom - lr * g; weight += momentum * mom - lr * g``
    with ``g = clip(rescale_grad * grad) + wd * weight``."""
    weight, grad, w = _buffers("nag_mom_update", weight, grad, (("mom", mom),), out)
    g = prepare_grad(grad._data, w.dtype, rescale_grad, clip_gradient)
    g += wd * w
    nag_step(w, g, mom._data, lr, momentum)
    return _finish(weight, w, out, mom)


def _mp(op, weight, grad, weight32, states, out, step):
    weight = _nd(weight, "weight", op)
    _nd(weight32, "weight32", op)
    master = weight32._data
    g32 = grad._data.astype(np.float32)
    step(master, g32, *[s._data for s in states])
    weight32._write()
    result = master.astype(weight._data.dtype)
    if out is None:
        for s in states:
            s._write()
        return wrap(result)
    _nd(out, "out", op)._data[...] = result
    return _finish(out, out._data, out, *states)


@_checked_hyper
def mp_sgd_update(weight: NDArray, grad: NDArray, weight32: NDArray, lr: float, wd: float = 0.0,
                  rescale_grad: float = 1.0, clip_gradient: float = -1.0, lazy_update: bool = True,
                  out: Optional[NDArray] = None, name: Optional[str] = None, **kwargs: Any
                  ) -> NDArray:
    """:func:`sgd_update` on the float32 master copy ``weight32``; the weight gets it rounded."""
    def step(w32, g32):
        g = prepare_grad(g32, np.float32, rescale_grad, clip_gradient)
        g += wd * w32
        g *= lr
        sgd_step(w32, g, None, 0.0)
    return _mp("mp_sgd_update", weight, grad, weight32, (), out, step)


@_checked_hyper
def mp_sgd_mom_update(weight: NDArray, grad: NDArray, mom: NDArray, weight32: NDArray, lr: float,
                      momentum: float = 0.0, wd: float = 0.0, rescale_grad: float = 1.0,
                      clip_gradient: float = -1.0, lazy_update: bool = True,
                      out: Optional[NDArray] = None, name: Optional[str] = None, **kwargs: Any
                      ) -> NDArray:
    """:func:`sgd_mom_update` on the float32 master copy ``weight32`` (``mom`` float32)."""
    def step(w32, g32, m):
        g = prepare_grad(g32, np.float32, rescale_grad, clip_gradient)
        g += wd * w32
        g *= lr
        sgd_step(w32, g, m, momentum)
    return _mp("mp_sgd_mom_update", weight, grad, weight32, (mom,), out, step)


@_checked_hyper
def mp_nag_mom_update(weight: NDArray, grad: NDArray, mom: NDArray, weight32: NDArray, lr: float,
                      momentum: float = 0.0, wd: float = 0.0, rescale_grad: float = 1.0,
                      clip_gradient: float = -1.0, out: Optional[NDArray] = None,
                      name: Optional[str] = None, **kwargs: Any) -> NDArray:
    """:func:`nag_mom_update` on the float32 master copy ``weight32``."""
    def step(w32, g32, m):
        g = prepare_grad(g32, np.float32, rescale_grad, clip_gradient)
        g += wd * w32
        nag_step(w32, g, m, lr, momentum)
    return _mp("mp_nag_mom_update", weight, grad, weight32, (mom,), out, step)


@_checked_hyper
def signsgd_update(weight: NDArray, grad: NDArray, lr: float, wd: float = 0.0,
                   rescale_grad: float = 1.0, clip_gradient: float = -1.0,
                   out: Optional[NDArray] = None, name: Optional[str] = None, **kwargs: Any
                   ) -> NDArray:
    """``weight = (1 - lr * wd) * weight - lr * sign(grad)``."""
    weight, grad, w = _buffers("signsgd_update", weight, grad, (), out)
    signsgd_step(w, grad._data, lr, wd)
    return _finish(weight, w, out)


@_checked_hyper
def signum_update(weight: NDArray, grad: NDArray, mom: NDArray, lr: float, momentum: float = 0.0,
                  wd: float = 0.0, rescale_grad: float = 1.0, clip_gradient: float = -1.0,
                  wd_lh: float = 0.0, out: Optional[NDArray] = None, name: Optional[str] = None,
                  **kwargs: Any) -> NDArray:
    """``mom = momentum * mom - (1 - momentum) * (clip(rescale_grad * grad) + wd * weight);
    weight = (1 - lr * wd_lh) * weight + lr * sign(mom)``."""
    weight, grad, w = _buffers("signum_update", weight, grad, (("mom", mom),), out)
    g = prepare_grad(grad._data, w.dtype, rescale_grad, clip_gradient)
    signum_step(w, g, mom._data, lr, momentum, wd, wd_lh)
    return _finish(weight, w, out, mom)


@_checked_hyper
def adam_update(weight: NDArray, grad: NDArray, mean: NDArray, var: NDArray, lr: float,
                beta1: float = 0.9, beta2: float = 0.999, epsilon: float = 1e-8, wd: float = 0.0,
                rescale_grad: float = 1.0, clip_gradient: float = -1.0, lazy_update: bool = True,
                out: Optional[NDArray] = None, name: Optional[str] = None, **kwargs: Any
                ) -> NDArray:
    """Adam without bias correction (``mx.optimizer.Adam`` folds it into ``lr``), with
    ``g = clip(rescale_grad * grad + wd * weight)``."""
    weight, grad, w = _buffers("adam_update", weight, grad, (("mean", mean), ("var", var)), out)
    g = prepare_grad(grad._data, w.dtype, rescale_grad, clip_gradient, w, wd)
    adam_step(w, g, mean._data, var._data, lr, beta1, beta2, epsilon)
    return _finish(weight, w, out, mean, var)


@_checked_hyper
def rmsprop_update(weight: NDArray, grad: NDArray, n: NDArray, lr: float, gamma1: float = 0.95,
                   epsilon: float = 1e-8, wd: float = 0.0, rescale_grad: float = 1.0,
                   clip_gradient: float = -1.0, clip_weights: float = -1.0,
                   out: Optional[NDArray] = None, name: Optional[str] = None, **kwargs: Any
                   ) -> NDArray:
    """RMSProp (Tieleman & Hinton) with ``g = clip(rescale_grad * grad + wd * weight)``."""
    weight, grad, w = _buffers("rmsprop_update", weight, grad, (("n", n),), out)
    g = prepare_grad(grad._data, w.dtype, rescale_grad, clip_gradient, w, wd)
    rmsprop_step(w, g, n._data, lr, gamma1, epsilon, clip_weights)
    return _finish(weight, w, out, n)


@_checked_hyper
def rmspropalex_update(weight: NDArray, grad: NDArray, n: NDArray, g: NDArray, delta: NDArray,
                       lr: float, gamma1: float = 0.95, gamma2: float = 0.9, epsilon: float = 1e-8,
                       wd: float = 0.0, rescale_grad: float = 1.0, clip_gradient: float = -1.0,
                       clip_weights: float = -1.0, out: Optional[NDArray] = None,
                       name: Optional[str] = None, **kwargs: Any) -> NDArray:
    """Centered RMSProp (Graves, 2013) with states ``n``, ``g`` and ``delta``."""
    weight, grad, w = _buffers("rmspropalex_update", weight, grad,
                               (("n", n), ("g", g), ("delta", delta)), out)
    gg = prepare_grad(grad._data, w.dtype, rescale_grad, clip_gradient, w, wd)
    rmspropalex_step(w, gg, n._data, g._data, delta._data, lr, gamma1, gamma2, epsilon,
                     clip_weights)
    return _finish(weight, w, out, n, g, delta)


@_checked_hyper
def ftrl_update(weight: NDArray, grad: NDArray, z: NDArray, n: NDArray, lr: float,
                lamda1: float = 0.01, beta: float = 1.0, wd: float = 0.0,
                rescale_grad: float = 1.0, clip_gradient: float = -1.0,
                out: Optional[NDArray] = None, name: Optional[str] = None, **kwargs: Any
                ) -> NDArray:
    """FTRL-Proximal with ``g = clip(rescale_grad * grad)``."""
    weight, grad, w = _buffers("ftrl_update", weight, grad, (("z", z), ("n", n)), out)
    g = prepare_grad(grad._data, w.dtype, rescale_grad, clip_gradient)
    ftrl_step(w, g, z._data, n._data, lr, lamda1, beta, wd)
    return _finish(weight, w, out, z, n)


@_checked_hyper
def ftml_update(weight: NDArray, grad: NDArray, d: NDArray, v: NDArray, z: NDArray, lr: float,
                t: int, beta1: float = 0.6, beta2: float = 0.999, epsilon: float = 1e-8,
                wd: float = 0.0, rescale_grad: float = 1.0, clip_grad: float = -1.0,
                out: Optional[NDArray] = None, name: Optional[str] = None, **kwargs: Any
                ) -> NDArray:
    """FTML at step ``t`` with ``g = clip(rescale_grad * grad + wd * weight, clip_grad)``."""
    weight, grad, w = _buffers("ftml_update", weight, grad, (("d", d), ("v", v), ("z", z)), out)
    g = prepare_grad(grad._data, w.dtype, rescale_grad, clip_grad, w, wd)
    ftml_step(w, g, d._data, v._data, z._data, lr, int(t), beta1, beta2, epsilon)
    return _finish(weight, w, out, d, v, z)


@_checked_hyper
def lamb_update_phase1(weight: NDArray, grad: NDArray, mean: NDArray, var: NDArray, t: int,
                       beta1: float = 0.9, beta2: float = 0.999, epsilon: float = 1e-6,
                       bias_correction: bool = True, wd: float = 0.0, rescale_grad: float = 1.0,
                       clip_gradient: float = -1.0, out: Optional[NDArray] = None,
                       name: Optional[str] = None, **kwargs: Any) -> NDArray:
    """LAMB phase 1: update ``mean``/``var``; return the direction ``g`` (weight unchanged)."""
    weight, grad, w = _buffers("lamb_update_phase1", weight, grad,
                               (("mean", mean), ("var", var)), None)
    g = prepare_grad(grad._data, w.dtype, rescale_grad, clip_gradient)
    r = lamb_direction(weight._data, g, mean._data, var._data, int(t), beta1, beta2, epsilon,
                       bias_correction, wd).astype(w.dtype, copy=False)
    mean._write()
    var._write()
    if out is None:
        return wrap(r)
    _nd(out, "out", "lamb_update_phase1")._write(r)
    return out


@_checked_hyper
def lamb_update_phase2(weight: NDArray, g: NDArray, r1: NDArray, r2: NDArray, lr: float,
                       lower_bound: float = -1.0, upper_bound: float = -1.0,
                       out: Optional[NDArray] = None, name: Optional[str] = None, **kwargs: Any
                       ) -> NDArray:
    """LAMB phase 2: ``weight - lr * trust * g`` with trust from the norms ``r1`` (weight)
    and ``r2`` (direction), each a 1-element NDArray or number."""
    weight, g, w = _buffers("lamb_update_phase2", weight, g, (), out)
    n1 = float(r1.asnumpy().reshape(-1)[0]) if isinstance(r1, NDArray) else float(r1)
    n2 = float(r2.asnumpy().reshape(-1)[0]) if isinstance(r2, NDArray) else float(r2)
    lamb_apply(w, g._data, n1, n2, lr, lower_bound, upper_bound)
    return _finish(weight, w, out)


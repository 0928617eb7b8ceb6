"""Neural-network ops: FullyConnected, activations, softmax family, Dropout, the
normalisations (BatchNorm, LayerNorm, InstanceNorm, GroupNorm), Embedding and the
softmax losses. Convolution and pooling live in ``conv``.

Hot paths have fused NumPy forwards and fused backward *ops*: the gradient of softmax is
the op ``_softmax_backward``, the gradient of a normalisation is ``_norm_backward``.
Those backward ops have their own gradient rules, written with mxgrad ops, so every op
here has derivatives of any order while an ordinary backward costs a handful of NumPy
calls.

Normalisations are built from two pieces:

* ``_normalize(x, axes, eps) -> (xhat, mean, var)`` standardises ``x`` over ``axes``
  (biased variance), in one fused forward;
* ``_affine(x, scale, shift) = x * scale + shift`` with broadcast parameters.

BatchNorm in training mode updates ``moving_mean``/``moving_var`` **in the forward
call** (``running = momentum * running + (1 - momentum) * batch``, biased batch
variance); MXNet's CPU kernel does it during backward, so a training forward without
backward leaves MXNet's statistics stale.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Sequence, Union

import math

import numpy as np

from ..base import DTypeError, ShapeError, StateError, as_dtype
from .._engine.ndarray import NDArray, wrap
from .._engine.scope import state
from .._rng import generator as _generator
from .._typing import DTypeLike
from .._threads import matmul as _matmul   # np.matmul on the thread policy's threads

try:   # np.einsum without its Python wrapper (same function for two plain operands)
    from numpy._core.multiarray import c_einsum as _c_einsum
except ImportError:  # pragma: no cover - other NumPy layouts
    _c_einsum = np.einsum
from . import _dtype_rules as _dr, _shape_rules as _sr
from .._check import guard as _guard
from ._mxnet_op import flag_set, flag_unset, mxnet_op, optional_inputs
from ._core import Op, PerCall, defop, call, call1, call2, as_array, no_grad
from .reduce import sum as _sum, mean as _mean, reshape_exact
from .linalg import dot
from . import elemwise as _ew
from .conv import _check_dtypes    # one home for the layers' dtype rule
from .shape import repeat as _repeat

__all__ = ["FullyConnected", "Activation", "LeakyReLU", "softmax", "log_softmax", "softmin",
           "SoftmaxActivation", "Dropout", "BatchNorm", "LayerNorm", "InstanceNorm",
           "GroupNorm", "Embedding", "softmax_cross_entropy",
           "log_sigmoid", "mish", "hard_sigmoid", "softrelu", "gelu"]


def _arr(x, op, arg="data"):
    if isinstance(x, NDArray) or type(x) is np.ndarray:
        return x
    return as_array(x, op, arg)


def _raw(x):
    return x if type(x) is np.ndarray else x._data


def _is_const_zero(a):
    """True if ``a`` is an all-zero cotangent that carries no graph (safe to skip)."""
    if a is None:
        return True
    if type(a) is np.ndarray:
        return not a.any()
    return a._node is None and not a._data.any()


# ============================================================ FullyConnected
def _fc_shapes(xshape, wshape, flatten):
    if flatten:
        m = xshape[0] if xshape else 1
        k = 1
        for s in xshape[1:]:
            k *= s
        oshape = (m, wshape[0])
    else:
        k = xshape[-1]
        m = 1
        for s in xshape[:-1]:
            m *= s
        oshape = tuple(xshape[:-1]) + (wshape[0],)
    return m, k, oshape


# np.matmul rather than np.dot for these 2-D products: the same BLAS call and bits, but
# np.dot zero-fills its output first (an extra pass over every product)
def _fc_fwd(x, w, b, flatten, out=None):
    if x.ndim == 2 and w.ndim == 2 and x.shape[1] == w.shape[1]:   # the common case
        out = _matmul(x, w.T, out=out)
        if b is not None:
            out += b
        return out
    m, k, oshape = _fc_shapes(x.shape, w.shape, flatten)
    if w.ndim != 2 or w.shape[1] != k:
        raise ShapeError(
            f"FullyConnected: weight of shape {w.shape} does not fit data of shape {x.shape} "
            f"(flatten={flatten}): the weight must be (num_hidden, {k})")
    if out is not None and not out.flags.c_contiguous:   # (no (m, n) view of it)
        np.copyto(out, _fc_fwd(x, w, b, flatten))
        return out
    res = _matmul(x.reshape(m, k), w.T, out=None if out is None else out.reshape(m, -1))
    if b is not None:
        res += b
    return res.reshape(oshape) if out is None else out


def _fc_gx(g, y, x, w, b, flatten):
    m, k, _ = _fc_shapes(x.shape, w.shape, flatten)
    return reshape_exact(dot(reshape_exact(g, (m, w.shape[0])), w), x.shape)


def _fc_gw(g, y, x, w, b, flatten):
    m, k, _ = _fc_shapes(x.shape, w.shape, flatten)
    return dot(reshape_exact(g, (m, w.shape[0])), reshape_exact(x, (m, k)), transpose_a=True)


def _fc_gb(g, y, x, w, b, flatten):
    return _sum(reshape_exact(g, (_prod(g.shape[:-1]), w.shape[0])), axis=0)


def _prod(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def _fc_gx_raw(g, y, x, w, b, flatten):
    if x.ndim == 2 and g.ndim == 2:
        return _matmul(g, w)
    m, k, _ = _fc_shapes(x.shape, w.shape, flatten)
    return _matmul(g.reshape(m, w.shape[0]), w).reshape(x.shape)


def _fc_gw_raw(g, y, x, w, b, flatten):
    if x.ndim == 2 and g.ndim == 2:
        return _matmul(g.T, x)
    m, k, _ = _fc_shapes(x.shape, w.shape, flatten)
    return _matmul(g.reshape(m, w.shape[0]).T, x.reshape(m, k))


def _fc_gb_raw(g, y, x, w, b, flatten):
    return np.add.reduce(g if g.ndim == 2 else g.reshape(-1, w.shape[0]), axis=0)


_FC: Op = defop("FullyConnected", _fc_fwd, [_fc_gx, _fc_gw, _fc_gb],
            [lambda t, y, x, w, b, flatten: call(_FC, (t, w, None), {"flatten": flatten}),
             lambda t, y, x, w, b, flatten: call(_FC, (x, t, None), {"flatten": flatten}),
             lambda t, y, x, w, b, flatten: t], save=(0, 1),
            raw_grads=[_fc_gx_raw, _fc_gw_raw, _fc_gb_raw], takes_out=True)


def FullyConnected(data: NDArray, weight: NDArray, bias: Optional[NDArray] = None,
                   num_hidden: Optional[int] = None, no_bias: bool = False, flatten: bool = True,
                   **kwargs: Any) -> NDArray:
    """Fully connected layer: ``out = data . weight^T + bias``.

    Parameters
    ----------
    data : NDArray
        With ``flatten=True`` (default) shape ``(batch, ...)``, all axes after the
        first are flattened; with ``flatten=False`` the product applies to the last
        axis and the other axes are kept.
    weight : NDArray
        Shape ``(num_hidden, in_units)``.
    bias : NDArray, optional
        Shape ``(num_hidden,)``; ignored when ``no_bias=True``.
    num_hidden : int, optional
        Number of outputs (checked against ``weight``; inferred when omitted).
    no_bias : bool, default False
    flatten : bool, default True

    Returns
    -------
    NDArray
        ``(batch, num_hidden)`` or ``data.shape[:-1] + (num_hidden,)``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> x = mx.nd.ones((2, 3, 4))
    >>> w = mx.nd.ones((5, 12)); b = mx.nd.arange(5)
    >>> mx.nd.FullyConnected(x, w, b, num_hidden=5)
    <BLANKLINE>
    [[12. 13. 14. 15. 16.]
     [12. 13. 14. 15. 16.]]
    <NDArray 2x5 @cpu(0)>
    >>> mx.nd.FullyConnected(x, mx.nd.ones((5, 4)), no_bias=True, flatten=False).shape
    (2, 3, 5)
    """
    data = _arr(data, "FullyConnected")
    weight = _arr(weight, "FullyConnected", "weight")
    if no_bias:
        bias = None
    elif bias is not None:
        bias = _arr(bias, "FullyConnected", "bias")
    wshape = weight.shape
    if len(wshape) != 2:
        raise ShapeError(f"FullyConnected: weight must be 2-D (num_hidden, in_units), got "
                         f"shape {wshape}")
    if num_hidden is not None and int(num_hidden) != wshape[0]:
        raise ShapeError(f"FullyConnected: num_hidden={num_hidden} but weight has shape "
                         f"{wshape} (num_hidden rows)")
    if bias is not None and tuple(bias.shape) != (wshape[0],):
        raise ShapeError(f"FullyConnected: bias must have shape ({wshape[0]},), got "
                         f"{bias.shape}")
    if data.ndim == 0:
        raise ShapeError("FullyConnected: data must have at least one dimension")
    dd = _raw(data).dtype
    if _raw(weight).dtype != dd:
        raise DTypeError(f"FullyConnected: data ({dd}) and weight ({_raw(weight).dtype}) "
                         f"must have the same dtype")
    return call(_FC, (data, weight, bias), {"flatten": bool(flatten)})


def _fc_shape(kw, ins, outs):
    """FullyConnected's shape rule: the weight ``(num_hidden, features)`` from the data,
    the data's batch size from the output (MXNet's rule needs the data's rank)."""
    n = int(kw["num_hidden"])
    flatten = kw.get("flatten", True)
    d, o = ins[0], outs[0]
    if d is None:
        return list(ins), list(outs)
    fin = _sr.prod(d[1:]) if flatten else d[-1]
    new_ins = [d, (n, fin)]
    if len(ins) > 2:
        new_ins.append(ins[2] if ins[2] == (n, 1) else (n,))
    o = _sr.merge(o, (d[0], n) if flatten else tuple(d[:-1]) + (n,))
    new_ins[0] = _sr.merge(d, (o[0],) + (-1,) * (len(d) - 1))
    return new_ins, [o]


mxnet_op("FullyConnected", ("data", "weight", "bias"), params=("weight", "bias"),
         shape=_fc_shape, takes=optional_inputs(bias=flag_unset("no_bias")))


# ============================================================ activations
def _softrelu_fwd(x):
    return np.logaddexp(0, x).astype(x.dtype, copy=False)


_SOFTRELU = defop("softrelu", _softrelu_fwd, [lambda g, y, x: g * _ew.sigmoid(x)],
                  [lambda t, y, x: t * _ew.sigmoid(x)], save=(0,))


def softrelu(data: NDArray, **kwargs: Any) -> NDArray:
    """Soft ReLU (softplus), ``log(1 + exp(x))``, computed stably.

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.softrelu(mx.nd.array([0., 100.]))
    <BLANKLINE>
    [  0.6931472 100.       ]
    <NDArray 2 @cpu(0)>
    """
    return call1(_SOFTRELU, _arr(data, "softrelu"))


def _log_sigmoid_fwd(x):
    return (-np.logaddexp(0, -x)).astype(x.dtype, copy=False)


_LOG_SIGMOID = defop("log_sigmoid", _log_sigmoid_fwd,
                     [lambda g, y, x: g * _ew.sigmoid(-x)],
                     [lambda t, y, x: t * _ew.sigmoid(-x)], save=(0,))


def log_sigmoid(data: NDArray, **kwargs: Any) -> NDArray:
    """``log(sigmoid(x))``, computed stably.

    Examples
    --------
    >>> import mxgrad as mx
    >>> round(float(mx.nd.log_sigmoid(mx.nd.array([0.])).asscalar()), 4)
    -0.6931
    """
    return call1(_LOG_SIGMOID, _arr(data, "log_sigmoid"))


def mish(data: NDArray, **kwargs: Any) -> NDArray:
    """Mish, ``x * tanh(softrelu(x))``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> round(float(mx.nd.mish(mx.nd.array([1.])).asscalar()), 4)
    0.8651
    """
    data = _arr(data, "mish")
    return data * _ew.tanh(softrelu(data))


def hard_sigmoid(data: NDArray, alpha: float = 0.2, beta: float = 0.5, **kwargs: Any) -> NDArray:
    """``clip(alpha * x + beta, 0, 1)`` (gradient ``alpha`` inside, 0 outside).

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.hard_sigmoid(mx.nd.array([-5., 0., 5.]))
    <BLANKLINE>
    [0.  0.5 1. ]
    <NDArray 3 @cpu(0)>
    """
    data = _arr(data, "hard_sigmoid")
    return _ew.clip(data * float(alpha) + float(beta), 0.0, 1.0)


mxnet_op("hard_sigmoid", shape=_sr.same)


_ACT_TYPES: Dict[str, Callable[..., Any]] = {
    "relu": _ew.relu,
    "sigmoid": _ew.sigmoid,
    "tanh": _ew.tanh,
    "softrelu": softrelu,
    "softsign": _ew.softsign,
    "log_sigmoid": log_sigmoid,
    "mish": mish,
}


def Activation(data: NDArray, act_type: str, **kwargs: Any) -> NDArray:
    """Apply an activation function elementwise.

    Parameters
    ----------
    data : NDArray
    act_type : {'relu', 'sigmoid', 'tanh', 'softrelu', 'softsign', 'log_sigmoid', 'mish'}
        ``softrelu`` is ``log(1 + exp(x))``; ``softsign`` is ``x / (1 + |x|)``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.Activation(mx.nd.array([-1., 2.]), act_type='relu')
    <BLANKLINE>
    [0. 2.]
    <NDArray 2 @cpu(0)>
    """
    fn = _ACT_TYPES.get(act_type)
    if fn is None:
        raise StateError(f"Activation: unknown act_type {act_type!r}; choose one of "
                         f"{sorted(_ACT_TYPES)}")
    return fn(_arr(data, "Activation"))


mxnet_op("Activation", shape=_sr.same)


# ------------------------------------------------------------- LeakyReLU
def _pos_mask_fwd(x):
    return (x > 0).astype(x.dtype)


_POS_MASK = defop("_positive_mask", _pos_mask_fwd, None, None, save=())


def _pos_mask(x):
    return call1(_POS_MASK, x)


def _leaky_fwd(x, slope):
    return np.where(x > 0, x, x * slope).astype(x.dtype, copy=False)


def _leaky_factor_fwd(x, slope):
    return np.where(x > 0, np.ones((), x.dtype), slope).astype(x.dtype, copy=False)


_LEAKY_FACTOR = defop("_leaky_factor", _leaky_factor_fwd, None, None, save=())


def _leaky_rule(g, y, x, slope):
    return g * call1(_LEAKY_FACTOR, x, {"slope": slope})


_LEAKY = defop("leaky_relu", _leaky_fwd, [_leaky_rule], [_leaky_rule], save=(0,))


def _prelu_fwd(x, gamma):
    return np.where(x > 0, x, x * gamma).astype(x.dtype, copy=False)


def _prelu_gx(g, y, x, gamma):
    pos = _pos_mask(x)
    return g * (pos + (1.0 - pos) * gamma)


def _prelu_gg(g, y, x, gamma):
    return g * x * (1.0 - _pos_mask(x))


_PRELU = defop("prelu", _prelu_fwd, [_prelu_gx, _prelu_gg], [_prelu_gx, _prelu_gg])


def _elu_fwd(x, alpha, scale):
    neg = np.minimum(x, 0)
    np.expm1(neg, out=neg)
    neg *= alpha
    r = np.where(x > 0, x, neg)
    if scale != 1.0:
        r *= scale
    return r.astype(x.dtype, copy=False)


def _elu_deriv_fwd(x, alpha, scale, order):
    e = np.exp(np.minimum(x, 0))
    e *= alpha * scale
    return np.where(x > 0, np.asarray(scale if order == 1 else 0.0, x.dtype), e) \
        .astype(x.dtype, copy=False)


def _elu_deriv(x, alpha, scale, order):
    return call1(_ELU_DERIV, x, {"alpha": alpha, "scale": scale, "order": order})


_ELU_DERIV = defop("_elu_derivative", _elu_deriv_fwd,
                   [lambda g, y, x, alpha, scale, order: g * _elu_deriv(x, alpha, scale, 2)],
                   [lambda t, y, x, alpha, scale, order: t * _elu_deriv(x, alpha, scale, 2)],
                   save=(0,))
_ELU = defop("elu", _elu_fwd,
             [lambda g, y, x, alpha, scale: g * _elu_deriv(x, alpha, scale, 1)],
             [lambda t, y, x, alpha, scale: t * _elu_deriv(x, alpha, scale, 1)], save=(0,))

_SQRT_HALF = 1.0 / math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_LAMBDA = 1.0507009873554804934193349852946


def _gelu_fwd(x):
    e = _ew.erf(x * _SQRT_HALF)
    e += 1.0
    e *= x
    e *= 0.5
    return e.astype(x.dtype, copy=False)


def _gelu_deriv(x):
    # Phi(x) + x * phi(x)
    return 0.5 * (_ew.erf(x * _SQRT_HALF) + 1.0) + x * _ew.exp(x * x * -0.5) * _INV_SQRT_2PI


_GELU = defop("gelu", _gelu_fwd, [lambda g, y, x: g * _gelu_deriv(x)],
              [lambda t, y, x: t * _gelu_deriv(x)], save=(0,))


def gelu(data: NDArray, **kwargs: Any) -> NDArray:
    """GELU, ``0.5 * x * (1 + erf(x / sqrt(2)))`` (the erf form, as MXNet).

    Examples
    --------
    >>> import mxgrad as mx
    >>> round(float(mx.nd.gelu(mx.nd.array([1.])).asscalar()), 4)
    0.8413
    """
    return call1(_GELU, _arr(data, "gelu"))


_LEAKY_TYPES = ("elu", "gelu", "leaky", "prelu", "rrelu", "selu")


def LeakyReLU(data: NDArray, gamma: Optional[NDArray] = None, act_type: str = "leaky",
              slope: float = 0.25, lower_bound: float = 0.125, upper_bound: float = 0.334,
              **kwargs: Any) -> NDArray:
    """Leaky rectified linear units and relatives.

    * ``leaky``: ``x if x > 0 else slope * x``;
    * ``prelu``: like leaky with a learnable slope ``gamma``, one per channel (axis 1)
      or a single value;
    * ``rrelu``: leaky with a slope drawn uniformly from ``[lower_bound, upper_bound)``
      per element in training mode, ``(lower_bound + upper_bound) / 2`` otherwise;
    * ``elu``: ``x if x > 0 else slope * (exp(x) - 1)``;
    * ``selu``: ``lambda * (x if x > 0 else alpha * (exp(x) - 1))`` with the standard
      constants;
    * ``gelu``: ``0.5 * x * (1 + erf(x / sqrt(2)))``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> x = mx.nd.array([-2., 3.])
    >>> mx.nd.LeakyReLU(x, slope=0.1)
    <BLANKLINE>
    [-0.2  3. ]
    <NDArray 2 @cpu(0)>
    >>> mx.nd.LeakyReLU(mx.nd.ones((1, 2)) * -1, gamma=mx.nd.array([0.5, 0.25]),
    ...                 act_type='prelu')
    <BLANKLINE>
    [[-0.5  -0.25]]
    <NDArray 1x2 @cpu(0)>
    """
    data = _arr(data, "LeakyReLU")
    if act_type == "leaky":
        return call1(_LEAKY, data, {"slope": float(slope)})
    if act_type == "elu":
        return call1(_ELU, data, {"alpha": float(slope), "scale": 1.0})
    if act_type == "selu":
        return call1(_ELU, data, {"alpha": _SELU_ALPHA, "scale": _SELU_LAMBDA})
    if act_type == "gelu":
        return call1(_GELU, data)
    if act_type == "prelu":
        if gamma is None:
            raise StateError("LeakyReLU(act_type='prelu') needs the learnable slope `gamma`")
        gamma = _arr(gamma, "LeakyReLU", "gamma")
        _check_dtypes("LeakyReLU", data, gamma=gamma)
        return call2(_PRELU, data, _channel_param(gamma, data.shape, 1, "LeakyReLU", "gamma",
                                                  allow_scalar=True))
    if act_type == "rrelu":
        lo, hi = float(lower_bound), float(upper_bound)
        sl: Union[np.ndarray, float]
        if state.training:
            from .._rng import generator
            dt = _raw(data).dtype
            sl = generator().uniform(lo, hi, size=data.shape).astype(dt)
        else:
            sl = (lo + hi) / 2.0
        return call1(_LEAKY, data, {"slope": sl})
    raise StateError(f"LeakyReLU: unknown act_type {act_type!r}; choose one of "
                     f"{list(_LEAKY_TYPES)}")


def _leaky_relu_run(inputs, kwargs):
    """LeakyReLU; ``rrelu`` also has MXNet's second output, the mask (zeros when not
    training: the fixed slope ``(lower + upper) / 2`` is used)."""
    # _guard: the function as mx.nd holds it, with the namespace's argument guard (one
    # wrapper per function, cached), so a loaded graph's bad attribute fails as a call does
    out = _guard(LeakyReLU, "nd.LeakyReLU")(*inputs, **kwargs)
    if kwargs.get("act_type") == "rrelu":
        return out, _ew.zeros_like(out)
    return out


def _leaky_relu_shape(kw, ins, outs):
    """LeakyReLU's shapes: the output the data's, ``gamma`` one value per channel."""
    (d,), o = _sr.same(kw, ins[:1], outs)
    new = [d]
    if len(ins) > 1:
        new.append((d[1] if len(d) > 1 else 1,) if d is not None else ins[1])
    return new, o


def _rrelu_outputs(kw):
    """``rrelu`` has a second output, the mask."""
    return 2 if kw.get("act_type") == "rrelu" else 1


mxnet_op("LeakyReLU", ("data", "gamma"), params=("gamma",), run=_leaky_relu_run,
         outputs=_rrelu_outputs, visible=_rrelu_outputs, out_names=("output", "mask"),
         shape=_leaky_relu_shape,
         takes=optional_inputs(gamma=lambda kw: kw.get("act_type") == "prelu"))


def _channel_param(p, dshape, axis, op, arg, allow_scalar=False):
    """Reshape a per-channel parameter ``(C,)`` to broadcast along ``axis`` of ``dshape``."""
    nd_ = len(dshape)
    size = p.size if type(p) is np.ndarray else p._data.size
    if allow_scalar and size == 1:
        return reshape_exact(p, (1,) * nd_)
    if nd_ <= axis:
        if tuple(p.shape) == tuple(dshape):
            return p
        raise ShapeError(f"{op}: {arg} of shape {p.shape} does not fit data of shape {dshape}")
    c = dshape[axis]
    if tuple(p.shape) != (c,):
        raise ShapeError(f"{op}: {arg} must have shape ({c},) (the size of axis {axis} of "
                         f"data {dshape}), got {p.shape}")
    bshape = (1,) * axis + (c,) + (1,) * (nd_ - axis - 1)
    return reshape_exact(p, bshape)


# ============================================================ softmax family
def _norm_axis(axis, ndim, op):
    axis = int(axis)
    if not -ndim <= axis < ndim:
        raise ShapeError(f"{op}: axis {axis} is out of range for an array with {ndim} "
                         f"dimensions")
    return axis % ndim


def _floating(x):
    return x if x.dtype.kind == "f" else x.astype(np.float32)


def _softmax_fwd(x, axis, temperature, mask):
    x = _floating(x)
    if x.size == 0:          # a zero-size input (mx.np): nothing to normalise
        return x.copy()
    z = x / temperature if temperature != 1.0 else x
    if mask is not None:
        z = np.where(mask, z, -np.inf)
    m = np.max(z, axis=axis, keepdims=True)
    if mask is not None:
        m[~np.isfinite(m)] = 0
    e = np.subtract(z, m, out=z if z is not x else None)
    np.exp(e, out=e)
    s = np.sum(e, axis=axis, keepdims=True)
    if mask is not None:
        s[s == 0] = 1
    e /= s
    return e.astype(x.dtype, copy=False)


def _sm_bwd_fwd(g, y, axis):
    r = g - np.sum(g * y, axis=axis, keepdims=True)
    r *= y
    return r


def _sm_bwd(g, y, axis):
    return call2(_SM_BWD, g, y, {"axis": axis})


def _sm_bwd_gy(h, r, g, y, axis):
    s = _sum(g * y, axis=axis, keepdims=True)
    return h * (g - s) - g * _sum(h * y, axis=axis, keepdims=True)


def _sm_bwd_jy(t, r, g, y, axis):
    return t * (g - _sum(g * y, axis=axis, keepdims=True)) - \
        y * _sum(g * t, axis=axis, keepdims=True)


_SM_BWD = defop("_softmax_backward", _sm_bwd_fwd,
                [lambda h, r, g, y, axis: _sm_bwd(h, y, axis), _sm_bwd_gy],
                [lambda t, r, g, y, axis: _sm_bwd(t, y, axis), _sm_bwd_jy])


def _scaled(r, temperature):
    return r if temperature == 1.0 else r * (1.0 / temperature)


_SOFTMAX = defop(
    "softmax", _softmax_fwd,
    [lambda g, y, x, axis, temperature, mask: _scaled(_sm_bwd(g, y, axis), temperature)],
    [lambda t, y, x, axis, temperature, mask: _scaled(_sm_bwd(t, y, axis), temperature)],
    save=(), save_out=True)


def _log_softmax_fwd(x, axis, temperature):
    x = _floating(x)
    if x.size == 0:
        return x.copy()
    z = x / temperature if temperature != 1.0 else x
    z = np.subtract(z, np.max(z, axis=axis, keepdims=True), out=z if z is not x else None)
    z -= np.log(np.sum(np.exp(z), axis=axis, keepdims=True))
    return z.astype(x.dtype, copy=False)


def _lsm_bwd_fwd(g, y, axis):
    r = np.exp(y)
    r *= np.sum(g, axis=axis, keepdims=True)
    np.subtract(g, r, out=r)
    return r


def _lsm_bwd(g, y, axis):
    return call2(_LSM_BWD, g, y, {"axis": axis})


_LSM_BWD = defop(
    "_log_softmax_backward", _lsm_bwd_fwd,
    [lambda h, r, g, y, axis: h - _sum(h * _ew.exp(y), axis=axis, keepdims=True),
     lambda h, r, g, y, axis: -(h * _ew.exp(y)) * _sum(g, axis=axis, keepdims=True)],
    [lambda t, r, g, y, axis: _lsm_bwd(t, y, axis),
     lambda t, r, g, y, axis: -(t * _ew.exp(y)) * _sum(g, axis=axis, keepdims=True)])

_LOG_SOFTMAX = defop(
    "log_softmax", _log_softmax_fwd,
    [lambda g, y, x, axis, temperature: _scaled(_lsm_bwd(g, y, axis), temperature)],
    [lambda t, y, x, axis, temperature:
     _scaled(t - _sum(_ew.exp(y) * t, axis=axis, keepdims=True), temperature)],
    save=(), save_out=True)


def _temperature(t, op):
    if t is None:
        return 1.0
    t = float(t)
    if t == 0.0:
        raise StateError(f"{op}: temperature must be non-zero")
    return t


def _check_length(length, shape, axis):
    expect = shape[:axis] + shape[axis + 1:]
    if tuple(length.shape) != tuple(expect):
        raise ShapeError(f"softmax: length must have shape {expect} (data {shape} without "
                         f"axis {axis}), got {length.shape}")


def _length_mask(length, shape, axis):
    """Where entries along ``axis`` of an array of ``shape`` lie before their ``length``
    (NumPy; ``length`` has ``shape`` without ``axis``)."""
    _check_length(length, shape, axis)
    idx = np.arange(shape[axis]).reshape((-1,) + (1,) * (len(shape) - axis - 1))
    return idx < np.expand_dims(length.astype(np.int64), axis)


# softmax with lengths: one op of (data, length) whose forward makes the mask from the
# lengths (so a planned graph runs it as an op step); the rule reads the output only,
# which is 0 past the lengths; the lengths get no gradient
_SOFTMAX_LEN: Op = defop(
    "softmax", lambda x, length, axis, temperature: _softmax_fwd(
        x, axis, temperature, _length_mask(length, x.shape, axis)),
    [lambda g, y, x, n, axis, temperature: _scaled(_sm_bwd(g, y, axis), temperature),
     lambda g, y, x, n, axis, temperature: None],
    [lambda t, y, x, n, axis, temperature: _scaled(_sm_bwd(t, y, axis), temperature),
     lambda t, y, x, n, axis, temperature: None],
    save=(), save_out=True)


def _out_dtype(r, dtype):
    if dtype is None:
        return r
    dt = as_dtype(dtype)
    return r if _raw(r).dtype == dt else _ew.cast(r, dt)


def softmax(data: NDArray, length: Optional[NDArray] = None, axis: int = -1,
            temperature: Optional[float] = None, dtype: DTypeLike = None, use_length: bool = False,
            **kwargs: Any) -> NDArray:
    """Softmax along ``axis``: ``exp(x/t) / sum(exp(x/t))``, computed stably.

    Parameters
    ----------
    data : NDArray
    length : NDArray, optional
        With ``use_length=True``: the number of valid entries along ``axis`` for each
        position of the other axes (shape ``data.shape`` without ``axis``); entries past
        the length get probability 0. (An int here is taken as ``axis``, so that
        ``softmax(x, 1)`` does what it reads like; MXNet would reject it.)
    axis : int, default -1
    temperature : float, optional
        ``t`` (1 when omitted).
    dtype : str, optional
        Output dtype (the input's by default).
    use_length : bool, default False

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.softmax(mx.nd.array([[1., 1.], [0., 1000.]]))
    <BLANKLINE>
    [[0.5 0.5]
     [0.  1. ]]
    <NDArray 2x2 @cpu(0)>
    >>> mx.nd.softmax(mx.nd.ones((2, 3)), axis=0)
    <BLANKLINE>
    [[0.5 0.5 0.5]
     [0.5 0.5 0.5]]
    <NDArray 2x3 @cpu(0)>
    """
    data = _arr(data, "softmax")
    if isinstance(length, (int, np.integer)) and not isinstance(length, bool) and axis == -1:
        axis, length = length, None    # softmax(x, 1): MXNet's 2nd parameter is `length`
    ax = _norm_axis(axis, data.ndim, "softmax")
    return _out_dtype(_softmax(data, length if use_length else None, ax,
                               _temperature(temperature, "softmax")), dtype)


def _softmax_shape(kw, ins, outs):
    """softmax's shapes: the output is the data's; ``length`` (with ``use_length``) has
    the data's shape without ``axis``."""
    (d,), o = _sr.same(kw, ins[:1], outs)
    new = [d]
    if len(ins) > 1:
        length = ins[1]
        if d is not None:
            ax = int(kw.get("axis", -1)) % len(d)
            length = _sr.merge(length, tuple(d[:ax]) + tuple(d[ax + 1:]))
        new.append(length)
    return new, o


mxnet_op("softmax", ("data", "length"), shape=_softmax_shape,
         takes=optional_inputs(length=flag_set("use_length")))


def _softmax(data, length, ax, t):
    """Softmax along ``ax`` with temperature ``t``; entries past ``length`` (when given)
    get probability 0."""
    if length is None:
        return call1(_SOFTMAX, data, {"axis": ax, "temperature": t, "mask": None})
    length = _arr(length, "softmax", "length")
    _check_length(length, tuple(data.shape), ax)             # before recording
    return call(_SOFTMAX_LEN, (data, length), {"axis": ax, "temperature": t})


def softmin(data: NDArray, axis: int = -1, temperature: Optional[float] = None,
            dtype: DTypeLike = None, use_length: bool = False, length: Optional[NDArray] = None,
            **kwargs: Any) -> NDArray:
    """Softmin along ``axis``: ``softmax(-x / t)``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.softmin(mx.nd.array([0., 1000.]))
    <BLANKLINE>
    [1. 0.]
    <NDArray 2 @cpu(0)>
    """
    data = _arr(data, "softmin")
    ax = _norm_axis(axis, data.ndim, "softmin")
    return _out_dtype(_softmax(data, length if use_length else None, ax,
                               -_temperature(temperature, "softmin")), dtype)


mxnet_op("softmin", shape=_sr.same)


def log_softmax(data: NDArray, axis: int = -1, temperature: Optional[float] = None,
                dtype: DTypeLike = None, use_length: bool = False, **kwargs: Any) -> NDArray:
    """Log of the softmax along ``axis``, computed stably (no overflow for large
    inputs, no ``log(0)``).

    Examples
    --------
    >>> import mxgrad as mx
    >>> [round(v, 4) for v in mx.nd.log_softmax(mx.nd.array([1., 2., .1])).asnumpy().tolist()]
    [-1.417, -0.417, -2.317]
    >>> mx.nd.log_softmax(mx.nd.array([0., 1000.]))
    <BLANKLINE>
    [-1000.     0.]
    <NDArray 2 @cpu(0)>
    """
    data = _arr(data, "log_softmax")
    ax = _norm_axis(axis, data.ndim, "log_softmax")
    r = call1(_LOG_SOFTMAX, data, {"axis": ax,
                                   "temperature": _temperature(temperature, "log_softmax")})
    return _out_dtype(r, dtype)


mxnet_op("log_softmax", shape=_sr.same)


def SoftmaxActivation(data: NDArray, mode: str = "instance", **kwargs: Any) -> NDArray:
    """Softmax over the last axes of each instance (``mode='instance'``, data flattened
    to ``(batch, -1)``) or over axis 1 (``mode='channel'``). Deprecated in MXNet; use
    :func:`softmax`.

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.SoftmaxActivation(mx.nd.ones((1, 2, 2))).asnumpy().tolist()
    [[[0.25, 0.25], [0.25, 0.25]]]
    """
    data = _arr(data, "SoftmaxActivation")
    if mode == "channel":
        return softmax(data, axis=1)
    if mode != "instance":
        raise StateError(f"SoftmaxActivation: mode must be 'instance' or 'channel', got "
                         f"{mode!r}")
    flat = reshape_exact(data, (data.shape[0], _prod(data.shape[1:])))
    return reshape_exact(softmax(flat, axis=-1), data.shape)


mxnet_op("SoftmaxActivation", shape=_sr.same)


# ================================================================= Dropout
class _DropMask(PerCall):
    """The mask (``keep / (1 - p)`` or 0 per element, of the mask shape) one Dropout
    forward drew, kept for its rules."""
    __slots__ = ("mask",)

    def __init__(self):
        self.mask = None


def _dropout_fwd(x, p, mshape, drawn):
    """``x * mask``, the mask drawn here from mxgrad's generator (so a planned graph,
    running this op as an op step, draws the imperative masks in the same order)."""
    dt = x.dtype
    if p >= 1.0:
        mask = np.zeros(mshape, dt)
    else:
        keep = 1.0 - p
        u = _generator().random(mshape, dtype=np.float64 if dt == np.float64 else np.float32)
        mask = np.multiply(u < keep, 1.0 / keep, dtype=dt)
    drawn.mask = mask
    return np.multiply(x, mask, dtype=dt)


_DROPOUT: Op = defop("Dropout", _dropout_fwd, [lambda g, y, x, drawn, **a: g * drawn.mask],
                 [lambda t, y, x, drawn, **a: t * drawn.mask], save=())


def Dropout(data: NDArray, p: float = 0.5, mode: str = "training", axes: Sequence[int] = (),
            cudnn_off: bool = False, **kwargs: Any) -> NDArray:
    """Inverted dropout: each element is zeroed with probability ``p`` and kept
    elements are scaled by ``1/(1-p)``, so the expectation is unchanged; the gradient
    is ``mask/(1-p)``.

    Active when ``mx.autograd.is_training()`` is true (inside ``record()``, under
    ``train_mode()`` even without recording, under ``pause(train_mode=True)``) or when
    ``mode='always'``; otherwise the identity (a copy of ``data``).

    Parameters
    ----------
    data : NDArray
    p : float, default 0.5
        Drop probability.
    mode : {'training', 'always'}, default 'training'
    axes : tuple of int, default ()
        Axes along which one mask value is shared (variational dropout).

    Examples
    --------
    >>> import mxgrad as mx
    >>> x = mx.nd.ones((2, 4))
    >>> mx.nd.Dropout(x, p=0.5).asnumpy().tolist()   # not training: identity
    [[1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0]]
    >>> with mx.autograd.train_mode():
    ...     y = mx.nd.Dropout(x, p=0.5)
    >>> sorted(set(y.asnumpy().ravel().tolist())) in ([0.0, 2.0], [0.0], [2.0])
    True
    """
    data = _arr(data, "Dropout")
    p = float(p)
    if not 0.0 <= p <= 1.0:
        raise StateError(f"Dropout: p must be in [0, 1], got {p}")
    if mode not in ("training", "always"):
        raise StateError(f"Dropout: mode must be 'training' or 'always', got {mode!r}")
    if not (mode == "always" or state.training) or p == 0.0:
        if type(data) is np.ndarray:
            return data.copy()
        return _ew.identity_copy(data)
    shape = data.shape
    if axes:
        if isinstance(axes, int):
            axes = (axes,)
        ax = {_norm_axis(a, len(shape), "Dropout") for a in axes}
        mshape = tuple(1 if i in ax else s for i, s in enumerate(shape))
    else:
        mshape = shape
    return call1(_DROPOUT, data, {"p": p, "mshape": tuple(mshape), "drawn": _DropMask()})


mxnet_op("Dropout", outputs=2, visible=1, out_names=("output", "mask"), shape=_sr.same)


# ============================================================ normalisation
def _inv_std(var, eps):
    """``1 / sqrt(var + eps)`` (a new array); a constant group with ``eps == 0`` gives 0
    (as MXNet), not NaN."""
    inv = var + eps
    np.sqrt(inv, out=inv)
    if eps > 0:
        np.divide(1.0, inv, out=inv)
    else:
        with np.errstate(divide="ignore"):
            np.divide(1.0, inv, out=inv)
        inv[~np.isfinite(inv)] = 0
    return inv


def _normalize_fwd(x, axes, eps):
    if x.size == 0:   # an empty batch: nothing to standardise; its mean and variance are
        # undefined (NaN), given without NumPy's "Mean of empty slice" warnings
        shape = tuple(1 if i in axes or i - x.ndim in axes else n
                      for i, n in enumerate(x.shape))
        dt = x.dtype if x.dtype.kind == "f" else np.float64
        return x.astype(dt), np.full(shape, np.nan, dt), np.full(shape, np.nan, dt)
    mean = np.mean(x, axis=axes, keepdims=True)
    xc = x - mean
    var = np.mean(np.square(xc), axis=axes, keepdims=True)
    xc *= _inv_std(var, eps)
    return xc, mean.astype(x.dtype, copy=False), var.astype(x.dtype, copy=False)


def _count(shape, axes):
    n = 1
    for a in axes:
        n *= shape[a]
    return n


def _normalize_grad(g, out, x, axes, eps):
    g0, g1, g2 = g
    xhat, mean, var = out
    invstd = _ew.rsqrt(var + eps)
    n = float(_count(xhat.shape, axes))
    gx = _norm_bwd(g0, xhat, invstd, axes)
    if not _is_const_zero(g1):
        gx = gx + g1 * (1.0 / n)
    if not _is_const_zero(g2):
        gx = gx + (g2 * (2.0 / n)) * (xhat / invstd)
    return gx


def _normalize_jvp(t, out, x, axes, eps):
    xhat, mean, var = out
    invstd = _ew.rsqrt(var + eps)
    dmean = _mean(t, axis=axes, keepdims=True)
    dvar = _mean(xhat * t, axis=axes, keepdims=True) * 2.0 / invstd
    return _norm_bwd(t, xhat, invstd, axes), dmean, dvar


_NORMALIZE = defop("_normalize", _normalize_fwd, [_normalize_grad], [_normalize_jvp],
                   save=(), save_out=True, nout=3)


def _normalize(x, axes, eps):
    """(xhat, mean, var) of ``x`` over ``axes`` (kept dims), biased variance."""
    return call1(_NORMALIZE, x, {"axes": tuple(axes), "eps": float(eps)})


def _norm_bwd_fwd(gh, xhat, invstd, axes):
    if gh.size == 0:      # an empty batch: an empty gradient (no NumPy warnings)
        return np.zeros(np.broadcast_shapes(gh.shape, xhat.shape),
                        np.result_type(gh, xhat, invstd))
    a = np.mean(gh, axis=axes, keepdims=True)
    t = gh * xhat
    b = np.mean(t, axis=axes, keepdims=True)
    np.multiply(xhat, b, out=t)
    r = gh - a
    r -= t
    r *= invstd
    return r


def _norm_bwd(gh, xhat, invstd, axes):
    """``invstd * (gh - mean(gh) - xhat * mean(gh * xhat))``: the gradient of a
    standardisation with respect to its input (one fused op)."""
    return call(_NORM_BWD, (gh, xhat, invstd), {"axes": axes})


def _nb_gxhat(h, r, gh, xhat, invstd, axes):
    b = _mean(gh * xhat, axis=axes, keepdims=True)
    c = _mean(h * xhat, axis=axes, keepdims=True)
    return -(invstd * (b * h + c * gh))


def _nb_ginv(h, r, gh, xhat, invstd, axes):
    a = _mean(gh, axis=axes, keepdims=True)
    b = _mean(gh * xhat, axis=axes, keepdims=True)
    return _sum(h * (gh - a - xhat * b), axis=axes, keepdims=True)


def _nb_jxhat(t, r, gh, xhat, invstd, axes):
    b = _mean(gh * xhat, axis=axes, keepdims=True)
    return -(invstd * (t * b + xhat * _mean(gh * t, axis=axes, keepdims=True)))


def _nb_jinv(t, r, gh, xhat, invstd, axes):
    a = _mean(gh, axis=axes, keepdims=True)
    b = _mean(gh * xhat, axis=axes, keepdims=True)
    return t * (gh - a - xhat * b)


_NORM_BWD = defop("_norm_backward", _norm_bwd_fwd,
                  [lambda h, r, gh, xhat, invstd, axes: _norm_bwd(h, xhat, invstd, axes),
                   _nb_gxhat, _nb_ginv],
                  [lambda t, r, gh, xhat, invstd, axes: _norm_bwd(t, xhat, invstd, axes),
                   _nb_jxhat, _nb_jinv])


def _affine_fwd(x, s, t):
    r = x * s
    r += t
    return r


_AFFINE = defop("_affine", _affine_fwd,
                [lambda g, y, x, s, t: g * s, lambda g, y, x, s, t: g * x,
                 lambda g, y, x, s, t: g],
                [lambda d, y, x, s, t: d * s, lambda d, y, x, s, t: x * d,
                 lambda d, y, x, s, t: d],
                save=(0, 1))


def _affine(x, s, t):
    """``x * s + t`` in one op (``s``, ``t`` broadcast against ``x``)."""
    return call(_AFFINE, (x, s, t))


# BatchNorm in training mode is one op of (data, gamma, beta, running mean, running
# variance). Its forward computes the batch statistics, updates the running statistics in
# place (auxiliary states: a planned graph sees the write and bumps their versions) and
# keeps the batch mean and inverse standard deviation in a ``_BNBatch`` attribute, with
# the standardised data for the fused NumPy backward (``raw_grads``: the last rule to
# read it drops it; a rule that finds it gone recomputes it from the saved data, bit for
# bit). The gradient rules written with mxgrad ops (``create_graph=True``) and the
# tangent rules differentiate through ``_normalize(x)`` again, so every order stays
# exact. Being one op of its inputs, it runs as an op step in a planned graph.
def _bn_train_fwd(x, gamma, beta, xhat, invstd, axes, bshape, n, eps):
    if bshape[-1] == 1:             # channel axis not last: (C,) -> (1, C, 1, ...)
        beta = beta.reshape(bshape)
        gamma = None if gamma is None else gamma.reshape(bshape)
    if gamma is None:               # fix_gamma: gamma is 1
        return xhat + beta
    out = xhat * gamma
    out += beta
    return out


def _nc_rows(a, axes):
    """``a`` as (N, C, L) rows when it is C-contiguous and reduced over every axis but
    axis 1 (BatchNorm on NCHW-style data), else None."""
    if a.ndim > 2 and a.flags.c_contiguous and len(axes) == a.ndim - 1 and axes[0] == 0 \
            and axes[1] == 2:
        return a.reshape(a.shape[0], a.shape[1], -1)
    return None


def _chan_dot(a, b, axes):
    """``sum(a * b)`` over ``axes``, kept dims, without the product temporary."""
    if a.ndim == 2:
        if axes == (0,):
            return _c_einsum("ij,ij->j", a, b).reshape((1, -1))
        return _c_einsum("ij,ij->i", a, b).reshape((-1, 1))
    a3, b3 = _nc_rows(a, axes), _nc_rows(b, axes)
    if a3 is not None and b3 is not None:
        # one dot product per (sample, channel) row, then the sum over the batch
        d = _matmul(a3[:, :, None, :], b3[:, :, :, None])
        return np.add.reduce(d.reshape(d.shape[:2]), axis=0).reshape(
            (1, -1) + (1,) * (a.ndim - 2))
    return np.add.reduce(a * b, axis=axes, keepdims=True)


def _bn_gx_raw(g, y, x, gamma, beta, xhat, invstd, axes, bshape, n, eps):
    # gamma * invstd * (g - sum(g) / n - xhat * sum(g * xhat) / n)
    if n == 0:                      # an empty batch
        return np.zeros_like(g)
    gsum = np.add.reduce(g, axis=axes, keepdims=True)
    r = xhat * (_chan_dot(g, xhat, axes) * (1.0 / n))
    np.subtract(g, r, out=r)
    r -= gsum * (1.0 / n)
    r *= invstd if gamma is None else gamma.reshape(bshape) * invstd
    return r


def _bn_ggamma_raw(g, y, x, gamma, beta, xhat, invstd, axes, bshape, n, eps):
    if n == 0:
        return np.zeros(int(np.prod(bshape)), g.dtype)
    return _chan_dot(g, xhat, axes).reshape(-1)


def _bn_gbeta_raw(g, y, x, gamma, beta, xhat, invstd, axes, bshape, n, eps):
    return np.add.reduce(g, axis=axes)


def _bn_stats(x, axes, eps):
    """``(xhat, invstd)`` of ``x`` as differentiable mxgrad ops (for the rules)."""
    xh, _, var = _normalize(x, axes, eps)
    return xh, _ew.rsqrt(var + eps)


def _bn_gx(g, y, x, gamma, beta, xhat, invstd, axes, bshape, n, eps):
    xh, inv = _bn_stats(x, axes, eps)
    gh = g if gamma is None else g * reshape_exact(gamma, bshape)
    return _norm_bwd(gh, xh, inv, axes)


def _bn_ggamma(g, y, x, gamma, beta, xhat, invstd, axes, bshape, n, eps):
    xh, _ = _bn_stats(x, axes, eps)
    return _sum(g * xh, axis=axes)


def _bn_gbeta(g, y, x, gamma, beta, xhat, invstd, axes, bshape, n, eps):
    return _sum(g, axis=axes)


def _bn_jx(t, y, x, gamma, beta, xhat, invstd, axes, bshape, n, eps):
    xh, inv = _bn_stats(x, axes, eps)
    r = _norm_bwd(t, xh, inv, axes)
    return r if gamma is None else r * reshape_exact(gamma, bshape)


def _bn_jgamma(t, y, x, gamma, beta, xhat, invstd, axes, bshape, n, eps):
    xh, _ = _bn_stats(x, axes, eps)
    return xh * reshape_exact(t, bshape)


def _bn_const(*args, **kwargs):
    return None


class _BNBatch(PerCall):
    """What one training-mode BatchNorm forward keeps for its gradient rules: the batch
    mean and inverse standard deviation (per channel), the count per channel, and the
    standardised data until the last rule reading it has run."""
    __slots__ = ("mean", "invstd", "n", "xhat")

    def __init__(self):
        self.mean = self.invstd = self.n = self.xhat = None

    def standardised(self, x, take):
        """The forward's standardised data (``take``: and forget it); recomputed from
        ``x`` with the forward's arithmetic when a retained graph's earlier backward
        took it."""
        xhat = self.xhat
        if take:
            self.xhat = None
        if xhat is None:
            xhat = x - self.mean
            xhat *= self.invstd
        return xhat


def _bn_batch_stats(d, moving_mean, moving_var, axes, bshape, c, eps, momentum):
    """``(xhat, mean, invstd, n)`` of the batch ``d``; the running statistics (NumPy
    arrays) updated in place: ``m * running + (1 - m) * batch``."""
    n = d.size // c
    if n and (d.dtype == np.float32 or d.dtype == np.float64):
        # np.mean's arithmetic without its Python wrapper; with the channel axis last the
        # statistics broadcast without kept dimensions
        keep = axes[-1] == d.ndim - 1
        mean = np.add.reduce(d, axis=axes, keepdims=keep)
        mean /= n
        xhat = d - mean
        if _nc_rows(xhat, axes) is not None:
            # NCHW-style: one dot product per (sample, channel) row, no squares' temporary
            var = _chan_dot(xhat, xhat, axes)
        elif axes == (0,) and d.ndim == 2:
            # the same row-by-row float sum as add.reduce(square(xhat), axis=0), bit for
            # bit, without the squares' temporary
            var = _c_einsum("ij,ij->j", xhat, xhat)
        else:
            var = np.add.reduce(np.square(xhat), axis=axes, keepdims=keep)
        var /= n
    elif n == 0:    # an empty batch: no statistics (and the running ones stay as they are)
        mean = np.zeros(bshape, d.dtype)
        xhat = d - mean
        var = np.ones(bshape, d.dtype)
    else:
        mean = np.mean(d, axis=axes, keepdims=True)
        xhat = d - mean
        var = np.mean(np.square(xhat), axis=axes, keepdims=True)
    inv = _inv_std(var, eps)
    xhat *= inv
    m = float(momentum)
    for buf, batch in ((moving_mean, mean), (moving_var, var)) if n else ():
        if buf.dtype == batch.dtype:    # m * buf + (1 - m) * batch, in place
            buf *= m
            buf += (1.0 - m) * (batch if batch.ndim == 1 else batch.reshape(c))
        else:
            new = m * buf
            new += (1.0 - m) * batch.reshape(c)
            np.copyto(buf, new, casting="unsafe")
    return xhat, mean, inv, n


def _bn_batch_fwd(x, gamma, beta, moving_mean, moving_var, axes, bshape, c, eps, momentum,
                  batch):
    xhat, mean, inv, n = _bn_batch_stats(x, moving_mean, moving_var, axes, bshape, c, eps,
                                         momentum)
    batch.mean, batch.invstd, batch.n, batch.xhat = mean, inv, n, xhat
    return _bn_train_fwd(x, gamma, beta, xhat, inv, axes, bshape, n, eps)


def _bnb_gx_raw(g, y, x, gamma, beta, mm, mv, axes, bshape, c, eps, momentum, batch):
    # (with gamma, its rule runs next and takes the standardised data)
    xhat = batch.standardised(x, take=gamma is None)
    return _bn_gx_raw(g, y, x, gamma, beta, xhat, batch.invstd, axes, bshape, batch.n, eps)


def _bnb_ggamma_raw(g, y, x, gamma, beta, mm, mv, axes, bshape, c, eps, momentum, batch):
    xhat = batch.standardised(x, take=True)
    return _bn_ggamma_raw(g, y, x, gamma, beta, xhat, batch.invstd, axes, bshape, batch.n,
                          eps)


def _bnb_gbeta_raw(g, y, x, gamma, beta, mm, mv, axes, bshape, c, eps, momentum, batch):
    return np.add.reduce(g, axis=axes)


def _bnb_rule(rule):
    """A rule of the statistics-free signature as one of this op (its extra inputs and
    attributes dropped)."""
    def adapted(g, y, x, gamma, beta, mm, mv, axes, bshape, c, eps, momentum, batch):
        return rule(g, y, x, gamma, beta, None, None, axes, bshape, None, eps)
    return adapted


_BN_TRAIN: Op = defop(
    "BatchNorm", _bn_batch_fwd,
    [_bnb_rule(_bn_gx), _bnb_rule(_bn_ggamma), _bnb_rule(_bn_gbeta), _bn_const, _bn_const],
    [_bnb_rule(_bn_jx), _bnb_rule(_bn_jgamma),
     lambda t, y, x, gamma, beta, mm, mv, axes, bshape, c, eps, momentum, batch:
     reshape_exact(t, bshape), _bn_const, _bn_const],
    save=(0, 1), raw_grads=[_bnb_gx_raw, _bnb_ggamma_raw, _bnb_gbeta_raw, _bn_const,
                            _bn_const])


def _bn_train(data, gamma, beta, moving_mean, moving_var, axes, bshape, c, eps, momentum,
              fix_gamma):
    """Training-mode BatchNorm: batch statistics, running statistics updated in place."""
    out = call(_BN_TRAIN, (data, None if fix_gamma else gamma, beta, moving_mean, moving_var),
               {"axes": axes, "bshape": bshape, "c": c, "eps": eps, "momentum": momentum,
                "batch": _BNBatch()})
    if _raw(data).size:
        for run in (moving_mean, moving_var):
            if isinstance(run, NDArray):
                run._write()
    return out


# BatchNorm with the running statistics (inference, use_global_stats) is
# ``data * scale + shift`` (``_affine``) with per-channel coefficients made by one op from
# the parameters and the running statistics, so a planned graph runs it as op steps. The
# running statistics are constants to it (auxiliary states: no gradient, as in MXNet);
# the values its forward used are kept for its rules in a ``_BNConsts`` attribute (a
# training forward may update the running statistics before this call's backward).
class _BNConsts(PerCall):
    """The running mean (a copy) and ``1 / sqrt(running_var + eps)`` one call used."""
    __slots__ = ("mean", "inv")

    def __init__(self):
        self.mean = self.inv = None


def _bn_consts(mean, var, eps):
    """The running mean (a copy) and ``1 / sqrt(running_var + eps)`` (NumPy arrays)."""
    m, v = _raw(mean), _raw(var)
    return np.array(m), (1.0 / np.sqrt(v + eps)).astype(v.dtype, copy=False)


def _bn_coeffs_fwd(gamma, beta, mean, var, eps, consts):
    """``(scale, shift)``: ``gamma / sqrt(var + eps)`` (gamma None: fix_gamma, 1) and
    ``beta - mean * scale``."""
    rm, inv = _bn_consts(mean, var, eps)
    consts.mean, consts.inv = rm, inv
    scale = inv if gamma is None else gamma * inv
    return scale, beta - rm * scale


def _bn_const_like(c, g):
    return wrap(c) if isinstance(g, NDArray) else c


def _bn_coeffs_ggamma(g, y, gamma, beta, mean, var, eps, consts):
    gs, gt = g
    return (gs - gt * _bn_const_like(consts.mean, gt)) * _bn_const_like(consts.inv, gt)


def _bn_coeffs_gbeta(g, y, gamma, beta, mean, var, eps, consts):
    return g[1]


def _bn_coeffs_jgamma(t, y, gamma, beta, mean, var, eps, consts):
    ds = t * _bn_const_like(consts.inv, t)
    return ds, -(ds * _bn_const_like(consts.mean, ds))


_BN_COEFFS: Op = defop(
    "BatchNorm", _bn_coeffs_fwd,
    [_bn_coeffs_ggamma, _bn_coeffs_gbeta, _bn_const, _bn_const],
    [_bn_coeffs_jgamma, lambda t, y, gamma, beta, mean, var, eps, consts: (None, t),
     _bn_const, _bn_const],
    save=(), nout=2)


_BN_SHAPES: dict = {}   # (ndim, axis, channels) -> (broadcast shape, reduced axes)


def _vec(p, c, op, arg):
    p = _arr(p, op, arg)
    if tuple(p.shape) != (c,):
        raise ShapeError(f"{op}: {arg} must have shape ({c},), got {tuple(p.shape)}")
    return p


def BatchNorm(data: NDArray, gamma: NDArray, beta: NDArray, moving_mean: NDArray,
              moving_var: NDArray, eps: float = 1e-3, momentum: float = 0.9,
              fix_gamma: bool = True, use_global_stats: bool = False,
              output_mean_var: bool = False, axis: int = 1, cudnn_off: bool = False,
              min_calib_range: Optional[float] = None, max_calib_range: Optional[float] = None,
              **kwargs: Any) -> Union[NDArray, List[NDArray]]:
    """Batch normalisation over every axis except ``axis`` (the channel axis).

    In training mode (``mx.autograd.is_training()`` and not ``use_global_stats``) the
    data is normalised with the batch mean and the *biased* batch variance, and the
    running statistics are updated in place, in this forward call::

        moving_mean = momentum * moving_mean + (1 - momentum) * batch_mean
        moving_var  = momentum * moving_var  + (1 - momentum) * batch_var

    (MXNet's CPU kernel updates them during backward instead.) Otherwise the running
    statistics are used. ``out = (x - mean) / sqrt(var + eps) * gamma + beta``.

    Parameters
    ----------
    data : NDArray
        At least 2-D.
    gamma, beta : NDArray
        Shape ``(C,)`` with ``C = data.shape[axis]``.
    moving_mean, moving_var : NDArray
        Shape ``(C,)``; updated in place in training mode (no gradient).
    eps : float, default 1e-3
    momentum : float, default 0.9
    fix_gamma : bool, default True
        Treat ``gamma`` as 1 (its gradient is 0).
    use_global_stats : bool, default False
        Always use the running statistics (and never update them).
    output_mean_var : bool, default False
        Also return the mean and the *inverse* standard deviation used, shape ``(C,)``
        (as MXNet does).
    axis : int, default 1

    Examples
    --------
    >>> import mxgrad as mx
    >>> x = mx.nd.array([[1., 2.], [3., 6.]])
    >>> g, b = mx.nd.ones((2,)), mx.nd.zeros((2,))
    >>> rm, rv = mx.nd.zeros((2,)), mx.nd.ones((2,))
    >>> with mx.autograd.train_mode():
    ...     y = mx.nd.BatchNorm(x, g, b, rm, rv, eps=0., fix_gamma=False)
    >>> y
    <BLANKLINE>
    [[-1. -1.]
     [ 1.  1.]]
    <NDArray 2x2 @cpu(0)>
    >>> rm    # 0.9 * 0 + 0.1 * batch mean
    <BLANKLINE>
    [0.2 0.4]
    <NDArray 2 @cpu(0)>
    """
    data = _arr(data, "BatchNorm")
    nd_ = data.ndim
    if nd_ < 2:
        raise ShapeError(f"BatchNorm: data must have at least 2 dimensions, got shape "
                         f"{data.shape}")
    ax = _norm_axis(axis, nd_, "BatchNorm")
    c = data.shape[ax]
    gamma = _vec(gamma, c, "BatchNorm", "gamma")
    beta = _vec(beta, c, "BatchNorm", "beta")
    moving_mean = _vec(moving_mean, c, "BatchNorm", "moving_mean")
    moving_var = _vec(moving_var, c, "BatchNorm", "moving_var")
    _check_dtypes("BatchNorm", data, (data.dtype, np.float32) if data.dtype == np.float16
                  else None, gamma=gamma, beta=beta, moving_mean=moving_mean,
                  moving_var=moving_var)
    key = (nd_, ax, c)
    shapes = _BN_SHAPES.get(key)
    if shapes is None:
        shapes = _BN_SHAPES[key] = ((1,) * ax + (c,) + (1,) * (nd_ - ax - 1),
                                    tuple(i for i in range(nd_) if i != ax))
    bshape = shapes[0]
    eps = float(eps)
    ddt, pdt = data.dtype, gamma.dtype
    if ddt != pdt and np.dtype(ddt).kind == "f" and np.dtype(pdt).kind == "f" \
            and np.promote_types(ddt, pdt) != ddt:
        # float16 data with float32 parameters (net.cast('float16') keeps BatchNorm's in
        # float32, as MXNet): statistics in float32, output in the data's dtype
        res = BatchNorm(_ew.cast(data, pdt), gamma, beta, moving_mean, moving_var, eps=eps,
                        momentum=momentum, fix_gamma=fix_gamma,
                        use_global_stats=use_global_stats, output_mean_var=output_mean_var,
                        axis=axis)
        if output_mean_var:
            return [_ew.cast(res[0], ddt)] + list(res[1:])
        return _ew.cast(res, ddt)  # type: ignore[arg-type]  # one NDArray without mean/var
    if state.training and not use_global_stats:
        axes = shapes[1]
        if not output_mean_var:
            return _bn_train(data, gamma, beta, moving_mean, moving_var, axes, bshape, c, eps,
                             momentum, fix_gamma)
        xhat, mean, var = _normalize(data, axes, eps)
        m = float(momentum)
        # an empty batch leaves the running statistics unchanged (as PyTorch)
        for run, batch in ((moving_mean, mean), (moving_var, var)) if data.size else ():
            buf = _raw(run)
            np.copyto(buf, m * buf + (1.0 - m) * _raw(batch).reshape(c), casting="unsafe")
            if isinstance(run, NDArray):
                run._write()
        if fix_gamma:
            out = xhat + reshape_exact(beta, bshape)
        else:
            out = _affine(xhat, reshape_exact(gamma, bshape), reshape_exact(beta, bshape))
        if output_mean_var:
            return [out, reshape_exact(mean, (c,)), reshape_exact(_ew.rsqrt(var + eps), (c,))]
        return out
    scale, shift = call(_BN_COEFFS, (None if fix_gamma else gamma, beta, moving_mean,
                                     moving_var), {"eps": eps, "consts": _BNConsts()})
    out = _affine(data, reshape_exact(scale, bshape), reshape_exact(shift, bshape))
    if output_mean_var:
        rm, inv = _bn_consts(moving_mean, moving_var, eps)
        return [out, wrap(rm), wrap(inv)]
    return out


def _norm_shape(kind: str):
    """The shape rule of a normalization layer (``kind``: batch, layer, group or
    instance)."""
    def rule(kw, ins, outs):
        """A normalization's shapes: the output the data's, the parameters one value per
        channel (per group for GroupNorm), the statistics per channel, sample or group."""
        if ins[0] is None:          # MXNet's rule needs the data (no backward inference)
            return list(ins), list(outs)
        (d,), (o,) = _sr.same(kw, ins[:1], outs[:1])
        axis = int(kw.get("axis", 1 if kind == "batch" else -1)) % len(d)
        if kind == "group":
            c = (int(kw.get("num_groups", 1)),)
        elif kind == "instance":
            c = (d[1],)
        else:
            c = (d[axis],)
        new_ins = [d] + [c] * (len(ins) - 1)
        if kind == "batch":
            stats = [c, c]
        elif kind == "layer":
            red = list(d)
            red[axis] = 1
            stats = [tuple(red)] * 2
        elif kind == "group":
            stats = [(d[0], c[0])] * 2
        else:
            stats = [(d[0], d[1])] * 2
        return new_ins, [o] + stats[:len(outs) - 1]
    return rule


def _mean_var_outputs(kw):
    """The mean and variance are visible outputs with ``output_mean_var``."""
    return 3 if kw.get("output_mean_var") else 1


# what BatchNorm and its variants (BatchNorm_v1, BatchNormWithReLU, SyncBatchNorm) share:
# learnable gamma/beta, the running statistics as aux states, mean/var as outputs
_BN_INPUTS = ("data", "gamma", "beta", "moving_mean", "moving_var")
BATCH_NORM_FIELDS = dict(params=_BN_INPUTS[1:], aux=(3, 4), outputs=3,
                         visible=_mean_var_outputs, out_names=("output", "mean", "var"),
                         shape=_norm_shape("batch"), dtype=_dr.norm)
mxnet_op("BatchNorm", _BN_INPUTS, **BATCH_NORM_FIELDS)
mxnet_op("BatchNorm_v1", _BN_INPUTS, **BATCH_NORM_FIELDS)


def BatchNormWithReLU(data: NDArray, gamma: NDArray, beta: NDArray, moving_mean: NDArray,
                      moving_var: NDArray, eps: float = 1e-3, momentum: float = 0.9,
                      fix_gamma: bool = True, use_global_stats: bool = False,
                      output_mean_var: bool = False, axis: int = 1, cudnn_off: bool = False,
                      min_calib_range: Optional[float] = None,
                      max_calib_range: Optional[float] = None,
                      **kwargs: Any) -> Union[NDArray, List[NDArray]]:
    """MXNet's ``contrib.BatchNormWithReLU``: :func:`BatchNorm` (same arguments, same
    running-statistics update) followed by ``relu`` of its output; with
    ``output_mean_var`` the mean and inverse standard deviation come unchanged.

    Examples
    --------
    >>> import mxgrad as mx
    >>> x = mx.nd.array([[1., 2.], [3., 6.]])
    >>> g, b = mx.nd.ones((2,)), mx.nd.zeros((2,))
    >>> mx.nd.contrib.BatchNormWithReLU(x, g, b, mx.nd.zeros((2,)), mx.nd.ones((2,)),
    ...                                 use_global_stats=True, eps=0.).asnumpy().tolist()
    [[1.0, 2.0], [3.0, 6.0]]
    """
    out = BatchNorm(data, gamma, beta, moving_mean, moving_var, eps=eps, momentum=momentum,
                    fix_gamma=fix_gamma, use_global_stats=use_global_stats,
                    output_mean_var=output_mean_var, axis=axis, **kwargs)
    if isinstance(out, list):
        return [_ew.relu(out[0])] + out[1:]
    return _ew.relu(out)


mxnet_op("_contrib_BatchNormWithReLU", _BN_INPUTS, nd_name="contrib.BatchNormWithReLU",
         **BATCH_NORM_FIELDS)


def LayerNorm(data: NDArray, gamma: NDArray, beta: NDArray, axis: int = -1, eps: float = 1e-5,
              output_mean_var: bool = False, **kwargs: Any) -> Union[NDArray, List[NDArray]]:
    """Layer normalisation: standardise over ``axis`` (biased variance), then scale by
    ``gamma`` and shift by ``beta`` (both of shape ``(data.shape[axis],)``).

    With ``output_mean_var=True`` also return the mean and the standard deviation
    ``sqrt(var + eps)``, of the data's shape with ``axis`` of size 1.

    Examples
    --------
    >>> import mxgrad as mx
    >>> x = mx.nd.array([[1., 3.], [2., 6.]])
    >>> mx.nd.LayerNorm(x, mx.nd.ones((2,)), mx.nd.zeros((2,)), eps=0.)
    <BLANKLINE>
    [[-1.  1.]
     [-1.  1.]]
    <NDArray 2x2 @cpu(0)>
    """
    data = _arr(data, "LayerNorm")
    nd_ = data.ndim
    ax = _norm_axis(axis, nd_, "LayerNorm")
    c = data.shape[ax]
    gamma = _vec(gamma, c, "LayerNorm", "gamma")
    beta = _vec(beta, c, "LayerNorm", "beta")
    _check_dtypes("LayerNorm", data, gamma=gamma, beta=beta)
    bshape = (1,) * ax + (c,) + (1,) * (nd_ - ax - 1)
    xhat, mean, var = _normalize(data, (ax,), eps)
    out = _affine(xhat, reshape_exact(gamma, bshape), reshape_exact(beta, bshape))
    if output_mean_var:
        return [out, mean, _ew.sqrt(var + float(eps))]
    return out


mxnet_op("LayerNorm", ("data", "gamma", "beta"), params=("gamma", "beta"), outputs=3,
         visible=_mean_var_outputs, out_names=("output", "mean", "std"),
         shape=_norm_shape("layer"))    # one dtype for all (MXNet's rule)


def InstanceNorm(data: NDArray, gamma: NDArray, beta: NDArray, eps: float = 1e-3, **kwargs: Any
                 ) -> NDArray:
    """Instance normalisation: standardise each sample and channel over the spatial
    axes (2, 3, ...), then scale and shift per channel (axis 1).

    Examples
    --------
    >>> import mxgrad as mx
    >>> x = mx.nd.array([[[1., 3.], [5., 4.]]])
    >>> mx.nd.InstanceNorm(x, mx.nd.ones((2,)), mx.nd.zeros((2,)), eps=0.)
    <BLANKLINE>
    [[[-1.  1.]
      [ 1. -1.]]]
    <NDArray 1x2x2 @cpu(0)>
    """
    data = _arr(data, "InstanceNorm")
    nd_ = data.ndim
    if nd_ < 3:
        raise ShapeError(f"InstanceNorm: data must have at least 3 dimensions (batch, "
                         f"channel, spatial...), got shape {data.shape}")
    c = data.shape[1]
    gamma = _vec(gamma, c, "InstanceNorm", "gamma")
    beta = _vec(beta, c, "InstanceNorm", "beta")
    _check_dtypes("InstanceNorm", data, gamma=gamma, beta=beta)
    bshape = (1, c) + (1,) * (nd_ - 2)
    xhat, _, _ = _normalize(data, tuple(range(2, nd_)), eps)
    return _affine(xhat, reshape_exact(gamma, bshape), reshape_exact(beta, bshape))


mxnet_op("InstanceNorm", ("data", "gamma", "beta"), params=("gamma", "beta"), outputs=3,
         visible=1, out_names=("output", "mean", "var"), shape=_norm_shape("instance"),
         dtype=_dr.norm)


def GroupNorm(data: NDArray, gamma: NDArray, beta: NDArray, num_groups: int = 1, eps: float = 1e-5,
              output_mean_var: bool = False, **kwargs: Any) -> Union[NDArray, List[NDArray]]:
    """Group normalisation: the channels (axis 1) are split into ``num_groups`` groups;
    each sample and group is standardised, then scaled and shifted per group (``gamma``/``beta``
    of shape ``(num_groups,)``, MXNet 1.x) or per channel (shape ``(C,)``).

    Examples
    --------
    >>> import mxgrad as mx
    >>> x = mx.nd.array([[1., 3., 4., 2.]])
    >>> mx.nd.GroupNorm(x, mx.nd.ones((4,)), mx.nd.zeros((4,)), num_groups=2, eps=0.)
    <BLANKLINE>
    [[-1.  1.  1. -1.]]
    <NDArray 1x4 @cpu(0)>
    """
    data = _arr(data, "GroupNorm")
    shape = data.shape
    if len(shape) < 2:
        raise ShapeError(f"GroupNorm: data must have at least 2 dimensions, got {shape}")
    c = shape[1]
    ng = int(num_groups)
    if ng <= 0 or c % ng:
        raise ShapeError(f"GroupNorm: {c} channels cannot be split into {ng} groups")
    # gamma/beta: one value per group (MXNet 1.x's layout, shape (num_groups,)) or per
    # channel (MXNet 2 / PyTorch, shape (C,)); the shape says which
    per_group = tuple(_arr(gamma, "GroupNorm", "gamma").shape) == (ng,) and ng != c
    n_aff = ng if per_group else c
    gamma = _vec(gamma, n_aff, "GroupNorm", "gamma")
    beta = _vec(beta, n_aff, "GroupNorm", "beta")
    _check_dtypes("GroupNorm", data, gamma=gamma, beta=beta)
    gshape = (shape[0], ng, c // ng) + tuple(shape[2:])
    xhat, mean, var = _normalize(reshape_exact(data, gshape), tuple(range(2, len(gshape))),
                                 eps)
    if per_group:
        bshape = (1, ng) + (1,) * (len(gshape) - 2)
        out = reshape_exact(_affine(xhat, reshape_exact(gamma, bshape),
                                    reshape_exact(beta, bshape)), shape)
    else:
        bshape = (1, c) + (1,) * (len(shape) - 2)
        out = _affine(reshape_exact(xhat, shape), reshape_exact(gamma, bshape),
                      reshape_exact(beta, bshape))
    if output_mean_var:
        return [out, reshape_exact(mean, (shape[0], ng)),
                reshape_exact(_ew.sqrt(var + float(eps)), (shape[0], ng))]
    return out


def _group_norm_run(inputs, kwargs):
    """MXNet 1.x's GroupNorm: ``gamma``/``beta`` hold one value per group (shape
    ``(num_groups,)``), applied to every channel of the group; per-channel ones (shape
    ``(C,)``) are accepted too."""
    x, gamma, beta = inputs
    groups = int(kwargs.get("num_groups", 1))
    c = x.shape[1]
    if groups != c and c % groups == 0:
        if gamma.shape == (groups,):
            gamma = _repeat(gamma, c // groups, axis=0)
        if beta.shape == (groups,):
            beta = _repeat(beta, c // groups, axis=0)
    return _guard(GroupNorm, "nd.GroupNorm")(x, gamma, beta, **kwargs)


mxnet_op("GroupNorm", ("data", "gamma", "beta"), params=("gamma", "beta"), outputs=3,
         visible=_mean_var_outputs, run=_group_norm_run, out_names=("output", "mean", "std"),
         shape=_norm_shape("group"))    # one dtype for all (MXNet's rule)


# =============================================================== Embedding
def _indices(x, n):
    idx = x.astype(np.int64) if x.dtype.kind != "i" else x
    return np.clip(idx, 0, n - 1)


def _embed_fwd(idx, w, input_dim):
    return np.take(w, _indices(idx, w.shape[0]), axis=0)


def _scatter_fwd(g, idx, input_dim):
    """Sum the rows of ``g`` into ``input_dim`` rows by index (repeated indices add up):
    one stable sort and one segmented sum instead of a per-element ``np.add.at``."""
    d = g.shape[-1]
    out = np.zeros((input_dim, d), dtype=g.dtype)
    i = _indices(idx, input_dim).reshape(-1)
    if i.size == 0:
        return out
    gg = g.reshape(-1, d)
    order = np.argsort(i, kind="stable")
    si = i[order]
    starts = np.flatnonzero(np.concatenate(([True], si[1:] != si[:-1])))
    if len(starts) == len(si):      # no repeated index
        out[i] = gg
    else:
        out[si[starts]] = np.add.reduceat(gg[order], starts, axis=0)
    return out


_no_grad = no_grad


_SCATTER: Op = defop("_embedding_backward", _scatter_fwd,
                 [lambda h, r, g, idx, input_dim: call2(_EMBED, idx, h,
                                                        {"input_dim": input_dim}), _no_grad],
                 [lambda t, r, g, idx, input_dim: call2(_SCATTER, t, idx,
                                                        {"input_dim": input_dim}), _no_grad],
                 save=(1,))

_EMBED: Op = defop("Embedding", _embed_fwd,
               [_no_grad, lambda g, y, idx, w, input_dim: call2(_SCATTER, g, idx,
                                                                {"input_dim": input_dim})],
               [_no_grad, lambda t, y, idx, w, input_dim: call2(_EMBED, idx, t,
                                                                {"input_dim": input_dim})],
               save=(0,))


def Embedding(data: NDArray, weight: NDArray, input_dim: Optional[int] = None,
              output_dim: Optional[int] = None, dtype: DTypeLike = "float32",
              sparse_grad: bool = False, **kwargs: Any) -> NDArray:
    """Look up rows of ``weight``: ``out[..., :] = weight[data[...], :]``.

    Indices are given as a (float) array and cast to integers; out-of-range indices
    are clipped to ``[0, input_dim - 1]`` as in MXNet. The gradient with respect to
    ``weight`` accumulates over repeated indices; ``data`` gets no gradient.

    Parameters
    ----------
    data : NDArray
        Indices, any shape.
    weight : NDArray
        Shape ``(input_dim, output_dim)``.
    input_dim, output_dim : int, optional
        Checked against ``weight`` when given.

    Returns
    -------
    NDArray
        Shape ``data.shape + (output_dim,)``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> w = mx.nd.array([[0., 1.], [2., 3.], [4., 5.]])
    >>> mx.nd.Embedding(mx.nd.array([2, 0, 2]), w, input_dim=3, output_dim=2)
    <BLANKLINE>
    [[4. 5.]
     [0. 1.]
     [4. 5.]]
    <NDArray 3x2 @cpu(0)>
    """
    data = _arr(data, "Embedding")
    weight = _arr(weight, "Embedding", "weight")
    ws = tuple(weight.shape)
    if len(ws) != 2:
        raise ShapeError(f"Embedding: weight must be 2-D (input_dim, output_dim), got {ws}")
    if input_dim is not None and int(input_dim) != ws[0]:
        raise ShapeError(f"Embedding: input_dim={input_dim} but weight has shape {ws}")
    if output_dim is not None and int(output_dim) != ws[1]:
        raise ShapeError(f"Embedding: output_dim={output_dim} but weight has shape {ws}")
    return call2(_EMBED, data, weight, {"input_dim": ws[0]})


def _embedding_shape(kw, ins, outs):
    """Embedding's shapes: the weight ``(input_dim, output_dim)``, the output the indices'
    shape plus ``output_dim``, the indices' shape back from the output."""
    n_in, n_out = int(kw["input_dim"]), int(kw["output_dim"])
    d = ins[0]
    if d is None and outs[0] is not None:
        d = tuple(outs[0][:-1])
    o = _sr.merge(outs[0], tuple(d) + (n_out,)) if d is not None else outs[0]
    return [d, (n_in, n_out)], [o]


def _embedding_dtype(kw, ins, outs):
    """Embedding's dtypes: the weight and output of ``dtype`` (float32), indices any."""
    t = _dr.as_dtype(kw.get("dtype") or "float32")
    return [ins[0], t], [t] * len(outs)


mxnet_op("Embedding", ("data", "weight"), params=("weight",), shape=_embedding_shape,
         dtype=_embedding_dtype)


# ================================================================== losses
def _one_hot(label, shape, axis, dtype):
    lab = _raw(_arr(label, "softmax_cross_entropy", "label")).astype(np.int64)
    n = shape[axis]
    oh = np.zeros(shape, dtype)
    idx = np.expand_dims(np.clip(lab, 0, n - 1), axis)
    np.put_along_axis(oh, idx, 1, axis=axis)
    return oh, lab


def softmax_cross_entropy(data: NDArray, label: NDArray, **kwargs: Any) -> NDArray:
    """Summed cross entropy of ``softmax(data)`` (over the last axis) against integer
    labels: ``-sum_i log(softmax(data)[i, label[i]])``, shape ``(1,)``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> x = mx.nd.array([[0., 0.], [0., 0.]])
    >>> round(float(mx.nd.softmax_cross_entropy(x, mx.nd.array([0, 1])).asscalar()), 4)
    1.3863
    """
    data = _arr(data, "softmax_cross_entropy")
    if data.ndim != 2:
        raise ShapeError(f"softmax_cross_entropy: data must be 2-D (batch, classes), got "
                         f"{data.shape}")
    lab = _arr(label, "softmax_cross_entropy", "label")
    if tuple(lab.shape) != (data.shape[0],):
        raise ShapeError(f"softmax_cross_entropy: label must have shape ({data.shape[0]},), "
                         f"got {tuple(lab.shape)}")
    oh, _ = _one_hot(lab, data.shape, 1, _raw(data).dtype)
    return -_sum(log_softmax(data, axis=-1) * (wrap(oh) if isinstance(data, NDArray) else oh))


# Per-sample sparse softmax cross-entropy (gluon.loss.SoftmaxCrossEntropyLoss on 2-D
# predictions): ``-log_softmax(x)[i, index[i]]`` in one op, so that an ordinary backward
# is ``g * (softmax(x) - one_hot)`` in a few NumPy calls. The same arithmetic as
# ``-pick(log_softmax(x), index)``, bit for bit; the rules are mxgrad ops.
def _lsm_rows(x):
    if x.shape[1] <= 32:    # few classes: a row max is faster over a transposed copy
        m = np.maximum.reduce(np.ascontiguousarray(x.T), axis=0).reshape(-1, 1)
    else:
        m = np.maximum.reduce(x, axis=1, keepdims=True)
    z = np.subtract(x, m)
    z -= np.log(np.add.reduce(np.exp(z), axis=1, keepdims=True))
    return z


class _SmceAux:
    """The op's labels; the one-hot targets, built only if a rule written with mxgrad ops
    asks for them; and the forward's log-softmax, kept for one ordinary backward."""

    __slots__ = ("index", "shape", "dtype", "lsm")

    def __init__(self, index, shape, dtype):
        self.index, self.shape, self.dtype, self.lsm = index, shape, dtype, None

    def onehot(self):
        oh = np.zeros(self.shape, self.dtype)
        oh[np.arange(self.shape[0]), self.index] = 1
        return wrap(oh)


def _smce_fwd(x, aux):
    lsm = _lsm_rows(_floating(x))
    aux.lsm = lsm
    return -lsm[np.arange(lsm.shape[0]), aux.index]


def _smce_grad_raw(g, y, x, aux):
    lsm = aux.lsm
    aux.lsm = None   # used once (a retained graph's next backward recomputes it)
    if lsm is None:
        lsm = _lsm_rows(_floating(x))
    r = np.exp(lsm)
    r *= g.reshape(-1, 1)
    r[np.arange(r.shape[0]), aux.index] -= g
    return r


def _smce_grad(g, y, x, aux):
    return (softmax(x, axis=1) - aux.onehot()) * reshape_exact(g, (g.shape[0], 1))


def _smce_jvp(t, y, x, aux):
    return _sum((softmax(x, axis=1) - aux.onehot()) * t, axis=1)


_SMCE = defop("softmax_cross_entropy_per_sample", _smce_fwd, [_smce_grad], [_smce_jvp],
              save=(0,), raw_grads=[_smce_grad_raw])


def _softmax_ce_per_sample(data, label):
    """``-pick(log_softmax(data, axis=-1), label)`` for 2-D ``data`` (labels clipped to
    the class range, as ``pick``), as one op; shape ``(batch,)``."""
    data = _arr(data, "softmax_cross_entropy")
    d = _raw(data)
    k = d.shape[1]
    lab = label._data if isinstance(label, NDArray) else label
    if type(lab) is np.ndarray and lab.dtype.kind == "f" and np.isfinite(lab).all():
        idx = lab.astype(np.int64).reshape(-1)     # truncated, as pick casts indices
        np.maximum(idx, 0, out=idx)
        np.minimum(idx, max(k - 1, 0), out=idx)
    else:   # other label types, and pick's errors
        from .indexing import _int_indices
        idx = np.clip(_int_indices(label, "pick").reshape(-1), 0, max(k - 1, 0))
    dt = d.dtype if d.dtype.kind == "f" else np.dtype(np.float32)
    return call1(_SMCE, data, {"aux": _SmceAux(idx, d.shape, dt)})

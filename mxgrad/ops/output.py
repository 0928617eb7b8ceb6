"""MXNet's loss ("output") layers: ``SoftmaxOutput``, the three regression outputs,
``SVMOutput`` and ``IdentityAttachKLSparseReg``.

Their forward is a prediction (softmax, sigmoid or the identity); their backward ignores
the head gradient (``IdentityAttachKLSparseReg`` adds to it) and gives MXNet 1.9.1's
gradient of the loss the layer stands for, with MXNet's scaling, label conventions and
quirks (checked against fixtures made by MXNet, ``tools/make_output_layer_fixtures.py``):

* ``SoftmaxOutput`` casts labels to ``int`` (truncating); a label outside the classes
  gives no ``-1`` term. ``normalization='batch'`` divides by the number of labels when
  not ``multi_output`` (the batch size for 2-D data) and by the batch size with
  ``multi_output`` (which also divides by the spatial size unless ``'valid'``);
  ``'valid'`` does not count labels equal to ``ignore_label`` even without
  ``use_ignore``. ``out_grad=True`` multiplies the gradient by the *output* (MXNet's
  backward reads the output where the head gradient was meant). A label of the data's
  shape is a probability target: no normalization, ignoring or smoothing.
  ``smooth_alpha`` has no effect with ``multi_output``.
* ``MAERegressionOutput``'s gradient at ``data == label`` is ``-grad_scale / n``.
* ``IdentityAttachKLSparseReg`` updates its moving average of the mean activation during
  backward (as MXNet), then adds the KL sparseness penalty's gradient.
"""
from __future__ import annotations

from typing import Any, Optional, Union

import numpy as np

from ..base import ArgumentTypeError, ShapeError, StateError
from .._engine.ndarray import NDArray, wrap
from .._check import as_real, guard as _guard
from ._core import defop, call1, call2
from ._apply import write_out
from .reduce import reshape_exact
from . import elemwise as _ew
from . import _dtype_rules as _dr, _shape_rules as _sr
from ._mxnet_op import mxnet_op
from .nn import _arr, _raw, _prod, _no_grad, _softmax_fwd, _sm_bwd, softmax as _softmax

__all__ = ["SoftmaxOutput", "Softmax", "LinearRegressionOutput", "LogisticRegressionOutput",
           "MAERegressionOutput", "SVMOutput", "IdentityAttachKLSparseReg"]

_f32 = np.float32


def _labels_int(lab: np.ndarray) -> np.ndarray:
    """MXNet's ``static_cast<int>(label)``: truncation toward zero."""
    if lab.dtype.kind in "iub":
        return lab.astype(np.int64)
    with np.errstate(invalid="ignore"):
        return np.trunc(lab).astype(np.int64)


def _finish(result: NDArray, out: Optional[NDArray]) -> NDArray:
    """MXNet's ``out=``: write the result into ``out`` and return it."""
    return result if out is None else write_out(out, result)


def _like(a, c):
    """The constant ``c`` (a NumPy array) in the face of ``a`` (NDArray or NumPy)."""
    return wrap(c) if isinstance(a, NDArray) else c


# ================================================================ SoftmaxOutput
# The op works on a 3-D view (rows, classes, positions) of the data, softmax over axis 1.
# Its inputs are the data and the label; the gradient rule works out the target and the
# scale from the label's values (so a planned graph replays the op with each call's label).
def _so_fwd(x, label, s3, out_grad, opts):
    return _softmax_fwd(x.reshape(s3), 1, 1.0, None).reshape(x.shape)


def _so_grad(g, y, x, label, s3, out_grad, opts):
    p = reshape_exact(y, s3)
    target, scale = _so_target(np.asarray(_raw(label)), tuple(y.shape), s3, opts)
    r = (p - _like(p, target)) * _like(p, scale)
    if out_grad:      # MXNet's backward multiplies by its first input: the output
        r = r * p
    return reshape_exact(r, y.shape)


def _so_jvp(t, y, x, label, s3, out_grad, opts):
    return reshape_exact(_sm_bwd(reshape_exact(t, s3), reshape_exact(y, s3), 1), y.shape)


_SOFTMAX_OUTPUT = defop("SoftmaxOutput", _so_fwd, [_so_grad, _no_grad], [_so_jvp, _no_grad],
                        save=(1,), save_out=True)


def _so_multi_label(lab, shape):
    n = shape[0]
    spatial = tuple(shape[2:])
    s = _prod(spatial)
    ok = [(n, s), (n,) + spatial, (n, 1) + spatial]
    if tuple(lab.shape) not in ok:
        raise ShapeError(f"SoftmaxOutput: with multi_output, label of shape {lab.shape} does "
                         f"not fit data of shape {shape}: expected one of "
                         f"{', '.join(str(o) for o in ok)}")
    return lab.reshape(n, s)


def _so_check_label(lab_shape, shape, multi_output):
    """Refuse a label whose shape does not fit the data (MXNet's rules)."""
    if tuple(lab_shape) == shape:
        return
    if multi_output:
        _so_multi_label(np.empty(lab_shape, np.int8), shape)
        return
    want = shape[:-1]
    if tuple(lab_shape) != want:
        raise ShapeError(f"SoftmaxOutput: label of shape {tuple(lab_shape)} does not fit data "
                         f"of shape {shape}: expected {want} (or the data's shape for "
                         f"probabilities)")


def _so_target(lab, shape, s3, opts):
    """``(target, scale)`` of the gradient ``(softmax - target) * scale`` for the label
    values ``lab`` (see the module's notes for MXNet's rules); ``opts`` = (grad_scale,
    ignore_label, multi_output, use_ignore, normalization, smooth_alpha, dtype)."""
    gs, ignore_label, multi_output, use_ignore, normalization, alpha, dt = opts
    dt = np.dtype(dt)
    gs = _f32(gs)
    if tuple(lab.shape) == shape:          # probabilities as the target
        return lab.astype(dt).reshape(s3), np.array(gs, dt)
    ign = int(float(ignore_label))
    k = s3[1]
    if multi_output:
        labi = every = _labels_int(_so_multi_label(lab, shape))      # (n, S)
        count = labi.size
        oh = labi[:, None, :] == np.arange(k)[None, :, None]
        rows_ignored = labi[:, None, :] == ign                      # (n, 1, S)
        batch = shape[0]
        alpha = 0.0                                # MXNet does not smooth here
    else:
        every = _labels_int(lab.reshape(-1))
        count = batch = every.size
        labi = every[:s3[0]]                        # MXNet reads the first `rows` labels
        oh = (labi[:, None] == np.arange(k)[None, :])[:, :, None]
        rows_ignored = (labi == ign)[:, None, None]
    if alpha:
        target = np.where(oh, 1.0 - alpha, alpha / (k - 1) if k > 1 else 0.0).astype(dt)
    else:
        target = oh.astype(dt)
    if normalization == "batch":
        cnt = batch
    elif normalization == "valid":     # labels == ignore_label never count (use_ignore or not)
        cnt = max(count - int(np.count_nonzero(every == ign)), 1)
    else:
        cnt = 1
    scale = gs
    if multi_output and normalization != "valid":
        scale = _f32(scale / _f32(s3[2]))           # MXNet also averages over positions
    scale = _f32(scale / _f32(cnt))
    sc = np.array(scale, dt)
    if use_ignore:
        sc = np.where(rows_ignored, np.array(0, dt), sc)
    return target, sc


def SoftmaxOutput(data: NDArray, label: NDArray, grad_scale: float = 1.0,
                  ignore_label: float = -1.0, multi_output: bool = False, use_ignore: bool = False,
                  preserve_shape: bool = False, normalization: str = "null",
                  out_grad: bool = False, smooth_alpha: float = 0.0,
                  out: Optional[NDArray] = None, name: Optional[str] = None,
                  **kwargs: Any) -> NDArray:
    """Softmax forward with the cross-entropy gradient in backward, as MXNet's loss layer.

    The forward is the softmax of each sample's elements (``data`` seen as
    ``(batch, -1)``), over the last axis (``preserve_shape``) or over axis 1
    (``multi_output``). Backward ignores the head gradient and gives
    ``(softmax(data) - one_hot(label)) * grad_scale``, normalized as ``normalization``
    says (see the module's notes for MXNet's exact rules), zero for labels equal to
    ``ignore_label`` when ``use_ignore``; ``smooth_alpha`` smooths the one-hot target.
    The label gets no gradient.

    Examples
    --------
    >>> import mxgrad as mx
    >>> x = mx.nd.zeros((1, 2)); x.attach_grad()
    >>> with mx.autograd.record():
    ...     y = mx.nd.SoftmaxOutput(x, mx.nd.array([1]))
    >>> y.backward(); x.grad
    <BLANKLINE>
    [[ 0.5 -0.5]]
    <NDArray 1x2 @cpu(0)>
    """
    data = _arr(data, "SoftmaxOutput")
    if normalization not in ("null", "batch", "valid"):
        raise StateError(f"SoftmaxOutput: normalization must be 'null', 'batch' or "
                         f"'valid', got {normalization!r}")
    alpha = float(as_real(smooth_alpha, "SoftmaxOutput: smooth_alpha"))
    if not 0.0 <= alpha <= 1.0:
        raise StateError(f"SoftmaxOutput: smooth_alpha must be in [0, 1], got {alpha}")
    shape = tuple(data.shape)
    if len(shape) < 2 and not (preserve_shape and len(shape) == 1):
        raise ShapeError(f"SoftmaxOutput: data must have a batch axis and a class axis, got "
                         f"shape {shape}")
    dt = _raw(data).dtype if _raw(data).dtype.kind == "f" else np.dtype(np.float32)
    if multi_output:
        s3 = (shape[0], shape[1], _prod(shape[2:]))
    elif preserve_shape:
        s3 = (_prod(shape[:-1]), shape[-1], 1)
    else:
        s3 = (shape[0], _prod(shape[1:]), 1)
    label = _arr(label, "SoftmaxOutput", "label")
    _so_check_label(label.shape, shape, multi_output)
    opts = (float(_f32(as_real(grad_scale, "SoftmaxOutput: grad_scale"))),
            float(ignore_label), bool(multi_output), bool(use_ignore), normalization, alpha,
            dt.name)
    return _finish(call2(_SOFTMAX_OUTPUT, data, label,
                         {"s3": s3, "out_grad": bool(out_grad), "opts": opts}), out)


def _softmax_output_run(inputs, kwargs):
    """SoftmaxOutput: with a label, MXNet's loss layer (softmax forward, backward
    ``softmax - one_hot(label)`` whatever the head gradient); without one (a model
    imported for inference or fine-tuning with another loss) the plain softmax."""
    x = inputs[0]
    if len(inputs) > 1 and inputs[1] is not None:
        # _guard: the function as mx.nd holds it, with the namespace's argument guard (one
        # wrapper per function, cached), so a loaded graph's bad attribute fails as a call does
        return _guard(SoftmaxOutput, "nd.SoftmaxOutput")(x, inputs[1], **kwargs)
    if kwargs.get("multi_output"):
        return _softmax(x, axis=1)
    if kwargs.get("preserve_shape") or x.ndim == 2:
        return _softmax(x, axis=-1)
    return _softmax(x.reshape((x.shape[0], -1)), axis=-1).reshape(x.shape)


def _label_shape(kind: str):
    """The shape rule of a loss layer with a label (``kind``: softmax, svm, or same for
    the regression outputs)."""
    def rule(kw, ins, outs):
        """A loss layer's shapes: the output the data's, the label the data's (regression)
        or without its class axis."""
        # MXNet's rules need the data (regression outputs: all of its shape); no
        # backward inference from the output
        if (kind == "same" and not _sr.known(ins[0])) or ins[0] is None:
            return list(ins), list(outs)
        (d,), (o,) = _sr.same(kw, ins[:1], outs)
        new = [d]
        if len(ins) > 1:
            label = ins[1]
            if _sr.known(d):            # MXNet shapes the label from a known data shape
                if kind == "same":
                    want: _sr.Shape = d
                elif kw.get("multi_output"):
                    want = (d[0], _sr.prod(d[2:]))
                elif kw.get("preserve_shape"):
                    want = tuple(d[:-1])
                else:
                    want = (d[0],) if kind == "softmax" else tuple(d[:-1])
                if label is None or len(label) == len(want):
                    label = _sr.merge(label, want)
            new.append(label)
        return new, [o]
    return rule


mxnet_op("SoftmaxOutput", ("data", "label"), params=("label",), run=_softmax_output_run,
         aliases=("Softmax",),
         attrs=("grad_scale", "ignore_label", "multi_output", "use_ignore", "preserve_shape",
                "normalization", "out_grad", "smooth_alpha"),
         shape=_label_shape("softmax"), dtype=_dr.label)


Softmax = SoftmaxOutput      # MXNet's deprecated name of the same op


# ================================================================ regression outputs
def _regression_fwd(x, label, kind, scale):
    if kind == "logistic":
        return _ew.sigmoid(x)
    return x.copy()


def _regression_grad(g, y, x, label, kind, scale):
    d = y - reshape_exact(label, y.shape)
    if kind == "mae":     # MXNet's minus_sign: +1 where data > label, else -1 (also at 0)
        return (d > 0) * (2.0 * scale) - scale
    return d * scale


def _regression_jvp(t, y, x, label, kind, scale):
    if kind == "logistic":
        return t * y * (1.0 - y)
    return t


_REGRESSION = defop("RegressionOutput", _regression_fwd, [_regression_grad, _no_grad],
                    [_regression_jvp, _no_grad], save=(1,), save_out=True)


def _regression(op, kind, data, label, grad_scale, out):
    data = _arr(data, op)
    label = _arr(label, op, "label")
    ds, ls = tuple(data.shape), tuple(label.shape)
    if _prod(ls) != _prod(ds) or (ds and ls and ls[0] != ds[0]) or bool(ds) != bool(ls):
        raise ShapeError(f"{op}: label of shape {ls} does not fit data of shape {ds}: it "
                         f"needs the same size and the same first dimension")
    n = ls[0] if ls else 1
    num_output = _prod(ls) // n if n else 1
    scale = float(_f32(as_real(grad_scale, f"{op}: grad_scale")) / _f32(num_output))
    return _finish(call2(_REGRESSION, data, label, {"kind": kind, "scale": scale}), out)


def LinearRegressionOutput(data: NDArray, label: NDArray, grad_scale: float = 1.0,
                           out: Optional[NDArray] = None, name: Optional[str] = None,
                           **kwargs: Any) -> NDArray:
    """Loss layer for least squares: the forward is the identity, the backward gives
    ``(data - label) * grad_scale / num_output`` (``num_output`` = label elements per
    sample) whatever the head gradient, as MXNet.

    Examples
    --------
    >>> import mxgrad as mx
    >>> x = mx.nd.array([[1., 2.]]); x.attach_grad()
    >>> with mx.autograd.record():
    ...     y = mx.nd.LinearRegressionOutput(x, mx.nd.array([[0., 0.]]))
    >>> y.backward(); x.grad
    <BLANKLINE>
    [[0.5 1. ]]
    <NDArray 1x2 @cpu(0)>
    """
    return _regression("LinearRegressionOutput", "linear", data, label, grad_scale, out)


def LogisticRegressionOutput(data: NDArray, label: NDArray, grad_scale: float = 1.0,
                             out: Optional[NDArray] = None, name: Optional[str] = None,
                             **kwargs: Any) -> NDArray:
    """Loss layer for logistic regression: the forward is ``sigmoid(data)``, the
    backward ``(sigmoid(data) - label) * grad_scale / num_output``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.LogisticRegressionOutput(mx.nd.zeros((1, 2)), mx.nd.ones((1, 2)))
    <BLANKLINE>
    [[0.5 0.5]]
    <NDArray 1x2 @cpu(0)>
    """
    return _regression("LogisticRegressionOutput", "logistic", data, label, grad_scale, out)


def MAERegressionOutput(data: NDArray, label: NDArray, grad_scale: float = 1.0,
                        out: Optional[NDArray] = None, name: Optional[str] = None,
                        **kwargs: Any) -> NDArray:
    """Loss layer for mean absolute error: identity forward, backward
    ``grad_scale / num_output`` where ``data > label`` and minus that elsewhere
    (also where they are equal, as MXNet).

    Examples
    --------
    >>> import mxgrad as mx
    >>> x = mx.nd.array([[1., 2.]]); x.attach_grad()
    >>> with mx.autograd.record():
    ...     y = mx.nd.MAERegressionOutput(x, mx.nd.array([[0., 2.]]))
    >>> y.backward(); x.grad.asnumpy()
    array([[ 0.5, -0.5]], dtype=float32)
    """
    return _regression("MAERegressionOutput", "mae", data, label, grad_scale, out)


def _regression_run(layer, kind: str):
    """The run of the regression output ``layer``: with a label, MXNet's loss layer;
    without one, its forward (``sigmoid`` for logistic, else the identity)."""
    where = "nd." + layer.__name__

    def run(inputs, kwargs):
        x = inputs[0]
        if len(inputs) > 1 and inputs[1] is not None:     # MXNet's loss layer
            return _guard(layer, where)(x, inputs[1], **kwargs)
        return _ew.sigmoid(x) if kind == "logistic" else x.copy()
    return run


_regression_shape = _label_shape("same")
for _f, _k in ((LinearRegressionOutput, "linear"), (MAERegressionOutput, "linear"),
               (LogisticRegressionOutput, "logistic")):
    mxnet_op(_f.__name__, ("data", "label"), params=("label",), run=_regression_run(_f, _k),
             attrs=("grad_scale",), shape=_regression_shape, dtype=_dr.label)


# ================================================================ SVMOutput
def _svm_grad(g, y, x, onehot, margin, reg, linear):
    oh = _like(x, onehot)
    rest = 1.0 - oh
    if linear:     # L1-SVM: -reg where the true class is inside the margin, ...
        return ((x > -margin) * rest - (x < margin) * oh) * reg
    return (_ew.relu(x + margin) * rest - _ew.relu(margin - x) * oh) * (2.0 * reg)


_SVM = defop("SVMOutput", lambda x, onehot, margin, reg, linear: x.copy(), [_svm_grad],
             [lambda t, y, x, **attrs: t])       # the forward is the identity


def SVMOutput(data: NDArray, label: NDArray, margin: float = 1.0,
              regularization_coefficient: float = 1.0, use_linear: bool = False,
              out: Optional[NDArray] = None, name: Optional[str] = None,
              **kwargs: Any) -> NDArray:
    """Loss layer of a multi-class SVM (hinge loss): identity forward; backward, for
    each row of ``data`` (classes on the last axis) and its integer ``label``,
    ``-2c * max(margin - x_label, 0)`` at the label and ``2c * max(margin + x_j, 0)``
    elsewhere (L2-SVM), or ``-c * [x_label < margin]`` and ``c * [x_j > -margin]``
    with ``use_linear`` (L1-SVM), ``c = regularization_coefficient``, as MXNet.

    Examples
    --------
    >>> import mxgrad as mx
    >>> x = mx.nd.array([[0.5, -2.]]); x.attach_grad()
    >>> with mx.autograd.record():
    ...     y = mx.nd.SVMOutput(x, mx.nd.array([0]))
    >>> y.backward(); x.grad.asnumpy()
    array([[-1.,  0.]], dtype=float32)
    """
    data = _arr(data, "SVMOutput")
    shape = tuple(data.shape)
    if not shape:
        raise ShapeError("SVMOutput: data must have a class axis (the last one)")
    lab = np.asarray(_raw(_arr(label, "SVMOutput", "label")))
    if tuple(lab.shape) != shape[:-1]:
        raise ShapeError(f"SVMOutput: label of shape {lab.shape} does not fit data of shape "
                         f"{shape}: expected {shape[:-1]}")
    dt = _raw(data).dtype if _raw(data).dtype.kind == "f" else np.dtype(np.float32)
    onehot = (_labels_int(lab)[..., None] == np.arange(shape[-1])).astype(dt)
    return _finish(call1(_SVM, data, {
        "onehot": onehot, "margin": float(as_real(margin, "SVMOutput: margin")),
        "reg": float(as_real(regularization_coefficient,
                             "SVMOutput: regularization_coefficient")),
        "linear": bool(use_linear)}), out)


def _svm_output_run(inputs, kwargs):
    """SVMOutput: with a label, MXNet's hinge-loss layer; without one, the identity."""
    if len(inputs) > 1 and inputs[1] is not None:
        return _guard(SVMOutput, "nd.SVMOutput")(inputs[0], inputs[1], **kwargs)
    return inputs[0].copy()


mxnet_op("SVMOutput", ("data", "label"), params=("label",), run=_svm_output_run,
         attrs=("margin", "regularization_coefficient", "use_linear"),
         shape=_label_shape("svm"), dtype=_dr.label)


# ================================================================ IdentityAttachKLSparseReg
def _kl_grad(g, y, x, moving_avg, rho, penalty, momentum):
    xr = _raw(x)
    x2 = xr.reshape(-1, xr.shape[-1])
    buf = _raw(moving_avg)
    avg = x2.sum(axis=0, dtype=buf.dtype) / buf.dtype.type(x2.shape[0])
    new = buf.dtype.type(momentum) * buf + buf.dtype.type(1.0 - momentum) * avg
    np.copyto(buf, new, casting="unsafe")      # MXNet updates its aux state in backward
    if isinstance(moving_avg, NDArray):
        moving_avg._write()
    one = buf.dtype.type(1.0)
    term = buf.dtype.type(penalty) * (-buf.dtype.type(rho) / buf
                                      + (one - buf.dtype.type(rho)) / (one - buf))
    return g + _like(g, term.astype(xr.dtype, copy=False))


_KL = defop("IdentityAttachKLSparseReg",
            lambda x, moving_avg, rho, penalty, momentum: x.copy(), [_kl_grad],
            [lambda t, y, x, **attrs: t])


def IdentityAttachKLSparseReg(data: NDArray, moving_avg: Optional[NDArray] = None,
                              sparseness_target: float = 0.1, penalty: float = 0.001,
                              momentum: float = 0.9, out: Optional[NDArray] = None,
                              name: Optional[str] = None, **kwargs: Any) -> NDArray:
    """Identity forward that adds a KL sparseness penalty to the gradient of a sigmoid
    layer's output ``data`` of shape ``(batch, units)``, as MXNet.

    Backward first updates the auxiliary state ``moving_avg`` (shape ``(units,)``, in
    place) to ``momentum * moving_avg + (1 - momentum) * mean(data, axis=0)``, then
    gives ``head_grad + penalty * (-rho / moving_avg + (1 - rho) / (1 - moving_avg))``,
    ``rho = sparseness_target``. Without ``moving_avg`` a fresh zero state is used.

    Examples
    --------
    >>> import mxgrad as mx
    >>> x = mx.nd.full((2, 3), 0.5); x.attach_grad()
    >>> avg = mx.nd.full((3,), 0.5)
    >>> with mx.autograd.record():
    ...     y = mx.nd.IdentityAttachKLSparseReg(x, avg, sparseness_target=0.5, penalty=1.)
    >>> y.backward(); x.grad.asnumpy()
    array([[1., 1., 1.],
           [1., 1., 1.]], dtype=float32)
    """
    data = _arr(data, "IdentityAttachKLSparseReg")
    shape = tuple(data.shape)
    if len(shape) < 2 or shape[1] != shape[-1]:
        raise ShapeError(f"IdentityAttachKLSparseReg: data must be (batch, units), got shape "
                         f"{shape}")
    avg: Union[NDArray, np.ndarray]
    if moving_avg is None:
        avg = np.zeros((shape[1],), np.float32)
    elif not isinstance(moving_avg, NDArray):
        raise ArgumentTypeError(f"IdentityAttachKLSparseReg: moving_avg must be an NDArray "
                                f"of shape ({shape[1]},), got {type(moving_avg).__name__}")
    else:
        avg = moving_avg
    if tuple(avg.shape) != (shape[1],):
        raise ShapeError(f"IdentityAttachKLSparseReg: moving_avg must have shape "
                         f"({shape[1]},), got {tuple(avg.shape)}")
    rho = float(as_real(sparseness_target, "IdentityAttachKLSparseReg: sparseness_target"))
    mom = float(as_real(momentum, "IdentityAttachKLSparseReg: momentum"))
    for nm, v in (("sparseness_target", rho), ("momentum", mom)):
        if not 0.0 <= v <= 1.0:
            raise StateError(f"IdentityAttachKLSparseReg: {nm} must be in [0, 1], got {v}")
    pen = float(as_real(penalty, "IdentityAttachKLSparseReg: penalty"))
    return _finish(call1(_KL, data, {"moving_avg": avg, "rho": rho, "penalty": pen,
                                     "momentum": mom}), out)


def _kl_sparse_reg_shape(kw, ins, outs):
    """IdentityAttachKLSparseReg's shapes: the output the data's, ``moving_avg`` one value
    per unit (axis 1)."""
    (d,), o = _sr.same(kw, ins[:1], outs)
    avg = (d[1],) if d is not None and len(d) > 1 else None
    return [d, avg], o


mxnet_op("IdentityAttachKLSparseReg", ("data", "moving_avg"), params=("moving_avg",),
         aux=(1,), shape=_kl_sparse_reg_shape)

# ops whose label input is only used by training losses: never a parameter to load
LABEL_OPS = frozenset({"SoftmaxOutput", "LinearRegressionOutput", "MAERegressionOutput",
                       "LogisticRegressionOutput", "SVMOutput"})

"""Gluon losses, with MXNet 1.x semantics: each loss returns one value per sample,
shape ``(batch,)``, the mean over every axis but ``batch_axis``. ``weight`` (a
number) scales the loss and ``sample_weight`` (broadcastable to the elementwise loss)
weights individual entries.

Examples
--------
>>> import mxgrad as mx
>>> loss = mx.gluon.loss.L2Loss()
>>> loss(mx.nd.array([[1.0, 2.0]]), mx.nd.array([[0.0, 0.0]])).asnumpy().tolist()
[1.25]
>>> ce = mx.gluon.loss.SoftmaxCrossEntropyLoss()
>>> ce(mx.nd.array([[0.0, 0.0]]), mx.nd.array([1])).asnumpy().astype(float).round(4).tolist()
[0.6931]
"""
from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any, Optional

from typing_extensions import Literal, overload

import numpy as np

from ..base import DTypeError, MXNetError, ShapeError, StateError, numeric_types
from .._engine.ndarray import NDArray
from ..symbol.symbol import Symbol
from .block import HybridBlock
from ..ops.nn import _softmax_ce_per_sample
from .._engine.ndarray import NDArray

__all__ = ["Loss", "L2Loss", "L1Loss", "SigmoidBinaryCrossEntropyLoss", "SigmoidBCELoss",
           "SoftmaxCrossEntropyLoss", "SoftmaxCELoss", "KLDivLoss", "HuberLoss",
           "HingeLoss", "SquaredHingeLoss", "LogisticLoss", "TripletLoss",
           "PoissonNLLLoss", "CosineEmbeddingLoss", "CTCLoss", "SDMLLoss"]


def _apply_weighting(F, loss, weight=None, sample_weight=None):
    """Multiply by ``sample_weight`` (broadcast) and the scalar ``weight``."""
    if sample_weight is not None:
        loss = F.broadcast_mul(loss, sample_weight)
    if weight is not None:
        if not isinstance(weight, numeric_types):
            raise DTypeError(f"weight must be a number, got {type(weight).__name__}")
        loss = loss * weight
    return loss


def _shape(x) -> Optional[tuple]:
    """``x``'s shape, or None for a Symbol whose shape is not known (a graph built from
    variables without shapes, as MXNet's Module programs make)."""
    if isinstance(x, NDArray):
        return x.shape
    try:
        return tuple(x.shape)
    except MXNetError:
        return None


def _reshape_like(F, x, y, what="label"):
    """``x`` reshaped to ``y``'s shape (same number of elements required)."""
    xs, ys = _shape(x), _shape(y)
    if xs is None or ys is None:
        return F.reshape_like(x, y)
    if xs == ys:
        return x
    if int(np.prod(xs)) != int(np.prod(ys)):
        raise ShapeError(f"{what} of shape {xs} does not match the prediction of shape "
                         f"{ys} (it must have as many elements to be reshaped to it)")
    return x.reshape(ys)


def _batch_mean(F, loss, batch_axis):
    s = _shape(loss)
    if s is not None and len(s) <= 1:
        return loss
    return F.mean(loss, axis=batch_axis, exclude=True)


class Loss(HybridBlock):
    """Base class of losses.

    Parameters
    ----------
    weight : float or None
        Global scalar weight of the loss.
    batch_axis : int
        The axis that indexes samples; the loss is averaged over the others.
    """

    def __init__(self, weight: Optional[float], batch_axis: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._weight = weight
        self._batch_axis = batch_axis

    def __repr__(self):
        return f"{self.__class__.__name__}(batch_axis={self._batch_axis}, w={self._weight})"

    @overload
    def __call__(self, pred: NDArray, label: NDArray, /, *args: Optional[NDArray]) -> NDArray: ...

    @overload
    def __call__(self, pred: Symbol, label: Symbol, /, *args: Optional[Symbol]) -> Symbol: ...

    def __call__(self, *args: Any) -> Any:
        """Check the inputs (NDArrays; optional array inputs may be None) and compute."""
        names, required, arrays = _input_spec(type(self))
        where = type(self).__name__
        if len(args) < required or (names is not None and len(args) > len(names)):
            expected = ", ".join(names) if names is not None else "pred, label, ..."
            raise DTypeError(f"{where} takes the inputs ({expected}), got {len(args)} "
                             f"argument(s)")
        for i, arg in enumerate(args):
            name = names[i] if names is not None else f"input {i}"
            if i >= required and (arg is None or name not in arrays):
                continue
            if not isinstance(arg, (NDArray, Symbol)):
                raise DTypeError(f"{where}: {name} must be an NDArray, got "
                                 f"{type(arg).__name__}; convert it with mx.nd.array(...)")
        return super().__call__(*args)

    def hybrid_forward(self, F, x, *args, **kwargs):
        raise NotImplementedError


_SPECS: dict = {}


def _input_spec(cls):
    """``(names, number required, names of the optional array inputs)`` of a loss's
    ``hybrid_forward`` inputs (after ``F``); names is None for ``*args`` signatures."""
    spec = _SPECS.get(cls)
    if spec is None:
        params = list(inspect.signature(cls.hybrid_forward).parameters.values())[2:]
        if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params):
            spec = (None, 1, frozenset())
        else:
            names = [p.name for p in params]
            required = sum(p.default is p.empty for p in params)
            arrays = frozenset(p.name for p in params if p.default is None)
            spec = (names, required, arrays)
        _SPECS[cls] = spec
    return spec


class L2Loss(Loss):
    r"""Half squared error: ``weight/2 * (label - pred)**2``, averaged per sample.

    Examples
    --------
    >>> import mxgrad as mx
    >>> L2Loss()(mx.nd.array([3.0, 1.0]), mx.nd.array([1.0, 1.0])).asnumpy().tolist()
    [2.0, 0.0]
    """

    def __init__(self, weight: float = 1.0, batch_axis: int = 0, **kwargs: Any) -> None:
        super().__init__(weight, batch_axis, **kwargs)

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        loss = F.square(label - pred)
        loss = _apply_weighting(F, loss, self._weight / 2, sample_weight)
        return _batch_mean(F, loss, self._batch_axis)


class L1Loss(Loss):
    r"""Absolute error ``|label - pred|``, averaged per sample.

    Examples
    --------
    >>> import mxgrad as mx
    >>> L1Loss()(mx.nd.array([[3.0, 1.0]]), mx.nd.array([[1.0, 2.0]])).asnumpy().tolist()
    [1.5]
    """

    def __init__(self, weight: Optional[float] = None, batch_axis: int = 0, **kwargs: Any) -> None:
        super().__init__(weight, batch_axis, **kwargs)

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        loss = F.abs(label - pred)
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return _batch_mean(F, loss, self._batch_axis)


class SigmoidBinaryCrossEntropyLoss(Loss):
    r"""Binary cross entropy with a sigmoid (labels in {0, 1}).

    With ``from_sigmoid=False`` (default) ``pred`` holds logits and the stable form
    ``max(x, 0) - x*z + log(1 + exp(-|x|))`` is used; with ``pos_weight`` the positive
    term is weighted. With ``from_sigmoid=True`` ``pred`` holds probabilities.

    Examples
    --------
    >>> import mxgrad as mx
    >>> l = SigmoidBinaryCrossEntropyLoss()
    >>> l(mx.nd.array([[0.0]]), mx.nd.array([[1.0]])).asnumpy().astype(float).round(4).tolist()
    [0.6931]
    """

    def __init__(self, from_sigmoid: bool = False, weight: Optional[float] = None,
                 batch_axis: int = 0, **kwargs: Any) -> None:
        super().__init__(weight, batch_axis, **kwargs)
        self._from_sigmoid = from_sigmoid

    def hybrid_forward(self, F, pred, label, sample_weight=None, pos_weight=None):
        label = _reshape_like(F, label, pred)
        if not self._from_sigmoid:
            softplus_neg_abs = F.log1p(F.exp(-F.abs(pred)))
            if pos_weight is None:
                loss = F.relu(pred) - pred * label + softplus_neg_abs
            else:
                log_weight = 1 + F.broadcast_mul(pos_weight - 1, label)
                loss = pred - pred * label + log_weight * (softplus_neg_abs + F.relu(-pred))
        else:
            eps = 1e-12
            if pos_weight is None:
                loss = -(F.log(pred + eps) * label + F.log(1.0 - pred + eps) * (1.0 - label))
            else:
                loss = -(F.broadcast_mul(F.log(pred + eps) * label, pos_weight)
                         + F.log(1.0 - pred + eps) * (1.0 - label))
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return _batch_mean(F, loss, self._batch_axis)


SigmoidBCELoss = SigmoidBinaryCrossEntropyLoss


class SoftmaxCrossEntropyLoss(Loss):
    r"""Softmax cross entropy.

    ``loss = -sum(label * log_softmax(pred, axis), axis)``; with ``sparse_label=True``
    (default) ``label`` holds class indices and the log-probability of that class is
    picked. ``from_logits=True`` means ``pred`` already holds log-probabilities.

    Examples
    --------
    >>> import mxgrad as mx
    >>> l = SoftmaxCrossEntropyLoss(sparse_label=False)
    >>> l(mx.nd.array([[0.0, 0.0]]), mx.nd.array([[0.5, 0.5]])).asnumpy().astype(float).round(4).tolist()
    [0.6931]
    """

    def __init__(self, axis: int = -1, sparse_label: bool = True, from_logits: bool = False,
                 weight: Optional[float] = None, batch_axis: int = 0, **kwargs: Any) -> None:
        super().__init__(weight, batch_axis, **kwargs)
        self._axis = axis
        self._sparse_label = sparse_label
        self._from_logits = from_logits

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        ps, ls = _shape(pred), _shape(label)
        known = ps is not None and ls is not None
        if (known and isinstance(pred, NDArray) and self._sparse_label
                and not self._from_logits and sample_weight is None and len(ps) == 2
                and self._axis in (-1, 1) and int(np.prod(ls)) == ps[0]):
            # the common case as one fused op: -pick(log_softmax(pred), label), (batch,);
            # traced (hybridize), the graph of ops below
            return _apply_weighting(F, _softmax_ce_per_sample(pred, label), self._weight)
        if not self._from_logits:
            pred = F.log_softmax(pred, axis=self._axis)
        if self._sparse_label:
            if known:
                axis = self._axis % len(ps)
                expected = ps[:axis] + ps[axis + 1:]
                if ls != expected and int(np.prod(ls)) == int(np.prod(expected)):
                    label = label.reshape(expected)
                elif ls != expected:
                    raise ShapeError(f"{self.name}: sparse labels of shape {ls} do not "
                                     f"match predictions of shape {ps} (expected "
                                     f"{expected}: one class index per sample)")
            loss = -F.pick(pred, label, axis=self._axis, keepdims=True)
        else:
            label = _reshape_like(F, label, pred)
            loss = -F.sum(pred * label, axis=self._axis, keepdims=True)
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return _batch_mean(F, loss, self._batch_axis)


SoftmaxCELoss = SoftmaxCrossEntropyLoss


class KLDivLoss(Loss):
    r"""Kullback-Leibler divergence ``label * (log(label) - pred)``, summed over the
    non-batch axes of each sample, as MXNet 1.9.1 computes it (its docstring says
    "averaged"; the code sums). ``pred`` holds log-probabilities unless
    ``from_logits=False``, then a log-softmax is applied along ``axis``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> p = mx.nd.log(mx.nd.array([[0.5, 0.5]]))
    >>> round(float(KLDivLoss()(p, mx.nd.array([[0.5, 0.5]])).asscalar()), 6)
    0.0
    >>> p = mx.nd.log_softmax(mx.nd.array([[1, 2, 3, 4]]))
    >>> round(float(KLDivLoss()(p, mx.nd.array([[.1, .2, .3, .4]])).asscalar()), 4)
    0.1603
    """

    def __init__(self, from_logits: bool = True, axis: int = -1, weight: Optional[float] = None,
                 batch_axis: int = 0, **kwargs: Any) -> None:
        super().__init__(weight, batch_axis, **kwargs)
        self._from_logits = from_logits
        self._axis = axis

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        if not self._from_logits:
            pred = F.log_softmax(pred, axis=self._axis)
        loss = label * (F.log(label + 1e-12) - pred)
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        s = _shape(loss)
        if s is not None and len(s) <= 1:
            return loss
        return F.sum(loss, axis=self._batch_axis, exclude=True)   # a sum, as MXNet


class HuberLoss(Loss):
    r"""Smoothed L1: ``0.5/rho * err**2`` where ``|err| <= rho``, else ``|err| - rho/2``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> HuberLoss()(mx.nd.array([0.5, 3.0]), mx.nd.array([0.0, 0.0])).asnumpy().tolist()
    [0.125, 2.5]
    """

    def __init__(self, rho: float = 1, weight: Optional[float] = None, batch_axis: int = 0,
                 **kwargs: Any) -> None:
        super().__init__(weight, batch_axis, **kwargs)
        self._rho = rho

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        err = F.abs(label - pred)
        loss = F.where(err > self._rho, err - 0.5 * self._rho,
                       (0.5 / self._rho) * F.square(err))
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return _batch_mean(F, loss, self._batch_axis)


class HingeLoss(Loss):
    r"""Hinge loss ``max(0, margin - pred * label)`` (labels in {-1, 1}).

    Examples
    --------
    >>> import mxgrad as mx
    >>> HingeLoss()(mx.nd.array([0.5, 2.0]), mx.nd.array([1.0, 1.0])).asnumpy().tolist()
    [0.5, 0.0]
    """

    def __init__(self, margin: float = 1, weight: Optional[float] = None, batch_axis: int = 0,
                 **kwargs: Any) -> None:
        super().__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        loss = F.relu(self._margin - pred * label)
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return _batch_mean(F, loss, self._batch_axis)


class SquaredHingeLoss(Loss):
    r"""Squared hinge loss ``max(0, margin - pred * label)**2``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> SquaredHingeLoss()(mx.nd.array([0.5]), mx.nd.array([1.0])).asnumpy().tolist()
    [0.25]
    """

    def __init__(self, margin: float = 1, weight: Optional[float] = None, batch_axis: int = 0,
                 **kwargs: Any) -> None:
        super().__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        loss = F.square(F.relu(self._margin - pred * label))
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return _batch_mean(F, loss, self._batch_axis)


class LogisticLoss(Loss):
    r"""Logistic loss ``log(1 + exp(-pred * label))`` for labels in {-1, 1}
    (``label_format='signed'``) or {0, 1} (``'binary'``), computed stably.

    Examples
    --------
    >>> import mxgrad as mx
    >>> LogisticLoss()(mx.nd.array([0.0]), mx.nd.array([1.0])).asnumpy().astype(float).round(4).tolist()
    [0.6931]
    """

    def __init__(self, weight: Optional[float] = None, batch_axis: int = 0,
                 label_format: Literal["signed", "binary"] = "signed", **kwargs: Any) -> None:
        super().__init__(weight, batch_axis, **kwargs)
        self._label_format = label_format
        if self._label_format not in ("signed", "binary"):
            raise StateError(f"label_format can only be signed or binary, received "
                             f"{label_format}.")

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        if self._label_format == "signed":
            label = (label + 1.0) / 2.0
        loss = F.relu(pred) - pred * label + F.log1p(F.exp(-F.abs(pred)))
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return _batch_mean(F, loss, self._batch_axis)


class TripletLoss(Loss):
    r"""Triplet loss ``max(0, sum(|pos - pred|**2 - |neg - pred|**2) + margin)``,
    summed over the non-batch axes."""

    def __init__(self, margin: float = 1, weight: Optional[float] = None, batch_axis: int = 0,
                 **kwargs: Any) -> None:
        super().__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, pred, positive, negative, sample_weight=None):
        positive = _reshape_like(F, positive, pred, "positive")
        negative = _reshape_like(F, negative, pred, "negative")
        loss = F.sum(F.square(positive - pred) - F.square(negative - pred),
                     axis=self._batch_axis, exclude=True)
        loss = F.relu(loss + self._margin)
        return _apply_weighting(F, loss, self._weight, sample_weight)


class PoissonNLLLoss(Loss):
    r"""Poisson negative log likelihood: ``exp(pred) - target * pred`` (from logits) or
    ``pred - target * log(pred + epsilon)``, plus Stirling's term with
    ``compute_full``; averaged over all elements (a 1-element result, as MXNet)."""

    def __init__(self, weight: Optional[float] = None, from_logits: bool = True,
                 batch_axis: int = 0, compute_full: bool = False, **kwargs: Any) -> None:
        super().__init__(weight, batch_axis, **kwargs)
        self._from_logits = from_logits
        self._compute_full = compute_full

    def hybrid_forward(self, F, pred, target, sample_weight=None, epsilon=1e-08):
        target = _reshape_like(F, target, pred, "target")
        if self._from_logits:
            loss = F.exp(pred) - target * pred
        else:
            loss = pred - target * F.log(pred + epsilon)
        if self._compute_full:
            safe = F.maximum(target, 1.0)
            stirling = safe * F.log(safe) - safe + 0.5 * F.log(2 * safe * np.pi)
            loss = loss + stirling * (target > 1)
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return F.mean(loss)


class CosineEmbeddingLoss(Loss):
    r"""Cosine embedding loss: ``1 - cos(x1, x2)`` for label 1 and
    ``max(0, cos(x1, x2) - margin)`` for label -1. Returns shape ``(batch, 1)`` as MXNet.

    Examples
    --------
    >>> import mxgrad as mx
    >>> x = mx.nd.array([[1.0, 0.0]])
    >>> CosineEmbeddingLoss()(x, x, mx.nd.array([1])).asnumpy().astype(float).round(4).tolist()
    [[0.0]]
    """

    def __init__(self, weight: Optional[float] = None, batch_axis: int = 0, margin: float = 0,
                 **kwargs: Any) -> None:
        super().__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, input1, input2, label, sample_weight=None):
        input1 = _reshape_like(F, input1, input2, "input1")
        label = label.reshape((-1, 1))
        cos_sim = self._cosine_similarity(F, input1, input2)
        y_1 = label == 1
        y_minus_1 = label == -1
        cos_sim_a = (1 - cos_sim) * y_1
        cos_sim_b = F.relu(y_minus_1 * (cos_sim - self._margin))
        loss = cos_sim_a + cos_sim_b
        return _apply_weighting(F, loss, self._weight, sample_weight)

    @staticmethod
    def _cosine_similarity(F, x, y, axis=-1):
        x_norm = F.norm(x, axis=axis).reshape((-1, 1))
        y_norm = F.norm(y, axis=axis).reshape((-1, 1))
        x_dot_y = F.sum(x * y, axis=axis).reshape((-1, 1))
        return x_dot_y / F.clip(x_norm * y_norm, 1e-12, np.inf)


class CTCLoss(Loss):
    r"""Connectionist temporal classification loss (Graves et al., 2006), as MXNet 1.9's.

    ``pred`` holds unnormalised activations of shape ``(N, T, C)`` (``layout='NTC'``) or
    ``(T, N, C)`` (``'TNC'``); ``label`` is ``(N, L)`` (``label_layout='NT'``) or ``(L, N)``.
    Class ``C - 1`` is the blank; labels are ``0..C-2`` and ``-1`` pads. ``pred_lengths`` and
    ``label_lengths`` (shape ``(N,)``) give each sequence's length when passed. Returns the
    negative log-likelihood of each sequence, shape ``(N,)``; differentiable to any order.

    Examples
    --------
    >>> import mxgrad as mx
    >>> loss = CTCLoss()
    >>> l = loss(mx.nd.ones((2, 20, 4)), mx.nd.array([[1, 0, -1, -1], [2, 1, 1, -1]]))
    >>> l.asnumpy().round(4)
    array([18.8282, 16.5058], dtype=float32)
    """

    def __init__(self, layout: Literal["NTC", "TNC"] = "NTC",
                 label_layout: Literal["NT", "TN"] = "NT", weight: Optional[float] = None,
                 **kwargs: Any) -> None:
        if layout not in ("NTC", "TNC"):
            raise StateError(f"CTCLoss: layout must be 'NTC' or 'TNC', got {layout!r}")
        if label_layout not in ("NT", "TN"):
            raise StateError(f"CTCLoss: label_layout must be 'NT' or 'TN', got {label_layout!r}")
        self._layout = layout
        self._label_layout = label_layout
        super().__init__(weight, label_layout.find("N"), **kwargs)

    def hybrid_forward(self, F, pred, label, pred_lengths=None, label_lengths=None,
                       sample_weight=None):
        if self._layout == "NTC":
            pred = F.swapaxes(pred, 0, 1)
        if self._batch_axis == 1:
            label = F.swapaxes(label, 0, 1)
        loss = F.CTCLoss(pred, label, pred_lengths, label_lengths,
                         use_data_lengths=pred_lengths is not None,
                         use_label_lengths=label_lengths is not None, blank_label="last")
        return _apply_weighting(F, loss, self._weight, sample_weight)


class SDMLLoss(Loss):
    r"""Smoothed deep metric learning loss (MXNet 1.9's ``SDMLLoss``): for a batch of
    pairs ``(x1[i], x2[i])`` whose other pairings are negatives, the KL divergence
    (summed over the N candidates) between the softmax over ``j`` of the negative
    squared Euclidean distances ``-|x1[i] - x2[j]|^2`` and smoothed one-hot labels
    (``1 - smoothing_parameter`` for ``j = i``, ``smoothing_parameter / (N - 1)``
    elsewhere). Returns shape ``(N,)``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> x = mx.nd.array([[0., 0.], [3., 4.]])
    >>> SDMLLoss()(x, x).shape
    (2,)
    """

    def __init__(self, smoothing_parameter: float = 0.3, weight: float = 1.,
                 batch_axis: int = 0, **kwargs: Any) -> None:
        super().__init__(weight, batch_axis, **kwargs)
        self.kl_loss = KLDivLoss(from_logits=True)
        self.smoothing_parameter = smoothing_parameter

    def hybrid_forward(self, F, x1, x2):
        n = x1.shape[0]
        diffs = F.broadcast_sub(F.expand_dims(x1, axis=1), F.expand_dims(x2, axis=0))  # N,N,D
        distances = F.square(diffs).sum(axis=2)
        s = self.smoothing_parameter
        gold = F.eye(n, dtype=x1.dtype)
        labels = gold * (1 - s) + (1 - gold) * (s / (n - 1) if n > 1 else 0.0)
        return self.kl_loss(F.log_softmax(-distances, axis=1), labels)   # sums over N

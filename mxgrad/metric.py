"""Online evaluation metrics: MXNet 1.x's ``mx.metric``.

A metric accumulates statistics over mini-batches with ``update(labels, preds)`` and reports
``get() -> (name, value)``. ``labels`` and ``preds`` are NDArrays or lists of NDArrays (one per
output); NumPy arrays are accepted too. Values are Python floats (``nan`` before any update).

Every built-in metric keeps two sets of statistics, as in MXNet 1.9: *local* ones
(``num_inst``, ``sum_metric``; cleared by ``reset_local()`` and ``reset()``) and *global* ones
(``global_num_inst``, ``global_sum_metric``; cleared only by ``reset()``), read with ``get()``
and ``get_global()``.

Examples
--------
>>> import mxgrad as mx
>>> acc = mx.metric.create('acc')
>>> acc.update(mx.nd.array([0, 1, 1]), mx.nd.array([[0.3, 0.7], [0, 1.], [0.4, 0.6]]))
>>> acc.get()
('accuracy', 0.6666666666666666)
>>> acc.reset_local(); acc.get(), acc.get_global()
(('accuracy', nan), ('accuracy', 0.6666666666666666))
"""
from __future__ import annotations

from typing import Any, List, Mapping, Optional, Sequence, Tuple, Union

from typing_extensions import TypeIs

import json
import math
import warnings
from collections import OrderedDict

import numpy as _np

from .base import DTypeError, ShapeError, StateError, numeric_types
from ._engine.ndarray import NDArray

Batch = Union[NDArray, _np.ndarray, Sequence[Union[NDArray, _np.ndarray]]]
"""A batch of labels or predictions: one NDArray or a list of them."""
NameValue = Tuple[Union[str, List[str]], Union[float, List[float]]]
"""What ``get()`` returns: a name and a value (lists of them for a composite metric)."""

__all__ = ["EvalMetric", "CompositeEvalMetric", "Accuracy", "TopKAccuracy", "F1", "MCC",
           "Perplexity", "MAE", "MSE", "RMSE", "CrossEntropy", "NegativeLogLikelihood",
           "PearsonCorrelation", "PCC", "Loss", "Torch", "Caffe", "CustomMetric", "np",
           "create", "register", "alias", "check_label_shapes"]


# ------------------------------------------------------------------ helpers
def _is_array(x: object) -> TypeIs[Union[NDArray, _np.ndarray]]:
    return isinstance(x, (NDArray, _np.ndarray))


def _numpy(x) -> _np.ndarray:
    """The values of an NDArray / NumPy array / array-like as a NumPy array (no graph)."""
    if isinstance(x, NDArray):
        return x.asnumpy()
    return _np.asarray(x)


def _scalar(v):
    """A Python number from a number, a NumPy scalar or a one-element array."""
    if isinstance(v, NDArray):
        return v.asscalar().item()
    if isinstance(v, _np.ndarray):
        return v.item()
    if isinstance(v, _np.generic):
        return v.item()
    return v


def _ratio(total, count) -> float:
    if count == 0:
        return float("nan")
    return float(_scalar(total)) / float(_scalar(count))


def check_label_shapes(labels: Any, preds: Any, wrap: bool = False, shape: bool = False
                       ) -> Tuple[Any, Any]:
    """Check that ``labels`` and ``preds`` match, as MXNet's metrics do before updating.

    Parameters
    ----------
    labels, preds : NDArray or list of NDArray
    wrap : bool
        Return single arrays wrapped in one-element lists.
    shape : bool
        Compare full shapes instead of lengths.

    A single array and a list are compared after wrapping the array (MXNet would compare the
    array's first dimension with the list's length).

    Examples
    --------
    >>> import mxgrad as mx
    >>> check_label_shapes(mx.nd.zeros((3,)), mx.nd.zeros((3, 2)), wrap=True)[0]
    [
    [0. 0. 0.]
    <NDArray 3 @cpu(0)>]
    >>> check_label_shapes([mx.nd.zeros((3,))], [])
    Traceback (most recent call last):
    ...
    mxgrad.base.ShapeError: Shape of labels 1 does not match shape of predictions 0 ...
    """
    lshape: Union[int, Tuple[int, ...]]
    pshape: Union[int, Tuple[int, ...]]
    if shape:
        lshape, pshape = tuple(labels.shape), tuple(preds.shape)
        what = "shape"
    else:
        if _is_array(labels) != _is_array(preds):
            labels = [labels] if _is_array(labels) else labels
            preds = [preds] if _is_array(preds) else preds
        lshape, pshape = len(labels), len(preds)
        what = "number"
    if lshape != pshape:
        raise ShapeError(f"Shape of labels {lshape} does not match shape of predictions "
                         f"{pshape} (comparing the {what} of labels and predictions; pass one "
                         f"label per prediction)")
    if wrap:
        if _is_array(labels):
            labels = [labels]
        if _is_array(preds):
            preds = [preds]
    return labels, preds


# ------------------------------------------------------------------ base class
class EvalMetric:
    """Base class of all evaluation metrics.

    Subclasses implement ``update(labels, preds)`` and add to ``sum_metric`` / ``num_inst``
    (and to ``global_sum_metric`` / ``global_num_inst`` when created with
    ``has_global_stats=True``); ``get()`` returns ``sum_metric / num_inst``.

    Parameters
    ----------
    name : str
        Name shown by ``get()``.
    output_names, label_names : list of str, optional
        Which outputs / labels ``update_dict`` uses (default all).

    Examples
    --------
    >>> import mxgrad as mx
    >>> class Count(mx.metric.EvalMetric):
    ...     def __init__(self):
    ...         super().__init__('count')
    ...     def update(self, labels, preds):
    ...         self.sum_metric += len(preds)
    ...         self.num_inst += 1
    >>> m = Count(); m.update([], [1, 2, 3]); m.update([], [1])
    >>> m.get(), str(m)
    (('count', 2.0), "EvalMetric: {'count': 2.0}")
    """

    def __init__(self, name: str, output_names: Optional[List[str]] = None,
                 label_names: Optional[List[str]] = None, **kwargs: Any) -> None:
        self.name = str(name)
        self.output_names = output_names
        self.label_names = label_names
        self._has_global_stats = kwargs.pop("has_global_stats", False)
        self._kwargs = kwargs
        self.reset()

    def __str__(self):
        return f"EvalMetric: {dict(self.get_name_value())}"

    def __repr__(self) -> str:
        return f"{type(self).__name__}({dict(self.get_name_value())})"

    def get_config(self) -> dict:
        """The configuration; ``create(metric.get_config())`` makes an equal metric."""
        config = self._kwargs.copy()
        config.update({"metric": self.__class__.__name__, "name": self.name,
                       "output_names": self.output_names, "label_names": self.label_names})
        return config

    def update_dict(self, label: Mapping[str, NDArray], pred: Mapping[str, NDArray]) -> None:
        """Update with dicts mapping names to arrays (``output_names`` / ``label_names``
        select and order them; default all values in order)."""
        if self.output_names is not None:
            preds = [pred[name] for name in self.output_names]
        else:
            preds = list(pred.values())
        if self.label_names is not None:
            labels = [label[name] for name in self.label_names]
        else:
            labels = list(label.values())
        self.update(labels, preds)

    def update(self, labels: Batch, preds: Batch) -> None:
        """Accumulate the statistics of one batch."""
        raise NotImplementedError(f"{type(self).__name__} must implement update(labels, preds)")

    def reset(self) -> None:
        """Clear local and global statistics."""
        self.num_inst = 0
        self.sum_metric = 0.0
        self.global_num_inst = 0
        self.global_sum_metric = 0.0

    def reset_local(self) -> None:
        """Clear the local statistics only (global ones keep accumulating)."""
        self.num_inst = 0
        self.sum_metric = 0.0

    def get(self) -> NameValue:
        """``(name, value)`` of the local statistics (``nan`` when empty)."""
        return (self.name, _ratio(self.sum_metric, self.num_inst))

    def get_global(self) -> NameValue:
        """``(name, value)`` of the global statistics (the local ones for metrics that keep
        no global statistics)."""
        if self._has_global_stats:
            return (self.name, _ratio(self.global_sum_metric, self.global_num_inst))
        return self.get()

    @staticmethod
    def _zip(name, value):
        if not isinstance(name, list):
            name = [name]
        if not isinstance(value, list):
            value = [value]
        return list(zip(name, value))

    def get_name_value(self) -> List[Tuple[str, float]]:
        """``[(name, value), ...]`` of the local statistics."""
        return self._zip(*self.get())

    def get_global_name_value(self) -> List[Tuple[str, float]]:
        """``[(name, value), ...]`` of the global statistics."""
        if self._has_global_stats:
            return self._zip(*self.get_global())
        return self.get_name_value()

    # shared by the metrics below
    def _add(self, value, count):
        self.sum_metric += value
        self.global_sum_metric += value
        self.num_inst += count
        self.global_num_inst += count


# ------------------------------------------------------------------ registry
_REGISTRY: "dict[str, type]" = {}


def register(klass, name: Optional[str] = None):
    """Register an :class:`EvalMetric` subclass so ``create(name)`` can build it (the name is
    the class name, lower-cased, unless given). Usable as a decorator.

    Examples
    --------
    >>> import mxgrad as mx
    >>> @mx.metric.register
    ... @mx.metric.alias('half')
    ... class Half(mx.metric.EvalMetric):
    ...     def __init__(self, name='half'):
    ...         super().__init__(name)
    >>> type(mx.metric.create('half')).__name__
    'Half'
    """
    if not (isinstance(klass, type) and issubclass(klass, EvalMetric)):
        raise DTypeError(f"metric.register: expected a subclass of EvalMetric, got {klass!r}")
    key = (klass.__name__ if name is None else str(name)).lower()
    old = _REGISTRY.get(key)
    if old is not None and old is not klass:
        warnings.warn(f"metric {key!r} ({old.__module__}.{old.__name__}) is overridden by "
                      f"{klass.__module__}.{klass.__name__}", UserWarning, stacklevel=2)
    _REGISTRY[key] = klass
    return klass


def alias(*aliases):
    """Decorator registering a metric class under extra names (see :func:`register`)."""
    def reg(klass):
        for name in aliases:
            register(klass, name)
        return klass
    return reg


def create(metric, *args, **kwargs: Any) -> EvalMetric:
    """Create a metric from a name, an instance, a class, a list, a config dict or a function.

    Parameters
    ----------
    metric : str, EvalMetric, list, dict or callable
        * a registered name (case-insensitive): ``'acc'``, ``'accuracy'``, ``'top_k_accuracy'``,
          ``'f1'``, ``'mcc'``, ``'ce'``, ``'nll_loss'``, ``'mae'``, ``'mse'``, ``'rmse'``,
          ``'perplexity'``, ``'pearsonr'``, ``'pcc'``, ``'loss'``, ...;
        * an :class:`EvalMetric` instance (returned as is) or subclass (instantiated);
        * a list of any of these: a :class:`CompositeEvalMetric`;
        * a dict from ``get_config()`` (or a JSON string of one);
        * a function ``feval(label, pred)`` on NumPy arrays: a :class:`CustomMetric`.
    *args, **kwargs
        Passed to the metric's constructor.

    Examples
    --------
    >>> import mxgrad as mx
    >>> m = mx.metric.create(['acc', 'mse'])
    >>> m.update([mx.nd.array([1., 0.])], [mx.nd.array([1., 1.])])
    >>> m.get()
    (['accuracy', 'mse'], [0.5, 0.5])
    >>> mx.metric.create('top_k_accuracy', top_k=3).name
    'top_k_accuracy_3'
    """
    if isinstance(metric, EvalMetric):
        if args or kwargs:
            raise StateError(f"metric.create: got an EvalMetric instance ({metric.name!r}) "
                             f"and constructor arguments {args} {kwargs}; pass one or the "
                             f"other")
        return metric
    if isinstance(metric, type) and issubclass(metric, EvalMetric):
        return metric(*args, **kwargs)
    if isinstance(metric, (list, tuple)):
        composite = CompositeEvalMetric()
        for child in metric:
            composite.add(create(child, *args, **kwargs))
        return composite
    if isinstance(metric, dict):
        config = dict(metric)
        config.update(kwargs)
        if "metric" not in config:
            raise StateError("metric.create: a config dict needs a 'metric' key naming the "
                             "metric class")
        return create(config.pop("metric"), *args, **config)
    if callable(metric):
        return CustomMetric(metric, *args, **kwargs)
    if not isinstance(metric, str):
        raise DTypeError(f"metric.create: expected a metric name, EvalMetric, list, dict or "
                         f"function, got {type(metric).__name__}")
    text = metric.strip()
    if text.startswith("{"):
        return create(json.loads(text), *args, **kwargs)
    if text.startswith("["):
        name, config = json.loads(text)
        return create(name, *args, **dict(config, **kwargs))
    key = text.lower()
    if key not in _REGISTRY:
        raise StateError(f"metric.create: unknown metric {metric!r}; known metrics: "
                         f"{', '.join(sorted(_REGISTRY))} (or register your own with "
                         f"mx.metric.register)")
    return _REGISTRY[key](*args, **kwargs)


# ------------------------------------------------------------------ composite
@register
@alias("composite")
class CompositeEvalMetric(EvalMetric):
    """Several metrics updated together; ``get()`` returns ``(names, values)`` lists.

    Parameters
    ----------
    metrics : list, optional
        Child metrics (anything :func:`create` accepts).

    Examples
    --------
    >>> import mxgrad as mx
    >>> preds = [mx.nd.array([[0.3, 0.7], [0, 1.], [0.4, 0.6]])]
    >>> labels = [mx.nd.array([0, 1, 1])]
    >>> m = mx.metric.CompositeEvalMetric()
    >>> m.add(mx.metric.Accuracy()); m.add('f1')
    >>> m.update(labels, preds)
    >>> m.get()
    (['accuracy', 'f1'], [0.6666666666666666, 0.8])
    >>> m.get_metric(1).name
    'f1'
    """

    def __init__(self, metrics=None, name: str = "composite",
                 output_names: Optional[List[str]] = None, label_names: Optional[List[str]] = None
                 ) -> None:
        self.metrics = []
        super().__init__(name, output_names=output_names, label_names=label_names,
                         has_global_stats=True)
        for m in (metrics or []):
            self.metrics.append(create(m))

    def add(self, metric) -> None:
        """Add a child metric (anything :func:`create` accepts)."""
        self.metrics.append(create(metric))

    def get_metric(self, index: int) -> EvalMetric:
        """The child metric at ``index``."""
        try:
            return self.metrics[index]
        except (IndexError, TypeError):
            raise StateError(f"CompositeEvalMetric.get_metric: index {index!r} is out of "
                             f"range for {len(self.metrics)} metrics") from None

    def update_dict(self, labels: Mapping[str, NDArray], preds: Mapping[str, NDArray]
                    ) -> None:
        if self.label_names is not None:
            labels = OrderedDict([i for i in labels.items() if i[0] in self.label_names])
        if self.output_names is not None:
            preds = OrderedDict([i for i in preds.items() if i[0] in self.output_names])
        for metric in self.metrics:
            metric.update_dict(labels, preds)

    def update(self, labels: Batch, preds: Batch) -> None:
        """Update every child metric with the same batch."""
        for metric in self.metrics:
            metric.update(labels, preds)

    def reset(self) -> None:
        for metric in getattr(self, "metrics", ()):
            metric.reset()

    def reset_local(self) -> None:
        for metric in self.metrics:
            metric.reset_local()

    @staticmethod
    def _collect(results):
        names, values = [], []
        for name, value in results:
            if isinstance(name, str):
                name = [name]
            if isinstance(value, numeric_types):
                value = [value]
            names.extend(name)
            values.extend(value)
        return (names, values)

    def get(self) -> NameValue:
        return self._collect(m.get() for m in self.metrics)

    def get_global(self) -> NameValue:
        return self._collect(m.get_global() for m in self.metrics)

    def get_config(self):
        config = super().get_config()
        config.update({"metrics": [m.get_config() for m in self.metrics]})
        return config


# ------------------------------------------------------------------ classification
@register
@alias("acc")
class Accuracy(EvalMetric):
    """Fraction of correct predictions.

    ``preds`` are class scores (the argmax along ``axis`` is the predicted class) or, when a
    prediction has the label's shape, class indices. Labels and predicted indices are compared
    after conversion to int32.

    Parameters
    ----------
    axis : int, default 1
        The class axis of score predictions.

    Examples
    --------
    >>> import mxgrad as mx
    >>> acc = mx.metric.Accuracy()
    >>> acc.update(preds=[mx.nd.array([[0.3, 0.7], [0, 1.], [0.4, 0.6]])],
    ...            labels=[mx.nd.array([0, 1, 1])])
    >>> acc.get()
    ('accuracy', 0.6666666666666666)
    """

    def __init__(self, axis: int = 1, name: str = "accuracy",
                 output_names: Optional[List[str]] = None, label_names: Optional[List[str]] = None
                 ) -> None:
        super().__init__(name, axis=axis, output_names=output_names, label_names=label_names,
                         has_global_stats=True)
        self.axis = axis

    def update(self, labels: Batch, preds: Batch) -> None:
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            lab, p = _numpy(label), _numpy(pred)
            if p.shape != lab.shape:
                p = p.argmax(axis=self.axis)
            p = p.astype(_np.int32).ravel()
            lab = lab.astype(_np.int32).ravel()
            if p.size != lab.size:
                raise ShapeError(f"Accuracy: {lab.size} labels (shape {tuple(label.shape)}) "
                                 f"but {p.size} predicted classes (predictions of shape "
                                 f"{tuple(pred.shape)}, class axis {self.axis})")
            self._add(int((p == lab).sum()), int(p.size))


@register
@alias("top_k_accuracy", "top_k_acc")
class TopKAccuracy(EvalMetric):
    """Fraction of samples whose label is among the ``top_k`` highest-scored classes.

    Parameters
    ----------
    top_k : int
        Must be greater than 1 (use :class:`Accuracy` for 1). The name gets ``_<top_k>``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> m = mx.metric.TopKAccuracy(top_k=2)
    >>> m.update([mx.nd.array([2, 0, 1])],
    ...          [mx.nd.array([[0.1, 0.5, 0.4], [0.1, 0.5, 0.4], [0.3, 0.2, 0.5]])])
    >>> m.get()
    ('top_k_accuracy_2', 0.3333333333333333)
    """

    def __init__(self, top_k: int = 1, name: str = "top_k_accuracy",
                 output_names: Optional[List[str]] = None, label_names: Optional[List[str]] = None
                 ) -> None:
        super().__init__(name, top_k=top_k, output_names=output_names, label_names=label_names,
                         has_global_stats=True)
        self.top_k = int(top_k)
        if self.top_k <= 1:
            raise StateError(f"TopKAccuracy: top_k must be greater than 1, got {top_k}; use "
                             f"Accuracy for top-1 accuracy")
        self.name += f"_{self.top_k}"

    def update(self, labels: Batch, preds: Batch) -> None:
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            p = _numpy(pred).astype(_np.float32)
            lab = _numpy(label).astype(_np.int32).ravel()
            if p.ndim > 2:
                raise ShapeError(f"TopKAccuracy: predictions must have at most 2 dimensions "
                                 f"(batch, classes), got shape {p.shape}")
            if p.shape[0] != lab.size:
                raise ShapeError(f"TopKAccuracy: {lab.size} labels but {p.shape[0]} "
                                 f"predictions (shape {p.shape})")
            if p.ndim == 1:
                correct = int((p.astype(_np.int32) == lab).sum())
            else:
                k = min(self.top_k, p.shape[1])
                top = _np.argpartition(p, -k, axis=1)[:, -k:]
                correct = int((top == lab[:, None]).any(axis=1).sum())
            self._add(correct, int(p.shape[0]))


class _BinaryStats:
    """True/false positive/negative counts of a binary classifier, local and global."""

    def __init__(self):
        self.reset_stats()

    def update_binary_stats(self, label, pred, who):
        p = _numpy(pred)
        lab = _numpy(label).astype(_np.int32).ravel()
        if p.ndim == 2 and p.shape[1] > 1:
            pred_label = p.argmax(axis=1)
        elif p.ndim == 1 or (p.ndim == 2 and p.shape[1] == 1):
            pred_label = (p.ravel() > 0.5).astype(_np.int32)
        else:
            raise ShapeError(f"{who}: predictions must be (batch, 2) class scores or (batch,) "
                             f"probabilities of the positive class, got shape {p.shape}")
        if pred_label.size != lab.size:
            raise ShapeError(f"{who}: {lab.size} labels but {pred_label.size} predictions "
                             f"(shape {p.shape})")
        if len(_np.unique(lab)) > 2:
            raise StateError(f"{who} currently only supports binary classification (labels "
                             f"0 and 1), got labels {_np.unique(lab).tolist()}")
        pred_true = pred_label == 1
        label_true = lab == 1
        tp = int((pred_true & label_true).sum())
        fp = int((pred_true & ~label_true).sum())
        fn = int((~pred_true & label_true).sum())
        tn = int((~pred_true & ~label_true).sum())
        for pre in ("", "global_"):
            setattr(self, pre + "true_positives", getattr(self, pre + "true_positives") + tp)
            setattr(self, pre + "false_positives", getattr(self, pre + "false_positives") + fp)
            setattr(self, pre + "false_negatives", getattr(self, pre + "false_negatives") + fn)
            setattr(self, pre + "true_negatives", getattr(self, pre + "true_negatives") + tn)

    def _counts(self, use_global):
        pre = "global_" if use_global else ""
        return (getattr(self, pre + "true_positives"), getattr(self, pre + "false_positives"),
                getattr(self, pre + "false_negatives"), getattr(self, pre + "true_negatives"))

    def total_examples(self, use_global=False):
        return sum(self._counts(use_global))

    def fscore(self, use_global=False):
        tp, fp, fn, _ = self._counts(use_global)
        precision = tp / (tp + fp) if tp + fp > 0 else 0.0
        recall = tp / (tp + fn) if tp + fn > 0 else 0.0
        if precision + recall > 0:
            return 2 * precision * recall / (precision + recall)
        return 0.0

    def matthewscc(self, use_global=False):
        tp, fp, fn, tn = (float(c) for c in self._counts(use_global))
        if tp + fp + fn + tn == 0:
            return 0.0
        denom = 1.0
        for t in (tp + fp, tp + fn, tn + fp, tn + fn):
            if t != 0:
                denom *= t
        return (tp * tn - fp * fn) / math.sqrt(denom)

    def local_reset_stats(self):
        self.true_positives = self.false_positives = 0
        self.false_negatives = self.true_negatives = 0

    def reset_stats(self):
        self.local_reset_stats()
        self.global_true_positives = self.global_false_positives = 0
        self.global_false_negatives = self.global_true_negatives = 0


class _BinaryMetric(EvalMetric):
    """Shared machinery of F1 and MCC (macro: mean of per-update scores; micro: one score
    over all samples since the last reset)."""

    def __init__(self, name, output_names, label_names, average):
        if average not in ("macro", "micro"):
            raise StateError(f"{type(self).__name__}: average must be 'macro' or 'micro', "
                             f"got {average!r}")
        self.average = average
        self.metrics = _BinaryStats()
        super().__init__(name, output_names=output_names, label_names=label_names,
                         has_global_stats=True)

    def _score(self, use_global):
        raise NotImplementedError

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            self.metrics.update_binary_stats(label, pred, type(self).__name__)
        stats = self.metrics
        if self.average == "macro":
            self.sum_metric += self._score(False)
            self.global_sum_metric += self._score(True)
            self.num_inst += 1
            self.global_num_inst += 1
            stats.reset_stats()
        else:
            self.sum_metric = self._score(False) * stats.total_examples(False)
            self.global_sum_metric = self._score(True) * stats.total_examples(True)
            self.num_inst = stats.total_examples(False)
            self.global_num_inst = stats.total_examples(True)

    def reset(self):
        super().reset()
        self.metrics.reset_stats()

    def reset_local(self):
        super().reset_local()
        self.metrics.local_reset_stats()


@register
class F1(_BinaryMetric):
    """F1 score of a binary classifier: ``2 * precision * recall / (precision + recall)``.

    ``preds`` are ``(batch, 2)`` class scores (argmax is the prediction) or ``(batch,)``
    probabilities of class 1 (thresholded at 0.5); labels are 0/1.

    Parameters
    ----------
    average : {'macro', 'micro'}, default 'macro'
        ``'macro'``: mean of the F1 scores of each ``update`` call; ``'micro'``: one F1 score
        over all samples.

    Examples
    --------
    >>> import mxgrad as mx
    >>> f1 = mx.metric.F1()
    >>> f1.update([mx.nd.array([0., 1., 1.])], [mx.nd.array([[0.3, 0.7], [0., 1.], [0.4, 0.6]])])
    >>> f1.get()
    ('f1', 0.8)
    """

    def __init__(self, name: str = "f1", output_names: Optional[List[str]] = None,
                 label_names: Optional[List[str]] = None, average: str = "macro") -> None:
        super().__init__(name, output_names, label_names, average)

    def _score(self, use_global):
        return self.metrics.fscore(use_global)


@register
class MCC(_BinaryMetric):
    """Matthews correlation coefficient of a binary classifier,
    ``(TP*TN - FP*FN) / sqrt((TP+FP)(TP+FN)(TN+FP)(TN+FN))`` with zero factors of the
    denominator replaced by 1. Inputs and ``average`` as for :class:`F1`.

    Examples
    --------
    >>> import mxgrad as mx
    >>> mcc = mx.metric.MCC()
    >>> mcc.update([mx.nd.array([0., 1., 1., 0.])], [mx.nd.array([0.2, 0.9, 0.3, 0.1])])
    >>> round(mcc.get()[1], 6)
    0.57735
    """

    def __init__(self, name: str = "mcc", output_names: Optional[List[str]] = None,
                 label_names: Optional[List[str]] = None, average: str = "macro") -> None:
        super().__init__(name, output_names, label_names, average)

    def _score(self, use_global):
        return self.metrics.matthewscc(use_global)


@register
class Perplexity(EvalMetric):
    """Perplexity ``exp(-mean(log p[label]))`` of predicted class probabilities.

    Parameters
    ----------
    ignore_label : int or None
        Label value whose samples are left out (``None`` keeps all).
    axis : int, default -1
        The class axis of the predictions.

    Examples
    --------
    >>> import mxgrad as mx
    >>> perp = mx.metric.Perplexity(ignore_label=None)
    >>> perp.update([mx.nd.array([0, 1, 1])], [mx.nd.array([[0.3, 0.7], [0, 1.], [0.4, 0.6]])])
    >>> round(perp.get()[1], 6)
    1.771098
    """

    def __init__(self, ignore_label, axis: int = -1, name: str = "perplexity",
                 output_names: Optional[List[str]] = None, label_names: Optional[List[str]] = None
                 ) -> None:
        super().__init__(name, ignore_label=ignore_label, output_names=output_names,
                         label_names=label_names, has_global_stats=True)
        self.ignore_label = ignore_label
        self.axis = axis

    def update(self, labels: Batch, preds: Batch) -> None:
        labels, preds = check_label_shapes(labels, preds, True)
        loss, num = 0.0, 0
        for label, pred in zip(labels, preds):
            p = _numpy(pred)
            p = _np.moveaxis(p, self.axis, -1)
            ncls = p.shape[-1]
            lab = _numpy(label).ravel()
            if lab.size * ncls != p.size:
                raise ShapeError(f"Perplexity: shape mismatch: labels {tuple(label.shape)} vs. "
                                 f"predictions {tuple(pred.shape)} (one label per prediction "
                                 f"along all axes but the class axis {self.axis})")
            p = p.reshape(-1, ncls)
            idx = _np.clip(lab.astype(_np.int64), 0, ncls - 1)
            prob = p[_np.arange(p.shape[0]), idx].astype(_np.float64)
            if self.ignore_label is not None:
                ignore = lab == self.ignore_label
                num -= int(ignore.sum())
                prob = _np.where(ignore, 1.0, prob)
            loss -= float(_np.log(_np.maximum(1e-10, prob)).sum())
            num += prob.size
        self._add(loss, num)

    def get(self) -> NameValue:
        if self.num_inst == 0:
            return (self.name, float("nan"))
        return (self.name, math.exp(self.sum_metric / self.num_inst))

    def get_global(self) -> NameValue:
        if self.global_num_inst == 0:
            return (self.name, float("nan"))
        return (self.name, math.exp(self.global_sum_metric / self.global_num_inst))


# ------------------------------------------------------------------ regression
class _BatchMeanMetric(EvalMetric):
    """A per-batch error averaged over batches (as MXNet 1.x: every label/pred pair counts
    once, whatever its size)."""

    def __init__(self, name, output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names,
                         has_global_stats=True)

    @staticmethod
    def _error(diff):
        raise NotImplementedError

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            lab = _numpy(label).astype(_np.float64)
            p = _numpy(pred).astype(_np.float64)
            if lab.ndim == 1:
                lab = lab.reshape(lab.shape[0], 1)
            if p.ndim == 1:
                p = p.reshape(p.shape[0], 1)
            try:
                diff = lab - p
            except ValueError:
                raise ShapeError(f"{type(self).__name__}: labels of shape "
                                 f"{tuple(label.shape)} do not match predictions of shape "
                                 f"{tuple(pred.shape)}") from None
            self._add(float(self._error(diff)), 1)


@register
class MAE(_BatchMeanMetric):
    """Mean absolute error ``mean(|label - pred|)``, averaged over updates (batches).

    Examples
    --------
    >>> import mxgrad as mx
    >>> m = mx.metric.MAE()
    >>> m.update([mx.nd.array([2.5, 0.0, 2, 8])], [mx.nd.array([3, -0.5, 2, 7])])
    >>> m.get()
    ('mae', 0.5)
    """

    def __init__(self, name: str = "mae", output_names: Optional[List[str]] = None,
                 label_names: Optional[List[str]] = None) -> None:
        super().__init__(name, output_names, label_names)

    @staticmethod
    def _error(diff):
        return _np.abs(diff).mean()


@register
class MSE(_BatchMeanMetric):
    """Mean squared error ``mean((label - pred)**2)``, averaged over updates (batches).

    Examples
    --------
    >>> import mxgrad as mx
    >>> m = mx.metric.MSE()
    >>> m.update([mx.nd.array([2.5, 0.0, 2, 8])], [mx.nd.array([3, -0.5, 2, 7])])
    >>> m.get()
    ('mse', 0.375)
    """

    def __init__(self, name: str = "mse", output_names: Optional[List[str]] = None,
                 label_names: Optional[List[str]] = None) -> None:
        super().__init__(name, output_names, label_names)

    @staticmethod
    def _error(diff):
        return (diff ** 2).mean()


@register
class RMSE(_BatchMeanMetric):
    """Root mean squared error ``sqrt(mean((label - pred)**2))``, averaged over updates.

    Examples
    --------
    >>> import mxgrad as mx
    >>> m = mx.metric.RMSE()
    >>> m.update([mx.nd.array([2.5, 0.0, 2, 8])], [mx.nd.array([3, -0.5, 2, 7])])
    >>> round(m.get()[1], 6)
    0.612372
    """

    def __init__(self, name: str = "rmse", output_names: Optional[List[str]] = None,
                 label_names: Optional[List[str]] = None) -> None:
        super().__init__(name, output_names, label_names)

    @staticmethod
    def _error(diff):
        return math.sqrt((diff ** 2).mean())


class _LogLikelihood(EvalMetric):
    def __init__(self, eps, name, output_names, label_names):
        super().__init__(name, eps=eps, output_names=output_names, label_names=label_names,
                         has_global_stats=True)
        self.eps = eps

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            lab = _numpy(label).ravel()
            p = _numpy(pred)
            if p.ndim > 2 and lab.size * p.shape[-1] == p.size:
                p = p.reshape(-1, p.shape[-1])
            if p.ndim != 2 or p.shape[0] != lab.size:
                raise ShapeError(f"{type(self).__name__}: predictions of shape "
                                 f"{tuple(pred.shape)} must be (batch, classes) with one "
                                 f"label each, got {lab.size} labels")
            prob = p[_np.arange(lab.size), lab.astype(_np.int64)].astype(_np.float64)
            self._add(float((-_np.log(prob + self.eps)).sum()), int(lab.size))


@register
@alias("ce")
class CrossEntropy(_LogLikelihood):
    """Cross entropy ``-mean(log(p[label] + eps))`` of predicted class probabilities.

    Parameters
    ----------
    eps : float, default 1e-12
        Added to the probabilities before the log.

    Examples
    --------
    >>> import mxgrad as mx
    >>> ce = mx.metric.CrossEntropy()
    >>> ce.update([mx.nd.array([0, 1, 1])], [mx.nd.array([[0.3, 0.7], [0, 1.], [0.4, 0.6]])])
    >>> round(ce.get()[1], 6)
    0.571599
    """

    def __init__(self, eps: float = 1e-12, name: str = "cross-entropy",
                 output_names: Optional[List[str]] = None, label_names: Optional[List[str]] = None
                 ) -> None:
        super().__init__(eps, name, output_names, label_names)


@register
@alias("nll_loss")
class NegativeLogLikelihood(_LogLikelihood):
    """Negative log-likelihood ``-mean(log(p[label] + eps))`` (same value as
    :class:`CrossEntropy`, named ``'nll-loss'``).

    Examples
    --------
    >>> import mxgrad as mx
    >>> nll = mx.metric.NegativeLogLikelihood()
    >>> nll.update([mx.nd.array([0, 1, 1])], [mx.nd.array([[0.3, 0.7], [0, 1.], [0.4, 0.6]])])
    >>> round(nll.get()[1], 6)
    0.571599
    """

    def __init__(self, eps: float = 1e-12, name: str = "nll-loss",
                 output_names: Optional[List[str]] = None, label_names: Optional[List[str]] = None
                 ) -> None:
        super().__init__(eps, name, output_names, label_names)


@register
@alias("pearsonr")
class PearsonCorrelation(EvalMetric):
    """Pearson correlation between labels and predictions (both flattened).

    Parameters
    ----------
    average : {'macro', 'micro'}, default 'macro'
        ``'macro'``: mean of the per-update correlations; ``'micro'``: one correlation over all
        samples seen (streamed exactly).

    Examples
    --------
    >>> import mxgrad as mx
    >>> pr = mx.metric.PearsonCorrelation()
    >>> pr.update([mx.nd.array([[1, 0], [0, 1], [0, 1]])],
    ...           [mx.nd.array([[0.3, 0.7], [0, 1.], [0.4, 0.6]])])
    >>> round(pr.get()[1], 6)
    0.421637
    """

    def __init__(self, name: str = "pearsonr", output_names: Optional[List[str]] = None,
                 label_names: Optional[List[str]] = None, average: str = "macro") -> None:
        if average not in ("macro", "micro"):
            raise StateError(f"PearsonCorrelation: average must be 'macro' or 'micro', got "
                             f"{average!r}")
        self.average = average
        super().__init__(name, output_names=output_names, label_names=label_names,
                         has_global_stats=True)

    # micro statistics: [count, mean_label, mean_pred, M2_label, M2_pred, co-moment]
    def reset(self) -> None:
        super().reset()
        self._local = [0, 0.0, 0.0, 0.0, 0.0, 0.0]
        self._global = [0, 0.0, 0.0, 0.0, 0.0, 0.0]

    def reset_local(self) -> None:
        super().reset_local()
        self._local = [0, 0.0, 0.0, 0.0, 0.0, 0.0]

    @staticmethod
    def _merge(stats, lab, p):
        """Chan et al.'s pairwise update of means, second moments and co-moment."""
        n_b = lab.size
        if n_b == 0:
            return stats
        n_a, ml_a, mp_a, m2l_a, m2p_a, c_a = stats
        ml_b, mp_b = lab.mean(), p.mean()
        dl, dp = lab - ml_b, p - mp_b
        n = n_a + n_b
        gl, gp = ml_b - ml_a, mp_b - mp_a
        w = n_a * n_b / n
        return [n, ml_a + gl * n_b / n, mp_a + gp * n_b / n,
                m2l_a + float((dl * dl).sum()) + gl * gl * w,
                m2p_a + float((dp * dp).sum()) + gp * gp * w,
                c_a + float((dl * dp).sum()) + gl * gp * w]

    @staticmethod
    def _corr(stats):
        _, _, _, m2l, m2p, c = stats
        return float(c / math.sqrt(m2l * m2p)) if m2l * m2p > 0 else float("nan")

    def update(self, labels: Batch, preds: Batch) -> None:
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            check_label_shapes(label, pred, False, True)
            lab = _numpy(label).ravel().astype(_np.float64)
            p = _numpy(pred).ravel().astype(_np.float64)
            if self.average == "macro":
                self._add(float(_np.corrcoef(p, lab)[0, 1]), 1)
            else:
                self.num_inst += 1
                self.global_num_inst += 1
                self._local = self._merge(self._local, lab, p)
                self._global = self._merge(self._global, lab, p)

    def get(self) -> NameValue:
        if self.num_inst == 0:
            return (self.name, float("nan"))
        if self.average == "macro":
            return super().get()
        return (self.name, self._corr(self._local))

    def get_global(self) -> NameValue:
        if self.global_num_inst == 0:
            return (self.name, float("nan"))
        if self.average == "macro":
            return super().get_global()
        return (self.name, self._corr(self._global))


@register
class PCC(EvalMetric):
    """Multi-class Matthews correlation (the Pearson correlation of the confusion matrix);
    equals :class:`MCC` for two classes. Computed over all samples since the last reset.

    Examples
    --------
    >>> import mxgrad as mx
    >>> pcc = mx.metric.PCC()
    >>> pcc.update([mx.nd.array([0., 1., 1., 0.])],
    ...            [mx.nd.array([[0.8, 0.2], [0.1, 0.9], [0.7, 0.3], [0.9, 0.1]])])
    >>> round(pcc.get()[1], 6)
    0.57735
    """

    def __init__(self, name: str = "pcc", output_names: Optional[List[str]] = None,
                 label_names: Optional[List[str]] = None, has_global_stats: bool = True) -> None:
        self.k = 2
        super().__init__(name, output_names=output_names, label_names=label_names,
                         has_global_stats=has_global_stats)

    def _grow(self, inc):
        self.lcm = _np.pad(self.lcm, ((0, inc), (0, inc)))
        self.gcm = _np.pad(self.gcm, ((0, inc), (0, inc)))
        self.k += inc

    @staticmethod
    def _calc_mcc(cmat):
        n = cmat.sum()
        x = cmat.sum(axis=1)
        y = cmat.sum(axis=0)
        cov_xx = float((x * (n - x)).sum())
        cov_yy = float((y * (n - y)).sum())
        if cov_xx == 0 or cov_yy == 0:
            return float("nan")
        cov_xy = float((cmat.diagonal() * n - x * y).sum())
        return cov_xy / math.sqrt(cov_xx * cov_yy)

    def update(self, labels: Batch, preds: Batch) -> None:
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            lab = _numpy(label).astype(_np.int64).ravel()
            p = _numpy(pred)
            if p.shape != tuple(label.shape):
                p = p.argmax(axis=1)
            p = p.astype(_np.int64).ravel()
            if p.size != lab.size:
                raise ShapeError(f"PCC: {lab.size} labels but {p.size} predicted classes")
            if p.size == 0:
                continue
            if min(p.min(), lab.min()) < 0:
                raise StateError("PCC: class indices must be non-negative")
            n = int(max(p.max(), lab.max()))
            if n >= self.k:
                self._grow(n + 1 - self.k)
            bcm = _np.zeros((self.k, self.k))
            _np.add.at(bcm, (p, lab), 1)
            self.lcm += bcm
            self.gcm += bcm
        self.num_inst += 1
        self.global_num_inst += 1

    @property
    def sum_metric(self):
        return self._calc_mcc(self.lcm) * self.num_inst

    @property
    def global_sum_metric(self):
        return self._calc_mcc(self.gcm) * self.global_num_inst

    def get(self) -> NameValue:
        if self.num_inst == 0:
            return (self.name, float("nan"))
        return (self.name, self._calc_mcc(self.lcm))

    def get_global(self) -> NameValue:
        if self.global_num_inst == 0:
            return (self.name, float("nan"))
        return (self.name, self._calc_mcc(self.gcm))

    def reset(self) -> None:
        self.global_num_inst = 0
        self.gcm = _np.zeros((self.k, self.k))
        self.reset_local()

    def reset_local(self) -> None:
        self.num_inst = 0
        self.lcm = _np.zeros((self.k, self.k))


# ------------------------------------------------------------------ losses and custom
@register
class Loss(EvalMetric):
    """Mean of loss values: pass the loss array(s) as ``preds`` (labels are ignored); every
    element counts as one instance.

    Examples
    --------
    >>> import mxgrad as mx
    >>> m = mx.metric.Loss()
    >>> m.update(None, mx.nd.array([0.5, 1.5])); m.update(None, [mx.nd.array([4.])])
    >>> m.get()
    ('loss', 2.0)
    """

    def __init__(self, name: str = "loss", output_names: Optional[List[str]] = None,
                 label_names: Optional[List[str]] = None) -> None:
        super().__init__(name, output_names=output_names, label_names=label_names,
                         has_global_stats=True)

    def update(self, _: Any, preds: Batch) -> None:
        if _is_array(preds):
            preds = [preds]
        for pred in preds:
            p = _numpy(pred)
            self._add(float(p.sum(dtype=_np.float64)), int(p.size))


@register
class Torch(Loss):
    """Dummy metric for torch criterions (a :class:`Loss` named ``'torch'``)."""

    def __init__(self, name: str = "torch", output_names: Optional[List[str]] = None,
                 label_names: Optional[List[str]] = None) -> None:
        super().__init__(name, output_names=output_names, label_names=label_names)


@register
class Caffe(Loss):
    """Dummy metric for caffe criterions (a :class:`Loss` named ``'caffe'``)."""

    def __init__(self, name: str = "caffe", output_names: Optional[List[str]] = None,
                 label_names: Optional[List[str]] = None) -> None:
        super().__init__(name, output_names=output_names, label_names=label_names)


@register
class CustomMetric(EvalMetric):
    """A metric from a function ``feval(label, pred)`` of NumPy arrays returning a value
    (averaged over label/pred pairs) or a ``(sum_metric, num_inst)`` tuple.

    Parameters
    ----------
    feval : callable
    name : str, optional
        Default: the function's name (``'custom(<lambda>)'`` for a lambda).
    allow_extra_outputs : bool, default False
        Allow more predictions than labels (extra ones are ignored).

    Examples
    --------
    >>> import mxgrad as mx
    >>> m = mx.metric.CustomMetric(lambda label, pred: (label + pred).mean())
    >>> m.update([mx.nd.array([2.5, 0.0, 2, 8])], [mx.nd.array([3, -0.5, 2, 7])])
    >>> m.get()
    ('custom(<lambda>)', 6.0)
    """

    def __init__(self, feval, name: Optional[str] = None, allow_extra_outputs: bool = False,
                 output_names: Optional[List[str]] = None, label_names: Optional[List[str]] = None
                 ) -> None:
        if name is None:
            name = getattr(feval, "__name__", type(feval).__name__)
            if "<" in name:
                name = f"custom({name})"
        super().__init__(name, feval=feval, allow_extra_outputs=allow_extra_outputs,
                         output_names=output_names, label_names=label_names,
                         has_global_stats=True)
        self._feval = feval
        self._allow_extra_outputs = allow_extra_outputs

    def update(self, labels: Batch, preds: Batch) -> None:
        if not self._allow_extra_outputs:
            labels, preds = check_label_shapes(labels, preds, True)
        else:
            labels = [labels] if _is_array(labels) else labels
            preds = [preds] if _is_array(preds) else preds
        for pred, label in zip(preds, labels):
            reval = self._feval(_numpy(label), _numpy(pred))
            if isinstance(reval, tuple):
                total, count = reval
                self._add(_scalar(total), _scalar(count))
            else:
                self._add(_scalar(reval), 1)

    def get_config(self):
        raise NotImplementedError("CustomMetric cannot be serialized")


def np(numpy_feval, name: Optional[str] = None, allow_extra_outputs: bool = False) -> CustomMetric:
    """A :class:`CustomMetric` from a function of NumPy arrays (MXNet's ``mx.metric.np``).

    Examples
    --------
    >>> import mxgrad as mx
    >>> import numpy
    >>> def abs_err(label, pred):
    ...     return numpy.abs(label - pred).mean()
    >>> m = mx.metric.np(abs_err)
    >>> m.update([mx.nd.array([1., 2.])], [mx.nd.array([1., 4.])])
    >>> m.get()
    ('abs_err', 1.0)
    """
    def feval(label, pred):
        return numpy_feval(label, pred)
    feval.__name__ = getattr(numpy_feval, "__name__", "custom")
    return CustomMetric(feval, name, allow_extra_outputs)

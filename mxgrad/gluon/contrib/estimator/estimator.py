"""The Gluon Estimator: a training loop driven by event handlers (MXNet 1.6+)."""
from __future__ import annotations

import copy
import logging
import sys
from typing import List, Optional

from ....base import StateError
from ....context import Context, cpu
from ...._warn import warn as _warn
from ....metric import Accuracy
from ....metric import Loss as LossMetric
from ...block import Block
from ...loss import Loss, SoftmaxCrossEntropyLoss
from ...parameter import DeferredInitializationError
from ...trainer import Trainer
from .batch_processor import BatchProcessor
from .event_handler import EstimatorArgumentError
from .event_handler import (BatchBegin, BatchEnd, EpochBegin, EpochEnd, GradientUpdateHandler,
                            LoggingHandler, MetricHandler, StoppingHandler, TrainBegin,
                            TrainEnd, ValidationHandler, check_event_handlers, check_metrics)

__all__ = ["Estimator"]


def _check_data(data, arg: str):
    """A loader that can be iterated once per epoch (a DataLoader, a list of batches)."""
    try:
        it = iter(data)
    except TypeError:
        raise EstimatorArgumentError(f"{arg} must be a gluon.data.DataLoader (or another re-iterable of "
                         f"(data, label) batches), got {type(data).__name__}") from None
    if it is data:
        raise EstimatorArgumentError(f"{arg} is an iterator, which is used up after one epoch; pass a "
                         f"gluon.data.DataLoader (or a list of (data, label) batches)")
    return data


class Estimator:
    """Train and evaluate a network with ``fit``/``evaluate`` and event handlers.

    Parameters
    ----------
    net : gluon.Block
        The model.
    loss : gluon.loss.Loss
        The training objective.
    train_metrics, val_metrics : EvalMetric or list of EvalMetric, optional
        Metrics on training and validation data. Default training metrics: accuracy for
        ``SoftmaxCrossEntropyLoss``, and the mean loss; validation metrics default to
        copies of the training ones. Their names get a ``'training '`` /
        ``'validation '`` prefix.
    initializer : Initializer, optional
        Used when ``net`` is not initialized yet.
    trainer : gluon.Trainer, optional
        Default: SGD with learning rate 0.001 on ``net.collect_params()`` (with a warning).
    context : Context or list of Context, optional
        Default ``mx.cpu()``; the batches are split across the contexts.
    val_net : gluon.Block, optional
        The network used by ``evaluate`` (default ``net``).
    val_loss : gluon.loss.Loss, optional
        The validation loss (default ``loss``).
    batch_processor : BatchProcessor, optional
        Custom ``fit_batch``/``evaluate_batch``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> from mxgrad import gluon
    >>> from mxgrad.gluon.contrib.estimator import Estimator
    >>> mx.random.seed(0)
    >>> x = mx.nd.random.normal(shape=(64, 2)); y = (x[:, 0] > 0)
    >>> loader = gluon.data.DataLoader(gluon.data.ArrayDataset(x, y), batch_size=16)
    >>> net = gluon.nn.Dense(2); net.initialize()
    >>> est = Estimator(net, gluon.loss.SoftmaxCrossEntropyLoss(),
    ...                 trainer=gluon.Trainer(net.collect_params(), 'adam',
    ...                                       {'learning_rate': 0.1}))
    >>> est.logger.setLevel('WARNING')     # no log lines here
    >>> est.fit(loader, epochs=5)
    >>> [m.name for m in est.train_metrics]
    ['training accuracy', 'training softmaxcrossentropyloss']
    >>> est.train_metrics[0].get()[1] > 0.9
    True
    """

    def __init__(self, net, loss, train_metrics=None, val_metrics=None, initializer=None,
                 trainer=None, context=None, val_net=None, val_loss=None,
                 batch_processor=None) -> None:
        if not isinstance(net, Block):
            raise EstimatorArgumentError(f"Estimator: net must be a gluon Block, got {type(net).__name__}")
        self.net = net
        self.loss = self._check_loss(loss, "loss")
        self._train_metrics = check_metrics(train_metrics)
        self._val_metrics = check_metrics(val_metrics)
        self._add_default_training_metrics()
        self._add_validation_metrics()
        self.val_loss = self.loss if val_loss is None else self._check_loss(val_loss,
                                                                            "val_loss")
        self.val_net = self.net if val_net is None else val_net
        # MXNet: a logger of its own, INFO and above to stdout (add handlers to change it)
        self.logger = logging.Logger(name="Estimator", level=logging.INFO)
        self.logger.addHandler(logging.StreamHandler(sys.stdout))
        self.context = self._check_context(context)
        self._initialize(initializer)
        self.trainer = self._check_trainer(trainer)
        self.batch_processor = self._check_batch_processor(batch_processor)
        self.max_epoch: Optional[int] = None
        self.max_batch: Optional[int] = None
        self.batch_axis = 0

    # ----------------------------------------------------------------- checks
    @staticmethod
    def _check_loss(loss, arg):
        if not isinstance(loss, Loss):
            raise EstimatorArgumentError(f"Estimator: {arg} must be a gluon.loss.Loss, got "
                             f"{type(loss).__name__}")
        return loss

    @staticmethod
    def _check_context(context) -> List[Context]:
        if context is None:
            return [cpu()]
        if isinstance(context, Context):
            return [context]
        if isinstance(context, (list, tuple)) and context and \
                all(isinstance(c, Context) for c in context):
            return list(context)
        raise EstimatorArgumentError(f"Estimator: context must be a Context or a list of them (e.g. "
                         f"mx.cpu()), got {context!r}")

    @staticmethod
    def _check_batch_processor(batch_processor):
        if batch_processor is None:
            return BatchProcessor()
        if not callable(getattr(batch_processor, "fit_batch", None)) or \
                not callable(getattr(batch_processor, "evaluate_batch", None)):
            raise EstimatorArgumentError("Estimator: batch_processor must have fit_batch() and "
                             "evaluate_batch() methods (subclass BatchProcessor)")
        return batch_processor

    def _is_initialized(self) -> bool:
        for param in self.net.collect_params().values():
            try:
                param.list_data()
            except DeferredInitializationError:
                continue       # initialized, shapes known at the first batch
            except StateError:
                return False
        return True

    def _initialize(self, initializer):
        if not self._is_initialized():
            if initializer is not None:
                self.net.initialize(init=initializer, ctx=self.context)
            else:
                self.net.initialize(ctx=self.context)
        elif initializer is not None:
            _warn("Network already fully initialized, skipping initialization. You "
                  "don't need to pass initializer if you already initialized your "
                  "net; use net.initialize(init=..., force_reinit=True) to "
                  "re-initialize")

    def _check_trainer(self, trainer):
        if trainer is None:
            _warn("No trainer specified, default SGD optimizer with learning rate "
                  "0.001 is used.")
            return Trainer(self.net.collect_params(), "sgd", {"learning_rate": 0.001})
        if not isinstance(trainer, Trainer):
            raise EstimatorArgumentError(f"Estimator: trainer must be a gluon.Trainer, got "
                             f"{type(trainer).__name__}")
        return trainer

    def _add_default_training_metrics(self):
        if not self._train_metrics:
            if isinstance(self.loss, SoftmaxCrossEntropyLoss):
                self._train_metrics = [Accuracy()]
            self._train_metrics.append(LossMetric(self.loss.name.rstrip("0123456789")))
        for metric in self._train_metrics:
            metric.name = "training " + metric.name

    def _add_validation_metrics(self):
        if not self._val_metrics:
            self._val_metrics = [copy.deepcopy(m) for m in self._train_metrics]
        for metric in self._val_metrics:
            if "training" in metric.name:
                metric.name = metric.name.replace("training", "validation")
            else:
                metric.name = "validation " + metric.name

    @property
    def train_metrics(self):
        return self._train_metrics

    @property
    def val_metrics(self):
        return self._val_metrics

    # ---------------------------------------------------------------- running
    def evaluate(self, val_data, batch_axis: int = 0, event_handlers=None) -> None:
        """Run ``evaluate_batch`` over ``val_data`` and update ``val_metrics``.

        A MetricHandler and a LoggingHandler on the validation metrics are added unless
        given; handlers get ``epoch_begin``, ``batch_begin``, ``batch_end`` and
        ``epoch_end`` (validation is one epoch).
        """
        _check_data(val_data, "val_data")
        for metric in self.val_metrics:
            metric.reset()
        handlers = self._prepare_default_validation_handlers(event_handlers)
        _, epoch_begin, batch_begin, batch_end, epoch_end, _ = self._categorize(handlers)
        for h in epoch_begin:
            h.epoch_begin(self)
        for batch in val_data:
            for h in batch_begin:
                h.batch_begin(self, batch=batch)
            _, label, pred, loss = self.batch_processor.evaluate_batch(self, batch, batch_axis)
            for h in batch_end:
                h.batch_end(self, batch=batch, pred=pred, label=label, loss=loss)
        for h in epoch_end:
            h.epoch_end(self)

    def fit(self, train_data, val_data=None, epochs: Optional[int] = None,
            event_handlers=None, batches: Optional[int] = None, batch_axis: int = 0) -> None:
        """Train for ``epochs`` epochs or ``batches`` batches (exactly one of them).

        Besides ``event_handlers``, a StoppingHandler, a GradientUpdateHandler, a
        MetricHandler, a LoggingHandler and (with ``val_data``) a ValidationHandler are
        added unless one of that kind is given; all are called in ``priority`` order.
        """
        _check_data(train_data, "train_data")
        if val_data is not None:
            _check_data(val_data, "val_data")
        if (not epochs) == (not batches):
            raise StateError("Estimator.fit: give exactly one of epochs=... or batches=... "
                             "(a positive number)")
        for arg, v in (("epochs", epochs), ("batches", batches)):
            if v is not None and (not isinstance(v, int) or v < 0):
                raise StateError(f"Estimator.fit: {arg} must be a positive integer, got {v!r}")
        self.max_epoch = epochs
        self.max_batch = batches
        self.batch_axis = batch_axis
        try:
            self._epoch_batches: Optional[int] = len(train_data)
        except TypeError:
            self._epoch_batches = None
        handlers = self._prepare_default_handlers(val_data, event_handlers)
        train_begin, epoch_begin, batch_begin, batch_end, epoch_end, train_end = \
            self._categorize(handlers)
        for h in train_begin:
            h.train_begin(self)
        while True:
            for h in epoch_begin:
                h.epoch_begin(self)
            for batch in train_data:
                for h in batch_begin:
                    h.batch_begin(self, batch=batch)
                _, label, pred, loss = self.batch_processor.fit_batch(self, batch, batch_axis)
                stop = [h.batch_end(self, batch=batch, pred=pred, label=label, loss=loss)
                        for h in batch_end]
                if any(stop):
                    break
            stop = [h.epoch_end(self) for h in epoch_end]
            if any(stop):
                break
        for h in train_end:
            h.train_end(self)

    # --------------------------------------------------------------- handlers
    def _prepare_default_handlers(self, val_data, event_handlers):
        handlers = check_event_handlers(event_handlers)
        added = [StoppingHandler(self.max_epoch, self.max_batch)]
        if not any(isinstance(h, GradientUpdateHandler) for h in handlers):
            added.append(GradientUpdateHandler())
        if not any(isinstance(h, MetricHandler) for h in handlers):
            added.append(MetricHandler(metrics=self.train_metrics))
        if val_data is not None and not any(isinstance(h, ValidationHandler)
                                            for h in handlers):
            added.append(ValidationHandler(val_data=val_data, eval_fn=self.evaluate))
        if not any(isinstance(h, LoggingHandler) for h in handlers):
            added.append(LoggingHandler(metrics=self.train_metrics))
        if handlers and added:
            self._check_metric_refs(handlers, self.train_metrics + self.val_metrics)
        handlers = handlers + added
        handlers.sort(key=lambda h: getattr(h, "priority", 0))   # stable: ties keep order
        return handlers

    def _prepare_default_validation_handlers(self, event_handlers):
        handlers = check_event_handlers(event_handlers)
        added = []
        if not any(isinstance(h, MetricHandler) for h in handlers):
            added.append(MetricHandler(metrics=self.val_metrics))
        if not any(isinstance(h, LoggingHandler) for h in handlers):
            added.append(LoggingHandler(metrics=self.val_metrics))
        if handlers and added:
            self._check_metric_refs(handlers, self.val_metrics)
        handlers = handlers + added
        handlers.sort(key=lambda h: getattr(h, "priority", 0))
        return handlers

    @staticmethod
    def _check_metric_refs(handlers, known):
        """User handlers mixed with default ones must use the Estimator's metric objects."""
        known_ids = {id(m) for m in known}
        for h in handlers:
            for attr in ("metrics", "monitor"):
                ref = getattr(h, attr, None)
                for m in (ref if isinstance(ref, list) else [ref] if ref is not None else []):
                    if id(m) not in known_ids:
                        raise StateError(
                            f"{type(h).__name__} refers to a metric {m.name!r} that is not "
                            f"one of the Estimator's; use the objects in "
                            f"estimator.train_metrics and estimator.val_metrics")

    @staticmethod
    def _categorize(handlers):
        kinds = (TrainBegin, EpochBegin, BatchBegin, BatchEnd, EpochEnd, TrainEnd)
        return tuple([h for h in handlers if isinstance(h, kind)] for kind in kinds)

    # MXNet's name of the same helper (its tests call it)
    _categorize_handlers = _categorize

"""Event handlers of the Estimator (MXNet 1.6+'s handler protocol).

A handler subclasses one or more of :class:`TrainBegin`, :class:`EpochBegin`,
:class:`BatchBegin`, :class:`BatchEnd`, :class:`EpochEnd`, :class:`TrainEnd`; the
Estimator calls ``train_begin(estimator)``, ``epoch_begin(estimator)``,
``batch_begin(estimator, batch=...)``, ``batch_end(estimator, batch=, pred=, label=,
loss=)``, ``epoch_end(estimator)`` and ``train_end(estimator)`` on the handlers of each
kind, sorted by their ``priority`` (lower first; default 0). A true value returned by
``batch_end`` ends the epoch, by ``epoch_end`` ends the training.
"""
from __future__ import annotations

import math
import os
import re
import sys
import time
import warnings
from typing import Any, List, Optional, Tuple, cast

from ....base import StateError, DTypeError
from ....metric import CompositeEvalMetric, EvalMetric
from ....metric import Loss as LossMetric


class EstimatorArgumentError(DTypeError, ValueError):
    """A wrong argument to the Estimator or its handlers: MXNet raises ``ValueError`` for
    these, so this error is one (and a ``TypeError``, mxgrad's kind for a wrong type)."""

__all__ = ["EventHandler", "TrainBegin", "TrainEnd", "EpochBegin", "EpochEnd", "BatchBegin",
           "BatchEnd", "StoppingHandler", "MetricHandler", "ValidationHandler",
           "LoggingHandler", "CheckpointHandler", "EarlyStoppingHandler",
           "GradientUpdateHandler"]


class EventHandler:
    """Base class of all event handlers."""


class TrainBegin(EventHandler):
    def train_begin(self, estimator, *args, **kwargs: Any) -> None:
        pass


class TrainEnd(EventHandler):
    def train_end(self, estimator, *args, **kwargs: Any) -> None:
        pass


class EpochBegin(EventHandler):
    def epoch_begin(self, estimator, *args, **kwargs: Any) -> None:
        pass


class EpochEnd(EventHandler):
    def epoch_end(self, estimator, *args, **kwargs: Any) -> Optional[bool]:
        """Return True to stop training."""
        return False


class BatchBegin(EventHandler):
    def batch_begin(self, estimator, *args, **kwargs: Any) -> None:
        pass


class BatchEnd(EventHandler):
    def batch_end(self, estimator, *args, **kwargs: Any) -> Optional[bool]:
        """Return True to end the epoch (and, for the StoppingHandler, training)."""
        return False


def check_event_handlers(handlers) -> List[EventHandler]:
    """A list of handlers from one handler, a list of them or None."""
    if isinstance(handlers, EventHandler):
        return [handlers]
    handlers = list(handlers or [])
    bad = [h for h in handlers if not isinstance(h, EventHandler)]
    if bad:
        raise EstimatorArgumentError(f"event_handlers must be an EventHandler or a list of them (from "
                         f"gluon.contrib.estimator), got {type(bad[0]).__name__}")
    return handlers


def check_metrics(metrics) -> List[EvalMetric]:
    """A flat list of metrics from one metric, a CompositeEvalMetric, a list or None."""
    if isinstance(metrics, CompositeEvalMetric):
        return [m for metric in metrics.metrics for m in check_metrics(metric)]
    if isinstance(metrics, EvalMetric):
        return [metrics]
    metrics = list(metrics or [])
    bad = [m for m in metrics if not isinstance(m, EvalMetric)]
    if bad:
        raise EstimatorArgumentError(f"metrics must be an EvalMetric or a list of them (mx.metric...), "
                         f"got {type(bad[0]).__name__}")
    return metrics


def _improvement_op(monitor: EvalMetric, mode: str, who: str):
    """``greater`` or ``less``: how ``who`` decides that ``monitor`` improved."""
    if mode not in ("auto", "min", "max"):
        raise StateError(f"{who}: mode must be 'auto', 'min' or 'max', got {mode!r}")
    if mode == "auto":
        # MXNet 1.x meant this test but always chose 'max' (`'acc' or ...` is true)
        name = cast(str, monitor.get()[0]).lower()
        mode = "max" if any(k in name for k in ("acc", "f1", "mcc", "pearson", "pcc")) \
            else "min"
    return (lambda a, b: a > b) if mode == "max" else (lambda a, b: a < b), mode


class StoppingHandler(TrainBegin, BatchEnd, EpochEnd):
    """Stop training after ``max_epoch`` epochs or ``max_batch`` batches (added by
    :meth:`Estimator.fit` from its ``epochs``/``batches``)."""

    def __init__(self, max_epoch: Optional[int] = None, max_batch: Optional[int] = None) -> None:
        self.max_epoch = max_epoch
        self.max_batch = max_batch
        self.current_batch = 0
        self.current_epoch = 0
        self.stop_training = False

    def train_begin(self, estimator, *args, **kwargs: Any) -> None:
        self.max_epoch = estimator.max_epoch
        self.max_batch = estimator.max_batch
        self.current_batch = 0
        self.current_epoch = 0
        self.stop_training = False

    def batch_end(self, estimator, *args, **kwargs: Any):
        self.current_batch += 1
        if self.current_batch == self.max_batch:
            self.stop_training = True
        return self.stop_training

    def epoch_end(self, estimator, *args, **kwargs: Any):
        self.current_epoch += 1
        if self.current_epoch == self.max_epoch:
            self.stop_training = True
        return self.stop_training


class MetricHandler(EpochBegin, BatchEnd):
    """Reset ``metrics`` at each epoch's start and update them after each batch (a
    ``metric.Loss`` with the loss values, the others with labels and predictions)."""

    def __init__(self, metrics, priority: int = -1000) -> None:
        self.metrics = check_metrics(metrics)
        self.priority = priority

    def epoch_begin(self, estimator, *args, **kwargs: Any) -> None:
        for metric in self.metrics:
            metric.reset()

    def batch_end(self, estimator, *args, **kwargs: Any) -> None:
        pred, label, loss = kwargs["pred"], kwargs["label"], kwargs["loss"]
        for metric in self.metrics:
            if isinstance(metric, LossMetric):
                metric.update(0, loss)
            else:
                metric.update(label, pred)


class ValidationHandler(TrainBegin, BatchEnd, EpochEnd):
    """Run ``eval_fn(val_data=..., batch_axis=..., event_handlers=...)`` every
    ``epoch_period`` epochs and/or every ``batch_period`` batches."""

    def __init__(self, val_data, eval_fn, epoch_period: Optional[int] = 1,
                 batch_period: Optional[int] = None, priority: int = -1000, event_handlers=None
                 ) -> None:
        self.val_data = val_data
        self.eval_fn = eval_fn
        self.epoch_period = epoch_period
        self.batch_period = batch_period
        self.current_batch = 0
        self.current_epoch = 0
        self.priority = priority
        self.event_handlers = event_handlers

    def train_begin(self, estimator, *args, **kwargs: Any) -> None:
        self.current_batch = 0
        self.current_epoch = 0

    def _run(self, estimator):
        self.eval_fn(val_data=self.val_data, batch_axis=estimator.batch_axis,
                     event_handlers=self.event_handlers)

    def batch_end(self, estimator, *args, **kwargs: Any) -> None:
        self.current_batch += 1
        if self.batch_period and self.current_batch % self.batch_period == 0:
            self._run(estimator)

    def epoch_end(self, estimator, *args, **kwargs: Any) -> None:
        self.current_epoch += 1
        if self.epoch_period and self.current_epoch % self.epoch_period == 0:
            self._run(estimator)


def _tqdm():
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm


class LoggingHandler(TrainBegin, TrainEnd, EpochBegin, EpochEnd, BatchBegin, BatchEnd):
    """Log the optimizer, learning rate, metrics and times through ``estimator.logger``.

    Parameters
    ----------
    log_interval : 'epoch' or int
        Log the metrics at each epoch's end, or also every ``log_interval`` batches.
    metrics : list of EvalMetric
        The metrics to log.
    priority : float
        Called last by default (``inf``) so that every other state is up to date.
    progress : bool or None
        Show a progress bar per training epoch (the running metrics on its right). None
        (default): when the optional package ``tqdm`` is installed (``pip install
        'mxgrad[progress]'``); without it, lines are logged only.
    """

    def __init__(self, log_interval: str = "epoch", metrics=None, priority=math.inf,
                 progress: Optional[bool] = None) -> None:
        if not (isinstance(log_interval, int) and log_interval > 0) and log_interval != "epoch":
            raise StateError(f"LoggingHandler: log_interval must be 'epoch' or a positive "
                             f"number of batches, got {log_interval!r}")
        self.metrics = check_metrics(metrics)
        self.priority = priority
        self.log_interval = log_interval
        self.progress = progress
        self.batch_index = 0
        self.current_epoch = 0
        self.processed_samples = 0
        self.log_interval_time = 0.0
        self.train_start = self.epoch_start = self.batch_start = time.time()
        self._bar = None

    def _is_training(self) -> bool:
        # the Estimator names training metrics 'training ...', validation ones 'validation ...'
        return any("training" in m.name for m in self.metrics)

    def _metric_text(self) -> str:
        parts = []
        for metric in self.metrics:
            name, value = metric.get()
            parts.append(f"{name}: {value:.4f}")
        return ", ".join(parts)

    def train_begin(self, estimator, *args, **kwargs: Any) -> None:
        self.train_start = time.time()
        trainer = estimator.trainer
        estimator.logger.info("Training begin: using optimizer %s with current learning "
                              "rate %.4f ", type(trainer.optimizer).__name__,
                              trainer.learning_rate)
        if estimator.max_epoch:
            estimator.logger.info("Train for %d epochs.", estimator.max_epoch)
        else:
            estimator.logger.info("Train for %d batches.", estimator.max_batch)
        self.current_epoch = 0
        self.batch_index = 0
        self.processed_samples = 0
        self.log_interval_time = 0.0

    def train_end(self, estimator, *args, **kwargs: Any) -> None:
        self._close_bar()
        train_time = time.time() - self.train_start
        msg = f"Train finished using total {int(train_time)}s with {self.current_epoch} epochs."
        text = self._metric_text()
        estimator.logger.info(msg + (" " + text if text else ""))

    def epoch_begin(self, estimator, *args, **kwargs: Any) -> None:
        self.epoch_start = time.time()
        if self._is_training():
            estimator.logger.info("[Epoch %d] Begin, current learning rate: %.4f",
                                  self.current_epoch, estimator.trainer.learning_rate)
            tqdm = _tqdm() if self.progress is not False else None
            if self.progress and tqdm is None:
                raise StateError("LoggingHandler(progress=True) needs the optional package "
                                 "tqdm: pip install 'mxgrad[progress]' (or pip install tqdm)")
            if tqdm is not None:
                total = getattr(estimator, "_epoch_batches", None)
                self._bar = tqdm(total=total, desc=f"[Epoch {self.current_epoch}]",
                                 unit="batch", leave=True, file=sys.stderr,
                                 dynamic_ncols=True, mininterval=0.5)
        else:
            estimator.logger.info("Validation Begin")

    def batch_begin(self, estimator, *args, **kwargs: Any) -> None:
        self.batch_start = time.time()

    def batch_end(self, estimator, *args, **kwargs: Any) -> None:
        batch = kwargs.get("batch")
        if batch is not None:
            self.processed_samples += batch[0].shape[0]
        if self._bar is not None:
            text = self._metric_text()
            if text:
                self._bar.set_postfix_str(text, refresh=False)
            self._bar.update(1)
            if self._bar.total is not None and self._bar.n >= self._bar.total:
                self._close_bar()     # finished before validation logs its lines
        if isinstance(self.log_interval, int):
            self.log_interval_time += time.time() - self.batch_start
            if self.batch_index % self.log_interval == 0:
                msg = (f"[Epoch {self.current_epoch}][Batch {self.batch_index}]"
                       f"[Samples {self.processed_samples}] "
                       f"time/interval: {self.log_interval_time:.3f}s ")
                self.log_interval_time = 0.0
                estimator.logger.info((msg + self._metric_text()).rstrip())
        self.batch_index += 1

    def epoch_end(self, estimator, *args, **kwargs: Any) -> None:
        self._close_bar()
        epoch_time = time.time() - self.epoch_start
        if self._is_training() or not self.metrics:
            msg = f"[Epoch {self.current_epoch}] Finished in {epoch_time:.3f}s"
        else:
            msg = f"Validation finished in {epoch_time:.3f}s"
        text = self._metric_text()
        estimator.logger.info(msg + (", " + text if text else ""))
        self.current_epoch += 1
        self.batch_index = 0

    def _close_bar(self):
        if self._bar is not None:
            self._bar.close()
            self._bar = None


class GradientUpdateHandler(BatchEnd):
    """Call ``trainer.step(batch_size)`` after each batch, the batch size being the
    total length of the loss arrays (runs first: priority -2000)."""

    def __init__(self, priority: int = -2000) -> None:
        self.priority = priority

    def batch_end(self, estimator, *args, **kwargs: Any) -> None:
        loss = kwargs["loss"]
        if not isinstance(loss, (list, tuple)):
            loss = [loss]
        estimator.trainer.step(sum(l.shape[0] for l in loss))


_CKPT = re.compile(r"^(?P<prefix>.+)-epoch(?P<epoch>\d+)batch(?P<batch>\d+)\.params$")


class CheckpointHandler(TrainBegin, BatchEnd, EpochEnd):
    """Save parameters (``net.save_parameters``) and trainer states
    (``trainer.save_states``) every ``epoch_period`` epochs or ``batch_period`` batches.

    Files are ``{model_dir}/{model_prefix}-epoch{E}batch{B}.params`` and ``.states`` as in
    MXNet; only the newest ``max_checkpoints`` are kept. With ``save_best`` the best value
    of ``monitor`` so far is kept as ``{model_prefix}-best.params/.states``. With
    ``resume_from_checkpoint`` training starts from the newest complete checkpoint (both
    files) in ``model_dir`` and runs the remaining epochs (or batches). Both files are
    written atomically, so a crash while saving leaves the earlier checkpoints intact.

    Parameters
    ----------
    model_dir : str
    model_prefix : str
    monitor : EvalMetric, optional
        One of ``estimator.train_metrics``/``val_metrics``; needed by ``save_best``.
    verbose : int
        1: log each save.
    save_best : bool
    mode : {'auto', 'min', 'max'}
        Whether a larger or smaller ``monitor`` value is better; 'auto' picks 'max' for
        accuracy-like names (acc, f1, mcc, pearson) and 'min' otherwise.
    epoch_period, batch_period : int or None
    max_checkpoints : int
    resume_from_checkpoint : bool
    """

    def __init__(self, model_dir: str, model_prefix: str = "model", monitor=None,
                 verbose: int = 0, save_best: bool = False, mode: str = "auto",
                 epoch_period: Optional[int] = 1, batch_period: Optional[int] = None,
                 max_checkpoints: int = 5, resume_from_checkpoint: bool = False) -> None:
        if save_best and not isinstance(monitor, EvalMetric):
            raise StateError("CheckpointHandler(save_best=True) needs monitor=: one of the "
                             "metric objects in estimator.train_metrics or "
                             "estimator.val_metrics")
        if max_checkpoints < 1:
            raise StateError(f"CheckpointHandler: max_checkpoints must be at least 1, got "
                             f"{max_checkpoints}")
        os.makedirs(model_dir, exist_ok=True)
        self.model_dir = model_dir
        self.model_prefix = model_prefix
        self.monitor = monitor
        self.verbose = verbose
        self.save_best = save_best
        self.epoch_period = epoch_period
        self.batch_period = batch_period
        self.max_checkpoints = max_checkpoints
        self.resume_from_checkpoint = resume_from_checkpoint
        self.current_batch = 0
        self.current_epoch = 0
        self.trained_epoch = -1
        self.trained_batch = -1
        self.saved_checkpoints: List[str] = []
        if save_best:
            self.monitor_op, self.mode = _improvement_op(monitor, mode, "CheckpointHandler")
            self.best = -math.inf if self.mode == "max" else math.inf

    def train_begin(self, estimator, *args, **kwargs: Any) -> None:
        self.current_epoch = 0
        self.current_batch = 0
        self.saved_checkpoints = []
        if self.save_best:
            self.best = -math.inf if self.mode == "max" else math.inf
        if self.resume_from_checkpoint:
            if estimator.max_batch and (not self.batch_period or self.epoch_period) or \
                    estimator.max_epoch and (not self.epoch_period or self.batch_period):
                raise StateError(
                    "CheckpointHandler: to resume from a checkpoint, save with the same "
                    "kind of period you train for: fit(epochs=...) with epoch_period and "
                    "batch_period=None, or fit(batches=...) with batch_period and "
                    "epoch_period=None")
            self._resume(estimator)

    def batch_end(self, estimator, *args, **kwargs: Any) -> None:
        if self.batch_period and (self.current_batch + 1) % self.batch_period == 0:
            self._save_checkpoint(estimator)
        self.current_batch += 1

    def epoch_end(self, estimator, *args, **kwargs: Any) -> None:
        if self.epoch_period and (self.current_epoch + 1) % self.epoch_period == 0:
            self._save_checkpoint(estimator)
        self.current_epoch += 1

    # ----------------------------------------------------------------- saving
    def _paths(self, prefix):
        base = os.path.join(self.model_dir, prefix)
        return base + ".params", base + ".states"

    def _save(self, estimator, prefix):
        # save_parameters/save_states write atomically (temporary file + os.replace)
        params, states = self._paths(prefix)
        estimator.net.save_parameters(params)
        estimator.trainer.save_states(states)

    def _save_symbol(self, estimator):
        """``<prefix>-symbol.json`` of a hybridized network that has run (MXNet writes its
        cached graph there), so the checkpoint loads with ``SymbolBlock.imports``."""
        net = estimator.net
        if getattr(net, "_active", False) and getattr(net, "_in_specs", None) is not None:
            net._trace().save(os.path.join(self.model_dir, self.model_prefix + "-symbol.json"))

    def _save_checkpoint(self, estimator):
        if self.trained_epoch >= 0:   # resumed: continue the numbering
            epoch = self.current_epoch + self.trained_epoch + 1
            batch = self.current_batch + self.trained_batch + (0 if estimator.max_epoch else 1)
        else:
            epoch, batch = self.current_epoch, self.current_batch
        prefix = f"{self.model_prefix}-epoch{epoch}batch{batch}"
        self._save_symbol(estimator)
        self._save(estimator, prefix)
        if prefix in self.saved_checkpoints:
            self.saved_checkpoints.remove(prefix)
        self.saved_checkpoints.append(prefix)
        while len(self.saved_checkpoints) > self.max_checkpoints:
            for path in self._paths(self.saved_checkpoints.pop(0)):
                if os.path.exists(path):
                    os.remove(path)
        if self.verbose > 0:
            estimator.logger.info("[Epoch %d] CheckpointHandler: trained total %d batches, "
                                  "saving model at %s with prefix: %s", self.current_epoch,
                                  self.current_batch + 1, self.model_dir, prefix)
        if self.save_best:
            name, value = self.monitor.get()
            if isinstance(value, float) and math.isnan(value):
                warnings.warn(f"CheckpointHandler: skipping save_best because {name} has no "
                              f"value; pass one of estimator.train_metrics or "
                              f"estimator.val_metrics as monitor", RuntimeWarning)
            elif self.monitor_op(value, self.best):
                if self.verbose > 0:
                    estimator.logger.info("[Epoch %d] CheckpointHandler: %s improved from "
                                          "%0.5f to %0.5f, updating best model at %s with "
                                          "prefix: %s", self.current_epoch, name, self.best,
                                          value, self.model_dir, self.model_prefix + "-best")
                self.best = value
                self._save(estimator, self.model_prefix + "-best")

    # --------------------------------------------------------------- resuming
    def _existing(self):
        """``[(epoch, batch, prefix)]`` of this prefix's complete checkpoints (both the
        .params and the .states file) in model_dir, oldest first."""
        found = []
        for fname in os.listdir(self.model_dir):
            m = _CKPT.match(fname)
            if m and m.group("prefix") == self.model_prefix:
                prefix = fname[:-len(".params")]
                if os.path.exists(self._paths(prefix)[1]):
                    found.append((int(m.group("epoch")), int(m.group("batch")), prefix))
        return sorted(found)

    def _resume(self, estimator):
        existing = self._existing()
        if not existing:
            what = (f"{estimator.max_batch} batches" if estimator.max_batch
                    else f"{estimator.max_epoch} epochs")
            estimator.logger.info("CheckpointHandler: No checkpoint found, training from "
                                  "scratch for %s", what)
            return
        epoch, batch, prefix = existing[-1]
        if estimator.max_epoch:
            if epoch >= estimator.max_epoch - 1:
                raise StateError(f"CheckpointHandler: the checkpoint {prefix} already reached "
                                 f"{estimator.max_epoch} epochs; train for more epochs or use "
                                 f"resume_from_checkpoint=False to train from scratch")
            estimator.max_epoch -= epoch + 1
            rest = f"{estimator.max_epoch} epochs"
        else:
            if batch >= estimator.max_batch - 1:
                raise StateError(f"CheckpointHandler: the checkpoint {prefix} already reached "
                                 f"{estimator.max_batch} batches; train for more batches or "
                                 f"use resume_from_checkpoint=False to train from scratch")
            estimator.max_batch -= batch + 1
            rest = f"{estimator.max_batch} batches"
        params, states = self._paths(prefix)
        self.trained_epoch, self.trained_batch = epoch, batch
        self.saved_checkpoints = [p for _, _, p in existing][-self.max_checkpoints:]
        estimator.net.load_parameters(params, ctx=estimator.context)
        estimator.trainer.load_states(states)
        estimator.logger.warning("CheckpointHandler: Checkpoint resumed from epoch %d batch "
                                 "%d, continue to train for %s", epoch, batch, rest)


class EarlyStoppingHandler(TrainBegin, EpochEnd, TrainEnd):
    """Stop training when ``monitor`` has not improved by more than ``min_delta`` for
    ``patience`` epochs (``mode`` as in :class:`CheckpointHandler`; ``baseline`` is the
    value to beat at the start)."""

    def __init__(self, monitor, min_delta: float = 0, patience: int = 0, mode: str = "auto",
                 baseline: Optional[float] = None) -> None:
        if not isinstance(monitor, EvalMetric):
            raise StateError("EarlyStoppingHandler needs monitor=: one of the metric objects "
                             "in estimator.train_metrics or estimator.val_metrics")
        if isinstance(monitor, CompositeEvalMetric):
            raise StateError("EarlyStoppingHandler: a CompositeEvalMetric cannot be "
                             "monitored; pass one of its metrics")
        self.monitor = monitor
        self.baseline = baseline
        self.patience = patience
        self.monitor_op, self.mode = _improvement_op(monitor, mode, "EarlyStoppingHandler")
        self.min_delta = abs(min_delta) if self.mode == "max" else -abs(min_delta)
        self.wait = 0
        self.stopped_epoch = 0
        self.current_epoch = 0
        self.stop_training = False
        self.best: Optional[float] = None

    def train_begin(self, estimator, *args, **kwargs: Any) -> None:
        self.wait = 0
        self.stopped_epoch = 0
        self.current_epoch = 0
        self.stop_training = False
        if self.baseline is not None:
            self.best = self.baseline
        else:
            self.best = -math.inf if self.mode == "max" else math.inf

    def epoch_end(self, estimator, *args, **kwargs: Any):
        name, value = cast(Tuple[str, float], self.monitor.get())
        if isinstance(value, float) and math.isnan(value):
            warnings.warn(f"EarlyStoppingHandler: {name} has no value; pass one of "
                          f"estimator.train_metrics or estimator.val_metrics as monitor",
                          RuntimeWarning)
        elif self.monitor_op(value - self.min_delta, self.best):
            self.best = value
            self.wait = 0
        else:
            self.wait += 1
            if self.wait >= self.patience:
                self.stopped_epoch = self.current_epoch
                self.stop_training = True
        self.current_epoch += 1
        return self.stop_training

    def train_end(self, estimator, *args, **kwargs: Any) -> None:
        if self.stop_training:
            estimator.logger.info("[Epoch %d] EarlyStoppingHandler: early stopping due to %s "
                                  "not improving", self.stopped_epoch, self.monitor.get()[0])

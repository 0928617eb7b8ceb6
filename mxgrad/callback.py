"""``mx.callback``: what ``Module.fit`` calls after each batch and epoch (MXNet 1.9.1).

Batch-end callbacks receive a :data:`mxgrad.model.BatchEndParam` (``epoch``, ``nbatch``,
``eval_metric``, ``locals``); epoch-end callbacks receive ``(epoch, symbol, arg_params,
aux_params)``. Messages go to the ``logging`` root logger, in MXNet's words.

Examples
--------
>>> import mxgrad as mx
>>> speed = mx.callback.Speedometer(batch_size=32, frequent=10)
>>> metric = mx.metric.Accuracy()
>>> for n in range(3):
...     speed(mx.model.BatchEndParam(epoch=0, nbatch=n, eval_metric=metric, locals=None))
"""
from __future__ import annotations

import logging
import math
import time
from typing import Any, Callable

from ._checkpoint import save_checkpoint

__all__ = ["module_checkpoint", "do_checkpoint", "log_train_metric", "Speedometer",
           "ProgressBar", "LogValidationMetricsCallback"]


def _period(period: Any) -> int:
    return int(max(1, period))


def module_checkpoint(mod: Any, prefix: str, period: int = 1,
                      save_optimizer_states: bool = False) -> Callable[..., None]:
    """An epoch-end callback that calls ``mod.save_checkpoint(prefix, epoch + 1, ...)``
    every ``period`` epochs (with the optimizer states when asked).

    Examples
    --------
    >>> import mxgrad as mx
    >>> class Fake:
    ...     def save_checkpoint(self, prefix, epoch, states): print(prefix, epoch, states)
    >>> cb = mx.callback.module_checkpoint(Fake(), 'net', period=2)
    >>> for epoch in range(4): cb(epoch)
    net 2 False
    net 4 False
    """
    period = _period(period)

    def _callback(iter_no: int, sym=None, arg=None, aux=None) -> None:
        if (iter_no + 1) % period == 0:
            mod.save_checkpoint(prefix, iter_no + 1, save_optimizer_states)
    return _callback


def do_checkpoint(prefix: str, period: int = 1) -> Callable[..., None]:
    """An epoch-end callback that writes ``prefix-symbol.json`` and
    ``prefix-%04d.params`` (epoch + 1) every ``period`` epochs.

    Examples
    --------
    >>> import os, tempfile
    >>> import mxgrad as mx
    >>> prefix = os.path.join(tempfile.mkdtemp(), 'net')
    >>> cb = mx.callback.do_checkpoint(prefix)
    >>> cb(0, mx.sym.var('data') * 2, {'w': mx.nd.ones((1,))}, {})
    >>> sorted(os.listdir(os.path.dirname(prefix)))
    ['net-0001.params', 'net-symbol.json']
    """
    period = _period(period)

    def _callback(iter_no: int, sym, arg, aux) -> None:
        if (iter_no + 1) % period == 0:
            save_checkpoint(prefix, iter_no + 1, sym, arg, aux)
    return _callback


def log_train_metric(period: int, auto_reset: bool = False) -> Callable[[Any], None]:
    """A batch-end callback logging ``Iter[epoch] Batch[n] Train-<name>=<value>`` every
    ``period`` batches (and resetting the metric's local values with ``auto_reset``).

    Examples
    --------
    >>> import mxgrad as mx
    >>> cb = mx.callback.log_train_metric(5)
    >>> cb(mx.model.BatchEndParam(epoch=0, nbatch=5, eval_metric=mx.metric.Accuracy(),
    ...                           locals=None))
    """
    def _callback(param) -> None:
        if param.nbatch % period == 0 and param.eval_metric is not None:
            for name, value in param.eval_metric.get_name_value():
                logging.info("Iter[%d] Batch[%d] Train-%s=%f",
                             param.epoch, param.nbatch, name, value)
            if auto_reset:
                param.eval_metric.reset_local()
    return _callback


class Speedometer:
    """Logs samples per second and the training metric every ``frequent`` batches.

    The first call of an epoch (``nbatch`` smaller than the last one seen) starts the
    clock; every later ``nbatch`` divisible by ``frequent`` logs
    ``Epoch[e] Batch [a-b]\\tSpeed: <s> samples/sec\\t<metric>=<value>`` and, with
    ``auto_reset``, resets the metric's local values.

    Parameters
    ----------
    batch_size : int
        Samples per batch.
    frequent : int, default 50
        Log every this many batches.
    auto_reset : bool, default True
        Reset the metric (local values) after each log.

    Examples
    --------
    >>> import mxgrad as mx
    >>> speed = mx.callback.Speedometer(batch_size=4, frequent=2)
    >>> speed.init
    False
    """

    def __init__(self, batch_size: int, frequent: int = 50, auto_reset: bool = True) -> None:
        self.batch_size = batch_size
        self.frequent = frequent
        self.init = False
        self.tic = 0.0
        self.last_count = 0
        self.auto_reset = auto_reset

    def __call__(self, param) -> None:
        count = param.nbatch
        if self.last_count > count:
            self.init = False
        self.last_count = count
        if not self.init:
            self.init = True
            self.tic = time.time()
            return
        if count % self.frequent != 0:
            return
        elapsed = time.time() - self.tic
        speed = self.frequent * self.batch_size / elapsed if elapsed > 0 else float("inf")
        if param.eval_metric is not None:
            name_value = param.eval_metric.get_name_value()
            values = sum(name_value, ())
            if self.auto_reset:
                param.eval_metric.reset_local()
                msg = "Epoch[%d] Batch [%d-%d]\tSpeed: %.2f samples/sec"
                msg += "\t%s=%f" * len(name_value)
                logging.info(msg, param.epoch, count - self.frequent, count, speed, *values)
            else:
                msg = "Epoch[%d] Batch [0-%d]\tSpeed: %.2f samples/sec"
                msg += "\t%s=%f" * len(name_value)
                logging.info(msg, param.epoch, count, speed, *values)
        else:
            logging.info("Iter[%d] Batch [%d]\tSpeed: %.2f samples/sec",
                         param.epoch, count, speed)
        self.tic = time.time()


class ProgressBar:
    """Logs a bar ``[====----] 50%`` of the batches done out of ``total``.

    Examples
    --------
    >>> import logging, mxgrad as mx
    >>> bar = mx.callback.ProgressBar(total=4, length=8)
    >>> bar(mx.model.BatchEndParam(epoch=0, nbatch=2, eval_metric=None, locals=None))
    """

    def __init__(self, total: int, length: int = 80) -> None:
        self.bar_len = length
        self.total = total

    def __call__(self, param) -> None:
        count = param.nbatch
        filled_len = int(round(self.bar_len * count / float(self.total)))
        percents = math.ceil(100.0 * count / float(self.total))
        prog_bar = "=" * filled_len + "-" * (self.bar_len - filled_len)
        logging.info("[%s] %s%s\r", prog_bar, percents, "%")


class LogValidationMetricsCallback:
    """Logs ``Epoch[e] Validation-<name>=<value>`` for each metric value at the end of an
    evaluation (an ``eval_end_callback``)."""

    def __call__(self, param) -> None:
        if not param.eval_metric:
            return
        for name, value in param.eval_metric.get_name_value():
            logging.info("Epoch[%d] Validation-%s=%f", param.epoch, name, value)

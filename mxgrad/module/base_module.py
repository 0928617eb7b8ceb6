"""The interface every module has, and the loops written once on top of it: ``fit``,
``score``, ``predict``, ``iter_predict`` (MXNet 1.9.1's ``BaseModule``).

A module is used in this order: ``bind`` (shapes), ``init_params``, ``init_optimizer``,
then ``forward``/``backward``/``update`` per batch; ``fit`` does all of it.
"""
from __future__ import annotations

import logging
import time
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from .. import metric
from .. import ndarray
from ..base import DTypeError, ShapeError, StateError, _as_list
from ..context import cpu
from .._warn import warn
from ..initializer import Uniform
from ..io import DataBatch, DataDesc, DataIter
from .._checkpoint import BatchEndParam, split_params

__all__ = ["BaseModule", "ModuleStateError"]


class ModuleStateError(StateError):
    """A module method was called before the step it needs (``bind``, ``init_params``,
    ``init_optimizer``) or with a setting that forbids it; the message says which call
    is missing."""


def _require(cond: bool, message: str) -> None:
    if not cond:
        raise ModuleStateError(message)


def _check_input_names(symbol, names: Sequence[str], typename: str, throw: bool) -> None:
    """Check that each of ``names`` is an argument of ``symbol`` (an error or a warning
    listing the arguments that are not parameters)."""
    args = symbol.list_arguments()
    for name in names:
        if name in args:
            continue
        candidates = [arg for arg in args if not arg.endswith(
            ("_weight", "_bias", "_gamma", "_beta"))]
        msg = (f"You created Module with Module(..., {typename}_names={list(names)}) but "
               f"input with name '{name}' is not found in symbol.list_arguments(). "
               f"Did you mean one of:\n\t" + "\n\t".join(candidates))
        if throw:
            raise StateError(msg)
        warn(msg)


def _as_desc(x, what: str) -> DataDesc:
    if isinstance(x, DataDesc):
        desc = x
    else:
        if not isinstance(x, (list, tuple)) or len(x) < 2:
            raise DTypeError(f"{what}: each entry must be a DataDesc or a (name, shape) pair, "
                             f"got {x!r}")
        desc = DataDesc(*x)
    shape = desc.shape
    if not isinstance(shape, (tuple, list)) or not all(
            isinstance(d, (int, np.integer)) and not isinstance(d, bool) for d in shape):
        raise DTypeError(f"{what}: the shape of '{desc.name}' must be a tuple of ints, got "
                         f"{type(shape).__name__} {shape!r:.80}")
    if any(d < 0 for d in shape):
        raise ShapeError(f"{what}: the shape of '{desc.name}' has a negative size: {shape}")
    if isinstance(shape, list):
        desc = DataDesc(desc.name, tuple(int(d) for d in shape), desc.dtype, desc.layout)
    return desc


def _check_names_match(data_names, data_shapes, name: str, throw: bool) -> None:
    actual = [x[0] for x in data_shapes]
    if sorted(data_names) != sorted(actual):
        msg = (f"Data provided by {name}_shapes don't match names specified by {name}_names "
               f"({data_shapes} vs. {list(data_names)})")
        if throw:
            raise StateError(msg)
        warn(msg)


def _parse_data_desc(data_names, label_names, data_shapes, label_shapes):
    """DataDescs for ``data_shapes`` and ``label_shapes`` (pairs or DataDescs), checked
    against the module's input names."""
    if data_shapes is None or isinstance(data_shapes, (str, DataDesc)) or not isinstance(
            data_shapes, (list, tuple)):
        raise DTypeError(f"data_shapes must be a list of DataDesc or (name, shape) pairs, e.g. "
                         f"[('data', (32, 784))], got {data_shapes!r:.80}")
    data_shapes = [_as_desc(x, "data_shapes") for x in data_shapes]
    _check_names_match(data_names, data_shapes, "data", True)
    if label_shapes is not None:
        label_shapes = [_as_desc(x, "label_shapes") for x in label_shapes]
        _check_names_match(label_names, label_shapes, "label", False)
    else:
        _check_names_match(label_names, [], "label", False)
    return data_shapes, label_shapes


class BaseModule:
    """The module interface (abstract) and the training/evaluation loops on it.

    Parameters
    ----------
    logger : logging.Logger or module, default ``logging``
        Where ``fit`` logs epochs, times and metrics.

    Examples
    --------
    >>> import mxgrad as mx
    >>> m = mx.mod.BaseModule()
    >>> m.binded, m.params_initialized, m.optimizer_initialized
    (False, False, False)
    """

    def __init__(self, logger: Any = logging) -> None:
        self.logger = logger
        self.binded = False
        self.for_training = False
        self.inputs_need_grad = False
        self.params_initialized = False
        self.optimizer_initialized = False
        self._symbol: Any = None
        self._total_exec_bytes = 0

    # ------------------------------------------------------------ high-level API
    def forward_backward(self, data_batch) -> None:
        """``forward(data_batch, is_train=True)`` then ``backward()``."""
        self.forward(data_batch, is_train=True)
        self.backward()

    def _check_ready(self, what: str) -> None:
        _require(self.binded, f"{what}: call bind(...) first")
        _require(self.params_initialized, f"{what}: call init_params(...) first")

    def score(self, eval_data, eval_metric, num_batch: Optional[int] = None,
              batch_end_callback=None, score_end_callback=None, reset: bool = True,
              epoch: int = 0, sparse_row_id_fn=None) -> List[Tuple[str, float]]:
        """Evaluate ``eval_metric`` over ``eval_data`` (forward in predict mode);
        returns ``[(name, value)]``."""
        self._check_ready("score")
        if reset:
            eval_data.reset()
        if not isinstance(eval_metric, metric.EvalMetric):
            eval_metric = metric.create(eval_metric)
        eval_metric.reset()
        actual_num_batch = 0
        for nbatch, eval_batch in enumerate(eval_data):
            if num_batch is not None and nbatch == num_batch:
                break
            self.prepare(eval_batch, sparse_row_id_fn=sparse_row_id_fn)
            self.forward(eval_batch, is_train=False)
            if isinstance(eval_batch, list):
                self.update_metric(eval_metric, [eb.label for eb in eval_batch],
                                   pre_sliced=True)
            else:
                self.update_metric(eval_metric, eval_batch.label)
            if batch_end_callback is not None:
                params = BatchEndParam(epoch=epoch, nbatch=nbatch, eval_metric=eval_metric,
                                       locals=locals())
                for callback in _as_list(batch_end_callback):
                    callback(params)
            actual_num_batch += 1
        if score_end_callback:
            params = BatchEndParam(epoch=epoch, nbatch=actual_num_batch,
                                   eval_metric=eval_metric, locals=locals())
            for callback in _as_list(score_end_callback):
                callback(params)
        return eval_metric.get_name_value()

    def iter_predict(self, eval_data, num_batch: Optional[int] = None, reset: bool = True,
                     sparse_row_id_fn=None):
        """Yield ``(outputs, nbatch, batch)`` per batch, padding removed."""
        self._check_ready("iter_predict")
        if reset:
            eval_data.reset()
        for nbatch, eval_batch in enumerate(eval_data):
            if num_batch is not None and nbatch == num_batch:
                break
            self.prepare(eval_batch, sparse_row_id_fn=sparse_row_id_fn)
            self.forward(eval_batch, is_train=False)
            pad = eval_batch.pad or 0
            outputs = [out[0:out.shape[0] - pad] for out in self.get_outputs()]
            yield outputs, nbatch, eval_batch

    def predict(self, eval_data, num_batch: Optional[int] = None, merge_batches: bool = True,
                reset: bool = True, always_output_list: bool = False, sparse_row_id_fn=None):
        """Outputs over ``eval_data`` (a DataIter, or one NDArray/NumPy batch).

        With ``merge_batches`` the batches are concatenated (one NDArray when the network
        has one output, unless ``always_output_list``); otherwise a list per batch."""
        self._check_ready("predict")
        if isinstance(eval_data, (ndarray.NDArray, np.ndarray)):
            if isinstance(eval_data, np.ndarray):
                eval_data = ndarray.array(eval_data)
            self.forward(DataBatch([eval_data]))
            return self.get_outputs()[0]
        if not isinstance(eval_data, DataIter):
            raise DTypeError(f"predict: eval_data must be an NDArray or a DataIter, got "
                             f"{type(eval_data).__name__}")
        if reset:
            eval_data.reset()
        output_list = []
        for nbatch, eval_batch in enumerate(eval_data):
            if num_batch is not None and nbatch == num_batch:
                break
            self.prepare(eval_batch, sparse_row_id_fn=sparse_row_id_fn)
            self.forward(eval_batch, is_train=False)
            pad = eval_batch.pad or 0
            output_list.append([out[0:out.shape[0] - pad].copy()
                                for out in self.get_outputs()])
        if not output_list:
            return output_list
        if merge_batches:
            num_outputs = len(output_list[0])
            if any(len(out) != num_outputs for out in output_list):
                raise StateError("predict: cannot merge batches, as the number of outputs "
                                 "differs between mini-batches (bucketing?); pass "
                                 "merge_batches=False")
            merged = [ndarray.concatenate([out[i] for out in output_list])
                      for i in range(num_outputs)]
            if num_outputs == 1 and not always_output_list:
                return merged[0]
            return merged
        return output_list

    def fit(self, train_data, eval_data=None, eval_metric="acc", epoch_end_callback=None,
            batch_end_callback=None, kvstore="local", optimizer="sgd",
            optimizer_params=(("learning_rate", 0.01),), eval_end_callback=None,
            eval_batch_end_callback=None, initializer=Uniform(0.01), arg_params=None,
            aux_params=None, allow_missing: bool = False, force_rebind: bool = False,
            force_init: bool = False, begin_epoch: int = 0, num_epoch: Optional[int] = None,
            validation_metric=None, monitor=None, sparse_row_id_fn=None) -> None:
        """Train for epochs ``begin_epoch .. num_epoch-1``: bind, init_params and
        init_optimizer, then per batch forward, backward, update and the metric; logs
        ``Epoch[e] Train-<metric>=...``, ``Time cost`` and validation scores, and calls
        the callbacks (batch end: :data:`~mxgrad.model.BatchEndParam`; epoch end:
        ``(epoch, symbol, arg_params, aux_params)``)."""
        if num_epoch is None:
            raise StateError("fit: please specify number of epochs (num_epoch=...)")
        self.bind(data_shapes=train_data.provide_data, label_shapes=train_data.provide_label,
                  for_training=True, force_rebind=force_rebind)
        if monitor is not None:
            self.install_monitor(monitor)
        self.init_params(initializer=initializer, arg_params=arg_params,
                         aux_params=aux_params, allow_missing=allow_missing,
                         force_init=force_init)
        self.init_optimizer(kvstore=kvstore, optimizer=optimizer,
                            optimizer_params=optimizer_params)
        if validation_metric is None:
            validation_metric = eval_metric
        if not isinstance(eval_metric, metric.EvalMetric):
            eval_metric = metric.create(eval_metric)

        for epoch in range(begin_epoch, num_epoch):
            tic = time.time()
            eval_metric.reset()
            nbatch = 0
            data_iter = iter(train_data)
            end_of_batch = False
            next_data_batch = next(data_iter)
            eval_name_vals: List[Tuple[str, float]] = []
            while not end_of_batch:
                data_batch = next_data_batch
                if monitor is not None:
                    monitor.tic()
                self.forward_backward(data_batch)
                self.update()
                if isinstance(data_batch, list):
                    self.update_metric(eval_metric, [db.label for db in data_batch],
                                       pre_sliced=True)
                else:
                    self.update_metric(eval_metric, data_batch.label)
                try:
                    # pre-fetch the next batch (only one batch is referenced at a time)
                    next_data_batch = next(data_iter)
                    self.prepare(next_data_batch, sparse_row_id_fn=sparse_row_id_fn)
                except StopIteration:
                    end_of_batch = True
                if monitor is not None:
                    monitor.toc_print()
                if end_of_batch:
                    eval_name_vals = eval_metric.get_global_name_value()
                if batch_end_callback is not None:
                    params = BatchEndParam(epoch=epoch, nbatch=nbatch, eval_metric=eval_metric,
                                           locals=locals())
                    for callback in _as_list(batch_end_callback):
                        callback(params)
                nbatch += 1

            for name, val in eval_name_vals:
                self.logger.info("Epoch[%d] Train-%s=%f", epoch, name, val)
            toc = time.time()
            self.logger.info("Epoch[%d] Time cost=%.3f", epoch, (toc - tic))

            # sync the parameters from the devices
            arg_params, aux_params = self.get_params()
            self.set_params(arg_params, aux_params)
            if epoch_end_callback is not None:
                for callback in _as_list(epoch_end_callback):
                    callback(epoch, self.symbol, arg_params, aux_params)
            if eval_data is not None:
                res = self.score(eval_data, validation_metric,
                                 score_end_callback=eval_end_callback,
                                 batch_end_callback=eval_batch_end_callback, epoch=epoch)
                for name, val in res:
                    self.logger.info("Epoch[%d] Validation-%s=%f", epoch, name, val)
            train_data.reset()

    # ------------------------------------------------------------ symbol information
    @property
    def data_names(self) -> List[str]:
        """Names of the data inputs."""
        raise NotImplementedError()

    @property
    def output_names(self) -> List[str]:
        """Names of the outputs."""
        raise NotImplementedError()

    @property
    def data_shapes(self) -> List[DataDesc]:
        """DataDescs of the data inputs (after bind)."""
        raise NotImplementedError()

    @property
    def label_shapes(self):
        """DataDescs of the labels (after bind; None without labels)."""
        raise NotImplementedError()

    @property
    def output_shapes(self) -> List[Tuple[str, tuple]]:
        """``[(name, shape)]`` of the outputs (after bind)."""
        raise NotImplementedError()

    # ------------------------------------------------------------ parameters
    def get_params(self) -> Tuple[Dict[str, Any], Dict[str, Any]]:
        """``(arg_params, aux_params)``: dicts of name to NDArray (copies on the CPU)."""
        raise NotImplementedError()

    def init_params(self, initializer=Uniform(0.01), arg_params=None, aux_params=None,
                    allow_missing: bool = False, force_init: bool = False,
                    allow_extra: bool = False) -> None:
        """Initialize the parameters (from ``arg_params``/``aux_params`` where given,
        else with ``initializer``)."""
        raise NotImplementedError()

    def set_params(self, arg_params, aux_params, allow_missing: bool = False,
                   force_init: bool = True, allow_extra: bool = False) -> None:
        """Assign parameter values (``init_params`` with no initializer)."""
        self.init_params(initializer=None, arg_params=arg_params, aux_params=aux_params,
                         allow_missing=allow_missing, force_init=force_init,
                         allow_extra=allow_extra)

    def save_params(self, fname: str) -> None:
        """Save the parameters to ``fname`` (keys ``arg:<name>``/``aux:<name>``, MXNet's
        NDArray file format)."""
        arg_params, aux_params = self.get_params()
        save_dict = {f"arg:{k}": v.as_in_context(cpu()) for k, v in arg_params.items()}
        save_dict.update({f"aux:{k}": v.as_in_context(cpu()) for k, v in aux_params.items()})
        ndarray.save(fname, save_dict)

    def load_params(self, fname: str) -> None:
        """Load parameters saved by :meth:`save_params` (or MXNet's)."""
        arg_params, aux_params = split_params(ndarray.load(fname), fname)
        self.set_params(arg_params, aux_params)

    def get_states(self, merge_multi_context: bool = True) -> list:
        """The state arrays (none for this module)."""
        self._check_ready("get_states")
        if merge_multi_context:
            raise StateError("get_states: merge_multi_context=True is not supported")
        return []

    def set_states(self, states=None, value=None) -> None:
        """Set the state arrays (none for this module)."""
        self._check_ready("set_states")
        if states or value:
            raise StateError("set_states: this module has no states")

    def install_monitor(self, mon) -> None:
        """Install a :class:`~mxgrad.monitor.Monitor` on the executors."""
        raise NotImplementedError()

    # ------------------------------------------------------------ computations
    def prepare(self, data_batch, sparse_row_id_fn=None) -> None:
        """Prepare for ``data_batch`` (switch bucket, ...); nothing here."""
        if sparse_row_id_fn is not None:
            warn("sparse_row_id_fn is not invoked for BaseModule.")

    def forward(self, data_batch, is_train: Optional[bool] = None) -> None:
        """Forward computation (``is_train`` None: as bound)."""
        raise NotImplementedError()

    def backward(self, out_grads=None) -> None:
        """Backward computation (``out_grads`` for outputs that are not losses)."""
        raise NotImplementedError()

    def get_outputs(self, merge_multi_context: bool = True):
        """The outputs of the last forward."""
        raise NotImplementedError()

    def get_input_grads(self, merge_multi_context: bool = True):
        """Gradients of the data inputs (bind with ``inputs_need_grad=True``)."""
        raise NotImplementedError()

    def update(self) -> None:
        """Update the parameters with the optimizer and the last gradients."""
        raise NotImplementedError()

    def update_metric(self, eval_metric, labels, pre_sliced: bool = False) -> None:
        """Accumulate ``eval_metric`` on the last outputs and ``labels``."""
        raise NotImplementedError()

    # ------------------------------------------------------------ module setup
    def bind(self, data_shapes, label_shapes=None, for_training: bool = True,
             inputs_need_grad: bool = False, force_rebind: bool = False, shared_module=None,
             grad_req="write") -> None:
        """Allocate the executors for the given input shapes."""
        raise NotImplementedError()

    def init_optimizer(self, kvstore="local", optimizer="sgd",
                       optimizer_params=(("learning_rate", 0.01),),
                       force_init: bool = False) -> None:
        """Create the optimizer (and kvstore)."""
        raise NotImplementedError()

    @property
    def symbol(self):
        """The network (a Symbol)."""
        return self._symbol

"""``mx.model``: checkpoint files (:mod:`mxgrad._checkpoint`, re-exported) and MXNet 1.9.1's
deprecated ``FeedForward``, which trains through ``mx.module``.

A checkpoint is two files, as MXNet writes them: ``prefix-symbol.json`` (the graph, from
:meth:`Symbol.save`) and ``prefix-%04d.params`` (an MXNet NDArray file whose keys are
``arg:<name>`` for arguments and ``aux:<name>`` for auxiliary states). Files move both
ways between mxgrad and MXNet 1.x.

Examples
--------
>>> import os, tempfile
>>> import mxgrad as mx
>>> net = mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=2, name='fc')
>>> prefix = os.path.join(tempfile.mkdtemp(), 'net')
>>> args = {'fc_weight': mx.nd.ones((2, 3)), 'fc_bias': mx.nd.zeros((2,))}
>>> mx.model.save_checkpoint(prefix, 1, net, args, {})
>>> sym, arg_params, aux_params = mx.model.load_checkpoint(prefix, 1)
>>> sym.list_arguments(), sorted(arg_params), aux_params
(['data', 'fc_weight', 'fc_bias'], ['fc_bias', 'fc_weight'], {})
"""
from __future__ import annotations

import logging
import time
import warnings
from typing import Any, Dict, List, Optional

import numpy as np

from . import io
from . import metric
from . import ndarray as nd
from . import optimizer as opt
from . import symbol as sym
from .base import DTypeError, ShapeError, StateError
from .context import Context, cpu
from .initializer import Uniform
from .io import DataDesc
from .ndarray import NDArray
from ._checkpoint import (BatchEndParam, save_checkpoint, load_checkpoint, load_params,
                          _create_kvstore, _initialize_kvstore, _multiple_callbacks)
from . import callback
from .module import Module

__all__ = ["BatchEndParam", "save_checkpoint", "load_checkpoint", "load_params", "FeedForward"]


# ---------------------------------------------------------------- FeedForward (deprecated)
def _check_arguments(symbol) -> None:
    """Refuse a network whose argument or auxiliary names repeat."""
    for names, what in ((symbol.list_arguments(), "argument"),
                        (symbol.list_auxiliary_states(), "auxiliary param")):
        seen = set()
        for name in names:
            if name in seen:
                raise StateError(f'Find duplicated {what} name "{name}", please make the '
                                 f'weight name non-duplicated (using name arguments), '
                                 f'names are {names}')
            seen.add(name)


class FeedForward:
    """MXNet's deprecated single-input model: ``fit``/``predict``/``score`` on NumPy arrays
    or DataIters (use :class:`mxgrad.module.Module` in new code; this class trains through
    one).

    Parameters
    ----------
    symbol : Symbol
        The network (its inputs are the data iterator's ``provide_data`` and
        ``provide_label`` names).
    ctx : Context or list of Context, optional
    num_epoch : int, optional
        Train epochs ``begin_epoch .. num_epoch-1``.
    epoch_size : int, optional
        Batches per epoch (default: one pass over the data).
    optimizer : str or Optimizer, default 'sgd'
    initializer : Initializer, default Uniform(0.01)
    numpy_batch_size : int, default 128
        Batch size for NumPy/NDArray inputs.
    arg_params, aux_params : dict of str to NDArray, optional
        Initial values (kept by ``fit``; the others are initialized).
    allow_extra_params : bool, default False
        Drop names the network lacks instead of failing.
    begin_epoch : int, default 0
    **kwargs
        Optimizer settings (``learning_rate``, ``momentum``, ``wd``...).

    Examples
    --------
    >>> import warnings, numpy as np
    >>> import mxgrad as mx
    >>> x = np.random.RandomState(0).randn(40, 3).astype('float32')
    >>> y = (x[:, 0] > 0).astype('float32')
    >>> net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=2,
    ...                                                  name='fc'), name='softmax')
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter('ignore', DeprecationWarning)
    ...     model = mx.model.FeedForward(net, num_epoch=10, numpy_batch_size=10,
    ...                                  learning_rate=0.5)
    >>> model.fit(x, y)
    >>> model.predict(x).shape, model.score(mx.io.NDArrayIter(x, y, batch_size=10)) > 0.9
    ((40, 2), True)
    """

    def __init__(self, symbol, ctx=None, num_epoch: Optional[int] = None,
                 epoch_size: Optional[int] = None, optimizer="sgd", initializer=None,
                 numpy_batch_size: int = 128, arg_params=None, aux_params=None,
                 allow_extra_params: bool = False, begin_epoch: int = 0,
                 **kwargs: Any) -> None:
        warnings.warn("mxnet.model.FeedForward has been deprecated. Please use "
                      "mxnet.mod.Module instead.", DeprecationWarning, stacklevel=2)
        if not isinstance(symbol, sym.Symbol):
            raise DTypeError("FeedForward: symbol must be a Symbol (for a symbol generator "
                             "use mx.mod.BucketingModule)")
        self.symbol = symbol
        self.sym_gen = None
        self.arg_params = arg_params
        self.aux_params = aux_params
        self.allow_extra_params = allow_extra_params
        _check_arguments(symbol)
        if allow_extra_params:
            if self.arg_params:
                names = set(symbol.list_arguments())
                self.arg_params = {k: v for k, v in self.arg_params.items() if k in names}
            if self.aux_params:
                names = set(symbol.list_auxiliary_states())
                self.aux_params = {k: v for k, v in self.aux_params.items() if k in names}
        if ctx is None:
            ctx = [cpu()]
        elif isinstance(ctx, Context):
            ctx = [ctx]
        self.ctx = ctx
        self.num_epoch = num_epoch
        self.epoch_size = epoch_size
        self.kwargs = kwargs.copy()
        self.optimizer = optimizer
        self.initializer = initializer if initializer is not None else Uniform(0.01)
        self.numpy_batch_size = numpy_batch_size
        self._pred_exec: Any = None
        self.begin_epoch = begin_epoch

    def _init_params(self, inputs, overwrite: bool = False):
        """Allocate and initialize the parameters for the input shapes (given values are
        kept unless ``overwrite``)."""
        inputs = [x if isinstance(x, DataDesc) else DataDesc(*x) for x in inputs]
        input_shapes = {d.name: d.shape for d in inputs}
        arg_shapes, _, aux_shapes = self.symbol.infer_shape(**input_shapes)
        arg_types, _, aux_types = self.symbol.infer_type(**{d.name: d.dtype for d in inputs})
        arg_names = self.symbol.list_arguments()
        param_names = [k for k in arg_names if k not in input_shapes]
        aux_names = self.symbol.list_auxiliary_states()
        arg_params = {k: nd.zeros(s, dtype=t) for k, s, t in
                      zip(arg_names, arg_shapes, arg_types) if k in param_names}
        aux_params = {k: nd.zeros(s, dtype=t) for k, s, t in
                      zip(aux_names, aux_shapes, aux_types)}
        for mine, given in ((arg_params, self.arg_params), (aux_params, self.aux_params)):
            for k, v in mine.items():
                if given and k in given and not overwrite:
                    v[:] = given[k]
                else:
                    self.initializer(k, v)
        self.arg_params = arg_params
        self.aux_params = aux_params
        return arg_names, param_names, aux_names

    def _init_iter(self, X, y, is_train: bool):
        if isinstance(X, (np.ndarray, NDArray)):
            if y is None:
                if is_train:
                    raise StateError("FeedForward.fit: y must be given when X is an array")
                y = np.zeros(X.shape[0])
            if not isinstance(y, (np.ndarray, NDArray)):
                raise DTypeError("FeedForward: y must be an array when X is an array")
            if X.shape[0] != y.shape[0]:
                raise ShapeError(f"FeedForward: X has {X.shape[0]} samples but y has "
                                 f"{y.shape[0]}")
            if y.ndim == 2 and y.shape[1] == 1:
                y = y.flatten()
            if y.ndim != 1:
                raise ShapeError("FeedForward: labels must be 1-D (or 2-D with one column)")
            batch = min(X.shape[0], self.numpy_batch_size)
            if is_train:
                return io.NDArrayIter(X, y, batch, shuffle=True,
                                      last_batch_handle="roll_over")
            return io.NDArrayIter(X, y, batch, shuffle=False)
        if not isinstance(X, io.DataIter):
            raise DTypeError(f"FeedForward: X must be a DataIter, NDArray or numpy.ndarray, "
                             f"got {type(X).__name__}")
        return X

    def _init_eval_iter(self, eval_data):
        if eval_data is None:
            return None
        if isinstance(eval_data, (tuple, list)) and len(eval_data) == 2:
            if eval_data[0] is None:
                raise StateError("FeedForward.fit: eval_data[0] is None")
            if eval_data[1] is None and isinstance(eval_data[0], io.DataIter):
                return eval_data[0]
            x = np.array(eval_data[0]) if isinstance(eval_data[0], list) else eval_data[0]
            y = np.array(eval_data[1]) if isinstance(eval_data[1], list) else eval_data[1]
            return self._init_iter(x, y, is_train=True)
        if not isinstance(eval_data, io.DataIter):
            raise DTypeError("FeedForward.fit: eval_data must be a DataIter or an (X, y) "
                             "pair")
        return eval_data

    def _init_predictor(self, input_shapes, type_dict=None) -> None:
        shapes = {name: v.shape for name, v in self.arg_params.items()}
        shapes.update({d[0]: d[1] for d in input_shapes})
        if self._pred_exec is not None:
            arg_shapes = self.symbol.infer_shape(**shapes)[0]
            if arg_shapes == [x.shape for x in self._pred_exec.arg_arrays]:
                return
        exe = self.symbol.simple_bind(self.ctx[0], grad_req="null", type_dict=type_dict,
                                      **shapes)
        exe.copy_params_from(self.arg_params, self.aux_params)
        self._pred_exec = exe

    def _predict_batches(self, X, num_batch):
        if self.arg_params is None:
            raise StateError("FeedForward: no parameters yet; call fit (or load) first")
        data_shapes = X.provide_data
        data_names = [x[0] for x in data_shapes]
        type_dict = {k: v.dtype for k, v in self.arg_params.items()}
        for x in data_shapes:
            type_dict[x[0]] = x.dtype if isinstance(x, DataDesc) else np.float32
        self._init_predictor(data_shapes, type_dict)
        arrays = [self._pred_exec.arg_dict[name] for name in data_names]
        for i, batch in enumerate(X):
            if num_batch is not None and i == num_batch:
                break
            for src, dst in zip(batch.data, arrays):
                src.copyto(dst)
            self._pred_exec.forward(is_train=False)
            yield i, batch

    def predict(self, X, num_batch: Optional[int] = None, return_data: bool = False,
                reset: bool = True):
        """Outputs on ``X`` as NumPy arrays (padding removed); with ``return_data`` also
        the data and labels."""
        X = self._init_iter(X, None, is_train=False)
        if reset:
            X.reset()
        outputs: List[List[np.ndarray]] = []
        data_list: List[List[np.ndarray]] = [[] for _ in X.provide_data]
        label_list: List[List[np.ndarray]] = [[] for _ in X.provide_label]
        for _, batch in self._predict_batches(X, num_batch):
            real = X.batch_size - (batch.pad or 0)
            if not outputs:
                outputs = [[] for _ in self._pred_exec.outputs]
            for o_list, out in zip(outputs, self._pred_exec.outputs):
                o_list.append(out[0:real].asnumpy())
            if return_data:
                for j, x in enumerate(batch.data):
                    data_list[j].append(x[0:real].asnumpy())
                for j, x in enumerate(batch.label):
                    label_list[j].append(x[0:real].asnumpy())
        merged: Any = [np.concatenate(x) for x in outputs]
        if len(merged) == 1:
            merged = merged[0]
        if not return_data:
            return merged
        data: Any = [np.concatenate(x) for x in data_list]
        label: Any = [np.concatenate(x) for x in label_list]
        return (merged, data[0] if len(data) == 1 else data,
                label[0] if len(label) == 1 else label)

    def score(self, X, eval_metric="acc", num_batch: Optional[int] = None,
              batch_end_callback=None, reset: bool = True) -> float:
        """The metric's value on ``X`` (a DataIter, or arrays with ``y`` via an iterator)."""
        if not isinstance(eval_metric, metric.EvalMetric):
            eval_metric = metric.create(eval_metric)
        X = self._init_iter(X, None, is_train=False)
        if reset:
            X.reset()
        for i, batch in self._predict_batches(X, num_batch):
            eval_metric.update(batch.label, self._pred_exec.outputs)
            if batch_end_callback is not None:
                _multiple_callbacks(batch_end_callback,
                                    BatchEndParam(epoch=0, nbatch=i, eval_metric=eval_metric,
                                                  locals=locals()))
        return eval_metric.get()[1]

    def fit(self, X, y=None, eval_data=None, eval_metric="acc", epoch_end_callback=None,
            batch_end_callback=None, kvstore="local", logger=None, work_load_list=None,
            monitor=None, eval_end_callback=None, eval_batch_end_callback=None) -> None:
        """Train on ``X`` (a DataIter, or arrays with labels ``y``; shuffled, batches of
        ``numpy_batch_size``), logging and calling the callbacks as MXNet's FeedForward
        (batch-end ``nbatch`` counts from 1; ``Epoch[e] Resetting Data Iterator``)."""
        if eval_end_callback is None:
            eval_end_callback = callback.LogValidationMetricsCallback()
        logger = logger if logger is not None else logging
        data = self._init_iter(X, y, is_train=True)
        eval_data = self._init_eval_iter(eval_data)
        self.kwargs["sym"] = self.symbol
        arg_names, param_names, aux_names = self._init_params(data.provide_data
                                                              + data.provide_label)
        if not isinstance(eval_metric, metric.EvalMetric):
            eval_metric = metric.create(eval_metric)
        kv, update_on_kvstore = _create_kvstore(kvstore, len(self.ctx), self.arg_params)
        idx2name: Dict[int, str] = {}
        if update_on_kvstore:
            idx2name.update(enumerate(param_names))
        else:
            for i, n in enumerate(param_names):
                for k in range(len(self.ctx)):
                    idx2name[i * len(self.ctx) + k] = n
        self.kwargs["param_idx2name"] = idx2name
        if isinstance(self.optimizer, str):
            batch_size = data.batch_size
            if kv and "dist" in kv.type and "_async" not in kv.type:
                batch_size *= kv.num_workers
            optimizer = opt.create(self.optimizer, rescale_grad=1.0 / batch_size,
                                   **self.kwargs)
        elif isinstance(self.optimizer, opt.Optimizer):
            optimizer = self.optimizer
            if not optimizer.idx2name:
                optimizer.idx2name = idx2name.copy()
        else:
            raise DTypeError(f"FeedForward: optimizer must be a name or an Optimizer, got "
                             f"{type(self.optimizer).__name__}")
        mod = Module(self.symbol, data_names=[d[0] for d in data.provide_data],
                     label_names=[d[0] for d in data.provide_label], context=self.ctx,
                     work_load_list=work_load_list)
        mod.bind(data.provide_data, data.provide_label, for_training=True)
        if monitor is not None:
            mod.install_monitor(monitor)
        mod.init_params(initializer=None, arg_params=self.arg_params,
                        aux_params=self.aux_params)
        mod._optimizer, mod._kvstore, mod._update_on_kvstore = optimizer, kv, update_on_kvstore
        if kv:
            if update_on_kvstore:
                kv.set_optimizer(optimizer)
            _initialize_kvstore(kv, mod._exec_group.param_arrays, self.arg_params,
                                param_names, update_on_kvstore)
        if not update_on_kvstore:
            mod._updater = opt.get_updater(optimizer)
        mod.optimizer_initialized = True
        self._train(mod, data, eval_data, eval_metric, epoch_end_callback,
                    batch_end_callback, logger, monitor, eval_end_callback,
                    eval_batch_end_callback)

    def _train(self, mod, train_data, eval_data, eval_metric, epoch_end_callback,
               batch_end_callback, logger, monitor, eval_end_callback,
               eval_batch_end_callback) -> None:
        """MXNet's ``_train_multi_device`` loop on the Module ``mod``."""
        train_data.reset()
        for epoch in range(self.begin_epoch, self.num_epoch or 0):
            tic = time.time()
            eval_metric.reset()
            nbatch = 0
            while True:
                do_reset = True
                for data_batch in train_data:
                    if monitor is not None:
                        monitor.tic()
                    mod.forward_backward(data_batch)
                    mod.update()
                    if monitor is not None:
                        monitor.toc_print()
                    mod.update_metric(eval_metric, data_batch.label)
                    nbatch += 1
                    if batch_end_callback is not None:
                        _multiple_callbacks(batch_end_callback, BatchEndParam(
                            epoch=epoch, nbatch=nbatch, eval_metric=eval_metric,
                            locals=locals()))
                    if self.epoch_size is not None and nbatch >= self.epoch_size:
                        do_reset = False
                        break
                if do_reset:
                    logger.info("Epoch[%d] Resetting Data Iterator", epoch)
                    train_data.reset()
                if self.epoch_size is None or nbatch >= self.epoch_size:
                    break
            logger.info("Epoch[%d] Time cost=%.3f", epoch, time.time() - tic)
            if epoch_end_callback or epoch + 1 == self.num_epoch:
                arg, aux = mod.get_params()
                for mine, theirs in ((self.arg_params, arg), (self.aux_params, aux)):
                    for k, v in theirs.items():
                        v.copyto(mine[k])
            _multiple_callbacks(epoch_end_callback, epoch, self.symbol, self.arg_params,
                                self.aux_params)
            if eval_data:
                eval_metric.reset()
                eval_data.reset()
                total = 0
                for i, eval_batch in enumerate(eval_data):
                    mod.forward(eval_batch, is_train=False)
                    mod.update_metric(eval_metric, eval_batch.label)
                    if eval_batch_end_callback is not None:
                        _multiple_callbacks(eval_batch_end_callback, BatchEndParam(
                            epoch=epoch, nbatch=i, eval_metric=eval_metric, locals=locals()))
                    total += 1
                if eval_end_callback is not None:
                    _multiple_callbacks(eval_end_callback, BatchEndParam(
                        epoch=epoch, nbatch=total, eval_metric=eval_metric, locals=locals()))
                eval_data.reset()
        self._pred_exec = None

    def save(self, prefix: str, epoch: Optional[int] = None,
             remove_amp_cast: bool = True) -> None:
        """:func:`save_checkpoint` of the model (epoch defaults to ``num_epoch``)."""
        if epoch is None:
            epoch = self.num_epoch
        if epoch is None:
            raise StateError("FeedForward.save: give epoch (num_epoch is not set)")
        save_checkpoint(prefix, epoch, self.symbol, self.arg_params, self.aux_params,
                        remove_amp_cast=remove_amp_cast)

    @staticmethod
    def load(prefix: str, epoch: int, ctx=None, **kwargs: Any) -> "FeedForward":
        """A FeedForward from a checkpoint (training continues at ``epoch``)."""
        symbol, arg_params, aux_params = load_checkpoint(prefix, epoch)
        return FeedForward(symbol, ctx=ctx, arg_params=arg_params, aux_params=aux_params,
                           begin_epoch=epoch, **kwargs)

    @staticmethod
    def create(symbol, X, y=None, ctx=None, num_epoch=None, epoch_size=None, optimizer="sgd",
               initializer=None, eval_data=None, eval_metric="acc",
               epoch_end_callback=None, batch_end_callback=None, kvstore="local",
               logger=None, work_load_list=None, eval_end_callback=None,
               eval_batch_end_callback=None, **kwargs: Any) -> "FeedForward":
        """Construct a FeedForward and ``fit`` it."""
        model = FeedForward(symbol, ctx=ctx, num_epoch=num_epoch, epoch_size=epoch_size,
                            optimizer=optimizer, initializer=initializer, **kwargs)
        model.fit(X, y, eval_data=eval_data, eval_metric=eval_metric,
                  epoch_end_callback=epoch_end_callback,
                  batch_end_callback=batch_end_callback, kvstore=kvstore, logger=logger,
                  work_load_list=work_load_list, eval_end_callback=eval_end_callback,
                  eval_batch_end_callback=eval_batch_end_callback)
        return model

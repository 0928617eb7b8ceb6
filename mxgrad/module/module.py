"""``mx.mod.Module``: a Symbol trained on one or more contexts (MXNet 1.9.1's Module).

Examples
--------
>>> import numpy as np
>>> import mxgrad as mx
>>> data = mx.sym.var('data')
>>> net = mx.sym.FullyConnected(data, num_hidden=2, name='fc')
>>> net = mx.sym.SoftmaxOutput(net, name='softmax')
>>> mod = mx.mod.Module(net, context=mx.cpu())
>>> mod.bind(data_shapes=[('data', (4, 3))], label_shapes=[('softmax_label', (4,))])
>>> mod.init_params(mx.init.One())
>>> mod.forward(mx.io.DataBatch([mx.nd.ones((4, 3))], [mx.nd.zeros((4,))]), is_train=False)
>>> mod.get_outputs()[0].asnumpy()[0].tolist()
[0.5, 0.5]
>>> mod.output_shapes
[('softmax_output', (4, 2))]
"""
from __future__ import annotations

import logging
from typing import Any, Dict, List, Optional, Tuple

from .. import context as ctx
from .. import optimizer as opt
from .._fileio import atomic_write, check_path
from ..base import DTypeError, MXNetError, StateError
from .._warn import warn
from ..initializer import InitDesc, Uniform
from ..io import DataDesc
from .._checkpoint import (_create_kvstore, _initialize_kvstore, _update_params,
                           _update_params_on_kvstore, load_checkpoint)
from ..ndarray import NDArray, zeros
from .base_module import BaseModule, _check_input_names, _parse_data_desc, _require
from .executor_group import DataParallelExecutorGroup

__all__ = ["Module"]


class Module(BaseModule):
    """A module of one Symbol: bound to executors, with parameters and an optimizer.

    Parameters
    ----------
    symbol : Symbol
        The network.
    data_names : list of str, default ('data',)
        Data inputs (arguments of ``symbol``).
    label_names : list of str or None, default ('softmax_label',)
        Label inputs (a name that is not an argument only warns).
    logger : logging.Logger or module, default ``logging``
    context : Context or list of Context, default cpu()
        One executor per context; each gets a slice of the batch.
    work_load_list : list of float, optional
        Relative batch share per context (default equal).
    fixed_param_names : list of str, optional
        Parameters that are not trained (no gradient, no update).
    state_names : list of str, optional
        Arguments that are states (set with ``set_states``), neither data nor parameters.
    group2ctxs : dict or list of dict, optional
        Context per ``ctx_group`` attribute.
    compression_params : dict, optional
        Gradient compression (not supported: an error when a kvstore is used).
    """

    def __init__(self, symbol, data_names=("data",), label_names=("softmax_label",),
                 logger: Any = logging, context=ctx.cpu(), work_load_list=None,
                 fixed_param_names=None, state_names=None, group2ctxs=None,
                 compression_params=None) -> None:
        super().__init__(logger=logger)
        if isinstance(context, ctx.Context):
            context = [context]
        if not isinstance(context, (list, tuple)) or not context or not all(
                isinstance(c, ctx.Context) for c in context):
            raise DTypeError(f"Module: context must be a Context or a non-empty list of "
                             f"them, e.g. [mx.cpu(0), mx.cpu(1)], got {context!r:.80}")
        self._context = list(context)
        if work_load_list is None:
            work_load_list = [1] * len(self._context)
        if len(work_load_list) != len(self._context):
            raise StateError(f"Module: work_load_list has {len(work_load_list)} entries for "
                             f"{len(self._context)} contexts; give one per context")
        self._work_load_list = list(work_load_list)
        self._group2ctxs = group2ctxs
        self._symbol = symbol
        data_names = list(data_names) if data_names is not None else []
        label_names = list(label_names) if label_names is not None else []
        state_names = list(state_names) if state_names is not None else []
        fixed_param_names = list(fixed_param_names) if fixed_param_names is not None else []
        _check_input_names(symbol, data_names, "data", True)
        _check_input_names(symbol, label_names, "label", False)
        _check_input_names(symbol, state_names, "state", True)
        _check_input_names(symbol, fixed_param_names, "fixed_param", True)
        arg_names = symbol.list_arguments()
        input_names = data_names + label_names + state_names
        self._param_names = [x for x in arg_names if x not in input_names]
        self._fixed_param_names = fixed_param_names
        self._aux_names = symbol.list_auxiliary_states()
        self._data_names = data_names
        self._label_names = label_names
        self._state_names = state_names
        self._output_names = symbol.list_outputs()
        self._arg_params: Any = None     # dicts of name -> NDArray once bound or loaded
        self._aux_params: Any = None
        self._params_dirty = False
        self._compression_params = compression_params
        self._optimizer: Any = None
        self._kvstore: Any = None
        self._update_on_kvstore: Optional[bool] = None
        self._updater: Any = None
        self._preload_opt_states: Optional[str] = None
        self._grad_req: Any = None
        self._exec_group: Any = None
        self._data_shapes: Any = None
        self._label_shapes: Any = None

    # ------------------------------------------------------------ files
    @staticmethod
    def load(prefix: str, epoch: int, load_optimizer_states: bool = False,
             **kwargs: Any) -> "Module":
        """A Module from ``prefix-symbol.json`` and ``prefix-%04d.params`` (its
        parameters are set at ``bind``; with ``load_optimizer_states`` the states in
        ``prefix-%04d.states`` are loaded at ``init_optimizer``). ``kwargs`` go to
        :class:`Module`."""
        sym, args, auxs = load_checkpoint(prefix, epoch)
        mod = Module(symbol=sym, **kwargs)
        mod._arg_params = args
        mod._aux_params = auxs
        mod.params_initialized = True
        if load_optimizer_states:
            mod._preload_opt_states = "%s-%04d.states" % (prefix, epoch)
        return mod

    def save_checkpoint(self, prefix: str, epoch: int, save_optimizer_states: bool = False,
                        remove_amp_cast: bool = True) -> None:
        """Write ``prefix-symbol.json``, ``prefix-%04d.params`` and, when asked,
        ``prefix-%04d.states``."""
        self._symbol.save(f"{prefix}-symbol.json", remove_amp_cast=remove_amp_cast)
        param_name = "%s-%04d.params" % (prefix, epoch)
        self.save_params(param_name)
        logging.info('Saved checkpoint to "%s"', param_name)
        if save_optimizer_states:
            state_name = "%s-%04d.states" % (prefix, epoch)
            self.save_optimizer_states(state_name)
            logging.info('Saved optimizer state to "%s"', state_name)

    def _reset_bind(self) -> None:
        self.binded = False
        self._exec_group = None
        self._data_shapes = None
        self._label_shapes = None

    # ------------------------------------------------------------ names and shapes
    @property
    def data_names(self) -> List[str]:
        """Names of the data inputs."""
        return self._data_names

    @property
    def label_names(self) -> List[str]:
        """Names of the label inputs."""
        return self._label_names

    @property
    def output_names(self) -> List[str]:
        """Names of the outputs."""
        return self._output_names

    @property
    def data_shapes(self) -> List[DataDesc]:
        """DataDescs of the data inputs."""
        _require(self.binded, "data_shapes: call bind(...) first")
        return self._data_shapes

    @property
    def label_shapes(self):
        """DataDescs of the labels (None when bound without labels)."""
        _require(self.binded, "label_shapes: call bind(...) first")
        return self._label_shapes

    @property
    def output_shapes(self) -> List[Tuple[str, tuple]]:
        """``[(name, shape)]`` of the outputs."""
        _require(self.binded, "output_shapes: call bind(...) first")
        return self._exec_group.get_output_shapes()

    # ------------------------------------------------------------ parameters
    def get_params(self) -> Tuple[Dict[str, NDArray], Dict[str, NDArray]]:
        """``(arg_params, aux_params)``: the module's copies, synced from the devices."""
        _require(self.params_initialized, "get_params: call init_params(...) first")
        if self._params_dirty:
            self._sync_params_from_devices()
        return self._arg_params, self._aux_params

    def init_params(self, initializer=Uniform(0.01), arg_params=None, aux_params=None,
                    allow_missing: bool = False, force_init: bool = False,
                    allow_extra: bool = False) -> None:
        """Initialize parameters: from ``arg_params``/``aux_params`` where given (a
        missing one is an error unless ``allow_missing``, then ``initializer`` fills it);
        otherwise with ``initializer``. A second call warns and does nothing unless
        ``force_init``. Names in the dicts that the network lacks are an error unless
        ``allow_extra``."""
        if self.params_initialized and not force_init:
            warn("Parameters already initialized and force_init=False. "
                          "init_params call ignored.")
            return
        _require(self.binded, "init_params: call bind(...) before initializing the parameters")

        def _impl(name, arr, cache):
            if cache is not None:
                if name in cache:
                    cache_arr = cache[name]
                    if cache_arr is not arr:
                        if not isinstance(cache_arr, NDArray):
                            raise DTypeError(f"init_params: the value of '{name}' must be an "
                                             f"NDArray, got {type(cache_arr).__name__}")
                        if cache_arr.shape != arr.shape:
                            raise StateError(f"init_params: '{name}' has shape "
                                             f"{cache_arr.shape} but the network needs "
                                             f"{arr.shape}")
                        cache_arr.copyto(arr)
                else:
                    if not allow_missing:
                        raise MXNetError(f"{name} is not presented (init_params/set_params: "
                                         f"give it, or pass allow_missing=True to initialize "
                                         f"it with the initializer)")
                    if initializer is not None:
                        initializer(name, arr)
            else:
                if initializer is None:
                    raise MXNetError(f"init_params: no value and no initializer for {name}")
                initializer(name, arr)

        attrs = self._symbol.attr_dict()
        for name, arr in sorted(self._arg_params.items()):
            _impl(InitDesc(name, attrs.get(name, None)), arr, arg_params)
        for name, arr in sorted(self._aux_params.items()):
            _impl(InitDesc(name, attrs.get(name, None)), arr, aux_params)
        self.params_initialized = True
        self._params_dirty = False
        # copy the initialized parameters to the devices
        self._exec_group.set_params(self._arg_params, self._aux_params,
                                    allow_extra=allow_extra)

    def set_params(self, arg_params, aux_params, allow_missing: bool = False,
                   force_init: bool = True, allow_extra: bool = False) -> None:
        """Assign parameter values (the names the dicts lack keep their values with
        ``allow_missing``)."""
        if not allow_missing:
            self.init_params(initializer=None, arg_params=arg_params, aux_params=aux_params,
                             allow_missing=allow_missing, force_init=force_init,
                             allow_extra=allow_extra)
            return
        if self.params_initialized and not force_init:
            warn("Parameters already initialized and force_init=False. "
                          "set_params call ignored.")
            return
        self._exec_group.set_params(arg_params, aux_params, allow_extra=allow_extra)
        # the executors hold the new values: the module's copies are stale
        self._params_dirty = True
        self.params_initialized = True

    # ------------------------------------------------------------ binding
    def bind(self, data_shapes, label_shapes=None, for_training: bool = True,
             inputs_need_grad: bool = False, force_rebind: bool = False, shared_module=None,
             grad_req="write") -> None:
        """Bind executors for the given input shapes.

        Parameters
        ----------
        data_shapes : list of DataDesc or (name, shape)
        label_shapes : list of DataDesc or (name, shape), optional
        for_training : bool, default True
            False binds for prediction only (no gradients).
        inputs_need_grad : bool, default False
            Also compute the data inputs' gradients (``get_input_grads``).
        force_rebind : bool, default False
            Rebind even if already bound.
        shared_module : Module, optional
            Share parameters and optimizer with this bound Module (buckets).
        grad_req : str, list or dict, default 'write'
        """
        if force_rebind:
            self._reset_bind()
        if self.binded:
            self.logger.warning("Already bound, ignoring bind()")
            return
        if not for_training and inputs_need_grad:
            raise StateError("bind: inputs_need_grad=True needs for_training=True")
        self._data_shapes, self._label_shapes = _parse_data_desc(
            self.data_names, self.label_names, data_shapes, label_shapes)
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        self._grad_req = grad_req
        if shared_module is not None:
            if not (isinstance(shared_module, Module) and shared_module.binded
                    and shared_module.params_initialized):
                raise StateError("bind: shared_module must be a bound Module with "
                                 "initialized parameters")
            shared_group = shared_module._exec_group
            if len(shared_group.execs) < len(self._context):
                raise StateError("bind: shared_module has fewer contexts than this module")
        else:
            shared_group = None
        self._exec_group = DataParallelExecutorGroup(
            self._symbol, self._context, self._work_load_list, self._data_shapes,
            self._label_shapes, self._param_names, for_training, inputs_need_grad,
            shared_group, logger=self.logger, fixed_param_names=self._fixed_param_names,
            grad_req=grad_req, group2ctxs=self._group2ctxs, state_names=self._state_names)
        self._total_exec_bytes = self._exec_group._total_exec_bytes
        if shared_module is not None:
            self.params_initialized = True
            self._arg_params = shared_module._arg_params
            self._aux_params = shared_module._aux_params
        elif self.params_initialized:
            # parameters from Module.load or an earlier bind: put them on the executors
            self._exec_group.set_params(self._arg_params, self._aux_params)
        else:
            if self._arg_params is not None or self._aux_params is not None:
                raise StateError("bind: parameters exist but are not initialized")
            self._arg_params = {
                name: zeros(block[0].shape, dtype=block[0].dtype)
                for name, block in zip(self._param_names, self._exec_group.param_arrays)}
            self._aux_params = {
                name: zeros(block[0].shape, dtype=block[0].dtype)
                for name, block in zip(self._aux_names, self._exec_group.aux_arrays)}
        if shared_module is not None and shared_module.optimizer_initialized:
            self.borrow_optimizer(shared_module)
        self.binded = True

    def reshape(self, data_shapes, label_shapes=None) -> None:
        """Reshape the bound executors for new input shapes (parameters are kept)."""
        _require(self.binded, "reshape: call bind(...) first")
        self._data_shapes, self._label_shapes = _parse_data_desc(
            self.data_names, self.label_names, data_shapes, label_shapes)
        self._exec_group.reshape(self._data_shapes, self._label_shapes)

    # ------------------------------------------------------------ optimizer
    def init_optimizer(self, kvstore="local", optimizer="sgd",
                       optimizer_params=(("learning_rate", 0.01),),
                       force_init: bool = False) -> None:
        """Create the optimizer (a name with ``optimizer_params``, or an Optimizer) and
        the kvstore. ``rescale_grad`` defaults to ``1/batch_size``; with several contexts
        and a kvstore the kvstore sums the gradients (and runs the optimizer unless
        ``MXNET_UPDATE_ON_KVSTORE=0``)."""
        self._check_ready("init_optimizer")
        if self.optimizer_initialized and not force_init:
            self.logger.warning("optimizer already initialized, ignoring...")
            return
        if self._params_dirty:
            self._sync_params_from_devices()
        kvstore, update_on_kvstore = _create_kvstore(kvstore, len(self._context),
                                                     self._arg_params)
        batch_size = self._exec_group.batch_size
        if kvstore and "dist" in kvstore.type and "_sync" in kvstore.type:
            batch_size *= kvstore.num_workers
        rescale_grad = 1.0 / batch_size
        param_names = self._exec_group.param_names
        idx2name: Dict[int, str] = {}
        if update_on_kvstore:
            idx2name.update(enumerate(param_names))
        else:
            n = len(self._context)
            for k in range(n):
                idx2name.update({i * n + k: name for i, name in enumerate(param_names)})
        if isinstance(optimizer, str):
            optimizer_params = dict(optimizer_params)
            if "rescale_grad" not in optimizer_params:
                optimizer_params["rescale_grad"] = rescale_grad
            optimizer = opt.create(optimizer, sym=self.symbol, param_idx2name=idx2name,
                                   **optimizer_params)
        else:
            if not isinstance(optimizer, opt.Optimizer):
                raise DTypeError(f"init_optimizer: optimizer must be a name such as 'sgd' or "
                                 f"an mx.optimizer.Optimizer, got {type(optimizer).__name__}")
            if optimizer.rescale_grad != rescale_grad:
                warn(
                    "Optimizer created manually outside Module but rescale_grad is not "
                    f"normalized to 1.0/batch_size/num_workers ({optimizer.rescale_grad} vs. "
                    f"{rescale_grad}). Is this intended?")
            if not optimizer.idx2name:
                optimizer.idx2name = idx2name.copy()
        self._optimizer = optimizer
        self._kvstore = kvstore
        self._update_on_kvstore = update_on_kvstore
        self._updater = None
        if kvstore:
            if self._compression_params:
                kvstore.set_gradient_compression(self._compression_params)
            if update_on_kvstore:
                kvstore.set_optimizer(self._optimizer)
            _initialize_kvstore(kvstore=kvstore, param_arrays=self._exec_group.param_arrays,
                                arg_params=self._arg_params, param_names=self._param_names,
                                update_on_kvstore=update_on_kvstore)
        if not update_on_kvstore:
            self._updater = opt.get_updater(optimizer)
        self.optimizer_initialized = True
        if self._preload_opt_states is not None:
            self.load_optimizer_states(self._preload_opt_states)
            self._preload_opt_states = None

    def borrow_optimizer(self, shared_module: "Module") -> None:
        """Use ``shared_module``'s optimizer, kvstore and updater (buckets share them)."""
        _require(shared_module.optimizer_initialized,
                 "borrow_optimizer: the shared module has no optimizer yet; call its "
                 "init_optimizer(...) first")
        self._optimizer = shared_module._optimizer
        self._kvstore = shared_module._kvstore
        self._update_on_kvstore = shared_module._update_on_kvstore
        self._updater = shared_module._updater
        self.optimizer_initialized = True

    # ------------------------------------------------------------ computation
    def forward(self, data_batch, is_train: Optional[bool] = None) -> None:
        """Forward on ``data_batch`` (a DataBatch, anything with ``.data``, or a list of
        batches, one per context); a batch of another shape reshapes the executors."""
        self._check_ready("forward")
        curr_data_shapes = tuple(i.shape for i in self._data_shapes)
        new_data_shapes: Any
        if isinstance(data_batch, list):
            if not data_batch:
                raise StateError("forward: empty list of data batches")
            new_data_shapes = []
            for i in range(len(data_batch[0].data)):
                shape = data_batch[0].data[i].shape
                for db in data_batch:
                    if shape != db.data[i].shape:
                        raise StateError("forward: all data batches in a list need to have "
                                         "the same shape")
                new_data_shapes.append((len(data_batch) * shape[0],) + tuple(shape[1:]))
            new_data_shapes = tuple(new_data_shapes)
        else:
            new_data_shapes = tuple(tuple(i.shape) for i in data_batch.data)
        if curr_data_shapes != new_data_shapes:
            if getattr(data_batch, "provide_data", None):
                new_dshape = data_batch.provide_data
            else:
                new_dshape = [DataDesc(i.name, shape, i.dtype, i.layout)
                              for i, shape in zip(self._data_shapes, new_data_shapes)]
            if getattr(data_batch, "provide_label", None):
                new_lshape = data_batch.provide_label
            elif getattr(data_batch, "label", None) and self._label_shapes:
                new_lshape = [DataDesc(i.name, j.shape, i.dtype, i.layout)
                              for i, j in zip(self._label_shapes, data_batch.label)]
            else:
                new_lshape = None
            self.reshape(new_dshape, new_lshape)
        self._exec_group.forward(data_batch, is_train)

    def backward(self, out_grads=None) -> None:
        """Backward (``out_grads``: gradients of the outputs, None for loss outputs)."""
        self._check_ready("backward")
        self._exec_group.backward(out_grads=out_grads)

    def update(self) -> None:
        """Update the parameters from the gradients of the last backward."""
        self._check_ready("update")
        _require(self.optimizer_initialized, "update: call init_optimizer(...) first")
        self._params_dirty = True
        if self._update_on_kvstore:
            _update_params_on_kvstore(self._exec_group.param_arrays,
                                      self._exec_group.grad_arrays, self._kvstore,
                                      self._exec_group.param_names)
        else:
            _update_params(self._exec_group.param_arrays, self._exec_group.grad_arrays,
                           updater=self._updater, num_device=len(self._context),
                           kvstore=self._kvstore, param_names=self._exec_group.param_names)

    def get_outputs(self, merge_multi_context: bool = True) -> list:
        """The outputs of the last forward (merged over contexts, or per context)."""
        self._check_ready("get_outputs")
        return self._exec_group.get_outputs(merge_multi_context=merge_multi_context)

    def get_input_grads(self, merge_multi_context: bool = True) -> list:
        """Gradients of the data inputs (bind with ``inputs_need_grad=True``)."""
        self._check_ready("get_input_grads")
        _require(self.inputs_need_grad,
                 "get_input_grads: bind with inputs_need_grad=True")
        return self._exec_group.get_input_grads(merge_multi_context=merge_multi_context)

    def get_states(self, merge_multi_context: bool = True) -> list:
        """The state arrays (``state_names``), a list per state of the contexts' arrays."""
        self._check_ready("get_states")
        return self._exec_group.get_states(merge_multi_context=merge_multi_context)

    def set_states(self, states=None, value=None) -> None:
        """Set the states from arrays or to a scalar ``value``."""
        self._check_ready("set_states")
        self._exec_group.set_states(states, value)

    def update_metric(self, eval_metric, labels, pre_sliced: bool = False) -> None:
        """Accumulate ``eval_metric`` on the last outputs."""
        self._exec_group.update_metric(eval_metric, labels, pre_sliced)

    def _sync_params_from_devices(self) -> None:
        self._exec_group.get_params(self._arg_params, self._aux_params)
        self._params_dirty = False

    # ------------------------------------------------------------ optimizer states
    def save_optimizer_states(self, fname: str) -> None:
        """Save the optimizer states (mxgrad's states format: arrays and JSON, no
        pickle) to ``fname``, atomically."""
        _require(self.optimizer_initialized,
                 "save_optimizer_states: call init_optimizer(...) first")
        if self._update_on_kvstore:
            self._kvstore.save_optimizer_states(fname)
        else:
            fname = check_path(fname, "fname")
            with atomic_write(fname) as fout:
                fout.write(self._updater.get_states())

    def load_optimizer_states(self, fname: str, allow_pickle: bool = False) -> None:
        """Load optimizer states saved by :meth:`save_optimizer_states`.

        MXNet's ``.states`` files are pickles: they load only with ``allow_pickle=True``
        (a pickle can run code; only for files you trust)."""
        _require(self.optimizer_initialized,
                 "load_optimizer_states: call init_optimizer(...) first")
        if self._update_on_kvstore and not allow_pickle:
            self._kvstore.load_optimizer_states(fname)
            return
        fname = check_path(fname, "fname")
        with open(fname, "rb") as f:
            blob = f.read()
        updater = self._kvstore._updater if self._update_on_kvstore else self._updater
        updater.set_states(blob, allow_pickle=allow_pickle)

    def install_monitor(self, mon) -> None:
        """Install a :class:`~mxgrad.monitor.Monitor` on the executors."""
        _require(self.binded, "install_monitor: call bind(...) first")
        self._exec_group.install_monitor(mon)

    def prepare(self, data_batch, sparse_row_id_fn=None) -> None:
        """Nothing to prepare (no row-sparse parameters in mxgrad)."""
        _require(self.binded, "prepare: call bind(...) first")
        if sparse_row_id_fn is not None:
            warn("Parameters are not updated in the KVStore. "
                                      "No need to call sparse_row_id_fn.")

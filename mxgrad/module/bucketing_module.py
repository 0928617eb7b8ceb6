"""``mx.mod.BucketingModule``: one Module per bucket key (e.g. sequence length), all
sharing the default bucket's parameters and optimizer (MXNet 1.9.1).

``sym_gen(bucket_key)`` returns ``(symbol, data_names, label_names)``; a batch's
``bucket_key`` (with its ``provide_data``/``provide_label``) selects the bucket, which is
bound on first use with the default bucket's module as its ``shared_module``.
"""
from __future__ import annotations

import logging
from typing import Any, Dict, Optional

import numpy as np

from .. import context as ctx
from .. import ndarray as nd
from .. import symbol as sym
from ..base import StateError
from .._warn import warn
from ..initializer import Uniform
from .._checkpoint import load_params
from ..name import NameManager
from .base_module import BaseModule, _check_input_names, _require
from .module import Module

__all__ = ["BucketingModule"]


class BucketingModule(BaseModule):
    """Modules per bucket key sharing one set of parameters.

    Parameters
    ----------
    sym_gen : callable
        ``sym_gen(bucket_key) -> (symbol, data_names, label_names)``.
    default_bucket_key : hashable
        The bucket bound first (the largest, usually); its module owns the parameters.
    logger, context, work_load_list, fixed_param_names, state_names, group2ctxs,
    compression_params
        As for :class:`~mxgrad.module.Module`.

    Examples
    --------
    >>> import mxgrad as mx
    >>> def sym_gen(n):
    ...     data = mx.sym.var('data')
    ...     w = mx.sym.var('w', shape=(1,), init=mx.init.One())
    ...     return mx.sym.make_loss(mx.sym.broadcast_mul(data, w) * n), ('data',), None
    >>> mod = mx.mod.BucketingModule(sym_gen, default_bucket_key=2)
    >>> mod.bind(data_shapes=[('data', (3,))])
    >>> mod.init_params()
    >>> batch = mx.io.DataBatch([mx.nd.ones((3,))], bucket_key=5,
    ...                         provide_data=[mx.io.DataDesc('data', (3,))])
    >>> mod.forward(batch, is_train=False); mod.get_outputs()[0].asnumpy().tolist()
    [5.0, 5.0, 5.0]
    """

    def __init__(self, sym_gen, default_bucket_key=None, logger: Any = logging,
                 context=ctx.cpu(), work_load_list=None, fixed_param_names=None,
                 state_names=None, group2ctxs=None, compression_params=None) -> None:
        super().__init__(logger=logger)
        if default_bucket_key is None:
            raise StateError("BucketingModule: give default_bucket_key (the bucket whose "
                             "module owns the parameters)")
        if not callable(sym_gen):
            raise StateError("BucketingModule: sym_gen must be callable: "
                             "sym_gen(bucket_key) -> (symbol, data_names, label_names)")
        self._default_bucket_key = default_bucket_key
        self._sym_gen = sym_gen
        symbol, data_names, label_names = self._call_sym_gen(default_bucket_key)
        data_names = list(data_names) if data_names is not None else []
        label_names = list(label_names) if label_names is not None else []
        state_names = list(state_names) if state_names is not None else []
        fixed_param_names = list(fixed_param_names) if fixed_param_names is not None else []
        _check_input_names(symbol, data_names, "data", True)
        _check_input_names(symbol, label_names, "label", False)
        _check_input_names(symbol, state_names, "state", True)
        _check_input_names(symbol, fixed_param_names, "fixed_param", True)
        self._compression_params = compression_params
        self._fixed_param_names = fixed_param_names
        self._state_names = state_names
        self._context = context
        self._work_load_list = work_load_list
        self._group2ctxs = group2ctxs
        self._buckets: Dict[Any, Module] = {}
        self._curr_module: Any = None     # the current bucket's Module once bound
        self._curr_bucket_key: Any = None
        self._params_dirty = False
        self._monitor: Any = None
        self._grad_req: Any = None

    def _reset_bind(self) -> None:
        self.binded = False
        self._buckets = {}
        self._curr_module = None
        self._curr_bucket_key = None

    def _call_sym_gen(self, *args, **kwargs):
        # a fresh name manager per call: every bucket's symbol gets the same auto names
        with NameManager():
            return self._sym_gen(*args, **kwargs)

    def _new_module(self, symbol, data_names, label_names) -> Module:
        return Module(symbol, data_names, label_names, logger=self.logger,
                      context=self._context, work_load_list=self._work_load_list,
                      fixed_param_names=self._fixed_param_names,
                      state_names=self._state_names, group2ctxs=self._group2ctxs,
                      compression_params=self._compression_params)

    @property
    def data_names(self):
        """Data input names (of the current bucket, or the default one before bind)."""
        if self.binded:
            return self._curr_module.data_names
        return self._call_sym_gen(self._default_bucket_key)[1]

    @property
    def output_names(self):
        """Output names (of the current bucket, or the default one before bind)."""
        if self.binded:
            return self._curr_module.output_names
        return self._call_sym_gen(self._default_bucket_key)[0].list_outputs()

    @property
    def data_shapes(self):
        """The current bucket's data shapes."""
        _require(self.binded, "data_shapes: call bind(...) first")
        return self._curr_module.data_shapes

    @property
    def label_shapes(self):
        """The current bucket's label shapes."""
        _require(self.binded, "label_shapes: call bind(...) first")
        return self._curr_module.label_shapes

    @property
    def output_shapes(self):
        """The current bucket's output shapes."""
        _require(self.binded, "output_shapes: call bind(...) first")
        return self._curr_module.output_shapes

    def get_params(self):
        """The shared parameters ``(arg_params, aux_params)``."""
        _require(self.params_initialized, "get_params: call init_params(...) first")
        self._curr_module._params_dirty = self._params_dirty
        params = self._curr_module.get_params()
        self._params_dirty = False
        return params

    def set_params(self, arg_params, aux_params, allow_missing: bool = False,
                   force_init: bool = True, allow_extra: bool = False) -> None:
        """Assign parameter values (see :meth:`Module.set_params`)."""
        if not allow_missing:
            self.init_params(initializer=None, arg_params=arg_params, aux_params=aux_params,
                             allow_missing=allow_missing, force_init=force_init)
            return
        if self.params_initialized and not force_init:
            warn("Parameters already initialized and force_init=False. "
                          "set_params call ignored.")
            return
        self._curr_module.set_params(arg_params, aux_params, allow_missing=allow_missing,
                                     force_init=force_init, allow_extra=allow_extra)
        self._params_dirty = True
        self.params_initialized = True

    def init_params(self, initializer=Uniform(0.01), arg_params=None, aux_params=None,
                    allow_missing: bool = False, force_init: bool = False,
                    allow_extra: bool = False) -> None:
        """Initialize the (shared) parameters through the current bucket's module."""
        if self.params_initialized and not force_init:
            return
        _require(self.binded, "init_params: call bind(...) before initializing the parameters")
        self._curr_module.init_params(initializer=initializer, arg_params=arg_params,
                                      aux_params=aux_params, allow_missing=allow_missing,
                                      force_init=force_init, allow_extra=allow_extra)
        self._params_dirty = False
        self.params_initialized = True

    def get_states(self, merge_multi_context: bool = True):
        """The current bucket's states."""
        self._check_ready("get_states")
        return self._curr_module.get_states(merge_multi_context=merge_multi_context)

    def set_states(self, states=None, value=None) -> None:
        """Set the current bucket's states."""
        self._check_ready("set_states")
        self._curr_module.set_states(states, value)

    def bind(self, data_shapes, label_shapes=None, for_training: bool = True,
             inputs_need_grad: bool = False, force_rebind: bool = False, shared_module=None,
             grad_req="write") -> None:
        """Bind the default bucket's module (the other buckets bind on first use)."""
        if self.params_initialized:
            arg_params, aux_params = self.get_params()
        if force_rebind:
            self._reset_bind()
        if self.binded:
            self.logger.warning("Already bound, ignoring bind()")
            return
        if shared_module is not None:
            raise StateError("bind: shared_module for BucketingModule is not supported")
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        self.binded = True
        self._grad_req = grad_req
        symbol, data_names, label_names = self._call_sym_gen(self._default_bucket_key)
        module = self._buckets.get(self._default_bucket_key)
        if module is None:
            module = self._new_module(symbol, data_names, label_names)
        try:
            module.bind(data_shapes, label_shapes, for_training, inputs_need_grad,
                        force_rebind=False, shared_module=None, grad_req=self._grad_req)
        except Exception:
            self.binded = False
            raise
        self._curr_module = module
        self._curr_bucket_key = self._default_bucket_key
        self._buckets[self._default_bucket_key] = module
        # copy back saved params, if already initialized
        if self.params_initialized:
            self.set_params(arg_params, aux_params)

    def switch_bucket(self, bucket_key, data_shapes, label_shapes=None) -> None:
        """Make ``bucket_key``'s module current (binding it, sharing the default
        bucket's parameters, if new)."""
        _require(self.binded, "switch_bucket: call bind(...) first")
        if bucket_key not in self._buckets:
            symbol, data_names, label_names = self._call_sym_gen(bucket_key)
            module = self._new_module(symbol, data_names, label_names)
            module.bind(data_shapes, label_shapes, self._curr_module.for_training,
                        self._curr_module.inputs_need_grad, force_rebind=False,
                        shared_module=self._buckets[self._default_bucket_key],
                        grad_req=self._grad_req)
            if self._monitor is not None:
                module.install_monitor(self._monitor)
            self._buckets[bucket_key] = module
        else:
            module = self._buckets[bucket_key]
            if not module.binded:
                module.bind(data_shapes, label_shapes, self._curr_module.for_training,
                            self._curr_module.inputs_need_grad, force_rebind=False,
                            shared_module=self._buckets[self._default_bucket_key],
                            grad_req=self._grad_req)
        self._curr_module = self._buckets[bucket_key]
        self._curr_bucket_key = bucket_key

    def init_optimizer(self, kvstore="local", optimizer="sgd",
                       optimizer_params=(("learning_rate", 0.01),),
                       force_init: bool = False) -> None:
        """Create the optimizer on the current bucket; the others borrow it."""
        self._check_ready("init_optimizer")
        if self.optimizer_initialized and not force_init:
            self.logger.warning("optimizer already initialized, ignoring.")
            return
        self._curr_module.init_optimizer(kvstore, optimizer, optimizer_params,
                                         force_init=force_init)
        for mod in self._buckets.values():
            if mod is not self._curr_module:
                mod.borrow_optimizer(self._curr_module)
        self.optimizer_initialized = True

    def prepare(self, data_batch, sparse_row_id_fn=None) -> None:
        """Bind the batch's bucket if it is new (the current bucket stays current)."""
        self._check_ready("prepare")
        bucket_key = data_batch.bucket_key
        original_bucket_key = self._curr_bucket_key
        self.switch_bucket(bucket_key, data_batch.provide_data, data_batch.provide_label)
        self._curr_module.prepare(data_batch, sparse_row_id_fn=sparse_row_id_fn)
        self.switch_bucket(original_bucket_key, None, None)

    def forward(self, data_batch, is_train: Optional[bool] = None) -> None:
        """Switch to the batch's bucket and run forward."""
        self._check_ready("forward")
        self.switch_bucket(data_batch.bucket_key, data_batch.provide_data,
                           data_batch.provide_label)
        self._curr_module.forward(data_batch, is_train=is_train)

    def backward(self, out_grads=None) -> None:
        """Backward on the current bucket."""
        self._check_ready("backward")
        self._curr_module.backward(out_grads=out_grads)

    def update(self) -> None:
        """Update the shared parameters."""
        self._check_ready("update")
        _require(self.optimizer_initialized, "update: call init_optimizer(...) first")
        self._params_dirty = True
        self._curr_module.update()

    def get_outputs(self, merge_multi_context: bool = True):
        """The current bucket's outputs."""
        self._check_ready("get_outputs")
        return self._curr_module.get_outputs(merge_multi_context=merge_multi_context)

    def get_input_grads(self, merge_multi_context: bool = True):
        """The current bucket's input gradients."""
        self._check_ready("get_input_grads")
        _require(self.inputs_need_grad, "get_input_grads: bind with inputs_need_grad=True")
        return self._curr_module.get_input_grads(merge_multi_context=merge_multi_context)

    def update_metric(self, eval_metric, labels, pre_sliced: bool = False) -> None:
        """Accumulate ``eval_metric`` on the current bucket's outputs."""
        self._check_ready("update_metric")
        self._curr_module.update_metric(eval_metric, labels, pre_sliced)

    @property
    def symbol(self):
        """The current bucket's symbol."""
        _require(self.binded, "symbol: call bind(...) first")
        return self._curr_module.symbol

    def install_monitor(self, mon) -> None:
        """Install a Monitor on every bucket (also those bound later)."""
        _require(self.binded, "install_monitor: call bind(...) first")
        self._monitor = mon
        for mod in self._buckets.values():
            mod.install_monitor(mon)

    def save_checkpoint(self, prefix: str, epoch: int, remove_amp_cast: bool = False) -> None:
        """Write ``prefix-%04d.params``, ``prefix-<key>-symbol.json`` per bucket and
        ``prefix.buckets`` (the keys, as MXNet writes them)."""
        if not self._buckets:
            raise StateError("save_checkpoint: an empty BucketingModule cannot be saved; "
                             "bind it first")
        self.save_params("%s-%04d.params" % (prefix, epoch))
        for bucket_key in self._buckets:
            symbol, _, _ = self._call_sym_gen(bucket_key)
            symbol.save(f"{prefix}-{bucket_key}-symbol.json", remove_amp_cast=remove_amp_cast)
        nd.save(f"{prefix}.buckets",
                nd.array(list(self._buckets.keys()), dtype=np.int32))

    @staticmethod
    def load(prefix: str, epoch: int, sym_gen=None, default_bucket_key=None,
             **kwargs: Any) -> "BucketingModule":
        """A BucketingModule from :meth:`save_checkpoint`'s files (integer bucket keys)."""
        if sym_gen is None or default_bucket_key is None:
            raise StateError("BucketingModule.load needs sym_gen and default_bucket_key")
        buckets: Any = nd.load(f"{prefix}.buckets")
        keys = [int(k) for k in buckets[0].asnumpy().astype("int32")]
        mod = BucketingModule(sym_gen, default_bucket_key, **kwargs)
        for bucket_key in keys:
            _, data_names, label_names = sym_gen(bucket_key)
            symbol = sym.load(f"{prefix}-{bucket_key}-symbol.json")
            mod._buckets[bucket_key] = Module(symbol, data_names, label_names, **kwargs)
            if bucket_key == default_bucket_key:
                mod._curr_module = mod._buckets[bucket_key]
        if mod._curr_module is None:
            raise StateError(f"BucketingModule.load: default_bucket_key {default_bucket_key!r} "
                             f"is not among the saved buckets {keys}")
        arg_params, aux_params = load_params(prefix, epoch)
        mod._curr_module._arg_params = arg_params
        mod._curr_module._aux_params = aux_params
        mod._curr_module.params_initialized = True
        mod.params_initialized = True
        return mod

    @staticmethod
    def load_dict(sym_dict=None, sym_gen=None, default_bucket_key=None, arg_params=None,
                  aux_params=None, **kwargs: Any) -> "BucketingModule":
        """A BucketingModule from ``{bucket_key: symbol}`` and parameter dicts."""
        for what, value in (("sym_dict", sym_dict), ("arg_params", arg_params),
                            ("aux_params", aux_params),
                            ("default_bucket_key", default_bucket_key)):
            if value is None:
                raise StateError(f"BucketingModule.load_dict: {what} is required")
        mod = BucketingModule(sym_gen, default_bucket_key, **kwargs)
        for bucket_key, loaded_sym in sym_dict.items():
            _, data_names, label_names = sym_gen(default_bucket_key)
            mod._buckets[bucket_key] = Module(loaded_sym, data_names, label_names, **kwargs)
            if bucket_key == default_bucket_key:
                mod._curr_module = mod._buckets[bucket_key]
        if mod._curr_module is None:
            raise StateError("BucketingModule.load_dict: sym_dict has no symbol for "
                             f"default_bucket_key {default_bucket_key!r}")
        mod._curr_module._arg_params = arg_params
        mod._curr_module._aux_params = aux_params
        mod._curr_module.params_initialized = True
        mod.params_initialized = True
        return mod

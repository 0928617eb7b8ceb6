"""``mx.mod.SequentialModule``: modules chained output to input (MXNet 1.9.1).

Each added module's outputs are the next one's data; backward passes each module's input
gradients to the previous one as its ``out_grads``. ``add(module, take_labels=True)``
gives that module the labels (and makes it the one the metric reads);
``auto_wiring=True`` renames the previous outputs to the module's data names.
"""
from __future__ import annotations

import copy
import logging
from typing import Any, Dict, List

from ..base import StateError
from ..initializer import Uniform
from .base_module import BaseModule, _require

__all__ = ["SequentialModule"]


class SequentialModule(BaseModule):
    """A container running modules one after another.

    Examples
    --------
    >>> import mxgrad as mx
    >>> net1 = mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=3, name='fc1')
    >>> net2 = mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=2, name='fc2')
    >>> seq = mx.mod.SequentialModule()
    >>> _ = seq.add(mx.mod.Module(net1, label_names=None))
    >>> _ = seq.add(mx.mod.Module(net2, label_names=None), auto_wiring=True)
    >>> seq.bind(data_shapes=[('data', (4, 5))])
    >>> seq.init_params(mx.init.One())
    >>> seq.forward(mx.io.DataBatch([mx.nd.ones((4, 5))]), is_train=False)
    >>> seq.get_outputs()[0].asnumpy()[0].tolist()
    [15.0, 15.0]
    """

    META_TAKE_LABELS = "take_labels"
    META_AUTO_WIRING = "auto_wiring"

    def __init__(self, logger: Any = logging) -> None:
        super().__init__(logger=logger)
        self._modules: List[BaseModule] = []
        self._metas: List[Dict[str, Any]] = []
        self._label_shapes: Any = None
        self._data_shapes: Any = None
        self._meta_keys = {self.META_TAKE_LABELS, self.META_AUTO_WIRING}

    def add(self, module: BaseModule, **kwargs: Any) -> "SequentialModule":
        """Append ``module`` (meta options: ``take_labels``, ``auto_wiring``); returns
        self for chaining. Adding unbinds the container."""
        for key in kwargs:
            if key not in self._meta_keys:
                raise StateError(f'Unknown meta "{key}", a typo? (known: '
                                 f'{sorted(self._meta_keys)})')
        self._modules.append(module)
        self._metas.append(kwargs)
        # after adding new modules, we are reset back to raw states
        self.binded = False
        self.params_initialized = False
        self.optimizer_initialized = False
        return self

    @property
    def data_names(self) -> List[str]:
        """The first module's data names."""
        return self._modules[0].data_names if self._modules else []

    @property
    def output_names(self) -> List[str]:
        """The last module's output names."""
        return self._modules[-1].output_names if self._modules else []

    @property
    def data_shapes(self):
        """The first module's data shapes."""
        _require(self.binded, "data_shapes: call bind(...) first")
        return self._modules[0].data_shapes

    @property
    def label_shapes(self):
        """The label shapes (None when no module takes labels)."""
        _require(self.binded, "label_shapes: call bind(...) first")
        return self._label_shapes

    @property
    def output_shapes(self):
        """The last module's output shapes."""
        _require(self.binded, "output_shapes: call bind(...) first")
        return self._modules[-1].output_shapes

    def get_params(self):
        """All modules' parameters in two dicts."""
        self._check_ready("get_params")
        arg_params: Dict[str, Any] = {}
        aux_params: Dict[str, Any] = {}
        for module in self._modules:
            arg, aux = module.get_params()
            arg_params.update(arg)
            aux_params.update(aux)
        return arg_params, aux_params

    def init_params(self, initializer=Uniform(0.01), arg_params=None, aux_params=None,
                    allow_missing: bool = False, force_init: bool = False,
                    allow_extra: bool = False) -> None:
        """Initialize every module's parameters; a name used by two modules is an
        error."""
        if self.params_initialized and not force_init:
            return
        _require(self.binded, "init_params: call bind(...) before initializing the parameters")
        for module in self._modules:
            module.init_params(initializer=initializer, arg_params=arg_params,
                               aux_params=aux_params, allow_missing=allow_missing,
                               force_init=force_init, allow_extra=allow_extra)

        def _check_name(known_names, new_names, i):
            for name in new_names:
                if name in known_names:
                    j = known_names[name]
                    raise StateError(
                        f'Duplicated parameter names: name "{name}" in layer {i} '
                        f'({type(self._modules[i])}) is already used in layer {j} '
                        f'({type(self._modules[j])}).')
                known_names[name] = i

        arg_names: Dict[str, int] = {}
        aux_names: Dict[str, int] = {}
        for i_layer, module in enumerate(self._modules):
            arg, aux = module.get_params()
            _check_name(arg_names, arg.keys(), i_layer)
            _check_name(aux_names, aux.keys(), i_layer)
        self.params_initialized = True

    def bind(self, data_shapes, label_shapes=None, for_training: bool = True,
             inputs_need_grad: bool = False, force_rebind: bool = False, shared_module=None,
             grad_req="write") -> None:
        """Bind each module on the previous one's output shapes."""
        if self.binded and not force_rebind:
            self.logger.warning("Already bound, ignoring bind()")
            return
        if inputs_need_grad and not for_training:
            raise StateError("bind: inputs_need_grad=True needs for_training=True")
        if shared_module is not None:
            raise StateError("bind: shared_module is not supported by SequentialModule")
        if not self._modules:
            raise StateError("bind: attempting to bind an empty SequentialModule; add "
                             "modules first")
        self.binded = True
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        self._label_shapes = label_shapes
        my_data_shapes = data_shapes
        anybody_ever_needs_label = False
        for i_layer, module in enumerate(self._modules):
            meta = self._metas[i_layer]
            if meta.get(self.META_TAKE_LABELS, False):
                my_label_shapes = label_shapes
                anybody_ever_needs_label = True
            else:
                my_label_shapes = None
            my_inputs_need_grad = bool(inputs_need_grad or (for_training and i_layer > 0))
            if meta.get(self.META_AUTO_WIRING, False):
                data_names = module.data_names
                if len(data_names) != len(my_data_shapes):
                    raise StateError(f"bind: layer {i_layer} has data names {data_names} "
                                     f"but the previous layer gives {len(my_data_shapes)} "
                                     f"outputs")
                my_data_shapes = [(new_name, shape) for new_name, (_, shape)
                                  in zip(data_names, my_data_shapes)]
            module.bind(data_shapes=my_data_shapes, label_shapes=my_label_shapes,
                        for_training=for_training, inputs_need_grad=my_inputs_need_grad,
                        force_rebind=force_rebind, shared_module=None, grad_req=grad_req)
            # the output of the previous module is the data of the next module
            my_data_shapes = module.output_shapes
        if not anybody_ever_needs_label:
            # then I do not need label either
            self._label_shapes = None

    def init_optimizer(self, kvstore="local", optimizer="sgd",
                       optimizer_params=(("learning_rate", 0.01),),
                       force_init: bool = False) -> None:
        """Create an optimizer in every module."""
        self._check_ready("init_optimizer")
        if self.optimizer_initialized and not force_init:
            self.logger.warning("optimizer already initialized, ignoring.")
            return
        for module in self._modules:
            module.init_optimizer(kvstore=kvstore, optimizer=optimizer,
                                  optimizer_params=optimizer_params, force_init=force_init)
        self.optimizer_initialized = True

    def forward(self, data_batch, is_train=None) -> None:
        """Forward through the modules, each on the previous one's outputs."""
        self._check_ready("forward")
        # make a shallow copy, just to maintain necessary properties (if any) like
        # bucket_key, pad, etc.
        data_batch = copy.copy(data_batch)
        for i_layer, module in enumerate(self._modules):
            module.forward(data_batch, is_train=is_train)
            if i_layer + 1 == len(self._modules):
                break
            data_batch.data = module.get_outputs()
            if hasattr(data_batch, "provide_data"):
                # the next module's data names may differ (auto_wiring): its own
                names = [x[0] for x in module.output_shapes]
                data_batch.provide_data = [(name, x.shape) for name, x in
                                           zip(names, data_batch.data)]

    def backward(self, out_grads=None) -> None:
        """Backward from the last module to the first."""
        self._check_ready("backward")
        for i_layer, module in reversed(list(enumerate(self._modules))):
            module.backward(out_grads=out_grads)
            if i_layer == 0:
                break
            out_grads = module.get_input_grads()

    def update(self) -> None:
        """Update every module's parameters."""
        self._check_ready("update")
        _require(self.optimizer_initialized, "update: call init_optimizer(...) first")
        for module in self._modules:
            module.update()

    def get_outputs(self, merge_multi_context: bool = True):
        """The last module's outputs."""
        self._check_ready("get_outputs")
        return self._modules[-1].get_outputs(merge_multi_context=merge_multi_context)

    def get_input_grads(self, merge_multi_context: bool = True):
        """The first module's input gradients."""
        self._check_ready("get_input_grads")
        _require(self.inputs_need_grad, "get_input_grads: bind with inputs_need_grad=True")
        return self._modules[0].get_input_grads(merge_multi_context=merge_multi_context)

    def update_metric(self, eval_metric, labels, pre_sliced: bool = False) -> None:
        """Accumulate the metric in the modules that take labels."""
        self._check_ready("update_metric")
        for meta, module in zip(self._metas, self._modules):
            if meta.get(self.META_TAKE_LABELS, False):
                module.update_metric(eval_metric, labels, pre_sliced)

    def install_monitor(self, mon) -> None:
        """Install a Monitor on every module."""
        _require(self.binded, "install_monitor: call bind(...) first")
        for module in self._modules:
            module.install_monitor(mon)

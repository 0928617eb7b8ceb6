"""``mx.mod.PythonModule`` and ``PythonLossModule``: modules written in Python, without
parameters (MXNet 1.9.1), e.g. a loss whose gradient is a NumPy function, placed after a
symbolic Module in a :class:`~mxgrad.module.SequentialModule`.
"""
from __future__ import annotations

import logging
from typing import Any, List, Optional

from .. import ndarray as nd
from ..base import StateError
from ..initializer import Uniform
from .base_module import BaseModule

__all__ = ["PythonModule", "PythonLossModule"]


class PythonModule(BaseModule):
    """A parameter-free module: subclass it and write ``forward``, ``backward``,
    ``get_outputs``, ``get_input_grads`` and ``_compute_output_shapes``.

    Parameters
    ----------
    data_names, label_names, output_names : list of str
    logger : logging.Logger or module, default ``logging``
    """

    def __init__(self, data_names, label_names, output_names, logger: Any = logging) -> None:
        super().__init__(logger=logger)
        if isinstance(data_names, tuple):
            data_names = list(data_names)
        if isinstance(label_names, tuple):
            label_names = list(label_names)
        self._data_names = data_names
        self._label_names = label_names
        self._output_names = output_names
        self._data_shapes: Any = None
        self._label_shapes: Any = None
        self._output_shapes: Any = None

    @property
    def data_names(self) -> List[str]:
        """Names of the data inputs."""
        return self._data_names

    @property
    def output_names(self) -> List[str]:
        """Names of the outputs."""
        return self._output_names

    @property
    def data_shapes(self):
        """The data shapes given to bind."""
        return self._data_shapes

    @property
    def label_shapes(self):
        """The label shapes given to bind."""
        return self._label_shapes

    @property
    def output_shapes(self):
        """``[(name, shape)]`` from ``_compute_output_shapes``."""
        return self._output_shapes

    def get_params(self):
        """No parameters: two empty dicts."""
        return {}, {}

    def init_params(self, initializer=Uniform(0.01), arg_params=None, aux_params=None,
                    allow_missing: bool = False, force_init: bool = False,
                    allow_extra: bool = False) -> None:
        """Nothing to initialize."""
        self.params_initialized = True

    def update(self) -> None:
        """Nothing to update."""

    def update_metric(self, eval_metric, labels, pre_sliced: bool = False) -> None:
        """Accumulate ``eval_metric`` on the outputs (when bound with labels)."""
        if self._label_shapes is None:
            # since we do not need labels, we are probably not a module with a loss
            # function or predictions, so just ignore this call
            return
        if pre_sliced:
            raise StateError("PythonModule does not support presliced labels")
        # by default we expect our outputs are some scores that could be evaluated
        eval_metric.update(labels, self.get_outputs())

    def bind(self, data_shapes, label_shapes=None, for_training: bool = True,
             inputs_need_grad: bool = False, force_rebind: bool = False, shared_module=None,
             grad_req="write") -> None:
        """Record the shapes (names must match ``data_names``/``label_names``)."""
        if self.binded and not force_rebind:
            self.logger.warning("Already bound, ignoring bind()")
            return
        if grad_req != "write":
            raise StateError("PythonModule only supports grad_req='write'")
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        if [x[0] for x in data_shapes] != list(self._data_names):
            raise StateError(f"bind: data_shapes names {[x[0] for x in data_shapes]} do "
                             f"not match data_names {self._data_names}")
        self._data_shapes = data_shapes
        self._label_shapes = label_shapes
        if label_shapes is not None:
            if self._label_names is None or \
                    [x[0] for x in label_shapes] != list(self._label_names):
                raise StateError(f"bind: label_shapes names {[x[0] for x in label_shapes]} "
                                 f"do not match label_names {self._label_names}")
        self._output_shapes = self._compute_output_shapes()
        self.binded = True

    def _compute_output_shapes(self):
        """``[(name, shape)]`` of the outputs, from ``self._data_shapes``."""
        raise NotImplementedError()

    def init_optimizer(self, kvstore="local", optimizer="sgd",
                       optimizer_params=(("learning_rate", 0.01),),
                       force_init: bool = False) -> None:
        """No parameters: nothing to optimize."""
        self.optimizer_initialized = True


class PythonLossModule(PythonModule):
    """A loss written in Python: forward passes the scores through; backward calls
    ``grad_func(scores, labels)`` for the scores' gradient.

    Parameters
    ----------
    name : str, default 'pyloss'
        The output is ``name + '_output'``.
    data_names : one name, default ('data',)
    label_names : one name, default ('softmax_label',)
    grad_func : callable
        ``grad_func(scores, labels) -> gradient`` (NDArray or NumPy array).

    Examples
    --------
    >>> import mxgrad as mx
    >>> loss = mx.mod.PythonLossModule(grad_func=lambda s, l: s - l)
    >>> loss.bind(data_shapes=[('data', (2,))], label_shapes=[('softmax_label', (2,))])
    >>> loss.forward(mx.io.DataBatch([mx.nd.array([3., 1.])], [mx.nd.array([1., 1.])]))
    >>> loss.backward(); loss.get_input_grads()[0].asnumpy().tolist()
    [2.0, 0.0]
    """

    def __init__(self, name: str = "pyloss", data_names=("data",),
                 label_names=("softmax_label",), logger: Any = logging,
                 grad_func=None) -> None:
        super().__init__(data_names, label_names, [name + "_output"], logger=logger)
        self._name = name
        if len(data_names) != 1 or len(label_names) != 1:
            raise StateError("PythonLossModule takes one data name and one label name")
        self._scores: Any = None
        self._labels: Any = None
        self._scores_grad: Any = None
        if grad_func is not None and not callable(grad_func):
            raise StateError("PythonLossModule: grad_func must be callable: "
                             "grad_func(scores, labels) -> gradient")
        self._grad_func = grad_func

    def _compute_output_shapes(self):
        return [(self._name + "_output", self._data_shapes[0][1])]

    def forward(self, data_batch, is_train: Optional[bool] = None) -> None:
        """Keep the scores (and, in training, the labels)."""
        self._scores = data_batch.data[0]
        if is_train is None:
            is_train = self.for_training
        if is_train:
            self._labels = data_batch.label[0]

    def get_outputs(self, merge_multi_context: bool = True):
        """The scores, unchanged."""
        if not merge_multi_context:
            raise StateError("PythonLossModule has one context: use merge_multi_context=True")
        return [self._scores]

    def backward(self, out_grads=None) -> None:
        """Compute the scores' gradient with ``grad_func``."""
        if out_grads is not None:
            raise StateError("For a loss module, out_grads should be None")
        if not self.for_training:
            raise StateError("backward: bind with for_training=True")
        self._backward_impl()

    def _backward_impl(self) -> None:
        """``grad_func(scores, labels)``; subclasses may override this instead."""
        if self._grad_func is None:
            raise NotImplementedError("PythonLossModule: give grad_func or override "
                                      "_backward_impl")
        grad = self._grad_func(self._scores, self._labels)
        if not isinstance(grad, nd.NDArray):
            grad = nd.array(grad)
        self._scores_grad = grad

    def get_input_grads(self, merge_multi_context: bool = True):
        """The scores' gradient from the last backward."""
        if not merge_multi_context:
            raise StateError("PythonLossModule has one context: use merge_multi_context=True")
        return [self._scores_grad]

    def install_monitor(self, mon) -> None:
        """Not supported for Python modules."""
        raise NotImplementedError("PythonLossModule has no executors to monitor")

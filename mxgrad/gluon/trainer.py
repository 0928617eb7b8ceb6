"""``gluon.Trainer``: applies an optimizer to a set of parameters.

``step(batch_size)`` rescales gradients by ``1/batch_size`` and updates every
parameter whose ``grad_req`` is not ``'null'``. It does not zero gradients (with
``grad_req='write'`` the next backward overwrites them; with ``'add'`` call
``zero_grad()`` yourself). A parameter whose gradient has not been computed by a
backward since the last step is an error (MXNet's stale-gradient message) unless
``ignore_stale_grad=True``, which skips such parameters.

Freshness is read from the variable's autograd leaf (``mxgrad.autograd.Leaf.fresh``,
set by every backward that reaches the variable); the Trainer clears it after updating.

mxgrad computes on the CPU, so there is no kvstore: ``kvstore`` and
``update_on_kvstore`` are accepted and ``allreduce_grads()`` has nothing to reduce.

Examples
--------
>>> import mxgrad as mx
>>> net = mx.gluon.nn.Dense(1, in_units=2, weight_initializer='zeros')
>>> net.initialize()
>>> trainer = mx.gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1})
>>> x, y = mx.nd.array([[1.0, 2.0], [3.0, 4.0]]), mx.nd.array([[1.0], [2.0]])
>>> with mx.autograd.record():
...     loss = ((net(x) - y) ** 2).sum()
>>> loss.backward()
>>> trainer.step(batch_size=2)
>>> net.weight.data().asnumpy().tolist()     # w -= 0.1 * grad / 2
[[0.699999988079071, 1.0]]
"""
from __future__ import annotations

import warnings

from .._check import as_positive_real
from ..base import DTypeError, MXNetError, StateError
from .. import optimizer as opt
from ..autograd import Leaf
from .parameter import Parameter, ParameterDict

__all__ = ["Trainer", "StaleGradientError"]


class _ParamsError(DTypeError, ValueError):
    """Trainer got something other than Parameters (MXNet raises ValueError)."""


class StaleGradientError(MXNetError, UserWarning):
    """A parameter's gradient was not computed since the last ``step``.

    MXNet raises a ``UserWarning`` here, so this error is also one."""


def _consumed(updates):
    """Yield the updates; each gradient stops being fresh once its update has run."""
    for item in updates:
        yield item
        item[2]._node.fresh = False


class Trainer:
    """Applies an :class:`~mxgrad.optimizer.Optimizer` to a set of parameters.

    Parameters
    ----------
    params : ParameterDict, dict or list of Parameter
        The parameters to optimize (``net.collect_params()``).
    optimizer : str or Optimizer
        An optimizer name (``'sgd'``, ``'adam'``...) or instance.
    optimizer_params : dict, optional
        Keyword arguments of the optimizer (``learning_rate``, ``momentum``, ``wd``...);
        must be empty when ``optimizer`` is an instance.
    kvstore, compression_params, update_on_kvstore
        Accepted for compatibility (no kvstore in mxgrad).
    """

    def __init__(self, params, optimizer, optimizer_params=None, kvstore="device",
                 compression_params=None, update_on_kvstore=None):
        if isinstance(params, (dict, ParameterDict)):
            params = list(params.values())
        if not isinstance(params, (list, tuple)):
            raise _ParamsError(f"First argument must be a list or dict of Parameters, got "
                               f"{type(params)}.")
        self._params = []
        self._param2idx = {}
        for param in params:
            if not isinstance(param, Parameter):
                raise _ParamsError(f"First argument must be a list or dict of Parameters, "
                                   f"got list of {type(param)}.")
            if id(param) in self._param2idx:
                continue
            self._param2idx[id(param)] = len(self._params)
            self._params.append(param)
        self._compression_params = compression_params
        if optimizer_params is None:
            optimizer_params = {}
        if not isinstance(optimizer, (str, opt.Optimizer)):
            raise DTypeError(f"Trainer: optimizer must be a name such as 'sgd' or an "
                             f"Optimizer instance, got {type(optimizer).__name__} "
                             f"{optimizer!r}")
        if not isinstance(optimizer_params, dict):
            raise DTypeError(f"Trainer: optimizer_params must be a dict such as "
                             f"{{'learning_rate': 0.1}}, got {type(optimizer_params).__name__}"
                             f" {optimizer_params!r}")
        self._scale = as_positive_real(optimizer_params.get("rescale_grad", 1.0),
                                       "Trainer: optimizer_params['rescale_grad']")
        self._init_optimizer(optimizer, optimizer_params)
        for param in self._params:      # only once everything above is valid
            param._set_trainer(self)
        self._kvstore_params = {"kvstore": kvstore, "update_on_kvstore": update_on_kvstore}
        self._kvstore = None
        self._update_on_kvstore = False
        self._kv_initialized = True
        self._distributed = False

    def _init_optimizer(self, optimizer, optimizer_params):
        param_dict = {i: param for i, param in enumerate(self._params)}
        if isinstance(optimizer, opt.Optimizer):
            if optimizer_params:
                raise StateError("optimizer_params must be None if optimizer is an instance "
                                 "of Optimizer instead of str")
            self._optimizer = optimizer
            self._optimizer.param_dict = param_dict
        else:
            self._optimizer = opt.create(optimizer, param_dict=param_dict,
                                         **optimizer_params)
        self._updaters = [opt.get_updater(self._optimizer)]

    @property
    def learning_rate(self) -> float:
        """The optimizer's current learning rate."""
        return self._optimizer.learning_rate

    @property
    def optimizer(self) -> opt.Optimizer:
        """The optimizer instance."""
        return self._optimizer

    def set_learning_rate(self, lr: float) -> None:
        """Set a new learning rate (an error when an lr_scheduler controls it)."""
        self._optimizer.set_learning_rate(lr)

    def _check_and_rescale_grad(self, scale):
        self._optimizer.rescale_grad = scale

    def step(self, batch_size, ignore_stale_grad: bool = False) -> None:
        """One update of all parameters with gradients rescaled by ``1/batch_size``.

        Call it after ``backward()`` and outside ``record()``.
        """
        batch_size = as_positive_real(batch_size, "Trainer.step: batch_size")
        self._check_and_rescale_grad(self._scale / batch_size)
        self._allreduce_grads()
        self._update(ignore_stale_grad)

    def allreduce_grads(self) -> None:
        """Sum gradients over devices: nothing to do with one CPU copy."""
        self._allreduce_grads()

    def _allreduce_grads(self):
        pass

    def update(self, batch_size, ignore_stale_grad: bool = False) -> None:
        """Update parameters (``allreduce_grads`` + ``update`` is ``step``)."""
        batch_size = as_positive_real(batch_size, "Trainer.update: batch_size")
        self._check_and_rescale_grad(self._scale / batch_size)
        self._update(ignore_stale_grad)

    @staticmethod
    def _is_fresh(arr) -> bool:
        node = arr._node
        return type(node) is Leaf and node.fresh

    def _update(self, ignore_stale_grad=False):
        updates = []
        for i, param in enumerate(self._params):
            if param.grad_req == "null":
                continue
            data = param._var
            if data is None:
                data = param.data()    # raises the not-initialized error
            node = data._node
            fresh = type(node) is Leaf and node.fresh
            if not fresh and not ignore_stale_grad:
                raise StaleGradientError(
                    f"Gradient of Parameter `{param.name}` on context {param.list_ctx()[0]} "
                    f"has not been updated by backward since last `step`. This could mean "
                    f"a bug in your model that made it only use a subset of the Parameters "
                    f"(Blocks) for this iteration. If you are intentionally only using a "
                    f"subset, call step with ignore_stale_grad=True to suppress this "
                    f"warning and skip updating of Parameters with stale gradient")
            if fresh:
                updates.append((i, node.grad, data))
        updater = self._updaters[0]
        if type(updater) is opt.Updater:
            updater._update_params(_consumed(updates))
        else:
            for i, grad, data in _consumed(updates):
                updater(i, grad, data)

    def zero_grad(self) -> None:
        """Zero the gradients of all parameters."""
        for param in self._params:
            param.zero_grad()

    def save_states(self, fname: str) -> None:
        """Save the optimizer's settings and states (momenta...) to ``fname``.

        The file is an MXNet NDArray file with the state arrays and a JSON description
        (no pickle, so loading it cannot run code), written atomically. The parameters'
        ``lr_mult``/``wd_mult`` are not saved (as in MXNet).

        Examples
        --------
        >>> import mxgrad as mx, os, tempfile
        >>> net = mx.gluon.nn.Dense(1, in_units=2); net.initialize()
        >>> tr = mx.gluon.Trainer(net.collect_params(), 'adam', {'learning_rate': 0.1})
        >>> f = os.path.join(tempfile.mkdtemp(), 't.states')
        >>> tr.save_states(f); tr.load_states(f); tr.learning_rate
        0.1
        """
        from .. import _states
        from .._fileio import atomic_write, check_path
        fname = check_path(fname, "fname")
        blob = _states.dumps(self._updaters[0].states, self._updaters[0].optimizer,
                             [p.name for p in self._params])
        with atomic_write(fname) as fout:
            fout.write(blob)

    def load_states(self, fname: str, allow_pickle: bool = False) -> None:
        """Load what :meth:`save_states` wrote (optimizer settings and states).

        The states are checked against this Trainer's parameters (count and shapes)
        before anything changes; a file of another model raises an error naming the
        parameter. MXNet's pickled states files load only with ``allow_pickle=True``
        (unsafe for untrusted files: it warns).
        """
        from .. import _states
        from .._fileio import open_for_read
        where = f"states file '{fname}'"
        with open_for_read(fname) as f:
            blob = f.read()
        states, optimizer, info = _states.loads(blob, allow_pickle, where)
        _states.check_states(states, self._params, where, info.get("param_names"))
        for i, updater in enumerate(self._updaters):
            if i:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    states, optimizer, _ = _states.loads(blob, allow_pickle, where)
            updater._set_decoded(states, optimizer)
            updater.optimizer = self._updaters[0].optimizer
        self._optimizer = self._updaters[0].optimizer
        self._optimizer.param_dict = {i: param for i, param in enumerate(self._params)}


# a failure inside an update on bad settings is an MXNetError too (issue 11)
from .._check import guard_class as _guard_class  # noqa: E402
_guard_class(Trainer, "Trainer", dunders=())

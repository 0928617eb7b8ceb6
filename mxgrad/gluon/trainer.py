"""``gluon.Trainer``: applies an optimizer to a set of parameters.

``step(batch_size)`` rescales gradients by ``1/batch_size`` and updates every
parameter whose ``grad_req`` is not ``'null'``. It does not zero gradients (with
``grad_req='write'`` the next backward overwrites them; with ``'add'`` call
``zero_grad()`` yourself). A parameter whose gradient has not been computed by a
backward since the last step is an error (MXNet's stale-gradient message) unless
``ignore_stale_grad=True``, which skips such parameters.

Freshness is the variables' public ``x._fresh_grad`` flag (MXNet's name; set by every
backward that reaches the variable); the Trainer clears it after updating.

Devices and workers (``kvstore``): with parameters on several contexts, or with a
distributed kvstore (``'dist_sync'``, ``'horovod'``, or a :class:`mxgrad.kvstore.KVStore`),
``step`` first sums the gradients over the copies (in context order) and over the MPI
workers (in rank order) through the kvstore, then updates; every copy and every worker
ends with the same weights. ``update_on_kvstore=True`` (the default with a kvstore, as in
MXNet; never for 'horovod') lets the kvstore run the optimizer; with ``False``
``allreduce_grads()`` + ``update()`` split ``step`` in two. The optimizer's states are
the same object either way (``save_states`` works in both). With a distributed kvstore,
parameters are broadcast from rank 0 as soon as they are initialized (also deferred
ones, at the first forward), so all workers start identical. Pass ``step`` the global
batch size (per-worker batch times ``kv.num_workers``), as MXNet's docs say.

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

from typing import Any, Dict, List, Optional, Sequence, Union

import warnings
import numpy as np

from .._check import as_positive_real
from ..base import DTypeError, MXNetError, StateError
from .. import optimizer as opt
from .. import autograd
from .. import kvstore as kvs
from .parameter import Parameter, ParameterDict

__all__ = ["Trainer", "StaleGradientError", "KVStoreUpdateError"]


class _ParamsError(DTypeError, ValueError):
    """Trainer got something other than Parameters (MXNet raises ValueError)."""


class StaleGradientError(MXNetError, UserWarning):
    """A parameter's gradient was not computed since the last ``step``.

    MXNet raises a ``UserWarning`` here, so this error is also one."""


def _consumed(updates):
    """Yield the updates; each gradient stops being fresh once its update has run."""
    for item in updates:
        yield item
        item[2]._fresh_grad = False


class KVStoreUpdateError(StateError, AssertionError):
    """``update()``/``allreduce_grads()`` on a Trainer whose kvstore runs the optimizer.
    Also an ``AssertionError``: MXNet 1.x raises one there (its own tests expect it)."""


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
    kvstore : str, KVStore or None, default 'device'
        How gradients are summed over contexts and workers (see the module docs). A
        local type with one context needs no kvstore.
    compression_params : dict, optional
        Not supported (must be None).
    update_on_kvstore : bool, optional
        Whether the kvstore runs the optimizer (default: True when there is a kvstore,
        False for 'horovod'). The result is the same; ``allreduce_grads``/``update``
        need False.
    """

    def __init__(self, params: Union[ParameterDict, Dict[str, Parameter], Sequence[Parameter]],
                 optimizer: Union[str, opt.Optimizer],
                 optimizer_params: Optional[Dict[str, Any]] = None, kvstore: Any = "device",
                 compression_params: Optional[Dict[str, Any]] = None,
                 update_on_kvstore: Optional[bool] = None) -> None:
        if compression_params:
            raise StateError("compression_params: gradient compression is not supported "
                             "by mxgrad; pass None")
        if not (kvstore is None or isinstance(kvstore, (str, kvs.KVStore))):
            raise _ParamsError(f"kvstore must be a str, a KVStore or None, got "
                               f"{type(kvstore).__name__}")
        if isinstance(params, (dict, ParameterDict)):
            # in sorted-name order, as MXNet 1.9: the optimizer's indices (and so the states
            # files MXNet writes) follow it
            params = [params[key] for key in sorted(params.keys())]
        if not isinstance(params, (list, tuple)):
            raise _ParamsError(f"First argument must be a list or dict of Parameters, got "
                               f"{type(params)}.")
        self._params: List[Parameter] = []
        self._param2idx: Dict[int, int] = {}
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
        self._kvstore_params: Dict[str, Any] = {"kvstore": kvstore,
                                                "update_on_kvstore": update_on_kvstore}
        self._kvstore: Any = None
        self._update_on_kvstore = False
        self._kv_initialized = False
        self._distributed = False
        self._buckets: list = []
        self._bucket_views: Optional[list] = None
        if isinstance(kvstore, kvs.KVStore) or (isinstance(kvstore, str) and
                                                kvstore.startswith(("dist", "horovod"))):
            self._init_kvstore()   # now: rank 0's initial weights reach every worker

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
        self._updaters: List[Any] = [opt.get_updater(self._optimizer)]

    def __repr__(self) -> str:
        kv = self._kvstore_params["kvstore"]
        kv_name = kv if kv is None or isinstance(kv, str) else getattr(kv, "type", kv)
        return f"Trainer({self._optimizer!r}, {len(self._params)} parameters, kvstore={kv_name!r})"

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

    # ------------------------------------------------------------ kvstore
    def _contexts(self):
        for param in self._params:
            if param._var is not None:
                return param.list_ctx()
            if param._deferred_init:
                return param.list_ctx()
        return None

    def _init_kvstore(self) -> None:
        """Create the kvstore (if one is needed) and give it the initialized weights."""
        self._kv_initialized = True
        kv = self._kvstore_params["kvstore"]
        contexts = self._contexts() or []
        if isinstance(kv, str):
            if kv.startswith(("dist", "horovod")) or len(contexts) > 1:
                kv = kvs.create(kv)
            else:
                kv = None          # one context in one process: nothing to sum
        self._kvstore = kv
        if kv is None:
            self._update_on_kvstore = False
            if len(contexts) > 1:  # no kvstore, several copies: one updater per copy
                self._updaters += [opt.get_updater(self._optimizer)
                                   for _ in contexts[1:]]
            return
        self._distributed = kv.num_workers > 1 or kv.type.startswith(("dist", "horovod"))
        update_on_kv = self._kvstore_params["update_on_kvstore"]
        if kv.type == "horovod":
            if update_on_kv:
                raise StateError("update_on_kvstore=True is not supported with the "
                                 "'horovod' kvstore; leave it unset or pass False")
            update_on_kv = False
        elif update_on_kv is None:
            update_on_kv = True
        self._update_on_kvstore = bool(update_on_kv)
        if self._update_on_kvstore:
            kv.set_optimizer(self._optimizer)
            kv._updater.states = self._updaters[0].states   # one home for the states
            kv._updater.states_synced = self._updaters[0].states_synced
            self._updaters = [kv._updater]
        else:
            kv._set_updater(None)   # pushpull must return summed gradients
        for param in self._params:
            if param._var is not None:
                self._param_initialized(param)

    def _param_initialized(self, param) -> None:
        """A parameter got its arrays: store rank 0's value in the kvstore, everywhere."""
        kv = getattr(self, "_kvstore", None)     # None also while __init__ runs
        if kv is None:
            return
        i = self._param2idx[id(param)]
        copies = param._data_list
        if kv.num_workers == 1:   # copies are equal from creation: just fill the store
            kv._set_from_root([(i, copies[:1])])
            return
        with autograd.pause():
            kv.broadcast(i, copies[0], out=copies)

    def step(self, batch_size: float, ignore_stale_grad: bool = False) -> None:
        """One update of all parameters with gradients rescaled by ``1/batch_size``.

        Call it after ``backward()`` and outside ``record()``. With a distributed
        kvstore ``batch_size`` is the global batch (all workers together).
        """
        batch_size = as_positive_real(batch_size, "Trainer.step: batch_size")
        if not self._kv_initialized:
            self._init_kvstore()
        self._check_and_rescale_grad(self._scale / batch_size)
        kv = self._kvstore
        if kv is None:
            self._update(ignore_stale_grad)
            return
        fresh = self._fresh_params(ignore_stale_grad)
        if self._update_on_kvstore:
            self._update_on_kv()
        else:
            self._allreduce_grads()
            self._update_reduced(fresh)

    def allreduce_grads(self) -> None:
        """Sum the gradients over contexts and workers, in place (each copy's gradient
        becomes the sum). Needs ``update_on_kvstore=False`` when there is a kvstore."""
        if not self._kv_initialized:
            self._init_kvstore()
        if self._update_on_kvstore:
            raise KVStoreUpdateError(
                "allreduce_grads() when parameters are updated on kvstore is not supported. "
                "Try setting `update_on_kvstore` to False when creating trainer.")
        self._allreduce_grads()

    def _reduced_params(self):
        return [(i, p) for i, p in enumerate(self._params) if p.grad_req != "null"]

    def _allreduce_grads(self):
        kv = self._kvstore
        if kv is None:
            return
        buckets = self._grad_buckets()
        if buckets is not None:
            kv._allreduce_buffers(buckets)
            for _, g, _ in self._bucket_views:
                g._write()
            return
        items = self._reduced_params()
        if items:
            grads = [p.list_grad() for _, p in items]
            kv.pushpull([i for i, _ in items], grads, out=grads)

    def _grad_buckets(self):
        """Fused gradient buffers for the distributed allreduce, or None.

        With a distributed kvstore and one context per parameter, the gradients of the
        reduced parameters become views of one flat buffer per dtype (values kept), so
        the allreduce runs in place on it: no packing, no unpacking. The views are checked
        at every step (a parameter re-initialized, cast or given a new gradient buffer
        rebuilds them)."""
        if not self._distributed:
            return None
        views = self._bucket_views
        if views is not None and len(views) == len(self._reduced_params()) and all(
                p._data_list[0].grad is g and g._data is v for p, g, v in views):
            return self._buckets
        items = [p for _, p in self._reduced_params()]
        if not items or any(len(p._data_list) != 1 or p._data_list[0].grad is None
                            for p in items):
            self._bucket_views = None
            return None
        by_dtype: dict = {}
        for p in items:
            g = p._data_list[0].grad
            by_dtype.setdefault(np.dtype(g._data.dtype), []).append((p, g))
        buckets, views = [], []
        for dt, group in by_dtype.items():
            flat = np.empty(sum(g.size for _, g in group), dt)
            off = 0
            for p, g in group:
                view = flat[off:off + g.size].reshape(g.shape)
                np.copyto(view, g._data)
                g._data = view
                views.append((p, g, view))
                off += g.size
            buckets.append(flat)
        self._buckets, self._bucket_views = buckets, views
        return buckets

    def _update_on_kv(self) -> None:
        kv = self._kvstore
        items = self._reduced_params()
        if not items:
            return
        keys = [i for i, _ in items]
        kv.push(keys, [p.list_grad() for _, p in items])
        with autograd.pause():
            kv.pull(keys, out=[p._data_list for _, p in items])
        for _, p in items:
            for a in p._data_list:
                a._fresh_grad = False

    def update(self, batch_size: float, ignore_stale_grad: bool = False) -> None:
        """Update parameters (``allreduce_grads`` + ``update`` is ``step``)."""
        batch_size = as_positive_real(batch_size, "Trainer.update: batch_size")
        if not self._kv_initialized:
            self._init_kvstore()
        if self._update_on_kvstore:
            raise KVStoreUpdateError(
                "update() when parameters are updated on kvstore is not supported. Try "
                "setting `update_on_kvstore` to False when creating trainer.")
        self._check_and_rescale_grad(self._scale / batch_size)
        if self._kvstore is None:
            self._update(ignore_stale_grad)
        else:
            self._update_reduced(self._fresh_params(ignore_stale_grad))

    def _stale_error(self, param, ctx):
        return StaleGradientError(
            f"Gradient of Parameter `{param.name}` on context {ctx} "
            f"has not been updated by backward since last `step`. This could mean "
            f"a bug in your model that made it only use a subset of the Parameters "
            f"(Blocks) for this iteration. If you are intentionally only using a "
            f"subset, call step with ignore_stale_grad=True to suppress this "
            f"warning and skip updating of Parameters with stale gradient")

    def _fresh_params(self, ignore_stale_grad):
        """Indices of the parameters whose every copy has a fresh gradient (an error
        for a stale one unless ``ignore_stale_grad``)."""
        fresh = []
        for i, param in enumerate(self._params):
            if param.grad_req == "null":
                continue
            if param._var is None:
                param.data()    # raises the not-initialized error
            ok = True
            for a, ctx in zip(param._data_list, param._ctx_list):
                if not a._fresh_grad:
                    if not ignore_stale_grad:
                        raise self._stale_error(param, ctx)
                    ok = False
            if ok:
                fresh.append(i)
        return fresh

    def _update_reduced(self, fresh) -> None:
        """Update with gradients already summed over copies and workers: the first copy
        is updated, the others receive its values."""
        updates = []
        for i in fresh:
            data = self._params[i]._var
            updates.append((i, data.grad, data))
        self._apply_updates(updates)
        with autograd.pause():
            for i in fresh:
                copies = self._params[i]._data_list
                for a in copies[1:]:
                    a._fresh_grad = False
                    a[:] = copies[0]

    def _update(self, ignore_stale_grad=False):
        updates = []
        for i, param in enumerate(self._params):
            if param.grad_req == "null":
                continue
            data = param._var
            if data is None:
                data = param.data()    # raises the not-initialized error
            fresh = data._fresh_grad
            if not fresh and not ignore_stale_grad:
                raise self._stale_error(param, param.list_ctx()[0])
            if fresh:
                if len(param._data_list) > 1:    # no kvstore: each copy on its own
                    self._update_copies(i, param, ignore_stale_grad)
                    continue
                updates.append((i, data.grad, data))
        self._apply_updates(updates)

    def _apply_updates(self, updates) -> None:
        """Run the first updater on ``(index, grad, weight)`` items; each gradient stops
        being fresh once used."""
        updater = self._updaters[0]
        if type(updater) is opt.Updater:
            updater._update_params(_consumed(updates))
        else:
            for i, grad, data in _consumed(updates):
                updater(i, grad, data)

    def _update_copies(self, i, param, ignore_stale_grad):
        for d, (a, ctx) in enumerate(zip(param._data_list, param._ctx_list)):
            if not a._fresh_grad:
                if not ignore_stale_grad:
                    raise self._stale_error(param, ctx)
                continue
            while len(self._updaters) <= d:
                self._updaters.append(opt.get_updater(self._optimizer))
            self._updaters[d](i, a.grad, a)
            a._fresh_grad = False

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

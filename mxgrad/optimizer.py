"""Optimizers (``mx.optimizer``) with MXNet 1.x's update formulas.

``opt.update(index, weight, grad, state)`` updates the NDArray ``weight`` in place
(its version is bumped, so a graph recorded before the update notices it). States come
from ``opt.create_state(index, weight)``. Gradients are first multiplied by
``rescale_grad`` (``gluon.Trainer`` sets it to ``1/batch_size``) and clipped to
``[-clip_gradient, clip_gradient]`` when ``clip_gradient`` is set. Learning rate and
weight decay are multiplied per parameter by ``lr_mult``/``wd_mult`` (from the Gluon
parameters in ``param_dict``, or set with ``set_lr_mult``/``set_wd_mult``).

The arithmetic runs on the NumPy buffers directly: an update is not an op to record.

Examples
--------
>>> import mxgrad as mx
>>> opt = mx.optimizer.create('sgd', learning_rate=0.1, momentum=0.9)
>>> w = mx.nd.array([1.0, 2.0]); g = mx.nd.array([0.5, -1.0])
>>> state = opt.create_state(0, w)
>>> opt.update(0, w, g, state); w
<BLANKLINE>
[0.95 2.1 ]
<NDArray 2 @cpu(0)>
>>> opt.update(0, w, g, state); w      # mom = 0.9*mom - 0.1*g
<BLANKLINE>
[0.855 2.29 ]
<NDArray 2 @cpu(0)>
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, Optional, cast

import math
import numbers
import warnings

import numpy as np

from .base import DTypeError, MXNetError, ShapeError, StateError
from .util import is_np_array
from ._optimizer_registry import OPTIMIZERS as _OPTIMIZERS
from ._warn import warn as _warn
from ._engine.ndarray import NDArray, wrap
from .ops._apply import records
from .ops import optimizer_update as _k   # the update arithmetic, shared with nd.*_update

if TYPE_CHECKING:
    from .lr_scheduler import LRScheduler

__all__ = ["Optimizer", "register", "create", "get_updater", "Updater", "SGD", "NAG",
           "Adam", "AdamW", "RMSProp", "AdaGrad", "AdaDelta", "Adamax", "Nadam", "Signum",
           "Ftrl", "SGLD", "DCASGD", "Test", "FTML", "LAMB"]


class _UnknownArgumentError(MXNetError, TypeError):
    """An optimizer was given a keyword argument it does not take (a typo, usually)."""


def _zeros_like(weight: NDArray, dtype=None) -> NDArray:
    return wrap(np.zeros(weight.shape, dtype=weight._data.dtype if dtype is None else dtype))


def _buf(a) -> np.ndarray:
    if isinstance(a, NDArray):
        return a._data
    raise DTypeError(f"optimizers update NDArrays, got {type(a).__name__}")


# optimizer classes using the base class's lr/wd/count lookups (inlined on the hot path)
_PLAIN: dict = {}


class Optimizer:
    """Base class of optimizers.

    Parameters
    ----------
    rescale_grad : float, default 1.0
        Multiplies the gradient before the update (``1/batch_size`` from the Trainer).
    param_idx2name : dict of int to str, optional
        Parameter names by index (used for ``lr_mult``/``wd_mult`` given by name).
    wd : float, default 0.0
        Weight decay (L2 penalty) coefficient.
    clip_gradient : float, optional
        Clip the rescaled gradient to ``[-clip_gradient, clip_gradient]``.
    learning_rate : float, optional
        Defaults to 0.01, or to the scheduler's ``base_lr`` when ``lr_scheduler`` is
        given (a given ``learning_rate`` overrides the scheduler's ``base_lr``).
    lr_scheduler : LRScheduler, optional
        Called with ``num_update`` to give the learning rate.
    begin_num_update : int, default 0
    multi_precision : bool, default False
        For float16 weights, keep a float32 master copy in the state and update that
        (MXNet's mixed-precision training); other dtypes update in their own dtype.
    param_dict : dict of int to gluon.Parameter, optional
        Set by ``gluon.Trainer``; supplies each parameter's ``lr_mult``/``wd_mult``.
    """

    opt_registry: dict = _OPTIMIZERS    # one dict, read by the states files too

    def __init_subclass__(cls, **kwargs):
        # every optimizer checks its hyper-parameters by name at construction (issue 11)
        super().__init_subclass__(**kwargs)
        init = cls.__dict__.get("__init__")
        if init is not None and not getattr(init, "__mxgrad_checked__", False):
            from ._check import checked_init, _OPTIMIZER_RULES
            cls.__init__ = checked_init(init, cls.__name__, _OPTIMIZER_RULES)

    def __init__(self, rescale_grad: float = 1.0, param_idx2name: Optional[Dict[int, str]] = None,
                 wd: float = 0.0, clip_gradient: Optional[float] = None,
                 learning_rate: Optional[float] = None, lr_scheduler: Optional[LRScheduler] = None,
                 sym: Any = None, begin_num_update: int = 0, multi_precision: bool = False,
                 param_dict: Optional[dict] = None, aggregate_num: Optional[int] = None,
                 use_fused_step: Optional[bool] = None, **kwargs: Any) -> None:
        if kwargs:
            name = next(iter(kwargs))
            raise _UnknownArgumentError(
                f"{type(self).__name__}.__init__() got an unexpected keyword argument {name!r}; "
                f"check the spelling (e.g. 'learning_rate', 'wd', 'momentum', "
                f"'rescale_grad', 'clip_gradient')")
        for arg, value in (("learning_rate", learning_rate), ("wd", wd),
                           ("rescale_grad", rescale_grad), ("clip_gradient", clip_gradient)):
            if value is not None and (isinstance(value, bool)
                                      or not isinstance(value, numbers.Real)):
                raise DTypeError(f"{type(self).__name__}: {arg} must be a real number, got "
                                 f"{value!r} ({type(value).__name__})")
        self.rescale_grad = rescale_grad
        self.lr_scheduler = lr_scheduler
        # MXNet 1.9.1's flag: the optimizer was made in NumPy mode (kept for programs that
        # read it; updates work on either face)
        self.allow_np_array = is_np_array()
        if lr_scheduler is None and learning_rate is None:
            learning_rate = 0.01
        self.lr = learning_rate
        if lr_scheduler is not None and learning_rate is not None:
            if lr_scheduler.base_lr != learning_rate:
                _warn("learning rate from ``lr_scheduler`` has been overwritten by "
                      "``learning_rate`` in optimizer.")
            lr_scheduler.base_lr = learning_rate
            if hasattr(lr_scheduler, "base_lr_orig"):
                lr_scheduler.base_lr_orig = learning_rate
            if hasattr(lr_scheduler, "warmup_final_lr"):
                lr_scheduler.warmup_final_lr = learning_rate
        self.wd = wd
        self.lr_mult: dict = {}
        self.wd_mult: dict = {}
        self.begin_num_update = begin_num_update
        self.num_update = begin_num_update
        self._all_index_update_counts: Dict[int, Dict[Any, int]] = {0: {}}
        self._index_update_count = self._all_index_update_counts[0]
        self.clip_gradient = clip_gradient
        self.multi_precision = multi_precision
        self.aggregate_num = 0 if aggregate_num is None else aggregate_num
        if param_idx2name is None:
            param_idx2name = {}
        if not isinstance(param_idx2name, dict):
            raise StateError("param_idx2name should be a dict of param indexes to names.")
        self.idx2name = param_idx2name.copy()
        # a Symbol's per-argument multipliers (var(..., lr_mult=, wd_mult=)), as MXNet reads
        self.sym_info = (sym.attr_dict(), sym.list_arguments()) if sym is not None else ()
        self.param_dict = param_dict if param_dict else {}
        self.set_lr_mult({})
        self.set_wd_mult({})

    # --------------------------------------------------------------- registry
    @staticmethod
    def register(klass):
        """Register an optimizer class under its lower-cased name."""
        if not isinstance(klass, type):
            raise DTypeError("register takes an Optimizer subclass")
        name = klass.__name__.lower()
        if name in Optimizer.opt_registry and Optimizer.opt_registry[name] is not klass:
            warnings.warn(f"WARNING: New optimizer {klass.__module__}.{klass.__name__} is "
                          f"overriding existing optimizer "
                          f"{Optimizer.opt_registry[name].__module__}."
                          f"{Optimizer.opt_registry[name].__name__}", stacklevel=2)
        Optimizer.opt_registry[name] = klass
        return klass

    @staticmethod
    def create_optimizer(name: str, **kwargs: Any) -> "Optimizer":
        """Create a registered optimizer by (case-insensitive) name.

        Examples
        --------
        >>> type(Optimizer.create_optimizer('adam')).__name__
        'Adam'
        """
        if isinstance(name, Optimizer):
            return name
        key = str(name).lower()
        if key in Optimizer.opt_registry:
            return Optimizer.opt_registry[key](**kwargs)
        raise StateError(f"Cannot find optimizer {name!r}; known optimizers: "
                         f"{', '.join(sorted(Optimizer.opt_registry))}")

    # ------------------------------------------------------------- lr and wd
    @property
    def learning_rate(self) -> float:
        """The current learning rate (from the scheduler when there is one)."""
        if self.lr_scheduler is not None:
            return self.lr_scheduler(self.num_update)
        return cast(float, self.lr)

    def set_learning_rate(self, lr: float) -> None:
        """Set the learning rate (an error when a scheduler controls it)."""
        if self.lr_scheduler is not None:
            raise UserWarning("LRScheduler of the optimizer has already been defined. Note "
                              "that set_learning_rate can mutate the value of the learning "
                              "rate of the optimizer only when the LRScheduler of the "
                              "optimizer is undefined.")
        self.lr = lr

    def set_lr_mult(self, args_lr_mult: dict) -> None:
        """Per-parameter learning-rate multipliers, keyed by index or name (with ``sym``
        given at construction, its arguments' ``__lr_mult__`` attributes first)."""
        self.lr_mult = self._sym_mults("__lr_mult__")
        self.lr_mult.update(args_lr_mult)

    def _sym_mults(self, key: str) -> dict:
        """``{argument name: multiplier}`` from the Symbol's ``key`` attributes."""
        if not self.sym_info:
            return {}
        attr, arg_names = self.sym_info
        return {name: float(attr[name][key]) for name in arg_names
                if name in attr and key in attr[name]}

    def set_wd_mult(self, args_wd_mult: dict) -> None:
        """Per-parameter weight-decay multipliers, keyed by index or name.

        Names in ``param_idx2name`` not ending in ``_weight`` or ``_gamma`` get 0."""
        self.wd_mult = {}
        for n in self.idx2name.values():
            if not (n.endswith("_weight") or n.endswith("_gamma")):
                self.wd_mult[n] = 0.0
        self.wd_mult.update(self._sym_mults("__wd_mult__"))
        self.wd_mult.update(args_wd_mult)

    def _set_current_context(self, device_id):
        if device_id not in self._all_index_update_counts:
            self._all_index_update_counts[device_id] = {}
        self._index_update_count = self._all_index_update_counts[device_id]

    def _update_count(self, index):
        if not isinstance(index, (list, tuple)):
            counts = self._index_update_count
            c = counts.get(index)
            c = (self.begin_num_update if c is None else c) + 1
            counts[index] = c
            if c > self.num_update:
                self.num_update = c
            return
        for idx in index:
            if idx not in self._index_update_count:
                self._index_update_count[idx] = self.begin_num_update
            self._index_update_count[idx] += 1
            self.num_update = max(self._index_update_count[idx], self.num_update)

    def _get_lrs(self, indices):
        lr = self.lr_scheduler(self.num_update) if self.lr_scheduler is not None else self.lr
        lrs = [lr for _ in indices]
        for i, index in enumerate(indices):
            if index in self.param_dict:
                lrs[i] *= self.param_dict[index].lr_mult
            elif index in self.lr_mult:
                lrs[i] *= self.lr_mult[index]
            elif index in self.idx2name:
                lrs[i] *= self.lr_mult.get(self.idx2name[index], 1.0)
        return lrs

    def _get_lr(self, index) -> float:
        if type(self)._get_lrs is not Optimizer._get_lrs:   # a subclass's own rule
            return self._get_lrs([index])[0]
        lr = self.lr_scheduler(self.num_update) if self.lr_scheduler is not None else self.lr
        return lr * self._mult(index, self.lr_mult, "lr_mult")

    def _mult(self, index, mults, attr):
        """The lr/wd multiplier of one parameter (as ``_get_lrs``/``_get_wds``)."""
        if index in self.param_dict:
            return getattr(self.param_dict[index], attr)
        if index in mults:
            return mults[index]
        if index in self.idx2name:
            return mults.get(self.idx2name[index], 1.0)
        return 1.0

    def _get_wds(self, indices):
        wds = [self.wd for _ in indices]
        for i, index in enumerate(indices):
            if index in self.param_dict:
                wds[i] *= self.param_dict[index].wd_mult
            elif index in self.wd_mult:
                wds[i] *= self.wd_mult[index]
            elif index in self.idx2name:
                wds[i] *= self.wd_mult.get(self.idx2name[index], 1.0)
        return wds

    def _get_wd(self, index) -> float:
        if type(self)._get_wds is not Optimizer._get_wds:
            return self._get_wds([index])[0]
        return self.wd * self._mult(index, self.wd_mult, "wd_mult")

    # ------------------------------------------------------------------ update
    def create_state(self, index: int, weight: NDArray) -> Any:
        """The auxiliary state of ``weight`` (momentum, moments...), or None."""
        return None

    # multi-precision state layout: (master, state) as MXNet's base class; SGD and NAG keep
    # MXNet's (state, master)
    _master_first = True

    def _multi_precision_for(self, weight) -> bool:
        return bool(self.multi_precision) and weight.dtype == np.float16

    def create_state_multi_precision(self, index: int, weight: NDArray) -> Any:
        """The state of ``weight``; for a float16 weight with ``multi_precision=True`` also a
        float32 master copy the updates run on (as MXNet 1.9: ``(master, state)``, for SGD and
        NAG ``(state, master)``)."""
        if self._multi_precision_for(weight):
            master = wrap(weight._data.astype(np.float32))
            inner = self.create_state(index, master)
            return (master, inner) if self._master_first else (inner, master)
        if weight.dtype == np.float16:
            warnings.warn("Accumulating with float16 in optimizer can lead to poor accuracy or "
                          "slow convergence. Consider using multi_precision=True option of the "
                          f"{type(self).__name__} optimizer", stacklevel=2)
        return self.create_state(index, weight)

    def update(self, index: int, weight: NDArray, grad: NDArray, state: Any) -> None:
        """Update ``weight`` (NDArray, in place) from ``grad`` and ``state``."""
        raise NotImplementedError()

    def update_multi_precision(self, index: int, weight: NDArray, grad: NDArray, state: Any
                               ) -> None:
        """:meth:`update`; for a float16 weight with ``multi_precision=True`` the update runs
        on the float32 master copy in ``state``, then the weight is set to it (rounded)."""
        if isinstance(index, (list, tuple)):
            for i, w, g, s in zip(index, weight, grad, state):
                self.update_multi_precision(i, w, g, s)
            return
        if not self._multi_precision_for(weight):
            self.update(index, weight, grad, state)
            return
        master, inner = state if self._master_first else (state[1], state[0])
        self.update(index, master, wrap(_buf(grad).astype(np.float32)), inner)
        weight._data[...] = master._data
        weight._write()

    def _prepare(self, index, weight, grad):
        """Count the update; return (lr, wd, w, g) with g = rescaled gradient (a copy)."""
        lr, wd, w, g = self._prepare_raw(index, weight, grad)
        g = g * np.asarray(self.rescale_grad, dtype=w.dtype) if g.dtype == w.dtype else \
            (g * self.rescale_grad).astype(w.dtype)
        return lr, wd, w, g

    def _prepare_raw(self, index, weight, grad):
        """Check and count the update; return (lr, wd, w, g) with g the gradient's own
        buffer (not to be modified)."""
        w = weight._data if isinstance(weight, NDArray) else _buf(weight)
        g = grad._data if isinstance(grad, NDArray) else _buf(grad)
        if w.shape != g.shape:
            raise ShapeError(f"{type(self).__name__}.update: gradient of shape {g.shape} does "
                             f"not match weight {index!r} of shape {w.shape}")
        if records(weight):
            weight._check_writable()
        cls = type(self)
        plain = _PLAIN.get(cls)
        if plain is None:
            plain = _PLAIN[cls] = all(getattr(cls, n) is getattr(Optimizer, n) for n in (
                "_update_count", "_get_lr", "_get_lrs", "_get_wd", "_get_wds", "_mult"))
        if not plain or isinstance(index, (list, tuple)):
            self._update_count(index)
            return self._get_lr(index), self._get_wd(index), w, g
        # _update_count, _get_lr and _get_wd of one index, inlined (per-step hot path)
        counts = self._index_update_count
        c = counts.get(index)
        c = (self.begin_num_update if c is None else c) + 1
        counts[index] = c
        if c > self.num_update:
            self.num_update = c
        sched = self.lr_scheduler
        lr = self.lr if sched is None else sched(self.num_update)
        p = self.param_dict.get(index)
        if p is not None:
            return lr * p.lr_mult, self.wd * p.wd_mult, w, g
        return (lr * self._mult(index, self.lr_mult, "lr_mult"),
                self.wd * self._mult(index, self.wd_mult, "wd_mult"), w, g)

    def _clip(self, g):
        c = self.clip_gradient
        if c is not None and c > 0:
            np.clip(g, -c, c, out=g)
        return g

    def __getstate__(self):
        ret = self.__dict__.copy()
        ret.pop("param_dict", None)   # the Trainer sets it again
        return ret

    def __setstate__(self, state):
        self.__dict__ = state
        self.param_dict = {}

    def __repr__(self) -> str:
        return f"{type(self).__name__}(learning_rate={self.learning_rate}, wd={self.wd})"


register = Optimizer.register
create = Optimizer.create_optimizer


from ._check import checked_init as _checked_init, _OPTIMIZER_RULES  # noqa: E402
setattr(Optimizer, "__init__", _checked_init(Optimizer.__init__, "Optimizer", _OPTIMIZER_RULES))


@register
class SGD(Optimizer):
    """Stochastic gradient descent with optional momentum (MXNet's formula)::

        g = clip(rescale_grad * grad, clip_gradient)
        without momentum:  weight -= lr * (g + wd * weight)
        with momentum:     mom = momentum * mom - lr * (g + wd * weight); weight += mom

    Examples
    --------
    >>> import mxgrad as mx
    >>> w = mx.nd.array([1.0]); opt = SGD(learning_rate=0.5, wd=0.1)
    >>> opt.update(0, w, mx.nd.array([2.0]), None); round(float(w.asscalar()), 6)
    -0.05
    """

    _master_first = False

    def __init__(self, momentum: float = 0.0, lazy_update: bool = True, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.momentum = momentum
        self.lazy_update = lazy_update

    def create_state(self, index: int, weight: NDArray) -> Any:
        if self.momentum != 0.0:
            return _zeros_like(weight)
        return None

    def update(self, index: int, weight: NDArray, grad: NDArray, state: Any) -> None:
        lr, wd, w, g = self._prepare_raw(index, weight, grad)
        c = self.clip_gradient
        if (c is not None and c > 0) or g.dtype != w.dtype:
            g = g * np.asarray(self.rescale_grad, dtype=w.dtype) if g.dtype == w.dtype else \
                (g * self.rescale_grad).astype(w.dtype)
            self._clip(g)
            if wd:
                g += wd * w
            g *= lr
        else:
            # lr * (rescale * g + wd * w) with the scalars folded: one temporary, and
            # the update reads the gradient buffer once
            g = g * (lr * self.rescale_grad)
            if wd:
                g += w * (lr * wd)
        if state is None:
            _k.sgd_step(w, g, None, 0.0)
        else:
            _k.sgd_step(w, g, state._data if isinstance(state, NDArray) else _buf(state),
                        self.momentum)
            state._write()
        weight._write()


@register
class NAG(Optimizer):
    """Nesterov accelerated SGD, as MXNet 1.9 (its momentum state holds ``-lr`` steps)::

        g = clip(rescale_grad * grad, clip_gradient) + wd * weight
        mom = momentum * mom - lr * g
        weight += momentum * mom - lr * g

    Without momentum it is plain SGD.

    Examples
    --------
    >>> import mxgrad as mx
    >>> w = mx.nd.array([1.0]); opt = NAG(momentum=0.5, learning_rate=0.1)
    >>> s = opt.create_state(0, w); opt.update(0, w, mx.nd.array([1.0]), s)
    >>> round(float(w.asscalar()), 6)       # 1 + 0.5 * (-0.1) - 0.1
    0.85
    """

    _master_first = False

    def __init__(self, momentum: float = 0.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.momentum = momentum

    def create_state(self, index: int, weight: NDArray) -> Any:
        if self.momentum != 0.0:
            return _zeros_like(weight)
        return None

    def update(self, index: int, weight: NDArray, grad: NDArray, state: Any) -> None:
        lr, wd, w, g = self._prepare(index, weight, grad)
        self._clip(g)
        if wd:
            g += wd * w
        _k.nag_step(w, g, None if state is None else _buf(state), lr, self.momentum)
        if state is not None:
            state._write()
        weight._write()


@register
class Adam(Optimizer):
    """Adam, with MXNet's bias correction folded into the learning rate::

        g = clip(rescale_grad * grad + wd * weight, clip_gradient)
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g**2
        lr_t = lr * sqrt(1 - beta2**t) / (1 - beta1**t)
        weight -= lr_t * m / (sqrt(v) + epsilon)

    Examples
    --------
    >>> import mxgrad as mx
    >>> w = mx.nd.array([1.0]); opt = Adam(learning_rate=0.1)
    >>> s = opt.create_state(0, w); opt.update(0, w, mx.nd.array([3.0]), s)
    >>> round(float(w.asscalar()), 5)    # the first Adam step moves by ~lr
    0.9
    """

    def __init__(self, learning_rate: float = 0.001, beta1: float = 0.9, beta2: float = 0.999,
                 epsilon: float = 1e-8, lazy_update: bool = True, **kwargs: Any) -> None:
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon
        self.lazy_update = lazy_update

    def create_state(self, index: int, weight: NDArray) -> Any:
        return (_zeros_like(weight), _zeros_like(weight))

    def update(self, index: int, weight: NDArray, grad: NDArray, state: Any) -> None:
        lr, wd, w, g = self._prepare(index, weight, grad)
        t = self._index_update_count[index]
        lr *= math.sqrt(1.0 - self.beta2 ** t) / (1.0 - self.beta1 ** t)
        if wd:
            g += wd * w
        self._clip(g)
        _k.adam_step(w, g, _buf(state[0]), _buf(state[1]), lr, self.beta1, self.beta2,
                     self.epsilon)
        state[0]._write()
        state[1]._write()
        weight._write()


@register
class AdamW(Optimizer):
    """Adam with decoupled weight decay (as MXNet 2's ``AdamW``)::

        g = clip(rescale_grad * grad, clip_gradient)
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g**2
        lr_t = lr * sqrt(1 - beta2**t) / (1 - beta1**t)   (lr_t = lr if not correct_bias)
        weight -= lr_t * (m / (sqrt(v) + epsilon) + wd * weight)

    Examples
    --------
    >>> import mxgrad as mx
    >>> w = mx.nd.array([1.0]); opt = AdamW(learning_rate=0.1, wd=0.5)
    >>> s = opt.create_state(0, w); opt.update(0, w, mx.nd.array([0.0]), s)
    >>> round(float(w.asscalar()), 6)   # only the decay acts: 1 - lr_1 * 0.5 * 1
    0.984189
    """

    def __init__(self, learning_rate: float = 0.001, beta1: float = 0.9, beta2: float = 0.999,
                 epsilon: float = 1e-6, correct_bias: bool = True, **kwargs: Any) -> None:
        kwargs.pop("use_fused_step", None)
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon
        self.correct_bias = correct_bias

    def create_state(self, index: int, weight: NDArray) -> Any:
        return (_zeros_like(weight), _zeros_like(weight))

    def update(self, index: int, weight: NDArray, grad: NDArray, state: Any) -> None:
        lr, wd, w, g = self._prepare(index, weight, grad)
        t = self._index_update_count[index]
        if self.correct_bias:
            lr *= math.sqrt(1.0 - self.beta2 ** t) / (1.0 - self.beta1 ** t)
        self._clip(g)
        m, v = _buf(state[0]), _buf(state[1])
        _k.adam_moments(g, m, v, self.beta1, self.beta2)
        w -= lr * (m / (np.sqrt(v) + self.epsilon) + wd * w)
        state[0]._write()
        state[1]._write()
        weight._write()


@register
class RMSProp(Optimizer):
    """RMSProp (Tieleman & Hinton), or Graves' centered version with ``centered=True``::

        g = clip(rescale_grad * grad + wd * weight, clip_gradient)
        n = (1 - gamma1) * g**2 + gamma1 * n
        not centered: weight -= lr * g / sqrt(n + epsilon)
        centered:     m = (1 - gamma1) * g + gamma1 * m
                      delta = gamma2 * delta - lr * g / sqrt(n - m**2 + epsilon)
                      weight += delta
        then weight is clipped to [-clip_weights, clip_weights] if given.

    Examples
    --------
    >>> import mxgrad as mx
    >>> w = mx.nd.array([1.0]); opt = RMSProp(learning_rate=0.1, gamma1=0.0)
    >>> s = opt.create_state(0, w); opt.update(0, w, mx.nd.array([2.0]), s)
    >>> round(float(w.asscalar()), 5)    # 1 - 0.1 * 2 / sqrt(4)
    0.9
    """

    def __init__(self, learning_rate: float = 0.001, gamma1: float = 0.9, gamma2: float = 0.9,
                 epsilon: float = 1e-8, centered: bool = False,
                 clip_weights: Optional[float] = None, **kwargs: Any) -> None:
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.gamma1 = gamma1
        self.gamma2 = gamma2
        self.centered = centered
        self.epsilon = epsilon
        self.clip_weights = clip_weights

    def create_state(self, index: int, weight: NDArray) -> Any:
        if self.centered:
            return (_zeros_like(weight), _zeros_like(weight), _zeros_like(weight))
        return (_zeros_like(weight),)

    def update(self, index: int, weight: NDArray, grad: NDArray, state: Any) -> None:
        lr, wd, w, g = self._prepare(index, weight, grad)
        if wd:
            g += wd * w
        self._clip(g)
        if not self.centered:
            _k.rmsprop_step(w, g, _buf(state[0]), lr, self.gamma1, self.epsilon,
                            self.clip_weights)
        else:
            _k.rmspropalex_step(w, g, _buf(state[0]), _buf(state[1]), _buf(state[2]), lr,
                                self.gamma1, self.gamma2, self.epsilon, self.clip_weights)
        for s in state:
            s._write()
        weight._write()


@register
class AdaGrad(Optimizer):
    """AdaGrad::

        g = clip(rescale_grad * grad, clip_gradient)
        history += g**2
        weight -= lr * (g / sqrt(history + eps) + wd * weight)

    Examples
    --------
    >>> import mxgrad as mx
    >>> w = mx.nd.array([1.0]); opt = AdaGrad(learning_rate=0.1)
    >>> s = opt.create_state(0, w); opt.update(0, w, mx.nd.array([2.0]), s)
    >>> round(float(w.asscalar()), 5)
    0.9
    """

    def __init__(self, eps: float = 1e-7, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.float_stable_eps = eps

    def create_state(self, index: int, weight: NDArray) -> Any:
        return _zeros_like(weight)

    def update(self, index: int, weight: NDArray, grad: NDArray, state: Any) -> None:
        lr, wd, w, g = self._prepare(index, weight, grad)
        self._clip(g)
        h = _buf(state)
        h += np.square(g)
        w -= lr * (g / np.sqrt(h + self.float_stable_eps) + wd * w)
        state._write()
        weight._write()


@register
class AdaDelta(Optimizer):
    """AdaDelta (no learning rate)::

        g = clip(rescale_grad * grad, clip_gradient)
        acc_g = rho * acc_g + (1 - rho) * g**2
        delta = sqrt(acc_delta + epsilon) / sqrt(acc_g + epsilon) * g
        acc_delta = rho * acc_delta + (1 - rho) * delta**2
        weight -= delta + wd * weight

    Examples
    --------
    >>> import mxgrad as mx
    >>> w = mx.nd.array([1.0]); opt = AdaDelta(rho=0.9, epsilon=1e-2)
    >>> s = opt.create_state(0, w); opt.update(0, w, mx.nd.array([1.0]), s)
    >>> round(float(w.asscalar()), 4)    # 1 - sqrt(0.01) / sqrt(0.1 + 0.01)
    0.6985
    """

    def __init__(self, rho: float = 0.90, epsilon: float = 1e-5, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.rho = rho
        self.epsilon = epsilon

    def create_state(self, index: int, weight: NDArray) -> Any:
        return (_zeros_like(weight), _zeros_like(weight))

    def update(self, index: int, weight: NDArray, grad: NDArray, state: Any) -> None:
        _, wd, w, g = self._prepare(index, weight, grad)
        self._clip(g)
        acc_g, acc_delta = _buf(state[0]), _buf(state[1])
        acc_g *= self.rho
        acc_g += (1.0 - self.rho) * np.square(g)
        delta = np.sqrt(acc_delta + self.epsilon) / np.sqrt(acc_g + self.epsilon) * g
        acc_delta *= self.rho
        acc_delta += (1.0 - self.rho) * np.square(delta)
        w -= delta + wd * w
        state[0]._write()
        state[1]._write()
        weight._write()


@register
class Adamax(Optimizer):
    """AdaMax (Adam with the infinity norm)::

        g = clip(rescale_grad * grad + wd * weight, clip_gradient)
        m = beta1 * m + (1 - beta1) * g
        u = maximum(beta2 * u, |g|)
        weight -= lr / (1 - beta1**t) * m / u

    Examples
    --------
    >>> import mxgrad as mx
    >>> w = mx.nd.array([1.0]); opt = Adamax(learning_rate=0.1)
    >>> state = opt.create_state(0, w)
    >>> opt.update(0, w, mx.nd.array([2.0]), state); round(float(w.asscalar()), 6)
    0.9
    """

    def __init__(self, learning_rate: float = 0.002, beta1: float = 0.9, beta2: float = 0.999,
                 **kwargs: Any) -> None:
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = beta1
        self.beta2 = beta2

    def create_state(self, index: int, weight: NDArray) -> Any:
        return (_zeros_like(weight), _zeros_like(weight))

    def update(self, index: int, weight: NDArray, grad: NDArray, state: Any) -> None:
        lr, wd, w, g = self._prepare(index, weight, grad)
        t = self._index_update_count[index]
        lr /= (1.0 - self.beta1 ** t)
        if wd:
            g += wd * w
        self._clip(g)
        m, u = _buf(state[0]), _buf(state[1])
        m *= self.beta1
        m += (1.0 - self.beta1) * g
        np.maximum(self.beta2 * u, np.abs(g), out=u)
        w -= lr * m / u
        state[0]._write()
        state[1]._write()
        weight._write()


@register
class Nadam(Optimizer):
    """Nesterov Adam (Dozat), with MXNet's momentum schedule ``schedule_decay``."""

    def __init__(self, learning_rate: float = 0.001, beta1: float = 0.9, beta2: float = 0.999,
                 epsilon: float = 1e-8, schedule_decay: float = 0.004, **kwargs: Any) -> None:
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon
        self.schedule_decay = schedule_decay
        self.m_schedule = 1.0

    def create_state(self, index: int, weight: NDArray) -> Any:
        return (_zeros_like(weight), _zeros_like(weight))

    def update(self, index: int, weight: NDArray, grad: NDArray, state: Any) -> None:
        lr, wd, w, g = self._prepare(index, weight, grad)
        t = self._index_update_count[index]
        if wd:
            g += wd * w
        self._clip(g)
        momentum_t = self.beta1 * (1.0 - 0.5 * (pow(0.96, t * self.schedule_decay)))
        momentum_t_1 = self.beta1 * (1.0 - 0.5 * (pow(0.96, (t + 1) * self.schedule_decay)))
        self.m_schedule = self.m_schedule * momentum_t
        m_schedule_next = self.m_schedule * momentum_t_1
        m, v = _buf(state[0]), _buf(state[1])
        m *= self.beta1
        m += (1.0 - self.beta1) * g
        v *= self.beta2
        v += (1.0 - self.beta2) * np.square(g)
        grad_prime = g / (1.0 - self.m_schedule)
        m_t_prime = m / (1.0 - m_schedule_next)
        v_t_prime = v / (1.0 - pow(self.beta2, t))
        m_t_bar = (1.0 - momentum_t) * grad_prime + momentum_t_1 * m_t_prime
        w -= lr * m_t_bar / (np.sqrt(v_t_prime) + self.epsilon)
        state[0]._write()
        state[1]._write()
        weight._write()


@register
class Signum(Optimizer):
    """signSGD / Signum, as MXNet 1.9 (its momentum state has MXNet's sign)::

        g = clip(rescale_grad * grad, clip_gradient) + wd * weight
        without momentum: weight = (1 - lr * (wd + wd_lh)) * weight - lr * sign(grad)
        with momentum:    mom = momentum * mom - (1 - momentum) * g
                          weight = (1 - lr * wd_lh) * weight + lr * sign(mom)

    Examples
    --------
    >>> opt = Signum(learning_rate=0.1, momentum=0.9)
    >>> w = mx.nd.array([1.0, -1.0]); st = opt.create_state(0, w)
    >>> opt.update(0, w, mx.nd.array([0.5, -2.0]), st); w.asnumpy(), st.asnumpy()
    (array([ 0.9, -0.9], dtype=float32), array([-0.05,  0.2 ], dtype=float32))
    """

    def __init__(self, learning_rate: float = 0.01, momentum: float = 0.9, wd_lh: float = 0.0,
                 **kwargs: Any) -> None:
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.momentum = momentum
        self.wd_lh = wd_lh

    def create_state(self, index: int, weight: NDArray) -> Any:
        if self.momentum != 0.0:
            return _zeros_like(weight)
        return None

    def update(self, index: int, weight: NDArray, grad: NDArray, state: Any) -> None:
        lr, wd, w, g = self._prepare(index, weight, grad)
        if state is None:
            _k.signsgd_step(w, g, lr, wd + self.wd_lh)
        else:
            self._clip(g)
            _k.signum_step(w, g, _buf(state), lr, self.momentum, wd, self.wd_lh)
            state._write()
        weight._write()


@register
class FTML(Optimizer):
    """FTML, Follow the Moving Leader (Zheng & Kwok, 2017), as MXNet 1.9::

        g = clip(rescale_grad * grad + wd * weight, clip_gradient)
        v = beta2 * v + (1 - beta2) * g**2
        d_t = (1 - beta1**t) / lr * (sqrt(v / (1 - beta2**t)) + epsilon)
        z = beta1 * z + (1 - beta1) * g - (d_t - beta1 * d_{t-1}) * weight
        weight = -z / d_t

    State: ``(d, v, z)``.

    Examples
    --------
    >>> opt = FTML(learning_rate=0.1)
    >>> w = mx.nd.array([1.0]); st = opt.create_state(0, w)
    >>> opt.update(0, w, mx.nd.array([0.5]), st); round(float(w.asscalar()), 4)
    0.9
    """

    def __init__(self, beta1: float = 0.6, beta2: float = 0.999, epsilon: float = 1e-8,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon

    def create_state(self, index: int, weight: NDArray) -> Any:
        return (_zeros_like(weight), _zeros_like(weight), _zeros_like(weight))

    def update(self, index: int, weight: NDArray, grad: NDArray, state: Any) -> None:
        lr, wd, w, g = self._prepare(index, weight, grad)
        t = self._index_update_count[index]
        g += wd * w
        self._clip(g)
        _k.ftml_step(w, g, _buf(state[0]), _buf(state[1]), _buf(state[2]), lr, t, self.beta1,
                     self.beta2, self.epsilon)
        state[0]._write()
        state[1]._write()
        state[2]._write()
        weight._write()


@register
class LAMB(Optimizer):
    """LAMB, layer-wise adaptive moments (You et al., 2019), as MXNet 1.9::

        g = clip(rescale_grad * grad, clip_gradient)
        mean = beta1 * mean + (1 - beta1) * g;  var = beta2 * var + (1 - beta2) * g**2
        (bias_correction) mean_hat = mean / (1 - beta1**t);  var_hat = var / (1 - beta2**t)
        r = mean_hat / (sqrt(var_hat) + epsilon) + wd * weight
        r1 = clip(norm(weight), lower_bound, upper_bound);  r2 = norm(r)
        weight -= lr * (r1 / r2 if r1 > 0 and r2 > 0 else 1) * r

    State: ``(mean, var)``.

    Examples
    --------
    >>> opt = LAMB(learning_rate=0.1)
    >>> w = mx.nd.array([3.0, 4.0]); st = opt.create_state(0, w)
    >>> opt.update(0, w, mx.nd.array([1.0, 1.0]), st); w.asnumpy().round(4)
    array([2.6464, 3.6464], dtype=float32)
    """

    def __init__(self, learning_rate: float = 0.001, beta1: float = 0.9, beta2: float = 0.999,
                 epsilon: float = 1e-6, lower_bound: Optional[float] = None,
                 upper_bound: Optional[float] = None, bias_correction: bool = True, **kwargs: Any
                 ) -> None:
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound
        self.bias_correction = bias_correction

    def create_state(self, index: int, weight: NDArray) -> Any:
        return (_zeros_like(weight), _zeros_like(weight))

    def update(self, index: int, weight: NDArray, grad: NDArray, state: Any) -> None:
        lr, wd, w, g = self._prepare(index, weight, grad)
        t = self._index_update_count[index]
        self._clip(g)
        r = _k.lamb_direction(w, g, _buf(state[0]), _buf(state[1]), t, self.beta1,
                              self.beta2, self.epsilon, self.bias_correction, wd)
        _k.lamb_apply(w, r, _k.norm64(w), _k.norm64(r), lr, self.lower_bound,
                      self.upper_bound)
        state[0]._write()
        state[1]._write()
        weight._write()


@register
class Ftrl(Optimizer):
    """FTRL-Proximal::

        g = clip(rescale_grad * grad, clip_gradient)
        z += g - (sqrt(n + g**2) - sqrt(n)) * weight / lr
        n += g**2
        weight = (sign(z) * lamda1 - z) / ((beta + sqrt(n)) / lr + wd) * (|z| > lamda1)

    Examples
    --------
    >>> import mxgrad as mx
    >>> w = mx.nd.array([0.0]); opt = Ftrl(learning_rate=0.1, lamda1=0.01)
    >>> state = opt.create_state(0, w)
    >>> opt.update(0, w, mx.nd.array([1.0]), state); round(float(w.asscalar()), 6)
    -0.0495
    """

    def __init__(self, lamda1: float = 0.01, learning_rate: float = 0.1, beta: float = 1,
                 **kwargs: Any) -> None:
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.lamda1 = lamda1
        self.beta = beta

    def create_state(self, index: int, weight: NDArray) -> Any:
        return (_zeros_like(weight), _zeros_like(weight))

    def update(self, index: int, weight: NDArray, grad: NDArray, state: Any) -> None:
        lr, wd, w, g = self._prepare(index, weight, grad)
        self._clip(g)
        _k.ftrl_step(w, g, _buf(state[0]), _buf(state[1]), lr, self.lamda1, self.beta, wd)
        state[0]._write()
        state[1]._write()
        weight._write()


@register
class SGLD(Optimizer):
    """Stochastic gradient Langevin dynamics:
    ``weight += -lr/2 * (g + wd * weight) + N(0, sqrt(lr))``."""

    def update(self, index: int, weight: NDArray, grad: NDArray, state: Any) -> None:
        lr, wd, w, g = self._prepare(index, weight, grad)
        self._clip(g)
        from .random import generator
        w -= lr / 2 * (g + wd * w)
        w += generator().normal(0.0, math.sqrt(lr), size=w.shape).astype(w.dtype)
        weight._write()


@register
class DCASGD(Optimizer):
    """Delay-compensated asynchronous SGD::

        g = clip(rescale_grad * grad, clip_gradient)
        mom = momentum * mom - lr * (g + wd * weight + lamda * g**2 * (weight - prev))
        prev = weight;  weight += mom

    Examples
    --------
    >>> import mxgrad as mx
    >>> w = mx.nd.array([1.0]); opt = DCASGD(learning_rate=0.1)
    >>> state = opt.create_state(0, w)
    >>> opt.update(0, w, mx.nd.array([2.0]), state); round(float(w.asscalar()), 6)
    0.8
    """

    def __init__(self, momentum: float = 0.0, lamda: float = 0.04, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.momentum = momentum
        self.weight_previous: dict = {}
        self.lamda = lamda

    def create_state(self, index: int, weight: NDArray) -> Any:
        if self.momentum == 0.0:
            return (None, wrap(weight._data.copy()))
        return (_zeros_like(weight), wrap(weight._data.copy()))

    def update(self, index: int, weight: NDArray, grad: NDArray, state: Any) -> None:
        lr, wd, w, g = self._prepare(index, weight, grad)
        self._clip(g)
        mom, prev = state
        p = _buf(prev)
        step = -lr * (g + wd * w + self.lamda * g * g * (w - p))
        if mom is not None:
            m = _buf(mom)
            m *= self.momentum
            m += step
            step = m
            mom._write()
        p[...] = w
        w += step
        prev._write()
        weight._write()


@register
class Test(Optimizer):
    """Test optimizer: ``weight += rescale_grad * grad``; state holds a copy of weight."""

    __test__ = False   # not a pytest test class

    def create_state(self, index: int, weight: NDArray) -> Any:
        return _zeros_like(weight)

    def update(self, index: int, weight: NDArray, grad: NDArray, state: Any) -> None:
        w = _buf(weight)
        w += _buf(grad) * self.rescale_grad
        _buf(state)[...] = w
        weight._write()
        state._write()


class Updater:
    """Applies an optimizer to (index, gradient, weight) triples, keeping the states.

    Examples
    --------
    >>> import mxgrad as mx
    >>> upd = get_updater(SGD(learning_rate=1.0))
    >>> w = mx.nd.array([1.0]); upd(0, mx.nd.array([0.25]), w); w.asscalar()
    0.75
    """

    def __init__(self, optimizer: Optimizer) -> None:
        self.optimizer = optimizer
        self.states: dict = {}
        self.states_synced: dict = {}
        self.aggregate_updates = False

    def __call__(self, index: int, grad: NDArray, weight: NDArray) -> None:
        if not isinstance(index, (list, tuple)):
            opt = self.optimizer
            states = self.states
            if index not in states:
                states[index] = opt.create_state_multi_precision(index, weight)
                self.states_synced[index] = True
            if type(opt).update_multi_precision is Optimizer.update_multi_precision and \
                    not opt.multi_precision:
                opt.update(index, weight, grad, states[index])   # what it would call
            else:
                opt.update_multi_precision(index, weight, grad, states[index])
            return
        for i, g, w in zip(index, grad, weight):
            if i not in self.states:
                self.states[i] = self.optimizer.create_state_multi_precision(i, w)
                self.states_synced[i] = True
            self.optimizer.update_multi_precision(i, w, g, self.states[i])

    def _update_params(self, items) -> None:
        """``self(index, grad, weight)`` for each ``(index, grad, weight)`` of ``items``
        (the Trainer's per-step loop, without a call per parameter)."""
        opt = self.optimizer
        states = self.states
        update = opt.update if type(opt).update_multi_precision is \
            Optimizer.update_multi_precision and not opt.multi_precision \
            else opt.update_multi_precision
        for index, grad, weight in items:
            if index not in states:
                states[index] = opt.create_state_multi_precision(index, weight)
                self.states_synced[index] = True
            update(index, weight, grad, states[index])

    def sync_state_context(self, state, context):
        """States live on the CPU: returned unchanged."""
        return state

    def set_states(self, states: bytes, allow_pickle: bool = False) -> None:
        """Restore states (and the optimizer, if it was dumped) from :meth:`get_states`.

        ``states`` is mxgrad's states format (arrays + JSON, see :mod:`mxgrad._states`),
        which cannot execute code. A pickle (what MXNet's ``get_states`` returns) is
        refused unless ``allow_pickle=True``: only for data you trust; it warns.
        """
        from . import _states
        decoded, optimizer, _ = _states.loads(states, allow_pickle, "the states")
        self._set_decoded(decoded, optimizer)

    def _set_decoded(self, states: dict, optimizer=None) -> None:
        self.states = states
        if optimizer is not None:
            self.optimizer = optimizer
        self.states_synced = dict.fromkeys(self.states.keys(), False)

    def get_states(self, dump_optimizer: bool = False) -> bytes:
        """The states (and the optimizer's settings with ``dump_optimizer``) as bytes.

        The bytes are an MXNet NDArray file holding the state arrays and a JSON
        description (never a pickle); :meth:`set_states` reads them.

        Examples
        --------
        >>> import mxgrad as mx
        >>> upd = get_updater(SGD(learning_rate=0.1, momentum=0.9))
        >>> w = mx.nd.array([1.0]); upd(0, mx.nd.array([1.0]), w)
        >>> upd2 = get_updater(SGD()); upd2.set_states(upd.get_states(True))
        >>> upd2.states[0].asnumpy().tolist(), upd2.optimizer.momentum
        ([-0.10000000149011612], 0.9)
        """
        from . import _states
        return _states.dumps(self.states, self.optimizer if dump_optimizer else None)


def get_updater(optimizer: Optimizer) -> Updater:
    """An :class:`Updater` for ``optimizer``."""
    return Updater(optimizer)

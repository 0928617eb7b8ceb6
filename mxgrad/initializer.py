"""Weight initializers (``mx.init`` / ``mx.initializer``), as in MXNet 1.x.

An initializer is called as ``init(desc, arr)`` and fills the NDArray ``arr`` in place.
``desc`` is an :class:`InitDesc` (a ``str`` subclass holding the parameter's name and
attributes). When ``desc.attrs['__init__']`` names an initializer (this is how Gluon
passes a parameter's own ``init``), that initializer's ``_init_weight`` fills the array;
otherwise the name's suffix decides, as in MXNet: ``*weight`` gets ``_init_weight``,
``*bias`` and ``*beta`` zeros, ``*gamma`` ones, ``*running_mean``/``*moving_mean``
zeros, ``*running_var``/``*moving_var`` ones.

Random initializers draw from mxgrad's generator, so ``mx.random.seed`` makes
initialization reproducible.

Examples
--------
>>> import mxgrad as mx
>>> w = mx.nd.zeros((2, 3))
>>> mx.init.Constant(0.5)(mx.init.InitDesc('fc_weight'), w)
>>> w
<BLANKLINE>
[[0.5 0.5 0.5]
 [0.5 0.5 0.5]]
<NDArray 2x3 @cpu(0)>
>>> b = mx.nd.ones((3,))
>>> mx.init.Xavier()('fc_bias', b)   # bias names are zero-filled
>>> b.asnumpy().tolist()
[0.0, 0.0, 0.0]
>>> mx.init.create('xavier', magnitude=2).dumps()
'["xavier", {"rnd_type": "uniform", "factor_type": "avg", "magnitude": 2}]'
"""
from __future__ import annotations

from typing import Any, Callable, Dict, Optional, Sequence, Tuple, Type, TypeVar, Union

from typing_extensions import Literal

import json
import logging
import re
from math import sqrt

import numpy as np

from .base import DTypeError, ShapeError, StateError
from ._engine.ndarray import NDArray
from . import random as _random

_C = TypeVar("_C", bound=Type[Any])

__all__ = ["InitDesc", "Initializer", "register", "alias", "create", "Load", "Mixed",
           "Zero", "One", "Constant", "Uniform", "Normal", "Orthogonal", "Xavier",
           "MSRAPrelu", "Bilinear", "LSTMBias"]


class InitDesc(str):
    """Name of a parameter to initialize, with its attributes.

    Parameters
    ----------
    name : str
        The parameter's name (its suffix selects the default pattern).
    attrs : dict, optional
        Attributes; ``attrs['__init__']`` names the initializer to use for it.
    global_init : Initializer, optional
        The global initializer to fall back to.

    Examples
    --------
    >>> d = InitDesc('dense0_weight', {'__init__': 'zeros'})
    >>> d, d.attrs['__init__']
    ('dense0_weight', 'zeros')
    """

    attrs: Dict[str, Any]
    global_init: Optional[Initializer]

    def __new__(cls, name: str, attrs: Optional[Dict[str, Any]] = None,
                global_init: Optional[Initializer] = None) -> InitDesc:
        ret = super().__new__(cls, name)
        ret.attrs = attrs or {}
        ret.global_init = global_init
        return ret


def _write(arr, value) -> None:
    """Fill ``arr`` (an NDArray) in place with ``value`` (scalar or array-like)."""
    if not isinstance(arr, NDArray):
        raise DTypeError(f"an initializer fills an NDArray, got {type(arr).__name__}")
    if isinstance(value, NDArray):
        value = value._data
    value = np.asarray(value)
    try:
        np.broadcast_to(value, arr.shape)
    except ValueError:
        raise ShapeError(f"cannot initialize an array of shape {arr.shape} with a value of "
                         f"shape {value.shape}") from None
    arr._check_writable()
    arr._write(value)


class Initializer:
    """Base class of initializers.

    Subclasses implement ``_init_weight(name, arr)`` (and may override ``_init_bias``,
    ``_init_gamma``, ``_init_beta``). Register a subclass with :func:`register` to make
    it available by name to :func:`create`.

    Examples
    --------
    >>> import mxgrad as mx
    >>> class Twos(mx.init.Initializer):
    ...     def _init_weight(self, name, arr):
    ...         arr[:] = 2
    >>> a = mx.nd.zeros((2,)); Twos()(mx.init.InitDesc('w_weight'), a); a.asnumpy().tolist()
    [2.0, 2.0]
    """

    def __init_subclass__(cls, **kwargs):
        # every initializer checks its arguments by name at construction (issue 11)
        super().__init_subclass__(**kwargs)
        init = cls.__dict__.get("__init__")
        if init is not None and not getattr(init, "__mxgrad_checked__", False):
            from ._check import checked_init, _INITIALIZER_RULES
            cls.__init__ = checked_init(init, cls.__name__, _INITIALIZER_RULES)

    def __init__(self, **kwargs: Any) -> None:
        self._kwargs = kwargs
        self._verbose = False
        self._print_func: Optional[Callable[[Any], str]] = None

    def set_verbosity(self, verbose: bool = False,
                      print_func: Optional[Callable[[Any], str]] = None) -> Initializer:
        """Turn logging of each initialized array on or off."""
        self._verbose = verbose
        if print_func is None:
            def print_func(x):
                return str(float(np.linalg.norm(x.asnumpy()) / sqrt(max(x.size, 1))))
        self._print_func = print_func
        return self

    def _verbose_print(self, desc, init, arr):
        if self._verbose and self._print_func:
            logging.info("Initialized %s as %s: %s", desc, init, self._print_func(arr))

    def dumps(self) -> str:
        """The initializer as a JSON string ``[name, kwargs]`` (readable by :func:`create`).

        Examples
        --------
        >>> Normal(0.5).dumps()
        '["normal", {"sigma": 0.5}]'
        """
        return json.dumps([self.__class__.__name__.lower(), self._kwargs])

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self._kwargs.items())
        return f"{self.__class__.__name__}({args})"

    def __eq__(self, other) -> bool:
        """Initializers are equal when they are of the same class with the same arguments
        (as in MXNet: parameters shared between blocks may name equal initializers).

        Examples
        --------
        >>> Normal(0.5) == Normal(0.5), Normal(0.5) == Normal(0.1), Normal() == Uniform()
        (True, False, False)
        """
        if not isinstance(other, Initializer):
            return NotImplemented
        return type(self) is type(other) and self._kwargs == other._kwargs

    __hash__ = object.__hash__   # identity hash: initializers are mutable (set_verbosity)

    def __call__(self, desc: Union[InitDesc, str], arr: NDArray) -> None:
        """Initialize ``arr`` (an NDArray, filled in place) for the parameter ``desc``."""
        if not isinstance(desc, InitDesc):
            self._legacy_init(desc, arr)
            return
        if desc.global_init is None:
            desc.global_init = self
        init = desc.attrs.get("__init__", "")
        if init:
            try:
                chosen = create(init)
            except StateError as err:
                raise StateError(f"parameter '{desc}' has attribute __init__={init!r:.80}: "
                                 f"{err}") from None
            chosen._init_weight(desc, arr)
            self._verbose_print(desc, init, arr)
        else:
            self._by_suffix(desc, arr)

    def _by_suffix(self, name, arr):
        if name.endswith("weight"):
            self._init_weight(name, arr)
        elif name.endswith("bias"):
            self._init_bias(name, arr)
        elif name.endswith("gamma"):
            self._init_gamma(name, arr)
        elif name.endswith("beta"):
            self._init_beta(name, arr)
        elif name.endswith(("running_mean", "moving_mean", "moving_inv_var", "moving_avg",
                            "min")):
            self._init_zero(name, arr)
        elif name.endswith(("running_var", "moving_var", "max")):
            self._init_one(name, arr)
        else:
            self._init_default(name, arr)
        self._verbose_print(name, "default", arr)

    def _legacy_init(self, name, arr):
        if not isinstance(name, str):
            raise DTypeError(f"an initializer is called with a parameter name (str or "
                             f"InitDesc) and an NDArray, got {type(name).__name__}")
        if not isinstance(arr, NDArray):
            raise DTypeError(f"an initializer fills an NDArray, got {type(arr).__name__}")
        if name.startswith("upsampling"):
            self._init_bilinear(name, arr)
        else:
            self._by_suffix(name, arr)

    def _init_bilinear(self, _, arr):
        _write(arr, _bilinear(arr.shape))

    def _init_zero(self, _, arr):
        _write(arr, 0.0)

    def _init_one(self, _, arr):
        _write(arr, 1.0)

    def _init_bias(self, _, arr):
        _write(arr, 0.0)

    def _init_gamma(self, _, arr):
        _write(arr, 1.0)

    def _init_beta(self, _, arr):
        _write(arr, 0.0)

    def _init_weight(self, name, arr):
        raise NotImplementedError(f"{self.__class__.__name__} must implement _init_weight")

    def _init_default(self, name, _):
        raise StateError(
            f"Unknown initialization pattern for {name}. Default initialization is limited "
            f"to names ending in \"weight\", \"bias\", \"gamma\" (1.0), \"beta\" (0.0), "
            f"running/moving mean (0.0) and var (1.0); pass an InitDesc with "
            f"attrs={{'__init__': ...}} or give the parameter an init")


def _bilinear(shape):
    if len(shape) != 4:
        raise ShapeError(f"Bilinear initialization needs a 4-D weight, got shape {shape}")
    f = np.ceil(shape[3] / 2.0)
    c = (2 * f - 1 - f % 2) / (2.0 * f)
    x = np.arange(shape[3])
    y = np.arange(shape[2])
    k = (1 - np.abs(y[:, None] / f - c)) * (1 - np.abs(x[None, :] / f - c))
    return np.broadcast_to(k, shape)


# ------------------------------------------------------------------------ registry
_REGISTRY: dict = {}


def register(klass: _C) -> _C:
    """Register an :class:`Initializer` subclass under its lower-cased class name.

    Examples
    --------
    >>> import mxgrad as mx
    >>> @mx.init.register
    ... class Threes(mx.init.Initializer):
    ...     def _init_weight(self, name, arr):
    ...         arr[:] = 3
    >>> type(mx.init.create('threes')).__name__
    'Threes'
    """
    if not (isinstance(klass, type) and issubclass(klass, Initializer)):
        raise DTypeError(f"register takes an Initializer subclass, got {klass!r}")
    _REGISTRY[klass.__name__.lower()] = klass
    return klass


def alias(*aliases: str) -> Callable[[_C], _C]:
    """Decorator registering extra names for an initializer class."""
    def reg(klass: _C) -> _C:
        for name in aliases:
            _REGISTRY[name.lower()] = klass
        return klass
    return reg


def _parse_dumps(text: str) -> Tuple[str, Dict[str, Any]]:
    """``(name, keyword arguments)`` from :meth:`Initializer.dumps` output, checked."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        value = None
    if not (isinstance(value, list) and len(value) == 2 and isinstance(value[0], str)
            and isinstance(value[1], dict)):
        raise StateError(f"initializer {text[:80]!r} is not an initializer's dumps() "
                         f"output, '[\"name\", {{keyword arguments}}]' (e.g. "
                         f"'[\"normal\", {{\"sigma\": 0.01}}]'), nor a name")
    return value[0], value[1]


def create(initializer: Union[Initializer, Load, Mixed, str, dict], *args: Any,
           **kwargs: Any) -> Union[Initializer, Load, Mixed]:
    """Return an initializer from an instance, a registered name, or a JSON string.

    Parameters
    ----------
    initializer : Initializer, str or dict
        An instance (returned as is), a name such as ``'xavier'`` or ``'zeros'``
        (case-insensitive), or the output of :meth:`Initializer.dumps`.

    Examples
    --------
    >>> create('ones')
    One()
    >>> create('["normal", {"sigma": 0.5}]').sigma
    0.5
    """
    if isinstance(initializer, (Initializer, Load, Mixed)):
        if args or kwargs:
            raise StateError("initializer is already an instance; extra arguments are "
                             "invalid")
        return initializer
    if isinstance(initializer, dict):
        kw = dict(initializer)
        return create(kw.pop("initializer", None) or kw.pop("name"), **kw)
    if not isinstance(initializer, str):
        raise DTypeError(f"initializer must be an Initializer, a name or a JSON string, got "
                         f"{type(initializer).__name__}")
    if initializer.startswith("["):
        name, kw = _parse_dumps(initializer)
        return create(name, **kw)
    name = initializer.lower()
    if name not in _REGISTRY:
        raise StateError(f"unknown initializer {initializer!r}; known initializers: "
                         f"{', '.join(sorted(_REGISTRY))}")
    return _REGISTRY[name](*args, **kwargs)


# ------------------------------------------------------------------ initializers
class Load:
    """Initialize parameters from a file (``nd.save`` format) or a dict of arrays,
    falling back to ``default_init`` for names not found.

    Examples
    --------
    >>> import mxgrad as mx
    >>> w = mx.nd.zeros((2,))
    >>> Load({'arg:w_weight': mx.nd.ones((2,))})('w_weight', w); w.asnumpy().tolist()
    [1.0, 1.0]
    """

    def __init__(self, param: Union[str, Dict[str, NDArray]],
                 default_init: Optional[Initializer] = None, verbose: bool = False) -> None:
        if isinstance(param, str):
            from .ndarray.utils import load
            loaded = load(param)
        else:
            loaded = param
        if not isinstance(loaded, dict):
            raise DTypeError("Load takes a file name or a dict of NDArrays")
        self.param = {}
        for name, arr in loaded.items():
            if name.startswith(("arg:", "aux:")):
                name = name[4:]
            self.param[name] = arr
        self.default_init = default_init
        self.verbose = verbose

    def __call__(self, name: str, arr: NDArray) -> None:
        if name in self.param:
            src = self.param[name]
            if tuple(arr.shape) != tuple(src.shape):
                raise ShapeError(f"Parameter {name} cannot be initialized from loading: shape "
                                 f"mismatch, target {arr.shape} vs loaded {src.shape}")
            _write(arr, src)
            if self.verbose:
                logging.info("Initialized %s by loading", name)
        else:
            if self.default_init is None:
                raise StateError(f"Cannot initialize {name}: not found in the loaded "
                                 f"parameters and no default initializer was given")
            self.default_init(name, arr)

    _init_weight = __call__


class Mixed:
    """Initialize each parameter with the first initializer whose regex matches its name.

    Examples
    --------
    >>> import mxgrad as mx
    >>> init = Mixed(['bias', '.*'], [Zero(), Constant(7)])
    >>> a = mx.nd.zeros((2,)); init('fc_weight', a); a.asnumpy().tolist()
    [7.0, 7.0]
    """

    def __init__(self, patterns: Sequence[str],
                 initializers: Sequence[Union[Initializer, str]]) -> None:
        if len(patterns) != len(initializers):
            raise StateError("Mixed needs one initializer per pattern")
        self.map = list(zip([re.compile(p) for p in patterns],
                            [create(i) for i in initializers]))

    def __call__(self, name: str, arr: NDArray) -> None:
        for prog, init in self.map:
            if prog.match(name):
                init(name, arr)
                return
        raise StateError(f"Parameter name {name} did not match any pattern. Consider adding "
                         f"a \".*\" pattern at the end with a default initializer")

    def _init_weight(self, name, arr):
        self(str(name), arr)


@register
@alias("zeros")
class Zero(Initializer):
    """Initialize to zero (names ``'zero'``, ``'zeros'``).

    Examples
    --------
    >>> import mxgrad as mx
    >>> a = mx.nd.ones((2,)); Zero()(InitDesc('x_weight'), a); a.asnumpy().tolist()
    [0.0, 0.0]
    """

    def __init__(self) -> None:
        super().__init__()

    def _init_weight(self, _, arr):
        _write(arr, 0.0)


@register
@alias("ones")
class One(Initializer):
    """Initialize to one (names ``'one'``, ``'ones'``).

    Examples
    --------
    >>> import mxgrad as mx
    >>> a = mx.nd.zeros((2,)); One()(InitDesc('x_weight'), a); a.asnumpy().tolist()
    [1.0, 1.0]
    """

    def __init__(self) -> None:
        super().__init__()

    def _init_weight(self, _, arr):
        _write(arr, 1.0)


@register
class Constant(Initializer):
    """Initialize to a constant: a scalar or an array broadcastable to the shape.

    Examples
    --------
    >>> import mxgrad as mx
    >>> a = mx.nd.zeros((2, 2)); Constant([1, 2])(InitDesc('x_weight'), a); a.asnumpy()
    array([[1., 2.],
           [1., 2.]], dtype=float32)
    """

    def __init__(self, value: Union[float, NDArray, Sequence[float]]) -> None:
        super().__init__(value=value.tolist() if isinstance(value, (NDArray, np.ndarray))
                         else value)
        self.value = value

    def _init_weight(self, _, arr):
        _write(arr, self.value)


@register
class Uniform(Initializer):
    """Uniform samples in ``[-scale, scale]`` (MXNet's default initializer, scale 0.07).

    Examples
    --------
    >>> import mxgrad as mx
    >>> a = mx.nd.zeros((100,)); Uniform(0.1)(InitDesc('x_weight'), a)
    >>> bool(abs(a).max() <= 0.1)
    True
    """

    def __init__(self, scale: float = 0.07) -> None:
        super().__init__(scale=scale)
        self.scale = scale

    def _init_weight(self, _, arr):
        _write(arr, _random.generator().uniform(-self.scale, self.scale, size=arr.shape))


@register
class Normal(Initializer):
    """Normal samples with mean 0 and standard deviation ``sigma`` (default 0.01).

    Examples
    --------
    >>> import mxgrad as mx
    >>> a = mx.nd.zeros((1000,)); Normal(2.0)(InitDesc('x_weight'), a)
    >>> 1.8 < float(a.asnumpy().std()) < 2.2
    True
    """

    def __init__(self, sigma: float = 0.01) -> None:
        super().__init__(sigma=sigma)
        self.sigma = sigma

    def _init_weight(self, _, arr):
        _write(arr, _random.generator().normal(0.0, self.sigma, size=arr.shape))


@register
class Orthogonal(Initializer):
    """An orthogonal matrix (rows or columns orthonormal) times ``scale``.

    The weight is viewed as ``(shape[0], prod(shape[1:]))``; the orthogonal factor of the
    SVD of a uniform (``rand_type='uniform'``) or normal random matrix is used.

    Examples
    --------
    >>> import mxgrad as mx, numpy as np
    >>> a = mx.nd.zeros((3, 5)); Orthogonal(scale=1.0)(InitDesc('x_weight'), a)
    >>> np.allclose(a.asnumpy() @ a.asnumpy().T, np.eye(3), atol=1e-5)
    True
    """

    def __init__(self, scale: float = 1.414, rand_type: Literal["uniform", "normal"] = "uniform"
                 ) -> None:
        super().__init__(scale=scale, rand_type=rand_type)
        self.scale = scale
        self.rand_type = rand_type

    def _init_weight(self, _, arr):
        nout = arr.shape[0]
        nin = int(np.prod(arr.shape[1:]))
        gen = _random.generator()
        if self.rand_type == "uniform":
            tmp = gen.uniform(-1.0, 1.0, size=(nout, nin))
        elif self.rand_type == "normal":
            tmp = gen.normal(0.0, 1.0, size=(nout, nin))
        else:
            raise StateError(f"Orthogonal: unknown rand_type {self.rand_type!r}; use "
                             f"'uniform' or 'normal'")
        u, _, v = np.linalg.svd(tmp, full_matrices=False)
        res = u if u.shape == tmp.shape else v
        _write(arr, self.scale * res.reshape(arr.shape))


@register
class Xavier(Initializer):
    """Xavier/Glorot initialization.

    ``fan_in = shape[1] * prod(shape[2:])``, ``fan_out = shape[0] * prod(shape[2:])``;
    ``factor`` is their mean (``'avg'``), ``fan_in`` (``'in'``) or ``fan_out``
    (``'out'``); ``scale = sqrt(magnitude / factor)``. ``rnd_type='uniform'`` samples
    ``U[-scale, scale]``, ``'gaussian'`` samples ``N(0, scale**2)``.

    Examples
    --------
    >>> import mxgrad as mx, numpy as np
    >>> a = mx.nd.zeros((20, 30)); Xavier()(InitDesc('x_weight'), a)
    >>> bool(np.abs(a.asnumpy()).max() <= np.sqrt(3 / 25))
    True
    """

    def __init__(self, rnd_type: Literal["uniform", "gaussian"] = "uniform",
                 factor_type: Literal["avg", "in", "out"] = "avg", magnitude: float = 3) -> None:
        super().__init__(rnd_type=rnd_type, factor_type=factor_type, magnitude=magnitude)
        self.rnd_type = rnd_type
        self.factor_type = factor_type
        self.magnitude = float(magnitude)

    def _init_weight(self, name, arr):
        shape = arr.shape
        if len(shape) < 2:
            raise ShapeError(f"Xavier initializer cannot be applied to vector {name}. It "
                             f"requires at least 2D (shape {shape}); give 1-D parameters an "
                             f"init such as 'zeros'")
        hw_scale = float(np.prod(shape[2:])) if len(shape) > 2 else 1.0
        fan_in, fan_out = shape[1] * hw_scale, shape[0] * hw_scale
        if self.factor_type == "avg":
            factor = (fan_in + fan_out) / 2.0
        elif self.factor_type == "in":
            factor = fan_in
        elif self.factor_type == "out":
            factor = fan_out
        else:
            raise StateError(f"Incorrect factor type {self.factor_type!r}; use 'avg', 'in' "
                             f"or 'out'")
        scale = np.sqrt(self.magnitude / factor)
        gen = _random.generator()
        if self.rnd_type == "uniform":
            _write(arr, gen.uniform(-scale, scale, size=shape))
        elif self.rnd_type == "gaussian":
            _write(arr, gen.normal(0.0, scale, size=shape))
        else:
            raise StateError(f"Unknown random type {self.rnd_type!r}; use 'uniform' or "
                             f"'gaussian'")


@register
class MSRAPrelu(Xavier):
    """He/MSRA initialization: Gaussian Xavier with ``magnitude = 2 / (1 + slope**2)``.

    Examples
    --------
    >>> round(MSRAPrelu().magnitude, 6)
    1.882353
    """

    def __init__(self, factor_type: Literal["avg", "in", "out"] = "avg", slope: float = 0.25
                 ) -> None:
        magnitude = 2.0 / (1 + slope ** 2)
        super().__init__("gaussian", factor_type, magnitude)
        self._kwargs = {"factor_type": factor_type, "slope": slope}


@register
class Bilinear(Initializer):
    """Bilinear-upsampling kernels for a 4-D (deconvolution) weight.

    Examples
    --------
    >>> import mxgrad as mx
    >>> a = mx.nd.zeros((1, 1, 4, 4)); Bilinear()(InitDesc('up_weight'), a)
    >>> a.asnumpy()[0, 0, 0].tolist()
    [0.0625, 0.1875, 0.1875, 0.0625]
    """

    def __init__(self) -> None:
        super().__init__()

    def _init_weight(self, _, arr):
        _write(arr, _bilinear(arr.shape))


@register
class LSTMBias(Initializer):
    """Zero bias except the LSTM forget gate (second quarter), set to ``forget_bias``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> a = mx.nd.ones((8,)); LSTMBias(1.0)(InitDesc('l_bias', {'__init__': 'lstmbias'}), a)
    >>> a.asnumpy().tolist()
    [0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0]
    """

    def __init__(self, forget_bias: float = 1.0) -> None:
        super().__init__(forget_bias=forget_bias)
        self.forget_bias = forget_bias

    def _init_weight(self, name, arr):
        val = np.zeros(arr.shape)
        n = arr.shape[0] // 4
        val[n:2 * n] = self.forget_bias
        _write(arr, val)

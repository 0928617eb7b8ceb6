"""Gluon parameters: :class:`Parameter`, :class:`Constant` and :class:`ParameterDict`.

A parameter's value is an ordinary NDArray made a variable with
``attach_grad(grad_req)`` (nothing is attached for ``grad_req='null'``), so gradients
from ``autograd`` land in ``param.grad()``. A shape with unknown dimensions (0 or -1)
is completed by the owning layer at its first forward ("deferred initialization").

Initialized on several contexts (``ctx=[mx.cpu(0), mx.cpu(1)]``), a parameter keeps one
copy per context, each with its own gradient: ``list_data()``/``list_grad()`` return
them in context order, ``data(ctx)`` the copy on ``ctx`` (``data()`` the copy on the
current context, which a block's forward sets to the context its input was loaded on by
``gluon.utils.split_and_load``). ``Trainer.step`` sums the copies' gradients and keeps
the copies equal. With one context, ``data(ctx)`` returns the one array for any ``ctx``.

Examples
--------
>>> import mxgrad as mx
>>> p = mx.gluon.Parameter('w', shape=(2, 3), init='ones')
>>> p.initialize()
>>> p.data()
<BLANKLINE>
[[1. 1. 1.]
 [1. 1. 1.]]
<NDArray 2x3 @cpu(0)>
>>> with mx.autograd.record():
...     y = (p.data() * 2).sum()
>>> y.backward(); p.grad()
<BLANKLINE>
[[2. 2. 2.]
 [2. 2. 2.]]
<NDArray 2x3 @cpu(0)>
"""
from __future__ import annotations

import warnings
from collections import OrderedDict
from typing import (Any, Dict, ItemsView, KeysView, List, Mapping, Optional, Sequence, Tuple,
                    Union, ValuesView, cast)

import numpy as np

from ..base import DTypeError, MXNetError, ShapeError, StateError, as_dtype
from ..context import Context, as_context_list, cpu, current_context
from .. import ndarray as nd
from .._engine.ndarray import NDArray, as_face, mode_face
from ..util import is_np_array, is_np_shape
from .._warn import warn as _warn
from .. import autograd
from .._engine.graph import GRAD_REQS
from .. import initializer
from ..symbol import _core as _symbol
from .utils import _brief_print_list, _indent, shape_is_known
from .._typing import DTypeLike, GradReq, Init, InitLike, ShapeLike

__all__ = ["DeferredInitializationError", "Parameter", "Constant", "ParameterDict",
           "tensor_types"]

tensor_types = (NDArray,)

_GRAD_REQS = GRAD_REQS   # one home: the engine's


class DeferredInitializationError(MXNetError):
    """A parameter's data was requested before its deferred initialization finished
    (its shape becomes known at the first forward)."""


class _LoadError(StateError, AssertionError):
    """Loading parameters failed (MXNet raises AssertionError here; this error is
    both an mxgrad error and an AssertionError so either ``except`` catches it)."""


class _LoadShapeError(ShapeError, AssertionError):
    """A loaded array does not have the parameter's shape."""


def _to_shape(shape):
    if shape is None:
        return None
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    return tuple(int(d) for d in shape)


def _write(dst: NDArray, src) -> None:
    """Copy ``src`` into ``dst`` in place (``dst[:] = src``)."""
    dst[:] = src


def shown_shape(shape: Any) -> Any:
    """A shape as printed: an unknown dimension (0 until deferred initialization) shows as
    -1 in NumPy shape mode, where 0 is a real size (MXNet 1.9.1 prints it so)."""
    if shape is None or not is_np_shape():
        return shape
    return tuple(-1 if d == 0 else d for d in shape)


class Parameter:
    """A container of a weight (an NDArray marked for gradients) and its metadata.

    Parameters
    ----------
    name : str
        Name (``dense0_weight``); used by ``collect_params`` and by initializers.
    grad_req : {'write', 'add', 'null'}
        How gradients are stored; 'null' computes none. Settable after creation.
    shape : int or tuple of int, optional
        Shape; 0 (or -1) marks a dimension inferred at the first forward.
    dtype : str or numpy dtype, default float32
    lr_mult, wd_mult : float
        Multipliers of the optimizer's learning rate and weight decay.
    init : Initializer or str, optional
        This parameter's initializer (takes precedence over the global one).
    allow_deferred_init : bool
        Whether ``initialize`` may be called while the shape is still unknown.
    differentiable : bool
        False forces ``grad_req='null'``.

    Examples
    --------
    >>> p = Parameter('b', shape=(3,), init='zeros', grad_req='add')
    >>> p
    Parameter b (shape=(3,), dtype=float32)
    """

    def __init__(self, name: str, grad_req: GradReq = "write", shape: Optional[ShapeLike] = None,
                 dtype: DTypeLike = np.float32, lr_mult: float = 1.0, wd_mult: float = 1.0,
                 init: InitLike = None, allow_deferred_init: bool = False,
                 differentiable: bool = True, stype: str = "default", grad_stype: str = "default"
                 ) -> None:
        self._var: Optional[NDArray] = None     # the copy on the first context
        self._face: type = NDArray                # the face data() gives (see _init_impl)
        self._data_list: list = []                # one copy per context (first is _var)
        self._ctx_index: dict = {}                # context -> index in _data_list
        self._deferred_init: tuple = ()
        self._differentiable = differentiable
        self._allow_deferred_init = allow_deferred_init
        self._grad_req: Any = None
        self._ctx_list: Any = None
        self._trainer = None
        self.name = name
        self._shape = _to_shape(shape)
        self.dtype = dtype
        self.lr_mult = lr_mult
        self.wd_mult = wd_mult
        self.init = init
        self._stype = stype
        self._grad_stype = grad_stype
        if grad_req not in _GRAD_REQS:
            raise StateError(f"grad_req must be one of 'write', 'add', or 'null', but got "
                             f"{grad_req!r}")
        self.grad_req = grad_req

    def __repr__(self) -> str:
        return (f"Parameter {self.name} (shape={shown_shape(self.shape)}, "
                f"dtype={np.dtype(self.dtype).name})")

    # ------------------------------------------------------------- attributes
    @property
    def grad_req(self) -> GradReq:
        """'write', 'add' or 'null'. Changing it after initialization re-attaches a
        zeroed gradient buffer (or drops it for 'null')."""
        return self._grad_req

    @grad_req.setter
    def grad_req(self, req: GradReq) -> None:
        if req not in _GRAD_REQS:
            raise StateError(f"grad_req must be one of 'write', 'add', or 'null', but got "
                             f"{req!r}")
        if not self._differentiable:
            req = "null"
        if self._grad_req == req:
            return
        self._grad_req = req
        if self._var is not None:
            self._init_grad()

    @property
    def shape(self) -> Optional[Tuple[int, ...]]:
        """The shape; unknown dimensions are 0 until inferred."""
        return self._shape

    @shape.setter
    def shape(self, new_shape: ShapeLike) -> None:
        shape = _to_shape(new_shape)
        if self._shape is None:
            self._shape = shape
            return
        if len(self._shape) != len(shape) or not all(
                j in (-1, 0, i) for i, j in zip(shape, self._shape)):
            raise ShapeError(f"Parameter '{self.name}': expected shape {shape} is "
                             f"incompatible with its shape {self._shape}")
        self._shape = shape

    @property
    def stype(self) -> str:
        return self._stype

    @property
    def grad_stype(self) -> str:
        return self._grad_stype

    # ------------------------------------------------------------ initialize
    def initialize(self, init: InitLike = None,
                   ctx: Union[Context, Sequence[Context], None] = None,
                   default_init: InitLike = initializer.Uniform(), force_reinit: bool = False
                   ) -> None:
        """Allocate and initialize the data (deferred until the shape is known).

        Parameters
        ----------
        init : Initializer or str, optional
            Initializer for this parameter; defaults to its own ``init``, then to
            ``default_init``.
        ctx : Context or list of Context, optional
            The contexts to keep a copy on (default: the current context).
        default_init : Initializer
            Used when neither ``init`` nor the parameter's ``init`` is given.
        force_reinit : bool
            Re-initialize an initialized parameter (otherwise it only warns).
        """
        if self._var is not None and not force_reinit:
            _warn(f"Parameter '{self.name}' is already initialized, ignoring. Set "
                  f"force_reinit=True to re-initialize.")   # attributed to the user's line
            return
        ctx = as_context_list(ctx, f"Parameter '{self.name}'.initialize: ctx")
        if init is None:
            init = default_init if self.init is None else self.init
        if not shape_is_known(self._shape):
            if self._allow_deferred_init:
                self._deferred_init = (init, ctx, default_init, None)
                return
            raise ShapeError(f"Cannot initialize Parameter '{self.name}' because it has "
                             f"invalid shape: {self._shape}.")
        self._deferred_init = (init, ctx, default_init, None)
        self._finish_deferred_init()

    def _finish_deferred_init(self) -> None:
        """Run a pending initialization now that the shape is known."""
        if not self._deferred_init:
            return
        init, ctx, default_init, data = self._deferred_init
        self._deferred_init = ()
        if not shape_is_known(self._shape):
            self._deferred_init = (init, ctx, default_init, data)
            raise ShapeError(f"Cannot initialize Parameter '{self.name}' because it has "
                             f"invalid shape: {self._shape}. Please specify in_units, "
                             f"in_channels, etc for `Block`s.")
        with autograd.pause():
            if data is None:
                data = nd.zeros(self._shape, dtype=self.dtype)
                initializer.create(default_init)(
                    initializer.InitDesc(self.name, {"__init__": init}), data)
                self._init_impl(data, ctx, copy=False)
            else:
                self._init_impl(data, ctx)

    def _init_impl(self, data, ctx_list=None, copy: bool = True) -> None:
        if isinstance(data, NDArray):
            if copy or np.dtype(data.dtype) != as_dtype(self.dtype):
                data = nd.array(data.asnumpy(), dtype=self.dtype)
        else:
            data = nd.array(np.asarray(data), dtype=self.dtype)
        ctx_list = list(ctx_list) if ctx_list else [current_context()]
        index: dict = {}
        for c in ctx_list:
            if c in index:
                raise StateError(f"Parameter '{self.name}': context {c} appears twice in "
                                 f"{ctx_list}; give each context once")
            index[c] = len(index)
        self._ctx_list = ctx_list
        self._ctx_index = index
        copies = [data] + [nd.array(data._data, dtype=data.dtype) for _ in ctx_list[1:]]
        self._data_list = copies
        self._var = data
        self._face = mode_face()   # made in NumPy mode (npx.set_np, use_np): mx.np arrays
        self._init_grad()
        if self._trainer is not None:
            self._trainer._param_initialized(self)

    def _init_grad(self) -> None:
        if self._grad_req == "null":
            if self._var is not None and self._var.grad_req != "null":
                self._data_list = [a.detach() for a in self._data_list]
                self._var = self._data_list[0]
            return
        for a in self._data_list:
            a.attach_grad(self._grad_req)

    def reset_ctx(self, ctx: Union[Context, Sequence[Context]]) -> None:
        """Keep copies on the contexts ``ctx`` instead (values of the first copy)."""
        ctx = as_context_list(ctx, f"Parameter '{self.name}'.reset_ctx: ctx")
        if self._var is not None:
            with autograd.pause():
                self._init_impl(self._var.detach(), list(ctx))
        elif self._deferred_init:
            init, _, default_init, data = self._deferred_init
            self._deferred_init = (init, list(ctx), default_init, data)
        else:
            raise StateError(f"Cannot reset context for Parameter '{self.name}' because it "
                             f"has not been initialized.")

    # ------------------------------------------------------------------ access
    def _check_initialized(self) -> NDArray:
        if self._var is not None:
            return self._var
        if self._deferred_init:
            raise DeferredInitializationError(
                f"Parameter '{self.name}' has not been initialized yet because "
                f"initialization was deferred. Actual initialization happens during the "
                f"first forward pass. Please pass one batch of data through the network "
                f"before accessing Parameters. You can also avoid deferred initialization "
                f"by specifying in_units, num_features, etc., for network layers.")
        raise StateError(
            f"Parameter '{self.name}' has not been initialized. Call .initialize() on the "
            f"network (net.initialize()) or on the parameter before using it. Note that you "
            f"should initialize parameters and create Trainer with Block.collect_params() "
            f"instead of Block.params because the later does not include Parameters of "
            f"nested child Blocks")

    def _index(self, ctx) -> int:
        """Index of the copy on ``ctx`` (the current context when None)."""
        if len(self._data_list) == 1:
            return 0
        if ctx is None:
            ctx = current_context()
        i = self._ctx_index.get(ctx)
        if i is None:
            raise StateError(f"Parameter '{self.name}' was not initialized on context "
                             f"{ctx}. It was only initialized on {self._ctx_list}. Load "
                             f"inputs with gluon.utils.split_and_load(batch, ctx_list) or "
                             f"run under `with {self._ctx_list[0]}:`")
        return i

    def data(self, ctx: Optional[Context] = None) -> NDArray:
        """The copy on ``ctx`` (default: the current context; with one context, the one
        array whatever ``ctx`` is)."""
        var = self._var
        if var is None:
            return self._check_initialized()
        if len(self._data_list) != 1:
            var = self._data_list[self._index(ctx)]
        face = self._face
        if face is NDArray:
            face = mode_face()
        return var if face is NDArray else as_face(var, face)

    def list_data(self) -> List[NDArray]:
        """One copy per context, in the order of :meth:`list_ctx`."""
        self._check_initialized()
        face = self._face if self._face is not NDArray else mode_face()
        return [a if face is NDArray else as_face(a, face) for a in self._data_list]

    def grad(self, ctx: Optional[Context] = None) -> NDArray:
        """The gradient buffer of the copy on ``ctx`` (filled by ``backward``)."""
        self._check_initialized()
        if self._grad_req == "null":
            raise StateError(f"Cannot get gradient array for Parameter '{self.name}' "
                             f"because grad_req='null'")
        g = self._data_list[self._index(ctx)].grad
        face = self._face if self._face is not NDArray else mode_face()
        return g if face is NDArray or g is None else as_face(g, face)

    def list_grad(self) -> List[NDArray]:
        """The gradient buffers, one per context."""
        self._check_initialized()
        if self._grad_req == "null":
            raise StateError(f"Cannot get gradient array for Parameter '{self.name}' "
                             f"because grad_req='null'")
        face = self._face if self._face is not NDArray else mode_face()
        return [a.grad if face is NDArray else as_face(a.grad, face) for a in self._data_list]

    def list_ctx(self) -> list:
        """The contexts given at initialization."""
        if self._var is None:
            if self._deferred_init:
                return list(self._deferred_init[1])
            raise StateError(f"Parameter '{self.name}' has not been initialized")
        return list(self._ctx_list)

    def set_data(self, data: Union[NDArray, np.ndarray]) -> None:
        """Set the value (copied in place into the existing array).

        Examples
        --------
        >>> import mxgrad as mx
        >>> p = Parameter('w', shape=(2,)); p.initialize()
        >>> p.set_data(mx.nd.array([3, 4])); p.data().asnumpy().tolist()
        [3.0, 4.0]
        """
        self.shape = data.shape
        if self._var is None:
            if not self._deferred_init:
                raise StateError(f"Parameter '{self.name}' has not been initialized")
            self._deferred_init = self._deferred_init[:3] + (data,)
            return
        with autograd.pause():
            for a in self._data_list:
                _write(a, data)

    def zero_grad(self) -> None:
        """Set the gradient buffers to zero (no-op for grad_req 'null')."""
        if self._var is None or self._grad_req == "null":
            return
        with autograd.pause():
            for a in self._data_list:
                g = a.grad
                if g is not None:
                    _write(g, 0)

    def _reduce(self) -> NDArray:
        """A copy of the data (what ``save_parameters`` writes). With copies on several
        contexts that differ (BatchNorm's running statistics, each context's own), their
        mean, as MXNet saves; equal copies are saved as they are."""
        with autograd.pause():
            first = self._check_initialized()
            rest = self._data_list[1:]
            if not rest or all(np.array_equal(c._data, first._data) for c in rest):
                return first.copy()
            total = first._data.copy()
            for c in rest:
                total += c._data
            return nd.array(total / len(self._data_list), dtype=first.dtype)

    def cast(self, dtype: DTypeLike) -> None:
        """Cast data and gradient to ``dtype`` (gradient re-attached, zeroed)."""
        self.dtype = dtype
        if self._var is None:
            return
        with autograd.pause():
            self._data_list = [a.detach().astype(dtype) for a in self._data_list]
            self._var = self._data_list[0]
        self._init_grad()

    def var(self) -> Any:
        """The parameter as a Symbol variable (name, shape, dtype, lr/wd multipliers as
        attributes), as MXNet's ``Parameter.var``.

        Examples
        --------
        >>> p = mx.gluon.Parameter('w', shape=(2, 3))
        >>> p.var().name, p.var().list_arguments()
        ('w', ['w'])
        """
        return _param_var(self)

    def row_sparse_data(self, row_id):
        """Dense stand-in for MXNet's row_sparse data: the whole array."""
        return self.data()

    def list_row_sparse_data(self, row_id):
        return self.list_data()

    def _set_trainer(self, trainer) -> None:
        self._trainer = trainer

    # --------------------------------------------------------------- loading
    def _check_load(self, data, name_in_file, source, cast_dtype=False):
        shape = tuple(data.shape)
        if self._shape:
            if len(self._shape) != len(shape) or not all(
                    s in (0, -1, d) for s, d in zip(self._shape, shape)):
                raise _LoadShapeError(
                    f"Failed loading Parameter '{name_in_file}' from {source}: shape "
                    f"incompatible expected {self._shape} vs saved {shape}")
        if not cast_dtype and np.dtype(as_dtype(self.dtype)) != np.dtype(data.dtype):
            raise DTypeError(
                f"Failed loading Parameter '{name_in_file}' from {source}: dtype "
                f"incompatible expected {np.dtype(as_dtype(self.dtype))} vs saved "
                f"{np.dtype(data.dtype)}. Set cast_dtype=True to cast the dtype of saved "
                f"params.")

    def _load_init(self, data, ctx=None, cast_dtype=False, dtype_source="current"):
        """Set the value from loaded data, initializing the parameter if needed."""
        if cast_dtype and dtype_source == "saved":
            if self._var is not None and np.dtype(self._var.dtype) != np.dtype(data.dtype):
                self.cast(data.dtype)      # an initialized parameter takes the saved dtype
            self.dtype = data.dtype
        if self._shape:
            self._shape = tuple(d if s in (0, -1) else s for s, d in zip(self._shape,
                                                                       data.shape))
        else:
            self._shape = tuple(data.shape)
        if self._var is None:
            if self._deferred_init:
                ctx = self._deferred_init[1]
            elif ctx is None:
                ctx = [cpu()]
            if isinstance(ctx, Context):
                ctx = [ctx]
            with autograd.pause():
                self._init_impl(data, ctx)
        else:
            with autograd.pause():
                value = data.astype(self._var.dtype) if \
                    np.dtype(data.dtype) != np.dtype(self._var.dtype) else data
                for a in self._data_list:
                    _write(a, value)
        self._deferred_init = ()


class Constant(Parameter):
    """A parameter with a fixed value and ``grad_req='null'``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> c = Constant('c', mx.nd.array([1, 2])); c.initialize(); c.data().asnumpy().tolist()
    [1.0, 2.0]
    """

    def __init__(self, name: str, value: Any) -> None:
        if not isinstance(value, NDArray):
            value = nd.array(value)
        self.value = value

        class _Init(initializer.Initializer):
            def _init_weight(self, _, arr):
                initializer._write(arr, value)

        super().__init__(name, grad_req="null", shape=value.shape, dtype=value.dtype,
                         init=_Init())

    def __repr__(self) -> str:
        return f"Constant {self.name} (shape={self.shape}, dtype={np.dtype(self.dtype).name})"

    @property
    def grad_req(self) -> GradReq:
        return "null"

    @grad_req.setter
    def grad_req(self, req: GradReq) -> None:
        if req != "null":
            warnings.warn(f"Constant parameter \"{self.name}\" does not support grad_req "
                          f"other than \"null\", and new value \"{req}\" is ignored.",
                          stacklevel=2)
        self._grad_req = "null"


class ParameterDict:
    """An ordered dictionary of :class:`Parameter` by full name, with a name prefix.

    Examples
    --------
    >>> pd = ParameterDict('net_')
    >>> w = pd.get('weight', shape=(2, 2))
    >>> list(pd.keys()), pd['net_weight'] is w
    (['net_weight'], True)
    >>> pd.initialize(init='ones'); pd.setattr('grad_req', 'add'); w.grad_req
    'add'
    """

    def __init__(self, prefix: str = "", shared: Optional["ParameterDict"] = None) -> None:
        self._prefix = prefix
        self._params: "OrderedDict[str, Parameter]" = OrderedDict()
        self._shared = shared

    def __repr__(self) -> str:
        name = self._prefix + " " if self._prefix else ""
        content = "\n".join([_indent(f"  {v}", 2) for v in self.values()])
        return f"{name}(\n{content}\n)"

    def __getitem__(self, key) -> Parameter:
        try:
            return self._params[key]
        except KeyError:
            raise KeyError(f"no Parameter named {key!r}; this ParameterDict contains "
                           f"{_brief_print_list(self._params.keys())}") from None

    def __iter__(self):
        return iter(self._params)

    def __len__(self) -> int:
        return len(self._params)

    def __contains__(self, key) -> bool:
        return key in self._params

    def items(self) -> ItemsView[str, Parameter]:
        return self._params.items()

    def keys(self) -> KeysView[str]:
        return self._params.keys()

    def values(self) -> ValuesView[Parameter]:
        return self._params.values()

    @property
    def prefix(self) -> str:
        """Prefix added to the names of parameters created with :meth:`get`."""
        return self._prefix

    def _get_impl(self, name):
        if name in self._params:
            return self._params[name]
        if self._shared is not None and name in self._shared._params:
            self._params[name] = self._shared._params[name]
            return self._shared._params[name]
        return None

    def get(self, name: str, **kwargs: Any) -> Parameter:
        """Return the parameter ``prefix + name``, creating it with ``kwargs`` if needed
        (an existing one must agree with the given attributes)."""
        name = self._prefix + name
        param = self._get_impl(name)
        if param is None:
            param = Parameter(name, **kwargs)
            self._params[name] = param
            return param
        for k, v in kwargs.items():
            if hasattr(param, k) and getattr(param, k) is not None:
                existing = getattr(param, k)
                if k == "shape" and v is not None and len(_to_shape(v)) == len(existing):
                    inferred, matched = [], True
                    for d1, d2 in zip(_to_shape(v), existing):
                        if d1 != d2 and d1 > 0 and d2 > 0:
                            matched = False
                            break
                        inferred.append(d2 if d1 in (0, -1) else d1)
                    if matched:
                        param._shape = tuple(inferred)
                        continue
                elif k == "dtype" and np.dtype(as_dtype(v)) == np.dtype(as_dtype(existing)):
                    continue
                if not (v is None or v == existing):
                    raise StateError(
                        f"Cannot retrieve Parameter '{name}' because desired attribute does "
                        f"not match with stored for attribute '{k}': desired '{v}' vs "
                        f"stored '{existing}'.")
            else:
                setattr(param, k, v)
        return param

    def get_constant(self, name: str, value: Any = None) -> Constant:
        """Return the constant ``prefix + name``, creating it from ``value`` if needed."""
        name = self._prefix + name
        param = self._get_impl(name)
        if param is None:
            if value is None:
                raise KeyError(f"No constant named '{name}'. Please specify value if you "
                               f"want to create a new constant.")
            param = Constant(name, value)
            self._params[name] = param
        elif value is not None:
            if not isinstance(param, Constant):
                raise StateError(f"Parameter '{name}' already exists but it is not a "
                                 f"constant.")
            if isinstance(value, NDArray):
                value = value.asnumpy()
            if not (param.shape == np.shape(value) and
                    np.array_equal(param.value.asnumpy(), value)):
                raise StateError(f"Constant '{name}' already exists but its value doesn't "
                                 f"match new value")
        return param

    def update(self, other: Union[ParameterDict, Mapping[str, Parameter]]) -> None:
        """Add the parameters of ``other`` (same name must mean the same parameter)."""
        for k, v in other.items():
            if k in self._params and self._params[k] is not v:
                raise StateError(f"Cannot update self with other because they have "
                                 f"different Parameters with the same name '{k}'")
        for k, v in other.items():
            self._params[k] = v

    def initialize(self, init: Init = initializer.Uniform(),
                   ctx: Union[Context, Sequence[Context], None] = None, verbose: bool = False,
                   force_reinit: bool = False) -> None:
        """Initialize every parameter; ``init`` is the default for parameters without
        their own ``init``. Already-initialized parameters only warn unless
        ``force_reinit``."""
        ctx = as_context_list(ctx, "initialize: ctx")
        default = initializer.create(init)
        if verbose:
            cast(initializer.Initializer, default).set_verbosity(verbose=verbose)
        for v in self.values():
            v.initialize(None, ctx, default, force_reinit=force_reinit)

    def zero_grad(self) -> None:
        """Zero the gradients of all parameters."""
        for v in self.values():
            v.zero_grad()

    def reset_ctx(self, ctx: Union[Context, Sequence[Context]]) -> None:
        ctx = as_context_list(ctx, "reset_ctx: ctx")
        for v in self.values():
            v.reset_ctx(ctx)

    def list_ctx(self) -> list:
        s = []
        for v in self.values():
            for c in v.list_ctx():
                if c not in s:
                    s.append(c)
        return s

    def setattr(self, name: str, value: Any) -> None:
        """Set an attribute on every parameter, e.g. ``setattr('grad_req', 'null')``."""
        for v in self.values():
            setattr(v, name, value)

    def save(self, filename: str, strip_prefix: str = "") -> None:
        """Save all parameters by full name (minus ``strip_prefix``) to ``filename``.

        The file is MXNet's binary NDArray format (MXNet's ``ParameterDict.load`` reads
        it), written atomically after every name has been checked.

        Examples
        --------
        >>> import mxgrad as mx, os, tempfile
        >>> net = mx.gluon.nn.Dense(2, in_units=3, prefix='fc_'); net.initialize()
        >>> f = os.path.join(tempfile.mkdtemp(), 'fc.params')
        >>> net.collect_params().save(f, strip_prefix='fc_')
        >>> sorted(mx.nd.load(f))
        ['bias', 'weight']
        """
        arg_dict = {}
        for param in self.values():
            if not param.name.startswith(strip_prefix):
                raise StateError(
                    f"Prefix '{strip_prefix}' is to be striped before saving, but "
                    f"Parameter's name '{param.name}' does not start with '{strip_prefix}'. "
                    f"this may be due to your Block shares parameters from other Blocks or "
                    f"you forgot to use 'with name_scope()' when creating child blocks.")
            arg_dict[param.name[len(strip_prefix):]] = param._reduce()
        nd.save(filename, arg_dict)

    def load(self, filename: str, ctx: Union[Context, Sequence[Context], None] = None,
             allow_missing: bool = False, ignore_extra: bool = False, restore_prefix: str = "",
             cast_dtype: bool = False, dtype_source: str = "current") -> None:
        """Load parameters saved with :meth:`save` (names prefixed with
        ``restore_prefix``; MXNet ``Module`` checkpoints' ``arg:``/``aux:`` prefixes are
        dropped). Every check runs before any parameter changes.

        Examples
        --------
        >>> import mxgrad as mx, os, tempfile
        >>> f = os.path.join(tempfile.mkdtemp(), 'm.params')
        >>> mx.nd.save(f, {'arg:fc_weight': mx.nd.ones((2, 3)), 'arg:fc_bias': mx.nd.zeros(2)})
        >>> net = mx.gluon.nn.Dense(2, in_units=3, prefix='fc_')
        >>> net.collect_params().load(f)
        >>> net.weight.data().sum().asscalar()
        6.0
        """
        _check_dtype_source(cast_dtype, dtype_source)
        if restore_prefix:
            for name in self.keys():
                if not name.startswith(restore_prefix):
                    raise StateError(f"restore_prefix is '{restore_prefix}' but Parameters "
                                     f"name '{name}' does not start with "
                                     f"'{restore_prefix}'")
        loaded = nd.load(filename)
        if isinstance(loaded, list):
            if loaded:
                raise _LoadError(f"file '{filename}' holds a list of {len(loaded)} unnamed "
                                 f"arrays (nd.save of a list), not named parameters")
            loaded = {}     # nd.save(f, {}) writes no names: MXNet reads it back as []
        self.load_dict(loaded, ctx, allow_missing, ignore_extra, restore_prefix, filename,
                       cast_dtype, dtype_source)

    def load_dict(self, param_dict: Dict[str, NDArray],
                  ctx: Union[Context, Sequence[Context], None] = None, allow_missing: bool = False,
                  ignore_extra: bool = False, restore_prefix: str = "",
                  filename: Optional[str] = None, cast_dtype: bool = False,
                  dtype_source: str = "current") -> None:
        """Load from a dict of name to NDArray (``arg:``/``aux:`` prefixes dropped) or a
        list of ``(name, NDArray)`` pairs (see :meth:`load`)."""
        _check_dtype_source(cast_dtype, dtype_source)
        lprefix = len(restore_prefix)
        if isinstance(param_dict, dict):
            loaded = [(k[4:] if isinstance(k, str) and k.startswith(("arg:", "aux:")) else k,
                       v) for k, v in param_dict.items()]
        else:
            try:
                loaded = [(k, v) for k, v in param_dict]
            except (TypeError, ValueError):
                raise DTypeError(f"param_dict must be a dict of name to NDArray or a list "
                                 f"of (name, NDArray) pairs, got "
                                 f"{type(param_dict).__name__}") from None
        for k, v in loaded:
            if not isinstance(k, str):
                raise DTypeError(f"param_dict keys must be str, got {k!r}")
            if not isinstance(v, (NDArray, np.ndarray)):
                raise DTypeError(f"param_dict[{k!r}] must be an NDArray, got "
                                 f"{type(v).__name__}")
        arg_dict = {restore_prefix + k: v if isinstance(v, NDArray) else nd.array(v, dtype=v.dtype)
                    for k, v in loaded}
        source = f"file: {filename}" if filename else "param_dict"
        if not allow_missing:
            for name in self.keys():
                if name not in arg_dict:
                    raise _LoadError(
                        f"Parameter '{name[lprefix:]}' is missing in {source}, which "
                        f"contains parameters: {_brief_print_list(arg_dict.keys())}. "
                        f"Please make sure source and target networks have the same "
                        f"prefix (or set allow_missing=True).")
        for name in arg_dict:
            if name not in self._params and not ignore_extra:
                raise _LoadError(
                    f"Parameter '{name[lprefix:]}' loaded from {source} is not present in "
                    f"ParameterDict, choices are: {_brief_print_list(self._params.keys())}. "
                    f"Set ignore_extra to True to ignore.")
        for name, arr in arg_dict.items():
            if name in self._params:
                self._params[name]._check_load(arr, name[lprefix:], source, cast_dtype)
        for name, arr in arg_dict.items():
            if name in self._params:
                self._params[name]._load_init(arr, ctx, cast_dtype=cast_dtype,
                                              dtype_source=dtype_source)


def _check_dtype_source(cast_dtype, dtype_source) -> None:
    if dtype_source not in ("current", "saved"):
        raise StateError(f"dtype_source must be 'current' or 'saved', got {dtype_source!r}")


_DTYPE_FLAGS = {"float32": 0, "float64": 1, "float16": 2, "uint8": 3, "int32": 4,
                "int8": 5, "int64": 6, "bool": 7}


def _param_var(p):
    """The variable of Parameter ``p`` in the current trace (MXNet's ``Parameter.var``):
    its name, dtype, init, lr/wd multipliers and shape as attributes, and its data as
    the example value while tracing."""
    cache = _symbol._state.trace
    if cache is not None and id(p) in cache:
        return cache[id(p)]
    unknown = -1 if is_np_shape() else 0     # how MXNet writes an unknown dimension
    attrs = {"__dtype__": str(_DTYPE_FLAGS.get(np.dtype(p.dtype).name, 0)),
             "__lr_mult__": str(float(p.lr_mult)),
             "__shape__": str(tuple(int(d) if d and d > 0 else unknown
                                    for d in (p.shape or ()))),
             "__storage_type__": "0",
             "__wd_mult__": str(float(p.wd_mult))}
    if p.init is not None:
        attrs["__init__"] = p.init if isinstance(p.init, str) else p.init.dumps()
    # one variable per Parameter while its attributes stay the same, as MXNet's
    # Parameter.var() keeps one: a cell called step by step on Symbols (``unroll``) shares
    # its weights instead of making one argument per step
    key = (p.name, tuple(sorted(attrs.items())))
    kept = p.__dict__.get("_sym_var")
    if kept is not None and kept[0] == key:
        v = kept[1]
    else:
        v = _symbol.var(p.name, attr=attrs)
        p.__dict__["_sym_var"] = (key, v)
    try:
        data = p.data()
    except (DeferredInitializationError, MXNetError):
        data = None
    v._outputs[0][0].shadow = (data,) if data is not None else None
    if is_np_array():        # MXNet's NumPy mode: parameters are _Symbols too
        v = v.as_np_ndarray()
    if cache is not None:
        cache[id(p)] = v
    return v

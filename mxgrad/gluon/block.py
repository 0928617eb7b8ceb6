"""Gluon blocks: :class:`Block`, :class:`HybridBlock` and :class:`SymbolBlock`.

Blocks assigned as attributes become children, parameters assigned as attributes are
registered, and names follow MXNet 1.x: a per-class counter gives ``dense0_``,
``dense1_``... at top level, and a child created inside its parent's ``name_scope()``
gets the parent's prefix (``mlp0_dense0_``).

``HybridBlock.hybrid_forward(F, x, *args, **params)`` receives ``F = mx.nd`` and the
block's registered parameters as keyword NDArrays. A hybridized block keeps running
imperatively (no graph compiler); calling a block on a Symbol (``mx.sym.var('data')``)
traces ``hybrid_forward`` once with ``F = mx.sym`` and returns the Symbol, which is what
``export`` writes for MXNet. :class:`SymbolBlock` runs Symbol graphs (models exported by
MXNet) through ``mx.nd``. Layers reading ``autograd.is_training()`` (Dropout, BatchNorm)
do so at call time.

Examples
--------
>>> import mxgrad as mx
>>> from mxgrad.gluon import nn
>>> class MLP(mx.gluon.Block):
...     def __init__(self, **kwargs):
...         super().__init__(**kwargs)
...         with self.name_scope():
...             self.hidden = nn.Dense(4, activation='relu')
...             self.out = nn.Dense(2)
...     def forward(self, x):
...         return self.out(self.hidden(x))
>>> net = MLP(prefix='mlp_')
>>> net.initialize()
>>> net(mx.nd.ones((3, 5))).shape
(3, 2)
>>> sorted(net.collect_params().keys())
['mlp_dense0_bias', 'mlp_dense0_weight', 'mlp_dense1_bias', 'mlp_dense1_weight']
>>> net.hidden.weight.shape
(4, 5)
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Sequence, Union

import os
import re
import threading
import warnings
from collections import OrderedDict, defaultdict
from numbers import Number

from ..base import DTypeError, MXNetError, ShapeError, StateError
from .._check import _has_base
from .._fileio import atomic_write
from ..context import current_context
from .._warn import warn as _warn
from .. import ndarray as nd
from .._engine.ndarray import FACES, NDArray
from .. import _format as _nd_format
from ..ndarray.utils import _split as _nd_split
from .. import initializer
from .. import autograd
from .. import symbol as _sym
from .. import name as _name
from ..symbol.symbol import Symbol, example_var
from ..util import is_np_array
from ..symbol._registry import LABEL_OPS as _LABEL_OPS
from ..symbol._infer import var_shapes as _var_shapes
from ..symbol._core import _known_shape, tracing as _tracing
from .parameter import Parameter, ParameterDict, DeferredInitializationError, _LoadError
from .parameter import _check_dtype_source, _param_var
from .utils import _indent, _brief_print_list, HookHandle, shape_is_known
from .utils import _placed, placed_context
from ._hybrid_plan import call_planned as _call_planned, NOT_PLANNED as _NOT_PLANNED
from ._hybrid_plan import clear_plans as _clear_plans, check_np_outputs
from ._hybrid_plan import traced_symbol as _traced_symbol
from .._typing import DTypeLike, Init, InitLike
from ..context import Context

__all__ = ["Block", "HybridBlock", "SymbolBlock"]


class _BlockScope:
    """The name scope of a block: children created inside get its prefix."""

    _current = threading.local()

    def __init__(self, block):
        self._block = block
        self._counter = {}
        self._old_scope = None

    @staticmethod
    def create(prefix, params, hint):
        """Prefix and ParameterDict for a new block."""
        current = getattr(_BlockScope._current, "value", None)
        if current is None:
            if prefix is None:       # counted by mx.name's scope, as MXNet's top-level blocks
                prefix = _name.current_name(None, hint) + "_"
            if params is None:
                params = ParameterDict(prefix)
            else:
                params = ParameterDict(params.prefix, params)
            return prefix, params
        if prefix is None:
            count = current._counter.get(hint, 0)
            prefix = f"{hint}{count}_"
            current._counter[hint] = count + 1
        if params is None:
            parent = current._block.params
            params = ParameterDict(parent.prefix + prefix, parent._shared)
        else:
            params = ParameterDict(params.prefix, params)
        return current._block.prefix + prefix, params

    def __enter__(self):
        if self._block._empty_prefix:
            return self
        self._old_scope = getattr(_BlockScope._current, "value", None)
        _BlockScope._current.value = self
        return self

    def __exit__(self, ptype, value, trace):
        if self._block._empty_prefix:
            return
        _BlockScope._current.value = self._old_scope


def _contains(args, kind) -> bool:
    """Whether ``args`` (nested lists/tuples) hold an instance of ``kind``."""
    if isinstance(args, kind):
        return True
    if isinstance(args, (list, tuple)):
        return any(_contains(a, kind) for a in args)
    return False


def _has_ndarray(args) -> bool:
    return _contains(args, NDArray)


def _shape_str(args):
    def shapes(a):
        if isinstance(a, NDArray):
            return a.shape
        if isinstance(a, (list, tuple)):
            return [shapes(x) for x in a]
        return a
    s = shapes(args)
    if isinstance(s, list):
        return str(s)[1:-1]
    return str(s)


class Block:
    """Base class of all layers and models.

    Parameters
    ----------
    prefix : str, optional
        Name prefix of the block and its parameters (default: class name + counter).
    params : ParameterDict, optional
        Share these parameters (e.g. ``params=other.collect_params()``).

    Examples
    --------
    >>> import mxgrad as mx
    >>> class Scale(mx.gluon.Block):
    ...     def __init__(self, **kwargs):
    ...         super().__init__(**kwargs)
    ...         self.s = self.params.get('s', shape=(1,), init='ones')
    ...     def forward(self, x):
    ...         return x * self.s.data()
    >>> b = Scale(); b.initialize(); b(mx.nd.array([2.0])).asscalar()
    2.0
    """

    def __init_subclass__(cls, **kwargs):
        # mxgrad's own layers check their arguments at construction (issue 11)
        super().__init_subclass__(**kwargs)
        if not cls.__module__.startswith("mxgrad.") or cls.__module__ == __name__:
            return
        from .._check import checked_init, guard
        init = cls.__dict__.get("__init__")
        layer_module = cls.__module__.startswith(("mxgrad.gluon.nn.", "mxgrad.gluon.rnn"))
        if init is not None and layer_module and not getattr(init, "__mxgrad_checked__", False):
            cls.__init__ = checked_init(init, cls.__name__)
        for name in ("hybrid_forward",):
            method = cls.__dict__.get(name)
            if callable(method) and not getattr(method, "__mxgrad_guarded__", False):
                setattr(cls, name, guard(method, f"{cls.__name__}.{name.lstrip('_')}"))

    def __init__(self, prefix: Optional[str] = None, params: Optional[ParameterDict] = None
                 ) -> None:
        self._empty_prefix = prefix == ""
        self._prefix, self._params = _BlockScope.create(prefix, params, self._alias())
        self._name = self._prefix[:-1] if self._prefix.endswith("_") else self._prefix
        self._scope = _BlockScope(self)
        self._children: Dict[str, Block] = OrderedDict()
        self._reg_params: Dict[str, Parameter] = {}
        self._forward_hooks: Dict[int, Callable[..., Any]] = OrderedDict()
        self._forward_pre_hooks: Dict[int, Callable[..., Any]] = OrderedDict()

    def __repr__(self) -> str:
        modstr = "\n".join([f"  ({key}): {_indent(repr(block), 2)}"
                            for key, block in self.__dict__.items()
                            if isinstance(block, Block)])
        return f"{self.__class__.__name__}(\n{modstr}\n)"

    def __setattr__(self, name, value):
        """Register Blocks and Parameters assigned as attributes."""
        if hasattr(self, name):
            existing = getattr(self, name)
            if isinstance(existing, (Parameter, Block)) and not isinstance(value,
                                                                           type(existing)):
                raise TypeError(f"Changing attribute type for {name} from {type(existing)} "
                                f"to {type(value)} is not allowed.")
        if isinstance(value, Block):
            if "_children" not in self.__dict__:
                raise StateError(f"cannot assign child block '{name}' before "
                                 f"Block.__init__ ran: call super().__init__() first")
            self.register_child(value, name)
        elif isinstance(value, Parameter):
            if "_reg_params" not in self.__dict__:
                raise StateError(f"cannot assign Parameter '{name}' before Block.__init__ "
                                 f"ran: call super().__init__() first")
            if name in self._reg_params and self._reg_params[name] is not value:
                raise StateError(f"Overriding Parameter attribute {name} is not allowed. If "
                                 f"you want to share parameters between blocks, please set "
                                 f"'params' at Block construction instead.")
            self._reg_params[name] = value
        super().__setattr__(name, value)

    def _check_container_with_block(self):
        children = set(id(c) for c in self._children.values())

        def find(data):
            if isinstance(data, (list, tuple)):
                return any(find(e) for e in data)
            if isinstance(data, dict):
                return any(find(v) for v in data.values())
            if isinstance(data, Block):
                return id(data) not in children
            return False

        for k, v in self.__dict__.items():
            if isinstance(v, (list, tuple, dict)) and not (k.startswith("__")
                                                           or k == "_children"):
                if find(v):
                    _warn(f'"{self.__class__.__name__}.{k}" is an unregistered '
                          f'container with Blocks. Note that Blocks inside the list, '
                          f'tuple or dict will not be registered automatically. Make '
                          f'sure to register them using register_child() or '
                          f'switching to nn.Sequential/nn.HybridSequential instead. ')

    def _alias(self) -> str:
        return self.__class__.__name__.lower()

    @property
    def prefix(self) -> str:
        """Prefix of this block's and its parameters' names (``dense0_``)."""
        return self._prefix

    @property
    def name(self) -> str:
        """Name of this block (the prefix without the trailing ``_``)."""
        return self._name

    def name_scope(self) -> Any:
        """A ``with`` scope in which new child blocks get this block's prefix."""
        return self._scope

    @property
    def params(self) -> ParameterDict:
        """This block's own ParameterDict (children's parameters not included)."""
        return self._params

    def collect_params(self, select: Optional[str] = None) -> ParameterDict:
        """All parameters of this block and its children, optionally only those whose
        name matches the regular expression ``select`` (``re.match``).

        Examples
        --------
        >>> import mxgrad as mx
        >>> net = mx.gluon.nn.Dense(2, in_units=3, prefix='fc_')
        >>> list(net.collect_params('.*weight').keys())
        ['fc_weight']
        """
        self._check_container_with_block()
        ret = ParameterDict(self._params.prefix)
        own = self._own_params()
        if not select:
            ret.update(own)
        else:
            pattern = re.compile(select)
            ret.update({n: v for n, v in own.items() if pattern.match(n)})
        for cld in self._children.values():
            ret.update(cld.collect_params(select=select))
        return ret

    def _own_params(self) -> "OrderedDict[str, Parameter]":
        """This block's ParameterDict plus Parameters assigned as attributes without
        going through ``self.params`` (MXNet 1.x leaves those out of collect_params and
        so never initializes them; mxgrad includes them)."""
        own = OrderedDict(self.params.items())
        for p in self._reg_params.values():
            if p is not None and p.name not in own:
                own[p.name] = p
        return own

    def _collect_params_with_prefix(self, prefix=""):
        if prefix:
            prefix += "."
        ret = {prefix + key: val for key, val in self._reg_params.items()}
        for name, child in self._children.items():
            ret.update(child._collect_params_with_prefix(prefix + name))
        return ret

    # ------------------------------------------------------------ save / load
    def save_parameters(self, filename: str, deduplicate: bool = False) -> None:
        """Save the parameters, keyed by their attribute path (``0.weight``,
        ``features.1.bias``), to ``filename``.

        The file is MXNet's binary NDArray format, byte-identical to what MXNet 1.9's
        ``save_parameters`` writes for the same values, and is written atomically (a
        temporary file in the same folder replaces ``filename`` when complete).
        ``deduplicate=True`` stores a shared parameter once.

        Examples
        --------
        >>> import mxgrad as mx, os, tempfile
        >>> net = mx.gluon.nn.Dense(2, in_units=3); net.initialize()
        >>> f = os.path.join(tempfile.mkdtemp(), 'net.params')
        >>> net.save_parameters(f)
        >>> net2 = mx.gluon.nn.Dense(2, in_units=3); net2.load_parameters(f)
        >>> bool((net2.weight.data() == net.weight.data()).asnumpy().all())
        True
        """
        params = self._collect_params_with_prefix()
        if deduplicate:   # as MXNet: a shared parameter once, at its first position,
            reverse = {}  # under the last name it has
            for k, v in params.items():
                reverse[id(v)] = (k, v)
            params = {k: v for k, v in reverse.values()}
        nd.save(filename, {key: val._reduce() for key, val in params.items()})

    def save_params(self, filename: str) -> None:
        """Deprecated: save with full parameter names (use :meth:`save_parameters`)."""
        warnings.warn("save_params is deprecated. Please use save_parameters.",
                      stacklevel=2)
        self.collect_params().save(filename, strip_prefix=self.prefix)

    def load_parameters(self, filename: str, ctx: Union[Context, Sequence[Context], None] = None,
                        allow_missing: bool = False, ignore_extra: bool = False,
                        cast_dtype: bool = False, dtype_source: str = "current") -> None:
        """Load parameters written by :meth:`save_parameters` (mxgrad's or MXNet's).

        Files whose names have no ``.`` (``save_params``, ``collect_params().save``,
        Module checkpoints with ``arg:``/``aux:`` keys) are read as full parameter names
        by :meth:`ParameterDict.load` with ``restore_prefix=self.prefix``, as MXNet does.
        ``cast_dtype=True`` casts saved values to each parameter's dtype
        (``dtype_source='current'``) or gives the parameter the saved dtype
        (``'saved'``). Every name and shape is checked before anything is written: a missing name
        (unless ``allow_missing``), an extra name (unless ``ignore_extra``) or a shape
        mismatch raises an error naming the parameter, and leaves all parameters
        unchanged. Uninitialized parameters are initialized from the file.
        """
        _check_dtype_source(cast_dtype, dtype_source)
        loaded = nd.load(filename)
        if isinstance(loaded, list):
            if loaded:
                raise _LoadError(f"file '{filename}' holds a list of {len(loaded)} unnamed "
                                 f"arrays (nd.save of a list), not named parameters")
            loaded = {}     # a net without parameters saves a file without names
        params = self._collect_params_with_prefix()
        if not loaded and not params:
            return
        if loaded and not any("." in i for i in loaded.keys()):
            # saved with full names (collect_params().save / save_params)
            self.collect_params().load(filename, ctx, allow_missing, ignore_extra,
                                       self.prefix, cast_dtype=cast_dtype,
                                       dtype_source=dtype_source)
            return
        source = f"file '{filename}'"
        if not allow_missing:
            params_inv = defaultdict(list)
            for k, v in params.items():
                params_inv[id(v)].append(k)
            for name, param in params.items():
                if not any(p in loaded for p in params_inv[id(param)]):
                    raise _LoadError(
                        f"Parameter '{name}' is missing in {source}, which contains "
                        f"parameters: {_brief_print_list(loaded.keys())}. Set "
                        f"allow_missing=True to ignore missing parameters.")
        for name in loaded:
            if not ignore_extra and name not in params:
                raise _LoadError(
                    f"Parameter '{name}' loaded from {source} is not present in "
                    f"ParameterDict, which contains parameters "
                    f"{_brief_print_list(params.keys())}. Set ignore_extra=True to ignore. ")
        for name, arr in loaded.items():
            if name in params:
                params[name]._check_load(arr, name, source, cast_dtype)
        for name, arr in loaded.items():
            if name in params:
                params[name]._load_init(arr, ctx, cast_dtype=cast_dtype,
                                        dtype_source=dtype_source)

    def load_params(self, filename: str, ctx: Union[Context, Sequence[Context], None] = None,
                    allow_missing: bool = False, ignore_extra: bool = False) -> None:
        """Deprecated alias of :meth:`load_parameters`."""
        warnings.warn("load_params is deprecated. Please use load_parameters.",
                      stacklevel=2)
        self.load_parameters(filename, ctx, allow_missing, ignore_extra)

    # ------------------------------------------------------------- structure
    def save(self, prefix: str) -> None:
        """Save the architecture's names (``<prefix>-model.json``, MXNet 1.9.1's layout,
        with the traced graph of hybridized blocks that have run) and the parameters
        (``<prefix>-model.params``), for :meth:`load` into an identically built model.

        Examples
        --------
        >>> import mxgrad as mx, os, tempfile
        >>> def build():
        ...     net = mx.gluon.nn.HybridSequential()
        ...     net.add(mx.gluon.nn.Dense(2, in_units=3))
        ...     return net
        >>> net = build(); net.initialize()
        >>> prefix = os.path.join(tempfile.mkdtemp(), 'm')
        >>> net.save(prefix)
        >>> sorted(os.listdir(os.path.dirname(prefix)))
        ['m-model.json', 'm-model.params']
        >>> net2 = build(); net2.load(prefix); net2[0].name == net[0].name
        True
        """
        from ._block_save import save_model
        save_model(self, prefix)

    def load(self, prefix: str) -> None:
        """Load what :meth:`save` wrote: blocks (and parameter keys) get their saved
        names, saved hybridized blocks are hybridized, parameters are loaded."""
        from ._block_save import load_model
        load_model(self, prefix)

    def register_child(self, block: Block, name: Optional[str] = None) -> None:
        """Register ``block`` as a child (done automatically for attributes)."""
        if name is None:
            name = str(len(self._children))
        self._children[name] = block

    def register_forward_pre_hook(self, hook: Callable[..., Any]) -> HookHandle:
        """Call ``hook(block, inputs)`` before each forward; returns a handle."""
        handle = HookHandle()
        handle.attach(self._forward_pre_hooks, hook)
        return handle

    def register_forward_hook(self, hook: Callable[..., Any]) -> HookHandle:
        """Call ``hook(block, inputs, output)`` after each forward; returns a handle."""
        handle = HookHandle()
        handle.attach(self._forward_hooks, hook)
        return handle

    def apply(self, fn: Callable[[Block], Any]) -> Block:
        """Apply ``fn(block)`` to every child recursively, then to this block."""
        for cld in self._children.values():
            cld.apply(fn)
        fn(self)
        return self

    def initialize(self, init: Init = initializer.Uniform(),
                   ctx: Union[Context, Sequence[Context], None] = None, verbose: bool = False,
                   force_reinit: bool = False) -> None:
        """Initialize all parameters (``collect_params().initialize(...)``).

        ``init`` is used for parameters without their own initializer (MXNet's default
        is ``Uniform(0.07)``); a second call only warns unless ``force_reinit``."""
        self.collect_params().initialize(init, ctx, verbose, force_reinit)

    def hybridize(self, active: bool = True, **kwargs: Any) -> None:
        """Hybridize the HybridBlock children (mxgrad keeps running imperatively)."""
        for cld in self._children.values():
            cld.hybridize(active, **kwargs)

    def cast(self, dtype: DTypeLike) -> None:
        """Cast all parameters (and children's) to ``dtype``.

        Examples
        --------
        >>> import mxgrad as mx
        >>> net = mx.gluon.nn.Dense(2, in_units=2); net.initialize(); net.cast('float64')
        >>> net.weight.data().dtype
        <class 'numpy.float64'>
        """
        for child in self._children.values():
            child.cast(dtype)
        for param in self._own_params().values():
            param.cast(dtype)

    def zero_grad(self) -> None:
        """Zero the gradients of all parameters."""
        self.collect_params().zero_grad()

    def __call__(self, *args: Any) -> Any:
        """Run the forward pass (with the registered hooks)."""
        if _placed and args:
            ctx = placed_context(args[0])
            if ctx is not None and ctx != current_context():
                with ctx:      # input loaded on ctx: parameters give their copy there
                    return self.__call__(*args)
        if self._forward_pre_hooks:
            for hook in list(self._forward_pre_hooks.values()):
                hook(self, args)
        out = self.forward(*args)
        if self._forward_hooks:
            for hook in list(self._forward_hooks.values()):
                hook(self, args, out)
        return out

    def forward(self, *args):
        """Override to define the computation with NDArrays."""
        raise NotImplementedError(f"{self.__class__.__name__} must implement forward()")

    def register_op_hook(self, callback: Callable[..., Any], monitor_all: bool = False) -> None:
        """Not supported (no executor in mxgrad); accepted for the children."""
        for cld in self._children.values():
            cld.register_op_hook(callback, monitor_all)

    def summary(self, *inputs: NDArray) -> None:
        """Print each layer's output shape and parameter count for ``inputs``.

        Examples
        --------
        >>> import mxgrad as mx
        >>> net = mx.gluon.nn.HybridSequential()
        >>> net.add(mx.gluon.nn.Dense(4, in_units=3), mx.gluon.nn.Dense(2))
        >>> net.initialize()
        >>> net.summary(mx.nd.ones((5, 3)))   # doctest: +NORMALIZE_WHITESPACE
        --------------------------------------------------------------------------------
                Layer (type)                                Output Shape         Param #
        ================================================================================
                       Input                                      (5, 3)               0
                     Dense-1                                      (5, 4)              16
                     Dense-2                                      (5, 2)              10
        ================================================================================
        Parameters in forward computation graph, duplicate included
           Total params: 26
           Trainable params: 26
           Non-trainable params: 0
        Shared params in forward computation graph: 0
        Unique parameters in model: 26
        --------------------------------------------------------------------------------
        """
        summary: Dict[str, Any] = OrderedDict()
        seen = set()
        hooks = []

        def _summary_hook(block, _, outputs):
            class_name = block.__class__.__name__
            block_idx = len(summary) - 1
            m_key = f"{class_name}-{block_idx + 1}"
            entry = summary[m_key] = OrderedDict()
            entry["output_shape"] = _shape_str(outputs)
            params = trainable = shared = 0
            for p in block.params.values():
                size = p.data().size
                params += size
                trainable += 0 if p.grad_req == "null" else size
                if id(p) in seen:
                    shared += size
                else:
                    seen.add(id(p))
            entry["n_params"], entry["trainable"], entry["shared"] = params, trainable, shared

        def _register(block):   # containers get no hook (nn's classes, found by name)
            if not any(_has_base(type(block), "gluon.nn.basic_layers", name)
                       for name in ("Sequential", "HybridSequential")):
                hooks.append(block.register_forward_hook(_summary_hook))

        summary["Input"] = OrderedDict(output_shape=_shape_str(inputs), n_params=0,
                                       trainable=0, shared=0)
        try:
            self.apply(_register)
            self(*inputs)
            line_format = "{:>20}  {:>42} {:>15}"
            print("-" * 80)
            print(line_format.format("Layer (type)", "Output Shape", "Param #"))
            print("=" * 80)
            total = trainable = shared = 0
            for layer, e in summary.items():
                print(line_format.format(layer, str(e["output_shape"]), e["n_params"]))
                total += e["n_params"]
                trainable += e["trainable"]
                shared += e["shared"]
            print("=" * 80)
            print("Parameters in forward computation graph, duplicate included")
            print("   Total params: " + str(total))
            print("   Trainable params: " + str(trainable))
            print("   Non-trainable params: " + str(total - trainable))
            print("Shared params in forward computation graph: " + str(shared))
            print("Unique parameters in model: " + str(total - shared))
            print("-" * 80)
        finally:
            for h in hooks:
                h.detach()


class HybridBlock(Block):
    """A block whose computation is written once in ``hybrid_forward(F, x, ...)``.

    ``F`` is ``mx.nd``; the block's registered parameters arrive as keyword NDArrays
    named after their attributes. Called on a Symbol, ``hybrid_forward`` is traced with
    ``F = mx.sym`` and the parameters as variables, and the Symbol is returned;
    :meth:`export` writes that graph for MXNet. Parameters with unknown dimensions get their shape
    from the first input (traced through the operators' shape rules, as in MXNet), and a
    mismatch between a layer's parameters and its input raises the operator's error, which
    names both shapes, prefixed with the layer.

    Examples
    --------
    >>> import mxgrad as mx
    >>> class Affine(mx.gluon.HybridBlock):
    ...     def __init__(self, **kwargs):
    ...         super().__init__(**kwargs)
    ...         with self.name_scope():
    ...             self.a = self.params.get('a', shape=(1,), init=mx.init.Constant(3))
    ...     def hybrid_forward(self, F, x, a):
    ...         return F.broadcast_mul(x, a) + 1
    >>> blk = Affine(); blk.initialize(); blk.hybridize()
    >>> blk(mx.nd.array([1.0, 2.0])).asnumpy().tolist()
    [4.0, 7.0]
    """

    def __init__(self, prefix: Optional[str] = None, params: Optional[ParameterDict] = None
                 ) -> None:
        super().__init__(prefix=prefix, params=params)
        self._active = False
        self._flags: List[Any] = []
        self._cached_graph = ()
        # ((shape, dtype), ...) of the first call after hybridize(): what export traces on
        self._in_specs = None

    def hybridize(self, active: bool = True, backend: Optional[str] = None,
                  backend_opts: Optional[Dict[str, Any]] = None, clear: bool = True,
                  static_alloc: bool = False, static_shape: bool = False, **kwargs: Any) -> None:
        """Hybridize the block: from its next call, each input signature (shapes,
        dtypes, training mode) is traced once with ``F = mx.sym`` and run as a planned
        graph (see :mod:`mxgrad.gluon._hybrid_plan`), with the same results as the
        imperative block; the first call's input shapes are recorded for :meth:`export`.
        ``active=False`` returns to imperative calls. ``static_alloc=True`` also plans
        the forward's memory (ops in place, buffers reused across calls; the same
        numbers, less memory when predicting); ``static_shape`` is accepted."""
        self._active = active
        self._flags = [("static_alloc", static_alloc), ("static_shape", static_shape)]
        if clear:
            self._in_specs = None
            _clear_plans(self)
            self.__dict__.pop("_in_structure", None)   # see _check_hybrid_call
        super().hybridize(active, **kwargs)

    def _plan_symbol(self):
        """``(Symbol, input names)`` a hybridized call plans instead of tracing
        ``hybrid_forward`` (a SymbolBlock's graph); None: trace."""
        return None

    def register_child(self, block: Block, name: Optional[str] = None) -> None:
        """Register ``block`` as a child; the planned graphs of this block are traced
        anew (as MXNet clears its cached graph), so a layer added after a hybridized
        call takes part."""
        super().register_child(block, name)
        _clear_plans(self)

    def infer_shape(self, *args: NDArray) -> None:
        """Infer the shapes of this block's parameters from example inputs, as MXNet does:
        ``hybrid_forward`` is traced on Symbols whose example values are the inputs, and
        the operators' shape rules (:mod:`mxgrad.symbol._shape`, the one home of those
        rules) size every parameter left unknown, such as the ``(n, 0)`` weight of a
        ``Dense`` given no ``in_units``."""
        if not self._infer_by_tracing(args):
            unknown = [p.name for p in self.collect_params().values()
                       if not shape_is_known(p.shape)]
            raise MXNetError(
                f"{self.name}: the shapes of {unknown} cannot be inferred from inputs of "
                f"shape {[getattr(a, 'shape', None) for a in args]}; give the full shapes "
                f"of {self.__class__.__name__}'s parameters (in_units=, in_channels=...)")

    def _infer_by_tracing(self, args) -> bool:
        """Set the unknown parameter shapes that a trace of ``hybrid_forward`` on
        ``args`` works out; True when none is left unknown."""
        arrays: List[NDArray] = []
        try:      # the inputs' structure is kept: a cell takes its states as a list
            _map_arrays(args, arrays.append)
        except TypeError:
            return False
        if not arrays:
            return False
        names = ["data"] if len(arrays) == 1 else [f"data{i}" for i in range(len(arrays))]
        given = dict(zip(names, (a.shape for a in arrays)))
        unknown = [p for p in self.collect_params().values()
                   if not shape_is_known(p.shape)]
        # First the graph alone, the input shapes flowing through the operators' rules
        # (cheap: no op runs); if the block reads a shape in Python, or something is left
        # unknown, again with the inputs as example values (every op runs once on them,
        # and an input that does not fit raises the operator's error)
        np_face = FACES.get("np")
        for examples in (False, True):
            variables = iter([example_var(n, a if examples else None,
                                          np_face=type(a) is np_face)
                              for n, a in zip(names, arrays)])
            inputs = _map_arrays(args, lambda a: next(variables))
            try:
                with autograd.pause(train_mode=False):
                    out = self._symbolic_forward(*inputs)
                found = _var_shapes(_symbols_in(out), given, {p.name for p in unknown})
            except MXNetError as err:
                if not examples:
                    continue
                if isinstance(err, (ShapeError, DTypeError)):
                    raise    # the input does not fit the layer: the operator says why
                return False
            if examples or all(p.name in found for p in unknown):
                break
        for p in unknown:
            if p.name in found:
                p.shape = found[p.name]
        return all(shape_is_known(p.shape) for p in unknown)

    def infer_type(self, *args: NDArray) -> None:
        """Parameter dtypes are set at construction (or with cast) in mxgrad."""

    def _deferred_infer_shape(self, *args):
        try:
            self.infer_shape(*args)
        except (ShapeError, DTypeError) as err:     # an input the layer cannot take
            raise _named(err, self) from None
        except MXNetError as err:
            raise DeferredInitializationError(
                f"Deferred initialization failed because shape cannot be inferred. {err}"
            ) from err

    # (input shape, ((name, Parameter, data), ...)) of the last call whose parameter
    # shapes were checked: a call with the same input shape and the same parameter
    # arrays needs no new check
    _checked = None

    def __call__(self, *args):
        """Run the forward pass (with the registered hooks)."""
        # fast path, the same as Block.__call__ -> forward when there are no hooks, the
        # input is an NDArray and the parameters were checked for its shape
        if _placed and args and placed_context(args[0]) is not None:
            return Block.__call__(self, *args)
        if args and type(args[0]) is NDArray and not self._forward_pre_hooks \
                and not self._forward_hooks and type(self).forward is _HYBRID_FORWARD \
                and (self._in_specs is not None or not self._active):
            if self._active:
                if len(args) != 1 or self.__dict__.get("_in_structure") != _ONE_ARRAY:
                    _check_hybrid_call(self, args)   # (one array, as at the first call: fine)
                r = _call_planned(self, args)
                if r is not _NOT_PLANNED:
                    return r
            elif len(args) > 1 and _has_symbol(args):
                _check_hybrid_call(self, args, mix_only=True)  # NDArrays with Symbols
            reg = self._reg_params
            if not reg:
                return self.hybrid_forward(nd, *args)
            checked = self._checked
            if checked is not None and len(args) == 1 \
                    and args[0]._data.shape == checked[0] and len(reg) == len(checked[1]):
                params = {}
                for k, p, v in checked[1]:
                    if p._var is not v:
                        break
                    params[k] = v
                else:
                    return self.hybrid_forward(nd, args[0], **params)
        return Block.__call__(self, *args)

    def forward(self, x, *args):
        """Gather the parameters and call ``hybrid_forward(mx.nd, x, *args, **params)``;
        with Symbol inputs, trace it with ``F = mx.sym`` and return the Symbol."""
        if isinstance(x, Symbol) or _has_symbol(args):
            if args:
                _check_hybrid_call(self, (x,) + args, mix_only=True)  # no NDArrays among Symbols
            if type(x) is not NDArray:
                return self._symbolic_forward(x, *args)
        if self._active:
            _check_hybrid_call(self, (x,) + args)
            if self._in_specs is None:
                self._in_specs = _input_specs((x,) + args)
            r = _call_planned(self, (x,) + args)
            if r is not _NOT_PLANNED:
                return r
        if type(x) is not NDArray and not isinstance(x, NDArray) and not _has_ndarray(args) \
                and not _has_ndarray(x):
            raise StateError(
                f"In HybridBlock {self.name}, there must be one NDArray in the input; got "
                f"{type(x).__name__}. Convert inputs with mx.nd.array(...)")
        reg = self._reg_params
        if reg:
            checked = self._checked
            if checked is not None and not args and type(x) is NDArray \
                    and x._data.shape == checked[0] and len(reg) == len(checked[1]):
                params = {}
                for k, p, v in checked[1]:
                    if p._var is not v:
                        break
                    params[k] = v
                else:
                    return self.hybrid_forward(nd, x, **params)
            try:
                params = {k: v.data() for k, v in self._reg_params.items()}
            except DeferredInitializationError:
                if any(not shape_is_known(v.shape) for v in self._reg_params.values()):
                    self._deferred_infer_shape(x, *args)
                for v in self.params.values():
                    v._finish_deferred_init()
                for v in self._reg_params.values():
                    v._finish_deferred_init()
                params = {k: v.data() for k, v in self._reg_params.items()}
            if not args and type(x) is NDArray and all(
                    len(p._data_list) == 1 for p in reg.values()):
                # (parameters with copies on several contexts are looked up per call)
                self.__dict__["_checked"] = (x._data.shape, tuple(
                    (k, p, params[k]) for k, p in reg.items()))
            try:
                out = self.hybrid_forward(nd, x, *args, **params)
            except ShapeError as err:    # an input that does not fit the parameters
                raise _named(err, self) from None
        else:
            out = self.hybrid_forward(nd, x, *args)
        if type(x) is not NDArray and is_np_array():
            check_np_outputs(self, out)
        return out

    def hybrid_forward(self, F, x, *args, **kwargs):
        """Override to define the computation with ``F`` (``mx.nd``)."""
        raise NotImplementedError(f"{self.__class__.__name__} must implement "
                                  f"hybrid_forward()")

    def _symbolic_forward(self, x, *args):
        """``hybrid_forward(mx.sym, x, *args, **param_vars)`` in this block's name scope
        (one variable per Parameter for the whole outermost call)."""
        with _tracing():
            params = {k: (None if p is None else _param_var(p))
                      for k, p in self._reg_params.items()}
            if self._empty_prefix:      # prefix='': ops are named in the caller's scope
                return self.hybrid_forward(_sym, x, *args, **params)
            with self.name_scope(), _name.Prefix(self.prefix):
                return self.hybrid_forward(_sym, x, *args, **params)

    def _trace(self):
        """The Symbol of this block, traced on zeros shaped like the recorded input."""
        specs = self._in_specs
        if specs is None:
            raise StateError(
                f"{self.name}: please first call block.hybridize() and then run forward "
                f"with this block at least once before calling export")
        traced = _traced_symbol(self, specs)
        if traced is not None:
            return traced
        names = ["data"] if len(specs) == 1 else [f"data{i}" for i in range(len(specs))]
        np_mode = is_np_array()
        inputs = []
        for n, spec in zip(names, specs):
            value = None
            if spec is not None:
                value = nd.zeros(spec[0], dtype=spec[1])
                if np_mode:
                    value = value.as_np_ndarray()
            inputs.append(example_var(n, value, np_mode))
        # the block's own hooks are for the arrays of its calls, not for this trace
        # (MXNet exports the graph cached at the first call, without calling them)
        hooks = self._forward_pre_hooks, self._forward_hooks
        self._forward_pre_hooks, self._forward_hooks = OrderedDict(), OrderedDict()
        try:
            with autograd.pause(train_mode=False):
                out = self(*inputs)
        finally:
            self._forward_pre_hooks, self._forward_hooks = hooks
        flat = []

        def walk(o):
            if isinstance(o, Symbol):
                flat.append(o)
            elif isinstance(o, (list, tuple)):
                for e in o:
                    walk(e)
            else:
                raise StateError(f"{self.name}.export(): hybrid_forward returned "
                                 f"{type(o).__name__}, not Symbols")
        walk(out)
        return flat[0] if len(flat) == 1 else _sym.Group(flat)

    def export(self, path: str, epoch: int = 0, remove_amp_cast: bool = True) -> None:
        """Write ``path-symbol.json`` and ``path-%04d.params`` (epoch) that MXNet's
        ``SymbolBlock.imports`` (and mxgrad's) load.

        The graph is traced once from ``hybrid_forward`` with ``F = mx.sym`` on zeros
        shaped like the first input seen after ``hybridize()``; parameters are saved as
        ``arg:<name>`` / ``aux:<name>`` (BatchNorm's running statistics).

        Examples
        --------
        >>> import mxgrad as mx, os, tempfile
        >>> net = mx.gluon.nn.Dense(2, in_units=3, prefix='fc_'); net.initialize()
        >>> net.hybridize(); _ = net(mx.nd.ones((1, 3)))
        >>> path = os.path.join(tempfile.mkdtemp(), 'fc')
        >>> net.export(path)
        >>> sorted(os.listdir(os.path.dirname(path)))
        ['fc-0000.params', 'fc-symbol.json']
        """
        sym = self._trace()
        arg_names = set(sym.list_arguments())
        aux_names = set(sym.list_auxiliary_states())
        arg_dict = {}
        for name, param in self.collect_params().items():
            if name in arg_names:
                arg_dict["arg:" + name] = param._reduce()
            elif name in aux_names:
                arg_dict["aux:" + name] = param._reduce()
        # both files are written in full (and flushed to disk) before either replaces
        # the previous export, so a failure (a full disk) leaves the old pair intact
        names, arrays = _nd_split(arg_dict, "export")
        chunks = _nd_format.encode(arrays, names, "export")
        text = sym.tojson()
        with atomic_write(f"{path}-symbol.json", "w") as fj:
            fj.write(text)
            fj.flush()
            os.fsync(fj.fileno())
            with atomic_write("%s-%04d.params" % (path, epoch)) as fp:
                for c in chunks:
                    fp.write(c)

    def optimize_for(self, x: NDArray, *args: NDArray, backend: Optional[str] = None,
                     **kwargs: Any) -> None:
        """Accepted for compatibility: hybridizes and runs a forward pass."""
        self.hybridize(True)
        return self(x, *args)


_HYBRID_FORWARD = HybridBlock.forward


def _map_arrays(args, fn) -> list:
    """``args`` (NDArrays, None, and lists/tuples of them, nested) as a list with ``fn``
    applied to every NDArray, in order; TypeError for anything else."""
    def each(a):
        if isinstance(a, NDArray):
            return fn(a)
        if isinstance(a, (list, tuple)):
            return type(a)(each(b) for b in a)
        if a is None:
            return None
        raise TypeError(type(a).__name__)
    return [each(a) for a in args]


def _has_symbol(args) -> bool:
    return _contains(args, Symbol)


_ONE_ARRAY = (False,)   # the argument structure of a call with one array


def _named(err: ShapeError, block) -> ShapeError:
    """``err`` with the innermost block it was raised in named in front (once: the blocks
    around it let it pass unchanged); the traceback kept."""
    if getattr(err, "_mx_block", None) is not None:
        return err
    new = type(err)(f"{block.name} ({type(block).__name__}): {err}")
    new._mx_block = block.name     # type: ignore[attr-defined]
    return new.with_traceback(err.__traceback__)


def _check_hybrid_call(block, args, mix_only: bool = False) -> None:
    """What MXNet refuses in a call of a hybridized block: a Python scalar among the
    inputs, NDArrays mixed with Symbols (any HybridBlock, ``mix_only``), and ``None`` in
    other places than at the block's first call since ``hybridize()`` (trailing ``None``s
    are omitted arguments)."""
    kinds = set()
    for a in args:
        for b in (a if isinstance(a, (list, tuple)) else (a,)):
            if not mix_only and isinstance(b, Number) and not isinstance(b, bool):
                raise StateError(
                    f"HybridBlock {block.name} is hybridized and got the scalar {b!r} as an "
                    f"input; as in MXNet, inputs of a hybridized block are arrays (or None): "
                    f"pass mx.nd.array([{b!r}]), or make the value a constructor argument")
            if b is not None:
                kinds.add(Symbol if isinstance(b, Symbol) else NDArray)
    if len(kinds) > 1:
        raise StateError(f"HybridBlock {block.name} got NDArrays and Symbols in one call; pass "
                         f"all inputs as NDArrays (to compute) or all as Symbols (to trace)")
    if mix_only:
        return
    m = len(args)
    while m and args[m - 1] is None:       # a trailing None is an omitted argument
        m -= 1
    structure = tuple(a is None for a in args[:m])
    first = block.__dict__.get("_in_structure")
    if first is None:
        block.__dict__["_in_structure"] = structure
    elif structure != first:
        fmt = lambda st: "(" + ", ".join("None" if n else "input" for n in st) + ")"  # noqa
        raise StateError(
            f"The argument structure of HybridBlock {block.name} does not match the cached "
            f"version: it was first called with {fmt(first)}, now with {fmt(structure)}. "
            f"Call hybridize() again to trace it anew, or pass the same structure")


def _input_specs(args):
    return tuple((a.shape, a.dtype) if isinstance(a, NDArray) else None for a in args)


def _symbols_in(out) -> List[Symbol]:
    """The Symbols of ``out`` (a Symbol, or lists and tuples of them, nested)."""
    flat: List[Symbol] = []
    stack = [out]
    while stack:
        o = stack.pop()
        if isinstance(o, (list, tuple)):
            stack.extend(o)
        elif isinstance(o, Symbol):
            flat.append(o)
    return flat


class SymbolBlock(HybridBlock):
    """A block running a Symbol graph (e.g. a model exported by MXNet).

    Every variable that is not one of ``inputs`` becomes a Parameter named like the
    variable (auxiliary states such as BatchNorm's running statistics with
    ``grad_req='null'``). The graph runs through ``mx.nd``, so it is differentiable and
    trainable; in training mode BatchNorm uses batch statistics and updates its
    running statistics (in the forward call, see COMPATIBILITY.md).

    Parameters
    ----------
    outputs : Symbol or list of Symbol
    inputs : Symbol or list of Symbol
        The variables fed by the call's arguments, in order.
    params : ParameterDict, optional
        Parameters to share.

    Examples
    --------
    >>> import mxgrad as mx
    >>> x = mx.sym.var('data')
    >>> y = mx.sym.Activation(mx.sym.FullyConnected(x, num_hidden=2, name='fc'),
    ...                       act_type='relu', name='relu')
    >>> blk = mx.gluon.SymbolBlock(y, x)
    >>> sorted(blk.collect_params().keys())
    ['fc_bias', 'fc_weight']
    >>> blk.initialize(mx.init.One())        # biases (and BatchNorm offsets) start at 0
    >>> blk(mx.nd.ones((1, 3))).asnumpy().tolist()
    [[3.0, 3.0]]
    >>> blk
    SymbolBlock(
      inputs: data
      outputs: relu_output
      ops: FullyConnected, Activation
      parameters: fc_weight (2, 3), fc_bias (2,)
    )
    """

    def __repr__(self) -> str:
        ops: Dict[str, int] = {}
        for n in self._sym._nodes():
            if n.op != "null":
                ops[n.op] = ops.get(n.op, 0) + 1
        op_list = ", ".join(op if k == 1 else f"{op} x{k}" for op, k in ops.items())
        params = ", ".join(f"{p.name} {p.shape if p.shape is not None else '(deferred)'}"
                           for p in self.params.values())
        return (f"SymbolBlock(\n  inputs: {', '.join(self._in_names)}\n"
                f"  outputs: {', '.join(self._sym.list_outputs())}\n"
                f"  ops: {op_list or 'none'}\n  parameters: {params or 'none'}\n)")

    def __init__(self, outputs, inputs, params=None):
        super().__init__(prefix="", params=None)
        self._prefix = ""
        self._params = ParameterDict("", params)
        if isinstance(outputs, (list, tuple)):
            outputs = _sym.Group(list(outputs)) if len(outputs) != 1 else outputs[0]
        if not isinstance(outputs, Symbol):
            raise StateError(f"SymbolBlock: outputs must be a Symbol, got "
                             f"{type(outputs).__name__}")
        if isinstance(inputs, Symbol):
            inputs = list(inputs) if len(inputs._outputs) > 1 else [inputs]
        in_names = []
        for s in inputs:
            if not isinstance(s, Symbol) or len(s._outputs) != 1 or \
                    s._outputs[0][0].op != "null":
                raise StateError("SymbolBlock: inputs must be variables (mx.sym.var)")
            in_names.append(s.name)
        nodes = outputs._nodes()
        known = {n.name for n in nodes if n.op == "null"}
        for n in in_names:
            if n not in known:
                raise StateError(f"SymbolBlock: input '{n}' is not a variable of the "
                                 f"graph, whose variables are {sorted(known)}")
        self._sym = outputs
        self._in_names = in_names
        labels = set()
        for n in nodes:
            if n.op in _LABEL_OPS and len(n.inputs) > 1 and n.inputs[1][0].op == "null":
                labels.add(n.inputs[1][0].name)
        self._label_names = labels - set(in_names)
        aux = set(outputs.list_auxiliary_states())
        for n in nodes:
            if n.op != "null" or n.name in in_names or n.name in self._label_names:
                continue
            shape = _known_param_shape(n)
            init = n.attrs.get("__init__") or _default_init(n.name)
            if n.name in aux:
                self.params.get(n.name, grad_req="null", allow_deferred_init=True,
                                shape=shape, differentiable=False, init=init)
            else:
                self.params.get(n.name, allow_deferred_init=True, shape=shape, init=init)

    @staticmethod
    def imports(symbol_file: str, input_names: Union[str, Sequence[str]],
                param_file: Optional[str] = None,
                ctx: Union[Context, Sequence[Context], None] = None, allow_missing: bool = False,
                ignore_extra: bool = False):
        """Load a model exported by MXNet (or mxgrad): ``symbol_file`` from
        ``export``, the ``input_names`` it is fed with, the ``param_file`` with its
        ``arg:``/``aux:`` parameters.

        An operator mxgrad cannot run raises an error naming it and its node here.
        """
        sym = _sym.load(symbol_file)
        if isinstance(input_names, str):
            input_names = [input_names]
        inputs = [_sym.var(n) for n in input_names]
        ret = SymbolBlock(sym, [_find_var(sym, v.name) for v in inputs])
        if param_file is not None:
            ret.collect_params().load(param_file, ctx=ctx, allow_missing=allow_missing,
                                      ignore_extra=ignore_extra)
        return ret

    def _param_values(self, x):
        params = self.params
        try:
            return {k: p.data() for k, p in params.items()}
        except DeferredInitializationError:
            self._infer_param_shapes(x)
            for p in params.values():
                p._finish_deferred_init()
            return {k: p.data() for k, p in params.items()}

    def _infer_param_shapes(self, x):
        """Set the shapes of the parameters not known yet from the inputs ``x``: partial
        shape inference over the graph (the operators' rules), as MXNet does."""
        given = {n: a.shape for n, a in zip(self._in_names, x)}
        given.update((k, p.shape) for k, p in self.params.items() if shape_is_known(p.shape))
        wanted = {k for k, p in self.params.items() if not shape_is_known(p.shape)}
        shapes = _var_shapes(self._sym, given, wanted)
        left = sorted(wanted - set(shapes))
        if left:
            raise DeferredInitializationError(
                f"Deferred initialization failed because shape cannot be inferred: "
                f"SymbolBlock's parameters {left} get no shape from inputs of shape "
                f"{[tuple(a.shape) for a in x]}; give them shapes (Parameter.shape, "
                f"mx.sym.var(..., shape=)) or load a parameter file")
        for k, shape in shapes.items():
            self.params[k].shape = shape

    def _symbolic_forward(self, x, *args):
        """The graph with its inputs replaced by the given Symbols and its parameters
        by their variables (so an imported model can be part of an exported one)."""
        inputs = (x,) + args
        if len(inputs) != len(self._in_names) or not all(
                isinstance(i, Symbol) for i in inputs):
            raise StateError(f"SymbolBlock takes {len(self._in_names)} Symbol input(s) "
                             f"{self._in_names}")
        with _tracing():
            mapping = dict(zip(self._in_names, inputs))
            for name, p in self.params.items():
                mapping[name] = _param_var(p)
            out = self._sym._substitute(mapping)
        return out if len(out._outputs) == 1 else list(out)

    def forward(self, x, *args):
        if isinstance(x, Symbol) or _has_symbol(args):
            return self._symbolic_forward(x, *args)
        inputs = (x,) + args
        if len(inputs) != len(self._in_names):
            raise StateError(f"SymbolBlock takes {len(self._in_names)} input(s) "
                             f"{self._in_names}, got {len(inputs)}")
        if self._active and self._in_specs is None:
            self._in_specs = _input_specs(inputs)
        # as MXNet's SymbolBlock (a cached op), the graph runs planned, hybridized or not
        r = _call_planned(self, inputs)
        if r is not _NOT_PLANNED:
            return r
        values = self._param_values(inputs)
        values.update(zip(self._in_names, inputs))
        outs = _sym.evaluate(self._sym, values)
        return outs[0] if len(outs) == 1 else outs

    def hybrid_forward(self, F, x, *args, **kwargs):
        raise NotImplementedError("SymbolBlock runs its Symbol graph")

    def _plan_symbol(self):
        return self._sym, self._in_names


def _find_var(sym, name):
    for n in sym._nodes():
        if n.op == "null" and n.name == name:
            return Symbol([(n, 0)])
    raise StateError(f"SymbolBlock.imports: the graph has no input named '{name}'; its "
                     f"variables are {sym.list_inputs()}")


def _default_init(name):
    """The initializer a parameter named ``name`` needs whatever the global one is
    (normalization statistics and offsets), as the Gluon layers set it."""
    if name.endswith(("running_var", "moving_var", "gamma")):
        return "ones"
    if name.endswith(("running_mean", "moving_mean", "beta", "bias")):
        return "zeros"
    return None


def _known_param_shape(node):
    """A variable's ``__shape__`` when every dimension is known (one reading: the Symbol
    core's), else None."""
    return _known_shape(node) or None



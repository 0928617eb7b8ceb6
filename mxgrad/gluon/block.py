"""Gluon blocks: :class:`Block`, :class:`HybridBlock` (and a :class:`SymbolBlock` stub).

Blocks assigned as attributes become children, parameters assigned as attributes are
registered, and names follow MXNet 1.x: a per-class counter gives ``dense0_``,
``dense1_``... at top level, and a child created inside its parent's ``name_scope()``
gets the parent's prefix (``mlp0_dense0_``).

``HybridBlock.hybrid_forward(F, x, *args, **params)`` receives ``F = mx.nd`` and the
block's registered parameters as keyword NDArrays. ``hybridize()`` is accepted and the
block keeps running imperatively (there is no symbolic graph in mxgrad). Layers reading
``autograd.is_training()`` (Dropout, BatchNorm) do so at call time.

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

import re
import threading
import warnings
from collections import OrderedDict, defaultdict

from ..base import MXNetError, ShapeError, StateError
from ..context import current_context
from .. import ndarray as nd
from ..ndarray.ndarray import NDArray
from .. import initializer
from .parameter import Parameter, ParameterDict, DeferredInitializationError, _LoadError
from .parameter import _check_dtype_source
from .utils import _indent, _brief_print_list, HookHandle, shape_is_known
from .utils import _placed, placed_context

__all__ = ["Block", "HybridBlock", "SymbolBlock"]


class _NameManager(threading.local):
    """Per-thread counters for top-level block names (``dense0``, ``dense1``...)."""

    def __init__(self):
        self.counter = {}

    def get(self, hint: str) -> str:
        n = self.counter.get(hint, 0)
        self.counter[hint] = n + 1
        return f"{hint}{n}"


_names = _NameManager()


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
            if prefix is None:
                prefix = _names.get(hint) + "_"
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


def _has_ndarray(args) -> bool:
    if isinstance(args, NDArray):
        return True
    if isinstance(args, (list, tuple)):
        return any(_has_ndarray(a) for a in args)
    return False


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

    def __init__(self, prefix=None, params=None):
        self._empty_prefix = prefix == ""
        self._prefix, self._params = _BlockScope.create(prefix, params, self._alias())
        self._name = self._prefix[:-1] if self._prefix.endswith("_") else self._prefix
        self._scope = _BlockScope(self)
        self._children = OrderedDict()
        self._reg_params = {}
        self._forward_hooks = OrderedDict()
        self._forward_pre_hooks = OrderedDict()

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
                    warnings.warn(f'"{self.__class__.__name__}.{k}" is an unregistered '
                                  f'container with Blocks. Note that Blocks inside the list, '
                                  f'tuple or dict will not be registered automatically. Make '
                                  f'sure to register them using register_child() or '
                                  f'switching to nn.Sequential/nn.HybridSequential instead. ',
                                  stacklevel=3)

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

    def name_scope(self):
        """A ``with`` scope in which new child blocks get this block's prefix."""
        return self._scope

    @property
    def params(self) -> ParameterDict:
        """This block's own ParameterDict (children's parameters not included)."""
        return self._params

    def collect_params(self, select=None) -> ParameterDict:
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
        if deduplicate:
            reverse = {}
            for k, v in params.items():
                reverse.setdefault(id(v), (k, v))
            params = {k: v for k, v in reverse.values()}
        nd.save(filename, {key: val._reduce() for key, val in params.items()})

    def save_params(self, filename: str) -> None:
        """Deprecated: save with full parameter names (use :meth:`save_parameters`)."""
        warnings.warn("save_params is deprecated. Please use save_parameters.",
                      stacklevel=2)
        self.collect_params().save(filename, strip_prefix=self.prefix)

    def load_parameters(self, filename: str, ctx=None, allow_missing: bool = False,
                        ignore_extra: bool = False, cast_dtype: bool = False,
                        dtype_source: str = "current") -> None:
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

    def load_params(self, filename, ctx=None, allow_missing=False, ignore_extra=False):
        """Deprecated alias of :meth:`load_parameters`."""
        warnings.warn("load_params is deprecated. Please use load_parameters.",
                      stacklevel=2)
        self.load_parameters(filename, ctx, allow_missing, ignore_extra)

    # ------------------------------------------------------------- structure
    def register_child(self, block, name=None) -> None:
        """Register ``block`` as a child (done automatically for attributes)."""
        if name is None:
            name = str(len(self._children))
        self._children[name] = block

    def register_forward_pre_hook(self, hook) -> HookHandle:
        """Call ``hook(block, inputs)`` before each forward; returns a handle."""
        handle = HookHandle()
        handle.attach(self._forward_pre_hooks, hook)
        return handle

    def register_forward_hook(self, hook) -> HookHandle:
        """Call ``hook(block, inputs, output)`` after each forward; returns a handle."""
        handle = HookHandle()
        handle.attach(self._forward_hooks, hook)
        return handle

    def apply(self, fn):
        """Apply ``fn(block)`` to every child recursively, then to this block."""
        for cld in self._children.values():
            cld.apply(fn)
        fn(self)
        return self

    def initialize(self, init=initializer.Uniform(), ctx=None, verbose=False,
                   force_reinit=False) -> None:
        """Initialize all parameters (``collect_params().initialize(...)``).

        ``init`` is used for parameters without their own initializer (MXNet's default
        is ``Uniform(0.07)``); a second call only warns unless ``force_reinit``."""
        self.collect_params().initialize(init, ctx, verbose, force_reinit)

    def hybridize(self, active=True, **kwargs) -> None:
        """Hybridize the HybridBlock children (mxgrad keeps running imperatively)."""
        for cld in self._children.values():
            cld.hybridize(active, **kwargs)

    def cast(self, dtype) -> None:
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

    def __call__(self, *args):
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

    def register_op_hook(self, callback, monitor_all=False):
        """Not supported (no executor in mxgrad); accepted for the children."""
        for cld in self._children.values():
            cld.register_op_hook(callback, monitor_all)

    def summary(self, *inputs) -> None:
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
        summary = OrderedDict()
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

        def _register(block):
            from .nn.basic_layers import Sequential, HybridSequential
            if not isinstance(block, (Sequential, HybridSequential)):
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
    named after their attributes. Parameters with unknown dimensions get their shape
    from the first input (layers implement ``_param_shapes``), and a mismatch between a
    layer's parameters and its input raises an error naming the layer and both shapes.

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

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._active = False
        self._flags = []
        self._cached_graph = ()

    def hybridize(self, active=True, backend=None, backend_opts=None, clear=True,
                  static_alloc=False, static_shape=False, **kwargs) -> None:
        """Mark the block hybridized. mxgrad has no graph compiler: the block keeps
        running ``hybrid_forward`` imperatively, with identical results."""
        self._active = active
        self._flags = [("static_alloc", static_alloc), ("static_shape", static_shape)]
        super().hybridize(active, **kwargs)

    def _param_shapes(self, x, *args):
        """Shapes of this layer's parameters implied by the input (None: no rule)."""
        return None

    def _apply_param_shapes(self, x, *args):
        expected = self._param_shapes(x, *args)
        if not expected:
            return
        for attr, shape in expected.items():
            p = self._reg_params.get(attr)
            if p is None:
                continue
            cur = p.shape
            if cur == shape:
                continue
            if cur is None or (len(cur) == len(shape) and all(
                    c in (0, -1, s) for c, s in zip(cur, shape))):
                p.shape = shape
                continue
            raise ShapeError(
                f"{self.name} ({self.__class__.__name__}): an input of shape "
                f"{getattr(x, 'shape', None)} needs parameter '{p.name}' of shape {shape}, "
                f"but it has shape {cur}")

    def infer_shape(self, *args) -> None:
        """Infer the shapes of this layer's parameters from example inputs."""
        if self._param_shapes(*args) is None:
            raise MXNetError(
                f"{self.name}: mxgrad infers parameter shapes layer by layer at the first "
                f"forward pass (there is no symbolic graph); give the full shapes of "
                f"{self.__class__.__name__}'s parameters or run it on a batch")
        self._apply_param_shapes(*args)

    def infer_type(self, *args) -> None:
        """Parameter dtypes are set at construction (or with cast) in mxgrad."""

    def _deferred_infer_shape(self, *args):
        try:
            self.infer_shape(*args)
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
                and not self._forward_hooks and type(self).forward is _HYBRID_FORWARD:
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
        """Gather the parameters and call ``hybrid_forward(mx.nd, x, *args, **params)``."""
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
            self._apply_param_shapes(x, *args)
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
            return self.hybrid_forward(nd, x, *args, **params)
        return self.hybrid_forward(nd, x, *args)

    def hybrid_forward(self, F, x, *args, **kwargs):
        """Override to define the computation with ``F`` (``mx.nd``)."""
        raise NotImplementedError(f"{self.__class__.__name__} must implement "
                                  f"hybrid_forward()")

    def export(self, path, epoch=0, remove_amp_cast=True):
        """Not available: mxgrad has no Symbol graph to export. Use
        :meth:`save_parameters` (and rebuild the network in Python) instead."""
        raise MXNetError(f"{self.name}.export(): mxgrad has no symbolic graph to export; "
                         f"use save_parameters()/load_parameters() instead")

    def optimize_for(self, x, *args, backend=None, **kwargs):
        """Accepted for compatibility: hybridizes and runs a forward pass."""
        self.hybridize(True)
        return self(x, *args)


_HYBRID_FORWARD = HybridBlock.forward


class SymbolBlock(HybridBlock):
    """MXNet's block built from a Symbol graph: not available in mxgrad."""

    def __init__(self, outputs=None, inputs=None, params=None):
        raise MXNetError("SymbolBlock needs MXNet's Symbol API, which mxgrad does not "
                         "have; build the network from Gluon layers instead")

    @staticmethod
    def imports(symbol_file, input_names, param_file=None, ctx=None, **kwargs):
        raise MXNetError("SymbolBlock.imports needs MXNet's Symbol API, which mxgrad does "
                         "not have; rebuild the network in Python and use "
                         "load_parameters()")

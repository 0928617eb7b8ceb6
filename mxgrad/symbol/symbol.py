"""``Symbol``'s face: :class:`SymbolMethods`, the class body of every Symbol method that
needs a module built on the Symbol class, and MXNet's module ``mxgrad.symbol.symbol``
(``Symbol``, ``var``, ``Group``, ``load``, ``load_json``...).

:class:`~mxgrad.symbol._core.Symbol` (``symbol/_core.py``, the bottom of the package) holds
a graph's state and the methods that need nothing above it. Shape and dtype inference
(``_shape``, ``_dtype``), the operators and fluent methods (``_ops``: ``x + y``,
``x.reshape(...)``), ``bind``/``simple_bind`` (``_executor``), ``eval`` (``_evaluate``) and
the JSON format (``_json``) are modules that import Symbol, so the methods that use them
are defined here, in :class:`SymbolMethods`, Symbol's base class: this class body and the
core's are the Symbol API a reader and a type checker see; no module attaches methods to
Symbol. Symbol is declared in the core with a slot-less stand-in base, which this module
replaces (one ``__bases__`` assignment, below the class), as ``ndarray/_methods.py`` does
for NDArray. ``mx.sym`` (``symbol/__init__.py``) imports this module, so every program
that can reach a Symbol has its methods.

Examples
--------
>>> import mxgrad as mx
>>> from mxgrad.symbol.symbol import Symbol, SymbolMethods
>>> Symbol.__mro__[1] is SymbolMethods and mx.sym.Symbol is Symbol
True
>>> x = mx.sym.var('data')
>>> y = mx.sym.FullyConnected(x, num_hidden=3, name='fc')
>>> z = load_json(y.tojson())
>>> z.list_arguments() == y.list_arguments()
True
"""
from __future__ import annotations

import warnings
from typing import Any, Callable, List, Optional, Tuple

import numpy as np

from .._engine.ndarray import NDArray
from ..base import MXNetError, NotImplementedForSymbol, ShapeError, DTypeError
from ..util import is_np_shape
from ._core import Symbol, Group, var, Variable, _aux_ids
from ._core import example_var  # noqa: F401  (this path's names, as before the split)
from . import _dtype, _executor, _json, _ops, _shape
from ._evaluate import evaluate
from ._evaluate import with_inferred_shapes  # noqa: F401
from ._json import load, load_json

__all__ = ["Symbol", "SymbolMethods", "var", "Variable", "Group", "load", "load_json",
           "evaluate", "split_v2"]


def _fluent(op: str, hint: Optional[str] = None) -> Callable[..., Symbol]:
    """The method ``x.<hint>(...)``: ``mx.sym.<hint>(x, ...)``, a node of ``op``."""
    hint = hint or op

    def method(self, *args, **kwargs):
        return _ops.call(op, hint, (self,) + args, kwargs)
    method.__name__ = hint
    method.__doc__ = f"``mx.sym.{hint}(self, ...)``."
    return method


def _nd_only(name: str) -> Callable[..., Any]:
    def method(self, *args, **kwargs):
        raise NotImplementedForSymbol(method, None, *args)
    method.__name__ = name
    method.__doc__ = "NDArray only: raises :class:`~mxgrad.base.NotImplementedForSymbol`."
    return method


class SymbolMethods:
    """The methods of :class:`~mxgrad.symbol._core.Symbol` that need the modules built on
    it: inference, the operators, binding, JSON (see the module docstring).

    Examples
    --------
    >>> import mxgrad as mx
    >>> y = mx.sym.FullyConnected(mx.sym.var('x'), num_hidden=2, name='fc')
    >>> (y * 2).reshape((-1,)).infer_shape(x=(4, 3))[1]
    [(8,)]
    """

    __slots__ = ()
    _outputs: Tuple[Any, ...]
    _labels: Optional[tuple]

    # ------------------------------------------------------------- inference
    def infer_shape(self, *args, **shapes):
        """``(arg_shapes, out_shapes, aux_shapes)`` from the shapes of some variables.

        Shapes come as keywords, positionally (in :meth:`list_arguments` order, ``None``
        for unknown) or from variables' ``__shape__`` attributes, and may be partial
        (``0`` for an unknown dimension; ``-1`` under ``mx.np_shape()``). They flow forward
        and backward through the operators' shape rules (see :mod:`mxgrad.symbol._shape`).
        If some shape stays unknown, MXNet's warning names the arguments and
        ``(None, None, None)`` is returned; shapes that contradict each other raise
        :class:`~mxgrad.base.ShapeError` naming the operator.

        Examples
        --------
        >>> import mxgrad as mx
        >>> y = mx.sym.FullyConnected(mx.sym.var('x'), num_hidden=2, name='fc')
        >>> y.infer_shape(x=(4, 3))
        ([(4, 3), (2, 3), (2,)], [(4, 2)], [])
        """
        res = self._infer_shape_impl(args, shapes)
        if all(_shape_known(s) for part in res for s in part):
            return res
        unknown = [f"{name}: {s}" for name, s in zip(self.list_arguments(), res[0])
                   if not _shape_known(s)][:10]
        warnings.warn("Cannot decide shape for the following arguments (0s in shape means "
                      "unknown dimensions). Consider providing them as input:\n\t"
                      + "\n\t".join(unknown), stacklevel=2)
        return None, None, None

    def infer_shape_partial(self, *args, **shapes):
        """:meth:`infer_shape`, returning what is known: ``()`` for an unknown shape and
        ``0`` for an unknown dimension (``None`` and ``-1`` under ``mx.np_shape()``).

        Examples
        --------
        >>> import mxgrad as mx
        >>> mx.sym.FullyConnected(mx.sym.var('x'), num_hidden=2).infer_shape_partial()
        ([(), (), ()], [()], [])
        """
        return self._infer_shape_impl(args, shapes)

    def _given(self, args, kwargs, what, convert):
        names = self.list_arguments()
        if len(args) > len(names):
            raise ShapeError(f"infer_{what}: {len(args)} positional {what}s for "
                             f"{len(names)} arguments {names}")
        given = {n: convert(v) for n, v in zip(names, args) if v is not None}
        inputs = self.list_inputs()
        for k, v in kwargs.items():
            if k not in inputs:
                raise ShapeError(f"infer_{what}: keyword argument name {k} not found; "
                                 f"candidate arguments: {inputs}")
            if v is not None:
                given[k] = convert(v)
        return given

    def _infer_shape_impl(self, args, kwargs):
        given = self._given(args, kwargs, "shape", _shape.from_user)
        nodes = self._nodes()
        entries = _shape.infer(self, given)
        aux = _aux_ids(nodes)
        to = _shape.to_user
        return ([to(entries[(id(n), 0)]) for n in nodes if n.is_var and id(n) not in aux],
                [to(entries.get((id(n), i))) for n, i in self._outputs],
                [to(entries[(id(n), 0)]) for n in nodes if n.is_var and id(n) in aux])

    def _infer_type_impl(self, args, kwargs):
        given = self._given(args, kwargs, "type", _dtype.as_dtype)
        nodes = self._nodes()
        entries = _dtype.infer(self, given)
        aux = _aux_ids(nodes)

        def to(t):
            return None if t is None else t.type
        return ([to(entries[(id(n), 0)]) for n in nodes if n.is_var and id(n) not in aux],
                [to(entries.get((id(n), i))) for n, i in self._outputs],
                [to(entries[(id(n), 0)]) for n in nodes if n.is_var and id(n) in aux])

    def infer_type(self, *args, **types):
        """``(arg_types, out_types, aux_types)`` from the dtypes of some variables (as
        keywords or positionally, or their ``dtype``); ``(None, None, None)`` with MXNet's
        warning when some stay unknown; see :mod:`mxgrad.symbol._dtype`.

        Examples
        --------
        >>> import mxgrad as mx
        >>> mx.sym.FullyConnected(mx.sym.var('x'), num_hidden=2).infer_type(x='float64')[1]
        [<class 'numpy.float64'>]
        """
        res = self._infer_type_impl(args, types)
        if all(t is not None for part in res for t in part):
            return res
        unknown = [f"{name}: None" for name, t in zip(self.list_arguments(), res[0])
                   if t is None][:10]
        warnings.warn("Cannot decide type for the following arguments. Consider providing "
                      "them as input:\n\t" + "\n\t".join(unknown), stacklevel=2)
        return None, None, None

    def infer_type_partial(self, *args, **types):
        """:meth:`infer_type`, with ``None`` for the dtypes that cannot be worked out.

        Examples
        --------
        >>> import mxgrad as mx
        >>> mx.sym.Cast(mx.sym.var('x'), dtype='float16').infer_type_partial()
        ([None], [<class 'numpy.float16'>], [])
        """
        return self._infer_type_impl(args, types)

    # ------------------------------------------------------------- composing
    def _gen_atomic_symbol(self) -> "Symbol":
        """A new node with this Symbol's operator and attributes, on fresh variables
        (MXNet's ``_gen_atomic_symbol``)."""
        node = self._outputs[0][0]
        if node.is_var:
            raise MXNetError("_gen_atomic_symbol: a variable has no operator")
        attrs = {k: v for k, v in node.attrs.items() if not k.startswith("__")}
        return _ops.call(node.op, node.op.lower(), (), dict(attrs, name=node.name))

    # ------------------------------------------------------------- running
    def bind(self, ctx, args, args_grad=None, grad_req="write", aux_states=None,
             group2ctx=None, shared_exec=None):
        """Bind arrays to the arguments: an :class:`~mxgrad.executor.Executor` that runs
        the graph forward and writes gradients into ``args_grad`` in backward.

        Parameters
        ----------
        ctx : Context
        args : list or dict of NDArray
            One array per argument (``list_arguments()`` order, or by name).
        args_grad : list or dict of NDArray, optional
            Gradient buffers (by name, some may be left out: no gradient).
        grad_req : {'write', 'add', 'null'}, list or dict
            How gradients are stored, for all arguments or per argument.
        aux_states : list or dict of NDArray, optional
            The auxiliary states (BatchNorm's running statistics).

        Examples
        --------
        >>> import mxgrad as mx
        >>> x = mx.sym.var('x')
        >>> ex = (x * x).bind(mx.cpu(), {'x': mx.nd.array([3.0])},
        ...                   args_grad={'x': mx.nd.zeros(1)})
        >>> ex.forward(is_train=True)[0].asnumpy().tolist()
        [9.0]
        >>> ex.backward(mx.nd.ones(1)); ex.grad_dict['x'].asnumpy().tolist()
        [6.0]
        """
        return _executor.bind(self, ctx, args, args_grad, grad_req, aux_states, group2ctx,
                              shared_exec)

    _bind = bind

    def simple_bind(self, ctx, grad_req="write", type_dict=None, stype_dict=None,
                    group2ctx=None, shared_arg_names=None, shared_exec=None,
                    shared_buffer=None, **kwargs):
        """Bind zero-filled arrays shaped from the given input shapes (``data=(n, k)``):
        shapes and dtypes (``type_dict``) of every argument are inferred; gradient buffers
        are made for arguments whose ``grad_req`` is not ``'null'``. With ``shared_exec``
        the arrays of equal name, shape and dtype are shared with that executor.

        Examples
        --------
        >>> import mxgrad as mx
        >>> y = mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=2, name='fc')
        >>> ex = y.simple_bind(mx.cpu(), data=(4, 3))
        >>> [a.shape for a in ex.arg_arrays]
        [(4, 3), (2, 3), (2,)]
        """
        return _executor.simple_bind(self, ctx, grad_req, type_dict, stype_dict, group2ctx,
                                     shared_arg_names, shared_exec, shared_buffer, **kwargs)

    def eval(self, ctx=None, **kwargs) -> List[NDArray]:
        """Run the graph on the NDArrays given by variable name; a list of outputs."""
        return evaluate(self, kwargs)  # type: ignore[arg-type]

    # ------------------------------------------------------------- JSON
    def tojson(self, remove_amp_cast: bool = True) -> str:
        """The graph in MXNet 1.x's JSON format (what ``*-symbol.json`` files hold)."""
        return _json.dumps(self)  # type: ignore[arg-type]

    def save(self, fname: str, remove_amp_cast: bool = True) -> None:
        """Write :meth:`tojson` to ``fname`` (atomically)."""
        _json.save(self, fname)  # type: ignore[arg-type]

    def __reduce__(self):
        # pickled as its JSON, as MXNet does
        return (load_json, (self.tojson(),))

    def __deepcopy__(self, memo):
        return load_json(self.tojson())

    # ------------------------------------------------------------- arithmetic
    def _binary(self, other, op, hint, sop, shint, reverse=False):
        if isinstance(other, Symbol):
            a, b = (other, self) if reverse else (self, other)
            return _ops.make(op, [a, b], {}, None, hint)
        if isinstance(other, (int, float, np.number)) and not isinstance(other, bool) \
                or isinstance(other, np.bool_):
            return _ops.make(sop, [self], {"scalar": other}, None, shint)
        if isinstance(other, bool):
            return _ops.make(sop, [self], {"scalar": int(other)}, None, shint)
        return NotImplemented

    def __add__(self, o):
        return self._binary(o, "elemwise_add", "_plus", "_plus_scalar", "_plusscalar")

    __radd__ = __add__

    def __sub__(self, o):
        return self._binary(o, "elemwise_sub", "_minus", "_minus_scalar", "_minusscalar")

    def __rsub__(self, o):
        return self._binary(o, "elemwise_sub", "_minus", "_rminus_scalar",
                            "_rminusscalar", True)

    def __mul__(self, o):
        return self._binary(o, "elemwise_mul", "_mul", "_mul_scalar", "_mulscalar")

    __rmul__ = __mul__

    def __truediv__(self, o):
        return self._binary(o, "elemwise_div", "_div", "_div_scalar", "_divscalar")

    def __rtruediv__(self, o):
        return self._binary(o, "elemwise_div", "_div", "_rdiv_scalar", "_rdivscalar", True)

    __div__, __rdiv__ = __truediv__, __rtruediv__

    def __mod__(self, o):
        return self._binary(o, "_mod", "_mod", "_mod_scalar", "_modscalar")

    def __rmod__(self, o):
        return self._binary(o, "_mod", "_mod", "_rmod_scalar", "_rmodscalar", True)

    def __pow__(self, o):
        return self._binary(o, "_power", "_power", "_power_scalar", "_powerscalar")

    def __rpow__(self, o):
        return self._binary(o, "_power", "_power", "_rpower_scalar", "_rpowerscalar", True)

    def __neg__(self):
        return self.__mul__(-1.0)

    def __eq__(self, o):
        return self._binary(o, "_equal", "_equal", "_equal_scalar", "_equalscalar")

    def __ne__(self, o):
        return self._binary(o, "_not_equal", "_not_equal", "_not_equal_scalar",
                            "_notequalscalar")

    def __gt__(self, o):
        return self._binary(o, "_greater", "_greater", "_greater_scalar", "_greaterscalar")

    def __ge__(self, o):
        return self._binary(o, "_greater_equal", "_greater_equal", "_greater_equal_scalar",
                            "_greaterequalscalar")

    def __lt__(self, o):
        return self._binary(o, "_lesser", "_lesser", "_lesser_scalar", "_lesserscalar")

    def __le__(self, o):
        return self._binary(o, "_lesser_equal", "_lesser_equal", "_lesser_equal_scalar",
                            "_lesserequalscalar")

    __hash__ = object.__hash__

    def __abs__(self) -> "Symbol":
        return _ops.call("abs", "abs", (self,), {})

    # ------------------------------------------------------------- fluent methods
    def astype(self, dtype) -> "Symbol":
        return _ops.make("Cast", [self], {"dtype": dtype}, None, "cast")

    def split_v2(self, indices_or_sections, axis=0, squeeze_axis=False, **kwargs):
        """``mx.sym.split_v2(self, ...)``."""
        return split_v2(self, indices_or_sections, axis, squeeze_axis, **kwargs)

    # MXNet's fluent methods: ``x.<name>(...)`` is ``mx.sym.<name>(x, ...)``
    arccos = _fluent("arccos")
    arccosh = _fluent("arccosh")
    arcsin = _fluent("arcsin")
    arcsinh = _fluent("arcsinh")
    arctan = _fluent("arctan")
    arctanh = _fluent("arctanh")
    cbrt = _fluent("cbrt")
    cos = _fluent("cos")
    cosh = _fluent("cosh")
    degrees = _fluent("degrees")
    expm1 = _fluent("expm1")
    fix = _fluent("fix")
    log10 = _fluent("log10")
    log1p = _fluent("log1p")
    log2 = _fluent("log2")
    nanprod = _fluent("nanprod")
    nansum = _fluent("nansum")
    radians = _fluent("radians")
    rcbrt = _fluent("rcbrt")
    rint = _fluent("rint")
    rsqrt = _fluent("rsqrt")
    sin = _fluent("sin")
    sinh = _fluent("sinh")
    softmin = _fluent("softmin")
    tan = _fluent("tan")
    trunc = _fluent("trunc")
    argmax_channel = _fluent("argmax_channel")
    argsort = _fluent("argsort")
    sort = _fluent("sort")
    topk = _fluent("topk")
    diag = _fluent("diag")
    depth_to_space = _fluent("depth_to_space")
    space_to_depth = _fluent("space_to_depth")
    shape_array = _fluent("shape_array")
    size_array = _fluent("size_array")
    reshape_like = _fluent("reshape_like")
    broadcast_like = _fluent("broadcast_like")
    slice_like = _fluent("slice_like")
    slice = _fluent("slice")
    broadcast_axes = _fluent("broadcast_axis", "broadcast_axes")
    pad = _fluent("Pad", "pad")
    reshape = _fluent("Reshape", "reshape")
    flatten = _fluent("Flatten", "flatten")
    transpose = _fluent("transpose")
    expand_dims = _fluent("expand_dims")
    squeeze = _fluent("squeeze")
    sum = _fluent("sum")
    mean = _fluent("mean")
    max = _fluent("max")
    min = _fluent("min")
    prod = _fluent("prod")
    norm = _fluent("norm")
    argmax = _fluent("argmax")
    argmin = _fluent("argmin")
    softmax = _fluent("softmax")
    log_softmax = _fluent("log_softmax")
    relu = _fluent("relu")
    sigmoid = _fluent("sigmoid")
    tanh = _fluent("tanh")
    exp = _fluent("exp")
    log = _fluent("log")
    sqrt = _fluent("sqrt")
    square = _fluent("square")
    abs = _fluent("abs")
    clip = _fluent("clip")
    swapaxes = _fluent("SwapAxis", "swapaxes")
    split = _fluent("SliceChannel", "split")
    slice_axis = _fluent("slice_axis")
    tile = _fluent("tile")
    repeat = _fluent("repeat")
    broadcast_to = _fluent("broadcast_to")
    take = _fluent("take")
    pick = _fluent("pick")
    one_hot = _fluent("one_hot")
    zeros_like = _fluent("zeros_like")
    ones_like = _fluent("ones_like")
    flip = _fluent("reverse", "flip")
    sign = _fluent("sign")
    round = _fluent("round")
    floor = _fluent("floor")
    ceil = _fluent("ceil")
    reciprocal = _fluent("reciprocal")

    # NDArray's methods that a Symbol has no value for
    asnumpy = _nd_only("asnumpy")
    asscalar = _nd_only("asscalar")
    as_in_context = _nd_only("as_in_context")
    backward = _nd_only("backward")
    detach = _nd_only("detach")
    wait_to_read = _nd_only("wait_to_read")
    attach_grad = _nd_only("attach_grad")
    copyto = _nd_only("copyto")


# Symbol derives from SymbolMethods (see the module docstring): its stand-in base becomes
# this class. CPython rebuilds the method resolution order of Symbol and of the faces
# derived from it (mx.sym.np's _Symbol).
Symbol.__bases__ = (SymbolMethods,)


def _shape_known(s) -> bool:
    """Whether a shape as :meth:`Symbol.infer_shape` returns it is complete."""
    if s is None:
        return False
    if is_np_shape():
        return all(d >= 0 for d in s)
    return len(s) > 0 and all(d > 0 for d in s)


def split_v2(ary, indices_or_sections, axis=0, squeeze_axis=False, **kwargs) -> Symbol:
    """Split ``ary`` into equal sections (an int) or at the given indices (a tuple), as
    ``numpy.split`` (MXNet's ``_split_v2``).

    Examples
    --------
    >>> y = split_v2(var('x'), (1, 3), axis=1)
    >>> y.infer_shape(x=(2, 5))[1]
    [(2, 1), (2, 2), (2, 2)]
    """
    if isinstance(indices_or_sections, int):
        attrs = {"indices": "[]", "sections": indices_or_sections}
    elif isinstance(indices_or_sections, (tuple, list)):
        # MXNet writes the list as Python prints it: '[0, 1]'
        attrs = {"indices": str([0] + [int(i) for i in indices_or_sections]), "sections": 0}
    else:
        raise DTypeError("split_v2: indices_or_sections must either int or tuple of ints")
    return _ops.call("_split_v2", "_split_v2", (ary,),
                     dict(kwargs, axis=axis, squeeze_axis=squeeze_axis, **attrs))

"""NDArray's methods that the engine and the op table provide: one class body.

:class:`~mxgrad.ndarray.ndarray.NDArray` (the bottom floor) holds an array's state and the
methods that need nothing but NumPy; every method that needs the engine (``attach_grad``,
``backward``, ``grad``...) or an op (operators, ``reshape``, ``sum``, indexing...) is
defined here, in :class:`NDArrayMethods`, NDArray's base class. This class body is the
NDArray API a reader and a type checker see; no module attaches methods to NDArray.

Most entries are the op's ``mx.nd`` function itself (``sum = _reduce.sum``) or the
operator built by the fast-path factory (``__add__ = _OPS["__add__"]``): a method is the
function, so ``x.sum()`` and ``x + y`` cost no frame more than ``nd.sum(x)`` and the
operator. A method MXNet spells differently from the function (``x.reshape(2, 3)``,
``x.softmax()``...) is a short ``def`` here or a named method function in its op module.

Why a base class defined up here: the methods need the op table, which is built on the
NDArray class (outputs are made of that class), so they cannot exist when the bottom floor
defines NDArray. NDArray is declared there with a slot-less stand-in base, and this
module, once the op table exists, makes :class:`NDArrayMethods` that base (one
``__bases__`` assignment, below the class). For a type checker NDArray derives from
NDArrayMethods directly. ``mx.nd`` (``ndarray/__init__.py``) imports this module, so every
program that can reach an NDArray has its methods.

Examples
--------
>>> import mxgrad as mx
>>> from mxgrad.ndarray._methods import NDArrayMethods
>>> mx.nd.NDArray.__mro__[1] is NDArrayMethods
True
>>> (mx.nd.ones((2, 3)) * 2).sum(axis=1)
<BLANKLINE>
[6. 6.]
<NDArray 2 @cpu(0)>
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, ClassVar, Optional

import numpy as np

from ..base import InPlaceError, as_dtype
from .._typing import ArrayOrScalar, DTypeLike, GradReq, Scalar
from .._engine import graph as _graph
from .._engine.graph import Leaf, mark_variable, null_grad
from ..ops._apply import records
from ..autograd.function import Function
from ..ops import elemwise as _ew, reduce as _reduce, shape as _shape, indexing as _index
from ..ops import ordering as _order, linalg as _linalg, nn as _nn
from . import dlpack as _dlpack
from .._engine.ndarray import NDArray, wrap

__all__ = ["NDArrayMethods"]

# The types a checker gives the operators (built by a factory without a signature of
# their own); the elementwise ops' functions bind as methods by their type (UnaryOp).
_BinOp = Callable[[NDArray, ArrayOrScalar], NDArray]      # x + y, x + 2
_RBinOp = Callable[[NDArray, Scalar], NDArray]            # 2 + x
_UnOp = Callable[[NDArray], NDArray]                      # -x, abs(x)
_Cmp = Callable[[NDArray, object], NDArray]               # x == y (an array, not a bool)

_OPS = _ew.operators()   # NDArray's operators, built by the one operator factory


class NDArrayMethods:
    """The methods of :class:`~mxgrad.ndarray.ndarray.NDArray` backed by the engine and
    the op table (see the module docstring).

    Examples
    --------
    >>> import mxgrad as mx
    >>> x = mx.nd.array([[1., 2.], [3., 4.]])
    >>> x.T.reshape(4).asnumpy().tolist()
    [1.0, 3.0, 2.0, 4.0]
    """

    __slots__ = ()
    _data: np.ndarray
    _node: Any

    # ------------------------------------------------------------- autograd
    def attach_grad(self, grad_req: GradReq = "write", stype: Optional[str] = None) -> None:
        """Make this array a variable: allocate a zero gradient buffer ``x.grad``.

        Parameters
        ----------
        grad_req : {'write', 'add', 'null'}
            'write' overwrites the buffer at each backward, 'add' accumulates into it,
            'null' computes no gradient.

        Examples
        --------
        >>> import mxgrad as mx
        >>> x = mx.nd.array([1., 2.]); x.attach_grad()
        >>> x.grad
        <BLANKLINE>
        [0. 0.]
        <NDArray 2 @cpu(0)>
        """
        mark_variable(self, wrap(np.zeros_like(self._data), None, 0,  # type: ignore[arg-type]
                                 type(self)), grad_req)  # type: ignore[type-var]

    @property
    def grad(self) -> Optional[NDArray]:
        """The gradient buffer attached by ``attach_grad``/``mark_variables`` (or None)."""
        node = self._node
        if type(node) is Leaf:
            return node.grad
        return null_grad(self)  # type: ignore[arg-type]  # a 'null' variable's buffer, else None

    @property
    def grad_req(self) -> GradReq:
        """'write', 'add' or 'null' for a variable, 'null' for any other array."""
        node = self._node
        if type(node) is Leaf:
            return node.req
        return "null"

    @property
    def grad_fn(self) -> Any:
        """The graph node that produced this array (PyTorch's ``y.grad_fn``): a custom
        Function's ctx, a built-in op's node, or None for variables and constants.

        Examples
        --------
        >>> import mxgrad as mx
        >>> x = mx.nd.ones((1,)); x.attach_grad()
        >>> with mx.autograd.record():
        ...     y = x.exp()
        >>> y.grad_fn.name
        'exp'
        """
        return Function.grad_fn(self)  # type: ignore[arg-type]

    def backward(self, out_grad: Optional[NDArray] = None, retain_graph: Optional[bool] = None,
                 train_mode: bool = True, create_graph: bool = False) -> None:
        """Compute gradients of this array with respect to the variables upstream.

        Parameters
        ----------
        out_grad : NDArray, optional
            Head gradient, of this array's shape; ones when omitted.
        retain_graph : bool, optional
            Keep the graph so that backward can run through it again (defaults to
            ``create_graph``, which is False unless given).
        train_mode : bool
            Training mode during the backward pass.
        create_graph : bool
            Record the backward pass, so that ``x.grad`` can be differentiated again.

        Examples
        --------
        >>> import mxgrad as mx
        >>> x = mx.nd.array([3.]); x.attach_grad()
        >>> with mx.autograd.record():
        ...     y = x * x
        >>> y.backward(); x.grad.asscalar()
        6.0
        """
        _graph.backward([self], None if out_grad is None else [out_grad],  # type: ignore[list-item]
                        retain_graph, train_mode, create_graph)

    def _check_writable(self) -> None:
        """Refuse an in-place write that would corrupt a recorded graph."""
        if not records(self):
            return
        node = self._node
        what = "a variable (attach_grad)" if type(node) is Leaf else \
            "the output of a recorded op"
        raise InPlaceError(
            f"in-place write to an NDArray of shape {self._data.shape} that is {what} "
            f"inside autograd.record(): this would corrupt the recorded graph. Write outside "
            f"record() (or under autograd.pause()), or use an out-of-place op "
            f"(y = x + 1 instead of x += 1)")

    @property
    def _fresh_grad(self) -> bool:
        """Whether a backward has written this variable's gradient since the flag was last
        cleared (by the Trainer, once it has used the gradient: ``x._fresh_grad = False``).
        False for an array that is not a variable."""
        node = self._node
        return type(node) is Leaf and node.fresh

    @_fresh_grad.setter
    def _fresh_grad(self, value: bool) -> None:
        node = self._node
        if type(node) is Leaf:
            node.fresh = bool(value)

    # ------------------------------------------------------------ operators
    # Built by ops/_apply.operator (``x * y`` and ``x + 1.0`` inlined); x op= y writes in
    # place unless a graph is involved (ops/_apply.inplace_operator).
    __add__: ClassVar[_BinOp] = _OPS["__add__"]
    __radd__: ClassVar[_RBinOp] = _OPS["__radd__"]
    __iadd__: ClassVar[_BinOp] = _OPS["__iadd__"]
    __sub__: ClassVar[_BinOp] = _OPS["__sub__"]
    __rsub__: ClassVar[_RBinOp] = _OPS["__rsub__"]
    __isub__: ClassVar[_BinOp] = _OPS["__isub__"]
    __mul__: ClassVar[_BinOp] = _OPS["__mul__"]
    __rmul__: ClassVar[_RBinOp] = _OPS["__rmul__"]
    __imul__: ClassVar[_BinOp] = _OPS["__imul__"]
    __truediv__: ClassVar[_BinOp] = _OPS["__truediv__"]
    __rtruediv__: ClassVar[_RBinOp] = _OPS["__rtruediv__"]
    __itruediv__: ClassVar[_BinOp] = _OPS["__itruediv__"]
    __div__: ClassVar[_BinOp] = _OPS["__div__"]
    __rdiv__: ClassVar[_RBinOp] = _OPS["__rdiv__"]
    __idiv__: ClassVar[_BinOp] = _OPS["__idiv__"]
    __floordiv__: ClassVar[_BinOp] = _OPS["__floordiv__"]
    __rfloordiv__: ClassVar[_RBinOp] = _OPS["__rfloordiv__"]
    __mod__: ClassVar[_BinOp] = _OPS["__mod__"]
    __rmod__: ClassVar[_RBinOp] = _OPS["__rmod__"]
    __imod__: ClassVar[_BinOp] = _OPS["__imod__"]
    __pow__: ClassVar[_BinOp] = _OPS["__pow__"]
    __rpow__: ClassVar[_RBinOp] = _OPS["__rpow__"]
    __neg__: ClassVar[_UnOp] = _ew.negative
    __abs__: ClassVar[_UnOp] = _ew.abs

    def __pos__(self) -> NDArray:
        return self  # type: ignore[return-value]

    # comparisons give 0/1 arrays of the operands' dtype, as in MXNet
    __eq__: ClassVar[_Cmp] = _OPS["__eq__"]  # type: ignore[assignment]
    __ne__: ClassVar[_Cmp] = _OPS["__ne__"]  # type: ignore[assignment]
    __lt__: ClassVar[_BinOp] = _OPS["__lt__"]
    __le__: ClassVar[_BinOp] = _OPS["__le__"]
    __gt__: ClassVar[_BinOp] = _OPS["__gt__"]
    __ge__: ClassVar[_BinOp] = _OPS["__ge__"]
    __hash__ = object.__hash__     # defining __eq__ would otherwise remove it

    __matmul__: ClassVar[Callable[[NDArray, Any], NDArray]] = _linalg.matmul_method
    __rmatmul__: ClassVar[Callable[[NDArray, Any], NDArray]] = _linalg.rmatmul_method

    # ------------------------------------------------------------- indexing
    __getitem__: ClassVar[Callable[[NDArray, Any], NDArray]] = _index._getitem
    __setitem__: ClassVar[Callable[[NDArray, Any, Any], None]] = _index._setitem
    take = _index.take
    batch_take = _index.batch_take
    pick = _index.pick
    one_hot = _index.one_hot

    # ----------------------------------------------------------- conversion
    def astype(self, dtype: DTypeLike, copy: bool = True) -> NDArray:
        """Return the array cast to ``dtype`` (differentiable for float types); with
        ``copy=False`` the array itself when it already has that dtype.

        Examples
        --------
        >>> import mxgrad as mx
        >>> mx.nd.array([1.7]).astype('int32')
        <BLANKLINE>
        [1]
        <NDArray 1 @cpu(0)>
        """
        dt = as_dtype(dtype)
        if not copy and dt == self._data.dtype:
            return self  # type: ignore[return-value]
        return _ew.cast(self, dt)  # type: ignore[arg-type]

    copy = _ew.identity_copy      # x.copy(): a copy, recorded (gradients flow through it)

    to_dlpack_for_read = _dlpack.to_dlpack_for_read
    to_dlpack_for_write = _dlpack.to_dlpack_for_write
    __dlpack__ = _dlpack.dlpack_method
    __dlpack_device__ = _dlpack.dlpack_device_method

    # ---------------------------------------------------------- elementwise
    # The ops' mx.nd functions: x.exp(out=None, name=None) is nd.exp(x, out, name).
    abs = _ew.abs
    arccos = _ew.arccos
    arccosh = _ew.arccosh
    arcsin = _ew.arcsin
    arcsinh = _ew.arcsinh
    arctan = _ew.arctan
    arctanh = _ew.arctanh
    cbrt = _ew.cbrt
    cos = _ew.cos
    cosh = _ew.cosh
    degrees = _ew.degrees
    erf = _ew.erf
    erfinv = _ew.erfinv
    exp = _ew.exp
    expm1 = _ew.expm1
    gamma = _ew.gamma
    gammaln = _ew.gammaln
    log = _ew.log
    log10 = _ew.log10
    log1p = _ew.log1p
    log2 = _ew.log2
    negative = _ew.negative
    radians = _ew.radians
    rcbrt = _ew.rcbrt
    reciprocal = _ew.reciprocal
    relu = _ew.relu
    rsqrt = _ew.rsqrt
    sigmoid = _ew.sigmoid
    sin = _ew.sin
    sinh = _ew.sinh
    softsign = _ew.softsign
    sqrt = _ew.sqrt
    square = _ew.square
    tan = _ew.tan
    tanh = _ew.tanh
    # rounding: zero gradient everywhere, as in MXNet
    ceil = _ew.ceil
    fix = _ew.fix
    floor = _ew.floor
    rint = _ew.rint
    round = _ew.round
    sign = _ew.sign
    trunc = _ew.trunc
    clip = _ew.clip
    logical_not = _ew.logical_not
    zeros_like = _ew.zeros_like
    ones_like = _ew.ones_like

    # ----------------------------------------------------------- reductions
    sum = _reduce.sum
    sum_axis = _reduce.sum
    mean = _reduce.mean
    prod = _reduce.prod
    max = _reduce.max
    max_axis = _reduce.max
    min = _reduce.min
    min_axis = _reduce.min
    nansum = _reduce.nansum
    nanprod = _reduce.nanprod
    norm = _reduce.norm
    broadcast_to = _reduce.broadcast_to

    # ------------------------------------------------------------- ordering
    argmax = _order.argmax
    argmin = _order.argmin
    argmax_channel = _order.argmax_channel
    argsort = _order.argsort
    sort = _order.sort
    topk = _order.topk

    # ------------------------------------------------------- linalg and nn
    def dot(self, rhs: NDArray, transpose_a: bool = False, transpose_b: bool = False,
            **kwargs: Any) -> NDArray:
        """:func:`mxgrad.nd.dot` of this array and ``rhs``."""
        return _linalg.dot(self, rhs, transpose_a=transpose_a,  # type: ignore[arg-type]
                           transpose_b=transpose_b)

    def batch_dot(self, rhs: NDArray, transpose_a: bool = False, transpose_b: bool = False,
                  **kwargs: Any) -> NDArray:
        """:func:`mxgrad.nd.batch_dot` of this array and ``rhs``."""
        return _linalg.batch_dot(self, rhs, transpose_a, transpose_b)  # type: ignore[arg-type]

    def softmax(self, axis: int = -1, temperature: Optional[float] = None,
                dtype: DTypeLike = None, **kwargs: Any) -> NDArray:
        """:func:`mxgrad.nd.softmax` of this array."""
        return _nn.softmax(self, axis=axis, temperature=temperature,  # type: ignore[arg-type]
                           dtype=dtype, **kwargs)

    def log_softmax(self, axis: int = -1, temperature: Optional[float] = None,
                    dtype: DTypeLike = None, **kwargs: Any) -> NDArray:
        """:func:`mxgrad.nd.log_softmax` of this array."""
        return _nn.log_softmax(self, axis=axis, temperature=temperature,  # type: ignore[arg-type]
                               dtype=dtype)

    def softmin(self, axis: int = -1, temperature: Optional[float] = None,
                dtype: DTypeLike = None, **kwargs: Any) -> NDArray:
        """:func:`mxgrad.nd.softmin` of this array."""
        return _nn.softmin(self, axis=axis, temperature=temperature,  # type: ignore[arg-type]
                           dtype=dtype)

    # ---------------------------------------------------------------- shape
    # MXNet's method spellings (x.reshape(2, 3), x.transpose(1, 0), inplace= views) are
    # method functions in ops/shape.py, next to the functions they share code with.
    reshape = _shape.reshape_method
    transpose = _shape.transpose_method
    if TYPE_CHECKING:    # property() of a function is Any to a checker
        @property
        def T(self) -> NDArray: ...
    else:
        T = property(_shape.transpose_property)
    expand_dims = _shape.expand_dims_method
    squeeze = _shape.squeeze_method
    flatten = _shape.flatten_method

    def slice(self, begin: Any, end: Any, step: Any = None, **kwargs: Any) -> NDArray:
        """:func:`mxgrad.nd.slice` of this array."""
        return _shape.slice(self, begin, end, step)  # type: ignore[arg-type]

    reshape_like = _shape.reshape_like
    swapaxes = _shape.swapaxes
    moveaxis = _shape.moveaxis
    flip = _shape.flip
    split = _shape.split
    split_v2 = _shape.split_v2
    slice_axis = _shape.slice_axis
    slice_like = _shape.slice_like
    broadcast_axis = _shape.broadcast_axis
    broadcast_axes = _shape.broadcast_axis
    broadcast_like = _shape.broadcast_like
    tile = _shape.tile
    repeat = _shape.repeat
    pad = _shape.pad
    depth_to_space = _shape.depth_to_space
    space_to_depth = _shape.space_to_depth
    shape_array = _shape.shape_array
    size_array = _shape.size_array


# NDArray derives from NDArrayMethods (see the module docstring): its stand-in base
# becomes this class. CPython rebuilds the method resolution order of NDArray and of the
# faces derived from it.
NDArray.__bases__ = (NDArrayMethods,)

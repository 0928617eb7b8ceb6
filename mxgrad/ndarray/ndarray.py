"""The NDArray class: a thin handle on a NumPy array plus its place in the graph.

No op logic lives here: arithmetic operators and op methods are attached by the op
modules (``mxgrad.ops``), which declare each op once.

Examples
--------
>>> import mxgrad as mx
>>> x = mx.nd.array([1, 2])
>>> x
<BLANKLINE>
[1. 2.]
<NDArray 2 @cpu(0)>
>>> x.dtype, x.shape
(<class 'numpy.float32'>, (2,))
"""
from __future__ import annotations

from typing import Any, Optional, Tuple

import numpy as np

from ..base import DTypeError, InPlaceError, ShapeError, as_dtype
from ..context import Context, cpu

__all__ = ["NDArray", "wrap"]


class NDArray:
    """An n-dimensional array on NumPy with MXNet's API.

    Use :func:`mxgrad.nd.array` and the other creation functions rather than this
    constructor; ``NDArray(numpy_array)`` wraps an existing NumPy array without copying.

    Examples
    --------
    >>> import mxgrad as mx
    >>> a = mx.nd.ones((2, 3))
    >>> (a * 2).sum().asscalar()
    12.0
    """

    __slots__ = ("_data", "_node", "_oidx", "_ver", "_tan", "__weakref__")
    __array_priority__ = 1000.0

    def __init__(self, data: Any = None, ctx: Optional[Context] = None, dtype=None):
        if data is None:
            data = np.zeros((0,), dtype=as_dtype(dtype))
        elif not isinstance(data, np.ndarray) or dtype is not None:
            data = np.asarray(data, dtype=as_dtype(dtype))
        if data.ndim == 0:
            data = data.reshape(1)
        self._data = data
        self._node = None
        self._oidx = 0
        self._ver = [0]
        self._tan = None

    # ----------------------------------------------------------------- basics
    @property
    def shape(self) -> Tuple[int, ...]:
        """Tuple of the array's dimensions."""
        return self._data.shape

    @property
    def dtype(self):
        """The element type, as a NumPy type (``numpy.float32`` by default)."""
        return self._data.dtype.type

    @property
    def size(self) -> int:
        """Number of elements."""
        return self._data.size

    @property
    def ndim(self) -> int:
        """Number of dimensions."""
        return self._data.ndim

    @property
    def context(self) -> Context:
        """The device context; always ``cpu(0)`` in mxgrad."""
        return cpu()

    ctx = context

    @property
    def stype(self) -> str:
        """Storage type; mxgrad arrays are always dense (``'default'``)."""
        return "default"

    @property
    def handle(self):
        """The underlying NumPy array (MXNet exposes a C handle here)."""
        return self._data

    def asnumpy(self) -> np.ndarray:
        """Return a copy of the data as a NumPy array.

        Examples
        --------
        >>> import mxgrad as mx
        >>> mx.nd.array([1, 2]).asnumpy()
        array([1., 2.], dtype=float32)
        """
        return self._data.copy()

    def asscalar(self):
        """Return the only element of a size-1 array as a NumPy scalar.

        Examples
        --------
        >>> import mxgrad as mx
        >>> mx.nd.array([3]).asscalar()
        3.0
        """
        if self._data.size != 1:
            raise ShapeError(f"asscalar() needs an array of size 1, got shape {self.shape}; "
                             f"reduce it first (e.g. .sum()) or index one element")
        return self._data.reshape(-1)[0]

    def tolist(self):
        """The data as nested Python lists."""
        return self._data.tolist()

    def wait_to_read(self) -> None:
        """No-op kept for MXNet compatibility (NumPy computes synchronously)."""

    def wait_to_write(self) -> None:
        """No-op kept for MXNet compatibility."""

    def __array__(self, dtype=None, copy=None):
        if dtype is None:
            return self._data
        return self._data.astype(dtype)

    def __repr__(self) -> str:
        shape = "x".join(str(s) for s in self.shape)
        return f"\n{self._data}\n<NDArray {shape} @{self.context}>"

    def __str__(self) -> str:
        return self.__repr__()

    def _repr_pretty_(self, p, cycle):  # IPython display
        p.text(self.__repr__().lstrip("\n"))

    def __len__(self) -> int:
        return self._data.shape[0]

    def __iter__(self):
        for i in range(self._data.shape[0]):
            yield self[i]

    def __bool__(self) -> bool:
        if self._data.size == 1:
            return bool(self._data.reshape(-1)[0])
        if self._data.size == 0:
            return False
        raise ShapeError("The truth value of an NDArray with more than one element is "
                         "ambiguous; use .asnumpy().any() or .all()")

    def __float__(self) -> float:
        return float(self.asscalar())

    def __int__(self) -> int:
        return int(self.asscalar())

    def __index__(self) -> int:
        return int(self.asscalar())

    __hash__ = object.__hash__

    def __getstate__(self):
        return {"data": self._data}

    def __setstate__(self, st):
        self._data = st["data"]
        self._node = None
        self._oidx = 0
        self._ver = [0]
        self._tan = None

    # ------------------------------------------------------------- conversion
    def astype(self, dtype, copy: bool = True) -> "NDArray":
        """Return the array cast to ``dtype`` (differentiable for float types).

        Examples
        --------
        >>> import mxgrad as mx
        >>> mx.nd.array([1.7]).astype('int32')
        <BLANKLINE>
        [1]
        <NDArray 1 @cpu(0)>
        """
        from ..ops.elemwise import cast
        dt = as_dtype(dtype)
        if not copy and dt == self._data.dtype:
            return self
        return cast(self, dt)

    def copy(self) -> "NDArray":
        """Return a copy of the array (recorded: gradients flow through it)."""
        from ..ops.elemwise import identity_copy
        return identity_copy(self)

    def copyto(self, other):
        """Copy into ``other`` (an NDArray of the same shape) or to a context.

        Examples
        --------
        >>> import mxgrad as mx
        >>> b = mx.nd.zeros((2,)); _ = mx.nd.array([1, 2]).copyto(b); b
        <BLANKLINE>
        [1. 2.]
        <NDArray 2 @cpu(0)>
        """
        if isinstance(other, Context):
            return self.copy()
        if not isinstance(other, NDArray):
            raise DTypeError(f"copyto() takes an NDArray or a Context, got {type(other).__name__}")
        if other is self:
            return other
        if other.shape != self.shape:
            raise ShapeError(f"copyto(): shape {self.shape} does not match target shape "
                             f"{other.shape}")
        other[:] = self
        return other

    def as_in_context(self, context: Context) -> "NDArray":
        """Return this array (all contexts are the CPU in mxgrad)."""
        return self

    as_in_ctx = as_in_context

    def detach(self) -> "NDArray":
        """Return an array sharing the data but cut from the graph.

        Examples
        --------
        >>> import mxgrad as mx
        >>> x = mx.nd.ones((2,)); x.attach_grad()
        >>> with mx.autograd.record():
        ...     y = (x * 2).detach() * x
        >>> y.backward(); x.grad
        <BLANKLINE>
        [2. 2.]
        <NDArray 2 @cpu(0)>
        """
        out = wrap(self._data)
        out._ver = self._ver
        return out

    # --------------------------------------------------------------- autograd
    def attach_grad(self, grad_req: str = "write", stype=None) -> None:
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
        from ..autograd.graph import mark_variable
        mark_variable(self, wrap(np.zeros_like(self._data)), grad_req)

    @property
    def grad(self) -> Optional["NDArray"]:
        """The gradient buffer attached by ``attach_grad``/``mark_variables`` (or None)."""
        from ..autograd.graph import Leaf, null_grad
        node = self._node
        if type(node) is Leaf:
            return node.grad
        return null_grad(self)  # the buffer of a grad_req='null' variable, else None

    @property
    def grad_fn(self):
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
        from ..autograd.function import Function
        return Function.grad_fn(self)

    @property
    def grad_req(self) -> str:
        """'write', 'add' or 'null' for a variable, 'null' for any other array."""
        from ..autograd.graph import Leaf
        node = self._node
        if type(node) is Leaf:
            return node.req
        return "null"

    def backward(self, out_grad: Optional["NDArray"] = None, retain_graph: Optional[bool] = None,
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
        from ..autograd import graph
        graph.backward([self], None if out_grad is None else [out_grad], retain_graph,
                 train_mode, create_graph)

    # ---------------------------------------------------------------- in place
    def _check_writable(self) -> None:
        """Refuse an in-place write that would corrupt a recorded graph."""
        if self._node is None:
            return
        from ..autograd.scope import state
        if state.recording:
            from ..autograd.graph import Leaf
            what = "a variable (attach_grad)" if type(self._node) is Leaf else \
                "the output of a recorded op"
            raise InPlaceError(
                f"in-place write to an NDArray of shape {self.shape} that is {what} inside "
                f"autograd.record(): this would corrupt the recorded graph. Write outside "
                f"record() (or under autograd.pause()), or use an out-of-place op "
                f"(y = x + 1 instead of x += 1)")

    def _bump(self) -> None:
        self._ver[0] += 1


def wrap(data: np.ndarray, node=None, oidx: int = 0) -> NDArray:
    """Wrap a NumPy array (no copy) in a new NDArray. Internal fast constructor."""
    a = _new(NDArray)
    a._data = data
    a._node = node
    a._oidx = oidx
    a._ver = [0]
    a._tan = None
    return a


_new = object.__new__

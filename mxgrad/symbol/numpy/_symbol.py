"""``_Symbol``: a Symbol of MXNet's NumPy interface (``mx.sym.np``), what
``hybrid_forward`` receives in NumPy mode (``npx.set_np()``).

Its nodes compute on ``mx.np`` arrays; its operators and methods are those of
``mx.np.ndarray`` (NumPy's semantics: ``x + y`` broadcasts, ``x.reshape(2, -1)``,
``x.sum()`` is 0-d, ``x[0]`` slices), written as MXNet's NumPy operators
(``_npi_add``, ``_np_reshape``...), so an exported graph loads in MXNet 1.9.

Examples
--------
>>> import mxgrad as mx
>>> x = mx.sym.var('x').as_np_ndarray()
>>> y = (x * 2 + 1).sum(axis=0)
>>> type(y).__name__, y.list_arguments()
('_Symbol', ['x'])
>>> y.eval(x=mx.np.array([[1.0, 2.0], [3.0, 4.0]]))[0]
array([10., 14.])
"""
from __future__ import annotations

from typing import Any, List, Optional

import numpy as _onp

from ...base import MXNetError, NotImplementedForSymbol, OutOfRangeError
from .._core import Symbol, SYMBOL_FACES
from .. import _ops
from ._functions import FUNCS, binary

__all__ = ["_Symbol", "binary", "np_call"]


class _Symbol(Symbol):
    """A Symbol of MXNet's NumPy interface (see the module docstring)."""

    __slots__ = ()
    _npface = True

    # ------------------------------------------------------------- outputs / indexing
    def __len__(self) -> int:
        if len(self._outputs) == 1:
            raise TypeError(f"{self} is not a list and does not support len().")
        return len(self._outputs)

    def __iter__(self):
        if len(self._outputs) == 1:
            raise TypeError(f"'{self}' is not iterable.")
        return (_Symbol([o]) for o in self._outputs)

    @property
    def num_outputs(self) -> int:
        """The number of outputs (a group's members)."""
        return len(self._outputs)

    def __getitem__(self, key: Any) -> Symbol:
        """An output of a group (int or slice), or a slice of a single output: integers,
        slices and tuples of them, as MXNet's ``_Symbol`` (a ``slice`` node, then a
        ``_npx_reshape`` dropping the integer-indexed axes)."""
        count = len(self._outputs)
        if count > 1:
            if isinstance(key, slice):
                return _Symbol([self._outputs[i] for i in range(*key.indices(count))])
            if isinstance(key, (int, _onp.integer)) and not isinstance(key, bool):
                if not -count <= key < count:
                    raise OutOfRangeError("list index out of range")
                return _Symbol([self._outputs[key]])
            raise TypeError(f"indices of symbol group must be integers or slices, not "
                            f"{type(key).__name__}")
        if isinstance(key, slice):         # MXNet: one slice node, scalar bounds
            if key.step == 0:
                raise MXNetError("slice step cannot be zero")
            return _ops.make("slice", [self], {
                "begin": (None,) if key.start is None else key.start,
                "end": (None,) if key.stop is None else key.stop, "step": key.step},
                None, "slice")
        keys = key if isinstance(key, tuple) else (key,)
        if not keys:
            return self
        begin: List[Optional[int]] = []
        end: List[Optional[int]] = []
        step: List[Optional[int]] = []
        codes: List[int] = []
        for k in keys:
            if isinstance(k, slice):
                if k.step == 0:
                    raise MXNetError("slice step cannot be zero")
                begin.append(k.start)
                end.append(k.stop)
                step.append(k.step)
                codes.append(-2)
            elif isinstance(k, (int, _onp.integer)) and not isinstance(k, bool):
                k = int(k)
                begin.append(k)
                end.append(k + 1 if k != -1 else None)
                step.append(1)
                codes.append(-3)
            else:
                raise IndexError(f"Only integer, slice, or tuple of these types are "
                                 f"supported in a _Symbol's index; received key={key!r}")
        attrs = {"begin": tuple(begin), "end": tuple(end), "step": tuple(step)}
        if not isinstance(key, tuple):      # an integer: MXNet writes no step
            del attrs["step"]
        sliced = _ops.make("slice", [self], attrs, None, "slice")
        # (MXNet reshapes after every tuple key, all slices too: its shape inference of a
        # slice with open bounds needs it)
        return _ops.make("_npx_reshape", [sliced], {"newshape": tuple(codes) + (-4,)},
                         None, "reshape")

    # ------------------------------------------------------------- faces
    def as_nd_ndarray(self) -> Symbol:
        """The same graph as a legacy ``Symbol`` (MXNet's ``as_nd_ndarray``)."""
        return Symbol(self._outputs)

    def as_np_ndarray(self) -> "_Symbol":
        """Itself."""
        return self

    # ------------------------------------------------------------- arithmetic
    def __add__(self, o):
        return binary("add", self, o)

    def __radd__(self, o):
        return binary("add", o, self)

    def __sub__(self, o):
        return binary("subtract", self, o)

    def __rsub__(self, o):
        return binary("subtract", o, self)

    def __mul__(self, o):
        return binary("multiply", self, o)

    def __rmul__(self, o):
        return binary("multiply", o, self)

    def __truediv__(self, o):
        return binary("true_divide", self, o)

    def __rtruediv__(self, o):
        return binary("true_divide", o, self)

    __div__, __rdiv__ = __truediv__, __rtruediv__

    def __mod__(self, o):
        return binary("mod", self, o)

    def __rmod__(self, o):
        return binary("mod", o, self)

    def __pow__(self, o):
        return binary("power", self, o)

    def __rpow__(self, o):
        return binary("power", o, self)

    def __matmul__(self, o):
        return np_call("matmul", self, o)

    def __neg__(self):
        return binary("multiply", self, -1.0)

    def __abs__(self):
        return np_call("absolute", self)

    def __eq__(self, o):
        return binary("equal", self, o)

    def __ne__(self, o):
        return binary("not_equal", self, o)

    def __gt__(self, o):
        return binary("greater", self, o)

    def __ge__(self, o):
        return binary("greater_equal", self, o)

    def __lt__(self, o):
        return binary("less", self, o)

    def __le__(self, o):
        return binary("less_equal", self, o)

    __hash__ = Symbol.__hash__

    # ------------------------------------------------------------- methods (mx.np.ndarray's)
    @property
    def T(self) -> "_Symbol":
        """The transpose (all axes reversed)."""
        return np_call("transpose", self)

    def reshape(self, *shape, order: str = "C", reverse: bool = False) -> "_Symbol":
        """``mx.np.reshape`` (``reverse=True``: ``mx.npx.reshape``'s right-to-left codes)."""
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        if reverse:
            return np_call("npx.reshape", self, shape, reverse=True)
        return np_call("reshape", self, tuple(shape), order=order)

    def transpose(self, *axes) -> "_Symbol":
        given: Any = axes
        if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
            given = axes[0]
        return np_call("transpose", self, tuple(given) if given else None)

    def flatten(self, order: str = "C") -> "_Symbol":
        return np_call("reshape", self, (-1,), order=order)

    def ravel(self, order: str = "C") -> "_Symbol":
        return np_call("reshape", self, (-1,), order=order)

    def astype(self, dtype, copy: bool = True) -> Symbol:
        return _ops.make("Cast", [self], {"dtype": dtype}, None, "cast")

    def copy(self) -> "_Symbol":
        return np_call("copy", self)

    def squeeze(self, axis=None) -> "_Symbol":
        return np_call("squeeze", self, axis)

    def expand_dims(self, axis: int) -> "_Symbol":
        return np_call("expand_dims", self, axis)

    def swapaxes(self, axis1: int, axis2: int) -> "_Symbol":
        return np_call("swapaxes", self, axis1, axis2)

    def repeat(self, repeats: int, axis=None) -> "_Symbol":
        return np_call("repeat", self, repeats, axis)

    def tile(self, reps) -> "_Symbol":
        return np_call("tile", self, reps)

    def dot(self, b) -> "_Symbol":
        return np_call("dot", self, b)

    def clip(self, a_min=None, a_max=None) -> "_Symbol":
        return np_call("clip", self, a_min, a_max)

    def round(self, decimals: int = 0) -> "_Symbol":
        return np_call("around", self, decimals)

    def sort(self, axis: int = -1) -> "_Symbol":
        return np_call("sort", self, axis)

    def argsort(self, axis: int = -1) -> "_Symbol":
        return np_call("argsort", self, axis)

    def cumsum(self, axis=None, dtype=None) -> "_Symbol":
        return np_call("cumsum", self, axis, dtype)

    def sum(self, axis=None, dtype=None, keepdims: bool = False, **kw) -> "_Symbol":
        return np_call("sum", self, axis=axis, dtype=dtype, keepdims=keepdims, **kw)

    def mean(self, axis=None, dtype=None, keepdims: bool = False) -> "_Symbol":
        return np_call("mean", self, axis=axis, dtype=dtype, keepdims=keepdims)

    def prod(self, axis=None, dtype=None, keepdims: bool = False) -> "_Symbol":
        return np_call("prod", self, axis=axis, dtype=dtype, keepdims=keepdims)

    def max(self, axis=None, keepdims: bool = False) -> "_Symbol":
        return np_call("max", self, axis=axis, keepdims=keepdims)

    def min(self, axis=None, keepdims: bool = False) -> "_Symbol":
        return np_call("min", self, axis=axis, keepdims=keepdims)

    def std(self, axis=None, dtype=None, ddof: int = 0, keepdims: bool = False) -> "_Symbol":
        return np_call("std", self, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims)

    def var(self, axis=None, dtype=None, ddof: int = 0, keepdims: bool = False) -> "_Symbol":
        return np_call("var", self, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims)

    def argmax(self, axis=None) -> "_Symbol":
        return np_call("argmax", self, axis)

    def argmin(self, axis=None) -> "_Symbol":
        return np_call("argmin", self, axis)

    def all(self, axis=None, keepdims: bool = False) -> "_Symbol":
        return np_call("all", self, axis=axis, keepdims=keepdims)

    def any(self, axis=None, keepdims: bool = False) -> "_Symbol":
        return np_call("any", self, axis=axis, keepdims=keepdims)

    def item(self, *args):
        raise NotImplementedForSymbol(self.item, None)

    def tolist(self):
        raise NotImplementedForSymbol(self.tolist, None)


# mx.sym.np's Symbol class (``Symbol.as_np_ndarray``, the functions of ``_functions``)
SYMBOL_FACES["np"] = _Symbol


def np_call(name: str, *args, **kwargs) -> Any:
    """``mx.sym.np.<name>(*args, **kwargs)`` (``npx.<name>`` for the npx table's)."""
    return FUNCS[name](*args, **kwargs)

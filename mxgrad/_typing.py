"""Type names shared by mxgrad's annotations.

Only type checkers read these: annotations are strings at run time (every module uses
``from __future__ import annotations``), so nothing here runs on a hot path.

``ArrayT`` expresses how every op dispatches: called on NumPy arrays an op returns a
NumPy array (gradient rules use this), called on NDArrays it returns an NDArray.
The op protocols describe the callables the op factories build (``nd.exp``,
``nd.add``, ...).

Examples
--------
>>> from mxgrad._typing import Shape, GradReq
>>> shape: Shape = (2, 3)
>>> req: GradReq = "write"
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional, Sequence, Tuple, TypeVar, Union

import numpy as np
from typing_extensions import Literal, Protocol, TypeAlias, overload

if TYPE_CHECKING:
    from ._engine.ndarray import NDArray

__all__ = ["Shape", "ShapeLike", "Axis", "GradReq", "DTypeLike", "Scalar", "ArrayOrScalar",
           "InitLike",           "ArrayT", "UnaryOp", "UnaryMethod", "BinaryOp", "Init"]

Shape: TypeAlias = Tuple[int, ...]
"""An array shape, as ``NDArray.shape`` returns it."""
ShapeLike: TypeAlias = Union[int, Sequence[int]]
"""A shape argument: an int or a sequence of ints."""
Axis: TypeAlias = Union[int, Sequence[int], None]
"""An ``axis`` argument: one axis, several, or ``None`` for all."""
GradReq: TypeAlias = Literal["write", "add", "null"]
"""How backward stores a variable's gradient."""
DTypeLike: TypeAlias = Union[str, type, "np.dtype[Any]", None]
"""A dtype argument: a name ('float32'), a NumPy type or dtype, or None (float32)."""
Scalar: TypeAlias = Union[int, float, bool, np.number, np.bool_]
"""A Python or NumPy scalar."""
ArrayOrScalar: TypeAlias = Union["NDArray", Scalar]
"""An operand of an arithmetic op: an NDArray or a scalar."""

ArrayT = TypeVar("ArrayT", "NDArray", np.ndarray)
"""An op's input and output type: NumPy in, NumPy out; NDArray in, NDArray out."""


class UnaryMethod(Protocol):
    """A one-input op as an NDArray method: ``x.exp(out=None, name=None)``."""

    def __call__(self, out: Optional[NDArray] = ..., name: Optional[str] = ...) -> NDArray: ...


class UnaryOp(Protocol):
    """A one-input op such as ``nd.exp``: ``op(x, out=None, name=None)``; as a class
    attribute (NDArray's ``exp = nd.exp``) a method, like the function it is."""

    @overload
    def __get__(self, obj: None, owner: Any) -> UnaryOp: ...

    @overload
    def __get__(self, obj: NDArray, owner: Any) -> UnaryMethod: ...

    @overload
    def __call__(self, x: np.ndarray, /, out: None = ..., name: Optional[str] = ...
                 ) -> np.ndarray: ...

    @overload
    def __call__(self, x: NDArray, /, out: Optional[NDArray] = ..., name: Optional[str] = ...
                 ) -> NDArray: ...


class BinaryOp(Protocol):
    """A two-input op such as ``nd.add``: arrays, or an array and a scalar."""

    @overload
    def __call__(self, lhs: np.ndarray, rhs: Union[np.ndarray, Scalar], /, out: None = ...,
                 name: Optional[str] = ...) -> np.ndarray: ...

    @overload
    def __call__(self, lhs: Scalar, rhs: np.ndarray, /, out: None = ...,
                 name: Optional[str] = ...) -> np.ndarray: ...

    @overload
    def __call__(self, lhs: Union[NDArray, Scalar], rhs: Union[NDArray, Scalar], /,
                 out: Optional[NDArray] = ..., name: Optional[str] = ...) -> NDArray: ...

if TYPE_CHECKING:
    from .initializer import Initializer, Load, Mixed

Init: TypeAlias = Union[str, "Initializer", "Load", "Mixed"]
"""An initializer: an instance (``mx.init.Xavier()``) or a registered name ('xavier')."""
InitLike: TypeAlias = Union[str, "Initializer", "Load", "Mixed", None]
"""An optional initializer argument (None: the default or the global one)."""

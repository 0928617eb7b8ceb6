"""``ArrayLayer``: what type checkers see as the base of the one-input layers.

At run time ``ArrayLayer`` *is* :class:`~mxgrad.gluon.HybridBlock` (so the layers'
classes are exactly as before); type checkers see a HybridBlock whose call takes an
NDArray and returns an NDArray (a Symbol in, a Symbol out, when traced for export),
so that ``y = nn.Dense(2)(x)`` is known to be an NDArray.

Examples
--------
>>> from mxgrad.gluon import HybridBlock
>>> from mxgrad.gluon.nn._layer import ArrayLayer
>>> ArrayLayer is HybridBlock
True
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..block import HybridBlock

__all__ = ["ArrayLayer"]

if TYPE_CHECKING:
    from typing_extensions import overload

    from ..._engine.ndarray import NDArray
    from ...symbol.symbol import Symbol

    class ArrayLayer(HybridBlock):
        @overload
        def __call__(self, x: NDArray, *args: Any) -> NDArray: ...

        @overload
        def __call__(self, x: Symbol, *args: Any) -> Symbol: ...

        def __call__(self, x: Any, *args: Any) -> Any: ...
else:
    ArrayLayer = HybridBlock

"""``mx.operator``: the registry of operators (``get_all_registered_operators``).

MXNet's custom operators (``CustomOp``, ``CustomOpProp``, ``register``) are not provided
yet: using them raises :class:`~mxgrad.base.UnsupportedFeatureError` naming what to use
instead (``mx.autograd.Function``, or a HybridBlock).

Examples
--------
>>> import mxgrad as mx
>>> ops = mx.operator.get_all_registered_operators()
>>> 'Convolution' in ops and '_np_sum' in ops and '_npx_relu' in ops
True
"""
from __future__ import annotations

from typing import Any, List

from .base import UnsupportedFeatureError

__all__ = ["get_all_registered_operators"]

_CUSTOM = ("CustomOp", "CustomOpProp", "register", "NDArrayOp", "NumpyOp", "PythonOp")


def get_all_registered_operators() -> List[str]:
    """The names of every operator: the Symbol graph's (``Convolution``...) and, as MXNet
    names them, ``_np_<name>`` / ``_npx_<name>`` for ``mx.np`` / ``mx.npx`` functions."""
    from .symbol._registry import supported_ops
    from . import numpy as mnp, numpy_extension as mnpx
    names = list(supported_ops())
    names += [f"_np_{n}" for n in mnp.__all__ if callable(getattr(mnp, n, None))]
    names += [f"_npx_{n}" for n in mnpx.__all__ if callable(getattr(mnpx, n, None))]
    return sorted(set(names))


def __getattr__(name: str) -> Any:
    if name in _CUSTOM:
        raise UnsupportedFeatureError(
            f"mx.operator.{name} (MXNet's custom operators) is not supported by mxgrad yet; "
            f"use mx.autograd.Function, or a HybridBlock")
    raise AttributeError(f"module 'mxgrad.operator' has no attribute {name!r}")

"""MXNet's ``mxnet.numpy_op_signature``: the function behind a registered operator name.

Examples
--------
>>> from mxgrad.numpy_op_signature import _get_builtin_op
>>> _get_builtin_op('_np_sum').__name__, _get_builtin_op('_npx_relu').__name__
('sum', 'relu')
>>> _get_builtin_op('Convolution') is None
True
"""
from __future__ import annotations

from typing import Any, Optional

from .base import StateError

__all__ = ["_get_builtin_op"]


def _get_builtin_op(op_name: str) -> Optional[Any]:
    """``mx.np.<name>`` for ``_np_<name>`` (``_np_linalg_<name>``, ``_np_random_<name>``
    in the submodules), ``mx.npx.<name>`` for ``_npx_<name>``, else None."""
    from . import numpy as mnp, numpy_extension as mnpx
    root: Any
    if op_name.startswith("_npx_"):
        root, rest = mnpx, op_name[5:]
    elif op_name.startswith("_np_"):
        root, rest = mnp, op_name[4:]
    else:
        return None
    for sub in ("linalg", "random"):
        if rest.startswith(sub + "_") and hasattr(root, sub):
            root, rest = getattr(root, sub), rest[len(sub) + 1:]
            break
    op = getattr(root, rest, None)
    if op is None:
        raise StateError(f"Cannot find operator {rest} in module {root.__name__}")
    return op

"""``mx.executor``: a Symbol bound to arrays, run forward and backward (MXNet 1.x's
``Symbol.bind`` / ``simple_bind``).

The implementation is :mod:`mxgrad.symbol._executor` (inside ``mxgrad/symbol/``, below
``Symbol.bind``, so that binding imports no module that imports the Symbol package); this
module is its public path: the same class and functions.

Examples
--------
>>> import mxgrad as mx
>>> x = mx.sym.var('x')
>>> ex = (x * x).simple_bind(mx.cpu(), x=(2,))
>>> type(ex) is mx.executor.Executor
True
"""
from __future__ import annotations

from .symbol._executor import (Executor, ExecutorError, bind, simple_bind,
                               _copy_into)  # noqa: F401  (Module's parameter copies)

__all__ = ["Executor", "bind", "simple_bind"]

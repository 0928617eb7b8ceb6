"""``mx.sym.np``: MXNet's NumPy interface on Symbols (``F.np`` in a NumPy-mode
``hybrid_forward``).

Every function takes the arguments of the ``mx.np`` function of the same name, with
``_Symbol`` arrays, and adds MXNet's operator for it (``mx.sym.np.sum`` -> ``_np_sum``), so
graphs traced in NumPy mode export to ``*-symbol.json`` files MXNet 1.9 loads, and load
back. A function mxgrad's ``mx.sym.np`` does not have raises ``AttributeError`` naming it.

Examples
--------
>>> import mxgrad as mx
>>> x = mx.sym.var('x').as_np_ndarray()
>>> y = mx.sym.np.concatenate([x, mx.sym.np.exp(x)], axis=0)
>>> [n['op'] for n in __import__('json').loads(y.tojson())['nodes']]
['null', '_npi_exp', '_npi_concatenate']
"""
from __future__ import annotations

from ._symbol import _Symbol
from ._functions import FUNCS as _FUNCS, missing
from . import linalg, random

__all__ = ["_Symbol", "linalg", "random"] + sorted(k for k in _FUNCS if "." not in k)

globals().update({k: v for k, v in _FUNCS.items() if "." not in k})


__getattr__ = missing("mx.sym.np")

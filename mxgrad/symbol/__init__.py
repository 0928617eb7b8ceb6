"""``mx.sym``: MXNet's Symbol API, as far as exported models need it.

A :class:`Symbol` is a graph of MXNet operators. mxgrad makes Symbols by calling a
HybridBlock on a variable (``hybrid_forward`` is traced with ``F = mx.sym``) and by
loading MXNet's ``*-symbol.json`` files; ``gluon.SymbolBlock`` runs them through
``mx.nd`` (differentiable, BatchNorm's running statistics updated in training mode).
There is no executor: ``bind``/``simple_bind`` are not provided.

Every operator of :func:`supported_ops` is a function here (``mx.sym.Convolution``,
``mx.sym.relu``...), also under its MXNet aliases (``concat``, ``flatten``...).

Examples
--------
>>> import mxgrad as mx
>>> from mxgrad import sym
>>> x = sym.var('data')
>>> net = mx.gluon.nn.HybridSequential(prefix='net_')
>>> with net.name_scope():
...     net.add(mx.gluon.nn.Dense(4, activation='relu'), mx.gluon.nn.Dense(2))
>>> y = net(x)
>>> y
<Symbol net_dense1_fwd>
>>> y.list_arguments()
['data', 'net_dense0_weight', 'net_dense0_bias', 'net_dense1_weight', 'net_dense1_bias']
"""
from __future__ import annotations

from .symbol import Symbol, var, Variable, Group, load, load_json, evaluate
from ._registry import supported_ops, UnknownOpError, _TABLE, _ALIASES
from . import _ops

__all__ = ["Symbol", "var", "Variable", "Group", "load", "load_json", "evaluate",
           "supported_ops", "UnknownOpError"]


def _install():
    g = globals()
    for name in list(_TABLE) + list(_ALIASES):
        canon = _ALIASES.get(name, name)
        if name not in g:
            g[name] = _ops.function(canon, name.lower())


_install()
del _install


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise AttributeError(
        f"mx.sym has no operator {name!r}: mxgrad's Symbol supports the operators of "
        f"mx.sym.supported_ops() (used to import/export models); run other code "
        f"imperatively with mx.nd")

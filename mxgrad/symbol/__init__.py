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

import numpy as _np

from .symbol import Symbol, Group, load, load_json, evaluate
from .symbol import var as _var
from ._registry import supported_ops, UnknownOpError, _TABLE, _ALIASES
from . import _ops
from ..attribute import current_attrs

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


def var(name: str, attr=None, shape=None, lr_mult=None, wd_mult=None, dtype=None, init=None,
        stype=None, **kwargs) -> Symbol:
    """A variable (graph input or parameter) named ``name``, with the attributes of the
    current ``mx.AttrScope`` (its own ``attr`` win).

    Examples
    --------
    >>> import mxgrad as mx
    >>> x = mx.sym.var('data', shape=(2, 3))
    >>> x.list_arguments(), x.attr('__shape__')
    (['data'], '(2, 3)')
    """
    return _var(name, attr=current_attrs(attr) or None, shape=shape, lr_mult=lr_mult,
                wd_mult=wd_mult, dtype=dtype, init=init, stype=stype, **kwargs)


Variable = var


def _scalar_or_symbol(name, op, sop, rsop=None):
    def f(left, right):
        if isinstance(left, Symbol) and isinstance(right, Symbol):
            return _ops.make(op, [left, right], {}, None, "_" + name)
        if isinstance(left, Symbol):
            return _ops.make(sop, [left], {"scalar": right}, None,
                             "_" + sop.strip("_").replace("_", ""))
        if isinstance(right, Symbol):
            r = rsop or sop
            return _ops.make(r, [right], {"scalar": left}, None,
                             "_" + r.strip("_").replace("_", ""))
        raise TypeError(f"mx.sym.{name}: at least one argument must be a Symbol")
    f.__name__ = name
    f.__doc__ = (f"``{name}(left, right)``: ``{op}`` for two Symbols, ``{sop}`` with a "
                 f"scalar (as MXNet's ``mx.sym.{name}``).")
    return f


maximum = _scalar_or_symbol("maximum", "_maximum", "_maximum_scalar")
minimum = _scalar_or_symbol("minimum", "_minimum", "_minimum_scalar")
power = _scalar_or_symbol("power", "_power", "_power_scalar", "_rpower_scalar")
hypot = _scalar_or_symbol("hypot", "_hypot", "_hypot_scalar")
equal = _scalar_or_symbol("equal", "_equal", "_equal_scalar")
not_equal = _scalar_or_symbol("not_equal", "_not_equal", "_not_equal_scalar")
greater = _scalar_or_symbol("greater", "_greater", "_greater_scalar", "_lesser_scalar")
greater_equal = _scalar_or_symbol("greater_equal", "_greater_equal",
                                  "_greater_equal_scalar", "_lesser_equal_scalar")
lesser = _scalar_or_symbol("lesser", "_lesser", "_lesser_scalar", "_greater_scalar")
lesser_equal = _scalar_or_symbol("lesser_equal", "_lesser_equal", "_lesser_equal_scalar",
                                 "_greater_equal_scalar")


def _node_attributes(kwargs) -> dict:
    """The ``__name__``-style keywords (``__layout__``...): kept as node attributes."""
    return {k: v for k, v in kwargs.items() if k.startswith("__") and k.endswith("__")}


def zeros(shape, dtype=None, name=None, **kwargs) -> Symbol:
    """A Symbol of zeros (MXNet's ``_zeros``)."""
    return _ops.make("_zeros", [], {"dtype": dtype or "float32", "shape": shape,
                                    **_node_attributes(kwargs)}, name, "_zeros")


def ones(shape, dtype=None, name=None, **kwargs) -> Symbol:
    """A Symbol of ones (MXNet's ``_ones``)."""
    return _ops.make("_ones", [], {"dtype": dtype or "float32", "shape": shape}, name,
                     "_ones")


def full(shape, val, dtype=None, name=None, **kwargs) -> Symbol:
    """A Symbol filled with ``val`` (MXNet's ``_full``)."""
    return _ops.make("_full", [], {"dtype": dtype or "float32", "shape": shape,
                                   "value": float(val)}, name, "_full")


def arange(start, stop=None, step=1.0, repeat=1, infer_range=False, name=None, dtype=None,
           **kwargs) -> Symbol:
    """``[start, stop)`` in steps of ``step`` (MXNet's ``_arange``).

    Examples
    --------
    >>> arange(0, 4).eval()[0].asnumpy().tolist()
    [0.0, 1.0, 2.0, 3.0]
    """
    return _ops.make("_arange", [], {"dtype": dtype or "float32", "infer_range": infer_range,
                                     "repeat": repeat, "start": start, "step": step,
                                     "stop": stop}, name, "_arange")


def eye(N, M=0, k=0, dtype=None, name=None, **kwargs) -> Symbol:
    """An ``N x M`` Symbol with ones on diagonal ``k`` (MXNet's ``_eye``).

    Examples
    --------
    >>> eye(2, k=1).eval()[0].asnumpy().tolist()
    [[0.0, 1.0], [0.0, 0.0]]
    """
    return _ops.make("_eye", [], {"M": M, "N": N, "dtype": _np.dtype(dtype or "float32").name,
                                  "k": k}, name, "_eye")


class _NoSuchOp(UnknownOpError, AttributeError):
    """An ``mx.sym`` attribute that is no operator: an AttributeError, and an
    UnknownOpError, so a hybridized block that uses it runs imperatively (with a
    warning) instead of failing."""


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise _NoSuchOp(
        f"mx.sym has no operator {name!r}: mxgrad's Symbol supports the operators of "
        f"mx.sym.supported_ops() (used to import/export models); run other code "
        f"imperatively with mx.nd")

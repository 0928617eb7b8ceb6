"""``mx.sym``: MXNet's Symbol API.

A :class:`Symbol` is a graph of MXNet operators, built with these functions, by calling a
HybridBlock on a variable (``hybrid_forward`` is traced with ``F = mx.sym``) or loaded from
MXNet's ``*-symbol.json`` files. Every operator of :func:`supported_ops` is a function here
(``mx.sym.Convolution``, ``mx.sym.relu``...), also under its MXNet aliases (``concat``,
``flatten``...); the namespaces ``contrib``, ``linalg``, ``random``, ``image`` and ``sparse``
hold the Symbol counterpart of every ``mx.nd`` function of the same namespace, and
``_internal`` every operator by its MXNet name. Shapes and dtypes are inferred from partial
information (:meth:`Symbol.infer_shape`); each node runs the ``mx.nd`` function of its
operator.

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

from .symbol import Symbol, Group, load, load_json, evaluate, split_v2
from .symbol import var as _var
from ._registry import supported_ops, UnknownOpError, _TABLE, _ALIASES
from . import _ops
from . import _custom
from . import contrib, linalg, image, sparse, random, _internal
from . import _np_ops  # noqa: F401  (MXNet's NumPy operators in the op table)
from . import numpy as np, numpy_extension as npx  # noqa: E402  (mx.sym.np, mx.sym.npx)
from ..attribute import current_attrs
from ..base import DTypeError

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
Custom = _custom.Custom


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
pow = power      # noqa: A001  (MXNet's mx.sym.pow)
lesser_equal = _scalar_or_symbol("lesser_equal", "_lesser_equal", "_lesser_equal_scalar",
                                 "_greater_equal_scalar")


def _node_attributes(kwargs) -> dict:
    """The ``__name__``-style keywords (``__layout__``...): kept as node attributes."""
    return {k: v for k, v in kwargs.items() if k.startswith("__") and k.endswith("__")}


def _shape_tuple(shape) -> tuple:
    """``shape`` as a tuple (an int is a 1-D shape, as MXNet reads it)."""
    return (int(shape),) if isinstance(shape, int) else tuple(shape)


def zeros(shape, dtype=None, name=None, **kwargs) -> Symbol:
    """A Symbol of zeros (MXNet's ``_zeros``)."""
    return _ops.make("_zeros", [], {"dtype": dtype or "float32", "shape": _shape_tuple(shape),
                                    **_node_attributes(kwargs)}, name, "_zeros")


def ones(shape, dtype=None, name=None, **kwargs) -> Symbol:
    """A Symbol of ones (MXNet's ``_ones``)."""
    return _ops.make("_ones", [], {"dtype": dtype or "float32", "shape": _shape_tuple(shape)},
                     name, "_ones")


def full(shape, val, dtype=None, name=None, **kwargs) -> Symbol:
    """A Symbol filled with ``val`` (MXNet's ``_full``)."""
    return _ops.make("_full", [], {"dtype": dtype or "float32", "shape": _shape_tuple(shape),
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


def histogram(a, bins=10, range=None, **kwargs) -> Symbol:   # noqa: A002
    """The histogram of ``a``: ``bins`` equal bins over ``range``, or the bin edges of a
    Symbol ``bins``; two outputs, the counts and the edges (MXNet's ``_histogram``).

    Examples
    --------
    >>> import mxgrad as mx
    >>> h = histogram(var('x'), bins=2, range=(0, 2))
    >>> [o.asnumpy().tolist() for o in h.eval(x=mx.nd.array([0.5, 1.5, 1.7]))]
    [[1, 2], [0.0, 1.0, 2.0]]
    """
    if isinstance(bins, Symbol):
        return _ops.call("_histogram", "_histogram", (a, bins), kwargs)
    if isinstance(bins, int):
        if range is None:
            raise DTypeError("histogram: a range is needed when bins is an int")
        return _ops.call("_histogram", "_histogram", (a,),
                         dict(kwargs, bin_cnt=bins, range=tuple(range)))
    raise DTypeError("histogram: bins must be an int or a Symbol")


def eye(N, M=0, k=0, dtype=None, **kwargs) -> Symbol:   # noqa: N803
    """An ``N x M`` matrix with ones on diagonal ``k`` (MXNet's ``_eye``)."""
    return _ops.call("_eye", "_eye", (), dict(kwargs, N=N, M=M, k=k,
                                               dtype=dtype or "float32"))


def linspace(start, stop, num, endpoint=True, name=None, dtype=None, **kwargs) -> Symbol:
    """``num`` evenly spaced values from ``start`` to ``stop`` (MXNet's ``_linspace``)."""
    return _ops.call("_linspace", "_linspace", (), dict(
        kwargs, start=start, stop=stop, num=num, endpoint=endpoint, name=name,
        dtype=dtype or "float32"))


class _NoSuchOp(UnknownOpError, AttributeError):
    """An ``mx.sym`` attribute that is no operator: an AttributeError, and an
    UnknownOpError, so a hybridized block that uses it runs imperatively (with a
    warning) instead of failing."""


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise _NoSuchOp(
        f"mx.sym has no operator {name!r}: mxgrad's Symbol has the operators of "
        f"mx.sym.supported_ops() (the Symbol counterpart of every mx.nd function); run "
        f"other code imperatively with mx.nd")

"""``mx.sym.sparse``: MXNet's sparse-storage operator names, for dense data.

mxgrad's arrays are dense, so each of these is the ``mx.sym`` operator of the same name
(``mx.sym.sparse.dot`` is ``mx.sym.dot``): programs written for MXNet's sparse Symbol API
build the same graphs and run on dense data. Storage-only operators (``cast_storage``,
``retain``) are not provided.

Examples
--------
>>> import mxgrad as mx
>>> y = mx.sym.sparse.elemwise_add(mx.sym.var('a'), mx.sym.var('b'))
>>> y.eval(a=mx.nd.ones((2,)), b=mx.nd.ones((2,)))[0].asnumpy().tolist()
[2.0, 2.0]
"""
from __future__ import annotations

from . import _ops

# MXNet 1.9.1's mx.sym.sparse names that also work on dense arrays
_NAMES = (
    "ElementWiseSum", "Embedding", "FullyConnected", "LinearRegressionOutput",
    "LogisticRegressionOutput", "MAERegressionOutput", "abs", "adam_update", "add_n",
    "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctanh", "broadcast_add",
    "broadcast_div", "broadcast_minus", "broadcast_mul", "broadcast_plus", "broadcast_sub",
    "cbrt", "ceil", "clip", "concat", "cos", "cosh", "degrees", "dot", "elemwise_add",
    "elemwise_div", "elemwise_mul", "elemwise_sub", "exp", "expm1", "fix", "floor",
    "ftrl_update", "gamma", "gammaln", "log", "log10", "log1p", "log2", "make_loss", "mean",
    "negative", "norm", "radians", "relu", "rint", "round", "rsqrt", "sgd_mom_update",
    "sgd_update", "sigmoid", "sign", "sin", "sinh", "slice", "sqrt", "square",
    "stop_gradient", "sum", "tan", "tanh", "trunc", "where", "zeros_like")


def _install() -> None:
    from ._registry import lookup
    g = globals()
    for name in _NAMES:
        spec = lookup(name)
        if spec is not None:
            g[name] = _ops.function(spec.name, name.lower())


_install()


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise _ops.missing("sparse", name)

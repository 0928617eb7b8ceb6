"""``mx.autograd``: recording scopes, variables, backward and grad.

Examples
--------
>>> import mxgrad as mx
>>> x = mx.nd.array([1., 2., 3.]); x.attach_grad()
>>> with mx.autograd.record():
...     y = (x * x).sum()
>>> y.backward()
>>> x.grad
<BLANKLINE>
[2. 4. 6.]
<NDArray 3 @cpu(0)>
"""
import sys as _sys

from .._engine.scope import (record, pause, train_mode, predict_mode, is_recording, is_training,
                             set_recording, set_training)
from .._engine.graph import (mark_variables, backward, grad, get_symbol, Node, Leaf, set_debug,
                             is_debug, NonFiniteError)
# The engine (floor 2, below the ops) lives in mxgrad/_engine; this package is its public face
# above the ops. The engine's modules keep their paths here (mxgrad.autograd.graph, ...): the
# same module objects, so their state is one.
from .._engine import scope, graph, nodes, reuse, forward_ad
for _m in (scope, graph, nodes, reuse, forward_ad):
    _sys.modules[f"{__name__}.{_m.__name__.rsplit('.', 1)[1]}"] = _m
del _m
from .function import *  # noqa: F401,F403  (Function, function, once_differentiable)
from . import functional

__all__ = ["record", "pause", "train_mode", "predict_mode", "is_recording", "is_training",
           "set_recording", "set_training", "mark_variables", "backward", "grad",
           "get_symbol", "Node", "Leaf", "set_debug", "is_debug", "NonFiniteError", "forward_ad",
           "functional", "Function", "function",
           "once_differentiable", "FunctionCtx", "AutogradContext", "CustomFunction"]
# MXNet's autograd module has no __all__, so ``from mxnet.autograd import *`` also gave its
# importers NDArray; MXNet's own tests rely on it.
__all__ += ["NDArray"]
from .._engine.ndarray import NDArray  # noqa: E402

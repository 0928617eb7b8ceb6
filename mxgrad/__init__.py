"""mxgrad: MXNet's imperative API (NDArray, autograd, Gluon) on plain NumPy.

Examples
--------
>>> import mxgrad as mx
>>> x = mx.nd.array([1., 2.]); x.attach_grad()
>>> with mx.autograd.record():
...     y = (x ** 2).sum()
>>> y.backward(); x.grad
<BLANKLINE>
[2. 4.]
<NDArray 2 @cpu(0)>
"""
from . import _allocator
_allocator.tune()  # keep freed array memory for reuse (see _allocator; MXGRAD_MALLOC_TUNING=0)
from . import base
from .base import MXNetError
from . import _threads
_threads.init()    # one BLAS thread per product unless it is large (see _threads; OMP_NUM_THREADS)
from ._threads import set_num_threads, get_num_threads
from . import context
from .context import Context, cpu, gpu, cpu_pinned, current_context, num_gpus
from . import ndarray
from . import ndarray as nd
from . import symbol as sym  # mx.sym: Symbol graphs for SymbolBlock and export
from . import executor  # mx.executor: Symbol.bind / simple_bind
from . import rnn  # mx.rnn: MXNet 1.x's symbolic RNN cells and BucketSentenceIter
from . import autograd
from . import random
from . import test_utils
from . import initializer
from . import initializer as init
from . import optimizer
from . import optimizer_contrib as _optimizer_contrib
setattr(optimizer, "contrib", _optimizer_contrib)           # mx.optimizer.contrib.GroupAdaGrad
setattr(optimizer, "LBSGD", _optimizer_contrib.LBSGD)      # mx.optimizer.LBSGD
from . import lr_scheduler
from . import gluon
from . import metric
from . import kvstore
from . import kvstore as kv
from . import contrib
from . import util
from . import runtime
from . import viz
from . import io
from . import recordio
from . import image
from . import image as img
from . import name
from . import attribute
from .attribute import AttrScope
from . import profiler
from . import operator
from . import model
from . import callback
from . import monitor
from . import monitor as mon
from . import module
from . import module as mod
from .util import np_shape, is_np_shape, set_np_shape, is_np_array, use_np_shape, use_np_array
from . import numpy  # noqa: E402  (mx.np: MXNet's NumPy interface)
from . import numpy as np  # noqa: E402
from . import numpy_extension  # noqa: E402
from . import numpy_extension as npx  # noqa: E402
# hybrid_forward's F (the mx.nd module) reaches the NumPy interface as F.np / F.npx
setattr(ndarray, "np", numpy)
setattr(ndarray, "npx", numpy_extension)
# MXNet's test files use test_utils.mx (``from mxnet.test_utils import *`` hands them mx): the
# package hands itself over here, so that test_utils never imports the package above it
import sys as _sys  # noqa: E402
setattr(test_utils, "mx", _sys.modules[__name__])
from typing import TYPE_CHECKING as _TYPE_CHECKING
if not _TYPE_CHECKING:   # hidden from type checkers, so that they still flag unknown names
    from ._unsupported import module_getattr as __getattr__  # mx.mod, ...: clear errors

__version__ = "0.1.0"

__all__ = ["nd", "ndarray", "autograd", "random", "context", "cpu", "gpu", "Context",
           "MXNetError", "base", "test_utils", "current_context", "num_gpus", "metric", "gluon",
           "init", "initializer", "optimizer", "lr_scheduler", "contrib", "util", "runtime", "viz",
           "io", "recordio", "image", "img", "kv", "kvstore", "name", "np_shape", "is_np_shape",
           "set_np_shape", "is_np_array", "np", "npx", "numpy", "numpy_extension", "attribute",
           "AttrScope", "set_num_threads", "get_num_threads", "profiler", "operator", "model",
           "callback", "monitor", "mon", "module", "mod"]

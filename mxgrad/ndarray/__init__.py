"""``mx.nd``: the NDArray class and every op as a function.

This package is near the top of the house: the ``mx.nd`` namespace, assembled here from
the op modules (``mxgrad.ops.*``, which import the class, never this namespace). The
class itself is the bottom (``mxgrad/_engine/ndarray.py``, importing nothing above
``mxgrad.base``); ``mxgrad.ndarray.ndarray`` is its MXNet path, the same module::

    mx.nd (this file)  ->  mxgrad.ops.*  ->  ops._apply  ->  _engine.graph  ->  _engine.ndarray

Examples
--------
>>> import mxgrad as mx
>>> mx.nd.exp(mx.nd.zeros((2,)))
<BLANKLINE>
[1. 1.]
<NDArray 2 @cpu(0)>
"""
from __future__ import annotations

import sys as _sys

import numpy as _np

# The NDArray class (floor 1) lives in mxgrad/_engine/ndarray.py and the file format in
# mxgrad/_format.py, below the ops; their MXNet paths mxgrad.ndarray.ndarray and
# mxgrad.ndarray._format name the same module objects.
from .._engine import ndarray
from .. import _format
_sys.modules[f"{__name__}.ndarray"] = ndarray
_sys.modules[f"{__name__}._format"] = _format
from .._engine.ndarray import NDArray
from ..ops.creation import *  # noqa: F401,F403
from ..ops.elemwise import *  # noqa: F401,F403
from ..ops.reduce import *  # noqa: F401,F403
from ..ops.shape import *  # noqa: F401,F403
from ..ops.indexing import *  # noqa: F401,F403
from ..ops.ordering import *  # noqa: F401,F403
from ..ops.linalg import *  # noqa: F401,F403
from ..ops.linalg_factor import *  # noqa: F401,F403
from ..ops.nn import *  # noqa: F401,F403
from ..ops.output import *  # noqa: F401,F403
from ..ops.conv import *  # noqa: F401,F403
from ..ops.ctc import *  # noqa: F401,F403
from ..ops.optimizer_update import *  # noqa: F401,F403
from ..ops.legacy import *  # noqa: F401,F403
from ..ops.rnn import *  # noqa: F401,F403
from ..ops.sequence import *  # noqa: F401,F403
from ..ops.composed import *  # noqa: F401,F403
from ..ops.sampling import *  # noqa: F401,F403
from ..ops.pdf import *  # noqa: F401,F403
from ..ops.numeric import histogram, multi_all_finite  # noqa: F401
from ..ops.im2col import im2col, col2im  # noqa: F401
from ..ops.sampler import GridGenerator, BilinearSampler, SpatialTransformer  # noqa: F401
from ..ops.detection import ROIPooling  # noqa: F401  (MultiBox* live in nd.contrib)
from ..ops.correlation import Correlation  # noqa: F401
from ._methods import NDArrayMethods as _NDArrayMethods  # NDArray's op and engine methods
# MXNet's other names of the same operators
from ..ops.elemwise import cast as Cast, cast as amp_cast, divide as true_divide  # noqa: F401
from ..ops.nn import BatchNorm as BatchNorm_v1  # noqa: F401  (MXNet's legacy op, same math)
from .. import random  # noqa: F401
# MXNet 1.x's flat names of the random samplers
from ..random import uniform, normal, shuffle  # noqa: F401,E402
from ..random import uniform as random_uniform, normal as random_normal  # noqa: F401,E402
from ..random import randint as random_randint, exponential as random_exponential  # noqa
from ..random import gamma as random_gamma, poisson as random_poisson  # noqa: F401,E402
from ..random import multinomial as sample_multinomial  # noqa: F401,E402
from ..random import negative_binomial as random_negative_binomial  # noqa: F401,E402
from ..random import generalized_negative_binomial as random_generalized_negative_binomial  # noqa
from .utils import waitall, save, load, load_frombuffer  # noqa: F401
from . import sparse  # noqa: F401,E402  (mx.nd.sparse: every constructor raises a clear error)
from .dlpack import to_dlpack_for_read, to_dlpack_for_write, from_dlpack  # noqa: F401
from . import linalg, contrib, _internal  # noqa: E402,F401  (mx.nd.linalg.gemm2, ...)
from . import image  # noqa: E402,F401  (mx.nd.image.normalize, ...)
# every error on bad arguments is an MXNetError naming the argument (issue 11)
from .._check import guard_namespace as _guard_namespace  # noqa: E402
_guard_namespace(globals(), "nd")
from .._check import guard_class as _guard_class  # noqa: E402
_guard_class(NDArray, "NDArray")
_guard_class(_NDArrayMethods, "NDArray")
from .._custom_op import Custom  # noqa: E402,F401  (Python operators, mx.operator)
from . import op  # noqa: E402,F401  (MXNet's mx.nd.op: the same functions; keep it last)

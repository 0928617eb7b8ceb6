"""``mx.nd``: the NDArray class and every op as a function.

Examples
--------
>>> import mxgrad as mx
>>> mx.nd.exp(mx.nd.zeros((2,)))
<BLANKLINE>
[1. 1.]
<NDArray 2 @cpu(0)>
"""
from __future__ import annotations

import numpy as _np

from .ndarray import NDArray
from ..ops.creation import *  # noqa: F401,F403
from ..ops.elemwise import *  # noqa: F401,F403
from ..ops.reduce import *  # noqa: F401,F403
from ..ops.shape import *  # noqa: F401,F403
from ..ops.indexing import *  # noqa: F401,F403
from ..ops.ordering import *  # noqa: F401,F403
from ..ops.linalg import *  # noqa: F401,F403
from ..ops.nn import *  # noqa: F401,F403
from ..ops.conv import *  # noqa: F401,F403
from ..ops.ctc import *  # noqa: F401,F403
from ..ops.rnn import *  # noqa: F401,F403
from .. import random  # noqa: F401
from .utils import waitall, save, load  # noqa: F401
from . import linalg, contrib  # noqa: E402,F401  (mx.nd.linalg.gemm2, mx.nd.contrib...)

"""``mx.contrib``: MXNet 1.x's experimental namespace (the legacy ``contrib.autograd``,
``contrib.text``, ``contrib.io.DataLoaderIter``).

Examples
--------
>>> from mxgrad.contrib import autograd as legacy
>>> with legacy.train_section():
...     mx.autograd.is_recording(), mx.autograd.is_training()
(True, True)
"""
from . import autograd  # noqa: F401
from . import text  # noqa: F401
from . import io  # noqa: F401
from ..ndarray import contrib as ndarray  # noqa: F401  (MXNet's mx.contrib.nd: the contrib ops)
nd = ndarray

__all__ = ["autograd", "text", "io", "ndarray", "nd"]

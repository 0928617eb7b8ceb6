"""``mx.contrib.amp``: MXNet's automatic mixed precision, which mxgrad does not provide.

AMP rewrites a network to compute in float16/bfloat16 on GPUs with loss scaling; mxgrad
computes on the CPU in each array's own dtype. The module exists so that programs (and
MXNet's own tests) that import it load; every function raises
:class:`~mxgrad.base.UnsupportedFeatureError` naming what to do instead.

Examples
--------
>>> from mxgrad.contrib import amp
>>> try:
...     amp.init()
... except Exception as e:
...     print(type(e).__name__)
UnsupportedFeatureError
"""
from .amp import *  # noqa: F401,F403
from .amp import __all__  # noqa: F401

"""Clear errors for the parts of MXNet 1.x that mxgrad does not provide.

``mx.rtc``, ``mx.engine``, ``mx.torch``, ... are looked up through the package's module
``__getattr__`` (this module's :func:`module_getattr`), so ``mx.rtc.CudaModule(...)`` says what is
missing and what to use instead rather than a bare ``AttributeError``. The error is a
:class:`~mxgrad.base.UnsupportedFeatureError`: a ``NotSupportedError`` that is also an
``AttributeError``, so
``hasattr(mx, 'rtc')`` stays ``False`` and feature probes keep working.

Examples
--------
>>> import mxgrad as mx
>>> mx.rtc.CudaModule
Traceback (most recent call last):
...
mxgrad.base.UnsupportedFeatureError: mx.rtc (CUDA run-time compilation) is not supported ...
>>> hasattr(mx, "rtc")
False
"""
from __future__ import annotations

import importlib
from typing import Any, Dict, Tuple

from .base import UnsupportedFeatureError

__all__ = ["module_getattr", "UNSUPPORTED"]

#: name in ``mx`` -> (what it was in MXNet, what to use in mxgrad)
UNSUPPORTED: Dict[str, Tuple[str, str]] = {
    "rtc": ("CUDA run-time compilation", "mxgrad has no GPU support"),
    "engine": ("the threaded engine's controls (bulk size)",
               "mxgrad computes synchronously; for threads use mx.set_num_threads"),
    "library": ("loading C++ operator libraries", "use mx.autograd.Function"),
    "torch": ("the Torch plugin", "there is no equivalent"),
    "th": ("the Torch plugin", "there is no equivalent"),
    "tvmop": ("TVM operators", "there is no equivalent"),
    "notebook": ("the notebook callbacks", "use gluon.contrib.estimator's event handlers"),
}

#: MXNet's other names for modules mxgrad has
_ALIASES = {"rnd": "random", "visualization": "viz"}


def module_getattr(name: str) -> Any:
    """The ``mxgrad`` package's ``__getattr__``: aliases, then clear errors."""
    if name in _ALIASES:
        return importlib.import_module(f"mxgrad.{_ALIASES[name]}")
    if name in UNSUPPORTED:
        what, instead = UNSUPPORTED[name]
        raise UnsupportedFeatureError(f"mx.{name} ({what}) is not supported by mxgrad; "
                                      f"{instead}")
    raise AttributeError(f"module 'mxgrad' has no attribute {name!r}")

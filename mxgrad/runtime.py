"""``mx.runtime``: which build features are there, as MXNet's ``Features`` reports them.

mxgrad is pure Python on NumPy, so the native-library features MXNet reported (CUDA, MKLDNN,
OPENCV, ...) are all off; ``INT64_TENSOR_SIZE`` is on (NumPy indexes with 64 bits),
``PROFILER`` is on (``mx.profiler``) and ``DIST_KVSTORE`` is on when mpi4py is installed.
``Features()`` is one shared object, as in MXNet.

Examples
--------
>>> f = mx.runtime.Features()
>>> f.is_enabled('CUDA'), f.is_enabled('INT64_TENSOR_SIZE')
(False, True)
"""
from __future__ import annotations

import collections
import importlib.util
from typing import List

from .base import StateError

__all__ = ["Feature", "Features", "feature_list"]

_NAMES = ["CUDA", "CUDNN", "NCCL", "CUDA_RTC", "TENSORRT", "CPU_SSE", "CPU_SSE2", "CPU_SSE3",
          "CPU_SSE4_1", "CPU_SSE4_2", "CPU_SSE4A", "CPU_AVX", "CPU_AVX2", "OPENMP", "SSE",
          "F16C", "JEMALLOC", "BLAS_OPEN", "BLAS_ATLAS", "BLAS_MKL", "BLAS_APPLE", "LAPACK",
          "MKLDNN", "OPENCV", "CAFFE", "PROFILER", "DIST_KVSTORE", "CXX14", "INT64_TENSOR_SIZE",
          "SIGNAL_HANDLER", "DEBUG", "TVM_OP"]


class Feature:
    """One build feature: ``name`` and whether it is ``enabled``."""

    __slots__ = ("name", "enabled")

    def __init__(self, name: str, enabled: bool) -> None:
        self.name = name
        self.enabled = enabled

    def __repr__(self) -> str:
        return f"{'✔' if self.enabled else '✖'} {self.name}"


def feature_list() -> List[Feature]:
    """Every feature MXNet 1.9 reports, with mxgrad's answer."""
    on = {"INT64_TENSOR_SIZE", "LAPACK", "PROFILER",
          *(["DIST_KVSTORE"] if importlib.util.find_spec("mpi4py") else [])}
    return [Feature(n, n in on) for n in _NAMES]


class Features(collections.OrderedDict):
    """Name -> :class:`Feature`, with :meth:`is_enabled`."""

    _instance = None

    def __new__(cls, *args, **kwargs):
        if cls._instance is None:                 # one object, as MXNet's singleton
            cls._instance = super().__new__(cls)
            super(Features, cls._instance).__init__((f.name, f) for f in feature_list())
        return cls._instance

    def __init__(self) -> None:
        pass

    def __repr__(self) -> str:
        return str(list(self.values()))

    def is_enabled(self, feature_name: str) -> bool:
        """Whether ``feature_name`` (case-insensitive) is enabled; unknown names raise."""
        name = feature_name.upper()
        if name not in self:
            raise StateError(f"Feature {feature_name!r} is unknown; known: {', '.join(self)}")
        return self[name].enabled

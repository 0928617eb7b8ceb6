"""``mx.contrib``: MXNet 1.x's experimental namespace (the legacy ``contrib.autograd``,
``contrib.text``, ``contrib.io.DataLoaderIter``; ``contrib.amp`` refuses each call).
``contrib.onnx``, ``contrib.quantization`` and ``contrib.tensorrt`` are not provided: looking
them up raises an ``UnsupportedFeatureError`` saying so.

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

_NOT_PROVIDED = {
    "onnx": "ONNX export/import (it needs the onnx package and MXNet's graph converters); "
            "export the model with HybridBlock.export and load it with SymbolBlock.imports",
    "quantization": "INT8 quantization (MKL-DNN/cuDNN kernels); mxgrad computes in float",
    "tensorrt": "TensorRT (a GPU inference engine); mxgrad runs on the CPU",
}


def __getattr__(name: str):
    if name in _NOT_PROVIDED:
        from ..base import UnsupportedFeatureError
        raise UnsupportedFeatureError(f"mx.contrib.{name} is not supported by mxgrad: "
                                      f"{_NOT_PROVIDED[name]}")
    raise AttributeError(f"module 'mxgrad.contrib' has no attribute {name!r}")

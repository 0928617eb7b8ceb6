"""``mx.operator``: operators written in Python (MXNet's ``CustomOp``/``CustomOpProp``),
registered by name and called with ``mx.nd.Custom(*inputs, op_type=name, **params)``.

A call creates the operator from its property class (``create_operator`` with the inferred
shapes and dtypes), allocates the outputs, and runs ``forward``; under ``autograd.record()``
the call is recorded as one node whose backward runs the operator's ``backward`` (it is an
``autograd.Function``, so it is also differentiable at second order when its backward uses
``mx.nd`` ops). Parameters reach the property class as strings, as in MXNet.

Examples
--------
>>> import mxgrad as mx
>>> class Sqr(mx.operator.CustomOp):
...     def forward(self, is_train, req, in_data, out_data, aux):
...         self.assign(out_data[0], req[0], in_data[0] * in_data[0])
...     def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
...         self.assign(in_grad[0], req[0], 2 * in_data[0] * out_grad[0])
>>> @mx.operator.register("doctest_sqr")
... class SqrProp(mx.operator.CustomOpProp):
...     def create_operator(self, ctx, in_shapes, in_dtypes):
...         return Sqr()
>>> x = mx.nd.array([1., 2.]); x.attach_grad()
>>> with mx.autograd.record():
...     y = mx.nd.Custom(x, op_type="doctest_sqr")
>>> y.backward(); y.asnumpy().tolist(), x.grad.asnumpy().tolist()
([1.0, 4.0], [2.0, 4.0])
"""
from __future__ import annotations

from typing import List

from ._custom_op import CustomOp, CustomOpProp, CustomOpError, register, Custom
from ._custom_op import _REGISTRY

__all__ = ["CustomOp", "CustomOpProp", "CustomOpError", "register",
           "get_all_registered_operators", "Custom"]


def get_all_registered_operators() -> List[str]:
    """Every operator name, as MXNet lists them: the built-in ones of Symbol graphs
    (``Convolution``...), ``_np_<name>`` / ``_npx_<name>`` for the ``mx.np`` / ``mx.npx``
    functions, and the registered custom ``op_type`` names.

    Examples
    --------
    >>> import mxgrad as mx
    >>> ops = mx.operator.get_all_registered_operators()
    >>> 'Convolution' in ops and '_np_sum' in ops and '_npx_relu' in ops
    True
    """
    from .symbol._registry import supported_ops
    from . import numpy as mnp, numpy_extension as mnpx   # the namespaces below this one
    names = set(supported_ops()) | set(_REGISTRY)
    names |= {f"_np_{n}" for n in mnp.__all__ if callable(getattr(mnp, n, None))}
    names |= {f"_npx_{n}" for n in mnpx.__all__ if callable(getattr(mnpx, n, None))}
    return sorted(names)

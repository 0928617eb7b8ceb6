"""``mx.sym.Custom``: a Python operator (``mx.operator.CustomOpProp``) as a Symbol node.

The node's inputs, outputs and auxiliary states are those its property class lists, so each
``op_type`` gets its own :class:`~._registry.OpSpec` (named ``Custom``, as MXNet's JSON
writes it); the node runs ``mx.nd.Custom`` and its shapes and dtypes come from the
property's ``infer_shape`` / ``infer_type``.

Examples
--------
>>> import numpy as np
>>> import mxgrad as mx
>>> @mx.operator.register("twice_doc")
... class TwiceProp(mx.operator.CustomOpProp):
...     def create_operator(self, ctx, shapes, dtypes):
...         return Twice()
>>> class Twice(mx.operator.CustomOp):
...     def forward(self, is_train, req, in_data, out_data, aux):
...         self.assign(out_data[0], req[0], in_data[0] * 2)
...     def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
...         self.assign(in_grad[0], req[0], out_grad[0] * 2)
>>> y = mx.sym.Custom(mx.sym.var('x'), op_type='twice_doc', name='t')
>>> y.list_arguments(), y.list_outputs(), y.infer_shape(x=(2, 3))[1]
(['x'], ['t_output'], [(2, 3)])
>>> y.eval(x=mx.nd.array([1.0, 2.0]))[0].asnumpy().tolist()
[2.0, 4.0]
"""
from __future__ import annotations

from typing import Any, Dict

import numpy as np

from .. import ndarray as nd
from ..base import StateError, DTypeError
from ..ops._mxnet_op import mxnet_op
from ._registry import OpSpec

__all__ = ["Custom", "prop_of"]

_SPECS: Dict[tuple, OpSpec] = {}


def prop_of(kwargs: dict):
    """The property object of a Custom node's attributes (``op_type`` and its keywords)."""
    from .._custom_op import _REGISTRY, _run_user
    op_type = kwargs.get("op_type")
    if op_type not in _REGISTRY:
        raise StateError(f"Custom: no operator registered as op_type={op_type!r}; register a "
                         f"CustomOpProp with @mx.operator.register(name)")
    params = {k: str(v) for k, v in kwargs.items() if k != "op_type"}
    return _run_user(op_type, "the property's constructor", _REGISTRY[op_type], **params)


def _run(inputs, kwargs):
    kw = {k: str(v) for k, v in kwargs.items() if k != "op_type"}
    out = nd.Custom(*inputs, op_type=kwargs["op_type"], **kw)
    return tuple(out) if isinstance(out, list) else out


def _custom_shape(kw, ins, outs):
    """Custom's shape rule: the shapes from the property's ``infer_shape`` once the
    arguments' shapes are known."""
    prop = prop_of(kw)
    n_args = len(prop.list_arguments())
    args = ins[:n_args]
    if not all(s is not None and all(d >= 0 for d in s) for s in args):
        return list(ins), list(outs)
    res = prop.infer_shape([tuple(s) for s in args])
    in_s, out_s = list(res[0]), list(res[1])
    aux_s = list(res[2]) if len(res) > 2 else []
    new_ins = [tuple(s) for s in in_s] + [tuple(s) for s in aux_s]
    return new_ins + list(ins[len(new_ins):]), [tuple(s) for s in out_s]


def _custom_dtype(kw, ins, outs):
    """Custom's dtype rule: the dtypes from the property's ``infer_type`` once the
    arguments' dtypes are known."""
    prop = prop_of(kw)
    n_args = len(prop.list_arguments())
    if any(t is None for t in ins[:n_args]):
        return list(ins), list(outs)
    res = prop.infer_type([t.type for t in ins[:n_args]])
    aux_t = list(res[2]) if len(res) > 2 else []
    new_ins = [np.dtype(t) for t in list(res[0]) + aux_t]
    return new_ins + list(ins[len(new_ins):]), [np.dtype(t) for t in res[1]]


def _specialize(kwargs: dict) -> OpSpec:
    key = tuple(sorted((k, str(v)) for k, v in kwargs.items()))
    spec = _SPECS.get(key)
    if spec is None:
        prop = prop_of(kwargs)
        args, aux = list(prop.list_arguments()), list(prop.list_auxiliary_states())
        outs = list(prop.list_outputs())
        spec = OpSpec("Custom", tuple(args + aux),
                      aux=tuple(range(len(args), len(args) + len(aux))), run=_run,
                      attrs=None, outputs=len(outs), out_names=tuple(outs),
                      shape=_custom_shape, dtype=_custom_dtype)
        _SPECS[key] = spec
    return spec


# each node gets its op_type's own record (its inputs and outputs) from _specialize
mxnet_op("Custom", None, run=_run, attrs=None, shape=_custom_shape, dtype=_custom_dtype,
         variant=_specialize)


def Custom(*data: Any, op_type: str = "", name=None, attr=None, **kwargs: Any):
    """A node of the registered Python operator ``op_type``: its arguments and auxiliary
    states in the order its property lists them, positionally or by name; those left
    out become variables ``<name>_<input>`` (as MXNet's ``mx.sym.Custom``)."""
    from . import _ops
    from ._core import Symbol
    if not isinstance(op_type, str) or not op_type:
        raise DTypeError("mx.sym.Custom: op_type must be the registered name (a str)")
    given = {k: v for k, v in kwargs.items() if isinstance(v, Symbol)}
    params = {k: v for k, v in kwargs.items() if not isinstance(v, Symbol)}
    spec = _specialize(dict(params, op_type=op_type))
    names = list(spec.inputs or ())
    if len(data) > len(names):
        raise DTypeError(f"mx.sym.Custom({op_type}): {len(data)} inputs for {names}")
    for k in given:
        if k not in names:
            raise DTypeError(f"mx.sym.Custom({op_type}): {k!r} is not one of its inputs "
                             f"{names}")
    bound = dict(zip(names, data))
    bound.update(given)
    return _ops.call_with_inputs("Custom", "custom", names, bound,
                                 dict(params, op_type=op_type), name, attr)

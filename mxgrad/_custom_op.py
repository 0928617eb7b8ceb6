"""Python custom operators (MXNet's ``CustomOp``/``CustomOpProp``): the registry, the
classes and ``Custom`` (``mx.nd.Custom``), which runs one as a recorded autograd node.
``mx.operator`` is the public face (it re-exports these and lists every operator name);
this module sits below ``mx.nd`` and ``mx.sym``, which call it.

Examples
--------
>>> import mxgrad as mx
>>> issubclass(CustomOpError, mx.base.MXNetError) and mx.operator.CustomOp is CustomOp
True
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Sequence, Type

import numpy as np

from . import autograd
from .base import ArgumentTypeError, DTypeError, MXNetError, ShapeError, StateError
from .context import current_context
from ._engine.ndarray import NDArray

__all__ = ["CustomOp", "CustomOpProp", "CustomOpError", "register", "Custom"]


class CustomOpError(MXNetError):
    """An exception raised inside a custom operator's Python code, re-raised as an
    ``MXNetError`` naming the operator (as MXNet reports it); the original is its cause."""


def _run_user(op_type: str, what: str, fn, *args, **kwargs):
    try:
        return fn(*args, **kwargs)
    except MXNetError:
        raise
    except Exception as err:
        raise CustomOpError(f"Custom({op_type}): {what} raised {type(err).__name__}: "
                            f"{err}") from err


class CustomOp:
    """Base class of a Python operator: override :meth:`forward` and :meth:`backward`."""

    def __init__(self) -> None:
        pass

    def forward(self, is_train: bool, req: List[str], in_data: List[NDArray],
                out_data: List[NDArray], aux: List[NDArray]) -> None:
        """Fill ``out_data`` (use :meth:`assign` with ``req``)."""

    def backward(self, req: List[str], out_grad: List[NDArray], in_data: List[NDArray],
                 out_data: List[NDArray], in_grad: List[NDArray], aux: List[NDArray]) -> None:
        """Fill ``in_grad`` from ``out_grad`` (use :meth:`assign` with ``req``)."""

    def assign(self, dst: NDArray, req: str, src: Any) -> None:
        """``dst[:] = src`` for 'write'/'inplace', ``dst[:] += src`` for 'add', nothing
        for 'null'."""
        if req == "null":
            return
        if req in ("write", "inplace"):
            dst[:] = src
        elif req == "add":
            dst[:] += src
        else:
            raise StateError(f"CustomOp.assign: req must be 'null', 'write', 'inplace' or "
                             f"'add', got {req!r}")


class CustomOpProp:
    """Describes a Python operator: its inputs, outputs, shapes and types, and creates it.

    Parameters
    ----------
    need_top_grad : bool, default True
        Whether backward needs the output gradient (accepted; it always gets it).
    """

    def __init__(self, need_top_grad: bool = True) -> None:
        self.need_top_grad_ = need_top_grad

    def infer_shape(self, in_shape: List[tuple]):
        """``(in_shapes, out_shapes, aux_shapes)``; by default every output has the first
        input's shape."""
        return in_shape, (in_shape[0],) * len(self.list_outputs()), ()

    def infer_type(self, in_type: List[Any]):
        """``(in_types, out_types, aux_types)``; by default the first input's type."""
        return in_type, [in_type[0]] * len(self.list_outputs()), \
            [in_type[0]] * len(self.list_auxiliary_states())

    def infer_storage_type(self, in_stype: List[str]):
        """Dense storage everywhere (mxgrad has no sparse storage)."""
        return in_stype, ["default"] * len(self.list_outputs()), \
            ["default"] * len(self.list_auxiliary_states())

    def infer_storage_type_backward(self, ograd_stype, in_stype, out_stype, igrad_stype,
                                    aux_stype):
        return (ograd_stype, in_stype, out_stype, ["default"] * len(igrad_stype),
                aux_stype)

    def list_outputs(self) -> List[str]:
        return ["output"]

    def list_arguments(self) -> List[str]:
        return ["data"]

    def list_auxiliary_states(self) -> List[str]:
        return []

    def declare_backward_dependency(self, out_grad, in_data, out_data) -> list:
        deps: list = []
        if self.need_top_grad_:
            deps.extend(out_grad)
        return deps + list(in_data) + list(out_data)

    def create_operator(self, ctx, in_shapes: List[tuple], in_dtypes: List[Any]) -> CustomOp:
        """The operator instance for these input shapes and dtypes."""
        return CustomOp()


_REGISTRY: Dict[str, Type[CustomOpProp]] = {}


def register(reg_name: str) -> Callable[[Type[CustomOpProp]], Type[CustomOpProp]]:
    """Class decorator: register a :class:`CustomOpProp` subclass as ``op_type=reg_name``."""
    if not isinstance(reg_name, str) or not reg_name:
        raise StateError(f"operator.register: the name must be a non-empty str, got "
                         f"{reg_name!r}")

    def do_register(prop_cls: Type[CustomOpProp]) -> Type[CustomOpProp]:
        if not (isinstance(prop_cls, type) and issubclass(prop_cls, CustomOpProp)):
            raise DTypeError(f"operator.register({reg_name!r}): decorate a CustomOpProp "
                             f"subclass, got {prop_cls!r}")
        _REGISTRY[reg_name] = prop_cls
        return prop_cls
    return do_register


class _CustomCall(autograd.Function):
    """One call of a custom operator, as a recorded autograd node."""

    def __init__(self, op: CustomOp, out_specs: Sequence[tuple], n_args: int,
                 aux: List[NDArray], op_type: str = "") -> None:
        super().__init__()
        self._op_type = op_type
        self._op = op
        self._out_specs = out_specs
        self._n_args = n_args
        self._aux = aux

    def forward(self, *inputs):
        from .ops.creation import zeros
        outs = [zeros(shape, dtype=dtype) for shape, dtype in self._out_specs]
        _run_user(self._op_type, "forward", self._op.forward, is_train=autograd.is_training(),
                  req=["write"] * len(outs), in_data=list(inputs), out_data=outs,
                  aux=self._aux)
        self.save_for_backward(*inputs, *outs)
        return tuple(outs) if len(outs) > 1 else outs[0]

    def backward(self, *out_grads):
        from .ops.elemwise import zeros_like
        saved = self.saved_tensors
        ins, outs = list(saved[:self._n_args]), list(saved[self._n_args:])
        in_grad = [zeros_like(x) for x in ins]
        _run_user(self._op_type, "backward", self._op.backward, req=["write"] * len(ins),
                  out_grad=list(out_grads), in_data=ins, out_data=outs, in_grad=in_grad,
                  aux=self._aux)
        return tuple(in_grad) if len(in_grad) > 1 else in_grad[0]


def Custom(*data: NDArray, op_type: str = "", **kwargs: Any):
    """Run the registered Python operator ``op_type`` on ``data`` (its arguments then its
    auxiliary states, positionally or by the names its property lists, as MXNet takes
    them); other keyword parameters go to the property class as strings. Returns one
    NDArray, or a list for several outputs."""
    kwargs.pop("name", None)
    named = {k: v for k, v in kwargs.items() if isinstance(v, NDArray)}
    kwargs = {k: v for k, v in kwargs.items() if k not in named}
    if not isinstance(op_type, str):
        raise ArgumentTypeError(f"Custom: op_type must be the registered name (a str), got "
                                f"{type(op_type).__name__}")
    if op_type not in _REGISTRY:
        raise StateError(f"Custom: no operator registered as op_type={op_type!r}; register "
                         f"a CustomOpProp with @mx.operator.register(name). Registered "
                         f"custom operators: {sorted(_REGISTRY)}")
    prop_cls: Any = _REGISTRY[op_type]
    prop = _run_user(op_type, "the property's constructor", prop_cls,
                     **{k: str(v) for k, v in kwargs.items()})
    n_args = len(prop.list_arguments())
    n_aux = len(prop.list_auxiliary_states())
    if named:
        names = list(prop.list_arguments()) + list(prop.list_auxiliary_states())
        unknown = sorted(set(named) - set(names[len(data):]))
        if unknown:
            raise DTypeError(f"Custom({op_type}): {unknown} are not inputs left after the "
                             f"{len(data)} positional ones; its inputs are {names}")
        missing = [n for n in names[len(data):] if n not in named]
        if missing:
            raise ShapeError(f"Custom({op_type}): inputs {missing} are not given")
        data = tuple(data) + tuple(named[n] for n in names[len(data):])
    if len(data) != n_args + n_aux:
        raise ShapeError(f"Custom({op_type}): expects {n_args} argument(s) "
                         f"{prop.list_arguments()} and {n_aux} auxiliary state(s) "
                         f"{prop.list_auxiliary_states()}, got {len(data)} arrays")
    for i, a in enumerate(data):
        if not isinstance(a, NDArray):
            raise DTypeError(f"Custom({op_type}): input {i} must be an NDArray, got "
                             f"{type(a).__name__}")
    args, aux = list(data[:n_args]), list(data[n_args:])
    shapes = _run_user(op_type, "infer_shape", prop.infer_shape, [tuple(a.shape) for a in args])
    in_shapes, out_shapes = [tuple(s) for s in shapes[0]], [tuple(s) for s in shapes[1]]
    types = _run_user(op_type, "infer_type", prop.infer_type,
                      [np.dtype(a.dtype).type for a in args])
    out_types = list(types[1])
    n_out = len(prop.list_outputs())
    if len(out_shapes) != n_out or len(out_types) != n_out:
        raise ShapeError(f"Custom({op_type}): infer_shape/infer_type gave "
                         f"{len(out_shapes)}/{len(out_types)} outputs, list_outputs has "
                         f"{n_out}")
    op = _run_user(op_type, "create_operator", prop.create_operator, current_context(),
                   in_shapes, [a.dtype for a in args])
    call = _CustomCall(op, list(zip(out_shapes, out_types)), n_args, aux, op_type)
    out = call(*args)
    return list(out) if isinstance(out, tuple) else out

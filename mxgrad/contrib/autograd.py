"""MXNet's legacy ``mx.contrib.autograd`` (MXNet 0.11), kept for old programs.

Here "training" means both recording and training mode at once, as it did then:
``train_section()`` is ``autograd.record()``, ``test_section()`` stops both.
New code should use :mod:`mxgrad.autograd`.

Examples
--------
>>> from mxgrad.contrib import autograd as legacy
>>> x = mx.nd.array([1., 2.])
>>> g = legacy.grad(lambda x: (x * x).sum())(x)
>>> g[0].asnumpy()
array([2., 4.], dtype=float32)
"""
from __future__ import annotations

import functools
from typing import Callable, List, Optional, Sequence, Tuple, Union

from .. import autograd as _ag
from ..base import DTypeError, StateError
from .._engine.ndarray import NDArray
from .._typing import GradReq

__all__ = ["set_is_training", "TrainingStateScope", "train_section", "test_section",
           "mark_variables", "backward", "compute_gradient", "grad_and_loss", "grad"]


def set_is_training(is_train: bool) -> bool:
    """Turn recording and training mode on or off together; return the previous training state.

    Examples
    --------
    >>> prev = set_is_training(True); mx.autograd.is_recording()
    True
    >>> _ = set_is_training(prev)
    """
    prev = _ag.set_training(bool(is_train))
    _ag.set_recording(bool(is_train))
    return bool(prev)


class TrainingStateScope:
    """Context manager that sets recording+training to ``enter_state`` and restores it after."""

    __slots__ = ("_enter_state", "_prev_train", "_prev_record")

    def __init__(self, enter_state: bool) -> None:
        self._enter_state = bool(enter_state)
        self._prev_train: Optional[bool] = None
        self._prev_record: Optional[bool] = None

    def __enter__(self) -> "TrainingStateScope":
        self._prev_train = _ag.set_training(self._enter_state)
        self._prev_record = _ag.set_recording(self._enter_state)
        return self

    def __exit__(self, *exc) -> None:
        _ag.set_training(bool(self._prev_train))
        _ag.set_recording(bool(self._prev_record))


def train_section() -> TrainingStateScope:
    """A ``with`` scope that records and runs in training mode."""
    return TrainingStateScope(True)


def test_section() -> TrainingStateScope:
    """A ``with`` scope that neither records nor trains (e.g. inside a train_section)."""
    return TrainingStateScope(False)


def mark_variables(variables: Sequence[NDArray], gradients: Sequence[NDArray],
                   grad_reqs: Union[GradReq, Sequence[GradReq]] = "write") -> None:
    """Mark NDArrays as variables with the given gradient buffers (see autograd.mark_variables)."""
    _ag.mark_variables(list(variables), list(gradients), grad_reqs)


def backward(outputs: Sequence[NDArray], out_grads: Optional[Sequence[Optional[NDArray]]] = None,
             retain_graph: bool = False) -> None:
    """Gradients of ``outputs`` (a list or tuple) into the marked variables."""
    if not isinstance(outputs, (list, tuple)):
        raise DTypeError(f"contrib.autograd.backward: outputs must be a list or tuple of "
                         f"NDArrays, got {type(outputs).__name__}")
    if out_grads is not None and len(out_grads) != len(outputs):
        raise StateError(f"contrib.autograd.backward: {len(outputs)} outputs but "
                         f"{len(out_grads)} out_grads; give one per output (None for ones)")
    _ag.backward(list(outputs), None if out_grads is None else list(out_grads),
                 retain_graph=retain_graph)


def compute_gradient(outputs: Sequence[NDArray]) -> None:
    """Deprecated alias of :func:`backward` without head gradients."""
    backward(outputs)


def grad_and_loss(func: Callable, argnum: Optional[Union[int, List[int]]] = None) -> Callable:
    """Wrap ``func`` so that calling it returns ``(gradients, outputs)``.

    ``argnum`` (int or list) picks the arguments to differentiate; all by default.
    """
    @functools.wraps(func)
    def wrapped(*args) -> Tuple[List[NDArray], object]:
        variables = list(args)
        if argnum is not None:
            picks = argnum if isinstance(argnum, list) else [argnum]
            variables = [args[i] for i in picks]
        for i, x in enumerate(variables):
            if not isinstance(x, NDArray):
                raise DTypeError(f"grad_and_loss: argument {i} must be an NDArray to be "
                                 f"differentiated, got {type(x).__name__}")
        grads = [x.zeros_like() for x in variables]
        mark_variables(variables, grads)
        with train_section():
            outputs = func(*args)
        compute_gradient([outputs] if isinstance(outputs, NDArray) else outputs)
        return grads, outputs
    return wrapped


def grad(func: Callable, argnum: Optional[Union[int, List[int]]] = None) -> Callable:
    """Wrap ``func`` so that calling it returns the gradients of its arguments."""
    with_loss = grad_and_loss(func, argnum)

    @functools.wraps(with_loss)
    def wrapped(*args) -> List[NDArray]:
        return with_loss(*args)[0]
    return wrapped

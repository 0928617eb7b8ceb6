"""Thread-local autograd state: are we recording, are we training.

One :class:`threading.local` subclass with class-level defaults holds the flags, so a
new thread starts not recording and not training, as in MXNet, and reading a flag is
one attribute lookup. Every scope restores the previous state in ``finally`` and can
be used as a context manager or as a decorator.

Examples
--------
>>> from mxgrad import autograd
>>> autograd.is_recording()
False
>>> with autograd.record():
...     print(autograd.is_recording(), autograd.is_training())
True True
>>> with autograd.predict_mode():
...     print(autograd.is_training())
False
"""
from __future__ import annotations

import functools
import threading
from typing import Any, Callable, Dict, List, Optional, Tuple, TypeVar

from typing_extensions import Literal, ParamSpec

import numpy as np

__all__ = ["record", "pause", "train_mode", "predict_mode", "is_recording", "is_training",
           "set_recording", "set_training"]


class _State(threading.local):
    recording = False
    training = False
    backward = 0       # > 0 while gradient rules run (backward, autograd.grad)


state = _State()


def is_recording() -> bool:
    """Whether operations in this thread are being recorded for differentiation."""
    return state.recording


def is_training() -> bool:
    """Whether layers such as Dropout and BatchNorm run in training mode in this thread."""
    return state.training


def _flag(value, where: str) -> bool:
    """A bool argument (bool, 0/1, NumPy bool); anything else is an error naming it."""
    if isinstance(value, (bool, np.bool_)) or (isinstance(value, (int, np.integer))
                                               and value in (0, 1)):
        return bool(value)
    from ..base import DTypeError
    raise DTypeError(f"{where} must be True or False, got {type(value).__name__} "
                     f"{value!r:.40}")


def set_recording(is_recording: bool) -> bool:  # noqa: A002 - MXNet's name
    """Turn recording on or off; return the previous value.

    Examples
    --------
    >>> prev = set_recording(True); set_recording(prev)
    True
    """
    flag = _flag(is_recording, "set_recording: is_recording")
    prev = state.recording
    state.recording = flag
    return prev


def set_training(train_mode: bool) -> bool:
    """Turn training mode on or off; return the previous value.

    Examples
    --------
    >>> prev = set_training(True); set_training(prev)
    True
    """
    flag = _flag(train_mode, "set_training: train_mode")
    prev = state.training
    state.training = flag
    return prev


_P = ParamSpec("_P")
_R = TypeVar("_R")

class _Scope:
    """Sets the recording and/or training flags for a ``with`` block (or a decorated
    function) and restores, on exit (exceptions included), only the flags it set.

    The values to restore are kept per thread (and per nesting level), so one scope
    object entered in several threads at once restores each thread's own state.
    """

    __slots__ = ("_rec", "_train", "_saved")

    def __init__(self, recording: Optional[bool], training: Optional[bool]) -> None:
        self._rec = recording
        self._train = training
        # thread id -> stack of (recording, training) at entry
        self._saved: Dict[int, List[Tuple[Any, Any]]] = {}

    def __enter__(self) -> _Scope:
        s = state
        tid = threading.get_ident()
        stack = self._saved.get(tid)
        if stack is None:
            stack = self._saved[tid] = []
        stack.append((s.recording, s.training))
        if self._rec is not None:
            s.recording = self._rec
        if self._train is not None:
            s.training = self._train
        return self

    def __exit__(self, *exc: object) -> Literal[False]:
        s = state
        tid = threading.get_ident()
        stack = self._saved[tid]
        rec, train = stack.pop()
        if not stack:
            del self._saved[tid]
        if self._rec is not None:
            s.recording = rec
        if self._train is not None:
            s.training = train
        return False

    def __call__(self, func: Callable[_P, _R]) -> Callable[_P, _R]:
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with _Scope(self._rec, self._train):
                return func(*args, **kwargs)
        return wrapper


def record(train_mode: bool = True) -> _Scope:
    """Record operations for differentiation inside the block.

    Parameters
    ----------
    train_mode : bool, default True
        Training mode inside the block (Dropout active, BatchNorm on batch statistics).

    Examples
    --------
    >>> import mxgrad as mx
    >>> x = mx.nd.array([1., 2.]); x.attach_grad()
    >>> with mx.autograd.record():
    ...     y = (x * x).sum()
    >>> y.backward(); x.grad
    <BLANKLINE>
    [2. 4.]
    <NDArray 2 @cpu(0)>
    """
    return _Scope(True, _flag(train_mode, "record: train_mode"))


def pause(train_mode: bool = False) -> _Scope:
    """Stop recording inside the block (training mode off unless ``train_mode=True``).

    Examples
    --------
    >>> with record():
    ...     with pause():
    ...         print(is_recording(), is_training())
    False False
    """
    return _Scope(False, _flag(train_mode, "pause: train_mode"))


def train_mode() -> _Scope:
    """Training mode inside the block; recording is left as it is.

    Examples
    --------
    >>> with train_mode():
    ...     print(is_training(), is_recording())
    True False
    """
    return _Scope(None, True)


def predict_mode() -> _Scope:
    """Inference mode inside the block; recording is left as it is.

    Examples
    --------
    >>> with record():
    ...     with predict_mode():
    ...         print(is_training(), is_recording())
    False True
    """
    return _Scope(None, False)

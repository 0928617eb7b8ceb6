"""Device contexts. mxgrad runs on the CPU through NumPy. ``gpu(i)`` makes a context name
(``num_gpus()`` is 0, so code that picks a GPU only when there is one runs on the CPU), but
putting data on it raises :class:`~mxgrad.base.NotSupportedError`, as MXNet built without
CUDA does.

Examples
--------
>>> import mxgrad as mx
>>> mx.cpu()
cpu(0)
>>> mx.context.current_context()
cpu(0)
"""
from __future__ import annotations

import re
import warnings
import threading
from typing import Any

from .base import DTypeError, NotSupportedError, StateError

__all__ = ["Context", "cpu", "gpu", "cpu_pinned", "current_context", "num_gpus", "as_context",
           "as_context_list"]

_DEVICE_TYPES = ("cpu", "gpu", "cpu_pinned", "cpu_shared")
_CTX_STRING = re.compile(r"^\s*([a-z_]+)\s*(?:\(\s*(\d+)\s*\))?\s*$")


_DEPRECATED_DEFAULT = ("Context.default_ctx has been deprecated. Please use "
                       "Context.current_context() instead. Please use "
                       "test_utils.set_default_context to set a default context")


class _ContextType(type):
    """Context's metaclass: MXNet 1.x's class property ``Context.default_ctx``."""

    @property
    def default_ctx(cls) -> "Context":
        """The context in force in this thread (deprecated in MXNet 1.x, as here)."""
        warnings.warn(_DEPRECATED_DEFAULT, DeprecationWarning, stacklevel=2)
        return current_context()

    @default_ctx.setter
    def default_ctx(cls, ctx: "Context") -> None:
        warnings.warn(_DEPRECATED_DEFAULT, DeprecationWarning, stacklevel=2)
        Context._default_ctx.value = as_context(ctx, "Context.default_ctx")


class Context(metaclass=_ContextType):
    """A device name, as in MXNet (``cpu(0)``). All computation happens on the CPU.

    Examples
    --------
    >>> import mxgrad as mx
    >>> ctx = mx.Context('cpu', 0)
    >>> ctx, ctx.device_typeid, mx.Context.devtype2str[ctx.device_typeid]
    (cpu(0), 1, 'cpu')
    >>> with mx.cpu(1):
    ...     mx.context.current_context()
    cpu(1)
    """

    __slots__ = ("device_type", "device_id", "_saved")
    # the context in force, per thread (``.value``), under MXNet's name
    _default_ctx = threading.local()
    #: MXNet's device type numbers
    devtype2str = {1: "cpu", 2: "gpu", 3: "cpu_pinned", 5: "cpu_shared"}
    devstr2type = {"cpu": 1, "gpu": 2, "cpu_pinned": 3, "cpu_shared": 5}
    device_type: str
    device_id: int

    def __init__(self, device_type: Any = "cpu", device_id: int = 0) -> None:
        if isinstance(device_type, Context):
            device_type, device_id = device_type.device_type, device_type.device_id
        if not isinstance(device_type, str) or device_type not in _DEVICE_TYPES:
            raise StateError(f"Context: unknown device_type {device_type!r}; use one of "
                             f"{', '.join(map(repr, _DEVICE_TYPES))}, e.g. mx.cpu(0)")
        if (isinstance(device_id, bool) or not hasattr(device_id, "__index__")
                or int(device_id) < 0):
            raise StateError(f"Context: device_id must be a non-negative int, got "
                             f"{device_id!r}")
        self.device_type = device_type
        self.device_id = int(device_id)
        self._saved = None   # thread id -> stack of contexts in force before ``with``

    @property
    def device_typeid(self) -> int:
        """MXNet's number for the device type (``devtype2str`` maps it back)."""
        return Context.devstr2type[self.device_type]

    def empty_cache(self) -> None:
        """MXNet frees its memory pool for the device; NumPy returns memory to the system
        as arrays die, so there is nothing to free."""

    def __repr__(self) -> str:
        return f"{self.device_type}({self.device_id})"

    __str__ = __repr__

    def __eq__(self, other) -> bool:
        return (isinstance(other, Context) and other.device_type == self.device_type
                and other.device_id == self.device_id)

    def __hash__(self) -> int:
        return hash((self.device_type, self.device_id))

    def __enter__(self):
        # The context to restore is kept per thread, so one Context object can be
        # entered in several threads at once.
        if self._saved is None:
            self._saved = {}
        self._saved.setdefault(threading.get_ident(), []).append(current_context())
        Context._default_ctx.value = self
        return self

    def __exit__(self, *exc):
        tid = threading.get_ident()
        stack = self._saved[tid]
        Context._default_ctx.value = stack.pop()
        if not stack:
            del self._saved[tid]
        return False


def cpu(device_id: int = 0) -> Context:
    """The CPU context (``cpu(0)``)."""
    return Context("cpu", device_id)


def gpu(device_id: int = 0) -> Context:
    """A GPU context name; arrays and parameters cannot be put on it (mxgrad has no GPU
    support: use ``mx.cpu()``, or ``mx.gpu() if mx.context.num_gpus() else mx.cpu()``)."""
    return Context("gpu", device_id)


def cpu_pinned(device_id: int = 0) -> Context:
    """MXNet's pinned-memory context; the CPU here."""
    return Context("cpu_pinned", device_id)


def current_context() -> Context:
    """The context in force in this thread (``cpu(0)`` unless a ``with ctx:`` is open)."""
    return getattr(Context._default_ctx, "value", None) or cpu()


def num_gpus() -> int:
    """Number of GPUs mxgrad can use: always 0."""
    return 0


def as_context(ctx, where: str = "ctx") -> Context:
    """Check a ``ctx`` argument to put data on: ``None`` (the current context), a
    :class:`Context` or a name such as ``'cpu(0)'``; anything else raises an error naming
    ``where``, and so does a GPU context (not supported).

    Examples
    --------
    >>> as_context('cpu(1)'), as_context(None)
    (cpu(1), cpu(0))
    >>> as_context(gpu(0), "nd.zeros: ctx")
    Traceback (most recent call last):
    ...
    mxgrad.base.NotSupportedError: nd.zeros: ctx is gpu(0): mxgrad has no GPU support ...
    """
    if ctx is None:
        ctx = current_context()
    if isinstance(ctx, Context):
        if ctx.device_type == "gpu":
            raise NotSupportedError(
                f"{where} is {ctx}: mxgrad has no GPU support (it computes with NumPy on the "
                f"CPU, and mx.context.num_gpus() is 0); use mx.cpu() or leave ctx out")
        return ctx
    if isinstance(ctx, str):
        m = _CTX_STRING.match(ctx)
        if m and m.group(1) in _DEVICE_TYPES:
            return as_context(Context(m.group(1), int(m.group(2) or 0)), where)
        raise StateError(f"{where}: unknown context {ctx!r}; use mx.cpu(), mx.gpu(i) or a "
                         f"name such as 'cpu(0)'")
    raise DTypeError(f"{where} must be a Context such as mx.cpu(), got "
                     f"{type(ctx).__name__} {ctx!r}")


def as_context_list(ctx, where: str = "ctx") -> list:
    """Check a ``ctx`` argument that may also be a list of contexts (Gluon's
    ``initialize``); return a non-empty list of :class:`Context`.

    Examples
    --------
    >>> as_context_list([cpu(0), 'cpu(1)'])
    [cpu(0), cpu(1)]
    """
    if isinstance(ctx, (list, tuple)):
        if not ctx:
            raise StateError(f"{where}: the list of contexts is empty; give at least one, "
                             f"e.g. [mx.cpu()]")
        return [as_context(c, f"{where}[{i}]") for i, c in enumerate(ctx)]
    return [as_context(ctx, where)]

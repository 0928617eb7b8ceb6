"""Device contexts. mxgrad runs on the CPU through NumPy; ``gpu(i)`` exists so that
MXNet code naming a device still runs, and it maps to the CPU.

Examples
--------
>>> import mxgrad as mx
>>> mx.cpu()
cpu(0)
>>> mx.context.current_context()
cpu(0)
"""
from __future__ import annotations

import threading

__all__ = ["Context", "cpu", "gpu", "cpu_pinned", "current_context", "num_gpus"]


class Context:
    """A device name, as in MXNet (``cpu(0)``). All computation happens on the CPU."""

    __slots__ = ("device_type", "device_id", "_old")
    _local = threading.local()

    def __init__(self, device_type="cpu", device_id: int = 0):
        if isinstance(device_type, Context):
            device_type, device_id = device_type.device_type, device_type.device_id
        self.device_type = device_type
        self.device_id = device_id

    def __repr__(self) -> str:
        return f"{self.device_type}({self.device_id})"

    __str__ = __repr__

    def __eq__(self, other) -> bool:
        return (isinstance(other, Context) and other.device_type == self.device_type
                and other.device_id == self.device_id)

    def __hash__(self) -> int:
        return hash((self.device_type, self.device_id))

    def __enter__(self):
        self._old = current_context()
        Context._local.value = self
        return self

    def __exit__(self, *exc):
        Context._local.value = self._old
        return False


def cpu(device_id: int = 0) -> Context:
    """The CPU context (``cpu(0)``)."""
    return Context("cpu", device_id)


def gpu(device_id: int = 0) -> Context:
    """A GPU context name; mxgrad computes on the CPU whatever the name."""
    return Context("gpu", device_id)


def cpu_pinned(device_id: int = 0) -> Context:
    """MXNet's pinned-memory context; the CPU here."""
    return Context("cpu_pinned", device_id)


def current_context() -> Context:
    """The context in force in this thread (``cpu(0)`` unless a ``with ctx:`` is open)."""
    return getattr(Context._local, "value", None) or cpu()


def num_gpus() -> int:
    """Number of GPUs mxgrad can use: always 0."""
    return 0

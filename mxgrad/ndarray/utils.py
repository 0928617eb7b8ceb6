"""``nd.waitall``, ``nd.save`` and ``nd.load``."""
from __future__ import annotations

import numpy as np

from ..base import DTypeError
from .ndarray import NDArray, wrap

__all__ = ["waitall", "save", "load"]


def waitall() -> None:
    """Wait for all pending computation: a no-op, NumPy is synchronous.

    Examples
    --------
    >>> waitall()
    """


def save(fname: str, data) -> None:
    """Save an NDArray, a list of them or a dict of them to ``fname`` (NumPy ``.npz``).

    Examples
    --------
    >>> import mxgrad as mx, os, tempfile
    >>> f = os.path.join(tempfile.mkdtemp(), 'x.nd')
    >>> mx.nd.save(f, {'a': mx.nd.ones((2,))}); mx.nd.load(f)['a'].shape
    (2,)
    """
    if isinstance(data, NDArray):
        arrays, kind = {"0": data._data}, "list"
    elif isinstance(data, dict):
        arrays, kind = {k: v._data for k, v in data.items()}, "dict"
    elif isinstance(data, (list, tuple)):
        arrays, kind = {str(i): v._data for i, v in enumerate(data)}, "list"
    else:
        raise DTypeError(f"nd.save takes an NDArray, a list or a dict of NDArrays, got "
                         f"{type(data).__name__}")
    with open(fname, "wb") as f:
        np.savez(f, __kind__=np.array(kind), **arrays)


def load(fname: str):
    """Load what ``nd.save`` wrote: a list or a dict of NDArrays."""
    with np.load(fname, allow_pickle=False) as z:
        kind = str(z["__kind__"])
        items = {k: wrap(z[k].copy()) for k in z.files if k != "__kind__"}
    if kind == "dict":
        return items
    return [items[str(i)] for i in range(len(items))]

"""Gluon utilities: splitting batches across contexts, global-norm clipping, hooks.

Examples
--------
>>> import mxgrad as mx
>>> parts = mx.gluon.utils.split_and_load(mx.nd.arange(6).reshape((6, 1)),
...                                       [mx.cpu(0), mx.cpu(1)])
>>> [p.shape for p in parts]
[(3, 1), (3, 1)]
>>> a = mx.nd.array([3.0, 0.0]); b = mx.nd.array([4.0])
>>> float(mx.gluon.utils.clip_global_norm([a, b], 1.0))
5.0
>>> a.asnumpy().astype(float).round(4).tolist(), b.asnumpy().astype(float).round(4).tolist()
([0.6, 0.0], [0.8])
"""
from __future__ import annotations

import itertools
import os
import warnings
import weakref
from typing import Any

import numpy as np

from ..base import DTypeError, MXNetError, ShapeError, StateError
from .._fileio import file_sha1
from ..context import as_context
from .. import ndarray as nd
from .._engine.ndarray import NDArray
from .. import autograd

__all__ = ["split_data", "split_and_load", "placed_context", "clip_global_norm", "check_sha1", "download",
           "HookHandle", "shape_is_known"]


def shape_is_known(shape) -> bool:
    """Whether every dimension of ``shape`` is known (no 0 or -1 placeholders).

    Examples
    --------
    >>> shape_is_known((2, 3)), shape_is_known((2, 0)), shape_is_known(None)
    (True, False, False)
    """
    if shape is None:
        return False
    return all(int(d) > 0 for d in shape)


def split_data(data, num_slice: int, batch_axis: int = 0, even_split: bool = True):
    """Split ``data`` into ``num_slice`` slices along ``batch_axis``.

    With ``even_split=False`` the sizes differ by at most one, the larger slices first
    (as ``numpy.array_split`` and MXNet 1.9.1); with fewer samples than slices the last
    slices are empty.

    Examples
    --------
    >>> import mxgrad as mx
    >>> [s.shape for s in split_data(mx.nd.zeros((5, 2)), 2, even_split=False)]
    [(3, 2), (2, 2)]
    """
    if not isinstance(data, NDArray):
        data = nd.array(data)
    size = data.shape[batch_axis]
    if even_split and size % num_slice != 0:
        raise ShapeError(
            f"data with shape {data.shape} cannot be evenly split into {num_slice} slices "
            f"along axis {batch_axis}. Use a batch size that's multiple of {num_slice} or "
            f"set even_split=False to allow uneven partitioning of data.")
    if num_slice == 1:
        return [data]
    each, extras = divmod(size, num_slice)
    sizes = [each + 1] * extras + [each] * (num_slice - extras)
    ends = np.cumsum(sizes).tolist()
    bounds = [(e - n, e) for n, e in zip(sizes, ends)]
    if batch_axis == 0:
        return [data[b:e] for b, e in bounds]
    return [nd.slice_axis(data, axis=batch_axis, begin=b, end=e) for b, e in bounds]


# id(array) -> (weak reference, Context) for the slices split_and_load placed on a
# context: a block called on such a slice runs under that context, so each parameter
# gives the copy it keeps there (NDArray itself has no device in mxgrad)
_placed: dict = {}


def _forget(ref, _placed=_placed):
    _placed.pop(ref.key, None)


class _PlacedRef(weakref.ref):
    __slots__ = ("key",)
    key: Any


def _place(arr: NDArray, ctx) -> NDArray:
    ctx = as_context(ctx, "split_and_load: ctx_list")
    ref = _PlacedRef(arr, _forget)
    ref.key = id(arr)
    _placed[ref.key] = (ref, ctx)
    return arr


def placed_context(arr):
    """The context ``split_and_load`` loaded ``arr`` on, or None.

    Examples
    --------
    >>> import mxgrad as mx
    >>> a, b = split_and_load(mx.nd.zeros((4, 1)), [mx.cpu(0), mx.cpu(1)])
    >>> placed_context(b), placed_context(mx.nd.zeros(1))
    (cpu(1), None)
    """
    entry = _placed.get(id(arr))
    if entry is None or entry[0]() is not arr:
        return None
    return entry[1]


def split_and_load(data, ctx_list, batch_axis: int = 0, even_split: bool = True):
    """Split ``data`` along ``batch_axis`` into one slice per context in ``ctx_list``.

    mxgrad computes on the CPU; each slice remembers its context, and a block called on
    it uses the parameter copies kept on that context (``net.initialize(ctx=ctx_list)``).

    Examples
    --------
    >>> import mxgrad as mx
    >>> len(split_and_load(mx.nd.zeros((4, 3)), [mx.cpu()]))
    1
    """
    if not isinstance(data, NDArray):
        data = nd.array(data)
    if not isinstance(ctx_list, (list, tuple)):
        ctx_list = [ctx_list]
    if len(ctx_list) == 1:
        return [data.as_in_context(ctx_list[0])]
    slices = split_data(data, len(ctx_list), batch_axis, even_split)
    return [_place(s, ctx) for s, ctx in zip(slices, ctx_list)]


def clip_global_norm(arrays, max_norm: float, check_isfinite: bool = True):
    """Rescale ``arrays`` in place so that their joint 2-norm is at most ``max_norm``.

    Returns the total norm before clipping (a Python float when ``check_isfinite``,
    else a 1-element NDArray), as MXNet does. A non-finite norm gives a warning.

    Examples
    --------
    >>> import mxgrad as mx
    >>> g = [mx.nd.ones((4,))]
    >>> float(clip_global_norm(g, 10.0)), g[0].asnumpy().tolist()   # no change
    (2.0, [1.0, 1.0, 1.0, 1.0])
    """
    if not arrays:
        raise StateError("clip_global_norm needs at least one array")
    with autograd.pause():
        total = 0.0
        for arr in arrays:
            if not isinstance(arr, NDArray):
                raise DTypeError(f"clip_global_norm takes NDArrays, got {type(arr).__name__}")
            total += float((arr.astype("float64") ** 2).sum().asscalar())
        total_norm = float(np.sqrt(total))
        if check_isfinite and not np.isfinite(total_norm):
            warnings.warn(UserWarning("nan or inf is detected. Clipping results will be "
                                      "undefined."), stacklevel=2)
        scale = min(max_norm / (total_norm + 1e-8), 1.0)
        if scale < 1.0:
            for arr in arrays:
                arr *= scale
    if check_isfinite:
        return total_norm
    return nd.array([total_norm])


def check_sha1(filename: str, sha1_hash: str) -> bool:
    """Whether the SHA-1 hash of the file's content matches ``sha1_hash`` (a prefix is
    enough, as in MXNet)."""
    digest = file_sha1(filename)
    length = min(len(digest), len(sha1_hash))
    return digest[:length] == sha1_hash[:length]


def download(url, path=None, overwrite=False, sha1_hash=None, retries=5,
             verify_ssl=True):
    """Download ``url`` to ``path`` (a file or a directory); return the file name."""
    import urllib.request
    fname = url.split("/")[-1]
    if path is not None:
        path = os.path.expanduser(path)
        fname = os.path.join(path, fname) if os.path.isdir(path) else path
    if overwrite or not os.path.exists(fname) or (sha1_hash and not check_sha1(fname,
                                                                               sha1_hash)):
        dirname = os.path.dirname(os.path.abspath(fname))
        os.makedirs(dirname, exist_ok=True)
        last = None
        for _ in range(max(1, retries)):
            try:
                urllib.request.urlretrieve(url, fname)
                break
            except OSError as err:  # pragma: no cover - network dependent
                last = err
        else:  # pragma: no cover
            raise MXNetError(f"failed to download {url}: {last}")
        if sha1_hash and not check_sha1(fname, sha1_hash):
            raise MXNetError(f"File {fname} is downloaded but the content hash does not "
                             f"match. The repo may be outdated or download may be "
                             f"incomplete.")
    return fname


class HookHandle:
    """Handle returned by ``register_forward_hook``/``register_forward_pre_hook``;
    ``detach()`` removes the hook (also usable as a context manager)."""

    _ids = itertools.count()

    def __init__(self):
        self._hooks_dict_ref = None
        self._id = None

    def attach(self, hooks_dict, hook) -> None:
        if self._hooks_dict_ref is not None:
            raise StateError("The same handle cannot be attached twice.")
        self._id = next(HookHandle._ids)
        hooks_dict[self._id] = hook
        self._hooks_dict_ref = weakref.ref(hooks_dict)

    def detach(self) -> None:
        hooks_dict = self._hooks_dict_ref() if self._hooks_dict_ref is not None else None
        if hooks_dict is not None and self._id in hooks_dict:
            del hooks_dict[self._id]

    def __getstate__(self):
        return (self._hooks_dict_ref() if self._hooks_dict_ref else None, self._id)

    def __setstate__(self, state):
        if state[0] is None:
            self._hooks_dict_ref = weakref.ref(dict())
        else:
            self._hooks_dict_ref = weakref.ref(state[0])
        self._id = state[1]

    def __enter__(self):
        return self

    def __exit__(self, ptype, value, trace):
        self.detach()


def _indent(s_: str, num_spaces: int) -> str:
    """Indent every line of ``s_`` but the first by ``num_spaces``."""
    s = s_.split("\n")
    if len(s) == 1:
        return s_
    first = s.pop(0)
    return "\n".join([first] + [(num_spaces * " ") + line for line in s])


def _brief_print_list(lst, limit: int = 7) -> str:
    """``'a', 'b', ..., 'z'``: at most ``limit`` quoted names."""
    lst = list(lst)
    if len(lst) > limit:
        return (_brief_print_list(lst[:limit // 2], limit) + ", ..., "
                + _brief_print_list(lst[-limit // 2:], limit))
    return ", ".join([f"'{i}'" for i in lst])

"""The key-value store: sums values over devices and over worker processes.

A :class:`KVStore` keeps one array per key. ``push`` sums the values given for a key
(one per device, in list order), then over all workers (MPI, in rank order), and
either stores the sum or, after ``set_optimizer``, applies the optimizer to the stored
weight with it; ``pull`` copies the stored array into every output. Pushing many keys
at once sends them in one fused message. ``init`` and ``broadcast`` take rank 0's
value, so every worker starts from the same arrays.

Examples
--------
>>> import mxgrad as mx
>>> kv = mx.kv.create('local')
>>> kv.init(3, mx.nd.ones((2, 3)))
>>> kv.push(3, [mx.nd.ones((2, 3)), mx.nd.ones((2, 3)) * 2])   # two devices: summed
>>> out = mx.nd.zeros((2, 3)); kv.pull(3, out=out); out.asnumpy()[0].tolist()
[3.0, 3.0, 3.0]
>>> kv.set_optimizer(mx.optimizer.SGD(learning_rate=0.5))
>>> kv.push(3, mx.nd.ones((2, 3))); kv.pull(3, out=out); out.asnumpy()[0].tolist()
[2.5, 2.5, 2.5]
"""
from __future__ import annotations

import warnings
from typing import Any, Union

import numpy as np

from ..base import DTypeError, MXNetError, ShapeError, StateError
from .._engine.ndarray import NDArray, wrap
from .. import optimizer as opt
from ._comm import CollectiveMismatchError, LocalComm, world

__all__ = ["KVStore", "create", "KVStoreError", "CollectiveMismatchError"]

Key = Union[int, str]


class KVStoreError(MXNetError, ValueError):
    """A kvstore call with bad keys or values (unknown key, length mismatch...)."""


_LOCAL_TYPES = ("local", "device", "nccl", "local_update_cpu", "local_allreduce_cpu",
                "local_allreduce_device")
_DIST_TYPES = ("dist_sync", "dist_device_sync", "dist_async", "dist_sync_device",
               "dist_async_device", "dist", "horovod")


def _item(k, a) -> str:
    """How a value is described when the workers' calls are matched."""
    return f"key {k!r} {tuple(a.shape)} {np.dtype(a.dtype)}"


def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


class KVStore:
    """A store of arrays keyed by int or str, summed over devices and workers.

    Create it with :func:`create` (``mx.kv.create('dist_sync')``). ``rank`` and
    ``num_workers`` come from MPI for the ``dist_*`` types and are 0 and 1 for
    ``'local'``/``'device'``.

    With several workers, every ``init``/``push``/``pushpull``/``broadcast``/``barrier``
    is matched across them before data moves: workers that pass other keys, shapes or
    dtypes raise :class:`CollectiveMismatchError` naming each rank's call and the first
    differing key (the workers stay in step). A worker whose call the others do not
    make within ``MXGRAD_KVSTORE_TIMEOUT`` seconds (environment variable, default 1800,
    ``0`` = forever) prints its rank, the call and its keys and stops the whole job,
    instead of hanging as MXNet does.
    """

    def __init__(self, name: str, comm=None):
        self._type = name
        self._comm = comm if comm is not None else LocalComm()
        self._store: dict = {}
        self._updater: Any = None
        self._optimizer: Any = None
        self._flat: dict = {}

    # ------------------------------------------------------------ properties
    @property
    def type(self) -> str:
        """The name given to :func:`create` (``'dist_async'`` is reported as asked)."""
        return self._type

    @property
    def rank(self) -> int:
        """This worker's index, 0 ... ``num_workers - 1``."""
        return self._comm.rank

    @property
    def num_workers(self) -> int:
        """Number of worker processes."""
        return self._comm.size

    def __repr__(self) -> str:
        return f"<KVStore {self._type} rank {self.rank} of {self.num_workers}>"

    def is_capable(self, capability: str) -> bool:
        """Whether the store can run the optimizer (``'optimizer'``): always."""
        return capability.lower() == "optimizer"

    # ------------------------------------------------------------ arguments
    def _pairs(self, key, value, what: str):
        """[(key, [arrays])] from MXNet's key/value conventions."""
        if isinstance(key, (list, tuple)):
            keys = list(key)
            values = _as_list(value)
            if len(values) != len(keys):
                raise KVStoreError(f"kvstore.{what}: {len(keys)} keys but {len(values)} "
                                   f"values; give one value (or one list of per-device "
                                   f"values) per key")
        else:
            keys, values = [key], [value]
        pairs = []
        for k, v in zip(keys, values):
            if not isinstance(k, (int, np.integer, str)):
                raise KVStoreError(f"kvstore.{what}: keys must be int or str, got "
                                   f"{type(k).__name__}")
            k = int(k) if isinstance(k, (int, np.integer)) else k
            arrs = _as_list(v)
            if not arrs:
                raise KVStoreError(f"kvstore.{what}: empty list of values for key {k!r}")
            for a in arrs:
                if not isinstance(a, NDArray):
                    raise DTypeError(f"kvstore.{what}: values must be NDArrays, got "
                                     f"{type(a).__name__} for key {k!r}")
            shape = arrs[0].shape
            for a in arrs[1:]:
                if a.shape != shape:
                    raise ShapeError(f"kvstore.{what}: values for key {k!r} have shapes "
                                     f"{shape} and {a.shape}; per-device values must have "
                                     f"one shape")
            pairs.append((k, arrs))
        return pairs

    def _stored(self, k, what: str) -> NDArray:
        try:
            return self._store[k]
        except KeyError:
            raise KVStoreError(f"kvstore.{what}: key {k!r} has not been initialized; call "
                               f"kv.init({k!r}, value) first") from None

    # ------------------------------------------------------------ collectives
    def _merge(self, pairs, what: str):
        """Sum each key's values over devices (list order) and workers (rank order).

        Returns one NumPy array per key: views of a fused buffer per dtype, valid until
        the next push."""
        if self._comm.size > 1:   # first, so that workers disagreeing all raise here
            self._comm.check_(what, [_item(k, arrs[0]) for k, arrs in pairs])
        by_dtype: dict = {}
        for k, arrs in pairs:
            stored = self._stored(k, what)
            if arrs[0].shape != stored.shape:
                raise ShapeError(f"kvstore.{what}: value for key {k!r} has shape "
                                 f"{arrs[0].shape}, the stored array {stored.shape}")
            by_dtype.setdefault(np.dtype(arrs[0].dtype), []).append((k, arrs))
        merged = {}
        for dt, group in by_dtype.items():
            total = sum(arrs[0].size for _, arrs in group)
            flat = self._flat.get(dt)
            if flat is None or flat.size < total:
                flat = np.empty(total, dt)
                self._flat[dt] = flat
            buf = flat[:total]
            off = 0
            for k, arrs in group:
                n = arrs[0].size
                dst = buf[off:off + n].reshape(arrs[0].shape)
                np.copyto(dst, arrs[0]._data)
                for a in arrs[1:]:
                    np.add(dst, a._data.astype(dt, copy=False), out=dst)
                merged[k] = dst
                off += n
            self._comm.allreduce_(buf)
        return merged

    def _allreduce_buffers(self, buffers) -> None:
        """Sum each flat, contiguous NumPy buffer over workers in place, in rank order.

        The Trainer's fast path: its gradients are views of such fused buffers, so no
        packing or unpacking is needed (and nothing is done with one worker). The stored
        values are not touched."""
        if self._comm.size > 1:
            self._comm.check_("allreduce of the Trainer's gradients",
                              [f"buffer {i} of {b.size} {b.dtype}"
                               for i, b in enumerate(buffers)])
        for buf in buffers:
            self._comm.allreduce_(buf)

    # ------------------------------------------------------------ API
    def init(self, key, value) -> None:
        """Create keys with their first values (rank 0's value on every worker).

        Examples
        --------
        >>> import mxgrad as mx
        >>> kv = mx.kv.create('local'); kv.init(['a', 'b'], [mx.nd.ones(2), mx.nd.zeros(2)])
        """
        pairs = self._pairs(key, value, "init")
        for k, arrs in pairs:
            if k in self._store:
                raise KVStoreError(f"kvstore.init: key {k!r} is already initialized; use "
                                   f"push/pull (or broadcast) to change it")
        self._set_from_root(pairs)

    def _set_from_root(self, pairs, what: str = "init") -> None:
        if self._comm.size > 1:
            self._comm.check_(what, [_item(k, arrs[0]) for k, arrs in pairs])
        new = []
        for k, arrs in pairs:
            arr = np.array(arrs[0]._data, copy=True)
            new.append((k, arr))
        by_dtype: dict = {}
        for k, arr in new:
            by_dtype.setdefault(arr.dtype, []).append(arr)
        if self._comm.size > 1:
            for dt, arrs in by_dtype.items():
                flat = np.concatenate([a.reshape(-1) for a in arrs])
                self._comm.bcast_(flat, 0)
                off = 0
                for a in arrs:
                    a.reshape(-1)[...] = flat[off:off + a.size]
                    off += a.size
        for k, arr in new:
            self._store[k] = wrap(arr)

    def push(self, key, value, priority: int = 0) -> None:
        """Sum the values over devices and workers; store the sum, or update the stored
        weight with it when an optimizer is set (:meth:`set_optimizer`)."""
        pairs = self._pairs(key, value, "push")
        merged = self._merge(pairs, "push")
        self._apply(merged)

    def _apply(self, merged) -> None:
        updater = self._updater
        if updater is None:
            for k, m in merged.items():
                np.copyto(self._store[k]._data, m)
            return
        items = [(k, wrap(m), self._store[k]) for k, m in merged.items()]
        if type(updater) is opt.Updater:
            updater._update_params(items)
        else:
            for k, g, w in items:
                updater(k, g, w)

    def pull(self, key, out=None, priority: int = 0, ignore_sparse: bool = True) -> None:
        """Copy the stored arrays into ``out`` (an NDArray, or a list per device)."""
        if out is None:
            raise KVStoreError("kvstore.pull: give out= (the arrays to copy into)")
        for k, outs in self._pairs(key, out, "pull"):
            stored = self._stored(k, "pull")
            for o in outs:
                if o.shape != stored.shape:
                    raise ShapeError(f"kvstore.pull: out for key {k!r} has shape "
                                     f"{o.shape}, the stored array {stored.shape}")
                o[:] = stored

    def row_sparse_pull(self, key, out=None, priority: int = 0, row_ids=None) -> None:
        """Dense stand-in for MXNet's row-sparse pull: the whole arrays."""
        self.pull(key, out=out, priority=priority)

    def pushpull(self, key, value, out=None, priority: int = 0) -> None:
        """``push`` then ``pull`` in one call; ``out=None`` writes back into ``value``.

        Examples
        --------
        >>> import mxgrad as mx
        >>> kv = mx.kv.create('device'); kv.init(0, mx.nd.zeros(2))
        >>> g = [mx.nd.ones(2), mx.nd.ones(2)]; kv.pushpull(0, g); g[1].asnumpy().tolist()
        [2.0, 2.0]
        """
        pairs = self._pairs(key, value, "pushpull")
        outs = self._pairs(key, value if out is None else out, "pushpull")
        merged = self._merge(pairs, "pushpull")
        if self._updater is None:
            for k, os_ in outs:
                m = merged[k]
                for o in os_:
                    o._write(m, casting="same_kind")
            self._apply(merged)
        else:
            self._apply(merged)
            self.pull(key, out=value if out is None else out)

    def broadcast(self, key, value, out, priority: int = 0) -> None:
        """Set ``key`` to rank 0's ``value`` and copy it into ``out`` on every worker.

        Examples
        --------
        >>> import mxgrad as mx
        >>> kv = mx.kv.create('local'); o = mx.nd.zeros(2)
        >>> kv.broadcast('w', mx.nd.array([1, 2]), out=o); o.asnumpy().tolist()
        [1.0, 2.0]
        """
        pairs = self._pairs(key, value, "broadcast")
        self._set_from_root(pairs, "broadcast")
        self.pull(key, out=out)

    # ------------------------------------------------------------ optimizer
    def set_optimizer(self, optimizer: opt.Optimizer) -> None:
        """Update stored weights with ``optimizer`` on every push (each worker runs the
        same update on the same summed gradient, so the weights stay identical)."""
        if not isinstance(optimizer, opt.Optimizer):
            raise DTypeError(f"set_optimizer needs an Optimizer, got "
                             f"{type(optimizer).__name__}")
        self._optimizer = optimizer
        self._updater = opt.get_updater(optimizer)

    def _set_updater(self, updater) -> None:
        """Use ``updater(key, grad, weight)`` on pushes (MXNet's local-store hook)."""
        self._updater = updater

    def save_optimizer_states(self, fname: str, dump_optimizer: bool = False) -> None:
        """Save the optimizer states (momenta...) to ``fname`` (atomically, no pickle)."""
        if self._updater is None or not hasattr(self._updater, "get_states"):
            raise StateError("save_optimizer_states: no optimizer set; call "
                             "kv.set_optimizer(...) first")
        from .._fileio import atomic_write, check_path
        fname = check_path(fname, "fname")
        blob = self._updater.get_states(dump_optimizer=dump_optimizer)
        with atomic_write(fname) as f:
            f.write(blob)

    def load_optimizer_states(self, fname: str) -> None:
        """Load states written by :meth:`save_optimizer_states`."""
        if self._updater is None or not hasattr(self._updater, "set_states"):
            raise StateError("load_optimizer_states: no optimizer set; call "
                             "kv.set_optimizer(...) first")
        from .._fileio import check_path
        fname = check_path(fname, "fname")
        with open(fname, "rb") as f:
            self._updater.set_states(f.read())
        self._optimizer = self._updater.optimizer

    # ------------------------------------------------------------ misc
    def barrier(self) -> None:
        """Wait until every worker reaches this call."""
        self._comm.barrier()

    _barrier = barrier

    def set_gradient_compression(self, compression_params) -> None:
        """Not supported: gradients are sent in full."""
        raise MXNetError("gradient compression is not supported by mxgrad's kvstore; "
                         "gradients are summed in full precision")

    def _send_command_to_servers(self, head, body):
        """No servers in mxgrad (MPI allreduce): nothing to send."""


def create(name: str = "local") -> KVStore:
    """Create a kvstore.

    ``'local'``, ``'device'`` (and ``'nccl'``) sum over the devices of this process.
    ``'dist_sync'``, ``'dist_device_sync'`` and ``'horovod'`` also sum over the MPI
    workers (``mpiexec -n 4 python train.py`` or ``python -m mxgrad.launch -n 4
    train.py``); without a launcher they run as rank 0 of 1. ``'dist_async'`` runs
    synchronously (mxgrad has no parameter server) and warns.

    Examples
    --------
    >>> import mxgrad as mx
    >>> kv = mx.kv.create('device'); kv.type, kv.rank, kv.num_workers
    ('device', 0, 1)
    """
    if isinstance(name, KVStore):
        return name
    if not isinstance(name, str):
        raise DTypeError(f"kvstore name must be a str, got {type(name).__name__}")
    if name in _LOCAL_TYPES:
        return KVStore(name)
    if name in _DIST_TYPES:
        if "async" in name:
            warnings.warn(f"kvstore '{name}': mxgrad has no parameter server, so updates "
                          f"are synchronous (as 'dist_sync'): every step sums all workers' "
                          f"gradients", stacklevel=2)
        return KVStore(name, world())
    raise KVStoreError(f"unknown kvstore type {name!r}; use one of "
                       f"{', '.join(repr(t) for t in _LOCAL_TYPES[:2] + _DIST_TYPES[:4])}")

"""Communication between worker processes: MPI through ``mpi4py`` (the ``dist`` extra).

Everything that crosses a process boundary goes through :class:`MPIComm`; the kvstore
calls three collectives on flat NumPy buffers (``allreduce_``, ``bcast_``, ``barrier``).
One process without MPI uses :class:`LocalComm`, whose collectives do nothing.

The sum is computed in a fixed order, the same on every rank: the flat buffer is cut
into one chunk per rank; ``Alltoall`` gives rank ``r`` the ``r``-th chunk of every
rank, which it adds in rank order (``x0 + x1 + ... + x{n-1}``); ``Allgather`` hands the
summed chunks to everyone. This is the bandwidth-optimal reduce-scatter + all-gather
allreduce (each rank sends and receives ``2 (n-1)/n`` of the buffer), and it makes the
replicas bit-identical, with sums in the same order as a single process that adds its
devices' gradients in device order. (With two ranks each element is one addition,
``x0 + x1``, whatever the algorithm, so MPI's own ``Allreduce`` is used.)

Every collective is first *matched*: each rank hashes what it is about to do (the
call, and the key, shape and dtype of every value) and the hashes are gathered. Ranks
that disagree (rank 0 pushes key 0 while rank 1 pushes key 1, shapes (2, 3) against
(3, 2), a push against a barrier) raise :class:`CollectiveMismatchError` on every rank,
naming each rank's call and the first key that differs, before any data moves. A rank
that waits longer than ``MXGRAD_KVSTORE_TIMEOUT`` seconds (environment variable,
default 1800 as PyTorch's process groups; ``0`` waits forever, as MXNet does) for the
others to make a matching call (one rank pushed once more, or finished) prints a
message naming itself, the call and its keys, and stops every rank (``MPI_Abort``):
the workers are out of step and cannot go on. After a mismatch they are still in step (every one raised at the same call); an
uncaught error stops every rank (see :func:`world`).

Examples
--------
>>> from mxgrad.kvstore._comm import LocalComm
>>> import numpy as np
>>> c = LocalComm(); buf = np.ones(3, np.float32); c.allreduce_(buf); buf.tolist()
[1.0, 1.0, 1.0]
>>> c.rank, c.size
(0, 1)
"""
from __future__ import annotations

import hashlib
import os
import sys
import threading
import time
from typing import List, Optional, Sequence

import numpy as np

from ..base import MXNetError, StateError

__all__ = ["DistUnavailableError", "CollectiveMismatchError", "LocalComm", "MPIComm", "world",
           "import_mpi", "timeout"]

TIMEOUT_ENV = "MXGRAD_KVSTORE_TIMEOUT"
DEFAULT_TIMEOUT = 1800.0   # PyTorch's process-group default: a rank may legitimately
# spend minutes alone (validation, checkpoints) while the others wait at the next step


class DistUnavailableError(MXNetError, ImportError):
    """A distributed kvstore was asked for but mpi4py (or an MPI library) is missing."""


def import_mpi():
    """``mpi4py.MPI``, or a :class:`DistUnavailableError` saying how to install it."""
    try:
        from mpi4py import MPI
    except ImportError as err:
        raise DistUnavailableError(
            f"distributed kvstores ('dist_sync', 'dist_device_sync', 'dist_async', "
            f"'horovod') run on MPI through mpi4py, which could not be imported ({err}). "
            f"Install them with: pip install 'mxgrad[dist]' (mpi4py and the MPICH wheel), "
            f"then start workers with `python -m mxgrad.launch -n 4 train.py` or "
            f"`mpiexec -n 4 python train.py`") from err
    return MPI


class CollectiveMismatchError(MXNetError, ValueError):
    """Worker processes made different kvstore calls (other keys, shapes or dtypes)."""


def timeout() -> float:
    """Seconds a collective waits for the other workers: ``$MXGRAD_KVSTORE_TIMEOUT``
    (default 1800; ``0``, ``none`` or ``inf``: wait forever).

    Examples
    --------
    >>> timeout() > 0
    True
    """
    text = os.environ.get(TIMEOUT_ENV, "").strip().lower()
    if not text:
        return DEFAULT_TIMEOUT
    if text in ("0", "none", "inf", "infinity"):
        return float("inf")
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value > 0:
        raise StateError(f"{TIMEOUT_ENV}={os.environ[TIMEOUT_ENV]!r} must be a number of "
                         f"seconds > 0 (or 0/none to wait forever)")
    return value


def _describe(lines: Sequence[str], limit: int = 3) -> str:
    shown = ", ".join(lines[:limit])
    return shown + (f" and {len(lines) - limit} more" if len(lines) > limit else "")


def _mismatch_message(descs: List[str]) -> str:
    """Which ranks disagree, and on what: the call, or its first differing value."""
    calls = [d.split("\n") for d in descs]
    ref = calls[0]
    parts = []
    for r, call in enumerate(calls[1:], 1):
        if call == ref:
            continue
        if call[0] != ref[0]:
            parts.append(f"rank 0 calls {ref[0]} ({_describe(ref[1:]) or 'no keys'}) but "
                         f"rank {r} calls {call[0]} ({_describe(call[1:]) or 'no keys'})")
            continue
        for i, (a, b) in enumerate(zip(ref[1:], call[1:])):
            if a != b:
                parts.append(f"value {i} of {ref[0]}: rank 0 has {a} but rank {r} has {b}")
                break
        else:
            parts.append(f"rank 0 calls {ref[0]} with {len(ref) - 1} value(s), rank {r} with "
                         f"{len(call) - 1} (first unmatched: "
                         f"{(ref if len(ref) > len(call) else call)[min(len(ref), len(call))]}"
                         f")")
    return (f"kvstore: the workers' calls do not match: {'; '.join(parts)}. Every worker "
            f"must call init/push/pull/pushpull/broadcast/barrier in the same order with "
            f"the same keys, shapes and dtypes")


class _Watchdog:
    """A daemon thread that stops the job (``MPI_Abort``) when a collective has waited
    longer than its timeout, after printing which rank waited, in which call, with
    which keys. The calling thread only sets and clears :attr:`pending` (the blocking
    MPI call releases the GIL), so a matched call costs nothing more."""

    def __init__(self, comm: "MPIComm"):
        self.comm = comm
        self.pending: Optional[tuple] = None   # (start, limit, call, items) while waiting
        self._thread: Optional[threading.Thread] = None

    def arm(self, pending) -> None:
        self.pending = pending
        if self._thread is None:
            thread = threading.Thread(target=self._run, name="mxgrad-kvstore-watchdog",
                                      daemon=True)
            thread.start()
            self._thread = thread

    def _run(self) -> None:
        while True:
            p = self.pending
            if p is not None and time.monotonic() - p[0] > p[1]:
                _, limit, call, items = p
                comm = self.comm
                sys.stderr.write(
                    f"mxgrad: kvstore.{call} on rank {comm.rank} of {comm.size} "
                    f"({_describe(list(items)) or 'no keys'}) waited {limit:g} s for the "
                    f"other workers to make the same call; at least one did not (it called "
                    f"fewer times, finished, failed silently or is stuck). Every worker must "
                    f"make the same kvstore calls in the same order; set {TIMEOUT_ENV} "
                    f"(seconds, 0 = forever) to wait longer. Aborting all ranks\n")
                comm.abort(1)
            time.sleep(0.05 if p is None else min(0.05, max(0.001, p[1] / 20)))


class LocalComm:
    """One process: every collective is the identity."""

    rank = 0
    size = 1

    def check_(self, call: str, items: Sequence[str]) -> None:
        """Make sure every worker makes this call with these values (``items``: one
        line per value, e.g. ``"key 3 (2, 3) float32"``); nothing to do for one."""

    def allreduce_(self, buf: np.ndarray) -> None:
        """Sum ``buf`` over workers in place (nothing to do for one worker)."""

    def bcast_(self, buf: np.ndarray, root: int = 0) -> None:
        """Copy ``buf`` from rank ``root`` to every worker, in place."""

    def barrier(self) -> None:
        """Wait for every worker."""

    def abort(self, code: int = 1) -> None:
        """Stop every worker (here: just exit)."""
        sys.exit(code)


class MPIComm(LocalComm):
    """The MPI world (a private duplicate of ``COMM_WORLD``, so user MPI traffic and the
    kvstore's never mix)."""

    def __init__(self):
        MPI = import_mpi()
        self._comm = MPI.COMM_WORLD.Dup()
        self.rank = self._comm.Get_rank()
        self.size = self._comm.Get_size()
        self._in_place, self._sum = MPI.IN_PLACE, MPI.SUM
        self._scratch: dict = {}
        self._watchdog = _Watchdog(self)

    def check_(self, call: str, items: Sequence[str]) -> None:
        """Gather a hash of ``call`` and ``items`` from every rank and raise on every rank
        if they differ; a rank still waiting after :func:`timeout` seconds stops the
        job with a message naming it and its keys (see :class:`_Watchdog`)."""
        if self.size == 1:
            return
        text = "\n".join([call, *items]).encode("utf-8")
        mine = np.frombuffer(hashlib.blake2b(text, digest_size=16).digest(), np.uint8)
        every = np.empty((self.size, 16), np.uint8)
        limit = timeout()
        # a blocking Allgather (7 us for 2 ranks) watched by a thread: MPICH's
        # non-blocking Iallgather polled with Test() costs 40 us to 4 ms a call
        if limit != float("inf"):
            self._watchdog.arm((time.monotonic(), limit, call, items))
        try:
            self._comm.Allgather(mine, every)
        finally:
            self._watchdog.pending = None
        if (every == every[0]).all():
            return
        # every rank saw the same hashes, so all of them exchange their descriptions
        sizes = np.empty(self.size, np.int64)
        self._comm.Allgather(np.array([len(text)], np.int64), sizes)
        data = np.empty(int(sizes.sum()), np.uint8)
        self._comm.Allgatherv(np.frombuffer(text, np.uint8), [data, sizes.tolist()])
        offsets = np.concatenate([[0], np.cumsum(sizes)])
        descs = [bytes(data[offsets[r]:offsets[r + 1]]).decode("utf-8", "replace")
                 for r in range(self.size)]
        raise CollectiveMismatchError(_mismatch_message(descs))

    def _buffer(self, name, shape, dtype) -> np.ndarray:
        key = (name, np.dtype(dtype).str)
        buf = self._scratch.get(key)
        n = int(np.prod(shape))
        if buf is None or buf.size < n:
            buf = np.empty(n, dtype)
            self._scratch[key] = buf
        return buf[:n].reshape(shape)

    def allreduce_(self, buf: np.ndarray) -> None:
        """Sum the 1-D contiguous ``buf`` over all ranks in place, in rank order."""
        n = self.size
        if n == 1 or buf.size == 0:
            return
        if n == 2:   # one addition per element, x0 + x1 == x1 + x0: MPI's own is exact
            self._comm.Allreduce(self._in_place, buf, op=self._sum)
            return
        m = buf.size
        chunk = -(-m // n)
        if chunk * n == m:
            send = buf.reshape(n, chunk)
        else:
            send = self._buffer("send", (n, chunk), buf.dtype)
            send.reshape(-1)[:m] = buf
            send.reshape(-1)[m:] = 0
        recv = self._buffer("recv", (n, chunk), buf.dtype)
        self._comm.Alltoall(send, recv)
        part = self._buffer("part", (chunk,), buf.dtype)
        np.copyto(part, recv[0])
        for r in range(1, n):
            np.add(part, recv[r], out=part)
        if chunk * n == m:
            self._comm.Allgather(part, buf)
        else:
            full = self._buffer("recv", (n * chunk,), buf.dtype)
            self._comm.Allgather(part, full)
            buf[...] = full[:m]

    def bcast_(self, buf: np.ndarray, root: int = 0) -> None:
        if self.size > 1 and buf.size:
            self._comm.Bcast(buf, root=root)

    def barrier(self) -> None:
        if self.size > 1:
            self.check_("barrier", ())     # the gather waits for everyone: a barrier

    def abort(self, code: int = 1) -> None:
        """Stop every rank of the job (MPI_Abort), so no rank waits forever."""
        sys.stdout.flush()
        sys.stderr.flush()
        self._comm.Abort(code)


_world: list = []
_lock = threading.Lock()


def world() -> MPIComm:
    """The process's MPI communicator, created once (also with 1 worker, without mpiexec).

    With more than one worker, an uncaught exception on any rank prints its traceback
    and then aborts all ranks (``MPI_Abort``): the others would otherwise wait forever
    in the next collective.
    """
    with _lock:
        if not _world:
            comm = MPIComm()
            if comm.size > 1:
                _install_abort_hook(comm)
            _world.append(comm)
        return _world[0]


def _install_abort_hook(comm: MPIComm) -> None:
    previous = sys.excepthook

    def abort_all(tp, value, tb):
        try:
            sys.stderr.write(f"mxgrad: uncaught exception on rank {comm.rank} of "
                             f"{comm.size}; aborting all ranks\n")
            previous(tp, value, tb)
        finally:
            comm.abort(1)

    sys.excepthook = abort_all


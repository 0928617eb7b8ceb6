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

import sys
import threading
import numpy as np

from ..base import MXNetError

__all__ = ["DistUnavailableError", "LocalComm", "MPIComm", "world", "import_mpi"]


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


class LocalComm:
    """One process: every collective is the identity."""

    rank = 0
    size = 1

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
            self._comm.Barrier()

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


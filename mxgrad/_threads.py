"""The BLAS thread policy: how many threads NumPy's BLAS may use, decided here and only here.

Why a policy: NumPy's OpenBLAS starts one thread per core and lets idle ones spin. On a busy
or small machine a worker thread waits for a core, and a product that takes 0.2 ms on one
thread takes 12-24 ms (measured on a 2-core machine with one other busy process; the demo
trained 8x slower). Several processes (MPI ranks) each starting one thread per core make it
worse. So mxgrad decides (``bench/bench_threads.py`` measures the policy):

* **automatic** (the default): every product runs on one BLAS thread, except a product of at
  least ``2**23`` multiply-adds (a 203^3 GEMM, ~0.15 ms on one core), which runs on the cores
  that other processes left idle over the last fraction of a second (``/proc/stat``), at most
  this process's share: the cores it may run on divided by the MPI ranks on this machine.
  Measured on 2 cores: from 2**23 multiply-adds two threads are 1.4-1.9x faster when the
  machine is idle (a 2048^2 GEMM: 135 ms on one thread, 70 ms on two); with one other busy
  process two threads were up to 30% slower for that GEMM and ~60x slower for small products.
* **fixed**: ``set_num_threads(n)`` at run time, or, when the process starts, MXNet's knobs
  ``MXNET_OMP_MAX_THREADS`` then ``OMP_NUM_THREADS``: every product uses ``n`` threads.
* **the BLAS's own variable**: if ``OPENBLAS_NUM_THREADS``, ``MKL_NUM_THREADS``,
  ``BLIS_NUM_THREADS``, ``VECLIB_MAXIMUM_THREADS`` or ``GOTO_NUM_THREADS`` is set, mxgrad leaves
  the pool as the BLAS set it from that variable (until ``set_num_threads`` is called).

The pool is set through ``threadpoolctl`` (it finds the BLAS NumPy loaded, whichever it is).
The thread count is one setting for the whole process: Python threads that multiply large
matrices at the same time share it. ``gluon.data.DataLoader`` loads batches in the calling
process, so data loading starts no processes that could oversubscribe the cores.

Examples
--------
>>> import mxgrad as mx
>>> previous = mx.set_num_threads(1)     # every product on one thread
>>> mx.get_num_threads()
1
>>> _ = mx.set_num_threads(previous)     # back to what it was (None: automatic)
"""
from __future__ import annotations

import os
import time
import warnings
from typing import Any, List, Optional, Tuple

import numpy as np

from .base import ArgumentTypeError, StateError

__all__ = ["set_num_threads", "get_num_threads", "matmul", "threads_for", "BIG_PRODUCT"]

#: Multiply-adds from which a product may use more than one thread (automatic mode).
BIG_PRODUCT = 1 << 23

#: The BLAS libraries' own thread variables: when one is set, the user chose for the BLAS.
_BLAS_VARS = ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS",
              "VECLIB_MAXIMUM_THREADS", "GOTO_NUM_THREADS")
#: MXNet's knobs, first found wins: threads per operator.
_MXNET_VARS = ("MXNET_OMP_MAX_THREADS", "OMP_NUM_THREADS")
#: Ranks of this job on this machine (MPICH/Hydra, Open MPI, Slurm).
_LOCAL_RANK_VARS = ("MPI_LOCALNRANKS", "OMPI_COMM_WORLD_LOCAL_SIZE", "SLURM_NTASKS_PER_NODE")

_libs: List[Any] = []        # threadpoolctl's controllers of the loaded BLAS libraries
_auto = False                # automatic mode active (and a BLAS to control)
_fixed: Optional[int] = None  # the fixed count (set_num_threads / MXNet's variables)
_share = 1                   # cores this process may use (affinity / local MPI ranks)
_cores = 1                   # cores this process may run on (affinity)


def _set(n: int) -> None:
    for lib in _libs:
        lib.set_num_threads(n)


def _find_blas() -> None:
    global _libs
    from threadpoolctl import ThreadpoolController
    _libs = list(ThreadpoolController().select(user_api="blas").lib_controllers)


def _env_int(name: str) -> Optional[int]:
    """The positive int in environment variable ``name`` (the first of a list such as
    OpenMP's ``"4,2"``), ``None`` when unset; a bad value is ignored with a warning naming
    the variable (an import that fails over it would help nobody)."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return None
    first = raw.split(",")[0].strip()
    if not first.isdigit() or int(first) < 1:
        warnings.warn(f"mxgrad ignores environment variable {name}={raw!r}: it must be a "
                      f"positive number of threads such as 1 or 4", RuntimeWarning, stacklevel=2)
        return None
    return int(first)


def _process_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:   # pragma: no cover - macOS, Windows
        return os.cpu_count() or 1


def _process_share(cores: int) -> int:
    ranks = 1
    for name in _LOCAL_RANK_VARS:
        raw = os.environ.get(name, "").strip()
        if raw.isdigit() and int(raw) > 0:
            ranks = int(raw)
            break
    return max(1, cores // ranks)


def _configure() -> Tuple[bool, Optional[int]]:
    """(automatic?, fixed count) from the environment, as at process start."""
    if any(os.environ.get(v, "").strip() for v in _BLAS_VARS):
        return False, None
    for name in _MXNET_VARS:
        n = _env_int(name)
        if n is not None:
            return False, n
    return True, None


def init() -> None:
    """Apply the policy the environment asks for (``import mxgrad`` calls this once)."""
    global _auto, _fixed, _share, _cores
    _find_blas()
    _cores = _process_cores()
    _share = _process_share(_cores)
    _auto, _fixed = _configure()
    _load.look()
    if _auto:
        _set(1)
    elif _fixed is not None:
        _set(_fixed)
    _auto = _auto and bool(_libs)


def set_num_threads(n: Optional[int]) -> Optional[int]:
    """Set how many BLAS threads every matrix product uses; returns the previous setting.

    Parameters
    ----------
    n : int or None
        A positive number of threads for every product, or ``None`` for mxgrad's automatic
        policy (one thread, more for products of at least ``2**23`` multiply-adds when cores
        are idle). Takes precedence over ``OMP_NUM_THREADS``, ``MXNET_OMP_MAX_THREADS`` and
        the BLAS's own variables.

    Returns
    -------
    int or None
        The previous setting, to restore it later.

    Examples
    --------
    >>> import mxgrad as mx
    >>> previous = mx.set_num_threads(2)
    >>> mx.get_num_threads()
    2
    >>> _ = mx.set_num_threads(previous)
    """
    global _auto, _fixed
    if n is not None:
        if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)):
            raise ArgumentTypeError(f"set_num_threads: n must be a positive int or None "
                                    f"(automatic), got {type(n).__name__} {n!r}")
        if n < 1:
            raise StateError(f"set_num_threads: n must be >= 1 (or None for automatic), "
                             f"got {n}")
    previous = get_num_threads()
    _find_blas()            # libraries loaded since import (another BLAS) are included
    _fixed = None if n is None else int(n)
    _auto = n is None and bool(_libs)
    _set(1 if n is None else int(n))
    return previous


def get_num_threads() -> Optional[int]:
    """The number of BLAS threads every product uses, or ``None`` in the automatic mode.

    When a BLAS variable (``OPENBLAS_NUM_THREADS``, ...) decides, this is the BLAS's own count.

    Examples
    --------
    >>> import mxgrad as mx
    >>> previous = mx.set_num_threads(None)
    >>> mx.get_num_threads() is None
    True
    >>> _ = mx.set_num_threads(previous)
    """
    if _auto:
        return None
    if _fixed is not None:
        return _fixed
    return max((lib.get_num_threads() for lib in _libs), default=1)


class _Load:
    """How busy the cores this process may run on are, from other processes' use of them:
    ``/proc/stat``'s busy time of those cores minus this process's own CPU time, over the
    time since the previous look (at least 0.2 s; a shorter gap reuses the last answer).
    Where there is no ``/proc/stat``, the one-minute load average."""

    WINDOW = 0.2

    def __init__(self) -> None:
        self.cpus: Optional[set] = None
        self.last: Optional[Tuple[float, float, float]] = None
        self.others = 0.0      # cores busy with other processes, as of the last look

    def _busy_seconds(self) -> Optional[float]:
        try:
            with open("/proc/stat", "rb") as f:
                lines = f.read().split(b"\n")
        except OSError:
            return None
        ticks = 0
        for line in lines[1:]:
            if not line.startswith(b"cpu"):
                break
            parts = line.split()
            if self.cpus is not None and int(parts[0][3:]) not in self.cpus:
                continue
            v = [int(x) for x in parts[1:9]]   # user nice system idle iowait irq softirq steal
            ticks += v[0] + v[1] + v[2] + v[5] + v[6] + v[7]
        return ticks / _CLOCK_TICKS

    def look(self) -> None:
        """Take a first sample (at import), so the first large product has a window."""
        try:
            self.cpus = set(os.sched_getaffinity(0))
        except AttributeError:   # pragma: no cover - macOS, Windows
            self.cpus = None
        busy = self._busy_seconds()
        if busy is not None:
            self.last = (time.monotonic(), busy, time.process_time())

    def other_cores(self) -> float:
        """Cores (fractional) that other processes kept busy lately."""
        if self.last is None:
            try:
                return max(0.0, os.getloadavg()[0] - 1.0)   # this busy process is part of it
            except (AttributeError, OSError):   # pragma: no cover - Windows
                return 0.0
        now = time.monotonic()
        if now - self.last[0] < self.WINDOW:
            return self.others
        busy, own = self._busy_seconds(), time.process_time()
        if busy is None:   # pragma: no cover - /proc vanished
            return self.others
        t0, busy0, own0 = self.last
        self.others = max(0.0, (busy - busy0) - (own - own0)) / (now - t0)
        self.last = (now, busy, own)
        return self.others


_CLOCK_TICKS = float(os.sysconf("SC_CLK_TCK")) if hasattr(os, "sysconf") else 100.0
_load = _Load()


def threads_for(macs: int) -> int:
    """How many threads a product of ``macs`` multiply-adds gets now.

    Examples
    --------
    >>> previous = set_num_threads(None)
    >>> threads_for(64 * 64 * 64)
    1
    >>> _ = set_num_threads(previous)
    """
    if not _auto:
        return get_num_threads() or 1
    if macs < BIG_PRODUCT or _share <= 1:
        return 1
    idle = _cores - 1 - _load.other_cores()     # this process keeps one core busy itself
    return max(1, min(_share, 1 + int(idle + 0.3)))


def matmul(a: np.ndarray, b: np.ndarray, out: Optional[np.ndarray] = None) -> np.ndarray:
    """``np.matmul(a, b, out=out)`` on the threads :func:`threads_for` gives its size.

    Examples
    --------
    >>> matmul(np.ones((2, 3)), np.ones((3, 4))).shape
    (2, 4)
    """
    if _auto and a.ndim > 1 and b.ndim > 1:
        macs = max(a.size * b.shape[-1], b.size * a.shape[-2])
        if macs >= BIG_PRODUCT:
            n = threads_for(macs)
            if n > 1:
                _set(n)
                try:
                    return np.matmul(a, b, out=out)
                finally:
                    _set(1)
    return np.matmul(a, b, out=out)

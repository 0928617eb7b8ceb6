"""``mx.monitor`` (also ``mx.mon``): statistics of an executor's arrays, for debugging.

A :class:`Monitor` is installed on executors (``Module.install_monitor`` or
:meth:`Monitor.install`); between :meth:`Monitor.tic` and :meth:`Monitor.toc` every
output the executor computes whose name matches ``pattern`` is summarised by
``stat_func`` (by default ``norm(x)/sqrt(x.size)``), and at ``toc`` the arguments and
auxiliary states are added.

Examples
--------
>>> import mxgrad as mx
>>> mon = mx.mon.Monitor(1, pattern='.*weight')
>>> mon.tic(); mon.toc()          # nothing installed: nothing to report
[]
"""
from __future__ import annotations

import logging
import re
from math import sqrt
from typing import Any, Callable, List, Optional, Tuple

from . import ndarray
from .base import py_str
from .ndarray import NDArray

__all__ = ["Monitor"]


def _default_stat(x: NDArray) -> NDArray:
    """``norm(x)/sqrt(x.size)``: the root mean square of ``x``."""
    return ndarray.norm(x) / sqrt(x.size)


class Monitor:
    """Collect a statistic of executor arrays every ``interval`` batches.

    Parameters
    ----------
    interval : int
        Collect on every ``interval``-th call of :meth:`tic`.
    stat_func : callable, optional
        NDArray -> NDArray (or list of NDArrays); default ``norm(x)/sqrt(x.size)``.
    pattern : str, default '.*'
        Regular expression (``re.match``) selecting array names.
    sort : bool, default False
        Sort the results by name.
    monitor_all : bool, default False
        Also monitor each operator's inputs, not only its outputs.

    Examples
    --------
    >>> import mxgrad as mx
    >>> Monitor(2).interval
    2
    """

    def __init__(self, interval: int, stat_func: Optional[Callable[[NDArray], Any]] = None,
                 pattern: str = ".*", sort: bool = False, monitor_all: bool = False) -> None:
        self.stat_func = stat_func if stat_func is not None else _default_stat
        self.interval = interval
        self.activated = False
        self.queue: List[Tuple[int, str, Any]] = []
        self.step = 0
        self.exes: List[Any] = []
        self.re_prog = re.compile(pattern)
        self.sort = sort
        self.monitor_all = monitor_all

        def stat_helper(name, array) -> None:
            """The executor's callback: record ``stat_func(array)`` when collecting."""
            name = py_str(name)
            if not self.activated or not self.re_prog.match(name):
                return
            self.queue.append((self.step, name, self.stat_func(array)))
        self.stat_helper = stat_helper

    def install(self, exe) -> None:
        """Install on an executor (several executors may share one monitor)."""
        exe.set_monitor_callback(self.stat_helper, self.monitor_all)
        self.exes.append(exe)

    def tic(self) -> None:
        """Start collecting for this batch if it is an ``interval``-th one (call before
        forward)."""
        if self.step % self.interval == 0:
            self.queue = []
            self.activated = True
        self.step += 1

    def toc(self) -> List[Tuple[int, str, str]]:
        """Stop collecting; ``[(step, name, stat as text)]`` including the arguments and
        auxiliary states that match ``pattern`` (empty if this batch was not collected)."""
        if not self.activated:
            return []
        for exe in self.exes:
            for name, array in list(exe.arg_dict.items()) + list(exe.aux_dict.items()):
                if self.re_prog.match(name):
                    self.queue.append((self.step, name, self.stat_func(array)))
        self.activated = False
        if self.sort:
            self.queue.sort(key=lambda x: x[1])
        res = []
        for n, k, v_list in self.queue:
            if isinstance(v_list, NDArray):
                v_list = [v_list]
            s = ""
            for v in v_list:
                if v.shape == (1,):
                    s += str(v.asscalar()) + "\t"
                else:
                    s += str(v.asnumpy()) + "\t"
            res.append((n, k, s))
        self.queue = []
        return res

    def toc_print(self) -> None:
        """:meth:`toc`, logging one line per result."""
        for n, k, v in self.toc():
            logging.info("Batch: {:7d} {:30s} {:s}".format(n, k, v))

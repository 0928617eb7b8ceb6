"""``mx.profiler``: MXNet's profiler API for a Python engine.

While the profiler runs (``set_state('run')``), every ``mx.nd`` operator call (functions of
``mx.nd``, ``nd.contrib``, ``nd.linalg``, ``nd.random`` and the NDArray methods and arithmetic
operators) and every operator's backward rule (``_backward_<op>``) is timed; user code marks its
own ranges with :class:`Domain`, :class:`Task`, :class:`Frame`, :class:`Event`,
:class:`Counter` and :class:`Marker`. :func:`dumps` gives the per-category count and times in
MXNet's table (or JSON) layout when ``aggregate_stats=True``; :func:`dump` writes a Chrome
trace (``chrome://tracing``, Perfetto) to the configured file.

Cheap when off: nothing is wrapped until ``set_state('run')`` and everything is unwrapped at
``set_state('stop')``; while :func:`pause` d the wrappers only test one flag. Operators are
timed where user code calls them (an op that calls another one is counted once, as the
outer one); a hybridized block's cached graph is timed as its ``mx.nd`` calls. Memory
profiling (``profile_memory``) is accepted and has nothing to report.

Examples
--------
>>> import mxgrad as mx, json, os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), 'profile.json')
>>> mx.profiler.set_config(profile_all=True, aggregate_stats=True, filename=path)
>>> mx.profiler.set_state('run')
>>> x = mx.nd.ones((2, 2))
>>> y = mx.nd.sqrt(x) + 1
>>> mx.profiler.set_state('stop')
>>> stats = json.loads(mx.profiler.dumps(format='json'))['Time']['operator']
>>> stats['sqrt']['Count'], stats['_plus_scalar']['Count']
(1, 1)
>>> mx.profiler.dump()
>>> sorted({e['name'] for e in json.load(open(path))['traceEvents'] if e['ph'] == 'B'})
['_ones', '_plus_scalar', 'sqrt']
>>> _ = mx.profiler.dumps(reset=True)
"""
from __future__ import annotations

import functools
import json
import threading
import time
from numbers import Number
from typing import Any, Callable, Dict, List, Optional

from .base import StateError

__all__ = ["set_config", "set_state", "dump", "dumps", "pause", "resume", "Domain", "Task",
           "Frame", "Event", "Counter", "Marker", "scope", "profiler_set_config",
           "profiler_set_state", "dump_profile", "set_kvstore_handle"]

_CONFIG_KEYS = {"profile_all", "profile_symbolic", "profile_imperative", "profile_memory",
                "profile_api", "filename", "continuous_dump", "dump_period", "aggregate_stats",
                "profile_process"}

_ON = False             # running and not paused: what every wrapper tests first
# set to True by an engine that calls _record_op itself (then mx.nd is not wrapped)
_ENGINE_HOOK = False


class _State:
    def __init__(self) -> None:
        self.config: Dict[str, Any] = {"filename": "profile.json", "profile_symbolic": True,
                                       "profile_imperative": True, "profile_memory": True,
                                       "profile_api": True, "aggregate_stats": False,
                                       "profile_all": False, "continuous_dump": False}
        self.running = False
        self.paused = False
        self.lock = threading.Lock()
        # category -> name -> [count, total_us, min_us, max_us, kind]
        self.stats: Dict[str, Dict[str, list]] = {}
        self.events: List[dict] = []
        self.pids: Dict[str, int] = {"operator": 0}
        self.origin = time.time() * 1e6 - time.perf_counter() * 1e6


_S = _State()
_tls = threading.local()


def _now_us() -> float:
    return _S.origin + time.perf_counter() * 1e6


def _update_on() -> None:
    global _ON
    _ON = _S.running and not _S.paused


def _pid(category: str) -> int:
    pid = _S.pids.get(category)
    if pid is None:
        pid = _S.pids[category] = len(_S.pids)
        _S.events.append({"ph": "M", "args": {"name": category}, "pid": pid,
                          "name": "process_name"})
    return pid


def _aggregate(category: str, name: str, value: float, kind: str) -> None:
    if not _S.config.get("aggregate_stats"):
        return
    row = _S.stats.setdefault(category, {}).get(name)
    if row is None:
        _S.stats[category][name] = [1, value, value, value, kind]
        return
    row[0] += 1
    row[1] = value if kind == "counter" else row[1] + value
    row[2] = min(row[2], value)
    row[3] = max(row[3], value)


def _duration(category: str, name: str, start_us: float, end_us: float,
              phases=("B", "E"), extra: Optional[dict] = None) -> None:
    tid = threading.get_ident()
    with _S.lock:
        pid = _pid(category)
        for ph, ts in zip(phases, (start_us, end_us)):
            ev = {"name": name, "cat": category, "ph": ph, "ts": int(ts), "pid": pid,
                  "tid": tid}
            if extra:
                ev.update(extra)
            _S.events.append(ev)
        _aggregate(category, name, end_us - start_us, "duration")


def _record_op(name: str, seconds: float, start: Optional[float] = None) -> None:
    """Record one operator call of ``seconds`` (for an engine that times ops itself: call it
    only when ``profiler._ON`` is true). ``start`` is its ``time.perf_counter()`` start."""
    end = _now_us() if start is None else _S.origin + (start + seconds) * 1e6
    _duration("operator", name, end - seconds * 1e6, end)


# ------------------------------------------------------------------- operator wrappers
_SCALAR_NAMES = {"__add__": "_plus_scalar", "__radd__": "_plus_scalar",
                 "__iadd__": "_plus_scalar", "__sub__": "_minus_scalar",
                 "__isub__": "_minus_scalar", "__rsub__": "_rminus_scalar",
                 "__mul__": "_mul_scalar", "__rmul__": "_mul_scalar",
                 "__imul__": "_mul_scalar", "__truediv__": "_div_scalar",
                 "__itruediv__": "_div_scalar", "__rtruediv__": "_rdiv_scalar",
                 "__pow__": "_power_scalar", "__rpow__": "_rpower_scalar",
                 "__mod__": "_mod_scalar", "__rmod__": "_rmod_scalar",
                 "__eq__": "_equal_scalar", "__ne__": "_not_equal_scalar",
                 "__gt__": "_greater_scalar", "__ge__": "_greater_equal_scalar",
                 "__lt__": "_lesser_scalar", "__le__": "_lesser_equal_scalar"}
_ARRAY_NAMES = {"add": "broadcast_add", "sub": "broadcast_sub", "mul": "broadcast_mul",
                "truediv": "broadcast_div", "pow": "broadcast_power", "mod": "broadcast_mod",
                "eq": "broadcast_equal", "ne": "broadcast_not_equal", "gt": "broadcast_greater",
                "ge": "broadcast_greater_equal", "lt": "broadcast_lesser",
                "le": "broadcast_lesser_equal"}


def _dunder_namer(dunder: str) -> Callable[[tuple], str]:
    core = dunder[2:-2]
    for prefix in ("r", "i"):
        if core.startswith(prefix) and core[1:] in _ARRAY_NAMES:
            core = core[1:]
    scalar, array = _SCALAR_NAMES[dunder], _ARRAY_NAMES[core]

    def name(args: tuple) -> str:
        return scalar if len(args) > 1 and isinstance(args[1], Number) else array
    return name


def _fixed(name: str) -> Callable[[tuple], str]:
    def namer(args: tuple) -> str:
        return name
    return namer


def _timed(fn: Callable, namer: Callable[[tuple], str]) -> Callable:
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if not _ON or getattr(_tls, "depth", 0):
            return fn(*args, **kwargs)
        _tls.depth = 1
        start = _now_us()
        try:
            return fn(*args, **kwargs)
        finally:
            _tls.depth = 0
            _duration("operator", namer(args), start, _now_us())
    wrapper.__wrapped_by_profiler__ = fn  # type: ignore[attr-defined]
    return wrapper


_patched: List[tuple] = []      # (owner, attribute, original)
# functions of the namespaces that are not operators, and MXNet's names of a few that are
_NOT_OPS = {"waitall", "save", "load", "load_frombuffer", "seed", "generator", "array",
            "to_dlpack_for_read", "to_dlpack_for_write", "from_dlpack"}
_MXNET_NAMES = {"zeros": "_zeros", "ones": "_ones", "full": "_full", "arange": "_arange",
                "uniform": "_random_uniform", "normal": "_random_normal"}


def _patch(owner: Any, attr: str, wrapper: Callable) -> None:
    _patched.append((owner, attr, owner.__dict__[attr]))
    setattr(owner, attr, wrapper)


def _install() -> None:
    """Wrap the operator functions, the NDArray operators and methods and ``Op.backward``."""
    import inspect
    from . import ndarray as nd_pkg, random as random_mod
    from .ndarray import contrib, linalg, op as op_mod
    from ._engine.ndarray import NDArray
    from .ndarray._methods import NDArrayMethods
    from .ops._core import Op
    if _patched:
        return
    ops: Dict[str, Any] = {}
    for module in (nd_pkg, contrib, linalg, random_mod, op_mod):
        public = getattr(module, "__all__", None) or list(vars(module))
        for name in public:
            fn = vars(module).get(name)
            if fn is None or name.startswith("_") or not callable(fn) \
                    or inspect.isclass(fn) or inspect.ismodule(fn) or name in _NOT_OPS:
                continue
            ops.setdefault(name, fn)
            shown = _MXNET_NAMES.get(name, name)
            _patch(module, name, _timed(fn, _fixed(shown)))
    for cls in (NDArray, NDArrayMethods):     # NDArray's two class bodies
        for name in list(vars(cls)):
            fn = cls.__dict__[name]
            if name in _SCALAR_NAMES:
                _patch(cls, name, _timed(fn, _dunder_namer(name)))
            elif name == "__neg__":
                _patch(cls, name, _timed(fn, _fixed("_mul_scalar")))
            elif not name.startswith("_") and inspect.isfunction(fn) and name in ops:
                _patch(cls, name, _timed(fn, _fixed(name)))
    backward = Op.__dict__["backward"]

    @functools.wraps(backward)
    def timed_backward(self, *args, **kwargs):
        if not _ON:
            return backward(self, *args, **kwargs)
        start = _now_us()
        try:
            return backward(self, *args, **kwargs)
        finally:
            _duration("operator", "_backward_" + str(self.name), start, _now_us())
    _patch(Op, "backward", timed_backward)


def _uninstall() -> None:
    while _patched:
        owner, attr, original = _patched.pop()
        setattr(owner, attr, original)


# ----------------------------------------------------------------------- the public API
def set_config(**kwargs: Any) -> None:
    """Set profiler options (MXNet's names): ``profile_all``, ``profile_symbolic``,
    ``profile_imperative``, ``profile_memory``, ``profile_api``, ``filename``,
    ``continuous_dump``, ``dump_period``, ``aggregate_stats``, ``profile_process``."""
    unknown = set(kwargs) - _CONFIG_KEYS
    if unknown:
        raise StateError(f"profiler.set_config: unknown option(s) {sorted(unknown)}; the "
                         f"options are {sorted(_CONFIG_KEYS)}")
    _check_process(kwargs.get("profile_process", "worker"), "set_config")
    if "filename" in kwargs and not isinstance(kwargs["filename"], str):
        raise StateError(f"profiler.set_config: filename must be a str, got "
                         f"{type(kwargs['filename']).__name__}")
    _S.config.update(kwargs)


def _check_process(process: str, where: str) -> None:
    if process != "worker":
        raise StateError(f"profiler.{where}: profile_process must be 'worker' (mxgrad has no "
                         f"parameter-server processes), got {process!r}")


def _profiles_ops() -> bool:
    c = _S.config
    return bool(c.get("profile_all") or c.get("profile_imperative")
                or c.get("profile_symbolic"))


def set_state(state: str = "stop", profile_process: str = "worker") -> None:
    """Start (``'run'``) or stop (``'stop'``) profiling."""
    _check_process(profile_process, "set_state")
    if state not in ("run", "stop"):
        raise StateError(f"profiler.set_state: state must be 'run' or 'stop', got {state!r}")
    with _S.lock:
        _S.running = state == "run"
        _S.paused = False
    if _S.running and _profiles_ops() and not _ENGINE_HOOK:
        _install()
    elif not _S.running:
        _uninstall()
    _update_on()


def pause(profile_process: str = "worker") -> None:
    """Stop recording until :func:`resume` (the profiler stays configured and running)."""
    _check_process(profile_process, "pause")
    _S.paused = True
    _update_on()


def resume(profile_process: str = "worker") -> None:
    """Record again after :func:`pause`."""
    _check_process(profile_process, "resume")
    _S.paused = False
    _update_on()


def dump(finished: bool = True, profile_process: str = "worker") -> None:
    """Write the recorded events as a Chrome trace (``{"traceEvents": [...]}``) to the
    configured ``filename``; ``finished=True`` also forgets them (the next dump starts
    afresh), ``False`` keeps them (continuous dumping rewrites a growing file)."""
    from ._fileio import atomic_write
    _check_process(profile_process, "dump")
    with _S.lock:
        events = list(_S.events)
        if finished:
            _S.events = []
            _S.pids = {"operator": 0}
    head = [{"ph": "M", "args": {"name": "cpu/0"}, "pid": 0, "name": "process_name"}]
    with atomic_write(_S.config["filename"], "w") as f:
        json.dump({"traceEvents": head + events, "displayTimeUnit": "ms"}, f)


def dump_profile() -> None:
    """MXNet's deprecated name of ``dump(True)``."""
    dump(True)


_SORT_KEYS = {"total": 1, "avg": -1, "min": 2, "max": 3, "count": 0}


def _sort_value(row: list, sort_by: str) -> float:
    if sort_by == "avg":
        return (row[3] - row[2]) // 2 if row[4] == "counter" else row[1] / row[0]
    return row[_SORT_KEYS[sort_by]]


def _rows(mm: Dict[str, list], sort_by: str, ascending: bool) -> List[tuple]:
    keyed = [((-1 if ascending else 1) * _sort_value(row, sort_by), name, row)
             for name, row in mm.items()]
    keyed.sort(key=lambda t: (t[0], t[1]), reverse=True)     # MXNet's max-heap order
    return [(name, row) for _, name, row in keyed]


def _avg(row: list) -> float:
    return (row[3] - row[2]) // 2 / 1000 if row[4] == "counter" else row[1] / row[0] / 1000


def dumps(reset: bool = False, format: str = "table", sort_by: str = "total",
          ascending: bool = False) -> str:
    """The aggregate statistics (``aggregate_stats=True``): per category, each name's
    count and total/min/max/average time in ms, as MXNet's ``table`` or ``json``; ``reset``
    clears them afterwards."""
    if format not in ("table", "json"):
        raise StateError(f"Invalid value provided for format: {format}. Support: 'table', "
                         f"'json'")
    if sort_by not in _SORT_KEYS:
        raise StateError(f"Invalid value provided for sort_by: {sort_by}. Support: 'total', "
                         f"'avg', 'min', 'max', 'count'")
    if not isinstance(ascending, bool) or not isinstance(reset, bool):
        raise StateError("Invalid value provided for ascending/reset: use False or True")
    with _S.lock:
        stats = {c: {n: list(r) for n, r in mm.items()} for c, mm in _S.stats.items()}
        if reset:
            _S.stats = {}
    return _table(stats, sort_by, ascending) if format == "table" else \
        _json(stats, sort_by, ascending)


def _table(stats, sort_by: str, ascending: bool) -> str:
    out = ["", "Profile Statistics:", "\tNote the difference in units for different entries."]
    for category, mm in stats.items():
        out += [category, "================="]
        out.append(f"{'Name':<25}{'Total Count':>16} {'Time (ms)':>16} {'Min Time (ms)':>16} "
                   f"{'Max Time (ms)':>16} {'Avg Time (ms)':>16}")
        out.append(f"{'----':<25}{'-----------':>16} {'---------':>16} {'-------------':>16} "
                   f"{'-------------':>16} {'-------------':>16}")
        for name, row in _rows(mm, sort_by, ascending):
            out.append(f"{name:<25}{row[0]:>16} {row[1] / 1000:>16.4f} {row[2] / 1000:>16.4f} "
                       f"{row[3] / 1000:>16.4f} {_avg(row):>16.4f}")
        out.append("")
    return "\n".join(out) + "\n"


def _g(v: float) -> str:
    return f"{v:.4g}"


def _json(stats, sort_by: str, ascending: bool) -> str:
    parts = []
    for category, mm in stats.items():
        items = []
        for name, row in _rows(mm, sort_by, ascending):
            items.append(f'            "{name}": {{\n'
                         f'                "Count": {row[0]},\n'
                         f'                "Total": {_g(row[1] / 1000)},\n'
                         f'                "Min": {_g(row[2] / 1000)},\n'
                         f'                "Max": {_g(row[3] / 1000)},\n'
                         f'                "Avg": {_g(_avg(row))}\n'
                         f'            }}\n')
        parts.append(f'        "{category}": {{\n' + "            ,\n".join(items)
                     + "        }\n")
    return ("{\n    \"Time\": {\n" + "        ,\n".join(parts) + "    }\n    ,\n"
            "    \"Memory\": {\n    }\n,\n    \"Unit\": {\n        \"Time\": \"ms\",\n"
            "        \"Memory\": \"kB\"\n    }\n}\n")


def profiler_set_config(mode: str = "symbolic", filename: str = "profile.json") -> None:
    """MXNet's deprecated configuration: ``mode`` 'symbolic' or 'all'."""
    if mode not in ("symbolic", "all"):
        raise StateError(f"profiler_set_config: mode must be 'symbolic' or 'all', got "
                         f"{mode!r}")
    set_config(profile_symbolic=True, profile_all=mode == "all", filename=filename)


def profiler_set_state(state: str = "stop") -> None:
    """MXNet's deprecated name of :func:`set_state`."""
    set_state(state)


def set_kvstore_handle(handle: Any) -> None:
    """Accepted for MXNet's API: there are no server processes to profile."""


# ---------------------------------------------------------------- user-defined ranges
class Domain:
    """A named category for :class:`Task` s, :class:`Frame` s, :class:`Counter` s and
    :class:`Marker` s."""

    def __init__(self, name: str) -> None:
        if not isinstance(name, str):
            raise StateError(f"profiler.Domain: name must be a str, got "
                             f"{type(name).__name__}")
        self.name = name

    def __str__(self) -> str:
        return self.name

    def new_task(self, name: str) -> "Task":
        return Task(self, name)

    def new_frame(self, name: str) -> "Frame":
        return Frame(self, name)

    def new_counter(self, name: str, value: Optional[int] = None) -> "Counter":
        return Counter(self, name, value)

    def new_marker(self, name: str) -> "Marker":
        return Marker(self, name)


class _Range:
    _phases = ("B", "E")

    def __init__(self, category: str, name: str) -> None:
        self.name = name
        self._category = category
        self._start: Optional[float] = None

    def start(self) -> None:
        """Open the range."""
        self._start = _now_us()

    def stop(self) -> None:
        """Close the range; it is recorded if the profiler ran meanwhile."""
        if self._start is None:
            raise StateError(f"profiler: {type(self).__name__} {self.name!r} stopped before "
                             f"it was started")
        start, self._start = self._start, None
        if _ON:
            self._record(start, _now_us())

    def _record(self, start: float, end: float) -> None:
        _duration(self._category, self.name, start, end, self._phases)

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def __str__(self) -> str:
        return self.name


class Task(_Range):
    """A timed range in a :class:`Domain` (an async range in the trace)."""

    _phases = ("b", "e")

    def __init__(self, domain: Domain, name: str) -> None:
        super().__init__(domain.name, name)
        self.domain = domain

    def _record(self, start: float, end: float) -> None:
        _duration(self._category, self.name, start, end, self._phases,
                  {"id": id(self) & 0xFFFFFFFF})


class Frame(_Range):
    """A timed frame in a :class:`Domain` (category ``'<domain>,frame'``)."""

    _phases = ("(", ")")

    def __init__(self, domain: Domain, name: str) -> None:
        super().__init__(f"{domain.name},frame", name)
        self.domain = domain


class Event(_Range):
    """A timed range outside any domain (category ``'event'``)."""

    def __init__(self, name: str) -> None:
        super().__init__("event", name)


class Counter:
    """A named integer in a :class:`Domain`; each change is a trace point."""

    def __init__(self, domain: Domain, name: str, value: Optional[int] = None) -> None:
        self.domain = domain
        self.name = name
        self._value = 0
        if value is not None:
            self.set_value(value)

    def set_value(self, value: int) -> None:
        if not isinstance(value, Number):
            raise StateError(f"profiler.Counter: value must be a number, got "
                             f"{type(value).__name__}")
        self._value = int(value)
        if _ON:
            ts = _now_us()
            with _S.lock:
                pid = _pid(self.domain.name)
                _S.events.append({"name": self.name, "cat": self.domain.name, "ph": "C",
                                  "ts": int(ts), "args": {self.name: self._value},
                                  "pid": pid, "tid": threading.get_ident()})
                _aggregate(self.domain.name, self.name, self._value, "counter")

    def increment(self, delta: int = 1) -> None:
        self.set_value(self._value + delta)

    def decrement(self, delta: int = 1) -> None:
        self.set_value(self._value - delta)

    def __iadd__(self, delta: int) -> "Counter":
        self.increment(delta)
        return self

    def __isub__(self, delta: int) -> "Counter":
        self.decrement(delta)
        return self

    def __str__(self) -> str:
        return self.name


class Marker:
    """An instant in a :class:`Domain` (category ``'<domain>,instant_marker'``)."""

    def __init__(self, domain: Domain, name: str) -> None:
        self.domain = domain
        self.name = name

    def mark(self, scope: str = "process") -> None:
        """Put the instant in the trace; ``scope`` is 'global', 'process', 'thread', 'task'
        or 'marker'."""
        codes = {"global": "g", "process": "p", "thread": "t", "task": "t", "marker": "t"}
        if scope not in codes:
            raise StateError(f"profiler.Marker.mark: scope must be one of {sorted(codes)}, "
                             f"got {scope!r}")
        if not _ON:
            return
        category = f"{self.domain.name},instant_marker"
        with _S.lock:
            pid = _pid(category)
            _S.stats.setdefault(category, {}) if _S.config.get("aggregate_stats") else None
            _S.events.append({"name": self.name, "cat": category, "ph": "n",
                              "ts": int(_now_us()), "s": codes[scope], "pid": pid,
                              "tid": threading.get_ident()})


class scope:
    """``with profiler.scope('name:'):`` MXNet's operator-scope names: accepted; mxgrad
    names operators by their function."""

    def __init__(self, name: str = "<unk>:", append_mode: bool = False) -> None:
        self.name = name

    def __enter__(self) -> "scope":
        return self

    def __exit__(self, *exc) -> None:
        pass

"""Optimizer-states files that cannot execute code: arrays + JSON in one NDArray file.

``Updater.get_states``/``Trainer.save_states`` write the states (momenta, Adam moments...)
and optionally the optimizer's settings (learning rate, update counts, lr scheduler) as
MXNet's binary NDArray list format (:mod:`mxgrad.ndarray._format`): every state array is an
entry, and one ``uint8`` entry named ``__mxgrad_states__`` holds UTF-8 JSON describing the
structure (which array belongs to which parameter, tuples, numbers, the optimizer's class
name and attributes). Loading reads numbers, strings and arrays only; an optimizer is
rebuilt from a *registered* optimizer class and an lr scheduler from a class of
:mod:`mxgrad.lr_scheduler`, never from a name in the file alone.

MXNet's own states files are pickles. They load only with ``allow_pickle=True``, which
warns, and even then through an unpickler that accepts nothing but MXNet's NDArray,
optimizer and lr-scheduler classes (mapped to mxgrad's) and plain containers.

Examples
--------
>>> import mxgrad as mx
>>> blob = dumps({0: (mx.nd.ones((2,)), None)}, mx.optimizer.SGD(learning_rate=0.5))
>>> states, opt, meta = loads(blob)
>>> states[0][0].asnumpy().tolist(), states[0][1], opt.learning_rate
([1.0, 1.0], None, 0.5)
"""
from __future__ import annotations

import io
import json
import math
import pickle
import warnings
from typing import Any, Callable, Dict, Optional, Sequence, Tuple

import numpy as np

from ._optimizer_registry import OPTIMIZERS
from .base import DTypeError, FileFormatError, ShapeError
from . import _format
from ._engine.ndarray import NDArray, wrap

__all__ = ["dumps", "loads", "check_states", "StatesMismatchError"]

FORMAT = "mxgrad.optimizer_states"
VERSION = 1
JSON_KEY = "__mxgrad_states__"
_SKIP_ATTRS = ("param_dict", "_index_update_count")


class StatesMismatchError(ShapeError):
    """A states file that does not belong to the Trainer's parameters."""


# ----------------------------------------------------------------- encoding
class _Encoder:
    __slots__ = ("names", "arrays")

    def __init__(self):
        self.names: list = []
        self.arrays: list = []

    def _array(self, data: np.ndarray, tag: str) -> dict:
        name = f"{len(self.arrays)}"
        self.names.append(name)
        self.arrays.append(data)
        return {tag: name}

    def enc(self, v, where: str):
        if v is None or isinstance(v, (bool, str)):
            return v
        if isinstance(v, int):
            return int(v)
        if isinstance(v, float):
            return v if math.isfinite(v) else {"float": repr(v)}
        if isinstance(v, np.generic) and v.dtype.kind in "biuf":
            return {"scalar": [v.dtype.str, self.enc(v.item(), where)]}
        if isinstance(v, NDArray):
            return self._array(v._data, "nd")
        if isinstance(v, np.ndarray) and v.dtype.kind in "biuf":
            return self._array(v, "np")
        if isinstance(v, tuple):
            return {"tuple": [self.enc(x, f"{where}[{i}]") for i, x in enumerate(v)]}
        if isinstance(v, list):
            return {"list": [self.enc(x, f"{where}[{i}]") for i, x in enumerate(v)]}
        if isinstance(v, dict):
            return {"dict": [[self.enc(k, f"{where} key"), self.enc(x, f"{where}[{k!r}]")]
                             for k, x in v.items()]}
        from . import lr_scheduler
        if isinstance(v, lr_scheduler.LRScheduler) and \
                getattr(lr_scheduler, type(v).__name__, None) is type(v):
            return {"lr_scheduler": type(v).__name__,
                    "attrs": self.enc(dict(vars(v)), f"{where}.attrs")}
        raise DTypeError(f"cannot save {where} ({type(v).__name__}) in a states file: "
                         f"only numbers, strings, None, NDArrays, NumPy arrays, lists, "
                         f"tuples, dicts and mxgrad lr schedulers are stored (never pickle)")

    def optimizer(self, opt) -> dict:
        key = type(opt).__name__.lower()
        if OPTIMIZERS.get(key) is not type(opt):
            raise DTypeError(f"cannot save optimizer {type(opt).__name__}: only optimizers "
                             f"registered with mx.optimizer.register can be saved")
        attrs = {k: v for k, v in vars(opt).items() if k not in _SKIP_ATTRS}
        out = {"class": key, "attrs": self.enc(attrs, "optimizer")}
        counts = getattr(opt, "_all_index_update_counts", None)
        if isinstance(counts, dict):
            for k, c in counts.items():
                if c is getattr(opt, "_index_update_count", None):
                    out["index_update_count_key"] = self.enc(k, "optimizer")
        return out


def dumps(states: dict, optimizer=None, param_names: Optional[Sequence[str]] = None) -> bytes:
    """Encode ``states`` (index -> state) and optionally ``optimizer`` as file content.

    Everything is checked before the bytes are built; an unsupported value raises a
    :class:`~mxgrad.base.DTypeError` naming it.

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.load_frombuffer(dumps({0: mx.nd.zeros((1,))}))['0'].shape   # an NDArray file
    (1,)
    """
    if not isinstance(states, dict):
        raise DTypeError(f"states must be a dict of index to state, got "
                         f"{type(states).__name__}")
    e = _Encoder()
    doc = {"format": FORMAT, "version": VERSION,
           "states": e.enc(states, "states"),
           "optimizer": None if optimizer is None else e.optimizer(optimizer),
           "param_names": None if param_names is None else [str(n) for n in param_names]}
    text = json.dumps(doc, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    e.names.append(JSON_KEY)
    e.arrays.append(np.frombuffer(text.encode("utf-8"), np.uint8))
    return _format.dumps(e.arrays, e.names)


# ----------------------------------------------------------------- decoding
class _Decoder:
    __slots__ = ("arrays", "where")

    def __init__(self, arrays: dict, where: str):
        self.arrays = arrays
        self.where = where

    def bad(self, what) -> FileFormatError:
        return FileFormatError(f"{self.where} is not a valid mxgrad states file: {what}")

    def dec(self, v):
        if v is None or isinstance(v, (bool, str, int, float)):
            return v
        if isinstance(v, dict) and len(v) in (1, 2):
            (tag, val), = list(v.items())[:1]
            if tag == "float" and val in ("inf", "-inf", "nan"):
                return float(val)
            if tag == "scalar" and isinstance(val, list) and len(val) == 2:
                try:
                    dt = np.dtype(val[0])
                except TypeError:
                    raise self.bad(f"scalar dtype {val[0]!r}") from None
                if dt.kind not in "biuf":
                    raise self.bad(f"scalar dtype {val[0]!r}")
                num = self.dec(val[1])
                if not isinstance(num, (bool, int, float)):
                    raise self.bad(f"scalar value {str(val[1])[:40]}")
                return dt.type(num)
            if tag in ("nd", "np"):
                if val not in self.arrays:
                    raise self.bad(f"missing array {val!r}")
                arr = self.arrays[val]
                return wrap(arr) if tag == "nd" else arr
            if tag in ("tuple", "list") and isinstance(val, list):
                items = [self.dec(x) for x in val]
                return tuple(items) if tag == "tuple" else items
            if tag == "dict" and isinstance(val, list):
                out = {}
                for pair in val:
                    if not isinstance(pair, list) or len(pair) != 2:
                        raise self.bad("a dict entry is not a [key, value] pair")
                    k = self.dec(pair[0])
                    try:
                        out[k] = self.dec(pair[1])
                    except TypeError:
                        raise self.bad(f"a dict key of type {type(k).__name__}") from None
                return out
            if tag == "lr_scheduler" and isinstance(val, str) and "attrs" in v:
                return self.scheduler(val, v["attrs"])
        raise self.bad(f"unknown entry {str(v)[:80]}")

    def scheduler(self, name: str, attrs):
        from . import lr_scheduler
        cls = getattr(lr_scheduler, name, None)
        if not (isinstance(cls, type) and issubclass(cls, lr_scheduler.LRScheduler)):
            raise self.bad(f"unknown lr scheduler {name!r}")
        attrs = self.dec(attrs)
        if not isinstance(attrs, dict):
            raise self.bad("lr scheduler attributes are not a dict")
        obj = cls.__new__(cls)
        obj.__dict__.update(_data_attrs(cls, attrs, self.where))
        return obj

    def optimizer(self, doc):
        if not isinstance(doc, dict) or not isinstance(doc.get("class"), str):
            raise self.bad("the optimizer entry has no class")
        return _make_optimizer(doc["class"], self.dec(doc.get("attrs")),
                               self.dec(doc.get("index_update_count_key", 0)), self.where)


def _data_attrs(cls, attrs: dict, where: str) -> dict:
    """``attrs`` if none of them would hide a method or property of ``cls``."""
    for k in attrs:
        member = getattr(cls, k, None) if isinstance(k, str) else None
        if not isinstance(k, str) or k.startswith("__") or callable(member) or \
                isinstance(member, property):
            raise FileFormatError(f"{where}: attribute {k!r} of {cls.__name__} cannot be "
                                  f"set from a file")
    return attrs


def _is_count(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool) and bool(v >= 0)


def _is_mults(v) -> bool:
    return isinstance(v, dict) and all(
        isinstance(x, (int, float, np.number)) and not isinstance(x, bool)
        and math.isfinite(x) for x in v.values())


def _is_counts(v) -> bool:
    return isinstance(v, dict) and all(
        isinstance(c, dict) and all(_is_count(n) for n in c.values()) for c in v.values())


# attributes a saved optimizer has that are not constructor arguments
_STATE_ATTR_RULES = {
    "num_update": (_is_count, "an int >= 0"),
    "lr_mult": (_is_mults, "a dict of finite numbers"),
    "wd_mult": (_is_mults, "a dict of finite numbers"),
    "_all_index_update_counts": (_is_counts, "a dict of dicts of ints >= 0"),
    "idx2name": (lambda v: isinstance(v, dict), "a dict"),
}


def _check_optimizer_attrs(cls, attrs: dict, where: str) -> None:
    """Every attribute a constructor argument of the same name would be checked for
    (``lr`` as ``learning_rate``, ``None`` allowed with a scheduler) is checked with
    the same rule, so a file with ``lr: "fast"`` fails here, naming it, not later in
    ``step``."""
    from ._check import _OPTIMIZER_RULES
    rule: Optional[Tuple[Callable[[Any], Any], str]]
    for k, v in attrs.items():
        if k == "lr":
            if v is None and attrs.get("lr_scheduler") is not None:
                continue
            rule = _OPTIMIZER_RULES["learning_rate"]
        else:
            rule = _OPTIMIZER_RULES.get(k) or _STATE_ATTR_RULES.get(k)
        if rule is not None and not rule[0](v):
            raise FileFormatError(f"{where}: the {cls.__name__} attribute {k!r} is "
                                  f"{str(v)[:40]!r} ({type(v).__name__}); it must be "
                                  f"{rule[1]}")


def _make_optimizer(key: str, attrs, count_key, where: str):
    """A registered optimizer class's instance with ``attrs`` over its defaults."""
    cls: Any = OPTIMIZERS.get(key.lower())
    if cls is None:
        raise FileFormatError(f"{where}: the optimizer {key!r} is not registered in "
                              f"mx.optimizer (register it before loading)")
    if not isinstance(attrs, dict):
        raise FileFormatError(f"{where}: the optimizer's attributes are not a dict")
    obj = cls.__new__(cls)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            obj.__dict__.update(vars(cls()))     # attributes the file lacks keep defaults
    except Exception:    # noqa: BLE001 - an optimizer that needs arguments: file only
        pass
    attrs = {k: v for k, v in attrs.items() if k not in _SKIP_ATTRS}
    _check_optimizer_attrs(cls, attrs, where)
    obj.__dict__.update(_data_attrs(cls, attrs, where))
    obj.param_dict = {}
    counts = obj.__dict__.get("_all_index_update_counts")
    if isinstance(counts, dict):
        if count_key not in counts:
            counts[count_key] = {}
        obj._index_update_count = counts[count_key]
    return obj


def _loads_native(buf, where: str):
    names, arrays = _format.loads(buf, where)
    table = dict(zip(names, arrays))
    if JSON_KEY not in table:
        raise FileFormatError(f"{where} is an NDArray file but not an optimizer states file "
                              f"(no {JSON_KEY} entry)")
    try:
        doc = json.loads(table.pop(JSON_KEY).tobytes().decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as err:
        raise FileFormatError(f"{where}: the states description is not valid JSON: "
                              f"{'nested too deeply' if isinstance(err, RecursionError) else err}"
                              ) from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise FileFormatError(f"{where} is not an mxgrad optimizer states file")
    if doc.get("version") != VERSION:
        raise FileFormatError(f"{where} has states format version {doc.get('version')!r}; "
                              f"this mxgrad reads version {VERSION}")
    d = _Decoder(table, where)
    try:
        states = d.dec(doc.get("states"))
        if not isinstance(states, dict):
            raise d.bad("the states are not a dict")
        opt = None if doc.get("optimizer") is None else d.optimizer(doc["optimizer"])
    except (TypeError, ValueError, OverflowError, RecursionError) as err:
        if isinstance(err, FileFormatError):
            raise
        raise d.bad(f"{type(err).__name__}: {err}") from None
    return states, opt, {"param_names": doc.get("param_names"), "format": "mxgrad"}


# ------------------------------------------------------------ MXNet pickles
class _MXNetArray:
    """Stands for ``mxnet.ndarray.ndarray.NDArray`` while unpickling MXNet states."""

    __slots__ = ("value",)

    def __init__(self, handle=None):
        self.value = None

    def __setstate__(self, state):
        raw = state.get("handle") if isinstance(state, dict) else None
        if not isinstance(raw, (bytes, bytearray)):
            raise FileFormatError("a pickled MXNet NDArray without its data")
        self.value = wrap(_format.loads_one(raw))


class _RestrictedUnpickler(pickle.Unpickler):
    """Accepts MXNet's NDArray/optimizer/scheduler classes and plain containers only."""

    _BUILTINS = {"bytearray": bytearray, "set": set, "frozenset": frozenset,
                 "complex": complex, "object": object}

    def find_class(self, module, name):
        from . import lr_scheduler
        if module == "builtins" and name in self._BUILTINS:
            return self._BUILTINS[name]
        if module == "copyreg" and name == "_reconstructor":
            import copyreg
            return copyreg._reconstructor
        if module == "mxnet.ndarray.ndarray" and name == "NDArray":
            return _MXNetArray
        if module in ("mxnet.optimizer.optimizer", "mxnet.optimizer", "mxgrad.optimizer"):
            cls = OPTIMIZERS.get(name.lower())
            if cls is not None:
                return _optimizer_factory(cls)
        if module in ("mxnet.lr_scheduler", "mxgrad.lr_scheduler"):
            cls = getattr(lr_scheduler, name, None)
            if isinstance(cls, type) and issubclass(cls, lr_scheduler.LRScheduler):
                return cls
        if module in ("mxgrad.ndarray.ndarray", "mxgrad._engine.ndarray") and name == "NDArray":
            return NDArray
        raise FileFormatError(f"the pickled states refer to {module}.{name}, which mxgrad "
                              f"does not load")


def _optimizer_factory(cls):
    class _Opt(cls):   # unpickles into ``cls`` with defaults for attributes MXNet lacks
        def __setstate__(self, state):
            self.__class__ = cls
            obj = _make_optimizer(cls.__name__, dict(state), 0, "pickled states")
            for k, c in (state.get("_all_index_update_counts") or {}).items():
                if c is state.get("_index_update_count"):
                    obj._index_update_count = obj._all_index_update_counts[k]
            self.__dict__ = obj.__dict__
    _Opt.__name__ = cls.__name__
    return _Opt


def _unwrap(v):
    if isinstance(v, _MXNetArray):
        return v.value
    if isinstance(v, tuple):
        return tuple(_unwrap(x) for x in v)
    if isinstance(v, list):
        return [_unwrap(x) for x in v]
    if isinstance(v, dict):
        return {k: _unwrap(x) for k, x in v.items()}
    return v


def _has_array(v) -> bool:
    if isinstance(v, _MXNetArray):
        return True
    if isinstance(v, (tuple, list)):
        return any(_has_array(x) for x in v)
    if isinstance(v, dict):
        return any(_has_array(x) for x in v.values())
    return False


def _loads_pickle(buf, where: str):
    warnings.warn(f"loading {where} with allow_pickle=True: pickled states come from "
                  f"MXNet or older mxgrad; only load files you trust. Save them again with "
                  f"mxgrad to get the safe format.", UserWarning, stacklevel=4)
    try:
        obj = _RestrictedUnpickler(io.BytesIO(bytes(buf))).load()
    except FileFormatError as err:
        raise FileFormatError(f"{where}: {err}") from None
    except Exception as err:   # noqa: BLE001 - any unpickling failure: a bad file
        raise FileFormatError(f"{where} is a damaged pickle: {err}") from None
    opt = None
    if isinstance(obj, tuple) and len(obj) == 2:
        obj, opt = obj
    if not isinstance(obj, dict) or (opt is not None and type(opt) not in OPTIMIZERS.values()):
        raise FileFormatError(f"{where} is a pickle but not of optimizer states")
    if opt is not None:
        for k, v in list(vars(opt).items()):   # keep aliases (update counts) intact
            if _has_array(v):
                setattr(opt, k, _unwrap(v))
        opt.param_dict = {}
    return _unwrap(obj), opt, {"param_names": None, "format": "pickle"}


def loads(buf, allow_pickle: bool = False, where: str = "the states") \
        -> Tuple[Dict[Any, Any], Any, dict]:
    """Decode states content: ``(states, optimizer or None, info)``.

    A pickled file (MXNet's format) raises :class:`~mxgrad.base.FileFormatError` unless
    ``allow_pickle=True`` (which warns).

    Examples
    --------
    >>> loads(dumps({}))[0]
    {}
    """
    if not isinstance(buf, (bytes, bytearray, memoryview)):
        raise DTypeError(f"states must be bytes, got {type(buf).__name__}")
    head = bytes(memoryview(buf)[:8])
    if head[:1] == b"\x80":
        if not allow_pickle:
            raise FileFormatError(
                f"{where} is a Python pickle (MXNet's states format or an older mxgrad's); "
                f"mxgrad does not unpickle by default because a pickle can run any code. "
                f"If you trust the file, pass allow_pickle=True.")
        return _loads_pickle(buf, where)
    return _loads_native(buf, where)


def _arrays_of(state):
    if isinstance(state, NDArray):
        yield state
    elif isinstance(state, (tuple, list)):
        for s in state:
            yield from _arrays_of(s)


def _brief(names) -> str:
    names = [repr(str(x)) for x in names]
    return ", ".join(names) if len(names) <= 4 else ", ".join(names[:2] + ["..."] + names[-2:])


def check_states(states: dict, params: Sequence, where: str,
                 saved_names: Optional[Sequence[str]] = None) -> None:
    """Check that ``states`` fit ``params`` (index -> Parameter) before anything changes.

    The file's parameter count (when it recorded one), every state index and every array
    shape must match; a mismatch raises :class:`StatesMismatchError` naming the parameter.
    """
    n = len(params)
    if saved_names is not None and len(saved_names) != n:
        raise StatesMismatchError(
            f"{where} was saved by a Trainer of {len(saved_names)} parameters "
            f"({_brief(saved_names)}), but this Trainer has {n} "
            f"({_brief([p.name for p in params])}): the file belongs to another model")
    for idx, state in states.items():
        saved = ""
        if saved_names is not None and isinstance(idx, int) and 0 <= idx < len(saved_names):
            saved = f" (saved for '{saved_names[idx]}')"
        if not isinstance(idx, int) or isinstance(idx, bool) or not 0 <= idx < n:
            raise StatesMismatchError(
                f"{where} has a state for parameter {idx!r}{saved}, but this Trainer has "
                f"{n} parameters (indices 0..{n - 1}): the file belongs to another model")
        p = params[idx]
        shape = tuple(p.shape) if p.shape is not None else None
        for arr in _arrays_of(state):
            if shape is not None and 0 not in shape and -1 not in shape \
                    and tuple(arr.shape) != shape:
                raise StatesMismatchError(
                    f"{where}: the state of parameter {idx} '{p.name}' (shape {shape}) has "
                    f"an array of shape {tuple(arr.shape)}{saved}: the file belongs to "
                    f"another model")

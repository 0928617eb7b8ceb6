"""Argument checks at the API boundary: one home for "is this an int, a real number, a
shape", so every public function rejects bad input with an :class:`~mxgrad.base.MXNetError`
that names the argument (``where``) instead of letting NumPy or Python fail deeper down.

Examples
--------
>>> as_shape((2, 3), "nd.zeros: shape")
(2, 3)
>>> as_int('a', "one_hot: depth")
Traceback (most recent call last):
...
mxgrad.base.DTypeError: one_hot: depth must be an int, got str 'a'
"""
from __future__ import annotations

import math
import operator
import os
import sys
from typing import Callable, Dict, Optional, Tuple

import numpy as np

from .base import (DTypeError, MXNetError, OutOfRangeError, ShapeError, StateError,
                   UnknownArgumentError)

__all__ = ["as_int", "as_real", "as_shape", "as_positive_real", "allocate", "OutOfMemoryError",
           "guard", "guard_namespace", "guard_class", "accepted_keywords"]


class OutOfMemoryError(MXNetError, MemoryError):
    """An array too large for the memory of this machine."""


def _describe(value) -> str:
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{type(value).__name__} {text}"


def as_int(value, where: str, *, minimum: Optional[int] = None) -> int:
    """``value`` as a Python int (an int, a NumPy integer or an integral one-element
    array); bools, floats and strings are refused. ``minimum`` bounds it from below.

    Examples
    --------
    >>> as_int(np.int64(3), "depth")
    3
    >>> as_int(-1, "depth", minimum=0)
    Traceback (most recent call last):
    ...
    mxgrad.base.StateError: depth must be >= 0, got -1
    """
    if isinstance(value, (bool, np.bool_)) or isinstance(value, (float, np.floating)):
        raise DTypeError(f"{where} must be an int, got {_describe(value)}")
    try:
        out = operator.index(value)
    except TypeError:
        raise DTypeError(f"{where} must be an int, got {_describe(value)}") from None
    if minimum is not None and out < minimum:
        raise StateError(f"{where} must be >= {minimum}, got {out}")
    return out


def as_real(value, where: str, *, finite: bool = True) -> float:
    """``value`` as a Python float (an int, a float, a NumPy scalar); strings, None and
    bools are refused, and NaN/Inf too unless ``finite=False``.

    Examples
    --------
    >>> as_real(1, "a_min")
    1.0
    >>> as_real(None, "a_min")
    Traceback (most recent call last):
    ...
    mxgrad.base.DTypeError: a_min must be a real number, got NoneType None
    """
    if isinstance(value, (bool, np.bool_, str, bytes)) or value is None:
        raise DTypeError(f"{where} must be a real number, got {_describe(value)}")
    try:
        out = float(value)
    except (TypeError, ValueError):
        raise DTypeError(f"{where} must be a real number, got {_describe(value)}") from None
    if finite and not math.isfinite(out):
        raise StateError(f"{where} must be a finite number, got {out}")
    return out


def as_positive_real(value, where: str) -> float:
    """``value`` as a finite float > 0.

    Examples
    --------
    >>> as_positive_real(0, "batch_size")
    Traceback (most recent call last):
    ...
    mxgrad.base.StateError: batch_size must be > 0, got 0.0
    """
    out = as_real(value, where)
    if out <= 0:
        raise StateError(f"{where} must be > 0, got {out}")
    return out


def as_shape(shape, where: str, *, itemsize: int = 4) -> tuple:
    """A shape (an int or a sequence of ints, each >= 0) as a tuple of ints, whose
    total size in bytes (at ``itemsize`` bytes per element) fits in memory addresses.

    Examples
    --------
    >>> as_shape(3, "shape")
    (3,)
    >>> as_shape('a', "nd.zeros: shape")
    Traceback (most recent call last):
    ...
    mxgrad.base.DTypeError: nd.zeros: shape must be an int or a tuple of ints, got str 'a'
    """
    if isinstance(shape, (str, bytes)) or shape is None:
        raise DTypeError(f"{where} must be an int or a tuple of ints, got {_describe(shape)}")
    dims: Tuple[int, ...]
    if hasattr(shape, "__index__") and not isinstance(shape, (bool, np.bool_)) \
            and not (isinstance(shape, np.ndarray) and shape.ndim):   # (an int array: items)
        dims = (operator.index(shape),)
    else:
        try:
            items = tuple(shape)
        except TypeError:
            raise DTypeError(f"{where} must be an int or a tuple of ints, got "
                             f"{_describe(shape)}") from None
        try:
            dims = tuple(as_int(s, where) for s in items)
        except DTypeError:
            raise DTypeError(f"{where} must be an int or a tuple of ints, got "
                             f"{_describe(shape)}") from None
    for d in dims:
        if d < 0:
            raise ShapeError(f"{where} has a negative dimension: {dims}; sizes are >= 0")
    total = itemsize
    for d in dims:
        total *= d
    if total > sys.maxsize:
        raise ShapeError(f"{where} {dims} is too large: {total} bytes")
    return dims


def allocate(make: Callable[[], np.ndarray], where: str) -> np.ndarray:
    """Run ``make()`` (a NumPy allocation) and turn running out of memory into an
    :class:`OutOfMemoryError` naming ``where``.

    Examples
    --------
    >>> allocate(lambda: np.zeros(2), "nd.zeros").shape
    (2,)
    """
    try:
        return make()
    except MemoryError as err:
        raise OutOfMemoryError(f"{where}: not enough memory ({err}); use a smaller "
                               f"shape") from None


# ------------------------------------------------------------------ the boundary guard
# What a parameter must be is read from the function's own annotation (``keepdims: bool``,
# ``axis: Axis``, ``shape: ShapeLike``...), so the check lives with what it checks. Used
# only to explain a failure (never on the success path): the first argument that does not
# fit its annotation is the one the error names.
def _is_int(v) -> bool:
    return hasattr(v, "__index__") and not isinstance(v, (bool, np.bool_)) \
        and not isinstance(v, np.ndarray)


def _is_real(v) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) \
        and not isinstance(v, (bool, np.bool_))


def _ints(v, none_items: bool = False) -> bool:
    return _is_int(v) or (isinstance(v, (tuple, list)) and all(
        _is_int(a) or (none_items and a is None) for a in v))


def _annotation_parts(text: str) -> Tuple[bool, Tuple[str, ...]]:
    """``(None allowed, the alternatives)`` of an annotation's text: ``'Optional[int]'`` is
    ``(True, ('int',))``, ``'Union[NDArray, float]'`` is ``(False, ('NDArray', 'float'))``."""
    text = text.replace(" ", "")
    optional = False
    if text.startswith("Optional[") and text.endswith("]"):
        optional, text = True, text[9:-1]
    if text.startswith("Union[") and text.endswith("]"):
        parts, depth, cur = [], 0, ""
        for ch in text[6:-1]:
            depth += ch == "["
            depth -= ch == "]"
            if ch == "," and depth == 0:
                parts.append(cur)
                cur = ""
            else:
                cur += ch
        parts.append(cur)
    else:
        parts = [text]
    if "None" in parts:
        optional = True
        parts.remove("None")
    return optional, tuple(parts)


def _is_bool(v) -> bool:
    return isinstance(v, (bool, np.bool_)) or (_is_int(v) and int(v) in (0, 1))


def _is_array_list(v, arr) -> bool:
    return isinstance(v, (list, tuple)) and len(v) > 0 and all(isinstance(a, arr) for a in v)


_INTS = (lambda v, arr: _ints(v), "an int or a tuple of ints")
# an annotation's alternative -> (does a value fit it, given the NDArray class; what it is)
_KINDS: Dict[str, Tuple[Callable, str]] = {
    "bool": (lambda v, arr: _is_bool(v), "True or False"),
    "float": (lambda v, arr: _finite(v) or isinstance(v, arr), "a real number"),
    "int": (lambda v, arr: _is_int(v), "an int"),
    "Axis": _INTS, "Sequence[int]": _INTS, "Tuple[int,...]": _INTS, "Shape": _INTS,
    "ShapeLike": _INTS,
    "Sequence[Optional[int]]": (lambda v, arr: _ints(v, none_items=True), _INTS[1]),
    "NDArray": (lambda v, arr: isinstance(v, arr), "an NDArray"),
    "ArrayT": (lambda v, arr: isinstance(v, arr), "an NDArray"),
    "Sequence[NDArray]": (_is_array_list, "a non-empty list of NDArrays"),
    "List[NDArray]": (_is_array_list, "a non-empty list of NDArrays"),
    "str": (lambda v, arr: isinstance(v, str), "a string"),
}


def _arg_problem(annotation, value) -> Optional[str]:
    """What is wrong with ``value`` for a parameter annotated ``annotation`` (its text, as
    ``from __future__ import annotations`` keeps it), or None.

    Examples
    --------
    >>> _arg_problem("bool", "yes")
    'must be True or False'
    >>> _arg_problem("Optional[Axis]", (0, 1)) is None
    True
    >>> _arg_problem("Union[NDArray, float]", "a")
    'must be an NDArray or a real number'
    """
    from ._engine.ndarray import NDArray
    if not isinstance(annotation, str):
        return None
    optional, kinds = _annotation_parts(annotation)
    if value is None and optional:
        return None
    if any(k not in _KINDS or _KINDS[k][0](value, NDArray) for k in kinds):
        return None        # a kind not checked here, or one that fits
    if "float" in kinds and _is_real(value) and not math.isfinite(float(value)):
        return "must be a finite number"
    what = " or ".join(dict.fromkeys(_KINDS[k][1] for k in kinds))
    return f"must be {what}" + (" or None" if optional else "")


def _out_problem(value) -> Optional[str]:
    """What is wrong with an ``out=`` argument (every op's): an NDArray, a list of them or
    None."""
    from ._engine.ndarray import NDArray
    if value is None or isinstance(value, NDArray) or (
            isinstance(value, (list, tuple)) and value
            and all(isinstance(v, NDArray) for v in value)):
        return None
    return "must be an NDArray (the array to write the result into) or None"


def _explain(func, where: str, args, kwargs, err: BaseException):
    """An MXNetError for ``err`` raised by ``func(*args, **kwargs)``, naming the argument
    that does not fit its parameter when one can be found."""
    import inspect
    try:
        bound = inspect.signature(func).bind(*args, **kwargs)
    except TypeError as bind_err:     # wrong number or names of arguments
        return DTypeError(f"{where}: {bind_err}")
    except ValueError:
        bound = None
    if bound is not None:
        params = inspect.signature(func).parameters
        for name, value in bound.arguments.items():
            kind = params[name].kind
            values = value.items() if kind is inspect.Parameter.VAR_KEYWORD else [(name, value)]
            default = params[name].default
            for key, v in values:
                if key == name and v is default and default is not inspect.Parameter.empty:
                    continue        # a default value is never the culprit
                problem = _out_problem(v) if key == "out" else _arg_problem(
                    params[key].annotation if key in params else None, v)
                if problem is not None:
                    cls = StateError if problem.endswith("finite number") else DTypeError
                    return cls(f"{where}: {key} {problem}, got {_describe(v)}")
    if isinstance(err, IndexError):
        return OutOfRangeError(f"{where}: {err}")
    cls = DTypeError if isinstance(err, (TypeError, AttributeError)) else StateError
    return cls(f"{where}: invalid arguments ({type(err).__name__}: {err}); check the "
               f"arguments against the documentation (help({where}))")


_OUR_DIRS = (os.path.dirname(os.path.abspath(__file__)) + os.sep,
             os.path.dirname(os.path.abspath(np.__file__)) + os.sep)


def _raised_in_user_code(err: BaseException) -> bool:
    """Whether a frame between the guard and the raise is outside mxgrad and NumPy."""
    tb = err.__traceback__.tb_next if err.__traceback__ is not None else None
    while tb is not None:
        if not tb.tb_frame.f_code.co_filename.startswith(_OUR_DIRS):
            return True
        tb = tb.tb_next
    return False


_GUARDS: dict = {}
_GUARDED = (TypeError, ValueError, AttributeError, IndexError, KeyError, ZeroDivisionError,
            OverflowError)


def accepted_keywords(func: Callable, where: str) -> Optional[frozenset]:
    """The keyword names ``func`` (published as ``where``, e.g. ``'nd.Activation'``)
    accepts, when it takes ``**kwargs``: its own parameters and every keyword MXNet 1.9.1's
    operator of that name takes (``workspace``, ``cudnn_tune``... are accepted and
    ignored). ``None`` when nothing is to be checked: ``func`` lists all its keywords
    (Python itself rejects others) or MXNet has no operator of that name.

    MXNet's operators without parameters (``exp``, ``relu``...) silently ignore unknown
    keywords; mxgrad rejects them everywhere, since a misspelt keyword that does nothing
    is a silent wrong result.

    Examples
    --------
    >>> import mxgrad as mx
    >>> sorted(accepted_keywords(mx.nd.Activation, 'nd.Activation'))
    ['act_type', 'data', 'name', 'out']
    """
    import inspect
    from ._mxnet_op_args import OP_ARGS
    try:
        params = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):
        return None
    if not any(p.kind is p.VAR_KEYWORD for p in params):
        return None
    # an alias guarded first under another namespace (nd.contrib imports dot) is looked
    # up under its plain nd name too
    short = where.rsplit(".", 1)[-1]
    for key in (where, "nd." + where, "nd." + short):
        mxnet_names = OP_ARGS.get(key)
        if mxnet_names is not None:
            break
    else:
        return None
    own = {p.name for p in params if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)}
    return frozenset(own) | frozenset(mxnet_names)


def is_attribute_keyword(key: str) -> bool:
    """MXNet passes ``__name__``-style keywords (``__layout__``, ``__lr_mult__``) to any
    operator as attributes of its node; mxgrad accepts and ignores them."""
    return key.startswith("__") and key.endswith("__")


def _unknown_keywords(where: str, kwargs: dict, accepted: frozenset
                      ) -> Optional[UnknownArgumentError]:
    unknown = sorted(k for k in kwargs if k not in accepted and not is_attribute_keyword(k))
    if not unknown:
        return None
    s = "s" if len(unknown) > 1 else ""
    hint = ("; sparse storage (stype) is not supported by mxgrad: arrays are dense"
            if "stype" in unknown else "")
    return UnknownArgumentError(
        f"{where}: unknown keyword argument{s} {', '.join(map(repr, unknown))}; it takes "
        f"{', '.join(sorted(accepted))} (check the spelling: help({where})){hint}")


def guard(func: Callable, where: str) -> Callable:
    """``func`` with every non-mxgrad error it raises on bad arguments turned into an
    :class:`~mxgrad.base.MXNetError` that names the argument (see :func:`_explain`), and
    keyword arguments outside :func:`accepted_keywords` rejected with
    :class:`~mxgrad.base.UnknownArgumentError` before ``func`` runs.

    Nothing else is checked when ``func`` succeeds, so the guard costs one call frame.
    Errors raised in user code that ``func`` called (a custom Function, a hook) pass
    unchanged.

    Examples
    --------
    >>> import mxgrad as mx        # nd.one_hot is guarded; its annotation says depth: int
    >>> mx.nd.one_hot(mx.nd.array([0, 1]), depth="3")
    Traceback (most recent call last):
    ...
    mxgrad.base.DTypeError: one_hot: depth must be an int, got str '3'
    """
    import functools
    cached = _GUARDS.get(func)
    if cached is not None:        # one wrapper per function: aliases stay identical
        return cached

    accepted = accepted_keywords(func, where)

    @functools.wraps(func)
    def guarded(*args, **kwargs):
        if kwargs and accepted is not None and not accepted.issuperset(kwargs):
            err = _unknown_keywords(where, kwargs, accepted)
            if err is not None:
                raise err
            kwargs = {k: v for k, v in kwargs.items() if not is_attribute_keyword(k)}
        try:
            return func(*args, **kwargs)
        except MXNetError:
            raise
        except _GUARDED as err:
            if _raised_in_user_code(err):
                raise      # a user's Function, hook or callback failed: not a bad argument
            raise _explain(func, where, args, kwargs, err) from err
    guarded.__mxgrad_guarded__ = True  # type: ignore[attr-defined]
    _GUARDS[func] = guarded
    return guarded


def guard_namespace(namespace: dict, prefix: str) -> None:
    """Replace every public function of ``namespace`` (a module's globals; only the names
    in its ``__all__`` when it has one, so helpers it imports keep their home's name) by
    its :func:`guard`\\ ed version named ``prefix.name``."""
    import inspect
    public = namespace.get("__all__")
    for name, obj in list(namespace.items()):
        if name.startswith("_") or not inspect.isfunction(obj) \
                or (public is not None and name not in public) \
                or getattr(obj, "__mxgrad_guarded__", False):
            continue
        if getattr(obj, "op", None) is not None:
            # an op function made by the op table: ops/_apply checks its arguments, and the
            # fuzz tests hold it to that; no wrapper frame on the hottest calls (~0.15 us)
            continue
        namespace[name] = guard(obj, f"{prefix}.{name}")


def guard_class(cls, prefix: str, dunders=("__getitem__", "__setitem__")) -> None:
    """Guard the public methods of ``cls`` (and the listed dunder methods) in place."""
    import inspect
    for name, obj in list(vars(cls).items()):
        if (name.startswith("_") and name not in dunders) or not inspect.isfunction(obj) \
                or getattr(obj, "__mxgrad_guarded__", False):
            continue
        setattr(cls, name, guard(obj, f"{prefix}.{name}"))


# ------------------------------------------------------- eager checks of layer arguments
def _positive_ints(value, allow_zero=False):
    vals = (value,) if _is_int(value) else value if isinstance(value, (tuple, list)) else None
    if vals is None or not vals or not all(_is_int(v) for v in vals):
        return False
    return all(int(v) >= (0 if allow_zero else 1) for v in vals)


def _real_in(value, lo, hi, lo_open=False, hi_open=False):
    if not _is_real(value) or not math.isfinite(float(value)):
        return False
    v = float(value)
    return (v > lo if lo_open else v >= lo) and (v < hi if hi_open else v <= hi)


_LAYER_RULES = {
    # name: (test, what it must be)
    **{n: (lambda v: _is_int(v) and int(v) >= 1, "a positive int") for n in (
        "input_dim", "output_dim", "num_groups", "groups", "hidden_size", "num_layers")},
    # MXNet builds Dense(0) / Conv2D(0) (a layer nobody calls, in a list): so does mxgrad;
    # calling one raises (a parameter shape with 0 is unknown and cannot be inferred)
    **{n: (lambda v: _is_int(v) and int(v) >= 0, "a positive int") for n in ("units", "channels")},
    **{n: (lambda v: _is_int(v) and int(v) >= 0, "an int >= 0 (0 means inferred)") for n in (
        "in_units", "in_channels", "input_size")},
    "axis": (_is_int, "an int"),
    **{n: (_positive_ints, "a positive int or a tuple of positive ints") for n in (
        "kernel_size", "pool_size", "dilation")},
    "strides": (lambda v: v is None or _positive_ints(v),
                "a positive int or a tuple of positive ints"),
    **{n: (lambda v: _positive_ints(v, allow_zero=True), "an int >= 0 or a tuple of them")
       for n in ("padding", "output_padding")},
    "rate": (lambda v: _real_in(v, 0, 1, hi_open=True), "a number in [0, 1)"),
    "dropout": (lambda v: _real_in(v, 0, 1, hi_open=True), "a number in [0, 1)"),
    "momentum": (lambda v: _real_in(v, 0, 1), "a number in [0, 1]"),
    "epsilon": (lambda v: _real_in(v, 0, math.inf, lo_open=True), "a finite number > 0"),
    **{n: (lambda v: _real_in(v, -math.inf, math.inf), "a finite number") for n in (
        "alpha", "beta")},
    **{n: (lambda v: isinstance(v, (bool, np.bool_)) or (_is_int(v) and int(v) in (0, 1)),
           "True or False") for n in (
        "use_bias", "center", "scale", "ceil_mode", "count_include_pad", "use_global_stats",
        "sparse_grad", "flatten", "bidirectional", "global_pool")},
    "dtype": (lambda v: _dtype_ok(v), "a numeric dtype such as 'float32'"),
    "activation": (lambda v: v is None or isinstance(v, str) or _is_block(v),
                   "an activation name such as 'relu', a Block or None"),
    "layout": (lambda v: isinstance(v, str), "a layout name such as 'NCHW'"),
    **{n: (lambda v: v is None or isinstance(v, str) or _is_initializer(v),
           "an Initializer, an initializer name such as 'zeros', or None") for n in (
        "weight_initializer", "bias_initializer", "gamma_initializer", "beta_initializer",
        "running_mean_initializer", "running_variance_initializer", "alpha_initializer",
        "i2h_weight_initializer", "h2h_weight_initializer", "i2h_bias_initializer",
        "h2h_bias_initializer")},
}


_PKG = __name__.rsplit(".", 1)[0]   # "mxgrad" (or the name a copy is imported under)


def _has_base(cls: type, module: str, name: str) -> bool:
    """Whether ``cls`` derives from the class ``name`` of ``mxgrad.<module>``, found by its
    name in the MRO: the classes (Gluon's Block, Initializer) live above this module, which
    must not import them (tools/import_graph.py floors)."""
    where = f"{_PKG}.{module}"
    return any(k.__name__ == name and k.__module__ == where for k in cls.__mro__)


def _is_block(v) -> bool:
    return _has_base(type(v), "gluon.block", "Block")


def _is_initializer(v) -> bool:
    return _has_base(type(v), "initializer", "Initializer")


def _dtype_ok(value) -> bool:
    from .base import as_dtype
    try:
        as_dtype(value)
    except MXNetError:
        return False
    return True


def _finite(v) -> bool:
    return _real_in(v, -math.inf, math.inf)


_OPTIMIZER_RULES = {
    **{n: (_finite, "a real number (finite)") for n in (
        "learning_rate", "wd", "rescale_grad", "momentum", "beta1", "beta2", "gamma1",
        "gamma2", "rho", "lamda1", "lamda", "beta", "wd_lh")},
    **{n: (lambda v: v is None or _finite(v), "a real number (finite) or None") for n in (
        "clip_gradient", "lower_bound", "upper_bound")},
    **{n: (lambda v: _real_in(v, 0, math.inf), "a finite number >= 0") for n in (
        "epsilon", "eps")},
    **{n: (_is_bool, "True or False") for n in (
        "multi_precision", "lazy_update", "centered", "bias_correction")},
    "lr_scheduler": (lambda v: v is None or callable(v), "an LRScheduler or None"),
    "begin_num_update": (lambda v: _is_int(v) and int(v) >= 0, "an int >= 0"),
}

_INITIALIZER_RULES = {
    **{n: (lambda v: _real_in(v, 0, math.inf), "a finite number >= 0") for n in (
        "scale", "sigma", "magnitude")},
    **{n: (_finite, "a real number (finite)") for n in ("slope", "forget_bias")},
    **{n: (lambda v: isinstance(v, str), "a name (str)") for n in (
        "rnd_type", "factor_type", "rand_type")},
    "value": (lambda v: _finite(v) or _is_array_like(v), "a number or an array"),
}


def _is_array_like(v) -> bool:
    from ._engine.ndarray import NDArray
    return isinstance(v, (NDArray, np.ndarray)) or (
        isinstance(v, (list, tuple)) and len(v) > 0 and all(_finite(x) for x in np.ravel(v)))


def checked_init(init: Callable, where: str, rules: Optional[dict] = None) -> Callable:
    """``init`` (a layer's ``__init__``) checking its arguments eagerly by name, so a
    bad ``units``, ``kernel_size``, ``rate``... fails at construction with an error
    naming it instead of later inside the forward pass.

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.gluon.nn.Dense('a')
    Traceback (most recent call last):
    ...
    mxgrad.base.DTypeError: Dense: units must be a positive int, got str 'a'
    """
    import functools
    import inspect
    sig = inspect.signature(init)
    rules = _LAYER_RULES if rules is None else rules

    @functools.wraps(init)
    def checked(self, *args, **kwargs):
        where = type(self).__name__
        try:
            bound = sig.bind(self, *args, **kwargs)
        except TypeError as err:
            raise DTypeError(f"{where}: {err}") from None
        params = sig.parameters
        for name, value in bound.arguments.items():
            if params[name].kind is inspect.Parameter.VAR_KEYWORD:
                items = list(value.items())
                _check_forwarded(type(self), where, params, value)
            else:
                items = [(name, value)]
            for key, v in items:
                _check_rule(rules, params, where, key, v)
        return init(self, *args, **kwargs)
    checked.__mxgrad_checked__ = True  # type: ignore[attr-defined]
    return checked


def _check_forwarded(cls, where, params, kwargs) -> None:
    """Keywords a layer passes on (``**kwargs``) must be taken by some ``__init__`` up its
    class chain; otherwise the error names the layer (not ``HybridBlock.__init__``) and the
    closest argument it takes (``Dense(3, in_unit=4)``: did you mean ``in_units``)."""
    import difflib
    import inspect
    if not _has_base(cls, "gluon.block", "Block"):
        return        # only Gluon blocks end in Block.__init__(prefix, params)
    taken = set()
    for klass in cls.__mro__:
        init = klass.__dict__.get("__init__")
        if init is None or klass is object:
            continue
        for p in inspect.signature(init).parameters.values():
            if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
                taken.add(p.name)
    for key in kwargs:
        if key not in taken:
            own = [n for n, p in params.items() if n != "self"
                   and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
            close = difflib.get_close_matches(key, sorted(taken - {"self"}), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise UnknownArgumentError(f"{where} got an unexpected keyword argument {key!r}"
                                       f"{hint}; {where} takes {', '.join(own)}, prefix, "
                                       f"params")


def _check_rule(rules, params, where, name, value):
    """Raise an error naming ``name`` when ``value`` breaks its rule in ``rules``."""
    import inspect
    rule = rules.get(name)
    default = params[name].default if name in params else inspect.Parameter.empty
    if rule is None or value is default:
        return                     # a default value is never the culprit
    test, what = rule
    if value is None and name == "strides" and default not in (None, inspect.Parameter.empty):
        ok = False                 # only pooling takes strides=None (= pool_size)
    else:
        try:
            ok = test(value)
        except Exception:          # noqa: BLE001 - an odd object fails its test
            ok = False
    if not ok:
        cls = DTypeError if not (_is_real(value) or _is_int(value)
                                 or isinstance(value, (tuple, list))) else StateError
        raise cls(f"{where}: {name} must be {what}, got {_describe(value)}")

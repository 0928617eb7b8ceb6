"""The functions of ``mx.sym.np`` and ``mx.sym.npx``, made from the tables of
:mod:`mxgrad.symbol._np_ops`: each takes the arguments of the ``mx.np`` / ``mx.npx``
function of the same name, with Symbols for its arrays, plus ``name=``, and adds one node
of MXNet's operator for it.

Examples
--------
>>> from mxgrad.symbol.numpy._functions import FUNCS
>>> import mxgrad as mx
>>> x = mx.sym.var('x').as_np_ndarray()
>>> FUNCS['concatenate']([x, x], axis=1).tojson().count('_npi_concatenate')
1
"""
from __future__ import annotations

import inspect
from typing import Any, Callable, Dict, Optional

from ... import numpy as _mnp
from ... import numpy_extension as _npx
from ...base import DTypeError
from .._core import Symbol, SYMBOL_FACES
from .. import _ops
from .._np_ops import (UNARY, BINARY, FUNCTIONS, CREATION, RANDOM, VARIADIC, LINALG,
                       ONE_PARAMETER_DRAWS, aliased_binary)

__all__ = ["FUNCS", "NPX", "LINALG_FUNCS", "RANDOM_FUNCS", "binary", "missing"]

_PREFIXES = ("_npi_", "_npx_", "_np_")


def missing(namespace: str) -> Callable:
    """The module ``__getattr__`` of a Symbol namespace: an AttributeError naming the
    function mxgrad's ``namespace`` lacks."""
    def __getattr__(name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        raise AttributeError(f"{namespace} has no function {name!r} in mxgrad (its Symbol "
                             f"functions are listed in its __all__)")
    return __getattr__


def _make(op: str, inputs, attrs: dict, name: Optional[str], hint: str) -> Symbol:
    """A node ``op`` of mx.sym.np's face: a ``_Symbol`` (registered by ``_symbol.py``, whose
    methods call these functions), computing on ``mx.np`` arrays."""
    return _ops.make(op, inputs, attrs, name, hint, cls=SYMBOL_FACES["np"])


def _hint(op: str) -> str:
    for p in _PREFIXES:
        if op.startswith(p):
            return op[len(p):]
    return op.lower()


def _is_scalar(v) -> bool:
    import numpy as onp
    return isinstance(v, (int, float, bool, onp.number, onp.bool_))


def _symbol(v, where: str, arg: str) -> Symbol:
    if isinstance(v, Symbol):
        return v
    raise DTypeError(f"mx.sym.np.{where}: argument {arg!r} must be a Symbol, got "
                     f"{type(v).__name__}")


def _scalar_attrs(v) -> dict:
    import numpy as onp
    if isinstance(v, (bool, onp.bool_)):
        v = int(v)
    is_int = isinstance(v, (int, onp.integer))
    return {"scalar": float(v), "is_int": bool(is_int)}


def binary(name: str, a, b, out_name=None) -> Any:
    """``mx.sym.np.<name>(a, b)``: the two-array operator, or the scalar one when one
    side is a Python/NumPy scalar (``x + 1`` is ``_npi_add_scalar``)."""
    op, sop, rop = BINARY[name]
    if isinstance(a, Symbol) and isinstance(b, Symbol):
        return _make(op, [a, b], {}, out_name, _hint(op))
    if isinstance(a, Symbol) and _is_scalar(b):
        return _make(sop, [a], _scalar_attrs(b), out_name, _hint(sop))
    if isinstance(b, Symbol) and _is_scalar(a):
        return _make(rop, [b], _scalar_attrs(a), out_name, _hint(rop))
    if not isinstance(a, Symbol) and not isinstance(b, Symbol):
        raise DTypeError(f"mx.sym.np.{name}: at least one argument must be a Symbol")
    return NotImplemented


def _binary_function(name: str) -> Callable:
    def f(x1, x2, out=None, name=None, **kwargs):
        r = binary(fname, x1, x2, name)
        if r is NotImplemented:
            other = x2 if isinstance(x1, Symbol) else x1
            raise DTypeError(f"mx.sym.np.{fname}: the other argument must be a Symbol or a "
                             f"scalar, got {type(other).__name__}")
        return r
    fname = name
    f.__name__ = name
    f.__doc__ = f"Symbolic ``mx.np.{name}`` (MXNet's ``{BINARY[name][0]}``)."
    return f


def _unary_function(name: str, op: str) -> Callable:
    def f(x, out=None, name=None, **kwargs):
        return _make(op, [_symbol(x, fname, "x")], {}, name, _hint(op))
    fname = name
    f.__name__ = name
    f.__doc__ = f"Symbolic ``mx.np.{name}`` (MXNet's ``{op}``)."
    return f


def _positional_names(fname: str) -> list:
    """The argument names of NumPy's own ``fname`` (for mx.np wrappers taking
    ``*args``), or []."""
    import numpy as onp
    fn = getattr(onp, fname, None)
    try:
        return [p.name for p in inspect.signature(fn).parameters.values()
                if p.kind is p.POSITIONAL_OR_KEYWORD] if fn is not None else []
    except (TypeError, ValueError):
        return []


def _bound_function(fname: str, op: str, inputs, target: Callable, renames: dict,
                    defaults: Optional[dict] = None) -> Callable:
    """A function taking ``target``'s arguments: those named in ``inputs`` are the node's
    array inputs (Symbols), the others given explicitly its attributes."""
    sig = inspect.signature(target)
    params = sig.parameters
    var_pos = next((p.name for p in params.values() if p.kind is p.VAR_POSITIONAL), None)

    def f(*args, **kwargs):
        node_name = kwargs.pop("name", None)
        kwargs.pop("out", None)
        if var_pos is not None and not any(p.kind is p.POSITIONAL_OR_KEYWORD
                                           for p in params.values()):
            # (*args, **kwargs) wrappers: the arrays come first, in the table's order
            given = dict(zip(inputs, args))
            extra = args[len(inputs):]
            if extra:
                names = _positional_names(fname)[len(inputs):]
                if len(names) < len(extra):
                    raise DTypeError(f"mx.sym.{fname}: give attributes by keyword")
                given.update(zip(names, extra))
            given.update(kwargs)
        else:
            try:
                ba = sig.bind(*args, **kwargs)
            except TypeError as err:
                raise DTypeError(f"mx.sym.np.{fname}: {err}") from err
            given = {}
            for k, v in ba.arguments.items():
                kind = params[k].kind
                if kind is inspect.Parameter.VAR_KEYWORD:
                    given.update(v)
                elif kind is inspect.Parameter.VAR_POSITIONAL:
                    if v:
                        raise DTypeError(f"mx.sym.np.{fname}: too many arguments")
                else:
                    given[k] = v
        syms = []
        for k in inputs:
            v = given.pop(k, None)
            if v is None:
                continue
            syms.append(_symbol(v, fname, k))
        attrs = dict(defaults or {})
        for k, v in given.items():
            if isinstance(v, Symbol):
                raise DTypeError(f"mx.sym.np.{fname}: argument {k!r} cannot be a Symbol "
                                 f"(it is an attribute of MXNet's {op})")
            attrs[renames.get(k, k)] = v
        return _make(op, syms, attrs, node_name, _hint(op))
    f.__name__ = fname
    f.__doc__ = f"Symbolic ``{target.__module__}.{fname}`` (MXNet's ``{op}``)."
    return f


def _creation_function(fname: str, op: str, target: Callable, extra: dict,
                       random: bool = False) -> Callable:
    """A function of no arrays (``zeros``...), or a draw (``random``) whose distribution
    parameters may be Symbols: the node's inputs, their attributes None (MXNet's form)."""
    sig = inspect.signature(target)

    def f(*args, **kwargs):
        node_name = kwargs.pop("name", None)
        kwargs.pop("out", None)
        try:
            ba = sig.bind(*args, **kwargs)
        except TypeError as err:
            raise DTypeError(f"mx.sym.np.{fname}: {err}") from err
        attrs: Dict[str, Any] = {}
        inputs = []
        for k, v in ba.arguments.items():
            if isinstance(v, Symbol):
                if not random:
                    raise DTypeError(f"mx.sym.np.{fname}: argument {k!r} cannot be a "
                                     f"Symbol in mxgrad's mx.sym.np (give a number)")
                inputs.append(v)      # a parameter array of the draw (MXNet: attr None)
                attrs[k] = None
                continue
            if k == "ctx" or v is None and k not in ("stop", "M", "size"):
                continue
            if k == "shape" and isinstance(v, int) and not random:
                v = (v,)
            attrs[extra.get(k, k)] = v
        if "dtype" in sig.parameters and fname != "randint":
            attrs.setdefault("dtype", "float32")
        return _make(op, inputs, attrs, node_name, _hint(op))
    f.__name__ = fname
    f.__doc__ = f"Symbolic ``mx.np.{fname}`` (MXNet's ``{op}``)."
    return f


def _one_parameter_draw(fname: str, op: str, param: str) -> Callable:
    """``weibull(a, size=...)``-style draws (mx.np's take ``*args``): MXNet's ``op`` with
    the parameter as an attribute, or as the node's input when it is a Symbol."""
    def f(value=1.0, size=None, dtype=None, ctx=None, out=None, name=None):
        attrs: Dict[str, Any] = {"size": size}
        inputs = []
        if isinstance(value, Symbol):
            inputs.append(value)
            attrs[param] = None
        else:
            attrs[param] = value
        return _make(op, inputs, attrs, name, _hint(op))
    f.__name__ = fname
    f.__doc__ = f"Symbolic ``mx.np.random.{fname}`` (MXNet's ``{op}``)."
    return f


def _variadic_function(fname: str, op: str) -> Callable:
    def f(seq, *args, name=None, out=None, **kwargs):
        arrays = [_symbol(s, fname, "seq") for s in seq]
        attrs: Dict[str, Any] = {"num_args": len(arrays)}
        if args:
            attrs["axis"] = args[0]
        attrs.update(kwargs)
        if fname in ("concatenate", "stack"):
            attrs.setdefault("axis", 0)
        return _make(op, arrays, attrs, name, _hint(op))
    f.__name__ = fname
    f.__doc__ = f"Symbolic ``mx.np.{fname}`` (MXNet's ``{op}``)."
    return f


def _split(ary, indices_or_sections, axis: int = 0, name=None, op: str = "_split_v2"):
    """Symbolic ``mx.np.split``: a list of ``_Symbol`` (MXNet's ``_split_v2``)."""
    if isinstance(indices_or_sections, int):
        attrs = {"sections": indices_or_sections, "indices": (), "axis": axis,
                 "squeeze_axis": False}
    else:
        attrs = {"sections": 0, "indices": (0,) + tuple(indices_or_sections), "axis": axis,
                 "squeeze_axis": False}
    s = _make(op, [_symbol(ary, "split", "ary")], attrs, name, _hint(op))
    return [SYMBOL_FACES["np"]([o]) for o in s._outputs]


def _einsum(subscripts, *operands, name=None, out=None, optimize=False, **kwargs):
    """Symbolic ``mx.np.einsum`` (MXNet's ``_npi_einsum``)."""
    arrays = [_symbol(s, "einsum", "operands") for s in operands]
    return _make("_npi_einsum", arrays, {"subscripts": subscripts,
                                         "num_args": len(arrays),
                                         "optimize": int(bool(optimize))},
                 name, "einsum")


def _where(condition, x=None, y=None, name=None):
    """Symbolic ``mx.np.where(condition, x, y)``; ``x`` or ``y`` may be scalars (MXNet's
    ``_npi_where_lscalar``/``_rscalar``/``_scalar2``)."""
    c = _symbol(condition, "where", "condition")
    if x is None or y is None:
        raise DTypeError("mx.sym.np.where: give both x and y (the one-argument form "
                         "has a data-dependent shape)")
    if isinstance(x, Symbol) and isinstance(y, Symbol):
        return _make("_npi_where", [c, x, y], {}, name, "where")
    if isinstance(y, Symbol):
        return _make("_npi_where_lscalar", [c, y], {"scalar": float(x)}, name,
                     "where_lscalar")
    if isinstance(x, Symbol):
        return _make("_npi_where_rscalar", [c, x], {"scalar": float(y)}, name,
                     "where_rscalar")
    return _make("_npi_where_scalar2", [c], {"x": float(x), "y": float(y)}, name,
                 "where_scalar2")


def _linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0,
              ctx=None, name=None):
    """Symbolic ``mx.np.linspace`` (MXNet's ``_linspace``)."""
    if retstep:
        raise DTypeError("mx.sym.np.linspace: retstep=True is not supported for Symbols "
                         "(as in MXNet)")
    return _make("_linspace", [], {"start": start, "stop": stop, "num": num,
                                   "endpoint": endpoint,
                                   "dtype": dtype or "float32"}, name, "linspace")


def _full(shape, fill_value, dtype=None, order="C", ctx=None, name=None):
    """Symbolic ``mx.np.full`` (MXNet's ``_full``; a Symbol ``fill_value`` is broadcast to
    ``shape``, as MXNet)."""
    if isinstance(fill_value, Symbol):
        out = FUNCS["broadcast_to"](fill_value, (shape,) if isinstance(shape, int)
                                    else tuple(shape), name=name)
        return out if dtype is None else out.astype(dtype)
    if isinstance(fill_value, bool):
        fill_value, dtype = int(fill_value), dtype or "bool"
    return _make("_full", [], {"shape": (shape,) if isinstance(shape, int)
                               else tuple(shape), "value": fill_value,
                               "dtype": dtype or "float32"}, name, "full")


def _like(fill):
    def f(a, dtype=None, order="C", ctx=None, out=None, name=None, **kwargs):
        attrs = {"fill_value": fill}
        if dtype is not None:
            attrs["dtype"] = dtype
        return _make("_npi_full_like", [_symbol(a, "full_like", "a")], attrs, name,
                     "full_like")
    return f


def _norm(x, ord=None, axis=None, keepdims=False, name=None):
    """Symbolic ``mx.np.linalg.norm`` (MXNet's ``_npi_norm``, with the ``flag`` MXNet
    writes for each kind of norm)."""
    x = _symbol(x, "linalg.norm", "x")
    if isinstance(axis, int):
        axis = (axis,)
    if ord is None:
        attrs = {"ord": 2, "flag": -2 if axis is None else 1}
    elif ord in ("fro", "f"):
        attrs = {"ord": 2, "flag": 1}
    elif ord == "nuc":
        attrs = {"ord": 2, "flag": 2}
    elif axis is not None and len(axis) == 2 and ord in (2, -2):
        attrs = {"ord": ord, "flag": 0}
    else:
        attrs = {"ord": ord, "flag": -1}
    attrs.update(axis=axis, keepdims=keepdims)
    return _make("_npi_norm", [x], attrs, name, "norm")


def _pinv(a, rcond=1e-15, hermitian=False, name=None):
    """Symbolic ``mx.np.linalg.pinv``: ``rcond`` a number (MXNet's
    ``_npi_pinv_scalar_rcond``) or a Symbol (``_npi_pinv``, an input)."""
    a = _symbol(a, "linalg.pinv", "a")
    if isinstance(rcond, Symbol):
        return _make("_npi_pinv", [a, rcond], {"hermitian": hermitian}, name, "pinv")
    return _make("_npi_pinv_scalar_rcond", [a], {"rcond": float(rcond),
                                                 "hermitian": hermitian}, name, "pinv")


def _clip(a, a_min=None, a_max=None, out=None, name=None):
    """Symbolic ``mx.np.clip`` (MXNet's ``clip``; an omitted bound is infinite)."""
    if a_min is None and a_max is None:
        raise DTypeError("mx.sym.np.clip: give a_min or a_max (or both)")
    return _make("clip", [_symbol(a, "clip", "a")],
                 {"a_min": float("-inf") if a_min is None else a_min,
                  "a_max": float("inf") if a_max is None else a_max}, name, "clip")


def _contraction(kind: str) -> Callable:
    """``inner``/``outer``/``vdot`` as MXNet writes them: tensordots (of flattened
    arrays for ``outer`` and ``vdot``)."""
    def f(a, b, name=None):
        a, b = _symbol(a, kind, "a"), _symbol(b, kind, "b")
        if kind == "inner":
            return _make("_npi_tensordot", [a, b], {"a_axes_summed": (-1,),
                                                    "b_axes_summed": (-1,)},
                         name, "tensordot")
        flat = [_make("_np_reshape", [v], {"newshape": (-1,), "order": "C"}, None,
                      "reshape") for v in (a, b)]
        return _make("_npi_tensordot_int_axes", flat,
                     {"axes": 0 if kind == "outer" else 1}, name, "tensordot")
    f.__name__ = kind
    f.__doc__ = f"Symbolic ``mx.np.{kind}`` (MXNet's tensordot operators)."
    return f


def _split_along(axis: int, op: str = "_split_v2") -> Callable:
    """``hsplit``/``vsplit``/``dsplit`` as MXNet writes them (``_npi_hsplit`` splits a 1-D
    array along axis 0, as NumPy)."""
    def f(ary, indices_or_sections, name=None):
        return _split(ary, indices_or_sections, axis, name, op)
    return f


def _ravel(x, order="C", name=None):
    """Symbolic ``mx.np.ravel`` (MXNet's ``_npx_reshape`` to (-1,))."""
    return _make("_npx_reshape", [_symbol(x, "ravel", "x")], {"newshape": (-1,)},
                 name, "reshape")


def _append(arr, values, axis=None, name=None):
    """Symbolic ``mx.np.append`` (MXNet's ``_npi_concatenate``; ``axis=None`` flattens)."""
    return _make("_npi_concatenate", [_symbol(arr, "append", "arr"),
                                      _symbol(values, "append", "values")],
                 {"axis": axis, "num_args": 2}, name, "concatenate")


def _identity(n, dtype=None, ctx=None, name=None):
    """Symbolic ``mx.np.identity`` (MXNet's ``_npi_eye``)."""
    return _make("_npi_eye", [], {"N": n, "dtype": dtype or "float32"}, name, "eye")


def _lognormal(mean=0.0, sigma=1.0, size=None, dtype=None, ctx=None, name=None):
    """Symbolic ``mx.np.random.lognormal``: ``exp`` of a normal draw (as MXNet)."""
    draw = RANDOM_FUNCS["normal"](mean, sigma, size=size, dtype=dtype)
    return FUNCS["exp"](draw, name=name)


def _rand(*size, **kwargs):
    """Symbolic ``mx.np.random.rand``: uniform draws in [0, 1) of shape ``size``."""
    return RANDOM_FUNCS["uniform"](0.0, 1.0, size=size or None, **kwargs)


def _take(a, indices, axis=None, mode="raise", out=None, name=None):
    """Symbolic ``mx.np.take`` (MXNet's ``take``, after flattening for ``axis=None``)."""
    a = _symbol(a, "take", "a")
    if axis is None:
        a = _make("_npx_reshape", [a], {"newshape": (-1,)}, None, "reshape")
        axis = 0
    return _make("take", [a, _symbol(indices, "take", "indices")],
                 {"axis": axis, "mode": mode}, name, "take")


# npx functions that are MXNet's legacy operators under a NumPy-interface name
_NPX_LEGACY = {
    "activation": "Activation", "batch_norm": "BatchNorm", "layer_norm": "LayerNorm",
    "group_norm": "GroupNorm", "instance_norm": "InstanceNorm",
    "convolution": "Convolution", "deconvolution": "Deconvolution", "pooling": "Pooling",
    "fully_connected": "FullyConnected", "dropout": "Dropout", "embedding": "Embedding",
    "one_hot": "one_hot", "pick": "pick", "topk": "topk", "sequence_mask": "SequenceMask",
    "batch_dot": "batch_dot", "batch_flatten": "Flatten", "gamma": "gamma",
    "gammaln": "gammaln", "erf": "erf", "erfinv": "erfinv", "leaky_relu": "LeakyReLU",
    "softmax": "softmax", "log_softmax": "log_softmax", "smooth_l1": "smooth_l1",
    "shape_array": "shape_array", "reshape_like": "reshape_like", "gather_nd": "gather_nd",
    "arange_like": "_contrib_arange_like", "cast": "Cast", "slice": "slice", "rnn": "RNN",
    "roi_pooling": "ROIPooling", "multibox_prior": "_contrib_MultiBoxPrior",
    "multibox_target": "_contrib_MultiBoxTarget",
    "multibox_detection": "_contrib_MultiBoxDetection",
}


def _npx_legacy(fname: str, op: str) -> Callable:
    def f(*args, **kwargs):
        s = _ops.call(op, fname, args, kwargs)
        for node, _ in s._outputs:
            node.npface = True
        if len(s._outputs) > 1 and op in ("topk",):
            return [SYMBOL_FACES["np"]([o]) for o in s._outputs]
        return s.as_np_ndarray()
    f.__name__ = fname
    f.__doc__ = f"Symbolic ``mx.npx.{fname}`` (MXNet's ``{op}``)."
    return f


def _build():
    funcs: Dict[str, Callable] = {}
    npx: Dict[str, Callable] = {}
    for name, op in UNARY.items():
        funcs[name] = _unary_function(name, op)
    for name in BINARY:
        funcs[name] = _binary_function(name)
    for alias, name in aliased_binary().items():
        funcs[alias] = funcs[name]
    for name, (op, inputs, ns, renames) in FUNCTIONS.items():
        short = name.split(".")[-1]
        target = getattr(_npx if ns == "npx" else _mnp, short)
        f = _bound_function(short, op, inputs, target, renames)
        if ns == "npx":
            npx[short] = f
            funcs["npx." + short] = f
        else:
            funcs[name] = f
    for name, op in CREATION.items():
        funcs[name] = _creation_function(name, op, getattr(_mnp, name), {})
    for name, op in VARIADIC.items():
        funcs[name] = _variadic_function(name, op)
    funcs.update(split=_split, einsum=_einsum, where=_where, linspace=_linspace,
                 full=_full, zeros_like=_like(0), ones_like=_like(1), take=_take,
                 clip=_clip, inner=_contraction("inner"), outer=_contraction("outer"),
                 vdot=_contraction("vdot"))
    for name, op in _NPX_LEGACY.items():
        npx[name] = _npx_legacy(name, op)
    linalg = {}
    for name, (op, inputs) in LINALG.items():
        linalg[name] = _bound_function(name, op, inputs, getattr(_mnp.linalg, name), {})
    linalg.update(norm=_norm, pinv=_pinv)
    rand = {}
    for name, op in RANDOM.items():
        target = getattr(_mnp.random, name, None)
        if target is not None:
            rand[name] = _creation_function(name, op, target, {}, random=True)
    rand.update(lognormal=_lognormal, rand=_rand)
    for name, (op, param) in ONE_PARAMETER_DRAWS.items():
        rand[name] = _one_parameter_draw(name, op, param)
    flip = funcs["flip"]
    funcs.update(
        ravel=_ravel, append=_append, identity=_identity, row_stack=funcs["vstack"],
        fliplr=lambda m, name=None: flip(m, 1, name=name),
        flipud=lambda m, name=None: flip(m, 0, name=name),
        product=funcs["prod"], sometrue=funcs["any"], round_=funcs["around"],
        deg2rad=funcs["radians"], rad2deg=funcs["degrees"], empty_like=_like(0),
        array_split=_split, hsplit=_split_along(1, "_npi_hsplit"), vsplit=_split_along(0),
        dsplit=_split_along(2, "_npi_dsplit"))
    return funcs, npx, linalg, rand


FUNCS, NPX, LINALG_FUNCS, RANDOM_FUNCS = _build()

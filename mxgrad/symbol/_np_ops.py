"""MXNet's NumPy-interface operators (``_npi_*``, ``_np_*``, ``_npx_*``) in the Symbol
op table, each run by the ``mx.np`` / ``mx.npx`` function it stands for.

MXNet 1.9's ``mx.sym.np`` writes these names into ``*-symbol.json`` files (a NumPy-mode
block's ``export``); mxgrad writes and reads the same names and attributes. A node of one of
these operators sees its inputs through the ``mx.np`` face (a free view), so it computes
with NumPy's semantics (0-d results, promotion) exactly as the imperative ``mx.np`` call,
on the same ops and the same engine.

The tables below say, per MXNet operator, which ``mx.np``/``mx.npx`` function runs it and
which of its arguments are array inputs; the rest are the node's attributes, under the
function's own argument names (MXNet's, for the operators listed here).

Examples
--------
>>> from mxgrad.symbol._registry import lookup
>>> lookup('_npi_add').inputs, lookup('_np_sum').inputs
(('lhs', 'rhs'), ('a',))
"""
from __future__ import annotations

import inspect
from typing import Callable, Dict, Optional, Tuple

import numpy as np

from .._engine.ndarray import NDArray, as_face
from ..base import ShapeError
from .. import numpy as _mnp
from .. import numpy_extension as _npx
from ..numpy.multiarray import ndarray as _np_ndarray
from ..ops import _shape_rules as _sr
from ..ops._mxnet_op import mxnet_op
from ..ops.shape import reshaped_input
from ._registry import _TABLE, _KERNEL_ONLY, scalar_value

__all__ = ["UNARY", "BINARY", "FUNCTIONS", "ONE_PARAMETER_DRAWS", "np_face", "scalar_value"]

# attributes MXNet's NumPy operators carry that change nothing here
_IGNORED = frozenset({"ctx", "num_args"}) | _KERNEL_ONLY


def np_face(a):
    """``a`` seen through the ``mx.np`` face (None stays None)."""
    if a is None or type(a) is _np_ndarray:
        return a
    return as_face(a, _np_ndarray)


def _accepted(fn: Callable) -> Optional[frozenset]:
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):  # pragma: no cover - builtins
        return None
    if any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values()):
        return None
    return frozenset(p.name for p in sig.parameters.values()
                     if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY))


def _register(op: str, inputs, run: Callable, attrs, outputs=1, shape=None) -> None:
    """Declare the record of ``op`` (a legacy operator of the same name keeps its own)."""
    if op in _TABLE:
        return
    mxnet_op(op, inputs, run=run, outputs=outputs, shape=shape,
             attrs=None if attrs is None else frozenset(attrs) | _IGNORED)


def _keywords(kwargs: dict, known) -> dict:
    return {k: v for k, v in kwargs.items()
            if k not in _IGNORED and (known is None or k in known)}


# ------------------------------------------------------------------ the tables
# mx.np function -> MXNet operator, for one-array elementwise functions
UNARY: Dict[str, str] = {n: "_npi_" + n for n in (
    "exp", "expm1", "log", "log10", "log1p", "log2", "sqrt", "cbrt", "square", "negative",
    "reciprocal", "sin", "cos", "tan", "sinh", "cosh", "tanh", "arcsin", "arccos",
    "arctan", "arcsinh", "arccosh", "arctanh", "sign", "rint", "fix", "ceil", "floor",
    "trunc", "degrees", "radians", "logical_not", "isnan", "isinf", "isfinite",
    "isposinf", "isneginf")}
UNARY.update({"absolute": "_npi_absolute", "abs": "_npi_absolute", "fabs": "_npi_absolute",
              "bitwise_not": "_npi_bitwise_not", "invert": "_npi_bitwise_not"})

# mx.np function -> (operator on two arrays, with a scalar right, with a scalar left)
BINARY: Dict[str, Tuple[str, str, str]] = {
    "add": ("_npi_add", "_npi_add_scalar", "_npi_add_scalar"),
    "subtract": ("_npi_subtract", "_npi_subtract_scalar", "_npi_rsubtract_scalar"),
    "multiply": ("_npi_multiply", "_npi_multiply_scalar", "_npi_multiply_scalar"),
    "true_divide": ("_npi_true_divide", "_npi_true_divide_scalar",
                    "_npi_rtrue_divide_scalar"),
    "mod": ("_npi_mod", "_npi_mod_scalar", "_npi_rmod_scalar"),
    "power": ("_npi_power", "_npi_power_scalar", "_npi_rpower_scalar"),
    "arctan2": ("_npi_arctan2", "_npi_arctan2_scalar", "_npi_rarctan2_scalar"),
    "copysign": ("_npi_copysign", "_npi_copysign_scalar", "_npi_rcopysign_scalar"),
    "ldexp": ("_npi_ldexp", "_npi_ldexp_scalar", "_npi_rldexp_scalar"),
    "hypot": ("_npi_hypot", "_npi_hypot_scalar", "_npi_hypot_scalar"),
    "lcm": ("_npi_lcm", "_npi_lcm_scalar", "_npi_lcm_scalar"),
    "bitwise_and": ("_npi_bitwise_and", "_npi_bitwise_and_scalar", "_npi_bitwise_and_scalar"),
    "bitwise_or": ("_npi_bitwise_or", "_npi_bitwise_or_scalar", "_npi_bitwise_or_scalar"),
    "bitwise_xor": ("_npi_bitwise_xor", "_npi_bitwise_xor_scalar", "_npi_bitwise_xor_scalar"),
    "maximum": ("broadcast_maximum", "_maximum_scalar", "_maximum_scalar"),
    "minimum": ("broadcast_minimum", "_minimum_scalar", "_minimum_scalar"),
    "equal": ("_npi_equal", "_npi_equal_scalar", "_npi_equal_scalar"),
    "not_equal": ("_npi_not_equal", "_npi_not_equal_scalar", "_npi_not_equal_scalar"),
    "greater": ("_npi_greater", "_npi_greater_scalar", "_npi_less_scalar"),
    "greater_equal": ("_npi_greater_equal", "_npi_greater_equal_scalar",
                      "_npi_less_equal_scalar"),
    "less": ("_npi_less", "_npi_less_scalar", "_npi_greater_scalar"),
    "less_equal": ("_npi_less_equal", "_npi_less_equal_scalar",
                   "_npi_greater_equal_scalar"),
}
_ALIASED_BINARY = {"divide": "true_divide", "remainder": "mod"}

# mx.np / mx.npx function -> (MXNet operator, its array arguments, the namespace, renamed
# attributes); the function's other arguments are the node's attributes. An operator the
# legacy table already has (``expand_dims``, ``SwapAxis``) runs as that one, on mx.np
# inputs; its attributes are renamed as given (MXNet's mx.sym.np does the same).
FUNCTIONS: Dict[str, Tuple[str, Tuple[str, ...], str, Dict[str, str]]] = {
    "sum": ("_np_sum", ("a",), "np", {}),
    "mean": ("_npi_mean", ("a",), "np", {}),
    "max": ("_np_max", ("a",), "np", {}),
    "amax": ("_np_max", ("a",), "np", {}),
    "min": ("_np_min", ("a",), "np", {}),
    "amin": ("_np_min", ("a",), "np", {}),
    "prod": ("_np_prod", ("a",), "np", {}),
    "std": ("_npi_std", ("a",), "np", {}),
    "var": ("_npi_var", ("a",), "np", {}),
    "all": ("_np_all", ("a",), "np", {}),
    "any": ("_np_any", ("a",), "np", {}),
    "argmax": ("_npi_argmax", ("a",), "np", {}),
    "argmin": ("_npi_argmin", ("a",), "np", {}),
    "cumsum": ("_np_cumsum", ("a",), "np", {}),
    "reshape": ("_np_reshape", ("a",), "np", {}),
    "transpose": ("_np_transpose", ("a",), "np", {}),
    "squeeze": ("_np_squeeze", ("a",), "np", {}),
    "moveaxis": ("_np_moveaxis", ("a",), "np", {}),
    "broadcast_to": ("_npi_broadcast_to", ("array",), "np", {}),
    "copy": ("_np_copy", ("a",), "np", {}),
    "dot": ("_np_dot", ("a", "b"), "np", {}),
    "matmul": ("_npi_matmul", ("a", "b"), "np", {}),
    "where": ("_npi_where", ("condition", "x", "y"), "np", {}),
    "flip": ("_npi_flip", ("m",), "np", {}),
    "roll": ("_np_roll", ("a",), "np", {}),
    "rot90": ("_npi_rot90", ("m",), "np", {}),
    "tril": ("_npi_tril", ("m",), "np", {}),
    "diag": ("_np_diag", ("v",), "np", {}),
    "diagonal": ("_np_diagonal", ("a",), "np", {}),
    "trace": ("_np_trace", ("a",), "np", {}),
    "around": ("_npi_around", ("x",), "np", {}),
    "round": ("_npi_around", ("x",), "np", {}),
    "diff": ("_npi_diff", ("a",), "np", {}),
    "nan_to_num": ("_npi_nan_to_num", ("x",), "np", {}),
    "full_like": ("_npi_full_like", ("a",), "np", {}),
    "pad": ("_npi_pad", ("array",), "np", {}),
    "tensordot": ("_npi_tensordot_int_axes", ("a", "b"), "np", {}),
    # operators of the legacy table, as MXNet's mx.sym.np writes them
    "expand_dims": ("expand_dims", ("a",), "np", {}),
    "swapaxes": ("SwapAxis", ("a",), "np", {"axis1": "dim1", "axis2": "dim2"}),
    "clip": ("clip", ("a",), "np", {}),
    "tile": ("tile", ("A",), "np", {}),
    "repeat": ("repeat", ("a",), "np", {}),
    "sort": ("sort", ("a",), "np", {}),
    "argsort": ("argsort", ("a",), "np", {}),
    # npx: the NumPy interface's own operators
    "relu": ("_npx_relu", ("data",), "npx", {}),
    "sigmoid": ("_npx_sigmoid", ("data",), "npx", {}),
    "npx.reshape": ("_npx_reshape", ("a",), "npx", {}),
    "npx.nonzero": ("_npx_nonzero", ("a",), "npx", {}),
}
# mx.np.linalg function -> (MXNet operator, its array arguments)
LINALG: Dict[str, Tuple[str, Tuple[str, ...]]] = {
    "norm": ("_npi_norm", ("x",)), "svd": ("_npi_svd", ("a",)),
    "cholesky": ("_npi_cholesky", ("a",)), "solve": ("_npi_solve", ("a", "b")),
    "eigh": ("_npi_eigh", ("a",)), "eigvalsh": ("_npi_eigvalsh", ("a",)),
    "inv": ("_linalg_inverse", ("a",)), "det": ("_linalg_det", ("a",)),
    "slogdet": ("_linalg_slogdet", ("a",)), "pinv": ("_npi_pinv_scalar_rcond", ("a",)),
}
# mx.np creation functions (no array input) -> MXNet operator
CREATION: Dict[str, str] = {
    "zeros": "_npi_zeros", "ones": "_npi_ones", "arange": "_npi_arange", "eye": "_npi_eye",
}
# mx.np.random function -> MXNet operator (a draw per run)
RANDOM: Dict[str, str] = {
    "uniform": "_npi_uniform", "normal": "_npi_normal", "randint": "_npi_random_randint",
    "gamma": "_npi_gamma", "exponential": "_npi_exponential", "bernoulli": "_npi_bernoulli",
    "gumbel": "_npi_gumbel", "logistic": "_npi_logistic",
}
# mx.np.random draws of one parameter (mx.np's take ``*args``) -> (MXNet operator, the
# parameter's name)
ONE_PARAMETER_DRAWS: Dict[str, Tuple[str, str]] = {
    "weibull": ("_npi_weibull", "a"), "pareto": ("_npi_pareto", "a"),
    "power": ("_npi_powerd", "a"), "rayleigh": ("_npi_rayleigh", "scale"),
}
# variadic mx.np functions (a sequence of arrays first) -> MXNet operator
VARIADIC: Dict[str, str] = {
    "concatenate": "_npi_concatenate", "stack": "_npi_stack", "vstack": "_npi_vstack",
    "hstack": "_npi_hstack", "dstack": "_npi_dstack", "column_stack": "_npi_column_stack",
}


# ------------------------------------------------------------------ shape rules
# (the elementwise operators: one shape, or NumPy's broadcast; the operators without a
# rule run on zeros once their inputs are known)
def _np_contract(matmul: bool) -> _sr.Rule:
    """NumPy's ``dot`` / ``matmul`` shapes (MXNet's ``_np_dot`` / ``_npi_matmul``): the
    contracted sizes are made one (so a weight's unknown input size comes from the data),
    and the output follows."""
    def f(kw, ins, outs):
        a, b = ins
        if a is None or b is None:
            return list(ins), list(outs)
        if len(a) == 0 or len(b) == 0:
            if matmul:
                raise ShapeError("matmul: an input is 0-d")
            return list(ins), [_sr.merge(outs[0], b if len(a) == 0 else a)]
        if len(b) == 1:
            k = _sr.dim(a[-1], b[0])
            a2, b2 = tuple(a[:-1]) + (k,), (k,)
            out = tuple(a[:-1])
        elif len(a) == 1 and matmul:
            k = _sr.dim(a[0], b[-2])
            a2, b2 = (k,), tuple(b[:-2]) + (k, b[-1])
            out = tuple(b[:-2]) + (b[-1],)
        else:
            k = _sr.dim(a[-1], b[-2])
            a2 = tuple(a[:-1]) + (k,)
            b2 = tuple(b[:-2]) + (k, b[-1])
            if matmul:
                lead = _sr.broadcast(tuple(a[:-2]), tuple(b[:-2])) or ()
                out = tuple(lead) + (a[-2], b[-1])
            else:
                out = tuple(a[:-1]) + tuple(b[:-2]) + (b[-1],)
        where = "matmul: " if matmul else "dot: "
        return [_sr.merge(a, a2, where), _sr.merge(b, b2, where)], \
            [_sr.merge(outs[0], out, where)]
    return f


def _np_reshape_shape(kw, ins, outs):
    """NumPy's reshape (one -1 inferred), forward and backward: an input with one unknown
    dimension gets it from a known output (an RNN layer's flattened first-layer weights)."""
    d, o = ins[0], outs[0]
    new = kw.get("newshape", ())
    new = (int(new),) if isinstance(new, (int, np.integer)) else tuple(int(v) for v in new)
    if _sr.known(d):
        total = int(np.prod(d, dtype=np.int64))
        rest = int(np.prod([v for v in new if v != -1], dtype=np.int64))
        if -1 in new and rest:
            new = tuple(total // rest if v == -1 else v for v in new)
        return [d], [_sr.merge(o, new)]
    if -1 not in new:
        o = _sr.merge(o, new)
    return [reshaped_input(d, o)], [o]


# the FUNCTIONS operators with a rule of their own
_FUNCTION_SHAPES: Dict[str, _sr.Rule] = {
    "_np_dot": _np_contract(False), "_npi_matmul": _np_contract(True),
    "_np_reshape": _np_reshape_shape, "_npx_relu": _sr.same, "_npx_sigmoid": _sr.same,
}


# ------------------------------------------------------------------ runners
def _unary_runner(fn):
    def run(inputs, kwargs):
        return fn(np_face(inputs[0]))
    return run


def _binary_runner(fn):
    def run(inputs, kwargs):
        return fn(np_face(inputs[0]), np_face(inputs[1]))
    return run


def _scalar_runner(fn, reverse: bool):
    def run(inputs, kwargs):
        s = scalar_value(kwargs)
        x = np_face(inputs[0])
        return fn(s, x) if reverse else fn(x, s)
    return run


def _function_runner(fn, known):
    def run(inputs, kwargs):
        return fn(*[np_face(a) for a in inputs], **_keywords(kwargs, known))
    return run


def _random_runner(fn, known):
    """A draw whose parameters given as arrays are the node's inputs, in the order of
    ``fn``'s arguments, their attributes None."""
    order = list(inspect.signature(fn).parameters)

    def run(inputs, kwargs):
        kw = _keywords(kwargs, known)
        arrays = iter(inputs)
        for p in order:
            if p in kw and kw[p] is None and p not in ("size", "dtype", "out"):
                kw[p] = np_face(next(arrays))
        return fn(**kw)
    return run


def _one_parameter_runner(fn, param: str):
    def run(inputs, kwargs):
        value = kwargs.get(param)
        value = np_face(inputs[0]) if value is None and inputs else (
            1.0 if value is None else value)
        return fn(value, size=kwargs.get("size"))
    return run


def _variadic_runner(fn, known):
    def run(inputs, kwargs):
        return fn([np_face(a) for a in inputs], **_keywords(kwargs, known))
    return run


def _creation_runner(fn, known):
    def run(inputs, kwargs):
        return fn(**_keywords(kwargs, known))
    return run


def _arg_reduce(fn):
    def run(inputs, kwargs):
        axis = kwargs.get("axis")
        r = fn(np_face(inputs[0]), axis)
        if kwargs.get("keepdims"):
            x = inputs[0]
            shape = [1] * x.ndim if axis is None else list(x.shape)
            if axis is not None:
                shape[axis] = 1
            r = r.reshape(tuple(shape))
        return r
    return run


def _full(inputs, kwargs):
    return _mnp.full(kwargs["shape"], kwargs.get("value", 0.0), dtype=kwargs.get("dtype"))


def _install() -> None:
    for name, op in UNARY.items():
        fn = getattr(_mnp, name)
        _register(op, ("x",), _unary_runner(fn), (), shape=_sr.same)
    for name, (op, sop, rop) in BINARY.items():
        fn = getattr(_mnp, name)
        _register(op, ("lhs", "rhs"), _binary_runner(fn), (), shape=_sr.broadcast_rule)
        _register(sop, ("data",), _scalar_runner(fn, False), ("scalar", "is_int"),
                  shape=_sr.same)
        if rop != sop:
            _register(rop, ("data",), _scalar_runner(fn, True), ("scalar", "is_int"),
                      shape=_sr.same)
    for name, (op, inputs, ns, _) in FUNCTIONS.items():
        if op in _TABLE:        # a legacy operator: runs as it is
            continue
        short = name.split(".")[-1]
        fn = getattr(_npx if ns == "npx" else _mnp, short)
        known = _accepted(fn)
        attrs = None if known is None else known - set(inputs) - {"out"}
        _register(op, inputs, _function_runner(fn, known), attrs,
                  shape=_FUNCTION_SHAPES.get(op))
    for name, op in CREATION.items():
        fn = getattr(_mnp, name)
        known = _accepted(fn)
        _register(op, (), _creation_runner(fn, known), known)
    for name, op in RANDOM.items():
        fn = getattr(_mnp.random, name, None)
        if fn is None:
            continue
        known = _accepted(fn)
        _register(op, None, _random_runner(fn, known), known)
    for name, (op, param) in ONE_PARAMETER_DRAWS.items():
        _register(op, None, _one_parameter_runner(getattr(_mnp.random, name), param),
                  (param, "size", "dtype"))
    for name, op in VARIADIC.items():
        fn = getattr(_mnp, name)
        known = _accepted(fn)
        _register(op, None, _variadic_runner(fn, known),
                  None if known is None else known - {"out"})
    _register("_npi_full", (), _full, ("shape", "dtype", "value"))
    for name in ("argmax", "argmin"):          # MXNet's carry keepdims, mx.np's do not
        mxnet_op("_npi_" + name, ("a",), run=_arg_reduce(getattr(_mnp, name)),
                 attrs=frozenset({"axis", "keepdims"}) | _IGNORED)
    outputs = {"svd": 3, "eigh": 2, "slogdet": 2}
    for name, (op, inputs) in LINALG.items():
        fn = getattr(_mnp.linalg, name)
        known = _accepted(fn)
        _register(op, inputs, _function_runner(fn, known),
                  None if known is None else known - set(inputs), outputs.get(name, 1))
    pinv = _mnp.linalg.pinv
    _register("_npi_pinv", ("A", "rcond"), lambda ins, kw: pinv(
        np_face(ins[0]), np_face(ins[1]), hermitian=bool(kw.get("hermitian", False))),
        ("hermitian",))
    tensordot = _mnp.tensordot
    _register("_npi_tensordot", ("a", "b"), lambda ins, kw: tensordot(
        np_face(ins[0]), np_face(ins[1]),
        axes=(tuple(kw["a_axes_summed"]), tuple(kw["b_axes_summed"]))),
        ("a_axes_summed", "b_axes_summed"))
    norm = _mnp.linalg.norm

    def run_norm(ins, kw):
        # MXNet's node carries a 'flag' saying which norm 'ord' stands for (-2, 1: none
        # given, or 'fro'; 2: 'nuc'; 0, -1: 'ord' itself)
        flag = kw.get("flag")
        order = None if flag in (-2, 1) else "nuc" if flag == 2 else kw.get("ord")
        return norm(np_face(ins[0]), order, kw.get("axis"), bool(kw.get("keepdims", False)))
    mxnet_op("_npi_norm", ("x",), run=run_norm,
             attrs=frozenset({"ord", "axis", "keepdims", "flag"}) | _IGNORED)
    where = _mnp.where
    _register("_npi_where", ("condition", "x", "y"),
              lambda ins, kw: where(*[np_face(a) for a in ins]), ())
    _register("_npi_where_lscalar", ("condition", "y"), lambda ins, kw: where(
        np_face(ins[0]), float(kw["scalar"]), np_face(ins[1])), ("scalar",))
    _register("_npi_where_rscalar", ("condition", "x"), lambda ins, kw: where(
        np_face(ins[0]), np_face(ins[1]), float(kw["scalar"])), ("scalar",))
    _register("_npi_where_scalar2", ("condition",), lambda ins, kw: where(
        np_face(ins[0]), float(kw["x"]), float(kw["y"])), ("x", "y"))
    fn = _mnp.einsum

    def einsum(inputs, kwargs):
        return fn(kwargs["subscripts"], *[np_face(a) for a in inputs])
    _register("_npi_einsum", None, einsum, ("subscripts", "optimize"))


_install()


def _reshape_runner(fn):
    def run(inputs, kwargs):
        kw = _keywords(kwargs, None)
        shape = kw.pop("newshape", None)
        if isinstance(shape, int):          # MXNet writes newshape=-1 for (-1,)
            shape = (shape,)
        return fn(np_face(inputs[0]), shape, **kw)
    return run


def _split_runner(kind: str):
    split = _mnp.split

    def run(inputs, kwargs):
        x = np_face(inputs[0])
        axis = int(kwargs.get("axis", 0))
        if kind == "hsplit" and x.ndim == 1:
            axis = 0
        sections = int(kwargs.get("sections", 0) or 0)
        where = sections if sections > 0 else list(tuple(kwargs.get("indices", ()))[1:])
        return tuple(split(x, where, axis=axis))
    return run


def _split_count(kwargs) -> int:
    return int(kwargs.get("sections", 0) or 0) or len(tuple(kwargs.get("indices", ())))


def _install_numpy_semantics() -> None:
    """Operators whose MXNet name or NumPy-mode semantics need their own runner."""
    _TABLE["_np_reshape"].run = _reshape_runner(_mnp.reshape)
    _TABLE["_npx_reshape"].run = _reshape_runner(_npx.reshape)
    for kind in ("hsplit", "dsplit"):
        _register("_npi_" + kind, ("data",), _split_runner(kind),
                  ("indices", "axis", "squeeze_axis", "sections"), outputs=_split_count)
    # legacy operators whose NumPy-mode results differ (0-d results, uneven sections)
    for op, fn in (("_linalg_det", _mnp.linalg.det), ("_linalg_inverse", _mnp.linalg.inv),
                   ("_linalg_slogdet", _mnp.linalg.slogdet)):
        _TABLE[op].np_run = (lambda f: lambda ins, kw: f(np_face(ins[0])))(fn)
    array_split = _mnp.array_split

    def split_v2(ins, kw):
        sections = int(kw.get("sections", 0) or 0)
        where = sections if sections > 0 else list(tuple(kw.get("indices", ()))[1:])
        parts = array_split(np_face(ins[0]), where, axis=int(kw.get("axis", 0)))
        if kw.get("squeeze_axis"):
            parts = [_mnp.squeeze(p, axis=int(kw.get("axis", 0))) for p in parts]
        return tuple(parts)
    _TABLE["_split_v2"].np_run = split_v2
    # a graph's node makes a new value (MXNet's in-place writes are a memory plan): the
    # input of nan_to_num(copy=False) stays as it is, and its gradient sees the NaNs
    nan_to_num = _mnp.nan_to_num
    _TABLE["_npi_nan_to_num"].run = lambda ins, kw: nan_to_num(
        np_face(ins[0]), **{**_keywords(kw, None), "copy": True})
    take = _mnp.take
    _TABLE["take"].np_run = lambda ins, kw: take(np_face(ins[0]), np_face(ins[1]),
                                                 axis=kw.get("axis", 0),
                                                 mode=kw.get("mode", "clip"))


_install_numpy_semantics()


def aliased_binary() -> Dict[str, str]:
    """mx.np's other names of binary functions (``divide`` -> ``true_divide``)."""
    return dict(_ALIASED_BINARY)


def is_np_array_input(a) -> bool:
    """Whether ``a`` is an array of the ``mx.np`` face."""
    return isinstance(a, NDArray) and type(a) is _np_ndarray

"""The table of MXNet operators a Symbol graph may use, and how mxgrad runs each one.

One entry per MXNet operator (its canonical name, as MXNet's JSON writes it): the names
of its array inputs, which inputs are auxiliary states (mutated by the op, like
BatchNorm's running statistics), how many outputs it has (and how many are visible),
which inputs are learnable parameters (created as variables when a symbolic call leaves
them out) and the function that runs it on NDArrays. Every op runs through ``mx.nd``, so a
graph interpreted from this table is recorded by autograd like any imperative code.

Examples
--------
>>> from mxgrad.symbol._registry import lookup
>>> spec = lookup('_Plus')
>>> spec.name, spec.inputs
('elemwise_add', ('lhs', 'rhs'))
>>> lookup('BatchNorm').aux
(3, 4)
"""
from __future__ import annotations

import ast
import inspect
from typing import Any, Callable, Dict, Optional, Tuple

from .. import ndarray as nd
from ..base import MXNetError
from ..ops._mxnet_op import ALIASES, RECORDS, MXNetOp, mxnet_op
from ..ops._mxnet_op import lookup as _lookup
from ..ops.output import LABEL_OPS  # noqa: F401  (label inputs: never parameters to load)

__all__ = ["OpSpec", "lookup", "parse_attrs", "supported_ops", "UnknownOpError"]


class UnknownOpError(MXNetError, NotImplementedError):
    """A Symbol graph uses an operator (or attribute) mxgrad cannot run."""


OpSpec = MXNetOp          # one record per operator (ops/_mxnet_op.py); the old name stays
_TABLE: Dict[str, OpSpec] = RECORDS
_ALIASES: Dict[str, str] = ALIASES

# attributes that only tune MXNet's kernels (no effect on results)
_KERNEL_ONLY = frozenset({"cudnn_off", "cudnn_tune", "workspace", "name", "ctx",
                          "min_calib_range", "max_calib_range"})


def _nd_runner(fn: Callable) -> Callable:
    def run(inputs, kwargs):
        return fn(*inputs, **kwargs)
    return run


def _attr_names(fn: Callable) -> Optional[frozenset]:
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):  # pragma: no cover - builtins
        return None
    names = [p.name for p in sig.parameters.values()
             if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    return frozenset(names) | _KERNEL_ONLY


def _resolve(rec: MXNetOp) -> MXNetOp:
    """Fill in what a record leaves to the registry: the ``mx.nd`` function that runs it
    (with the namespace's argument guard) and, for ``attrs="auto"``, its keyword names."""
    fn: Any = nd
    for part in rec.nd_name.split("."):
        fn = getattr(fn, part, None)
    if rec.run is None:
        if fn is None:  # pragma: no cover - table/namespace mismatch
            raise RuntimeError(f"symbol op table: mx.nd has no {rec.nd_name}")
        rec.run = _nd_runner(fn)
    if isinstance(rec.attrs, str):          # "auto"
        rec.attrs = _attr_names(fn) if fn is not None else None
    elif rec.attrs is not None:
        rec.attrs = frozenset(rec.attrs) | _KERNEL_ONLY
    return rec


def _op(name: str, inputs=("data",), **fields) -> None:
    _resolve(mxnet_op(name, inputs, **fields))


for _rec in list(RECORDS.values()):       # the records the op families declare
    _resolve(_rec)


_SPECIALIZERS: Dict[str, Callable[[dict], OpSpec]] = {}


def register_specializer(op: str, fn: Callable[[dict], OpSpec]) -> None:
    """Let ``op``'s nodes get their own spec from their attributes (``Custom``: the inputs
    and outputs its ``op_type`` lists)."""
    _SPECIALIZERS[op] = fn


def specialize(spec: OpSpec, kwargs: dict) -> OpSpec:
    """The spec of one node of ``spec``'s operator with parsed attributes ``kwargs``."""
    fn = _SPECIALIZERS.get(spec.name)
    return fn(kwargs) if fn is not None else spec


def lookup(op: str) -> Optional[OpSpec]:
    """The record of ``op`` (canonical name or alias), or ``None``."""
    return _lookup(op)


def supported_ops() -> Tuple[str, ...]:
    """Canonical names of all operators a Symbol graph may use, sorted.

    Examples
    --------
    >>> 'Convolution' in supported_ops()
    True
    """
    return tuple(sorted(_TABLE))


# ------------------------------------------------------------------ attribute parsing
def _parse_value(text: str):
    s = text.strip()
    if s in ("True", "true"):
        return True
    if s in ("False", "false"):
        return False
    if s == "None":
        return None
    if s[:1] in "([":
        try:
            v = ast.literal_eval(s)   # literals only: never executes code
        except (ValueError, SyntaxError):
            return text
        return tuple(v) if isinstance(v, list) else v
    try:
        return int(s)
    except ValueError:
        pass
    try:
        return float(s)
    except ValueError:
        return text


def parse_attrs(spec: OpSpec, attrs: Dict[str, str], node_name: str) -> dict:
    """MXNet's string attributes as Python keyword arguments for ``spec.run``.

    Attributes starting with ``__`` (variable hints such as ``__shape__``) and kernel
    tuning knobs are dropped; an attribute the op does not understand is an error
    naming the node.

    Examples
    --------
    >>> parse_attrs(lookup('Convolution'), {'kernel': '(3, 3)', 'no_bias': 'True',
    ...             'num_filter': '4', 'workspace': '512'}, 'conv0')
    {'kernel': (3, 3), 'no_bias': True, 'num_filter': 4}
    """
    out = {}
    known = spec.attrs
    for k, v in attrs.items():
        if k.startswith("__") or k in _KERNEL_ONLY:
            continue
        if known is not None and k not in known:
            raise UnknownOpError(
                f"node '{node_name}' (op {spec.name}) has attribute {k}={v!r}, which "
                f"mxgrad's {spec.name} does not support")
        out[k] = _parse_value(v) if isinstance(v, str) else v
    return out


# ------------------------------------------------------------------ the table
def scalar_value(kwargs: dict):
    """The scalar of a ``*_scalar`` node: an int when MXNet's ``is_int`` says the Python
    scalar was one (so integer arrays stay integer), else a float."""
    s = kwargs.get("scalar", 0.0)
    if kwargs.get("is_int") and float(s).is_integer():
        return int(float(s))
    return float(s)


def _scalar(fn):
    def run(inputs, kwargs):
        return fn(inputs[0], scalar_value(kwargs))
    return run


_SCALAR_OPS = {
    "_plus_scalar": (lambda x, s: x + s, ("_PlusScalar",)),
    "_minus_scalar": (lambda x, s: x - s, ("_MinusScalar",)),
    "_rminus_scalar": (lambda x, s: s - x, ("_RMinusScalar",)),
    "_mul_scalar": (lambda x, s: x * s, ("_MulScalar",)),
    "_div_scalar": (lambda x, s: x / s, ("_DivScalar",)),
    "_rdiv_scalar": (lambda x, s: s / x, ("_RDivScalar",)),
    "_power_scalar": (lambda x, s: x ** s, ("_PowerScalar",)),
    "_rpower_scalar": (lambda x, s: s ** x, ("_RPowerScalar",)),
    "_mod_scalar": (lambda x, s: x % s, ("_ModScalar",)),
    "_rmod_scalar": (lambda x, s: s % x, ("_RModScalar",)),
    "_maximum_scalar": (lambda x, s: nd.maximum(x, s), ("_MaximumScalar",)),
    "_minimum_scalar": (lambda x, s: nd.minimum(x, s), ("_MinimumScalar",)),
    "_hypot_scalar": (lambda x, s: nd.sqrt(x * x + s * s), ("_HypotScalar",)),
    "_equal_scalar": (lambda x, s: x == s, ("_EqualScalar",)),
    "_not_equal_scalar": (lambda x, s: x != s, ("_NotEqualScalar",)),
    "_greater_scalar": (lambda x, s: x > s, ("_GreaterScalar",)),
    "_greater_equal_scalar": (lambda x, s: x >= s, ("_GreaterEqualScalar",)),
    "_lesser_scalar": (lambda x, s: x < s, ("_LesserScalar",)),
    "_lesser_equal_scalar": (lambda x, s: x <= s, ("_LesserEqualScalar",)),
}
for _n, (_f, _al) in _SCALAR_OPS.items():
    _op(_n, run=_scalar(_f), aliases=_al, attrs=("scalar", "is_int"))

_BINARY = ("lhs", "rhs")
_op("elemwise_add", _BINARY, aliases=("_plus", "_Plus", "_add", "_grad_add"))
_op("elemwise_sub", _BINARY, aliases=("_minus", "_Minus", "_sub"))
_op("elemwise_mul", _BINARY, aliases=("_mul", "_Mul"))
_op("elemwise_div", _BINARY, aliases=("_div", "_Div"))
_op("_maximum", _BINARY, nd_name="maximum", aliases=("_Maximum",))
_op("_minimum", _BINARY, nd_name="minimum", aliases=("_Minimum",))
_op("_power", _BINARY, nd_name="power", aliases=("_Power",))
_op("_mod", _BINARY, nd_name="modulo", aliases=("_Mod",))
_op("_hypot", _BINARY, nd_name="hypot", aliases=("_Hypot",))
for _n, _nd in (("_equal", "equal"), ("_not_equal", "not_equal"), ("_greater", "greater"),
                ("_greater_equal", "greater_equal"), ("_lesser", "lesser"),
                ("_lesser_equal", "lesser_equal")):
    _op(_n, _BINARY, nd_name=_nd)
for _n in ("broadcast_add", "broadcast_sub", "broadcast_mul", "broadcast_div",
           "broadcast_maximum", "broadcast_minimum", "broadcast_power", "broadcast_mod",
           "broadcast_equal", "broadcast_not_equal", "broadcast_greater",
           "broadcast_greater_equal", "broadcast_lesser", "broadcast_lesser_equal",
           "broadcast_hypot", "broadcast_logical_and", "broadcast_logical_or",
           "broadcast_logical_xor"):
    _op(_n, _BINARY, aliases={"broadcast_add": ("broadcast_plus",),
                              "broadcast_sub": ("broadcast_minus",)}.get(_n, ()))
_op("where", ("condition", "x", "y"))
_op("take", ("a", "indices"))
_op("pick", ("data", "index"))
_op("gather_nd", ("data", "indices"))

for _n in ("relu", "sigmoid", "tanh", "exp", "log", "log2", "log10", "log1p", "expm1",
           "sqrt", "rsqrt", "cbrt", "rcbrt", "square", "abs", "negative", "reciprocal",
           "sign", "floor", "ceil", "round", "rint", "fix", "trunc", "sin", "cos", "tan",
           "arcsin", "arccos", "arctan", "sinh", "cosh", "arcsinh", "arccosh", "arctanh",
           "degrees", "radians", "erf", "erfinv", "gamma", "gammaln", "softsign",
           "logical_not", "zeros_like", "ones_like"):
    _op(_n)
_op("clip")


def _copy(inputs, kwargs):
    return inputs[0].copy()


_op("_copy", run=_copy, aliases=("identity",), attrs=())
_op("BlockGrad", aliases=("stop_gradient",))
_op("Cast", nd_name="cast", aliases=("cast",))
_op("khatri_rao", None)
_op("moments", outputs=2)
_op("cumsum", ("a",))
_op("diag")
_op("add_n", None, aliases=("ElementWiseSum",), attrs=("num_args",),
    run=lambda ins, kw: nd.add_n(*ins))

# creation (no inputs)
_op("_zeros", (), run=lambda ins, kw: nd.zeros(kw["shape"], dtype=kw.get("dtype", "float32")),
    attrs=("shape", "dtype"))
_op("_ones", (), run=lambda ins, kw: nd.ones(kw["shape"], dtype=kw.get("dtype", "float32")),
    attrs=("shape", "dtype"))
_op("_full", (), run=lambda ins, kw: nd.full(kw["shape"], kw["value"],
                                             dtype=kw.get("dtype", "float32")),
    attrs=("shape", "dtype", "value"))
_op("_arange", (), run=lambda ins, kw: nd.arange(
    kw.get("start", 0), kw.get("stop"), kw.get("step", 1.0), kw.get("repeat", 1),
    dtype=kw.get("dtype", "float32")),
    attrs=("start", "stop", "step", "repeat", "infer_range", "dtype"))

_op("one_hot", ("indices",))

# reductions
for _n in ("sum", "mean", "max", "min", "prod", "nansum", "nanprod", "norm", "argmax",
           "argmin"):
    _op(_n, aliases={"sum": ("sum_axis",), "max": ("max_axis",),
                     "min": ("min_axis",)}.get(_n, ()))
_op("argmax_channel")
# 'value' keeps the indices as a hidden second output
_op("topk", outputs=lambda kw: 2 if kw.get("ret_typ") in ("both", "value") else 1,
    visible=lambda kw: 2 if kw.get("ret_typ") == "both" else 1)
_op("sort", outputs=2, visible=1)      # hidden second output: the indices
_op("argsort")
_op("smooth_l1")


# ------------------------------------------------------------------ every other mx.nd op
_NAMESPACES = (("_contrib_", "contrib"), ("_linalg_", "linalg"), ("_image_", "image"))


def nd_function(op: str) -> Optional[Callable]:
    """The ``mx.nd`` function behind MXNet's operator ``op`` (``_contrib_box_nms`` ->
    ``mx.nd.contrib.box_nms``, ``_random_normal`` -> ``mx.nd.random_normal``,
    ``_sample_normal`` -> ``mx.nd.sample_normal``), or None."""
    for prefix, ns in _NAMESPACES:
        if op.startswith(prefix):
            return getattr(getattr(nd, ns), op[len(prefix):], None)
    if op.startswith(("_random_", "_sample_")):
        return getattr(nd, op[1:], None)
    if op.startswith("_"):
        return None
    return getattr(nd, op, None)


def _install_all() -> None:
    """A record for each of MXNet's other operators that has an ``mx.nd`` function: one
    output, no parameters (an operator with more declares its record beside its
    function)."""
    from ._mxnet_op_inputs import OP_INPUTS
    for op, inputs in OP_INPUTS.items():
        if op in _TABLE or op in _ALIASES:
            continue
        fn = nd_function(op)
        if fn is None or not callable(fn) or isinstance(fn, type):
            continue
        attrs = _attr_names(fn)
        if attrs is not None and inputs is None:
            attrs = attrs | {"num_args"}
        run = (lambda f: (lambda ins, kw: f(*ins, **{k: v for k, v in kw.items()
                                                      if k != "num_args"})))(fn) \
            if inputs is None else _nd_runner(fn)
        _TABLE[op] = OpSpec(op, inputs, run=run, attrs=attrs)


# sampling with scalar parameters (MXNet's _random_<dist>, _random_<dist>_like); the
# Symbol-parameter forms _sample_<dist> are the mx.nd sample_<dist> functions (below)
_RANDOM_PARAMS = {"uniform": ("low", "high"), "normal": ("loc", "scale"),
                  "gamma": ("alpha", "beta"), "exponential": ("lam",), "poisson": ("lam",),
                  "negative_binomial": ("k", "p"),
                  "generalized_negative_binomial": ("mu", "alpha"), "randint": ("low", "high")}


def _sampler(dist: str, like: bool):
    draw = getattr(nd.random, dist)

    def run(inputs, kwargs):
        kw = dict(kwargs)
        kw.pop("ctx", None)
        if dist == "exponential":           # MXNet's operator takes the rate
            kw["scale"] = 1.0 / float(kw.pop("lam", 1.0))
        if like:
            kw["shape"] = inputs[0].shape
            kw.setdefault("dtype", inputs[0].dtype)
        return draw(**kw)
    return run


for _d, _names in _RANDOM_PARAMS.items():
    _attrs = _names + ("shape", "dtype", "ctx")
    _op(f"_random_{_d}", (), run=_sampler(_d, False), attrs=_attrs,
        aliases=(f"random_{_d}",))
    if _d != "randint":
        _op(f"_random_{_d}_like", ("data",), run=_sampler(_d, True),
            attrs=_names + ("dtype",))
_op("shuffle", aliases=("_shuffle",))


def _histogram(inputs, kwargs):
    bins = inputs[1] if len(inputs) > 1 else int(kwargs.get("bin_cnt", 10))
    return nd.histogram(inputs[0], bins=bins, range=kwargs.get("range"))


def _multinomial(inputs, kwargs):
    """MXNet's Symbol always has two outputs, the samples and their log-probabilities
    (zeros unless ``get_prob``)."""
    out = nd.sample_multinomial(inputs[0], **kwargs)
    if kwargs.get("get_prob"):
        return tuple(out)
    return out, nd.zeros(out.shape, dtype=inputs[0].dtype)


_op("_sample_multinomial", ("data",), run=_multinomial, outputs=2,
    attrs=_attr_names(nd.sample_multinomial))
_op("_histogram", ("data", "bins"), run=_histogram, attrs=("bin_cnt", "range"), outputs=2)
_op("_eye", (), run=lambda ins, kw: nd.eye(int(kw["N"]), int(kw.get("M", 0)),
                                           int(kw.get("k", 0)), dtype=kw.get("dtype")),
    attrs=("N", "M", "k", "dtype", "ctx"))
_op("_linspace", (), run=lambda ins, kw: nd.linspace(
    kw["start"], kw["stop"], int(kw["num"]), endpoint=bool(kw.get("endpoint", True)),
    dtype=kw.get("dtype")), attrs=("start", "stop", "num", "endpoint", "dtype", "ctx",
                                   "step", "repeat", "infer_range"))
_install_all()

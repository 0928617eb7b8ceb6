"""The table of MXNet operators a Symbol graph may use: their records.

Each operator's record (``ops/_mxnet_op.py``: its inputs, parameters, aux states, outputs,
rules) is declared beside the ``mx.nd`` function that runs it; this module resolves each
record's run through ``mx.nd``'s guarded namespace (so a graph interpreted from the table
is recorded by autograd like any imperative code, with the same argument errors), makes
the records of MXNet's other operators from the input lists generated from MXNet
(``_mxnet_op_inputs.py``), makes MXNet's flat names aliases of their canonical operators,
and reads a loaded graph's string attributes (:func:`parse_attrs`).

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
from ..ops._mxnet_op import ALIASES, RECORDS, MXNetOp
from ..ops._mxnet_op import lookup as _lookup
from ..ops.elemwise import scalar_value  # noqa: F401  (its home; _np_ops imports it here)
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


for _rec in list(RECORDS.values()):       # the records the op families declare
    _resolve(_rec)


def specialize(spec: OpSpec, kwargs: dict) -> OpSpec:
    """The record of one node of ``spec``'s operator with attributes ``kwargs`` (its
    ``variant``'s, when the operator has variants)."""
    return spec.variant(kwargs) if spec.variant is not None else spec


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


def _flat_names_as_aliases() -> None:
    """MXNet's flat names of its ``_linalg_*``/``_sample_*`` operators (``linalg_gemm``,
    ``sample_normal``) are aliases there: a node made by either is written with the
    canonical name."""
    from ._mxnet_op_inputs import OP_INPUTS
    for op in OP_INPUTS:
        canon = "_" + op
        if op.startswith(("linalg_", "sample_")) and canon in _TABLE:
            _TABLE.pop(op, None)
            _ALIASES[op] = canon


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


_install_all()
_flat_names_as_aliases()

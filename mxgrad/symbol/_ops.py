"""Building operator nodes: the functions of ``mx.sym`` (``F`` while tracing).

``call(op, hint, args, kwargs)`` binds a call such as ``F.FullyConnected(x, w, b,
num_hidden=3, name='fwd')`` the way the matching ``mx.nd`` function would, puts Symbol
arguments in the op's input order and the rest in string attributes, creates missing
parameter inputs as variables ``<name>_<input>`` and names the node as MXNet does
(``prefix + name``, or ``prefix + hint + count``). While a block is traced on example
data, each node is also run on the example values (``Symbol.shape``).

Examples
--------
>>> import mxgrad as mx
>>> y = mx.sym.Convolution(mx.sym.var('x'), kernel=(3, 3), num_filter=2, no_bias=True,
...                        name='c')
>>> y.list_arguments(), y.attr('kernel')
(['x', 'c_weight'], '(3, 3)')
"""
from __future__ import annotations

import inspect
from typing import Optional, Type

from .. import autograd
from .. import ndarray as nd
from ..base import MXNetError, DTypeError
from ._registry import lookup, parse_attrs, specialize, UnknownOpError
from ..attribute import current_attrs, HIDDEN_KEYS, stored_key
from ._core import Symbol, _Node, _make_name, _attr_str, _run_node, var
from ._evaluate import _unknown_dims
from ._infer import param_examples

__all__ = ["make", "call", "function"]

_SIG_CACHE: dict = {}


def _signature(spec):
    sig = _SIG_CACHE.get(spec.name)
    if sig is None:
        from ._registry import nd_function
        fn = nd_function(spec.name)
        if fn is None:
            for alias in _aliases_of(spec.name):
                fn = getattr(nd, alias, None)
                if fn is not None:
                    break
        try:
            sig = inspect.signature(fn) if fn is not None else False
        except (TypeError, ValueError):  # pragma: no cover
            sig = False
        _SIG_CACHE[spec.name] = sig
    return sig


def _aliases_of(name):
    from ._registry import _ALIASES
    return [a for a, c in _ALIASES.items() if c == name]


def make(op: str, inputs, attrs: dict, name: Optional[str], hint: str,
         cls: Optional[Type[Symbol]] = None) -> Symbol:
    """A new node ``op`` on the Symbol ``inputs`` with Python-valued ``attrs``; a Symbol of
    class ``cls``, else of the class of the first NumPy-interface input (``_Symbol``: the
    node computes on ``mx.np`` arrays), else a ``Symbol``."""
    if cls is None:
        cls = next((type(s) for s in inputs if s._npface), Symbol)
    spec = lookup(op)
    if spec is None:
        raise UnknownOpError(f"mx.sym has no operator {op!r}")
    sattrs = {k: _attr_str(v) for k, v in attrs.items()}   # an explicit None is kept (MXNet)
    full = _make_name(name, hint)
    entries = []
    for s in inputs:
        if len(s._outputs) != 1:
            raise MXNetError(f"{op} ({full}): an input Symbol has {len(s._outputs)} "
                             f"outputs; select one with sym[i]")
        entries.append(s._outputs[0])
    kwargs = parse_attrs(spec, sattrs, full)
    spec = specialize(spec, kwargs)
    node = _Node(spec.name, full, sattrs, entries, spec, kwargs)
    node.npface = cls._npface
    if entries and entries[0][0].shadow is not None and spec.params:
        param_examples(node)
    if all(src.shadow is not None for src, _ in entries) and not _unknown_dims(node):
        with autograd.pause(train_mode=False):
            node.shadow = _run_node(node, [src.shadow[j] for src, j in entries])
    n = node.num_visible()
    if n == 1:
        return cls([(node, 0)])
    return cls([(node, i) for i in range(n)])


def call(op: str, hint: str, args: tuple, kwargs: dict) -> Symbol:
    """``mx.sym.<op>(*args, **kwargs)``: see the module docstring."""
    spec = lookup(op)
    if spec is None:
        raise UnknownOpError(f"mx.sym has no operator {op!r}")
    kwargs = dict(kwargs)
    name = kwargs.pop("name", None)
    attr = current_attrs(kwargs.pop("attr", None))     # mx.AttrScope's, then the call's
    for k in HIDDEN_KEYS:                               # lr_mult=... as a keyword
        if k in kwargs:
            attr[k] = kwargs.pop(k)
    attr = {stored_key(k): str(v) for k, v in attr.items()}
    kwargs.pop("out", None)
    base, spec = spec, specialize(spec, kwargs)     # a variant's inputs (bilinear UpSampling)
    if spec.inputs is None:       # variadic: Concat(*data, dim=1)
        data = list(args)
        if len(data) == 1 and isinstance(data[0], (list, tuple)):
            data = list(data[0])
        for s in data:
            if not isinstance(s, Symbol):
                raise DTypeError(f"mx.sym.{hint}: inputs must be Symbols, got "
                                 f"{type(s).__name__}")
        if "num_args" in (spec.attrs or ()) and spec.name != "add_n":
            kwargs.setdefault("num_args", len(data))
        elif spec.name == "add_n":
            kwargs["num_args"] = len(data)
        sym = make(op, data, kwargs, name, hint)
    else:
        bound = {}
        sig = _signature(spec) if spec is base else None    # a variant: its inputs' names
        if sig:
            params = [q.name for q in sig.parameters.values()
                      if q.kind is q.POSITIONAL_OR_KEYWORD]
            ren = {a: b for a, b in zip(params, spec.inputs) if a != b}
            if ren:     # mx.nd's names (a, b / x) -> MXNet's input names (lhs, rhs / data)
                inv = {b: a for a, b in ren.items()}
                kwargs = {inv.get(k, k): v for k, v in kwargs.items()}
            try:
                ba = sig.bind_partial(*args, **kwargs)
            except TypeError as err:
                raise DTypeError(f"mx.sym.{hint}: {err}") from err
            for k, v in ba.arguments.items():
                p = sig.parameters[k]
                if p.kind is p.VAR_KEYWORD:
                    bound.update(v)
                elif p.kind is p.VAR_POSITIONAL:
                    if v:
                        raise DTypeError(f"mx.sym.{hint}: too many positional arguments")
                else:
                    bound[ren.get(k, k)] = v
        else:
            names = list(spec.inputs)
            if len(args) > len(names):
                raise DTypeError(f"mx.sym.{hint}: too many positional arguments")
            bound.update(zip(names, args))
            bound.update(kwargs)
        inputs, attrs = {}, {}
        for k, v in bound.items():
            if isinstance(v, Symbol):
                if k not in spec.inputs:
                    raise DTypeError(f"mx.sym.{hint}: argument {k!r} cannot be a Symbol")
                inputs[k] = v
            elif k in spec.inputs:
                if v is not None:
                    raise DTypeError(f"mx.sym.{hint}: input {k!r} must be a Symbol, got "
                                     f"{type(v).__name__}")
            else:
                attrs[k] = v
        sym = _with_inputs(spec, op, hint, inputs, attrs, name, attr)
    if attr:
        for node, _ in sym._outputs:
            node.attrs.update({k: str(v) for k, v in attr.items()})
    return sym


def call_with_inputs(op: str, hint: str, names, inputs: dict, attrs: dict, name, attr):
    """A node ``op`` whose array inputs ``names`` are given by name in ``inputs`` (those
    left out become variables), with attributes ``attrs`` and ``attr`` (mx.sym.Custom)."""
    spec = lookup(op)
    attr = {stored_key(k): str(v) for k, v in current_attrs(attr).items()}
    sym = _with_inputs(_Names(spec, tuple(names)), op, hint, inputs, attrs, name, attr)
    if attr:
        for node, _ in sym._outputs:
            node.attrs.update(attr)
    return sym


class _Names:
    """A spec seen with other input names (a Custom op's own)."""

    def __init__(self, spec, inputs):
        self.name, self.inputs, self.params = spec.name, inputs, spec.params

    def takes_input(self, name: str, kwargs: dict) -> bool:
        """Every input the op's property lists."""
        return True


def _with_inputs(spec, op, hint, inputs, attrs, name, attr) -> Symbol:
    """The node ``op`` on ``inputs`` (by input name) in the order of ``spec.inputs``; a
    missing input is a new variable ``<name>_<input>`` carrying the node's attributes
    (MXNet's Compose), unless the op lacks that input with these attributes."""
    ordered = []
    full = None
    for k in spec.inputs:
        if k in inputs:
            ordered.append(inputs[k])
        elif spec.takes_input(k, attrs):
            if full is None:
                full = _make_name(name, hint)
            own = {a: _attr_str(v) for a, v in attrs.items()}
            own.update(attr)
            ordered.append(var(f"{full}_{k}", attr=own))
        # else the node has no such input (a GRU's state_cell): later ones follow
    if full is not None:      # the name already counted: use it as given
        return _make_with_full_name(op, ordered, attrs, full)
    return make(op, ordered, attrs, name, hint)


def _make_with_full_name(op, inputs, attrs, full):
    from .. import name as _name
    restore = _name._isolated()      # the full name as given, without a scope's prefix
    try:
        return make(op, inputs, attrs, full, op.lower())
    finally:
        restore()


def function(op: str, hint: str):
    """The ``mx.sym.<hint>`` function building ``op`` nodes."""
    def f(*args, **kwargs):
        return call(op, hint, args, kwargs)
    f.__name__ = hint
    f.__qualname__ = hint
    f.__doc__ = (f"Symbolic ``{op}``: the arguments of ``mx.nd.{hint}``, with Symbols for "
                 f"the array inputs, plus ``name=`` and ``attr=``.")
    return f


def namespace(prefix: str) -> dict:
    """``{function name: mx.sym function}`` for the registered operators named
    ``prefix + name`` (``_contrib_box_nms`` -> ``box_nms``): a namespace such as
    ``mx.sym.contrib``; unnamed nodes are called ``name`` + count, as in MXNet."""
    from ._registry import _TABLE, _ALIASES
    out = {}
    for op in list(_TABLE) + list(_ALIASES):
        if op.startswith(prefix):
            short = op[len(prefix):]
            out[short] = function(_ALIASES.get(op, op), short.lower())
    return out


def missing(namespace_name: str, name: str) -> AttributeError:
    """The error for ``mx.sym.<namespace>.<name>`` that mxgrad does not provide."""
    return AttributeError(
        f"mx.sym.{namespace_name} has no operator {name!r} in mxgrad (it has the "
        f"Symbol counterpart of every mx.nd.{namespace_name} function for dense data)")

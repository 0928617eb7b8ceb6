"""Applying an op: the one home of what happens when an op is called on arrays.

Op modules declare *what* an op computes (:func:`~mxgrad.ops._core.defop`: a NumPy
forward, gradient and tangent rules); this module is the only code that *applies* one:

1. run the NumPy forward on the inputs' data (a ``ValueError`` becomes a
   :class:`~mxgrad.base.ShapeError` naming the op and the shapes);
2. make the output arrays (:func:`new_array`; the fast paths below inline the same
   five slot writes);
3. decide whether to record: only when recording is on, the op is differentiable and
   some input is in a graph;
4. build the node through the engine (:mod:`mxgrad.autograd.nodes`: ``make_node``, the one
   keyword factory, and ``record``/``_record1``/``_record2``, imported into this module's
   namespace, where the fast paths look them up and plan capture swaps them);
5. forward the inputs' tangents (forward-mode AD) through the op's tangent rules.

Fitting a rule's gradient to its input (:func:`~mxgrad.ops._core.fit_gradient`) is the
op record's, in :mod:`~mxgrad.ops._core`, with the recorded reshape/broadcast/sum-to it
needs.

Every applier is *generated*: Python source assembled from one set of fragments (the
forward, the output array, the record decision, the node, the tangents: each written
once, in "the one template" below) and compiled once per variant, as
``symbol/_plan_codegen.py`` writes plan code. The generated functions inline the steps
(no helper call per op) and look the engine's record functions up in this module's
namespace at call time (plan capture swaps them here); per-op values are closure cells.

* :func:`apply` (alias ``call``): any number of inputs, ``None`` for an absent one;
* :func:`apply1` / :func:`apply2` (``call1``/``call2``): one or two inputs;
  :func:`scalar_call`: an array and a Python scalar;
* per op and face, from the op's record: :func:`unary_fast`, :func:`binary_fast` and
  :func:`operator` (``NDArray.__add__`` and friends), with the
  case of an array of their face written out and a face's :class:`FaceRules` applied
  inline. They are the per-op overhead of every ``nd.tanh(x)`` and ``x * 2`` in user
  code (an unrecorded tiny ``tanh`` costs ~0.84 us this way against ~1.2 us through
  ``apply1``).

"Will this record?" is asked in one place (``_decide``, inlined by every applier);
:func:`records` is that question for op modules that choose a path by it.

Called on NumPy arrays (as gradient rules are in an ordinary backward) every dispatcher
runs the forward directly: no wrapping, no graph.

Layering: this module imports the NDArray class and the engine (``autograd.scope``,
``autograd.graph``, ``autograd.forward_ad``), never an op module at import time; the
engine imports nothing from here.
"""
from __future__ import annotations

import linecache
import textwrap
from numbers import Number as _Number
from string import Template
from typing import Any, Callable, Dict, Optional, Sequence

import numpy as np

from ..base import DTypeError, ShapeError, UnknownArgumentError
from .._engine.ndarray import NDArray, wrap
from .._engine.scope import state
from .._engine.graph import _FREED, Node, _debug, check_finite, new_node
# the engine's record functions, bound here as module globals: the fast paths below look
# them up here, and symbol/plan.py swaps them here to capture op applications
from .._engine.nodes import _ALL, _from_freed, _record1, _record2, make_node, record
from .._engine import forward_ad as _fad

__all__ = ["new_array", "as_array", "make_node", "record", "apply", "apply1", "apply2",
           "call", "call1", "call2", "unary_fast", "binary_fast", "operator",
           "inplace_operator", "scalar_call", "inplace_apply", "write_out", "forward_tangents",
           "face_of", "FaceRules", "records", "generate"]

_RAW = (np.ndarray, np.generic)   # NumPy data in a raw backward (0-d ops give scalars)
_new = object.__new__
new_array = wrap  # the one constructor of an output array (no copy, not in any graph)


def as_array(x, op_name: str, arg: str = "data") -> NDArray:
    """Convert an op argument to an NDArray (NumPy arrays are wrapped, others refused)."""
    if isinstance(x, NDArray):
        return x
    if isinstance(x, np.ndarray):
        x = np.asarray(x)   # a subclass (asnumpy()'s HostArray) as a plain array
        return wrap(x if x.ndim else x.reshape(1))
    raise DTypeError(f"{op_name}: argument '{arg}' must be an NDArray, got "
                     f"{type(x).__name__}; wrap data with mx.nd.array(...) first")


def _shape_error(op, err, args):
    if isinstance(err, ShapeError):
        return err
    shapes = ", ".join(str(a.shape) for a in args if a is not None)
    return ShapeError(f"{op.name}: inputs of shapes {shapes} do not fit together ({err}). "
                      f"Check the shapes; binary ops broadcast NumPy-style")


# ------------------------------------------------------------------ the one template
# Every applier of this module (apply, apply1, apply2, scalar_call, and the per-op
# functions unary_fast, binary_fast and operator build) is Python source
# assembled from the fragments below and compiled once per variant (`generate`), the way
# symbol/_plan_codegen.py writes plan code. So the forward, the output array, the record
# decision, the node and the tangent hook are written once, here, and still run inline
# (no helper call per op). The generated functions' globals are this module's: the
# record functions (`record`, `_record1`, `_record2`) are looked up here at call time,
# where plan capture swaps them; everything per op (the op, its forward, the face...) is
# a closure cell.

_FORWARD = """\
try:
    data = $call
except ValueError as err:
    raise _shape_error($op, err, $args) from None
"""

# the output array: `wrap` inlined (five slot writes) where the data is known to be a
# plain ndarray, `wrap` itself (which converts NumPy scalars) where it may not be
_OUT_INLINE = """\
r = new($cls)
r._data = data
r._node = None
r._oidx = 0
r._vbox = None
r._tan = None
"""
_OUT_WRAP = "r = wrap(data, None, 0, $cls)\n"
_OUTS = "r = tuple(wrap(d, None, 0, $cls) for d in data)\n"

_FINISH = """\
if $decide:
    $record($op, $inputs, $recout, $attrs)
if $tans:
    forward_tangents($op, $args, $outs, $attrs)
return r
"""


def _decide(nodes: str, diff: str = "") -> str:
    """"Will this application be recorded?", the one question: some input is in a graph,
    the op is differentiable and recording is on (as source: every applier inlines it,
    and :func:`records` is compiled from it)."""
    return " and ".join(p for p in (nodes, diff, "st.recording") if p)


def _applying(names, call: str, *, op: str = "op", attrs: str = "None",
              diff: str = "differentiable", cls: str = "Array", fix: str = "",
              guard: bool = True, inline: bool = True, multi: bool = False) -> str:
    """The source of one op application on arrays: the forward (``call``; with ``guard``
    its ``ValueError`` becomes a ShapeError), the face's fixes of the result (``fix``),
    the output array(s) of class ``cls``, the record decision and node, the tangents,
    ``return r``. ``names`` are the input variables (one or two), or the name of a tuple
    of inputs (``None`` for an absent one); ``multi``: the forward gives a tuple."""
    if isinstance(names, str):
        args = inputs = names
        nodes, tans, record = f"_in_graph({names})", f"_has_tangent({names})", "record"
    else:
        args = f"({', '.join(names)},)"
        nodes = "(" + " or ".join(f"{n}._node is not None" for n in names) + ")"
        tans = " or ".join(f"{n}._tan is not None" for n in names)
        record, inputs = ("_record1", "_record2")[len(names) - 1], ", ".join(names)
    if multi:
        record, inputs = "record", args
    outs = "r" if multi else "(r,)"
    recout = outs if record == "record" else "r"
    src = Template(_FORWARD).substitute(call=call, op=op, args=args) if guard \
        else f"data = {call}\n"
    out = _OUTS if multi else _OUT_INLINE if inline else _OUT_WRAP
    return (src + fix + Template(out).substitute(cls=cls) + Template(_FINISH).substitute(
        decide=_decide(nodes, diff), record=record, op=op, inputs=inputs, recout=recout,
        attrs=attrs, tans=tans, args=args, outs=outs))


def _fixes(arr: bool = False, keep_int: bool = False) -> str:
    """A face's fixes of a forward's result ``data`` computed from ``d``: a NumPy scalar
    as a 0-d array (``arr``), an integer input's dtype kept (``keep_int``)."""
    src = "if type(data) is not ndarray:\n    data = asarray(data)\n" if arr else ""
    if keep_int:
        src += ('if data.dtype is not d.dtype and d.dtype.kind in "iu" and '
                'data.dtype != d.dtype:\n    data = data.astype(d.dtype)\n')
    return src


def _two_dtypes(a: str, b: str, promote: bool, op: str = "op") -> str:
    """Two arrays' data of different dtypes: promoted (a face's rules), or refused as
    MXNet 1.x's ``mx.nd`` does (except inside a backward, whose rules may mix them)."""
    if promote:
        return f"if {a}.dtype is not {b}.dtype and {a}.dtype != {b}.dtype:\n" \
               f"    {a}, {b} = promote({a}, {b})\n"
    return (f"if {a}.dtype is not {b}.dtype and {a}.dtype != {b}.dtype and not st.backward:\n"
            f"    raise mixed_dtypes({op}, {a}.dtype, {b}.dtype)\n")


_SCALAR = """\
d = $x._data
if type($s) is not float$keep:
    $s = float($s) if not isinstance($s, (int, bool, np.integer)) or d.dtype.kind == "f" \\
        else int($s)
"""
_TRUNCATE = """\
if type($s) is float and d.dtype.kind in "iu":   # MXNet: the float cast to the int first
    $s = _int_scalar($s)
"""


def _with_scalar_src(x: str, s: str, op: str, np_fn: Optional[str], diff: str,
                     arr: bool = False) -> str:
    """Applying an array-scalar op to the array ``x`` and the Python scalar ``s`` (the
    scalar is the attr ``scalar``: a float, or an int for an integer array; a float
    meeting an integer array is truncated first, as MXNet). Without ``np_fn`` the op's
    forward runs. With ``np_fn`` (the forward without its dtype cast) an int stays an int
    for a float array, and the result is cast to ``x``'s dtype here; a float meets an
    integer array only when the result's dtype differs, so that is where it is truncated
    (``x * 1.5`` on floats pays no test for it)."""
    src = Template(_SCALAR).substitute(x=x, s=s, keep=f' and (type({s}) is not int or '
                                       f'd.dtype.kind != "f")' if np_fn else "")
    truncate = Template(_TRUNCATE).substitute(s=s)
    attrs = f'{{"scalar": {s}}}'
    if np_fn is None:
        return src + truncate + _applying((x,), f"{op}.fwd(d, {s})", op=op, attrs=attrs,
                                          diff=diff, cls=f"type({x})", guard=False,
                                          inline=False)
    call = f"{np_fn}(d, {s})"
    fix = _fixes(arr=arr) + ("if data.dtype is not d.dtype and data.dtype != d.dtype:\n" +
                             textwrap.indent(truncate + f"    data = asarray({call})\n", "    ")
                             + "    data = data.astype(d.dtype)\n")
    return src + _applying((x,), call, op=op, attrs=attrs, diff=diff, fix=fix, guard=False)


_MAKERS: Dict[str, Callable] = {}   # source -> the compiled maker of its functions


def generate(body: str, result: str, name: str, **cells):
    """The factory of every generated function: compile ``body`` (function definitions
    at column 0, reading ``cells`` as closure variables and this module's globals
    otherwise) once per distinct source, and return ``result`` (a function, or a tuple
    of them) made with these ``cells``. ``name`` (the template's) labels the source in
    tracebacks; the source of all ops of one kind and face is the same, so it is compiled
    once for them all."""
    params = ", ".join(sorted(cells))
    src = f"def _make({params}):\n" + textwrap.indent(body, "    ") + f"    return {result}\n"
    make = _MAKERS.get(src)
    if make is None:
        # named after this file (debug mode's creation stacks skip mxgrad's own frames
        # by their file name); the source is kept for tracebacks
        filename = f"{__file__} <generated: {name} #{len(_MAKERS)}>"
        linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
        ns: Dict[str, Any] = {}
        exec(compile(src, filename, "exec"), globals(), ns)  # noqa: S102 - our fragments only
        make = _MAKERS[src] = ns["_make"]
    made = make(**cells)
    for fn in made if isinstance(made, tuple) else (made,):
        fn.__qualname__ = fn.__name__
    return made


def _in_graph(args) -> bool:
    for x in args:
        if isinstance(x, NDArray) and x._node is not None:
            return True
    return False


def _has_tangent(args) -> bool:
    for x in args:
        if x is not None and x._tan is not None:
            return True
    return False


def _cells(**extra):
    """The closure cells every generated applier may read (cheaper than globals)."""
    return dict(new=_new, st=state, ndarray=np.ndarray, asarray=np.asarray, **extra)


records: Callable[..., bool] = generate(
    f"def records(*arrays):\n    return {_decide('_in_graph(arrays)')}\n", "records",
    "records", **_cells())
records.__doc__ = """Will an op applied to ``arrays`` be recorded: is recording on and one of
    them (NDArrays; anything else is ignored) in a graph? The question every applier asks
    inline, for op modules that choose a path by it (a faster unrecorded one, a refusal).

    >>> import mxgrad as mx
    >>> x = mx.nd.ones((2,)); x.attach_grad()
    >>> with mx.autograd.record():
    ...     print(records(x), records(mx.nd.ones((2,))))
    True False
    >>> records(x)
    False
    """


# ---------------------------------------------------------------- general dispatch
_APPLY1 = """\
def apply1(op, x, attrs=None):
    if type(x) is np.ndarray or isinstance(x, np.generic):
        return op.fwd(x, **attrs) if attrs else op.fwd(x)
    face = type(x)
    if face is not NDArray and not isinstance(x, NDArray):
        x = as_array(x, op.name)
        face = NDArray
    if op.nout == 1:
$one
$many"""
_FWD1 = "op.fwd(x._data, **attrs) if attrs else op.fwd(x._data)"
apply1: Callable[..., Any] = generate(Template(_APPLY1).substitute(
    one=textwrap.indent(_applying(("x",), _FWD1, attrs="attrs", diff="op.grads is not None",
                                  cls="face", inline=False), " " * 8),
    many=textwrap.indent(_applying(("x",), _FWD1, attrs="attrs", diff="op.grads is not None",
                                   cls="face", multi=True), " " * 4)),
    "apply1", "apply1", **_cells())
apply1.__doc__ = """Apply a one-input op to ``x`` (NDArray: recorded if needed; NumPy: raw)."""

_APPLY2 = """\
def apply2(op, a, b, attrs=None):
    ta, tb = type(a), type(b)
    if (ta is np.ndarray or isinstance(a, np.generic)) and (
            tb is np.ndarray or isinstance(b, np.generic)):
        return op.fwd(a, b, **attrs) if attrs else op.fwd(a, b)
    if ta is not NDArray and not isinstance(a, NDArray):
        a = as_array(a, op.name, "lhs")
        ta = NDArray
    if tb is not NDArray and not isinstance(b, NDArray):
        b = as_array(b, op.name, "rhs")
        tb = NDArray
    face = ta if ta is tb or tb is NDArray else tb
$one"""
apply2: Callable[..., Any] = generate(Template(_APPLY2).substitute(one=textwrap.indent(
    _applying(("a", "b"), "op.fwd(a._data, b._data, **attrs) if attrs else "
              "op.fwd(a._data, b._data)", attrs="attrs", diff="op.grads is not None",
              cls="face", inline=False), " " * 4)), "apply2", "apply2", **_cells())
apply2.__doc__ = """Apply a two-input op (both arrays)."""

_APPLY = """\
def apply(op, args, attrs=None):
    raw = True
    for x in args:
        if x is not None and type(x) is not np.ndarray:
            raw = False
            break
    if raw:
        return op.fwd(*args, **attrs) if attrs else op.fwd(*args)
    args = tuple(None if x is None else (x if isinstance(x, NDArray) else as_array(x, op.name))
                 for x in args)
    face = face_of(args)
    datas = [None if x is None else x._data for x in args]
    if op.nout == 1:
$one
$many"""
_FWDN = "op.fwd(*datas, **attrs) if attrs else op.fwd(*datas)"
apply: Callable[..., Any] = generate(Template(_APPLY).substitute(
    one=textwrap.indent(_applying("args", _FWDN, attrs="attrs", diff="op.grads is not None",
                                  cls="face", inline=False), " " * 8),
    many=textwrap.indent(_applying("args", _FWDN, attrs="attrs", diff="op.grads is not None",
                                   cls="face", multi=True), " " * 4)),
    "apply", "apply", **_cells())
apply.__doc__ = """Apply an op to any number of array inputs (``None`` for an absent optional
    one)."""

call, call1, call2 = apply, apply1, apply2  # the names op modules import


def mixed_dtypes(op, a, b) -> DTypeError:
    """MXNet's refusal of ``mx.nd`` arithmetic between arrays of two dtypes."""
    return DTypeError(f"{op.name}: the inputs have dtypes {a} and {b}; mx.nd's operators "
                      f"take arrays of one dtype, as in MXNet 1.x (cast one, e.g. "
                      f"x.astype('{b}'), or use mx.np, which promotes)")


def face_of(args: Sequence) -> type:
    """The face (array class) of an op's outputs: that of its array inputs, the
    ``mx.np`` face winning over ``NDArray`` when both are given (the one rule; the fast
    paths below inline it for one or two inputs of one face)."""
    face = NDArray
    for x in args:
        if x is not None:
            t = type(x)
            if t is not NDArray and isinstance(x, NDArray):
                return t
    return face


def _int_scalar(s: float) -> float:
    """A float scalar meeting an integer array, as MXNet casts it to the array's dtype
    first (``int32_array * 2.5`` is ``int32_array * 2``): truncated toward zero, kept a
    float so that NumPy computes negative powers (``int32_array ** -1.5`` gives 0s)."""
    return float(int(s)) if s == s and s not in (np.inf, -np.inf) else s


def inplace_apply(target: NDArray, result: NDArray) -> NDArray:
    """Write ``result`` into ``target``'s buffer, as ``x += y`` does.

    Outside recording (or when nothing is in a graph) the data is copied and the
    version bumped; if the result is recorded, ``target`` takes its history."""
    target._check_writable()
    if result._data.shape != target._data.shape:
        raise ShapeError(f"in-place operation: result shape {result.shape} does not fit "
                         f"the target's shape {target.shape}")
    target._write(result._data)
    if result._node is not None:
        target._node, target._oidx = result._node, result._oidx
    return target


# ------------------------------------------------------------------ face rules
class FaceRules:
    """What a second array face (``mx.np``) changes in an op's results, applied by the
    fast-path factories below inline (no extra call per op):

    * ``array_results``: a NumPy scalar result (a ufunc on 0-d data) becomes a 0-d array;
    * ``keep_int``: a one-input op keeps an integer input's dtype (``sqrt`` of int32 is
      int32, as MXNet 1.9.1's ``mx.np``);
    * ``promote(a, b)``: the data of two arrays of different dtypes, cast to the dtype the
      face's binary operators compute in."""

    __slots__ = ("array_results", "keep_int", "promote")

    def __init__(self, promote, array_results: bool = True, keep_int: bool = True) -> None:
        self.promote = promote
        self.array_results = array_results
        self.keep_int = keep_int


# ------------------------------------------------------------------ fast dispatch
# Per-op functions with the case of an array of their face written out (the per-op
# overhead of every `nd.tanh(x)` and `x * 2` in user code: an unrecorded tiny `tanh`
# costs ~0.84 us this way against ~1.2 us through `apply1`); everything else falls back
# to the general appliers.
scalar_call: Callable[..., Any] = generate(
    "def scalar_call(op, x, s):\n" + textwrap.indent(
        _with_scalar_src("x", "s", "op", None, "op.grads is not None"), "    "),
    "scalar_call", "scalar_call", **_cells())
scalar_call.__doc__ = """Apply an array-scalar op (``x * 2`` and friends; the scalar is the
    attr ``scalar``: a float, or an int for an integer array; a float meeting an integer
    array is truncated first, as MXNet)."""

_UNARY = """\
def f(x, out=None, name=None):
    if out is not None:
        return write_out(out, f(x))
    if type(x) is Array:
$plain
    if type(x) is np.ndarray or isinstance(x, np.generic):  # a rule, raw backward
        d = x
        data = fwd(d)
$raw        return data
    return apply1(op, x) if fallback is None else fallback(x)
"""
_UNARY_RULES = """\
def g(x, out=None, name=None, **kwargs):
    if out is not None or kwargs:
        if keywords is not None:
            return keywords(g, x, out, kwargs)
        if kwargs:
            raise UnknownArgumentError(f"{g.__name__}() got unexpected keyword "
                                       f"arguments {sorted(kwargs)}")
        return write_out(out, g(x))
    if type(x) is Array:
        d = x._data
$fixed
    return f(x)
"""


def unary_fast(op, face=NDArray, rules: Optional[FaceRules] = None, fallback=None,
               keywords=None):
    """The function of a one-input op without attrs: ``f(x, out=None, name=None)``, with
    the case of an array of class ``face`` inlined.

    A second face (``mx.np``) passes its :class:`FaceRules` (applied inline to the
    forward's result), ``fallback(x)`` for inputs of another kind (Python numbers...) and
    ``keywords(fn, x, out, kwargs)``, the path of a call with ``out=`` or other keywords
    (NumPy's ufunc keywords); its function is ``g(x, out=None, name=None, **kwargs)``.
    The gradient and tangent rules are the op's own."""
    fix = "" if rules is None else _fixes(rules.array_results, rules.keep_int)
    body = Template(_UNARY).substitute(plain=textwrap.indent(
        _applying(("x",), "fwd(x._data)"), " " * 8), raw=textwrap.indent(fix, " " * 8))
    if rules is not None:
        body += Template(_UNARY_RULES).substitute(fixed=textwrap.indent(_applying(
            ("x",), "fwd(d)", fix=fix), " " * 8))
    fn = generate(body, "f" if rules is None else "g", "unary_fast", **_cells(
        op=op, Array=face, fwd=op.fwd, differentiable=op.grads is not None,
        fallback=fallback, keywords=keywords))
    fn.op = op
    return fn


_BINARY = """\
def f(lhs, rhs, out=None, name=None):
    if out is not None:
        return write_out(out, f(lhs, rhs))
    if type(lhs) is Array and type(rhs) is Array:
        ld, rd = lhs._data, rhs._data
$apply
    if isinstance(lhs, _RAW) and isinstance(rhs, _RAW):  # a rule, raw backward
        return fwd(lhs, rhs)
    if scalar_ops is not None:
        if isinstance(rhs, _Number) and isinstance(lhs, (NDArray, np.ndarray)):
            return _with_scalar(scalar_ops[0], lhs, rhs)
        if isinstance(lhs, _Number) and isinstance(rhs, (NDArray, np.ndarray)):
            return _with_scalar(scalar_ops[1], rhs, lhs)
    if py is not None and _is_scalar(lhs) and _is_scalar(rhs):
        return py(lhs, rhs)
    return apply2(op, lhs, rhs)
"""


def binary_fast(op, scalar_ops=None, py=None):
    """The function of a two-input op without attrs: ``f(lhs, rhs, out=None, name=None)``.

    ``scalar_ops`` = (op for ``array <op> s``, op for ``s <op> array``) lets a Python
    scalar stand on either side, as MXNet's ``nd.add``/``nd.maximum``/... accept; ``py``
    computes the op on two Python scalars (MXNet returns a Python number then)."""
    body = Template(_BINARY).substitute(apply=textwrap.indent(
        _two_dtypes("ld", "rd", False) + _applying(("lhs", "rhs"), "fwd(ld, rd)"), " " * 8))
    f = generate(body, "f", "binary_fast", **_cells(
        op=op, Array=NDArray, fwd=op.fwd, differentiable=op.grads is not None,
        scalar_ops=scalar_ops, py=py))
    f.op = op
    f.scalar_ops = scalar_ops
    return f


def _with_scalar(op, x, s):
    if isinstance(x, _RAW):
        return op.fwd(x, s)
    return scalar_call(op, x, s)


def _out_arg(out):
    if not isinstance(out, NDArray):
        raise DTypeError(f"out= must be an NDArray, got {type(out).__name__}")
    return out


def write_out(out, result: NDArray) -> NDArray:
    """Handle an op's ``out=`` argument: write ``result`` into the NDArray ``out``."""
    return inplace_apply(_out_arg(out), result)


def _is_scalar(x):
    return isinstance(x, _Number) and not isinstance(x, complex)


_OPERATOR = """\
def method(self, other):
    t = type(other)
    if t is Array:
        sd, od = self._data, other._data
$array
    if t is float or t is int or _is_scalar(other):
$scalar
    if isinstance(other, np.ndarray):   # also subclasses such as asnumpy()'s HostArray
        return array_fn(self, wrap(np.asarray(other).astype(self._data.dtype, copy=False),
                                   None, 0, Array))
    if isinstance(other, NDArray):      # another face
        return array_fn(self, other)
    return NotImplemented


def rmethod(self, other):
    t = type(other)
    if t is float or t is int or _is_scalar(other):
$rscalar
    if isinstance(other, np.ndarray):
        return array_fn(wrap(np.asarray(other).astype(self._data.dtype, copy=False),
                             None, 0, Array), self)
    return NotImplemented
"""


def operator(array_fn, scalar_op, rscalar_op=None, np_fn=None, rnp_fn=None, face=NDArray,
             rules: Optional[FaceRules] = None):
    """Build an operator method (``__add__``...) of the array class ``face``: array op
    array (the op of ``array_fn``, which broadcasts), array op scalar (``scalar_op``),
    array op NumPy array. With ``rscalar_op`` returns the pair (method, reflected method).

    ``x * y`` and ``x + 1.0`` are inlined: these methods are the per-op overhead of user
    code. ``rules`` (a second face's :class:`FaceRules`) are applied inline (promotion of
    two dtypes, 0-d results as arrays)."""
    arr = rules is not None and rules.array_results
    body = Template(_OPERATOR).substitute(
        array=textwrap.indent(_two_dtypes("sd", "od", rules is not None, "bop") + _applying(
            ("self", "other"), "bfwd(sd, od)", op="bop", diff="bdiff", fix=_fixes(arr)),
            " " * 8),
        scalar=textwrap.indent(_with_scalar_src(
            "self", "other", "sop", None if np_fn is None else "np_fn", "sdiff", arr), " " * 8),
        rscalar=textwrap.indent(_with_scalar_src(
            "self", "other", "rop", None if rnp_fn is None else "rnp_fn", "rdiff", arr),
            " " * 8))
    bop = array_fn.op
    rop = scalar_op if rscalar_op is None else rscalar_op
    method, rmethod = generate(body, "method, rmethod", "operator", **_cells(
        Array=face, array_fn=array_fn, bop=bop, bfwd=bop.fwd, bdiff=bop.grads is not None,
        sop=scalar_op, sdiff=scalar_op.grads is not None, np_fn=np_fn, rop=rop,
        rdiff=rop.grads is not None, rnp_fn=rnp_fn, promote=None if rules is None else
        rules.promote))
    return method if rscalar_op is None else (method, rmethod)


def inplace_operator(binop):
    """Build ``x op= y`` from the operator ``binop``: in place on the buffer, or a
    recorded op whose history ``x`` takes when a graph is involved."""
    def method(self, other):
        if records(self, other):
            self._check_writable()
            snapshot = wrap(self._data.copy())
            return inplace_apply(self, binop(snapshot, other))
        r = binop(self, other)
        if r is NotImplemented:
            return r
        if r._data.shape != self._data.shape:
            raise ShapeError(f"in-place operation: the result's shape {r.shape} does not fit "
                             f"the target's shape {self.shape}")
        self._write(r._data)
        return self
    return method


# ------------------------------------------------------------------------ tangents
def _strip_tangent(a):
    if a is None or a._tan is None:
        return a
    b = wrap(a._data, a._node, a._oidx, type(a))
    b._ver = a._ver
    return b


def forward_tangents(op, args, outs, attrs):
    """Propagate tangents (forward-mode AD) through one op application."""
    if op.jvps is None:
        if op.grads is None:  # not differentiable (comparisons, argmax): no tangent
            return
        raise _fad.tangent_rule_missing(op.name)
    clean = tuple(_strip_tangent(a) for a in args)
    outv = _strip_tangent(outs[0]) if len(outs) == 1 else tuple(_strip_tangent(o) for o in outs)
    total = None
    for i, a in enumerate(args):
        if a is None or a._tan is None:
            continue
        rule = op.jvps[i]
        if rule is None:
            continue
        t = rule(a._tan, outv, *clean, **attrs) if attrs else rule(a._tan, outv, *clean)
        if t is None:
            continue
        if total is None:
            total = t
        elif isinstance(total, tuple):
            total = tuple(x if y is None else (y if x is None else x + y)
                          for x, y in zip(total, t))
        else:
            total = total + t
    if total is None:
        return
    if not isinstance(total, tuple):
        total = (total,)
    for o, t in zip(outs, total):
        if t is None:
            continue
        if t.shape != o.shape:        # a tangent that broadcasts: the record fits it
            t = op.fit_tangent(t, o.shape)
        if t._data.dtype != o._data.dtype:
            t = t.astype(o._data.dtype)
        o._tan = t
        _fad.note_tangent(o)  # dropped when the dual level exits
        node = o._node
        if op.save_out and type(node) is Node and node.op is op:
            # a create_graph backward rebuilds this output from node.out: keep its tangent
            if node.outtans is None:
                node.outtans = [None] * len(outs)
                _fad.note_tangent(node, "outtans")
            node.outtans[o._oidx] = t

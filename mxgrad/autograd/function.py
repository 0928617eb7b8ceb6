"""Custom differentiable functions, in MXNet's, PyTorch's and R torch's styles.

All three styles are thin faces over one engine node: a call records a
:class:`~mxgrad.autograd.graph.Node` whose op runs the user's backward, so a custom
function is as much a citizen of the graph as a built-in op (``retain_graph``,
``create_graph``, ``grad_req``, hooks, threads and version checks work the same).

1. **MXNet style** -- subclass :class:`Function`, write ``forward(self, *inputs)`` and
   ``backward(self, *output_grads)``, call a new instance per call: ``y = MyOp()(x)``.
2. **PyTorch style** -- subclass :class:`Function` with ``@staticmethod forward(ctx, ...)``
   (or ``forward(...)`` plus ``setup_context(ctx, inputs, output)``) and
   ``@staticmethod backward(ctx, *grads)``, call ``MyOp.apply(x)``.
3. **R torch style** -- ``mx.autograd.function(forward=f, backward=b)`` builds a callable
   from two plain functions; ``b`` returns a dict of gradients keyed by input name.

The context object (``ctx``; in MXNet style the Function instance itself) is also the
face of the recorded node, as PyTorch's ``grad_fn`` is: ``ctx.name``,
``ctx.next_functions``, ``ctx.metadata``, ``ctx.register_hook``, ``ctx.register_prehook``.
``Function.grad_fn(y)`` returns it from an output ``y``.

Rules, in short:

* forward runs with recording off (training mode unchanged); outside ``record()`` nothing
  is recorded and the forward's output is returned as it is;
* backward returns one gradient per forward argument (``None`` for no gradient;
  non-array arguments must get ``None``; extra trailing ``None`` are accepted); a
  gradient whose shape the argument broadcasts to is summed down to it, a float gradient
  of another precision is cast;
* in an ordinary backward the user's backward runs with recording off; with
  ``create_graph=True`` it is recorded, so second derivatives pass through custom
  functions written with mxgrad ops (not through a :func:`once_differentiable` one);
* saved arrays are version-checked when backward reads them.

Examples
--------
>>> import mxgrad as mx
>>> class Exp(mx.autograd.Function):              # PyTorch style
...     @staticmethod
...     def forward(ctx, x):
...         y = mx.nd.exp(x)
...         ctx.save_for_backward(y)
...         return y
...     @staticmethod
...     def backward(ctx, dy):
...         y, = ctx.saved_tensors
...         return dy * y
>>> x = mx.nd.array([0., 1.]); x.attach_grad()
>>> with mx.autograd.record():
...     y = Exp.apply(x)
>>> y.backward(); x.grad
<BLANKLINE>
[1.       2.718282]
<NDArray 2 @cpu(0)>
"""
from __future__ import annotations

import functools
import inspect
import itertools
import weakref
from typing import Any, Callable, Optional, Tuple

import numpy as np

from ..base import DTypeError, GraphError, InPlaceError, MXNetError, ShapeError, StateError
from .._engine.ndarray import NDArray, wrap
from .._engine import forward_ad as _fwad
from .._engine.graph import Leaf, Node
from .._engine.scope import _Scope, state
from ..ops._core import fit_gradient
from .._engine.nodes import make_node

__all__ = ["Function", "function", "once_differentiable", "FunctionCtx", "AutogradContext",
           "CustomFunction"]

# phases of a context
_IDLE, _FWD, _DONE, _BWD, _JVP = 0, 1, 2, 3, 4


class _ReuseError(StateError, AssertionError):
    """An MXNet-style Function instance called twice (MXNet raises AssertionError)."""


class _Name(str):
    """The node's name: a string that can also be called, as PyTorch's ``name()``."""

    __slots__ = ()

    def __call__(self) -> str:
        return str(self)


class _Named(tuple):
    """A tuple whose items can also be read by name: ``t.x``, ``t['x']`` (and ``t[0]``).

    Used for ``ctx.needs_input_grad`` (one bool per forward argument, named after the
    forward's parameters) and ``ctx.saved_tensors`` (named for R-style keyword saves).
    """

    def __new__(cls, values=(), names=None):
        t = tuple.__new__(cls, values)
        t._names = tuple(names) if names is not None else (None,) * len(t)
        return t

    def _lookup(self, key):
        names = self._names
        for i, n in enumerate(names):
            if n == key:
                return tuple.__getitem__(self, i)
        raise KeyError(key)

    def __getitem__(self, key):
        if isinstance(key, str):
            try:
                return self._lookup(key)
            except KeyError:
                raise KeyError(f"no entry named {key!r}; the names are "
                               f"{[n for n in self._names if n is not None]}") from None
        return tuple.__getitem__(self, key)

    def __getattribute__(self, key):
        # a saved name wins over a tuple/dict method of the same name (R's
        # ``ctx$saved_variables$items`` for ``save_for_backward(items=...)``)
        if not key.startswith("_"):
            names = tuple.__getattribute__(self, "_names")
            if key in names:
                return tuple.__getattribute__(self, "_lookup")(key)
        return tuple.__getattribute__(self, key)

    def __getattr__(self, key):
        if key.startswith("__") or key == "_names":
            raise AttributeError(key)
        try:
            return self._lookup(key)
        except KeyError:
            raise AttributeError(f"no entry named {key!r}; the names are "
                                 f"{[n for n in self._names if n is not None]}") from None

    def keys(self):
        """The names of the named entries (so ``dict(t)`` works)."""
        return [n for n in self._names if n is not None]

    def items(self):
        """``(name, value)`` pairs of the named entries."""
        return [(n, v) for n, v in zip(self._names, self) if n is not None]

    def __reduce__(self):
        return (_Named, (tuple(self), self._names))


# ------------------------------------------------------------------------- hooks
_hook_ids = itertools.count()


class _Handle:
    """Returned by ``register_hook``/``register_prehook``; ``remove()`` unregisters."""

    __slots__ = ("_table", "_key")

    def __init__(self, table, key):
        self._table = table
        self._key = key

    def remove(self) -> None:
        self._table.pop(self._key, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()
        return False


class _Hooks:
    """The object the engine calls around a node's backward (``node.hooks``)."""

    __slots__ = ("pre", "post", "name")

    def __init__(self, name):
        self.pre = {}
        self.post = {}
        self.name = name

    def _check(self, res, n, what):
        res = tuple(res) if isinstance(res, (tuple, list)) else (res,)
        if len(res) != n:
            raise StateError(f"a {what} of Function '{self.name}' returned {len(res)} "
                             f"gradients but {n} were expected; return a tuple of the same "
                             f"length as its argument (None entries allowed) or None to keep "
                             f"them")
        for g in res:
            if g is not None and not isinstance(g, NDArray):
                raise DTypeError(f"a {what} of Function '{self.name}' returned a "
                                 f"{type(g).__name__}; gradients must be NDArrays or None")
        return res

    def run_pre(self, node, gouts):
        if not self.pre:
            return gouts
        cg = state.recording  # the engine records the backward exactly when create_graph
        gl = tuple(None if g is None else (g if cg else wrap(g)) for g in gouts)
        for fn in list(self.pre.values()):
            res = fn(gl)
            if res is not None:
                gl = self._check(res, len(gl), "prehook")
        return [None if g is None else (g if cg else g._data) for g in gl]

    def run_post(self, node, grads, gouts):
        if not self.post:
            return grads
        cg = state.recording
        gi = tuple(None if g is None else (g if cg else wrap(g)) for g in grads)
        go = tuple(None if g is None else (g if cg else wrap(g)) for g in gouts)
        for fn in list(self.post.values()):
            res = fn(gi, go)
            if res is not None:
                gi = self._check(res, len(gi), "hook")
        metas = node.metas
        res = [None if g is None else (g if cg else g._data) for g in gi]
        return [g if g is None or metas[i] is None else
                fit_gradient(g, metas[i], f"a hook of Function '{self.name}'", f"input {i}", cg)
                for i, g in enumerate(res)]


# ------------------------------------------------------------------------ context
class FunctionCtx:
    """The context of one custom-function call, and the face of its graph node.

    PyTorch-style ``forward``/``backward`` receive it as ``ctx``; R-style functions
    receive an :class:`AutogradContext`; an MXNet-style :class:`Function` instance is
    its own context. Any non-array attribute may be set on it in forward and read in
    backward.

    Examples
    --------
    >>> import mxgrad as mx
    >>> class Scale(mx.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, x, k):
    ...         ctx.k = k                          # any Python value
    ...         return x * k
    ...     @staticmethod
    ...     def backward(ctx, dy):
    ...         return dy * ctx.k, None            # no gradient for the number k
    >>> x = mx.nd.array([1., 2.]); x.attach_grad()
    >>> with mx.autograd.record():
    ...     y = Scale.apply(x, 3.0)
    >>> y.backward(); x.grad
    <BLANKLINE>
    [3. 3.]
    <NDArray 2 @cpu(0)>
    """

    # Class-level defaults: an MXNet-style subclass may skip super().__init__().
    _fn_phase = _IDLE
    _fn_name = None
    _fn_args = None          # the forward arguments, during forward only
    _fn_argnames = ()
    _fn_to_save = None       # what save_for_backward got (until forward is processed)
    _fn_save_names = None
    _fn_for_fwd = None       # what save_for_forward got
    _fn_packed = None        # saved values when no node was recorded
    _fn_dirty: Tuple[Any, ...] = ()
    _fn_nondiff: Tuple[Any, ...] = ()
    _fn_materialize = True
    _fn_needs = _Named()
    _fn_noderef = None
    _fn_hooks = None
    _fn_meta: Optional[dict] = None
    _fn_recording = False
    _fn_objects = False      # may save_for_backward keep non-array objects?

    # ------------------------------------------------------------ forward side
    def _in_forward(self, what):
        if self._fn_phase != _FWD:
            raise MXNetError(f"Function '{self.name}': {what} can only be called inside its "
                             f"forward (or setup_context), while it runs")

    def save_for_backward(self, *arrays: Any, **named: Any) -> None:
        """Save values for backward; read them back with :attr:`saved_tensors`.

        Arrays are checked when backward reads them: if one was changed in place since,
        reading raises :class:`~mxgrad.base.InPlaceError` naming the function and the
        value. PyTorch-style functions save NDArrays (or None); MXNet- and R-style ones
        may also save any Python object, and keyword arguments save values by name
        (``ctx.save_for_backward(result=y)``, read as ``ctx.saved_variables.result``).
        Only callable while forward runs; a second call replaces the first.
        """
        if self._fn_phase != _FWD and self._fn_objects and isinstance(self, Function):
            # MXNet style: MXNet's save_for_backward only stores the values, so it may be
            # called before the call or between forward and backward
            self._save_outside_forward(arrays, named)
            return
        self._in_forward("save_for_backward")
        vals = arrays + tuple(named.values())
        if not self._fn_objects:
            for i, v in enumerate(vals):
                if v is not None and not isinstance(v, NDArray):
                    raise DTypeError(f"save_for_backward of Function '{self.name}' can only "
                                     f"save NDArrays (or None), but value {i} is a "
                                     f"{type(v).__name__}; keep other values as ctx "
                                     f"attributes (ctx.k = k)")
        self._fn_to_save = vals
        self._fn_save_names = ((None,) * len(arrays) + tuple(named)) if named else None

    def _save_outside_forward(self, arrays, named) -> None:
        vals = arrays + tuple(named.values())
        names = ((None,) * len(arrays) + tuple(named)) if named else None
        if self._fn_phase == _IDLE:          # before the call: forward may add to them
            self._fn_presaved = (vals, names)
            self._fn_to_save, self._fn_save_names = vals, names   # readable now, as MXNet
            return
        self._fn_to_save, self._fn_save_names = vals, names
        entries = tuple(None if v is None else ("obj", v) for v in vals)
        node = self._fn_noderef() if self._fn_noderef is not None else None
        if node is not None:
            node.out = entries                # read back as they are (no version check)
        else:
            self._fn_packed = entries

    def save_for_forward(self, *arrays: NDArray) -> None:
        """Save arrays for :meth:`Function.jvp` (forward mode); read them there with
        :attr:`saved_tensors`."""
        self._in_forward("save_for_forward")
        for i, v in enumerate(arrays):
            if v is not None and not isinstance(v, NDArray):
                raise DTypeError(f"save_for_forward of Function '{self.name}' can only save "
                                 f"NDArrays (or None), but value {i} is a {type(v).__name__}")
        self._fn_for_fwd = arrays

    def mark_dirty(self, *arrays: NDArray) -> None:
        """Declare inputs that forward modified in place (and returns as outputs).

        The returned array takes the function's history and a new version, so a node
        that saved its old value raises at backward. A variable that needs a gradient
        cannot be modified in place while recording (as in PyTorch)."""
        self._in_forward("mark_dirty")
        args = self._fn_args or ()
        for a in arrays:
            pos = _index_of(a, args)
            if pos < 0:
                raise StateError(f"mark_dirty of Function '{self.name}' got a "
                                 f"{type(a).__name__} that is not an input of forward; only "
                                 f"inputs modified in place can be marked dirty")
            if self._fn_recording and type(a._node) is Leaf:
                raise InPlaceError(
                    f"Function '{self.name}': argument '{self._fn_argnames[pos]}' is a "
                    f"variable that needs a gradient (attach_grad) and cannot be modified in "
                    f"place while recording; modify a copy (x.copy()) instead")
        self._fn_dirty = self._fn_dirty + tuple(arrays)

    def mark_non_differentiable(self, *arrays: NDArray) -> None:
        """Declare outputs that are not differentiable (e.g. indices).

        They are not recorded; backward still receives a zero gradient of their shape
        (``None`` after ``set_materialize_grads(False)``). Checked against forward's
        outputs when forward returns."""
        self._in_forward("mark_non_differentiable")
        for a in arrays:
            if not isinstance(a, NDArray):
                raise StateError(f"mark_non_differentiable of Function '{self.name}' got a "
                                 f"{type(a).__name__}; pass output NDArrays of forward")
        self._fn_nondiff = self._fn_nondiff + tuple(arrays)

    def set_materialize_grads(self, value: bool) -> None:
        """Whether backward receives zeros (default) or ``None`` for outputs that got no
        gradient."""
        self._fn_materialize = bool(value)

    # ------------------------------------------------------------ backward side
    @property
    def materialize_grads(self) -> bool:
        """See :meth:`set_materialize_grads`."""
        return self._fn_materialize

    @property
    def needs_input_grad(self) -> tuple:
        """One bool per forward argument: does it need a gradient?

        True for an NDArray that is a variable (``attach_grad`` with grad_req 'write' or
        'add') or was computed from one while recording, as PyTorch's ``requires_grad``.
        A tuple, also readable by argument name (``ctx.needs_input_grad.x`` or
        ``ctx.needs_input_grad['x']``)."""
        return self._fn_needs

    @property
    def saved_tensors(self) -> tuple:
        """The values given to :meth:`save_for_backward` (a tuple, also readable by
        name for keyword saves), checked for in-place changes since they were saved.
        In ``jvp``, the values given to :meth:`save_for_forward`, if any."""
        return _read_saved(self)

    @saved_tensors.setter
    def saved_tensors(self, values):  # MXNet code may assign the attribute directly
        self._fn_to_save = tuple(values)
        self._fn_save_names = None
        self._fn_packed = None

    saved_variables = saved_tensors
    saved_variable = saved_tensors

    @property
    def dirty_tensors(self) -> tuple:
        """The arrays given to :meth:`mark_dirty`."""
        return _deref(self._fn_dirty)

    @property
    def non_differentiable(self) -> tuple:
        """The arrays given to :meth:`mark_non_differentiable`."""
        return _deref(self._fn_nondiff)

    # ------------------------------------------------------------- node face
    @property
    def name(self) -> str:
        """The function's name (a class name); also callable, as PyTorch's ``name()``."""
        n = self._fn_name
        return _Name(n if n is not None else type(self).__name__)

    @name.setter
    def name(self, value):
        self._fn_name = str(value)

    @property
    def metadata(self) -> dict:
        """A dict for any user data about this call (shared with its graph node)."""
        m = self._fn_meta
        if m is None:
            m = self._fn_meta = {}
        return m

    @metadata.setter
    def metadata(self, value):
        self._fn_meta = dict(value)

    def _node(self) -> Optional[Node]:
        ref = self._fn_noderef
        return None if ref is None else ref()

    @property
    def next_functions(self) -> tuple:
        """``((node, output_index) | (None, 0), ...)``, one per array input: where
        gradients go next (a :class:`~mxgrad.autograd.graph.Leaf` for a variable).
        Empty when the call was not recorded."""
        node = self._node()
        return () if node is None else node.next_functions

    @property
    def node(self) -> Optional[Node]:
        """The recorded graph node of this call (None if it was not recorded)."""
        return self._node()

    def _hooks(self) -> _Hooks:
        h = self._fn_hooks
        if h is None:
            h = self._fn_hooks = _Hooks(self.name)
        node = self._node()
        if node is not None:
            node.hooks = h
        return h

    def register_hook(self, fn: Callable) -> _Handle:
        """Register ``fn(grad_inputs, grad_outputs) -> new grad_inputs or None``, run
        after this call's backward (``grad_inputs`` has one entry per array input).
        Returns a handle whose ``remove()`` unregisters it."""
        table = self._hooks().post
        key = next(_hook_ids)
        table[key] = fn
        return _Handle(table, key)

    def register_prehook(self, fn: Callable) -> _Handle:
        """Register ``fn(grad_outputs) -> new grad_outputs or None``, run before this
        call's backward. Returns a handle whose ``remove()`` unregisters it."""
        table = self._hooks().pre
        key = next(_hook_ids)
        table[key] = fn
        return _Handle(table, key)


    def __repr__(self) -> str:
        node = self._node()
        state_ = "recorded" if node is not None else "not recorded"
        return f"<{type(self).__name__} of {self.name!s} ({state_})>"


class AutogradContext(FunctionCtx):
    """The ``ctx`` of R-style functions made by :func:`function`: saves any object,
    by name (``ctx.save_for_backward(result=y)``, ``ctx.saved_variables.result``)."""

    _fn_objects = True


def _deref(items) -> tuple:
    return tuple(a() if type(a) is weakref.ref else a for a in items)


def _index_of(a, seq) -> int:
    for i, b in enumerate(seq):
        if b is a:
            return i
    return -1


# ----------------------------------------------------------------- saved values
def _pack(ctx, flat, outs, outs_orig, dirty_pos):
    """Turn what save_for_backward got into entries that hold no reference cycle:
    an output is kept as (data, version box), an input as a snapshot of its history."""
    vals = ctx._fn_to_save
    if not vals:
        return ()
    entries = []
    for v in vals:
        if v is None:
            entries.append(None)
        elif isinstance(v, NDArray):
            pos = _index_of(v, flat)
            k = -1
            if pos < 0 or pos in dirty_pos:
                k = _index_of(v, outs_orig)
            if k >= 0:
                o = outs[k]
                entries.append(("out", o._data, k, o._ver, o._ver[0]))
            else:
                snap = wrap(v._data, v._node, v._oidx)
                snap._ver = v._ver
                entries.append(("in", snap, v._ver[0], pos))
        else:
            entries.append(("obj", v))
    return tuple(entries)


def _read_saved(ctx):
    phase = ctx._fn_phase
    names = ctx._fn_save_names
    if phase == _FWD:
        return _Named(ctx._fn_to_save or (), names)
    if phase == _JVP and ctx._fn_for_fwd is not None:
        return _Named(ctx._fn_for_fwd)
    node = None
    ref = ctx._fn_noderef
    if ref is not None:
        node = ref()
        if node is None:
            raise GraphError(f"the saved values of Function '{ctx.name}' are gone: its "
                             f"outputs (and so its graph) were released")
        if node.freed:
            raise GraphError(
                f"the saved values of Function '{ctx.name}' were freed by an earlier "
                f"backward. To differentiate the same graph twice, pass retain_graph=True "
                f"to the first backward (or record the forward pass again)")
        packed = node.out
    else:
        packed = ctx._fn_packed
        if packed is None:
            return _Named(ctx._fn_to_save or (), names)
    vals = []
    for i, e in enumerate(packed):
        if e is None:
            vals.append(None)
            continue
        kind = e[0]
        if kind == "obj":
            vals.append(e[1])
        elif kind == "in":
            snap, ver, pos = e[1], e[2], e[3]
            if snap._ver[0] != ver:
                raise _stale(ctx, i, names, f"argument '{ctx._fn_argnames[pos]}' of forward"
                             if pos >= 0 else "an array made in forward", snap.shape, ver,
                             snap._ver[0])
            vals.append(snap)
        else:
            data, k, box, ver = e[1], e[2], e[3], e[4]
            if box[0] != ver:
                raise _stale(ctx, i, names, f"output {k} of forward", data.shape, ver, box[0])
            a = wrap(data, node if node is not None and _output_recorded(node, k) else None, k)
            a._ver = box
            vals.append(a)
    return _Named(vals, names)


def _output_recorded(node, k) -> bool:
    return k not in node.op.nondiff


def _stale(ctx, i, names, what, shape, old, new):
    label = f"'{names[i]}'" if names is not None and names[i] is not None else str(i)
    return InPlaceError(
        f"Function '{ctx.name}': saved value {label} ({what}, shape {shape}) was modified "
        f"in place after it was saved for backward (version {old} -> {new}); its gradient "
        f"would be wrong. Write to a copy instead (x = x + 1 rather than x += 1) or "
        f"recompute the forward pass")


# ------------------------------------------------------------------ the node op
class _FnOp:
    """The engine-facing op of one custom-function call (``node.op``)."""

    __slots__ = ("name", "nout", "ctx", "spec", "arr_pos", "nargs", "nondiff")
    grads = ()

    def __init__(self, name, nout, ctx, spec, arr_pos, nargs, nondiff):
        self.name = name
        self.nout = nout
        self.ctx = ctx
        self.spec = spec
        self.arr_pos = arr_pos
        self.nargs = nargs
        self.nondiff = nondiff

    def __repr__(self) -> str:
        return f"<Function {self.name}>"

    def backward(self, node, gouts, needs, create_graph):
        ctx, spec, name = self.ctx, self.spec, self.name
        metas = node.outmetas
        mat = ctx._fn_materialize
        gl = []
        for k, g in enumerate(gouts):
            if g is None:
                if mat:
                    g = wrap(np.zeros(metas[k][0], metas[k][1]))
            elif not create_graph:
                g = wrap(g)
            gl.append(g)
        once = create_graph and spec.once
        ctx._fn_phase = _BWD
        try:
            if once:
                with _Scope(False, None):
                    raw = spec.call_backward(ctx, gl)
            else:
                raw = spec.call_backward(ctx, gl)
        finally:
            ctx._fn_phase = _DONE
        grads = _normalize_grads(raw, self.nargs, ctx._fn_argnames, name, spec.style,
                                 spec.names)
        argnames = ctx._fn_argnames
        res = []
        imetas = node.metas
        for j, i in enumerate(self.arr_pos):
            g = grads[i]
            if g is None or not needs[j]:
                res.append(None)
                continue
            res.append(fit_gradient(g, imetas[j], f"Function '{name}'",
                                    f"argument '{argnames[i]}'", True, float_only=True))
        for i in range(self.nargs):
            if grads[i] is not None and i not in self.arr_pos:
                raise DTypeError(
                    f"Function '{name}': backward returned a gradient for argument "
                    f"'{argnames[i]}', which is not an NDArray (so it has no gradient); "
                    f"return None for it")
        if once:
            res = [None if g is None else _guard_once(g, node, gl, name) for g in res]
        if not create_graph:
            res = [None if g is None else g._data for g in res]
        return res


def _normalize_grads(raw, nargs, argnames, name, style, all_names=()):
    if style == "r" and isinstance(raw, dict):
        out = [None] * nargs
        for key, g in raw.items():
            pos = _index_of_name(key, argnames)
            if pos < 0 and g is None and key in all_names:
                continue    # an argument left at its default (R torch's `bias = NULL`)
            if pos < 0:
                raise StateError(f"Function '{name}': backward returned a gradient for "
                                 f"{key!r}, which is not an argument of forward (arguments: "
                                 f"{list(argnames)})")
            out[pos] = g
        raw = out
    raw = _as_results(raw, name, "backward", "forward argument")
    n = len(raw)
    if n < nargs or any(g is not None for g in raw[nargs:]):
        raise StateError(f"Function '{name}': backward returned {n} gradient"
                         f"{'s' if n != 1 else ''} but forward took {nargs} argument"
                         f"{'s' if nargs != 1 else ''} {list(argnames)}; return one gradient "
                         f"per forward argument (None where there is none)")
    raw = raw[:nargs]
    for i, g in enumerate(raw):
        if g is not None and not isinstance(g, NDArray):
            raise DTypeError(f"Function '{name}': backward must return NDArrays (or None), "
                             f"but the gradient for argument '{argnames[i]}' is a "
                             f"{type(g).__name__}; wrap it with mx.nd.array(...) (MXNet "
                             f"and PyTorch refuse it too)")
    return raw


def _as_results(raw, name, rule, per):
    """What a backward or jvp returned, as a tuple (a single array or None: one entry)."""
    if raw is None or isinstance(raw, (NDArray, np.ndarray)):
        return (raw,)
    if isinstance(raw, (tuple, list)):
        return tuple(raw)
    raise DTypeError(f"Function '{name}': {rule} must return NDArrays (or None), one per "
                     f"{per}, got a {type(raw).__name__}")


def _index_of_name(key, names) -> int:
    for i, n in enumerate(names):
        if n == key:
            return i
    return -1


class _OnceOp:
    """Node op standing for a gradient computed by a once_differentiable backward."""

    __slots__ = ("name", "fname")
    nout = 1
    grads = ()

    def __init__(self, fname):
        self.fname = fname
        self.name = f"{fname}(once_differentiable)"

    def backward(self, node, gouts, needs, create_graph):
        raise GraphError(
            f"trying to differentiate twice through Function '{self.fname}', whose backward "
            f"is decorated with once_differentiable; remove the decorator and write its "
            f"backward with differentiable mxgrad ops to get higher-order gradients")


def _guard_once(g, node, gouts, fname):
    parents, metas = [], []
    for p, m in zip(node.parents, node.metas):
        if p is not None:
            parents.append(p)
            metas.append(m)
    for go in gouts:
        if go is not None and go._node is not None:
            parents.append((go._node, go._oidx))
            metas.append((go._data.shape, go._data.dtype))
    out = wrap(g._data)
    if parents:
        make_node(_OnceOp(fname), (out,), parents=tuple(parents), metas=tuple(metas),
                  saved=(), vers=())
    return out


# --------------------------------------------------------------------- running
class _Spec:
    """How to call one custom function's forward/backward/jvp (one per class)."""

    __slots__ = ("name", "style", "forward", "setup", "backward", "jvp", "once", "sig",
                 "names", "simple")

    def __init__(self, name, style, forward, setup, backward, jvp, once, sig):
        self.name = name
        self.style = style
        self.forward = forward
        self.setup = setup
        self.backward = backward
        self.jvp = jvp
        self.once = once
        self.sig = sig
        params = list(sig.parameters.values()) if sig is not None else []
        self.simple = sig is not None and all(
            p.kind == p.POSITIONAL_OR_KEYWORD and p.default is p.empty for p in params)
        self.names = tuple(p.name for p in params)

    def bind(self, args, kwargs):
        """Return (flat arguments, number positional, keyword names, argument names)."""
        if self.sig is None:
            if kwargs:
                raise TypeError(f"{self.name}: keyword arguments are not supported here")
            return tuple(args), len(args), (), tuple(f"input{i}" for i in range(len(args)))
        if self.simple and not kwargs and len(args) == len(self.names):
            return tuple(args), len(args), (), self.names
        try:
            bound = self.sig.bind(*args, **kwargs)
        except TypeError as err:
            raise TypeError(f"{self.name}.forward(): {err}") from None
        P = inspect.Parameter
        params = [p for p in self.sig.parameters.values() if p.kind != P.VAR_KEYWORD]
        given = bound.arguments
        # The forward arguments are the parameters up to the last one given (defaults
        # filled in before it), so apply(x) for forward(ctx, x, dim=0) has one argument as
        # in PyTorch; setup_context-style functions get every default, as in PyTorch.
        last = len(params) - 1
        if self.setup is None:
            while last >= 0 and params[last].name not in given:
                last -= 1
        bound.apply_defaults()
        vals = bound.arguments
        flat, names, kwkeys = [], [], []
        npos = 0
        for p in params[:last + 1]:
            val = vals[p.name]
            if p.kind == P.VAR_POSITIONAL:
                flat.extend(val)
                names.extend(f"{p.name}[{j}]" for j in range(len(val)))
            elif p.kind == P.KEYWORD_ONLY:
                flat.append(val)
                names.append(p.name)
                kwkeys.append(p.name)
                continue
            else:
                flat.append(val)
                names.append(p.name)
            npos = len(flat)
        for p in self.sig.parameters.values():
            if p.kind == P.VAR_KEYWORD:
                for k2, v2 in vals.get(p.name, {}).items():
                    flat.append(v2)
                    names.append(k2)
                    kwkeys.append(k2)
        return tuple(flat), npos, tuple(kwkeys), tuple(names)

    def call_forward(self, ctx, flat, npos, kwkeys):
        args = flat[:npos]
        kw = dict(zip(kwkeys, flat[npos:])) if kwkeys else {}
        style = self.style
        if style == "mxnet":
            return ctx.forward(*args, **kw)
        if self.setup is not None:
            out = self.forward(*args, **kw)
            self.setup(ctx, tuple(flat), out)
            return out
        return self.forward(ctx, *args, **kw)

    def call_backward(self, ctx, grads):
        return self.backward(ctx, *grads)


def _signature(fn, skip_first):
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    params = list(sig.parameters.values())
    if skip_first and params and params[0].kind in (inspect.Parameter.POSITIONAL_ONLY,
                                                    inspect.Parameter.POSITIONAL_OR_KEYWORD):
        params = params[1:]
    return sig.replace(parameters=params)


def _describe(out):
    if isinstance(out, (tuple, list)):
        if not out:
            return f"an empty {type(out).__name__}"
        for k, o in enumerate(out):
            if not isinstance(o, NDArray):
                return f"a {type(out).__name__} whose item {k} is a {type(o).__name__}"
    return f"a {type(out).__name__}"


def _run(spec, ctx, flat, npos, kwkeys, names):
    """Run one call: forward with recording off, then record the node.

    Phases: scan the inputs (which are arrays, in a graph, carry tangents), decide
    recording, run forward on the primal values, check its outputs, and, only when
    recording or forwarding tangents: separate outputs that alias inputs, pack the saved
    values, run jvp, build the node."""
    name = spec.name
    arr_pos, vers0, has_tan, any_node = _scan_inputs(flat)
    if has_tan and spec.jvp is None:
        raise _fwad.ForwardModeError(
            f"Function '{name}' has no jvp, so forward-mode tangents cannot pass through it; "
            f"define jvp(ctx, *tangents) (PyTorch style) or use reverse mode")
    rec = any_node and state.recording
    # as in PyTorch: whether an input requires a gradient, recording or not
    needs = [False] * len(flat)
    if any_node:
        for i in arr_pos:
            needs[i] = flat[i]._node is not None
    call_args, views = _primal_args(flat, arr_pos) if has_tan else (flat, None)
    out = _call_forward(spec, ctx, call_args, npos, kwkeys, names, needs, rec)
    outs, dirty_pos, nondiff = _check_outputs(ctx, out, flat, arr_pos, vers0, views, name)
    if not rec and not has_tan:
        return out
    outs_orig = list(outs)
    _unalias(outs, flat, dirty_pos, nondiff)
    packed = _pack(ctx, flat, outs, outs_orig, dirty_pos)
    ctx._fn_to_save = None
    ctx._fn_packed = packed
    if has_tan:
        _forward_mode(spec, ctx, flat, outs, nondiff, name)
    if rec:
        _record(spec, ctx, flat, arr_pos, outs, nondiff, packed, name)
    if isinstance(out, NDArray):
        return outs[0]
    return list(outs) if isinstance(out, list) else tuple(outs)


def _scan_inputs(flat):
    """(positions of the array arguments, their versions, any tangent?, any in a graph?)"""
    arr_pos, vers0 = [], []
    has_tan = any_node = False
    for i, a in enumerate(flat):
        if isinstance(a, NDArray):
            arr_pos.append(i)
            vers0.append(a._ver[0])
            if a._tan is not None:
                has_tan = True
            if a._node is not None:
                any_node = True
    return tuple(arr_pos), vers0, has_tan, any_node


def _primal_args(flat, arr_pos):
    """The arguments forward sees when tangents are live: the primal values only, as
    views that remember (``views``: id -> original) which input they stand for."""
    call_args = list(flat)
    views = {}
    for i in arr_pos:
        a = flat[i]
        if a._tan is not None:
            v = wrap(a._data, a._node, a._oidx)
            v._ver = a._ver
            views[id(v)] = a
            call_args[i] = v
    return tuple(call_args), views


def _call_forward(spec, ctx, call_args, npos, kwkeys, names, needs, rec):
    """Give the context its fresh per-call state and run forward with recording off."""
    ctx._fn_name = ctx._fn_name if spec.style == "mxnet" else spec.name
    ctx._fn_argnames = names
    ctx._fn_needs = _Named(needs, names)
    ctx._fn_recording = rec
    ctx._fn_args = call_args
    ctx._fn_to_save = ctx._fn_save_names = ctx._fn_for_fwd = ctx._fn_packed = None
    presaved = ctx.__dict__.pop("_fn_presaved", None) if hasattr(ctx, "__dict__") else None
    if presaved is not None:                 # MXNet style: saved before the call
        ctx._fn_to_save, ctx._fn_save_names = presaved
    ctx._fn_dirty = ctx._fn_nondiff = ()
    ctx._fn_phase = _FWD
    try:
        with _Scope(False, None):
            return spec.call_forward(ctx, call_args, npos, kwkeys)
    finally:
        ctx._fn_phase = _DONE
        ctx._fn_args = None


def _check_outputs(ctx, out, flat, arr_pos, vers0, views, name):
    """Check what forward returned and what it marked; bump the version of inputs it
    modified in place. Returns (outputs as a list, dirty input positions, positions of
    non-differentiable outputs)."""
    if isinstance(out, NDArray):
        outs = [out]
    elif isinstance(out, (tuple, list)) and out and all(isinstance(o, NDArray) for o in out):
        outs = list(out)
    else:
        raise DTypeError(f"Function '{name}': forward must return an NDArray or a tuple of "
                         f"NDArrays, got {_describe(out)}; wrap data with mx.nd.array(...)")
    dirty = ctx._fn_dirty
    nondiff_in = ctx._fn_nondiff
    # the ctx keeps them weakly: an output -> node -> ctx -> output cycle would delay
    # freeing the graph until the garbage collector runs
    ctx._fn_dirty = tuple(weakref.ref(a) for a in dirty)
    ctx._fn_nondiff = tuple(weakref.ref(a) for a in nondiff_in)
    if views:
        outs = [views.get(id(o), o) for o in outs]
        dirty = tuple(views.get(id(a), a) for a in dirty)
        nondiff_in = tuple(views.get(id(a), a) for a in nondiff_in)
        if ctx._fn_to_save:
            ctx._fn_to_save = tuple(views.get(id(a), a) for a in ctx._fn_to_save)
    dirty_pos = set()
    for a in dirty:
        pos = _index_of(a, flat)
        dirty_pos.add(pos)
        j = arr_pos.index(pos)
        if a._ver[0] == vers0[j]:
            a._write()
    for a in dirty:
        if _index_of(a, outs) < 0:
            raise StateError(f"Function '{name}': an input marked dirty (mark_dirty) was not "
                             f"returned by forward; return every input modified in place")
    nondiff = set()
    for a in nondiff_in:
        k = _index_of(a, outs)
        if k < 0:
            raise StateError(f"Function '{name}': mark_non_differentiable got an array that "
                             f"is not an output of forward; mark only returned arrays")
        nondiff.add(k)
    return outs, dirty_pos, nondiff


def _unalias(outs, flat, dirty_pos, nondiff):
    """An output that is an (unmodified) input, or repeated, becomes a new array; an
    output of a non-float dtype is not differentiable."""
    outs_orig = list(outs)
    for k, o in enumerate(outs_orig):
        pos = _index_of(o, flat)
        if (pos >= 0 and pos not in dirty_pos) or (k and _index_of(o, outs_orig[:k]) >= 0):
            a = wrap(o._data)
            a._ver = o._ver
            outs[k] = a
        if o._data.dtype.kind != "f":
            nondiff.add(k)


def _forward_mode(spec, ctx, flat, outs, nondiff, name):
    """Run the function's jvp on the inputs' tangents and give the outputs theirs."""
    tangents = tuple(a._tan if isinstance(a, NDArray) else None for a in flat)
    ctx._fn_phase = _JVP
    try:
        tout = spec.jvp(ctx, *tangents)
    finally:
        ctx._fn_phase = _DONE
        ctx._fn_for_fwd = None
    _set_tangents(tout, outs, nondiff, name)


def _record(spec, ctx, flat, arr_pos, outs, nondiff, packed, name):
    """Build the call's node (unless no output is differentiable); the packed saved
    values live in ``node.out``."""
    nout = len(outs)
    if len(nondiff) >= nout:
        for k in nondiff:
            outs[k]._node = None
        return
    op = _FnOp(_Name(name), nout, ctx, spec, arr_pos, len(flat), frozenset(nondiff))
    node = make_node(op, outs, inputs=[flat[i] for i in arr_pos], out=packed, saved=(),
                     vers=(), outmetas=True, skip=nondiff)
    node.metadata = ctx.metadata
    node.hooks = ctx._fn_hooks
    ctx._fn_noderef = weakref.ref(node)
    ctx._fn_packed = None


def _set_tangents(tout, outs, nondiff, name):
    from ..ops.reduce import broadcast_to
    tout = _as_results(tout, name, "jvp", "output")
    n = len(outs)
    if len(tout) < n or any(t is not None for t in tout[n:]):
        raise StateError(f"Function '{name}': jvp returned {len(tout)} tangents but forward "
                         f"has {n} outputs; return one tangent (or None) per output")
    note = getattr(_fwad, "note_tangent", None)
    for k, (o, t) in enumerate(zip(outs, tout)):
        if t is None or k in nondiff:
            o._tan = None
            continue
        if not isinstance(t, NDArray):
            raise DTypeError(f"Function '{name}': jvp returned a {type(t).__name__} as the "
                             f"tangent of output {k}; return an NDArray or None")
        if t.shape != o.shape:
            try:
                ok = np.broadcast_shapes(t.shape, o.shape) == o.shape
            except ValueError:
                ok = False
            if not ok:
                raise ShapeError(f"Function '{name}': jvp returned a tangent of shape "
                                 f"{t.shape} for output {k} of shape {o.shape}")
            t = broadcast_to(t, o.shape)
        if t._data.dtype != o._data.dtype:
            t = t.astype(o._data.dtype)
        o._tan = t
        if note is not None:
            note(o)


# ------------------------------------------------------------------ the styles
_specs: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _is_once(fn) -> bool:
    return bool(getattr(fn, "_mx_once_differentiable", False))


def _spec_for(cls) -> _Spec:
    spec = _specs.get(cls)
    if spec is not None:
        return spec
    name = cls.__name__
    fwd_static = inspect.getattr_static(cls, "forward")
    base = Function.__dict__
    bw = inspect.getattr_static(cls, "backward")
    vj = inspect.getattr_static(cls, "vjp")
    if bw is not base["backward"] and vj is not base["vjp"] and bw is not vj:
        raise TypeError(f"Function '{name}' implements both backward and vjp; implement "
                        f"only one (vjp is an alias of backward)")
    battr = "vjp" if (vj is not base["vjp"] and bw is base["backward"]) else "backward"
    has_jvp = inspect.getattr_static(cls, "jvp") is not base["jvp"]
    if isinstance(fwd_static, (staticmethod, classmethod)):
        fwd = getattr(cls, "forward")
        setup = None
        if inspect.getattr_static(cls, "setup_context") is not base["setup_context"]:
            setup = getattr(cls, "setup_context")
        sig = _signature(fwd, skip_first=setup is None)
        bwd = getattr(cls, battr)
        spec = _Spec(name, "torch", fwd, setup, bwd, getattr(cls, "jvp") if has_jvp else None,
                     _is_once(bwd), sig)
    else:
        sig = _signature(fwd_static, skip_first=True)
        bwd = inspect.getattr_static(cls, battr)
        if isinstance(bwd, staticmethod):
            raise TypeError(f"Function '{name}': forward is an instance method (MXNet style) "
                            f"but backward is a staticmethod; use the same style for both")
        unbound = getattr(cls, battr)
        jvp = getattr(cls, "jvp") if has_jvp else None
        spec = _Spec(name, "mxnet", None, None, unbound, jvp, _is_once(unbound), sig)
    _specs[cls] = spec
    return spec


def _overridable(fn: Callable[..., Any]) -> Any:
    """``staticmethod``, typed ``Any`` for checkers: a subclass may override it in any of
    the three styles (MXNet instance methods or PyTorch static methods)."""
    return staticmethod(fn)


class Function(FunctionCtx):
    """Customize differentiation: a custom op with your own forward and backward.

    **MXNet style** (MXNet 1.x's ``autograd.Function``): define ``forward(self,
    *inputs)`` and ``backward(self, *output_grads)``; ``self.save_for_backward`` and
    ``self.saved_tensors`` carry values between them. Make a new instance per call (an
    instance serves one call). Forward runs with recording off; outside ``record()``
    the call returns just the forward's output.

    **PyTorch style**: ``@staticmethod forward(ctx, *args, **kwargs)`` (or
    ``forward(*args)`` plus ``setup_context(ctx, inputs, output)``) and ``@staticmethod
    backward(ctx, *grads)`` (or ``vjp``), called through ``MyOp.apply(*args)``;
    optional ``jvp(ctx, *tangents)`` for forward mode. See :class:`FunctionCtx` for
    ``ctx``.

    backward returns one gradient per forward argument (an NDArray, or None for no
    gradient and for non-array arguments).

    Examples
    --------
    MXNet style, a numerically stable sigmoid:

    >>> import mxgrad as mx
    >>> class sigmoid(mx.autograd.Function):
    ...     def forward(self, x):
    ...         y = 1 / (1 + mx.nd.exp(-x))
    ...         self.save_for_backward(y)
    ...         return y
    ...     def backward(self, dy):
    ...         y, = self.saved_tensors
    ...         return dy * y * (1 - y)
    >>> x = mx.nd.array([0., 2.]); x.attach_grad()
    >>> with mx.autograd.record():
    ...     m = sigmoid()(x)
    >>> m.backward(); x.grad.asnumpy().round(4)
    array([0.25 , 0.105], dtype=float32)

    PyTorch style with two outputs, one of them non-differentiable:

    >>> import numpy as np
    >>> class SortDesc(mx.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         idx = mx.nd.array(np.argsort(-x.asnumpy()))
    ...         ctx.mark_non_differentiable(idx)
    ...         ctx.idx = idx.asnumpy().astype(int)
    ...         return mx.nd.array(x.asnumpy()[ctx.idx]), idx
    ...     @staticmethod
    ...     def backward(ctx, dy, didx):
    ...         g = np.zeros(dy.shape, dtype=dy.dtype)
    ...         g[ctx.idx] = dy.asnumpy()
    ...         return mx.nd.array(g)
    >>> x = mx.nd.array([1., 3., 2.]); x.attach_grad()
    >>> with mx.autograd.record():
    ...     y, idx = SortDesc.apply(x)
    ...     loss = (y * mx.nd.array([1., 10., 100.])).sum()
    >>> loss.backward(); x.grad
    <BLANKLINE>
    [100.   1.  10.]
    <NDArray 3 @cpu(0)>
    """

    _fn_objects = True  # MXNet-style instances save anything

    def __init__(self) -> None:
        self._fn_used = False

    _fn_used = False

    def __call__(self, *inputs: Any, **kwargs: Any) -> Any:
        cls = type(self)
        spec = _spec_for(cls)
        if spec.style != "mxnet":
            raise TypeError(f"{cls.__name__} is a PyTorch-style Function (static forward); "
                            f"call {cls.__name__}.apply(...) rather than an instance")
        if self._fn_used:
            raise _ReuseError(f"each {cls.__name__} instance (an MXNet-style autograd.Function)"
                              f" can only be called once; create another instance "
                              f"({cls.__name__}()(x)) for each call")
        self._fn_used = True
        flat, npos, kwkeys, names = spec.bind(inputs, kwargs)
        return _run(spec, self, flat, npos, kwkeys, names)

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        """Run the function (PyTorch style): ``y = MyOp.apply(x, ...)``.

        For an MXNet-style class this is ``MyOp()(*args)``."""
        spec = _spec_for(cls)
        if spec.style == "mxnet":
            return cls()(*args, **kwargs)
        ctx = FunctionCtx()
        flat, npos, kwkeys, names = spec.bind(args, kwargs)
        return _run(spec, ctx, flat, npos, kwkeys, names)

    @staticmethod
    def grad_fn(array: NDArray) -> Any:
        """The node face of the call that produced ``array`` (PyTorch's ``y.grad_fn``).

        For an output of a custom function this is its ctx (an MXNet-style instance
        itself), with ``name``, ``next_functions``, ``metadata``, ``register_hook`` and
        ``register_prehook``; for an output of a built-in op, its graph
        :class:`~mxgrad.autograd.graph.Node`; None for a variable or an array that was not
        recorded.

        Examples
        --------
        >>> import mxgrad as mx
        >>> x = mx.nd.array([1.]); x.attach_grad()
        >>> with mx.autograd.record():
        ...     y = mx.autograd.function(lambda ctx, a: a * 2, lambda ctx, g: {"a": g * 2},
        ...                              name="Double")(x)
        >>> fn = mx.autograd.Function.grad_fn(y)
        >>> fn.name, fn.next_functions[0][0] is x._node
        ('Double', True)
        """
        node = getattr(array, "_node", None)
        if node is None or type(node) is Leaf:
            return None
        op = node.op
        if type(op) is _FnOp:
            return op.ctx
        return node

    @_overridable
    def forward(ctx, *args, **kwargs):
        """The forward computation (override it). Runs with recording off."""
        raise NotImplementedError("a Function must implement forward")

    @_overridable
    def backward(ctx, *grad_outputs):
        """The gradient computation (override it, or :meth:`vjp`): one gradient per
        output in, one gradient (or None) per forward argument out."""
        raise NotImplementedError("a Function must implement backward (or vjp)")

    vjp = backward

    @_overridable
    def jvp(ctx, *grad_inputs):
        """The forward-mode rule (optional): one tangent per forward argument (None for
        arguments without one) in, one tangent per output out."""
        raise NotImplementedError("this Function has no jvp")

    @_overridable
    def setup_context(ctx, inputs, output):
        """Fill ``ctx`` after a ``forward(*args)`` that takes no ctx (optional)."""
        raise NotImplementedError


class CustomFunction:
    """A custom function built from plain ``forward``/``backward`` functions by
    :func:`function` (R torch's ``autograd_function``). Call it like a function."""

    def __init__(self, forward: Callable, backward: Callable, jvp: Optional[Callable] = None,
                 name: Optional[str] = None):
        if not callable(forward) or not callable(backward):
            raise DTypeError("function() needs callable forward and backward "
                             "(functions taking ctx first)")
        if name is None:
            n = getattr(forward, "__name__", "")
            name = n if n and n not in ("forward", "<lambda>") else "custom_function"
        self.name = name
        self._spec = _Spec(name, "r", forward, None, backward, jvp, _is_once(backward),
                           _signature(forward, skip_first=True))
        functools.update_wrapper(self, forward, updated=())

    def __call__(self, *args, **kwargs):
        spec = self._spec
        flat, npos, kwkeys, names = spec.bind(args, kwargs)
        return _run(spec, AutogradContext(), flat, npos, kwkeys, names)

    apply = __call__

    def __repr__(self) -> str:
        return f"<autograd.function {self.name}>"


def function(forward: Callable, backward: Callable, jvp: Optional[Callable] = None,
             name: Optional[str] = None) -> CustomFunction:
    """Build a differentiable function from two plain functions (R torch style).

    Parameters
    ----------
    forward : callable
        ``forward(ctx, ...)``: the computation; its parameter names name the inputs.
        Called with positional or keyword arguments. Runs with recording off.
    backward : callable
        ``backward(ctx, *grad_outputs)``: returns a dict of gradients keyed by input
        name (missing keys mean no gradient; a tuple, one per input, also works).
    jvp : callable, optional
        ``jvp(ctx, *tangents)`` for forward mode.
    name : str, optional
        Used in error messages and as the node's name.

    ``ctx`` is an :class:`AutogradContext`: ``ctx.save_for_backward(result=y, k=obj)``
    saves arrays and any Python object by name, read back as
    ``ctx.saved_variables.result`` (or ``['result']``; ``saved_variable`` also works);
    ``ctx.needs_input_grad.x`` tells whether input ``x`` needs a gradient.

    Examples
    --------
    >>> import mxgrad as mx
    >>> def forward(ctx, i):
    ...     result = i.exp()
    ...     ctx.save_for_backward(result=result)
    ...     return result
    >>> def backward(ctx, grad_output):
    ...     return {"i": grad_output * ctx.saved_variable.result}
    >>> exp2 = mx.autograd.function(forward=forward, backward=backward)
    >>> x = mx.nd.array([0., 1.]); x.attach_grad()
    >>> with mx.autograd.record():
    ...     y = exp2(x)
    >>> y.backward(); x.grad
    <BLANKLINE>
    [1.       2.718282]
    <NDArray 2 @cpu(0)>
    """
    return CustomFunction(forward, backward, jvp, name)


def once_differentiable(fn: Callable) -> Callable:
    """Decorate a backward that is not itself differentiable (e.g. uses NumPy).

    It runs with recording off; with ``create_graph=True`` the gradients it returns
    raise a clear error if a second derivative is taken through them.

    Examples
    --------
    >>> import mxgrad as mx
    >>> class Cube(mx.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         ctx.save_for_backward(x)
    ...         return x ** 3
    ...     @staticmethod
    ...     @mx.autograd.once_differentiable
    ...     def backward(ctx, dy):
    ...         x, = ctx.saved_tensors
    ...         return mx.nd.array(3 * x.asnumpy() ** 2 * dy.asnumpy())
    >>> x = mx.nd.array([2.]); x.attach_grad()
    >>> with mx.autograd.record():
    ...     y = Cube.apply(x)
    >>> float(mx.autograd.grad(y, x)[0].asscalar())
    12.0
    """
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with _Scope(False, None):
            return fn(ctx, *args)
    wrapper._mx_once_differentiable = True  # type: ignore[attr-defined]
    return wrapper

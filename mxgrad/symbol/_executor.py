"""The executor (``mx.executor``, whose module re-exports this one): a Symbol bound to
arrays, run forward and backward (MXNet 1.x's ``Symbol.bind`` / ``simple_bind``).

An :class:`Executor` holds the arrays of a Symbol's arguments, their gradient buffers
and its auxiliary states; ``forward`` runs the graph on them and ``backward`` writes the
arguments' gradients into the buffers (``grad_req`` ``'write'``, ``'add'`` or ``'null'``
per argument). It runs on the same planned graph as a hybridized Gluon block
(:class:`mxgrad.symbol.plan.Plan`, planned once per input signature and mode), so a
Symbol and the HybridBlock it came from compute the same numbers the same way.

Examples
--------
>>> import mxgrad as mx
>>> a, b = mx.sym.var('a'), mx.sym.var('b')
>>> c = 2 * a + b
>>> ex = c.bind(mx.cpu(), {'a': mx.nd.array([1, 2]), 'b': mx.nd.array([3, 4])},
...             args_grad={'a': mx.nd.zeros(2), 'b': mx.nd.zeros(2)})
>>> ex.forward(is_train=True)[0].asnumpy().tolist()
[5.0, 8.0]
>>> ex.backward(mx.nd.ones(2))
>>> ex.grad_dict['a'].asnumpy().tolist()
[2.0, 2.0]
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Sequence, Union

import numpy as np

from ..base import MXNetError, ShapeError, DTypeError, StateError
from .._engine.ndarray import NDArray, wrap
from .._engine.scope import _Scope
from .. import ndarray as nd

__all__ = ["Executor", "bind", "simple_bind"]

_REQS = ("write", "add", "null")


class ExecutorError(MXNetError, ValueError):
    """A bind or executor call with arguments that do not fit the Symbol."""


def _named_list(what: str, given, names: Sequence[str], allow_missing: bool) -> list:
    """``given`` (a list in ``names`` order or a dict by name) as a list (None: absent)."""
    if given is None:
        return [None] * len(names)
    if isinstance(given, (list, tuple)):
        if len(given) != len(names):
            raise ExecutorError(f"Length of {what} does not match the number of arguments: "
                                f"got {len(given)}, the Symbol has {len(names)} ({names})")
        out = list(given)
    elif isinstance(given, dict):
        out = []
        for n in names:
            if n in given:
                out.append(given[n])
            elif allow_missing:
                out.append(None)
            else:
                raise ExecutorError(f"key `{n}` is missing in `{what}`; give an array for "
                                    f"every one of {names}")
    else:
        raise DTypeError(f"{what} must be a list or a dict of NDArrays, got "
                         f"{type(given).__name__}")
    for n, a in zip(names, out):
        if a is not None and not isinstance(a, NDArray):
            raise DTypeError(f"{what}['{n}'] must be an NDArray, got {type(a).__name__}; "
                             f"Only accept list of NDArrays or dict of str to NDArray")
    return out


def _grad_reqs(grad_req, names: Sequence[str], dict_default: str = "null") -> List[str]:
    if isinstance(grad_req, str):
        reqs = [grad_req] * len(names)
    elif isinstance(grad_req, (list, tuple)):
        if len(grad_req) != len(names):
            raise ExecutorError(f"grad_req has {len(grad_req)} entries but the Symbol has "
                                f"{len(names)} arguments ({names})")
        reqs = list(grad_req)
    elif isinstance(grad_req, dict):
        # names that are not arguments are ignored, as MXNet's bind ignores them (its
        # tests pass one dict to several graphs)
        reqs = [grad_req.get(n, dict_default) for n in names]
    else:
        raise DTypeError(f"grad_req must be a str, list or dict, got {type(grad_req).__name__}")
    for r in reqs:
        if r not in _REQS:
            raise ExecutorError(f"grad_req {r!r} is not one of 'write', 'add', 'null'")
    return reqs


class Executor:
    """A Symbol bound to arrays (made by :meth:`Symbol.bind` / :meth:`Symbol.simple_bind`).

    Attributes
    ----------
    arg_arrays, grad_arrays, aux_arrays : list of NDArray
        The arguments (in ``list_arguments()`` order), their gradient buffers (None
        where ``grad_req`` is ``'null'``) and the auxiliary states.
    outputs : list of NDArray
        The outputs of the last :meth:`forward`.
    """

    def __init__(self, symbol, ctx, arg_arrays: list, grad_arrays: list, grad_req: List[str],
                 aux_arrays: list, group2ctx=None) -> None:
        self._symbol = symbol
        self._ctx = ctx
        self._group2ctx = group2ctx
        self._arg_names = symbol.list_arguments()
        self._aux_names = symbol.list_auxiliary_states()
        self._out_names = symbol.list_outputs()
        self.arg_arrays = arg_arrays
        self.grad_arrays = grad_arrays
        self.aux_arrays = aux_arrays
        self._grad_req = grad_req
        self._plans: Dict[Any, Any] = {}
        self._call = None
        self._call_plan = None
        self._monitor: Optional[Callable] = None
        self._monitor_all = False
        self._ran = False
        # MXNet's executors write 1 into the gamma of a BatchNorm with fix_gamma=True (the
        # default) at every forward (imperative calls leave it alone): the argument
        # positions of such gammas
        index = {n: i for i, n in enumerate(self._arg_names)}
        self._fixed_gammas = sorted({
            index[node.inputs[1][0].name] for node in symbol._nodes()
            if node.op in ("BatchNorm", "BatchNorm_v1") and len(node.inputs) > 1
            and node.inputs[1][0].is_var and node.inputs[1][0].name in index
            and _flag(node.kwargs.get("fix_gamma", True) if node.kwargs else True)})
        # the output arrays: allocated at bind (MXNet's executors own their outputs; a
        # reshaped executor's are views of these), written by every forward
        self.outputs: List[NDArray] = []
        try:
            shapes = {n: a.shape for n, a in zip(self._arg_names, arg_arrays) if a is not None}
            _, out_shapes, _ = symbol.infer_shape(**shapes)
            _, out_types, _ = symbol.infer_type(**{n: a.dtype for n, a in zip(
                self._arg_names, arg_arrays) if a is not None})
            if out_shapes is not None and out_types is not None:   # (None: not known yet)
                self.outputs = [nd.zeros(tuple(sh), dtype=dt or "float32")
                                for sh, dt in zip(out_shapes, out_types)]
        except MXNetError:
            self.outputs = []

    # ------------------------------------------------------------------ running
    def forward(self, is_train: bool = False, **kwargs: Any) -> List[NDArray]:
        """Run the graph; ``kwargs`` first copy new values into arguments by name.

        Returns
        -------
        list of NDArray
            The outputs (also :attr:`outputs`).
        """
        for name, value in kwargs.items():
            if not isinstance(value, (NDArray, np.ndarray)):
                raise DTypeError(f"forward: argument '{name}' must be an NDArray or a NumPy "
                                 f"array, got {type(value).__name__} (only accept keyword "
                                 f"argument of NDArrays and numpy.ndarray)")
            if name not in self._arg_names:
                raise ExecutorError(f"forward: Unknown argument {name}; the arguments are "
                                    f"{self._arg_names}")
            dst = self.arg_dict[name]
            if tuple(dst.shape) != tuple(value.shape):
                raise ShapeError(f"forward: Shape not match! Argument {name}, need: "
                                 f"{dst.shape}, received: {tuple(value.shape)}")
            dst[:] = value
        for i in self._fixed_gammas:
            g = self.arg_arrays[i]
            if g is not None and not (g._data == 1).all():
                g._write(1)
        arrays = self._arrays()
        plan = self._plan(arrays, bool(is_train))
        needs = [r != "null" and g is not None
                 for r, g in zip(self._grad_req, self.grad_arrays)] + [False] * len(
            self.aux_arrays)
        keep = any(needs)
        with _Scope(None, bool(is_train)):
            outs, call = plan.forward(arrays, keep, needs if keep else None,
                                      monitor=self._monitor_fn() if self._monitor else None)
        self._call, self._call_plan = call, plan
        self._ran = True
        bufs = self.outputs
        if len(bufs) != len(outs) or any(
                b._data.shape != o.shape or b._data.dtype != o.dtype for b, o in zip(bufs, outs)):
            self.outputs = [wrap(o) for o in outs]
        else:
            for b, o in zip(bufs, outs):
                b._write(o, casting="same_kind")
        return self.outputs

    def backward(self, out_grads: Union[None, NDArray, Sequence[NDArray], Dict[str, NDArray]]
                 = None, is_train: bool = True) -> None:
        """Write the arguments' gradients into :attr:`grad_arrays` (per ``grad_req``).

        ``out_grads``: the gradient of each output (None for a loss output such as
        ``SoftmaxOutput``, whose gradient is its own; ones for any other output)."""
        if self._call is None:
            if self._ran:         # nothing needs a gradient (grad_req 'null'): MXNet's no-op
                return
            # MXNet lets backward run without a forward (ops whose gradient needs no forward
            # value, as repeat/tile, give it): run the forward it needs first
            self.forward(is_train=True)
            if self._call is None:
                return
        plan = self._call_plan
        if out_grads is None:
            heads = [None] * len(self._out_names)
        elif isinstance(out_grads, NDArray):
            heads = [out_grads]
        elif isinstance(out_grads, dict):
            heads = [out_grads.get(n) for n in self._out_names]
        else:
            heads = list(out_grads)
        if len(heads) != len(plan.out_slots):
            raise ExecutorError(f"backward: got {len(heads)} output gradients, the Symbol has "
                                f"{len(plan.out_slots)} outputs ({self._out_names})")
        raw = []
        for i, (h, m) in enumerate(zip(heads, plan.out_metas)):
            if h is None:
                raw.append(np.ones(m[0], m[1]))
                continue
            if not isinstance(h, (NDArray, np.ndarray)):
                raise DTypeError(f"backward: out_grads[{i}] must be an NDArray, got "
                                 f"{type(h).__name__}")
            d = h._data if isinstance(h, NDArray) else np.asarray(h)
            if tuple(d.shape) != tuple(m[0]):
                raise ShapeError(f"backward: out_grads[{i}] has shape {d.shape}, output "
                                 f"'{self._out_names[i]}' has shape {m[0]}")
            raw.append(d.astype(m[1], copy=False))
        needs = [r != "null" and g is not None
                 for r, g in zip(self._grad_req, self.grad_arrays)] + [False] * len(
            self.aux_arrays)
        with _Scope(None, bool(is_train)):
            grads = plan.backward(self._call, raw, needs, free=False,
                                  monitor=self._backward_monitor_fn() if self._monitor
                                  else None)
        for i, (req, buf) in enumerate(zip(self._grad_req, self.grad_arrays)):
            if req == "null" or buf is None:
                continue
            g = grads[i]
            if req == "write":
                if g is None:
                    buf._data[...] = 0
                else:
                    np.copyto(buf._data, g, casting="unsafe")
            elif g is not None:
                buf._data += g.astype(buf._data.dtype, copy=False)
            buf._write()

    def _arrays(self) -> list:
        arrays = []
        for name, a in zip(self._arg_names + self._aux_names,
                           self.arg_arrays + self.aux_arrays):
            if a is None:
                raise ExecutorError(f"argument '{name}' has no array; bind one")
            arrays.append(a)
        return arrays

    def _plan(self, arrays, training: bool):
        from .plan import Plan
        key = (tuple((a._data.shape, a._data.dtype) for a in arrays), training)
        plan = self._plans.get(key)
        if plan is None:
            plan = Plan.build(self._symbol, self._arg_names + self._aux_names, arrays,
                              training)
            if len(self._plans) >= 8:
                self._plans.pop(next(iter(self._plans)))
            self._plans[key] = plan
        return plan

    # ------------------------------------------------------------------ monitor
    def set_monitor_callback(self, callback: Callable[[str, NDArray], Any],
                             monitor_all: bool = False) -> None:
        """Call ``callback(name, array)`` for every node's outputs at each forward
        (``<node>_output``; with ``monitor_all`` its inputs too, ``<node>_<input>``) and
        for the gradients of every node's inputs at each backward
        (``<node>_backward_output<k>``), as MXNet's executors report them."""
        self._monitor = callback
        self._monitor_all = bool(monitor_all)

    def _monitor_fn(self):
        cb, everything = self._monitor, self._monitor_all

        def on_node(node, inputs, outputs):
            if everything:
                names = node.spec.inputs if node.spec is not None and node.spec.inputs \
                    else [f"input{k}" for k in range(len(inputs))]
                for n, v in zip(names, inputs):
                    cb(f"{node.name}_{n}", wrap(v))
            visible = node.num_visible()
            outs = node.spec.out_names if node.spec is not None and node.spec.out_names \
                and visible > 1 else None
            for k, v in enumerate(outputs[:visible]):
                suffix = "output" if outs is None else outs[k]
                cb(f"{node.name}_{suffix}" if visible == 1 or outs else
                   f"{node.name}_output{k}", wrap(v))
        return on_node

    def _backward_monitor_fn(self):
        cb = self._monitor

        def on_node(node, grads):
            for k, g in enumerate(grads):
                if g is not None:
                    cb(f"{node.name}_backward_output" if len(grads) == 1 else
                       f"{node.name}_backward_output{k}", wrap(g))
        return on_node

    # ------------------------------------------------------------------ dicts
    @staticmethod
    def _dict(names, arrays, what) -> Dict[str, Any]:
        if len(set(names)) != len(names):
            raise ExecutorError(f"Duplicate names detected in the {what}: {names}")
        return dict(zip(names, arrays))

    @property
    def arg_dict(self) -> Dict[str, NDArray]:
        """The arguments by name."""
        return self._dict(self._arg_names, self.arg_arrays, "arguments")

    @property
    def grad_dict(self) -> Dict[str, Optional[NDArray]]:
        """The gradient buffers by argument name."""
        return self._dict(self._arg_names, self.grad_arrays, "arguments")

    @property
    def aux_dict(self) -> Dict[str, NDArray]:
        """The auxiliary states by name."""
        return self._dict(self._aux_names, self.aux_arrays, "auxiliary states")

    @property
    def output_dict(self) -> Dict[str, NDArray]:
        """The outputs of the last forward by name."""
        return self._dict(self._out_names, self.outputs, "outputs")

    # ------------------------------------------------------------------ params
    def copy_params_from(self, arg_params: Dict[str, NDArray],
                         aux_params: Optional[Dict[str, NDArray]] = None,
                         allow_extra_params: bool = False) -> None:
        """Copy parameter values into the bound arrays (cast to their dtypes)."""
        for given, bound, what in ((arg_params, self.arg_dict, "the arguments"),
                                   (aux_params or {}, self.aux_dict, "the auxiliary states")):
            for name, value in given.items():
                if name in bound:
                    _copy_into(bound[name], value, name)
                elif not allow_extra_params:
                    raise ExecutorError(f'Find name "{name}" that is not in {what} (pass '
                                        f'allow_extra_params=True to skip it)')

    def reshape(self, partial_shaping: bool = False, allow_up_sizing: bool = False,
                **kwargs: Any) -> "Executor":
        """A new executor for new argument shapes, sharing the arrays whose shapes stay
        (the parameters) with this one."""
        arg_shapes, _, aux_shapes = self._symbol.infer_shape(**kwargs)
        new_args, new_grads = [], []
        for name, shape, arr, grad in zip(self._arg_names, arg_shapes, self.arg_arrays,
                                          self.grad_arrays):
            shape = tuple(shape)
            if tuple(arr.shape) == shape:
                new_args.append(arr)
                new_grads.append(grad)
                continue
            if name not in kwargs and not partial_shaping:
                raise ExecutorError(
                    f"Shape of unspecified array arg:{name} changed. This can cause the new "
                    f"executor to not share parameters with the old one. Please check for "
                    f"error in network. If this is intended, set partial_shaping=True to "
                    f"suppress this warning.")
            if int(np.prod(shape)) > arr.size and not allow_up_sizing:
                raise ExecutorError(
                    f"New shape of arg:{name} larger than original. First making a big "
                    f"executor and then down sizing it is more efficient than the reverse. "
                    f"If you really want to up size, set allow_up_sizing=True to enable "
                    f"allocation of new arrays.")
            new_args.append(_resized(arr, shape))
            new_grads.append(None if grad is None else _resized(grad, shape))
        new_aux = []
        for name, shape, arr in zip(self._aux_names, aux_shapes, self.aux_arrays):
            shape = tuple(shape)
            if tuple(arr.shape) == shape:
                new_aux.append(arr)
            elif not partial_shaping:
                raise ExecutorError(f"Shape of unspecified array aux:{name} changed; set "
                                    f"partial_shaping=True if this is intended")
            else:
                new_aux.append(_resized(arr, shape))
        ex = Executor(self._symbol, self._ctx, new_args, new_grads, list(self._grad_req),
                      new_aux, self._group2ctx)
        if len(ex.outputs) == len(self.outputs):    # outputs share memory too, as in MXNet
            ex.outputs = [_resized(old, tuple(new.shape))
                          for old, new in zip(self.outputs, ex.outputs)]
        if self._monitor is not None:
            ex.set_monitor_callback(self._monitor, self._monitor_all)
        return ex

    def debug_str(self) -> str:
        """A listing of the bound graph: its variables and operators."""
        lines = ["Symbol Outputs:"]
        lines += [f"\toutput[{i}]={n}" for i, n in enumerate(self._out_names)]
        for node in self._symbol._nodes():
            if node.is_var:
                lines.append(f"Variable:{node.name}")
            else:
                lines.append("--------------------")
                lines.append(f"Op:{node.op}, Name={node.name}")
                lines.append("Inputs:")
                lines += [f"\targ[{k}]={src.name}({j})" for k, (src, j) in
                          enumerate(node.inputs)]
                if node.attrs:
                    lines.append("Attrs:")
                    lines += [f"\t{k}={v}" for k, v in node.attrs.items()]
        return "\n".join(lines) + "\n"

    def __repr__(self) -> str:
        return f"<Executor {self._symbol.name} args={self._arg_names}>"


def _resized(arr: NDArray, shape: tuple) -> NDArray:
    """An array of ``shape`` sharing ``arr``'s memory when it fits in it (MXNet's
    reshaped executors share their buffers), else a new zero array."""
    n = int(np.prod(shape))
    d = arr._data
    if n <= d.size and d.flags.c_contiguous:
        return wrap(d.reshape(-1)[:n].reshape(shape))
    return nd.zeros(shape, dtype=d.dtype)


def _flag(v) -> bool:
    """A boolean attribute as parsed or as MXNet's JSON writes it ('True', '0'...)."""
    if isinstance(v, str):
        return v.strip().lower() in ("true", "1")
    return bool(v)


def _copy_into(dst: NDArray, value, name: str) -> None:
    if not isinstance(value, NDArray):
        raise DTypeError(f"copy_params_from: '{name}' must be an NDArray, got "
                         f"{type(value).__name__}")
    if tuple(value.shape) != tuple(dst.shape):
        raise ShapeError(f"copy_params_from: '{name}' has shape {value.shape}, the bound "
                         f"array has shape {dst.shape}")
    dst._write(value._data)


def bind(symbol, ctx, args, args_grad=None, grad_req="write", aux_states=None,
         group2ctx=None, shared_exec=None) -> Executor:
    """:meth:`Symbol.bind` (see there)."""
    names = symbol.list_arguments()
    arg_arrays = _named_list("args", args, names, allow_missing=False)
    if args_grad is None:
        grad_arrays = [None] * len(names)
        _grad_reqs(grad_req, names, "null")      # (checked, though nothing is written)
        reqs = ["null"] * len(names)
    else:
        grad_arrays = _named_list("args_grad", args_grad, names, allow_missing=True)
        reqs = _grad_reqs(grad_req, names, "null" if isinstance(grad_req, dict) else "write")
        reqs = [r if g is not None else "null" for r, g in zip(reqs, grad_arrays)]
    aux_names = symbol.list_auxiliary_states()
    aux_arrays = _named_list("aux_states", aux_states, aux_names, allow_missing=False) \
        if aux_names or aux_states else []
    for n, a, g in zip(names, arg_arrays, grad_arrays):
        if g is not None and tuple(g.shape) != tuple(a.shape):
            raise ShapeError(f"bind: Shape of the gradient buffer of '{n}' has shape {g.shape}, the "
                             f"argument has shape {a.shape}")
    return Executor(symbol, ctx, arg_arrays, grad_arrays, reqs, aux_arrays, group2ctx)


def simple_bind(symbol, ctx, grad_req="write", type_dict=None, stype_dict=None,
                group2ctx=None, shared_arg_names=None, shared_exec=None, shared_buffer=None,
                **kwargs) -> Executor:
    """:meth:`Symbol.simple_bind` (see there)."""
    names = symbol.list_arguments()
    aux_names = symbol.list_auxiliary_states()
    if isinstance(grad_req, (list, dict)) and len(grad_req) == 0:
        raise ExecutorError(f"grad_req in simple_bind cannot be an empty "
                            f"{type(grad_req).__name__}")
    # MXNet takes the tuples among the keywords as shapes (others are ignored)
    shapes = {k: tuple(v) for k, v in kwargs.items() if isinstance(v, tuple)}
    arg_shapes, _, aux_shapes = symbol.infer_shape(**shapes)
    if type_dict is None:       # MXNet: float32 for every argument without a __dtype__
        attrs = symbol.attr_dict()
        type_dict = {n: "float32" for n in names if "__dtype__" not in attrs.get(n, {})}
    arg_types, _, aux_types = symbol.infer_type_partial(**dict(type_dict))
    arg_types = [t or np.float32 for t in arg_types]
    aux_types = [t or np.float32 for t in aux_types]
    reqs = _grad_reqs(grad_req, names, "null")
    shared_args = shared_exec.arg_dict if shared_exec is not None else {}
    shared_grads = shared_exec.grad_dict if shared_exec is not None else {}
    share = set(shared_arg_names) if shared_arg_names is not None else set(shared_args)
    arg_arrays, grad_arrays = [], []
    for n, shape, dt, req in zip(names, arg_shapes, arg_types, reqs):
        shape = tuple(shape)
        old = shared_args.get(n) if n in share else None
        if shared_buffer is not None and n in shared_buffer and \
                tuple(shared_buffer[n].shape) == shape:
            old = shared_buffer[n]
        if old is not None and tuple(old.shape) == shape and old.dtype == np.dtype(dt):
            arg_arrays.append(old)
            g = shared_grads.get(n)
            grad_arrays.append(g if req != "null" and g is not None else (
                None if req == "null" else nd.zeros(shape, dtype=dt)))
            continue
        a = nd.zeros(shape, dtype=dt)
        if shared_buffer is not None and n not in share:
            shared_buffer[n] = a
        arg_arrays.append(a)
        grad_arrays.append(None if req == "null" else nd.zeros(shape, dtype=dt))
    aux_arrays = []
    shared_aux = shared_exec.aux_dict if shared_exec is not None else {}
    for n, shape, dt in zip(aux_names, aux_shapes, aux_types):
        old = shared_aux.get(n)
        if old is not None and tuple(old.shape) == tuple(shape):
            aux_arrays.append(old)
        else:
            aux_arrays.append(nd.zeros(tuple(shape), dtype=dt))
    return Executor(symbol, ctx, arg_arrays, grad_arrays, reqs, aux_arrays, group2ctx)

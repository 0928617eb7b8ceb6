"""``Symbol``: a graph of MXNet operators, as MXNet 1.x's JSON files describe it.

A Symbol is a list of outputs ``(node, index)``; a node is a variable (``op == 'null'``)
or an operator with string attributes and inputs. mxgrad builds Symbols by tracing
``hybrid_forward`` with ``F = mx.sym`` and by loading MXNet's ``*-symbol.json``; it runs
them with :func:`evaluate`, which calls the ``mx.nd`` op of every node, so a Symbol graph
is recorded by autograd like imperative code (there is no second engine).

Examples
--------
>>> import mxgrad as mx
>>> x = mx.sym.var('data')
>>> y = mx.sym.FullyConnected(x, num_hidden=3, name='fc')
>>> y.list_arguments()
['data', 'fc_weight', 'fc_bias']
>>> y.list_outputs()
['fc_output']
>>> z = mx.sym.load_json(y.tojson())
>>> z.list_arguments() == y.list_arguments()
True
"""
from __future__ import annotations

import itertools
import json
import threading
import warnings
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from .. import autograd
from .. import name as _naming
from ..attribute import stored_key, listed, HIDDEN_KEYS
from .._fileio import atomic_write, open_for_read
from .. import ndarray as nd
from ..base import (MXNetError, OutOfRangeError, ShapeError, DTypeError, FileFormatError,
                    NotImplementedForSymbol, StateError)
from .._engine.ndarray import NDArray, FACES, as_face
from ._registry import lookup, parse_attrs, specialize, UnknownOpError, LABEL_OPS

__all__ = ["Symbol", "var", "Variable", "Group", "load", "load_json", "evaluate"]

MXNET_VERSION = 10901

_DTYPE_FLAGS = {"float32": 0, "float64": 1, "float16": 2, "uint8": 3, "int32": 4,
                "int8": 5, "int64": 6, "bool": 7}
_FLAG_DTYPES = {v: k for k, v in _DTYPE_FLAGS.items()}


_NODE_SEQ = itertools.count()


class _Node:
    """One graph node: a variable (``op == 'null'``) or an operator."""

    __slots__ = ("op", "name", "attrs", "inputs", "spec", "kwargs", "shadow", "seq",
                 "npface", "__weakref__")

    def __init__(self, op: str, name: str, attrs: Dict[str, str], inputs, spec=None,
                 kwargs=None, shadow=None):
        self.op = op
        self.name = name
        self.attrs = attrs
        self.inputs = inputs          # list of (node, output index)
        self.spec = spec              # OpSpec (None for variables)
        self.kwargs = kwargs          # parsed attributes for spec.run
        self.shadow = shadow          # example outputs while tracing (tuple) or None
        self.seq = next(_NODE_SEQ)    # creation order: a traced graph's order of calls
        self.npface = False           # runs on mx.np arrays (a node of mx.sym.np / npx)

    @property
    def is_var(self) -> bool:
        return self.op == "null"

    def num_outputs(self) -> int:
        return 1 if self.spec is None else self.spec.num_outputs(self.kwargs)

    def num_visible(self) -> int:
        return 1 if self.spec is None else self.spec.num_visible(self.kwargs)


# ------------------------------------------------------------------ naming
class _TraceState(threading.local):
    def __init__(self) -> None:
        self.trace = None     # dict id(Parameter) -> Symbol while a block is traced


_state = _TraceState()
# unnamed nodes are named by the scopes of mx.name (NameManager, Prefix)
_make_name = _naming.current_name


def _attr_str(v) -> str:
    if isinstance(v, (bool, np.bool_)):
        return "True" if v else "False"
    if isinstance(v, (list, tuple)):
        return str(tuple(_plain(e) for e in v))
    if isinstance(v, type) and issubclass(v, np.generic):
        return np.dtype(v).name
    if isinstance(v, np.dtype):
        return v.name
    return str(_plain(v))


def _plain(v):
    if isinstance(v, np.generic):
        return v.item()
    return v


# ------------------------------------------------------------------ graph walks
def _topo(heads) -> List[_Node]:
    """Nodes reachable from ``heads`` in MXNet's order (post-order DFS, inputs in order)."""
    order, seen = [], set()
    for head, _ in heads:
        if id(head) in seen:
            continue
        stack = [(head, 0)]
        while stack:
            node, i = stack.pop()
            if i == 0 and id(node) in seen:
                continue
            if i < len(node.inputs):
                stack.append((node, i + 1))
                child = node.inputs[i][0]
                if id(child) not in seen:
                    stack.append((child, 0))
            else:
                if id(node) not in seen:
                    seen.add(id(node))
                    order.append(node)
    return order


def _aux_ids(nodes) -> set:
    aux = set()
    for n in nodes:
        if n.spec is not None:
            for i in n.spec.aux:
                if i < len(n.inputs) and n.inputs[i][0].is_var:
                    aux.add(id(n.inputs[i][0]))
    return aux


def _run_node(node: _Node, args: Sequence[NDArray], npface: Optional[bool] = None) -> tuple:
    """Run ``node`` on ``args``: its outputs, a tuple. The node computes on, and gives,
    arrays of its face: ``mx.np``'s for a node of a NumPy-interface graph (``npface``,
    default: the node's own flag), ``mx.nd``'s otherwise (the faces are free views)."""
    if npface is None:
        npface = node.npface
    face = FACES["np"] if npface else NDArray
    args = [a if a is None or type(a) is face else as_face(a, face) for a in args]
    spec = node.spec
    run = spec.np_run if npface and spec.np_run is not None else spec.run
    try:
        out = run(list(args), node.kwargs)
    except MXNetError as err:
        try:
            named = type(err)(f"node '{node.name}' (op {node.op}): {err}")
        except Exception:       # an error class with another constructor: keep it
            raise err from None
        raise named from err
    if isinstance(out, (list, tuple)):
        return tuple(as_face(o, face) if type(o) is not face and isinstance(o, NDArray)
                     else o for o in out)
    return (as_face(out, face) if type(out) is not face and isinstance(out, NDArray)
            else out,)


class Symbol:
    """A symbolic graph: one or more outputs of operator nodes.

    Build one with :func:`var` and the ``mx.sym`` operators (or by calling a
    HybridBlock on a Symbol), load one with :func:`load`, run it with
    ``gluon.SymbolBlock``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> a, b = mx.sym.var('a'), mx.sym.var('b')
    >>> c = 2 * a + b
    >>> c.list_arguments()
    ['a', 'b']
    >>> [o.asscalar() for o in c.eval(a=mx.nd.array([1.0]), b=mx.nd.array([3.0]))]
    [5.0]
    """

    __slots__ = ("_outputs", "_order", "_labels")
    _npface = False      # the face of the arrays its nodes compute (mx.sym.np's _Symbol: True)

    def __init__(self, outputs):
        self._outputs = tuple(outputs)
        self._order = None      # the nodes in run order (the graph never changes)
        self._labels = None     # label variables of training outputs (may stay unfed)

    # ------------------------------------------------------------- description
    @property
    def name(self) -> Optional[str]:
        """Name of the node of a single-output Symbol (``None`` for a group)."""
        if len(self._outputs) != 1:
            return None
        return self._outputs[0][0].name

    def __repr__(self) -> str:
        kind = type(self).__name__
        if len(self._outputs) == 1:
            return f"<{kind} {self.name}>"
        return f"<{kind} group [" + ", ".join(n.name for n, _ in self._outputs) + "]>"

    def __len__(self) -> int:
        return len(self._outputs)

    def __iter__(self):
        return (type(self)([o]) for o in self._outputs)

    def __getitem__(self, index):
        """Select an output by position, by name (:meth:`list_outputs`) or a slice of them
        (a group), as MXNet's ``Symbol.__getitem__``.

        Examples
        --------
        >>> import mxgrad as mx
        >>> s = mx.sym.SliceChannel(mx.sym.var('x'), num_outputs=3, name='s')
        >>> s['s_output1'].list_outputs(), s[::2].list_outputs()
        (['s_output1'], ['s_output0', 's_output2'])
        """
        count = len(self._outputs)
        if isinstance(index, slice):
            return type(self)([self._outputs[i] for i in range(*index.indices(count))])
        if isinstance(index, str):
            names = self.list_outputs()
            hits = [i for i, n in enumerate(names) if n == index]
            if len(hits) > 1:
                raise StateError(f'There are multiple outputs with name "{index}"')
            if not hits:
                raise StateError(f'Cannot find output that matches name "{index}"; the '
                                 f'outputs are {names}')
            index = hits[0]
        if isinstance(index, (bool, np.bool_)) or not isinstance(index, (int, np.integer)):
            raise DTypeError("Symbol only support integer index to fetch i-th output, got "
                             f"{type(index).__name__}")
        if not -count <= index < count:
            raise OutOfRangeError(f"output index {index} out of range for a Symbol with "
                                  f"{count} outputs")
        return type(self)([self._outputs[index]])

    def _nodes(self) -> List[_Node]:
        if self._order is None:
            self._order = _topo(self._outputs)
        return self._order

    def list_arguments(self) -> List[str]:
        """Names of the variables that are arguments (inputs and parameters)."""
        nodes = self._nodes()
        aux = _aux_ids(nodes)
        return [n.name for n in nodes if n.is_var and id(n) not in aux]

    def list_auxiliary_states(self) -> List[str]:
        """Names of the auxiliary-state variables (BatchNorm's running statistics)."""
        nodes = self._nodes()
        aux = _aux_ids(nodes)
        return [n.name for n in nodes if n.is_var and id(n) in aux]

    def list_inputs(self) -> List[str]:
        """Names of all variables, arguments and auxiliary states."""
        return [n.name for n in self._nodes() if n.is_var]

    def list_outputs(self) -> List[str]:
        """Output names as MXNet gives them: ``<node>_output``, ``<node>_output<i>`` for
        an op with several outputs, or the op's own names (``bn_mean``, ``d_mask``)."""
        names = []
        for node, i in self._outputs:
            if node.is_var:
                names.append(node.name)
            elif node.spec.out_names is not None:       # the op names its outputs
                names.append(f"{node.name}_{node.spec.out_names[i]}")
            elif node.num_outputs() > 1:                # hidden ones count too
                names.append(f"{node.name}_output{i}")
            else:
                names.append(f"{node.name}_output")
        return names

    def get_internals(self) -> "Symbol":
        """A Symbol whose outputs are every visible output of every node."""
        outs: list = []
        for n in self._nodes():
            outs.extend((n, i) for i in range(n.num_visible()))
        return type(self)(outs)

    def get_children(self) -> Optional["Symbol"]:
        """The inputs of this Symbol's (single) node, grouped; ``None`` for a variable."""
        node = self._outputs[0][0]
        if not node.inputs:
            return None
        return type(self)(node.inputs)

    def attr(self, key: str) -> Optional[str]:
        """The string attribute ``key`` of the node (single output); ``lr_mult`` and the
        other hidden keys are found under ``__lr_mult__`` too.

        Examples
        --------
        >>> import mxgrad as mx
        >>> mx.sym.var('w', lr_mult=2).attr('lr_mult')
        '2'
        """
        attrs = self._outputs[0][0].attrs
        value = attrs.get(key)
        if value is None and key in HIDDEN_KEYS:
            value = attrs.get(f"__{key}__")
        return value

    def list_attr(self, recursive: bool = False) -> Dict[str, str]:
        """The attributes of the node of this Symbol (each hidden ``__key__`` also as
        ``key``, as MXNet lists them)."""
        if recursive:
            raise DeprecationWarning("Symbol.list_attr with recursive=True has been "
                                     "deprecated. Please use attr_dict instead.")
        return listed(self._outputs[0][0].attrs)

    def attr_dict(self) -> Dict[str, Dict[str, str]]:
        """``{node name: attributes}`` for every node with attributes."""
        return {n.name: listed(n.attrs) for n in self._nodes() if n.attrs}

    def debug_str(self) -> str:
        """The graph as text, in MXNet's layout: outputs, variables, then each operator
        node with its inputs and attributes.

        Examples
        --------
        >>> import mxgrad as mx
        >>> print(mx.sym.relu(mx.sym.var('x'), name='r').debug_str())
        Symbol Outputs:
        	output[0]=r(0)
        Variable:x
        --------------------
        Op:relu, Name=r
        Inputs:
        	arg[0]=x(0) version=0
        <BLANKLINE>
        """
        lines = ["Symbol Outputs:"]
        lines += [f"\toutput[{k}]={n.name}({i})" for k, (n, i) in enumerate(self._outputs)]
        nodes = self._nodes()
        lines += [f"Variable:{n.name}" for n in nodes if n.is_var]
        for n in nodes:
            if n.is_var:
                continue
            lines += ["--------------------", f"Op:{n.op}, Name={n.name}", "Inputs:"]
            lines += [f"\targ[{k}]={src.name}({j})" + (" version=0" if src.is_var else "")
                      for k, (src, j) in enumerate(n.inputs)]
            own = {k: v for k, v in n.attrs.items()}
            if own:
                lines.append("Attrs:")
                lines += [f"\t{k}={v}" for k, v in own.items()]
        return "\n".join(lines) + "\n"

    def _set_attr(self, **kwargs: str) -> None:
        """Set string attributes of this Symbol's node (MXNet's ``_set_attr``).

        Examples
        --------
        >>> import mxgrad as mx
        >>> x = mx.sym.var('x')
        >>> x._set_attr(mood='calm', lr_mult='0.5')
        >>> x.list_attr()
        {'mood': 'calm', '__lr_mult__': '0.5', 'lr_mult': '0.5'}
        """
        for key, value in kwargs.items():
            if not isinstance(value, str):
                raise DTypeError(f"_set_attr: attribute {key!r} must be a string, got "
                                 f"{type(value).__name__} (Set Attr only accepts strings)")
            for node, _ in self._outputs:
                node.attrs[stored_key(key)] = value

    # ------------------------------------------------------------- shape while tracing
    def _shadow(self) -> NDArray:
        node, i = self._outputs[0]
        if len(self._outputs) != 1 or node.shadow is None:
            raise ShapeError(
                f"the shape of Symbol {self.name} is not known: mxgrad knows shapes of "
                f"Symbols only while tracing a block that ran on data, or when every "
                f"variable has a shape (mx.sym.var('data', shape=(...)))")
        return node.shadow[i]

    @property
    def shape(self) -> tuple:
        """The shape of this output while tracing on example data (see :meth:`_shadow`)."""
        return self._shadow().shape

    @property
    def ndim(self) -> int:
        """Number of dimensions (known while tracing on example data)."""
        return len(self._shadow().shape)

    @property
    def dtype(self):
        return self._shadow().dtype

    def infer_shape(self, *args, **shapes):
        """``(arg_shapes, out_shapes, aux_shapes)`` from the shapes of some variables.

        Shapes come as keywords, positionally (in :meth:`list_arguments` order, ``None``
        for unknown) or from variables' ``__shape__`` attributes, and may be partial
        (``0`` for an unknown dimension; ``-1`` under ``mx.np_shape()``). They flow forward
        and backward through the operators' shape rules (see :mod:`mxgrad.symbol._shape`).
        If some shape stays unknown, MXNet's warning names the arguments and
        ``(None, None, None)`` is returned; shapes that contradict each other raise
        :class:`~mxgrad.base.ShapeError` naming the operator.

        Examples
        --------
        >>> import mxgrad as mx
        >>> y = mx.sym.FullyConnected(mx.sym.var('x'), num_hidden=2, name='fc')
        >>> y.infer_shape(x=(4, 3))
        ([(4, 3), (2, 3), (2,)], [(4, 2)], [])
        """
        res = self._infer_shape_impl(args, shapes)
        if all(_shape_known(s) for part in res for s in part):
            return res
        unknown = [f"{name}: {s}" for name, s in zip(self.list_arguments(), res[0])
                   if not _shape_known(s)][:10]
        warnings.warn("Cannot decide shape for the following arguments (0s in shape means "
                      "unknown dimensions). Consider providing them as input:\n\t"
                      + "\n\t".join(unknown), stacklevel=2)
        return None, None, None

    def infer_shape_partial(self, *args, **shapes):
        """:meth:`infer_shape`, returning what is known: ``()`` for an unknown shape and
        ``0`` for an unknown dimension (``None`` and ``-1`` under ``mx.np_shape()``).

        Examples
        --------
        >>> import mxgrad as mx
        >>> mx.sym.FullyConnected(mx.sym.var('x'), num_hidden=2).infer_shape_partial()
        ([(), (), ()], [()], [])
        """
        return self._infer_shape_impl(args, shapes)

    def _given(self, args, kwargs, what, convert):
        names = self.list_arguments()
        if len(args) > len(names):
            raise ShapeError(f"infer_{what}: {len(args)} positional {what}s for "
                             f"{len(names)} arguments {names}")
        given = {n: convert(v) for n, v in zip(names, args) if v is not None}
        inputs = self.list_inputs()
        for k, v in kwargs.items():
            if k not in inputs:
                raise ShapeError(f"infer_{what}: keyword argument name {k} not found; "
                                 f"candidate arguments: {inputs}")
            if v is not None:
                given[k] = convert(v)
        return given

    def _infer_shape_impl(self, args, kwargs):
        from . import _shape
        given = self._given(args, kwargs, "shape", _shape.from_user)
        nodes = self._nodes()
        entries = _shape.infer(self, given)
        aux = _aux_ids(nodes)
        to = _shape.to_user
        return ([to(entries[(id(n), 0)]) for n in nodes if n.is_var and id(n) not in aux],
                [to(entries.get((id(n), i))) for n, i in self._outputs],
                [to(entries[(id(n), 0)]) for n in nodes if n.is_var and id(n) in aux])

    def _infer_type_impl(self, args, kwargs):
        from . import _dtype
        given = self._given(args, kwargs, "type", _dtype.as_dtype)
        nodes = self._nodes()
        entries = _dtype.infer(self, given)
        aux = _aux_ids(nodes)

        def to(t):
            return None if t is None else t.type
        return ([to(entries[(id(n), 0)]) for n in nodes if n.is_var and id(n) not in aux],
                [to(entries.get((id(n), i))) for n, i in self._outputs],
                [to(entries[(id(n), 0)]) for n in nodes if n.is_var and id(n) in aux])

    def infer_type(self, *args, **types):
        """``(arg_types, out_types, aux_types)`` from the dtypes of some variables (as
        keywords or positionally, or their ``dtype``); ``(None, None, None)`` with MXNet's
        warning when some stay unknown; see :mod:`mxgrad.symbol._dtype`.

        Examples
        --------
        >>> import mxgrad as mx
        >>> mx.sym.FullyConnected(mx.sym.var('x'), num_hidden=2).infer_type(x='float64')[1]
        [<class 'numpy.float64'>]
        """
        res = self._infer_type_impl(args, types)
        if all(t is not None for part in res for t in part):
            return res
        unknown = [f"{name}: None" for name, t in zip(self.list_arguments(), res[0])
                   if t is None][:10]
        warnings.warn("Cannot decide type for the following arguments. Consider providing "
                      "them as input:\n\t" + "\n\t".join(unknown), stacklevel=2)
        return None, None, None

    def infer_type_partial(self, *args, **types):
        """:meth:`infer_type`, with ``None`` for the dtypes that cannot be worked out.

        Examples
        --------
        >>> import mxgrad as mx
        >>> mx.sym.Cast(mx.sym.var('x'), dtype='float16').infer_type_partial()
        ([None], [<class 'numpy.float16'>], [])
        """
        return self._infer_type_impl(args, types)

    # ------------------------------------------------------------- composing
    def _substitute(self, mapping: Dict[str, "Symbol"]) -> "Symbol":
        """A copy of the graph with the variables named in ``mapping`` replaced by
        those (single-output) Symbols; node names and attributes are kept."""
        new = {}
        for n in self._nodes():
            if n.is_var:
                rep = mapping.get(n.name)
                new[id(n)] = rep._outputs[0] if rep is not None else (n, 0)
                continue
            inputs = []
            for src, j in n.inputs:
                node, k = new[id(src)]
                inputs.append((node, k + j if src.is_var else j))
            copy = _Node(n.op, n.name, dict(n.attrs), inputs, n.spec, n.kwargs)
            if inputs and all(src.shadow is not None for src, _ in inputs):
                with autograd.pause(train_mode=False):
                    copy.shadow = _run_node(copy, [src.shadow[j] for src, j in inputs])
            new[id(n)] = (copy, 0)
        outs = []
        for n, i in self._outputs:
            node, k = new[id(n)]
            outs.append((node, k + i if n.is_var else i))
        return type(self)(outs)

    def __call__(self, *args, **kwargs) -> "Symbol":
        """Compose: replace variables by Symbols, by name (``kwargs``) or in the order
        of :meth:`list_arguments` (``args``).

        Examples
        --------
        >>> import mxgrad as mx
        >>> f = mx.sym.relu(mx.sym.var('a'), name='r')
        >>> g = f(a=mx.sym.var('b') * 2)
        >>> g.list_arguments()
        ['b']
        """
        kwargs = dict(kwargs)
        name = kwargs.pop("name", None)
        if self._outputs[0][0].is_var:
            raise MXNetError("Variable cannot be composed")
        names = self.list_arguments()
        mapping = dict(zip(names, args))
        for k, v in kwargs.items():
            if k not in names and k not in self.list_inputs():
                raise MXNetError(f"compose: the graph has no variable {k!r}")
            mapping[k] = v
        for k, v in mapping.items():
            if not isinstance(v, Symbol) or len(v._outputs) != 1:
                raise DTypeError(f"compose: {k!r} must be a single-output Symbol")
        out = self._substitute(mapping)
        if name:        # MXNet names the composed head node
            out._outputs[0][0].name = name
        return out

    def _gen_atomic_symbol(self) -> "Symbol":
        """A new node with this Symbol's operator and attributes, on fresh variables
        (MXNet's ``_gen_atomic_symbol``)."""
        from . import _ops
        node = self._outputs[0][0]
        if node.is_var:
            raise MXNetError("_gen_atomic_symbol: a variable has no operator")
        attrs = {k: v for k, v in node.attrs.items() if not k.startswith("__")}
        return _ops.call(node.op, node.op.lower(), (), dict(attrs, name=node.name))

    def __reduce__(self):
        # pickled as its JSON, as MXNet does
        return (load_json, (self.tojson(),))

    # ------------------------------------------------------------- running
    def bind(self, ctx, args, args_grad=None, grad_req="write", aux_states=None,
             group2ctx=None, shared_exec=None):
        """Bind arrays to the arguments: an :class:`~mxgrad.executor.Executor` that runs
        the graph forward and writes gradients into ``args_grad`` in backward.

        Parameters
        ----------
        ctx : Context
        args : list or dict of NDArray
            One array per argument (``list_arguments()`` order, or by name).
        args_grad : list or dict of NDArray, optional
            Gradient buffers (by name, some may be left out: no gradient).
        grad_req : {'write', 'add', 'null'}, list or dict
            How gradients are stored, for all arguments or per argument.
        aux_states : list or dict of NDArray, optional
            The auxiliary states (BatchNorm's running statistics).

        Examples
        --------
        >>> import mxgrad as mx
        >>> x = mx.sym.var('x')
        >>> ex = (x * x).bind(mx.cpu(), {'x': mx.nd.array([3.0])},
        ...                   args_grad={'x': mx.nd.zeros(1)})
        >>> ex.forward(is_train=True)[0].asnumpy().tolist()
        [9.0]
        >>> ex.backward(mx.nd.ones(1)); ex.grad_dict['x'].asnumpy().tolist()
        [6.0]
        """
        from ..executor import bind
        return bind(self, ctx, args, args_grad, grad_req, aux_states, group2ctx, shared_exec)

    _bind = bind

    def simple_bind(self, ctx, grad_req="write", type_dict=None, stype_dict=None,
                    group2ctx=None, shared_arg_names=None, shared_exec=None,
                    shared_buffer=None, **kwargs):
        """Bind zero-filled arrays shaped from the given input shapes (``data=(n, k)``):
        shapes and dtypes (``type_dict``) of every argument are inferred; gradient buffers
        are made for arguments whose ``grad_req`` is not ``'null'``. With ``shared_exec``
        the arrays of equal name, shape and dtype are shared with that executor.

        Examples
        --------
        >>> import mxgrad as mx
        >>> y = mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=2, name='fc')
        >>> ex = y.simple_bind(mx.cpu(), data=(4, 3))
        >>> [a.shape for a in ex.arg_arrays]
        [(4, 3), (2, 3), (2,)]
        """
        from ..executor import simple_bind
        return simple_bind(self, ctx, grad_req, type_dict, stype_dict, group2ctx,
                           shared_arg_names, shared_exec, shared_buffer, **kwargs)

    def eval(self, ctx=None, **kwargs) -> List[NDArray]:
        """Run the graph on the NDArrays given by variable name; a list of outputs."""
        return evaluate(self, kwargs)

    # ------------------------------------------------------------- JSON
    def tojson(self, remove_amp_cast: bool = True) -> str:
        """The graph in MXNet 1.x's JSON format (what ``*-symbol.json`` files hold)."""
        nodes = self._nodes()
        index = {id(n): i for i, n in enumerate(nodes)}
        aux_pos: dict = {}
        out_nodes, row_ptr = [], [0]
        for n in nodes:
            entry: Dict[str, Any] = {"op": n.op, "name": n.name}
            subgraphs = None
            if n.kwargs and "_subgraphs" in n.kwargs:     # control flow, as MXNet writes it
                from ._control_flow import to_json_entry
                n_attrs, subgraphs = to_json_entry(n, lambda s: json.loads(s.tojson()))
                entry["attrs"] = {k: n_attrs[k] for k in sorted(n_attrs)}
            elif n.attrs:
                entry["attrs"] = {k: n.attrs[k] for k in sorted(n.attrs)}
            aux = set(n.spec.aux) if n.spec is not None else ()
            entry["inputs"] = [[index[id(src)], j, 1 if k in aux else 0]
                               for k, (src, j) in enumerate(n.inputs)]
            if subgraphs is not None:
                entry["subgraphs"] = subgraphs
            out_nodes.append(entry)
            row_ptr.append(row_ptr[-1] + n.num_outputs())
        del aux_pos
        graph = {
            "nodes": out_nodes,
            "arg_nodes": [i for i, n in enumerate(nodes) if n.is_var],
            "node_row_ptr": row_ptr,
            "heads": [[index[id(n)], i, 0] for n, i in self._outputs],
            "attrs": {"mxnet_version": ["int", MXNET_VERSION]},
        }
        from ..util import is_np_shape
        if is_np_shape():       # a graph whose 0s in shapes are sizes, not unknowns
            graph["attrs"] = {"is_np_shape": ["int", 1], "mxnet_version": ["int", MXNET_VERSION]}
        return _format_graph(graph)

    def save(self, fname: str, remove_amp_cast: bool = True) -> None:
        """Write :meth:`tojson` to ``fname`` (atomically)."""
        _write_text(fname, self.tojson())

    # ------------------------------------------------------------- copies
    def copy(self) -> "Symbol":
        """The same graph (MXNet's ``copy`` is a copy of the handle)."""
        return type(self)(self._outputs)

    __copy__ = copy

    def __deepcopy__(self, memo):
        return load_json(self.tojson())

    # ------------------------------------------------------------- arithmetic
    def _binary(self, other, op, hint, sop, shint, reverse=False):
        from . import _ops
        if isinstance(other, Symbol):
            a, b = (other, self) if reverse else (self, other)
            return _ops.make(op, [a, b], {}, None, hint)
        if isinstance(other, (int, float, np.number)) and not isinstance(other, bool) \
                or isinstance(other, np.bool_):
            return _ops.make(sop, [self], {"scalar": other}, None, shint)
        if isinstance(other, bool):
            return _ops.make(sop, [self], {"scalar": int(other)}, None, shint)
        return NotImplemented

    def __add__(self, o):
        return self._binary(o, "elemwise_add", "_plus", "_plus_scalar", "_plusscalar")

    __radd__ = __add__

    def __sub__(self, o):
        return self._binary(o, "elemwise_sub", "_minus", "_minus_scalar", "_minusscalar")

    def __rsub__(self, o):
        return self._binary(o, "elemwise_sub", "_minus", "_rminus_scalar",
                            "_rminusscalar", True)

    def __mul__(self, o):
        return self._binary(o, "elemwise_mul", "_mul", "_mul_scalar", "_mulscalar")

    __rmul__ = __mul__

    def __truediv__(self, o):
        return self._binary(o, "elemwise_div", "_div", "_div_scalar", "_divscalar")

    def __rtruediv__(self, o):
        return self._binary(o, "elemwise_div", "_div", "_rdiv_scalar", "_rdivscalar", True)

    __div__, __rdiv__ = __truediv__, __rtruediv__

    def __mod__(self, o):
        return self._binary(o, "_mod", "_mod", "_mod_scalar", "_modscalar")

    def __rmod__(self, o):
        return self._binary(o, "_mod", "_mod", "_rmod_scalar", "_rmodscalar", True)

    def __pow__(self, o):
        return self._binary(o, "_power", "_power", "_power_scalar", "_powerscalar")

    def __rpow__(self, o):
        return self._binary(o, "_power", "_power", "_rpower_scalar", "_rpowerscalar", True)

    def __neg__(self):
        return self.__mul__(-1.0)

    def __eq__(self, o):
        return self._binary(o, "_equal", "_equal", "_equal_scalar", "_equalscalar")

    def __ne__(self, o):
        return self._binary(o, "_not_equal", "_not_equal", "_not_equal_scalar",
                            "_notequalscalar")

    def __gt__(self, o):
        return self._binary(o, "_greater", "_greater", "_greater_scalar", "_greaterscalar")

    def __ge__(self, o):
        return self._binary(o, "_greater_equal", "_greater_equal", "_greater_equal_scalar",
                            "_greaterequalscalar")

    def __lt__(self, o):
        return self._binary(o, "_lesser", "_lesser", "_lesser_scalar", "_lesserscalar")

    def __le__(self, o):
        return self._binary(o, "_lesser_equal", "_lesser_equal", "_lesser_equal_scalar",
                            "_lesserequalscalar")

    __hash__ = object.__hash__

    def __bool__(self):
        raise NotImplementedForSymbol(self.__bool__, "bool")

    def __abs__(self) -> "Symbol":
        from . import _ops
        return _ops.call("abs", "abs", (self,), {})

    # ------------------------------------------------------------- faces
    def as_np_ndarray(self) -> "Symbol":
        """This graph as a Symbol of MXNet's NumPy interface (``mx.sym.np``'s
        ``_Symbol``: NumPy operators and methods, nodes computing on ``mx.np`` arrays)."""
        from .numpy._symbol import as_np_symbol
        return as_np_symbol(self)

    def as_nd_ndarray(self) -> "Symbol":
        """This graph as a legacy Symbol (itself)."""
        return self

    # ------------------------------------------------------------- fluent methods
    def astype(self, dtype) -> "Symbol":
        from . import _ops
        return _ops.make("Cast", [self], {"dtype": dtype}, None, "cast")


def _fluent(opname, hint):
    def method(self, *args, **kwargs):
        from . import _ops
        return _ops.call(opname, hint, (self,) + args, kwargs)
    method.__name__ = hint
    method.__doc__ = f"``mx.sym.{hint}(self, ...)``."
    return method


def _nd_only(name):
    def method(self, *args, **kwargs):
        raise NotImplementedForSymbol(method, None, *args)
    method.__name__ = name
    method.__doc__ = f"NDArray only: raises :class:`~mxgrad.base.NotImplementedForSymbol`."
    return method


for _name in ("asnumpy", "asscalar", "as_in_context", "backward", "detach", "wait_to_read",
              "attach_grad", "copyto"):
    setattr(Symbol, _name, _nd_only(_name))


def _split_v2_method(self, indices_or_sections, axis=0, squeeze_axis=False, **kwargs):
    """``mx.sym.split_v2(self, ...)``."""
    from . import split_v2
    return split_v2(self, indices_or_sections, axis, squeeze_axis, **kwargs)


setattr(Symbol, "split_v2", _split_v2_method)

for _name in ("arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctanh", "cbrt", "cos",
              "cosh", "degrees", "expm1", "fix", "log10", "log1p", "log2", "nanprod",
              "nansum", "radians", "rcbrt", "rint", "rsqrt", "sin", "sinh", "softmin",
              "tan", "trunc", "argmax_channel", "argsort", "sort", "topk", "diag",
              "depth_to_space", "space_to_depth", "shape_array", "size_array",
              "reshape_like", "broadcast_like", "slice_like", "slice"):
    setattr(Symbol, _name, _fluent(_name, _name))
for _name, _op in (("broadcast_axes", "broadcast_axis"), ("pad", "Pad")):
    setattr(Symbol, _name, _fluent(_op, _name))
for _name, _op in (("reshape", "Reshape"), ("flatten", "Flatten"), ("transpose", "transpose"),
                   ("expand_dims", "expand_dims"), ("squeeze", "squeeze"), ("sum", "sum"),
                   ("mean", "mean"), ("max", "max"), ("min", "min"), ("prod", "prod"),
                   ("norm", "norm"), ("argmax", "argmax"), ("argmin", "argmin"),
                   ("softmax", "softmax"), ("log_softmax", "log_softmax"),
                   ("relu", "relu"), ("sigmoid", "sigmoid"), ("tanh", "tanh"),
                   ("exp", "exp"), ("log", "log"), ("sqrt", "sqrt"), ("square", "square"),
                   ("abs", "abs"), ("clip", "clip"), ("swapaxes", "SwapAxis"),
                   ("split", "SliceChannel"), ("slice_axis", "slice_axis"),
                   ("tile", "tile"), ("repeat", "repeat"), ("broadcast_to", "broadcast_to"),
                   ("take", "take"), ("pick", "pick"), ("one_hot", "one_hot"),
                   ("zeros_like", "zeros_like"), ("ones_like", "ones_like"),
                   ("flip", "reverse"), ("sign", "sign"), ("round", "round"),
                   ("floor", "floor"), ("ceil", "ceil"), ("reciprocal", "reciprocal")):
    setattr(Symbol, _name, _fluent(_op, _name))


def _shape_known(s) -> bool:
    """Whether a shape as :meth:`Symbol.infer_shape` returns it is complete."""
    from ..util import is_np_shape
    if s is None:
        return False
    if is_np_shape():
        return all(d >= 0 for d in s)
    return len(s) > 0 and all(d > 0 for d in s)


def _known_shape(node: _Node) -> Optional[tuple]:
    s = node.attrs.get("__shape__")
    if s is None:
        return None
    try:
        shape = tuple(int(d) for d in s.strip("()[] ").split(",") if d.strip())
    except ValueError:
        return None
    if any(d <= 0 for d in shape):
        return None
    return shape


def _format_graph(graph: dict) -> str:
    """JSON text laid out as MXNet's (dmlc) writer does, so files diff cleanly: the
    nodes one per block, arrays of more than 10 items and objects of more than one
    entry over several lines, the rest inline, ``", "`` before each line break."""
    def inline(v):
        return json.dumps(v, separators=(", ", ": "))

    def block(items, indent):
        pad = " " * indent
        return [pad + it + (", " if i + 1 < len(items) else "")
                for i, it in enumerate(items)]

    def array(v, indent):
        if len(v) <= 10:
            return inline(v)
        return ("[\n" + "\n".join(block([inline(e) for e in v], indent + 2)) + "\n"
                + " " * indent + "]")

    def obj(d, indent):
        if len(d) <= 1:
            return inline(d)
        items = [f"{json.dumps(k)}: {json.dumps(v)}" for k, v in d.items()]
        return "{\n" + "\n".join(block(items, indent + 2)) + "\n" + " " * indent + "}"

    node_texts = []
    for n in graph["nodes"]:
        fields = [f'"op": {json.dumps(n["op"])}', f'"name": {json.dumps(n["name"])}']
        if "attrs" in n:
            fields.append(f'"attrs": {obj(n["attrs"], 6)}')
        fields.append(f'"inputs": {array(n["inputs"], 6)}')
        if "subgraphs" in n:        # control flow: MXNet's subgraphs, compact
            fields.append(f'"subgraphs": {json.dumps(n["subgraphs"])}')
        node_texts.append("{\n" + "\n".join(block(fields, 6)) + "\n    }")
    top = ['"nodes": [\n' + "\n".join(block(node_texts, 4)) + "\n  ]"]
    for key in ("arg_nodes", "node_row_ptr", "heads"):
        top.append(f'"{key}": {array(graph[key], 2)}')
    top.append(f'"attrs": {obj(graph["attrs"], 2)}')
    return "{\n" + "\n".join(block(top, 2)) + "\n}"


# ------------------------------------------------------------------ variables
def example_var(name: str, value: Optional[NDArray], np_face: bool = False) -> "Symbol":
    """A variable ``name`` whose example value while tracing is ``value`` (None: unknown):
    a NumPy-interface ``_Symbol`` when ``value`` is an ``mx.np`` array or ``np_face``."""
    v = var(name)
    if value is not None:
        v._outputs[0][0].shadow = (value,)
        np_face = np_face or type(value) is FACES.get("np")
    return v.as_np_ndarray() if np_face else v


def var(name: str, attr: Optional[dict] = None, shape=None, lr_mult=None, wd_mult=None,
        dtype=None, init=None, stype=None, **kwargs) -> Symbol:
    """A variable (graph input or parameter) named ``name``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> x = mx.sym.var('data', shape=(2, 3))
    >>> x.list_arguments(), x.attr('__shape__')
    (['data'], '(2, 3)')
    """
    if not isinstance(name, str):
        raise DTypeError(f"var(): name must be a str, got {type(name).__name__}")
    attrs = {}
    if attr:
        attrs.update({stored_key(k): str(v) for k, v in attr.items()})
    if shape is not None:
        attrs["__shape__"] = str(tuple(shape))
    if lr_mult is not None:
        attrs["__lr_mult__"] = str(lr_mult)
    if wd_mult is not None:
        attrs["__wd_mult__"] = str(wd_mult)
    if dtype is not None:
        attrs["__dtype__"] = str(_DTYPE_FLAGS[np.dtype(dtype).name])
    if init is not None:
        attrs["__init__"] = init if isinstance(init, str) else init.dumps()
    if stype is not None:
        attrs["__storage_type__"] = str({"default": 0, "row_sparse": 1, "csr": 2}.get(
            stype, 0))
    for k, v in kwargs.items():
        if k.startswith("__") and k.endswith("__"):
            attrs[k] = str(v)
        else:
            raise MXNetError(f"var(): unknown argument {k!r}; attributes go in attr={{}} "
                             f"or as __{k}__=...")
    node = _Node("null", name, attrs, [])
    known = _known_shape(node)
    if known is not None:
        node.shadow = (nd.zeros(known, dtype=np.dtype(dtype).name if dtype else "float32"),)
    return Symbol([(node, 0)])


Variable = var


def Group(symbols: Sequence[Symbol]) -> Symbol:
    """One Symbol with the outputs of all ``symbols``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> a = mx.sym.var('a')
    >>> mx.sym.Group([mx.sym.relu(a, name='r'), mx.sym.exp(a, name='e')]).list_outputs()
    ['r_output', 'e_output']
    """
    outs = []
    for s in symbols:
        if not isinstance(s, Symbol):
            raise DTypeError(f"Group() takes Symbols, got {type(s).__name__}")
        outs.extend(s._outputs)
    if not outs:
        raise MXNetError("Group() needs at least one Symbol")
    # a group of NumPy-interface Symbols is one too (MXNet's Group(..., _Symbol))
    cls = next((type(s) for s in symbols if type(s)._npface), Symbol)
    return cls(outs)


# ------------------------------------------------------------------ evaluation
def _eval(heads, nodes, values):
    env = {}
    for n in nodes:
        if n.is_var:
            if n.name not in values:
                raise MXNetError(f"no value for variable '{n.name}'")
            env[id(n)] = (values[n.name],)
        else:
            args = []
            for src, j in n.inputs:
                outs = env[id(src)]
                if j >= len(outs):
                    raise MXNetError(f"node '{n.name}' (op {n.op}) reads output {j} of "
                                     f"'{src.name}', which mxgrad's {src.op} does not "
                                     f"compute")
                args.append(outs[j])
            env[id(n)] = _run_node(n, args)
    return [env[id(n)][i] for n, i in heads], env


#: operators that make an array from a ``shape`` attribute, where -1 (and, in MXNet's legacy
#: shapes, 0) reads as "unknown, inferred from the graph" (``mx.sym.zeros((0, n))``: RNN
#: states; ``mx.sym.ones((2, -1))``)
_SHAPE_ATTR_OPS = ("_zeros", "_ones", "_full")


def _unknown_dims(node) -> bool:
    if node.op not in _SHAPE_ATTR_OPS:
        return False
    shape = (node.kwargs or {}).get("shape")
    if shape is None:
        return False
    from ..util import is_unknown_dim
    return any(is_unknown_dim(d)
               for d in ((shape,) if isinstance(shape, int) else tuple(shape)))


def with_inferred_shapes(symbol: Symbol, shapes: Dict[str, tuple]) -> Symbol:
    """``symbol`` itself, or a copy in which the nodes making arrays of a shape with
    unknown (0) dimensions have the shape that inference finds from ``shapes`` (the
    variables' shapes by name): what MXNet's executor does at bind time."""
    nodes = symbol._nodes()
    todo = [n for n in nodes if _unknown_dims(n)]
    if not todo:
        return symbol
    from ._shape import infer_entries, from_user, known
    found = infer_entries(nodes, {k: from_user(v) for k, v in shapes.items()})
    fixed = {}
    for n in todo:
        s = found.get((id(n), 0))
        if s is None or not known(s):
            raise ShapeError(f"node '{n.name}' ({n.op}) has shape "
                             f"{tuple(n.kwargs['shape'])} with unknown (0 or -1) dimensions that "
                             f"the graph does not determine; give them")
        fixed[id(n)] = tuple(s)
    new = {}
    for n in nodes:
        if n.is_var:
            new[id(n)] = n
            continue
        kwargs = dict(n.kwargs, shape=fixed[id(n)]) if id(n) in fixed else n.kwargs
        copy = _Node(n.op, n.name, dict(n.attrs), [(new[id(src)], j) for src, j in n.inputs],
                     n.spec, kwargs)
        copy.seq = n.seq        # it stands for n: the same place in the order of calls
        new[id(n)] = copy
    return type(symbol)([(new[id(n)], i) for n, i in symbol._outputs])


def evaluate(symbol: Symbol, values: Dict[str, NDArray]) -> List[NDArray]:
    """Run ``symbol`` with the NDArrays ``values`` (by variable name) through ``mx.nd``.

    Runs under the caller's autograd scope: inside ``record()`` the result is
    differentiable, in training mode BatchNorm uses and updates batch statistics.
    Variables that only feed a training loss's label (``SoftmaxOutput``) may be left
    out.
    """
    symbol = with_inferred_shapes(symbol, {k: v.shape for k, v in values.items()
                                           if v is not None})
    nodes = symbol._nodes()
    labels = symbol._labels
    if labels is None:
        labels = symbol._labels = tuple(
            n.inputs[1][0].name for n in nodes
            if n.op in LABEL_OPS and len(n.inputs) > 1 and n.inputs[1][0].is_var)
    if labels:
        values = dict(values)
        for name in labels:
            values.setdefault(name, None)  # type: ignore[arg-type]
    return _eval(symbol._outputs, nodes, values)[0]


# ------------------------------------------------------------------ loading
def _check_op(op: str, name: str):
    spec = lookup(op)
    if spec is None:
        raise UnknownOpError(
            f"node '{name}' uses operator {op!r}, which mxgrad does not implement "
            f"(supported: mx.sym.supported_ops()); rebuild that part of the model with "
            f"Gluon layers")
    return spec


def _bad_json(where: str, problem: str) -> FileFormatError:
    return FileFormatError(f"load_json: {where} {problem}; a Symbol JSON is MXNet's "
                           f"Symbol.tojson() / *-symbol.json output")


def _entry(e, where: str) -> Tuple[int, int]:
    """``(node index, output index)`` of an input or head entry ``[k, j]`` or ``[k, j, v]``."""
    if not isinstance(e, list) or not 2 <= len(e) <= 3 or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in e):
        raise _bad_json(where, f"is {e!r:.60}, not [node, output] (integers)")
    return e[0], e[1]


def _json_node(entry, i: int, nodes: List[_Node]) -> _Node:
    if not isinstance(entry, dict):
        raise _bad_json(f"node {i}", f"is a {type(entry).__name__}, not an object")
    op = entry.get("op", "null")
    name = entry.get("name", f"node{i}")
    if not isinstance(op, str) or not isinstance(name, str):
        raise _bad_json(f"node {i}", "needs a string 'op' and 'name'")
    attrs = entry.get("attrs", entry.get("attr", entry.get("param", {}))) or {}
    if not isinstance(attrs, dict):
        raise _bad_json(f"node '{name}'", "has attributes that are not an object")
    attrs = {str(k): str(v) for k, v in attrs.items()}
    raw_inputs = entry.get("inputs", [])
    if not isinstance(raw_inputs, list):
        raise _bad_json(f"node '{name}'", "has 'inputs' that are not a list")
    inputs = []
    for e in raw_inputs:
        src, j = _entry(e, f"an input of node '{name}'")
        if not 0 <= src < i:
            raise _bad_json(f"node '{name}'", f"has input {src}, which is not an earlier node")
        if not 0 <= j < nodes[src].num_outputs():
            raise _bad_json(f"node '{name}'", f"reads output {j} of '{nodes[src].name}', "
                            f"which has {nodes[src].num_outputs()} output(s)")
        inputs.append((nodes[src], j))
    if op == "null":
        return _Node("null", name, attrs, [])
    if op in ("_foreach", "_while_loop", "_cond") and isinstance(entry.get("subgraphs"), list):
        from ._control_flow import from_json
        subs = [load_json(json.dumps(g)) for g in entry["subgraphs"]]
        return from_json(op, name, attrs, inputs, subs)
    spec = _check_op(op, name)
    try:
        kwargs = parse_attrs(spec, attrs, name)
        spec = specialize(spec, kwargs)
        spec.num_outputs(kwargs)
    except MXNetError:
        raise
    except (ValueError, TypeError, RecursionError, MemoryError, OverflowError) as err:
        raise _bad_json(f"node '{name}' (op {op})", f"has attributes mxgrad cannot read "
                        f"({type(err).__name__}: {err})") from None
    return _Node(spec.name, name, attrs, inputs, spec, kwargs)


def load_json(json_str: str) -> Symbol:
    """The Symbol of an MXNet JSON graph (``Symbol.tojson``, ``*-symbol.json``).

    Every operator is checked here: one mxgrad cannot run raises an error naming it
    and its node. A malformed graph (wrong types, references to later nodes or to
    outputs a node does not have, absurd nesting) raises
    :class:`~mxgrad.base.FileFormatError` (an ``MXNetError`` and a ``ValueError``).

    Examples
    --------
    >>> import mxgrad as mx
    >>> try:
    ...     mx.sym.load_json('{"nodes": 5, "heads": []}')
    ... except ValueError as err:
    ...     print(type(err).__name__)
    FileFormatError
    """
    if not isinstance(json_str, (str, bytes, bytearray)):
        raise DTypeError(f"load_json: json_str must be a str, got {type(json_str).__name__}")
    try:
        graph = json.loads(json_str)
    except (ValueError, RecursionError) as err:
        raise FileFormatError(f"load_json: not a JSON graph: "
                              f"{'nested too deeply' if isinstance(err, RecursionError) else err}"
                              ) from None
    if not isinstance(graph, dict) or "nodes" not in graph or "heads" not in graph:
        raise FileFormatError("load_json: a Symbol JSON needs 'nodes' and 'heads'")
    if not isinstance(graph["nodes"], list) or not isinstance(graph["heads"], list):
        raise _bad_json("'nodes' and 'heads'", "must be lists")
    nodes: List[_Node] = []
    for i, entry in enumerate(graph["nodes"]):
        nodes.append(_json_node(entry, i, nodes))
    heads = []
    for e in graph["heads"]:
        k, j = _entry(e, "a head")
        if not 0 <= k < len(nodes):
            raise _bad_json(f"head {k}", "is not a node")
        if not 0 <= j < nodes[k].num_outputs():
            raise _bad_json(f"head [{k}, {j}]", f"reads output {j} of '{nodes[k].name}', "
                            f"which has {nodes[k].num_outputs()} output(s)")
        heads.append((nodes[k], j))
    if not heads:
        raise _bad_json("'heads'", "is empty")
    _legacy_shapes(nodes, graph)
    flag = graph.get("attrs", {}).get("is_np_shape") if isinstance(graph.get("attrs"),
                                                                    dict) else None
    if isinstance(flag, list) and flag[-1:] == [1]:
        # written in NumPy mode: its operators computed on mx.np arrays
        for n in nodes:
            if not n.is_var:
                n.npface = True
    return Symbol(heads)


def _legacy_shapes(nodes, graph) -> None:
    """A graph saved without NumPy shape semantics, loaded with them on: its variables'
    0 dimensions meant "unknown", so they become -1 (as MXNet converts them)."""
    from ..util import is_np_shape
    attrs = graph.get("attrs")
    if not is_np_shape() or (isinstance(attrs, dict) and "is_np_shape" in attrs):
        return
    for n in nodes:
        text = n.attrs.get("__shape__") if n.is_var else None
        if text is None:
            continue
        try:
            dims = tuple(int(d) for d in text.strip("()[] ").split(",") if d.strip())
        except ValueError:
            continue
        if 0 in dims:
            n.attrs["__shape__"] = str(tuple(-1 if d == 0 else d for d in dims))


def load(fname: str) -> Symbol:
    """Load a Symbol from an MXNet ``*-symbol.json`` file.

    A missing file raises :class:`~mxgrad.base.FileMissingError` (an ``MXNetError``
    and a ``FileNotFoundError``); a file that is not a Symbol JSON raises
    :class:`~mxgrad.base.FileFormatError` naming it.
    """
    with open_for_read(fname, "fname") as f:
        data = f.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise FileFormatError(f"mx.sym.load: {fname!r} is not UTF-8 text, so not a "
                              f"Symbol JSON file") from None
    try:
        return load_json(text)
    except FileFormatError as err:
        raise FileFormatError(f"mx.sym.load({fname!r}): {err}") from None


def _write_text(fname: str, text: str) -> None:
    with atomic_write(fname, "w") as f:
        f.write(text)

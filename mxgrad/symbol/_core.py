"""``Symbol``'s core: a graph of MXNet operators, as MXNet 1.x's JSON files describe it.

A Symbol is a list of outputs ``(node, index)``; a node is a variable (``op == 'null'``)
or an operator with string attributes and inputs. mxgrad builds Symbols by tracing
``hybrid_forward`` with ``F = mx.sym`` and by loading MXNet's ``*-symbol.json``; it runs
them node by node (:func:`mxgrad.symbol.symbol.evaluate`: each node calls its ``mx.nd``
op, so a Symbol graph is recorded by autograd like imperative code) or planned
(:mod:`mxgrad.symbol.plan`).

The bottom of ``mxgrad/symbol/`` (issue 20 item 5): this module imports no module of the
package. The class body below holds a Symbol's state and the methods that need nothing
else: outputs, listing, attributes, composition, copies, the shape of a traced output, the
face (``as_np_ndarray``). The methods that need modules which themselves import ``Symbol``
(shape and dtype inference, the operators ``x + y`` and the fluent methods,
``bind``/``simple_bind``, ``eval``, ``tojson``...) are the class body of its base class,
:class:`~mxgrad.symbol.symbol.SymbolMethods` (``symbol/symbol.py``, the top of the
package), as ``NDArray`` and ``NDArrayMethods`` are split (ARCHITECTURE.md, "Symbol's
face"). Symbol is declared here with a slot-less stand-in base that ``symbol.py`` replaces
(``Symbol.__bases__ = (SymbolMethods,)``); a type checker sees ``class
Symbol(SymbolMethods)``. :data:`SYMBOL_FACES` holds the Symbol class of each face
(``mx.sym.np``'s ``_Symbol`` registers itself as ``"np"``, as ``mx.np.ndarray`` does in
``_engine.ndarray.FACES``).

Examples
--------
>>> import mxgrad as mx
>>> x = mx.sym.var('data')
>>> y = mx.sym.FullyConnected(x, num_hidden=3, name='fc')
>>> y.list_arguments()
['data', 'fc_weight', 'fc_bias']
>>> y.list_outputs()
['fc_output']
>>> type(y).__mro__[1].__name__
'SymbolMethods'
"""
from __future__ import annotations

import itertools
import threading
from contextlib import contextmanager
from typing import TYPE_CHECKING, Dict, Iterator, List, Optional, Sequence, Type

import numpy as np

from .. import autograd
from .. import name as _naming
from ..attribute import stored_key, listed, HIDDEN_KEYS
from .. import ndarray as nd
from ..base import (MXNetError, OutOfRangeError, ShapeError, DTypeError,
                    NotImplementedForSymbol, StateError)
from .._engine.ndarray import NDArray, FACES, as_face

__all__ = ["Symbol", "var", "Variable", "Group", "SYMBOL_FACES"]

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
        self.trace: Optional[Dict[int, "Symbol"]] = None   # id(Parameter) -> its variable


_state = _TraceState()


@contextmanager
def tracing() -> Iterator[None]:
    """While a block is traced into Symbols: one variable per Parameter for the whole
    outermost trace (nested blocks share the outermost call's cache)."""
    outer = _state.trace is None
    if outer:
        _state.trace = {}
    try:
        yield
    finally:
        if outer:
            _state.trace = None
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


if TYPE_CHECKING:
    from .symbol import SymbolMethods as _Methods
else:
    class _Methods:
        """Symbol's base until ``symbol/symbol.py`` (imported by ``mx.sym``) makes
        :class:`~mxgrad.symbol.symbol.SymbolMethods` its base: the methods that need the
        modules built on this class (inference, the operators, binding, JSON)."""
        __slots__ = ()


class Symbol(_Methods):
    """A symbolic graph: one or more outputs of operator nodes.

    Build one with :func:`var` and the ``mx.sym`` operators (or by calling a
    HybridBlock on a Symbol), load one with :func:`mxgrad.symbol.load`, run it with
    ``gluon.SymbolBlock`` or :meth:`bind`.

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

    # ------------------------------------------------------------- copies
    def copy(self) -> "Symbol":
        """The same graph (MXNet's ``copy`` is a copy of the handle)."""
        return type(self)(self._outputs)

    __copy__ = copy

    def __bool__(self):
        raise NotImplementedForSymbol(self.__bool__, "bool")

    # ------------------------------------------------------------- faces
    def as_np_ndarray(self) -> "Symbol":
        """This graph as a Symbol of MXNet's NumPy interface (``mx.sym.np``'s
        ``_Symbol``: NumPy operators and methods, nodes computing on ``mx.np`` arrays)."""
        cls = SYMBOL_FACES["np"]
        return self if type(self) is cls else cls(self._outputs)

    def as_nd_ndarray(self) -> "Symbol":
        """This graph as a legacy Symbol (itself)."""
        return self


#: the Symbol class of each face: ``"nd"`` (legacy, ``mx.sym``) and ``"np"`` (``mx.sym.np``'s
#: ``_Symbol``, registered by ``symbol/numpy/_symbol.py``), as ``_engine.ndarray.FACES``
SYMBOL_FACES: Dict[str, Type[Symbol]] = {"nd": Symbol}


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
    if shape is not None:       # an int is a 1-d shape, stored as MXNet does ('1')
        attrs["__shape__"] = str(int(shape)) if isinstance(shape, (int, np.integer)) \
            else str(tuple(shape))
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
    outs: list = []
    for s in symbols:
        if not isinstance(s, Symbol):
            raise DTypeError(f"Group() takes Symbols, got {type(s).__name__}")
        outs.extend(s._outputs)
    if not outs:
        raise MXNetError("Group() needs at least one Symbol")
    # a group of NumPy-interface Symbols is one too (MXNet's Group(..., _Symbol))
    cls = next((type(s) for s in symbols if type(s)._npface), Symbol)
    return cls(outs)



"""MXNet 1.x's JSON graph format, both ways: :func:`dumps` (``Symbol.tojson``,
``Symbol.save``), :func:`load_json` and :func:`load` (``mx.sym.load_json``,
``mx.sym.load``: every operator checked when read; a malformed graph raises
:class:`~mxgrad.base.FileFormatError`). Control-flow nodes are written and read with their
subgraphs, as MXNet does (:mod:`mxgrad.symbol._control_flow`).

Examples
--------
>>> import mxgrad as mx
>>> y = mx.sym.FullyConnected(mx.sym.var('x'), num_hidden=3, name='fc')
>>> z = load_json(dumps(y))
>>> z.list_arguments() == y.list_arguments()
True
"""
from __future__ import annotations

import json
from typing import Any, Dict, List, Tuple

from .._fileio import atomic_write, open_for_read
from ..base import MXNetError, FileFormatError, DTypeError
from ..util import is_np_shape
from ._core import Symbol, _Node, MXNET_VERSION
from ._registry import lookup, parse_attrs, specialize, UnknownOpError
from ._control_flow import from_json, to_json_entry

__all__ = ["dumps", "save", "load_json", "load"]


# ------------------------------------------------------------------ writing
def dumps(symbol: Symbol) -> str:
    """The graph of ``symbol`` in MXNet 1.x's JSON format (``Symbol.tojson``)."""
    nodes = symbol._nodes()
    index = {id(n): i for i, n in enumerate(nodes)}
    out_nodes, row_ptr = [], [0]
    for n in nodes:
        entry: Dict[str, Any] = {"op": n.op, "name": n.name}
        subgraphs = None
        if n.kwargs and "_subgraphs" in n.kwargs:     # control flow, as MXNet writes it
            n_attrs, subgraphs = to_json_entry(n, lambda s: json.loads(dumps(s)))
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
    graph = {
        "nodes": out_nodes,
        "arg_nodes": [i for i, n in enumerate(nodes) if n.is_var],
        "node_row_ptr": row_ptr,
        "heads": [[index[id(n)], i, 0] for n, i in symbol._outputs],
        "attrs": {"mxnet_version": ["int", MXNET_VERSION]},
    }
    if is_np_shape():       # a graph whose 0s in shapes are sizes, not unknowns
        graph["attrs"] = {"is_np_shape": ["int", 1], "mxnet_version": ["int", MXNET_VERSION]}
    return _format_graph(graph)


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


def save(symbol: Symbol, fname: str) -> None:
    """Write ``symbol``'s JSON to ``fname`` (atomically; ``Symbol.save``)."""
    with atomic_write(fname, "w") as f:
        f.write(dumps(symbol))


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

"""``mx.viz.plot_network``: a Graphviz picture of a recorded graph or of a Block."""
from __future__ import annotations

import json
import os
import shutil
from typing import Dict, List, Optional, Sequence

from ..base import ArgumentTypeError, MXNetError
from .._engine.ndarray import NDArray
from ._graph import RecordedGraph, flatten_arrays, node_key, read_graph

__all__ = ["plot_network", "MissingExtraError", "DotNotFoundError", "INSTALL_DOT"]

INSTALL_DOT = ("install Graphviz (Debian/Ubuntu: `sudo apt-get install graphviz`, macOS: "
               "`brew install graphviz`, conda: `conda install graphviz`, Windows: "
               "https://graphviz.org/download/) and make sure `dot` is on PATH")

# MXNet's colour map: inputs, weighted layers, activations, normalization, pooling,
# shape ops, softmax, everything else
_COLORS = ("#8dd3c7", "#fb8072", "#ffffb3", "#bebada", "#80b1d3", "#fdb462", "#b3de69",
           "#fccde5")
_WEIGHTED = ("FullyConnected", "Convolution", "Deconvolution", "Embedding", "RNN")
_ACTIVATIONS = ("Activation", "LeakyReLU", "relu", "sigmoid", "tanh", "softrelu", "softsign",
                "elu", "selu", "gelu", "swish", "prelu")
_NORMS = ("BatchNorm", "LayerNorm", "InstanceNorm", "GroupNorm", "Dropout")
_POOLS = ("Pooling",)
_SHAPE_OPS = ("Concat", "concat", "Flatten", "flatten", "Reshape", "reshape", "transpose",
              "expand_dims", "squeeze", "stack", "split", "slice", "SliceChannel")
_SOFTMAX = ("softmax", "log_softmax", "SoftmaxOutput", "softmax_cross_entropy_per_sample")
_WEIGHT_LIKE = ("_weight", "_bias", "_beta", "_gamma", "_moving_var", "_moving_mean",
                "_running_var", "_running_mean")


class MissingExtraError(MXNetError, ImportError):
    """An optional package that this feature needs is not installed."""


class DotNotFoundError(MXNetError, RuntimeError):
    """Rendering needs Graphviz's ``dot`` program, which was not found on PATH."""


def _import_graphviz():
    try:
        import graphviz
    except ImportError as err:
        raise MissingExtraError(
            "mx.viz.plot_network needs the Python package `graphviz`: pip install "
            "'mxgrad[viz]' (or pip install graphviz); rendering the picture also needs "
            "Graphviz's `dot` program: " + INSTALL_DOT) from err
    return graphviz


def _no_dot_message(fmt: str = "a picture") -> str:
    return (f"rendering {fmt} needs Graphviz's `dot` program, which was not found on "
            f"PATH; {INSTALL_DOT}. Without it, `.source` still gives the graph in the DOT "
            f"language (paste it into any Graphviz viewer)")


_digraph_class: list = []


def _digraph_type():
    """A ``graphviz.Digraph`` whose rendering explains how to install ``dot`` when it is
    missing, and whose notebook display falls back to the DOT text."""
    if _digraph_class:
        return _digraph_class[0]
    graphviz = _import_graphviz()

    class Digraph(graphviz.Digraph):
        __doc__ = graphviz.Digraph.__doc__

        def pipe(self, *args, **kwargs):
            try:
                return super().pipe(*args, **kwargs)
            except graphviz.ExecutableNotFound as err:
                raise DotNotFoundError(_no_dot_message()) from err

        def render(self, *args, **kwargs):
            try:
                return super().render(*args, **kwargs)
            except graphviz.ExecutableNotFound as err:
                raise DotNotFoundError(_no_dot_message()) from err

        def _repr_mimebundle_(self, include=None, exclude=None, **kwargs):
            try:
                return super()._repr_mimebundle_(include, exclude, **kwargs)
            except DotNotFoundError as err:
                return {"text/plain": f"{err}\n\n{self.source}"}

    Digraph.__module__ = __name__
    _digraph_class.append(Digraph)
    return Digraph


def has_dot() -> bool:
    """Whether Graphviz's ``dot`` program is on PATH (rendering needs it)."""
    return shutil.which("dot") is not None


def _shape_text(shape) -> str:
    return "x".join(str(d) for d in shape) if shape else "scalar"


def _nbytes_text(n: int) -> str:
    if n < 1024:
        return f"{n} B"
    size = float(n)
    for unit in ("KB", "MB", "GB"):
        size /= 1024
        if size < 1024 or unit == "GB":
            break
    return f"{size:.1f} {unit}"


def _color(op: str) -> str:
    if op in _WEIGHTED:
        return _COLORS[1]
    if op in _ACTIVATIONS:
        return _COLORS[2]
    if op in _NORMS:
        return _COLORS[3]
    if op in _POOLS:
        return _COLORS[4]
    if op in _SHAPE_OPS:
        return _COLORS[5]
    if op in _SOFTMAX:
        return _COLORS[6]
    return _COLORS[7]


def _looks_like_weight(name: str) -> bool:
    return name.endswith(_WEIGHT_LIKE)


def _parameter_names(keys) -> Dict[int, str]:
    """Node keys in ``keys`` -> the name of the live Gluon ``Parameter`` whose data they are,
    so ``plot_network(loss)`` labels a network's variables ``dense0_weight``... without
    ``names=``. The Parameters are found among the live objects (a drawing is rare and
    this costs milliseconds; the training path keeps no registry for it)."""
    import gc
    from ..gluon.parameter import Parameter
    out: Dict[int, str] = {}
    if not keys:
        return out
    for obj in gc.get_objects():
        if isinstance(obj, Parameter) and getattr(obj, "_data_list", None):
            try:
                arrays = obj.list_data()
            except Exception:   # noqa: BLE001 - deferred or half-built: nothing to name
                continue
            for a in arrays:
                k = node_key(a)
                if k is not None and k in keys:
                    out[k] = obj.name
    return out


def _names_from(names) -> Dict[int, str]:
    """Node keys -> names from ``{name: NDArray or Parameter}`` or a ParameterDict."""
    out: Dict[int, str] = {}
    if names is None:
        return out
    if not hasattr(names, "items"):
        raise ArgumentTypeError("names must be a dict {name: NDArray or Parameter} or a "
                                "ParameterDict (net.collect_params())")
    for name, v in names.items():
        arrays = [v] if isinstance(v, NDArray) else []
        if not arrays and hasattr(v, "list_data"):
            try:
                arrays = v.list_data()
            except Exception:
                arrays = []
        if not arrays:
            raise ArgumentTypeError(f"names[{name!r}] must be an NDArray or an initialized "
                                    f"Parameter, got {type(v).__name__}")
        for a in arrays:
            k = node_key(a)
            if k is not None:
                out[k] = str(getattr(v, "name", name) if not isinstance(v, NDArray) else name)
    return out


def _draw_graph(dot, graph: RecordedGraph, names: Dict[int, str], hide_weights: bool,
                show_saved: bool, node_attr: dict, calls=None, owner=None) -> None:
    """Add the ops, variables and edges of ``graph`` to ``dot`` (clusters per block call
    when ``calls``/``owner`` are given)."""
    ids: Dict[int, str] = {}
    counts: Dict[str, int] = {}
    hidden = set()
    statements: Dict[object, List[tuple]] = {None: []}   # cluster -> node statements
    var_count = 0
    for v in graph.variables:
        name = names.get(v.key)
        if name is None:
            name = f"var{var_count}"
            var_count += 1
        if hide_weights and _looks_like_weight(name):
            hidden.add(v.key)
            continue
        ids[v.key] = name
        label = f"{name}\\n{_shape_text(v.shape)}\\ngrad_req={v.req}"
        attr = dict(node_attr, shape="oval", fillcolor=_COLORS[0], fixedsize="false")
        cluster = owner.get(v.key) if owner else None
        statements.setdefault(cluster, []).append((name, label, attr))
    for op in graph.ops:
        base = op.op.lower()
        idx = counts.get(base, 0)
        counts[base] = idx + 1
        name = f"{base}{idx}"
        ids[op.key] = name
        shapes = [_shape_text(o[0]) for o in op.outputs if o is not None]
        lines = [op.op]
        if shapes:
            lines.append(", ".join(shapes))
        if show_saved:
            if op.freed:
                lines.append("saved: freed")
            elif op.saved:
                lines.append(f"saved: {len(op.saved)} ({_nbytes_text(op.saved_nbytes)})")
        attr = dict(node_attr, fillcolor=_color(op.op))
        tips = [f"{k}={v}" for k, v in op.attrs.items()]
        if op.saved and not op.freed:
            tips.append("saved: " + ", ".join(f"{_shape_text(s)} {dt}" for s, dt, _ in
                                              op.saved))
        if tips:
            attr["tooltip"] = "; ".join(tips)
        cluster = owner.get(op.key) if owner else None
        statements.setdefault(cluster, []).append((name, "\\n".join(lines), attr))

    # clusters nest like the block calls; the outermost call is the whole picture
    children: Dict[object, list] = {}
    cluster_ids: Dict[int, int] = {}
    for call in calls or ():
        cluster_ids[id(call)] = len(cluster_ids)
        children.setdefault(call.parent, []).append(call)

    def emit(g, cluster):
        for name, label, attr in statements.get(cluster, ()):
            g.node(name=name, label=label, **attr)
        for child in children.get(cluster, ()):
            if not _has_statements(child):
                continue
            if child.parent is None:   # the plotted block itself: no frame
                emit(g, child)
                continue
            with g.subgraph(name=f"cluster_{cluster_ids[id(child)]}_{child.label}") as sub:
                sub.attr(label=f"{child.label} ({child.type_name})", style="rounded,dashed",
                         color="#888888", fontcolor="#555555")
                emit(sub, child)

    def _has_statements(call):
        return bool(statements.get(call)) or any(_has_statements(c)
                                                 for c in children.get(call, ()))

    emit(dot, None)
    for op in graph.ops:
        for src, oidx, shape, _ in op.inputs:
            if src in hidden or src not in ids:
                continue
            edge = {"dir": "back", "arrowtail": "open"}
            label = _shape_text(shape) if shape is not None else ""
            if oidx:
                label = f"out{oidx}: {label}"
            if label:
                edge["label"] = label
            dot.edge(ids[op.key], ids[src], **edge)


def _draw_symbol_json(dot, conf: dict, shapes: Dict[str, tuple], hide_weights: bool,
                      node_attr: dict) -> None:
    """Draw MXNet's symbol JSON (``Symbol.tojson()``): nodes, then input edges."""
    nodes = conf["nodes"]
    hidden = set()
    for i, node in enumerate(nodes):
        op, name = node["op"], node["name"]
        attr = dict(node_attr)
        if op == "null":
            if _looks_like_weight(name):
                if hide_weights:
                    hidden.add(i)
                continue
            attr.update(shape="oval", fillcolor=_COLORS[0])
            label = name
        else:
            attr["fillcolor"] = _color(op)
            params = node.get("attrs", node.get("param", {})) or {}
            label = op
            if op == "FullyConnected" and "num_hidden" in params:
                label += f"\\n{params['num_hidden']}"
            elif op == "Convolution" and "kernel" in params:
                label += f"\\n{params['kernel']}, {params.get('num_filter', '')}"
            elif op in ("Activation", "LeakyReLU") and "act_type" in params:
                label += f"\\n{params['act_type']}"
        dot.node(name=f"{name}", label=label, **attr)
    for node in nodes:
        if node["op"] == "null":
            continue
        for item in node["inputs"]:
            src = nodes[item[0]]
            if item[0] in hidden:
                continue
            edge = {"dir": "back", "arrowtail": "open"}
            key = src["name"] if src["op"] == "null" else f"{src['name']}_output"
            if key in shapes:
                edge["label"] = _shape_text(shapes[key])
            dot.edge(node["name"], src["name"], **edge)


def _symbol_shapes(symbol, shape) -> Dict[str, tuple]:
    if not shape:
        return {}
    internals = symbol.get_internals()
    _, out_shapes, _ = internals.infer_shape(**shape)
    if out_shapes is None:
        raise MXNetError("plot_network: the input shapes are incomplete")
    return dict(zip(internals.list_outputs(), [tuple(s) for s in out_shapes]))


def plot_network(symbol, title: str = "plot", save_format: str = "pdf", shape=None,
                 dtype=None, node_attrs: Optional[dict] = None, hide_weights: bool = True,
                 names=None, show_saved: bool = False):
    """Draw a computation graph as a ``graphviz.Digraph`` (shown inline in Jupyter).

    Three kinds of graph can be drawn:

    - a **recorded graph**: an array computed under ``autograd.record()`` (e.g. the
      loss) or a list of them. Nodes are the recorded ops with their output shapes,
      ovals are the variables (arrays with ``attach_grad``) with shape and ``grad_req``;
      ``show_saved=True`` adds how many values each op keeps for backward and their
      size (``freed`` after a backward without ``retain_graph``). Name the variables
      with ``names={'x': x}`` or ``names=net.collect_params()``;
    - a **Block** (``shape`` required): it runs once on zeros under ``record()`` (its
      parameters and running statistics are left unchanged) and the recorded ops are
      framed by the block call that made them;
    - a **Symbol** (any object with ``tojson()``, like MXNet's), with shapes on the edges
      when ``shape`` is given and the symbol can ``infer_shape``.

    Edges point from an op to its inputs, drawn backwards as in MXNet, so data flows
    upwards; they are labelled with the tensor's shape. Rendering (``.render``,
    ``.pipe``, the notebook picture) needs Graphviz's ``dot`` program; without it a
    :class:`DotNotFoundError` says how to install it, a notebook shows the DOT text,
    and ``.source`` works anyway.

    Parameters
    ----------
    symbol : NDArray, list of NDArray, Block or Symbol
        What to draw.
    title : str
        The graph's name (and file name of ``.render()``).
    save_format : str
        Format of ``.render()`` ('pdf' as in MXNet, 'svg', 'png', ...).
    shape : tuple, list of tuples or dict
        Input shape(s) of a Block (``{'data': (1, 3)}`` names the input), or a Symbol's
        input shapes.
    dtype : str or dict, optional
        Input dtype(s) of a Block (default float32).
    node_attrs : dict, optional
        Graphviz node attributes overriding the defaults (e.g. ``{"shape": "oval"}``).
    hide_weights : bool
        Hide variables named like ``*_weight``/``*_bias``/``*_gamma``... (as MXNet).
    names : dict or ParameterDict, optional
        Names of the variables of a recorded graph.
    show_saved : bool
        Show the values each op saved for backward, with their total size.

    Returns
    -------
    graphviz.Digraph

    Examples
    --------
    >>> import mxgrad as mx
    >>> x = mx.nd.array([[1., 2.]]); x.attach_grad()
    >>> with mx.autograd.record():
    ...     y = (x * x).exp().sum()
    >>> dot = mx.viz.plot_network(y, names={'x': x})
    >>> print(dot.source)  # doctest: +ELLIPSIS
    digraph plot {
    ...
    	x [label="x\\n1x2\\ngrad_req=write" ...]
    	multiply0 [label="multiply\\n1x2" ...]
    	exp0 [label="exp\\n1x2" ...]
    	sum0 [label="sum\\n1" ...]
    	multiply0 -> x [label="1x2" arrowtail=open dir=back]
    ...
    }
    """
    Digraph = _digraph_type()
    node_attr = {"shape": "box", "fixedsize": "false", "style": "filled,rounded",
                 "fontsize": "11", "margin": "0.15,0.05"}
    node_attr.update(node_attrs or {})
    dot = Digraph(name=title, format=save_format)
    dot.attr("graph", fontsize="10")
    dot.attr("edge", fontsize="9")
    from ..gluon.block import Block
    if isinstance(symbol, Block):
        from ._block import trace_block
        trace = trace_block(symbol, shape, dtype)
        all_names = dict(trace.names)
        all_names.update(_names_from(names))
        _draw_graph(dot, trace.graph, all_names, hide_weights, show_saved, node_attr,
                    trace.calls, trace.owner)
        return dot
    if isinstance(symbol, NDArray) or (isinstance(symbol, (list, tuple)) and symbol and
                                       all(isinstance(a, NDArray) for a in symbol)):
        heads = flatten_arrays(symbol)
        graph = read_graph(heads)
        all_names = _parameter_names({v.key for v in graph.variables})
        all_names.update(_names_from(names))
        _draw_graph(dot, graph, all_names, hide_weights, show_saved, node_attr)
        return dot
    if hasattr(symbol, "tojson"):
        conf = json.loads(symbol.tojson())
        shapes = _symbol_shapes(symbol, shape) if shape else {}
        _draw_symbol_json(dot, conf, shapes, hide_weights, node_attr)
        return dot
    raise ArgumentTypeError(f"plot_network draws a recorded NDArray (or a list of them), a "
                            f"Block (with shape=...) or a Symbol; got {type(symbol).__name__}")

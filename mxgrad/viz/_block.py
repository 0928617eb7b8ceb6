"""Run a Block once on dummy inputs and record which block made which graph node.

No tracing to symbols is needed: the block runs under ``autograd.record()`` with a
forward hook on every block; the ops between a block call's inputs and outputs that no
inner block claimed are that call's own ops.
"""
from __future__ import annotations

from collections import OrderedDict
from typing import Any, Dict, List, Optional, Sequence, Tuple, cast

import numpy as np

from .. import autograd
from .. import ndarray as nd
from ..base import DTypeError, ShapeError, as_dtype
from .._engine.ndarray import NDArray
from ._graph import RecordedGraph, flatten_arrays, nodes_between, node_key, read_graph

__all__ = ["BlockCall", "BlockTrace", "trace_block", "input_specs"]


class BlockCall:
    """One call of one block during the dummy forward."""

    __slots__ = ("block", "label", "parent", "inputs", "outputs", "nodes", "own_nodes")

    def __init__(self, block, parent):
        self.block = block
        self.label = block.name
        self.parent: Optional["BlockCall"] = parent
        self.inputs: List[NDArray] = []
        self.outputs: List[NDArray] = []
        self.nodes = set()        # every node between inputs and outputs
        self.own_nodes = set()    # those no inner call claimed

    @property
    def type_name(self) -> str:
        return type(self.block).__name__

    @property
    def is_leaf(self) -> bool:
        return not getattr(self.block, "_children", None)


class BlockTrace:
    """The recorded graph of one dummy forward and who made what."""

    _keep: Tuple[Any, Any]   # (inputs, outputs), set by trace_block

    def __init__(self, graph: RecordedGraph, calls: List[BlockCall], names: Dict[int, str],
                 input_keys: Dict[int, str], outputs: List[NDArray]):
        self.graph = graph
        self.calls = calls          # in the order the calls finished
        self.names = names          # node key -> name (inputs and parameters)
        self.input_keys = input_keys
        self.outputs = outputs
        owner: Dict[int, BlockCall] = {}
        for call in calls:          # inner calls finish first, so they claim first
            for k in call.nodes:
                if k not in owner:
                    owner[k] = call
                    call.own_nodes.add(k)
        self.owner = owner


def input_specs(shape, dtype) -> List[Tuple[str, Tuple[int, ...], np.dtype]]:
    """``[(name, shape, dtype)]`` from ``shape`` given as a tuple, a list of tuples or a
    dict ``{name: shape}`` (MXNet's form), and ``dtype`` as one type or a dict."""
    if shape is None:
        raise ShapeError("plotting or summarizing a Block needs the input shape: pass "
                         "shape=(batch, ...) (or a dict {'data': (batch, ...)} or a list of "
                         "shapes for several inputs)")
    if isinstance(shape, dict):
        items = list(shape.items())
    elif isinstance(shape, (list, tuple)) and shape and all(isinstance(s, (list, tuple))
                                                             for s in shape):
        items = [(f"data{i}" if len(shape) > 1 else "data", s) for i, s in enumerate(shape)]
    elif isinstance(shape, (list, tuple)):
        items = [("data", shape)]
    else:
        raise ShapeError(f"shape must be a tuple, a list of tuples or a dict of tuples, got "
                         f"{type(shape).__name__}")
    specs = []
    for name, s in items:
        if not all(isinstance(d, (int, np.integer)) and d > 0 for d in s):
            raise ShapeError(f"shape of input {name!r} must be positive integers, got {s!r}")
        if isinstance(dtype, dict):
            dt = dtype.get(name, "float32")
        else:
            dt = "float32" if dtype is None else dtype
        try:
            dt = as_dtype(dt)
        except Exception as err:
            raise DTypeError(f"dtype of input {name!r}: {err}") from err
        specs.append((str(name), tuple(int(d) for d in s), dt))
    return specs


def _aux_arrays(block) -> List[NDArray]:
    """The arrays of parameters with grad_req 'null' (running statistics...)."""
    arrays = []
    for p in block.collect_params().values():
        if p.grad_req == "null":
            try:
                arrays.extend(p.list_data())
            except Exception:   # not initialized: nothing to protect
                pass
    return arrays


def trace_block(block, shape, dtype=None) -> BlockTrace:
    """Run ``block`` once on zeros of ``shape`` under ``record()`` and read the graph.

    Parameter values, running statistics included, are left as they were.
    """
    specs = input_specs(shape, dtype)

    def make_inputs():
        return [nd.zeros(s, dtype=dt) for _, s, dt in specs]

    # a first call in predict mode finishes deferred initialization without changing
    # any state, so the running statistics can be saved before the recorded call
    with autograd.predict_mode():
        block(*make_inputs())
    aux = [(a, a.asnumpy().copy()) for a in _aux_arrays(block)]

    calls: List[BlockCall] = []
    stack: List[BlockCall] = []
    handles = []

    def pre_hook(blk, args):
        call = BlockCall(blk, stack[-1] if stack else None)
        call.inputs = flatten_arrays(args)
        stack.append(call)

    def post_hook(blk, args, out):
        call = stack.pop()
        call.outputs = flatten_arrays(out)
        call.nodes = nodes_between(call.outputs, call.inputs)
        calls.append(call)

    def register(blk):
        handles.append(blk.register_forward_pre_hook(pre_hook))
        handles.append(blk.register_forward_hook(post_hook))

    inputs = make_inputs()
    for x in inputs:
        x.attach_grad()
    try:
        block.apply(register)
        with autograd.record():
            out = block(*inputs)
    finally:
        for h in handles:
            h.detach()
        for a, saved in aux:
            a[:] = saved
    outputs = flatten_arrays(out)
    graph = read_graph(outputs)
    names: Dict[int, str] = OrderedDict()
    input_keys: Dict[int, str] = {}
    for (name, _, _), x in zip(specs, inputs):
        k = cast(int, node_key(x))   # the inputs are variables: always in the graph
        names[k] = name
        input_keys[k] = name
    for p in block.collect_params().values():
        for d in p.list_data():
            pk = node_key(d)
            if pk is not None:
                names.setdefault(pk, p.name)
    trace = BlockTrace(graph, calls, names, input_keys, outputs)
    trace._keep = (inputs, outputs)   # keys are ids: keep the arrays alive with the trace
    return trace

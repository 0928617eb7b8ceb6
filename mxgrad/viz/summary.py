"""``mx.viz.print_summary``: MXNet's layer table (Layer (type), Output Shape, Param #,
Previous Layer) for a Block, read from one recorded dummy forward."""
from __future__ import annotations

from typing import List, Optional, Sequence

from ..base import ArgumentTypeError, NotSupportedError

__all__ = ["print_summary", "summary_rows"]


def _param_count(block) -> tuple:
    """(all, trainable) element counts of the block's own parameters."""
    total = trainable = 0
    for p in block.params.values():
        n = 1
        for d in p.shape:
            n *= int(d)
        total += n
        if p.grad_req != "null":
            trainable += n
    return total, trainable


def _shape_text(shape) -> str:
    # MXNet prints the shape without the batch axis
    return "x".join(str(d) for d in shape[1:])


def summary_rows(block, shape, dtype=None) -> List[dict]:
    """The table's rows as dicts: ``layer``, ``type``, ``output_shape`` (full shapes),
    ``params``, ``trainable``, ``previous`` (names of the layers feeding it).

    A row per input, then one per block call that made ops of its own (layers, and
    custom blocks that compute something themselves), in the order they finished.
    """
    from ._block import trace_block
    trace = trace_block(block, shape, dtype)
    rows = []
    for key, name in trace.input_keys.items():
        x = next(a for a in trace._keep[0] if id(a._node) == key)
        rows.append({"layer": name, "type": "null", "output_shape": [tuple(x.shape)],
                     "params": 0, "trainable": 0, "previous": []})
    counted = set()
    ops = {op.key: op for op in trace.graph.ops}
    big = float("inf")

    def own_ops(call):
        return [k for k in call.own_nodes if k in ops]

    # layers in the order their first own op ran (a Dense layer's activation child
    # finishes before it)
    calls = sorted(trace.calls, key=lambda c: min((ops[k].seq for k in own_ops(c)),
                                                  default=big))
    for call in calls:
        mine = own_ops(call)
        own_params = len(call.block.params) > 0
        if not mine and not (own_params and call.is_leaf):
            continue
        if id(call.block) in counted:
            params = trainable = 0       # a block called again: its parameters once
        else:
            params, trainable = _param_count(call.block)
            counted.add(id(call.block))
        # the layers that made the inputs of this call's own ops
        previous = []
        for k in sorted(mine, key=lambda k: ops[k].seq):
            for src, _, _, _ in ops[k].inputs:
                if src in call.own_nodes:
                    continue
                if src in trace.input_keys:
                    prev = trace.input_keys[src]
                elif src in trace.owner and src in ops:
                    prev = trace.owner[src].label
                else:
                    continue
                if prev not in previous:
                    previous.append(prev)
        rows.append({"layer": call.label, "type": call.type_name,
                     "output_shape": [tuple(o.shape) for o in call.outputs],
                     "params": params, "trainable": trainable, "previous": previous})
    return rows


def print_summary(symbol, shape=None, line_length: int = 120,
                  positions: Sequence[float] = (.44, .64, .74, 1.), dtype=None) -> None:
    """Print MXNet's summary table of a Block: each layer with its output shape (without
    the batch axis, as MXNet), its parameter count and the layer(s) feeding it.

    The block runs once on zeros of ``shape`` (parameters and running statistics are
    left unchanged). ``Block.summary(x)`` prints Gluon's variant of the table.

    Parameters
    ----------
    symbol : Block
        The network (initialized, or with deferred initialization).
    shape : tuple, list of tuples or dict
        Input shape(s), batch axis first; a dict ``{'data': (1, 3)}`` names the input.
    line_length : int
        Width of the table.
    positions : sequence of float
        Where the four columns end, as fractions of ``line_length`` (or absolute).
    dtype : str or dict, optional
        Input dtype(s), float32 by default.

    Examples
    --------
    >>> import mxgrad as mx
    >>> net = mx.gluon.nn.HybridSequential(prefix='net_')
    >>> with net.name_scope():
    ...     net.add(mx.gluon.nn.Dense(4, activation='relu'), mx.gluon.nn.Dense(2))
    >>> net.initialize()
    >>> mx.viz.print_summary(net, shape={'data': (5, 3)}, line_length=80)
    ________________________________________________________________________________
    Layer (type)                       Output Shape    Param # Previous Layer
    ================================================================================
    data(null)                         3               0
    ________________________________________________________________________________
    net_dense0(Dense)                  4               16      data
    ________________________________________________________________________________
    net_dense0_relu(Activation)        4               0       net_dense0
    ________________________________________________________________________________
    net_dense1(Dense)                  2               10      net_dense0_relu
    ================================================================================
    Total params: 26
    Trainable params: 26
    Non-trainable params: 0
    ________________________________________________________________________________
    """
    from ..gluon.block import Block
    from ..symbol import Symbol
    if isinstance(symbol, Symbol):
        raise NotSupportedError(
            "print_summary(sym): MXNet's Symbol form is not supported; give a gluon Block, "
            "e.g. the Symbol as a block: net = gluon.SymbolBlock(sym, [mx.sym.var('data')]); "
            "net.initialize(); print_summary(net, shape={'data': ...})")
    if not isinstance(symbol, Block):
        raise ArgumentTypeError(f"print_summary takes a gluon Block (with shape=...), got "
                                f"{type(symbol).__name__}")
    rows = summary_rows(symbol, shape, dtype)
    positions = list(positions)
    if positions[-1] <= 1:
        positions = [int(line_length * p) for p in positions]

    def print_row(fields):
        line = ""
        for field, pos in zip(fields, positions):
            line += str(field)
            if len(line) >= pos:          # keep one space between columns
                line = line[:pos - 1]
            line += " " * (pos - len(line))
        print(line.rstrip())

    print("_" * line_length)
    print_row(["Layer (type)", "Output Shape", "Param #", "Previous Layer"])
    print("=" * line_length)
    total = trainable = 0
    for i, row in enumerate(rows):
        shapes = ", ".join(_shape_text(s) for s in row["output_shape"])
        prev = row["previous"]
        print_row([f"{row['layer']}({row['type']})", shapes, row["params"],
                   prev[0] if prev else ""])
        for extra in prev[1:]:
            print_row(["", "", "", extra])
        total += row["params"]
        trainable += row["trainable"]
        print(("=" if i == len(rows) - 1 else "_") * line_length)
    print(f"Total params: {total}")
    print(f"Trainable params: {trainable}")
    print(f"Non-trainable params: {total - trainable}")
    print("_" * line_length)

"""Type inference on a Symbol graph from partial information (MXNet's ``InferType`` pass).

Like :mod:`._shape`: each output of each node has a dtype or none yet; each operator's rule
works out what it can from its inputs and outputs, forward and backward, until nothing
changes. Most operators make their inputs and outputs one dtype; ``Cast`` and the creation
ops take theirs from ``dtype``; indices, labels and conditions are free (any dtype); the
normalization layers keep their parameters in float32 whatever the data (as MXNet).

Examples
--------
>>> import mxgrad as mx
>>> d = mx.sym.var('data')
>>> y = mx.sym.FullyConnected(mx.sym.Cast(d, dtype='float32'), num_hidden=2, name='fc')
>>> t = infer(y, {'data': np.dtype('float16')})
>>> [t[(id(n), 0)].name for n in y._nodes() if n.is_var]
['float16', 'float32', 'float32']
"""
from __future__ import annotations

from typing import Dict

import numpy as np

from ..base import DTypeError
from ..ops._dtype_rules import DType, as_dtype, from_attr, merge, same

__all__ = ["infer", "as_dtype"]



def _apply(n, types, where_prefix="Error in operator ") -> bool:
    keys_in = [(id(src), j) for src, j in n.inputs]
    keys_out = [(id(n), i) for i in range(n.num_outputs())]
    ins = [types.get(k) for k in keys_in]
    outs = [types.get(k) for k in keys_out]
    where = f"{where_prefix}{n.name}: "
    f = n.spec.dtype          # the operator's record (ops/_mxnet_op.py), or the node's own
    if f is None:       # creation ops (no inputs) take dtype (float32); others one dtype
        f = from_attr() if not n.inputs else same
    try:
        new_ins, new_outs = f(n.kwargs, ins, outs)
    except DTypeError as err:
        raise DTypeError(where + str(err)) from None
    changed = False
    for keys, new in ((keys_in, new_ins), (keys_out, new_outs)):
        for k, b in zip(keys, new):
            if b is None:
                continue
            old = types.get(k)
            m = merge(old, b, where)
            if old is None or m != old:     # (np.dtype('float64') == None is True)
                types[k] = m
                changed = True
    return changed


def infer_entries(nodes, given: Dict) -> Dict[tuple, DType]:
    """``{(id(node), output index): dtype}`` for the graph ``nodes`` (topological order),
    from the dtypes ``given`` by node id or variable name."""
    types: Dict[tuple, DType] = {}
    for n in nodes:
        if n.is_var:
            types[(id(n), 0)] = given.get(id(n), given.get(n.name))
    order = [n for n in nodes if not n.is_var]
    for sweep in range(2 * len(order) + 2):
        changed = False
        for n in (order if sweep % 2 == 0 else reversed(order)):
            changed |= _apply(n, types)
        if not changed and sweep % 2 == 1:
            break
    return types


def infer(sym, given: Dict[str, DType]) -> Dict[tuple, DType]:
    """``{(id(node), output index): dtype or None}`` for the entries of ``sym``, from the
    dtypes ``given`` by variable name and the variables' ``__dtype__``."""
    from ._core import _FLAG_DTYPES
    nodes = sym._nodes()
    start: Dict = {}
    for n in nodes:
        if not n.is_var:
            continue
        if given.get(n.name) is not None:
            start[id(n)] = given[n.name]
        elif "__dtype__" in n.attrs:
            try:
                start[id(n)] = np.dtype(_FLAG_DTYPES[int(n.attrs["__dtype__"])])
            except (KeyError, ValueError):
                pass
    return infer_entries(nodes, start)

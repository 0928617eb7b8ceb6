"""The vocabulary of shape rules (MXNet's ``InferShape``), for the operator records.

A shape is unknown (``None``), partly known (a tuple with ``-1`` for each unknown
dimension) or known. A rule ``rule(kwargs, in_shapes, out_shapes)`` returns the input and
output shapes it can work out from whatever is known, forward and backward; the pass that
applies the rules over a graph until nothing changes is ``symbol/_shape.py``. A rule that
finds two different sizes for one dimension raises :class:`~mxgrad.base.ShapeError`
(:func:`merge` does), and the pass adds the node's name.

Examples
--------
>>> merge((2, -1), (-1, 3))
(2, 3)
>>> same({}, [(2, -1), None], [(-1, 3)])
([(2, 3), (2, 3)], [(2, 3)])
>>> broadcast_rule({}, [(4, 1), (3,)], [None])
([(4, 1), (3,)], [(4, 3)])
"""
from __future__ import annotations

from typing import Callable, List, Optional, Tuple

import numpy as np

from ..base import ShapeError

__all__ = ["Shape", "Rule", "known", "merge", "fmt", "dim", "prod", "as_tuple", "same",
           "broadcast", "broadcast_rule"]

Shape = Optional[Tuple[int, ...]]     # None: unknown; -1: an unknown dimension
Rule = Callable[[dict, List[Shape], List[Shape]], Tuple[List[Shape], List[Shape]]]


def known(s: Shape) -> bool:
    """Whether ``s`` is fully known."""
    return s is not None and all(d >= 0 for d in s)


def fmt(s: Shape) -> str:
    """``s`` as MXNet prints a shape in its messages (``[2,3]``)."""
    if s is None:
        return "[]"
    return "[" + ",".join(str(d) for d in s) + "]"


def merge(a: Shape, b: Shape, where: str = "") -> Shape:
    """The shape that is both ``a`` and ``b`` (each may be partial); ShapeError if none is."""
    if a is None:
        return b
    if b is None:
        return a
    if len(a) != len(b):
        raise ShapeError(f"{where}Shape inconsistent, Provided = {fmt(a)}, inferred shape = "
                         f"{fmt(b)}")
    out = []
    for x, y in zip(a, b):
        if x < 0:
            out.append(y)
        elif y < 0 or x == y:
            out.append(x)
        else:
            raise ShapeError(f"{where}Shape inconsistent, Provided = {fmt(a)}, inferred "
                             f"shape = {fmt(b)}")
    return tuple(out)


def dim(a: int, b: int) -> int:
    """One dimension known from either."""
    return a if a >= 0 else b


def prod(dims) -> int:
    """The product of ``dims``, ``-1`` if one is unknown."""
    p = 1
    for d in dims:
        if d < 0:
            return -1
        p *= d
    return p


def as_tuple(v, n: int = 0) -> tuple:
    """An attribute (an int, a sequence or None) as a tuple of ints; ``n`` copies of a
    single int, or ``n`` zeros for None when ``n`` is given."""
    if v is None or v == ():
        return (0,) * n if n else ()
    if isinstance(v, (int, np.integer)):
        return (int(v),) * max(n, 1)
    return tuple(int(e) for e in v)


def same(kw, ins, outs):
    """The rule "every input and output has one shape"."""
    s: Shape = None
    for x in list(ins) + list(outs):
        s = merge(s, x)
    return [s] * len(ins), [s] * len(outs)


def broadcast(a: Shape, b: Shape) -> Shape:
    """NumPy's broadcast of two (partial) shapes; None when either is unknown."""
    if a is None or b is None:
        return None
    n = max(len(a), len(b))
    a = (1,) * (n - len(a)) + tuple(a)
    b = (1,) * (n - len(b)) + tuple(b)
    out = []
    for x, y in zip(a, b):
        if x == y:
            out.append(x)
        elif x == 1:
            out.append(y)
        elif y == 1:
            out.append(x)
        elif x < 0 or y < 0:
            out.append(max(x, y))
        else:
            raise ShapeError(f"operands could not be broadcast together with shapes "
                             f"{fmt(a)} {fmt(b)}")
    return tuple(out)


def broadcast_rule(kw, ins, outs):
    """The rule of a broadcasting binary operator (forward only)."""
    return list(ins), [broadcast(ins[0], ins[1])]

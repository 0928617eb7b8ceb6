"""The vocabulary of dtype rules (MXNet's ``InferType``), for the operator records.

A rule ``rule(kwargs, in_dtypes, out_dtypes)`` returns the input and output dtypes it can
work out (``None``: not known yet); the pass over a graph is ``symbol/_dtype.py``. An
operator whose record has no dtype rule makes its inputs and outputs one dtype
(:func:`same`), or takes its ``dtype`` attribute when it has no inputs.

Examples
--------
>>> import numpy as np
>>> same({}, [np.dtype('float16'), None], [None])
([dtype('float16'), dtype('float16')], [dtype('float16')])
>>> free(1)({}, [np.dtype('float16'), np.dtype('int32')], [None])[0][1]
dtype('int32')
"""
from __future__ import annotations

from typing import Callable, Optional

import numpy as np

from ..base import DTypeError

__all__ = ["DType", "F32", "as_dtype", "merge", "same", "free", "from_attr", "norm",
           "label"]

DType = Optional[np.dtype]
F32 = np.dtype("float32")


def as_dtype(t) -> DType:
    """``t`` (a name, NumPy type or dtype, or None) as a NumPy dtype."""
    if t is None:
        return None
    try:
        return np.dtype(t)
    except TypeError:
        raise DTypeError(f"infer_type: {t!r} is not a dtype") from None


def merge(a: DType, b: DType, where: str) -> DType:
    """The dtype that is both ``a`` and ``b``; DTypeError if they differ."""
    if a is None:
        return b
    if b is None or a == b:     # b is not None here: a == b compares dtypes
        return a
    raise DTypeError(f"{where}Type inconsistent, Provided = {a.name}, inferred type = "
                     f"{b.name}")


def same(kw, ins, outs, free=(), fixed_in=None):
    """One dtype for every input and output, except the inputs at positions ``free`` (any
    dtype: indices, labels) and those ``fixed_in`` gives (position -> dtype)."""
    t = None
    for i, x in enumerate(ins):
        if i not in free and (fixed_in is None or i not in fixed_in):
            t = merge(t, x, "")
    for x in outs:
        t = merge(t, x, "")
    new_ins = []
    for i, x in enumerate(ins):
        if i in free:
            new_ins.append(x)
        elif fixed_in is not None and i in fixed_in:
            new_ins.append(fixed_in[i])
        else:
            new_ins.append(t)
    return new_ins, [t] * len(outs)


def free(*positions) -> Callable:
    """The rule :func:`same` with the inputs at ``positions`` free."""
    def f(kw, ins, outs):
        return same(kw, ins, outs, free=positions)
    return f


def from_attr(default: str = "float32") -> Callable:
    """The rule "outputs have the ``dtype`` attribute (``default`` without one)"."""
    def f(kw, ins, outs):
        t = as_dtype(kw.get("dtype") or default)
        return list(ins), [t] * len(outs)
    return f


def norm(kw, ins, outs):
    """A normalization layer: parameters and statistics float32 whatever the data (as
    MXNet), the output the data's dtype."""
    fixed = {i: F32 for i in range(1, len(ins))}
    new_ins, new_outs = same(kw, ins, outs[:1], fixed_in=fixed)
    return new_ins, new_outs + [F32] * (len(outs) - 1)


def label(kw, ins, outs):
    """A loss layer: the data's dtype for the output, the label of any dtype (its own, or
    the data's when unknown)."""
    new_ins, new_outs = same(kw, ins[:1], outs)
    if len(ins) > 1:
        new_ins.append(ins[1] if ins[1] is not None else new_ins[0])
    return new_ins, new_outs

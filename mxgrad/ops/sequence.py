"""MXNet's sequence operators on padded batches: ``SequenceMask``, ``SequenceLast``,
``SequenceReverse``.

``data`` holds a batch of sequences padded to one length: time on ``axis`` (0: shape
``(T, B, ...)``, 1: ``(B, T, ...)``) and ``sequence_length`` (``B`` values) says how
many steps of each are real. Each op is one op of ``(data, sequence_length)`` whose
forward reads the lengths (so a planned graph runs it as an op step); its gradient is
its adjoint, another such op (masking is its own adjoint; a gather's is a scatter-add),
so gradients of every order and forward mode come with them; ``sequence_length`` is
data and gets no gradient.

Examples
--------
>>> import mxgrad as mx
>>> x = mx.nd.array([[1, 2], [3, 4], [5, 6]])             # T=3 steps, B=2 sequences
>>> mx.nd.SequenceMask(x, mx.nd.array([1, 3]), use_sequence_length=True).asnumpy()
array([[1., 2.],
       [0., 4.],
       [0., 6.]], dtype=float32)
>>> mx.nd.SequenceLast(x, mx.nd.array([1, 3]), use_sequence_length=True).asnumpy()
array([1., 6.], dtype=float32)
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from .._check import as_int
from ..base import DTypeError, ShapeError, StateError
from .._engine.ndarray import NDArray
from . import _dtype_rules as _dr, _shape_rules as _sr
from ._core import Op, call, defop, linear_pair, no_grad
from ._mxnet_op import flag_set, mxnet_op, optional_inputs

__all__ = ["SequenceMask", "SequenceLast", "SequenceReverse"]


def _data(data, op: str) -> NDArray:
    if not isinstance(data, NDArray):
        raise DTypeError(f"{op}: data must be an NDArray, got {type(data).__name__}")
    if data.ndim < 2:
        raise ShapeError(f"{op}: data must have at least 2 dimensions (time and batch), "
                         f"got shape {data.shape}")
    return data


def _axis(axis, op: str, allowed=(0, 1)) -> int:
    axis = as_int(axis, f"{op}: axis")
    if axis not in allowed:
        raise StateError(f"{op}: axis must be {' or '.join(map(str, allowed))} (the time "
                         f"axis), got {axis}")
    return axis


def _lengths(sequence_length, batch: int, steps: int, op: str, minimum: int) -> np.ndarray:
    """``sequence_length`` as ``batch`` int64 values in ``[minimum, steps]``."""
    if sequence_length is None:
        raise StateError(f"{op}: use_sequence_length=True needs sequence_length (one "
                         f"length per sequence)")
    raw = sequence_length.asnumpy() if isinstance(sequence_length, NDArray) \
        else np.asarray(sequence_length)
    raw = raw.reshape(-1)
    if raw.shape[0] != batch:
        raise ShapeError(f"{op}: sequence_length needs one value per sequence ({batch}), got "
                         f"{raw.shape[0]}")
    lengths = raw.astype(np.int64)
    if np.any(lengths != raw) or np.any(lengths < minimum) or np.any(lengths > steps):
        raise StateError(f"{op}: sequence_length must hold whole numbers in [{minimum}, "
                         f"{steps}] (the padded length), got {raw.tolist()}")
    return lengths


def _as_lengths(sequence_length):
    """``sequence_length`` as an op input: an array (a list becomes a NumPy array)."""
    if sequence_length is None or isinstance(sequence_length, (NDArray, np.ndarray)):
        return sequence_length
    return np.asarray(sequence_length)


def _time_batch(data: NDArray, axis: int):
    return (data.shape[0], data.shape[1]) if axis == 0 else (data.shape[1], data.shape[0])


def SequenceMask(data: NDArray, sequence_length: Optional[NDArray] = None,
                 use_sequence_length: bool = False, value: float = 0.0, axis: int = 0,
                 out: Optional[NDArray] = None, name: Optional[str] = None) -> NDArray:
    """Set the padding steps of each sequence (those at or after its length) to ``value``.

    Parameters
    ----------
    data : NDArray
        ``(T, B, ...)`` when ``axis=0``, ``(B, T, ...)`` when ``axis=1``.
    sequence_length : NDArray, optional
        ``B`` lengths in ``[0, T]``; read only when ``use_sequence_length`` is true.
    use_sequence_length : bool, default False
        Without it the result is a copy of ``data``.
    value : float, default 0
    axis : {0, 1}

    Examples
    --------
    >>> import mxgrad as mx
    >>> x = mx.nd.ones((2, 3))                       # B=2, T=3 with axis=1
    >>> mx.nd.SequenceMask(x, mx.nd.array([2, 1]), True, value=-1, axis=1).asnumpy()
    array([[ 1.,  1., -1.],
           [ 1., -1., -1.]], dtype=float32)
    """
    data = _data(data, "SequenceMask")
    axis = _axis(axis, "SequenceMask")
    if not use_sequence_length:
        result = data.copy()
    else:
        steps, batch = _time_batch(data, axis)
        _lengths(sequence_length, batch, steps, "SequenceMask", 0)   # the checks first
        result = call(_MASK, (data, _as_lengths(sequence_length)), {"axis": axis, "value": float(value)})
    return _finish(result, out)


def _sequence_shape(drops_time: bool):
    """The shape rule of SequenceMask/Reverse (``drops_time`` False) and SequenceLast
    (True)."""
    def rule(kw, ins, outs):
        """A sequence op's shapes: data with time on ``axis`` (0 or 1) and batch on the
        other of the first two axes; ``sequence_length`` one value per sequence; the output
        the data's (without the time axis for SequenceLast). Lengths are values: these ops
        cannot run on zeros to find shapes."""
        d = ins[0]
        ax = int(kw.get("axis", 0))
        out: _sr.Shape = d
        if d is not None and drops_time:
            out = tuple(d[:ax]) + tuple(d[ax + 1:])
        new_ins = list(ins)
        if len(ins) > 1 and d is not None and len(d) >= 2:
            new_ins[1] = _sr.merge(ins[1], (d[1 - ax],))
        return new_ins, [_sr.merge(outs[0], out)]
    return rule


_SEQUENCE_INPUTS = ("data", "sequence_length")
_SEQUENCE_TAKES = optional_inputs(sequence_length=flag_set("use_sequence_length"))
_sequence_keep_shape = _sequence_shape(False)
_sequence_dtype = _dr.free(1)         # lengths of any dtype
mxnet_op("SequenceMask", _SEQUENCE_INPUTS, shape=_sequence_keep_shape, dtype=_sequence_dtype,
         takes=_SEQUENCE_TAKES)


def SequenceLast(data: NDArray, sequence_length: Optional[NDArray] = None,
                 use_sequence_length: bool = False, axis: int = 0,
                 out: Optional[NDArray] = None, name: Optional[str] = None) -> NDArray:
    """The last real step of each sequence: shape ``data.shape`` without the time axis.

    Parameters
    ----------
    data : NDArray
        ``(T, B, ...)`` when ``axis=0``, ``(B, T, ...)`` when ``axis=1``.
    sequence_length : NDArray, optional
        ``B`` lengths in ``[1, T]``; without ``use_sequence_length`` every sequence ends
        at step ``T``.
    use_sequence_length : bool, default False
    axis : {0, 1}

    Examples
    --------
    >>> import mxgrad as mx
    >>> x = mx.nd.array([[1, 2], [3, 4], [5, 6]])
    >>> mx.nd.SequenceLast(x).asnumpy()
    array([5., 6.], dtype=float32)
    """
    data = _data(data, "SequenceLast")
    axis = _axis(axis, "SequenceLast")
    steps, batch = _time_batch(data, axis)
    if use_sequence_length:
        _lengths(sequence_length, batch, steps, "SequenceLast", 1)   # the checks first
    else:
        sequence_length = None
    return _finish(call(_GATHER, (data, _as_lengths(sequence_length)),
                        {"dshape": tuple(data.shape), "axis": axis, "kind": "last"}), out)


mxnet_op("SequenceLast", _SEQUENCE_INPUTS, shape=_sequence_shape(True), dtype=_sequence_dtype,
         takes=_SEQUENCE_TAKES)


def SequenceReverse(data: NDArray, sequence_length: Optional[NDArray] = None,
                    use_sequence_length: bool = False, axis: int = 0,
                    out: Optional[NDArray] = None, name: Optional[str] = None) -> NDArray:
    """Reverse the real steps of each sequence, leaving its padding in place.

    Parameters
    ----------
    data : NDArray
        ``(T, B, ...)``: time first (MXNet supports only ``axis=0`` here, and so does
        mxgrad).
    sequence_length : NDArray, optional
        ``B`` lengths in ``[0, T]``; without ``use_sequence_length`` all ``T`` steps are
        reversed.
    use_sequence_length : bool, default False
    axis : {0}

    Examples
    --------
    >>> import mxgrad as mx
    >>> x = mx.nd.array([[1, 2], [3, 4], [5, 6]])
    >>> mx.nd.SequenceReverse(x, mx.nd.array([2, 3]), use_sequence_length=True).asnumpy()
    array([[3., 6.],
           [1., 4.],
           [5., 2.]], dtype=float32)
    """
    data = _data(data, "SequenceReverse")
    _axis(axis, "SequenceReverse", allowed=(0,))
    steps, batch = _time_batch(data, 0)
    if use_sequence_length:
        _lengths(sequence_length, batch, steps, "SequenceReverse", 0)   # the checks first
    else:
        sequence_length = None
    return _finish(call(_GATHER, (data, _as_lengths(sequence_length)),
                        {"dshape": tuple(data.shape), "axis": 0, "kind": "reverse"}), out)


mxnet_op("SequenceReverse", _SEQUENCE_INPUTS, shape=_sequence_keep_shape,
         dtype=_sequence_dtype, takes=_SEQUENCE_TAKES)


# ------------------------------------------------------------------ the ops
def _keep_mask(lengths, shape, axis):
    """Where steps are real (before their sequence's length), broadcast to ``shape``."""
    steps, batch = (shape[0], shape[1]) if axis == 0 else (shape[1], shape[0])
    n = _lengths(lengths, batch, steps, "SequenceMask", 0)
    keep = np.arange(steps)[:, None] < n[None, :]            # (T, B)
    if axis == 1:
        keep = keep.T
    return keep.reshape(keep.shape + (1,) * (len(shape) - 2))


def _mask_fwd(x, lengths, axis, value):
    r = np.where(_keep_mask(lengths, x.shape, axis), x, x.dtype.type(value))
    return r if r.dtype == x.dtype else r.astype(x.dtype)


_no_grad = no_grad


def _zero_value(a):
    return dict(a, value=0.0)


# SequenceMask: data where steps are real, else value; linear in data with value 0, and
# its own adjoint then
_MASK: Op = defop("SequenceMask", _mask_fwd,
              [lambda g, y, x, n, **a: call(_MASK, (g, n), _zero_value(a)), _no_grad],
              [lambda t, y, x, n, **a: call(_MASK, (t, n), _zero_value(a)), _no_grad],
              save=(1,))


def _gather_key(lengths, dshape, axis, kind):
    """The NumPy key of SequenceLast (``kind='last'``: each sequence's last real step)
    or SequenceReverse (``'reverse'``: each step's source step)."""
    steps, batch = (dshape[0], dshape[1]) if axis == 0 else (dshape[1], dshape[0])
    if kind == "last":
        if lengths is None:
            last = np.full(batch, steps - 1, dtype=np.int64)
        else:
            last = _lengths(lengths, batch, steps, "SequenceLast", 1) - 1
        seqs = np.arange(batch)
        return (last, seqs) if axis == 0 else (seqs, last)
    n = (np.full(batch, steps, dtype=np.int64) if lengths is None else
         _lengths(lengths, batch, steps, "SequenceReverse", 0))
    t = np.arange(steps)[:, None]
    source = np.where(t < n[None, :], n[None, :] - 1 - t, t)   # (T, B)
    return source, np.broadcast_to(np.arange(batch)[None, :], (steps, batch))


def _gather_fwd(x, lengths, dshape, axis, kind):
    return x[_gather_key(lengths, dshape, axis, kind)]


def _scatter_fwd(g, lengths, dshape, axis, kind):
    """The adjoint of ``_gather_fwd``: ``g`` added into zeros of ``dshape``."""
    z = np.zeros(dshape, dtype=g.dtype)
    np.add.at(z, _gather_key(lengths, dshape, axis, kind), g)
    return z


# SequenceLast and SequenceReverse: gathers at positions made from the lengths; the
# adjoint scatter-adds back. Both ops take the same attributes (``dshape``: the data's).
_GATHER, _SCATTER = linear_pair("_sequence_gather", _gather_fwd,
                                "_sequence_gather_backward", _scatter_fwd)


def _finish(result: NDArray, out: Optional[NDArray]) -> NDArray:
    if out is None:
        return result
    from ._apply import write_out
    return write_out(out, result)

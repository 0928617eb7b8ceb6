"""MXNet's fused multi-head attention products ``nd.contrib.interleaved_matmul_*``
(``selfatt_qk``, ``selfatt_valatt``, ``encdec_qk``, ``encdec_valatt``), written with
mxgrad's reshape, transpose and ``batch_dot`` (so they differentiate to any order).

Layouts as MXNet 1.9.1: sequences first. ``queries_keys_values`` is
``(seq, batch, heads * 3 * head_dim)``, interleaved per head as ``(heads, 3, head_dim)``;
``keys_values`` is ``(seq, batch, heads * 2 * head_dim)``; attention maps are
``(batch * heads, q_seq, k_seq)``; the queries are scaled by ``1 / sqrt(head_dim)``.

Examples
--------
>>> import mxgrad as mx
>>> qkv = mx.nd.ones((3, 1, 2 * 3 * 4))
>>> mx.nd.contrib.interleaved_matmul_selfatt_qk(qkv, heads=2).shape
(2, 3, 3)
"""
from __future__ import annotations

import math
from typing import Any, Optional

from ..base import ShapeError, DTypeError
from .._engine.ndarray import NDArray
from .linalg import batch_dot
from .shape import reshape, slice_axis, transpose
from ._apply import write_out

__all__ = ["interleaved_matmul_selfatt_qk", "interleaved_matmul_selfatt_valatt",
           "interleaved_matmul_encdec_qk", "interleaved_matmul_encdec_valatt"]


def _check(op: str, name: str, x: Any, heads: int, parts: int) -> int:
    """The head size of ``x`` ``(seq, batch, heads * parts * head_dim)``."""
    if not isinstance(x, NDArray):
        raise DTypeError(f"{op}: {name} must be an NDArray, got {type(x).__name__}")
    if x.ndim != 3:
        raise ShapeError(f"{op}: {name} must be (seq_length, batch, features), got shape "
                         f"{tuple(x.shape)}")
    if int(heads) < 1 or x.shape[2] % (int(heads) * parts):
        raise ShapeError(f"{op}: the last axis of {name} ({x.shape[2]}) must be a multiple "
                         f"of heads * {parts} (heads={heads})")
    return x.shape[2] // (int(heads) * parts)


def _proj(x: NDArray, heads: int, parts: int, which: int) -> NDArray:
    """Part ``which`` of the interleaved projections as ``(batch * heads, seq, dim)``."""
    s, b, _ = x.shape
    t = reshape(x, (s, b, heads, parts, -1))
    t = reshape(slice_axis(t, 3, which, which + 1), (s, b, heads, -1))
    t = transpose(t, (1, 2, 0, 3))
    return reshape(t, (b * heads, s, -1))


def _merge(out: NDArray, heads: int) -> NDArray:
    """``(batch * heads, seq, dim)`` back to ``(seq, batch, heads * dim)``."""
    bh, s, d = out.shape
    t = transpose(reshape(out, (bh // heads, heads, s, d)), (2, 0, 1, 3))
    return reshape(t, (s, bh // heads, heads * d))


def _out(result: NDArray, out: Optional[NDArray]) -> NDArray:
    return result if out is None else write_out(out, result)


def _check_att(op: str, att: Any, bh: int, q: int, k: int) -> None:
    if not isinstance(att, NDArray):
        raise DTypeError(f"{op}: attention must be an NDArray, got {type(att).__name__}")
    if tuple(att.shape) != (bh, q, k):
        raise ShapeError(f"{op}: attention must have shape (batch * heads, q_seq, k_seq) = "
                         f"{(bh, q, k)}, got {tuple(att.shape)}")


def interleaved_matmul_selfatt_qk(queries_keys_values: NDArray, heads: int,
                                  out: Optional[NDArray] = None, **kwargs: Any) -> NDArray:
    """Scaled ``q . k^T`` of each head from interleaved projections:
    ``(batch * heads, seq, seq)``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> qkv = mx.nd.ones((2, 1, 3 * 4))
    >>> mx.nd.contrib.interleaved_matmul_selfatt_qk(qkv, heads=1).asnumpy().tolist()
    [[[2.0, 2.0], [2.0, 2.0]]]
    """
    op = "interleaved_matmul_selfatt_qk"
    d = _check(op, "queries_keys_values", queries_keys_values, heads, 3)
    q = _proj(queries_keys_values, int(heads), 3, 0) * (1.0 / math.sqrt(d))
    return _out(batch_dot(q, _proj(queries_keys_values, int(heads), 3, 1), transpose_b=True),
                out)


def interleaved_matmul_selfatt_valatt(queries_keys_values: NDArray, attention: NDArray,
                                      heads: int, out: Optional[NDArray] = None,
                                      **kwargs: Any) -> NDArray:
    """``attention . v`` of each head, merged back to ``(seq, batch, heads * head_dim)``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> qkv, att = mx.nd.ones((2, 1, 3 * 4)), mx.nd.ones((1, 2, 2)) * 0.5
    >>> mx.nd.contrib.interleaved_matmul_selfatt_valatt(qkv, att, heads=1).shape
    (2, 1, 4)
    """
    op = "interleaved_matmul_selfatt_valatt"
    _check(op, "queries_keys_values", queries_keys_values, heads, 3)
    s, b, _ = queries_keys_values.shape
    _check_att(op, attention, b * int(heads), s, s)
    v = _proj(queries_keys_values, int(heads), 3, 2)
    return _out(_merge(batch_dot(attention, v), int(heads)), out)


def interleaved_matmul_encdec_qk(queries: NDArray, keys_values: NDArray, heads: int,
                                 out: Optional[NDArray] = None, **kwargs: Any) -> NDArray:
    """Scaled ``q . k^T`` of each head, queries ``(q_seq, batch, heads * head_dim)``
    against interleaved keys/values: ``(batch * heads, q_seq, k_seq)``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> q, kv = mx.nd.ones((2, 1, 4)), mx.nd.ones((3, 1, 2 * 4))
    >>> mx.nd.contrib.interleaved_matmul_encdec_qk(q, kv, heads=1).shape
    (1, 2, 3)
    """
    op = "interleaved_matmul_encdec_qk"
    d = _check(op, "queries", queries, heads, 1)
    dk = _check(op, "keys_values", keys_values, heads, 2)
    if d != dk or queries.shape[1] != keys_values.shape[1]:
        raise ShapeError(f"{op}: queries {tuple(queries.shape)} and keys_values "
                         f"{tuple(keys_values.shape)} do not fit (same batch and head size)")
    q = _proj(queries, int(heads), 1, 0) * (1.0 / math.sqrt(d))
    return _out(batch_dot(q, _proj(keys_values, int(heads), 2, 0), transpose_b=True), out)


def interleaved_matmul_encdec_valatt(keys_values: NDArray, attention: NDArray, heads: int,
                                     out: Optional[NDArray] = None, **kwargs: Any) -> NDArray:
    """``attention . v`` of each head with interleaved keys/values, merged to
    ``(q_seq, batch, heads * head_dim)``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> kv, att = mx.nd.ones((3, 1, 2 * 4)), mx.nd.ones((1, 2, 3))
    >>> mx.nd.contrib.interleaved_matmul_encdec_valatt(kv, att, heads=1).shape
    (2, 1, 4)
    """
    op = "interleaved_matmul_encdec_valatt"
    _check(op, "keys_values", keys_values, heads, 2)
    s, b, _ = keys_values.shape
    if not isinstance(attention, NDArray) or attention.ndim != 3:
        raise ShapeError(f"{op}: attention must be a (batch * heads, q_seq, k_seq) NDArray")
    _check_att(op, attention, b * int(heads), attention.shape[1], s)
    v = _proj(keys_values, int(heads), 2, 1)
    return _out(_merge(batch_dot(attention, v), int(heads)), out)

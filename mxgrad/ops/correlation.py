"""``nd.Correlation``: FlowNet's correlation of two feature maps, as MXNet 1.9.1
computes it, written with mxgrad's pad, slice and reductions (so it differentiates with
respect to both inputs, to any order).

For each output position ``(i, j)`` (stride ``stride1`` over the padded maps, starting
``max_displacement`` in) and each displacement ``(dy, dx)`` of the neighbourhood (steps of
``stride2`` up to ``max_displacement``), the output channel ``dy_index * width + dx_index``
holds the mean over a ``kernel_size`` window (whose top-left corner is the position, as
MXNet's kernel) and the channels of ``data1 * data2`` shifted by the displacement
(``is_multiply=False``: of ``|data1 - data2|``).

Examples
--------
>>> import mxgrad as mx
>>> x = mx.nd.ones((1, 2, 4, 4))
>>> mx.nd.Correlation(x, x, max_displacement=1, pad_size=1).shape
(1, 9, 4, 4)
"""
from __future__ import annotations

import math
from typing import Any, Optional

from ..base import DTypeError, ShapeError, StateError
from .._engine.ndarray import NDArray
from .elemwise import abs as _abs, add_n
from .reduce import sum as _sum
from .shape import pad, slice as _slice, stack
from ._apply import write_out

__all__ = ["Correlation"]


def Correlation(data1: NDArray, data2: NDArray, kernel_size: int = 1,
                max_displacement: int = 1, stride1: int = 1, stride2: int = 1,
                pad_size: int = 0, is_multiply: bool = True, out: Optional[NDArray] = None,
                **kwargs: Any) -> NDArray:
    """Correlation of ``data1`` and ``data2`` ``(N, C, H, W)`` over displacements:
    ``(N, (2 * (max_displacement // stride2) + 1) ** 2, out_h, out_w)``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> a = mx.nd.arange(8).reshape((1, 2, 2, 2))
    >>> mx.nd.Correlation(a, a, max_displacement=0).asnumpy().ravel().tolist()
    [8.0, 13.0, 20.0, 29.0]
    """
    op = "Correlation"
    for name, v in (("data1", data1), ("data2", data2)):
        if not isinstance(v, NDArray):
            raise DTypeError(f"{op}: {name} must be an NDArray, got {type(v).__name__}")
    if data1.ndim != 4 or data1.shape != data2.shape:
        raise ShapeError(f"{op}: data1 and data2 must be (N, C, H, W) of one shape, got "
                         f"{tuple(data1.shape)} and {tuple(data2.shape)}")
    k, md, s1, s2, p = (int(v) for v in (kernel_size, max_displacement, stride1, stride2,
                                         pad_size))
    if k < 1 or k % 2 == 0 or md < 0 or s1 < 1 or s2 < 1 or p < 0:
        raise StateError(f"{op}: kernel_size must be odd and positive, strides positive, "
                         f"max_displacement and pad_size >= 0; got kernel_size={k}, "
                         f"max_displacement={md}, stride1={s1}, stride2={s2}, pad_size={p}")
    n, c, h, w = data1.shape
    border = md + (k - 1) // 2
    th = math.ceil((h + 2 * p - 2 * border) / s1)
    tw = math.ceil((w + 2 * p - 2 * border) / s1)
    if th < 1 or tw < 1:
        raise ShapeError(f"{op}: the maps ({h}x{w}, pad_size={p}) are too small for "
                         f"max_displacement={md} and kernel_size={k}")
    widths = (0, 0, 0, 0, p, p, p, p)
    a = pad(data1, mode="constant", pad_width=widths) if p else data1
    b = pad(data2, mode="constant", pad_width=widths) if p else data2
    r = md // s2
    grid = [(dy * s2, dx * s2) for dy in range(-r, r + 1) for dx in range(-r, r + 1)]

    def win(x, y0, x0):
        return _slice(x, (None, None, y0, x0), (None, None, y0 + (th - 1) * s1 + 1,
                                                  x0 + (tw - 1) * s1 + 1),
                      (None, None, s1, s1))

    firsts = {(i, j): win(a, md + i, md + j) for i in range(k) for j in range(k)}
    outs = []
    for dy, dx in grid:
        terms = []
        for (i, j), f in firsts.items():
            g = win(b, md + i + dy, md + j + dx)
            terms.append(_sum(f * g if is_multiply else _abs(f - g), axis=1))
        outs.append((add_n(*terms) if len(terms) > 1 else terms[0]) / float(k * k * c))
    res = stack(*outs, axis=1)
    return res if out is None else write_out(out, res)

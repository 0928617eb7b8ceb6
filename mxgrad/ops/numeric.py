"""Whole-array numeric checks and counts: ``nd.histogram``, ``nd.multi_all_finite`` and
``nd.contrib.allclose``, with MXNet 1.9.1's result types (counts as int64 given a range or bin
edges, float32 when NumPy picks the range; flags as float32 ``[1.]``/``[0.]``; ``allclose`` a
0-d uint8 array). None of them has a gradient (MXNet gives them none).

Examples
--------
>>> import mxgrad as mx
>>> counts, edges = mx.nd.histogram(mx.nd.array([0, 1, 2, 3, 4.5]), bins=2, range=(0, 5))
>>> counts.asnumpy().tolist(), edges.asnumpy().tolist()
([3, 2], [0.0, 2.5, 5.0])
"""
from __future__ import annotations

import warnings
from numbers import Number
from typing import Any, Optional, Tuple

import numpy as np

from .._check import as_int, as_real
from ..base import DTypeError, ShapeError, StateError
from .._engine.ndarray import NDArray, wrap
from ._mxnet_op import mxnet_op, optional_inputs

__all__ = ["histogram", "multi_all_finite", "allclose"]


def _arr(x, op: str, arg: str) -> NDArray:
    if not isinstance(x, NDArray):
        raise DTypeError(f"{op}: {arg} must be an NDArray, got {type(x).__name__}")
    return x


def histogram(a: NDArray, bins: Any = 10, range: Optional[Tuple[float, float]] = None,
              **kwargs: Any) -> Tuple[NDArray, NDArray]:
    """Counts of ``a``'s values in ``bins`` (a number of equal bins over ``range``, or an
    NDArray of ascending bin edges); returns ``(counts, edges)``. Without ``range`` NumPy's
    range (min, max) is used with a warning, as in MXNet.

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.histogram(mx.nd.array([0, 1, 5]), bins=mx.nd.array([0, 2, 6]))[0].asnumpy()
    array([2, 1])
    """
    data = _arr(a, "histogram", "a")._data
    if isinstance(bins, NDArray):
        edges = bins._data
        if edges.ndim != 1 or edges.size < 2 or np.any(np.diff(edges) < 0):
            raise ShapeError(f"histogram: bins as an NDArray must be 1-D ascending edges (at "
                             f"least 2), got shape {tuple(edges.shape)}")
        counts, out_edges = np.histogram(data, bins=edges.astype(np.float64))
        return wrap(counts.astype(np.int64)), wrap(edges.copy())
    n = as_int(bins, "histogram: bins")
    if n < 1:
        raise StateError(f"histogram: bins must be a positive number of bins, got {n}")
    if range is None:
        warnings.warn("range is not specified, using numpy's result to ensure consistency "
                      "with numpy", UserWarning, stacklevel=2)
        counts, out_edges = np.histogram(data, bins=n)
        return (wrap(counts.astype(np.float32)),
                wrap(out_edges.astype(data.dtype if data.dtype.kind == "f" else np.float32)))
    lo, hi = (as_real(v, "histogram: range") for v in range)
    if not lo < hi:
        raise StateError(f"histogram: range must be (low, high) with low < high, got "
                         f"{tuple(range)}")
    counts, out_edges = np.histogram(data, bins=n, range=(lo, hi))
    return wrap(counts.astype(np.int64)), wrap(out_edges.astype(np.float32))


def _histogram_run(inputs, kwargs):
    """MXNet's ``_histogram`` node: the bin edges an input array, else ``bin_cnt`` bins."""
    bins = inputs[1] if len(inputs) > 1 else int(kwargs.get("bin_cnt", 10))
    return histogram(inputs[0], bins=bins, range=kwargs.get("range"))


def _histogram_dtype(kw, ins, outs):
    """_histogram's dtype rule: int64 counts, the edges in the data's dtype."""
    return list(ins), [np.dtype("int64"), ins[0]]


mxnet_op("_histogram", ("data", "bins"), run=_histogram_run, attrs=("bin_cnt", "range"),
         outputs=2, dtype=_histogram_dtype,
         takes=optional_inputs(bins=lambda kw: "bin_cnt" not in kw))   # bins: edges or a count


def multi_all_finite(*data: NDArray, num_arrays: int = 1, init_output: bool = True,
                     out: Optional[NDArray] = None, **kwargs: Any) -> NDArray:
    """``[1.]`` (float32) if every element of every array is finite, else ``[0.]``. With
    ``init_output=False`` the flag in ``out`` is only ever lowered (it accumulates checks).

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.multi_all_finite(mx.nd.ones((2,)), mx.nd.array([float('nan')]), num_arrays=2)
    <BLANKLINE>
    [0.]
    <NDArray 1 @cpu(0)>
    """
    if as_int(num_arrays, "multi_all_finite: num_arrays") != len(data):
        raise StateError(f"multi_all_finite: num_arrays={num_arrays} but {len(data)} arrays "
                         f"were given; they must agree")
    flag = all(bool(np.isfinite(_arr(d, "multi_all_finite", f"data[{i}]")._data).all())
               for i, d in enumerate(data))
    if out is not None:
        if not isinstance(out, NDArray) or tuple(out.shape) != (1,):
            raise ShapeError("multi_all_finite: out must be an NDArray of shape (1,)")
        if init_output:
            out[:] = 1.0 if flag else 0.0
        elif not flag:
            out[:] = 0.0
        return out
    return wrap(np.array([1.0 if flag else 0.0], dtype=np.float32))


def allclose(a: NDArray, b: NDArray, rtol: float = 1e-05, atol: float = 1e-08,
             equal_nan: bool = True, **kwargs: Any) -> NDArray:
    """A 0-d uint8 array: 1 if ``|a - b| <= atol + rtol * |b|`` everywhere (NaNs equal when
    ``equal_nan``), else 0 (MXNet's ``contrib.allclose``).

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.contrib.allclose(mx.nd.array([1., 2.]), mx.nd.array([1., 2.000001])).asscalar()
    1
    """
    x, y = _arr(a, "allclose", "a")._data, _arr(b, "allclose", "b")._data
    if x.shape != y.shape:
        raise ShapeError(f"allclose: a and b must have one shape, got {x.shape} and {y.shape}")
    for name, v in (("rtol", rtol), ("atol", atol)):
        if not isinstance(v, Number):
            raise DTypeError(f"allclose: {name} must be a number, got {type(v).__name__}")
    ok = np.allclose(x, y, rtol=float(rtol), atol=float(atol), equal_nan=bool(equal_nan))
    return wrap(np.array(1 if ok else 0, dtype=np.uint8))


def _range(v, op: str, arg: str) -> np.float32:
    a = _arr(v, op, arg)._data.reshape(-1)
    if a.size != 1:
        raise ShapeError(f"{op}: {arg} must hold one number, got shape {a.shape}")
    return np.float32(a[0])


def quantize(data: NDArray, min_range: NDArray, max_range: NDArray, out_type: str = "uint8",
             **kwargs: Any):
    """MXNet 1.9's ``contrib.quantize``: ``[q, min, max]`` with ``r = max(|min|, |max|)``
    and ``q = rint(x * levels / r)`` (ties to even) clipped to the type: ``int8`` (127
    levels, clipped to [-128, 127]; the range returned as ``[-r], [r]``) or ``uint8`` (255
    levels, negatives to 0; the range returned as given). float32 arithmetic as MXNet's
    kernel; no gradient.

    Examples
    --------
    >>> import mxgrad as mx
    >>> q, lo, hi = mx.nd.contrib.quantize(mx.nd.array([0.1392, -0.6]), mx.nd.array([0.]),
    ...                                    mx.nd.array([1.]), out_type='int8')
    >>> q.asnumpy().tolist(), lo.asscalar(), hi.asscalar()
    ([18, -76], -1.0, 1.0)
    """
    x = _arr(data, "quantize", "data")._data.astype(np.float32)
    lo, hi = _range(min_range, "quantize", "min_range"), _range(max_range, "quantize",
                                                                "max_range")
    real = np.float32(max(abs(lo), abs(hi)))
    if out_type == "int8":
        q = np.clip(np.rint(x * (np.float32(127.0) / real)), -128, 127).astype(np.int8)
        return [wrap(q), wrap(np.array([-real], np.float32)), wrap(np.array([real], np.float32))]
    if out_type == "uint8":
        q = np.clip(np.rint(x * (np.float32(255.0) / real)), 0, 255).astype(np.uint8)
        return [wrap(q), wrap(np.array([lo], np.float32)), wrap(np.array([hi], np.float32))]
    raise StateError(f"quantize: out_type must be 'int8' or 'uint8', got {out_type!r}")


mxnet_op("_contrib_quantize", ("data", "min_range", "max_range"), nd_name="contrib.quantize",
         outputs=3)


def dequantize(data: NDArray, min_range: NDArray, max_range: NDArray,
               out_type: str = "float32", **kwargs: Any) -> NDArray:
    """MXNet 1.9's ``contrib.dequantize``: ``q * r / 127.5`` (int8) or ``q * r / 255.5``
    (uint8), ``r = max(|min|, |max|)`` (its kernel's constants), in float32."""
    q = _arr(data, "dequantize", "data")._data
    lo, hi = _range(min_range, "dequantize", "min_range"), _range(max_range, "dequantize",
                                                                  "max_range")
    if out_type != "float32":
        raise StateError(f"dequantize: out_type must be 'float32', got {out_type!r}")
    real = np.float32(max(abs(lo), abs(hi)))
    if q.dtype == np.int8:
        scale = real / np.float32(127.5)
    elif q.dtype == np.uint8:
        scale = real / np.float32(255.5)
    else:
        raise DTypeError(f"dequantize: data must be int8 or uint8 (from quantize), got "
                         f"{q.dtype}")
    return wrap(q.astype(np.float32) * scale)


__all__ += ["quantize", "dequantize"]

"""Matrix products: ``dot`` (MXNet's N-D semantics), ``batch_dot``, ``linalg_gemm2``,
``linalg_gemm`` and the ``@`` operator (NumPy ``matmul`` semantics).

Every product is one BLAS call on (views of) the inputs: transposes are passed to BLAS
as strides, never copied. The gradient of a product is again a product with other
transpose flags (the same op), so products have derivatives of any order.

``dot`` follows MXNet, not NumPy: for N-D inputs it contracts the *last* axis of
``lhs`` with the *first* axis of ``rhs`` (``(2, 3, 4) . (4, 5, 6) -> (2, 3, 5, 6)``);
``transpose_a`` views ``lhs`` as a matrix ``(lhs.shape[0], rest)`` and transposes it,
``transpose_b`` views ``rhs`` as ``(rest, rhs.shape[-1])`` and transposes it. The dot
of two vectors has shape ``(1,)`` (MXNet has no 0-d arrays).
"""
from __future__ import annotations

from typing import Any, List, Optional

import numpy as np

from ..base import DTypeError, ShapeError
from .._threads import matmul as _matmul   # np.matmul on the thread policy's threads
from .._engine.ndarray import NDArray
from . import _shape_rules as _sr
from ._core import Op, defop, call1, call2, as_array
from ._mxnet_op import mxnet_op
from .reduce import reshape_exact

__all__ = ["dot", "batch_dot", "linalg_gemm2", "linalg_gemm", "matmul", "linalg_extractdiag",
           "linalg_makediag", "linalg_sumlogdiag", "linalg_syrk", "linalg_inverse",
           "linalg_det", "linalg_slogdet", "linalg_trmm", "linalg_trsm", "linalg_potrf",
           "linalg_potri"]


def _check_dtypes(op, a, b):
    if a.dtype != b.dtype:
        raise DTypeError(f"{op}: both inputs must have the same dtype, got {a.dtype} and "
                         f"{b.dtype}; cast one with .astype(...)")


# --------------------------------------------------------------------- dot
def _dot_dims(ashape, bshape, ta, tb):
    """MXNet's 2-D views of dot's operands: ((ma, na), (mb, nb)) and the output shape
    (the products of the kept axes, so zero-size operands keep their other sizes)."""
    def prod(dims):
        n = 1
        for s in dims:
            n *= s
        return n
    if ta:
        ma, na, lpart = ashape[0], prod(ashape[1:]), ashape[1:]
    else:
        ma, na, lpart = prod(ashape[:-1]), ashape[-1], ashape[:-1]
    if tb:
        mb, nb, rpart = prod(bshape[:-1]), bshape[-1], bshape[:-1]
    else:
        mb, nb, rpart = bshape[0], prod(bshape[1:]), bshape[1:]
    k_a = ma if ta else na
    k_b = nb if tb else mb
    if k_a != k_b:
        raise ShapeError(
            f"dot: shapes {tuple(ashape)} and {tuple(bshape)} do not fit (transpose_a="
            f"{ta}, transpose_b={tb}): the contracted dimensions are {k_a} and {k_b}. "
            f"dot contracts the last axis of lhs with the first axis of rhs")
    oshape = (tuple(lpart) if len(ashape) > 1 else ()) + (tuple(rpart) if len(bshape) > 1
                                                         else ())
    return (ma, na), (mb, nb), oshape


def _dot_fwd(a, b, transpose_a, transpose_b):
    if a.ndim == 0 or b.ndim == 0:
        raise ShapeError("dot: scalar (0-d) inputs are not supported")
    if a.ndim == 1 and b.ndim == 1:
        if transpose_a or transpose_b:
            raise ShapeError("dot: cannot transpose vectors (both inputs are 1-D)")
        if a.shape[0] != b.shape[0]:
            raise ShapeError(f"dot: vectors of lengths {a.shape[0]} and {b.shape[0]} "
                             f"cannot be multiplied")
        return np.reshape(np.dot(a, b), (1,))
    sa, sb, oshape = _dot_dims(a.shape, b.shape, transpose_a, transpose_b)
    a2 = a.reshape(sa)
    b2 = b.reshape(sb)
    r = _matmul(a2.T if transpose_a else a2, b2.T if transpose_b else b2)
    if not oshape:
        oshape = (1,)
    return r if r.shape == oshape else r.reshape(oshape)


def _dot_2d(g, a, b, ta, tb):
    """The 2-D views (as mxgrad ops) of the output gradient and both operands."""
    sa, sb, _ = _dot_dims(a.shape, b.shape, ta, tb)
    m = sa[1] if ta else sa[0]
    n = sb[0] if tb else sb[1]
    return reshape_exact(g, (m, n)), reshape_exact(a, sa), reshape_exact(b, sb)


def _dot_ga(g, y, a, b, transpose_a, transpose_b):
    if a.ndim == 1 and b.ndim == 1:
        return g * b
    g2, a2, b2 = _dot_2d(g, a, b, transpose_a, transpose_b)
    if transpose_a:
        r = dot(b2, g2, transpose_a=transpose_b, transpose_b=True)
    else:
        r = dot(g2, b2, transpose_b=not transpose_b)
    return reshape_exact(r, a.shape)


def _dot_gb(g, y, a, b, transpose_a, transpose_b):
    if a.ndim == 1 and b.ndim == 1:
        return g * a
    g2, a2, b2 = _dot_2d(g, a, b, transpose_a, transpose_b)
    if transpose_b:
        r = dot(g2, a2, transpose_a=True, transpose_b=transpose_a)
    else:
        r = dot(a2, g2, transpose_a=not transpose_a)
    return reshape_exact(r, b.shape)


_DOT = defop("dot", _dot_fwd, [_dot_ga, _dot_gb],
             [lambda t, y, a, b, transpose_a, transpose_b:
              dot(t, b, transpose_a=transpose_a, transpose_b=transpose_b),
              lambda t, y, a, b, transpose_a, transpose_b:
              dot(a, t, transpose_a=transpose_a, transpose_b=transpose_b)])


def dot(lhs: NDArray, rhs: NDArray, transpose_a: bool = False, transpose_b: bool = False,
        forward_stype: Optional[str] = None, out: Optional[NDArray] = None,
        name: Optional[str] = None, **kwargs: Any) -> NDArray:
    """Dot product with MXNet's semantics.

    * 1-D . 1-D: inner product, shape ``(1,)``;
    * 2-D . 2-D: matrix product;
    * N-D: sum product over the last axis of ``lhs`` and the first axis of ``rhs``
      (``(n, m, k) . (k, r, s) -> (n, m, r, s)``).

    Parameters
    ----------
    lhs, rhs : NDArray
    transpose_a : bool, default False
        Use ``lhs`` viewed as ``(lhs.shape[0], -1)`` and transposed: the first axis of
        ``lhs`` is contracted and the output starts with ``lhs.shape[1:]``.
    transpose_b : bool, default False
        Use ``rhs`` viewed as ``(-1, rhs.shape[-1])`` and transposed: the last axis of
        ``rhs`` is contracted and the output ends with ``rhs.shape[:-1]``.

    Returns
    -------
    NDArray

    Examples
    --------
    >>> import mxgrad as mx
    >>> a = mx.nd.array([[1., 2.], [3., 4.]])
    >>> mx.nd.dot(a, a)
    <BLANKLINE>
    [[ 7. 10.]
     [15. 22.]]
    <NDArray 2x2 @cpu(0)>
    >>> mx.nd.dot(a, a, transpose_a=True)
    <BLANKLINE>
    [[10. 14.]
     [14. 20.]]
    <NDArray 2x2 @cpu(0)>
    >>> mx.nd.dot(mx.nd.array([1., 2.]), mx.nd.array([3., 4.]))
    <BLANKLINE>
    [11.]
    <NDArray 1 @cpu(0)>
    >>> mx.nd.dot(mx.nd.ones((2, 3, 4)), mx.nd.ones((4, 5, 6))).shape
    (2, 3, 5, 6)
    """
    attrs = {"transpose_a": bool(transpose_a), "transpose_b": bool(transpose_b)}
    if type(lhs) is np.ndarray and type(rhs) is np.ndarray:
        return _dot_fwd(lhs, rhs, **attrs)
    if not isinstance(lhs, NDArray):
        lhs = as_array(lhs, "dot", "lhs")
    if not isinstance(rhs, NDArray):
        rhs = as_array(rhs, "dot", "rhs")
    _check_dtypes("dot", lhs._data, rhs._data)
    r = call2(_DOT, lhs, rhs, attrs)
    return _to_out(out, r)


def _dot_shape(batch: bool):
    """The shape rule of ``dot`` (``batch`` False) and ``batch_dot`` (True)."""
    def rule(kw, ins, outs):
        """A product's output shape from its inputs' (after ``transpose_a``/``_b``); the
        contracted sizes must agree."""
        a, b = ins
        if a is None or b is None:
            return list(ins), list(outs)
        ta, tb = bool(kw.get("transpose_a")), bool(kw.get("transpose_b"))
        if batch:
            if len(a) != 3 or len(b) != 3:
                raise ShapeError(f"batch_dot: inputs must be 3-D, got {_sr.fmt(a)} and "
                                 f"{_sr.fmt(b)}")
            m, ka = (a[2], a[1]) if ta else (a[1], a[2])
            kb, n = (b[2], b[1]) if tb else (b[1], b[2])
            if ka < 0 or kb < 0:
                return list(ins), list(outs)
            if ka != kb:
                raise ShapeError(f"batch_dot: shapes {_sr.fmt(a)} and {_sr.fmt(b)} do not "
                                 f"match")
            nb = _sr.dim(a[0], b[0])
            if a[0] >= 0 and b[0] >= 0 and a[0] != b[0]:
                raise ShapeError(f"batch_dot: batch sizes of {_sr.fmt(a)} and {_sr.fmt(b)} "
                                 f"differ")
            return list(ins), [_sr.merge(outs[0], (nb, m, n))]
        if len(a) == 1 and len(b) == 1:
            return list(ins), [_sr.merge(outs[0], (1,))]
        ka = a[0] if ta else a[-1]
        kb = b[-1] if tb else b[0]
        if ka < 0 or kb < 0:
            return list(ins), list(outs)
        if ka != kb:
            raise ShapeError(f"dot: shapes {_sr.fmt(a)} and {_sr.fmt(b)} do not match")
        left = tuple(a[1:]) if ta else tuple(a[:-1])
        right = tuple(b[:-1]) if tb else tuple(b[1:])
        return list(ins), [_sr.merge(outs[0], left + right)]
    return rule


mxnet_op("dot", ("lhs", "rhs"), shape=_dot_shape(False))


def _to_out(out, r):
    if out is None:
        return r
    from ._core import inplace_apply
    if not isinstance(out, NDArray):
        raise DTypeError(f"out= must be an NDArray, got {type(out).__name__}")
    return inplace_apply(out, r)


# ------------------------------------------------- batched matrix products
def _swap(x, axis):
    return x if axis == -2 else np.swapaxes(x, axis, -2)


def _gemm2_fwd(a, b, transpose_a, transpose_b, alpha, axis):
    if a.ndim < 2 or b.ndim < 2:
        raise ShapeError(f"linalg_gemm2: inputs need at least 2 dimensions, got shapes "
                         f"{a.shape} and {b.shape}")
    a = _swap(a, axis)
    b = _swap(b, axis)
    ka = a.shape[-2] if transpose_a else a.shape[-1]
    kb = b.shape[-1] if transpose_b else b.shape[-2]
    if ka != kb:
        raise ShapeError(
            f"matrix product: inner dimensions differ ({ka} vs {kb}) for shapes "
            f"{a.shape} and {b.shape} (transpose_a={transpose_a}, "
            f"transpose_b={transpose_b})")
    r = _matmul(np.swapaxes(a, -1, -2) if transpose_a else a,
                  np.swapaxes(b, -1, -2) if transpose_b else b)
    if alpha != 1.0:
        r *= alpha
    return _swap(r, axis)


def _gemm2(a, b, ta, tb, alpha, axis):
    return call2(_GEMM2, a, b, {"transpose_a": ta, "transpose_b": tb, "alpha": alpha,
                                "axis": axis})


def _gemm2_ga(g, y, a, b, transpose_a, transpose_b, alpha, axis):
    if transpose_a:
        return _gemm2(b, g, transpose_b, True, alpha, axis)
    return _gemm2(g, b, False, not transpose_b, alpha, axis)


def _gemm2_gb(g, y, a, b, transpose_a, transpose_b, alpha, axis):
    if transpose_b:
        return _gemm2(g, a, True, transpose_a, alpha, axis)
    return _gemm2(a, g, not transpose_a, False, alpha, axis)


_GEMM2 = defop("linalg_gemm2", _gemm2_fwd, [_gemm2_ga, _gemm2_gb],
               [lambda t, y, a, b, transpose_a, transpose_b, alpha, axis:
                _gemm2(t, b, transpose_a, transpose_b, alpha, axis),
                lambda t, y, a, b, transpose_a, transpose_b, alpha, axis:
                _gemm2(a, t, transpose_a, transpose_b, alpha, axis)])


def _prep2(op, lhs, rhs):
    if not isinstance(lhs, NDArray) and type(lhs) is not np.ndarray:
        lhs = as_array(lhs, op, "lhs")
    if not isinstance(rhs, NDArray) and type(rhs) is not np.ndarray:
        rhs = as_array(rhs, op, "rhs")
    _check_dtypes(op, lhs if type(lhs) is np.ndarray else lhs._data,
                  rhs if type(rhs) is np.ndarray else rhs._data)
    return lhs, rhs


def batch_dot(lhs: NDArray, rhs: NDArray, transpose_a: bool = False, transpose_b: bool = False,
              forward_stype: Optional[str] = None, out: Optional[NDArray] = None,
              name: Optional[str] = None, **kwargs: Any) -> NDArray:
    """Batched matrix product of N-D arrays (N >= 3) with equal leading dimensions.

    ``(B, n, k) x (B, k, m) -> (B, n, m)``; ``transpose_a``/``transpose_b`` transpose
    the last two axes of the corresponding input first.

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.batch_dot(mx.nd.ones((2, 3, 4)), mx.nd.ones((2, 4, 5))).shape
    (2, 3, 5)
    >>> mx.nd.batch_dot(mx.nd.ones((2, 4, 3)), mx.nd.ones((2, 5, 4)),
    ...                 transpose_a=True, transpose_b=True).shape
    (2, 3, 5)
    """
    lhs, rhs = _prep2("batch_dot", lhs, rhs)
    if lhs.ndim < 3 or lhs.ndim != rhs.ndim or lhs.shape[:-2] != rhs.shape[:-2]:
        raise ShapeError(f"batch_dot: inputs must be N-D arrays (N >= 3) with the same "
                         f"leading (batch) dimensions, got shapes {lhs.shape} and "
                         f"{rhs.shape}")
    r = _gemm2(lhs, rhs, bool(transpose_a), bool(transpose_b), 1.0, -2)
    return _to_out(out, r)


mxnet_op("batch_dot", ("lhs", "rhs"), shape=_dot_shape(True))


def _row_axis(axis, ndim):
    axis = int(axis)
    if not -ndim <= axis < ndim:
        raise ShapeError(f"linalg_gemm2: axis {axis} is out of range for {ndim}-D inputs")
    if axis % ndim == ndim - 1:
        raise ShapeError("linalg_gemm2: axis (the row axis) cannot be the last axis, which "
                         "holds the columns")
    return -2 if axis % ndim == ndim - 2 else axis % ndim


def linalg_gemm2(A: NDArray, B: NDArray, transpose_a: bool = False, transpose_b: bool = False,
                 alpha: float = 1.0, axis: int = -2, out: Optional[NDArray] = None,
                 name: Optional[str] = None, **kwargs: Any) -> NDArray:
    """``alpha * op(A) . op(B)`` on the trailing two axes, batched over the others.

    Parameters
    ----------
    A, B : NDArray
        Arrays with at least 2 dimensions and the same leading dimensions.
    transpose_a, transpose_b : bool, default False
        Transpose the matrices of ``A`` / ``B`` first.
    alpha : float, default 1.0
    axis : int, default -2
        The axis holding the matrix rows (columns are the last axis); another value
        works like swapping ``axis`` with ``-2`` before and after the product.

    Examples
    --------
    >>> import mxgrad as mx
    >>> A = mx.nd.array([[1., 2.], [3., 4.]])
    >>> mx.nd.linalg_gemm2(A, A, transpose_b=True, alpha=0.5)
    <BLANKLINE>
    [[ 2.5  5.5]
     [ 5.5 12.5]]
    <NDArray 2x2 @cpu(0)>
    """
    A, B = _prep2("linalg_gemm2", A, B)
    r = _gemm2(A, B, bool(transpose_a), bool(transpose_b), float(alpha),
               _row_axis(axis, A.ndim))
    return _to_out(out, r)


def linalg_gemm(A: NDArray, B: NDArray, C: NDArray, transpose_a: bool = False,
                transpose_b: bool = False, alpha: float = 1.0, beta: float = 1.0, axis: int = -2,
                out: Optional[NDArray] = None, name: Optional[str] = None, **kwargs: Any
                ) -> NDArray:
    """``alpha * op(A) . op(B) + beta * C`` (see :func:`linalg_gemm2`).

    Examples
    --------
    >>> import mxgrad as mx
    >>> A = mx.nd.array([[1., 2.], [3., 4.]])
    >>> mx.nd.linalg_gemm(A, A, mx.nd.ones((2, 2)), beta=2.)
    <BLANKLINE>
    [[ 9. 12.]
     [17. 24.]]
    <NDArray 2x2 @cpu(0)>
    """
    r = linalg_gemm2(A, B, transpose_a, transpose_b, alpha, axis)
    if not isinstance(C, NDArray) and type(C) is not np.ndarray:
        C = as_array(C, "linalg_gemm", "C")
    if C.shape != r.shape:
        raise ShapeError(f"linalg_gemm: C has shape {C.shape} but op(A).op(B) has shape "
                         f"{r.shape}")
    r = r + (C * float(beta) if beta != 1.0 else C)
    return _to_out(out, r)


def _gemm_shape(kw, ins, outs):
    """``linalg.gemm``'s addend ``C`` and output: shaped as each other and, on the default
    axis, as the product of ``A`` and ``B`` (after ``transpose_a``/``_b``)."""
    a, b = ins[0], ins[1]
    o = _sr.merge(outs[0], ins[2])
    if a is not None and b is not None and len(a) == len(b) >= 2 \
            and int(kw.get("axis", -2)) == -2:
        m = a[-1] if kw.get("transpose_a") else a[-2]
        n = b[-2] if kw.get("transpose_b") else b[-1]
        o = _sr.merge(o, tuple(_sr.dim(x, y) for x, y in zip(a[:-2], b[:-2])) + (m, n))
    return [a, b, o], [o]


mxnet_op("_linalg_gemm", ("A", "B", "C"), nd_name="linalg.gemm", shape=_gemm_shape)


# ------------------------------------------------- diagonals, syrk, inverse, det
def _extractdiag_fwd(a, offset):
    if a.ndim < 2:
        raise ShapeError(f"linalg_extractdiag: input needs at least 2 dimensions, got "
                         f"shape {a.shape}")
    return np.ascontiguousarray(np.diagonal(a, offset, axis1=-2, axis2=-1))


def _makediag_fwd(v, offset):
    m = v.shape[-1]
    n = m + abs(offset)
    out = np.zeros(v.shape[:-1] + (n, n), dtype=v.dtype)
    i = np.arange(m)
    out[..., i + max(-offset, 0), i + max(offset, 0)] = v
    return out


_EXTRACTDIAG = defop("linalg_extractdiag", _extractdiag_fwd,
                     [lambda g, y, a, offset: linalg_makediag(g, offset)],
                     [lambda t, y, a, offset: linalg_extractdiag(t, offset)], save=())
_MAKEDIAG = defop("linalg_makediag", _makediag_fwd,
                  [lambda g, y, v, offset: linalg_extractdiag(g, offset)],
                  [lambda t, y, v, offset: linalg_makediag(t, offset)], save=())


def linalg_extractdiag(A: NDArray, offset: int = 0, **kwargs: Any) -> NDArray:
    """The diagonal (``offset`` > 0: above, < 0: below) of the trailing square
    matrices of ``A``: shape ``A.shape[:-2] + (n - |offset|,)``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.linalg_extractdiag(mx.nd.array([[1., 2.], [3., 4.]]))
    <BLANKLINE>
    [1. 4.]
    <NDArray 2 @cpu(0)>
    """
    return call1(_EXTRACTDIAG, _prep1("linalg_extractdiag", A), {"offset": int(offset)})


def linalg_makediag(A: NDArray, offset: int = 0, **kwargs: Any) -> NDArray:
    """Square matrices with the trailing vectors of ``A`` on the diagonal ``offset``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.linalg_makediag(mx.nd.array([1., 2.]))
    <BLANKLINE>
    [[1. 0.]
     [0. 2.]]
    <NDArray 2x2 @cpu(0)>
    """
    return call1(_MAKEDIAG, _prep1("linalg_makediag", A), {"offset": int(offset)})


def linalg_sumlogdiag(A: NDArray, **kwargs: Any) -> NDArray:
    """``sum(log(diag(A)))`` of each trailing square matrix (shape ``A.shape[:-2]``,
    ``(1,)`` for a single matrix).

    Examples
    --------
    >>> import mxgrad as mx
    >>> float(mx.nd.linalg_sumlogdiag(mx.nd.array([[1., 0.], [0., 1.]])).asscalar())
    0.0
    """
    from .elemwise import log
    from .reduce import sum as _sum
    A = _prep1("linalg_sumlogdiag", A)
    _square("linalg_sumlogdiag", A.shape)
    return _sum(log(linalg_extractdiag(A)), axis=-1)


def _batch_scalar_shape(kw, ins, outs):
    """A per-matrix scalar's shape (det, sumlogdiag, slogdet): the batch axes, ``(1,)`` for
    one matrix."""
    a = ins[0]
    batch = None if a is None else (tuple(a[:-2]) or (1,))     # a matrix gives (1,)
    return list(ins), [batch] * len(outs)


mxnet_op("_linalg_sumlogdiag", ("A",), nd_name="linalg.sumlogdiag", shape=_batch_scalar_shape)


def linalg_syrk(A: NDArray, transpose: bool = False, alpha: float = 1.0, **kwargs: Any) -> NDArray:
    """``alpha * A . A^T`` (or ``alpha * A^T . A`` with ``transpose=True``), batched.

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.linalg_syrk(mx.nd.array([[1., 2.], [3., 4.]]))
    <BLANKLINE>
    [[ 5. 11.]
     [11. 25.]]
    <NDArray 2x2 @cpu(0)>
    """
    A = _prep1("linalg_syrk", A)
    if A.ndim < 2:
        raise ShapeError(f"linalg_syrk: input needs at least 2 dimensions, got {A.shape}")
    return _gemm2(A, A, bool(transpose), not transpose, float(alpha), -2)


def _prep1(op, A):
    if not isinstance(A, NDArray) and type(A) is not np.ndarray:
        A = as_array(A, op, "A")
    return A


def _square(op, shape):
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise ShapeError(f"{op}: needs (batches of) square matrices in the last two axes, "
                         f"got shape {tuple(shape)}")


def _mT(x):
    return call1(_MT, x)


_MT = defop("_matrix_transpose", lambda x: np.ascontiguousarray(np.swapaxes(x, -1, -2)),
            [lambda g, y, x: _mT(g)], [lambda t, y, x: _mT(t)], save=())


def _inverse_fwd(a):
    try:
        return np.linalg.inv(a)
    except np.linalg.LinAlgError as err:
        raise ShapeError(f"linalg_inverse: matrix is singular ({err})") from None


_INVERSE = defop("linalg_inverse", _inverse_fwd,
                 [lambda g, y, a: -_gemm2(y, _gemm2(g, y, False, True, 1.0, -2), True, False,
                                          1.0, -2)],
                 [lambda t, y, a: -_gemm2(y, _gemm2(t, y, False, False, 1.0, -2), False,
                                          False, 1.0, -2)],
                 save=(), save_out=True)


def linalg_inverse(A: NDArray, **kwargs: Any) -> NDArray:
    """Inverse of each trailing square matrix of ``A``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.linalg_inverse(mx.nd.array([[2., 0.], [0., 4.]]))
    <BLANKLINE>
    [[0.5  0.  ]
     [0.   0.25]]
    <NDArray 2x2 @cpu(0)>
    """
    A = _prep1("linalg_inverse", A)
    _square("linalg_inverse", A.shape)
    return call1(_INVERSE, A)


mxnet_op("_linalg_inverse", ("A",), nd_name="linalg.inverse", shape=_sr.same)


def _batch_scalar(x, ashape):
    """A per-matrix value (shape ``ashape[:-2]`` or ``(1,)``) shaped to broadcast over
    the matrices."""
    return reshape_exact(x, tuple(ashape[:-2]) + (1, 1))


def _det_fwd(a):
    d = np.linalg.det(a)
    return np.reshape(d, (1,)) if a.ndim == 2 else np.asarray(d)


def _det_grad(g, y, a):
    return _batch_scalar(g * y, a.shape) * _mT(linalg_inverse(a))


def _det_jvp(t, y, a):
    from .reduce import sum as _sum
    # d det = det * trace(A^-1 dA)
    tr = _sum(_sum(_mT(linalg_inverse(a)) * t, axis=-1), axis=-1)
    return y * (tr if a.ndim > 2 else reshape_exact(tr, (1,)))


_DET = defop("linalg_det", _det_fwd, [_det_grad], [_det_jvp], save_out=True)


def linalg_det(A: NDArray, **kwargs: Any) -> NDArray:
    """Determinant of each trailing square matrix (shape ``A.shape[:-2]``, ``(1,)``
    for one matrix); gradient ``det(A) * inv(A)^T``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> float(mx.nd.linalg_det(mx.nd.array([[1., 2.], [3., 4.]])).asscalar())
    -2.0
    """
    A = _prep1("linalg_det", A)
    _square("linalg_det", A.shape)
    return call1(_DET, A)


def _det_shape(kw, ins, outs):
    """``linalg.det``'s output: one value per matrix; its hidden outputs (MXNet's LU factor
    and pivots) shaped as the input and without its last axis."""
    a = ins[0]
    if a is None:
        return list(ins), list(outs)
    return list(ins), [tuple(a[:-2]) or (1,), a, tuple(a[:-1])][:len(outs)]


# two hidden outputs, as MXNet's (so its output is named <name>_output0)
mxnet_op("_linalg_det", ("A",), nd_name="linalg.det", outputs=3, visible=1, shape=_det_shape)


def _slogdet_fwd(a):
    s, l = np.linalg.slogdet(a)
    if a.ndim == 2:
        return np.reshape(s, (1,)).astype(a.dtype), np.reshape(l, (1,)).astype(a.dtype)
    return s.astype(a.dtype), l.astype(a.dtype)


def _slogdet_grad(g, y, a):
    return _batch_scalar(g[1], a.shape) * _mT(linalg_inverse(a))


def _slogdet_jvp(t, y, a):
    from .reduce import sum as _sum
    tr = _sum(_sum(_mT(linalg_inverse(a)) * t, axis=-1), axis=-1)
    return None, (tr if a.ndim > 2 else reshape_exact(tr, (1,)))


_SLOGDET = defop("linalg_slogdet", _slogdet_fwd, [_slogdet_grad], [_slogdet_jvp], nout=2)


def linalg_slogdet(A: NDArray, **kwargs: Any) -> List[NDArray]:
    """Sign and log of the absolute determinant of each trailing square matrix:
    returns ``(sign, logabsdet)``; the gradient of ``logabsdet`` is ``inv(A)^T``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> s, l = mx.nd.linalg_slogdet(mx.nd.array([[1., 2.], [3., 4.]]))
    >>> float(s.asscalar()), round(float(l.asscalar()), 4)
    (-1.0, 0.6931)
    """
    A = _prep1("linalg_slogdet", A)
    _square("linalg_slogdet", A.shape)
    return list(call1(_SLOGDET, A))


mxnet_op("_linalg_slogdet", ("A",), nd_name="linalg.slogdet", outputs=2,
         shape=_batch_scalar_shape)     # linalg_slogdet: its alias (symbol/_registry.py)


# ------------------------------------------------ triangular ops and Cholesky
def _tri_fwd(a, lower, k):
    return np.tril(a, k) if lower else np.triu(a, k)


def _tri(a, lower=True, k=0):
    """The lower (upper) triangle of the trailing matrices, the rest zero."""
    return call1(_TRI, a, {"lower": lower, "k": k})


_TRI = defop("_triangle", _tri_fwd, [lambda g, y, a, lower, k: _tri(g, lower, k)],
             [lambda t, y, a, lower, k: _tri(t, lower, k)], save=())


def _copy_ltu_fwd(m):
    return np.tril(m) + np.swapaxes(np.tril(m, -1), -1, -2)


_COPY_LTU: Op = defop("_copy_lower_to_upper", _copy_ltu_fwd,
                  [lambda g, y, m: _tri(g) + _tri(_mT(g), True, -1)],
                  [lambda t, y, m: call1(_COPY_LTU, t)], save=())


def _solve_fwd(m, b):
    try:
        return np.linalg.solve(m, b)
    except np.linalg.LinAlgError as err:
        raise ShapeError(f"linear solve: the triangular/square matrix is singular "
                         f"({err})") from None


def _solve(m, b):
    """``m^-1 . b`` for batches of square ``m`` and matrices ``b``."""
    return call2(_SOLVE, m, b)


def _solve_gm(g, x, m, b):
    return -_gemm2(_solve(_mT(m), g), x, False, True, 1.0, -2)


_SOLVE = defop("_solve", _solve_fwd,
               [_solve_gm, lambda g, x, m, b: _solve(_mT(m), g)],
               [lambda t, x, m, b: -_solve(m, _gemm2(t, x, False, False, 1.0, -2)),
                lambda t, x, m, b: _solve(m, t)], save_out=True)


def _tri_args(op, A, B):
    A, B = _prep2(op, A, B)
    _square(op, A.shape)
    if B.ndim != A.ndim or B.shape[:-2] != A.shape[:-2]:
        raise ShapeError(f"{op}: A {A.shape} and B {B.shape} must have the same leading "
                         f"dimensions")
    return A, B


def linalg_trmm(A: NDArray, B: NDArray, transpose: bool = False, rightside: bool = False,
                lower: bool = True, alpha: float = 1.0, **kwargs: Any) -> NDArray:
    """``alpha * op(A) . B`` (or ``alpha * B . op(A)`` with ``rightside=True``) where
    only the lower (``lower=True``) or upper triangle of ``A`` is used and ``op``
    transposes when ``transpose=True``. Batched over leading axes.

    Examples
    --------
    >>> import mxgrad as mx
    >>> A = mx.nd.array([[1., 0.], [1., 1.]])
    >>> mx.nd.linalg_trmm(A, mx.nd.ones((2, 3)), alpha=2.)
    <BLANKLINE>
    [[2. 2. 2.]
     [4. 4. 4.]]
    <NDArray 2x3 @cpu(0)>
    """
    A, B = _tri_args("linalg_trmm", A, B)
    T = _tri(A, bool(lower))
    if rightside:
        return _gemm2(B, T, False, bool(transpose), float(alpha), -2)
    return _gemm2(T, B, bool(transpose), False, float(alpha), -2)


def _triangular_shape(kw, ins, outs):
    """``linalg.trmm``/``trsm``'s output: shaped as ``B``."""
    return list(ins), [_sr.merge(outs[0], ins[1])]


mxnet_op("_linalg_trmm", ("A", "B"), nd_name="linalg.trmm", shape=_triangular_shape)


def linalg_trsm(A: NDArray, B: NDArray, transpose: bool = False, rightside: bool = False,
                lower: bool = True, alpha: float = 1.0, **kwargs: Any) -> NDArray:
    """Solve ``op(A) . X = alpha * B`` (or ``X . op(A) = alpha * B`` with
    ``rightside=True``) for ``X``, with ``A`` triangular (only its lower or upper
    triangle is read). Batched over leading axes.

    Examples
    --------
    >>> import mxgrad as mx
    >>> A = mx.nd.array([[1., 0.], [1., 1.]])
    >>> B = mx.nd.array([[2., 2., 2.], [4., 4., 4.]])
    >>> mx.nd.linalg_trsm(A, B, alpha=0.5)
    <BLANKLINE>
    [[1. 1. 1.]
     [1. 1. 1.]]
    <NDArray 2x3 @cpu(0)>
    """
    A, B = _tri_args("linalg_trsm", A, B)
    T = _tri(A, bool(lower))
    opT = _mT(T) if transpose else T
    Bs = B * float(alpha) if alpha != 1.0 else B
    if rightside:
        return _mT(_solve(_mT(opT), _mT(Bs)))
    return _solve(opT, Bs)


mxnet_op("_linalg_trsm", ("A", "B"), nd_name="linalg.trsm", shape=_triangular_shape)


def _potrf_fwd(a, lower):
    try:
        L = np.linalg.cholesky(a)
    except np.linalg.LinAlgError as err:
        raise ShapeError(f"linalg_potrf: the matrix is not symmetric positive definite "
                         f"({err})") from None
    return L if lower else np.ascontiguousarray(np.swapaxes(L, -1, -2))


def _potrf_grad(g, y, a, lower):
    # dA = 0.5 * L^-T copyLTU(L^T dL) L^-1 (a symmetric gradient, as MXNet)
    L = y if lower else _mT(y)
    dL = g if lower else _mT(g)
    S = call1(_COPY_LTU, _gemm2(L, dL, True, False, 1.0, -2))
    Lt = _mT(L)
    Y = _solve(Lt, S)
    return _mT(_solve(Lt, _mT(Y))) * 0.5


def _potrf_jvp(t, y, a, lower):
    # dL = L Phi(L^-1 dA L^-T), Phi: lower triangle with halved diagonal
    L = y if lower else _mT(y)
    M = _mT(_solve(L, _mT(_solve(L, t))))
    phi = _tri(M, True, -1) + _tri(_tri(M, True, 0), False, 0) * 0.5
    dL = _gemm2(L, phi, False, False, 1.0, -2)
    return dL if lower else _mT(dL)


_POTRF = defop("linalg_potrf", _potrf_fwd, [_potrf_grad], [_potrf_jvp], save=(),
               save_out=True)


def linalg_potrf(A: NDArray, lower: bool = True, **kwargs: Any) -> NDArray:
    """Cholesky factor of symmetric positive definite matrices: ``L`` with
    ``A = L . L^T`` (``lower=True``) or ``U`` with ``A = U^T . U``. The gradient is the
    symmetric one (as MXNet): ``0.5 * L^-T copyLTU(L^T dL) L^-1``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.linalg_potrf(mx.nd.array([[4., 2.], [2., 5.]]))
    <BLANKLINE>
    [[2. 0.]
     [1. 2.]]
    <NDArray 2x2 @cpu(0)>
    """
    A = _prep1("linalg_potrf", A)
    _square("linalg_potrf", A.shape)
    return call1(_POTRF, A, {"lower": bool(lower)})


mxnet_op("_linalg_potrf", ("A",), nd_name="linalg.potrf", shape=_sr.same)


def linalg_potri(A: NDArray, lower: bool = True, **kwargs: Any) -> NDArray:
    """Inverse of ``A . A^T`` (``lower=True``) or ``A^T . A`` from a triangular
    (Cholesky) factor ``A``: the inverse of the matrix whose factor ``A`` is.

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.linalg_potri(mx.nd.array([[2., 0.], [0., 0.5]]))
    <BLANKLINE>
    [[0.25 0.  ]
     [0.   4.  ]]
    <NDArray 2x2 @cpu(0)>
    """
    A = _prep1("linalg_potri", A)
    _square("linalg_potri", A.shape)
    T = _tri(A, bool(lower))
    return linalg_inverse(_gemm2(T, T, not lower, bool(lower), 1.0, -2))


mxnet_op("_linalg_potri", ("A",), nd_name="linalg.potri", shape=_sr.same)


# ------------------------------------------------------------ matmul / @
def matmul(a: NDArray, b: NDArray) -> NDArray:
    """NumPy-style ``matmul`` (the ``@`` operator): batched over broadcast leading axes;
    a 1-D operand is a vector (and the product of two vectors has shape ``(1,)``).

    Examples
    --------
    >>> import mxgrad as mx
    >>> (mx.nd.ones((5, 2, 3)) @ mx.nd.ones((3, 4))).shape
    (5, 2, 4)
    >>> (mx.nd.ones((2, 3)) @ mx.nd.ones((3,))).shape
    (2,)
    """
    a, b = _prep2("matmul", a, b)
    if a.ndim == 0 or b.ndim == 0:
        raise ShapeError("matmul: scalar (0-d) operands are not supported; use *")
    if a.ndim == 1 and b.ndim == 1:
        return dot(a, b)
    squeeze = None
    if a.ndim == 1:
        a = reshape_exact(a, (1, a.shape[0]))
        squeeze = -2
    if b.ndim == 1:
        b = reshape_exact(b, (b.shape[0], 1))
        squeeze = -1
    r = _gemm2(a, b, False, False, 1.0, -2)
    if squeeze is not None:
        shape = list(r.shape)
        del shape[squeeze]
        r = reshape_exact(r, tuple(shape))
    return r


def matmul_method(self: NDArray, other: Any) -> Any:
    """``x @ y``: :func:`matmul` (a NumPy array operand takes ``x``'s dtype)."""
    if type(other) is np.ndarray:
        other = as_array(other.astype(self._data.dtype, copy=False), "matmul")
    elif not isinstance(other, NDArray):
        return NotImplemented
    return matmul(self, other)


def rmatmul_method(self: NDArray, other: Any) -> Any:
    """``a @ x`` for a NumPy array ``a`` (which takes ``x``'s dtype)."""
    if type(other) is np.ndarray:
        return matmul(as_array(other.astype(self._data.dtype, copy=False), "matmul"), self)
    return NotImplemented

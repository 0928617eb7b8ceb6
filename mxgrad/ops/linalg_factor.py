"""MXNet's remaining ``linalg`` operators: ``linalg_extracttrian`` / ``linalg_maketrian``
(a triangle as a flat vector and back), ``linalg_gelqf`` (LQ factorization) and
``linalg_syevd`` (symmetric eigendecomposition), as MXNet 1.9.1 computes them.

Their gradients are MXNet's formulas written with mxgrad ops, so they differentiate
again (second order).

Examples
--------
>>> import mxgrad as mx
>>> A = mx.nd.array([[1., 2.], [3., 4.]])
>>> mx.nd.linalg_extracttrian(A).asnumpy().tolist()
[1.0, 3.0, 4.0]
>>> mx.nd.linalg_maketrian(mx.nd.array([1., 3., 4.])).asnumpy().tolist()
[[1.0, 0.0], [3.0, 4.0]]
"""
from __future__ import annotations

import math
from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

from ..base import ShapeError
from .._engine.ndarray import NDArray
from ._core import call1, defop
from ._mxnet_op import mxnet_op
from ._apply import write_out
from .elemwise import maximum
from .linalg import _COPY_LTU, _gemm2, _mT, _prep1, _solve, _square, _tri, linalg_makediag
from .shape import expand_dims

__all__ = ["linalg_extracttrian", "linalg_maketrian", "linalg_gelqf", "linalg_syevd"]


def _out(result: NDArray, out: Optional[NDArray]) -> NDArray:
    return result if out is None else write_out(out, result)


def _outs(results: List[NDArray], out: Optional[Sequence[NDArray]], op: str
          ) -> List[NDArray]:
    if out is None:
        return results
    if not isinstance(out, (list, tuple)) or len(out) != len(results):
        raise ShapeError(f"{op}: out must be a list of {len(results)} NDArrays")
    return [write_out(o, r) for o, r in zip(out, results)]


# ------------------------------------------------------------ triangles as vectors
def _trian_index(n: int, offset: int, lower: bool) -> Tuple[np.ndarray, np.ndarray]:
    """Row and column indices of the triangle in MXNet's order: the lower triangle row
    by row; the upper one column by column (the lower triangle of the transpose)."""
    upper = offset > 0 or (offset == 0 and not lower)
    r, c = np.tril_indices(n, -abs(offset))
    return (c, r) if upper else (r, c)


def _extract_fwd(a, offset, lower):
    r, c = _trian_index(a.shape[-1], offset, lower)
    return np.ascontiguousarray(a[..., r, c])


def _make_fwd(v, offset, lower):
    n = _trian_size(v.shape[-1], offset)
    out = np.zeros(v.shape[:-1] + (n, n), dtype=v.dtype)
    r, c = _trian_index(n, offset, lower)
    out[..., r, c] = v
    return out


def _trian_size(length: int, offset: int) -> int:
    m = int(round((math.sqrt(8 * length + 1) - 1) / 2))
    if m * (m + 1) // 2 != length:
        raise ShapeError(f"linalg_maketrian: the last axis has length {length}, which is "
                         f"not a triangular number m*(m+1)/2; pass the vector that "
                         f"linalg_extracttrian gives")
    return m + abs(offset)


_EXTRACT = defop("linalg_extracttrian", _extract_fwd,
                 [lambda g, y, a, offset, lower: linalg_maketrian(g, offset, lower)],
                 [lambda t, y, a, offset, lower: linalg_extracttrian(t, offset, lower)],
                 save=())
_MAKE = defop("linalg_maketrian", _make_fwd,
              [lambda g, y, v, offset, lower: linalg_extracttrian(g, offset, lower)],
              [lambda t, y, v, offset, lower: linalg_maketrian(t, offset, lower)], save=())


def linalg_extracttrian(A: NDArray, offset: int = 0, lower: bool = True,
                        out: Optional[NDArray] = None, **kwargs: Any) -> NDArray:
    """The triangle of each trailing square matrix of ``A`` as a vector: the lower one
    (``offset`` < 0, or 0 with ``lower=True``) row by row, the upper one column by
    column; ``offset`` moves the bounding diagonal as in :func:`linalg_extractdiag`.

    Examples
    --------
    >>> import mxgrad as mx
    >>> A = mx.nd.array([[1., 2.], [3., 4.]])
    >>> mx.nd.linalg_extracttrian(A, lower=False).asnumpy().tolist()
    [1.0, 2.0, 4.0]
    """
    A = _prep1("linalg_extracttrian", A)
    _square("linalg_extracttrian", A.shape)
    if abs(int(offset)) >= A.shape[-1]:
        raise ShapeError(f"linalg_extracttrian: offset={offset} leaves no triangle in "
                         f"{A.shape[-1]}x{A.shape[-1]} matrices")
    return _out(call1(_EXTRACT, A, {"offset": int(offset), "lower": bool(lower)}), out)


def linalg_maketrian(A: NDArray, offset: int = 0, lower: bool = True,
                     out: Optional[NDArray] = None, **kwargs: Any) -> NDArray:
    """Square matrices holding the trailing vectors of ``A`` in the triangle that
    :func:`linalg_extracttrian` reads (same ``offset`` and ``lower``), zeros elsewhere.

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.linalg_maketrian(mx.nd.array([1., 2., 4.]), lower=False).asnumpy().tolist()
    [[1.0, 2.0], [0.0, 4.0]]
    """
    A = _prep1("linalg_maketrian", A)
    _trian_size(A.shape[-1], int(offset))
    return _out(call1(_MAKE, A, {"offset": int(offset), "lower": bool(lower)}), out)


# ------------------------------------------------------------------------ LQ
def _gelqf_fwd(a):
    if a.ndim < 2 or a.shape[-2] > a.shape[-1]:
        raise ShapeError(f"linalg_gelqf: needs (batches of) m x n matrices with m <= n, "
                         f"got shape {a.shape}")
    q, r = np.linalg.qr(np.swapaxes(a, -1, -2))
    if np.any(np.abs(np.diagonal(r, axis1=-2, axis2=-1)) == 0):
        raise ShapeError("linalg_gelqf: the matrix does not have full row rank")
    return (np.ascontiguousarray(np.swapaxes(q, -1, -2)).astype(a.dtype),
            np.ascontiguousarray(np.swapaxes(r, -1, -2)).astype(a.dtype))


def _gelqf_grad(g, y, a):
    # MXNet: dA = L^-T (dQ + copyLTU(M) Q), M = L^T dL - dQ Q^T
    dQ, dL = g
    Q, L = y
    M = _gemm2(L, dL, True, False, 1.0, -2) - _gemm2(dQ, Q, False, True, 1.0, -2)
    S = call1(_COPY_LTU, M)
    return _solve(_mT(L), dQ + _gemm2(S, Q, False, False, 1.0, -2))


_GELQF = defop("linalg_gelqf", _gelqf_fwd, [_gelqf_grad], save=(), save_out=True, nout=2)


def linalg_gelqf(A: NDArray, out: Optional[Sequence[NDArray]] = None, **kwargs: Any
                 ) -> List[NDArray]:
    """LQ factorization ``A = L . Q`` of m x n matrices (m <= n, full row rank):
    returns ``[Q, L]``, ``Q`` with orthonormal rows, ``L`` lower triangular (LAPACK's
    signs, as MXNet).

    Examples
    --------
    >>> import mxgrad as mx
    >>> Q, L = mx.nd.linalg_gelqf(mx.nd.array([[3., 4.]]))
    >>> Q.asnumpy().tolist(), L.asnumpy().tolist()
    ([[-0.6000000238418579, -0.800000011920929]], [[-5.0]])
    """
    A = _prep1("linalg_gelqf", A)
    return _outs(list(call1(_GELQF, A)), out, "linalg_gelqf")


def _gelqf_shape(kw, ins, outs):
    """``linalg.gelqf``'s outputs: ``Q`` shaped as ``A``, ``L`` square of its rows."""
    a = ins[0]
    return list(ins), [a, None if a is None else tuple(a[:-1]) + (a[-2],)]


mxnet_op("_linalg_gelqf", ("A",), nd_name="linalg.gelqf", outputs=2, shape=_gelqf_shape)


# --------------------------------------------------------------- eigenvectors
def _syevd_fwd(a):
    w, v = np.linalg.eigh(a, UPLO="U")
    u = np.ascontiguousarray(np.swapaxes(v, -1, -2))
    # MXNet's sign: the entry of largest magnitude of each row is positive
    k = np.argmax(np.abs(u), axis=-1)
    s = np.where(np.take_along_axis(u, k[..., None], -1) < 0, -1.0, 1.0)
    return (u * s).astype(a.dtype), w.astype(a.dtype)


def _syevd_grad(g, y, a):
    # MXNet: dA = U^T Y U, Y_ij = (X_ij - X_ji) / (2 max(l_i - l_j, eps)) below the
    # diagonal (mirrored above), Y_ii = dl_i, X = dU U^T
    dU, dl = g
    U, l = y
    n = U.shape[-1]
    X = _gemm2(dU, U, False, True, 1.0, -2)
    low = np.tril(np.ones((n, n)), -1).astype(U.dtype)
    d = expand_dims(l, -1) - expand_dims(l, -2)
    denom = maximum(d * low + (1.0 - low), 1e-30 if U.dtype == np.float32
                    else 1e-100) * 2.0
    K = _tri((X - _mT(X)) / denom, True, -1)
    Y = K + _mT(K) + linalg_makediag(dl)
    return _gemm2(_gemm2(U, Y, True, False, 1.0, -2), U, False, False, 1.0, -2)


_SYEVD = defop("linalg_syevd", _syevd_fwd, [_syevd_grad], save=(), save_out=True, nout=2)


def linalg_syevd(A: NDArray, out: Optional[Sequence[NDArray]] = None, **kwargs: Any
                 ) -> List[NDArray]:
    """Eigendecomposition of symmetric matrices ``A = U^T diag(L) U``: returns
    ``[U, L]``, eigenvectors in the rows of ``U`` (each with its largest-magnitude entry
    positive, as MXNet) and eigenvalues ``L`` ascending.

    Examples
    --------
    >>> import mxgrad as mx
    >>> U, L = mx.nd.linalg_syevd(mx.nd.array([[2., 1.], [1., 2.]]))
    >>> L.asnumpy().tolist()
    [1.0, 3.0]
    """
    A = _prep1("linalg_syevd", A)
    _square("linalg_syevd", A.shape)
    return _outs(list(call1(_SYEVD, A)), out, "linalg_syevd")


def _syevd_shape(kw, ins, outs):
    """``linalg.syevd``'s outputs: the eigenvectors shaped as ``A``, the eigenvalues
    without its last axis."""
    a = ins[0]
    return list(ins), [a, None if a is None else tuple(a[:-1])]


mxnet_op("_linalg_syevd", ("A",), nd_name="linalg.syevd", outputs=2, shape=_syevd_shape)


# ---------------------------------------------------------- singular values
def _gesvd_fwd(a):
    m, n = a.shape[-2:]
    if m > n:
        raise ShapeError(f"svd: matrices of shape ({m}, {n}) have more rows than columns; "
                         f"MXNet's svd takes M <= N (decompose the transpose)")
    if a.size == 0:
        batch = a.shape[:-2]
        return (np.zeros(batch + (m, m), a.dtype), np.zeros(batch + (m,), a.dtype),
                np.zeros(a.shape, a.dtype))
    u, s, vt = np.linalg.svd(a, full_matrices=False)
    # MXNet's signs: the entry of largest magnitude of each row of V is positive (the
    # matching column of UT flips with it)
    k = np.argmax(np.abs(vt), axis=-1)
    sign = np.where(np.take_along_axis(vt, k[..., None], -1) < 0, -1.0, 1.0)
    return ((u * np.swapaxes(sign, -1, -2)).astype(a.dtype), s.astype(a.dtype),
            (vt * sign).astype(a.dtype))


def _gesvd_grad(g, y, a):
    # A = UT diag(L) V with UT m x m, V m x n (m <= n); MXNet's rule (Seeger et al.,
    # "Auto-differentiating linear algebra"): with W = diag(1/L) dV,
    # T = (W V^T) diag(L) + dUT^T UT, the off-diagonal of T replaced by its antisymmetric
    # part over (L_i^2 - L_j^2) times L, the diagonal by dL - diag(W V^T):
    # dA = UT (T V + W). Singular values below eps count as eps, as in MXNet.
    dUT, dL, dV = g
    UT, L, V = y
    m = UT.shape[-1]
    eps = 1e-30 if UT.dtype == np.float32 else 1e-100
    W = dV / expand_dims(maximum(L, eps), -1)
    T = _gemm2(W, V, False, True, 1.0, -2)
    eye = np.eye(m, dtype=UT.dtype)
    wv_diag = (T * eye).sum(axis=-1)
    T = T * expand_dims(L, -2) + _gemm2(dUT, UT, True, False, 1.0, -2)
    upper = np.triu(np.ones((m, m), dtype=UT.dtype), 1)
    li, lj = expand_dims(L, -1), expand_dims(L, -2)
    denom = (maximum(li - lj, eps) * upper + (1.0 - upper)) * maximum(li + lj, eps)
    E = (T - _mT(T)) / denom * upper
    T2 = E * lj + _mT(E * li) + linalg_makediag(dL - wv_diag)
    return _gemm2(UT, _gemm2(T2, V, False, False, 1.0, -2) + W, False, False, 1.0, -2)


_GESVD = defop("linalg_gesvd", _gesvd_fwd, [_gesvd_grad], save=(), save_out=True, nout=3)


def gesvd(A: NDArray) -> List[NDArray]:
    """``[UT, L, V]`` with ``A = UT diag(L) V`` for matrices of shape ``(..., M, N)``,
    ``M <= N`` (MXNet's ``np.linalg.svd``: singular values descending, each row of ``V``
    with its largest-magnitude entry positive); differentiable.

    Examples
    --------
    >>> import mxgrad as mx
    >>> UT, L, V = gesvd(mx.nd.array([[3., 0.], [0., 4.]]))
    >>> L.asnumpy().tolist(), V.asnumpy().tolist()
    ([4.0, 3.0], [[0.0, 1.0], [1.0, 0.0]])
    """
    return list(call1(_GESVD, A))

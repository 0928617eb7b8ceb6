"""``mx.np.linalg``: NumPy's linear-algebra signatures on mxgrad's differentiable ops.

Examples
--------
>>> from mxgrad import np
>>> np.linalg.norm(np.array([3., 4.]))
array(5.)
"""
from __future__ import annotations

from typing import List, Any, Optional

import numpy as _onp

from ..base import DTypeError
from ..ndarray.ndarray import wrap
from ..ops import linalg as _L
from ..ops import elemwise as _E
from .multiarray import ndarray, to_np, from_input, sum, max, min, matmul

__all__ = ["norm", "inv", "det", "slogdet", "cholesky", "svd", "eigh", "eigvalsh", "solve",
           "pinv", "matrix_rank"]


def norm(x: Any, ord: Any = None, axis: Any = None, keepdims: bool = False) -> ndarray:
    """Vector or matrix norm: 2-norm / Frobenius by default, ``ord`` 1, 2, inf for
    vectors ('fro' for matrices); differentiable."""
    a = from_input(x)
    if a._data.dtype.kind != "f":
        a = a.astype("float32")
    if ord is None or ord == "fro" or (ord == 2 and (axis is None and a.ndim == 1
                                                      or isinstance(axis, int))):
        return to_np(_E.sqrt(sum(a * a, axis=axis, keepdims=keepdims)))
    if ord == 1:
        return sum(abs(a), axis=axis, keepdims=keepdims)
    if ord in (_onp.inf, "inf"):
        return max(abs(a), axis=axis, keepdims=keepdims)
    if ord == -_onp.inf:
        return min(abs(a), axis=axis, keepdims=keepdims)
    if isinstance(ord, (int, float)):
        p = float(ord)
        return to_np(sum(abs(a) ** p, axis=axis, keepdims=keepdims) ** (1.0 / p))
    raise DTypeError(f"np.linalg.norm: ord={ord!r} is not supported; use None, 'fro', 1, 2, "
                     f"inf or a number")


def inv(a: Any) -> ndarray:
    """The inverse of square matrices (batched over leading axes); differentiable."""
    return to_np(_L.linalg_inverse(from_input(a)))


def det(a: Any) -> ndarray:
    """The determinant of square matrices; differentiable."""
    a = from_input(a)
    r = _L.linalg_det(a)
    shape = a.shape[:-2]
    return to_np(r if r.shape == shape else r.reshape(shape))


def slogdet(a: Any) -> Any:
    """``(sign, log|det|)`` of square matrices."""
    a = from_input(a)
    s, ld = _L.linalg_slogdet(a)
    shape = a.shape[:-2]
    return to_np(s.reshape(shape) if s.shape != shape else s), \
        to_np(ld.reshape(shape) if ld.shape != shape else ld)


def cholesky(a: Any) -> ndarray:
    """The lower Cholesky factor of symmetric positive-definite matrices."""
    return to_np(_L.linalg_potrf(from_input(a), lower=True))


def svd(a: Any) -> Any:
    """``(u, s, vt)`` of NumPy's reduced SVD (not differentiable in mxgrad)."""
    u, s, vt = _onp.linalg.svd(from_input(a)._data, full_matrices=False)
    return tuple(wrap(m, None, 0, ndarray) for m in (u, s, vt))


def eigh(a: Any, UPLO: str = "L") -> Any:
    """Eigenvalues and eigenvectors of symmetric matrices (not differentiable)."""
    w, v = _onp.linalg.eigh(from_input(a)._data, UPLO)  # type: ignore[call-overload]
    return wrap(w, None, 0, ndarray), wrap(v, None, 0, ndarray)


def eigvalsh(a: Any, UPLO: str = "L") -> ndarray:
    """Eigenvalues of symmetric matrices (not differentiable)."""
    w = _onp.linalg.eigvalsh(from_input(a)._data, UPLO)  # type: ignore[call-overload]
    return wrap(w, None, 0, ndarray)


def solve(a: Any, b: Any) -> ndarray:
    """The solution ``x`` of ``a @ x = b``; differentiable (through the inverse)."""
    a_inv = inv(a)
    bb = from_input(b)
    if bb.ndim == 1:
        return matmul(a_inv, bb)
    return matmul(a_inv, bb)


def pinv(a: Any, rcond: float = 1e-15) -> ndarray:
    """The Moore-Penrose pseudo-inverse (not differentiable)."""
    return wrap(_onp.linalg.pinv(from_input(a)._data, rcond), None, 0, ndarray)


def matrix_rank(M: Any, tol: Optional[float] = None) -> ndarray:
    """The rank of a matrix (int64)."""
    return wrap(_onp.asarray(_onp.linalg.matrix_rank(from_input(M)._data, tol),
                             dtype=_onp.int64), None, 0, ndarray)


from ._fallback import LINALG_NAMES as _LN, fallback as _fallback  # noqa: E402
for _name in _LN:
    if _name not in globals():
        globals()[_name] = _fallback(getattr(_onp.linalg, _name), _name)
        __all__.append(_name)


def __dir__() -> List[str]:
    """The public names (as ``dir()`` of MXNet's module lists them)."""
    return sorted(set(__all__))

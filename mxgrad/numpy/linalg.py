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

from ..base import DTypeError, NotSupportedError
from .._engine.ndarray import NDArray, wrap
from ..ops import linalg as _L
from ..ops import linalg_factor as _LF
from ..ops import elemwise as _E
from .multiarray import ndarray, to_np, from_input, sum, max, min, matmul

__all__ = ["norm", "inv", "det", "slogdet", "cholesky", "svd", "eigh", "eigvalsh", "solve",
           "pinv", "matrix_rank", "tensorinv", "tensorsolve"]


def _keep_or_drop(r: ndarray, axes: Any, keepdims: bool) -> ndarray:
    """``r`` reduced with ``keepdims=True`` over ``axes``: the axes dropped unless kept."""
    if keepdims:
        return r
    shape = tuple(n for i, n in enumerate(r.shape) if i not in axes)
    return to_np(r.reshape(shape))


def norm(x: Any, ord: Any = None, axis: Any = None, keepdims: bool = False) -> ndarray:
    """Vector or matrix norm as NumPy's (and MXNet 1.9.1's, which also takes ``'inf'`` and
    ``'-inf'`` as strings): vector norms of any order, matrix norms ``'fro'``, 1, -1,
    inf, -inf, 2, -2 and ``'nuc'`` (through :func:`svd`); differentiable.

    Examples
    --------
    >>> from mxgrad import np
    >>> b = np.array([[-4., -3., -2.], [-1., 0., 1.], [2., 3., 4.]])
    >>> np.linalg.norm(b, 1), np.linalg.norm(b, 'inf', axis=(0, 1))
    (array(7.), array(9.))
    """
    a = from_input(x)
    if a._data.dtype.kind != "f":
        a = a.astype("float32")
    if isinstance(ord, str) and ord in ("inf", "-inf"):
        ord = _onp.inf if ord == "inf" else -_onp.inf
    nd = a.ndim
    if axis is None:
        if ord is None or ord in ("fro", "f"):
            axes: Any = tuple(range(nd))
            r = to_np(_E.sqrt(sum(a * a, axis=axes, keepdims=True)))
            return _keep_or_drop(r, axes, keepdims)
        axis = tuple(range(nd))
    axes = (axis,) if isinstance(axis, (int, _onp.integer)) else tuple(axis)
    if not 1 <= len(axes) <= 2:
        raise DTypeError(f"np.linalg.norm: axis must name 1 or 2 axes, got {axis!r}")
    axes = tuple(int(i) % nd for i in axes)
    if len(axes) == 1:
        if ord is None or ord == 2:
            r = to_np(_E.sqrt(sum(a * a, axis=axes, keepdims=True)))
        elif ord == _onp.inf:
            r = max(abs(a), axis=axes, keepdims=True)
        elif ord == -_onp.inf:
            r = min(abs(a), axis=axes, keepdims=True)
        elif ord == 0:
            r = sum((a != 0).astype(a._data.dtype), axis=axes, keepdims=True)
        elif ord == 1:
            r = sum(abs(a), axis=axes, keepdims=True)
        elif isinstance(ord, (int, float, _onp.integer, _onp.floating)):
            p = float(ord)
            r = to_np(sum(abs(a) ** p, axis=axes, keepdims=True) ** (1.0 / p))
        else:
            raise DTypeError(f"np.linalg.norm: ord={ord!r} is not a vector norm; use None, "
                             f"a number, inf or -inf")
        return _keep_or_drop(r, axes, keepdims)
    row, col = axes
    if row == col:
        raise DTypeError(f"np.linalg.norm: axis {axis!r} names one axis twice")
    if ord is None or ord in ("fro", "f"):
        r = to_np(_E.sqrt(sum(a * a, axis=axes, keepdims=True)))
    elif ord in (1, -1):
        pick = max if ord == 1 else min
        r = pick(sum(abs(a), axis=row, keepdims=True), axis=col, keepdims=True)
    elif ord in (_onp.inf, -_onp.inf):
        pick = max if ord > 0 else min
        r = pick(sum(abs(a), axis=col, keepdims=True), axis=row, keepdims=True)
    elif ord in (2, -2, "nuc"):
        moved = to_np(a).transpose([i for i in range(nd) if i not in axes] + [row, col])
        if moved.shape[-2] > moved.shape[-1]:
            moved = moved.swapaxes(-1, -2)
        sv = svd(moved)[1]                      # descending singular values
        v = sum(sv, axis=-1) if ord == "nuc" else (sv[..., 0] if ord == 2 else sv[..., -1])
        shape = tuple(1 if i in axes else n for i, n in enumerate(a.shape))
        r = to_np(v.reshape(shape))
    else:
        raise DTypeError(f"np.linalg.norm: ord={ord!r} is not a matrix norm; use None, "
                         f"'fro', 'nuc', 1, -1, 2, -2, inf or -inf")
    return _keep_or_drop(r, axes, keepdims)


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
    """``(UT, L, V)`` with ``a = UT @ (L[..., None] * V)`` for ``a`` of shape
    ``(..., M, N)``: MXNet 1.9.1's SVD (singular values descending, each row of ``V``
    with its largest-magnitude entry positive); differentiable for ``M <= N``, as MXNet's
    (which refuses ``M > N``; mxgrad gives NumPy's reduced SVD there, not differentiable).

    Examples
    --------
    >>> from mxgrad import np
    >>> UT, L, V = np.linalg.svd(np.array([[3., 0.], [0., 4.]]))
    >>> L
    array([4., 3.])
    """
    x = from_input(a)
    if x.ndim < 2:
        raise DTypeError(f"np.linalg.svd: a must have at least 2 dimensions, got shape "
                         f"{x.shape}")
    if x._data.dtype.kind != "f":
        x = x.astype("float32")
    if x.shape[-2] <= x.shape[-1]:
        return tuple(to_np(r) for r in _LF.gesvd(x))
    u, s, vt = _onp.linalg.svd(x._data, full_matrices=False)
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


def pinv(a: Any, rcond: Any = 1e-15, hermitian: bool = False) -> ndarray:
    """The Moore-Penrose pseudo-inverse (not differentiable); ``rcond`` a number or an
    array broadcast against the stack of matrices. ``hermitian=True`` is refused, as in
    MXNet 1.9.1."""
    if hermitian:
        raise NotSupportedError("np.linalg.pinv: hermitian=True is not supported (as in "
                                "MXNet 1.9.1); use hermitian=False")
    rc = from_input(rcond)._data if isinstance(rcond, NDArray) else rcond
    return wrap(_onp.linalg.pinv(from_input(a)._data, rc), None, 0, ndarray)


def tensorinv(a: Any, ind: int = 2) -> ndarray:
    """The inverse of ``a`` as a tensor over its first ``ind`` axes (NumPy's
    ``tensorinv``); differentiable (through :func:`inv`)."""
    x = from_input(a)
    if ind <= 0:
        raise DTypeError(f"np.linalg.tensorinv: ind must be a positive integer, got {ind}")
    head, tail = x.shape[:ind], x.shape[ind:]
    rows, cols = int(_onp.prod(head)), int(_onp.prod(tail))
    if rows != cols:
        raise DTypeError(f"np.linalg.tensorinv: the first {ind} axes {head} and the rest "
                         f"{tail} must have equal products to invert")
    return to_np(inv(x.reshape((rows, cols))).reshape(tail + head))


def tensorsolve(a: Any, b: Any, axes: Any = None) -> ndarray:
    """The ``x`` with ``tensordot(a, x, x.ndim) == b`` (NumPy's ``tensorsolve``);
    differentiable in ``a`` and ``b`` (through :func:`inv`)."""
    x, y = from_input(a), from_input(b)
    if axes is not None:
        rest = [i for i in range(x.ndim) if i not in [ax % x.ndim for ax in axes]]
        x = to_np(x).transpose(rest + [ax % x.ndim for ax in axes])
    sol_shape = x.shape[y.ndim:]
    rows, cols = int(_onp.prod(x.shape[:y.ndim])), int(_onp.prod(sol_shape))
    if rows != cols:
        raise DTypeError(f"np.linalg.tensorsolve: a of shape {x.shape} is not square over "
                         f"b's shape {y.shape}")
    r = matmul(inv(x.reshape((rows, cols))), y.reshape((rows,)))
    return to_np(r.reshape(sol_shape))


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

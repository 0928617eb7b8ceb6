"""``mx.nd.sparse``: MXNet's sparse storage (``row_sparse``, ``csr``) is out of mxgrad's scope.

The module exists so that programs importing it load; every constructor raises a clear
error. Use dense arrays (``mx.nd.array``); MXNet files with sparse records load as dense.

Examples
--------
>>> from mxgrad.ndarray import sparse
>>> sparse.csr_matrix((2, 2))
Traceback (most recent call last):
...
mxgrad.base.SparseNotSupportedError: mx.nd.sparse.csr_matrix: sparse storage ...
"""
from __future__ import annotations

from ..base import SparseNotSupportedError

__all__ = ["SparseNotSupportedError", "csr_matrix", "row_sparse_array", "zeros", "empty",
           "array", "CSRNDArray", "RowSparseNDArray", "BaseSparseNDArray"]


def _refuse(name):
    def fn(*args, **kwargs):
        raise SparseNotSupportedError(
            f"mx.nd.sparse.{name}: sparse storage (row_sparse, csr) is not supported by mxgrad; "
            f"use dense NDArrays (mx.nd.array / mx.nd.zeros)")
    fn.__name__ = name
    fn.__doc__ = f"Raises :class:`SparseNotSupportedError` (sparse storage is out of scope)."
    return fn


csr_matrix = _refuse("csr_matrix")
row_sparse_array = _refuse("row_sparse_array")
zeros = _refuse("zeros")
empty = _refuse("empty")
array = _refuse("array")


class BaseSparseNDArray:
    """Never instantiated: sparse storage is out of scope."""

    def __new__(cls, *args, **kwargs):
        _refuse(cls.__name__)()


class CSRNDArray(BaseSparseNDArray):
    """Never instantiated: sparse storage is out of scope."""


class RowSparseNDArray(BaseSparseNDArray):
    """Never instantiated: sparse storage is out of scope."""

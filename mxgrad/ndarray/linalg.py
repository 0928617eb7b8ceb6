"""``mx.nd.linalg``: MXNet's linear-algebra namespace (``mx.nd.linalg.gemm2(...)``).

Each function is the flat ``mx.nd.linalg_<name>`` op under its short name (the same object),
so gradients, higher-order gradients and tangents are those of the flat op.

Examples
--------
>>> import mxgrad as mx
>>> from mxgrad.ndarray import linalg
>>> A = mx.nd.array([[4., 2.], [2., 3.]])
>>> linalg.gemm2(A, A, transpose_b=True)
<BLANKLINE>
[[20. 14.]
 [14. 13.]]
<NDArray 2x2 @cpu(0)>
>>> linalg.potrf(A)
<BLANKLINE>
[[2.        0.       ]
 [1.        1.4142135]]
<NDArray 2x2 @cpu(0)>
>>> linalg.det(A)
<BLANKLINE>
[8.]
<NDArray 1 @cpu(0)>
"""
from __future__ import annotations

from ..ops.linalg import (linalg_det, linalg_extractdiag, linalg_gemm, linalg_gemm2,
                          linalg_inverse, linalg_makediag, linalg_potrf, linalg_potri,
                          linalg_slogdet, linalg_sumlogdiag, linalg_syrk, linalg_trmm,
                          linalg_trsm)
from ..ops.linalg_factor import (linalg_extracttrian, linalg_gelqf, linalg_maketrian,
                                 linalg_syevd)

__all__ = ["gemm", "gemm2", "potrf", "potri", "trmm", "trsm", "sumlogdiag", "extractdiag",
           "makediag", "syrk", "inverse", "det", "slogdet", "extracttrian", "maketrian",
           "gelqf", "syevd"]

gemm = linalg_gemm
gemm2 = linalg_gemm2
potrf = linalg_potrf
potri = linalg_potri
trmm = linalg_trmm
trsm = linalg_trsm
sumlogdiag = linalg_sumlogdiag
extractdiag = linalg_extractdiag
makediag = linalg_makediag
syrk = linalg_syrk
inverse = linalg_inverse
det = linalg_det
slogdet = linalg_slogdet
extracttrian = linalg_extracttrian
maketrian = linalg_maketrian
gelqf = linalg_gelqf
syevd = linalg_syevd


# every error on bad arguments is an MXNetError naming the argument (issue 11)
from .._check import guard_namespace as _guard_namespace  # noqa: E402
_guard_namespace(globals(), "nd.linalg")

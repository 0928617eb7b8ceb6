"""``mx.np.fallback``: the functions MXNet 1.9.1's ``mx.np`` computes by NumPy itself, listed
as MXNet lists them (``mx.np.fallback.__all__``), each the ``mx.np`` function of that name.

Names of MXNet's list that NumPy 2 no longer has (the financial functions ``npv``, ``pv``,
``rate``...) are left out.

Examples
--------
>>> from mxgrad import np
>>> 'searchsorted' in np.fallback.__all__, np.fallback.searchsorted is np.searchsorted
(True, True)
"""
from __future__ import annotations

import sys
from typing import List

_MXNET_NAMES = (
    "allclose", "alltrue", "apply_along_axis", "apply_over_axes", "argpartition", "argwhere",
    "array_equal", "array_equiv", "choose", "compress", "corrcoef", "correlate",
    "count_nonzero", "cov", "digitize", "divmod", "extract", "flatnonzero", "float_power",
    "frexp", "heaviside", "histogram2d", "histogram_bin_edges", "histogramdd", "i0", "in1d",
    "interp", "intersect1d", "isclose", "isin", "ix_", "lexsort", "min_scalar_type", "mirr",
    "modf", "msort", "nanargmax", "nanargmin", "nancumprod", "nancumsum", "nanmax",
    "nanmedian", "nanmin", "nanpercentile", "nanprod", "nanquantile", "ndim", "npv",
    "partition", "piecewise", "packbits", "poly", "polyadd", "polydiv", "polyfit", "polyint",
    "polymul", "polysub", "positive", "ppmt", "promote_types", "ptp", "pv", "rate", "real",
    "result_type", "rollaxis", "roots", "searchsorted", "select", "setdiff1d", "setxor1d",
    "signbit", "size", "spacing", "take_along_axis", "trapz", "tril_indices_from",
    "trim_zeros", "triu_indices_from", "union1d", "unpackbits", "unwrap", "vander",
)

_np = sys.modules[__name__.rpartition(".")[0]]
__all__: List[str] = [n for n in _MXNET_NAMES if hasattr(_np, n)]
globals().update({n: getattr(_np, n) for n in __all__})

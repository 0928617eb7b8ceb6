"""Doctest set-up: print NumPy scalars as plain numbers (``1.0``, not ``np.float32(1.0)``),
so docstring examples read as they would in a notebook with NumPy 1.x."""
import numpy as np
import pytest

try:
    np.set_printoptions(legacy="1.25")
except (TypeError, ValueError):  # NumPy < 2 has no such option and needs none
    pass


@pytest.fixture(autouse=True)
def _doctest_namespace(doctest_namespace):
    import mxgrad
    doctest_namespace["mx"] = mxgrad
    doctest_namespace["np"] = np

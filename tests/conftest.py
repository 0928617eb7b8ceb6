import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _no_numpy_mode_leaks():
    """NumPy mode (``npx.set_np()``) is process-wide: a test (or a documentation example)
    that turns it on must turn it off, or every later test would run on mx.np arrays."""
    yield
    import mxgrad as mx
    if mx.util.is_np_array() or mx.util.is_np_shape():
        mx.util.reset_np()
        pytest.fail("the test left NumPy mode on (call npx.reset_np() at its end)")


@pytest.fixture
def np_mode():
    """MXNet's NumPy mode (``npx.set_np()``) for the test, turned off after it."""
    import mxgrad as mx
    mx.npx.set_np()
    try:
        yield
    finally:
        mx.npx.reset_np()

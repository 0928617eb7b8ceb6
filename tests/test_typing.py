"""The typed public API: mypy is clean over mxgrad/ and a typed usage example.

The checker's settings live in setup.cfg (``[mypy]``); the example is
``tests/typed_usage.py``, whose ``assert_type`` calls fail the check when a public
function loses its declared return type.
"""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

import mxgrad as mx

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_mypy_clean_over_package_and_usage(tmp_path):
    pytest.importorskip("mypy")  # the test extra installs it
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", "setup.cfg",
         "--cache-dir", str(tmp_path / "mypy_cache"), "--no-error-summary"],
        cwd=ROOT, capture_output=True, text=True, timeout=900)
    report = proc.stdout + proc.stderr
    assert proc.returncode == 0, "mypy found type errors:\n" + report
    assert "error:" not in report


def test_typed_usage_runs():
    import typed_usage
    typed_usage.main()


def test_package_ships_py_typed():
    pkg = os.path.dirname(mx.__file__)
    assert os.path.isfile(os.path.join(pkg, "py.typed"))
    with open(os.path.join(ROOT, "setup.cfg"), encoding="utf-8") as f:
        cfg = f.read()
    assert "py.typed" in cfg.split("[options.package_data]")[1].split("[")[0]

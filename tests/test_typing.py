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


def test_ndarray_method_declarations_match_the_attached_methods():
    """``ndarray/_methods.pyi`` declares, for type checkers, the methods the op modules and
    the engine attach to NDArray at import; the two lists must stay the same."""
    import ast
    from mxgrad.ndarray import NDArray
    pkg = os.path.dirname(mx.__file__)
    with open(os.path.join(pkg, "ndarray", "_methods.pyi"), encoding="utf-8") as f:
        stub = ast.parse(f.read())
    decl = next(n for n in stub.body if isinstance(n, ast.ClassDef))
    declared = {n.name for n in decl.body if isinstance(n, ast.FunctionDef)}
    with open(os.path.join(pkg, "ndarray", "ndarray.py"), encoding="utf-8") as f:
        src = ast.parse(f.read())
    cls = next(n for n in src.body if isinstance(n, ast.ClassDef) and n.name == "NDArray")
    own = {n.name for n in cls.body if isinstance(n, ast.FunctionDef)}
    own |= {t.id for n in cls.body if isinstance(n, (ast.Assign, ast.AnnAssign))
            for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
            if isinstance(t, ast.Name)}
    internal = {"__module__", "__doc__", "__weakref__", "__dict__", "__annotations__",
                "__firstlineno__", "__static_attributes__", "__parameters__",
                "__orig_bases__", "__annotate_func__", "__annotations_cache__"}
    attached = {k for k in vars(NDArray) if k not in own and k not in internal}
    assert attached - declared == set(), "attached to NDArray but not declared"
    assert declared - attached == set(), "declared but not attached to NDArray"

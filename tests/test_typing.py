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


def _class_body_names(path, name):
    """The names a class body in ``path`` defines (defs and assignments)."""
    import ast
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name)
    names = {n.name for n in cls.body if isinstance(n, ast.FunctionDef)}
    names |= {t.id for n in cls.body if isinstance(n, (ast.Assign, ast.AnnAssign))
              for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
              if isinstance(t, ast.Name)}
    return names


def test_ndarray_methods_are_its_class_bodies():
    """Every NDArray method is defined in the class body of NDArray (``ndarray/ndarray.py``)
    or of its base NDArrayMethods (``ndarray/_methods.py``): nothing attached at import."""
    from mxgrad.ndarray import NDArray
    from mxgrad.ndarray._methods import NDArrayMethods
    pkg = os.path.dirname(mx.__file__)
    assert NDArray.__bases__ == (NDArrayMethods,)
    internal = {"__module__", "__doc__", "__weakref__", "__dict__", "__annotations__",
                "__firstlineno__", "__static_attributes__", "__parameters__",
                "__orig_bases__", "__annotate_func__", "__annotations_cache__",
                "__qualname__"}
    for cls, path in ((NDArray, ("ndarray", "ndarray.py")),
                      (NDArrayMethods, ("ndarray", "_methods.py"))):
        body = _class_body_names(os.path.join(pkg, *path), cls.__name__)
        extra = {k for k in vars(cls) if k not in body and k not in internal}
        assert extra == set(), f"{cls.__name__}: not in its class body: {sorted(extra)}"
    assert len(set(dir(NDArray)) - set(dir(object))) > 180   # the whole face is there


def test_no_module_attaches_ndarray_methods():
    """No module of mxgrad sets an attribute of NDArray (``setattr(NDArray, ...)``,
    ``NDArray.name = ...``), except the one line that makes NDArrayMethods its base."""
    import ast
    pkg = os.path.dirname(mx.__file__)
    found = []
    for d, _, fs in os.walk(pkg):
        for f in fs:
            if not f.endswith(".py"):
                continue
            path = os.path.join(d, f)
            with open(path, encoding="utf-8") as fh:
                tree = ast.parse(fh.read())
            for n in ast.walk(tree):
                if isinstance(n, ast.Call) and getattr(n.func, "id", None) == "setattr" \
                        and n.args and getattr(n.args[0], "id", None) == "NDArray":
                    found.append((f, n.lineno, "setattr"))
                targets = n.targets if isinstance(n, ast.Assign) else \
                    [n.target] if isinstance(n, (ast.AnnAssign, ast.AugAssign)) else []
                for t in targets:
                    if isinstance(t, ast.Attribute) and getattr(t.value, "id", None) == "NDArray":
                        found.append((f, n.lineno, t.attr))
    assert [(f, what) for f, _, what in found] == [("_methods.py", "__bases__")], found

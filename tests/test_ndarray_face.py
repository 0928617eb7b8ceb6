"""NDArray's face in one place (issue 20, item 4): every method is defined in the class
body of NDArray or of its base NDArrayMethods, nothing is attached to the class at import,
and every in-place write bumps the version through one helper, ``NDArray._write``."""
from __future__ import annotations

import ast
import os

import numpy as np
import pytest

import mxgrad as mx
from mxgrad import autograd, nd

PKG = os.path.dirname(mx.__file__)


def _class_body_names(path, name):
    """The names a class body in ``path`` defines (defs and assignments)."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name)
    body = list(cls.body)
    for n in cls.body:          # `if TYPE_CHECKING: ... else: ...` inside the body
        if isinstance(n, ast.If):
            body += n.body + n.orelse
    names = {n.name for n in body if isinstance(n, ast.FunctionDef)}
    targets = [t for n in body if isinstance(n, (ast.Assign, ast.AnnAssign))
               for t in (n.targets if isinstance(n, ast.Assign) else [n.target])]
    targets += [e for t in targets if isinstance(t, ast.Tuple) for e in t.elts]  # a, b = ...
    names |= {t.id for t in targets if isinstance(t, ast.Name)}
    return names


_INTERNAL = {"__module__", "__doc__", "__weakref__", "__dict__", "__annotations__",
             "__firstlineno__", "__static_attributes__", "__parameters__", "__orig_bases__",
             "__annotate_func__", "__annotations_cache__", "__qualname__"}


def _not_in_class_body(cls, path):
    """The attributes of ``cls`` that its class body in ``PKG/<path>`` does not define
    (its ``__slots__`` count as defined there)."""
    body = _class_body_names(os.path.join(PKG, *path), cls.__name__)
    body |= set(vars(cls).get("__slots__", ()))
    return {k for k in vars(cls) if k not in body and k not in _INTERNAL}


def _writes_to_class(name):
    """``(file, attribute)`` for every ``setattr(<name>, ...)`` and ``<name>.attr = ...``
    in mxgrad: the modules that attach attributes to the class ``name``."""
    found = []
    for d, _, fs in os.walk(PKG):
        for f in fs:
            if not f.endswith(".py"):
                continue
            path = os.path.join(d, f)
            with open(path, encoding="utf-8") as fh:
                tree = ast.parse(fh.read())
            for n in ast.walk(tree):
                if isinstance(n, ast.Call) and getattr(n.func, "id", None) == "setattr" \
                        and n.args and getattr(n.args[0], "id", None) == name:
                    found.append((f, "setattr"))
                targets = n.targets if isinstance(n, ast.Assign) else \
                    [n.target] if isinstance(n, (ast.AnnAssign, ast.AugAssign)) else []
                for t in targets:
                    if isinstance(t, ast.Attribute) and getattr(t.value, "id", None) == name:
                        found.append((f, t.attr))
    return found


def test_ndarray_methods_are_its_class_bodies():
    """Every NDArray method is defined in the class body of NDArray (``_engine/ndarray.py``)
    or of its base NDArrayMethods (``ndarray/_methods.py``): nothing attached at import."""
    from mxgrad.ndarray import NDArray
    from mxgrad.ndarray._methods import NDArrayMethods
    assert NDArray.__bases__ == (NDArrayMethods,)
    for cls, path in ((NDArray, ("_engine", "ndarray.py")),
                      (NDArrayMethods, ("ndarray", "_methods.py"))):
        assert _not_in_class_body(cls, path) == set(), cls.__name__
    assert len(set(dir(NDArray)) - set(dir(object))) > 180   # the whole face is there


def test_no_module_attaches_ndarray_methods():
    """No module of mxgrad sets an attribute of NDArray (``setattr(NDArray, ...)``,
    ``NDArray.name = ...``), except the one line that makes NDArrayMethods its base."""
    assert _writes_to_class("NDArray") == [("_methods.py", "__bases__")]


def _python_files():
    for d, _, fs in os.walk(PKG):
        for f in fs:
            if f.endswith(".py"):
                yield os.path.join(d, f)


def test_versions_are_bumped_only_by_the_write_helper():
    """No module bumps a version box by hand (``x._ver[0] += 1``): in-place writes call
    ``x._write(value)`` or, after writing ``x._data`` themselves, ``x._write()``."""
    found = []
    for path in _python_files():
        if path.endswith(os.path.join("_engine", "ndarray.py")):
            continue          # the helper itself
        with open(path, encoding="utf-8") as fh:
            tree = ast.parse(fh.read())
        for n in ast.walk(tree):
            if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Subscript):
                v = n.target.value
                if isinstance(v, ast.Attribute) and v.attr in ("_ver", "_vbox"):
                    found.append((os.path.relpath(path, PKG), n.lineno))
    assert found == [], found


def test_write_copies_casts_broadcasts_and_bumps_the_shared_box():
    x = nd.array([1.5, 2.5])
    v = x.detach()                    # shares x's data and version box
    assert x._ver[0] == 0
    x._write(np.array([7.9, 8.1]))    # float64 into float32: 'unsafe' casting by default
    assert x.dtype == np.float32 and x.asnumpy().tolist() == pytest.approx([7.9, 8.1])
    assert x._ver[0] == v._ver[0] == 1
    x._write(0)                       # a scalar broadcasts
    assert x.asnumpy().tolist() == [0.0, 0.0] and v._ver[0] == 2
    x._data[0] = 5                    # the caller's own write, then the bump
    x._write()
    assert x._ver[0] == 3 and v.asnumpy().tolist() == [5.0, 0.0]
    with pytest.raises(TypeError):    # NumPy's refusal under a stricter casting rule
        nd.array([1, 2], dtype="int32")._write(np.array([1.5, 2.5]), casting="same_kind")


def test_a_write_through_the_helper_is_seen_by_backward():
    """An optimizer step writes the weight in place through ``_write``: a graph that saved
    the weight before the step refuses to backward through the stale value."""
    w = nd.array([1.0, 2.0]); w.attach_grad()
    with autograd.record():
        y = (w * w).sum()
    opt = mx.optimizer.SGD(learning_rate=0.1)
    opt.update(0, w, nd.ones((2,)), opt.create_state(0, w))
    with pytest.raises(mx.base.MXNetError, match="version"):
        y.backward()

"""The engine (mxgrad/autograd's graph protocol) imports nothing from ops/ and has
nothing installed into it by side effect (issue 20 item 3)."""
import ast
import os

import numpy as np

import mxgrad as mx
from mxgrad.autograd import graph, nodes, reuse

ENGINE = ("scope.py", "graph.py", "nodes.py", "reuse.py", "forward_ad.py")
AUTOGRAD_DIR = os.path.dirname(graph.__file__)


def _imported_modules(path):
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    out = []
    for n in ast.walk(tree):   # module level and inside functions alike
        if isinstance(n, ast.ImportFrom):
            out.append("." * n.level + (n.module or ""))
        elif isinstance(n, ast.Import):
            out.extend(a.name for a in n.names)
    return out


def test_engine_modules_import_nothing_from_ops():
    for name in ENGINE:
        mods = _imported_modules(os.path.join(AUTOGRAD_DIR, name))
        assert mods, name
        bad = [m for m in mods if m.startswith("..ops") or m.startswith("mxgrad.ops")]
        assert bad == [], (name, bad)


def test_no_installation_hook_left_in_the_engine():
    assert not hasattr(graph, "set_grad_link")
    assert graph._GRAD_LINK.name == "_grad_link"


def test_the_ops_layer_uses_the_engines_record_functions():
    from mxgrad.ops import _apply
    for name in ("make_node", "record", "_record1", "_record2", "_from_freed"):
        assert getattr(_apply, name) is getattr(nodes, name), name


def test_grad_link_keeps_first_gradient_a_function_of_the_variable():
    x = mx.nd.array([1., 2.])
    x.attach_grad()
    with mx.autograd.record():
        y = x * 3
        g = mx.autograd.grad(y, [x], create_graph=True, retain_graph=True)[0]
        assert g._node is not None and g._node.op is graph._GRAD_LINK
        z = (g * g).sum()
    z.backward()
    np.testing.assert_array_equal(g.asnumpy(), [3., 3.])
    np.testing.assert_array_equal(x.grad.asnumpy(), [0., 0.])


def test_reuse_rule_counts_a_private_array():
    a = np.zeros(4)
    private = reuse.refcount(a) <= 1 + reuse.GETREFCOUNT_OWN   # the local `a` only
    assert private == reuse.REUSE_BUFFERS
    b = a  # noqa: F841 - a second reference: never private
    assert not reuse.refcount(a) <= 1 + reuse.GETREFCOUNT_OWN

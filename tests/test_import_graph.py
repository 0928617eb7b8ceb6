"""No import cycle and no upward import inside mxgrad (issue 20 item 5), beyond the edges
tools/import_graph.py lists as DEBT: the analysis and the floor table live there (one home),
this file only asks it. Module- and function-level imports count; importing a submodule
runs its packages' ``__init__``; ``if TYPE_CHECKING:`` imports are type-only."""
import os
import sys

import pytest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir)
sys.path.insert(0, os.path.join(ROOT, "tools"))
import import_graph as ig  # noqa: E402


@pytest.fixture(scope="module")
def graph():
    mods, found = ig.edges(ROOT)
    return mods, found


def test_every_module_has_a_floor(graph):
    mods, _ = graph
    assert sorted(ig.floor(m) for m in mods)[-1] == 7   # KeyError names a module without one
    assert ig.floor("mxgrad.ops.reduce") == 4 and ig.floor("mxgrad.ops._core") == 3
    assert ig.floor("mxgrad._engine.ndarray") == 1 and ig.floor("mxgrad.ndarray") == 5


def test_no_upward_import_beyond_the_debt(graph):
    _, found = graph
    up = sorted(f"{a}:{line} -> {b} (floor {ig.floor(a)} -> {ig.floor(b)})"
                for (a, b), (_, line) in found.items()
                if ig.floor(b) > ig.floor(a) and (a, b) not in ig.DEBT)
    assert up == []


def test_no_cycle_beyond_the_debt(graph):
    mods, found = graph
    g = {m: set() for m in mods}
    for (a, b) in found:
        if (a, b) not in ig.DEBT:
            g[a].add(b)
    assert [sorted(c) for c in ig.cycles(g)] == []


def test_the_debt_lists_only_edges_still_needed(graph):
    mods, found = graph
    stale = sorted(ig.DEBT - ig.needed_debt(found, mods))
    assert stale == [], "remove these from DEBT in tools/import_graph.py"


def _tree(tmp_path, files):
    for name, text in files.items():
        path = tmp_path / "mxgrad" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return str(tmp_path)


def test_the_analysis_counts_function_level_and_package_imports(tmp_path):
    root = _tree(tmp_path, {
        "__init__.py": "",
        "low.py": "from typing import TYPE_CHECKING\n"
                  "if TYPE_CHECKING:\n    from .top import T\n"
                  "else:\n    from . import other\n"
                  "def f():\n    from .pkg.mod import g\n",
        "other.py": "",
        "top.py": "",
        "pkg/__init__.py": "from ..low import f\n",
        "pkg/mod.py": "from . import sib\nfrom .. import low\n",
        "pkg/sib.py": "",
    })
    mods, found = ig.edges(root)
    assert set(mods) == {"mxgrad", "mxgrad.low", "mxgrad.other", "mxgrad.top", "mxgrad.pkg",
                         "mxgrad.pkg.mod", "mxgrad.pkg.sib"}
    assert found == {
        ("mxgrad.low", "mxgrad.other"): ("module", 5),        # the else branch runs
        ("mxgrad.low", "mxgrad.pkg.mod"): ("function", 7),
        ("mxgrad.low", "mxgrad.pkg"): ("function", 7),        # its package's __init__ runs
        ("mxgrad.pkg", "mxgrad.low"): ("module", 1),
        ("mxgrad.pkg.mod", "mxgrad.pkg.sib"): ("module", 1),  # own package: already running
        ("mxgrad.pkg.mod", "mxgrad.low"): ("module", 2),
    }
    g = {m: set() for m in mods}
    for a, b in found:
        g[a].add(b)
    assert ig.cycles(g) == [{"mxgrad.low", "mxgrad.pkg", "mxgrad.pkg.mod"}]


def test_argument_checks_know_blocks_and_initializers_without_importing_them():
    import mxgrad as mx
    from mxgrad import _check
    assert _check._is_block(mx.gluon.nn.Dense(2)) and not _check._is_block(mx.init.One())
    assert _check._is_initializer(mx.init.Xavier()) and not _check._is_initializer("zeros")
    with pytest.raises(mx.base.MXNetError, match="weight_initializer must be an Initializer"):
        mx.gluon.nn.Dense(2, weight_initializer=mx.gluon.nn.Dense(2))


def test_summary_skips_containers_found_by_name(capsys):
    import mxgrad as mx
    net = mx.gluon.nn.HybridSequential()
    net.add(mx.gluon.nn.Dense(2, in_units=3))
    net.initialize()
    net.summary(mx.nd.ones((1, 3)))
    out = capsys.readouterr().out
    assert "Dense-1" in out and "Sequential" not in out


def test_moved_modules_keep_their_paths_as_the_same_objects():
    import importlib
    import mxgrad as mx
    for old, new in (("mxgrad.ndarray.ndarray", "mxgrad._engine.ndarray"),
                     ("mxgrad.ndarray._format", "mxgrad._format"),
                     ("mxgrad.autograd.graph", "mxgrad._engine.graph"),
                     ("mxgrad.autograd.scope", "mxgrad._engine.scope"),
                     ("mxgrad.autograd.nodes", "mxgrad._engine.nodes"),
                     ("mxgrad.autograd.reuse", "mxgrad._engine.reuse"),
                     ("mxgrad.autograd.forward_ad", "mxgrad._engine.forward_ad")):
        assert importlib.import_module(old) is importlib.import_module(new), old
    from mxgrad.ndarray.ndarray import NDArray, wrap
    assert NDArray is mx.nd.NDArray and wrap is mx._engine.ndarray.wrap
    assert mx.autograd.graph is mx._engine.graph and mx.nd.ndarray is mx._engine.ndarray
    assert getattr(mx.random.seed, "__wrapped__", None) is mx._rng.seed   # guarded, as before
    assert mx.random._rng is mx._rng._rng and mx.operator.Custom is mx.nd.Custom
    assert mx.model.save_checkpoint is mx._checkpoint.save_checkpoint
    assert mx.nd.sparse.SparseNotSupportedError is mx.base.SparseNotSupportedError

"""Measure mxgrad's import graph (issue 20): every ``import`` inside ``mxgrad/``, at module
level and inside functions, resolved to modules with the standard library's ``ast``.

What counts as an edge ``a -> b`` (``a`` may run ``b``'s code):

* every ``import``/``from ... import`` in ``a``, at module level or inside a function
  (a function-level import runs when the function is first called: still a dependency);
* importing ``mxgrad.x.y`` runs ``mxgrad/x/__init__.py`` first, so it is also an edge to
  each package on the path (``mxgrad.x``) that is not a package of ``a`` itself (those are
  already being imported when ``a`` runs);
* imports under ``if TYPE_CHECKING:`` are type-only, never executed: skipped (their ``else``
  branch, and ``if not TYPE_CHECKING:``, run and count).

Each module has a floor (``FLOORS``: the longest matching prefix wins; ARCHITECTURE.md's
table). A module may import its own floor and the floors below; an import of a higher floor
is upward. ``tests/test_import_graph.py`` fails on any cycle and any upward import beyond
the edges listed in ``DEBT`` (and on a ``DEBT`` entry no longer needed).

Usage::

    python tools/import_graph.py [ROOT]         # ROOT: the checkout (default: this one)
    python tools/import_graph.py --debt [ROOT]  # the DEBT set this checkout needs

prints each strongly connected set (an import cycle) with its edges, then every upward
import with its line.

Measured 2026-11-26 (this tool): before issue 20 item 5, one cycle of 143 modules plus two
(model/module/callback: 8, test_utils/symbol._checks/mxgrad: 3) and 81 upward imports (the
first floor map); after it (session 5), one cycle of 23 modules (``symbol/``: the
``Symbol`` class imports, inside its methods, the modules that import it; with
``executor``) and no upward import: 18 ``DEBT`` edges, all in that cycle. Measured
2026-11-26, after Symbol's face (``symbol/_core.py`` at the package's bottom,
``SymbolMethods`` above; ARCHITECTURE.md): no import cycle, no upward import, ``DEBT`` empty.
"""
from __future__ import annotations

import ast
import os
import sys
from typing import Dict, List, Set, Tuple

PKG = "mxgrad"

# module prefix -> floor (ARCHITECTURE.md "The floors"); the longest matching prefix wins
FLOORS: Dict[str, int] = {
    # 0: no mxgrad import above floor 0
    "mxgrad.base": 0, "mxgrad.context": 0, "mxgrad.util": 0, "mxgrad._typing": 0,
    "mxgrad._warn": 0, "mxgrad._fileio": 0, "mxgrad._threads": 0, "mxgrad._allocator": 0,
    "mxgrad._host_array": 0, "mxgrad.name": 0, "mxgrad.attribute": 0, "mxgrad.compat": 0,
    "mxgrad.runtime": 0, "mxgrad._unsupported": 0, "mxgrad._mxnet_op_args": 0,
    "mxgrad._test_stats": 0,
    "mxgrad._format": 0, "mxgrad._optimizer_registry": 0, "mxgrad._image_codec": 0,
    "mxgrad._image_resize": 0,
    # 1 also: the argument guard and the random generator's state, which ops use
    "mxgrad._check": 1, "mxgrad._rng": 1, "mxgrad._image_pixels": 1,
    # 1: the NDArray class (mxgrad.ndarray.ndarray is its MXNet path, the same module)
    "mxgrad._engine": 1, "mxgrad._engine.ndarray": 1,
    # 2: the engine (mxgrad.autograd.graph etc. are its public paths, the same modules)
    "mxgrad._engine.scope": 2, "mxgrad._engine.graph": 2, "mxgrad._engine.nodes": 2,
    "mxgrad._engine.reuse": 2, "mxgrad._engine.forward_ad": 2,
    # 3: defining and applying ops
    "mxgrad.ops._core": 3, "mxgrad.ops._apply": 3,
    # 4: the op families
    "mxgrad.ops": 4,
    # 5: the namespaces users call
    "mxgrad.ndarray": 5, "mxgrad.numpy": 5, "mxgrad.numpy_extension": 5, "mxgrad.symbol": 5,
    "mxgrad.autograd": 5, "mxgrad.random": 5, "mxgrad.operator": 5, "mxgrad._custom_op": 5,
    "mxgrad.executor": 5, "mxgrad.profiler": 5, "mxgrad.numpy_dispatch_protocol": 5,
    "mxgrad.numpy_op_signature": 5, "mxgrad.contrib.autograd": 5, "mxgrad._test_compare": 5,
    # 6: clients of the public API
    "mxgrad.gluon": 6, "mxgrad.optimizer": 6, "mxgrad.optimizer_contrib": 6,
    "mxgrad.initializer": 6, "mxgrad.metric": 6, "mxgrad.io": 6, "mxgrad.image": 6,
    "mxgrad.kvstore": 6, "mxgrad.lr_scheduler": 6, "mxgrad.callback": 6, "mxgrad.model": 6,
    "mxgrad.module": 6, "mxgrad.rnn": 6, "mxgrad.monitor": 6, "mxgrad.viz": 6,
    "mxgrad.recordio": 6, "mxgrad.test_utils": 6, "mxgrad._test_data": 6,
    "mxgrad.data": 6, "mxgrad.contrib": 6, "mxgrad.launch": 6,
    "mxgrad._states": 6, "mxgrad._checkpoint": 6,
    # 7: the package's face, mx.*, and the programs run with ``python -m`` (nothing imports them)
    "mxgrad": 7, "mxgrad.demo": 7,
}


def floor(module: str) -> int:
    """The floor of ``module``: its longest prefix in ``FLOORS``."""
    if module == PKG:
        return FLOORS[PKG]
    parts = module.split(".")
    for n in range(len(parts), 1, -1):     # the top package is no prefix: a new module needs a row
        key = ".".join(parts[:n])
        if key in FLOORS:
            return FLOORS[key]
    raise KeyError(f"{module} has no floor: add its prefix to FLOORS in tools/import_graph.py")


def modules(root: str) -> Dict[str, str]:
    """Module name -> file, for every ``.py`` under ``root/mxgrad``."""
    out = {}
    for dirpath, _, files in os.walk(os.path.join(root, PKG)):
        for f in files:
            if f.endswith(".py"):
                path = os.path.join(dirpath, f)
                rel = os.path.relpath(path, root)[:-3].replace(os.sep, ".")
                out[rel[:-9] if rel.endswith(".__init__") else rel] = path
    return out


def _targets(mods: Dict[str, str], cur: str, node: ast.AST) -> List[str]:
    base = cur.split(".")
    if not mods[cur].endswith("__init__.py"):
        base = base[:-1]
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name.split(".")[0] == PKG]
    assert isinstance(node, ast.ImportFrom)
    if node.level:
        m = ".".join(base[:len(base) - (node.level - 1)] + ([node.module] if node.module else []))
    else:
        m = node.module or ""
    if m.split(".")[0] != PKG:
        return []
    subs = [f"{m}.{a.name}" for a in node.names if f"{m}.{a.name}" in mods]
    # a name that is not a submodule is read from the package's namespace: its __init__
    return subs + ([m] if len(subs) < len(node.names) else [])


def _type_only(node: ast.AST) -> bool:
    test = node.test if isinstance(node, ast.If) else None
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


Edge = Tuple[str, str]


def edges(root: str) -> Tuple[Dict[str, str], Dict[Edge, Tuple[str, int]]]:
    """(modules, {(importer, imported): ('module' | 'function', first line)})."""
    mods = modules(root)
    found: Dict[Edge, Tuple[str, int]] = {}

    def add(a: str, b: str, kind: str, line: int) -> None:
        old = found.get((a, b))
        if old is None or (old[0] == "function" and kind == "module"):
            found[(a, b)] = (kind, line)

    for m, path in mods.items():
        own = {".".join(m.split(".")[:n]) for n in range(1, m.count(".") + 2)}

        def visit(node: ast.AST, in_function: bool) -> None:
            if _type_only(node):
                assert isinstance(node, ast.If)
                for child in node.orelse:
                    visit_one(child, in_function)
                return
            for child in ast.iter_child_nodes(node):
                visit_one(child, in_function)

        def visit_one(child: ast.AST, in_function: bool) -> None:
            inner = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                      ast.Lambda))
            if isinstance(child, (ast.Import, ast.ImportFrom)) and not (
                    isinstance(child, ast.ImportFrom) and child.module == "__future__"):
                kind = "function" if inner else "module"
                for d in _targets(mods, m, child):
                    while d not in mods and "." in d:
                        d = d.rsplit(".", 1)[0]
                    parts = d.split(".")
                    for n in range(1, len(parts) + 1):   # the packages run first
                        p = ".".join(parts[:n])
                        if p in mods and p != m and (p not in own or n == len(parts)):
                            add(m, p, kind, child.lineno)
            visit(child, inner)

        with open(path, encoding="utf-8") as f:
            visit(ast.parse(f.read()), False)
    return mods, found


def cycles(graph: Dict[str, Set[str]]) -> List[Set[str]]:
    """The strongly connected sets of more than one module (iterative Tarjan)."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    on: Set[str] = set()
    out: List[Set[str]] = []
    counter = 0
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = set()
                while True:
                    x = stack.pop()
                    on.discard(x)
                    comp.add(x)
                    if x == v:
                        break
                if len(comp) > 1:
                    out.append(comp)
    return out


# Known debt (issue 20 item 5): the import edges still to remove (none today). Without them
# the graph has no cycle and no upward import; tests/test_import_graph.py fails on any other
# such edge and on an entry here that is gone (remove it). ``python tools/import_graph.py --debt`` prints
# the list a checkout needs.
DEBT: Set[Edge] = set()


def needed_debt(found: Dict[Edge, Tuple[str, int]], mods: Dict[str, str]) -> Set[Edge]:
    """The edges that make a cycle or go upward: every upward edge, then every edge inside
    what cycles remain (function-level first; module-level only where needed)."""
    out = {(a, b) for (a, b) in found if floor(b) > floor(a)}
    for kinds in (("function",), ("function", "module")):
        graph: Dict[str, Set[str]] = {m: set() for m in mods}
        for (a, b) in found:
            if (a, b) not in out:
                graph[a].add(b)
        for comp in cycles(graph):
            out |= {(a, b) for (a, b), (k, _) in found.items()
                    if k in kinds and a in comp and b in comp}
    return out


def analyse(root: str) -> Tuple[List[Set[str]], List[Tuple[str, str, str, int]],
                                Dict[Edge, Tuple[str, int]]]:
    """(import cycles, upward imports as (importer, imported, kind, line), all edges)."""
    mods, found = edges(root)
    graph: Dict[str, Set[str]] = {m: set() for m in mods}
    for a, b in found:
        graph[a].add(b)
    up = sorted((a, b, k, line) for (a, b), (k, line) in found.items() if floor(b) > floor(a))
    return cycles(graph), up, found


def main(argv: List[str]) -> None:
    debt = "--debt" in argv
    argv = [a for a in argv if a != "--debt"]
    root = argv[0] if argv else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    sets, up, found = analyse(root)
    if debt:
        print("DEBT: Set[Edge] = {")
        for a, b in sorted(needed_debt(found, modules(root))):
            print(f"    ({a!r}, {b!r}),")
        print("}")
        return
    if not sets:
        print("no import cycles")
    for comp in sorted(sets, key=len, reverse=True):
        inner = sorted((a, b, k, line) for (a, b), (k, line) in found.items()
                       if a in comp and b in comp)
        n_fn = sum(1 for _, _, k, _ in inner if k == "function")
        print(f"cycle of {len(comp)} modules: {len(inner) - n_fn} module-level and {n_fn} "
              f"function-level edges inside")
        if len(comp) <= 12:
            for a, b, k, line in inner:
                print(f"  {k}-level: {a} -> {b} (line {line})")
    print(f"{len(up)} upward imports" if up else "no upward imports")
    for a, b, k, line in up:
        print(f"  floor {floor(a)} -> {floor(b)}: {a}:{line} -> {b} ({k}-level)")


if __name__ == "__main__":
    main(sys.argv[1:])

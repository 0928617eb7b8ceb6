"""Measure mxgrad's import graph (issue 20): every ``import`` inside ``mxgrad/``, at module
level and inside functions, resolved to modules with the standard library's ``ast``; prints
each strongly connected set (an import cycle), how many of its edges are module-level and
function-level, and the function-level edges inside it (the upward imports to move).

Usage::

    python tools/import_graph.py [ROOT]     # ROOT: the checkout (default: this one)

2026-11-26: one set of 77 modules, held by module-level edges too (a package's
``__init__`` imports its ops, and importing ``mxgrad.ndarray.ndarray`` runs it).
"""
from __future__ import annotations

import ast
import os
import sys
from typing import Dict, List, Set, Tuple

PKG = "mxgrad"


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
        return [a.name for a in node.names if a.name.startswith(PKG)]
    assert isinstance(node, ast.ImportFrom)
    if node.level:
        m = ".".join(base[:len(base) - (node.level - 1)] + ([node.module] if node.module else []))
    else:
        m = node.module or ""
    if not m.startswith(PKG):
        return []
    return [f"{m}.{a.name}" if f"{m}.{a.name}" in mods else m for a in node.names]


def edges(root: str) -> Tuple[Dict[str, str], Dict[Tuple[str, str], str]]:
    """(modules, {(importer, imported): 'module' | 'function'})."""
    mods = modules(root)
    found: Dict[Tuple[str, str], str] = {}
    for m, path in mods.items():
        def visit(node: ast.AST, in_function: bool) -> None:
            for child in ast.iter_child_nodes(node):
                inner = in_function or isinstance(child, (ast.FunctionDef,
                                                          ast.AsyncFunctionDef))
                if isinstance(child, (ast.Import, ast.ImportFrom)) and not (
                        isinstance(child, ast.ImportFrom) and child.module == "__future__"):
                    for d in _targets(mods, m, child):
                        while d not in mods and "." in d:
                            d = d.rsplit(".", 1)[0]
                        if d in mods and d != m and found.get((m, d)) != "module":
                            found[(m, d)] = "function" if inner else "module"
                visit(child, inner)
        visit(ast.parse(open(path, encoding="utf-8").read()), False)
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


def main(argv: List[str]) -> None:
    root = argv[0] if argv else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    mods, found = edges(root)
    graph: Dict[str, Set[str]] = {m: set() for m in mods}
    for a, b in found:
        graph[a].add(b)
    sets = cycles(graph)
    if not sets:
        print("no import cycles")
    for comp in sorted(sets, key=len, reverse=True):
        inner = [(a, b, k) for (a, b), k in found.items() if a in comp and b in comp]
        n_fn = sum(1 for *_, k in inner if k == "function")
        print(f"cycle of {len(comp)} modules: {len(inner) - n_fn} module-level and {n_fn} "
              f"function-level edges inside")
        for a, b, k in sorted(inner):
            if k == "function":
                print(f"  function-level: {a} -> {b}")


if __name__ == "__main__":
    main(sys.argv[1:])

"""``mx.name``: how unnamed Symbols are named (MXNet's ``NameManager`` and ``Prefix``).

An operator Symbol created without ``name=`` is called ``hint + count`` (``fullyconnected0``,
``fullyconnected1``...). Inside ``with mx.name.NameManager():`` the counts start afresh;
inside ``with mx.name.Prefix('net_'):`` they start afresh and every name gets the prefix.
Scopes nest and are per thread.

Examples
--------
>>> import mxgrad as mx
>>> with mx.name.Prefix('net_'):
...     y = mx.sym.FullyConnected(mx.sym.var('x'), num_hidden=2)
>>> y.name
'net_fullyconnected0'
>>> with mx.name.NameManager() as names:
...     names.get(None, 'conv'), names.get(None, 'conv'), names.get('mine', 'conv')
('conv0', 'conv1', 'mine')
"""
from __future__ import annotations

import threading
from typing import Dict, List, Optional, Tuple

__all__ = ["NameManager", "Prefix", "current_name"]


class _Scopes(threading.local):
    def __init__(self) -> None:
        self.stack: List[Tuple[str, Dict[str, int]]] = []
        self.counter: Dict[str, int] = {}      # outside every scope


_scopes = _Scopes()


class NameManager:
    """A naming scope: unnamed Symbols created inside get fresh counts per hint."""

    _prefix = ""

    def __init__(self) -> None:
        self._counter: Dict[str, int] = {}

    def get(self, name: Optional[str], hint: str) -> str:
        """``name`` if given, else ``hint`` followed by its next count in this scope (with
        this scope's prefix)."""
        if name is None:
            n = self._counter.get(hint, 0)
            self._counter[hint] = n + 1
            name = f"{hint}{n}"
        return self._prefix + name

    def __enter__(self) -> "NameManager":
        _scopes.stack.append((self._prefix, self._counter))
        return self

    def __exit__(self, *exc) -> None:
        _scopes.stack.pop()


class Prefix(NameManager):
    """A naming scope whose names (given or generated) all start with ``prefix``."""

    def __init__(self, prefix: str) -> None:
        super().__init__()
        self._prefix = prefix


def current_name(name: Optional[str], hint: str) -> str:
    """The name of a new Symbol in the innermost scope of this thread (``name`` with the
    scope's prefix, or ``hint`` + its next count)."""
    if _scopes.stack:
        prefix, counter = _scopes.stack[-1]
    else:
        prefix, counter = "", _scopes.counter
    if name is None:
        n = counter.get(hint, 0)
        counter[hint] = n + 1
        name = f"{hint}{n}"
    return prefix + name


def _isolated():
    """Save and clear this thread's scopes (a traced block names its nodes afresh);
    returns a function that restores them."""
    saved = _scopes.stack, _scopes.counter
    _scopes.stack, _scopes.counter = [], {}

    def restore() -> None:
        _scopes.stack, _scopes.counter = saved
    return restore

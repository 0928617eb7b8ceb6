"""Run MXNet programs unchanged: make ``import mxnet`` give mxgrad.

:func:`install_as_mxnet` puts an import hook in front of Python's finders so that ``mxnet`` and
every ``mxnet.x.y`` resolve to ``mxgrad`` and ``mxgrad.x.y``. Nothing is installed under the name
``mxnet`` on disk, so a real MXNet elsewhere on the path is simply shadowed while the hook is
active, and :func:`uninstall_as_mxnet` takes it away again.

Examples
--------
>>> import mxgrad.compat
>>> mxgrad.compat.install_as_mxnet()
>>> import mxnet
>>> mxnet is mx
True
>>> from mxnet import nd
>>> nd.ones((2,)).asnumpy()
array([1., 1.], dtype=float32)
>>> mxgrad.compat.uninstall_as_mxnet()
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
from types import ModuleType
from typing import Optional, Sequence

__all__ = ["install_as_mxnet", "uninstall_as_mxnet"]

_ALIAS = "mxnet"
_REAL = "mxgrad"


class _AliasLoader(importlib.abc.Loader):
    """Loads ``mxnet.x`` by importing ``mxgrad.x`` and handing back that very module object."""

    def __init__(self, real_name: str) -> None:
        self.real_name = real_name

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        return importlib.import_module(self.real_name)

    def exec_module(self, module: ModuleType) -> None:  # already executed under its real name
        pass


class _AliasFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname: str, path: Optional[Sequence[str]] = None,
                  target: Optional[ModuleType] = None) -> Optional[importlib.machinery.ModuleSpec]:
        if fullname != _ALIAS and not fullname.startswith(_ALIAS + "."):
            return None
        real = _REAL + fullname[len(_ALIAS):]
        if importlib.util.find_spec(real) is None:
            return None  # let Python raise its ordinary ModuleNotFoundError for mxnet.x
        module = importlib.import_module(real)
        is_pkg = hasattr(module, "__path__")
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(real), is_package=is_pkg)


_finder = _AliasFinder()


def install_as_mxnet() -> None:
    """Make ``import mxnet`` (and ``from mxnet.gluon import nn``...) import mxgrad.

    Idempotent. Modules already imported as ``mxnet...`` from a real MXNet are dropped from
    ``sys.modules`` first, so the next import finds mxgrad.
    """
    if _finder not in sys.meta_path:
        sys.meta_path.insert(0, _finder)
    for name in [n for n in sys.modules if n == _ALIAS or n.startswith(_ALIAS + ".")]:
        if not getattr(sys.modules[name], "__name__", "").startswith(_REAL):
            del sys.modules[name]


def uninstall_as_mxnet() -> None:
    """Undo :func:`install_as_mxnet`: ``import mxnet`` goes back to whatever is installed."""
    while _finder in sys.meta_path:
        sys.meta_path.remove(_finder)
    for name in [n for n in sys.modules if n == _ALIAS or n.startswith(_ALIAS + ".")]:
        del sys.modules[name]

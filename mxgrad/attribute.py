"""``mx.attribute``: attribute scopes for the Symbol API (MXNet's ``AttrScope``).

Inside ``with mx.AttrScope(key='value'):`` every Symbol created (variables and operators) gets
the scope's attributes, unless it sets the same key itself; scopes nest (the inner one adds to
and overrides the outer one) and are per thread: each new thread starts with an empty scope.

Examples
--------
>>> import mxgrad as mx
>>> with mx.AttrScope(group='4', data='great'):
...     a = mx.sym.var('a', attr={'group': '1'})
...     b = mx.sym.var('b')
>>> a.attr('group'), b.attr('group'), b.attr('data')
('1', '4', 'great')
>>> mx.sym.var('c').attr('group') is None
True
"""
from __future__ import annotations

import threading
import warnings
from collections import defaultdict
from typing import Dict, Optional

from .base import StateError

__all__ = ["AttrScope", "current_attrs", "HIDDEN_KEYS", "stored_key", "listed"]

# attributes MXNet stores as __key__ (and lists under both names)
HIDDEN_KEYS = ("ctx_group", "lr_mult", "wd_mult", "force_mirroring", "mirror_stage")


def stored_key(key: str) -> str:
    """The name under which MXNet stores the attribute ``key``: ``lr_mult`` ->
    ``__lr_mult__`` (the hidden keys), others unchanged. ``weight_lr_mult``-style keys are
    MXNet's removed form and raise.

    Examples
    --------
    >>> stored_key('lr_mult'), stored_key('mood')
    ('__lr_mult__', 'mood')
    """
    for k in HIDDEN_KEYS:
        if key == k:
            return f"__{key}__"
        if key.endswith("_" + k):
            raise StateError(
                f"setting variable attributes with {key} is deprecated. please instead use\n"
                f"w = Variable({k}=...)\nsym = YourSymbolName({key[:-len(k) - 1]}=w)")
    return key


def listed(attrs: Dict[str, str]) -> Dict[str, str]:
    """``attrs`` as MXNet lists them: each hidden ``__key__`` also under ``key``."""
    out = dict(attrs)
    for k, v in attrs.items():
        if k.startswith("__") and k.endswith("__") and k[2:-2] in HIDDEN_KEYS:
            out[k[2:-2]] = v
    return out


class _Current(threading.local):
    value: Optional["AttrScope"] = None


class _CurrentProperty(type):
    """``AttrScope.current`` as a read/write class property (MXNet's deprecated API)."""

    @property
    def current(cls) -> "AttrScope":
        warnings.warn("AttrScope.current has been deprecated. It is advised to use the "
                      "`with` statement with AttrScope.", DeprecationWarning, stacklevel=2)
        return _scope()

    @current.setter
    def current(cls, value: "AttrScope") -> None:
        warnings.warn("AttrScope.current has been deprecated. It is advised to use the "
                      "`with` statement with AttrScope.", DeprecationWarning, stacklevel=2)
        if not isinstance(value, AttrScope):
            raise StateError(f"AttrScope.current must be an AttrScope, got "
                             f"{type(value).__name__}")
        AttrScope._current.value = value


class AttrScope(metaclass=_CurrentProperty):
    """Attributes (strings) given to every Symbol created inside the scope.

    Parameters
    ----------
    **kwargs : str
        The attributes, e.g. ``ctx_group='stage1'`` or ``__lr_mult__='0.1'``.
    """

    _current = _Current()
    _subgraph_names: Dict[str, int] = defaultdict(int)

    def __init__(self, **kwargs: str) -> None:
        for key, value in kwargs.items():
            if not isinstance(value, str):
                raise StateError(f"AttrScope: attribute {key!r} must be a string, got "
                                 f"{type(value).__name__} (attributes need to be strings)")
        self._attr = dict(kwargs)
        self._old_scope: Optional[AttrScope] = None

    def get(self, attr: Optional[Dict[str, str]]) -> Dict[str, str]:
        """This scope's attributes updated with ``attr`` (a Symbol's own win)."""
        ret = dict(self._attr)
        if attr:
            ret.update(attr)
        return ret

    def __enter__(self) -> "AttrScope":
        self._old_scope = _scope()
        merged = dict(self._old_scope._attr)
        merged.update(self._attr)
        self._attr = merged
        AttrScope._current.value = self
        return self

    def __exit__(self, *exc) -> None:
        AttrScope._current.value = self._old_scope

    def __repr__(self) -> str:
        return f"AttrScope({', '.join(f'{k}={v!r}' for k, v in self._attr.items())})"


def _scope() -> AttrScope:
    value = AttrScope._current.value
    if value is None:
        value = AttrScope._current.value = AttrScope()
    return value


def current_attrs(attr: Optional[Dict[str, str]] = None) -> Dict[str, str]:
    """The attributes a Symbol created now gets: the current scope's, updated with ``attr``."""
    value = AttrScope._current.value
    if value is None or not value._attr:
        return dict(attr) if attr else {}
    return value.get(attr)

"""Warnings that point at the user's line, not into mxgrad.

A fixed ``stacklevel`` is right only for one call path: the same warning reached through
``Block.initialize`` or a checked ``__init__`` then names a line inside mxgrad. :func:`warn`
walks up to the first frame outside the ``mxgrad`` package instead.

Examples
--------
>>> import warnings
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     warn("careful")
>>> caught[0].filename.endswith("_warn.py")   # a doctest's frame is outside mxgrad
False
"""
from __future__ import annotations

import os
import sys
import warnings
from types import FrameType
from typing import Optional, Type

__all__ = ["warn"]

_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def warn(message: str, category: Type[Warning] = UserWarning) -> None:
    """``warnings.warn(message, category)`` attributed to the first caller outside mxgrad."""
    frame: Optional[FrameType] = sys._getframe(1)
    level = 2                       # 2: the caller of this function
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame = frame.f_back
        level += 1
    warnings.warn(message, category, stacklevel=level)

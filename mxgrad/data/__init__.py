"""Data files shipped with mxgrad (see README.md beside this file): the 8x8 digits that
``python -m mxgrad.demo``, the notebooks and ``gluon.data.vision.Digits`` use, and a small CNN
exported by MXNet 1.9.1 that notebook 04 imports. A package so that setuptools ships it.

Examples
--------
>>> from mxgrad.data import path
>>> os.path.basename(path("mxnet_cnn-symbol.json"))
'mxnet_cnn-symbol.json'
"""
from __future__ import annotations

import os

from ..base import FileMissingError

__all__ = ["path"]

_HERE = os.path.dirname(os.path.abspath(__file__))


def path(name: str) -> str:
    """The full path of the shipped data file ``name`` (e.g. ``'digits.csv.gz'``)."""
    full = os.path.join(_HERE, name)
    if os.path.basename(name) != name or not os.path.isfile(full):
        have = sorted(f for f in os.listdir(_HERE) if not f.endswith((".py", ".md")))
        raise FileMissingError(f"mxgrad.data.path: no shipped file {name!r}; have {have}")
    return full

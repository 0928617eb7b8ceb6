"""The errors of ``contrib.text``. MXNet checks these arguments with ``assert`` (and a few
with ``ValueError``/``KeyError``), so each error is also the exception MXNet raises there,
besides mxgrad's usual ``MXNetError`` kind."""
from __future__ import annotations

from ...base import DTypeError, FileFormatError, OutOfRangeError, ShapeError, StateError

__all__ = ["TextArgumentError", "TextTypeError", "TextShapeError", "TextFormatError",
           "TextIndexError", "TextKeyError"]


class TextArgumentError(StateError, AssertionError):
    """A wrong argument value (MXNet: AssertionError)."""


class TextTypeError(DTypeError, AssertionError):
    """An argument of the wrong type (MXNet: AssertionError)."""


class TextShapeError(ShapeError, AssertionError):
    """Vectors of the wrong shape (MXNet: AssertionError)."""


class TextFormatError(FileFormatError, AssertionError):
    """A malformed embedding file (MXNet: AssertionError)."""


class TextIndexError(OutOfRangeError, ValueError):
    """A token index outside the vocabulary (MXNet: ValueError)."""


class TextKeyError(StateError, KeyError):
    """An unknown embedding or pretrained file name (MXNet: KeyError)."""

    def __str__(self) -> str:          # KeyError would print the message in quotes
        return str(self.args[0]) if self.args else ""

"""Buffer reuse: the one rule by which the engine and the gradient rules may write into an
array instead of allocating a new one.

An array whose every reference is known to the code holding it cannot be seen by anyone
else, so writing into it (accumulating a gradient in place, handing a fresh gradient to a
variable's buffer, a rule writing its result into its incoming gradient) is unobservable.
The rule: an array is private when::

    refcount(a) <= known + GETREFCOUNT_OWN

where ``known`` is the number of references the caller can name (each use lists them)
and ``GETREFCOUNT_OWN`` (1) is the reference ``sys.getrefcount`` itself holds on its
argument. A view (``a.base is not None``), a read-only array or one of another dtype is
never reused, whatever its count.

Checked on CPython 3.8 to 3.13, where every local variable, list slot, function
parameter and argument holds exactly one counted reference. Elsewhere (PyPy has no
reference counts; CPython 3.14 can borrow references, so a count may be lower than the
references that exist) :data:`REUSE_BUFFERS` is False and :func:`refcount` returns a huge
count: nothing is ever reused, every buffer is copied (slower, still correct).

Examples
--------
>>> import numpy as np
>>> a = np.zeros(3)
>>> refcount(a) <= 1 + GETREFCOUNT_OWN or not REUSE_BUFFERS   # only the local `a`
True
"""
from __future__ import annotations

import sys

__all__ = ["REUSE_BUFFERS", "GETREFCOUNT_OWN", "refcount"]

REUSE_BUFFERS = sys.implementation.name == "cpython" and (3, 8) <= sys.version_info[:2] <= (3, 13)
GETREFCOUNT_OWN = 1
refcount = sys.getrefcount if REUSE_BUFFERS else (lambda obj: 1 << 30)

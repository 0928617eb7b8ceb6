"""Forward-mode automatic differentiation (dual numbers), with PyTorch's
``torch.autograd.forward_ad`` API.

Inside a :func:`dual_level`, :func:`make_dual` pairs an array (the *primal*) with a
*tangent* of the same shape and dtype. Every op applied to such a dual array also
computes the tangent of its result, ``J @ tangent``, from the op's tangent (jvp) rule;
:func:`unpack_dual` reads it back. One forward pass gives a Jacobian-vector product,
however many inputs and outputs the function has.

The tangent rules live beside the gradient rules in the op table; the dispatcher
propagates an input's tangent (``NDArray._tan``) to the outputs of every op. Tangent
computations are ordinary recorded ops, so forward mode composes with reverse mode:
a gradient computed with ``create_graph=True`` from dual inputs carries the
Hessian-vector product as its tangent (forward-over-reverse).

Levels are per thread: a level entered in one thread is invisible in the others, and on
exit every tangent given in the level is dropped. Nested levels are not supported (as
in PyTorch).

Examples
--------
>>> import mxgrad as mx
>>> from mxgrad.autograd import forward_ad as fwAD
>>> x = mx.nd.array([1., 2., 3.])
>>> with fwAD.dual_level():
...     xd = fwAD.make_dual(x, mx.nd.array([1., 0., 0.]))
...     y = (xd * xd).sum()
...     fwAD.unpack_dual(y).tangent      # d/dt sum((x + t e0)^2) = 2 x0
<BLANKLINE>
[2.]
<NDArray 1 @cpu(0)>
"""
from __future__ import annotations

import functools
import threading
import weakref
from collections import namedtuple

import numpy as np
from typing_extensions import Literal

from ..base import DTypeError, MXNetError, ShapeError, StateError

__all__ = ["UnpackedDualTensor", "enter_dual_level", "exit_dual_level", "make_dual",
           "unpack_dual", "dual_level", "ForwardModeError"]


class ForwardModeError(MXNetError, NotImplementedError):
    """Forward mode reached an op or Function that has no tangent (jvp) rule."""


def tangent_rule_missing(name: str) -> ForwardModeError:
    """The error raised when tangents reach an op (or Function) without a jvp rule."""
    return ForwardModeError(f"op '{name}' has no forward-mode (jvp) rule, so tangents cannot "
                            f"pass through it; use reverse mode (autograd.grad) for this op")


# ------------------------------------------------------------------- level state
class _LevelState(threading.local):
    """Per-thread forward-AD state: the current level and the arrays given tangents."""

    def __init__(self):
        self.level = -1
        # (id(obj), attr) -> weakref(obj) for everything given a tangent in the level
        self.registry = {}


_state = _LevelState()


def level_active() -> bool:
    """Whether this thread is inside a dual level (tangents are live)."""
    return _state.level >= 0


def note_tangent(obj, attr: str = "_tan") -> None:
    """Register ``obj`` (an array just given a tangent), so that ``obj.<attr>`` is reset
    to None when the current level exits. Called by :func:`make_dual` and by the op
    dispatcher for op outputs; ``attr`` lets the engine register other per-level state
    (e.g. a graph node's saved output tangents). A no-op outside a level."""
    st = _state
    if st.level < 0:
        return
    reg = st.registry
    key = (id(obj), attr)
    if key in reg:
        return
    reg[key] = weakref.ref(obj, lambda _r, _k=key, _reg=reg: _reg.pop(_k, None))  # type: ignore[misc]


def enter_dual_level() -> int:
    """Enter a forward-AD level in this thread and return its number (0).

    Prefer the :func:`dual_level` context manager, which always exits the level.

    Examples
    --------
    >>> lvl = enter_dual_level(); lvl
    0
    >>> exit_dual_level(level=lvl)
    """
    st = _state
    if st.level >= 0:
        raise StateError(
            "nested forward-AD levels are not supported: this thread is already inside "
            f"dual level {st.level}. Use one `with forward_ad.dual_level():` block (several "
            "dual arrays can share it) and exit it before entering another")
    st.level = 0
    st.registry = {}
    return st.level


def exit_dual_level(*, level=None) -> None:
    """Exit the current forward-AD level: every tangent given in it is dropped.

    Parameters
    ----------
    level : int, optional
        The level to exit (the current one when omitted).
    """
    st = _state
    if st.level < 0:
        raise StateError("exit_dual_level: no forward-AD level is active in this thread "
                         "(enter one with enter_dual_level() or `with dual_level():`)")
    if level is not None and level != st.level:
        raise StateError(f"exit_dual_level: level {level} is not the current level "
                         f"{st.level}; only the last level entered can be exited")
    reg = st.registry
    st.registry = {}
    st.level = -1
    for (_, attr), ref in list(reg.items()):
        obj = ref()
        if obj is not None:
            setattr(obj, attr, None)


class dual_level:  # noqa: N801 - PyTorch's name
    """Context manager (or decorator) for a forward-AD level.

    Entering returns the level number; on exit (exceptions included) every tangent
    created in the level is dropped, so dual arrays become plain arrays again.

    Examples
    --------
    >>> import mxgrad as mx
    >>> from mxgrad.autograd import forward_ad as fwAD
    >>> x = mx.nd.array([0.])
    >>> with fwAD.dual_level() as lvl:
    ...     xd = fwAD.make_dual(x, mx.nd.array([1.]))
    ...     y = mx.nd.sin(xd)
    ...     print(lvl, fwAD.unpack_dual(y).tangent.asscalar())
    0 1.0
    >>> fwAD.unpack_dual(y).tangent is None
    True
    """

    def __enter__(self) -> int:
        return enter_dual_level()

    def __exit__(self, *exc) -> Literal[False]:
        exit_dual_level()
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with dual_level():
                return func(*args, **kwargs)
        return wrapper


class UnpackedDualTensor(namedtuple("UnpackedDualTensor", ["primal", "tangent"])):
    """``(primal, tangent)`` as returned by :func:`unpack_dual`; ``tangent`` is None
    when the array has no tangent."""

    __slots__ = ()


def _check_level(level, fn):
    st = _state
    if level is None:
        level = st.level
    elif st.level >= 0 and level != st.level:
        raise StateError(f"{fn}: level {level} is not the current dual level {st.level}")
    return level


def make_dual(tensor, tangent, *, level=None):
    """Return a dual array: ``tensor``'s data and graph with ``tangent`` attached.

    The result is a new NDArray sharing ``tensor``'s data and its place in the recorded
    graph (so reverse mode still works through it); ``tensor`` itself is unchanged.
    Every op applied to the result propagates the tangent. Must be called inside a
    :func:`dual_level`.

    Parameters
    ----------
    tensor : NDArray
        The primal, a floating-point array.
    tangent : NDArray
        The direction, of exactly the primal's shape and dtype. Kept as it is (if it is
        in a recorded graph, tangents computed from it can be differentiated).

    Returns
    -------
    NDArray

    Examples
    --------
    >>> import mxgrad as mx
    >>> from mxgrad.autograd import forward_ad as fwAD
    >>> x = mx.nd.array([1., 2.])
    >>> with fwAD.dual_level():
    ...     xd = fwAD.make_dual(x, mx.nd.array([1., 1.]))
    ...     fwAD.unpack_dual(mx.nd.exp(xd)).tangent.asnumpy().round(4)
    array([2.7183, 7.3891], dtype=float32)
    """
    from .ndarray import NDArray, wrap
    level = _check_level(level, "make_dual")
    if level < 0:
        raise StateError("make_dual: to create a dual array you must first enter a dual level "
                         "(`with mx.autograd.forward_ad.dual_level():` or enter_dual_level())")
    if not isinstance(tensor, NDArray):
        raise DTypeError(f"make_dual: the primal must be an NDArray, got "
                         f"{type(tensor).__name__}")
    if isinstance(tangent, np.ndarray):
        tangent = wrap(tangent if tangent.ndim else tangent.reshape(1))
    if not isinstance(tangent, NDArray):
        raise DTypeError(f"make_dual: the tangent must be an NDArray, got "
                         f"{type(tangent).__name__}")
    pd, td = tensor._data.dtype, tangent._data.dtype
    if pd.kind not in "fc":
        raise DTypeError(f"make_dual: the primal must be a floating-point array to carry a "
                         f"tangent, got dtype {pd}; cast it first (x.astype('float32'))")
    if tangent.shape != tensor.shape:
        raise ShapeError(f"make_dual: the tangent has shape {tangent.shape} but the primal "
                         f"has shape {tensor.shape}; they must be equal")
    if td != pd:
        raise DTypeError(f"make_dual: the tangent has dtype {td} but the primal has dtype "
                         f"{pd}; they must be equal (use tangent.astype({str(pd)!r}))")
    dual = wrap(tensor._data, tensor._node, tensor._oidx)
    dual._ver = tensor._ver
    dual._tan = tangent
    note_tangent(dual)
    return dual


def unpack_dual(tensor, *, level=None) -> UnpackedDualTensor:
    """Split a dual array into ``(primal, tangent)``.

    ``primal`` shares the array's data and graph but carries no tangent; ``tangent`` is
    the array's tangent as it is, or None when it has none (always None outside a dual
    level).

    Examples
    --------
    >>> import mxgrad as mx
    >>> from mxgrad.autograd import forward_ad as fwAD
    >>> with fwAD.dual_level():
    ...     xd = fwAD.make_dual(mx.nd.array([3.]), mx.nd.array([1.]))
    ...     y, dy = fwAD.unpack_dual(xd ** 2)
    ...     print(y.asscalar(), dy.asscalar())
    9.0 6.0
    >>> fwAD.unpack_dual(mx.nd.array([1.])).tangent is None
    True
    """
    from .ndarray import NDArray, wrap
    level = _check_level(level, "unpack_dual")
    if not isinstance(tensor, NDArray):
        raise DTypeError(f"unpack_dual takes an NDArray, got {type(tensor).__name__}")
    if level < 0 or tensor._tan is None:
        return UnpackedDualTensor(tensor, None)
    primal = wrap(tensor._data, tensor._node, tensor._oidx)
    primal._ver = tensor._ver
    return UnpackedDualTensor(primal, tensor._tan)

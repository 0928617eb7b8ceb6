"""Forward-mode automatic differentiation (dual numbers). See ``dual_level``.

The tangent rules live beside the gradient rules in the op table; the dispatcher
propagates an input's tangent (``NDArray._tan``) to the outputs of every op.
"""
from __future__ import annotations

from ..base import MXNetError


class ForwardModeError(MXNetError, NotImplementedError):
    """Forward mode reached an op or Function that has no tangent (jvp) rule."""


def tangent_rule_missing(name: str) -> ForwardModeError:
    return ForwardModeError(f"op '{name}' has no forward-mode (jvp) rule, so tangents cannot "
                            f"pass through it; use reverse mode (autograd.grad) for this op")

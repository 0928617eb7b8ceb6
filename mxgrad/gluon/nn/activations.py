"""Activation layers: ``Activation``, ``LeakyReLU``, ``PReLU``, ``ELU``, ``SELU``,
``Swish``, ``SiLU``, ``GELU``.

Examples
--------
>>> import mxgrad as mx
>>> from mxgrad.gluon import nn
>>> nn.Activation('relu')(mx.nd.array([-1.0, 2.0])).asnumpy().tolist()
[0.0, 2.0]
>>> nn.LeakyReLU(0.1)(mx.nd.array([-1.0, 2.0])).asnumpy().astype(float).round(3).tolist()
[-0.1, 2.0]
"""
from __future__ import annotations

from typing import Any, Optional

from ... import initializer
from ...base import StateError
from ._layer import ArrayLayer

__all__ = ["Activation", "LeakyReLU", "PReLU", "ELU", "SELU", "Swish", "SiLU", "GELU"]


class Activation(ArrayLayer):
    """Apply an activation function: ``'relu'``, ``'sigmoid'``, ``'tanh'``,
    ``'softrelu'`` or ``'softsign'`` (``nd.Activation``).

    Examples
    --------
    >>> Activation('tanh')
    Activation(tanh)
    """

    def __init__(self, activation: Optional[str], **kwargs: Any) -> None:
        self._act_type = activation
        super().__init__(**kwargs)

    def _alias(self):
        return self._act_type

    def hybrid_forward(self, F, x):
        return F.Activation(x, act_type=self._act_type, name="fwd")

    def __repr__(self):
        return f"{self.__class__.__name__}({self._act_type})"


class LeakyReLU(ArrayLayer):
    """``x`` for ``x >= 0``, ``alpha * x`` otherwise.

    Examples
    --------
    >>> LeakyReLU(0.2)
    LeakyReLU(0.2)
    """

    def __init__(self, alpha: float, **kwargs: Any) -> None:
        if alpha < 0:
            raise StateError(f"Slope coefficient for LeakyReLU must be no less than 0, "
                             f"got {alpha}")
        super().__init__(**kwargs)
        self._alpha = alpha

    def hybrid_forward(self, F, x):
        return F.LeakyReLU(x, act_type="leaky", slope=self._alpha, name="fwd")

    def __repr__(self):
        return f"{self.__class__.__name__}({self._alpha})"


class PReLU(ArrayLayer):
    """Leaky ReLU with a learned slope ``alpha`` (one per channel with
    ``in_channels > 1``, channel axis 1), initialized to 0.25.

    Examples
    --------
    >>> import mxgrad as mx
    >>> p = PReLU(); p.initialize()
    >>> p(mx.nd.array([-4.0, 4.0])).asnumpy().tolist()
    [-1.0, 4.0]
    """

    def __init__(self, alpha_initializer: initializer.Initializer = initializer.Constant(0.25),
                 in_channels: int = 1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        with self.name_scope():
            self.alpha = self.params.get("alpha", shape=(in_channels,),
                                         init=alpha_initializer)

    def hybrid_forward(self, F, x, alpha):
        return F.LeakyReLU(x, gamma=alpha, act_type="prelu", name="fwd")


class ELU(ArrayLayer):
    """Exponential linear unit: ``x`` for ``x > 0``, ``alpha * (exp(x) - 1)`` otherwise.
    """

    def __init__(self, alpha: float = 1.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._alpha = alpha

    def hybrid_forward(self, F, x):
        return F.LeakyReLU(x, act_type="elu", slope=self._alpha)


class SELU(ArrayLayer):
    """Scaled exponential linear unit (Klambauer et al.)."""

    def hybrid_forward(self, F, x):
        return F.LeakyReLU(x, act_type="selu", name="fwd")


class GELU(ArrayLayer):
    """Gaussian error linear unit ``x * Phi(x)`` (exact, with erf)."""

    def hybrid_forward(self, F, x):
        return F.LeakyReLU(x, act_type="gelu", name="fwd")


class Swish(ArrayLayer):
    """Swish: ``x * sigmoid(beta * x)``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> round(float(Swish()(mx.nd.array([1.0])).asscalar()), 4)
    0.7311
    """

    def __init__(self, beta: float = 1.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._beta = beta

    def hybrid_forward(self, F, x):
        return x * F.sigmoid(self._beta * x, name="fwd")


class SiLU(ArrayLayer):
    """Sigmoid linear unit ``x * sigmoid(x)`` (Swish with beta 1)."""

    def hybrid_forward(self, F, x):
        return x * F.sigmoid(x)

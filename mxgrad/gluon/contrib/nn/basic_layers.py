"""Contributed Gluon layers of MXNet 1.x.

Examples
--------
>>> from mxgrad.gluon import nn
>>> from mxgrad.gluon.contrib.nn import HybridConcurrent, PixelShuffle2D
>>> net = HybridConcurrent(axis=1)
>>> net.add(nn.Dense(2, in_units=3), nn.Dense(4, in_units=3)); net.initialize()
>>> net(mx.nd.ones((5, 3))).shape
(5, 6)
>>> PixelShuffle2D((2, 3))(mx.nd.zeros((1, 12, 4, 5))).shape
(1, 2, 8, 15)
"""
from __future__ import annotations

from typing import Any, Optional, Sequence, TYPE_CHECKING, Tuple, Union

from ....base import StateError
from ...block import Block, HybridBlock
from ...nn.basic_layers import BatchNorm, HybridSequential, Identity, Sequential

if TYPE_CHECKING:
    from ...parameter import ParameterDict

__all__ = ["Concurrent", "HybridConcurrent", "Identity", "SyncBatchNorm", "PixelShuffle1D",
           "PixelShuffle2D", "PixelShuffle3D", "SparseEmbedding"]


class Concurrent(Sequential):
    """Run every child on the same input and concatenate their outputs along ``axis``.

    Examples
    --------
    >>> from mxgrad.gluon import nn
    >>> net = Concurrent(); net.add(nn.Dense(1, in_units=2), nn.Dense(2, in_units=2))
    >>> net.initialize(); net(mx.nd.ones((3, 2))).shape
    (3, 3)
    """

    def __init__(self, axis: int = -1, prefix: Optional[str] = None,
                 params: Optional[ParameterDict] = None) -> None:
        super().__init__(prefix=prefix, params=params)
        self.axis = axis

    def __getitem__(self, key):
        return _keep_axis(self, super().__getitem__(key))

    def forward(self, x):
        from .... import ndarray as nd
        return nd.concat(*[block(x) for block in self._children.values()], dim=self.axis)


class HybridConcurrent(HybridSequential):
    """:class:`Concurrent` for HybridBlocks (hybridizable, exportable).

    Examples
    --------
    >>> from mxgrad.gluon import nn
    >>> net = HybridConcurrent(axis=0); net.add(nn.Dense(2, in_units=2), nn.Dense(2, in_units=2))
    >>> net.initialize(); net(mx.nd.ones((3, 2))).shape
    (6, 2)
    """

    def __init__(self, axis: int = -1, prefix: Optional[str] = None,
                 params: Optional[ParameterDict] = None) -> None:
        super().__init__(prefix=prefix, params=params)
        self.axis = axis

    def __getitem__(self, key):
        return _keep_axis(self, super().__getitem__(key))

    def hybrid_forward(self, F, x):
        return F.concat(*[block(x) for block in self._children.values()], dim=self.axis)


class SyncBatchNorm(BatchNorm):
    """Cross-device batch normalization (MXNet's ``contrib.nn.SyncBatchNorm``).

    Within one process every context shares the same NumPy arrays, so the statistics are
    already those of the whole batch: it computes what :class:`~mxgrad.gluon.nn.BatchNorm`
    computes. ``num_devices`` and ``key`` are accepted for compatibility.

    Examples
    --------
    >>> bn = SyncBatchNorm(in_channels=2, num_devices=2); bn.initialize()
    >>> bn(mx.nd.ones((4, 2))).shape
    (4, 2)
    """

    def __init__(self, in_channels: int = 0, num_devices=None, momentum: float = 0.9,
                 epsilon: float = 1e-5, center: bool = True, scale: bool = True,
                 use_global_stats: bool = False, beta_initializer: str = "zeros",
                 gamma_initializer: str = "ones", running_mean_initializer: str = "zeros",
                 running_variance_initializer: str = "ones", **kwargs: Any) -> None:
        super().__init__(axis=1, momentum=momentum, epsilon=epsilon, center=center, scale=scale,
                         use_global_stats=use_global_stats, beta_initializer=beta_initializer,
                         gamma_initializer=gamma_initializer,
                         running_mean_initializer=running_mean_initializer,
                         running_variance_initializer=running_variance_initializer,
                         in_channels=in_channels, **kwargs)
        if num_devices is not None and (not isinstance(num_devices, int) or num_devices < 1):
            raise StateError(f"SyncBatchNorm: num_devices must be a positive int, got "
                             f"{num_devices!r}")
        self.num_devices = num_devices or 1


def _keep_axis(block, item):
    """A slice of a concurrent block concatenates along the same axis."""
    if isinstance(item, type(block)):
        item.axis = block.axis
    return item


def _factors(factor, ndim: int, cls: str) -> Tuple[int, ...]:
    if isinstance(factor, int):
        factors = (factor,) * ndim
    else:
        factors = tuple(factor)
    if len(factors) != ndim or not all(isinstance(f, int) and f >= 1 for f in factors):
        raise StateError(f"{cls}: factor must be a positive int or {ndim} positive ints, got "
                         f"{factor!r}")
    return factors


class _PixelShuffle(HybridBlock):
    """Move ``prod(factors)`` channel groups into the spatial dimensions: input
    ``(N, C * f1 * ... * fk, D1, ..., Dk)``, output ``(N, C, D1 * f1, ..., Dk * fk)``; channel
    ``c * F + i`` (``i`` the row-major index over the factors) lands at offset ``i`` of each
    output block. Written with shape-agnostic reshape codes, so it traces to a Symbol."""

    _ndim = 0

    def __init__(self, factor: Union[int, Sequence[int]]) -> None:
        super().__init__()
        self._factors = _factors(factor, self._ndim, type(self).__name__)

    def hybrid_forward(self, F, x):
        k = self._ndim
        fs = self._factors
        total = 1
        for f in fs:
            total *= f
        x = F.reshape(x, (0, -4, -1, total, -2))                 # (N, C, F, D1..Dk)
        rest = total
        for i in range(k - 1):                                   # F -> f1, ..., fk
            rest //= fs[i]
            x = F.reshape(x, (0,) * (2 + i) + (-4, fs[i], rest, -2))
        axes = [0, 1]
        for i in range(k):                                       # (N, C, D1, f1, ..., Dk, fk)
            axes += [2 + k + i, 2 + i]
        x = F.transpose(x, axes=tuple(axes))
        return F.reshape(x, (0, 0) + (-3,) * k)                  # (N, C, D1*f1, ..., Dk*fk)

    def __repr__(self) -> str:
        shown = self._factors[0] if self._ndim == 1 else self._factors
        return f"{type(self).__name__}({shown})"


class PixelShuffle1D(_PixelShuffle):
    """``(N, C*f, W)`` to ``(N, C, W*f)``.

    Examples
    --------
    >>> PixelShuffle1D(2)(mx.nd.arange(8).reshape((1, 4, 2))).asnumpy().tolist()
    [[[0.0, 2.0, 1.0, 3.0], [4.0, 6.0, 5.0, 7.0]]]
    """

    _ndim = 1


class PixelShuffle2D(_PixelShuffle):
    """``(N, C*f1*f2, H, W)`` to ``(N, C, H*f1, W*f2)`` (sub-pixel convolution's shuffle)."""

    _ndim = 2


class PixelShuffle3D(_PixelShuffle):
    """``(N, C*f1*f2*f3, D, H, W)`` to ``(N, C, D*f1, H*f2, W*f3)``."""

    _ndim = 3


class SparseEmbedding(Block):
    """MXNet's embedding with a row-sparse weight and gradient: here a dense ``(input_dim,
    output_dim)`` weight whose gradient is non-zero only in the rows of the looked-up
    indices (mxgrad has no sparse storage yet; the numbers are the same).

    Examples
    --------
    >>> import mxgrad as mx
    >>> layer = SparseEmbedding(10, 4); layer.initialize()
    >>> x = mx.nd.array([3, 1])
    >>> with mx.autograd.record():
    ...     y = layer(x)
    >>> y.backward()
    >>> y.shape, layer.weight.grad().asnumpy().sum(axis=1).tolist()[:4]
    ((2, 4), [0.0, 4.0, 0.0, 4.0])
    """

    def __init__(self, input_dim: int, output_dim: int, dtype: str = "float32",
                 weight_initializer: Any = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._kwargs = {"input_dim": input_dim, "output_dim": output_dim, "dtype": dtype,
                        "sparse_grad": True}
        self.weight = self.params.get("weight", shape=(input_dim, output_dim),
                                      init=weight_initializer, dtype=dtype,
                                      grad_stype="row_sparse")

    def forward(self, x, *args):
        from .... import ndarray as nd
        return nd.Embedding(x, self.weight.data(), name="fwd", **self._kwargs)

    def __repr__(self) -> str:
        return (f"{type(self).__name__}({self._kwargs['input_dim']} -> "
                f"{self._kwargs['output_dim']}, {self._kwargs['dtype']})")

"""Layers that run every child on the same input and concatenate the results.

MXNet's Inception, DenseNet and SqueezeNet definitions build their branches with these.
The children are registered as ``'0'``, ``'1'``... like in :class:`~mxgrad.gluon.nn.Sequential`,
so parameter files keep MXNet's structural names.

Examples
--------
>>> import mxgrad as mx
>>> from mxgrad.gluon import nn
>>> net = HybridConcurrent(axis=1)
>>> net.add(nn.Dense(2, in_units=3), nn.Identity())
>>> net.initialize()
>>> net(mx.nd.ones((4, 3))).shape
(4, 5)
"""
from __future__ import annotations

from ... import nn as _nn
from ...nn import Identity  # MXNet has the same layer in gluon.nn and gluon.contrib.nn
from .... import ndarray as _nd

__all__ = ["Concurrent", "HybridConcurrent", "Identity"]


def _keep_axis(block, item):
    """A slice of a concurrent block concatenates along the same axis."""
    if isinstance(item, type(block)):
        item.axis = block.axis
    return item


class Concurrent(_nn.Sequential):
    """Feed the input to every child Block and concatenate their outputs along ``axis``.

    Parameters
    ----------
    axis : int, default -1
        Axis along which the children's outputs are concatenated.
    prefix, params
        As for any Block.

    Examples
    --------
    >>> import mxgrad as mx
    >>> net = Concurrent(); net.add(Identity(), Identity())
    >>> net(mx.nd.array([[1, 2]])).asnumpy().tolist()
    [[1.0, 2.0, 1.0, 2.0]]
    """

    def __init__(self, axis: int = -1, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self.axis = axis

    def __getitem__(self, key):
        return _keep_axis(self, super().__getitem__(key))

    def forward(self, x):
        return _nd.concat(*[block(x) for block in self._children.values()], dim=self.axis)


class HybridConcurrent(_nn.HybridSequential):
    """Feed the input to every child HybridBlock and concatenate their outputs along
    ``axis`` (``F.concat``).

    Parameters
    ----------
    axis : int, default -1
        Axis along which the children's outputs are concatenated.
    prefix, params
        As for any Block.

    Examples
    --------
    >>> import mxgrad as mx
    >>> net = HybridConcurrent(axis=0); net.add(Identity(), Identity())
    >>> net(mx.nd.ones((1, 2))).shape
    (2, 2)
    >>> net[:1].axis
    0
    """

    def __init__(self, axis: int = -1, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self.axis = axis

    def __getitem__(self, key):
        return _keep_axis(self, super().__getitem__(key))

    def hybrid_forward(self, F, x):
        return F.concat(*[block(x) for block in self._children.values()], dim=self.axis)

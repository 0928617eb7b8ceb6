"""``BatchNormReLU``: batch normalization followed by ``relu``, MXNet 1.9's fused layer.

The layer declares its parameters (those of :class:`BatchNorm`) and its computation; it
has no shape code: with ``in_channels`` left out, the parameters are sized at the first
call by tracing ``hybrid_forward`` through the operator's shape rule, as for every layer.
"""
from __future__ import annotations

from ...util import is_np_array
from .basic_layers import BatchNorm

__all__ = ["BatchNormReLU"]


class BatchNormReLU(BatchNorm):
    """:class:`BatchNorm` whose output goes through ``relu``, as one operator
    (``contrib.BatchNormWithReLU``, the node a hybridized export writes, as MXNet's).
    Takes :class:`BatchNorm`'s arguments.

    Examples
    --------
    >>> import mxgrad as mx
    >>> bn = BatchNormReLU(); bn.initialize()
    >>> with mx.autograd.record():
    ...     y = bn(mx.nd.array([[1.0], [3.0]]))
    >>> y.asnumpy().astype(float).round(3).tolist()
    [[0.0], [1.0]]
    >>> bn.gamma.shape
    (1,)
    """

    def hybrid_forward(self, F, x, gamma, beta, running_mean, running_var):
        if is_np_array():    # NumPy mode has no fused operator: npx.relu of batch_norm
            return F.npx.relu(super().hybrid_forward(F, x, gamma, beta, running_mean,
                                                     running_var))
        return F.contrib.BatchNormWithReLU(x, gamma, beta, running_mean, running_var,
                                           name="fwd", **self._kwargs)

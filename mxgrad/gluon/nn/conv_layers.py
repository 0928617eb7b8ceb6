"""Convolution and pooling layers (1-D, 2-D, 3-D), as in MXNet 1.x Gluon.

Weights are ``(channels, in_channels/groups, *kernel)`` for convolutions and
``(in_channels, channels/groups, *kernel)`` for transposed convolutions (channel-last
layouts put the channel axis of the weight last). ``in_channels=0`` is inferred at the
first forward.

Examples
--------
>>> import mxgrad as mx
>>> from mxgrad.gluon import nn
>>> conv = nn.Conv2D(4, kernel_size=3, padding=1); conv.initialize()
>>> conv(mx.nd.ones((2, 3, 8, 8))).shape
(2, 4, 8, 8)
>>> conv
Conv2D(3 -> 4, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1))
>>> nn.MaxPool2D()(mx.nd.ones((1, 1, 4, 4))).shape
(1, 1, 2, 2)
"""
from __future__ import annotations

from typing import Any, Optional, Sequence, Tuple, Union

from ...base import ShapeError, StateError, numeric_types
from ..._engine.ndarray import NDArray
from ..block import HybridBlock
from .activations import Activation
from ._layer import ArrayLayer
from ..._typing import InitLike

_IntOrTuple = Union[int, Tuple[int, ...]]

__all__ = ["Conv1D", "Conv2D", "Conv3D", "Conv1DTranspose", "Conv2DTranspose",
           "Conv3DTranspose", "MaxPool1D", "MaxPool2D", "MaxPool3D", "AvgPool1D",
           "AvgPool2D", "AvgPool3D", "GlobalMaxPool1D", "GlobalMaxPool2D",
           "GlobalMaxPool3D", "GlobalAvgPool1D", "GlobalAvgPool2D", "GlobalAvgPool3D",
           "ReflectionPad2D"]


def _tuple(v, n, what):
    if isinstance(v, numeric_types):
        return (int(v),) * n
    v = tuple(int(i) for i in v)
    if len(v) != n:
        raise StateError(f"{what} must be an int or a tuple of {n} ints, got {v}")
    return v


class _Conv(ArrayLayer):
    """Shared implementation of the convolution layers."""

    def __init__(self, channels, kernel_size, strides, padding, dilation, groups, layout,
                 in_channels=0, activation=None, use_bias=True, weight_initializer=None,
                 bias_initializer="zeros", op_name="Convolution", adj=None, prefix=None,
                 params=None):
        super().__init__(prefix=prefix, params=params)
        with self.name_scope():
            self._channels = channels
            self._in_channels = in_channels
            n = len(kernel_size)
            if layout not in ("NCW", "NCHW", "NCDHW", "NWC", "NHWC", "NDHWC") or \
                    len(layout) != n + 2:
                raise StateError(f"{self.__class__.__name__}: unsupported layout "
                                 f"{layout!r} for a {n}-D kernel")
            strides = _tuple(strides, n, "strides")
            padding = _tuple(padding, n, "padding")
            dilation = _tuple(dilation, n, "dilation")
            self._op_name = op_name
            self._kwargs = {"kernel": kernel_size, "stride": strides, "dilate": dilation,
                            "pad": padding, "num_filter": channels, "num_group": groups,
                            "no_bias": not use_bias, "layout": layout}
            if adj is not None:
                self._kwargs["adj"] = adj
            self._channel_last = layout.index("C") != 1
            self.weight = self.params.get("weight", shape=self._weight_shape(in_channels),
                                          init=weight_initializer, allow_deferred_init=True)
            if use_bias:
                self.bias = self.params.get("bias", shape=(channels,),
                                            init=bias_initializer, allow_deferred_init=True)
            else:
                self.bias = None
            if activation is not None:
                self.act = Activation(activation, prefix=activation + "_")
            else:
                self.act = None

    def _weight_shape(self, in_channels):
        k = tuple(self._kwargs["kernel"])
        g = self._kwargs["num_group"]
        if self._op_name == "Convolution":
            out_c, in_c = self._channels, in_channels // g if in_channels else 0
        else:
            out_c, in_c = in_channels, self._channels // g
        if self._channel_last:
            return (out_c,) + k + (in_c,)
        return (out_c, in_c) + k


    def _alias(self):
        return "conv"

    def hybrid_forward(self, F, x, weight, bias=None):
        if self._op_name == "Convolution":
            out = F.Convolution(x, weight, bias, name="fwd", **self._kwargs)
        else:
            out = F.Deconvolution(x, weight, bias, name="fwd", **self._kwargs)
        if self.act is not None:
            out = self.act(out)
        return out

    def __repr__(self):
        kw = self._kwargs
        nk = len(kw["kernel"])
        s = (f"{self.__class__.__name__}({{mapping}}, kernel_size={kw['kernel']}, "
             f"stride={kw['stride']}")
        if kw["pad"] != (0,) * nk:
            s += f", padding={kw['pad']}"
        if kw["dilate"] != (1,) * nk:
            s += f", dilation={kw['dilate']}"
        if hasattr(self, "out_pad") and self.out_pad != (0,) * nk:
            s += f", output_padding={self.out_pad}"
        if kw["num_group"] != 1:
            s += f", groups={kw['num_group']}"
        if self.bias is None:
            s += ", bias=False"
        if self.act:
            s += f", {self.act}"
        s += ")"
        shape = self.weight.shape
        if self._channel_last:
            in_c, out_c = shape[-1], shape[0]
        else:
            in_c, out_c = shape[1], shape[0]
        if self._op_name == "Deconvolution":
            in_c, out_c = out_c, in_c
        return s.format(mapping=f"{in_c if in_c else None} -> {out_c}")


class Conv1D(_Conv):
    """1-D convolution over ``(batch, in_channels, width)`` (layout ``'NCW'``).

    Parameters
    ----------
    channels : int
        Output channels.
    kernel_size : int or tuple of int
    strides, padding, dilation : int or tuple of int
    groups : int
    layout : 'NCW' or 'NWC'
    activation : str, optional
    use_bias : bool
    weight_initializer, bias_initializer : Initializer or str
    in_channels : int, default 0 (inferred)
    """

    def __init__(self, channels: int, kernel_size: _IntOrTuple, strides: _IntOrTuple = 1,
                 padding: _IntOrTuple = 0, dilation: _IntOrTuple = 1, groups: int = 1,
                 layout: str = "NCW", activation: Optional[str] = None, use_bias: bool = True,
                 weight_initializer: InitLike = None, bias_initializer: InitLike = "zeros",
                 in_channels: int = 0, **kwargs: Any) -> None:
        kernel_size = _tuple(kernel_size, 1, "kernel_size")
        super().__init__(channels, kernel_size, strides, padding, dilation, groups, layout,
                         in_channels, activation, use_bias, weight_initializer,
                         bias_initializer, **kwargs)


class Conv2D(_Conv):
    """2-D convolution over ``(batch, in_channels, height, width)`` (layout
    ``'NCHW'``; ``'NHWC'`` also works). Parameters as :class:`Conv1D`.

    Examples
    --------
    >>> import mxgrad as mx
    >>> c = Conv2D(2, (3, 3), strides=2, in_channels=1); c.initialize()
    >>> c.weight.shape, c(mx.nd.ones((1, 1, 7, 7))).shape
    ((2, 1, 3, 3), (1, 2, 3, 3))
    """

    def __init__(self, channels: int, kernel_size: _IntOrTuple, strides: _IntOrTuple = (1, 1),
                 padding: _IntOrTuple = (0, 0), dilation: _IntOrTuple = (1, 1), groups: int = 1,
                 layout: str = "NCHW", activation: Optional[str] = None, use_bias: bool = True,
                 weight_initializer: InitLike = None, bias_initializer: InitLike = "zeros",
                 in_channels: int = 0, **kwargs: Any) -> None:
        kernel_size = _tuple(kernel_size, 2, "kernel_size")
        super().__init__(channels, kernel_size, strides, padding, dilation, groups, layout,
                         in_channels, activation, use_bias, weight_initializer,
                         bias_initializer, **kwargs)


class Conv3D(_Conv):
    """3-D convolution over ``(batch, in_channels, depth, height, width)``."""

    def __init__(self, channels: int, kernel_size: _IntOrTuple, strides: _IntOrTuple = (1, 1, 1),
                 padding: _IntOrTuple = (0, 0, 0), dilation: _IntOrTuple = (1, 1, 1),
                 groups: int = 1, layout: str = "NCDHW", activation: Optional[str] = None,
                 use_bias: bool = True, weight_initializer: InitLike = None,
                 bias_initializer: InitLike = "zeros", in_channels: int = 0, **kwargs: Any
                 ) -> None:
        kernel_size = _tuple(kernel_size, 3, "kernel_size")
        super().__init__(channels, kernel_size, strides, padding, dilation, groups, layout,
                         in_channels, activation, use_bias, weight_initializer,
                         bias_initializer, **kwargs)


class Conv1DTranspose(_Conv):
    """1-D transposed convolution; ``output_padding`` adds to one side of the output."""

    def __init__(self, channels: int, kernel_size: _IntOrTuple, strides: _IntOrTuple = 1,
                 padding: _IntOrTuple = 0, output_padding: _IntOrTuple = 0,
                 dilation: _IntOrTuple = 1, groups: int = 1, layout: str = "NCW",
                 activation: Optional[str] = None, use_bias: bool = True,
                 weight_initializer: InitLike = None, bias_initializer: InitLike = "zeros",
                 in_channels: int = 0, **kwargs: Any) -> None:
        kernel_size = _tuple(kernel_size, 1, "kernel_size")
        output_padding = _tuple(output_padding, 1, "output_padding")
        super().__init__(channels, kernel_size, strides, padding, dilation, groups, layout,
                         in_channels, activation, use_bias, weight_initializer,
                         bias_initializer, op_name="Deconvolution", adj=output_padding,
                         **kwargs)
        self.outpad = output_padding
        self.out_pad = output_padding


class Conv2DTranspose(_Conv):
    """2-D transposed convolution (``Deconvolution``); the output size per axis is
    ``(x - 1) * stride - 2 * padding + dilation * (kernel - 1) + 1 + output_padding``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> t = Conv2DTranspose(3, 4, strides=2, padding=1, in_channels=2); t.initialize()
    >>> t.weight.shape, t(mx.nd.ones((1, 2, 5, 5))).shape
    ((2, 3, 4, 4), (1, 3, 10, 10))
    """

    def __init__(self, channels: int, kernel_size: _IntOrTuple, strides: _IntOrTuple = (1, 1),
                 padding: _IntOrTuple = (0, 0), output_padding: _IntOrTuple = (0, 0),
                 dilation: _IntOrTuple = (1, 1), groups: int = 1, layout: str = "NCHW",
                 activation: Optional[str] = None, use_bias: bool = True,
                 weight_initializer: InitLike = None, bias_initializer: InitLike = "zeros",
                 in_channels: int = 0, **kwargs: Any) -> None:
        kernel_size = _tuple(kernel_size, 2, "kernel_size")
        output_padding = _tuple(output_padding, 2, "output_padding")
        super().__init__(channels, kernel_size, strides, padding, dilation, groups, layout,
                         in_channels, activation, use_bias, weight_initializer,
                         bias_initializer, op_name="Deconvolution", adj=output_padding,
                         **kwargs)
        self.outpad = output_padding
        self.out_pad = output_padding


class Conv3DTranspose(_Conv):
    """3-D transposed convolution."""

    def __init__(self, channels: int, kernel_size: _IntOrTuple, strides: _IntOrTuple = (1, 1, 1),
                 padding: _IntOrTuple = (0, 0, 0), output_padding: _IntOrTuple = (0, 0, 0),
                 dilation: _IntOrTuple = (1, 1, 1), groups: int = 1, layout: str = "NCDHW",
                 activation: Optional[str] = None, use_bias: bool = True,
                 weight_initializer: InitLike = None, bias_initializer: InitLike = "zeros",
                 in_channels: int = 0, **kwargs: Any) -> None:
        kernel_size = _tuple(kernel_size, 3, "kernel_size")
        output_padding = _tuple(output_padding, 3, "output_padding")
        super().__init__(channels, kernel_size, strides, padding, dilation, groups, layout,
                         in_channels, activation, use_bias, weight_initializer,
                         bias_initializer, op_name="Deconvolution", adj=output_padding,
                         **kwargs)
        self.outpad = output_padding
        self.out_pad = output_padding


class _Pooling(ArrayLayer):
    """Shared implementation of the pooling layers."""

    def __init__(self, pool_size, strides, padding, ceil_mode, global_pool, pool_type,
                 layout, count_include_pad=None, **kwargs):
        super().__init__(**kwargs)
        n = len(pool_size)
        if strides is None:
            strides = pool_size
        strides = _tuple(strides, n, "strides")
        padding = _tuple(padding, n, "padding")
        self._kwargs = {"kernel": pool_size, "stride": strides, "pad": padding,
                        "global_pool": global_pool, "pool_type": pool_type,
                        "layout": layout,
                        "pooling_convention": "full" if ceil_mode else "valid"}
        if count_include_pad is not None:
            self._kwargs["count_include_pad"] = count_include_pad

    def _alias(self):
        return "pool"

    def hybrid_forward(self, F, x):
        n = len(self._kwargs["kernel"])
        if isinstance(x, NDArray) and x.ndim != n + 2:   # a Symbol may not know its shape
            raise ShapeError(f"{self.name} ({self.__class__.__name__}): expects {n + 2}-D "
                             f"input in layout {self._kwargs['layout']}, got shape "
                             f"{x.shape}")
        return F.Pooling(x, name="fwd", **self._kwargs)

    def __repr__(self):
        kw = self._kwargs
        return (f"{self.__class__.__name__}(size={kw['kernel']}, stride={kw['stride']}, "
                f"padding={kw['pad']}, ceil_mode={kw['pooling_convention'] == 'full'}, "
                f"global_pool={kw['global_pool']}, pool_type={kw['pool_type']}, "
                f"layout={kw['layout']})")


class MaxPool1D(_Pooling):
    """Max pooling over ``(batch, channels, width)``.

    Parameters
    ----------
    pool_size : int, default 2
    strides : int, optional
        Defaults to ``pool_size``.
    padding : int, default 0
    layout : 'NCW' or 'NWC'
    ceil_mode : bool, default False
        Round the output size up (MXNet's ``pooling_convention='full'``).
    """

    def __init__(self, pool_size: int = 2, strides: Optional[_IntOrTuple] = None,
                 padding: _IntOrTuple = 0, layout: str = "NCW", ceil_mode: bool = False,
                 **kwargs: Any) -> None:
        pool_size = _tuple(pool_size, 1, "pool_size")
        super().__init__(pool_size, strides, padding, ceil_mode, False, "max", layout,
                         **kwargs)


class MaxPool2D(_Pooling):
    """Max pooling over ``(batch, channels, height, width)`` (window 2x2 by default).

    Examples
    --------
    >>> import mxgrad as mx
    >>> MaxPool2D(pool_size=3, strides=2, ceil_mode=True)(mx.nd.ones((1, 1, 6, 6))).shape
    (1, 1, 3, 3)
    """

    def __init__(self, pool_size: _IntOrTuple = (2, 2), strides: Optional[_IntOrTuple] = None,
                 padding: _IntOrTuple = 0, layout: str = "NCHW", ceil_mode: bool = False,
                 **kwargs: Any) -> None:
        pool_size = _tuple(pool_size, 2, "pool_size")
        super().__init__(pool_size, strides, padding, ceil_mode, False, "max", layout,
                         **kwargs)


class MaxPool3D(_Pooling):
    """Max pooling over ``(batch, channels, depth, height, width)``."""

    def __init__(self, pool_size: _IntOrTuple = (2, 2, 2), strides: Optional[_IntOrTuple] = None,
                 padding: _IntOrTuple = 0, ceil_mode: bool = False, layout: str = "NCDHW",
                 **kwargs: Any) -> None:
        pool_size = _tuple(pool_size, 3, "pool_size")
        super().__init__(pool_size, strides, padding, ceil_mode, False, "max", layout,
                         **kwargs)


class AvgPool1D(_Pooling):
    """Average pooling over ``(batch, channels, width)``; ``count_include_pad`` counts
    padded elements in the divisor (default True)."""

    def __init__(self, pool_size: int = 2, strides: Optional[_IntOrTuple] = None,
                 padding: _IntOrTuple = 0, layout: str = "NCW", ceil_mode: bool = False,
                 count_include_pad: bool = True, **kwargs: Any) -> None:
        pool_size = _tuple(pool_size, 1, "pool_size")
        super().__init__(pool_size, strides, padding, ceil_mode, False, "avg", layout,
                         count_include_pad, **kwargs)


class AvgPool2D(_Pooling):
    """Average pooling over ``(batch, channels, height, width)``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> AvgPool2D()(mx.nd.ones((1, 1, 4, 4))).asnumpy().tolist()
    [[[[1.0, 1.0], [1.0, 1.0]]]]
    """

    def __init__(self, pool_size: _IntOrTuple = (2, 2), strides: Optional[_IntOrTuple] = None,
                 padding: _IntOrTuple = 0, ceil_mode: bool = False, layout: str = "NCHW",
                 count_include_pad: bool = True, **kwargs: Any) -> None:
        pool_size = _tuple(pool_size, 2, "pool_size")
        super().__init__(pool_size, strides, padding, ceil_mode, False, "avg", layout,
                         count_include_pad, **kwargs)


class AvgPool3D(_Pooling):
    """Average pooling over ``(batch, channels, depth, height, width)``."""

    def __init__(self, pool_size: _IntOrTuple = (2, 2, 2), strides: Optional[_IntOrTuple] = None,
                 padding: _IntOrTuple = 0, ceil_mode: bool = False, layout: str = "NCDHW",
                 count_include_pad: bool = True, **kwargs: Any) -> None:
        pool_size = _tuple(pool_size, 3, "pool_size")
        super().__init__(pool_size, strides, padding, ceil_mode, False, "avg", layout,
                         count_include_pad, **kwargs)


class GlobalMaxPool1D(_Pooling):
    """Max over the whole width: output ``(batch, channels, 1)``."""

    def __init__(self, layout: str = "NCW", **kwargs: Any) -> None:
        super().__init__((1,), None, 0, True, True, "max", layout, **kwargs)


class GlobalMaxPool2D(_Pooling):
    """Max over height and width: output ``(batch, channels, 1, 1)``."""

    def __init__(self, layout: str = "NCHW", **kwargs: Any) -> None:
        super().__init__((1, 1), None, 0, True, True, "max", layout, **kwargs)


class GlobalMaxPool3D(_Pooling):
    """Max over depth, height and width."""

    def __init__(self, layout: str = "NCDHW", **kwargs: Any) -> None:
        super().__init__((1, 1, 1), None, 0, True, True, "max", layout, **kwargs)


class GlobalAvgPool1D(_Pooling):
    """Mean over the whole width: output ``(batch, channels, 1)``."""

    def __init__(self, layout: str = "NCW", **kwargs: Any) -> None:
        super().__init__((1,), None, 0, True, True, "avg", layout, **kwargs)


class GlobalAvgPool2D(_Pooling):
    """Mean over height and width: output ``(batch, channels, 1, 1)``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> GlobalAvgPool2D()(mx.nd.ones((2, 3, 4, 4))).shape
    (2, 3, 1, 1)
    """

    def __init__(self, layout: str = "NCHW", **kwargs: Any) -> None:
        super().__init__((1, 1), None, 0, True, True, "avg", layout, **kwargs)


class GlobalAvgPool3D(_Pooling):
    """Mean over depth, height and width."""

    def __init__(self, layout: str = "NCDHW", **kwargs: Any) -> None:
        super().__init__((1, 1, 1), None, 0, True, True, "avg", layout, **kwargs)


class ReflectionPad2D(ArrayLayer):
    """Pad the last two axes of ``(N, C, H, W)`` by reflection (``padding`` on each
    side, an int or MXNet's 8-tuple ``pad_width``).

    Examples
    --------
    >>> import mxgrad as mx
    >>> ReflectionPad2D(1)(mx.nd.ones((1, 1, 2, 2))).shape
    (1, 1, 4, 4)
    """

    def __init__(self, padding: Union[int, Sequence[int]] = 0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if isinstance(padding, numeric_types):
            padding = (0, 0, 0, 0, padding, padding, padding, padding)
        if len(padding) != 8:
            raise StateError("ReflectionPad2D padding must be an int or an 8-tuple")
        self._padding = tuple(padding)

    def hybrid_forward(self, F, x):
        return F.pad(x, mode="reflect", pad_width=self._padding)

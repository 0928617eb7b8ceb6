"""MobileNet (width 1.0, 0.75, 0.5, 0.25) and MobileNetV2, as in MXNet 1.x's model zoo
(``mobilenet0_conv0_weight``..., ``mobilenetv20_features_linearbottleneck0_conv0_weight``
..., ``mobilenetv20_output_pred_weight``).

Examples
--------
>>> import mxgrad as mx
>>> net = mobilenet0_25(classes=3); net.initialize()
>>> net(mx.nd.ones((1, 3, 32, 32))).shape
(1, 3)
"""
from __future__ import annotations

from typing import Any, Optional

from ...block import HybridBlock
from ... import nn
from ..model_store import load_pretrained
from ....context import Context

__all__ = ["MobileNet", "MobileNetV2", "RELU6", "LinearBottleneck", "mobilenet1_0",
           "mobilenet_v2_1_0", "mobilenet0_75", "mobilenet_v2_0_75", "mobilenet0_5",
           "mobilenet_v2_0_5", "mobilenet0_25", "mobilenet_v2_0_25", "get_mobilenet",
           "get_mobilenet_v2"]


class RELU6(HybridBlock):
    """``min(max(x, 0), 6)`` (MobileNetV2's activation).

    Examples
    --------
    >>> import mxgrad as mx
    >>> RELU6()(mx.nd.array([-1, 3, 9])).asnumpy().tolist()
    [0.0, 3.0, 6.0]
    """

    def hybrid_forward(self, F, x):
        return F.clip(x, 0, 6, name="relu6")


def _add_conv(out, channels=1, kernel=1, stride=1, pad=0, num_group=1, active=True,
              relu6=False):
    out.add(nn.Conv2D(channels, kernel, stride, pad, groups=num_group, use_bias=False))
    out.add(nn.BatchNorm(scale=True))
    if active:
        out.add(RELU6() if relu6 else nn.Activation("relu"))


def _add_conv_dw(out, dw_channels, channels, stride, relu6=False):
    _add_conv(out, channels=dw_channels, kernel=3, stride=stride, pad=1,
              num_group=dw_channels, relu6=relu6)
    _add_conv(out, channels=channels, relu6=relu6)


class LinearBottleneck(HybridBlock):
    """MobileNetV2's inverted residual: 1x1 expansion (``t`` times), 3x3 depthwise
    (``stride``), linear 1x1 projection; the input is added when the shapes allow.

    Parameters
    ----------
    in_channels, channels : int
        Input and output channels.
    t : int
        Expansion factor.
    stride : int
        Stride of the depthwise convolution.
    """

    def __init__(self, in_channels: int, channels: int, t: int, stride: int, **kwargs: Any
                 ) -> None:
        super().__init__(**kwargs)
        self.use_shortcut = stride == 1 and in_channels == channels
        with self.name_scope():
            self.out = nn.HybridSequential()
            _add_conv(self.out, in_channels * t, relu6=True)
            _add_conv(self.out, in_channels * t, kernel=3, stride=stride, pad=1,
                      num_group=in_channels * t, relu6=True)
            _add_conv(self.out, channels, active=False, relu6=True)

    def hybrid_forward(self, F, x):
        out = self.out(x)
        if self.use_shortcut:
            out = F.elemwise_add(out, x)
        return out


class MobileNet(HybridBlock):
    """MobileNet ("Efficient Convolutional Neural Networks for Mobile Vision
    Applications"): depthwise separable convolutions.

    Parameters
    ----------
    multiplier : float, default 1.0
        Width multiplier (channels are ``int(c * multiplier)``); at least 0.25.
    classes : int, default 1000
        Outputs of the final Dense layer.
    """

    def __init__(self, multiplier: float = 1.0, classes: int = 1000, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            with self.features.name_scope():
                _add_conv(self.features, channels=int(32 * multiplier), kernel=3, pad=1,
                          stride=2)
                dw_channels = [int(c * multiplier) for c in
                               [32, 64] + [128] * 2 + [256] * 2 + [512] * 6 + [1024]]
                channels = [int(c * multiplier) for c in
                            [64] + [128] * 2 + [256] * 2 + [512] * 6 + [1024] * 2]
                strides = [1, 2] * 3 + [1] * 5 + [2, 1]
                for dwc, c, s in zip(dw_channels, channels, strides):
                    _add_conv_dw(self.features, dw_channels=dwc, channels=c, stride=s)
                self.features.add(nn.GlobalAvgPool2D(), nn.Flatten())
            self.output = nn.Dense(classes)

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


class MobileNetV2(HybridBlock):
    """MobileNetV2 ("Inverted Residuals and Linear Bottlenecks").

    Parameters
    ----------
    multiplier : float, default 1.0
        Width multiplier (the last convolution keeps 1280 channels unless it is > 1).
    classes : int, default 1000
        Output channels of the final 1x1 convolution.
    """

    def __init__(self, multiplier: float = 1.0, classes: int = 1000, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="features_")
            with self.features.name_scope():
                _add_conv(self.features, int(32 * multiplier), kernel=3, stride=2, pad=1,
                          relu6=True)
                in_channels_group = [int(c * multiplier) for c in
                                     [32] + [16] + [24] * 2 + [32] * 3 + [64] * 4
                                     + [96] * 3 + [160] * 3]
                channels_group = [int(c * multiplier) for c in
                                  [16] + [24] * 2 + [32] * 3 + [64] * 4 + [96] * 3
                                  + [160] * 3 + [320]]
                ts = [1] + [6] * 16
                strides = [1, 2] * 2 + [1, 1, 2] + [1] * 6 + [2] + [1] * 3
                for in_c, c, t, s in zip(in_channels_group, channels_group, ts, strides):
                    self.features.add(LinearBottleneck(in_channels=in_c, channels=c, t=t,
                                                       stride=s))
                last_channels = int(1280 * multiplier) if multiplier > 1.0 else 1280
                _add_conv(self.features, last_channels, relu6=True)
                self.features.add(nn.GlobalAvgPool2D())
            self.output = nn.HybridSequential(prefix="output_")
            with self.output.name_scope():
                self.output.add(nn.Conv2D(classes, 1, use_bias=False, prefix="pred_"),
                                nn.Flatten())

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


def _version_suffix(multiplier: float) -> str:
    suffix = f"{multiplier:.2f}"
    return suffix[:-1] if suffix in ("1.00", "0.50") else suffix


def get_mobilenet(multiplier: float, pretrained: bool = False, ctx: Optional[Context] = None,
                  root: Optional[str] = None, **kwargs: Any) -> MobileNet:
    """MobileNet with width ``multiplier``; ``pretrained=True`` loads
    ``mobilenet{multiplier}-{hash}.params`` from ``root`` (default
    ``$MXNET_HOME/models``).

    Examples
    --------
    >>> get_mobilenet(0.5).features[0].weight.shape
    (16, 0, 3, 3)
    """
    net = MobileNet(multiplier, **kwargs)
    if pretrained:
        load_pretrained(net, f"mobilenet{_version_suffix(multiplier)}", ctx, root)
    return net


def get_mobilenet_v2(multiplier: float, pretrained: bool = False, ctx: Optional[Context] = None,
                     root: Optional[str] = None, **kwargs: Any) -> MobileNetV2:
    """MobileNetV2 with width ``multiplier``; ``pretrained=True`` loads
    ``mobilenetv2_{multiplier}-{hash}.params`` from ``root`` (default
    ``$MXNET_HOME/models``)."""
    net = MobileNetV2(multiplier, **kwargs)
    if pretrained:
        load_pretrained(net, f"mobilenetv2_{_version_suffix(multiplier)}", ctx, root)
    return net


def mobilenet1_0(**kwargs: Any) -> MobileNet:
    """MobileNet, width 1.0 (keyword arguments as :func:`get_mobilenet`)."""
    return get_mobilenet(1.0, **kwargs)


def mobilenet0_75(**kwargs: Any) -> MobileNet:
    """MobileNet, width 0.75 (keyword arguments as :func:`get_mobilenet`)."""
    return get_mobilenet(0.75, **kwargs)


def mobilenet0_5(**kwargs: Any) -> MobileNet:
    """MobileNet, width 0.5 (keyword arguments as :func:`get_mobilenet`)."""
    return get_mobilenet(0.5, **kwargs)


def mobilenet0_25(**kwargs: Any) -> MobileNet:
    """MobileNet, width 0.25 (keyword arguments as :func:`get_mobilenet`)."""
    return get_mobilenet(0.25, **kwargs)


def mobilenet_v2_1_0(**kwargs: Any) -> MobileNetV2:
    """MobileNetV2, width 1.0 (keyword arguments as :func:`get_mobilenet_v2`)."""
    return get_mobilenet_v2(1.0, **kwargs)


def mobilenet_v2_0_75(**kwargs: Any) -> MobileNetV2:
    """MobileNetV2, width 0.75 (keyword arguments as :func:`get_mobilenet_v2`)."""
    return get_mobilenet_v2(0.75, **kwargs)


def mobilenet_v2_0_5(**kwargs: Any) -> MobileNetV2:
    """MobileNetV2, width 0.5 (keyword arguments as :func:`get_mobilenet_v2`)."""
    return get_mobilenet_v2(0.5, **kwargs)


def mobilenet_v2_0_25(**kwargs: Any) -> MobileNetV2:
    """MobileNetV2, width 0.25 (keyword arguments as :func:`get_mobilenet_v2`)."""
    return get_mobilenet_v2(0.25, **kwargs)

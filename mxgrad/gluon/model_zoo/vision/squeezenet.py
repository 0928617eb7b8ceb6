"""SqueezeNet 1.0 and 1.1, as in MXNet 1.x's model zoo (``squeezenet0_conv0_weight``...,
``features.3.0.0.weight``...).

Examples
--------
>>> import mxgrad as mx
>>> net = squeezenet1_1(classes=3); net.initialize()
>>> net.features[0].weight.shape
(64, 0, 3, 3)
"""
from __future__ import annotations

from typing import Optional

from ...block import HybridBlock
from ... import nn
from ...contrib.nn import HybridConcurrent
from ..model_store import load_pretrained, UnknownModelError

__all__ = ["SqueezeNet", "squeezenet1_0", "squeezenet1_1", "get_squeezenet"]


def _make_fire_conv(channels, kernel_size, padding=0):
    out = nn.HybridSequential(prefix="")
    out.add(nn.Conv2D(channels, kernel_size, padding=padding), nn.Activation("relu"))
    return out


def _make_fire(squeeze_channels, expand1x1_channels, expand3x3_channels):
    out = nn.HybridSequential(prefix="")
    out.add(_make_fire_conv(squeeze_channels, 1))
    paths = HybridConcurrent(axis=1, prefix="")
    paths.add(_make_fire_conv(expand1x1_channels, 1))
    paths.add(_make_fire_conv(expand3x3_channels, 3, 1))
    out.add(paths)
    return out


def _pool():
    return nn.MaxPool2D(pool_size=3, strides=2, ceil_mode=True)


class SqueezeNet(HybridBlock):
    """SqueezeNet ("AlexNet-level accuracy with 50x fewer parameters"); version 1.1 needs
    2.4x less computation. The final 13x13 average pooling wants 224x224 inputs.

    Parameters
    ----------
    version : str
        ``'1.0'`` or ``'1.1'``.
    classes : int, default 1000
        Output channels of the final 1x1 convolution.
    """

    def __init__(self, version: str, classes: int = 1000, **kwargs):
        super().__init__(**kwargs)
        if version not in ("1.0", "1.1"):
            raise UnknownModelError(f"Unsupported SqueezeNet version {version!r}: '1.0' or "
                                    f"'1.1' expected")
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            f = self.features
            if version == "1.0":
                f.add(nn.Conv2D(96, kernel_size=7, strides=2), nn.Activation("relu"))
                f.add(_pool())
                f.add(_make_fire(16, 64, 64))
                f.add(_make_fire(16, 64, 64))
                f.add(_make_fire(32, 128, 128))
                f.add(_pool())
                f.add(_make_fire(32, 128, 128))
                f.add(_make_fire(48, 192, 192))
                f.add(_make_fire(48, 192, 192))
                f.add(_make_fire(64, 256, 256))
                f.add(_pool())
                f.add(_make_fire(64, 256, 256))
            else:
                f.add(nn.Conv2D(64, kernel_size=3, strides=2), nn.Activation("relu"))
                f.add(_pool())
                f.add(_make_fire(16, 64, 64))
                f.add(_make_fire(16, 64, 64))
                f.add(_pool())
                f.add(_make_fire(32, 128, 128))
                f.add(_make_fire(32, 128, 128))
                f.add(_pool())
                f.add(_make_fire(48, 192, 192))
                f.add(_make_fire(48, 192, 192))
                f.add(_make_fire(64, 256, 256))
                f.add(_make_fire(64, 256, 256))
            f.add(nn.Dropout(0.5))
            self.output = nn.HybridSequential(prefix="")
            self.output.add(nn.Conv2D(classes, kernel_size=1), nn.Activation("relu"),
                            nn.AvgPool2D(13), nn.Flatten())

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


def get_squeezenet(version: str, pretrained: bool = False, ctx=None,
                   root: Optional[str] = None, **kwargs) -> SqueezeNet:
    """SqueezeNet ``version`` (``'1.0'``, ``'1.1'``); ``pretrained=True`` loads
    ``squeezenet{version}-{hash}.params`` from ``root`` (default ``$MXNET_HOME/models``).
    """
    net = SqueezeNet(version, **kwargs)
    if pretrained:
        load_pretrained(net, f"squeezenet{version}", ctx, root)
    return net


def squeezenet1_0(**kwargs) -> SqueezeNet:
    """SqueezeNet 1.0 (keyword arguments as :func:`get_squeezenet`)."""
    return get_squeezenet("1.0", **kwargs)


def squeezenet1_1(**kwargs) -> SqueezeNet:
    """SqueezeNet 1.1 (keyword arguments as :func:`get_squeezenet`)."""
    return get_squeezenet("1.1", **kwargs)

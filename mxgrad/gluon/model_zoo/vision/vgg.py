"""VGG 11/13/16/19, with or without BatchNorm, as in MXNet 1.x's model zoo
(``vgg0_conv0_weight``..., ``features.0.weight``...).

Examples
--------
>>> import mxgrad as mx
>>> net = VGG([1, 1], [4, 8], classes=3); net.initialize()
>>> net(mx.nd.ones((1, 3, 8, 8))).shape
(1, 3)
"""
from __future__ import annotations

from typing import Any, Optional

from ....base import StateError
from ...block import HybridBlock
from ... import nn
from ....initializer import Xavier
from ..model_store import load_pretrained, UnknownModelError
from ....context import Context

__all__ = ["VGG", "vgg11", "vgg13", "vgg16", "vgg19", "vgg11_bn", "vgg13_bn", "vgg16_bn",
           "vgg19_bn", "get_vgg"]


class VGG(HybridBlock):
    """VGG ("Very Deep Convolutional Networks for Large-Scale Image Recognition").

    Parameters
    ----------
    layers : list of int
        3x3 convolutions in each block (each block ends with a 2x2 max-pooling).
    filters : list of int
        Channels of each block's convolutions.
    classes : int, default 1000
        Outputs of the final Dense layer.
    batch_norm : bool, default False
        BatchNorm after every convolution.
    """

    def __init__(self, layers, filters, classes: int = 1000, batch_norm: bool = False,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if len(layers) != len(filters):
            raise StateError(f"VGG: layers and filters must have the same length "
                                    f"(got {len(layers)} and {len(filters)})")
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            for num, channels in zip(layers, filters):
                for _ in range(num):
                    self.features.add(nn.Conv2D(
                        channels, kernel_size=3, padding=1,
                        weight_initializer=Xavier(rnd_type="gaussian", factor_type="out",
                                                  magnitude=2),
                        bias_initializer="zeros"))
                    if batch_norm:
                        self.features.add(nn.BatchNorm())
                    self.features.add(nn.Activation("relu"))
                self.features.add(nn.MaxPool2D(strides=2))
            for _ in range(2):
                self.features.add(nn.Dense(4096, activation="relu",
                                           weight_initializer="normal",
                                           bias_initializer="zeros"),
                                  nn.Dropout(rate=0.5))
            self.output = nn.Dense(classes, weight_initializer="normal",
                                   bias_initializer="zeros")

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


vgg_spec = {11: ([1, 1, 2, 2, 2], [64, 128, 256, 512, 512]),
            13: ([2, 2, 2, 2, 2], [64, 128, 256, 512, 512]),
            16: ([2, 2, 3, 3, 3], [64, 128, 256, 512, 512]),
            19: ([2, 2, 4, 4, 4], [64, 128, 256, 512, 512])}


def get_vgg(num_layers: int, pretrained: bool = False, ctx: Optional[Context] = None,
            root: Optional[str] = None, **kwargs: Any) -> VGG:
    """VGG with ``num_layers`` (11, 13, 16, 19) layers; ``batch_norm=True`` for the
    ``_bn`` variants. ``pretrained=True`` loads ``vgg{n}[_bn]-{hash}.params`` from
    ``root`` (default ``$MXNET_HOME/models``).

    Examples
    --------
    >>> len(get_vgg(11).features)
    25
    """
    if num_layers not in vgg_spec:
        raise UnknownModelError(f"Invalid number of layers: {num_layers}. Options are "
                                f"{sorted(vgg_spec)}")
    layers, filters = vgg_spec[num_layers]
    net = VGG(layers, filters, **kwargs)
    if pretrained:
        suffix = "_bn" if kwargs.get("batch_norm") else ""
        load_pretrained(net, f"vgg{num_layers}{suffix}", ctx, root)
    return net


def vgg11(**kwargs: Any) -> VGG:
    """VGG-11 (keyword arguments as :func:`get_vgg`)."""
    return get_vgg(11, **kwargs)


def vgg13(**kwargs: Any) -> VGG:
    """VGG-13 (keyword arguments as :func:`get_vgg`)."""
    return get_vgg(13, **kwargs)


def vgg16(**kwargs: Any) -> VGG:
    """VGG-16 (keyword arguments as :func:`get_vgg`)."""
    return get_vgg(16, **kwargs)


def vgg19(**kwargs: Any) -> VGG:
    """VGG-19 (keyword arguments as :func:`get_vgg`)."""
    return get_vgg(19, **kwargs)


def vgg11_bn(**kwargs: Any) -> VGG:
    """VGG-11 with BatchNorm (keyword arguments as :func:`get_vgg`)."""
    kwargs["batch_norm"] = True
    return get_vgg(11, **kwargs)


def vgg13_bn(**kwargs: Any) -> VGG:
    """VGG-13 with BatchNorm (keyword arguments as :func:`get_vgg`)."""
    kwargs["batch_norm"] = True
    return get_vgg(13, **kwargs)


def vgg16_bn(**kwargs: Any) -> VGG:
    """VGG-16 with BatchNorm (keyword arguments as :func:`get_vgg`)."""
    kwargs["batch_norm"] = True
    return get_vgg(16, **kwargs)


def vgg19_bn(**kwargs: Any) -> VGG:
    """VGG-19 with BatchNorm (keyword arguments as :func:`get_vgg`)."""
    kwargs["batch_norm"] = True
    return get_vgg(19, **kwargs)

"""ResNet V1 and V2 (18, 34, 50, 101, 152 layers), as in MXNet 1.x's model zoo.

Parameter names follow MXNet's (``resnetv10_conv0_weight``,
``resnetv10_stage1_batchnorm0_gamma``...; structural names ``features.0.weight``,
``features.4.0.body.0.weight``...), so MXNet's ``.params`` files load.

Examples
--------
>>> import mxgrad as mx
>>> net = ResNetV1(BasicBlockV1, [1, 1], [4, 8, 16], classes=3, thumbnail=True)
>>> net.initialize()
>>> net(mx.nd.ones((1, 3, 8, 8))).shape
(1, 3)
"""
from __future__ import annotations

from typing import Any, List, Optional, Type

from ....base import StateError
from ...block import HybridBlock
from ... import nn
from ..model_store import load_pretrained, UnknownModelError
from ....context import Context

__all__ = ["ResNetV1", "ResNetV2", "BasicBlockV1", "BasicBlockV2", "BottleneckV1",
           "BottleneckV2", "resnet18_v1", "resnet34_v1", "resnet50_v1", "resnet101_v1",
           "resnet152_v1", "resnet18_v2", "resnet34_v2", "resnet50_v2", "resnet101_v2",
           "resnet152_v2", "get_resnet"]


def _conv3x3(channels, stride, in_channels):
    return nn.Conv2D(channels, kernel_size=3, strides=stride, padding=1, use_bias=False,
                     in_channels=in_channels)


def _projection(channels, stride, in_channels, with_bn):
    """The 1x1 strided convolution (plus BatchNorm for V1) of a downsampling shortcut."""
    conv = nn.Conv2D(channels, kernel_size=1, strides=stride, use_bias=False,
                     in_channels=in_channels)
    if not with_bn:
        return conv
    seq = nn.HybridSequential(prefix="")
    seq.add(conv, nn.BatchNorm())
    return seq


class BasicBlockV1(HybridBlock):
    """Two 3x3 convolutions with BatchNorm, added to the (projected) input, then ReLU.

    Parameters
    ----------
    channels : int
        Output channels.
    stride : int
        Stride of the first convolution.
    downsample : bool, default False
        Project the shortcut with a strided 1x1 convolution.
    in_channels : int, default 0
        Input channels (0: inferred at the first forward).
    """

    def __init__(self, channels: int, stride: int, downsample: bool = False,
                 in_channels: int = 0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.body = nn.HybridSequential(prefix="")
        self.body.add(_conv3x3(channels, stride, in_channels), nn.BatchNorm(),
                      nn.Activation("relu"), _conv3x3(channels, 1, channels),
                      nn.BatchNorm())
        self.downsample = _projection(channels, stride, in_channels, True) \
            if downsample else None

    def hybrid_forward(self, F, x):
        residual = self.downsample(x) if self.downsample is not None else x
        return F.Activation(self.body(x) + residual, act_type="relu")


class BottleneckV1(HybridBlock):
    """1x1 (stride), 3x3, 1x1 convolutions with BatchNorm (``channels // 4`` inside),
    added to the (projected) input, then ReLU. Parameters as :class:`BasicBlockV1`."""

    def __init__(self, channels: int, stride: int, downsample: bool = False,
                 in_channels: int = 0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.body = nn.HybridSequential(prefix="")
        self.body.add(nn.Conv2D(channels // 4, kernel_size=1, strides=stride),
                      nn.BatchNorm(), nn.Activation("relu"),
                      _conv3x3(channels // 4, 1, channels // 4), nn.BatchNorm(),
                      nn.Activation("relu"), nn.Conv2D(channels, kernel_size=1, strides=1),
                      nn.BatchNorm())
        self.downsample = _projection(channels, stride, in_channels, True) \
            if downsample else None

    def hybrid_forward(self, F, x):
        residual = self.downsample(x) if self.downsample is not None else x
        return F.Activation(self.body(x) + residual, act_type="relu")


class BasicBlockV2(HybridBlock):
    """Pre-activation basic block: BN, ReLU, 3x3 conv, BN, ReLU, 3x3 conv, plus the
    shortcut (projected from the activated input when ``downsample``). Parameters as
    :class:`BasicBlockV1`."""

    def __init__(self, channels: int, stride: int, downsample: bool = False,
                 in_channels: int = 0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.bn1 = nn.BatchNorm()
        self.conv1 = _conv3x3(channels, stride, in_channels)
        self.bn2 = nn.BatchNorm()
        self.conv2 = _conv3x3(channels, 1, channels)
        self.downsample = _projection(channels, stride, in_channels, False) \
            if downsample else None

    def hybrid_forward(self, F, x):
        residual = x
        x = F.Activation(self.bn1(x), act_type="relu")
        if self.downsample is not None:
            residual = self.downsample(x)
        x = self.conv1(x)
        x = self.conv2(F.Activation(self.bn2(x), act_type="relu"))
        return x + residual


class BottleneckV2(HybridBlock):
    """Pre-activation bottleneck: (BN, ReLU, conv) for 1x1, 3x3 (stride), 1x1, plus the
    shortcut. Parameters as :class:`BasicBlockV1`."""

    def __init__(self, channels: int, stride: int, downsample: bool = False,
                 in_channels: int = 0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.bn1 = nn.BatchNorm()
        self.conv1 = nn.Conv2D(channels // 4, kernel_size=1, strides=1, use_bias=False)
        self.bn2 = nn.BatchNorm()
        self.conv2 = _conv3x3(channels // 4, stride, channels // 4)
        self.bn3 = nn.BatchNorm()
        self.conv3 = nn.Conv2D(channels, kernel_size=1, strides=1, use_bias=False)
        self.downsample = _projection(channels, stride, in_channels, False) \
            if downsample else None

    def hybrid_forward(self, F, x):
        residual = x
        x = F.Activation(self.bn1(x), act_type="relu")
        if self.downsample is not None:
            residual = self.downsample(x)
        x = self.conv1(x)
        x = self.conv2(F.Activation(self.bn2(x), act_type="relu"))
        x = self.conv3(F.Activation(self.bn3(x), act_type="relu"))
        return x + residual


def _make_stage(block, num_blocks, channels, stride, stage_index, in_channels):
    stage = nn.HybridSequential(prefix=f"stage{stage_index}_")
    with stage.name_scope():
        stage.add(block(channels, stride, channels != in_channels, in_channels=in_channels,
                        prefix=""))
        for _ in range(num_blocks - 1):
            stage.add(block(channels, 1, False, in_channels=channels, prefix=""))
    return stage


def _check_spec(layers, channels):
    if len(layers) != len(channels) - 1:
        raise StateError(f"ResNet: channels must have one entry more than layers "
                                f"(got {len(layers)} layers, {len(channels)} channels)")


class ResNetV1(HybridBlock):
    """ResNet V1 ("Deep Residual Learning for Image Recognition").

    Parameters
    ----------
    block : type
        :class:`BasicBlockV1` or :class:`BottleneckV1`.
    layers : list of int
        Blocks per stage.
    channels : list of int
        Channels of the stem, then of each stage (one more entry than ``layers``).
    classes : int, default 1000
        Outputs of the final Dense layer.
    thumbnail : bool, default False
        A single 3x3 convolution as the stem (for small images such as CIFAR).
    """

    def __init__(self, block: Type[HybridBlock], layers: List[int], channels: List[int],
                 classes: int = 1000,
                 thumbnail: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        _check_spec(layers, channels)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            if thumbnail:
                self.features.add(_conv3x3(channels[0], 1, 0))
            else:
                self.features.add(nn.Conv2D(channels[0], 7, 2, 3, use_bias=False),
                                  nn.BatchNorm(), nn.Activation("relu"),
                                  nn.MaxPool2D(3, 2, 1))
            for i, num in enumerate(layers):
                self.features.add(_make_stage(block, num, channels[i + 1], 1 if i == 0 else 2,
                                              i + 1, channels[i]))
            self.features.add(nn.GlobalAvgPool2D())
            self.output = nn.Dense(classes, in_units=channels[-1])

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


class ResNetV2(HybridBlock):
    """ResNet V2 ("Identity Mappings in Deep Residual Networks"): pre-activation blocks,
    an input BatchNorm without scale and shift, and BN + ReLU before pooling.
    Parameters as :class:`ResNetV1` (with :class:`BasicBlockV2` or
    :class:`BottleneckV2`)."""

    def __init__(self, block: Type[HybridBlock], layers: List[int], channels: List[int],
                 classes: int = 1000,
                 thumbnail: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        _check_spec(layers, channels)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            self.features.add(nn.BatchNorm(scale=False, center=False))
            if thumbnail:
                self.features.add(_conv3x3(channels[0], 1, 0))
            else:
                self.features.add(nn.Conv2D(channels[0], 7, 2, 3, use_bias=False),
                                  nn.BatchNorm(), nn.Activation("relu"),
                                  nn.MaxPool2D(3, 2, 1))
            in_channels = channels[0]
            for i, num in enumerate(layers):
                self.features.add(_make_stage(block, num, channels[i + 1], 1 if i == 0 else 2,
                                              i + 1, in_channels))
                in_channels = channels[i + 1]
            self.features.add(nn.BatchNorm(), nn.Activation("relu"), nn.GlobalAvgPool2D(),
                              nn.Flatten())
            self.output = nn.Dense(classes, in_units=in_channels)

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


resnet_spec = {18: ("basic_block", [2, 2, 2, 2], [64, 64, 128, 256, 512]),
               34: ("basic_block", [3, 4, 6, 3], [64, 64, 128, 256, 512]),
               50: ("bottle_neck", [3, 4, 6, 3], [64, 256, 512, 1024, 2048]),
               101: ("bottle_neck", [3, 4, 23, 3], [64, 256, 512, 1024, 2048]),
               152: ("bottle_neck", [3, 8, 36, 3], [64, 256, 512, 1024, 2048])}

resnet_net_versions = [ResNetV1, ResNetV2]
resnet_block_versions = [{"basic_block": BasicBlockV1, "bottle_neck": BottleneckV1},
                         {"basic_block": BasicBlockV2, "bottle_neck": BottleneckV2}]


def get_resnet(version: int, num_layers: int, pretrained: bool = False,
               ctx: Optional[Context] = None, root: Optional[str] = None, **kwargs: Any
               ) -> HybridBlock:
    """ResNet V``version`` with ``num_layers`` layers (18, 34, 50, 101, 152).

    Parameters
    ----------
    version : int
        1 or 2.
    num_layers : int
        18, 34, 50, 101 or 152.
    pretrained : bool, default False
        Load ``resnet{num_layers}_v{version}-{hash}.params`` from ``root``.
    ctx : Context, optional
        Where to load the pretrained parameters.
    root : str, optional
        Model store folder, default ``$MXNET_HOME/models`` (``~/.mxnet/models``).
    **kwargs
        ``classes``, ``thumbnail``, ``prefix``, ``params``.

    Examples
    --------
    >>> net = get_resnet(2, 18, classes=10)
    >>> type(net).__name__, net.output._units
    ('ResNetV2', 10)
    """
    if num_layers not in resnet_spec:
        raise UnknownModelError(f"Invalid number of layers: {num_layers}. Options are "
                                f"{sorted(resnet_spec)}")
    if version not in (1, 2):
        raise UnknownModelError(f"Invalid resnet version: {version}. Options are 1 and 2.")
    block_type, layers, channels = resnet_spec[num_layers]
    net = resnet_net_versions[version - 1](resnet_block_versions[version - 1][block_type],
                                           layers, channels, **kwargs)
    if pretrained:
        load_pretrained(net, f"resnet{num_layers}_v{version}", ctx, root)
    return net


def resnet18_v1(**kwargs: Any) -> HybridBlock:
    """ResNet-18 V1 (keyword arguments as :func:`get_resnet`)."""
    return get_resnet(1, 18, **kwargs)


def resnet34_v1(**kwargs: Any) -> HybridBlock:
    """ResNet-34 V1 (keyword arguments as :func:`get_resnet`)."""
    return get_resnet(1, 34, **kwargs)


def resnet50_v1(**kwargs: Any) -> HybridBlock:
    """ResNet-50 V1 (keyword arguments as :func:`get_resnet`)."""
    return get_resnet(1, 50, **kwargs)


def resnet101_v1(**kwargs: Any) -> HybridBlock:
    """ResNet-101 V1 (keyword arguments as :func:`get_resnet`)."""
    return get_resnet(1, 101, **kwargs)


def resnet152_v1(**kwargs: Any) -> HybridBlock:
    """ResNet-152 V1 (keyword arguments as :func:`get_resnet`)."""
    return get_resnet(1, 152, **kwargs)


def resnet18_v2(**kwargs: Any) -> HybridBlock:
    """ResNet-18 V2 (keyword arguments as :func:`get_resnet`)."""
    return get_resnet(2, 18, **kwargs)


def resnet34_v2(**kwargs: Any) -> HybridBlock:
    """ResNet-34 V2 (keyword arguments as :func:`get_resnet`)."""
    return get_resnet(2, 34, **kwargs)


def resnet50_v2(**kwargs: Any) -> HybridBlock:
    """ResNet-50 V2 (keyword arguments as :func:`get_resnet`)."""
    return get_resnet(2, 50, **kwargs)


def resnet101_v2(**kwargs: Any) -> HybridBlock:
    """ResNet-101 V2 (keyword arguments as :func:`get_resnet`)."""
    return get_resnet(2, 101, **kwargs)


def resnet152_v2(**kwargs: Any) -> HybridBlock:
    """ResNet-152 V2 (keyword arguments as :func:`get_resnet`)."""
    return get_resnet(2, 152, **kwargs)

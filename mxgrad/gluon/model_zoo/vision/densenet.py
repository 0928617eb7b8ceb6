"""DenseNet-BC 121/161/169/201 ("Densely Connected Convolutional Networks"), as in
MXNet 1.x's model zoo (``densenet0_conv0_weight``,
``densenet0_stage1_batchnorm0_gamma``...; ``features.4.0.1.0.gamma``...).

Examples
--------
>>> import mxgrad as mx
>>> net = DenseNet(8, 4, [2, 2], classes=3); net.initialize()
>>> net(mx.nd.ones((1, 3, 112, 112))).shape
(1, 3)
"""
from __future__ import annotations

from typing import Optional

from ...block import HybridBlock
from ... import nn
from ...contrib.nn import HybridConcurrent, Identity
from ..model_store import load_pretrained, UnknownModelError

__all__ = ["DenseNet", "densenet121", "densenet161", "densenet169", "densenet201",
           "get_densenet"]


def _make_dense_layer(growth_rate, bn_size, dropout):
    new_features = nn.HybridSequential(prefix="")
    new_features.add(nn.BatchNorm(), nn.Activation("relu"),
                     nn.Conv2D(bn_size * growth_rate, kernel_size=1, use_bias=False),
                     nn.BatchNorm(), nn.Activation("relu"),
                     nn.Conv2D(growth_rate, kernel_size=3, padding=1, use_bias=False))
    if dropout:
        new_features.add(nn.Dropout(dropout))
    out = HybridConcurrent(axis=1, prefix="")
    out.add(Identity(), new_features)
    return out


def _make_dense_block(num_layers, bn_size, growth_rate, dropout, stage_index):
    out = nn.HybridSequential(prefix=f"stage{stage_index}_")
    with out.name_scope():
        for _ in range(num_layers):
            out.add(_make_dense_layer(growth_rate, bn_size, dropout))
    return out


def _make_transition(num_output_features):
    out = nn.HybridSequential(prefix="")
    out.add(nn.BatchNorm(), nn.Activation("relu"),
            nn.Conv2D(num_output_features, kernel_size=1, use_bias=False),
            nn.AvgPool2D(pool_size=2, strides=2))
    return out


class DenseNet(HybridBlock):
    """DenseNet-BC. The last pooling is a 7x7 average, so the features must be 7x7
    there: 224x224 inputs (32 times 7) for the published configurations.

    Parameters
    ----------
    num_init_features : int
        Channels of the first convolution.
    growth_rate : int
        Channels each dense layer adds (``k``).
    block_config : list of int
        Dense layers in each block.
    bn_size : int, default 4
        Bottleneck width factor (``bn_size * k`` channels).
    dropout : float, default 0
        Dropout rate after each dense layer.
    classes : int, default 1000
        Outputs of the final Dense layer.
    """

    def __init__(self, num_init_features: int, growth_rate: int, block_config,
                 bn_size: int = 4, dropout: float = 0, classes: int = 1000, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            self.features.add(nn.Conv2D(num_init_features, kernel_size=7, strides=2,
                                        padding=3, use_bias=False),
                              nn.BatchNorm(), nn.Activation("relu"),
                              nn.MaxPool2D(pool_size=3, strides=2, padding=1))
            num_features = num_init_features
            for i, num_layers in enumerate(block_config):
                self.features.add(_make_dense_block(num_layers, bn_size, growth_rate,
                                                    dropout, i + 1))
                num_features += num_layers * growth_rate
                if i != len(block_config) - 1:
                    self.features.add(_make_transition(num_features // 2))
                    num_features //= 2
            self.features.add(nn.BatchNorm(), nn.Activation("relu"),
                              nn.AvgPool2D(pool_size=7), nn.Flatten())
            self.output = nn.Dense(classes)

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


densenet_spec = {121: (64, 32, [6, 12, 24, 16]),
                 161: (96, 48, [6, 12, 36, 24]),
                 169: (64, 32, [6, 12, 32, 32]),
                 201: (64, 32, [6, 12, 48, 32])}


def get_densenet(num_layers: int, pretrained: bool = False, ctx=None,
                 root: Optional[str] = None, **kwargs) -> DenseNet:
    """DenseNet-BC with ``num_layers`` (121, 161, 169, 201) layers; ``pretrained=True``
    loads ``densenet{n}-{hash}.params`` from ``root`` (default ``$MXNET_HOME/models``).

    Examples
    --------
    >>> get_densenet(121).output._units
    1000
    """
    if num_layers not in densenet_spec:
        raise UnknownModelError(f"Invalid number of layers: {num_layers}. Options are "
                                f"{sorted(densenet_spec)}")
    num_init_features, growth_rate, block_config = densenet_spec[num_layers]
    net = DenseNet(num_init_features, growth_rate, block_config, **kwargs)
    if pretrained:
        load_pretrained(net, f"densenet{num_layers}", ctx, root)
    return net


def densenet121(**kwargs) -> DenseNet:
    """DenseNet-BC 121 (keyword arguments as :func:`get_densenet`)."""
    return get_densenet(121, **kwargs)


def densenet161(**kwargs) -> DenseNet:
    """DenseNet-BC 161 (keyword arguments as :func:`get_densenet`)."""
    return get_densenet(161, **kwargs)


def densenet169(**kwargs) -> DenseNet:
    """DenseNet-BC 169 (keyword arguments as :func:`get_densenet`)."""
    return get_densenet(169, **kwargs)


def densenet201(**kwargs) -> DenseNet:
    """DenseNet-BC 201 (keyword arguments as :func:`get_densenet`)."""
    return get_densenet(201, **kwargs)

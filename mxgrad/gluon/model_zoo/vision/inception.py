"""Inception v3 ("Rethinking the Inception Architecture for Computer Vision"), as in
MXNet 1.x's model zoo (``inception30_conv0_weight``, ``inception30_A1_conv0_weight``...;
``features.7.0.0.0.weight``...). It expects 299x299 inputs (the last pooling is 8x8).

Examples
--------
>>> net = inception_v3(classes=10)
>>> net.features[7].prefix[len(net.prefix):]
'A1_'
"""
from __future__ import annotations

from typing import Any, Optional

from ...block import HybridBlock
from ... import nn
from ...contrib.nn import HybridConcurrent
from ..model_store import load_pretrained
from ....context import Context

__all__ = ["Inception3", "inception_v3"]

_SETTING_NAMES = ("channels", "kernel_size", "strides", "padding")


def _make_basic_conv(**kwargs):
    out = nn.HybridSequential(prefix="")
    out.add(nn.Conv2D(use_bias=False, **kwargs), nn.BatchNorm(epsilon=0.001),
            nn.Activation("relu"))
    return out


def _make_branch(use_pool, *conv_settings):
    """An optional pooling, then one basic convolution per ``(channels, kernel_size,
    strides, padding)`` setting (``None`` entries keep the Conv2D default)."""
    out = nn.HybridSequential(prefix="")
    if use_pool == "avg":
        out.add(nn.AvgPool2D(pool_size=3, strides=1, padding=1))
    elif use_pool == "max":
        out.add(nn.MaxPool2D(pool_size=3, strides=2))
    for setting in conv_settings:
        kwargs = {k: v for k, v in zip(_SETTING_NAMES, setting) if v is not None}
        out.add(_make_basic_conv(**kwargs))
    return out


def _concurrent(prefix, *branches):
    """A HybridConcurrent over ``branches`` (callables creating the branches inside its
    name scope, in order)."""
    out = HybridConcurrent(axis=1, prefix=prefix)
    with out.name_scope():
        for make in branches:
            out.add(make())
    return out


def _make_A(pool_features, prefix):
    return _concurrent(
        prefix,
        lambda: _make_branch(None, (64, 1, None, None)),
        lambda: _make_branch(None, (48, 1, None, None), (64, 5, None, 2)),
        lambda: _make_branch(None, (64, 1, None, None), (96, 3, None, 1), (96, 3, None, 1)),
        lambda: _make_branch("avg", (pool_features, 1, None, None)))


def _make_B(prefix):
    return _concurrent(
        prefix,
        lambda: _make_branch(None, (384, 3, 2, None)),
        lambda: _make_branch(None, (64, 1, None, None), (96, 3, None, 1), (96, 3, 2, None)),
        lambda: _make_branch("max"))


def _make_C(channels_7x7, prefix):
    c = channels_7x7
    return _concurrent(
        prefix,
        lambda: _make_branch(None, (192, 1, None, None)),
        lambda: _make_branch(None, (c, 1, None, None), (c, (1, 7), None, (0, 3)),
                             (192, (7, 1), None, (3, 0))),
        lambda: _make_branch(None, (c, 1, None, None), (c, (7, 1), None, (3, 0)),
                             (c, (1, 7), None, (0, 3)), (c, (7, 1), None, (3, 0)),
                             (192, (1, 7), None, (0, 3))),
        lambda: _make_branch("avg", (192, 1, None, None)))


def _make_D(prefix):
    return _concurrent(
        prefix,
        lambda: _make_branch(None, (192, 1, None, None), (320, 3, 2, None)),
        lambda: _make_branch(None, (192, 1, None, None), (192, (1, 7), None, (0, 3)),
                             (192, (7, 1), None, (3, 0)), (192, 3, 2, None)),
        lambda: _make_branch("max"))


def _split_3x3(first):
    """A branch: ``first``, then a concatenation of a 1x3 and a 3x1 convolution."""
    seq = nn.HybridSequential(prefix="")
    seq.add(first())
    split = HybridConcurrent(axis=1, prefix="")
    seq.add(split)
    split.add(_make_branch(None, (384, (1, 3), None, (0, 1))))
    split.add(_make_branch(None, (384, (3, 1), None, (1, 0))))
    return seq


def _make_E(prefix):
    return _concurrent(
        prefix,
        lambda: _make_branch(None, (320, 1, None, None)),
        lambda: _split_3x3(lambda: _make_branch(None, (384, 1, None, None))),
        lambda: _split_3x3(lambda: _make_branch(None, (448, 1, None, None),
                                                (384, 3, None, 1))),
        lambda: _make_branch("avg", (192, 1, None, None)))


class Inception3(HybridBlock):
    """Inception v3 (without the auxiliary classifier, as in MXNet's zoo).

    Parameters
    ----------
    classes : int, default 1000
        Outputs of the final Dense layer.
    """

    def __init__(self, classes: int = 1000, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            f = self.features
            f.add(_make_basic_conv(channels=32, kernel_size=3, strides=2))
            f.add(_make_basic_conv(channels=32, kernel_size=3))
            f.add(_make_basic_conv(channels=64, kernel_size=3, padding=1))
            f.add(nn.MaxPool2D(pool_size=3, strides=2))
            f.add(_make_basic_conv(channels=80, kernel_size=1))
            f.add(_make_basic_conv(channels=192, kernel_size=3))
            f.add(nn.MaxPool2D(pool_size=3, strides=2))
            f.add(_make_A(32, "A1_"), _make_A(64, "A2_"), _make_A(64, "A3_"))
            f.add(_make_B("B_"))
            f.add(_make_C(128, "C1_"), _make_C(160, "C2_"), _make_C(160, "C3_"),
                  _make_C(192, "C4_"))
            f.add(_make_D("D_"))
            f.add(_make_E("E1_"), _make_E("E2_"))
            f.add(nn.AvgPool2D(pool_size=8), nn.Dropout(0.5))
            self.output = nn.Dense(classes)

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


def inception_v3(pretrained: bool = False, ctx: Optional[Context] = None,
                 root: Optional[str] = None, **kwargs: Any) -> Inception3:
    """Inception v3; ``pretrained=True`` loads ``inceptionv3-ed47ec45.params`` from
    ``root`` (default ``$MXNET_HOME/models``). Other keywords go to :class:`Inception3`.
    """
    net = Inception3(**kwargs)
    if pretrained:
        load_pretrained(net, "inceptionv3", ctx, root)
    return net

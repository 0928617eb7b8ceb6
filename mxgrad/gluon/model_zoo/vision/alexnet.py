"""AlexNet ("One weird trick for parallelizing convolutional neural networks"), as in
MXNet 1.x's model zoo (``alexnet0_conv0_weight``..., ``features.0.weight``...).

Examples
--------
>>> import mxgrad as mx
>>> net = alexnet(classes=4); net.initialize()
>>> net(mx.nd.ones((1, 3, 64, 64))).shape
(1, 4)
"""
from __future__ import annotations

from typing import Optional

from ...block import HybridBlock
from ... import nn
from ..model_store import load_pretrained

__all__ = ["AlexNet", "alexnet"]


class AlexNet(HybridBlock):
    """AlexNet: five convolutions, three max-poolings and two Dense(4096) layers with
    dropout (224x224 inputs give the published shapes; at least 63x63 works).

    Parameters
    ----------
    classes : int, default 1000
        Outputs of the final Dense layer.
    """

    def __init__(self, classes: int = 1000, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            with self.features.name_scope():
                self.features.add(
                    nn.Conv2D(64, kernel_size=11, strides=4, padding=2, activation="relu"),
                    nn.MaxPool2D(pool_size=3, strides=2),
                    nn.Conv2D(192, kernel_size=5, padding=2, activation="relu"),
                    nn.MaxPool2D(pool_size=3, strides=2),
                    nn.Conv2D(384, kernel_size=3, padding=1, activation="relu"),
                    nn.Conv2D(256, kernel_size=3, padding=1, activation="relu"),
                    nn.Conv2D(256, kernel_size=3, padding=1, activation="relu"),
                    nn.MaxPool2D(pool_size=3, strides=2),
                    nn.Flatten(),
                    nn.Dense(4096, activation="relu"), nn.Dropout(0.5),
                    nn.Dense(4096, activation="relu"), nn.Dropout(0.5))
            self.output = nn.Dense(classes)

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


def alexnet(pretrained: bool = False, ctx=None, root: Optional[str] = None,
            **kwargs) -> AlexNet:
    """AlexNet; ``pretrained=True`` loads ``alexnet-44335d1f.params`` from ``root``
    (default ``$MXNET_HOME/models``). Other keywords go to :class:`AlexNet`."""
    net = AlexNet(**kwargs)
    if pretrained:
        load_pretrained(net, "alexnet", ctx, root)
    return net

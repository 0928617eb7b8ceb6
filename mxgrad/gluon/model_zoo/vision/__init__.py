"""``gluon.model_zoo.vision``: MXNet 1.x's predefined image classification models.

AlexNet, DenseNet-BC (121/161/169/201), Inception v3, ResNet V1/V2 (18/34/50/101/152),
SqueezeNet 1.0/1.1, VGG 11/13/16/19 (with or without BatchNorm), MobileNet and
MobileNetV2 (widths 1.0/0.75/0.5/0.25). Block and parameter names are MXNet's, so a
``.params`` file saved by MXNet's model loads with ``load_parameters``.

``pretrained=True`` loads MXNet's published file ``{name}-{hash}.params`` from ``root``
(default ``$MXNET_HOME/models``, ``~/.mxnet/models``); mxgrad does not download, and a
missing file raises :class:`~mxgrad.gluon.model_zoo.model_store.ModelFileNotFoundError`
naming the file and the folder to put it in.

Pretrained models expect RGB images in [0, 1] normalized with mean
``[0.485, 0.456, 0.406]`` and std ``[0.229, 0.224, 0.225]``, at least 224x224
(299x299 for Inception v3).

Examples
--------
>>> import mxgrad as mx
>>> from mxgrad.gluon.model_zoo import vision
>>> net = vision.get_model('mobilenetv2_0.25', classes=10)
>>> net.initialize()
>>> net(mx.nd.ones((1, 3, 32, 32))).shape
(1, 10)
"""
from __future__ import annotations

from typing import Any

# the modules first: the star import below rebinds the name alexnet to the function
from . import alexnet as _alexnet, densenet as _densenet, inception as _inception
from . import resnet as _resnet, squeezenet as _squeezenet, vgg as _vgg
from . import mobilenet as _mobilenet
from .alexnet import *  # noqa: F401,F403
from .densenet import *  # noqa: F401,F403
from .inception import *  # noqa: F401,F403
from .resnet import *  # noqa: F401,F403
from .squeezenet import *  # noqa: F401,F403
from .vgg import *  # noqa: F401,F403
from .mobilenet import *  # noqa: F401,F403
from ..model_store import UnknownModelError
from ....base import DTypeError
from ...block import HybridBlock

_models = {
    "resnet18_v1": resnet18_v1, "resnet34_v1": resnet34_v1,  # noqa: F405
    "resnet50_v1": resnet50_v1, "resnet101_v1": resnet101_v1,  # noqa: F405
    "resnet152_v1": resnet152_v1, "resnet18_v2": resnet18_v2,  # noqa: F405
    "resnet34_v2": resnet34_v2, "resnet50_v2": resnet50_v2,  # noqa: F405
    "resnet101_v2": resnet101_v2, "resnet152_v2": resnet152_v2,  # noqa: F405
    "vgg11": vgg11, "vgg13": vgg13, "vgg16": vgg16, "vgg19": vgg19,  # noqa: F405
    "vgg11_bn": vgg11_bn, "vgg13_bn": vgg13_bn,  # noqa: F405
    "vgg16_bn": vgg16_bn, "vgg19_bn": vgg19_bn,  # noqa: F405
    "alexnet": alexnet,  # noqa: F405
    "densenet121": densenet121, "densenet161": densenet161,  # noqa: F405
    "densenet169": densenet169, "densenet201": densenet201,  # noqa: F405
    "squeezenet1.0": squeezenet1_0, "squeezenet1.1": squeezenet1_1,  # noqa: F405
    "inceptionv3": inception_v3,  # noqa: F405
    "mobilenet1.0": mobilenet1_0, "mobilenet0.75": mobilenet0_75,  # noqa: F405
    "mobilenet0.5": mobilenet0_5, "mobilenet0.25": mobilenet0_25,  # noqa: F405
    "mobilenetv2_1.0": mobilenet_v2_1_0, "mobilenetv2_0.75": mobilenet_v2_0_75,  # noqa: F405
    "mobilenetv2_0.5": mobilenet_v2_0_5, "mobilenetv2_0.25": mobilenet_v2_0_25,  # noqa: F405
}


def get_model(name: str, **kwargs: Any) -> HybridBlock:
    """A model of the zoo by name.

    Parameters
    ----------
    name : str
        One of :func:`model_names` (case-insensitive): ``'resnet18_v1'``,
        ``'mobilenet1.0'``, ``'mobilenetv2_0.25'``, ``'squeezenet1.1'``,
        ``'densenet121'``, ``'inceptionv3'``, ``'vgg11_bn'``, ``'alexnet'``...
    pretrained : bool, default False
        Load MXNet's pretrained parameters from ``root``.
    classes : int, default 1000
        Outputs of the classifier.
    ctx : Context, optional
        Where to load the pretrained parameters.
    root : str, optional
        Model store folder, default ``$MXNET_HOME/models`` (``~/.mxnet/models``).

    Returns
    -------
    HybridBlock
        The model (not initialized unless ``pretrained``).

    Examples
    --------
    >>> net = get_model('ResNet18_v1', classes=10)
    >>> net.output._units
    10
    """
    if not isinstance(name, str):
        raise DTypeError(f"get_model: name must be a model name (str) such as "
                         f"'resnet18_v1', got {type(name).__name__} {name!r}; see "
                         f"model_names()")
    key = name.lower()
    if key not in _models:
        raise UnknownModelError(f"Model {name!r} is not supported. Available options are\n\t"
                                + "\n\t".join(sorted(_models)))
    return _models[key](**kwargs)


def model_names() -> list:
    """The names :func:`get_model` accepts, sorted.

    Examples
    --------
    >>> len(model_names()), model_names()[0]
    (34, 'alexnet')
    """
    return sorted(_models)


__all__ = (["get_model", "model_names"] + _alexnet.__all__ + _densenet.__all__
           + _inception.__all__ + _resnet.__all__ + _squeezenet.__all__ + _vgg.__all__
           + _mobilenet.__all__)

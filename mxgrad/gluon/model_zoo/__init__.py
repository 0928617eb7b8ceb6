"""``gluon.model_zoo``: MXNet 1.x's predefined vision models (:mod:`.vision`) and the
local store of their pretrained parameter files (:mod:`.model_store`).

Examples
--------
>>> from mxgrad.gluon.model_zoo import vision
>>> net = vision.get_model('resnet18_v1', classes=10)
>>> net.name.startswith('resnetv1')
True
"""
from . import model_store
from . import vision

__all__ = ["model_store", "vision"]

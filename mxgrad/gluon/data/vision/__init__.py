"""``gluon.data.vision``: image datasets and transforms.

Examples
--------
>>> from mxgrad.gluon.data import vision
>>> img, label = vision.Digits(train=False)[0]
>>> vision.transforms.ToTensor()(img).shape
(1, 8, 8)
"""
from .datasets import MNIST, FashionMNIST, CIFAR10, CIFAR100, Digits
from .image_datasets import ImageFolderDataset, ImageRecordDataset
from . import transforms

__all__ = ["MNIST", "FashionMNIST", "CIFAR10", "CIFAR100", "Digits", "transforms",
           "ImageFolderDataset", "ImageRecordDataset"]

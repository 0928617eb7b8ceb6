"""Image augmenters of ``mx.image`` (MXNet 1.9 API): callables ``aug(src) -> src`` on
``(h, w, c)`` images, and :func:`CreateAugmenter`, MXNet's standard list of them. Random
choices use Python's ``random`` and ``np.random`` exactly where MXNet does.

Examples
--------
>>> import mxgrad as mx
>>> augs = CreateAugmenter((3, 4, 4), rand_mirror=True)
>>> x = mx.nd.zeros((6, 8, 3), dtype='uint8')
>>> for aug in augs:
...     x = aug(x)
>>> x.shape, x.dtype
((4, 4, 3), <class 'numpy.float32'>)
"""
from __future__ import annotations

import json
import random
import warnings
from typing import List, Tuple

import numpy as np

from ..base import StateError
from .. import ndarray as nd
from ..ndarray import NDArray
from .image import (center_crop, color_normalize, imresize, random_crop, random_size_crop,
                    resize_short, _get_interp_method)

__all__ = ["Augmenter", "SequentialAug", "ResizeAug", "ForceResizeAug", "RandomCropAug",
           "RandomSizedCropAug", "CenterCropAug", "RandomOrderAug", "BrightnessJitterAug",
           "ContrastJitterAug", "SaturationJitterAug", "HueJitterAug", "ColorJitterAug",
           "LightingAug", "ColorNormalizeAug", "RandomGrayAug", "HorizontalFlipAug", "CastAug",
           "CreateAugmenter"]


class Augmenter:
    """Base of the image augmenters: ``aug(src)`` returns the augmented image; ``dumps()``
    describes it as JSON."""

    def __init__(self, **kwargs):
        self._kwargs = kwargs
        for k, v in self._kwargs.items():
            if isinstance(v, NDArray):
                v = v.asnumpy()
            if isinstance(v, np.ndarray):
                self._kwargs[k] = v.tolist()

    def dumps(self) -> str:
        """``'["name", {kwargs}]'`` as JSON.

        Examples
        --------
        >>> ResizeAug(224).dumps()
        '["resizeaug", {"size": 224, "interp": 2}]'
        """
        return json.dumps([self.__class__.__name__.lower(), self._kwargs])

    def __call__(self, src):
        raise NotImplementedError("Must override implementation.")


class SequentialAug(Augmenter):
    """Apply the augmenters ``ts`` in order."""

    def __init__(self, ts: List[Augmenter]):
        super().__init__()
        self.ts = ts

    def dumps(self):
        return [self.__class__.__name__.lower(), [x.dumps() for x in self.ts]]

    def __call__(self, src):
        for aug in self.ts:
            src = aug(src)
        return src


class ResizeAug(Augmenter):
    """Resize the shorter side to ``size`` (:func:`resize_short`)."""

    def __init__(self, size: int, interp: int = 2):
        super().__init__(size=size, interp=interp)
        self.size = size
        self.interp = interp

    def __call__(self, src):
        return resize_short(src, self.size, self.interp)


class ForceResizeAug(Augmenter):
    """Resize to exactly ``size`` (w, h)."""

    def __init__(self, size: Tuple[int, int], interp: int = 2):
        super().__init__(size=size, interp=interp)
        self.size = size
        self.interp = interp

    def __call__(self, src):
        sizes = (src.shape[0], src.shape[1], self.size[1], self.size[0])
        return imresize(src, *self.size, interp=_get_interp_method(self.interp, sizes))


class RandomCropAug(Augmenter):
    """:func:`random_crop` to ``size`` (w, h)."""

    def __init__(self, size: Tuple[int, int], interp: int = 2):
        super().__init__(size=size, interp=interp)
        self.size = size
        self.interp = interp

    def __call__(self, src):
        return random_crop(src, self.size, self.interp)[0]


class RandomSizedCropAug(Augmenter):
    """:func:`random_size_crop` to ``size`` (w, h)."""

    def __init__(self, size, area, ratio, interp: int = 2, **kwargs):
        super().__init__(size=size, area=area, ratio=ratio, interp=interp)
        self.size = size
        if "min_area" in kwargs:
            warnings.warn("`min_area` is deprecated. Please use `area` instead.",
                          DeprecationWarning)
            self.area = kwargs.pop("min_area")
        else:
            self.area = area
        self.ratio = ratio
        self.interp = interp
        if kwargs:
            raise StateError(f"RandomSizedCropAug: unexpected keyword arguments {sorted(kwargs)}")

    def __call__(self, src):
        return random_size_crop(src, self.size, self.area, self.ratio, self.interp)[0]


class CenterCropAug(Augmenter):
    """:func:`center_crop` to ``size`` (w, h)."""

    def __init__(self, size: Tuple[int, int], interp: int = 2):
        super().__init__(size=size, interp=interp)
        self.size = size
        self.interp = interp

    def __call__(self, src):
        return center_crop(src, self.size, self.interp)[0]


class RandomOrderAug(Augmenter):
    """Apply the augmenters ``ts`` in a random order (``random.shuffle``)."""

    def __init__(self, ts: List[Augmenter]):
        super().__init__()
        self.ts = ts

    def dumps(self):
        return [self.__class__.__name__.lower(), [x.dumps() for x in self.ts]]

    def __call__(self, src):
        random.shuffle(self.ts)
        for t in self.ts:
            src = t(src)
        return src


class BrightnessJitterAug(Augmenter):
    """Multiply by ``1 + U(-brightness, brightness)`` (float images, in place)."""

    def __init__(self, brightness: float):
        super().__init__(brightness=brightness)
        self.brightness = brightness

    def __call__(self, src):
        alpha = 1.0 + random.uniform(-self.brightness, self.brightness)
        src *= alpha
        return src


_GRAY_COEF = (0.299, 0.587, 0.114)


class ContrastJitterAug(Augmenter):
    """Blend with the mean gray level: ``alpha*src + (1-alpha)*mean_gray``,
    ``alpha = 1 + U(-contrast, contrast)``."""

    def __init__(self, contrast: float):
        super().__init__(contrast=contrast)
        self.contrast = contrast
        self.coef = nd.array([[list(_GRAY_COEF)]])

    def __call__(self, src):
        alpha = 1.0 + random.uniform(-self.contrast, self.contrast)
        gray = src * self.coef
        gray = (3.0 * (1.0 - alpha) / gray.size) * nd.sum(gray)
        src *= alpha
        src += gray
        return src


class SaturationJitterAug(Augmenter):
    """Blend each pixel with its gray level: ``alpha*src + (1-alpha)*gray``."""

    def __init__(self, saturation: float):
        super().__init__(saturation=saturation)
        self.saturation = saturation
        self.coef = nd.array([[list(_GRAY_COEF)]])

    def __call__(self, src):
        alpha = 1.0 + random.uniform(-self.saturation, self.saturation)
        gray = src * self.coef
        gray = nd.sum(gray, axis=2, keepdims=True)
        gray *= (1.0 - alpha)
        src *= alpha
        src += gray
        return src


class HueJitterAug(Augmenter):
    """Rotate the hue by ``U(-hue, hue) * 180`` degrees in YIQ space."""

    def __init__(self, hue: float):
        super().__init__(hue=hue)
        self.hue = hue
        self.tyiq = np.array([[0.299, 0.587, 0.114],
                              [0.596, -0.274, -0.321],
                              [0.211, -0.523, 0.311]])
        self.ityiq = np.array([[1.0, 0.956, 0.621],
                               [1.0, -0.272, -0.647],
                               [1.0, -1.107, 1.705]])

    def __call__(self, src):
        alpha = random.uniform(-self.hue, self.hue)
        u = np.cos(alpha * np.pi)
        w = np.sin(alpha * np.pi)
        bt = np.array([[1.0, 0.0, 0.0], [0.0, u, -w], [0.0, w, u]])
        t = np.dot(np.dot(self.ityiq, bt), self.tyiq).T
        return nd.dot(src, nd.array(t))


class ColorJitterAug(RandomOrderAug):
    """Brightness, contrast and saturation jitter in random order."""

    def __init__(self, brightness: float, contrast: float, saturation: float):
        ts = []
        if brightness > 0:
            ts.append(BrightnessJitterAug(brightness))
        if contrast > 0:
            ts.append(ContrastJitterAug(contrast))
        if saturation > 0:
            ts.append(SaturationJitterAug(saturation))
        super().__init__(ts)


class LightingAug(Augmenter):
    """AlexNet-style PCA lighting noise: add ``eigvec @ (alpha * eigval)``,
    ``alpha ~ N(0, alphastd)`` (``np.random.normal``)."""

    def __init__(self, alphastd: float, eigval, eigvec):
        super().__init__(alphastd=alphastd, eigval=eigval, eigvec=eigvec)
        self.alphastd = alphastd
        self.eigval = eigval
        self.eigvec = eigvec

    def __call__(self, src):
        alpha = np.random.normal(0, self.alphastd, size=(3,))
        rgb = np.dot(self.eigvec * alpha, self.eigval)
        src += nd.array(rgb)
        return src


class ColorNormalizeAug(Augmenter):
    """:func:`color_normalize` with ``mean`` and ``std``."""

    def __init__(self, mean, std):
        super().__init__(mean=mean, std=std)
        self.mean = mean if mean is None or isinstance(mean, NDArray) else nd.array(mean)
        self.std = std if std is None or isinstance(std, NDArray) else nd.array(std)

    def __call__(self, src):
        return color_normalize(src, self.mean, self.std)


class RandomGrayAug(Augmenter):
    """With probability ``p``, replace the image by its gray level on all channels."""

    def __init__(self, p: float):
        super().__init__(p=p)
        self.p = p
        self.mat = nd.array([[0.21, 0.21, 0.21], [0.72, 0.72, 0.72], [0.07, 0.07, 0.07]])

    def __call__(self, src):
        if random.random() < self.p:
            src = nd.dot(src, self.mat)
        return src


class HorizontalFlipAug(Augmenter):
    """With probability ``p``, flip left-right."""

    def __init__(self, p: float):
        super().__init__(p=p)
        self.p = p

    def __call__(self, src):
        if random.random() < self.p:
            src = nd.flip(src, axis=1)
        return src


class CastAug(Augmenter):
    """Cast to ``typ`` (float32 by default)."""

    def __init__(self, typ: str = "float32"):
        super().__init__(type=typ)
        self.typ = typ

    def __call__(self, src):
        return src.astype(self.typ)


def CreateAugmenter(data_shape, resize: int = 0, rand_crop: bool = False,
                    rand_resize: bool = False, rand_mirror: bool = False, mean=None, std=None,
                    brightness: float = 0, contrast: float = 0, saturation: float = 0,
                    hue: float = 0, pca_noise: float = 0, rand_gray: float = 0,
                    inter_method: int = 2) -> List[Augmenter]:
    """MXNet's standard augmenter list for ``data_shape`` (c, h, w): resize, crop (random,
    random-sized or center), mirror, cast to float32, color jitter, hue, PCA noise, gray,
    normalize (``mean=True``/``std=True`` use ImageNet's values).

    Examples
    --------
    >>> [type(a).__name__ for a in CreateAugmenter((3, 4, 4), resize=6, rand_mirror=True,
    ...                                            mean=True, std=True)]
    ['ResizeAug', 'CenterCropAug', 'HorizontalFlipAug', 'CastAug', 'ColorNormalizeAug']
    """
    auglist: List[Augmenter] = []
    if resize > 0:
        auglist.append(ResizeAug(resize, inter_method))
    crop_size = (data_shape[2], data_shape[1])
    if rand_resize:
        if not rand_crop:
            raise StateError("CreateAugmenter: rand_resize=True needs rand_crop=True")
        auglist.append(RandomSizedCropAug(crop_size, 0.08, (3.0 / 4.0, 4.0 / 3.0), inter_method))
    elif rand_crop:
        auglist.append(RandomCropAug(crop_size, inter_method))
    else:
        auglist.append(CenterCropAug(crop_size, inter_method))
    if rand_mirror:
        auglist.append(HorizontalFlipAug(0.5))
    auglist.append(CastAug())
    if brightness or contrast or saturation:
        auglist.append(ColorJitterAug(brightness, contrast, saturation))
    if hue:
        auglist.append(HueJitterAug(hue))
    if pca_noise > 0:
        eigval = np.array([55.46, 4.794, 1.148])
        eigvec = np.array([[-0.5675, 0.7192, 0.4009],
                           [-0.5808, -0.0045, -0.8140],
                           [-0.5836, -0.6948, 0.4203]])
        auglist.append(LightingAug(pca_noise, eigval, eigvec))
    if rand_gray > 0:
        auglist.append(RandomGrayAug(rand_gray))
    if mean is True:
        mean = nd.array([123.68, 116.28, 103.53])
    elif mean is not None and not (isinstance(mean, (np.ndarray, NDArray))
                                   and mean.shape[0] in (1, 3)):
        raise StateError("CreateAugmenter: mean must be True or an array of 1 or 3 values")
    if std is True:
        std = nd.array([58.395, 57.12, 57.375])
    elif std is not None and not (isinstance(std, (np.ndarray, NDArray))
                                  and std.shape[0] in (1, 3)):
        raise StateError("CreateAugmenter: std must be True or an array of 1 or 3 values")
    if mean is not None or std is not None:
        auglist.append(ColorNormalizeAug(mean, std))
    return auglist

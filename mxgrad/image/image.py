"""``mx.image``: decoding, resizing, cropping, augmenters and ``ImageIter`` (MXNet 1.9 API).

Images are ``uint8`` NDArrays in ``(height, width, channels)`` layout, RGB by default.
Decoding uses Pillow (``pip install mxgrad[image]``); resizing follows OpenCV's sampling
rules (see :mod:`mxgrad.image._resize`). Random choices (crops, flips, jitter) use Python's
``random`` module and ``np.random`` exactly where MXNet does, so seeding both reproduces
MXNet's choices.

Examples
--------
>>> import numpy as np
>>> import mxgrad as mx
>>> img = mx.nd.array(np.arange(48).reshape(4, 4, 3), dtype='uint8')
>>> mx.image.imresize(img, 2, 2, interp=0).shape
(2, 2, 3)
>>> out, (x0, y0, w, h) = mx.image.center_crop(img, (2, 2))
>>> out.shape, (x0, y0, w, h)
((2, 2, 3), (1, 1, 2, 2))
"""
from __future__ import annotations

import json
import logging
import os
import random
import warnings
from numbers import Number
from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

from ..base import DTypeError, MXNetError, ShapeError, StateError, numeric_types
from .. import ndarray as nd
from ..ndarray import NDArray
from .. import io
from .. import recordio
from . import _codec
from ._resize import resize as _np_resize

__all__ = ["imread", "imdecode", "imresize", "scale_down", "copyMakeBorder", "resize_short",
           "fixed_crop", "random_crop", "center_crop", "color_normalize", "random_size_crop",
           "imrotate", "random_rotate",
           "Augmenter", "SequentialAug", "ResizeAug", "ForceResizeAug", "RandomCropAug",
           "RandomSizedCropAug", "CenterCropAug", "RandomOrderAug", "BrightnessJitterAug",
           "ContrastJitterAug", "SaturationJitterAug", "HueJitterAug", "ColorJitterAug",
           "LightingAug", "ColorNormalizeAug", "RandomGrayAug", "HorizontalFlipAug", "CastAug",
           "CreateAugmenter", "ImageIter"]


def _uint8(a: np.ndarray) -> NDArray:
    return nd.array(a, dtype=a.dtype)


def _as_numpy(src) -> np.ndarray:
    return src.asnumpy() if isinstance(src, NDArray) else np.asarray(src)


def _write_out(res: NDArray, out) -> NDArray:
    if out is None:
        return res
    out[:] = res
    return out


def imdecode(buf, flag: int = 1, to_rgb: bool = True, out: Optional[NDArray] = None) -> NDArray:
    """Decode an image (JPEG, PNG, BMP, ... bytes) to a ``uint8`` NDArray ``(h, w, c)``.

    Parameters
    ----------
    buf : bytes, bytearray, numpy.ndarray or NDArray of uint8
        The encoded image.
    flag : int, default 1
        1: three channels; 0: one gray channel (shape ``(h, w, 1)``).
    to_rgb : bool, default True
        RGB channel order (MXNet's default); False gives BGR (OpenCV's).
    out : NDArray, optional
        Where to write the result.

    Examples
    --------
    >>> import io as _io
    >>> from PIL import Image
    >>> f = _io.BytesIO(); Image.new('RGB', (3, 2), (255, 0, 0)).save(f, 'PNG')
    >>> img = imdecode(f.getvalue())
    >>> img.shape, img.dtype, img.asnumpy()[0, 0].tolist()
    ((2, 3, 3), <class 'numpy.uint8'>, [255, 0, 0])
    """
    if isinstance(buf, NDArray):
        buf = buf.asnumpy().astype(np.uint8).tobytes()
    elif isinstance(buf, np.ndarray):
        buf = buf.astype(np.uint8, copy=False).tobytes()
    elif isinstance(buf, (bytes, bytearray, memoryview)):
        buf = bytes(buf)
    else:
        raise DTypeError("imdecode: buf must be bytes, bytearray or numpy.ndarray; a str "
                         "must be converted to bytes first (read the file in 'rb' mode)")
    arr = _codec.decode(buf, flag=1 if flag else 0)
    if not to_rgb and arr.shape[2] == 3:
        arr = np.ascontiguousarray(arr[:, :, ::-1])
    return _write_out(_uint8(arr), out)


def imread(filename: str, flag: int = 1, to_rgb: bool = True,
           out: Optional[NDArray] = None) -> NDArray:
    """Read and decode an image file (see :func:`imdecode`).

    Examples
    --------
    >>> import os, tempfile
    >>> from PIL import Image
    >>> path = os.path.join(tempfile.mkdtemp(), 'x.png')
    >>> Image.new('L', (4, 3), 7).save(path)
    >>> imread(path).shape, imread(path, flag=0).shape
    ((3, 4, 3), (3, 4, 1))
    """
    try:
        with open(filename, "rb") as f:
            buf = f.read()
    except OSError as err:
        raise _ImageFileError(f"imread: cannot read {filename!r}: {err}") from err
    return imdecode(buf, flag=flag, to_rgb=to_rgb, out=out)


class _ImageFileError(MXNetError, FileNotFoundError):
    """An image file that cannot be opened."""


def imresize(src, w: int, h: int, interp: int = 1, out: Optional[NDArray] = None) -> NDArray:
    """Resize image ``src`` ``(h, w, c)`` to width ``w`` and height ``h``.

    ``interp``: 0 nearest, 1 bilinear (default), 2 bicubic, 3 area, 4 Lanczos-4, 9 cubic to
    enlarge / area to shrink / bilinear otherwise, 10 random choice of 0-4. Nearest and
    integer-factor area shrinking match OpenCV (MXNet) exactly; the others within one level.

    Examples
    --------
    >>> import mxgrad as mx
    >>> img = mx.nd.array([[[0], [255]]], dtype='uint8')      # 1 x 2 x 1
    >>> imresize(img, 4, 1, interp=0).asnumpy()[..., 0].tolist()
    [[0, 0, 255, 255]]
    """
    a = _as_numpy(src)
    if a.ndim not in (2, 3):
        raise ShapeError(f"imresize: src must be (height, width, channels), got shape {a.shape}")
    w, h = int(w), int(h)
    if w <= 0 or h <= 0:
        raise StateError(f"imresize: w and h must be positive, got w={w}, h={h}")
    interp = _get_interp_method(interp, (a.shape[0], a.shape[1], h, w))
    res = _np_resize(a, w, h, interp)
    return _write_out(nd.array(res, dtype=res.dtype), out)


def scale_down(src_size: Tuple[int, int], size: Tuple[int, int]) -> Tuple[int, int]:
    """Shrink ``size`` (w, h) to fit in ``src_size`` (w, h), keeping its aspect ratio.

    Examples
    --------
    >>> scale_down((640, 480), (720, 120))
    (640, 106)
    """
    w, h = size
    sw, sh = src_size
    if sh < h:
        w, h = float(w * sh) / h, sh
    if sw < w:
        w, h = sw, float(h * sw) / w
    return int(w), int(h)


def copyMakeBorder(src, top: int, bot: int, left: int, right: int, type: int = 0,
                   value: float = 0.0, values=None, out: Optional[NDArray] = None) -> NDArray:
    """Pad an image with a border (OpenCV border types: 0 constant ``value``/``values``,
    1 replicate, 2 reflect, 3 wrap, 4 reflect-101).

    Examples
    --------
    >>> import mxgrad as mx
    >>> copyMakeBorder(mx.nd.ones((2, 2, 3)), 1, 1, 1, 1, type=0, value=0).shape
    (4, 4, 3)
    """
    a = _as_numpy(src)
    pad = [(top, bot), (left, right)] + [(0, 0)] * (a.ndim - 2)
    if type == 0:
        if values is not None:
            res = np.empty((a.shape[0] + top + bot, a.shape[1] + left + right) + a.shape[2:],
                           a.dtype)
            res[...] = np.asarray(values, dtype=a.dtype)[:a.shape[2] if a.ndim > 2 else 1]
            res[top:top + a.shape[0], left:left + a.shape[1]] = a
        else:
            res = np.pad(a, pad, mode="constant", constant_values=value)
    else:
        modes = {1: "edge", 2: "symmetric", 3: "wrap", 4: "reflect"}
        if type not in modes:
            raise StateError(f"copyMakeBorder: unknown border type {type}; use 0-4")
        res = np.pad(a, pad, mode=modes[type])
    return _write_out(nd.array(res, dtype=res.dtype), out)


def _get_interp_method(interp: int, sizes: Sequence[int] = ()) -> int:
    """Resolve MXNet's interpolation codes 9 (auto) and 10 (random) to 0-4."""
    if interp == 9:
        if sizes:
            if len(sizes) != 4:
                raise StateError("interp 9 needs sizes (old_h, old_w, new_h, new_w)")
            oh, ow, nh, nw = sizes
            if nh > oh and nw > ow:
                return 2
            if nh < oh and nw < ow:
                return 3
            return 1
        return 2
    if interp == 10:
        return random.randint(0, 4)
    if interp not in (0, 1, 2, 3, 4):
        raise StateError(f"Unknown interp method {interp}; use 0-4, 9 or 10")
    return interp


def resize_short(src, size: int, interp: int = 2) -> NDArray:
    """Resize so that the shorter side is ``size``, keeping the aspect ratio.

    Examples
    --------
    >>> import mxgrad as mx
    >>> resize_short(mx.nd.zeros((4, 8, 3), dtype='uint8'), 2).shape
    (2, 4, 3)
    """
    h, w = src.shape[0], src.shape[1]
    if h > w:
        new_h, new_w = size * h // w, size
    else:
        new_h, new_w = size, size * w // h
    return imresize(src, new_w, new_h, interp=_get_interp_method(interp, (h, w, new_h, new_w)))


def fixed_crop(src, x0: int, y0: int, w: int, h: int, size: Optional[Tuple[int, int]] = None,
               interp: int = 2) -> NDArray:
    """Crop ``src`` to ``[y0:y0+h, x0:x0+w]``, then resize to ``size`` (w, h) if given.

    Examples
    --------
    >>> import mxgrad as mx
    >>> fixed_crop(mx.nd.zeros((6, 6, 3)), 1, 2, 3, 2).shape
    (2, 3, 3)
    """
    out = src[y0:y0 + h, x0:x0 + w]
    if size is not None and (w, h) != tuple(size):
        sizes = (h, w, size[1], size[0])
        out = imresize(out, *size, interp=_get_interp_method(interp, sizes))
    return out


def random_crop(src, size: Tuple[int, int], interp: int = 2):
    """Crop a random ``size`` (w, h) region (scaled down to fit); returns
    ``(out, (x0, y0, w, h))``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> out, rect = random_crop(mx.nd.zeros((6, 6, 3)), (4, 4))
    >>> out.shape
    (4, 4, 3)
    """
    h, w = src.shape[0], src.shape[1]
    new_w, new_h = scale_down((w, h), size)
    x0 = random.randint(0, w - new_w)
    y0 = random.randint(0, h - new_h)
    out = fixed_crop(src, x0, y0, new_w, new_h, size, interp)
    return out, (x0, y0, new_w, new_h)


def center_crop(src, size: Tuple[int, int], interp: int = 2):
    """Crop the central ``size`` (w, h) region (scaled down to fit); returns
    ``(out, (x0, y0, w, h))``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> center_crop(mx.nd.zeros((6, 8, 3)), (4, 2))[1]
    (2, 2, 4, 2)
    """
    h, w = src.shape[0], src.shape[1]
    new_w, new_h = scale_down((w, h), size)
    x0 = int((w - new_w) / 2)
    y0 = int((h - new_h) / 2)
    out = fixed_crop(src, x0, y0, new_w, new_h, size, interp)
    return out, (x0, y0, new_w, new_h)


def color_normalize(src, mean, std=None):
    """``(src - mean) / std`` in place (for float images).

    Examples
    --------
    >>> import mxgrad as mx
    >>> color_normalize(mx.nd.ones((1, 1, 3)) * 3, mx.nd.array([1, 1, 1]),
    ...                 mx.nd.array([2, 2, 2])).asnumpy().ravel().tolist()
    [1.0, 1.0, 1.0]
    """
    if mean is not None:
        src -= mean
    if std is not None:
        src /= std
    return src


def random_size_crop(src, size: Tuple[int, int], area, ratio: Tuple[float, float],
                     interp: int = 2, **kwargs):
    """Crop a random region with area fraction in ``area`` and aspect ratio in ``ratio``
    (log-uniform), resized to ``size``; falls back to :func:`center_crop` after 10 tries.

    Examples
    --------
    >>> import mxgrad as mx
    >>> random_size_crop(mx.nd.zeros((8, 8, 3)), (4, 4), 0.5, (0.75, 1.33))[0].shape
    (4, 4, 3)
    """
    h, w = src.shape[0], src.shape[1]
    src_area = h * w
    if "min_area" in kwargs:
        warnings.warn("`min_area` is deprecated. Please use `area` instead.", DeprecationWarning)
        area = kwargs.pop("min_area")
    if kwargs:
        raise StateError(f"random_size_crop: unexpected keyword arguments {sorted(kwargs)}")
    if isinstance(area, numeric_types):
        area = (area, 1.0)
    for _ in range(10):
        target_area = random.uniform(area[0], area[1]) * src_area
        log_ratio = (np.log(ratio[0]), np.log(ratio[1]))
        new_ratio = np.exp(random.uniform(*log_ratio))
        new_w = int(round(np.sqrt(target_area * new_ratio)))
        new_h = int(round(np.sqrt(target_area / new_ratio)))
        if new_w <= w and new_h <= h:
            x0 = random.randint(0, w - new_w)
            y0 = random.randint(0, h - new_h)
            out = fixed_crop(src, x0, y0, new_w, new_h, size, interp)
            return out, (x0, y0, new_w, new_h)
    return center_crop(src, size, interp)


def _bilinear_sample(data: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """MXNet's ``BilinearSampler``: sample ``data`` (N, C, H, W) at ``grid`` (N, 2, h, w) of
    normalised (x, y) in [-1, 1]; points outside the image read zeros."""
    n, c, ih, iw = data.shape
    x = (grid[:, 0] + 1) * (iw - 1) / 2
    y = (grid[:, 1] + 1) * (ih - 1) / 2
    x0 = np.floor(x).astype(np.int64)
    y0 = np.floor(y).astype(np.int64)
    wx = 1.0 - (x - x0)
    wy = 1.0 - (y - y0)
    out = np.zeros((n, c) + x.shape[1:], np.float64)
    batch = np.arange(n)[:, None, None]
    for dy, dx, weight in ((0, 0, wy * wx), (0, 1, wy * (1 - wx)), (1, 0, (1 - wy) * wx),
                           (1, 1, (1 - wy) * (1 - wx))):
        yy, xx = y0 + dy, x0 + dx
        inside = (xx >= 0) & (xx <= iw - 1) & (yy >= 0) & (yy <= ih - 1)
        vals = data[batch, :, np.clip(yy, 0, ih - 1), np.clip(xx, 0, iw - 1)]  # (n,h,w,c)
        vals = np.moveaxis(vals, -1, 1)
        out += vals * (weight * inside)[:, None]
    return out


def imrotate(src, rotation_degrees, zoom_in: bool = False, zoom_out: bool = False) -> NDArray:
    """Rotate float32 image(s) ``src`` (C, H, W) or (N, C, H, W) about the centre by
    ``rotation_degrees`` (a number, or one per image), sampling bilinearly with zeros
    outside; ``zoom_in`` scales up so that no zeros show, ``zoom_out`` scales down so that
    the whole image shows.

    Examples
    --------
    >>> import mxgrad as mx
    >>> img = mx.nd.arange(9).reshape((1, 3, 3))
    >>> imrotate(img, 90).asnumpy()[0].round(3).tolist()
    [[2.0, 5.0, 8.0], [1.0, 4.0, 7.0], [0.0, 3.0, 6.0]]
    """
    if zoom_in and zoom_out:
        raise StateError("imrotate: `zoom_in` and `zoom_out` cannot be both True")
    if src.dtype is not np.float32 and np.dtype(src.dtype) != np.float32:
        raise DTypeError("imrotate: only float32 images are supported; use "
                         "src.astype('float32')")
    a = _as_numpy(src).astype(np.float64)
    expanded = a.ndim == 3
    if expanded:
        a = a[None]
        if not isinstance(rotation_degrees, Number):
            raise DTypeError("imrotate: when a single image is passed the rotation angle "
                             "must be a scalar")
    elif a.ndim != 4:
        raise ShapeError(f"imrotate: src must be (C, H, W) or (N, C, H, W), got {a.shape}")
    if isinstance(rotation_degrees, Number):
        degrees = np.full(len(a), float(rotation_degrees))
    else:
        degrees = _as_numpy(rotation_degrees).astype(np.float64).ravel()
    if len(degrees) != len(a):
        raise ShapeError("imrotate: the number of images must be equal to the number of "
                         "rotation angles")
    rad = (np.pi * degrees / 180)[:, None, None]
    _, _, h, w = a.shape
    hscale, wscale = float(h - 1) / 2, float(w - 1) / 2
    hm = (np.arange(h, dtype=np.float64)[:, None].repeat(w, axis=1) - hscale)[None]
    wm = (np.arange(w, dtype=np.float64)[None, :].repeat(h, axis=0) - wscale)[None]
    cos, sin = np.cos(rad), np.sin(rad)
    w_rot = (wm * cos - hm * sin) / wscale
    h_rot = (wm * sin + hm * cos) / hscale
    scale = 1.0
    if zoom_in or zoom_out:
        rho = np.sqrt(h * h + w * w)
        ang = np.arctan(h / w)
        c1x, c1y = np.abs(rho * np.cos(ang + np.abs(rad))), np.abs(rho * np.sin(ang + np.abs(rad)))
        c2x, c2y = np.abs(rho * np.cos(ang - np.abs(rad))), np.abs(rho * np.sin(ang - np.abs(rad)))
        max_x, max_y = np.maximum(c1x, c2x), np.maximum(c1y, c2y)
        if zoom_out:
            scale = np.maximum(max_x / w, max_y / h)
        else:
            scale = np.minimum(w / max_x, h / max_y)
        scale = scale[:, :, :, None]
    grid = np.stack([w_rot, h_rot], axis=1) * scale
    out = _bilinear_sample(a, grid).astype(np.float32)
    return nd.array(out[0] if expanded else out, dtype=np.float32)


def random_rotate(src, angle_limits: Tuple[float, float], zoom_in: bool = False,
                  zoom_out: bool = False) -> NDArray:
    """:func:`imrotate` by a random angle drawn uniformly (``np.random``) from
    ``angle_limits``, one per image.

    Examples
    --------
    >>> import mxgrad as mx
    >>> random_rotate(mx.nd.ones((2, 3, 4, 4)), (-10, 10)).shape
    (2, 3, 4, 4)
    """
    if src.ndim == 3:
        degrees = np.random.uniform(*angle_limits)
    else:
        degrees = nd.array(np.random.uniform(*angle_limits, size=src.shape[0]))
    return imrotate(src, degrees, zoom_in=zoom_in, zoom_out=zoom_out)


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


class ImageIter(io.DataIter):
    """Image iterator over a RecordIO file (``path_imgrec``, optionally indexed by
    ``path_imgidx``), an image list file (``path_imglist``: ``index<TAB>label(s)<TAB>path``
    lines, paths relative to ``path_root``) or a Python list ``imglist`` of
    ``[label(s)..., path]``. Batches are float32 ``(batch, c, h, w)`` after the augmenters
    (``aug_list``, or :func:`CreateAugmenter` with the extra keyword arguments).

    ``last_batch_handle`` is ``'pad'`` (default; fill the last batch from the start),
    ``'discard'`` or ``'roll_over'``, as in MXNet.

    Examples
    --------
    >>> import os, tempfile
    >>> from PIL import Image
    >>> d = tempfile.mkdtemp()
    >>> for i in range(3):
    ...     Image.new('RGB', (6, 5), (i * 40, 0, 0)).save(os.path.join(d, f'{i}.png'))
    >>> it = ImageIter(2, (3, 4, 4), imglist=[[i, f'{i}.png'] for i in range(3)], path_root=d)
    >>> b = it.next(); b.data[0].shape, b.label[0].asnumpy().tolist()
    ((2, 3, 4, 4), [0.0, 1.0])
    >>> it.next().pad
    1
    """

    def __init__(self, batch_size: int, data_shape: Tuple[int, int, int], label_width: int = 1,
                 path_imgrec: Optional[str] = None, path_imglist: Optional[str] = None,
                 path_root: Optional[str] = None, path_imgidx: Optional[str] = None,
                 shuffle: bool = False, part_index: int = 0, num_parts: int = 1,
                 aug_list: Optional[List[Augmenter]] = None, imglist: Optional[list] = None,
                 data_name: str = "data", label_name: str = "softmax_label",
                 dtype: str = "float32", last_batch_handle: str = "pad", **kwargs):
        super().__init__()
        if not (path_imgrec or path_imglist or isinstance(imglist, list)):
            raise StateError("ImageIter: give path_imgrec, path_imglist or imglist")
        if dtype not in ("int32", "float32", "int64", "float64"):
            raise StateError(f"ImageIter: label dtype {dtype!r} not supported; use 'int32', "
                             f"'float32', 'int64' or 'float64'")
        if last_batch_handle not in ("pad", "discard", "roll_over"):
            raise StateError(f"ImageIter: last_batch_handle must be 'pad', 'discard' or "
                             f"'roll_over', got {last_batch_handle!r}")
        if path_imgrec:
            if path_imgidx:
                self.imgrec = recordio.MXIndexedRecordIO(path_imgidx, path_imgrec, "r")
                self.imgidx = list(self.imgrec.keys)
            else:
                self.imgrec = recordio.MXRecordIO(path_imgrec, "r")
                self.imgidx = None
        else:
            self.imgrec = None
        imgkeys: List[Any] = []
        if path_imglist:
            with open(path_imglist) as fin:
                result = {}
                for line in fin:
                    fields = line.strip().split("\t")
                    if len(fields) < 3:
                        continue
                    key = int(fields[0])
                    result[key] = (nd.array(np.asarray(fields[1:-1], dtype=np.float64),
                                            dtype=dtype), fields[-1])
                    imgkeys.append(key)
            self.imglist = result
        elif isinstance(imglist, list):
            result = {}
            for index, img in enumerate(imglist, 1):
                key = str(index)
                if len(img) > 2:
                    label = nd.array(img[:-1], dtype=dtype)
                elif isinstance(img[0], numeric_types):
                    label = nd.array([img[0]], dtype=dtype)
                else:
                    label = nd.array(img[0], dtype=dtype)
                result[key] = (label, img[-1])
                imgkeys.append(key)
            self.imglist = result
        else:
            self.imglist = None
        self.path_root = path_root
        self.check_data_shape(data_shape)
        self.provide_data = [io.DataDesc(data_name, (batch_size,) + tuple(data_shape))]
        if label_width > 1:
            self.provide_label = [io.DataDesc(label_name, (batch_size, label_width))]
        else:
            self.provide_label = [io.DataDesc(label_name, (batch_size,))]
        self.batch_size = batch_size
        self.data_shape = tuple(data_shape)
        self.label_width = label_width
        self.shuffle = shuffle
        if self.imgrec is None:
            self.seq = imgkeys
        elif shuffle or num_parts > 1 or path_imgidx:
            if self.imgidx is None:
                raise StateError("ImageIter: shuffle or num_parts > 1 with a .rec file needs "
                                 "path_imgidx")
            self.seq = self.imgidx
        else:
            self.seq = None
        if num_parts > 1:
            if not part_index < num_parts:
                raise StateError(f"ImageIter: part_index {part_index} must be < num_parts "
                                 f"{num_parts}")
            n = len(self.seq) // num_parts
            self.seq = self.seq[part_index * n:(part_index + 1) * n]
        self.auglist = CreateAugmenter(data_shape, **kwargs) if aug_list is None else aug_list
        self.cur = 0
        self._allow_read = True
        self.last_batch_handle = last_batch_handle
        self.num_image = len(self.seq) if self.seq is not None else None
        self._cache_data = None
        self._cache_label = None
        self._cache_idx = None
        self.reset()

    def reset(self) -> None:
        """Start a new epoch (shuffling when asked; roll-over samples are kept)."""
        if self.seq is not None and self.shuffle:
            random.shuffle(self.seq)
        if self.last_batch_handle != "roll_over" or self._cache_data is None:
            if self.imgrec is not None:
                self.imgrec.reset()
            self.cur = 0
            self._allow_read = True

    def hard_reset(self) -> None:
        """Start over, dropping roll-over samples."""
        if self.seq is not None and self.shuffle:
            random.shuffle(self.seq)
        if self.imgrec is not None:
            self.imgrec.reset()
        self.cur = 0
        self._allow_read = True
        self._cache_data = None
        self._cache_label = None
        self._cache_idx = None

    def next_sample(self):
        """``(label, encoded image bytes)`` of the next sample."""
        if self._allow_read is False:
            raise StopIteration
        if self.seq is not None:
            if self.cur < self.num_image:
                idx = self.seq[self.cur]
            else:
                if self.last_batch_handle != "discard":
                    self.cur = 0
                raise StopIteration
            self.cur += 1
            if self.imgrec is not None:
                header, img = recordio.unpack(self.imgrec.read_idx(idx))
                if self.imglist is None:
                    return header.label, img
                return self.imglist[idx][0], img
            label, fname = self.imglist[idx]
            return label, self.read_image(fname)
        s = self.imgrec.read()
        if s is None:
            if self.last_batch_handle != "discard":
                self.imgrec.reset()
            raise StopIteration
        header, img = recordio.unpack(s)
        return header.label, img

    def _batchify(self, batch_data, batch_label, start: int = 0) -> int:
        i = start
        try:
            while i < self.batch_size:
                label, s = self.next_sample()
                data = self.imdecode(s)
                try:
                    self.check_valid_image(data)
                except RuntimeError as err:
                    logging.debug("Invalid image, skipping:  %s", err)
                    continue
                data = self.augmentation_transform(data)
                batch_data[i] = self.postprocess_data(data)
                batch_label[i] = label
                i += 1
        except StopIteration:
            if not i:
                raise
        return i

    def next(self) -> io.DataBatch:
        batch_size = self.batch_size
        c, h, w = self.data_shape
        if self._cache_data is not None:
            batch_data, batch_label = self._cache_data, self._cache_label
            i = self._cache_idx
        else:
            batch_data = nd.zeros((batch_size, c, h, w))
            batch_label = nd.zeros(self.provide_label[0][1])
            i = self._batchify(batch_data, batch_label)
        pad = batch_size - i
        if pad != 0:
            if self.last_batch_handle == "discard":
                raise StopIteration
            if self.last_batch_handle == "roll_over" and self._cache_data is None:
                self._cache_data, self._cache_label, self._cache_idx = batch_data, batch_label, i
                raise StopIteration
            self._batchify(batch_data, batch_label, i)
            if self.last_batch_handle == "pad":
                self._allow_read = False
            else:
                self._cache_data = self._cache_label = self._cache_idx = None
        return io.DataBatch([batch_data], [batch_label], pad=pad)

    def check_data_shape(self, data_shape) -> None:
        """``data_shape`` must be ``(3, h, w)``."""
        if not len(data_shape) == 3:
            raise ShapeError("data_shape should have length 3, with dimensions CxHxW")
        if not data_shape[0] == 3:
            raise ShapeError("This iterator expects inputs to have 3 channels.")

    def check_valid_image(self, data) -> None:
        """Raise RuntimeError for an empty image (it is then skipped)."""
        if len(data[0].shape) == 0:
            raise RuntimeError("Data shape is wrong")

    def imdecode(self, s: bytes) -> NDArray:
        """Decode one sample (errors name the file or record)."""
        try:
            return imdecode(s)
        except _codec.ImageBackendError:
            raise
        except Exception as err:
            if self.seq is not None and self.num_image:
                idx = self.seq[(self.cur % self.num_image) - 1]
            else:
                idx = self.cur - 1
            if self.imglist is not None and idx in self.imglist:
                where = f"filename: {self.imglist[idx][1]}"
            else:
                where = f"index: {idx}"
            raise _codec.ImageDecodeError(f"Broken image {where}, {err}") from err

    def read_image(self, fname: str) -> bytes:
        """The bytes of image file ``fname`` (under ``path_root``)."""
        path = os.path.join(self.path_root, fname) if self.path_root else fname
        with open(path, "rb") as fin:
            return fin.read()

    def augmentation_transform(self, data):
        """Apply the augmenters in order."""
        for aug in self.auglist:
            data = aug(data)
        return data

    def postprocess_data(self, datum):
        """HWC → CHW."""
        return nd.transpose(datum, axes=(2, 0, 1))

"""``mx.image`` functions: decoding, resizing, cropping and rotating images (MXNet 1.9 API).

Images are ``uint8`` NDArrays in ``(height, width, channels)`` layout, RGB by default.
Decoding uses Pillow (``pip install mxgrad[image]``); resizing follows OpenCV's sampling
rules (see :mod:`mxgrad._image_resize`). Random choices (crops, flips, jitter) use Python's
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

import random
import warnings
from numbers import Number
from typing import Any, Dict, Optional, Tuple, cast

import numpy as np

from ..base import DTypeError, MXNetError, ShapeError, StateError, numeric_types
from .. import ndarray as nd
from ..ndarray import NDArray
from .. import _image_codec as _codec
from .._image_resize import imresize_array, interp_method as _get_interp_method

__all__ = ["imread", "imdecode", "imresize", "scale_down", "copyMakeBorder", "resize_short",
           "fixed_crop", "random_crop", "center_crop", "color_normalize", "random_size_crop",
           "imrotate", "random_rotate"]


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
    try:
        return imdecode(buf, flag=flag, to_rgb=to_rgb, out=out)
    except _codec.ImageDecodeError as err:     # name the file, not just the bytes
        raise _codec.ImageDecodeError(f"imread: {filename!r}: {err}") from None


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
    res = imresize_array(_as_numpy(src), w, h, interp)
    return _write_out(nd.array(res, dtype=res.dtype), out)


def scale_down(src_size: Tuple[int, int], size: Tuple[int, int]) -> Tuple[int, int]:
    """Shrink ``size`` (w, h) to fit in ``src_size`` (w, h), keeping its aspect ratio.

    Examples
    --------
    >>> scale_down((640, 480), (720, 120))
    (640, 106)
    """
    w: float
    h: float
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
        modes: Dict[int, Any] = {1: "edge", 2: "symmetric", 3: "wrap", 4: "reflect"}
        if type not in modes:
            raise StateError(f"copyMakeBorder: unknown border type {type}; use 0-4")
        res = np.pad(a, pad, mode=modes[type])
    return _write_out(nd.array(res, dtype=res.dtype), out)


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
        degrees = np.full(len(a), float(cast(float, rotation_degrees)))
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
    degrees: Any
    if src.ndim == 3:
        degrees = np.random.uniform(*angle_limits)
    else:
        degrees = nd.array(np.random.uniform(*angle_limits, size=src.shape[0]))
    return imrotate(src, degrees, zoom_in=zoom_in, zoom_out=zoom_out)

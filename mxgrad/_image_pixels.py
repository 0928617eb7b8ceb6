"""Image pixels for ``mx.nd.image`` and the Gluon vision transforms: one home for both
(the transforms' ``forward`` and the ``nd.image`` functions call these). NumPy kernels
(resizing with OpenCV's rules, colour blends, hue rotation, PCA lighting) and the array-level
steps (``to_tensor``, ``normalize`` with recorded ops, ``resize``, the random colour
jitters drawing from mxgrad's generator). Below both (it imports the NDArray class, the
generator and the resizer only), so ``mx.nd.image`` needs nothing from ``gluon``.

Examples
--------
>>> import mxgrad as mx
>>> to_tensor(mx.nd.array([[[0, 255]]], dtype='uint8')).asnumpy().ravel().tolist()
[0.0, 1.0]
"""
from __future__ import annotations

from numbers import Number
from typing import cast

import numpy as np

from .base import DTypeError, ShapeError, StateError, as_dtype
from ._engine.ndarray import NDArray, mode_face, wrap
from ._image_resize import resize as _resize
from ._rng import generator

__all__ = ["to_tensor", "normalize", "resize", "random_brightness", "random_contrast",
           "random_saturation", "random_hue", "color_jitter"]


def _wrap(data):
    """A transform's output: an array of the mode's face (mx.np after npx.set_np())."""
    return wrap(data, None, 0, mode_face())


def _np(x, what: str) -> np.ndarray:
    if isinstance(x, NDArray):
        return x._data
    if isinstance(x, np.ndarray):
        return x
    raise DTypeError(f"{what}: expected an NDArray image, got {type(x).__name__}")


def _image_dims(a: np.ndarray, what: str, layout: str = "HWC") -> None:
    if a.ndim not in (3, 4):
        raise ShapeError(f"{what}: expected an image of shape ({', '.join(layout)}) or a "
                         f"batch (N, {', '.join(layout)}), got shape {a.shape}")


def _wh(size, what: str):
    """MXNet's size argument: an int (square) or a (width, height) pair."""
    if isinstance(size, Number):
        return int(cast(float, size)), int(cast(float, size))
    if isinstance(size, (tuple, list)) and len(size) == 2:
        return int(size[0]), int(size[1])
    raise StateError(f"{what}: size must be an int or a (width, height) pair, got {size!r}")


def _resize_hwc(a: np.ndarray, w: int, h: int, interpolation: int) -> np.ndarray:
    """Resize the H, W axes (-3, -2) of ``a`` (one image or a batch) to (h, w) with
    ``mx.image``'s OpenCV-exact resize (MXNet's Resize operator calls ``cv::resize``):
    0 nearest, 1 bilinear, 2 bicubic, 3 area, 4 Lanczos."""
    if w < 1 or h < 1:
        raise ShapeError(f"Resize: target size (w={w}, h={h}) must be positive")
    if interpolation not in (0, 1, 2, 3, 4):
        raise StateError(f"Resize: interpolation must be 0-4 (OpenCV's codes), got "
                         f"{interpolation!r}")
    if a.ndim == 3:
        return _resize(a, w, h, interpolation)
    return np.stack([_resize(img, w, h, interpolation) for img in a]) if len(a) else \
        np.zeros((0, h, w, a.shape[-1]), dtype=a.dtype)


def _contrast(f: np.ndarray, alpha) -> np.ndarray:
    """Blend float pixels with the image's mean grey level: ``alpha * x + (1 - alpha) *
    mean``."""
    alpha = np.float32(alpha)
    if f.shape[-1] == 3:
        grey = f @ np.array([0.299, 0.587, 0.114], dtype=np.float32)
    else:
        grey = f.mean(axis=-1)
    mean = grey.mean(axis=(-2, -1), keepdims=True)[..., None]
    return f * alpha + mean * (1 - alpha)


_GRAY = np.array([0.299, 0.587, 0.114], dtype=np.float32)


def _saturate(f: np.ndarray, alpha: float) -> np.ndarray:
    """Blend float RGB pixels with their grey level: ``alpha * x + (1 - alpha) * grey``.
    (MXNet 1.9.1's kernel takes only the blue term as the grey level, a bug not copied.)"""
    if f.shape[-1] != 3:
        return f
    grey = (f @ _GRAY)[..., None]
    return f * np.float32(alpha) + grey * np.float32(1 - alpha)


def _rotate_hue(f: np.ndarray, alpha: float) -> np.ndarray:
    """Shift the hue of float RGB pixels (0..255) by ``alpha * 360`` degrees in HLS space,
    as MXNet's ``image.random_hue``."""
    if f.shape[-1] != 3:
        return f
    rgb = f / np.float32(255)
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    vmax, vmin = rgb.max(axis=-1), rgb.min(axis=-1)
    diff = vmax - vmin
    light = (vmax + vmin) / 2
    chroma = diff > np.finfo(np.float32).eps
    safe = np.where(chroma, diff, 1)
    sat = np.where(light < 0.5, diff / np.where(vmax + vmin > 0, vmax + vmin, 1),
                   diff / np.where(2 - vmax - vmin > 0, 2 - vmax - vmin, 1))
    hue = np.where(vmax == r, (g - b) * 60 / safe,
                   np.where(vmax == g, (b - r) * 60 / safe + 120, (r - g) * 60 / safe + 240))
    hue = np.where(hue < 0, hue + 360, hue)
    sat = np.where(chroma, sat, 0)
    hue = np.where(chroma, hue, 0) + np.float32(alpha * 360)
    p2 = np.where(light <= 0.5, light * (1 + sat), light + sat - light * sat)
    p1 = 2 * light - p2
    h6 = np.mod(hue / 60, 6)
    sector = np.minimum(h6.astype(np.int64), 5)
    frac = h6 - sector
    tab = np.stack([p2, p1, p1 + (p2 - p1) * (1 - frac), p1 + (p2 - p1) * frac], axis=-1)
    # per 60-degree sector, where r, g, b come from in tab (max, min, falling, rising)
    pick = np.array([[0, 3, 1], [2, 0, 1], [1, 0, 3], [1, 2, 0], [3, 1, 0], [0, 1, 2]])
    idx = pick[sector]                                          # (..., 3): r, g, b sources
    out = np.take_along_axis(tab, idx, axis=-1)
    out = np.where((sat != 0)[..., None], out, light[..., None])
    return out * np.float32(255)


# AlexNet's PCA of ImageNet RGB values: eigenvectors scaled by eigenvalues (MXNet's table)
_EIG = np.array([[55.46 * -0.5675, 4.794 * 0.7192, 1.148 * 0.4009],
                 [55.46 * -0.5808, 4.794 * -0.0045, 1.148 * -0.8140],
                 [55.46 * -0.5836, 4.794 * -0.6948, 1.148 * 0.4203]], dtype=np.float32)


def _back_to(out: np.ndarray, dtype) -> np.ndarray:
    dtype = as_dtype(dtype)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        out = np.clip(np.rint(out), info.min, info.max)
    return out.astype(dtype, copy=False)


def to_tensor(x):
    """``(H, W, C)`` (or ``(N, H, W, C)``) in [0, 255] to float32 ``(C, H, W)`` in [0, 1]."""
    a = _np(x, "ToTensor")
    _image_dims(a, "ToTensor")
    axes = (2, 0, 1) if a.ndim == 3 else (0, 3, 1, 2)
    out = np.ascontiguousarray(a.transpose(axes), dtype=np.float32)
    out /= np.float32(255.0)
    return _wrap(out)


def normalize(x, mean, std):
    """``(x[c] - mean[c]) / std[c]`` per channel of ``(C, H, W)`` / ``(N, C, H, W)``,
    with recorded ops (differentiable)."""
    if isinstance(x, np.ndarray):
        x = _wrap(x)
    a = _np(x, "Normalize")
    if a.ndim not in (3, 4):
        raise ShapeError(f"Normalize: expected a tensor (C, H, W) or (N, C, H, W), got "
                         f"shape {a.shape}; apply ToTensor first")
    c = a.shape[-3]
    dt = a.dtype if a.dtype.kind == "f" else np.dtype(np.float32)
    if a.dtype.kind != "f":
        x = x.astype(dt)
    stats = []
    for name, v in (("mean", mean), ("std", std)):
        v = np.asarray(v, dtype=dt).reshape(-1)
        if v.size not in (1, c):
            raise ShapeError(f"Normalize: {name} has {v.size} values but the input has "
                             f"{c} channels (shape {a.shape}); give 1 or {c} values")
        stats.append(_wrap(np.ascontiguousarray(np.broadcast_to(v, (c,)))
                          .reshape(c, 1, 1)))
    m, s = stats
    return (x - m) / s


def resize(x, size, keep_ratio: bool, interpolation: int):
    """Resize an image ``(H, W, C)`` or a batch to ``size`` (an int, or (width, height));
    ``keep_ratio`` with an int resizes the shorter side."""
    a = _np(x, "Resize")
    _image_dims(a, "Resize")
    h, w = a.shape[-3], a.shape[-2]
    if isinstance(size, Number) and keep_ratio:
        s = int(cast(float, size))
        if h > w:
            wsize, hsize = s, int(h * s / w)
        else:
            hsize, wsize = s, int(w * s / h)
    else:
        wsize, hsize = _wh(size, "Resize")
    return _wrap(_resize_hwc(a, wsize, hsize, interpolation))


def random_brightness(x, b: float):
    """Pixels times a factor drawn from ``[max(0, 1 - b), 1 + b]``."""
    a = _np(x, "RandomBrightness")
    alpha = generator().uniform(max(0.0, 1 - b), 1 + b)
    out = a.astype(np.float32) * np.float32(alpha)
    return _wrap(_back_to(out, a.dtype))


def random_contrast(x, c: float):
    """Blend with the mean grey level by a factor drawn from ``[max(0, 1 - c), 1 + c]``."""
    a = _np(x, "RandomContrast")
    alpha = np.float32(generator().uniform(max(0.0, 1 - c), 1 + c))
    return _wrap(_back_to(_contrast(a.astype(np.float32), alpha), a.dtype))


def random_saturation(x, s: float):
    """Blend with each pixel's grey level by a factor drawn from ``[max(0, 1 - s), 1 + s]``."""
    a = _np(x, "RandomSaturation")
    alpha = generator().uniform(max(0.0, 1 - s), 1 + s)
    return _wrap(_back_to(_saturate(a.astype(np.float32), alpha), a.dtype))


def random_hue(x, hue: float):
    """Rotate the hue by a fraction of a turn drawn from ``[-hue, hue]``."""
    a = _np(x, "RandomHue")
    alpha = generator().uniform(-hue, hue)
    return _wrap(_back_to(_rotate_hue(a.astype(np.float32), alpha), a.dtype))


def color_jitter(x, brightness: float, contrast: float, saturation: float, hue: float):
    """The four random colour changes (0 skips one) in a random order."""
    parts = ((random_brightness, brightness), (random_contrast, contrast),
             (random_saturation, saturation), (random_hue, hue))
    for i in generator().permutation(4):
        fn, amount = parts[i]
        if amount > 0:
            x = fn(x, amount)
    return x

"""``mx.nd.image``: MXNet 1.9's image operators on NDArrays (``(H, W, C)`` images or
``(N, H, W, C)`` batches; ``to_tensor`` makes ``(C, H, W)`` tensors that ``normalize`` takes).

``normalize``, ``crop`` and the flips are written with mxgrad ops (differentiable, as in
MXNet); the others compute pixels (the Gluon transforms use the same code).

Examples
--------
>>> import mxgrad as mx
>>> img = mx.nd.array([[[0, 51], [102, 255]]], dtype='uint8')          # 1x2x2 (H, W, C)
>>> t = mx.nd.image.to_tensor(img); t.shape
(2, 1, 2)
>>> mx.nd.image.normalize(t, mean=(0.5, 0.5), std=(0.5, 0.5)).asnumpy().ravel().round(1)
array([-1. , -0.2, -0.6,  1. ], dtype=float32)
"""
from __future__ import annotations

from typing import Any, Optional, Sequence, Tuple, Union

import numpy as np

from ..base import DTypeError, ShapeError, StateError
from .._engine.ndarray import NDArray, wrap
from .. import _image_pixels as _px
from .._rng import generator

__all__ = ["to_tensor", "normalize", "flip_left_right", "flip_top_bottom",
           "random_flip_left_right", "random_flip_top_bottom", "crop", "resize",
           "random_brightness", "random_contrast", "random_saturation", "random_hue",
           "random_color_jitter", "adjust_lighting", "random_lighting"]


def _image(x, op: str) -> NDArray:
    if not isinstance(x, NDArray):
        raise DTypeError(f"image.{op}: data must be an NDArray image, got {type(x).__name__}")
    if x.ndim not in (3, 4):
        raise ShapeError(f"image.{op}: data must be (H, W, C) or (N, H, W, C), got "
                         f"{tuple(x.shape)}")
    return x


def to_tensor(data: NDArray, **kwargs: Any) -> NDArray:
    """``(H, W, C)`` in [0, 255] to float32 ``(C, H, W)`` in [0, 1] (batches too)."""
    return _px.to_tensor(_image(data, "to_tensor"))


def normalize(data: NDArray, mean: Union[float, Sequence[float]] = 0.0,
              std: Union[float, Sequence[float]] = 1.0, **kwargs: Any) -> NDArray:
    """``(x[c] - mean[c]) / std[c]`` per channel of a tensor ``(C, H, W)`` or ``(N, C, H,
    W)``; differentiable."""
    return _px.normalize(data, mean, std)


def _flip(data: NDArray, axis: int, op: str) -> NDArray:
    from ..ops.shape import flip
    return flip(_image(data, op), axis=axis)


def flip_left_right(data: NDArray, **kwargs: Any) -> NDArray:
    """Mirror the width axis (differentiable)."""
    return _flip(data, data.ndim - 2, "flip_left_right")


def flip_top_bottom(data: NDArray, **kwargs: Any) -> NDArray:
    """Mirror the height axis (differentiable)."""
    return _flip(data, data.ndim - 3, "flip_top_bottom")


def _coin(p: float = 0.5) -> bool:
    return bool(generator().random() < p)


def random_flip_left_right(data: NDArray, **kwargs: Any) -> NDArray:
    """:func:`flip_left_right` with probability 1/2."""
    return flip_left_right(data) if _coin() else _image(data, "random_flip_left_right")


def random_flip_top_bottom(data: NDArray, **kwargs: Any) -> NDArray:
    """:func:`flip_top_bottom` with probability 1/2."""
    return flip_top_bottom(data) if _coin() else _image(data, "random_flip_top_bottom")


def crop(data: NDArray, x: int, y: int, width: int, height: int, **kwargs: Any) -> NDArray:
    """The ``width x height`` window at ``(x, y)`` (differentiable: the gradient goes back
    into the window)."""
    from ..ops.shape import slice_axis
    img = _image(data, "crop")
    h, w = img.shape[-3], img.shape[-2]
    x, y, width, height = int(x), int(y), int(width), int(height)
    if width < 1 or height < 1 or x < 0 or y < 0 or x + width > w or y + height > h:
        raise ShapeError(f"image.crop: the window (x={x}, y={y}, width={width}, "
                         f"height={height}) must be non-empty and inside the {w}x{h} image")
    out = slice_axis(img, axis=img.ndim - 3, begin=y, end=y + height)
    return slice_axis(out, axis=img.ndim - 2, begin=x, end=x + width)


def resize(data: NDArray, size: Union[int, Tuple[int, ...]] = (), keep_ratio: bool = False,
           interp: int = 1, **kwargs: Any) -> NDArray:
    """Resize to ``size`` (an int, or (width, height)) with OpenCV's interpolation ``interp``
    (uint8 pixels equal MXNet's); ``keep_ratio`` with an int resizes the shorter side."""
    if isinstance(size, (tuple, list)) and len(size) == 1:
        size = size[0]
    return _px.resize(_image(data, "resize"), size, keep_ratio, interp)


def _color(data: NDArray, op: str, fn) -> NDArray:
    img = _image(data, op)
    a = img._data
    return wrap(_px._back_to(fn(a.astype(np.float32)), a.dtype))


def _uniform(lo: float, hi: float, op: str) -> float:
    if lo > hi:
        raise StateError(f"image.{op}: min_factor ({lo}) must not exceed max_factor ({hi})")
    return float(generator().uniform(lo, hi))


def random_brightness(data: NDArray, min_factor: float, max_factor: float,
                      **kwargs: Any) -> NDArray:
    """Pixels times a factor drawn from ``[min_factor, max_factor]``."""
    alpha = np.float32(_uniform(min_factor, max_factor, "random_brightness"))
    return _color(data, "random_brightness", lambda f: f * alpha)


def random_contrast(data: NDArray, min_factor: float, max_factor: float,
                    **kwargs: Any) -> NDArray:
    """Blend with the mean grey level by a factor drawn from ``[min_factor, max_factor]``."""
    alpha = _uniform(min_factor, max_factor, "random_contrast")
    return _color(data, "random_contrast", lambda f: _px._contrast(f, alpha))


def random_saturation(data: NDArray, min_factor: float, max_factor: float,
                      **kwargs: Any) -> NDArray:
    """Blend with each pixel's grey level by a factor drawn from ``[min_factor,
    max_factor]``."""
    alpha = _uniform(min_factor, max_factor, "random_saturation")
    return _color(data, "random_saturation", lambda f: _px._saturate(f, alpha))


def random_hue(data: NDArray, min_factor: float, max_factor: float, **kwargs: Any) -> NDArray:
    """Rotate the hue by a fraction of a turn drawn from ``[min_factor, max_factor]``."""
    alpha = _uniform(min_factor, max_factor, "random_hue")
    return _color(data, "random_hue", lambda f: _px._rotate_hue(f, alpha))


def random_color_jitter(data: NDArray, brightness: float = 0, contrast: float = 0,
                        saturation: float = 0, hue: float = 0, **kwargs: Any) -> NDArray:
    """Brightness, contrast, saturation and hue jitter in a random order (as the Gluon
    transform ``RandomColorJitter``)."""
    return _px.color_jitter(_image(data, "random_color_jitter"), brightness, contrast,
                            saturation, hue)


def adjust_lighting(data: NDArray, alpha: Sequence[float], **kwargs: Any) -> NDArray:
    """Add ``eig @ alpha`` to every RGB pixel (AlexNet's PCA lighting with ImageNet's
    eigenvectors scaled by their eigenvalues)."""
    a = np.asarray(alpha, dtype=np.float32).reshape(-1)
    if a.shape != (3,):
        raise ShapeError(f"image.adjust_lighting: alpha must hold 3 values, got {a.size}")
    img = _image(data, "adjust_lighting")
    if img.shape[-1] != 3:
        raise ShapeError(f"image.adjust_lighting: needs RGB images (3 channels last), got "
                         f"{tuple(img.shape)}")
    return _color(img, "adjust_lighting", lambda f: f + _px._EIG @ a)


def random_lighting(data: NDArray, alpha_std: float = 0.05, **kwargs: Any) -> NDArray:
    """:func:`adjust_lighting` with ``alpha ~ N(0, alpha_std)`` per channel."""
    alpha = generator().normal(0, alpha_std, size=3)
    return adjust_lighting(data, alpha.tolist())

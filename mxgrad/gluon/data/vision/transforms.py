"""Image transforms (``gluon.data.vision.transforms``), for ``Dataset.transform_first``.

Images are NDArrays (NumPy arrays are accepted too) in MXNet's layouts: ``(H, W, C)``
or a batch ``(N, H, W, C)`` before :class:`ToTensor`, ``(C, H, W)`` / ``(N, C, H, W)``
after it. Random transforms draw from mxgrad's generator (``mx.random.seed``).

Examples
--------
>>> import mxgrad as mx
>>> from mxgrad.gluon.data.vision import transforms
>>> t = transforms.Compose([transforms.ToTensor(), transforms.Normalize(0.5, 0.5)])
>>> img = mx.nd.array([[[0], [255]]], dtype='uint8')        # H=1, W=2, C=1
>>> t(img)
<BLANKLINE>
[[[-1.  1.]]]
<NDArray 1x1x2 @cpu(0)>
"""
from __future__ import annotations

from numbers import Number
from typing import Callable, Sequence, Tuple

import numpy as np

from ....base import DTypeError, ShapeError, StateError
from ...._engine.ndarray import NDArray
from .... import random as _random
from .... import _image_pixels as _px
from ...._image_pixels import _wrap, _np, _image_dims, _wh, _resize_hwc, _back_to, _EIG
from ...block import Block, HybridBlock

__all__ = ["Compose", "Cast", "ToTensor", "Normalize", "Resize", "CenterCrop", "RandomCrop",
           "RandomResizedCrop", "RandomFlipLeftRight", "RandomFlipTopBottom",
           "RandomBrightness", "RandomContrast", "RandomSaturation", "RandomHue",
           "RandomColorJitter", "RandomLighting"]



class _Described:
    """``repr`` from the constructor arguments listed in ``_fields``; ``_batchable``
    marks deterministic transforms that give the same result on a stacked batch as on
    each sample (the DataLoader then transforms whole batches)."""

    _fields: Tuple[str, ...] = ()
    _batchable = False
    _forward_hooks: dict        # from the Block the transforms also derive from
    _forward_pre_hooks: dict

    def _can_batch(self) -> bool:
        return self._batchable and not (self._forward_hooks or self._forward_pre_hooks)

    def __repr__(self) -> str:
        args = ", ".join(f"{f}={getattr(self, '_' + f)!r}" for f in self._fields)
        return f"{type(self).__name__}({args})"


class _Transform(_Described, HybridBlock):
    """A parameter-free HybridBlock whose ``forward`` works on the image's NumPy data
    directly (``hybridize`` changes nothing)."""

    def forward(self, x, *args):
        raise NotImplementedError


class _BlockTransform(_Described, Block):
    """A parameter-free Block (these transforms are not hybridizable in MXNet either)."""

    def forward(self, x, *args):
        raise NotImplementedError


def _scale_down(src_w: int, src_h: int, w: int, h: int):
    """Shrink a (w, h) crop, keeping its aspect ratio, until it fits in the image."""
    fw, fh = float(w), float(h)
    if src_h < fh:
        fw, fh = fw * src_h / fh, float(src_h)
    if src_w < fw:
        fw, fh = float(src_w), fh * src_w / fw
    return int(fw), int(fh)


def _crop_resize(a: np.ndarray, x0: int, y0: int, cw: int, ch: int, size, interp: int):
    out = a[..., y0:y0 + ch, x0:x0 + cw, :]
    if size is not None and (cw, ch) != tuple(size):
        return _resize_hwc(out, size[0], size[1], interp)
    return np.ascontiguousarray(out)


class Compose(Block):
    """Applies transforms one after the other. A transform returning a tuple passes its
    first element on as the data and the rest as extra arguments (as Gluon's
    ``Sequential``).

    Parameters
    ----------
    transforms : list of callables
        The transforms, applied in order.

    Examples
    --------
    >>> import mxgrad as mx
    >>> t = Compose([Cast('float64'), lambda x: x * 2])
    >>> t(mx.nd.ones((1, 1, 1))).dtype
    <class 'numpy.float64'>
    """

    def __init__(self, transforms: Sequence[Callable]):
        super().__init__()
        transforms = list(transforms)
        for t in transforms:
            if not callable(t):
                raise DTypeError(f"Compose: every transform must be callable, got "
                                 f"{type(t).__name__}")
        for t in transforms:
            if isinstance(t, Block):
                self.register_child(t)
        self._transforms = transforms

    def _can_batch(self) -> bool:
        if self._forward_hooks or self._forward_pre_hooks:
            return False
        return all(getattr(t, "_can_batch", lambda: False)() for t in self._transforms)

    def forward(self, x, *args):
        for t in self._transforms:
            x = t(x, *args)
            args = ()
            if isinstance(x, (tuple, list)):
                x, args = x[0], tuple(x[1:])
        if args:
            return (x,) + args
        return x

    def __len__(self) -> int:
        return len(self._transforms)

    def __getitem__(self, i):
        return self._transforms[i]

    def __repr__(self) -> str:
        inner = "".join(f"\n  ({i}): {t!r}" for i, t in enumerate(self._transforms))
        return f"Compose({inner}\n)"


class Cast(_Transform):
    """Casts the input to ``dtype`` (float32 by default).

    Examples
    --------
    >>> import mxgrad as mx
    >>> Cast()(mx.nd.array([1, 2], dtype='uint8')).dtype
    <class 'numpy.float32'>
    """

    _batchable = True
    _fields = ('dtype',)

    def __init__(self, dtype="float32"):
        super().__init__()
        self._dtype = dtype

    def forward(self, x, *args):
        if isinstance(x, np.ndarray):
            x = _wrap(x)
        return x.astype(self._dtype)


class ToTensor(_Transform):
    """Converts an image ``(H, W, C)`` (or a batch ``(N, H, W, C)``) with values in
    [0, 255] to a float32 tensor ``(C, H, W)`` (``(N, C, H, W)``) with values in [0, 1].

    Examples
    --------
    >>> import mxgrad as mx
    >>> img = mx.nd.array([[[0, 51], [102, 255]]], dtype='uint8')   # 1x2x2
    >>> ToTensor()(img)
    <BLANKLINE>
    [[[0.  0.4]]
    <BLANKLINE>
     [[0.2 1. ]]]
    <NDArray 2x1x2 @cpu(0)>
    """

    _batchable = True

    def forward(self, x, *args):
        return _px.to_tensor(x)


class Normalize(_Transform):
    """Normalizes a tensor ``(C, H, W)`` or ``(N, C, H, W)`` channel by channel:
    ``out[c] = (x[c] - mean[c]) / std[c]``.

    Parameters
    ----------
    mean : float or sequence of floats, default 0.0
        One mean for all channels, or one per channel.
    std : float or sequence of floats, default 1.0
        One standard deviation for all channels, or one per channel.

    Examples
    --------
    >>> import mxgrad as mx
    >>> x = mx.nd.ones((2, 1, 1))
    >>> Normalize(mean=(0.5, 0.0), std=(0.25, 2.0))(x).asnumpy().ravel().tolist()
    [2.0, 0.5]
    """

    _batchable = True
    _fields = ('mean', 'std')

    def __init__(self, mean=0.0, std=1.0):
        super().__init__()
        self._mean = mean
        self._std = std

    def forward(self, x, *args):
        return _px.normalize(x, self._mean, self._std)


class Resize(_Transform):
    """Resizes an image ``(H, W, C)`` or a batch ``(N, H, W, C)``.

    Parameters
    ----------
    size : int or (width, height)
        Target size. An int gives a square unless ``keep_ratio``.
    keep_ratio : bool, default False
        With an int ``size``: resize the shorter side to ``size`` keeping the aspect
        ratio.
    interpolation : int, default 1
        OpenCV's codes: 0 nearest neighbour, 1 bilinear, 2 bicubic, 3 area, 4 Lanczos.

    Examples
    --------
    >>> import mxgrad as mx
    >>> img = mx.nd.array([[[0], [10]], [[20], [30]]], dtype='uint8')     # 2x2x1
    >>> Resize(4)(img).shape, Resize((3, 1), interpolation=0)(img).shape
    ((4, 4, 1), (1, 3, 1))
    """

    _batchable = True
    _fields = ('size', 'keep', 'interpolation')

    def __init__(self, size, keep_ratio: bool = False, interpolation: int = 1):
        super().__init__()
        self._size = size
        self._keep = keep_ratio
        self._interpolation = interpolation
        # checked at call time, as MXNet (a Resize can be built before its size is fixed)

    def forward(self, x, *args):
        return _px.resize(x, self._size, self._keep, self._interpolation)


class CenterCrop(_BlockTransform):
    """Crops the centre of an image ``(H, W, C)`` (or batch) to ``size``; an image
    smaller than ``size`` gives the largest centred crop of that aspect ratio, resized
    up to ``size``.

    Parameters
    ----------
    size : int or (width, height)
        Output size.
    interpolation : int, default 1
        Interpolation for the resize when one is needed (see :class:`Resize`).

    Examples
    --------
    >>> import numpy as np, mxgrad as mx
    >>> img = mx.nd.array(np.arange(16).reshape(4, 4, 1))
    >>> CenterCrop(2)(img).asnumpy().ravel().tolist()
    [5.0, 6.0, 9.0, 10.0]
    """

    _batchable = True
    _fields = ('size', 'interpolation')

    def __init__(self, size, interpolation: int = 1):
        super().__init__()
        self._size = _wh(size, "CenterCrop")
        self._interpolation = interpolation

    def forward(self, x, *args):
        a = _np(x, "CenterCrop")
        _image_dims(a, "CenterCrop")
        h, w = a.shape[-3], a.shape[-2]
        cw, ch = _scale_down(w, h, *self._size)
        x0, y0 = int((w - cw) / 2), int((h - ch) / 2)
        return _wrap(_crop_resize(a, x0, y0, cw, ch, self._size, self._interpolation))


class RandomCrop(_Transform):
    """Crops a random ``size`` window from an image ``(H, W, C)`` (or batch), after
    optional padding.

    Parameters
    ----------
    size : int or (width, height)
        Output size.
    pad : int or tuple, optional
        Padding added around the image first (``numpy.pad`` widths for H and W).
    pad_value : number, default 0
        Value of the padding.
    interpolation : int, default 1
        Used when the image is smaller than ``size`` (it is then resized).

    Examples
    --------
    >>> import mxgrad as mx
    >>> RandomCrop(2, pad=1)(mx.nd.ones((3, 3, 1))).shape
    (2, 2, 1)
    """

    _fields = ('size', 'pad', 'pad_value', 'interpolation')

    def __init__(self, size, pad=None, pad_value=0, interpolation: int = 1):
        super().__init__()
        self._size = _wh(size, "RandomCrop")
        self._pad = pad
        self._pad_value = pad_value
        self._interpolation = interpolation

    def forward(self, x, *args):
        a = _np(x, "RandomCrop")
        _image_dims(a, "RandomCrop")
        if self._pad:
            widths = [(0, 0)] * a.ndim
            p = self._pad
            if isinstance(p, Number):
                p = ((int(p), int(p)), (int(p), int(p)))
            elif len(p) == 2 and all(isinstance(v, Number) for v in p):
                p = ((int(p[0]), int(p[0])), (int(p[1]), int(p[1])))
            widths[-3], widths[-2] = tuple(p[0]), tuple(p[1])
            a = np.pad(a, widths, constant_values=self._pad_value)
        h, w = a.shape[-3], a.shape[-2]
        cw, ch = _scale_down(w, h, *self._size)
        rng = _random.generator()
        x0 = int(rng.integers(0, w - cw + 1))
        y0 = int(rng.integers(0, h - ch + 1))
        return _wrap(_crop_resize(a, x0, y0, cw, ch, self._size, self._interpolation))


class RandomResizedCrop(_BlockTransform):
    """Crops a random area (fraction ``scale`` of the image, aspect ratio in ``ratio``)
    and resizes it to ``size``; falls back to a centre crop after 10 failed draws.

    Parameters
    ----------
    size : int or (width, height)
        Output size.
    scale : (float, float), default (0.08, 1.0)
        Range of the crop's area as a fraction of the image's.
    ratio : (float, float), default (3/4, 4/3)
        Range of the crop's aspect ratio (width / height).
    interpolation : int, default 1
        See :class:`Resize`.

    Examples
    --------
    >>> import mxgrad as mx
    >>> RandomResizedCrop((4, 3))(mx.nd.ones((10, 10, 3))).shape
    (3, 4, 3)
    """

    _fields = ('size', 'scale', 'ratio', 'interpolation')

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4.0, 4.0 / 3.0),
                 interpolation: int = 1):
        super().__init__()
        self._size = _wh(size, "RandomResizedCrop")
        self._scale = scale
        self._ratio = ratio
        self._interpolation = interpolation

    def forward(self, x, *args):
        a = _np(x, "RandomResizedCrop")
        _image_dims(a, "RandomResizedCrop")
        h, w = a.shape[-3], a.shape[-2]
        rng = _random.generator()
        area = h * w
        log_ratio = (np.log(self._ratio[0]), np.log(self._ratio[1]))
        for _ in range(10):
            target = rng.uniform(*self._scale) * area
            aspect = float(np.exp(rng.uniform(*log_ratio)))
            cw = int(round(np.sqrt(target * aspect)))
            ch = int(round(np.sqrt(target / aspect)))
            if 0 < cw <= w and 0 < ch <= h:
                x0 = int(rng.integers(0, w - cw + 1))
                y0 = int(rng.integers(0, h - ch + 1))
                return _wrap(_crop_resize(a, x0, y0, cw, ch, self._size,
                                         self._interpolation))
        cw, ch = _scale_down(w, h, *self._size)
        x0, y0 = int((w - cw) / 2), int((h - ch) / 2)
        return _wrap(_crop_resize(a, x0, y0, cw, ch, self._size, self._interpolation))


class _RandomFlip(_Transform):
    _axis = -2

    _fields = ('p',)

    def __init__(self, p: float = 0.5):
        super().__init__()
        self._p = p

    def forward(self, x, *args):
        a = _np(x, type(self).__name__)
        if a.ndim < 2:
            raise ShapeError(f"{type(self).__name__}: expected an image (H, W, C), got shape "
                             f"{a.shape}")
        if _random.generator().random() < self._p:
            return _wrap(np.ascontiguousarray(np.flip(a, axis=self._axis if a.ndim >= 3
                                                     else self._axis + 1)))
        return x if isinstance(x, NDArray) else _wrap(a)


class RandomFlipLeftRight(_RandomFlip):
    """Flips an image ``(H, W, C)`` left to right with probability ``p`` (0.5).

    Examples
    --------
    >>> import mxgrad as mx
    >>> RandomFlipLeftRight(p=1.0)(mx.nd.array([[[1], [2]]])).asnumpy().ravel().tolist()
    [2.0, 1.0]
    """

    _axis = -2


class RandomFlipTopBottom(_RandomFlip):
    """Flips an image ``(H, W, C)`` top to bottom with probability ``p`` (0.5).

    Examples
    --------
    >>> import mxgrad as mx
    >>> RandomFlipTopBottom(p=1.0)(mx.nd.array([[[1]], [[2]]])).asnumpy().ravel().tolist()
    [2.0, 1.0]
    """

    _axis = -3


class RandomBrightness(_Transform):
    """Multiplies the image by a random factor in ``[max(0, 1 - b), 1 + b]``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> RandomBrightness(0.0)(mx.nd.ones((1, 1, 3))).asnumpy().ravel().tolist()
    [1.0, 1.0, 1.0]
    """

    _fields = ('brightness',)

    def __init__(self, brightness: float):
        super().__init__()
        self._brightness = brightness

    def forward(self, x, *args):
        return _px.random_brightness(x, self._brightness)


class RandomContrast(_Transform):
    """Blends the image with its mean grey level by a random factor in
    ``[max(0, 1 - c), 1 + c]`` (factor 1 keeps the image).

    Examples
    --------
    >>> import mxgrad as mx
    >>> RandomContrast(0.0)(mx.nd.ones((1, 1, 3))).asnumpy().ravel().tolist()
    [1.0, 1.0, 1.0]
    """

    _fields = ('contrast',)

    def __init__(self, contrast: float):
        super().__init__()
        self._contrast = contrast

    def forward(self, x, *args):
        return _px.random_contrast(x, self._contrast)


class RandomSaturation(_Transform):
    """Blends each pixel with its grey level by a random factor in
    ``[max(0, 1 - s), 1 + s]`` (factor 1 keeps the image).

    Examples
    --------
    >>> import mxgrad as mx
    >>> RandomSaturation(0.0)(mx.nd.full((1, 1, 3), 7)).asnumpy().ravel().tolist()
    [7.0, 7.0, 7.0]
    """

    _fields = ('saturation',)

    def __init__(self, saturation: float):
        super().__init__()
        self._saturation = saturation

    def forward(self, x, *args):
        return _px.random_saturation(x, self._saturation)


class RandomHue(_Transform):
    """Shifts the hue by a random fraction in ``[-hue, hue]`` of the colour circle
    (HLS space, as MXNet's ``image.random_hue``).

    Examples
    --------
    >>> import mxgrad as mx
    >>> x = mx.nd.array([[[200, 30, 60]]], dtype='uint8')
    >>> RandomHue(0.0)(x).asnumpy().ravel().tolist()
    [200, 30, 60]
    """

    _fields = ('hue',)

    def __init__(self, hue: float):
        super().__init__()
        self._hue = hue

    def forward(self, x, *args):
        return _px.random_hue(x, self._hue)


class RandomColorJitter(_Transform):
    """Brightness, contrast, saturation and hue jitter (each given as in the single
    transforms; 0 skips it), applied in a random order.

    Examples
    --------
    >>> import mxgrad as mx
    >>> t = RandomColorJitter(brightness=0.1, hue=0.1)
    >>> t(mx.nd.ones((2, 2, 3)) * 100).shape
    (2, 2, 3)
    """

    _fields = ('brightness', 'contrast', 'saturation', 'hue')

    def __init__(self, brightness: float = 0, contrast: float = 0, saturation: float = 0,
                 hue: float = 0):
        super().__init__()
        self._brightness, self._contrast = brightness, contrast
        self._saturation, self._hue = saturation, hue

    def forward(self, x, *args):
        return _px.color_jitter(x, self._brightness, self._contrast, self._saturation,
                               self._hue)


class RandomLighting(_Transform):
    """AlexNet-style PCA lighting noise: adds ``eig @ alpha`` to every RGB pixel, with
    ``alpha ~ N(0, alpha_std)`` per channel and ImageNet's eigenvectors scaled by their
    eigenvalues (as MXNet).

    Examples
    --------
    >>> import mxgrad as mx
    >>> RandomLighting(0.0)(mx.nd.ones((1, 1, 3))).asnumpy().ravel().tolist()
    [1.0, 1.0, 1.0]
    """

    _fields = ('alpha',)

    def __init__(self, alpha: float):
        super().__init__()
        self._alpha = alpha

    def forward(self, x, *args):
        a = _np(x, "RandomLighting")
        if a.shape[-1] != 3:
            return x
        alpha = _random.generator().normal(0, self._alpha, size=3).astype(np.float32)
        return _wrap(_back_to(a.astype(np.float32) + _EIG @ alpha, a.dtype))


class CropResize(_Transform):
    """Crops the ``width x height`` window at ``(x, y)`` from an image ``(H, W, C)`` (or a
    batch ``(N, H, W, C)``) and, given ``size``, resizes it (MXNet's ``image.crop`` +
    ``image.resize``).

    Parameters
    ----------
    x, y : int
        Left and top of the window.
    width, height : int
        Size of the window (positive, inside the image).
    size : int or (width, height), optional
        Resize the crop to it.
    interpolation : int, optional
        OpenCV's code for the resize (default bilinear, 1).

    Examples
    --------
    >>> import numpy as np, mxgrad as mx
    >>> img = mx.nd.array(np.arange(60).reshape(5, 4, 3))
    >>> CropResize(0, 0, 3, 2)(img).shape, CropResize(1, 1, 2, 2, size=4)(img).shape
    ((2, 3, 3), (4, 4, 3))
    """

    _batchable = True
    _fields = ('x', 'y', 'width', 'height', 'size', 'interpolation')

    def __init__(self, x: int, y: int, width: int, height: int, size=None,
                 interpolation=None):
        super().__init__()
        self._x, self._y, self._width, self._height = x, y, width, height
        self._size = size
        self._interpolation = interpolation

    def forward(self, x, *args):
        a = _np(x, "CropResize")
        _image_dims(a, "CropResize")
        h, w = a.shape[-3], a.shape[-2]
        x0, y0, cw, ch = (int(v) for v in (self._x, self._y, self._width, self._height))
        if cw <= 0 or ch <= 0 or x0 < 0 or y0 < 0:
            raise ShapeError(f"CropResize: the window (x={x0}, y={y0}, width={cw}, "
                             f"height={ch}) needs a positive size and a non-negative corner")
        if x0 + cw > w or y0 + ch > h:
            raise ShapeError(f"CropResize: the window (x={x0}, y={y0}, width={cw}, "
                             f"height={ch}) does not fit in the {w}x{h} image")
        out = a[..., y0:y0 + ch, x0:x0 + cw, :]
        if self._size:
            size = _wh(self._size, "CropResize")
            interp = 1 if self._interpolation is None else self._interpolation
            return _wrap(_resize_hwc(out, size[0], size[1], interp))
        return _wrap(out.copy())


def _float32_chw(x, what: str) -> NDArray:
    if not isinstance(x, NDArray) or x.dtype != np.float32:
        raise DTypeError(f"{what}: this transformation only supports float32 images "
                         f"(C, H, W); consider calling it after ToTensor")
    return x


class Rotate(_BlockTransform):
    """Rotates a float32 image ``(C, H, W)`` (or batch) by ``rotation_degrees`` about its
    centre, keeping its shape (``mx.image.imrotate``).

    Examples
    --------
    >>> import mxgrad as mx
    >>> img = mx.nd.array([[[0., 0., 0.], [0., 0., 1.], [0., 0., 0.]]])
    >>> Rotate(90.)(img).asnumpy()[0].round(3).tolist()
    [[0.0, 1.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
    """

    _fields = ('rotation_degrees', 'zoom_in', 'zoom_out')

    def __init__(self, rotation_degrees: float, zoom_in: bool = False,
                 zoom_out: bool = False):
        super().__init__()
        self._rotation_degrees, self._zoom_in, self._zoom_out = \
            rotation_degrees, zoom_in, zoom_out

    def forward(self, x, *args):
        from ....image import imrotate
        return imrotate(_float32_chw(x, "Rotate"), self._rotation_degrees, self._zoom_in,
                        self._zoom_out)


class RandomRotation(_BlockTransform):
    """Rotates a float32 image ``(C, H, W)`` (or each image of a batch) by an angle drawn
    from ``angle_limits``, with probability ``rotate_with_proba`` (``np.random``, as MXNet).

    Examples
    --------
    >>> import mxgrad as mx
    >>> RandomRotation((-10, 10))(mx.nd.ones((3, 8, 8))).shape
    (3, 8, 8)
    """

    _fields = ('angle_limits', 'zoom_in', 'zoom_out', 'rotate_with_proba')

    def __init__(self, angle_limits, zoom_in: bool = False, zoom_out: bool = False,
                 rotate_with_proba: float = 1.0):
        super().__init__()
        lower, upper = angle_limits
        if lower >= upper:
            raise StateError("RandomRotation: `angle_limits` must be an ordered tuple "
                             f"(lower, upper), got {tuple(angle_limits)}")
        if not 0 <= rotate_with_proba <= 1:
            raise StateError("RandomRotation: probability of rotating the image should be "
                             f"between 0 and 1, got {rotate_with_proba}")
        self._angle_limits = (lower, upper)
        self._zoom_in, self._zoom_out = zoom_in, zoom_out
        self._rotate_with_proba = rotate_with_proba

    def forward(self, x, *args):
        from ....image import random_rotate
        if np.random.random() > self._rotate_with_proba:
            return x
        return random_rotate(_float32_chw(x, "RandomRotation"), self._angle_limits,
                             self._zoom_in, self._zoom_out)


class RandomApply(Block):
    """Applies ``transforms`` (a Block, e.g. a :class:`Compose`) with probability ``p``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> RandomApply(Resize(4), p=1.0)(mx.nd.ones((2, 2, 3), dtype='uint8')).shape
    (4, 4, 3)
    >>> RandomApply(Resize(4), p=0.0)(mx.nd.ones((2, 2, 3), dtype='uint8')).shape
    (2, 2, 3)
    """

    def __init__(self, transforms, p: float = 0.5):
        super().__init__()
        if not 0 <= p <= 1:
            raise StateError(f"RandomApply: p must be a probability in [0, 1], got {p}")
        self.transforms = transforms
        self.p = p

    def forward(self, x, *args):
        if self.p < _random.generator().random():
            return x
        return self.transforms(x)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(p={self.p}, {self.transforms!r})"


__all__ += ["CropResize", "Rotate", "RandomRotation", "RandomApply"]

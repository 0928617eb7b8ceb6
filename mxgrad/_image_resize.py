"""Image resizing in NumPy with OpenCV's sampling rules (what MXNet's ``imresize`` uses).

Each output pixel is a weighted sum of input pixels, separable in height and width. Source
coordinates and filter weights follow ``cv::resize``: nearest takes ``floor(dx * src/dst)``;
bilinear, bicubic (a = -0.75) and Lanczos-4 sample at ``(dx + 0.5) * src/dst - 0.5`` with
replicated borders and no antialiasing; area averages the covered source pixels when
shrinking both axes and otherwise uses OpenCV's area-enlarging weights. On uint8 every filter
follows OpenCV 3.4's integer arithmetic (fixed-point weights, float32 coordinates, its SIMD
kernels' rounding), so the pixels equal MXNet 1.9.1's (tests/test_image.py checks every
filter on shrinking, enlarging and mixed sizes against MXNet-made images); other dtypes are
computed in float64.
"""
from __future__ import annotations

import math
import random
from typing import Any, Sequence, Tuple

import numpy as np

from .base import ShapeError, StateError

__all__ = ["resize", "imresize_array", "interp_method"]


def _scale(ssize: int, dsize: int) -> float:
    """Source pixels per output pixel as OpenCV computes it: ``1 / (dst / src)`` (not
    ``src / dst``: the two differ in the last bit, enough to move a ``floor``)."""
    return 1.0 / (dsize / ssize)


def _nearest(ssize: int, dsize: int) -> Tuple[np.ndarray, np.ndarray]:
    scale = _scale(ssize, dsize)
    idx = np.minimum(np.floor(np.arange(dsize) * scale).astype(np.int64), ssize - 1)
    return idx[:, None], np.ones((dsize, 1))


def _linear(ssize: int, dsize: int, area_enlarge: bool = False):
    scale = _scale(ssize, dsize)
    dx = np.arange(dsize, dtype=np.float64)
    if area_enlarge:
        sx = np.floor(dx * scale)
        fx = (dx + 1) - (sx + 1) * (dsize / ssize)
        fx = np.where(fx <= 0, 0.0, fx - np.floor(fx))
    else:
        f = (dx + 0.5) * scale - 0.5
        sx = np.floor(f)
        fx = f - sx
    sx = sx.astype(np.int64)
    low = sx < 0
    fx[low], sx[low] = 0.0, 0
    high = sx >= ssize - 1
    fx[high], sx[high] = 0.0, ssize - 1
    idx = np.stack([sx, np.minimum(sx + 1, ssize - 1)], axis=1)
    return idx, np.stack([1 - fx, fx], axis=1)


def _cubic_weights(x: np.ndarray) -> np.ndarray:
    a = -0.75
    c0 = ((a * (x + 1) - 5 * a) * (x + 1) + 8 * a) * (x + 1) - 4 * a
    c1 = ((a + 2) * x - (a + 3)) * x * x + 1
    c2 = ((a + 2) * (1 - x) - (a + 3)) * (1 - x) * (1 - x) + 1
    return np.stack([c0, c1, c2, 1 - c0 - c1 - c2], axis=1)


def _lanczos4_weights(x: np.ndarray) -> np.ndarray:
    t = x[:, None] + 3 - np.arange(8)[None, :]
    with np.errstate(invalid="ignore", divide="ignore"):
        w = np.sin(np.pi * t) * np.sin(np.pi * t / 4) / (np.pi * np.pi * t * t / 4)
    w[np.abs(t) < 1e-12] = 1.0
    exact = x < np.finfo(np.float32).eps
    w[exact] = 0.0
    w[exact, 3] = 1.0
    return w / w.sum(axis=1, keepdims=True)


def _kernel(ssize: int, dsize: int, taps: int, weights):
    scale = _scale(ssize, dsize)
    f = (np.arange(dsize, dtype=np.float64) + 0.5) * scale - 0.5
    sx = np.floor(f)
    fx = f - sx
    offs = np.arange(taps) - (taps // 2 - 1)
    idx = np.clip(sx.astype(np.int64)[:, None] + offs[None, :], 0, ssize - 1)
    return idx, weights(fx)


def _area_shrink(ssize: int, dsize: int):
    scale = _scale(ssize, dsize)
    taps = int(math.ceil(scale)) + 1
    start = np.arange(dsize) * scale
    end = start + scale
    first = np.floor(start).astype(np.int64)
    idx = first[:, None] + np.arange(taps)[None, :]
    lo = np.maximum(idx, start[:, None])
    hi = np.minimum(idx + 1, end[:, None])
    w = np.clip(hi - lo, 0, None) / scale
    idx = np.minimum(idx, ssize - 1)
    return idx, w


def _axis_weights(ssize: int, dsize: int, interp: int, area_shrink: bool):
    if interp == 0:
        return _nearest(ssize, dsize)
    if interp == 1:
        return _linear(ssize, dsize)
    if interp == 2:
        return _kernel(ssize, dsize, 4, _cubic_weights)
    if interp == 3:
        if area_shrink:
            return _area_shrink(ssize, dsize)
        return _linear(ssize, dsize, area_enlarge=True)
    return _kernel(ssize, dsize, 8, _lanczos4_weights)


def _apply(img: np.ndarray, axis: int, idx: np.ndarray, w: np.ndarray) -> np.ndarray:
    out: Any = None
    for k in range(idx.shape[1]):
        part = np.take(img, idx[:, k], axis=axis)
        shape = [1] * img.ndim
        shape[axis] = -1
        part = part * w[:, k].reshape(shape)
        out = part if out is None else out + part
    return out


_F32 = np.float32
_SCALE = 2048   # OpenCV's INTER_RESIZE_COEF_SCALE: 11-bit fixed-point weights


def _src_coords32(ssize: int, dsize: int):
    """OpenCV's source coordinate of each output pixel, in float32 as it computes it."""
    f = ((np.arange(dsize, dtype=np.float64) + 0.5) * _scale(ssize, dsize) - 0.5).astype(_F32)
    sx = np.floor(f).astype(np.int64)
    return sx, (f - sx).astype(_F32)


def _lanczos4_weights32(x: np.ndarray) -> np.ndarray:
    """OpenCV's ``interpolateLanczos4``: float32 weights from double sines, normalised."""
    s45 = 0.70710678118654752440084436210485
    cs = np.array([[1, 0], [-s45, -s45], [0, 1], [s45, -s45], [-1, 0], [s45, s45], [0, -1],
                   [-s45, s45]])
    xd = x.astype(np.float64)[:, None]
    y0 = -(xd + 3) * np.pi * 0.25
    y = -(xd + 3 - np.arange(8)[None, :]) * np.pi * 0.25
    with np.errstate(invalid="ignore", divide="ignore"):
        w = ((cs[:, 0] * np.sin(y0) + cs[:, 1] * np.cos(y0)) / (y * y)).astype(_F32)
    total = np.zeros(len(x), dtype=_F32)
    for i in range(8):          # float32, summed in order
        total = (total + w[:, i]).astype(_F32)
    with np.errstate(invalid="ignore", divide="ignore"):
        w = (w * (_F32(1) / total)[:, None]).astype(_F32)
    exact = x < np.finfo(_F32).eps
    w[exact] = 0
    w[exact, 3] = 1
    return w


def _cubic_weights32(x: np.ndarray) -> np.ndarray:
    a, one = _F32(-0.75), _F32(1)
    x1, r = x + one, one - x
    c0 = ((a * x1 - 5 * a) * x1 + 8 * a) * x1 - 4 * a
    c1 = ((a + 2) * x - (a + 3)) * x * x + one
    c2 = ((a + 2) * r - (a + 3)) * r * r + one
    return np.stack([c0, c1, c2, one - c0 - c1 - c2], axis=1).astype(_F32)


def _fixed_taps(ssize: int, dsize: int, interp: int, vertical: bool):
    """Source indices ``(dsize, K)`` and integer weights (sum ~2048) of one axis, as OpenCV's
    ``resize`` builds them for 8-bit images (float32 coordinates and weights, each weight
    rounded on its own). Linear clamps the coordinate only horizontally; vertically the
    rows are clamped instead (so a border row mixes a row with itself)."""
    if interp == 3:     # area when enlarging: linear with area-style fractions
        sx = np.floor(np.arange(dsize) * _scale(ssize, dsize)).astype(np.int64)
        fx = ((np.arange(dsize) + 1) - (sx + 1) * (dsize / ssize)).astype(_F32)
        fx = np.where(fx <= 0, _F32(0), fx - np.floor(fx)).astype(_F32)
    else:
        sx, fx = _src_coords32(ssize, dsize)
    if interp in (1, 3):
        if not vertical:
            low, high = sx < 0, sx >= ssize - 1
            fx[low], sx[low] = 0, 0
            fx[high], sx[high] = 0, ssize - 1
        w = np.stack([_F32(1) - fx, fx], axis=1)
        offs = np.arange(2)
    elif interp == 2:
        w, offs = _cubic_weights32(fx), np.arange(-1, 3)
    else:
        w, offs = _lanczos4_weights32(fx), np.arange(-3, 5)
    idx = np.clip(sx[:, None] + offs[None, :], 0, ssize - 1)
    return idx, np.rint(w * _F32(_SCALE)).astype(np.int64)


def _fixed_point_uint8(img: np.ndarray, w: int, h: int, interp: int) -> np.ndarray:
    """Bilinear, bicubic, Lanczos-4 and area-enlarging resize of a uint8 image exactly as
    OpenCV 3.4 (MXNet 1.9.1's build) computes it: integer horizontal sums, then the
    vertical pass as its SSE2 kernels round (bilinear: ``(b*(S>>4))>>16`` terms; bicubic:
    a float32 sum over blocks of 8 values, the rest in exact fixed point) or in exact
    fixed point (Lanczos)."""
    ix, wx = _fixed_taps(img.shape[1], w, interp, vertical=False)
    iy, wy = _fixed_taps(img.shape[0], h, interp, vertical=True)
    src = img.astype(np.int64)
    extra = (1,) * (img.ndim - 2)
    rows: Any = 0
    for k in range(ix.shape[1]):
        rows = rows + src[:, ix[:, k]] * wx[:, k].reshape((1, -1) + extra)
    rows = rows.reshape(rows.shape[0], -1)                 # (H, w*cn): OpenCV's row buffer
    taps = [rows[iy[:, k]] for k in range(iy.shape[1])]
    beta = [wy[:, k][:, None] for k in range(iy.shape[1])]
    if interp in (1, 3):
        out = (((beta[0] * (taps[0] >> 4)) >> 16) + ((beta[1] * (taps[1] >> 4)) >> 16) + 2) >> 2
    else:
        out = (sum(b * t for b, t in zip(beta, taps)) + (1 << 21)) >> 22
        if interp == 2:
            n = (out.shape[1] // 8) * 8
            scale = _F32(1.0 / (_SCALE * _SCALE))
            acc = taps[0][:, :n].astype(_F32) * (beta[0].astype(_F32) * scale)
            for t, b in zip(taps[1:], beta[1:]):
                acc = acc + t[:, :n].astype(_F32) * (b.astype(_F32) * scale)
            out[:, :n] = np.rint(acc)
    return np.clip(out, 0, 255).astype(np.uint8).reshape((h, w) + img.shape[2:])


def _area_table(ssize: int, dsize: int):
    """OpenCV's ``computeResizeAreaTab``: per output pixel, its source pixels and float32
    weights (padded to a common number of taps with weight 0)."""
    scale = _scale(ssize, dsize)
    idx, wts = [], []
    for dx in range(dsize):
        f1 = dx * scale
        f2 = f1 + scale
        cell = min(scale, ssize - f1)
        s2 = min(int(math.floor(f2)), ssize - 1)
        s1 = min(int(math.ceil(f1)), s2)
        i, wt = [], []
        if s1 - f1 > 1e-3:
            i.append(s1 - 1)
            wt.append((s1 - f1) / cell)
        for sx in range(s1, s2):
            i.append(sx)
            wt.append(1.0 / cell)
        if f2 - s2 > 1e-3:
            i.append(s2)
            wt.append(min(min(f2 - s2, 1.0), cell) / cell)
        idx.append(i)
        wts.append(wt)
    k = max(len(i) for i in idx)
    I = np.zeros((dsize, k), dtype=np.int64)
    W = np.zeros((dsize, k), dtype=_F32)
    for dx, (i, wt) in enumerate(zip(idx, wts)):
        I[dx, :len(i)] = i
        W[dx, :len(wt)] = wt
    return I, W


def _area_shrink_uint8(img: np.ndarray, w: int, h: int) -> np.ndarray:
    """Area (box) shrink of a uint8 image as OpenCV: integer factors average integer sums
    (2x2 rounds halves up); other factors accumulate float32 products in order."""
    sh, sw = img.shape[:2]
    if sh % h == 0 and sw % w == 0:
        fy, fx = sh // h, sw // w
        sums = img.astype(np.int64).reshape((h, fy, w, fx) + img.shape[2:]).sum(axis=(1, 3))
        if fy == fx == 2:
            return ((sums + 2) >> 2).astype(np.uint8)
        mean = sums.astype(_F32) * (_F32(1) / _F32(fy * fx))
        return np.clip(np.rint(mean), 0, 255).astype(np.uint8)
    ix, wx = _area_table(sw, w)
    iy, wy = _area_table(sh, h)
    src = img.astype(_F32)
    extra = (1,) * (img.ndim - 2)
    buf: Any = np.zeros((sh, w) + img.shape[2:], dtype=_F32)
    for k in range(ix.shape[1]):
        buf = (buf + src[:, ix[:, k]] * wx[:, k].reshape((1, -1) + extra)).astype(_F32)
    acc: Any = np.zeros((h, w) + img.shape[2:], dtype=_F32)
    for k in range(iy.shape[1]):
        acc = (acc + wy[:, k].reshape((-1, 1) + extra) * buf[iy[:, k]]).astype(_F32)
    return np.clip(np.rint(acc), 0, 255).astype(np.uint8)


def resize(img: np.ndarray, w: int, h: int, interp: int) -> np.ndarray:
    """Resize an ``(h, w[, c])`` array to width ``w`` and height ``h`` (OpenCV rules)."""
    sh, sw = img.shape[:2]
    if (sh, sw) == (h, w):
        return img.copy()
    if interp == 0:
        iy, _ = _nearest(sh, h)
        ix, _ = _nearest(sw, w)
        return img[iy[:, 0]][:, ix[:, 0]]
    area_shrink = interp == 3 and sh >= h and sw >= w
    if img.dtype == np.uint8:
        if area_shrink:
            return _area_shrink_uint8(img, w, h)
        return _fixed_point_uint8(img, w, h, interp)
    src = img.astype(np.float64)
    iy, wy = _axis_weights(sh, h, interp, area_shrink)
    ix, wx = _axis_weights(sw, w, interp, area_shrink)
    out = _apply(_apply(src, 1, ix, wx), 0, iy, wy)
    if np.issubdtype(img.dtype, np.integer):
        info = np.iinfo(img.dtype)
        return np.clip(np.rint(out), info.min, info.max).astype(img.dtype)
    return out.astype(img.dtype)


def interp_method(interp: int, sizes: Sequence[int] = ()) -> int:
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


def imresize_array(a: np.ndarray, w: int, h: int, interp: int = 1) -> np.ndarray:
    """``mx.image.imresize`` on a NumPy ``(h, w[, c])`` array: checked sizes, MXNet's
    interpolation codes (9 auto, 10 random) resolved, OpenCV's sampling.

    Examples
    --------
    >>> imresize_array(np.array([[[0], [255]]], np.uint8), 4, 1, interp=0)[..., 0].tolist()
    [[0, 0, 255, 255]]
    """
    if a.ndim not in (2, 3):
        raise ShapeError(f"imresize: src must be (height, width, channels), got shape {a.shape}")
    w, h = int(w), int(h)
    if w <= 0 or h <= 0:
        raise StateError(f"imresize: w and h must be positive, got w={w}, h={h}")
    return resize(a, w, h, interp_method(interp, (a.shape[0], a.shape[1], h, w)))

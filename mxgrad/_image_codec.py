"""Image decoding and encoding through Pillow, imported lazily (the ``image`` extra).

``import mxgrad`` and ``mx.recordio`` work without Pillow; the first decode or encode
without it raises :class:`ImageBackendError` naming ``pip install mxgrad[image]``.

Decoding follows OpenCV's ``imdecode`` (what MXNet uses): 8-bit pixels; ``flag=1`` gives
3 channels (alpha dropped, grayscale replicated), ``flag=0`` one gray channel, ``flag=-1``
the stored channels.
"""
from __future__ import annotations

import io as _io

import numpy as np

from .base import MXNetError

__all__ = ["ImageBackendError", "ImageDecodeError", "pillow", "decode", "decode_cv2",
           "encode_cv2"]


class ImageBackendError(MXNetError, ImportError):
    """Pillow, needed to decode or encode images, is not installed."""


class ImageDecodeError(MXNetError, ValueError):
    """Bytes that are not an image Pillow can decode."""


def pillow():
    """The ``PIL.Image`` module, or :class:`ImageBackendError` saying how to install it."""
    try:
        from PIL import Image
    except ImportError as err:
        raise ImageBackendError("decoding or encoding images needs Pillow: "
                                "pip install mxgrad[image]  (or: pip install Pillow)") from err
    return Image


def _open(buf: bytes, gray: bool = False):
    Image = pillow()
    try:
        img = Image.open(_io.BytesIO(buf))
        if gray and img.format == "JPEG":
            img.draft("L", img.size)  # libjpeg's own grayscale output, as OpenCV asks for
        img.load()
    except Exception as err:  # Pillow raises UnidentifiedImageError, OSError, SyntaxError...
        raise ImageDecodeError(f"cannot decode image ({len(buf)} bytes): {err}") from err
    return img


_WIDE_MODES = ("I;16", "I;16B", "I;16L", "I", "F")


def _to_uint8(img) -> np.ndarray:
    """Pixels of a Pillow image as uint8 (16-bit values keep their high byte, as OpenCV)."""
    if img.mode in _WIDE_MODES:
        arr = np.asarray(img)
        if img.mode == "F":
            return arr.clip(0, 255).astype(np.uint8)
        return (arr.astype(np.int64) >> 8).clip(0, 255).astype(np.uint8)
    if img.mode == "1":
        img = img.convert("L")
    return np.asarray(img, dtype=np.uint8)


def _rgb_to_gray(rgb: np.ndarray, fmt: str) -> np.ndarray:
    """Gray level as OpenCV's decoders compute it: libpng's fixed-point weights for PNG,
    ``cvtColor`` for the others."""
    r, g, b = (rgb[..., i].astype(np.int64) for i in range(3))
    if fmt == "PNG":
        gray = (r * 9798 + g * 19235 + b * 3735) >> 15
    else:
        gray = (b * 1868 + g * 9617 + r * 4899 + (1 << 13)) >> 14
    return gray.astype(np.uint8)


def _rgb(img) -> np.ndarray:
    if img.mode in _WIDE_MODES or img.mode in ("L", "1"):
        return np.repeat(_to_uint8(img)[:, :, None], 3, axis=2)
    if img.mode != "RGB":
        img = img.convert("RGB")
    return np.asarray(img, dtype=np.uint8)


def decode(buf: bytes, flag: int = 1) -> np.ndarray:
    """Decode ``buf`` to an RGB(A) ``uint8`` array ``(h, w, c)``: ``flag`` 1 → 3 channels,
    0 → 1 channel (gray), -1 → the stored channels (1, 3 or 4)."""
    img = _open(buf, gray=flag == 0)
    mode = img.mode
    if flag == 0:
        if mode in _WIDE_MODES or mode in ("L", "1"):
            arr = _to_uint8(img)
        elif mode == "LA":
            arr = _to_uint8(img.convert("L"))
        else:
            arr = _rgb_to_gray(_rgb(img), img.format)
    elif flag < 0:
        if mode in ("L", "RGB", "RGBA", "1") or mode in _WIDE_MODES:
            arr = _to_uint8(img)
        elif mode in ("LA", "PA") or (mode == "P" and "transparency" in img.info):
            arr = _to_uint8(img.convert("RGBA"))
        else:
            arr = _to_uint8(img.convert("RGB"))
    else:
        arr = _rgb(img)
    if arr.ndim == 2:
        arr = arr[:, :, None]
    return np.ascontiguousarray(arr)


def decode_cv2(buf: bytes, iscolor: int = -1) -> np.ndarray:
    """Decode like ``cv2.imdecode(buf, iscolor)``: BGR(A), grayscale as ``(h, w)``."""
    arr = decode(buf, flag=iscolor)
    if arr.shape[2] == 1:
        return arr[:, :, 0]
    if arr.shape[2] == 3:
        return np.ascontiguousarray(arr[:, :, ::-1])
    return np.ascontiguousarray(arr[:, :, [2, 1, 0, 3]])


def encode_cv2(img: np.ndarray, quality: int = 95, img_fmt: str = ".jpg") -> bytes:
    """Encode a BGR(A)/gray ``uint8`` array like ``cv2.imencode(img_fmt, img)``."""
    Image = pillow()
    arr = np.asarray(img)
    if arr.dtype != np.uint8:
        raise ImageDecodeError(f"pack_img: img must be a uint8 array, got {arr.dtype}")
    if arr.ndim == 3 and arr.shape[2] == 1:
        arr = arr[:, :, 0]
    if arr.ndim == 3 and arr.shape[2] == 3:
        arr = arr[:, :, ::-1]
    elif arr.ndim == 3 and arr.shape[2] == 4:
        arr = arr[:, :, [2, 1, 0, 3]]
    elif arr.ndim != 2:
        raise ImageDecodeError(f"pack_img: img must have shape (h, w), (h, w, 3) or (h, w, 4), "
                               f"got {arr.shape}")
    pil = Image.fromarray(np.ascontiguousarray(arr))
    fmt = img_fmt.lower().lstrip(".")
    out = _io.BytesIO()
    if fmt in ("jpg", "jpeg"):
        if pil.mode == "RGBA":
            pil = pil.convert("RGB")
        pil.save(out, format="JPEG", quality=int(quality))
    elif fmt == "png":
        pil.save(out, format="PNG", compress_level=max(0, min(9, int(quality))))
    else:
        raise ImageDecodeError(f"pack_img: img_fmt must be '.jpg' or '.png', got {img_fmt!r}")
    return out.getvalue()

"""``mx.image.ImageIter``: batches of augmented images from a RecordIO file, an image list
file or a Python list (MXNet 1.9 API).
"""
from __future__ import annotations

import logging
import os
import random
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from ..base import (FileAccessError, FileFormatError, FileMissingError, ShapeError,
                    StateError, numeric_types)
from .. import ndarray as nd
from ..ndarray import NDArray
from .. import io
from .. import recordio
from .. import _image_codec as _codec
from .augmenters import Augmenter, CreateAugmenter
from .image import imdecode

__all__ = ["ImageIter"]


def _read_lst(path: str, dtype: str, keys: List[Any]) -> Dict[Any, Tuple[NDArray, str]]:
    """The image list file ``path`` (``index<TAB>label(s)<TAB>path`` lines) as
    ``{index: (label, image path)}``; the indices in file order are appended to ``keys``.
    A line that is not of that form is an error naming the file and the line (MXNet
    raises ``ValueError`` on most of them; none is skipped silently)."""
    result: Dict[Any, Tuple[NDArray, str]] = {}
    try:
        fin = open(path, encoding="utf-8")
    except FileNotFoundError:
        raise FileMissingError(f"ImageIter: path_imglist {path!r} does not exist") from None
    except OSError as err:
        raise FileAccessError(f"ImageIter: cannot read path_imglist {path!r}: "
                              f"{err.strerror or err}") from None
    with fin:
        try:
            for lineno, line in enumerate(fin, 1):
                if not line.strip():
                    continue
                fields = line.strip().split("\t")
                try:
                    if len(fields) < 3:
                        raise ValueError("fewer than 3 tab-separated fields")
                    key: Any = int(fields[0])
                    label = np.asarray(fields[1:-1], dtype=np.float64)
                except ValueError as err:
                    raise FileFormatError(
                        f"ImageIter: path_imglist {path!r} line {lineno} is "
                        f"{line.strip()[:80]!r}: {err}; each line must be "
                        f"'index<TAB>label(s)<TAB>path' (tab-separated, as im2rec "
                        f"writes)") from None
                result[key] = (nd.array(label, dtype=dtype), fields[-1])
                keys.append(key)
        except UnicodeDecodeError:
            raise FileFormatError(f"ImageIter: path_imglist {path!r} is not a UTF-8 text "
                                  f"file") from None
    if not result:
        raise FileFormatError(f"ImageIter: path_imglist {path!r} lists no images")
    return result


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
        self.imgrec: Any
        self.imgidx: Optional[List[Any]]
        self.imglist: Optional[Dict[Any, Tuple[NDArray, str]]]
        self.seq: Any   # the keys or indices to visit (None: read the .rec in order)
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
            self.imglist = _read_lst(path_imglist, dtype, imgkeys)
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
        self._cache_data: Any = None
        self._cache_label: Any = None
        self._cache_idx: Any = None
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

    def _empty_label(self):
        """A new label array of the batch's label shape (zeros; detection pads with -1)."""
        return nd.zeros(self.provide_label[0][1])

    def next(self) -> io.DataBatch:
        batch_size = self.batch_size
        c, h, w = self.data_shape
        if self._cache_data is not None:
            batch_data, batch_label = self._cache_data, self._cache_label
            i = self._cache_idx
        else:
            batch_data = nd.zeros((batch_size, c, h, w))
            batch_label = self._empty_label()
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
        try:
            with open(path, "rb") as fin:
                return fin.read()
        except FileNotFoundError:
            raise FileMissingError(f"ImageIter: image file {path!r} does not exist (check "
                                   f"path_root and the image list)") from None
        except OSError as err:
            raise FileAccessError(f"ImageIter: cannot read image file {path!r}: "
                                  f"{err.strerror or err}") from None

    def augmentation_transform(self, data):
        """Apply the augmenters in order."""
        for aug in self.auglist:
            data = aug(data)
        return data

    def postprocess_data(self, datum):
        """HWC → CHW."""
        return nd.transpose(datum, axes=(2, 0, 1))

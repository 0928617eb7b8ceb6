"""Image datasets read from files: :class:`ImageFolderDataset` (one folder per class) and
:class:`ImageRecordDataset` (a RecordIO ``.rec`` file with its ``.idx``), as in MXNet 1.9.

Samples are ``(image, label)``: the image a ``uint8`` NDArray ``(h, w, c)`` decoded with
:func:`mxgrad.image.imdecode` (Pillow, ``pip install mxgrad[image]``), RGB with ``flag=1``
or one gray channel with ``flag=0``; ``transform(image, label)``, when given, is applied.

Examples
--------
>>> import os, tempfile
>>> from PIL import Image
>>> root = tempfile.mkdtemp()
>>> for cls in ('cat', 'dog'):
...     os.mkdir(os.path.join(root, cls))
...     Image.new('RGB', (4, 3)).save(os.path.join(root, cls, '0.png'))
>>> ds = ImageFolderDataset(root)
>>> ds.synsets, len(ds), ds[1][0].shape, ds[1][1]
(['cat', 'dog'], 2, (3, 4, 3), 1)
"""
from __future__ import annotations

import os
import warnings
from typing import Callable, List, Optional, Tuple

from ..dataset import Dataset, RecordFileDataset

__all__ = ["ImageFolderDataset", "ImageRecordDataset"]


class ImageRecordDataset(RecordFileDataset):
    """Images and labels packed in a RecordIO file (``recordio.pack``/``pack_img`` records,
    e.g. made by MXNet's ``im2rec``); the index ``<name>.idx`` must sit beside it.

    Parameters
    ----------
    filename : str
        Path of the ``.rec`` file.
    flag : {0, 1}, default 1
        0: grayscale ``(h, w, 1)``; 1: RGB ``(h, w, 3)``.
    transform : callable, optional
        ``transform(image, label)`` applied to every sample.
    """

    def __init__(self, filename: str, flag: int = 1, transform: Optional[Callable] = None):
        super().__init__(filename)
        self._flag = flag
        self._transform = transform

    def __getitem__(self, idx):
        from .... import image, recordio
        header, img = recordio.unpack(super().__getitem__(idx))
        img = image.imdecode(img, self._flag)
        if self._transform is not None:
            return self._transform(img, header.label)
        return img, header.label


class ImageFolderDataset(Dataset):
    """Images stored one folder per class: ``root/<class>/<image>.jpg``.

    Classes are the sub-folders of ``root`` in sorted order (``synsets[label]`` is the
    folder name); files are taken in sorted order; files that are not ``.jpg``, ``.jpeg``
    or ``.png`` and entries of ``root`` that are not folders are skipped with a warning, as
    in MXNet.

    Parameters
    ----------
    root : str
        The folder holding one sub-folder per class.
    flag : {0, 1}, default 1
        0: grayscale ``(h, w, 1)``; 1: RGB ``(h, w, 3)``.
    transform : callable, optional
        ``transform(image, label)`` applied to every sample.

    Attributes
    ----------
    synsets : list of str
        Class names.
    items : list of (str, int)
        ``(path, label)`` of every image.
    """

    def __init__(self, root: str, flag: int = 1, transform: Optional[Callable] = None):
        self._root = os.path.expanduser(root)
        self._flag = flag
        self._transform = transform
        self._exts = [".jpg", ".jpeg", ".png"]
        self._list_images(self._root)

    def _list_images(self, root: str) -> None:
        from ....base import MXNetError
        self.synsets: List[str] = []
        self.items: List[Tuple[str, int]] = []
        try:
            folders = sorted(os.listdir(root))
        except OSError as err:
            raise MXNetError(f"ImageFolderDataset: cannot list root {root!r}: {err}") from err
        for folder in folders:
            path = os.path.join(root, folder)
            if not os.path.isdir(path):
                warnings.warn(f"Ignoring {path}, which is not a directory.", stacklevel=3)
                continue
            label = len(self.synsets)
            self.synsets.append(folder)
            for filename in sorted(os.listdir(path)):
                filename = os.path.join(path, filename)
                ext = os.path.splitext(filename)[1]
                if ext.lower() not in self._exts:
                    warnings.warn(f"Ignoring {filename} of type {ext}. Only support "
                                  f"{', '.join(self._exts)}")
                    continue
                self.items.append((filename, label))

    def __getitem__(self, idx):
        from .... import image
        img = image.imread(self.items[idx][0], self._flag)
        label = self.items[idx][1]
        if self._transform is not None:
            return self._transform(img, label)
        return img, label

    def __len__(self) -> int:
        return len(self.items)

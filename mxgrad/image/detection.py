"""Object-detection augmenters and ``ImageDetIter`` (MXNet 1.9's ``mx.image.detection``).

A detection label is a float array ``(objects, 5+)`` of rows ``[class, xmin, ymin, xmax,
ymax, ...]`` with coordinates relative to the image size (0..1). In a record file the label
is stored flat with a header: ``[header_width, object_width, <header extras>, objects...]``
(what MXNet's ``im2rec`` writes, e.g. the Pikachu data set of d2l). Augmenters take and
return ``(image, label)``; random choices use Python's ``random`` as MXNet does.

Examples
--------
>>> import numpy as np
>>> import mxgrad as mx
>>> img = mx.nd.zeros((8, 10, 3))
>>> label = np.array([[0, 0.1, 0.2, 0.5, 0.6]])
>>> _, flipped = DetHorizontalFlipAug(1.0)(img, label.copy())
>>> flipped.round(2).tolist()
[[0.0, 0.5, 0.2, 0.9, 0.6]]
"""
from __future__ import annotations

import json
import logging
import random
import warnings
from math import sqrt
from typing import List

import numpy as np

from ..base import DTypeError, ShapeError, StateError, numeric_types
from .. import ndarray as nd
from ..ndarray import NDArray
from .. import io
from .augmenters import (Augmenter, CastAug, ColorJitterAug, ColorNormalizeAug, ForceResizeAug,
                         HueJitterAug, LightingAug, RandomGrayAug, ResizeAug)
from .image import copyMakeBorder, fixed_crop
from .iterator import ImageIter

__all__ = ["DetAugmenter", "DetBorrowAug", "DetRandomSelectAug", "DetHorizontalFlipAug",
           "DetRandomCropAug", "DetRandomPadAug", "CreateMultiRandCropAugmenter",
           "CreateDetAugmenter", "ImageDetIter"]


class DetAugmenter:
    """Base of the detection augmenters: ``aug(src, label)`` returns ``(src, label)``."""

    def __init__(self, **kwargs):
        self._kwargs = kwargs
        for k, v in self._kwargs.items():
            if isinstance(v, NDArray):
                v = v.asnumpy()
            if isinstance(v, np.ndarray):
                self._kwargs[k] = v.tolist()

    def dumps(self):
        """``'["name", {kwargs}]'`` as JSON."""
        return json.dumps([self.__class__.__name__.lower(), self._kwargs])

    def __call__(self, src, label):
        raise NotImplementedError("Must override implementation.")


class DetBorrowAug(DetAugmenter):
    """Apply an image-only :class:`~mxgrad.image.Augmenter`, leaving the label as it is."""

    def __init__(self, augmenter: Augmenter):
        if not isinstance(augmenter, Augmenter):
            raise DTypeError("DetBorrowAug: augmenter must be an mx.image.Augmenter")
        super().__init__(augmenter=augmenter.dumps())
        self.augmenter = augmenter

    def dumps(self):
        return [self.__class__.__name__.lower(), self.augmenter.dumps()]

    def __call__(self, src, label):
        return self.augmenter(src), label


class DetRandomSelectAug(DetAugmenter):
    """With probability ``skip_prob`` do nothing, otherwise apply one of ``aug_list`` at
    random."""

    def __init__(self, aug_list, skip_prob: float = 0):
        super().__init__(skip_prob=skip_prob)
        if not isinstance(aug_list, (list, tuple)):
            aug_list = [aug_list]
        for aug in aug_list:
            if not isinstance(aug, DetAugmenter):
                raise DTypeError("DetRandomSelectAug: aug_list may hold DetAugmenters only")
        if not aug_list:
            skip_prob = 1
        self.aug_list = list(aug_list)
        self.skip_prob = skip_prob

    def dumps(self):
        return [self.__class__.__name__.lower(), [x.dumps() for x in self.aug_list]]

    def __call__(self, src, label):
        if random.random() < self.skip_prob:
            return src, label
        random.shuffle(self.aug_list)
        return self.aug_list[0](src, label)


class DetHorizontalFlipAug(DetAugmenter):
    """With probability ``p``, flip image and boxes left-right (the label in place)."""

    def __init__(self, p: float):
        super().__init__(p=p)
        self.p = p

    def __call__(self, src, label):
        if random.random() < self.p:
            src = nd.flip(src, axis=1)
            self._flip_label(label)
        return src, label

    @staticmethod
    def _flip_label(label):
        tmp = 1.0 - label[:, 1]
        label[:, 1] = 1.0 - label[:, 3]
        label[:, 3] = tmp


def _areas(boxes):
    return np.maximum(0, boxes[:, 3] - boxes[:, 1]) * np.maximum(0, boxes[:, 2] - boxes[:, 0])


def _range(value, what, owner):
    if isinstance(value, (tuple, list)):
        return tuple(value)
    if not isinstance(value, numeric_types):
        raise DTypeError(f"{owner}: {what} must be a number or a (low, high) pair")
    return (value, value)


class DetRandomCropAug(DetAugmenter):
    """Random crop that keeps objects: tries up to ``max_attempts`` crops with aspect ratio
    in ``aspect_ratio_range`` and area fraction in ``area_range`` until every object it
    touches is covered more than ``min_object_covered``; objects left with less than
    ``min_eject_coverage`` of their area are dropped from the label."""

    def __init__(self, min_object_covered=0.1, aspect_ratio_range=(0.75, 1.33),
                 area_range=(0.05, 1.0), min_eject_coverage=0.3, max_attempts=50):
        aspect_ratio_range = _range(aspect_ratio_range, "aspect_ratio_range", "DetRandomCropAug")
        area_range = _range(area_range, "area_range", "DetRandomCropAug")
        super().__init__(min_object_covered=min_object_covered,
                         aspect_ratio_range=aspect_ratio_range, area_range=area_range,
                         min_eject_coverage=min_eject_coverage, max_attempts=max_attempts)
        self.min_object_covered = min_object_covered
        self.min_eject_coverage = min_eject_coverage
        self.max_attempts = max_attempts
        self.aspect_ratio_range = aspect_ratio_range
        self.area_range = area_range
        self.enabled = False
        if area_range[1] <= 0 or area_range[0] > area_range[1]:
            warnings.warn(f"Skip DetRandomCropAug due to invalid area_range: {area_range}")
        elif aspect_ratio_range[0] > aspect_ratio_range[1] or aspect_ratio_range[0] <= 0:
            warnings.warn(f"Skip DetRandomCropAug due to invalid aspect_ratio_range: "
                          f"{aspect_ratio_range}")
        else:
            self.enabled = True

    def __call__(self, src, label):
        crop = self._random_crop_proposal(label, src.shape[0], src.shape[1])
        if crop:
            x, y, w, h, label = crop
            src = fixed_crop(src, x, y, w, h, None)
        return src, label

    @staticmethod
    def _intersect(label, xmin, ymin, xmax, ymax):
        left = np.maximum(label[:, 0], xmin)
        right = np.minimum(label[:, 2], xmax)
        top = np.maximum(label[:, 1], ymin)
        bot = np.minimum(label[:, 3], ymax)
        invalid = np.where(np.logical_or(left >= right, top >= bot))[0]
        out = label.copy()
        out[:, 0], out[:, 1], out[:, 2], out[:, 3] = left, top, right, bot
        out[invalid, :] = 0
        return out

    def _check_satisfy_constraints(self, label, xmin, ymin, xmax, ymax, width, height):
        if (xmax - xmin) * (ymax - ymin) < 2:
            return False
        x1, y1 = float(xmin) / width, float(ymin) / height
        x2, y2 = float(xmax) / width, float(ymax) / height
        object_areas = _areas(label[:, 1:])
        valid_objects = np.where(object_areas * width * height > 2)[0]
        if valid_objects.size < 1:
            return False
        intersects = self._intersect(label[valid_objects, 1:], x1, y1, x2, y2)
        coverages = _areas(intersects) / object_areas[valid_objects]
        coverages = coverages[np.where(coverages > 0)[0]]
        return coverages.size > 0 and np.amin(coverages) > self.min_object_covered

    def _update_labels(self, label, crop_box, height, width):
        xmin = float(crop_box[0]) / width
        ymin = float(crop_box[1]) / height
        w = float(crop_box[2]) / width
        h = float(crop_box[3]) / height
        out = label.copy()
        out[:, (1, 3)] -= xmin
        out[:, (2, 4)] -= ymin
        out[:, (1, 3)] /= w
        out[:, (2, 4)] /= h
        out[:, 1:5] = np.clip(out[:, 1:5], 0, 1)
        coverage = _areas(out[:, 1:]) * w * h / _areas(label[:, 1:])
        valid = np.logical_and(out[:, 3] > out[:, 1], out[:, 4] > out[:, 2])
        valid = np.where(np.logical_and(valid, coverage > self.min_eject_coverage))[0]
        if valid.size < 1:
            return None
        return out[valid, :]

    def _random_crop_proposal(self, label, height, width):
        if not self.enabled or height <= 0 or width <= 0:
            return ()
        min_area = self.area_range[0] * height * width
        max_area = self.area_range[1] * height * width
        for _ in range(self.max_attempts):
            ratio = random.uniform(*self.aspect_ratio_range)
            if ratio <= 0:
                continue
            h = int(round(sqrt(min_area / ratio)))
            max_h = int(round(sqrt(max_area / ratio)))
            if round(max_h * ratio) > width:
                max_h = int((width + 0.4999999) / ratio)
            if max_h > height:
                max_h = height
            if h > max_h:
                h = max_h
            if h < max_h:
                h = random.randint(h, max_h)
            w = int(round(h * ratio))
            area = w * h
            if area < min_area:
                h += 1
                w = int(round(h * ratio))
                area = w * h
            if area > max_area:
                h -= 1
                w = int(round(h * ratio))
                area = w * h
            if not (min_area <= area <= max_area and 0 <= w <= width and 0 <= h <= height):
                continue
            y = random.randint(0, max(0, height - h))
            x = random.randint(0, max(0, width - w))
            if self._check_satisfy_constraints(label, x, y, x + w, y + h, width, height):
                new_label = self._update_labels(label, (x, y, w, h), height, width)
                if new_label is not None:
                    return (x, y, w, h, new_label)
        return ()


class DetRandomPadAug(DetAugmenter):
    """Random expansion: place the image in a larger canvas filled with ``pad_val`` (area
    factor in ``area_range``, aspect ratio in ``aspect_ratio_range``)."""

    def __init__(self, aspect_ratio_range=(0.75, 1.33), area_range=(1.0, 3.0),
                 max_attempts=50, pad_val=(128, 128, 128)):
        if not isinstance(pad_val, (list, tuple)):
            if not isinstance(pad_val, numeric_types):
                raise DTypeError("DetRandomPadAug: pad_val must be a number or a tuple")
        aspect_ratio_range = _range(aspect_ratio_range, "aspect_ratio_range", "DetRandomPadAug")
        area_range = _range(area_range, "area_range", "DetRandomPadAug")
        super().__init__(aspect_ratio_range=aspect_ratio_range, area_range=area_range,
                         max_attempts=max_attempts, pad_val=pad_val)
        self.pad_val = pad_val
        self.aspect_ratio_range = aspect_ratio_range
        self.area_range = area_range
        self.max_attempts = max_attempts
        self.enabled = False
        if area_range[1] <= 1.0 or area_range[0] > area_range[1]:
            warnings.warn(f"Skip DetRandomPadAug due to invalid parameters: {area_range}")
        elif aspect_ratio_range[0] <= 0 or aspect_ratio_range[0] > aspect_ratio_range[1]:
            warnings.warn(f"Skip DetRandomPadAug due to invalid aspect_ratio_range: "
                          f"{aspect_ratio_range}")
        else:
            self.enabled = True

    def __call__(self, src, label):
        height, width = src.shape[0], src.shape[1]
        pad = self._random_pad_proposal(label, height, width)
        if pad:
            x, y, w, h, label = pad
            values = self.pad_val if isinstance(self.pad_val, (list, tuple)) \
                else [self.pad_val] * 3
            src = copyMakeBorder(src, y, h - y - height, x, w - x - width, 0, values=values)
        return src, label

    @staticmethod
    def _update_labels(label, pad_box, height, width):
        out = label.copy()
        out[:, (1, 3)] = (out[:, (1, 3)] * width + pad_box[0]) / pad_box[2]
        out[:, (2, 4)] = (out[:, (2, 4)] * height + pad_box[1]) / pad_box[3]
        return out

    def _random_pad_proposal(self, label, height, width):
        if not self.enabled or height <= 0 or width <= 0:
            return ()
        min_area = self.area_range[0] * height * width
        max_area = self.area_range[1] * height * width
        for _ in range(self.max_attempts):
            ratio = random.uniform(*self.aspect_ratio_range)
            if ratio <= 0:
                continue
            h = int(round(sqrt(min_area / ratio)))
            max_h = int(round(sqrt(max_area / ratio)))
            if round(h * ratio) < width:
                h = int((width + 0.499999) / ratio)
            if h < height:
                h = height
            if h > max_h:
                h = max_h
            if h < max_h:
                h = random.randint(h, max_h)
            w = int(round(h * ratio))
            if (h - height) < 2 or (w - width) < 2:
                continue
            y = random.randint(0, max(0, h - height))
            x = random.randint(0, max(0, w - width))
            return (x, y, w, h, self._update_labels(label, (x, y, w, h), height, width))
        return ()


def CreateMultiRandCropAugmenter(min_object_covered=0.1, aspect_ratio_range=(0.75, 1.33),
                                 area_range=(0.05, 1.0), min_eject_coverage=0.3,
                                 max_attempts=50, skip_prob=0) -> DetRandomSelectAug:
    """One :class:`DetRandomCropAug` per value of the list-valued parameters (scalars are
    repeated), chosen at random; skipped with probability ``skip_prob``."""
    params = []
    num = 1
    for p in [min_object_covered, aspect_ratio_range, area_range, min_eject_coverage,
              max_attempts]:
        p = p if isinstance(p, list) else [p]
        params.append(p)
        num = max(num, len(p))
    for k, p in enumerate(params):
        if len(p) != num:
            if len(p) != 1:
                raise StateError("CreateMultiRandCropAugmenter: list parameters must have the "
                                 "same length")
            params[k] = p * num
    augs = [DetRandomCropAug(min_object_covered=moc, aspect_ratio_range=arr, area_range=ar,
                             min_eject_coverage=mec, max_attempts=ma)
            for moc, arr, ar, mec, ma in zip(*params)]
    return DetRandomSelectAug(augs, skip_prob=skip_prob)


def CreateDetAugmenter(data_shape, resize=0, rand_crop=0, rand_pad=0, rand_gray=0,
                       rand_mirror=False, mean=None, std=None, brightness=0, contrast=0,
                       saturation=0, pca_noise=0, hue=0, inter_method=2, min_object_covered=0.1,
                       aspect_ratio_range=(0.75, 1.33), area_range=(0.05, 3.0),
                       min_eject_coverage=0.3, max_attempts=50,
                       pad_val=(127, 127, 127)) -> List[DetAugmenter]:
    """MXNet's standard detection augmenter list: resize, random crop (probability
    ``rand_crop``), mirror, random pad (probability ``rand_pad``), force-resize to
    ``data_shape``, cast, colour jitter, hue, PCA noise, gray, normalize.

    Examples
    --------
    >>> [a.dumps()[0] if isinstance(a.dumps(), list) else a.dumps()
    ...  for a in CreateDetAugmenter((3, 8, 8), rand_crop=0.5)][:2]
    ['detrandomselectaug', 'detborrowaug']
    """
    auglist: List[DetAugmenter] = []
    if resize > 0:
        auglist.append(DetBorrowAug(ResizeAug(resize, inter_method)))
    if rand_crop > 0:
        auglist.append(CreateMultiRandCropAugmenter(min_object_covered, aspect_ratio_range,
                                                    area_range, min_eject_coverage,
                                                    max_attempts, skip_prob=(1 - rand_crop)))
    if rand_mirror > 0:
        auglist.append(DetHorizontalFlipAug(0.5))
    if rand_pad > 0:
        pad_aug = DetRandomPadAug(aspect_ratio_range, (1.0, area_range[1]), max_attempts,
                                  pad_val)
        auglist.append(DetRandomSelectAug([pad_aug], 1 - rand_pad))
    auglist.append(DetBorrowAug(ForceResizeAug((data_shape[2], data_shape[1]), inter_method)))
    auglist.append(DetBorrowAug(CastAug()))
    if brightness or contrast or saturation:
        auglist.append(DetBorrowAug(ColorJitterAug(brightness, contrast, saturation)))
    if hue:
        auglist.append(DetBorrowAug(HueJitterAug(hue)))
    if pca_noise > 0:
        eigval = np.array([55.46, 4.794, 1.148])
        eigvec = np.array([[-0.5675, 0.7192, 0.4009],
                           [-0.5808, -0.0045, -0.8140],
                           [-0.5836, -0.6948, 0.4203]])
        auglist.append(DetBorrowAug(LightingAug(pca_noise, eigval, eigvec)))
    if rand_gray > 0:
        auglist.append(DetBorrowAug(RandomGrayAug(rand_gray)))
    if mean is True:
        mean = np.array([123.68, 116.28, 103.53])
    elif mean is not None and not (isinstance(mean, np.ndarray) and mean.shape[0] in (1, 3)):
        raise StateError("CreateDetAugmenter: mean must be True or a NumPy array of 1 or 3 "
                         "values")
    if std is True:
        std = np.array([58.395, 57.12, 57.375])
    elif std is not None and not (isinstance(std, np.ndarray) and std.shape[0] in (1, 3)):
        raise StateError("CreateDetAugmenter: std must be True or a NumPy array of 1 or 3 "
                         "values")
    if mean is not None or std is not None:
        auglist.append(DetBorrowAug(ColorNormalizeAug(mean, std)))
    return auglist


class ImageDetIter(ImageIter):
    """Detection iterator (MXNet's ``mx.image.ImageDetIter``): like
    :class:`~mxgrad.image.ImageIter`, with labels ``(batch, max_objects, object_width)``
    padded with -1 and the detection augmenters of :func:`CreateDetAugmenter` (extra
    keyword arguments go there). ``draw_next`` (OpenCV drawing) is not provided.
    """

    def __init__(self, batch_size, data_shape, path_imgrec=None, path_imglist=None,
                 path_root=None, path_imgidx=None, shuffle=False, part_index=0, num_parts=1,
                 aug_list=None, imglist=None, data_name="data", label_name="label",
                 last_batch_handle="pad", **kwargs):
        super().__init__(batch_size=batch_size, data_shape=data_shape,
                         path_imgrec=path_imgrec, path_imglist=path_imglist,
                         path_root=path_root, path_imgidx=path_imgidx, shuffle=shuffle,
                         part_index=part_index, num_parts=num_parts, aug_list=[],
                         imglist=imglist, data_name=data_name, label_name=label_name,
                         last_batch_handle=last_batch_handle)
        self.auglist = CreateDetAugmenter(data_shape, **kwargs) if aug_list is None \
            else aug_list
        label_shape = self._estimate_label_shape()
        self.provide_label = [io.DataDesc(label_name, (self.batch_size,) + label_shape)]
        self.label_shape = label_shape

    @staticmethod
    def _check_valid_label(label):
        if len(label.shape) != 2 or label.shape[1] < 5:
            raise RuntimeError(f"Label with shape (1+, 5+) required, {label} received.")
        valid = np.where(np.logical_and(label[:, 0] >= 0, label[:, 3] > label[:, 1],
                                        label[:, 4] > label[:, 2]))[0]
        if valid.size < 1:
            raise RuntimeError("Invalid label occurs.")

    def _estimate_label_shape(self):
        max_count = 0
        label = None
        self.reset()
        try:
            while True:
                label, _ = self.next_sample()
                label = self._parse_label(label)
                max_count = max(max_count, label.shape[0])
        except StopIteration:
            pass
        self.reset()
        if label is None:
            raise StateError("ImageDetIter: the data source holds no samples")
        return (max_count, label.shape[1])

    @staticmethod
    def _parse_label(label):
        if isinstance(label, NDArray):
            label = label.asnumpy()
        raw = np.asarray(label).ravel()
        if raw.size < 7:
            raise RuntimeError(f"Label shape is invalid: {raw.shape}")
        header_width, obj_width = int(raw[0]), int(raw[1])
        if (raw.size - header_width) % obj_width != 0:
            raise RuntimeError(f"Label shape {raw.shape} inconsistent with annotation width "
                               f"{obj_width}.")
        out = np.reshape(raw[header_width:], (-1, obj_width))
        valid = np.where(np.logical_and(out[:, 3] > out[:, 1], out[:, 4] > out[:, 2]))[0]
        if valid.size < 1:
            raise RuntimeError("Encounter sample with no valid label.")
        return out[valid, :]

    def reshape(self, data_shape=None, label_shape=None) -> None:
        """Change the data shape and/or the (max_objects, object_width) label shape."""
        if data_shape is not None:
            self.check_data_shape(data_shape)
            self.provide_data = [io.DataDesc(self.provide_data[0][0],
                                             (self.batch_size,) + tuple(data_shape))]
            self.data_shape = tuple(data_shape)
        if label_shape is not None:
            self.check_label_shape(label_shape)
            self.provide_label = [io.DataDesc(self.provide_label[0][0],
                                              (self.batch_size,) + tuple(label_shape))]
            self.label_shape = tuple(label_shape)

    def _batchify(self, batch_data, batch_label, start=0):
        i = start
        try:
            while i < self.batch_size:
                label, s = self.next_sample()
                data = self.imdecode(s)
                try:
                    self.check_valid_image([data])
                    label = self._parse_label(label)
                    data, label = self.augmentation_transform(data, label)
                    self._check_valid_label(label)
                except RuntimeError as err:
                    logging.debug("Invalid image, skipping:  %s", err)
                    continue
                batch_data[i] = self.postprocess_data(data)
                num_object = label.shape[0]
                batch_label[i][0:num_object] = nd.array(label)
                if num_object < batch_label[i].shape[0]:
                    batch_label[i][num_object:] = -1
                i += 1
        except StopIteration:
            if not i:
                raise
        return i

    def _empty_label(self):
        return nd.full(self.provide_label[0][1], -1.0)   # unused object rows are -1

    def augmentation_transform(self, data, label):  # pylint: disable=arguments-differ
        """Apply the detection augmenters in order."""
        for aug in self.auglist:
            data, label = aug(data, label)
        return data, label

    def check_label_shape(self, label_shape) -> None:
        """A new label shape may only grow the object count and keep the object width."""
        if not len(label_shape) == 2:
            raise ShapeError("label_shape should have length 2")
        if label_shape[0] < self.label_shape[0]:
            raise ShapeError(f"Attempts to reduce label count from {self.label_shape[0]} to "
                             f"{label_shape[0]}, not allowed.")
        if label_shape[1] != self.provide_label[0][1][2]:
            raise ShapeError(f"label_shape object width inconsistent: "
                             f"{self.provide_label[0][1][2]} vs {label_shape[1]}.")

    def sync_label_shape(self, it: "ImageDetIter", verbose: bool = False) -> "ImageDetIter":
        """Give this iterator and ``it`` the same (larger) max object count."""
        if not isinstance(it, ImageDetIter):
            raise DTypeError("sync_label_shape: it must be an ImageDetIter")
        train_shape, val_shape = self.label_shape, it.label_shape
        if train_shape[1] != val_shape[1]:
            raise ShapeError("sync_label_shape: object width mismatch")
        max_count = max(train_shape[0], val_shape[0])
        if max_count > train_shape[0]:
            self.reshape(None, (max_count, train_shape[1]))
        if max_count > val_shape[0]:
            it.reshape(None, (max_count, val_shape[1]))
        if verbose and max_count > min(train_shape[0], val_shape[0]):
            logging.info("Resized label_shape to (%d, %d).", max_count, train_shape[1])
        return it

"""Datasets: indexable collections of samples (``__getitem__`` and ``__len__``).

Examples
--------
>>> import numpy as np
>>> from mxgrad.gluon.data import ArrayDataset
>>> ds = ArrayDataset(np.arange(6).reshape(3, 2), np.array([0, 1, 0]))
>>> x, y = ds[1]
>>> len(ds), x, int(y)
(3, array([2, 3]), 1)
"""
from __future__ import annotations

from typing import Any, Callable, Optional

import numpy as np

from ...base import DTypeError, MXNetError, OutOfRangeError, ShapeError, StateError
from ..._engine.ndarray import NDArray, mode_face, wrap

__all__ = ["Dataset", "SimpleDataset", "ArrayDataset", "RecordFileDataset"]


class DataArgumentError(StateError, AssertionError):
    """A bad argument to a dataset method. Also an ``AssertionError``, which is what
    MXNet raises in these places, so code catching either keeps working."""


class DataLengthError(ShapeError, AssertionError):
    """Arrays of different lengths given to :class:`ArrayDataset` (also an
    ``AssertionError``, as in MXNet)."""


def _check_sized(data, where: str) -> None:
    if not (hasattr(data, "__len__") and hasattr(data, "__getitem__")):
        raise DTypeError(f"{where} must support len() and indexing (an NDArray, a NumPy "
                         f"array, a list, a Dataset), got {type(data).__name__}")


def _check_index(idx, length: int, where: str) -> int:
    """A sample index: an int in ``[-length, length)``."""
    from ..._check import as_int
    i = as_int(idx, f"{where}: index")
    if not -length <= i < length:
        raise OutOfRangeError(f"{where}: index {i} is out of range for {length} samples")
    return i


class Dataset:
    """Abstract dataset: subclasses define ``__getitem__(idx)`` (the idx-th sample) and
    ``__len__``. NumPy arrays, NDArrays and lists can be used as datasets directly.

    Examples
    --------
    >>> ds = SimpleDataset([1, 2, 3, 4])
    >>> list(ds.transform(lambda x: x * 10))
    [10, 20, 30, 40]
    >>> list(ds.filter(lambda x: x > 2)), list(ds.take(2)), list(ds.shard(2, 1))
    ([3, 4], [1, 2], [3, 4])
    """

    def __getitem__(self, idx):
        raise NotImplementedError

    def __len__(self) -> int:
        raise NotImplementedError

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    def _fetch_batch(self, indices) -> Optional[object]:
        """Vectorised equivalent of ``default_batchify_fn([self[i] for i in indices])``,
        or None when this dataset cannot produce it faster (the DataLoader then batches
        sample by sample)."""
        return None

    def filter(self, fn: Callable) -> "Dataset":
        """A dataset of the samples for which ``fn(sample)`` is true (evaluated now).

        Examples
        --------
        >>> list(SimpleDataset(range(6)).filter(lambda x: x % 3 == 0))
        [0, 3]
        """
        from .sampler import FilterSampler
        return _SampledDataset(self, FilterSampler(fn, self))

    def shard(self, num_shards: int, index: int) -> "Dataset":
        """The ``index``-th of ``num_shards`` contiguous parts of this dataset (the first
        ``len % num_shards`` parts get one extra sample).

        Examples
        --------
        >>> [list(SimpleDataset(range(5)).shard(2, i)) for i in range(2)]
        [[0, 1, 2], [3, 4]]
        """
        if num_shards <= 0:
            raise DataArgumentError(f"shard: num_shards must be positive, got {num_shards}")
        if not 0 <= index < num_shards:
            raise DataArgumentError(f"shard: index {index} is out of range for "
                                    f"{num_shards} shards (0 <= index < num_shards)")
        n = len(self)
        size, rest = divmod(n, num_shards)
        start = size * index + min(index, rest)
        end = start + size + (1 if index < rest else 0)
        from .sampler import SequentialSampler
        return _SampledDataset(self, SequentialSampler(end - start, start))

    def take(self, count: Optional[int]) -> "Dataset":
        """A dataset of the first ``count`` samples (all of them if ``count`` is None or
        larger than the dataset).

        Examples
        --------
        >>> len(SimpleDataset(range(5)).take(10))
        5
        """
        if count is None or count > len(self):
            count = len(self)
        from .sampler import SequentialSampler
        return _SampledDataset(self, SequentialSampler(count))

    def sample(self, sampler) -> "Dataset":
        """A dataset of the samples whose indices ``sampler`` yields (in that order).

        Examples
        --------
        >>> from mxgrad.gluon.data import SequentialSampler
        >>> list(SimpleDataset('abcd').sample(SequentialSampler(2, start=1)))
        ['b', 'c']
        """
        from .sampler import Sampler
        if not isinstance(sampler, Sampler):
            raise MXNetError(f"Dataset.sample: expected a gluon.data.Sampler, got "
                             f"{type(sampler).__name__}")
        return _SampledDataset(self, sampler)

    def transform(self, fn: Callable, lazy: bool = True) -> "Dataset":
        """A dataset whose samples are ``fn(sample)`` (``fn(*sample)`` for tuple samples).

        Parameters
        ----------
        fn : callable
            The transformation.
        lazy : bool, default True
            Transform each sample when it is read. If False, transform everything now
            (do not use with random transforms: the result would be fixed).

        Examples
        --------
        >>> ds = ArrayDataset([1, 2], [3, 4]).transform(lambda x, y: x + y)
        >>> list(ds)
        [4, 6]
        """
        trans = _LazyTransformDataset(self, fn)
        if lazy:
            return trans
        return SimpleDataset([trans[i] for i in range(len(trans))])

    def transform_first(self, fn: Callable, lazy: bool = True) -> "Dataset":
        """Like :meth:`transform`, but only the first element of each sample (the data,
        not the label) goes through ``fn``.

        Examples
        --------
        >>> list(ArrayDataset([1, 2], [3, 4]).transform_first(lambda x: -x))
        [(-1, 3), (-2, 4)]
        """
        return self.transform(_TransformFirstClosure(fn), lazy)


class SimpleDataset(Dataset):
    """Wraps any object with ``len()`` and ``[]`` (a list, an array...).

    Examples
    --------
    >>> ds = SimpleDataset([10, 20]); ds[1], len(ds)
    (20, 2)
    """

    def __init__(self, data):
        _check_sized(data, "SimpleDataset: data")
        self._data = data

    def __len__(self) -> int:
        return len(self._data)

    def __getitem__(self, idx):
        if hasattr(idx, "__index__"):
            idx = _check_index(idx, len(self._data), "SimpleDataset")
        return self._data[idx]


class _LazyTransformDataset(Dataset):
    """A dataset transformed sample by sample when read."""

    def __init__(self, data, fn: Callable):
        self._data = data
        self._fn = fn

    def __len__(self) -> int:
        return len(self._data)

    def __getitem__(self, idx):
        item = self._data[idx]
        if isinstance(item, tuple):
            return self._fn(*item)
        return self._fn(item)

    def _fetch_batch(self, indices):
        # Deterministic image transforms (ToTensor, Normalize, Cast, Resize, CenterCrop
        # and Compose of them) give the same result on a stacked batch as sample by
        # sample, so they run once per batch.
        fn = self._fn
        first_only = isinstance(fn, _TransformFirstClosure)
        inner = fn._fn if first_only else fn
        can_batch = getattr(inner, "_can_batch", None)
        fetch = getattr(self._data, "_fetch_batch", None)
        if can_batch is None or fetch is None or not can_batch():
            return None
        batch = fetch(indices)
        if batch is None or (isinstance(batch, list) and not first_only):
            return None
        try:
            if isinstance(batch, list):
                return [inner(batch[0])] + batch[1:]
            return inner(batch)
        except ShapeError:      # samples the transform takes only one at a time
            return None


class _TransformFirstClosure:
    """Applies ``fn`` to the first element of a sample (a class so that it pickles)."""

    def __init__(self, fn: Callable):
        self._fn = fn

    def __call__(self, x, *args):
        if args:
            return (self._fn(x),) + args
        return self._fn(x)


class _SampledDataset(Dataset):
    """The samples of ``dataset`` at the indices a sampler yields (fixed at creation)."""

    def __init__(self, dataset, sampler):
        self._dataset = dataset
        self._indices = list(sampler)

    def __len__(self) -> int:
        return len(self._indices)

    def __getitem__(self, idx):
        return self._dataset[self._indices[idx]]

    def _fetch_batch(self, indices):
        fetch = getattr(self._dataset, "_fetch_batch", None)
        if fetch is None:
            return None
        return fetch([self._indices[i] for i in indices])


def _take_rows(data, indices):
    """Fancy-index the first axis of a NumPy array or NDArray into a new NDArray that
    keeps the dtype, or None for other containers."""
    if isinstance(data, NDArray):
        return wrap(data._data[np.asarray(indices, dtype=np.intp)], None, 0, type(data))
    if isinstance(data, np.ndarray) and data.dtype.kind in "biuf":
        return wrap(data[np.asarray(indices, dtype=np.intp)], None, 0, mode_face())
    return None


def _get_row(data, idx):
    """``data[idx]``; for an NDArray with an integer index, a view of that row."""
    if isinstance(data, NDArray) and isinstance(idx, (int, np.integer)):
        return wrap(data._data[idx], None, 0, type(data))
    return data[idx]


class ArrayDataset(Dataset):
    """Combines dataset-like objects of equal length (NDArrays, NumPy arrays, lists,
    Datasets): sample ``i`` is ``(a1[i], a2[i], ...)``, or just ``a1[i]`` for one
    argument. A 1-D NDArray is converted to NumPy (as MXNet does), so its samples are
    NumPy scalars.

    Parameters
    ----------
    *args : dataset-like objects
        The arrays; all must have the same length.

    Examples
    --------
    >>> import mxgrad as mx
    >>> ds = ArrayDataset(mx.nd.ones((4, 2)), mx.nd.array([0, 1, 2, 3]))
    >>> x, y = ds[2]
    >>> x.shape, float(y)
    ((2,), 2.0)
    """

    def __init__(self, *args):
        if not args:
            raise DataArgumentError("ArrayDataset needs at least 1 array")
        for i, data in enumerate(args):
            _check_sized(data, f"ArrayDataset: argument {i}")
        self._length = len(args[0])
        self._data = []
        for i, data in enumerate(args):
            if len(data) != self._length:
                lens = ", ".join(f"argument {j} has length {len(d)}" for j, d in
                                 enumerate(args))
                raise DataLengthError(f"ArrayDataset: all arrays must have the same length; "
                                      f"{lens}")
            if type(data) is NDArray and data.ndim == 1:
                data = np.asarray(data.asnumpy())   # a plain ndarray (asnumpy: HostArray)
            self._data.append(data)

    def __getitem__(self, idx):
        idx = _check_index(idx, self._length, "ArrayDataset")
        if len(self._data) == 1:
            return _get_row(self._data[0], idx)
        return tuple(_get_row(data, idx) for data in self._data)

    def __len__(self) -> int:
        return self._length

    def _fetch_batch(self, indices):
        parts = []
        for data in self._data:
            part = _take_rows(data, indices)
            if part is None:
                return None
            parts.append(part)
        return parts[0] if len(parts) == 1 else parts


class RecordFileDataset(Dataset):
    """Records of a RecordIO file (``filename``, with its index ``<name>.idx`` beside it):
    sample ``i`` is the raw ``bytes`` of the i-th record listed in the index.

    Examples
    --------
    >>> import os, tempfile
    >>> import mxgrad as mx
    >>> d = tempfile.mkdtemp()
    >>> w = mx.recordio.MXIndexedRecordIO(os.path.join(d, 'r.idx'), os.path.join(d, 'r.rec'), 'w')
    >>> for i in range(3):
    ...     w.write_idx(i, b'rec%d' % i)
    >>> w.close()
    >>> ds = RecordFileDataset(os.path.join(d, 'r.rec'))
    >>> len(ds), ds[2]
    (3, b'rec2')
    """

    def __init__(self, filename: str):
        import os
        from ... import recordio
        self.idx_file = os.path.splitext(filename)[0] + ".idx"
        self.filename = filename
        self._record = recordio.MXIndexedRecordIO(self.idx_file, self.filename, "r")

    def __getitem__(self, idx):
        return self._record.read_idx(self._record.keys[idx])

    def __len__(self) -> int:
        return len(self._record.keys)


class _DownloadedDataset(Dataset):
    """Base of the vision datasets: ``self._data`` (NDArray of images) and
    ``self._label`` (NumPy array) filled by ``_get_data``; ``transform(data, label)``."""

    def __init__(self, root: str, transform: Optional[Callable]):
        import os
        self._transform = transform
        self._data: Any = None
        self._label: Any = None
        root = os.path.expanduser(root)
        self._root = root
        if not os.path.isdir(root):
            os.makedirs(root)
        self._get_data()

    def __getitem__(self, idx):
        data, label = _get_row(self._data, idx), self._label[idx]
        if self._transform is not None:
            return self._transform(data, label)
        return data, label

    def __len__(self) -> int:
        return len(self._label)

    def _get_data(self):
        raise NotImplementedError

    def _fetch_batch(self, indices):
        if self._transform is not None:
            return None
        return [_take_rows(self._data, indices), _take_rows(self._label, indices)]

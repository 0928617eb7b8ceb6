"""DataLoader: iterate over a dataset in mini-batches.

mxgrad loads every batch in the calling process: ``num_workers``, ``thread_pool``,
``prefetch``, ``pin_memory`` and ``timeout`` are accepted for MXNet compatibility and
change nothing (NumPy does the batching work in vectorised calls, and no worker
processes or threads are started). When the dataset is an :class:`ArrayDataset`, a
vision dataset without transform, an NDArray or a NumPy array, and the default
``batchify_fn`` is used, each batch is gathered with one fancy-indexing call per array
instead of sample by sample; deterministic image transforms given to
``transform_first`` (``ToTensor``, ``Normalize``, ``Cast``, ``Resize``, ``CenterCrop``
and ``Compose`` of them) then run once on the whole batch. The result is the same as
sample by sample, about 25 times faster for an MNIST-style pipeline.

Examples
--------
>>> import numpy as np
>>> from mxgrad.gluon.data import ArrayDataset, DataLoader
>>> X, y = np.arange(10, dtype='float32').reshape(5, 2), np.array([0, 1, 0, 1, 1])
>>> for xb, yb in DataLoader(ArrayDataset(X, y), batch_size=2, last_batch='discard'):
...     print(xb.shape, yb.asnumpy())
(2, 2) [0 1]
(2, 2) [0 1]
"""
from __future__ import annotations

from typing import Callable, Optional

import numpy as np

from ...base import DTypeError, ShapeError, StateError
from ..._engine.ndarray import NDArray, mode_face, wrap
from . import sampler as _sampler

__all__ = ["DataLoader", "default_batchify_fn", "default_mp_batchify_fn"]


def _stack(arrays, what):
    try:
        return np.stack(arrays)
    except ValueError:
        shapes = sorted({a.shape for a in arrays}, key=str)
        raise ShapeError(f"default_batchify_fn: cannot stack {what} of different shapes "
                         f"{', '.join(map(str, shapes))} into one batch; make the samples "
                         f"the same shape (e.g. with a transform) or pass a batchify_fn "
                         f"to the DataLoader") from None


def default_batchify_fn(data):
    """Collate a list of samples into a batch, as MXNet's ``default_batchify_fn``:

    * NDArray samples are stacked into one NDArray (new first axis), dtype kept;
    * tuple samples are batched field by field into a *list* of batches;
    * anything else (NumPy arrays, NumPy or Python scalars) goes through
      ``numpy.asarray`` and becomes an NDArray of that NumPy dtype (so Python ints give
      int64, Python floats float64, float32 NumPy values float32).

    Examples
    --------
    >>> import mxgrad as mx
    >>> b = default_batchify_fn([(mx.nd.ones((2,)), 1), (mx.nd.zeros((2,)), 0)])
    >>> b[0].shape, b[1].asnumpy().tolist(), b[1].dtype
    ((2, 2), [1, 0], <class 'numpy.int64'>)
    """
    first = data[0]
    if isinstance(first, NDArray):
        return wrap(_stack([d._data if isinstance(d, NDArray) else np.asarray(d)
                            for d in data], "NDArray samples"), None, 0,
                    type(first) if type(first) is not NDArray else mode_face())
    if isinstance(first, tuple):
        return [default_batchify_fn(list(field)) for field in zip(*data)]
    try:
        arr = np.asarray(data)
    except ValueError:
        arr = _stack([np.asarray(d) for d in data], "samples")
    if arr.dtype.kind not in "biufc":
        raise DTypeError(f"default_batchify_fn: cannot make a numeric batch from samples of "
                         f"type {type(first).__name__} (NumPy dtype {arr.dtype}); pass a "
                         f"batchify_fn to the DataLoader")
    if arr is data:     # called with an array: do not share its memory
        arr = arr.copy()
    face = mode_face()
    if arr.ndim == 0 and face is NDArray:
        arr = arr.reshape(1)
    return wrap(arr, None, 0, face)


#: In MXNet the multi-worker variant stacks into shared memory; mxgrad uses one process.
default_mp_batchify_fn = default_batchify_fn


def _fast_batch(dataset, indices):
    """``default_batchify_fn([dataset[i] for i in indices])`` in one gather, or None."""
    if isinstance(dataset, NDArray):
        out = dataset._data[np.asarray(indices, dtype=np.intp)]
        if dataset.ndim == 1 and type(dataset) is NDArray:
            out = out.reshape(-1, 1)   # samples of a 1-D NDArray have shape (1,) in MXNet
        return wrap(out, None, 0, type(dataset))
    if isinstance(dataset, np.ndarray):
        if dataset.dtype.kind not in "biufc":
            return None
        return wrap(dataset[np.asarray(indices, dtype=np.intp)], None, 0, mode_face())
    fetch = getattr(dataset, "_fetch_batch", None)
    if fetch is None:
        return None
    return fetch(indices)


class _LoaderIter:
    """One pass over a DataLoader (``len`` gives the number of batches)."""

    def __init__(self, loader: "DataLoader"):
        self._loader = loader
        self._batches = iter(loader._batch_sampler)

    def __len__(self) -> int:
        return len(self._loader)

    def __iter__(self):
        return self

    def __next__(self):
        indices = next(self._batches)
        return self._loader._load(indices)

    next = __next__


def _check_loader_args(dataset, shuffle, sampler, last_batch, batch_sampler, batchify_fn,
                       num_workers) -> None:
    """DataLoader's arguments, checked before anything is built (issue 11)."""
    from ..._check import as_int
    if not (hasattr(dataset, "__getitem__") and hasattr(dataset, "__len__")):
        raise DTypeError(f"DataLoader: dataset must support len() and indexing (a Dataset, "
                         f"an NDArray, a list...), got {type(dataset).__name__}")
    if not isinstance(shuffle, (bool, np.bool_, int)) or isinstance(shuffle, np.ndarray):
        raise DTypeError(f"DataLoader: shuffle must be True or False, got {shuffle!r:.40}")
    if sampler is not None and not (hasattr(sampler, "__iter__") and hasattr(sampler, "__len__")):
        raise DTypeError(f"DataLoader: sampler must be a Sampler (iterable with a length), "
                         f"got {type(sampler).__name__}")
    if batch_sampler is not None and not hasattr(batch_sampler, "__iter__"):
        raise DTypeError(f"DataLoader: batch_sampler must be an iterable of index lists (a "
                         f"BatchSampler, a generator...), got {type(batch_sampler).__name__}")
    if isinstance(sampler, str) or isinstance(batch_sampler, str):
        raise DTypeError("DataLoader: sampler and batch_sampler must be Samplers, not str")
    if last_batch is not None and (not isinstance(last_batch, str)
                                   or last_batch not in ("keep", "discard", "rollover")):
        raise StateError(f"DataLoader: last_batch must be 'keep', 'discard' or 'rollover', "
                         f"got {last_batch!r:.40}")
    if batchify_fn is not None and not callable(batchify_fn):
        raise DTypeError(f"DataLoader: batchify_fn must be callable, got "
                         f"{type(batchify_fn).__name__}")
    as_int(num_workers, "DataLoader: num_workers")


class DataLoader:
    """Loads a dataset and returns mini-batches.

    Parameters
    ----------
    dataset : Dataset
        The source; NDArrays, NumPy arrays and lists work as datasets too.
    batch_size : int
        Size of each mini-batch (required unless ``batch_sampler`` is given).
    shuffle : bool, default False
        Visit the samples in a new random order every epoch (mxgrad's random generator:
        ``mx.random.seed`` makes it repeatable). Not together with ``sampler``.
    sampler : Sampler, optional
        The order of the sample indices. Not together with ``shuffle``.
    last_batch : {'keep', 'discard', 'rollover'}, default 'keep'
        Handling of a final incomplete batch: returned shorter, dropped, or its samples
        carried over to the start of the next epoch.
    batch_sampler : iterable, optional
        Yields lists of indices (any iterable, as in MXNet; ``len(loader)`` then needs its
        ``len``); then ``batch_size``, ``shuffle``, ``sampler`` and ``last_batch`` must not
        be given.
    batchify_fn : callable, optional
        Merges a list of samples into a batch; :func:`default_batchify_fn` by default.
    num_workers, pin_memory, pin_device_id, prefetch, thread_pool, timeout, try_nopython
        Accepted for MXNet compatibility; mxgrad always loads in the calling process
        (no worker processes or threads), so these change nothing.
    auto_reload : bool, default False
        MXNet's prefetching of the next epoch when one ends; mxgrad loads each batch when it
        is asked for, so batches are the same either way (:meth:`refresh` and
        :meth:`clean` exist too).

    Examples
    --------
    >>> import numpy as np, mxgrad as mx
    >>> from mxgrad.gluon.data import ArrayDataset
    >>> X = mx.nd.array(np.arange(10).reshape(5, 2))
    >>> ds = ArrayDataset(X, mx.nd.array([0, 1, 2, 3, 4]))
    >>> loader = DataLoader(ds, batch_size=2)
    >>> len(loader)
    3
    >>> [y.asnumpy().tolist() for _, y in loader]
    [[0.0, 1.0], [2.0, 3.0], [4.0]]
    """

    def __init__(self, dataset, batch_size: Optional[int] = None, shuffle: bool = False,
                 sampler=None, last_batch: Optional[str] = None, batch_sampler=None,
                 batchify_fn: Optional[Callable] = None, num_workers: int = 0,
                 pin_memory: bool = False, pin_device_id: int = 0,
                 prefetch: Optional[int] = None, thread_pool: bool = False,
                 timeout: int = 120, try_nopython=None, auto_reload: bool = False):
        _check_loader_args(dataset, shuffle, sampler, last_batch, batch_sampler, batchify_fn,
                           num_workers)
        self._dataset = dataset
        if batch_sampler is None:
            if batch_size is None:
                raise StateError("DataLoader: batch_size must be specified unless "
                                 "batch_sampler is specified")
            if sampler is None:
                n = len(dataset)
                sampler = _sampler.RandomSampler(n) if shuffle else \
                    _sampler.SequentialSampler(n)
            elif shuffle:
                raise StateError("DataLoader: shuffle must not be specified if sampler is "
                                 "specified (the sampler decides the order)")
            batch_sampler = _sampler.BatchSampler(sampler, batch_size,
                                                  last_batch if last_batch else "keep")
        elif batch_size is not None or shuffle or sampler is not None or \
                last_batch is not None:
            raise StateError("DataLoader: batch_size, shuffle, sampler and last_batch must "
                             "not be specified if batch_sampler is specified")
        self._batch_sampler = batch_sampler
        self._num_workers = max(int(num_workers), 0)
        self._pin_memory = pin_memory
        self._prefetch = prefetch
        self._thread_pool = thread_pool
        self._timeout = timeout
        self._batchify_fn = default_batchify_fn if batchify_fn is None else batchify_fn
        self.auto_reload = bool(auto_reload)

    def refresh(self) -> None:
        """MXNet's "fetch the next epoch ahead": nothing to do when loading is lazy."""

    def clean(self) -> None:
        """MXNet's "drop the prefetched epoch": nothing to drop when loading is lazy."""

    def _load(self, indices):
        if self._batchify_fn is default_batchify_fn:
            batch = _fast_batch(self._dataset, indices)
            if batch is not None:
                return batch
        dataset = self._dataset
        return self._batchify_fn([dataset[i] for i in indices])

    def __iter__(self) -> _LoaderIter:
        return _LoaderIter(self)

    def __len__(self) -> int:
        if not hasattr(self._batch_sampler, "__len__"):
            raise DTypeError(f"len(DataLoader): its batch_sampler "
                             f"({type(self._batch_sampler).__name__}) has no length; iterate "
                             f"it instead")
        return len(self._batch_sampler)

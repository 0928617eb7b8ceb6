"""Samplers: iterables of dataset indices (one index at a time, or batches of them).

:class:`RandomSampler` draws its permutation from mxgrad's random generator, so
``mx.random.seed(n)`` makes the shuffling reproducible.

Examples
--------
>>> from mxgrad.gluon.data import SequentialSampler, BatchSampler
>>> list(BatchSampler(SequentialSampler(5), 2, 'keep'))
[[0, 1], [2, 3], [4]]
"""
from __future__ import annotations

import operator
from typing import Callable, Iterator, List

from ...base import StateError
from ... import random as _random

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "FilterSampler", "BatchSampler",
           "IntervalSampler", "SplitSampler"]

_LAST_BATCH = ("keep", "discard", "rollover")


class Sampler:
    """Base class for samplers: subclasses define ``__iter__`` and ``__len__``."""

    def __iter__(self) -> Iterator:
        raise NotImplementedError

    def __len__(self) -> int:
        raise NotImplementedError


def _check_length(length, what: str) -> int:
    try:
        n = int(length)
    except (TypeError, ValueError):
        raise StateError(f"{what}: length must be a non-negative integer, "
                         f"got {length!r}") from None
    if n != length or n < 0:
        raise StateError(f"{what}: length must be a non-negative integer, got {length!r}")
    return n


class SequentialSampler(Sampler):
    """Samples ``start, start+1, ..., start+length-1`` in order.

    Parameters
    ----------
    length : int
        Number of indices.
    start : int, default 0
        First index.

    Examples
    --------
    >>> list(SequentialSampler(3, start=2))
    [2, 3, 4]
    """

    def __init__(self, length: int, start: int = 0):
        self._length = _check_length(length, "SequentialSampler")
        self._start = int(start)

    def __iter__(self) -> Iterator[int]:
        return iter(range(self._start, self._start + self._length))

    def __len__(self) -> int:
        return self._length


class RandomSampler(Sampler):
    """Samples ``0 .. length-1`` in a random order (without replacement), a new order on
    every pass. Uses mxgrad's random generator (``mx.random.seed`` makes it repeatable).

    Parameters
    ----------
    length : int
        Number of indices.

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.random.seed(1)
    >>> sorted(RandomSampler(4))
    [0, 1, 2, 3]
    """

    def __init__(self, length: int):
        self._length = _check_length(length, "RandomSampler")

    def __iter__(self) -> Iterator[int]:
        return iter(_random.generator().permutation(self._length).tolist())

    def __len__(self) -> int:
        return self._length


class FilterSampler(Sampler):
    """Samples the indices of the elements of ``dataset`` for which ``fn`` is true.

    Parameters
    ----------
    fn : callable
        Takes a sample, returns a bool.
    dataset : Dataset
        The dataset to filter (read once, at construction).

    Examples
    --------
    >>> list(FilterSampler(lambda x: x % 2 == 0, [5, 6, 7, 8]))
    [1, 3]
    """

    def __init__(self, fn: Callable, dataset):
        self._indices = [i for i in range(len(dataset)) if fn(dataset[i])]

    def __iter__(self) -> Iterator[int]:
        return iter(self._indices)

    def __len__(self) -> int:
        return len(self._indices)


class IntervalSampler(Sampler):
    """Samples ``0, interval, 2*interval, ...`` below ``length``; with ``rollover`` it
    then continues from 1, 2, ... so that every index is visited once.

    Parameters
    ----------
    length : int
        Number of indices.
    interval : int
        Step between consecutive indices.
    rollover : bool, default True
        Continue with the skipped indices after each pass.

    Examples
    --------
    >>> list(IntervalSampler(5, 2))
    [0, 2, 4, 1, 3]
    >>> list(IntervalSampler(5, 2, rollover=False))
    [0, 2, 4]
    """

    def __init__(self, length: int, interval: int, rollover: bool = True):
        self._length = _check_length(length, "IntervalSampler")
        if int(interval) < 1:
            raise StateError(f"IntervalSampler: interval must be a positive integer, "
                             f"got {interval!r}")
        if int(interval) > max(self._length, 1):
            raise StateError(f"IntervalSampler: interval {interval} is larger than the "
                             f"length {length}")
        self._interval = int(interval)
        self._rollover = bool(rollover)

    def __iter__(self) -> Iterator[int]:
        starts = range(self._interval) if self._rollover else range(1)
        for s in starts:
            yield from range(s, self._length, self._interval)

    def __len__(self) -> int:
        if self._rollover:
            return self._length
        return (self._length + self._interval - 1) // self._interval


class BatchSampler(Sampler):
    """Groups the indices of another sampler into lists of ``batch_size``.

    Parameters
    ----------
    sampler : Sampler (or any iterable of indices with ``len``)
        The source of indices.
    batch_size : int
        Size of each batch.
    last_batch : {'keep', 'discard', 'rollover'}, default 'keep'
        What to do with a final incomplete batch: 'keep' returns it (shorter),
        'discard' drops it, 'rollover' carries its indices over to the start of the
        next pass.

    Examples
    --------
    >>> s = BatchSampler(SequentialSampler(5), 2, 'rollover')
    >>> list(s), list(s)
    ([[0, 1], [2, 3]], [[4, 0], [1, 2], [3, 4]])
    >>> len(BatchSampler(SequentialSampler(5), 2, 'discard'))
    2
    """

    def __init__(self, sampler, batch_size: int, last_batch: str = "keep"):
        try:
            batch_size = operator.index(batch_size)
        except TypeError:
            raise StateError(f"BatchSampler: batch_size must be a positive integer, "
                             f"got {batch_size!r}") from None
        if batch_size < 1:
            raise StateError(f"BatchSampler: batch_size must be a positive integer, "
                             f"got {batch_size}")
        if last_batch not in _LAST_BATCH:
            raise StateError(f"last_batch must be one of 'keep', 'discard', or 'rollover', "
                             f"but got {last_batch!r}")
        self._sampler = sampler
        self._batch_size = batch_size
        self._last_batch = last_batch
        self._prev: List[int] = []

    def __iter__(self) -> Iterator[List[int]]:
        batch, self._prev = self._prev, []
        bs = self._batch_size
        for i in self._sampler:
            batch.append(i)
            if len(batch) == bs:
                yield batch
                batch = []
        if batch:
            if self._last_batch == "keep":
                yield batch
            elif self._last_batch == "rollover":
                self._prev = batch

    def __len__(self) -> int:
        n, bs = len(self._sampler), self._batch_size
        if self._last_batch == "keep":
            return (n + bs - 1) // bs
        if self._last_batch == "discard":
            return n // bs
        return (len(self._prev) + n) // bs


class SplitSampler(Sampler):
    """Samples part ``part_index`` of ``num_parts`` equal contiguous parts of
    ``0 .. length-1`` (shuffled on every pass unless ``shuffle=False``): each worker of a
    data-parallel job reads its own part, as in MXNet's distributed-training example.

    ``length // num_parts`` indices per part (the remainder is dropped, so every worker
    runs the same number of steps).

    Parameters
    ----------
    length : int
        Size of the dataset.
    num_parts : int
        Number of parts (``kv.num_workers``).
    part_index : int
        This part (``kv.rank``).
    shuffle : bool, default True
        Shuffle the part with mxgrad's random generator on each pass.

    Examples
    --------
    >>> list(SplitSampler(10, num_parts=3, part_index=1, shuffle=False))
    [3, 4, 5]
    """

    def __init__(self, length: int, num_parts: int = 1, part_index: int = 0,
                 shuffle: bool = True):
        length = _check_length(length, "SplitSampler")
        if not isinstance(num_parts, int) or num_parts < 1:
            raise StateError(f"SplitSampler: num_parts must be a positive int, got "
                             f"{num_parts!r}")
        if not isinstance(part_index, int) or not 0 <= part_index < num_parts:
            raise StateError(f"SplitSampler: part_index must be in [0, {num_parts}), got "
                             f"{part_index!r}")
        self._part_len = length // num_parts
        self._start = self._part_len * part_index
        self._shuffle = shuffle

    def __iter__(self) -> Iterator[int]:
        if self._shuffle:
            order = _random.generator().permutation(self._part_len) + self._start
            return iter(order.tolist())
        return iter(range(self._start, self._start + self._part_len))

    def __len__(self) -> int:
        return self._part_len

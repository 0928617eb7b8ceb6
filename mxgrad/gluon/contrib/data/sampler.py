"""Samplers of ``gluon.contrib.data`` (MXNet 1.x)."""
from __future__ import annotations

from typing import Iterator

from ....base import StateError
from ...data.sampler import Sampler

__all__ = ["IntervalSampler"]


class IntervalSampler(Sampler):
    """Indices ``0, interval, 2*interval, ...`` below ``length``; with ``rollover`` the pass
    is repeated from ``1``, ``2``, ... up to ``interval - 1``, so every index comes once
    (MXNet's sampler for truncated back-propagation over interleaved sequences).

    Examples
    --------
    >>> list(IntervalSampler(7, 3)), list(IntervalSampler(7, 3, rollover=False))
    ([0, 3, 6, 1, 4, 2, 5], [0, 3, 6])
    """

    def __init__(self, length: int, interval: int, rollover: bool = True) -> None:
        if not isinstance(length, int) or not isinstance(interval, int) or length < 0:
            raise StateError(f"IntervalSampler: length and interval must be ints (length >= "
                             f"0), got {length!r} and {interval!r}")
        if not 0 < interval <= max(length, 1):
            raise StateError(f"IntervalSampler: interval {interval} must be in [1, "
                             f"{max(length, 1)}] (the length)")
        self._length = length
        self._interval = interval
        self._rollover = rollover

    def __iter__(self) -> Iterator[int]:
        for start in range(self._interval if self._rollover else 1):
            yield from range(start, self._length, self._interval)

    def __len__(self) -> int:
        return self._length if self._rollover else len(range(0, self._length, self._interval))

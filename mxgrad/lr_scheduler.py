"""Learning-rate schedules (``mx.lr_scheduler``), as in MXNet 1.x.

A scheduler is called with the number of updates done so far and returns the learning
rate. Optimizers call it with their ``num_update`` when a scheduler is given.

Examples
--------
>>> import mxgrad as mx
>>> s = mx.lr_scheduler.FactorScheduler(step=2, factor=0.5, base_lr=1.0)
>>> [s(t) for t in range(1, 8)]
[1.0, 1.0, 0.5, 0.5, 0.25, 0.25, 0.125]
>>> c = mx.lr_scheduler.CosineScheduler(max_update=10, base_lr=1.0, final_lr=0.0)
>>> [round(c(t), 3) for t in (0, 5, 10, 20)]
[1.0, 0.5, 0.0, 0.0]
"""
from __future__ import annotations

import logging
from math import cos, pi
from typing import List

from .base import StateError

__all__ = ["LRScheduler", "FactorScheduler", "MultiFactorScheduler", "PolyScheduler",
           "CosineScheduler"]


class LRScheduler:
    """Base class of learning-rate schedules, with optional warm-up.

    Parameters
    ----------
    base_lr : float
        The learning rate after warm-up.
    warmup_steps : int
        Number of warm-up updates.
    warmup_begin_lr : float
        Learning rate at update 0 of the warm-up.
    warmup_mode : {'linear', 'constant'}
        Linear ramp from ``warmup_begin_lr`` to ``base_lr``, or constant
        ``warmup_begin_lr``.
    """

    def __init__(self, base_lr: float = 0.01, warmup_steps: int = 0, warmup_begin_lr: float = 0,
                 warmup_mode: str = "linear") -> None:
        self.base_lr = base_lr
        if not isinstance(warmup_steps, int):
            raise StateError(f"warmup_steps must be an int, got {warmup_steps!r}")
        self.warmup_steps = warmup_steps
        self.warmup_final_lr = base_lr
        self.warmup_begin_lr = warmup_begin_lr
        if self.warmup_begin_lr > self.warmup_final_lr:
            raise StateError("Base lr has to be higher than warmup_begin_lr")
        if self.warmup_steps < 0:
            raise StateError("Warmup steps has to be positive or 0")
        if warmup_mode not in ("linear", "constant"):
            raise StateError(f"Supports only linear and constant modes of warmup, got "
                             f"{warmup_mode!r}")
        self.warmup_mode = warmup_mode

    def get_warmup_lr(self, num_update: int) -> float:
        """Learning rate during warm-up (``num_update < warmup_steps``)."""
        if num_update >= self.warmup_steps:
            raise StateError(f"update {num_update} is past the {self.warmup_steps} warm-up "
                             f"steps")
        if self.warmup_mode == "linear":
            increase = ((self.warmup_final_lr - self.warmup_begin_lr)
                        * float(num_update) / float(self.warmup_steps))
            return self.warmup_begin_lr + increase
        return self.warmup_begin_lr

    def __call__(self, num_update: int) -> float:
        raise NotImplementedError("must override this")


class FactorScheduler(LRScheduler):
    """Multiply the learning rate by ``factor`` every ``step`` updates.

    ``lr = base_lr * factor ** floor((num_update - 1) / step)``, never below
    ``stop_factor_lr``.

    Examples
    --------
    >>> s = FactorScheduler(step=10, factor=0.1, base_lr=1.0, stop_factor_lr=0.005)
    >>> [s(t) for t in (10, 11, 21, 31)]
    [1.0, 0.1, 0.010000000000000002, 0.005]
    """

    def __init__(self, step: int, factor: float = 1, stop_factor_lr: float = 1e-8,
                 base_lr: float = 0.01, warmup_steps: int = 0, warmup_begin_lr: float = 0,
                 warmup_mode: str = "linear") -> None:
        super().__init__(base_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        if step < 1:
            raise StateError("Schedule step must be greater or equal than 1 round")
        if factor > 1.0:
            raise StateError("Factor must be no more than 1 to make lr reduce")
        self.step = step
        self.factor = factor
        self.stop_factor_lr = stop_factor_lr
        self.count = 0

    def __call__(self, num_update: int) -> float:
        if num_update < self.warmup_steps:
            return self.get_warmup_lr(num_update)
        # a while loop, so that resuming at a later update applies every decay
        while num_update > self.count + self.step:
            self.count += self.step
            self.base_lr *= self.factor
            if self.base_lr < self.stop_factor_lr:
                self.base_lr = self.stop_factor_lr
                logging.info("Update[%d]: now learning rate arrived at %0.5e, will not "
                             "change in the future", num_update, self.base_lr)
            else:
                logging.info("Update[%d]: Change learning rate to %0.5e",
                             num_update, self.base_lr)
        return self.base_lr


class MultiFactorScheduler(LRScheduler):
    """Multiply the learning rate by ``factor`` after each update count in ``step``.

    Examples
    --------
    >>> s = MultiFactorScheduler(step=[2, 4], factor=0.5, base_lr=1.0)
    >>> [s(t) for t in range(1, 7)]
    [1.0, 1.0, 0.5, 0.5, 0.25, 0.25]
    """

    def __init__(self, step: List[int], factor: float = 1, base_lr: float = 0.01,
                 warmup_steps: int = 0, warmup_begin_lr: float = 0, warmup_mode: str = "linear"
                 ) -> None:
        super().__init__(base_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        if not isinstance(step, (list, tuple)) or len(step) < 1:
            raise StateError("step must be a non-empty list of update counts")
        for i, _step in enumerate(step):
            if i != 0 and step[i] <= step[i - 1]:
                raise StateError("Schedule step must be an increasing integer list")
            if _step < 1:
                raise StateError("Schedule step must be greater or equal than 1 round")
        if factor > 1.0:
            raise StateError("Factor must be no more than 1 to make lr reduce")
        self.step = list(step)
        self.cur_step_ind = 0
        self.factor = factor
        self.count = 0

    def __call__(self, num_update: int) -> float:
        if num_update < self.warmup_steps:
            return self.get_warmup_lr(num_update)
        while self.cur_step_ind <= len(self.step) - 1:
            if num_update > self.step[self.cur_step_ind]:
                self.count = self.step[self.cur_step_ind]
                self.cur_step_ind += 1
                self.base_lr *= self.factor
                logging.info("Update[%d]: Change learning rate to %0.5e",
                             num_update, self.base_lr)
            else:
                return self.base_lr
        return self.base_lr


class PolyScheduler(LRScheduler):
    """Polynomial decay from ``base_lr`` to ``final_lr`` over ``max_update`` updates:
    ``final_lr + (base_lr - final_lr) * (1 - t / max_steps) ** pwr``.

    Examples
    --------
    >>> s = PolyScheduler(max_update=10, base_lr=1.0, pwr=2)
    >>> [round(s(t), 4) for t in (0, 5, 10, 11)]
    [1.0, 0.25, 0.0, 0.0]
    """

    def __init__(self, max_update: int, base_lr: float = 0.01, pwr: int = 2, final_lr: float = 0,
                 warmup_steps: int = 0, warmup_begin_lr: float = 0, warmup_mode: str = "linear"
                 ) -> None:
        super().__init__(base_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        if not isinstance(max_update, int):
            raise StateError("max_update must be an int")
        if max_update < 1:
            raise StateError("maximum number of updates must be strictly positive")
        self.power = pwr
        self.base_lr_orig = self.base_lr
        self.max_update = max_update
        self.final_lr = final_lr
        self.max_steps = self.max_update - self.warmup_steps

    def __call__(self, num_update: int) -> float:
        if num_update < self.warmup_steps:
            return self.get_warmup_lr(num_update)
        if num_update <= self.max_update:
            frac = 1 - float(num_update - self.warmup_steps) / float(self.max_steps)
            self.base_lr = self.final_lr + (self.base_lr_orig - self.final_lr) * pow(
                frac, self.power)
        return self.base_lr


class CosineScheduler(LRScheduler):
    """Cosine decay from ``base_lr`` to ``final_lr`` over ``max_update`` updates:
    ``final_lr + (base_lr - final_lr) * (1 + cos(pi * t / max_steps)) / 2``.

    Examples
    --------
    >>> s = CosineScheduler(max_update=4, base_lr=1.0, warmup_steps=2, warmup_begin_lr=0.0)
    >>> [round(s(t), 3) for t in range(6)]
    [0.0, 0.5, 1.0, 0.5, 0.0, 0.0]
    """

    def __init__(self, max_update: int, base_lr: float = 0.01, final_lr: float = 0,
                 warmup_steps: int = 0, warmup_begin_lr: float = 0, warmup_mode: str = "linear"
                 ) -> None:
        super().__init__(base_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        if not isinstance(max_update, int):
            raise StateError("max_update must be an int")
        if max_update < 1:
            raise StateError("maximum number of updates must be strictly positive")
        self.base_lr_orig = base_lr
        self.max_update = max_update
        self.final_lr = final_lr
        self.max_steps = self.max_update - self.warmup_steps

    def __call__(self, num_update: int) -> float:
        if num_update < self.warmup_steps:
            return self.get_warmup_lr(num_update)
        if num_update <= self.max_update:
            self.base_lr = self.final_lr + (self.base_lr_orig - self.final_lr) * (
                1 + cos(pi * (num_update - self.warmup_steps) / self.max_steps)) / 2
        return self.base_lr

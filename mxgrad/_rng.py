"""The random number generator's state: one NumPy generator for every sampler, op
(Dropout, RNN dropout) and data transform, reseeded by ``mx.random.seed`` (re-exported
there with :func:`generator`). Below the ops (floor 1), so that ops draw from it without
importing the ``mx.random`` namespace above them.

Examples
--------
>>> seed(7); a = generator().random()
>>> seed(7); a == generator().random()
True
"""
from __future__ import annotations

import os
from typing import Union

import numpy as np

from ._check import as_int
from .context import Context

__all__ = ["seed", "generator"]


def _launcher_rank() -> int:
    """This process's rank when an MPI launcher started it (``PMI_RANK``, ``PMIX_RANK``,
    ``OMPI_COMM_WORLD_RANK``), else 0; read from the environment, no MPI call."""
    for var in ("PMI_RANK", "PMIX_RANK", "OMPI_COMM_WORLD_RANK", "MV2_COMM_WORLD_RANK"):
        v = os.environ.get(var, "")
        if v.isdigit():
            return int(v)
    return 0


def _new_generator(seed_state: int) -> np.random.Generator:
    rank = _launcher_rank()
    return np.random.default_rng(int(seed_state) if rank == 0 else [int(seed_state), rank])


_rng = [_new_generator(0)]


def generator() -> np.random.Generator:
    """The NumPy generator behind mxgrad's random functions."""
    return _rng[0]


def seed(seed_state: int, ctx: Union[str, Context] = "all") -> None:
    """Seed mxgrad's random number generator.

    Under MPI (``mpiexec``, ``python -m mxgrad.launch``), rank ``r > 0`` seeds with the
    pair ``(seed_state, r)``: workers draw different numbers (different Dropout masks)
    and a run is reproducible for a given number of workers; rank 0 draws what a single
    process seeded with ``seed_state`` draws. Initial weights still agree: the Trainer
    broadcasts rank 0's.

    A negative seed is taken as MXNet's C ``int`` is by its generator: modulo ``2**32``
    (``seed(-1)`` draws what ``seed(2**32 - 1)`` draws).

    Examples
    --------
    >>> seed(0)
    >>> seed(-1)
    """
    seed_state = as_int(seed_state, "random.seed: seed_state")
    if seed_state < 0:
        seed_state %= 2 ** 32
    _rng[0] = _new_generator(seed_state)

"""Deterministic parameter values for model-zoo fixtures (NumPy only).

``tools/make_model_zoo_fixtures.py`` (under real MXNet) and ``tests/test_model_zoo.py``
(under mxgrad) both fill every parameter with :func:`deterministic_value` of its
structural name (``features.0.weight``) and shape, then compare forward outputs.
NumPy's legacy ``RandomState`` stream is frozen across NumPy versions, so both sides get
the same numbers.

>>> deterministic_value('features.1.running_var', (3,)).min() >= 0.5
True
"""
from __future__ import annotations

import zlib

import numpy as np


def deterministic_value(name: str, shape) -> np.ndarray:
    """float32 values for the parameter ``name`` of ``shape``: He-scaled uniform
    weights, BatchNorm statistics near (0, 1), small biases."""
    shape = tuple(int(s) for s in shape)
    rng = np.random.RandomState(zlib.crc32(name.encode("utf-8")))
    if name.endswith("running_var"):
        v = rng.uniform(0.5, 1.5, shape)
    elif name.endswith("running_mean"):
        v = rng.uniform(-0.1, 0.1, shape)
    elif name.endswith("gamma"):
        v = rng.uniform(0.8, 1.2, shape)
    elif name.endswith(("beta", "bias")):
        v = rng.uniform(-0.1, 0.1, shape)
    else:
        fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else 1
        v = rng.uniform(-1.0, 1.0, shape) * np.sqrt(6.0 / max(fan_in, 1))
    return v.astype(np.float32)


def deterministic_input(shape, seed: int = 0) -> np.ndarray:
    """A float32 input batch in [-1, 1)."""
    return np.random.RandomState(seed).uniform(-1.0, 1.0, shape).astype(np.float32)

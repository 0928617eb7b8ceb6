"""``gluon.contrib.data``: MXNet 1.x's contributed data utilities (``IntervalSampler``)."""
from .sampler import IntervalSampler  # noqa: F401

__all__ = ["IntervalSampler"]

"""Contributed Gluon APIs (MXNet's ``gluon.contrib``): the training ``estimator``."""
from . import estimator

__all__ = ["estimator"]

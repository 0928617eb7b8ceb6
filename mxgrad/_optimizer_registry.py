"""The optimizer registry: lower-case name -> optimizer class, filled by
``mx.optimizer.register`` and read by ``mx.optimizer.create`` and the states files
(:mod:`mxgrad._states`, which rebuild an optimizer only from a registered class). Its own
module, below both, so that the states files need not import ``mx.optimizer`` (which
imports them). ``mx.optimizer.Optimizer.opt_registry`` is this dict.

Examples
--------
>>> import mxgrad as mx
>>> OPTIMIZERS is mx.optimizer.Optimizer.opt_registry and OPTIMIZERS["sgd"].__name__
'SGD'
"""
from typing import Dict

__all__ = ["OPTIMIZERS"]

OPTIMIZERS: Dict[str, type] = {}

"""``mx.sym.contrib``: the Symbol counterpart of every ``mx.nd.contrib`` function.

Each builds a node of MXNet's operator ``_contrib_<name>``, which runs ``mx.nd.contrib.<name>``.
MXNet's control-flow ops (``foreach``, ``while_loop``, ``cond``) take Python functions: they
are nodes holding the subgraphs those functions build (:mod:`._control_flow`).

Examples
--------
>>> import mxgrad as mx
>>> y = mx.sym.contrib.box_iou(mx.sym.var('a'), mx.sym.var('b'))
>>> y.name, y.list_arguments()
('box_iou0', ['a', 'b'])
"""
from __future__ import annotations

import math

from . import random as _random
from ._core import Symbol
from ._ops import namespace as _namespace, missing as _missing, function as _function

globals().update(_namespace("_contrib_"))
from ._control_flow import foreach, while_loop, cond  # noqa: E402,F401
# optimizer updates MXNet lists under contrib but registers without the prefix
adamw_update = _function("_adamw_update", "adamw_update")
mp_adamw_update = _function("_mp_adamw_update", "mp_adamw_update")


def rand_zipfian(true_classes, num_sampled: int, range_max: int, ctx=None):
    """The Symbol form of ``mx.nd.contrib.rand_zipfian``: ``num_sampled`` classes of
    ``[0, range_max)`` drawn from ``P(c) = log((c + 2) / (c + 1)) / log(range_max + 1)``
    when the graph runs, and the expected counts of ``true_classes`` and of the samples.

    Examples
    --------
    >>> import mxgrad as mx
    >>> s = mx.sym.contrib.rand_zipfian(mx.sym.var('t'), 4, 5)
    >>> [o.shape for o in mx.sym.Group(s).eval(t=mx.nd.array([3]))]
    [(4,), (1,), (4,)]
    """
    log_range = math.log(range_max + 1)
    rand = _random.uniform(0, log_range, shape=(num_sampled,), dtype="float64")
    sampled = (rand.exp() - 1).astype("int64") % range_max

    def expected(c: Symbol) -> Symbol:
        c = c.astype("float64")
        return ((c + 2.0) / (c + 1.0)).log() / log_range * num_sampled
    return sampled, expected(true_classes), expected(sampled)


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise _missing("contrib", name)

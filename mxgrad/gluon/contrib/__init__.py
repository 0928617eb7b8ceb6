"""``gluon.contrib``: MXNet 1.x's contributed Gluon parts (``nn`` layers, the training
``estimator``, ``data.IntervalSampler``, ``rnn`` cells)."""
from . import nn  # noqa: F401
from . import data  # noqa: F401
from . import estimator  # noqa: F401
from . import rnn  # noqa: F401

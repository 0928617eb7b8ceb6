"""``gluon.contrib``: MXNet 1.x's contributed Gluon parts."""
from . import nn  # noqa: F401

"""``gluon.contrib.rnn``: MXNet 1.x's contributed recurrent cells (``LSTMPCell``,
``VariationalDropoutCell``)."""
from .rnn_cell import LSTMPCell, VariationalDropoutCell  # noqa: F401

__all__ = ["LSTMPCell", "VariationalDropoutCell"]

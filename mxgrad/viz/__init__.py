r"""Pictures and tables of networks (MXNet's ``mx.viz``).

- :func:`plot_network` draws a recorded autograd graph (``mx.viz.plot_network(loss)``),
  a Block (``shape=...``) or a Symbol as a ``graphviz.Digraph``; Jupyter shows it
  inline. Needs the optional package ``graphviz`` (``pip install 'mxgrad[viz]'``);
  rendering needs Graphviz's ``dot`` program (Debian/Ubuntu: ``apt-get install
  graphviz``), ``.source`` works without it.
- :func:`print_summary` prints MXNet's layer table of a Block.

Examples
--------
>>> import mxgrad as mx
>>> net = mx.gluon.nn.Dense(2, in_units=3); net.initialize()
>>> dot = mx.viz.plot_network(net, shape=(1, 3), hide_weights=False)
>>> 'FullyConnected\\n1x2' in dot.source
True
"""
from .plot import plot_network, has_dot, MissingExtraError, DotNotFoundError
from .summary import print_summary

__all__ = ["plot_network", "print_summary", "has_dot", "MissingExtraError",
           "DotNotFoundError"]

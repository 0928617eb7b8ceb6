"""The bottom of mxgrad (floors 1-2 of ARCHITECTURE.md): the NDArray class (``ndarray``)
and the autograd engine (``scope``, ``graph``, ``nodes``, ``reuse``, ``forward_ad``). They
import nothing above ``mxgrad.base`` but each other, so every op module can import them
without running a public namespace's ``__init__`` (``mx.nd``, ``mx.autograd``, which
re-export them and keep their MXNet paths ``mxgrad.ndarray.ndarray``,
``mxgrad.autograd.graph``...).

Examples
--------
>>> from mxgrad._engine.ndarray import NDArray
>>> import mxgrad as mx
>>> type(mx.nd.zeros((1,))) is NDArray and mx.autograd.graph.__name__
'mxgrad._engine.graph'
"""

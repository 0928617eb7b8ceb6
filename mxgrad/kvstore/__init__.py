"""``mx.kv``: key-value stores that sum gradients over devices and worker processes.

Worker processes talk through MPI (``mpi4py``, installed by ``pip install
'mxgrad[dist]'``); see :mod:`mxgrad.kvstore._comm` for how sums are computed and
:mod:`mxgrad.launch` to start workers.

Examples
--------
>>> import mxgrad as mx
>>> kv = mx.kv.create('local')
>>> kv.init('w', mx.nd.zeros(2)); kv.push('w', mx.nd.array([1, 2]))
>>> out = mx.nd.zeros(2); kv.pull('w', out=out); out.asnumpy().tolist()
[1.0, 2.0]
"""
from .kvstore import KVStore, KVStoreError, create
from ._comm import DistUnavailableError, CollectiveMismatchError

__all__ = ["KVStore", "KVStoreError", "DistUnavailableError", "CollectiveMismatchError",
           "create"]

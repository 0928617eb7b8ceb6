"""``mx.io``: data iterators (MXNet 1.9 API).

Examples
--------
>>> import numpy as np
>>> import mxgrad as mx
>>> batch = next(iter(mx.io.NDArrayIter(np.ones((3, 2)), batch_size=2)))
>>> batch.data[0].shape, batch.pad
((2, 2), 0)
"""
from .io import DataDesc, DataBatch, DataIter, ResizeIter, PrefetchingIter, NDArrayIter, \
    CSVIter

__all__ = ["DataDesc", "DataBatch", "DataIter", "ResizeIter", "PrefetchingIter", "NDArrayIter",
           "CSVIter"]

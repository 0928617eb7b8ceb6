"""``gluon.data``: datasets, samplers and the DataLoader (MXNet 1.9 API).

Examples
--------
>>> import mxgrad as mx
>>> from mxgrad.gluon import data
>>> loader = data.DataLoader(data.ArrayDataset(mx.nd.ones((5, 3))), batch_size=2)
>>> [b.shape for b in loader]
[(2, 3), (2, 3), (1, 3)]
"""
from .dataset import Dataset, SimpleDataset, ArrayDataset, RecordFileDataset
from .sampler import Sampler, SequentialSampler, RandomSampler, FilterSampler, \
    BatchSampler, IntervalSampler, SplitSampler
from .dataloader import DataLoader, default_batchify_fn, default_mp_batchify_fn
from . import vision

__all__ = ["Dataset", "SimpleDataset", "ArrayDataset", "RecordFileDataset", "Sampler",
           "SequentialSampler", "RandomSampler", "FilterSampler", "BatchSampler",
           "IntervalSampler", "SplitSampler", "DataLoader", "default_batchify_fn", "vision"]

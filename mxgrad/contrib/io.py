"""``mx.contrib.io``: a Gluon ``DataLoader`` seen as an ``mx.io.DataIter`` (MXNet's
``DataLoaderIter``), for code written against the iterator interface.

Examples
--------
>>> import mxgrad as mx
>>> ds = mx.gluon.data.ArrayDataset(mx.nd.arange(10).reshape((5, 2)), mx.nd.arange(5))
>>> it = DataLoaderIter(mx.gluon.data.DataLoader(ds, batch_size=2, last_batch='keep'))
>>> it.provide_data, it.provide_label
([DataDesc[data,(2, 2),float32,NCHW]], [DataDesc[softmax_label,(2,),float32,NCHW]])
>>> [(b.data[0].shape, b.pad) for b in it]
[((2, 2), 0), ((2, 2), 0), ((2, 2), 1)]
"""
from __future__ import annotations

from typing import Any, List, Optional

from ..base import StateError, as_dtype
from ..io.io import DataDesc, DataIter
from .._engine.ndarray import NDArray
from ..ops.creation import zeros

__all__ = ["DataLoaderIter"]


class DataLoaderIter(DataIter):
    """Iterate a ``gluon.data.DataLoader`` of ``(data, label)`` batches as an ``mx.io``
    iterator: :class:`~mxgrad.io.DataBatch` es of the loader's batch size, a short last
    batch padded (``pad`` says by how many samples), ``reset()`` starting a new epoch.

    Parameters
    ----------
    loader : gluon.data.DataLoader
        Yields ``(data, label)`` pairs of NDArrays.
    data_name, label_name : str
        The names in ``provide_data`` / ``provide_label``.
    dtype : str, default 'float32'
        The data and label are cast to it.
    """

    def __init__(self, loader: Any, data_name: str = "data",
                 label_name: str = "softmax_label", dtype: str = "float32") -> None:
        super().__init__()
        self._loader = loader
        self.dtype = dtype
        as_dtype(dtype)
        first = next(iter(loader), None)
        if first is None:
            raise StateError("DataLoaderIter: the loader yields no batch; give it a "
                             "non-empty dataset")
        data, label = self._pair(first)
        self.batch_size = data.shape[0]
        self.provide_data = [DataDesc(data_name, tuple(data.shape), dtype)]
        self.provide_label = [DataDesc(label_name, tuple(label.shape), dtype)]
        self._current: Optional[tuple] = None
        self.reset()

    @staticmethod
    def _pair(batch) -> tuple:
        if not isinstance(batch, (list, tuple)) or len(batch) != 2 \
                or not all(isinstance(b, NDArray) for b in batch):
            raise StateError("DataLoaderIter: the loader must yield (data, label) pairs of "
                             f"NDArrays, got {type(batch).__name__}")
        return batch[0], batch[1]

    def reset(self) -> None:
        self._iter = iter(self._loader)

    def iter_next(self) -> bool:
        batch = next(self._iter, None)
        self._current = None if batch is None else self._pair(batch)
        return self._current is not None

    def _padded(self, arr: NDArray) -> List[NDArray]:
        arr = arr.astype(self.dtype)
        if arr.shape[0] == self.batch_size:
            return [arr]
        out = zeros((self.batch_size,) + tuple(arr.shape[1:]), dtype=self.dtype)
        out[:arr.shape[0]] = arr
        return [out]

    def getdata(self) -> List[NDArray]:
        return self._padded(self._batch()[0])

    def getlabel(self) -> List[NDArray]:
        return self._padded(self._batch()[1])

    def getpad(self) -> int:
        return self.batch_size - self._batch()[0].shape[0]

    def getindex(self):
        return None

    def _batch(self) -> tuple:
        if self._current is None:
            raise StateError("DataLoaderIter: no current batch; call next() (or iterate) "
                             "first")
        return self._current

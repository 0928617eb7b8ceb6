"""Data iterators of MXNet's ``mx.io``: ``DataDesc``, ``DataBatch``, ``DataIter``,
``NDArrayIter``, ``ResizeIter``, ``PrefetchingIter`` and ``CSVIter``.

Batches are :class:`DataBatch` objects holding lists of NDArrays (``batch.data[0]``,
``batch.label[0]``) and ``pad``, the number of filler samples at the end of the last batch.

Examples
--------
>>> import numpy as np
>>> import mxgrad as mx
>>> it = mx.io.NDArrayIter(np.arange(10).reshape(5, 2), np.arange(5), batch_size=2)
>>> [(b.data[0].shape, b.pad) for b in it]
[((2, 2), 0), ((2, 2), 0), ((2, 2), 1)]
>>> it.provide_data
[DataDesc[data,(2, 2),<class 'numpy.float32'>,NCHW]]
"""
from __future__ import annotations

import csv
import threading
import weakref
from collections import OrderedDict, namedtuple
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from ..base import DTypeError, MXNetError, StateError
from .. import ndarray as nd
from ..ndarray import NDArray
from .._typing import DTypeLike

__all__ = ["DataDesc", "DataBatch", "DataIter", "ResizeIter", "PrefetchingIter",
           "NDArrayIter", "CSVIter"]


class DataDesc(namedtuple("DataDesc", ["name", "shape"])):
    """Name, shape, dtype and layout of one data input (a ``(name, shape)`` tuple with
    ``dtype`` and ``layout`` attributes).

    Examples
    --------
    >>> d = DataDesc('data', (32, 3, 8, 8))
    >>> d
    DataDesc[data,(32, 3, 8, 8),<class 'numpy.float32'>,NCHW]
    >>> name, shape = d; DataDesc.get_batch_axis('TNC')
    1
    """

    dtype: Any
    layout: str

    def __new__(cls, name: str, shape: Tuple[int, ...], dtype: DTypeLike = np.float32,
                layout: str = "NCHW") -> DataDesc:
        ret = super().__new__(cls, name, shape)
        ret.dtype = dtype
        ret.layout = layout
        return ret

    def __repr__(self) -> str:
        return f"DataDesc[{self.name},{self.shape},{self.dtype},{self.layout}]"

    @staticmethod
    def get_batch_axis(layout: Optional[str]) -> int:
        """Position of ``'N'`` in ``layout`` (0 when ``layout`` is None)."""
        if layout is None:
            return 0
        return layout.find("N")

    @staticmethod
    def get_list(shapes, types) -> List["DataDesc"]:
        """DataDescs from ``[(name, shape)]`` and optional ``[(name, dtype)]``."""
        if types is not None:
            type_dict = dict(types)
            return [DataDesc(x[0], x[1], type_dict[x[0]]) for x in shapes]
        return [DataDesc(x[0], x[1]) for x in shapes]


class DataBatch:
    """One batch: ``data`` and ``label`` (lists of NDArrays), ``pad`` (number of filler
    samples at the end), ``index``, ``bucket_key``, ``provide_data``, ``provide_label``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> print(DataBatch([mx.nd.ones((2, 3))], [mx.nd.ones((2,))], pad=0))
    DataBatch: data shapes: [(2, 3)] label shapes: [(2,)]
    """

    def __init__(self, data, label=None, pad=None, index=None, bucket_key=None,
                 provide_data=None, provide_label=None):
        if data is not None and not isinstance(data, (list, tuple)):
            raise DTypeError("DataBatch: data must be a list of NDArrays, e.g. [x]")
        if label is not None and not isinstance(label, (list, tuple)):
            raise DTypeError("DataBatch: label must be a list of NDArrays, e.g. [y]")
        self.data = data
        self.label = label
        self.pad = pad
        self.index = index
        self.bucket_key = bucket_key
        self.provide_data = provide_data
        self.provide_label = provide_label

    def __str__(self) -> str:
        data_shapes = [d.shape for d in self.data]
        label_shapes = [l.shape for l in self.label] if self.label else None
        return f"{self.__class__.__name__}: data shapes: {data_shapes} label shapes: " \
               f"{label_shapes}"


class DataIter:
    """Base of the iterators: ``next()`` builds a :class:`DataBatch` from ``iter_next()``,
    ``getdata()``, ``getlabel()``, ``getpad()`` and ``getindex()``; ``reset()`` starts a
    new epoch. Iterating stops at the end of an epoch (call ``reset()`` before the next).
    """

    def __init__(self, batch_size: int = 0):
        self.batch_size = batch_size

    def __iter__(self):
        return self

    def reset(self) -> None:
        """Go back to the beginning of the data."""

    def next(self) -> DataBatch:
        """The next batch; ``StopIteration`` at the end of the epoch."""
        if self.iter_next():
            return DataBatch(data=self.getdata(), label=self.getlabel(), pad=self.getpad(),
                             index=self.getindex())
        raise StopIteration

    def __next__(self) -> DataBatch:
        return self.next()

    def iter_next(self) -> bool:  # type: ignore[empty-body]
        """Move to the next batch; False at the end."""

    def getdata(self):
        """Data of the current batch (list of NDArrays)."""

    def getlabel(self):
        """Label of the current batch (list of NDArrays)."""

    def getindex(self):
        """Indices of the current batch's samples (or None)."""
        return None

    def getpad(self):
        """Number of filler samples in the current batch."""


class ResizeIter(DataIter):
    """Make ``data_iter`` yield exactly ``size`` batches per epoch, restarting it when it
    ends early (and, with ``reset_internal``, resetting it on ``reset()``).

    Examples
    --------
    >>> import numpy as np
    >>> it = ResizeIter(NDArrayIter(np.zeros((4, 1)), batch_size=2), 3)
    >>> len(list(it))
    3
    """

    def __init__(self, data_iter: Any, size: int, reset_internal: bool = True) -> None:
        super().__init__()
        self.data_iter = data_iter
        self.size = size
        self.reset_internal = reset_internal
        self.cur = 0
        self.current_batch: Optional[DataBatch] = None
        self.provide_data = data_iter.provide_data
        self.provide_label = data_iter.provide_label
        self.batch_size = data_iter.batch_size
        if hasattr(data_iter, "default_bucket_key"):
            self.default_bucket_key = data_iter.default_bucket_key

    def reset(self) -> None:
        self.cur = 0
        if self.reset_internal:
            self.data_iter.reset()

    def iter_next(self) -> bool:
        if self.cur == self.size:
            return False
        try:
            self.current_batch = self.data_iter.next()
        except StopIteration:
            self.data_iter.reset()
            self.current_batch = self.data_iter.next()
        self.cur += 1
        return True

    def getdata(self):
        return self.current_batch.data

    def getlabel(self):
        return self.current_batch.label

    def getindex(self):
        return self.current_batch.index

    def getpad(self):
        return self.current_batch.pad


class PrefetchingIter(DataIter):
    """Read the next batch of one or more iterators in background threads; with several
    iterators their batches are joined (data lists concatenated). ``rename_data`` /
    ``rename_label`` are lists of ``{old_name: new_name}`` dicts, one per iterator.

    Examples
    --------
    >>> import numpy as np
    >>> a = NDArrayIter(np.zeros((4, 2)), batch_size=2, data_name='a')
    >>> b = NDArrayIter(np.ones((4, 3)), batch_size=2, data_name='b')
    >>> it = PrefetchingIter([a, b])
    >>> [d.shape for d in next(it).data]
    [(2, 2), (2, 3)]
    >>> it.close()
    """

    def __init__(self, iters: Union[Any, List[Any]],
                 rename_data: Optional[List[Dict[str, str]]] = None,
                 rename_label: Optional[List[Dict[str, str]]] = None) -> None:
        super().__init__()
        if not isinstance(iters, list):
            iters = [iters]
        if not iters:
            raise StateError("PrefetchingIter: iters must hold at least one iterator")
        self.n_iter = len(iters)
        self.iters = iters
        self.rename_data = rename_data
        self.rename_label = rename_label
        self.batch_size = self.provide_data[0][1][0]
        self.data_ready = [threading.Event() for _ in range(self.n_iter)]
        self.data_taken = [threading.Event() for _ in range(self.n_iter)]
        for event in self.data_taken:
            event.set()
        self.started = True
        self.current_batch: Any = None
        self.next_batch: List[Any] = [None] * self.n_iter
        self._errors: List[Optional[BaseException]] = [None] * self.n_iter
        ref = weakref.ref(self)  # threads must not keep the iterator alive
        self.prefetch_threads = [
            threading.Thread(target=_prefetch_loop,
                             args=(ref, i, self.data_taken[i], self.data_ready[i]),
                             daemon=True, name=f"PrefetchingIter-{i}")
            for i in range(self.n_iter)]
        for thread in self.prefetch_threads:
            thread.start()

    def close(self) -> None:
        """Stop the prefetching threads (also done when the iterator is garbage collected)."""
        if not getattr(self, "started", False):
            return
        self.started = False
        for event, thread in zip(self.data_taken, self.prefetch_threads):
            if thread is threading.current_thread():
                event.set()
                continue
            while thread.is_alive():  # a thread finishing a fetch clears its event: set again
                event.set()
                thread.join(timeout=0.05)

    def __del__(self):
        try:
            self.close()
        except Exception:  # pragma: no cover - interpreter shutdown
            pass

    @staticmethod
    def _renamed(descs, renames):
        if renames is None:
            return sum(descs, [])
        return sum([[DataDesc(r[x.name], x.shape, x.dtype) if isinstance(x, DataDesc)
                     else DataDesc(r[x[0]], x[1]) for x in d]
                    for r, d in zip(renames, descs)], [])

    @property
    def provide_data(self):
        return self._renamed([i.provide_data for i in self.iters], self.rename_data)

    @property
    def provide_label(self):
        return self._renamed([i.provide_label for i in self.iters], self.rename_label)

    def reset(self) -> None:
        for event in self.data_ready:
            event.wait()
        for it in self.iters:
            it.reset()
        for event in self.data_ready:
            event.clear()
        for event in self.data_taken:
            event.set()

    def iter_next(self) -> bool:
        for event in self.data_ready:
            event.wait()
        for err in self._errors:
            if err is not None:
                raise err
        if self.next_batch[0] is None:
            if any(b is not None for b in self.next_batch):
                raise StateError("PrefetchingIter: the iterators yield different numbers "
                                 "of batches")
            return False
        if any(b is None or b.pad != self.next_batch[0].pad for b in self.next_batch):
            raise StateError("PrefetchingIter: the iterators yield different numbers of "
                             "samples (batch counts or pads differ)")
        first = self.next_batch[0]
        self.current_batch = DataBatch(sum([list(b.data) for b in self.next_batch], []),
                                       sum([list(b.label or []) for b in self.next_batch], []),
                                       first.pad, first.index,
                                       provide_data=self.provide_data,
                                       provide_label=self.provide_label)
        for event in self.data_ready:
            event.clear()
        for event in self.data_taken:
            event.set()
        return True

    def next(self) -> DataBatch:
        if self.iter_next():
            return self.current_batch
        raise StopIteration

    def getdata(self):
        return self.current_batch.data

    def getlabel(self):
        return self.current_batch.label

    def getindex(self):
        return self.current_batch.index

    def getpad(self):
        return self.current_batch.pad


def _prefetch_loop(ref, i: int, taken: threading.Event, ready: threading.Event) -> None:
    """Body of PrefetchingIter's i-th thread: fetch the next batch whenever the last one was
    taken; stop when the iterator is closed or gone."""
    while True:
        taken.wait()
        it = ref()
        if it is None or not it.started:
            return
        try:
            it.next_batch[i] = it.iters[i].next()
            it._errors[i] = None
        except StopIteration:
            it.next_batch[i] = None
        except BaseException as err:  # handed to the consumer thread
            it.next_batch[i] = None
            it._errors[i] = err
        del it
        taken.clear()
        ready.set()


def _init_data(data, allow_empty: bool, default_name: str):
    """``[(name, NDArray)]`` sorted by name, from an array, a list of arrays or a dict."""
    if data is None:
        if not allow_empty:
            raise StateError("NDArrayIter: data must not be None")
        data = []
    if isinstance(data, (np.ndarray, NDArray)):
        data = [data]
    if isinstance(data, (list, tuple)):
        if not allow_empty and len(data) == 0:
            raise StateError("NDArrayIter: data must hold at least one array")
        if len(data) == 1:
            data = OrderedDict([(default_name, data[0])])
        else:
            data = OrderedDict([(f"_{i}_{default_name}", d) for i, d in enumerate(data)])
    if not isinstance(data, dict):
        raise DTypeError("NDArrayIter: data and label must be an NDArray, a numpy.ndarray, "
                         f"a list of them or a dict of them, got {type(data).__name__}")
    out = {}
    for k, v in data.items():
        if not isinstance(v, NDArray):
            try:
                v = nd.array(v)
            except Exception as err:
                raise DTypeError(f"NDArrayIter: invalid type {type(v).__name__} for {k!r}; "
                                 f"use an NDArray or numpy.ndarray") from err
        out[k] = v
    return sorted(out.items())


class NDArrayIter(DataIter):
    """Iterate over NDArrays / NumPy arrays in batches (MXNet's ``mx.io.NDArrayIter``).

    Parameters
    ----------
    data, label : array, list of arrays or dict ``{name: array}``
        Arrays with the samples along the first axis (NumPy arrays become float32
        NDArrays). A list of several arrays is named ``_0_data``, ``_1_data``, ...; the
        sources are sorted by name.
    batch_size : int
    shuffle : bool
        Shuffle the samples (``np.random.shuffle``) at construction and at every reset.
    last_batch_handle : {'pad', 'discard', 'roll_over'}
        ``'pad'`` fills the last batch with samples from the start (``batch.pad`` counts
        them); ``'discard'`` drops an incomplete last batch; ``'roll_over'`` keeps it and
        completes it with the first samples of the next epoch (after ``reset()``).
    data_name, label_name : str
        Names used in ``provide_data``/``provide_label``.
    layout : str
        Position of the batch axis (``'N'``).

    Examples
    --------
    >>> import numpy as np
    >>> it = NDArrayIter(np.arange(5), batch_size=2, last_batch_handle='roll_over')
    >>> [b.data[0].asnumpy().tolist() for b in it]
    [[0.0, 1.0], [2.0, 3.0]]
    >>> it.reset(); b = it.next(); b.data[0].asnumpy().tolist(), b.pad
    ([4.0, 0.0], 1)
    """

    def __init__(self, data, label=None, batch_size: int = 1, shuffle: bool = False,
                 last_batch_handle: str = "pad", data_name: str = "data",
                 label_name: str = "softmax_label", layout: str = "NCHW"):
        super().__init__(batch_size)
        if last_batch_handle not in ("pad", "discard", "roll_over"):
            raise StateError(f"NDArrayIter: last_batch_handle must be 'pad', 'discard' or "
                             f"'roll_over', got {last_batch_handle!r}")
        if int(batch_size) < 1:
            raise StateError(f"NDArrayIter: batch_size must be a positive int, got {batch_size}")
        self.data = _init_data(data, allow_empty=False, default_name=data_name)
        self.label = _init_data(label, allow_empty=True, default_name=label_name)
        n = self.data[0][1].shape[0]
        for k, v in self.data + self.label:
            if v.shape[0] != n and not (v.shape[0] > n and any(k == lk for lk, _ in self.label)):
                raise StateError(f"NDArrayIter: {k!r} has {v.shape[0]} samples but "
                                 f"{self.data[0][0]!r} has {n}; all sources need the same")
        # a label source longer than the data: its first n samples, as MXNet reads it
        self.label = [(k, v[:n] if v.shape[0] > n else v) for k, v in self.label]
        self.idx = np.arange(n)
        self.shuffle = shuffle
        self.last_batch_handle = last_batch_handle
        self.batch_size = int(batch_size)
        self.cursor = -self.batch_size
        self.num_data = n
        self.layout = layout
        self._cache_data = None
        self._cache_label = None
        self.reset()
        self.data_list = [x[1] for x in self.data] + [x[1] for x in self.label]
        self.num_source = len(self.data_list)

    def _descs(self, sources):
        axis = self.layout.find("N")
        return [DataDesc(k, tuple(v.shape[:axis]) + (self.batch_size,) + tuple(v.shape[axis + 1:]),
                         v.dtype, layout=self.layout) for k, v in sources]

    @property
    def provide_data(self) -> List[DataDesc]:
        """Name, batch shape, dtype and layout of each data source."""
        return self._descs(self.data)

    @property
    def provide_label(self) -> List[DataDesc]:
        """Name, batch shape, dtype and layout of each label source."""
        return self._descs(self.label)

    def hard_reset(self) -> None:
        """Start over, dropping any roll-over samples kept from the last epoch."""
        if self.shuffle:
            self._shuffle_data()
        self.cursor = -self.batch_size
        self._cache_data = None
        self._cache_label = None

    def reset(self) -> None:
        if self.shuffle:
            self._shuffle_data()
        if self.last_batch_handle == "roll_over" and \
                self.num_data - self.batch_size < self.cursor < self.num_data:
            self.cursor = self.cursor - self.num_data - self.batch_size
        else:
            self.cursor = -self.batch_size

    def iter_next(self) -> bool:
        self.cursor += self.batch_size
        return self.cursor < self.num_data

    def next(self) -> DataBatch:
        if not self.iter_next():
            raise StopIteration
        data = self.getdata()
        label = self.getlabel()
        if data[0].shape[self.layout.find("N")] != self.batch_size:
            self._cache_data = data
            self._cache_label = label
            raise StopIteration
        return DataBatch(data=data, label=label, pad=self.getpad(), index=None)

    def _getdata(self, sources, start: Optional[int] = None, end: Optional[int] = None):
        start = 0 if start is None else start
        if end is None:
            end = sources[0][1].shape[0] if sources else 0
        axis = self.layout.find("N")
        return [nd.slice_axis(v, axis=axis, begin=start, end=end) for _, v in sources]

    def _concat(self, first, second):
        if not first or not second:
            return first if first else second
        axis = self.layout.find("N")
        return [nd.concat(a, b, dim=axis) for a, b in zip(first, second)]

    @staticmethod
    def _tile(data, repeats: int):
        return [nd.tile(d, (repeats,) + (1,) * (d.ndim - 1)) for d in data]

    def _batchify(self, sources):
        if self.cursor >= self.num_data:
            raise StateError("NDArrayIter: the epoch is over; call reset()")
        bs = self.batch_size
        if self.last_batch_handle == "roll_over" and -bs < self.cursor < 0:
            if self._cache_data is None and self._cache_label is None:
                raise StateError("NDArrayIter: no rolled-over samples are cached")
            cache = self._cache_data if self._cache_data is not None else self._cache_label
            second = self._getdata(sources, end=self.cursor + bs)
            if self._cache_data is not None:
                self._cache_data = None
            else:
                self._cache_label = None
            return self._concat(cache, second)
        if self.last_batch_handle == "pad" and self.cursor + bs > self.num_data:
            pad = bs - self.num_data + self.cursor
            first = self._getdata(sources, start=self.cursor)
            if pad > self.num_data:
                second = self._tile(self._getdata(sources, end=self.num_data),
                                    pad // self.num_data)
                if pad % self.num_data:
                    second = self._concat(second, self._getdata(sources,
                                                                end=pad % self.num_data))
            else:
                second = self._getdata(sources, end=pad)
            return self._concat(first, second)
        end = min(self.cursor + bs, self.num_data)
        return self._getdata(sources, self.cursor, end)

    def getdata(self):
        return self._batchify(self.data)

    def getlabel(self):
        return self._batchify(self.label)

    def getpad(self) -> int:
        if self.last_batch_handle == "pad" and self.cursor + self.batch_size > self.num_data:
            return self.cursor + self.batch_size - self.num_data
        if self.last_batch_handle == "roll_over" and -self.batch_size < self.cursor < 0:
            return -self.cursor
        return 0

    def _shuffle_data(self) -> None:
        # As MXNet: shuffle the index in place and reorder the (already reordered) arrays by
        # it; the reordered arrays are made with nd.array, so they become float32.
        np.random.shuffle(self.idx)
        self.data = [(k, nd.array(v.asnumpy()[self.idx])) for k, v in self.data]
        self.label = [(k, nd.array(v.asnumpy()[self.idx])) for k, v in self.label]


def _read_csv(path: str, what: str) -> List[List[float]]:
    rows = []
    try:
        with open(path, newline="") as f:
            for lineno, row in enumerate(csv.reader(f), 1):
                if not row or all(not c.strip() for c in row):
                    continue
                try:
                    rows.append([float(c) for c in row if c.strip() != ""])
                except ValueError as err:
                    raise StateError(f"CSVIter: {what} {path!r} line {lineno}: {err}") from err
    except OSError as err:
        raise MXNetError(f"CSVIter: cannot read {what} {path!r}: {err}") from err
    return rows


class CSVIter(DataIter):
    """Batches from CSV files of numbers, one sample per row (MXNet's ``mx.io.CSVIter``).

    Parameters
    ----------
    data_csv : str
        CSV file of the data; each row is reshaped to ``data_shape``.
    data_shape : tuple
    label_csv : str, optional
        CSV file of the labels (one row per sample, reshaped to ``label_shape``); without
        it every label is 0.
    label_shape : tuple, default (1,)
        ``(1,)`` gives labels of shape ``(batch_size,)``.
    batch_size : int
    round_batch : bool, default True
        True: the last batch is completed with samples from the start and the next epoch
        starts after them (as MXNet). False: the slots after the last sample keep the
        previous batch's values; ``pad`` counts them either way.
    dtype : str, default 'float32'
        'float32', 'int32' or 'int64'.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), 'x.csv')
    >>> with open(path, 'w') as f:
    ...     _ = f.write('1,2\\n3,4\\n5,6\\n')
    >>> it = CSVIter(data_csv=path, data_shape=(2,), batch_size=2)
    >>> [(b.data[0].asnumpy().tolist(), b.pad) for b in it]
    [([[1.0, 2.0], [3.0, 4.0]], 0), ([[5.0, 6.0], [1.0, 2.0]], 1)]
    """

    def __init__(self, data_csv: str, data_shape: Sequence[int], label_csv: Optional[str] = None,
                 label_shape: Sequence[int] = (1,), batch_size: int = 1,
                 round_batch: bool = True, dtype: str = "float32", data_name: str = "data",
                 label_name: str = "softmax_label", **kwargs):
        super().__init__(int(batch_size))
        if dtype not in ("float32", "int32", "int64"):
            raise StateError(f"CSVIter: dtype must be 'float32', 'int32' or 'int64', "
                             f"got {dtype!r}")
        self.data_shape = tuple(int(s) for s in data_shape)
        self.label_shape = tuple(int(s) for s in label_shape)
        self.round_batch = bool(round_batch)
        self.dtype = np.dtype(dtype)
        data = self._load(data_csv, self.data_shape, "data_csv")
        if label_csv is not None and label_csv != "NULL":
            label = self._load(label_csv, self.label_shape, "label_csv")
            if len(label) != len(data):
                raise StateError(f"CSVIter: data_csv has {len(data)} rows but label_csv has "
                                 f"{len(label)}")
        else:
            label = np.zeros((len(data),) + self.label_shape, self.dtype)
        if len(data) == 0:
            raise StateError(f"CSVIter: data_csv {data_csv!r} has no rows")
        if self.label_shape == (1,):
            label = label.reshape(len(label))
        self._data, self._label = data, label
        bs = self.batch_size
        self._buf_data = np.zeros((bs,) + data.shape[1:], self.dtype)
        self._buf_label = np.zeros((bs,) + label.shape[1:], self.dtype)
        self._buf_index = np.zeros(bs, np.uint64)
        self.provide_data = [DataDesc(data_name, (bs,) + data.shape[1:], self.dtype.type)]
        self.provide_label = [DataDesc(label_name, (bs,) + label.shape[1:], self.dtype.type)]
        self._pos = 0
        self._overflow = 0
        self._pad = 0
        self._out: Any = None

    def _load(self, path, shape, what) -> np.ndarray:
        rows = _read_csv(path, what)
        size = int(np.prod(shape))
        for i, row in enumerate(rows):
            if len(row) != size:
                raise StateError(f"CSVIter: {what} {path!r} row {i + 1} has {len(row)} values "
                                 f"but the shape {shape} needs {size}")
        return np.asarray(rows, dtype=np.float64).reshape((len(rows),) + shape) \
            .astype(self.dtype)

    def reset(self) -> None:
        if not self.round_batch or self._overflow == 0:
            self._pos = 0
        else:
            self._overflow = 0

    def iter_next(self) -> bool:
        n, bs = len(self._data), self.batch_size
        if self._overflow:  # the epoch ended by wrapping around; wait for reset()
            return False
        top = 0
        while top < bs and self._pos < n:
            self._fill(top, self._pos)
            self._pos += 1
            top += 1
        if top == 0:
            return False
        pad = 0
        if top < bs:
            if self.round_batch:
                self._pos = 0
                while top < bs:
                    self._fill(top, self._pos)
                    self._pos = (self._pos + 1) % n
                    top += 1
                    pad += 1
                self._overflow = pad
            else:
                pad = bs - top
        self._pad = pad
        self._out = (nd.array(self._buf_data, dtype=self.dtype),
                     nd.array(self._buf_label, dtype=self.dtype), self._buf_index.copy())
        return True

    def _fill(self, slot: int, row: int) -> None:
        self._buf_data[slot] = self._data[row]
        self._buf_label[slot] = self._label[row]
        self._buf_index[slot] = row

    def next(self) -> DataBatch:
        if self.iter_next():
            return DataBatch(data=[self._out[0]], label=[self._out[1]], pad=self._pad,
                             index=self._out[2])
        raise StopIteration

    def getdata(self):
        return self._out[0]

    def getlabel(self):
        return self._out[1]

    def getindex(self):
        return self._out[2]

    def getpad(self) -> int:
        return self._pad

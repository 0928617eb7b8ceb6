"""Vision datasets: MNIST, FashionMNIST, CIFAR10/100 (read from local files, downloaded
from MXNet's mirror only when missing) and Digits (bundled with mxgrad, no download).

Each sample is ``(image, label)``: the image a ``uint8`` NDArray of shape
``(height, width, channels)``, the label an ``int32`` NumPy scalar, as in MXNet.
``transform(image, label)``, when given, is applied to every sample.

Files already present under ``root`` are used as they are (their SHA-1 is not checked);
a file that has to be downloaded is checked against MXNet's SHA-1 after download.

Examples
--------
>>> from mxgrad.gluon.data.vision import Digits
>>> train, test = Digits(train=True), Digits(train=False)
>>> len(train), len(test)
(1442, 355)
>>> image, label = test[0]
>>> image.shape, image.dtype, label.dtype
((8, 8, 1), <class 'numpy.uint8'>, dtype('int32'))
"""
from __future__ import annotations

import gzip
import os
import shutil
import struct
import tarfile
import tempfile
import urllib.request
import zlib
from typing import Any, Callable, Dict, Optional

import numpy as np

from ....base import FileFormatError, MXNetError
from ...._fileio import file_sha1, open_for_read
from ...._engine.ndarray import wrap
from ..dataset import _DownloadedDataset

__all__ = ["MNIST", "FashionMNIST", "CIFAR10", "CIFAR100", "Digits"]

_DEFAULT_REPO = "https://apache-mxnet.s3-accelerate.dualstack.amazonaws.com/"


def _data_dir() -> str:
    """MXNet's data directory: ``$MXNET_HOME`` or ``~/.mxnet``."""
    return os.environ.get("MXNET_HOME", os.path.join("~", ".mxnet"))


def _repo_url(namespace: str, filename: str) -> str:
    repo = os.environ.get("MXNET_GLUON_REPO", _DEFAULT_REPO)
    if not repo.endswith("/"):
        repo += "/"
    return f"{repo}gluon/dataset/{namespace}/{filename}"


def _download(url: str, path: str, sha1_hash: Optional[str] = None) -> str:
    """Download ``url`` to the file ``path`` (atomically), checking its SHA-1."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(path)), suffix=".part")
    try:
        with os.fdopen(fd, "wb") as out, urllib.request.urlopen(url, timeout=60) as resp:
            shutil.copyfileobj(resp, out)
        if sha1_hash and file_sha1(tmp) != sha1_hash:
            raise MXNetError(f"downloaded {url} but its SHA-1 does not match {sha1_hash}; "
                             f"the download is corrupt or the mirror changed")
        os.replace(tmp, path)
    except Exception as err:
        if os.path.exists(tmp):
            os.remove(tmp)
        if isinstance(err, MXNetError):
            raise
        raise MXNetError(f"could not download {url} to {path}: {err}. Put the file there "
                         f"yourself (or set MXNET_GLUON_REPO to a mirror)") from err
    return path


def _find_or_download(root: str, filename: str, namespace: str, sha1_hash: str) -> str:
    """``root/filename``, or its uncompressed version (name without ``.gz``), or the
    file downloaded from MXNet's mirror."""
    path = os.path.join(root, filename)
    if os.path.isfile(path):
        return path
    if filename.endswith(".gz") and os.path.isfile(path[:-3]):
        return path[:-3]
    return _download(_repo_url(namespace, filename), path, sha1_hash)


_IDX_DTYPES: Dict[int, Any] = {0x08: np.uint8, 0x09: np.int8, 0x0B: ">i2", 0x0C: ">i4",
                               0x0D: ">f4",
               0x0E: ">f8"}


# DEFLATE expands data at most ~1032x: a gzip'd IDX file cannot hold more than this
_MAX_GZIP_RATIO = 1100


def _idx_error(path: str, problem: str) -> FileFormatError:
    return FileFormatError(f"file {path!r} {problem}; expected MNIST-format (IDX) data "
                           f"(http://yann.lecun.com/exdb/mnist)")


def read_idx(path: str) -> np.ndarray:
    """Read an IDX file (the MNIST format; gzip-compressed if the name ends in ``.gz``).

    The header's shape is checked against the file's size before anything is
    allocated, and data after the announced values is refused without being read, so a
    crafted file cannot make mxgrad allocate or decompress more than it holds. A bad
    file raises :class:`~mxgrad.base.FileFormatError` naming it.

    Examples
    --------
    >>> import os, tempfile, struct, numpy as np
    >>> p = os.path.join(tempfile.mkdtemp(), 'labels-idx1-ubyte')
    >>> _ = open(p, 'wb').write(struct.pack('>4BI', 0, 0, 8, 1, 3) + bytes([7, 1, 4]))
    >>> read_idx(p)
    array([7, 1, 4], dtype=uint8)
    """
    raw = open_for_read(path, "path")
    try:
        size = os.fstat(raw.fileno()).st_size
        gz = path.endswith(".gz")
        f = gzip.GzipFile(fileobj=raw, mode="rb") if gz else raw
        limit = size * _MAX_GZIP_RATIO if gz else size
        try:
            magic = f.read(4)
            if len(magic) < 4 or magic[0] != 0 or magic[1] != 0 or \
                    magic[2] not in _IDX_DTYPES:
                raise _idx_error(path, f"is not an IDX file (bad magic number "
                                 f"{magic.hex() or 'empty'})")
            ndim = magic[3]
            head = f.read(4 * ndim)
            if len(head) < 4 * ndim:
                raise _idx_error(path, "has a truncated header")
            dims = struct.unpack(f">{ndim}I", head)
            dtype = np.dtype(_IDX_DTYPES[magic[2]])
            nbytes = dtype.itemsize
            for d in dims:       # Python ints: 65536**4 does not wrap to 0
                nbytes *= d
            if nbytes > limit:
                raise _idx_error(path, f"announces shape {dims} ({nbytes:,} bytes), more "
                                 f"than its {size:,} bytes can hold")
            buf = f.read(nbytes)
            if len(buf) < nbytes:
                raise _idx_error(path, f"announces shape {dims} but holds only "
                                 f"{len(buf) // dtype.itemsize} values; it is truncated")
            if f.read(1):
                raise _idx_error(path, f"has data after the {nbytes:,} bytes of shape "
                                 f"{dims} its header announces")
        except (OSError, EOFError, zlib.error) as err:
            raise _idx_error(path, f"cannot be read ({type(err).__name__}: {err})") from None
    finally:
        raw.close()
    data = np.frombuffer(buf, dtype=dtype)
    return data.astype(dtype.newbyteorder("="), copy=True).reshape(dims)


def _extract(archive: str, root: str, who: str) -> None:
    """Extract the tar archive ``archive`` into ``root``, refusing members that are not
    plain files or folders inside it (links, absolute paths, ``..``)."""
    try:
        with tarfile.open(archive) as tar:
            try:
                tar.extractall(root, filter="data")
            except TypeError:   # Python without extraction filters: check by hand
                for m in tar.getmembers():
                    if not (m.isfile() or m.isdir()) or os.path.isabs(m.name) or \
                            ".." in m.name.replace("\\", "/").split("/"):
                        raise tarfile.TarError(f"member {m.name!r} is not a plain file "
                                               f"inside the folder") from None
                tar.extractall(root)
    except (tarfile.TarError, EOFError, zlib.error) as err:
        raise FileFormatError(f"{who}: cannot extract {archive!r}: {err}; delete it to "
                              f"download it again") from None


class MNIST(_DownloadedDataset):
    """MNIST handwritten digits (http://yann.lecun.com/exdb/mnist): 60,000 training and
    10,000 test images, each a ``uint8`` NDArray of shape ``(28, 28, 1)`` with an
    ``int32`` label.

    The files ``train-images-idx3-ubyte.gz``, ``train-labels-idx1-ubyte.gz``,
    ``t10k-images-idx3-ubyte.gz`` and ``t10k-labels-idx1-ubyte.gz`` (or the same names
    without ``.gz``) are read from ``root``; missing ones are downloaded from MXNet's
    mirror (``$MXNET_GLUON_REPO`` overrides it).

    Parameters
    ----------
    root : str, default ``$MXNET_HOME/datasets/mnist`` (``~/.mxnet/datasets/mnist``)
        Directory of the data files.
    train : bool, default True
        Load the training set (else the test set).
    transform : callable, optional
        ``transform(data, label) -> sample`` applied to each sample, e.g.
        ``lambda data, label: (data.astype('float32') / 255, label)``.
    """

    _namespace = "mnist"
    _files = {
        "train": (("train-images-idx3-ubyte.gz", "6c95f4b05d2bf285e1bfb0e7960c31bd3b3f8a7d"),
                  ("train-labels-idx1-ubyte.gz", "2a80914081dc54586dbdf242f9805a6b8d2a15fc")),
        "test": (("t10k-images-idx3-ubyte.gz", "c3a25af1f52dad7f726cce8cacb138654b760d48"),
                 ("t10k-labels-idx1-ubyte.gz", "763e7fa3757d93b0cdec073cef058b2004252c17")),
    }

    def __init__(self, root: str = os.path.join(_data_dir(), "datasets", "mnist"),
                 train: bool = True, transform: Optional[Callable] = None):
        self._train = train
        super().__init__(root, transform)

    def _get_data(self):
        (data_name, data_sha), (label_name, label_sha) = \
            self._files["train" if self._train else "test"]
        data_file = _find_or_download(self._root, data_name, self._namespace, data_sha)
        label_file = _find_or_download(self._root, label_name, self._namespace, label_sha)
        label = read_idx(label_file)
        data = read_idx(data_file)
        if label.ndim != 1 or data.ndim != 3:
            raise MXNetError(f"{type(self).__name__}: expected 1-D labels and 3-D images, "
                             f"got shapes {label.shape} ({label_file}) and {data.shape} "
                             f"({data_file})")
        if len(label) != len(data):
            raise MXNetError(f"{type(self).__name__}: {data_file} holds {len(data)} images "
                             f"but {label_file} holds {len(label)} labels")
        self._data = wrap(np.ascontiguousarray(data.astype(np.uint8, copy=False))[..., None])
        self._label = label.astype(np.int32)


class FashionMNIST(MNIST):
    """Fashion-MNIST (Zalando's article images), a drop-in replacement for
    :class:`MNIST`: same file names, shapes and dtypes.

    Parameters
    ----------
    root : str, default ``$MXNET_HOME/datasets/fashion-mnist``
        Directory of the data files.
    train : bool, default True
        Load the training set (else the test set).
    transform : callable, optional
        ``transform(data, label) -> sample`` applied to each sample.
    """

    _namespace = "fashion-mnist"
    _files = {
        "train": (("train-images-idx3-ubyte.gz", "0cf37b0d40ed5169c6b3aba31069a9770ac9043d"),
                  ("train-labels-idx1-ubyte.gz", "236021d52f1e40852b06a4c3008d8de8aef1e40b")),
        "test": (("t10k-images-idx3-ubyte.gz", "626ed6a7c06dd17c0eec72fa3be1740f146a2863"),
                 ("t10k-labels-idx1-ubyte.gz", "17f9ab60e7257a1620f4ad76bbbaf857c3920701")),
    }

    def __init__(self, root: str = os.path.join(_data_dir(), "datasets", "fashion-mnist"),
                 train: bool = True, transform: Optional[Callable] = None):
        super().__init__(root, train, transform)


class CIFAR10(_DownloadedDataset):
    """CIFAR-10 (https://www.cs.toronto.edu/~kriz/cifar.html): 50,000 training and
    10,000 test colour images, each a ``uint8`` NDArray of shape ``(32, 32, 3)`` with
    an ``int32`` label.

    Reads the binary version: ``data_batch_1.bin`` .. ``data_batch_5.bin`` and
    ``test_batch.bin`` in ``root`` (or in ``root/cifar-10-batches-bin``); when they are
    missing, ``cifar-10-binary.tar.gz`` is extracted (downloaded first if needed).

    Parameters
    ----------
    root : str, default ``$MXNET_HOME/datasets/cifar10``
        Directory of the data files.
    train : bool, default True
        Load the training set (else the test set).
    transform : callable, optional
        ``transform(data, label) -> sample`` applied to each sample.
    """

    _namespace = "cifar10"
    _archive = ("cifar-10-binary.tar.gz", "fab780a1e191a7eda0f345501ccd62d20f7ed891")
    _subdir = "cifar-10-batches-bin"
    _train_files = [f"data_batch_{i}.bin" for i in range(1, 6)]
    _test_files = ["test_batch.bin"]
    _label_bytes = 1

    def __init__(self, root: str = os.path.join(_data_dir(), "datasets", "cifar10"),
                 train: bool = True, transform: Optional[Callable] = None):
        self._train = train
        super().__init__(root, transform)

    def _label_column(self) -> int:
        return 0

    def _locate(self, names):
        for base in (self._root, os.path.join(self._root, self._subdir)):
            paths = [os.path.join(base, n) for n in names]
            if all(os.path.isfile(p) for p in paths):
                return paths
        return None

    def _get_data(self):
        names = self._train_files if self._train else self._test_files
        paths = self._locate(names)
        if paths is None:
            archive = _find_or_download(self._root, self._archive[0], self._namespace,
                                        self._archive[1])
            _extract(archive, self._root, type(self).__name__)
            paths = self._locate(names)
            if paths is None:
                raise MXNetError(f"{type(self).__name__}: {archive} does not contain "
                                 f"{', '.join(names)}")
        row = 3072 + self._label_bytes
        datas, labels = [], []
        for p in paths:
            with open(p, "rb") as f:
                raw = np.frombuffer(f.read(), dtype=np.uint8)
            if raw.size % row:
                raise FileFormatError(f"{p}: size {raw.size} is not a multiple of the record "
                                 f"size {row}; the file is not a CIFAR binary batch")
            raw = raw.reshape(-1, row)
            datas.append(raw[:, self._label_bytes:].reshape(-1, 3, 32, 32)
                         .transpose(0, 2, 3, 1))
            labels.append(raw[:, self._label_column()].astype(np.int32))
        self._data = wrap(np.ascontiguousarray(np.concatenate(datas)))
        self._label = np.concatenate(labels)


class CIFAR100(CIFAR10):
    """CIFAR-100: like :class:`CIFAR10` with 100 fine classes grouped in 20 coarse ones.

    Reads ``train.bin`` / ``test.bin`` in ``root`` (or ``root/cifar-100-binary``),
    extracting ``cifar-100-binary.tar.gz`` when needed.

    Parameters
    ----------
    root : str, default ``$MXNET_HOME/datasets/cifar100``
        Directory of the data files.
    fine_label : bool, default False
        Use the 100 fine labels (else the 20 coarse ones).
    train : bool, default True
        Load the training set (else the test set).
    transform : callable, optional
        ``transform(data, label) -> sample`` applied to each sample.
    """

    _namespace = "cifar100"
    _archive = ("cifar-100-binary.tar.gz", "a0bb982c76b83111308126cc779a992fa506b90b")
    _subdir = "cifar-100-binary"
    _train_files = ["train.bin"]
    _test_files = ["test.bin"]
    _label_bytes = 2

    def __init__(self, root: str = os.path.join(_data_dir(), "datasets", "cifar100"),
                 fine_label: bool = False, train: bool = True,
                 transform: Optional[Callable] = None):
        self._fine_label = bool(fine_label)
        super().__init__(root, train, transform)

    def _label_column(self) -> int:
        return 1 if self._fine_label else 0


_DIGITS_CACHE: dict = {}


def _bundled_digits_path() -> str:
    return os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.dirname(os.path.abspath(__file__))))), "data", "digits.csv.gz")


def _load_digits(path: str) -> np.ndarray:
    key = os.path.abspath(path)
    if key not in _DIGITS_CACHE:
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt") as f:
            table = np.loadtxt(f, delimiter=",", dtype=np.int64, ndmin=2)
        if table.shape[1] != 65:
            raise MXNetError(f"{path}: expected 65 columns (64 pixels then the label), got "
                             f"{table.shape[1]}")
        table.setflags(write=False)
        _DIGITS_CACHE[key] = table
    return _DIGITS_CACHE[key]


def _digits_test_mask(labels: np.ndarray) -> np.ndarray:
    """True for every fifth image of each label (in file order): the Digits test set."""
    order = np.argsort(labels, kind="stable")
    ordered = labels[order]
    rank = np.empty(len(labels), dtype=np.int64)
    rank[order] = np.arange(len(labels)) - np.searchsorted(ordered, ordered, side="left")
    return rank % 5 == 4


class Digits(_DownloadedDataset):
    """The UCI 8x8 handwritten digits bundled with mxgrad (1,797 images, no download).

    Each sample is ``(image, label)``: a ``uint8`` NDArray of shape ``(8, 8, 1)`` with
    pixel values **0..16** (not 0..255: divide by 16 to scale to [0, 1]) and an ``int32``
    label 0..9.

    The split is fixed, deterministic and stratified: of the images of each digit, in
    file order, every fifth one (the 5th, 10th, ...) is in the test set (355 images,
    34..36 per digit), the others in the training set (1,442 images). Interleaving
    spreads every writer over both parts, like a random split; the file's last rows
    come from writers that are rare earlier, so a "last N rows" split would measure
    writer shift more than learning.

    Parameters
    ----------
    train : bool, default True
        The training part (else the test part).
    root : str, optional
        A directory holding ``digits.csv.gz`` or the path of such a file (64 pixel
        values then the label per row); the bundled copy by default.
    transform : callable, optional
        ``transform(data, label) -> sample`` applied to each sample.

    Examples
    --------
    >>> from mxgrad.gluon.data.vision import Digits
    >>> ds = Digits(train=False)
    >>> image, label = ds[0]
    >>> len(ds), image.shape, int(image.asnumpy().max()) <= 16, 0 <= int(label) <= 9
    (355, (8, 8, 1), True, True)
    """

    def __init__(self, train: bool = True, root: Optional[str] = None,
                 transform: Optional[Callable] = None):
        self._train = train
        self._transform = transform
        if root is None:
            path = _bundled_digits_path()
        else:
            root = os.path.expanduser(root)
            path = os.path.join(root, "digits.csv.gz") if os.path.isdir(root) else root
        if not os.path.isfile(path):
            raise MXNetError(f"Digits: data file {path} not found; pass root=None for the "
                             f"copy bundled with mxgrad")
        self._root = os.path.dirname(path)
        table = _load_digits(path)
        is_test = _digits_test_mask(table[:, 64])
        part = table[~is_test] if train else table[is_test]
        self._data = wrap(part[:, :64].astype(np.uint8).reshape(-1, 8, 8, 1))
        self._label = part[:, 64].astype(np.int32)


# MXNet keeps the image-file datasets in this module too (``vision.datasets.ImageFolderDataset``)
from .image_datasets import ImageFolderDataset, ImageRecordDataset  # noqa: E402

__all__ += ["ImageFolderDataset", "ImageRecordDataset"]

"""Downloads and data sets of MXNet's ``test_utils`` (``download``, ``get_mnist``...), on top
of the one downloader (atomic writes, clear errors) and IDX reader of ``gluon.data.vision``.

``download`` takes any URL ``urllib`` opens (``file://`` too) and skips a file that already
exists; without network it raises an ``MXNetError`` that says where to put the file.
``get_mnist`` reads MXNet's four MNIST files from the current folder (where MXNet's
``get_mnist`` downloads them) or from Gluon's cache ``$MXNET_HOME/datasets/mnist``, and
downloads only what is in neither.

Examples
--------
>>> import os, tempfile, pathlib
>>> src = os.path.join(tempfile.mkdtemp(), 'a.txt'); _ = open(src, 'w').write('hi')
>>> out = download(pathlib.Path(src).as_uri(), dirname=tempfile.mkdtemp())
>>> open(out).read()
'hi'
"""
from __future__ import annotations

import os
from typing import Dict, Optional

import numpy as np

from .base import StateError, data_dir

__all__ = ["download", "download_model", "get_mnist", "get_mnist_ubyte", "get_mnist_iterator",
           "list_gpus"]

_MNIST_URL = "http://data.mxnet.io/data/mnist/"
_MNIST_FILES = {"train": ("train-labels-idx1-ubyte.gz", "train-images-idx3-ubyte.gz"),
                "test": ("t10k-labels-idx1-ubyte.gz", "t10k-images-idx3-ubyte.gz")}


def download(url: str, fname: Optional[str] = None, dirname: Optional[str] = None,
             overwrite: bool = False, retries: int = 5) -> str:
    """Download ``url`` to ``fname`` (default: the URL's last part) in ``dirname`` (default:
    ``fname``'s folder, else the current one); an existing file is kept unless
    ``overwrite``. Returns the file name."""
    from .gluon.data.vision.datasets import _download
    if not isinstance(url, str) or not url:
        raise StateError(f"download: url must be a non-empty string, got {url!r}")
    if retries < 0:
        raise StateError(f"download: retries must be >= 0, got {retries}")
    if fname is None:
        fname = url.split("/")[-1]
    if dirname is not None:
        fname = os.path.join(dirname, fname)
    if not overwrite and os.path.exists(fname):
        return fname
    last: Exception = StateError("no attempt")
    for _ in range(retries + 1):
        try:
            return _download(url, fname)
        except Exception as err:       # the downloader raises MXNetError with the reason
            last = err
    raise last


def _model_zoo_urls() -> Dict[str, Dict[str, str]]:
    """MXNet's ``download_model`` table: model name -> ``{'symbol': url, 'params': url}``
    (checkpoint files on data.mxnet.io)."""
    base = "http://data.mxnet.io/models/"
    folders = {"imagenet1k-inception-bn": ("imagenet/inception-bn/Inception-BN", "0126")}
    for n in (18, 34, 50, 101, 152):
        folders[f"imagenet1k-resnet-{n}"] = (f"imagenet/resnet/{n}-layers/resnet-{n}", "0000")
    for n in (50, 101):
        folders[f"imagenet1k-resnext-{n}"] = (f"imagenet/resnext/{n}-layers/resnext-{n}", "0000")
    folders["imagenet1k-resnext-101-64x4d"] = (
        "imagenet/resnext/101-layers/resnext-101-64x4d", "0000")
    folders["imagenet11k-resnet-152"] = ("imagenet-11k/resnet-152/resnet-152", "0000")
    for n in (152, 50):
        folders[f"imagenet11k-place365ch-resnet-{n}"] = (
            f"imagenet-11k-place365-ch/resnet-{n}", "0000")
    return {name: {"symbol": f"{base}{stem}-symbol.json", "params": f"{base}{stem}-{ep}.params"}
            for name, (stem, ep) in folders.items()}


def download_model(model_name: str, dst_dir: str = "./",
                   meta_info: Optional[Dict[str, Dict[str, str]]] = None):
    """Download a checkpoint (``<name>-symbol.json`` and ``<name>-0000.params``) into
    ``dst_dir``, as MXNet's ``test_utils.download_model``: ``meta_info`` maps model names to
    ``{'symbol': url, 'params': url}`` (default: MXNet's ImageNet models on data.mxnet.io).
    Files already there are kept, so a checkpoint put there by hand loads offline.

    Returns
    -------
    tuple
        ``(dst_dir/model_name, 0)``, the prefix and epoch ``mx.model.load_checkpoint``
        takes; ``(None, 0)`` for a name ``meta_info`` does not hold.

    Examples
    --------
    >>> download_model('no-such-model')
    (None, 0)
    """
    table = _model_zoo_urls() if meta_info is None else dict(meta_info)
    if model_name not in table:
        return (None, 0)
    meta = table[model_name]
    for key in ("symbol", "params"):
        if key not in meta:
            raise StateError(f"download_model: meta_info[{model_name!r}] has no {key!r} URL; "
                             f"give {{'symbol': url, 'params': url}}")
    os.makedirs(dst_dir, exist_ok=True)
    prefix = os.path.join(dst_dir, model_name)
    download(meta["symbol"], prefix + "-symbol.json")
    download(meta["params"], prefix + "-0000.params")
    return (prefix, 0)


def _find(name: str) -> str:
    for folder in (os.getcwd(), os.path.join(data_dir(), "datasets", "mnist")):
        for candidate in (name, name[:-3]):
            path = os.path.join(folder, candidate)
            if os.path.isfile(path):
                return path
    return download(_MNIST_URL + name)


def get_mnist() -> Dict[str, np.ndarray]:
    """MNIST as MXNet's ``test_utils.get_mnist`` returns it: ``train_data``/``test_data``
    float32 ``(n, 1, 28, 28)`` in [0, 1] and ``train_label``/``test_label`` int8."""
    from .gluon.data.vision.datasets import read_idx
    out: Dict[str, np.ndarray] = {}
    for part, (labels, images) in _MNIST_FILES.items():
        lab = read_idx(_find(labels)).astype(np.int8)
        img = read_idx(_find(images))
        if img.ndim != 3 or len(img) != len(lab):
            raise StateError(f"get_mnist: {images} holds {img.shape} images for {len(lab)} "
                             f"labels; the files are damaged, delete them to download again")
        out[f"{part}_data"] = (img.reshape(len(lab), 1, img.shape[1], img.shape[2])
                               .astype(np.float32) / 255)
        out[f"{part}_label"] = lab
    return out


def get_mnist_ubyte() -> None:
    """Write the four MNIST files, uncompressed, into ``./data`` (MXNet's layout)."""
    import gzip
    import shutil
    from ._fileio import atomic_write
    os.makedirs("data", exist_ok=True)
    for labels, images in _MNIST_FILES.values():
        for name in (labels, images):
            dest = os.path.join("data", name[:-3])
            if os.path.exists(dest):
                continue
            src = _find(name)
            opener = gzip.open if src.endswith(".gz") else open
            with opener(src, "rb") as fin, atomic_write(dest, "wb") as fout:
                shutil.copyfileobj(fin, fout)


def get_mnist_iterator(batch_size: int, input_shape, num_parts: int = 1, part_index: int = 0):
    """``(train, val)`` ``NDArrayIter`` s over MNIST shaped ``(batch,) + input_shape``
    (MXNet returns its ``MNISTIter`` s; the batches are the same data)."""
    from .io import NDArrayIter
    mnist = get_mnist()
    shape = tuple(input_shape)

    def part(x):
        n = len(x) // num_parts
        return x[part_index * n:(part_index + 1) * n]

    def it(split, shuffle):
        data = part(mnist[f"{split}_data"]).reshape((-1,) + shape)
        return NDArrayIter(data, part(mnist[f"{split}_label"]).astype(np.float32), batch_size,
                           shuffle=shuffle, last_batch_handle="discard")
    return it("train", True), it("test", False)


def list_gpus() -> range:
    """The GPU ids: none (mxgrad runs on the CPU)."""
    return range(0)

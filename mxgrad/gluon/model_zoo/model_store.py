"""Where pretrained model-zoo parameter files live on disk.

MXNet 1.x downloads ``{name}-{short_hash}.params`` (the first 8 hex digits of the
file's SHA-1) into ``root`` (default ``$MXNET_HOME/models``, ``~/.mxnet/models``).
mxgrad never downloads: :func:`get_model_file` returns the path when the file is there
and otherwise raises :class:`ModelFileNotFoundError` naming the exact file and folder,
so a file fetched elsewhere (for instance by MXNet itself) can be copied in.

Examples
--------
>>> import os, tempfile
>>> from mxgrad.gluon.model_zoo import model_store
>>> model_store.model_file_name('resnet18_v1')
'resnet18_v1-a0666292.params'
>>> root = tempfile.mkdtemp()
>>> try:
...     model_store.get_model_file('resnet18_v1', root=root)
... except FileNotFoundError as err:
...     print(type(err).__name__)
ModelFileNotFoundError
"""
from __future__ import annotations

import os
import warnings
from typing import Optional

from ...base import MXNetError
from ..._fileio import file_sha1
from ...context import Context

__all__ = ["get_model_file", "load_pretrained", "purge", "short_hash", "model_file_name", "default_root",
           "ModelFileNotFoundError", "UnknownModelError"]

# SHA-1 of the pretrained files MXNet 1.9.1 publishes (its model_store table)
_model_sha1 = {
    "alexnet": "44335d1f0046b328243b32a26a4fbd62d9057b45",
    "densenet121": "f27dbf2dbd5ce9a80b102d89c7483342cd33cb31",
    "densenet161": "b6c8a95717e3e761bd88d145f4d0a214aaa515dc",
    "densenet169": "2603f878403c6aa5a71a124c4a3307143d6820e9",
    "densenet201": "1cdbc116bc3a1b65832b18cf53e1cb8e7da017eb",
    "inceptionv3": "ed47ec45a937b656fcc94dabde85495bbef5ba1f",
    "mobilenet0.25": "9f83e440996887baf91a6aff1cccc1c903a64274",
    "mobilenet0.5": "8e9d539cc66aa5efa71c4b6af983b936ab8701c3",
    "mobilenet0.75": "529b2c7f4934e6cb851155b22c96c9ab0a7c4dc2",
    "mobilenet1.0": "6b8c5106c730e8750bcd82ceb75220a3351157cd",
    "mobilenetv2_1.0": "36da4ff1867abccd32b29592d79fc753bca5a215",
    "mobilenetv2_0.75": "e2be7b72a79fe4a750d1dd415afedf01c3ea818d",
    "mobilenetv2_0.5": "aabd26cd335379fcb72ae6c8fac45a70eab11785",
    "mobilenetv2_0.25": "ae8f9392789b04822cbb1d98c27283fc5f8aa0a7",
    "resnet18_v1": "a0666292f0a30ff61f857b0b66efc0228eb6a54b",
    "resnet34_v1": "48216ba99a8b1005d75c0f3a0c422301a0473233",
    "resnet50_v1": "0aee57f96768c0a2d5b23a6ec91eb08dfb0a45ce",
    "resnet101_v1": "d988c13d6159779e907140a638c56f229634cb02",
    "resnet152_v1": "671c637a14387ab9e2654eafd0d493d86b1c8579",
    "resnet18_v2": "a81db45fd7b7a2d12ab97cd88ef0a5ac48b8f657",
    "resnet34_v2": "9d6b80bbc35169de6b6edecffdd6047c56fdd322",
    "resnet50_v2": "ecdde35339c1aadbec4f547857078e734a76fb49",
    "resnet101_v2": "18e93e4f48947e002547f50eabbcc9c83e516aa6",
    "resnet152_v2": "f2695542de38cf7e71ed58f02893d82bb409415e",
    "squeezenet1.0": "264ba4970a0cc87a4f15c96e25246a1307caf523",
    "squeezenet1.1": "33ba0f93753c83d86e1eb397f38a667eaf2e9376",
    "vgg11": "dd221b160977f36a53f464cb54648d227c707a05",
    "vgg11_bn": "ee79a8098a91fbe05b7a973fed2017a6117723a8",
    "vgg13": "6bc5de58a05a5e2e7f493e2d75a580d83efde38c",
    "vgg13_bn": "7d97a06c3c7a1aecc88b6e7385c2b373a249e95e",
    "vgg16": "e660d4569ccb679ec68f1fd3cce07a387252a90a",
    "vgg16_bn": "7f01cf050d357127a73826045c245041b0df7363",
    "vgg19": "ad2f660d101905472b83590b59708b71ea22b2e5",
    "vgg19_bn": "f360b758e856f1074a85abd5fd873ed1d98297c3",
}

_URL = "https://apache-mxnet.s3-accelerate.dualstack.amazonaws.com/gluon/models/{}.zip"


class ModelFileNotFoundError(MXNetError, FileNotFoundError):
    """A pretrained parameter file is not in the model store (mxgrad does not download)."""


class UnknownModelError(MXNetError, ValueError):
    """A model name the zoo does not have (or without a published pretrained file)."""


def default_root() -> str:
    """``$MXNET_HOME/models``, or ``~/.mxnet/models`` when ``MXNET_HOME`` is not set
    (read at call time).

    Examples
    --------
    >>> import os
    >>> os.path.basename(default_root())
    'models'
    """
    home = os.environ.get("MXNET_HOME") or os.path.join(os.path.expanduser("~"), ".mxnet")
    return os.path.join(home, "models")


def short_hash(name: str) -> str:
    """The first 8 hex digits of the published SHA-1 of model ``name``'s file.

    Examples
    --------
    >>> short_hash('alexnet')
    '44335d1f'
    """
    if name not in _model_sha1:
        raise UnknownModelError(f"Pretrained model for {name!r} is not available; models with "
                            f"pretrained files: {', '.join(sorted(_model_sha1))}")
    return _model_sha1[name][:8]


def model_file_name(name: str) -> str:
    """The file name MXNet stores model ``name``'s pretrained parameters under.

    Examples
    --------
    >>> model_file_name('mobilenetv2_0.25')
    'mobilenetv2_0.25-ae8f9392.params'
    """
    return f"{name}-{short_hash(name)}.params"


def get_model_file(name: str, root: Optional[str] = None) -> str:
    """Path of model ``name``'s pretrained parameter file under ``root``.

    Parameters
    ----------
    name : str
        Model name as in :func:`~mxgrad.gluon.model_zoo.vision.get_model`
        (``'resnet18_v1'``, ``'mobilenet0.25'``...).
    root : str, optional
        Folder of the model store; default ``$MXNET_HOME/models`` (``~/.mxnet/models``).

    Returns
    -------
    str
        ``root/{name}-{short_hash}.params``.

    Raises
    ------
    ModelFileNotFoundError
        When the file is not there: the message names the file, the folder and where
        MXNet publishes it. A file whose SHA-1 differs from the published one is used
        with a warning (MXNet would download it again).

    Examples
    --------
    >>> import tempfile
    >>> try:
    ...     get_model_file('alexnet', root=tempfile.mkdtemp())
    ... except FileNotFoundError as err:
    ...     print(str(err).split(': ')[0])
    pretrained parameters for 'alexnet' not found
    """
    file_name = model_file_name(name)
    root = os.path.expanduser(root if root is not None else default_root())
    path = os.path.join(root, file_name)
    if not os.path.isfile(path):
        raise ModelFileNotFoundError(
            f"pretrained parameters for {name!r} not found: mxgrad does not download "
            f"files. Put the file {file_name!r} in the folder {root!r}, or pass root= "
            f"the folder that holds it. MXNet 1.x downloads it (into $MXNET_HOME/models) "
            f"from {_URL.format(file_name[:-len('.params')])}, a zip archive holding "
            f"that file.")
    if file_sha1(path) != _model_sha1[name]:
        warnings.warn(f"{path}: the content does not match the SHA-1 MXNet publishes for "
                      f"{name!r} ({_model_sha1[name]}); loading it anyway", stacklevel=2)
    return path


def purge(root: Optional[str] = None) -> None:
    """Delete every ``.params`` file in the model store ``root``.

    Examples
    --------
    >>> import os, tempfile
    >>> root = tempfile.mkdtemp(); open(os.path.join(root, 'x.params'), 'wb').close()
    >>> purge(root); os.listdir(root)
    []
    """
    root = os.path.expanduser(root if root is not None else default_root())
    for f in os.listdir(root):
        if f.endswith(".params"):
            os.remove(os.path.join(root, f))


def load_pretrained(net, name: str, ctx: Optional[Context] = None, root: Optional[str] = None
                    ) -> None:
    """Load model ``name``'s pretrained file from the store ``root`` into ``net``
    (what every ``vision.*(pretrained=True)`` does)."""
    net.load_parameters(get_model_file(name, root=root), ctx=ctx)

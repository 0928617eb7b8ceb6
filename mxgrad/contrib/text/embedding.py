"""Token embeddings (MXNet's ``mx.contrib.text.embedding``): vectors for the tokens of a
vocabulary, read from text files of ``token v1 v2 ...`` lines.

``GloVe`` and ``FastText`` read MXNet's pretrained files from
``$MXNET_HOME/embeddings/<glove|fasttext>/<file>`` (``~/.mxnet/embeddings/...``); mxgrad
never downloads: a missing file raises an error naming the file and the folder to put it
in. ``CustomEmbedding`` reads any such file.

Examples
--------
>>> import os, tempfile
>>> from mxgrad.contrib import text
>>> path = os.path.join(tempfile.mkdtemp(), 'vecs.txt')
>>> _ = open(path, 'w').write('hello 1 2\\nworld 3 4\\n')
>>> emb = text.embedding.CustomEmbedding(path)
>>> emb.get_vecs_by_tokens(['world', 'unknown']).asnumpy().tolist()
[[3.0, 4.0], [0.0, 0.0]]
"""
from __future__ import annotations

import io
import os
import warnings
from typing import Callable, Dict, List, Optional, Sequence, Type, Union

import numpy as np

from ... import ndarray as nd
from ...base import FileMissingError, StateError
from ..._engine.ndarray import NDArray, wrap
from ._names import PRETRAINED_FILE_NAMES
from .vocab import UNKNOWN_IDX, Vocabulary
from ._errors import TextFormatError, TextKeyError, TextShapeError, TextTypeError

__all__ = ["register", "create", "get_pretrained_file_names", "GloVe", "FastText",
           "CustomEmbedding", "CompositeEmbedding"]

_REGISTRY: Dict[str, Type["_TokenEmbedding"]] = {}


def register(embedding_cls):
    """Register a token embedding class under its lower-cased name (for :func:`create`)."""
    _REGISTRY[embedding_cls.__name__.lower()] = embedding_cls
    return embedding_cls


def create(embedding_name: str, **kwargs) -> "_TokenEmbedding":
    """An instance of the registered embedding ``embedding_name`` (``'glove'``,
    ``'fasttext'``...) made with ``kwargs``."""
    cls = _REGISTRY.get(embedding_name.lower())
    if cls is None:
        raise TextKeyError(f"text.embedding.create: unknown embedding {embedding_name!r}; "
                         f"registered: {sorted(_REGISTRY)}")
    return cls(**kwargs)


def get_pretrained_file_names(embedding_name: Optional[str] = None
                              ) -> Union[List[str], Dict[str, List[str]]]:
    """The pretrained file names of one embedding, or a dict of them for all.

    Examples
    --------
    >>> get_pretrained_file_names('glove')[:2]
    ['glove.42B.300d.txt', 'glove.6B.50d.txt']
    """
    if embedding_name is None:
        return {k: list(v) for k, v in PRETRAINED_FILE_NAMES.items()}
    names = PRETRAINED_FILE_NAMES.get(embedding_name.lower())
    if names is None:
        raise TextKeyError(f"get_pretrained_file_names: unknown embedding {embedding_name!r}; "
                         f"known: {sorted(PRETRAINED_FILE_NAMES)}")
    return list(names)


class _TokenEmbedding(Vocabulary):
    """A vocabulary with one vector per token (``idx_to_vec``, row 0 for unknown tokens)."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._vec_len = 0
        self._idx_to_vec: NDArray = wrap(np.zeros((0, 0), np.float32))   # set on loading

    @classmethod
    def _known_file_names(cls) -> Sequence[str]:
        names = getattr(cls, "pretrained_file_name_sha1", None)
        if names is None:
            names = PRETRAINED_FILE_NAMES.get(getattr(cls, "folder", "")
                                              or getattr(cls, "namespace", ""), ())
        return list(names)

    @classmethod
    def _check_pretrained_file_names(cls, pretrained_file_name: str) -> None:
        """Raise ``KeyError`` (MXNet's) unless the class knows ``pretrained_file_name``."""
        known = cls._known_file_names()
        if pretrained_file_name not in known:
            raise TextKeyError(f"Cannot find pretrained file {pretrained_file_name} for token "
                               f"embedding {cls.__name__.lower()}. Valid pretrained files "
                               f"for embedding {cls.__name__.lower()}: {', '.join(known)}")

    @classmethod
    def _get_pretrained_file(cls, embedding_root: str, pretrained_file_name: str) -> str:
        """The local path ``<root>/<namespace>/<name>`` of a pretrained file (mxgrad does not
        download: put the file there)."""
        folder = os.path.join(os.path.expanduser(embedding_root),
                              getattr(cls, "namespace", "") or getattr(cls, "folder", ""))
        path = os.path.join(folder, pretrained_file_name)
        if not os.path.isfile(path):
            raise FileMissingError(f"{cls.__name__}: pretrained file {pretrained_file_name!r} "
                                   f"is not in {folder}; mxgrad does not download: put it "
                                   f"there, or load any file with "
                                   f"text.embedding.CustomEmbedding(path)")
        return path

    def _load_embedding(self, path: str, elem_delim: str, init_unknown_vec: Callable,
                        encoding: str = "utf8") -> None:
        if not os.path.isfile(path):
            raise FileMissingError(f"token embedding file {path!r} does not exist")
        vecs: List[List[float]] = []
        unknown_vec = None
        with io.open(path, "r", encoding=encoding) as f:
            for lineno, line in enumerate(f, 1):
                elems = line.rstrip().split(elem_delim)
                if not line.strip():
                    continue
                if len(elems) < 2:
                    raise TextFormatError(f"{path}, line {lineno}: a token without a vector "
                                          f"(is elem_delim {elem_delim!r} right?)")
                token, values = elems[0], elems[1:]
                if len(values) == 1 and lineno == 1:      # fastText's "count dim" header
                    continue
                try:
                    vec = [float(v) for v in values]
                except ValueError:
                    raise TextFormatError(f"{path}, line {lineno}: values after the token "
                                          f"must be numbers") from None
                if self._vec_len == 0:
                    self._vec_len = len(vec)
                elif len(vec) != self._vec_len:
                    raise TextFormatError(f"{path}, line {lineno}: {len(vec)} values, the "
                                          f"file's vectors have {self._vec_len}")
                if token == self._unknown_token:
                    unknown_vec = vec
                elif token in self._token_to_idx:
                    warnings.warn(f"{path}, line {lineno}: token {token!r} appears again; "
                                  f"the first vector is kept")
                else:
                    self._token_to_idx[token] = len(self._idx_to_token)
                    self._idx_to_token.append(token)
                    vecs.append(vec)
        table = np.zeros((len(self._idx_to_token), self._vec_len), dtype=np.float32)
        first = len(self._idx_to_token) - len(vecs)
        if vecs:
            table[first:] = np.asarray(vecs, dtype=np.float32)
        table[UNKNOWN_IDX] = (np.asarray(unknown_vec, dtype=np.float32)
                              if unknown_vec is not None
                              else _as_numpy(init_unknown_vec(shape=self._vec_len)))
        self._idx_to_vec = wrap(table)

    def _restrict_to(self, vocabulary: Vocabulary) -> None:
        """Keep the tokens of ``vocabulary`` (its order), with their vectors here."""
        if not isinstance(vocabulary, Vocabulary):
            raise TextTypeError(f"vocabulary must be a text.vocab.Vocabulary, got "
                             f"{type(vocabulary).__name__}")
        vecs = self._vecs_for_vocabulary(list(vocabulary.idx_to_token))
        self._unknown_token = vocabulary.unknown_token
        self._reserved_tokens = vocabulary.reserved_tokens
        self._idx_to_token = list(vocabulary.idx_to_token)
        self._token_to_idx = dict(vocabulary.token_to_idx)
        self._idx_to_vec = vecs

    def _vecs_for_vocabulary(self, idx_to_token: List[str]) -> NDArray:
        """Rows for a vocabulary's tokens: row 0 (the vocabulary's unknown token, whatever
        it is called) is this embedding's unknown vector, as in MXNet."""
        vecs = self.get_vecs_by_tokens(list(idx_to_token))
        vecs[UNKNOWN_IDX] = self._idx_to_vec[UNKNOWN_IDX]
        return vecs

    @property
    def vec_len(self) -> int:
        """Length of each vector."""
        return self._vec_len

    @property
    def idx_to_vec(self) -> NDArray:
        """``(len(self), vec_len)`` vectors in index order (row 0: unknown tokens)."""
        return self._idx_to_vec

    def get_vecs_by_tokens(self, tokens: Union[str, List[str]],
                           lower_case_backup: bool = False) -> NDArray:
        """Vectors of ``tokens`` (one token: shape ``(vec_len,)``); unknown tokens get row 0;
        with ``lower_case_backup`` an unknown token is looked up in lower case too."""
        single = not isinstance(tokens, list)
        toks = [tokens] if single else tokens
        idx = []
        for t in toks:
            i = self._token_to_idx.get(t)
            if i is None and lower_case_backup and isinstance(t, str):
                i = self._token_to_idx.get(t.lower())
            idx.append(UNKNOWN_IDX if i is None else i)
        vecs = nd.take(self._idx_to_vec, nd.array(idx, dtype="int64"))
        return vecs[0] if single else vecs

    def update_token_vectors(self, tokens: Union[str, List[str]], new_vectors: NDArray) -> None:
        """Replace the vectors of known ``tokens`` by ``new_vectors``."""
        toks = tokens if isinstance(tokens, list) else [tokens]
        vals = _as_numpy(new_vectors).reshape(len(toks), -1)
        if vals.shape[1] != self._vec_len:
            raise TextShapeError(f"update_token_vectors: vectors of length {vals.shape[1]}, the "
                             f"embedding's are {self._vec_len}")
        for t, v in zip(toks, vals):
            i = self._token_to_idx.get(t)
            if i is None:
                raise StateError(f"update_token_vectors: token {t!r} is unknown; only known "
                                 f"tokens can be updated")
            self._idx_to_vec[i] = nd.array(v)


def _as_numpy(x) -> np.ndarray:
    return x.asnumpy() if isinstance(x, NDArray) else np.asarray(x, dtype=np.float32)


class _Pretrained(_TokenEmbedding):
    """An embedding read from MXNet's pretrained file ``<root>/<folder>/<name>``."""

    folder = ""
    default = ""

    def __init__(self, pretrained_file_name: Optional[str] = None,
                 embedding_root: str = os.path.join(
                     os.environ.get("MXNET_HOME", os.path.join("~", ".mxnet")), "embeddings"),
                 init_unknown_vec: Callable = nd.zeros,
                 vocabulary: Optional[Vocabulary] = None, **kwargs) -> None:
        name = pretrained_file_name or self.default
        known = PRETRAINED_FILE_NAMES[self.folder]
        if name not in known:
            raise TextKeyError(f"{type(self).__name__}: unknown pretrained_file_name {name!r}; "
                             f"see text.embedding.get_pretrained_file_names({self.folder!r})")
        super().__init__(**kwargs)
        folder = os.path.join(os.path.expanduser(embedding_root), self.folder)
        path = os.path.join(folder, name)
        if not os.path.isfile(path):
            raise FileMissingError(
                f"{type(self).__name__}: pretrained file {name!r} is not in {folder}; mxgrad "
                f"does not download: get it from MXNet's model repository (or the "
                f"embedding's authors) and put it there, or load any file with "
                f"text.embedding.CustomEmbedding(path)")
        self._load_embedding(path, " ", init_unknown_vec)
        if vocabulary is not None:
            self._restrict_to(vocabulary)


@register
class GloVe(_Pretrained):
    """GloVe vectors (``glove.6B.50d.txt``...), read from ``$MXNET_HOME/embeddings/glove``."""

    folder = "glove"
    default = "glove.840B.300d.txt"


@register
class FastText(_Pretrained):
    """fastText vectors (``wiki.simple.vec``...), read from
    ``$MXNET_HOME/embeddings/fasttext``."""

    folder = "fasttext"
    default = "wiki.simple.vec"


@register
class CustomEmbedding(_TokenEmbedding):
    """Vectors from any text file of ``token<elem_delim>v1<elem_delim>v2...`` lines."""

    def __init__(self, pretrained_file_path: str, elem_delim: str = " ",
                 encoding: str = "utf8", init_unknown_vec: Callable = nd.zeros,
                 vocabulary: Optional[Vocabulary] = None, **kwargs) -> None:
        super().__init__(**kwargs)
        self._load_embedding(pretrained_file_path, elem_delim, init_unknown_vec, encoding)
        if vocabulary is not None:
            self._restrict_to(vocabulary)


class CompositeEmbedding(_TokenEmbedding):
    """The vectors of several embeddings side by side, for the tokens of ``vocabulary``."""

    def __init__(self, vocabulary: Vocabulary,
                 token_embeddings: Union[_TokenEmbedding, Sequence[_TokenEmbedding]]) -> None:
        embs = [token_embeddings] if isinstance(token_embeddings, _TokenEmbedding) \
            else list(token_embeddings)
        super().__init__(unknown_token=vocabulary.unknown_token,
                         reserved_tokens=vocabulary.reserved_tokens)
        self._idx_to_token = list(vocabulary.idx_to_token)
        self._token_to_idx = dict(vocabulary.token_to_idx)
        parts = [e._vecs_for_vocabulary(self._idx_to_token) for e in embs]
        self._idx_to_vec = nd.concat(*parts, dim=1)
        self._vec_len = int(self._idx_to_vec.shape[1])

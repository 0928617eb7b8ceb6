"""``mx.rnn.io``: sentences to integer codes, and MXNet's bucketing iterator for language
models (``BucketSentenceIter``).

Examples
--------
>>> import mxgrad as mx
>>> codes, vocab = mx.rnn.encode_sentences([['a', 'b'], ['b', 'c', 'a']])
>>> codes, vocab['c']
([[0, 1], [1, 2, 0]], 2)
"""
from __future__ import annotations

import bisect
import logging
import random
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from .. import ndarray
from ..base import StateError
from ..io import DataIter, DataBatch, DataDesc

__all__ = ["encode_sentences", "BucketSentenceIter"]


def encode_sentences(sentences: Sequence[Sequence[str]], vocab: Optional[Dict[str, int]] = None,
                     invalid_label: int = -1, invalid_key: str = "\n", start_label: int = 0,
                     unknown_token: Optional[str] = None
                     ) -> Tuple[List[List[int]], Dict[str, int]]:
    """Encode tokenized sentences as lists of integers, building (or extending) the
    vocabulary.

    Parameters
    ----------
    sentences : list of list of str
        The sentences, each a list of tokens.
    vocab : dict of str to int, optional
        An existing vocabulary. Without one, a new vocabulary is built, starting with
        ``{invalid_key: invalid_label}``, and every new token is added to it.
    invalid_label : int, default -1
        Code of the invalid token (e.g. end of sentence); never given to another token.
    invalid_key : str, default '\\n'
        The invalid token of a new vocabulary.
    start_label : int, default 0
        First code given to new tokens.
    unknown_token : str, optional
        Token standing for every token not in ``vocab`` (added to it, once, if missing).
        Without it, a token missing from a given ``vocab`` is an error.

    Returns
    -------
    codes : list of list of int
    vocab : dict of str to int

    Notes
    -----
    As MXNet, new codes count up from ``start_label`` skipping ``invalid_label``; unlike
    MXNet 1.9.1, they also skip codes the given ``vocab`` already uses, and
    ``unknown_token`` gets one code (MXNet gives it a new code, overwriting the previous
    one, at every unknown token).

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.rnn.encode_sentences([['a', 'b', 'c'], ['b', 'c', 'd']],
    ...                         vocab={'a': 1, 'b': 2, 'c': 3}, unknown_token='UNK')
    ([[1, 2, 3], [2, 3, 0]], {'a': 1, 'b': 2, 'c': 3, 'UNK': 0})
    """
    new_vocab = vocab is None
    if vocab is None:
        vocab = {invalid_key: invalid_label}
    used = set(vocab.values())
    idx = start_label
    res = []
    for sent in sentences:
        coded = []
        for word in sent:
            if word not in vocab:
                if unknown_token is not None:
                    word = unknown_token
                elif not new_vocab:
                    raise StateError(f"encode_sentences: unknown token {word!r} is not in "
                                     f"vocab; pass unknown_token= to map unknown tokens")
            if word not in vocab:
                while idx == invalid_label or idx in used:
                    idx += 1
                vocab[word] = idx
                used.add(idx)
                idx += 1
            coded.append(vocab[word])
        res.append(coded)
    return res, vocab


class BucketSentenceIter(DataIter):
    """Batches of encoded sentences padded to the length of their bucket; the label of
    each step is the next token (the last step's label is ``invalid_label``).

    Parameters
    ----------
    sentences : list of list of int
        Encoded sentences.
    batch_size : int
    buckets : list of int, optional
        Bucket lengths; by default every length at least ``batch_size`` sentences have.
        A sentence goes to the smallest bucket that holds it; longer ones are dropped,
        and so are the sentences of a bucket's last incomplete batch.
    invalid_label : int, default -1
        Padding value (and the label after the last token).
    data_name : str, default 'data'
    label_name : str, default 'softmax_label'
    dtype : str, default 'float32'
    layout : str, default 'NT'
        'NT' gives ``(batch, length)`` batches, 'TN' ``(length, batch)``.

    Notes
    -----
    ``reset()`` shuffles the batch order with Python's ``random`` and the sentences in
    each bucket with ``numpy.random``, as MXNet does (seed those for repeatable epochs).

    Examples
    --------
    >>> import mxgrad as mx
    >>> sents = [[1, 2], [3, 4], [5, 6, 7], [8, 9, 1]]
    >>> it = mx.rnn.BucketSentenceIter(sents, batch_size=2, buckets=[2, 3])
    >>> sorted((b.bucket_key, b.data[0].shape) for b in it)
    [(2, (2, 2)), (3, (2, 3))]
    >>> it.provide_data
    [DataDesc[data,(2, 3),<class 'numpy.float32'>,NT]]
    """

    def __init__(self, sentences, batch_size: int, buckets: Optional[List[int]] = None,
                 invalid_label: int = -1, data_name: str = "data",
                 label_name: str = "softmax_label", dtype: str = "float32",
                 layout: str = "NT") -> None:
        super().__init__()
        if not isinstance(batch_size, (int, np.integer)) or batch_size < 1:
            raise StateError(f"BucketSentenceIter: batch_size must be a positive int, got "
                             f"{batch_size!r}")
        major_axis = layout.find("N") if isinstance(layout, str) else -1
        if major_axis not in (0, 1) or sorted(layout) != ["N", "T"]:
            raise StateError(f"BucketSentenceIter: invalid layout {layout!r}; use 'NT' "
                             f"(batch major) or 'TN' (time major)")
        if not buckets:
            counts = np.bincount([len(s) for s in sentences]) if len(sentences) else ()
            buckets = [i for i, n in enumerate(counts) if n >= batch_size]
        buckets = sorted(buckets)

        ndiscard = 0
        per_bucket: List[list] = [[] for _ in buckets]
        for sent in sentences:
            buck = bisect.bisect_left(buckets, len(sent))
            if buck == len(buckets):
                ndiscard += 1
                continue
            buff = np.full((buckets[buck],), invalid_label, dtype=dtype)
            buff[:len(sent)] = sent
            per_bucket[buck].append(buff)
        if ndiscard:
            logging.warning("BucketSentenceIter: discarded %d sentences longer than the "
                            "largest bucket (%d).", ndiscard, buckets[-1] if buckets else 0)
        kept = [i for i, b in enumerate(per_bucket) if b]
        if not kept:
            raise StateError(f"BucketSentenceIter: no sentence fits in a bucket (buckets "
                             f"{buckets}, {len(sentences)} sentences); give buckets= at "
                             f"least as long as the sentences, or a smaller batch_size")
        self.buckets = [buckets[i] for i in kept]
        self.data = [np.asarray(per_bucket[i], dtype=dtype) for i in kept]

        self.batch_size = batch_size
        self.data_name = data_name
        self.label_name = label_name
        self.dtype = dtype
        self.invalid_label = invalid_label
        self.nddata: List[ndarray.NDArray] = []
        self.ndlabel: List[ndarray.NDArray] = []
        self.major_axis = major_axis
        self.layout = layout
        self.default_bucket_key = max(self.buckets)

        shape = ((batch_size, self.default_bucket_key) if major_axis == 0
                 else (self.default_bucket_key, batch_size))
        self.provide_data = [DataDesc(name=data_name, shape=shape, layout=layout)]
        self.provide_label = [DataDesc(name=label_name, shape=shape, layout=layout)]

        self.idx = [(i, j) for i, buck in enumerate(self.data)
                    for j in range(0, len(buck) - batch_size + 1, batch_size)]
        self.curr_idx = 0
        self.reset()

    def reset(self) -> None:
        """Start a new epoch: shuffle the batches and the sentences of each bucket."""
        self.curr_idx = 0
        random.shuffle(self.idx)
        for buck in self.data:
            np.random.shuffle(buck)
        self.nddata = []
        self.ndlabel = []
        for buck in self.data:
            label = np.empty_like(buck)
            label[:, :-1] = buck[:, 1:]
            label[:, -1] = self.invalid_label
            self.nddata.append(ndarray.array(buck, dtype=self.dtype))
            self.ndlabel.append(ndarray.array(label, dtype=self.dtype))

    def next(self) -> DataBatch:
        """The next batch (``bucket_key`` is its bucket's length)."""
        if self.curr_idx == len(self.idx):
            raise StopIteration
        i, j = self.idx[self.curr_idx]
        self.curr_idx += 1
        data = self.nddata[i][j:j + self.batch_size]
        label = self.ndlabel[i][j:j + self.batch_size]
        if self.major_axis == 1:
            data, label = data.T, label.T
        return DataBatch([data], [label], pad=0, bucket_key=self.buckets[i],
                         provide_data=[DataDesc(name=self.data_name, shape=data.shape,
                                                layout=self.layout)],
                         provide_label=[DataDesc(name=self.label_name, shape=label.shape,
                                                 layout=self.layout)])

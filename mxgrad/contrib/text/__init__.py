"""``mx.contrib.text``: MXNet 1.x's text helpers (token counting, vocabularies, token
embeddings), as the d2l book and NLP scripts use them.

Examples
--------
>>> from mxgrad.contrib import text
>>> counter = text.utils.count_tokens_from_str('a b b\\nc c c')
>>> vocab = text.vocab.Vocabulary(counter, min_freq=2)
>>> vocab.idx_to_token, vocab.to_indices(['c', 'x'])
(['<unk>', 'c', 'b'], [1, 0])
"""
from . import utils, vocab, embedding  # noqa: F401

__all__ = ["utils", "vocab", "embedding"]

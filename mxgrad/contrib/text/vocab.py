"""Vocabularies: tokens <-> indices (MXNet's ``mx.contrib.text.vocab``)."""
from __future__ import annotations

import collections
from typing import Any, Dict, Hashable, List, Optional, Sequence, Union

from ._errors import TextArgumentError, TextIndexError, TextTypeError

__all__ = ["Vocabulary"]

UNKNOWN_IDX = 0


class Vocabulary:
    """Indices for the unknown token (0), the reserved tokens (1, 2, ...) and the keys of
    ``counter``, most frequent first (ties in sorted order), keeping at most
    ``most_freq_count`` of them with a count of at least ``min_freq``.

    Examples
    --------
    >>> import collections
    >>> c = collections.Counter(['a', 'b', 'b', 'c', 'c', 'c', 'd'])
    >>> v = Vocabulary(c, min_freq=2, reserved_tokens=['<pad>'])
    >>> v.idx_to_token, len(v), v.to_tokens([1, 2])
    (['<unk>', '<pad>', 'c', 'b'], 4, ['<pad>', 'c'])
    """

    def __init__(self, counter: Optional[collections.Counter] = None,
                 most_freq_count: Optional[int] = None, min_freq: int = 1,
                 unknown_token: Hashable = "<unk>",
                 reserved_tokens: Optional[Sequence[Hashable]] = None) -> None:
        if min_freq < 1:
            raise TextArgumentError(f"Vocabulary: min_freq must be a positive int, got {min_freq}")
        if reserved_tokens is not None:
            reserved = list(reserved_tokens)
            if unknown_token in reserved:
                raise TextArgumentError("Vocabulary: reserved_tokens cannot contain the "
                                 f"unknown_token {unknown_token!r}")
            if len(set(reserved)) != len(reserved):
                raise TextArgumentError("Vocabulary: reserved_tokens cannot contain duplicates")
        self._unknown_token = unknown_token
        self._reserved_tokens = None if reserved_tokens is None else list(reserved_tokens)
        self._idx_to_token: List[Any] = [unknown_token] + list(reserved_tokens or [])
        self._token_to_idx: Dict[Any, int] = {t: i for i, t in enumerate(self._idx_to_token)}
        if counter is not None:
            self._index_counter(counter, most_freq_count, min_freq)

    def _index_counter(self, counter, most_freq_count, min_freq) -> None:
        if not isinstance(counter, collections.Counter):
            raise TextTypeError(f"Vocabulary: counter must be a collections.Counter, got "
                             f"{type(counter).__name__}")
        special = set(self._idx_to_token)
        pairs = sorted(counter.items(), key=lambda kv: kv[0])
        pairs.sort(key=lambda kv: kv[1], reverse=True)
        cap = len(special) + (len(counter) if most_freq_count is None else most_freq_count)
        for token, freq in pairs:
            if freq < min_freq or len(self._idx_to_token) == cap:
                break
            if token not in special:
                self._token_to_idx[token] = len(self._idx_to_token)
                self._idx_to_token.append(token)

    def __len__(self) -> int:
        return len(self._idx_to_token)

    @property
    def token_to_idx(self) -> Dict[Any, int]:
        """Dict token -> index."""
        return self._token_to_idx

    @property
    def idx_to_token(self) -> List[Any]:
        """List of the indexed tokens, in index order."""
        return self._idx_to_token

    @property
    def unknown_token(self) -> Hashable:
        """The token every unknown token maps to (index 0)."""
        return self._unknown_token

    @property
    def reserved_tokens(self) -> Optional[List[Any]]:
        """The reserved tokens (indices 1...), or None."""
        return self._reserved_tokens

    def to_indices(self, tokens: Union[Hashable, List[Hashable]]) -> Union[int, List[int]]:
        """Index of a token, or list of indices of a list of tokens (0 when unknown)."""
        if not isinstance(tokens, list):
            return self._token_to_idx.get(tokens, UNKNOWN_IDX)
        return [self._token_to_idx.get(t, UNKNOWN_IDX) for t in tokens]

    def to_tokens(self, indices: Union[int, List[int]]) -> Union[Any, List[Any]]:
        """Token of an index, or list of tokens of a list of indices."""
        single = not isinstance(indices, list)
        items: List[Any] = [indices] if single else list(indices)  # type: ignore[arg-type]
        out = []
        for idx in items:
            if not isinstance(idx, int) or not 0 <= idx < len(self._idx_to_token):
                raise TextIndexError(f"Vocabulary.to_tokens: token index {idx!r} is not in "
                                      f"[0, {len(self._idx_to_token) - 1}]")
            out.append(self._idx_to_token[idx])
        return out[0] if single else out

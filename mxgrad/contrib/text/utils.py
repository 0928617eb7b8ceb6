"""Token counting (MXNet's ``mx.contrib.text.utils``)."""
from __future__ import annotations

import collections
import re
from typing import Optional

__all__ = ["count_tokens_from_str"]


def count_tokens_from_str(source_str: str, token_delim: str = " ", seq_delim: str = "\n",
                          to_lower: bool = False,
                          counter_to_update: Optional[collections.Counter] = None
                          ) -> collections.Counter:
    """Count the tokens of ``source_str``, split at ``token_delim`` and ``seq_delim``
    (regular expressions); empty tokens are skipped.

    Examples
    --------
    >>> count_tokens_from_str(' Life is great ! \\n life is good . \\n', to_lower=True)
    Counter({'life': 2, 'is': 2, 'great': 1, '!': 1, 'good': 1, '.': 1})
    """
    tokens = [t for t in re.split(token_delim + "|" + seq_delim, source_str) if t]
    if to_lower:
        tokens = [t.lower() for t in tokens]
    if counter_to_update is None:
        return collections.Counter(tokens)
    counter_to_update.update(tokens)
    return counter_to_update

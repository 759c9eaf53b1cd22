"""Text normalisation shared by the reducer, assertion state and retrieval.

Matching claims is exact *after* normalisation (PRME-FACTS §9): NFKC folds
compatibility forms, case-folding handles ``Straße``/``STRASSE``, and runs of
whitespace collapse so formatting never creates a "new" value. Predicates also
map spaces and hyphens to ``_`` so ``lives-in``, ``lives in`` and ``lives_in``
are the same relation.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

_PREDICATE_SEPARATORS = re.compile(r"[ \-]+")


@lru_cache(maxsize=65536)
def normalize_text(value: str | None) -> str:
    if not value:
        return ""
    folded = unicodedata.normalize("NFKC", value).casefold()
    return " ".join(folded.split())


@lru_cache(maxsize=16384)
def normalize_predicate(value: str | None) -> str:
    return _PREDICATE_SEPARATORS.sub("_", normalize_text(value))

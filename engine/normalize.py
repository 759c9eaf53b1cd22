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


_TOKEN_EDGE = re.compile(r"^[^\w+#$£€]+|[^\w+#%]+$")
_POSSESSIVE = re.compile(r"(?<=\w)['\u2019]s\b")
_NO_PLURAL = ("ss", "us", "is", "ous", "ics")


def _singular(word: str) -> str:
    """A plural folded to its singular by spelling alone ("coffees", "Sundays", "boxes"); never a dictionary.

    Both sides of a comparison go through the same fold, so a wrong singular ("news" -> "new") still
    compares equal to itself; what matters is that "kids" and "kid" meet.
    """
    if len(word) < 4 or not word.replace("-", "").isalpha() or not word.endswith("s") or word.endswith(_NO_PLURAL):
        return word
    if word.endswith(("sses", "shes", "ches", "xes", "zzes")):
        return word[:-2]
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    return word[:-1]


@lru_cache(maxsize=65536)
def object_tokens(value: str | None) -> tuple[str, ...]:
    """The words of an object as claims are matched on: normalised, possessives and edge punctuation
    dropped, plurals folded. The store indexes active claims by these words, whatever the registry says,
    so the index never depends on configuration; the registry decides which words matter (``engine.matching``).
    """
    text = _POSSESSIVE.sub("", normalize_text(value))
    out: list[str] = []
    for raw in text.split():
        word = _TOKEN_EDGE.sub("", raw)
        if word:
            out.append(_singular(word))
    return tuple(out)


def subject_root(subject_n: str) -> str:
    """Whose a normalised subject is: "user's ci" belongs to "user" (the store indexes them together)."""
    root, sep, _ = subject_n.partition("'s ")
    return root if sep else subject_n

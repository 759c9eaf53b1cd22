"""Text as detectors see it: invisible characters removed, compatibility forms folded (NFKC).

A secret written with a zero-width space inside it (``sk-\\u200bproj-…``) or in full-width letters
(``ｇｈｐ＿…``) is still the secret to whoever reads it, so detection runs on the folded text and
every span it finds is mapped back to the original characters. Stored text keeps its own letters
(a full-width word stays full-width) but loses the invisible characters: nothing downstream can
re-assemble a secret from the pieces of a masked one, and a quote never carries an invisible split.
"""

from __future__ import annotations

import unicodedata
from typing import Final

#: Always invisible in chat text: zero-width space, word joiner, BOM/zero-width no-break space,
#: soft hyphen, Mongolian vowel separator, bidi embeddings, overrides, isolates and marks.
_ALWAYS: Final = frozenset(
    "\u200b\u2060\ufeff\u00ad\u180e\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u061c"
)
#: Joiners shape emoji sequences and some scripts (Persian, Indic): removed only where they touch
#: an ASCII character, which is where they hide a split in a token.
_JOINERS: Final = frozenset("\u200c\u200d")
INVISIBLE: Final = _ALWAYS | _JOINERS
_TABLE: Final = {ord(c): None for c in _ALWAYS}


def has_invisible(text: str) -> bool:
    return not text.isascii() and any(c in INVISIBLE for c in text)


def _joiner_hides_split(text: str, i: int) -> bool:
    before = text[i - 1] if i > 0 else ""
    after = text[i + 1] if i + 1 < len(text) else ""
    return (before.isascii() and before != "") or (after.isascii() and after != "") or not before or not after


def strip_invisible(text: str) -> str:
    """``text`` without zero-width and bidi control characters (joiners only where they split ASCII)."""
    if text.isascii():
        return text
    out = text.translate(_TABLE)
    if "\u200c" not in out and "\u200d" not in out:
        return out
    return "".join(c for i, c in enumerate(out) if c not in _JOINERS or not _joiner_hides_split(out, i))


class View:
    """The folded text and, where it differs, the original index of each of its characters."""

    __slots__ = ("index", "text")

    def __init__(self, text: str, index: list[int] | None) -> None:
        self.text = text
        #: ``index[i]`` is the original position of folded character ``i`` (None: identical text).
        self.index = index

    def original_span(self, start: int, end: int, original_length: int) -> tuple[int, int]:
        if self.index is None:
            return start, end
        if start >= len(self.index):
            return original_length, original_length
        o_start = self.index[start]
        o_end = self.index[end - 1] + 1 if end > start else o_start
        return o_start, o_end


def folded(text: str) -> View:
    """NFKC of each character with every invisible character removed, and the way back."""
    if text.isascii():
        return View(text, None)
    if not any(c in INVISIBLE for c in text) and unicodedata.is_normalized("NFKC", text):
        return View(text, None)
    parts: list[str] = []
    index: list[int] = []
    for i, c in enumerate(text):
        if c in INVISIBLE:
            continue
        n = unicodedata.normalize("NFKC", c) if not c.isascii() else c
        parts.append(n)
        index.extend([i] * len(n))
    return View("".join(parts), index)

"""Secret guard: find secret-shaped values and mask them in every derived text.

Memory is searchable and quoted back to models, so a credential that slips into
a claim leaks on every retrieval. Detection is deliberately shape-based (no
entropy guessing): each pattern names a kind, and only the secret part of a
match is replaced, so "my password is [REDACTED:password]" still reads.

One combined regex is scanned once per text; a cheap keyword/shape prefilter
skips the scan for the ordinary chat message that contains none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

#: (kind, pattern). The named group ``s`` is the part that is masked; without it, the whole match.
_PATTERNS: Final[tuple[tuple[str, str], ...]] = (
    (
        "private_key",
        r"(?P<s>-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?"
        r"(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\Z))",
    ),
    ("jwt", r"(?P<s>\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})"),
    ("aws_access_key", r"(?P<s>\b(?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}\b)"),
    ("github_token", r"(?P<s>\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,}))"),
    ("slack_token", r"(?P<s>\bxox[abposre]-[A-Za-z0-9-]{10,})"),
    ("api_key", r"(?P<s>\b(?:sk|rk|pk)-(?:[A-Za-z0-9]+-)*[A-Za-z0-9_-]{20,})"),
    ("api_key", r"(?P<s>\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,})"),
    ("api_key", r"(?P<s>\bAIza[0-9A-Za-z_-]{35})"),
    ("bearer_token", r"\b[Bb]earer\s+(?P<s>[A-Za-z0-9\-._~+/]{16,}=*)"),
    (
        "connection_string",
        r"\b[a-zA-Z][a-zA-Z0-9+.-]{1,30}://[^\s:/@]{1,100}:(?P<s>[^\s@/]{1,200})@[^\s/@]",
    ),
    (
        "api_key",
        r"(?i:\b(?:api[_ -]?key|api[_ -]?token|access[_ -]?token|auth[_ -]?token|secret[_ -]?key|"
        r"client[_ -]?secret|access[_ -]?key(?:[_ -]?id)?|secret[_ -]?access[_ -]?key|private[_ -]?token|"
        r"token|secret)\b)"
        r"(?:\s+(?i:is|was|=|:)\s*|\s*[:=]\s*)[\"']?(?P<s>[A-Za-z0-9_\-./+=]{12,})",
    ),
    (
        "password",
        r"(?i:\b(?:password|passwd|pwd|passphrase|passcode|pass\s?code|pin(?:\s?code)?)\b)"
        r"(?:\s+(?i:is|was|=|:|will be|should be)\s*|\s*[:=]\s*)[\"'`]?(?P<s>[^\s\"'`,;]{3,200}?)[\"'`]?"
        r"(?=[\s,;]|[.!?](?:\s|$)|$)",
    ),
)

# Each alternative's ``s`` group is renamed ``s<i>`` so the patterns can share one regex.
_COMBINED: Final = re.compile(
    "|".join(f"(?P<k{i}>{pat.replace('(?P<s>', f'(?P<s{i}>')})" for i, (_, pat) in enumerate(_PATTERNS))
)
_KINDS: Final = tuple(kind for kind, _ in _PATTERNS)

#: Cheap screen: every pattern needs one of these substrings (case-insensitive) to match.
_PREFILTER: Final = re.compile(
    r"-----BEGIN|eyJ|AKIA|ASIA|AGPA|AIDA|AROA|gh[pousr]_|github_pat_|xox|sk-|rk-|pk-|sk_|rk_|AIza|earer|://|"
    r"(?i:key|token|secret|pass|pwd|pin)"
)

#: Predicates (snake_case) that name a credential: their object is a secret whatever its shape.
_SECRET_PREDICATE: Final = re.compile(
    r"(?:^|_)(?:password|passwd|pwd|passphrase|passcode|pin|pin_code|api_key|apikey|secret|secret_key|"
    r"token|access_token|auth_token|api_token|private_key|client_secret|credentials?)(?:$|_)"
)


@dataclass(frozen=True, slots=True)
class SecretMatch:
    kind: str
    start: int
    end: int


def may_contain_secret(text: str) -> bool:
    """False only when no secret pattern can match ``text`` or any slice of it (a cheap screen)."""
    return bool(text) and _PREFILTER.search(text) is not None


def find_secrets(text: str) -> list[SecretMatch]:
    """Non-overlapping secret spans, in order (only the secret part, not its label)."""
    if not may_contain_secret(text):
        return []
    found: list[SecretMatch] = []
    for m in _COMBINED.finditer(text):
        idx = int((m.lastgroup or "k0")[1:])
        group = f"s{idx}"
        start, end = (m.start(group), m.end(group)) if m.group(group) is not None else (m.start(), m.end())
        found.append(SecretMatch(_KINDS[idx], start, end))
    return found


def contains_secret(text: str | None) -> bool:
    return bool(text) and bool(find_secrets(text or ""))


def mask(text: str) -> tuple[str, list[str]]:
    """Replace each secret with ``[REDACTED:<kind>]``; return the text and the kinds found (in order)."""
    matches = find_secrets(text)
    if not matches:
        return text, []
    parts: list[str] = []
    pos = 0
    for sm in matches:
        parts.append(text[pos : sm.start])
        parts.append(f"[REDACTED:{sm.kind}]")
        pos = sm.end
    parts.append(text[pos:])
    return "".join(parts), [sm.kind for sm in matches]


def mask_text(text: str | None) -> str | None:
    """``mask`` for optional fields, dropping the kinds."""
    if text is None:
        return None
    return mask(text)[0]


def is_secret_predicate(predicate: str) -> bool:
    """True when a snake_case predicate names a credential (``password``, ``api_key``, ...)."""
    return _SECRET_PREDICATE.search(predicate.strip().lower().replace(" ", "_").replace("-", "_")) is not None

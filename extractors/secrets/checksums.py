"""Numbers and phrases that carry their own proof: card numbers (Luhn), IBANs (ISO 7064 mod 97) and
BIP-39 seed phrases (the official English word list and its checksum).

A checksum turns "a long number" into "almost certainly this kind of number": an order number or
an ISBN is not a card because its digits fail Luhn or its prefix is no card issuer's, a word salad
is not a seed phrase because its words are not all on the list. Validation is the libraries'
(``python-stdnum`` for Luhn and IBAN, ``mnemonic`` for BIP-39); the scanning around it is here.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from typing import Any, Final

from stdnum import iban as _iban
from stdnum import luhn as _luhn

Span = tuple[int, int, str]

# 13-19 digits, optionally in groups split by one space or dash (4-4-4-4, 4-6-5, 4-4-4-4-3 ...).
_CARD: Final = re.compile(r"(?<![\w.-])\d{4}(?:[ -]?\d{2,6}){2,4}(?:[ -]?\d{1,4})?(?![\w-]|\.\d)")
#: Issuer prefixes (IIN) of the networks that use Luhn: Visa, Mastercard (51-55, 2221-2720), Amex,
#: Discover, Diners, JCB, UnionPay, Maestro.
_IIN: Final = re.compile(
    r"^(?:4|5[1-5]|2(?:2[2-9]|[3-6]\d|7[01]|720)|3[47]|6(?:011|4[4-9]|5)|3(?:0[0-5]|[68])|35|62|5[06-9]|6)"
)
#: Country code, check digits, then the BBAN in optional groups of four (any case: people type them).
_IBAN: Final = re.compile(r"(?<![A-Za-z0-9])[A-Za-z]{2}\d{2}(?:[ ]?[A-Za-z0-9]){10,32}(?![A-Za-z0-9])")
_WORD: Final = re.compile(r"[A-Za-z]+")
#: What may stand between two words of a written-down seed phrase: spaces, commas, line breaks,
#: list numbers ("1. session\n2. throw").
_SEED_GAP: Final = re.compile(r"[\s,;.:)(\-\d#]*")
SEED_LENGTHS: Final = (12, 15, 18, 21, 24)
_SEED_CUE: Final = re.compile(
    r"(?i)\b(?:seed|mnemonic|recovery|backup|wallet|phrase|ledger|metamask|trezor|words|bip-?39|"
    r"wiederherstellung|phrase de récupération|frase)\b"
)


def luhn_ok(digits: str) -> bool:
    return _luhn.is_valid(digits)


def _grouping_ok(raw: str) -> bool:
    """Plain, or in the groups cards are printed in (4-4-4-4[-3], Amex 4-6-5, Diners 4-6-4)."""
    groups = re.split(r"[ -]", raw)
    if len(groups) == 1:
        return True
    sizes = [len(g) for g in groups]
    if sizes[:3] in ([4, 6, 5], [4, 6, 4]) and len(sizes) == 3:
        return True
    return all(s == 4 for s in sizes[:-1]) and 1 <= sizes[-1] <= 4


def card_numbers(text: str) -> Iterator[Span]:
    if sum(c.isdigit() for c in text) < 13:
        return
    for m in _CARD.finditer(text):
        raw = m.group(0)
        digits = re.sub(r"\D", "", raw)
        if 13 <= len(digits) <= 19 and _IIN.match(digits) and _grouping_ok(raw) and luhn_ok(digits):
            yield m.start(), m.end(), "card_number"


def ibans(text: str) -> Iterator[Span]:
    for m in _IBAN.finditer(text):
        raw = m.group(0)
        # The groups may run into a following word or number: shorten group by group until it checks.
        candidate = raw
        while len(candidate.replace(" ", "")) >= 15:
            if candidate[:2].isalpha() and _iban.is_valid(candidate):
                yield m.start(), m.start() + len(candidate), "iban"
                break
            cut = candidate.rfind(" ")
            if cut <= 4:
                break
            candidate = candidate[:cut]


@lru_cache(maxsize=1)
def bip39_words() -> frozenset[str]:
    from mnemonic import Mnemonic

    return frozenset(Mnemonic("english").wordlist)


def _checksum_ok(words: list[str]) -> bool:
    try:
        return bool(_mnemonic().check(" ".join(words)))
    except Exception:  # an unexpected word or length: not a valid phrase
        return False


@lru_cache(maxsize=1)
def _mnemonic() -> Any:
    from mnemonic import Mnemonic

    return Mnemonic("english")


def may_hold_seed(text: str) -> bool:
    """Whether ``text`` has a run of 12 BIP-39 words at all (cheap: words and set lookups only)."""
    if len(text) < 40:
        return False
    words = bip39_words()
    run = 0
    for w in _WORD.findall(text.lower()):
        if w in words:
            run += 1
            if run >= SEED_LENGTHS[0]:
                return True
        else:
            run = 0
    return False


def seed_phrases(text: str) -> Iterator[Span]:
    """Runs of 12+ BIP-39 words; masked when a window of a phrase length checks, or a cue names one."""
    words = bip39_words()
    run: list[re.Match[str]] = []
    cue: bool | None = None

    def close() -> Iterator[Span]:
        nonlocal cue
        if len(run) < SEED_LENGTHS[0]:
            return
        lowered = [m.group(0).lower() for m in run]
        valid = any(
            _checksum_ok(lowered[i : i + n]) for n in SEED_LENGTHS for i in range(0, len(lowered) - n + 1)
        )
        if not valid:
            if cue is None:
                cue = _SEED_CUE.search(text) is not None
            if not cue:
                return
        yield run[0].start(), run[-1].end(), "seed_phrase"

    prev_end = -1
    for m in _WORD.finditer(text):
        w = m.group(0)
        in_list = w.lower() in words and (w.islower() or w.isupper() or w.istitle())
        if in_list and run and _SEED_GAP.fullmatch(text, prev_end, m.start()) is None:
            yield from close()
            run = []
        if in_list:
            run.append(m)
            prev_end = m.end()
        else:
            yield from close()
            run = []
    yield from close()

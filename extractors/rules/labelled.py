"""Labelled values: an identifier the speaker names by a label, with no verb to carry it.

Why: chat states serials, tracking numbers, colours, scores and commits as a label and its value
("laptop serial C02XG2JHJG5H for the warranty claim", "dhl tracking JD0146… still says in transit",
"brand colours: primary #1E3A8A, accent #F59E0B", "bowling night: 187 for me"). The clause grammar
reads "my X is Y"; a label followed by its value is read here, for the values the grammar left
unread. Only identifier-shaped values qualify (a digit in them, or a hex colour), so ordinary words
after a noun never become claims; a credential's label is never a label here, and the validator
still refuses any value the secret guard recognises.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

from extractors.rules.proto import Proto, snake
from schemas.enums import NodeType

I: Final = re.IGNORECASE  # noqa: E741 - reads like a regex flag

#: Nouns that name an identifier or a reading whose value follows them ("serial C02…", "lot 24402A",
#: "ext. 2207", "commit 3f9a2c1"). Credentials (password, pin, passcode, token, key, secret) are not
#: here on purpose: their value is never a claim.
_HEADS: Final = (
    "serial", "serial number", "s/n", "sn", "number", "id", "isbn", "issn", "sku",
    "upc", "ean", "lot", "batch", "tracking", "tracking number", "commit", "sha", "hash", "checksum",
    "sha-256", "sha256", "sha-1", "sha1", "md5", "version", "build", "release", "ext", "extension",
    "zip", "zip code", "zipcode", "postcode", "postal code", "post code", "plz", "room", "gate", "seat",
    "platform", "flight", "order", "order number", "invoice", "ticket", "case", "reference", "ref",
    "booking", "confirmation", "model", "part", "part number", "vin", "plate", "registration", "ami",
    "image", "digest", "tag", "issue", "pr", "bug", "error", "error code", "status code", "area code",
    "iata code", "product code", "course code", "sort code", "port", "ip", "ip address", "mac",
    "mac address", "hex", "colour", "color", "score", "result", "size", "locker number",
)  # fmt: skip
_HEAD_RX: Final = "|".join(re.escape(h) for h in sorted(_HEADS, key=len, reverse=True))

#: Words that end a label on its left: determiners, pronouns, verbs of the clause, prepositions.
_NOT_LABEL_WORDS: Final = (
    "a an the my our your his her their its this that these those is was are were be been am "
    "i we you he she they it me us him them and or but so for of to in on at by with from as into "
    "about than then also just still only now new old got get have has had do does did use using "
    "used uses pls please fyi btw heads up note if when not no"
)
_NOT_LABEL: Final = frozenset(_NOT_LABEL_WORDS.split())
_CREDENTIAL: Final = re.compile(
    r"\b(?:pass(?:word|wort|phrase|code|code)?|pin|otp|2fa|token|secret|key|api|passwort|contrase\w+|"
    r"mot de passe|login|credential\w*|recovery|backup code|cvv|cvc|seed)\b",
    I,
)

#: An identifier: a hex colour, or a token with a digit in it (letters, digits and the joiners of
#: ids, paths and URIs), not starting or ending with a joiner.
_TOKEN: Final = (
    r"#[0-9A-Fa-f]{6}(?:[0-9A-Fa-f]{2})?\b|#[0-9A-Fa-f]{3}\b|(?=[\w:./@+-]*\d)[A-Za-z0-9][\w:./@+-]*[A-Za-z0-9]"
)
_VALUE: Final = re.compile(rf"(?<![\w#@/:.+-])(?:{_TOKEN})(?![\w#@/-])")
_TIME_OR_DATE: Final = re.compile(
    r"\d{1,2}(?::\d{2}){1,2}(?:am|pm)?|\d{1,2}(?:am|pm)|\d{4}-\d{2}(?:-\d{2})?|\d{1,2}[./-]\d{1,2}(?:[./-]\d{2,4})?",
    I,
)
#: A measure or a count, not an id: "10k", "3x", "2h", "40min", "1st".
_MEASURE: Final = re.compile(r"\d+(?:st|nd|rd|th|s|x|k|m|h|min|mins|d|yo|y|kg|km|mb|gb|tb|ms)", I)
_WORD: Final = re.compile(r"[A-Za-z][\w'&-]*\.?")
_LEFT: Final = re.compile(
    rf"(?P<head>\b(?:{_HEAD_RX}))\.?\s*(?:#|:|=|no\.?\s|nr\.?\s|number\s|is\s|was\s)?\s*$", I
)
_COLON: Final = re.compile(r"^\s*(?P<label>[A-Za-z][\w&' -]{0,60}?)\s*[:=]\s+(?P<rest>\S.*)$", re.S)
_PAIR: Final = re.compile(rf"^\s*(?P<label>[A-Za-z][\w-]*(?:\s[A-Za-z][\w-]*)?)\s+(?P<v>{_TOKEN})(?![\w#@/-])")
_NUMBER_ALONE: Final = re.compile(r"\d+")
#: What may follow a bare number that is a value ("187 for me", "10437, prenzlauer berg"), unlike a
#: count of something ("2025 taxes", "8191 tokens").
_AFTER_NUMBER: Final = re.compile(r"\s*(?:$|[,.;!?)(])|\s+(?:for|in|on|at|by|with|from|and|or|but|so)\b", I)
_COPULA: Final = frozenset({"is", "was", "are", "were"})
_PRONOUNS: Final = frozenset({"ours", "mine", "yours", "theirs", "his", "hers", "it", "its", "it's", "that", "this"})


def _identifier(value: str, *, labelled: bool) -> bool:
    """An id-shaped value; a bare number only where a label makes it one ("ext. 2207", "plz 10437")."""
    if value.startswith("#"):
        return True
    if len(value) < 3 or _TIME_OR_DATE.fullmatch(value) or _MEASURE.fullmatch(value):
        return False
    return labelled or any(c.isalpha() for c in value)


def _label_words(words: list[str]) -> list[str]:
    """The label's words read leftwards from its head: up to three modifiers ("dhl tracking",
    "laptop serial"), or the noun phrase a copula names ("last known good deploy was commit …")."""
    bare = [w.rstrip(".").lower() for w in words]
    if len(bare) >= 2 and bare[-1] in _COPULA and bare[-2] not in _PRONOUNS:
        bare = bare[:-1]
        limit = 4
    else:
        limit = 3
    out: list[str] = []
    for w in reversed(bare):
        if w in _NOT_LABEL or w in _PRONOUNS or not w[:1].isalpha():
            break
        out.insert(0, w)
        if len(out) == limit:
            break
    return out


def _clean_label(label: str) -> str | None:
    words = [w.rstrip(".").lower() for w in _WORD.findall(label)]
    while words and words[0] in _NOT_LABEL:
        words.pop(0)
    # "focus playlist for the office": the label is what comes before its first function word
    for i, w in enumerate(words):
        if w in _NOT_LABEL:
            words = words[:i]
            break
    if not words or len(words) > 4:
        return None
    return " ".join(words)


def labelled_values(text: str, subject: str, known: Iterable[Proto]) -> list[Proto]:
    """The labelled values of one segment that no claim of it already holds."""
    held = " ".join(p.object or "" for p in known)
    out: list[Proto] = []

    def add(label: str, value: str) -> None:
        if value in held or _CREDENTIAL.search(label) or any(p.object == value for p in out):
            return
        out.append(Proto(subject, snake(label), value, NodeType.FACT, metadata={"attribute_form": True}))

    colon = _COLON.match(text)
    if colon is not None and not _CREDENTIAL.search(colon.group("label")):
        topic = _clean_label(colon.group("label"))
        rest = colon.group("rest")
        first = _VALUE.match(rest)
        if topic is not None and first is not None and _identifier(first.group(), labelled=True) and (
            not _NUMBER_ALONE.fullmatch(first.group()) or _AFTER_NUMBER.match(rest, first.end())
        ):
            add(topic, first.group())  # "bowling night result: 187 for me"
        elif topic is not None:
            for part in rest.split(","):
                pair = _PAIR.match(part)  # "brand colours: primary #1E3A8A, accent #F59E0B"
                if pair is None or not _identifier(pair.group("v"), labelled=False):
                    continue
                sub = _clean_label(pair.group("label"))
                if sub is not None:
                    add(f"{topic} {sub}", pair.group("v"))
    for m in _VALUE.finditer(text):
        before = text[: m.start()]
        left = _LEFT.search(before)
        if left is None or not _identifier(m.group(), labelled=True):
            continue
        words = _WORD.findall(before[: left.start("head")])
        add(" ".join([*_label_words(words), left.group("head").lower()]), m.group())
    return out

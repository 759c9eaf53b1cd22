"""One pass over a text: every detector on the folded view, the spans merged, mapped back to the
original characters and replaced by ``[REDACTED:<kind>]``.

After the detectors, three rules close the gaps a single detector leaves:

* **split values**: a secret broken by one space to get past a scanner ("sk_live_hO3B0avaD38PY7
  en9uYrv2I8shwl") also loses its second half when that half is random-looking;
* **decoded values**: a masked base64 value that decodes to text (a Basic credential, a
  Kubernetes secret's ``data``) also masks that text where the message repeats it in the clear;
* **repeats**: a value masked once is masked wherever else it occurs in the text.

Placeholders are never re-detected, so masking is idempotent: ``mask(mask(t)[0]) == mask(t)``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from extractors.secrets import checksums, detectors, prose
from extractors.secrets.normalise import View, folded, strip_invisible

Span = tuple[int, int, str]

PLACEHOLDER: Final = re.compile(r"\[REDACTED:[a-z0-9_]+\]")

#: Cheap screen in front of the detectors: a credential word (in any supported language), a vendor
#: prefix or scheme, or a long run without spaces that holds a digit or mixed case. Ordinary chat
#: matches none of these and is only checked for card numbers, IBANs and seed phrases.
#: (Matched against the lower-cased text: a case-sensitive scan is five times faster.)
_SCREEN: Final = re.compile(
    r"pass|pw|secret|token|key|auth|bearer|basic|cred|login|log-in|pin\b|pin-|puk|code|otp|2fa|mfa|totp|seed|"
    r"mnemonic|phrase|wort|mdp|clave|contrase|senha|codice|c[óo]digo|cl[ée]\b|schlüssel|combination|combo|"
    r"account|user|benutzer|usuario|identifiant|zugang|acceso|credenz|sig=|://|-----begin|putty|eyj|akia|asia|"
    r"xox|ghp_|gho_|ghs_|ghu_|ghr_|glpat|npm_|hf_|sk-|sk_|rk_|whsec|aiza|ya29|atatt|dapi|shp|dop_|sg\.|\s-p|"
    r"\s-a\s|identified|digicode|geheim|wlan|wi-?fi|psk|iban|rib\b|bic\b|swift|konto|überweis|virement|"
    r"transferencia|bonifico|cookie|sensitive|lock|parola|palavra|merksatz|ssid|network|netzwerk|réseau|llave|"
    r"chiave|jeton|utente|kennung|zugang|anmelde|credenc|"
    r"texted|sent\s(?:me|us|you|him|her|them)\s|emailed|messaged|sms|whatsapped|dm['’]?e?d\s|pinged|"
    r"\s(?:text|message|e?mail)\s(?:with|saying|that)"
)
_LONG_RUN: Final = re.compile(r"[A-Za-z0-9+/=_.:\-]{16,}")
_TOKENISH: Final = re.compile(r"\S{8,}")
_WORDS: Final = re.compile(r"[A-Za-z]+")


@dataclass(frozen=True, slots=True)
class SecretMatch:
    kind: str
    start: int
    end: int


def _long_run(text: str) -> bool:
    for m in _LONG_RUN.finditer(text):
        run = m.group(0)
        if not run.isalpha() or (run != run.lower() and run != run.upper() and not run.istitle()):
            return True
    return False


def _digits(text: str) -> int:
    return sum(map(text.count, "0123456789"))


def _screened(text: str) -> bool:
    return _SCREEN.search(text.lower()) is not None or _long_run(text)


def may_contain_secret(text: str) -> bool:
    """False only when no detector can match ``text`` or any slice of it (a cheap screen)."""
    if not text:
        return False
    t = folded(text).text
    return _screened(t) or _digits(t) >= 10 or checksums.may_hold_seed(t) or len(t) != len(text)


def _detect(text: str) -> list[Span]:
    spans: list[Span] = []
    screened = _screened(text)
    if screened:
        spans.extend(detectors.shapes(text))
        spans.extend(detectors.assignments(text))
        spans.extend(prose.prose(text))
        spans.extend(detectors.high_entropy(text))
        spans.extend(detectors.key_bodies(text))
    digits = _digits(text)
    if digits >= 13:
        spans.extend(checksums.card_numbers(text))
    if screened or digits >= 10:  # the shortest IBANs (NL, NO) hold 12-13 digits
        spans.extend(checksums.ibans(text))
    if checksums.may_hold_seed(text):
        spans.extend(checksums.seed_phrases(text))
    return spans


def _without_placeholders(text: str, spans: list[Span]) -> list[Span]:
    holes = [(m.start(), m.end()) for m in PLACEHOLDER.finditer(text)]
    if not holes:
        return spans
    out: list[Span] = []
    for start, end, kind in spans:
        pieces = [(start, end)]
        for h_start, h_end in holes:
            nxt: list[tuple[int, int]] = []
            for s, e in pieces:
                if h_end <= s or h_start >= e:
                    nxt.append((s, e))
                    continue
                if s < h_start:
                    nxt.append((s, h_start))
                if h_end < e:
                    nxt.append((h_end, e))
            pieces = nxt
        for s, e in pieces:
            if text[s:e].strip(" \t\n,;:.()[]'\"`/-"):
                out.append((s, e, kind))
    return out


def _merge(spans: Iterable[Span]) -> list[Span]:
    merged: list[list[object]] = []
    for start, end, kind in sorted(spans, key=lambda s: (s[0], -s[1])):
        if merged and start < int(merged[-1][1]):  # type: ignore[call-overload]
            if end > int(merged[-1][1]):  # type: ignore[call-overload]
                merged[-1][1] = end
            continue
        merged.append([start, end, kind])
    return [(int(s), int(e), str(k)) for s, e, k in merged]  # type: ignore[call-overload]


_RANDOMISH: Final = re.compile(r"[A-Za-z0-9+/=_\-]{8,}")


def _randomish(token: str) -> bool:
    return (
        any(c.isdigit() for c in token)
        and any(c.isupper() for c in token)
        and any(c.islower() for c in token)
        and detectors.shannon(token) >= 3.0
    )


def _split_halves(text: str, spans: list[Span]) -> list[Span]:
    out = list(spans)
    for start, end, kind in spans:
        if end - start < 12 or kind in ("card_number", "iban", "seed_phrase", "passphrase", "private_key"):
            continue
        pos = end
        for _ in range(2):
            if pos >= len(text) or text[pos] != " ":
                break
            m = _RANDOMISH.match(text, pos + 1)
            if m is None or not _randomish(m.group(0)):
                break
            out.append((m.start(), m.end(), kind))
            pos = m.end()
    return out


def _echoes(text: str, spans: list[Span]) -> list[Span]:
    """Decoded base64 values and repeated values, wherever else they occur in the text."""
    literals: dict[str, str] = {}
    for start, end, kind in spans:
        value = text[start:end]
        if len(value) >= 4:
            literals.setdefault(value, kind)
        plain = detectors.decoded(value)
        if plain is not None:
            literals.setdefault(plain, kind)
            if ":" in plain:
                secret = plain.split(":", 1)[1]
                if len(secret) >= 4:
                    literals.setdefault(secret, kind)
    out = list(spans)
    for literal, kind in literals.items():
        i = text.find(literal)
        while i >= 0:
            out.append((i, i + len(literal), kind))
            i = text.find(literal, i + len(literal))
    return out


def find_secrets(text: str, known: Iterable[str] = ()) -> list[SecretMatch]:
    """Non-overlapping secret spans of ``text``, in order (the secret part only, not its label).

    ``known`` are values already found secret elsewhere (another field of the same event): they
    are masked wherever they occur here too.
    """
    if not text:
        return []
    view = folded(text)
    return _finish(text, view, _detect(view.text), known)


def detected(text: str) -> tuple[View, list[Span]]:
    """The folded view of ``text`` and the raw spans of its detectors (for :func:`finish`)."""
    view = folded(text)
    return view, _detect(view.text)


def finish(text: str, found: tuple[View, list[Span]], known: Iterable[str] = ()) -> list[SecretMatch]:
    """:func:`find_secrets` from an earlier :func:`detected`, with values known from sibling fields."""
    return _finish(text, found[0], list(found[1]), known)


def values_of(found: tuple[View, list[Span]]) -> list[str]:
    """The folded text of each detected secret of 4+ characters."""
    view, spans = found
    return [view.text[s:e] for s, e, _ in _merge(_without_placeholders(view.text, spans)) if e - s >= 4]


#: A word with an invisible character between two of its visible ones, or one spelled in full-width
#: letters and digits: nobody types either by accident, and both are how a secret dodges a scanner.
_INVISIBLE_INSIDE: Final = re.compile(
    "[^\\s\u200b-\u200d\u2060\ufeff]*[!-~][\u200b-\u200d\u2060\ufeff]+[!-~][^\\s\u200b-\u200d\u2060\ufeff]*"
)
_FULL_WIDTH: Final = re.compile("[\uff01-\uff5e]{8,}")


def _obfuscated(text: str) -> list[Span]:
    if text.isascii():
        return []
    out: list[Span] = [(m.start(), m.end(), "obfuscated") for m in _INVISIBLE_INSIDE.finditer(text)]
    for m in _FULL_WIDTH.finditer(text):
        word = m.group(0)
        if any("\uff10" <= c <= "\uff19" for c in word) and any(c.isalpha() for c in word):
            out.append((m.start(), m.end(), "obfuscated"))
    return out


def _finish(text: str, view: View, spans: list[Span], known: Iterable[str]) -> list[SecretMatch]:
    t = view.text
    for value in known:
        if len(value) >= 4:
            i = t.find(value)
            while i >= 0:
                spans.append((i, i + len(value), "secret"))
                i = t.find(value, i + len(value))
    hidden = _obfuscated(text)
    if not spans and not hidden:
        return []
    spans = _without_placeholders(t, spans)
    spans = _split_halves(t, spans)
    spans = _echoes(t, spans)
    spans = _without_placeholders(t, spans)
    original: list[Span] = list(hidden)
    for start, end, kind in _merge(spans):
        o_start, o_end = view.original_span(start, end, len(text))
        if o_end > o_start:
            original.append((o_start, o_end, kind))
    return [SecretMatch(kind, start, end) for start, end, kind in _merge(original)]


def mask_spans(text: str, matches: list[SecretMatch]) -> str:
    if not matches:
        return strip_invisible(text)
    parts: list[str] = []
    pos = 0
    for sm in matches:
        parts.append(text[pos : sm.start])
        parts.append(f"[REDACTED:{sm.kind}]")
        pos = sm.end
    parts.append(text[pos:])
    return strip_invisible("".join(parts))


def mask(text: str, known: Iterable[str] = ()) -> tuple[str, list[str]]:
    """Replace each secret with ``[REDACTED:<kind>]`` and drop invisible characters; return the
    text and the kinds found (in order)."""
    if not text:
        return text, []
    matches = find_secrets(text, known)
    if not matches:
        return strip_invisible(text), []
    return mask_spans(text, matches), [sm.kind for sm in matches]


def secret_values(text: str) -> list[str]:
    """The folded text of each secret in ``text`` (to mask the same values in sibling fields)."""
    return values_of(detected(text))

"""The one masking pass at admission: whole events, JSON values and the bytes of dead letters.

Every admission path (the stream workers and the embedded runner through ``streams.agents.admit``,
the HTTP API, the CLI, the publisher) calls :func:`mask_event` before anything is stored or
extracted, so every later stage sees only masked text. What is masked: ``content``, ``speaker``,
``speaker_id``, every string in ``metadata`` (keys too, recursively; a value whose key names a
credential — ``"password"``, ``"x-api-key"``, ``"auth"`` — is masked whatever its shape) and every
attachment's caption, alt text and name. A secret found in one field is masked wherever it recurs
in another. The original content is never kept: only its SHA-256 (``source_sha256``), so
idempotency and audit still see the message as it was sent.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from typing import Any, TypeVar

from extractors.secrets.detectors import credential_name, value_is_secret
from extractors.secrets.masking import detected, finish, mask, mask_spans, secret_values, values_of
from extractors.secrets.normalise import has_invisible
from schemas.commands import CommandBase
from schemas.events import ConversationEvent
from schemas.records import MAX_DEAD_LETTER_BYTES

CommandT = TypeVar("CommandT", bound=CommandBase)


def _credential_kind(name: str) -> str:
    low = name.lower()
    return "password" if any(w in low for w in ("pass", "pwd", "pin")) else "api_key"


#: Keys that only hold the value of their parent: ``{"db_password": {"value": "…"}}``.
_GENERIC_KEYS = frozenset({"value", "values", "current", "data", "default", "secret", "plain", "plaintext"})


def mask_json(value: Any, known: Iterable[str] = (), *, _key: str | None = None, _depth: int = 0) -> Any:
    """A JSON value with every string masked; a string under a credential key is masked whole."""
    if isinstance(value, str):
        if _key is not None and credential_name(_key) and value_is_secret(value.strip()):
            return f"[REDACTED:{_credential_kind(_key)}]"
        return mask(value, known)[0]
    if _depth > 64:
        return "[REDACTED:nested]"
    if isinstance(value, dict):
        inherited = _key if _key is not None and credential_name(_key) else None
        return {
            mask(str(k), known)[0]: mask_json(
                v, known, _key=inherited if inherited and str(k).lower() in _GENERIC_KEYS else str(k),
                _depth=_depth + 1,
            )
            for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return [mask_json(v, known, _key=_key, _depth=_depth + 1) for v in value]
    return value


def _json_strings(value: Any, out: list[str], key: str | None = None, depth: int = 0) -> None:
    if isinstance(value, str):
        if key is not None and credential_name(key) and value_is_secret(value.strip()) and len(value.strip()) >= 4:
            out.append(value.strip())
        out.extend(secret_values(value))
    elif isinstance(value, dict) and depth < 64:
        inherited = key if key is not None and credential_name(key) else None
        for k, v in value.items():
            _json_strings(v, out, inherited if inherited and str(k).lower() in _GENERIC_KEYS else str(k), depth + 1)
    elif isinstance(value, list | tuple) and depth < 64:
        for v in value:
            _json_strings(v, out, key, depth + 1)


def event_texts(event: ConversationEvent) -> list[str | None]:
    texts: list[str | None] = [event.content, event.speaker, getattr(event, "speaker_id", None)]
    for a in getattr(event, "attachments", ()) or ():
        texts.extend([a.caption, a.alt_text, a.name])
    return texts


def mask_event(event: ConversationEvent) -> ConversationEvent:
    """The event with every text masked (see the module docstring); the same object when clean.

    ``source_sha256`` records the SHA-256 of the content as it was sent when masking changed it, so
    ``event.content_sha256`` (idempotency, audit, the journal) stays the original's digest.
    """
    found = {t: detected(t) for t in event_texts(event) if t}
    known: list[str] = []
    for result in found.values():
        if result[1]:
            known.extend(values_of(result))
    metadata = event.metadata
    if metadata:
        _json_strings(metadata, known)
    invisible = any(has_invisible(t) for t in found)
    if not known and not invisible and not (metadata and _metadata_invisible(metadata)):
        return event
    known = sorted(set(known), key=len, reverse=True)

    def masked(text: str) -> str:
        return mask_spans(text, finish(text, found[text] if text in found else detected(text), known))

    update: dict[str, Any] = {}
    content = masked(event.content) if event.content else event.content
    if content != event.content:
        update["content"] = content
        if event.source_sha256 is None:
            update["source_sha256"] = hashlib.sha256(event.content.encode("utf-8")).hexdigest()
    if event.speaker:
        speaker = masked(event.speaker)
        if speaker != event.speaker:
            update["speaker"] = speaker
    speaker_id = getattr(event, "speaker_id", None)
    if speaker_id:
        masked_id = masked(speaker_id)
        if masked_id != speaker_id:
            update["speaker_id"] = masked_id
    if metadata:
        masked_meta = mask_json(metadata, known)
        if masked_meta != metadata:
            update["metadata"] = masked_meta
    attachments = getattr(event, "attachments", ()) or ()
    if attachments:
        masked_att = tuple(
            a.model_copy(
                update={f: masked(getattr(a, f)) for f in ("caption", "alt_text", "name") if getattr(a, f)}
            )
            for a in attachments
        )
        if masked_att != tuple(attachments):
            update["attachments"] = masked_att
    return event.model_copy(update=update) if update else event


_ESCAPE = re.compile(r"\\(?:u([0-9a-fA-F]{4})|([nrt\"\\/bf]))")
_SIMPLE = {"n": "\n", "r": "\r", "t": "\t", '"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f"}


def _unescaped(text: str) -> str:
    def one(m: re.Match[str]) -> str:
        if m.group(1) is not None:
            return chr(int(m.group(1), 16))
        return _SIMPLE[m.group(2)]

    return _ESCAPE.sub(one, text)


def _metadata_invisible(metadata: Any) -> bool:
    try:
        return has_invisible(json.dumps(metadata, ensure_ascii=False))
    except (TypeError, ValueError):
        return True


def mask_bytes(raw: bytes, limit: int = MAX_DEAD_LETTER_BYTES) -> bytes:
    """The bytes of a refused input as a dead letter keeps them: masked, at most ``limit`` bytes.

    Valid JSON is masked value by value (a secret behind a JSON escape is still found) and written
    back compactly; anything else is masked as text (invalid UTF-8 replaced). Only the first
    ``limit`` bytes are kept, cut on a character boundary and masked after the cut, so a cut never
    leaves the first half of a secret unmasked.
    """
    head = raw[: limit * 2] if len(raw) > limit else raw
    text = head.decode("utf-8", "replace")
    out: str | None = None
    if len(raw) <= limit:
        for candidate in (text, text.replace("\ufffd", "")):
            try:
                data = json.loads(candidate)
            except (ValueError, RecursionError):
                continue
            masked = mask_json(data)
            unchanged = masked == data and not has_invisible(candidate)
            out = text if unchanged else json.dumps(masked, ensure_ascii=False)
            break
    if out is None:
        # not JSON (cut, broken, not an object): masked as text, its JSON escapes read as what they
        # stand for, so ``\n`` before a command or ``\u200b`` inside a token hides nothing
        out = mask(_unescaped(text) if "\\" in text else text)[0]
    encoded = out.encode("utf-8")
    if len(encoded) > limit:
        encoded = encoded[:limit].decode("utf-8", "ignore").encode("utf-8")
    return encoded


#: Free-text fields of explicit commands (a reason, a contradiction's description, a signal's source, a
#: revalidation's evidence quote).
_COMMAND_TEXT = ("reason", "description", "signal_source", "policy_ref", "evidence_quote")


def mask_command(command: CommandT) -> CommandT:
    """A command with its free text masked (it is sealed into an operation); the same object when clean."""
    update = {}
    for field in _COMMAND_TEXT:
        value = getattr(command, field, None)
        if isinstance(value, str) and value:
            masked = mask(value)[0]
            if masked != value:
                update[field] = masked
    return command.model_copy(update=update) if update else command

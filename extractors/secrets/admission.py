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
from collections.abc import Iterable
from typing import Any

from extractors.secrets.detectors import credential_name, value_is_secret
from extractors.secrets.masking import mask, may_contain_secret, secret_values
from extractors.secrets.normalise import has_invisible
from schemas.events import ConversationEvent
from schemas.records import MAX_DEAD_LETTER_BYTES


def _credential_kind(name: str) -> str:
    low = name.lower()
    return "password" if any(w in low for w in ("pass", "pwd", "pin")) else "api_key"


def mask_json(value: Any, known: Iterable[str] = (), *, _key: str | None = None, _depth: int = 0) -> Any:
    """A JSON value with every string masked; a string under a credential key is masked whole."""
    if isinstance(value, str):
        if _key is not None and credential_name(_key) and value_is_secret(value.strip()):
            return f"[REDACTED:{_credential_kind(_key)}]"
        return mask(value, known)[0]
    if _depth > 64:
        return "[REDACTED:nested]"
    if isinstance(value, dict):
        return {
            mask(str(k), known)[0]: mask_json(v, known, _key=str(k), _depth=_depth + 1) for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return [mask_json(v, known, _key=_key, _depth=_depth + 1) for v in value]
    return value


def _json_strings(value: Any, out: list[str], key: str | None = None, depth: int = 0) -> None:
    if isinstance(value, str):
        if key is not None and credential_name(key) and value_is_secret(value.strip()) and len(value.strip()) >= 4:
            out.append(value.strip())
        if may_contain_secret(value):
            out.extend(secret_values(value))
    elif isinstance(value, dict) and depth < 64:
        for k, v in value.items():
            _json_strings(v, out, str(k), depth + 1)
    elif isinstance(value, list | tuple) and depth < 64:
        for v in value:
            _json_strings(v, out, key, depth + 1)


def _needs_masking(texts: Iterable[str | None]) -> bool:
    return any(t and (may_contain_secret(t) or has_invisible(t)) for t in texts)


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
    metadata = event.metadata
    if not _needs_masking(event_texts(event)) and not (metadata and _metadata_needs(metadata)):
        return event
    known: list[str] = []
    for text in event_texts(event):
        if text and may_contain_secret(text):
            known.extend(secret_values(text))
    if metadata:
        _json_strings(metadata, known)
    known = sorted(set(known), key=len, reverse=True)
    update: dict[str, Any] = {}
    content = mask(event.content, known)[0]
    if content != event.content:
        update["content"] = content
        if getattr(event, "source_sha256", None) is None:
            update["source_sha256"] = hashlib.sha256(event.content.encode("utf-8")).hexdigest()
    if event.speaker:
        speaker = mask(event.speaker, known)[0]
        if speaker != event.speaker:
            update["speaker"] = speaker
    speaker_id = getattr(event, "speaker_id", None)
    if speaker_id:
        masked_id = mask(speaker_id, known)[0]
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
                update={
                    f: mask(getattr(a, f), known)[0]
                    for f in ("caption", "alt_text", "name")
                    if getattr(a, f) is not None
                }
            )
            for a in attachments
        )
        if masked_att != tuple(attachments):
            update["attachments"] = masked_att
    return event.model_copy(update=update) if update else event


def _metadata_needs(metadata: Any) -> bool:
    found: list[str] = []
    _json_strings(metadata, found)
    if found:
        return True
    try:
        text = json.dumps(metadata, ensure_ascii=False)
    except (TypeError, ValueError):
        return True
    return has_invisible(text)


def mask_bytes(raw: bytes, limit: int = MAX_DEAD_LETTER_BYTES) -> bytes:
    """The bytes of a refused input as a dead letter keeps them: masked, at most ``limit`` bytes.

    Valid JSON is masked value by value (a secret behind a JSON escape is still found) and written
    back compactly; anything else is masked as text (invalid UTF-8 replaced). Only the first
    ``limit`` bytes are kept, cut on a character boundary and masked after the cut, so a cut never
    leaves the first half of a secret unmasked.
    """
    head = raw[: limit * 2] if len(raw) > limit else raw
    text = head.decode("utf-8", "replace")
    out: str
    if len(raw) <= limit:
        try:
            data = json.loads(text)
        except (ValueError, RecursionError):
            out = mask(text)[0]
        else:
            masked = mask_json(data)
            out = text if masked == data and not has_invisible(text) else json.dumps(masked, ensure_ascii=False)
    else:
        out = mask(text)[0]
    encoded = out.encode("utf-8")
    if len(encoded) > limit:
        encoded = encoded[:limit].decode("utf-8", "ignore").encode("utf-8")
    return encoded

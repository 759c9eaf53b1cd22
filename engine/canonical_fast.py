"""Checksums and ids at stream speed, byte-identical to the schema definitions.

An operation's checksum is SHA-256 of ``canonical_json(op.body())``. Canonical
JSON sorts keys at every level, so the (large) node snapshots can be serialised
once per node version and spliced into the small remainder. ``fast_derive_id``
is UUIDv5 computed directly with hashlib. Tests assert both agree with
``schemas.operations.verify_operation`` / ``schemas.canonical.derive_id`` on every
operation the reducer emits; only the cost differs.

Snapshot texts are memoised per (immutable) model instance. A node derived
from another by a few field changes (:func:`remember_derived`) gets its JSON
dict from its parent's plus the converted changes, so the full pydantic dump
runs once per created node rather than once per version.
"""

from __future__ import annotations

import hashlib
from typing import Any

from engine.fastjson import Unsupported, changes_json, datetime_json, model_json
from schemas.canonical import EPISTREAM_NAMESPACE, canonical_json
from schemas.common import ActorRef
from schemas.nodes import Edge, MemoryNode
from schemas.operations import Operation

__all__ = [
    "canonical_bytes",
    "canonical_text",
    "checksum_of_fields",
    "datetime_json",
    "fast_derive_id",
    "model_text",
    "remember_derived",
]

_orjson: Any
try:  # optional accelerator; results are byte-identical or we fall back
    import orjson as _orjson
except ImportError:  # pragma: no cover - exercised only without orjson
    _orjson = None

_NS = EPISTREAM_NAMESPACE.bytes
_sha1 = hashlib.sha1
_sha256 = hashlib.sha256
#: orjson and ``json.dumps`` differ only for floats below 1e-4 in magnitude:
#: orjson writes ``0.00001`` / ``1e-7`` where Python writes ``1e-05`` / ``1e-07``.
#: In orjson's output such a number starts right after ``:``, ``,`` or ``[`` (or
#: at the start) with ``0.0000`` or a mantissa followed by ``e-``. Texts holding
#: one use the reference encoder; false positives (e.g. inside strings) only
#: cost speed. The scan looks for the two literals first (a C-speed ``find``),
#: then checks the few hits, since a regex with no literal prefix is ~50 µs/KB.
_NUMBER_START = frozenset(b":,[")
_MANTISSA = frozenset(b"0123456789.")


def _starts_number(data: bytes, j: int) -> bool:
    """Whether a number token beginning at ``j`` (sign included) starts a JSON value."""
    if j >= 0 and data[j] == 0x2D:  # '-'
        j -= 1
    return j < 0 or data[j] in _NUMBER_START


def _may_hold_tiny_float(text: str | bytes) -> bool:
    data = text.encode("utf-8") if isinstance(text, str) else text
    i = data.find(b"e-")
    while i != -1:
        j = i - 1
        while j >= 0 and data[j] in _MANTISSA:
            j -= 1
        if j < i - 1 and _starts_number(data, j):
            return True
        i = data.find(b"e-", i + 2)
    i = data.find(b"0.0000")
    while i != -1:
        if _starts_number(data, i - 1):
            return True
        i = data.find(b"0.0000", i + 6)
    return False


_SLOTS = ("after", "before", "edge")  # sorted, as they appear in canonical text
_PLACEHOLDER = {k: f"\x00snapshot:{k}\x00" for k in _SLOTS}
_QUOTED = {k: canonical_json(v).encode("utf-8") for k, v in _PLACEHOLDER.items()}
_CACHE_LIMIT = 32768
#: id(model) -> [model, json dict or None, canonical bytes or None]; LRU order.
_cache: dict[int, list[Any]] = {}
#: UUID variant nibble (RFC 4122: 10xx) for each hex digit of the raw hash.
_VARIANT = {c: "89ab"[int(c, 16) & 0x3] for c in "0123456789abcdef"}


def fast_derive_id(*parts: str | int) -> str:
    name = "\x1f".join(map(str, parts)).encode("utf-8")
    h = _sha1(_NS + name).hexdigest()  # UUIDv5 is defined over SHA-1
    return f"{h[:8]}-{h[8:12]}-5{h[13:16]}-{_VARIANT[h[16]]}{h[17:20]}-{h[20:32]}"


def canonical_bytes(value: Any) -> bytes:
    """UTF-8 of ``schemas.canonical.canonical_json`` — same bytes, usually much faster."""
    if _orjson is not None:
        try:
            data: bytes = _orjson.dumps(value, option=_orjson.OPT_SORT_KEYS)
        except (TypeError, _orjson.JSONEncodeError):
            pass
        else:
            if not _may_hold_tiny_float(data):
                return data
    return canonical_json(value).encode("utf-8")


def canonical_text(value: Any) -> str:
    """``schemas.canonical.canonical_json`` — same text, usually much faster."""
    return canonical_bytes(value).decode("utf-8")


def _entry(model: object) -> list[Any]:
    key = id(model)
    hit = _cache.pop(key, None)
    if hit is None or hit[0] is not model:
        hit = [model, None, None]
        if len(_cache) >= _CACHE_LIMIT:
            for stale in list(_cache)[: _CACHE_LIMIT // 8]:
                del _cache[stale]
    _cache[key] = hit  # most recently used last
    return hit


def _model_dict(entry: list[Any]) -> dict[str, Any]:
    data: dict[str, Any] | None = entry[1]
    if data is None:
        data = model_json(entry[0])
        entry[1] = data
    return data


def _model_bytes(model: MemoryNode | Edge) -> bytes:
    entry = _entry(model)
    data: bytes | None = entry[2]
    if data is None:
        data = canonical_bytes(_model_dict(entry))
        entry[2] = data
    return data


def model_text(model: MemoryNode | Edge | None) -> str:
    """Canonical JSON of a snapshot, memoised per (immutable) instance."""
    if model is None:
        return "null"
    return _model_bytes(model).decode("utf-8")


def remember_derived(parent: MemoryNode, child: MemoryNode, changes: dict[str, Any]) -> None:
    """Record ``child`` (= ``parent`` with ``changes``) so its JSON is not recomputed from scratch."""
    try:
        delta = changes_json(type(child), changes)
    except Unsupported:
        return
    base = _model_dict(_entry(parent))
    data = base.copy()
    data.update(delta)
    _entry(child)[1] = data


def _actor_json(actor: ActorRef) -> dict[str, str]:
    return {"actor_id": actor.actor_id, "actor_type": actor.actor_type._value_}


def checksum_of_fields(fields: dict[str, Any]) -> str:
    """Checksum of the operation these (already typed) fields describe."""
    small = {
        "tenant_id": fields["tenant_id"],
        "owner_id": fields["owner_id"],
        "scope": fields["scope"]._value_,
        "scope_id": fields["scope_id"],
        "schema_version": fields["schema_version"],
        "op_id": fields["op_id"],
        "op_type": fields["op_type"]._value_,
        "op_index": fields["op_index"],
        "target_id": fields["target_id"],
        "target_type": fields["target_type"]._value_,
        "actor": _actor_json(fields["actor"]),
        "payload": fields["payload"],
        "evidence_ids": list(fields["evidence_ids"]),
        "request_id": fields["request_id"],
        "caused_by": fields["caused_by"],
        "occurred_at": datetime_json(fields["occurred_at"]),
        "policy_version": fields["policy_version"],
    }
    present = []
    for key in _SLOTS:
        model = fields[key]
        if model is None:
            small[key] = None
        else:
            small[key] = _PLACEHOLDER[key]
            present.append((key, model))
    text = canonical_bytes(small)
    for key, _ in present:
        if text.count(_QUOTED[key]) != 1:  # a payload string spelled like a placeholder
            return Operation.model_construct(**fields).compute_checksum()
    digest = _sha256()
    for key, model in present:
        head, text = text.split(_QUOTED[key])
        digest.update(head)
        digest.update(_model_bytes(model))
    digest.update(text)
    return digest.hexdigest()

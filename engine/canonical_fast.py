"""Checksums and ids at stream speed, byte-identical to the schema definitions.

An operation's checksum is SHA-256 of ``canonical_json(op.body())``. Canonical
JSON sorts keys at every level, so the (large) node snapshots can be serialised
once per node version and spliced into the small remainder. ``fast_derive_id``
is UUIDv5 computed directly with hashlib. Tests assert both agree with
``schemas.operations.verify_operation`` / ``schemas.canonical.derive_id`` on every
operation the reducer emits; only the cost differs.
"""

from __future__ import annotations

import hashlib
from datetime import datetime
from functools import lru_cache
from typing import Any

from pydantic import TypeAdapter

from schemas.canonical import EPISTREAM_NAMESPACE, canonical_json, sha256_hex
from schemas.common import ActorRef
from schemas.nodes import Edge, MemoryNode
from schemas.operations import Operation

_orjson: Any
try:  # optional accelerator; results are byte-identical or we fall back
    import orjson as _orjson
except ImportError:  # pragma: no cover - exercised only without orjson
    _orjson = None

_NS = EPISTREAM_NAMESPACE.bytes
_DATETIME = TypeAdapter(datetime)
#: orjson and ``json.dumps`` differ only for floats below 1e-4 in magnitude:
#: orjson writes ``0.00001`` / ``1e-7`` where Python writes ``1e-05`` / ``1e-07``.
#: Such a number always contains ``.0000`` or an ``e-`` exponent; texts that might
#: hold one (false positives only cost speed) use the reference encoder.
_NUMBER_START = frozenset(":,[-")
_NUMBER_END = frozenset(",}]")


def _may_hold_tiny_float(text: str) -> bool:
    if ".0000" in text:
        return True
    i = text.find("e-")
    n = len(text)
    while i != -1:
        j = i - 1
        while j >= 0 and (text[j].isdigit() or text[j] == "."):
            j -= 1
        k = i + 2
        while k < n and text[k].isdigit():
            k += 1
        if j < i - 1 and k > i + 2 and j >= 0 and text[j] in _NUMBER_START and (k == n or text[k] in _NUMBER_END):
            return True
        i = text.find("e-", i + 2)
    return False


_SLOTS = {"before": "\x00snapshot:before\x00", "after": "\x00snapshot:after\x00", "edge": "\x00snapshot:edge\x00"}
_QUOTED = {k: canonical_json(v) for k, v in _SLOTS.items()}
_CACHE_LIMIT = 8192
_cache: dict[int, tuple[object, str]] = {}


def fast_derive_id(*parts: str | int) -> str:
    name = "\x1f".join(map(str, parts)).encode("utf-8")
    raw = bytearray(hashlib.sha1(_NS + name).digest()[:16])  # UUIDv5 is defined over SHA-1
    raw[6] = (raw[6] & 0x0F) | 0x50
    raw[8] = (raw[8] & 0x3F) | 0x80
    h = raw.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


@lru_cache(maxsize=4096)
def datetime_json(value: datetime) -> str:
    """The exact string pydantic writes for an aware datetime in JSON mode."""
    return str(_DATETIME.dump_python(value, mode="json"))


def canonical_text(value: Any) -> str:
    """``schemas.canonical.canonical_json`` — same bytes, usually much faster."""
    if _orjson is None:
        return canonical_json(value)
    try:
        text: str = _orjson.dumps(value, option=_orjson.OPT_SORT_KEYS).decode("utf-8")
    except (TypeError, _orjson.JSONEncodeError):
        return canonical_json(value)
    if _may_hold_tiny_float(text):
        return canonical_json(value)
    return text


def model_text(model: MemoryNode | Edge | None) -> str:
    """Canonical JSON of a snapshot, memoised per (immutable) instance."""
    if model is None:
        return "null"
    key = id(model)
    hit = _cache.get(key)
    if hit is not None and hit[0] is model:
        return hit[1]
    text = canonical_text(model.model_dump(mode="json"))
    if len(_cache) >= _CACHE_LIMIT:
        _cache.clear()
    _cache[key] = (model, text)
    return text


def _actor_json(actor: ActorRef) -> dict[str, str]:
    return {"actor_id": actor.actor_id, "actor_type": actor.actor_type.value}


def checksum_of_fields(fields: dict[str, Any]) -> str:
    """Checksum of the operation these (already typed) fields describe."""
    small = {
        "tenant_id": fields["tenant_id"],
        "owner_id": fields["owner_id"],
        "scope": fields["scope"].value,
        "scope_id": fields["scope_id"],
        "schema_version": fields["schema_version"],
        "op_id": fields["op_id"],
        "op_type": fields["op_type"].value,
        "op_index": fields["op_index"],
        "target_id": fields["target_id"],
        "target_type": fields["target_type"].value,
        "actor": _actor_json(fields["actor"]),
        "payload": fields["payload"],
        "evidence_ids": list(fields["evidence_ids"]),
        "request_id": fields["request_id"],
        "caused_by": fields["caused_by"],
        "occurred_at": datetime_json(fields["occurred_at"]),
        "policy_version": fields["policy_version"],
        **_SLOTS,
    }
    text = canonical_text(small)
    for key, quoted in _QUOTED.items():
        if text.count(quoted) != 1:
            return Operation.model_construct(**fields).compute_checksum()
        text = text.replace(quoted, model_text(fields[key]), 1)
    return sha256_hex(text)

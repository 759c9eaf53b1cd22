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

Sealing keeps each operation's canonical template (placeholders for its
snapshots and checksum), so sinks get the stored record through
:func:`operation_text` / :func:`operation_bytes` — the same text as
``op.canonical()`` — without dumping the operation a second time.
"""

from __future__ import annotations

import hashlib
from typing import Any

from engine.fastjson import Unsupported, changes_json, datetime_json, model_json
from schemas.canonical import EPISTREAM_NAMESPACE, canonical_json
from schemas.common import ActorRef
from schemas.errors import ChecksumMismatch
from schemas.nodes import Edge, MemoryNode
from schemas.operations import Operation

__all__ = [
    "canonical_bytes",
    "canonical_text",
    "checksum_of_fields",
    "datetime_json",
    "fast_derive_id",
    "model_bytes",
    "model_text",
    "operation_bytes",
    "operation_text",
    "remember_derived",
    "remember_operation",
    "seal_fields",
    "verify_fast",
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
#: The checksum's own slot in an operation's full canonical text. Its key sorts
#: after ``caused_by`` and before ``edge``, so it is never the last member and is
#: always followed by a comma; removing this member gives the checksummed body.
_CHECKSUM_PLACEHOLDER = "\x00operation:checksum\x00"
_CHECKSUM_QUOTED = canonical_json(_CHECKSUM_PLACEHOLDER).encode("utf-8")
_CHECKSUM_MEMBER = b'"checksum":' + _CHECKSUM_QUOTED + b","
_OP_CACHE_LIMIT = 16384
#: id(op) -> (op, canonical template of the op with placeholders); sealing order.
_op_cache: dict[int, tuple[Operation, bytes]] = {}
#: id(model) -> [model, json dict or None, canonical bytes or None]; LRU order.
#: Both caches are shared by the reducer and the threads that store its output (the embedded
#: runner's store thread, the worker's ClickHouse thread): every access is one dict operation,
#: atomic under the GIL, and an entry evicted by the other thread is simply recomputed.
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
                _cache.pop(stale, None)  # pop: a sink thread may have evicted it first
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


def _template(fields: dict[str, Any]) -> bytes | None:
    """Canonical text of the whole operation with placeholders for its snapshots and checksum.

    ``None`` when a payload string happens to spell a placeholder (the splice
    would be ambiguous); callers then use the reference encoder.
    """
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
        "checksum": _CHECKSUM_PLACEHOLDER,
    }
    for key in _SLOTS:
        small[key] = None if fields[key] is None else _PLACEHOLDER[key]
    text = canonical_bytes(small)
    if text.count(_CHECKSUM_QUOTED) != 1 or text.count(_CHECKSUM_MEMBER) != 1:
        return None
    for key in _SLOTS:
        if fields[key] is not None and text.count(_QUOTED[key]) != 1:
            return None
    return text


def _splice(template: bytes, fields: dict[str, Any], checksum: bytes | None) -> list[bytes]:
    """The template's pieces with snapshots (and the checksum, or nothing) filled in, in order."""
    if checksum is None:
        head, tail = template.split(_CHECKSUM_MEMBER)
        template = head + tail
    else:
        head, tail = template.split(_CHECKSUM_QUOTED)
        template = head + checksum + tail
    parts: list[bytes] = []
    for key in _SLOTS:
        model = fields[key]
        if model is not None:
            head, template = template.split(_QUOTED[key])
            parts.append(head)
            parts.append(_model_bytes(model))
    parts.append(template)
    return parts


def seal_fields(fields: dict[str, Any]) -> tuple[str, bytes | None]:
    """Checksum of the operation these (already typed) fields describe, and its text template.

    The template lets :func:`operation_bytes` produce the full canonical text
    later without dumping the operation again; see :func:`remember_operation`.
    """
    template = _template(fields)
    if template is None:
        return Operation.model_construct(**fields).compute_checksum(), None
    digest = _sha256()
    for part in _splice(template, fields, None):
        digest.update(part)
    return digest.hexdigest(), template


def checksum_of_fields(fields: dict[str, Any]) -> str:
    """Checksum of the operation these (already typed) fields describe."""
    return seal_fields(fields)[0]


def remember_operation(op: Operation, template: bytes | None) -> None:
    """Keep the sealed operation's template so sinks can reuse the text (bounded, oldest dropped first)."""
    if template is None:
        return
    if len(_op_cache) >= _OP_CACHE_LIMIT:
        for stale in list(_op_cache)[: _OP_CACHE_LIMIT // 8]:
            _op_cache.pop(stale, None)
    _op_cache[id(op)] = (op, template)


def operation_bytes(op: Operation) -> bytes:
    """UTF-8 of ``op.canonical()`` (checksum included); reuses the text built when the engine sealed it."""
    hit = _op_cache.get(id(op))
    if hit is not None and hit[0] is op:
        return b"".join(_splice(hit[1], op.__dict__, canonical_json(op.checksum).encode("utf-8")))
    return canonical_bytes(model_json(op))


def operation_text(op: Operation) -> str:
    """``op.canonical()``: the operation log's stored record, usually without a new dump."""
    return operation_bytes(op).decode("utf-8")


def verify_fast(op: Operation) -> Operation:
    """``schemas.operations.verify_operation`` at stream speed: the same check, the same error.

    Consumers of ``memory.operations`` verify every operation they read; the reference encoder
    (``json.dumps`` over a full model dump) made that the largest item of the log sink.
    """
    body = model_json(op)
    checksum = body.pop("checksum", "")
    if not checksum or checksum != _sha256(canonical_bytes(body)).hexdigest():
        raise ChecksumMismatch("operation checksum does not match its content", op_id=op.op_id)
    return op


def model_bytes(model: MemoryNode | Edge) -> bytes:
    """UTF-8 of ``canonical_json(model.model_dump(mode="json"))``, memoised per instance."""
    return _model_bytes(model)

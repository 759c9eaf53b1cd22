"""Checksums, stored records and ids at stream speed, byte-identical to the schema definitions.

An operation's checksum is SHA-256 of ``canonical_json(op.body())`` and its stored record is
``op.canonical()``; both dump the whole operation through pydantic and ``json.dumps``, which
for a record of two node snapshots costs more than the reducer's rules. Here the same bytes
are written by orjson: canonical JSON sorts keys at every level, so a node snapshot's text is
written once per (immutable) node version, kept, and embedded as an ``orjson.Fragment`` in
each operation that carries it (a version is usually the ``after`` of one operation and the
``before`` of the next). Whatever orjson would write differently goes through the reference
(see :func:`_plain`). ``fast_derive_id`` is UUIDv5 with hashlib, formatted by hand.

Tests compare every operation the reducer emits, and random JSON values, with
``schemas.canonical`` / ``schemas.operations``, and ``tests/data/legacy_log`` pins records
written by earlier engines; only the cost differs.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import math
import weakref
from collections.abc import Iterable
from datetime import datetime
from typing import Any

import orjson

from engine.fastjson import model_json
from engine.snapshots import construct
from schemas.canonical import EPISTREAM_NAMESPACE, canonical_json, sha256_hex
from schemas.common import ActorRef
from schemas.enums import ActorType, OpType, Scope, TargetType
from schemas.errors import ChecksumMismatch
from schemas.nodes import Edge, MemoryNode
from schemas.operations import Operation

__all__ = [
    "canonical_bytes",
    "canonical_text",
    "encoded_json",
    "fast_derive_id",
    "model_bytes",
    "model_text",
    "operation_bytes",
    "operation_text",
    "seal_operation",
    "verify_fast",
]

#: A dict key of a str subclass is refused too (json.dumps writes such keys by str's own methods).
_OPTIONS = orjson.OPT_SORT_KEYS | orjson.OPT_PASSTHROUGH_SUBCLASS
#: Leaves orjson writes exactly as json.dumps does (ints within 64 bits; beyond, orjson refuses them).
#: Anything else, a subclass of these included (an IntEnum, a StrEnum), is written by the reference.
_LEAVES = frozenset({str, int, bool, type(None), orjson.Fragment})
_CONTAINERS = frozenset({dict, list, tuple})
_INF = math.inf
if orjson.dumps([1e16, 1.5e-4, 0.1 + 0.2, 5e-324]) != b"[1e+16,0.00015,0.30000000000000004,5e-324]":
    # orjson before 3.11.7 (pyproject requires a later one) writes 1e16 as "1e16": its records would
    # differ from the reference's, and verify_fast would refuse records the reference accepts
    raise ImportError(f"orjson {orjson.__version__} writes floats otherwise than json.dumps; 3.11.7 or later is needed")


def _plain(value: dict[str, Any] | list[Any] | tuple[Any, ...]) -> bool:
    """Whether orjson writes ``value`` as ``json.dumps`` does (if it writes it at all).

    Its floats are the same shortest repr with the same exponent form, except below 1e-4 in
    magnitude ("1e-7" and "0.00001" where Python writes "1e-07" and "1e-05"); and it writes
    NaN and infinities as null where the reference refuses them. Other types than JSON's
    (an Enum, a UUID) it writes where json.dumps raises. Scanning the text for such floats
    instead costs more (a two-byte ``find`` is ~1 ns a byte) and cannot see a NaN.
    """
    items: Iterable[Any] = value.values() if isinstance(value, dict) else value
    for item in items:
        kind = type(item)
        if kind in _LEAVES:
            continue
        if kind is float:
            if not (1e-4 <= abs(item) < _INF or item == 0.0):  # NaN fails both
                return False
        elif kind in _CONTAINERS:
            if item and not _plain(item):
                return False
        else:
            return False
    return True


def _dumps(value: Any) -> bytes | None:
    """orjson's canonical text of ``value`` where it is the reference's, else None."""
    try:
        return orjson.dumps(value, option=_OPTIONS) if _plain((value,)) else None
    except (TypeError, RecursionError):  # orjson.JSONEncodeError is a TypeError; RecursionError: _plain's
        return None


def canonical_bytes(value: Any) -> bytes:
    """UTF-8 of ``schemas.canonical.canonical_json`` — the same bytes, and the same errors.

    Values orjson would write otherwise (see :func:`_plain`), or does not take (a key that is
    not a str, an int beyond 64 bits, a lone surrogate, nesting beyond 255), go through the
    reference, which also raises its errors.
    """
    text = _dumps(value)
    return canonical_json(value).encode("utf-8") if text is None else text


def canonical_text(value: Any) -> str:
    """``schemas.canonical.canonical_json`` — the same text, usually much faster."""
    return canonical_bytes(value).decode("utf-8")


class _Texts:
    """Canonical texts of immutable objects, by object, for as long as the object lives.

    Keyed by ``id``; each entry holds its object weakly and leaves when the object is released,
    so the texts kept are those of objects still held (a node's current version, an operation a
    sink has yet to store), and holding them never keeps an object alive (holding 16k operations
    and their snapshots alive cost the reducer ~12%). Bounded: the oldest eighth is dropped when
    full. Shared by the reducer and the threads that store its output; every step is one dict
    operation, atomic under the GIL, and an entry another thread dropped is simply written again.
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._entries: dict[int, tuple[weakref.ref[Any], bytes]] = {}

    def get(self, obj: object) -> bytes | None:
        hit = self._entries.get(id(obj))
        return hit[1] if hit is not None and hit[0]() is obj else None

    def put(self, obj: object, text: bytes) -> None:
        if not type(obj).__weakrefoffset__:  # a class whose instances take no weak reference: not kept
            return
        entries = self._entries
        if len(entries) >= self.limit:
            for stale in list(itertools.islice(entries, self.limit // 8)):
                entries.pop(stale, None)
        key = id(obj)
        # the callback runs as the object is released, before its address can be reused
        entries[key] = (weakref.ref(obj, functools.partial(entries.pop, key)), text)

    def clear(self) -> None:
        self._entries.clear()


_snapshots = _Texts(32768)
_records = _Texts(16384)


def model_bytes(model: Any) -> bytes:
    """UTF-8 of ``canonical_json(model.model_dump(mode="json"))``, kept per instance while it lives.

    Pydantic writes the JSON-mode values (that is the definition); only the text is orjson's.
    """
    text = _snapshots.get(model)
    if text is None:
        text = canonical_bytes(model_json(model))
        _snapshots.put(model, text)
    return text


def model_text(model: MemoryNode | Edge | None) -> str:
    """Canonical JSON of a snapshot (``"null"`` for none), kept per instance."""
    return "null" if model is None else model_bytes(model).decode("utf-8")


def encoded_json(model: Any) -> tuple[dict[str, Any], bytes]:
    """``model_json(model)`` and its canonical bytes.

    The reducer makes an extraction result's JSON the payload of its EXTRACTION_VALIDATED
    operation and hands these bytes to :func:`seal_operation`, so the dict is written once.
    They are not kept for the result itself: a stream worker's journal is written by another
    stage, so such entries would only push node texts out of the cache.
    """
    data = model_json(model)
    return data, canonical_bytes(data)


def _snapshot(model: MemoryNode | Edge | None) -> orjson.Fragment | None:
    return None if model is None else orjson.Fragment(model_bytes(model))


#: Stands for the checksum's value while an operation is written: 0xFF is never part of UTF-8
#: text, so its one occurrence marks the checksum's place whatever the payload or snapshots hold.
_MARK = orjson.Fragment(b"\xff")
_MEMBER = b',"checksum":'  # what precedes the mark ("checksum" sorts after "caused_by")
#: Each Operation field's declared types, in declaration order. Values of exactly these types are
#: written below as pydantic's JSON mode writes them (a subclass of a snapshot class, say, pydantic
#: writes by the declared class's fields): anything else is left to the reference.
_DECLARED: dict[str, tuple[type, ...]] = {
    "tenant_id": (str,), "owner_id": (str,), "scope": (Scope,), "scope_id": (str, type(None)),
    "schema_version": (int,), "op_id": (str,), "op_type": (OpType,), "op_index": (int,),
    "target_id": (str,), "target_type": (TargetType,), "actor": (ActorRef,), "payload": (dict,),
    "before": (MemoryNode, type(None)), "after": (MemoryNode, type(None)), "edge": (Edge, type(None)),
    "evidence_ids": (tuple,), "request_id": (str, type(None)), "caused_by": (str,),
    "occurred_at": (datetime,), "policy_version": (str,), "checksum": (str,),
}
assert tuple(_DECLARED) == tuple(Operation.model_fields), "an Operation field was added, removed or moved"
_ALLOWED = tuple(frozenset(kinds) for kinds in _DECLARED.values())
_allows = frozenset.__contains__
#: orjson writes an operation's datetime (every zone, and naive times) as pydantic's JSON mode does: tested.
_OP_OPTIONS = _OPTIONS | orjson.OPT_UTC_Z


def _marked(f: dict[str, Any], payload_text: bytes | None) -> tuple[bytes, int] | None:
    """An operation's canonical text with :data:`_MARK` for its checksum, and the mark's offset.

    ``f`` is the operation's field values. None when one is not of its declared type (see
    :data:`_DECLARED`), or the payload holds what orjson would write otherwise: the reference
    then writes the whole operation.
    """
    try:
        if len(f) != len(_ALLOWED) or not all(map(_allows, _ALLOWED, map(type, map(f.__getitem__, _DECLARED)))):
            return None
    except KeyError:  # a field missing: the reference names it
        return None
    actor: ActorRef = f["actor"]
    evidence: tuple[Any, ...] = f["evidence_ids"]
    payload: dict[str, Any] = f["payload"]
    if not (
        type(actor.actor_id) is str and type(actor.actor_type) is ActorType
        and all(type(e) is str for e in evidence) and (payload_text is not None or _plain(payload))
    ):
        return None
    try:
        text = orjson.dumps(
            {
                "actor": {"actor_id": actor.actor_id, "actor_type": actor.actor_type._value_},
                "after": _snapshot(f["after"]),
                "before": _snapshot(f["before"]),
                "caused_by": f["caused_by"],
                "checksum": _MARK,
                "edge": _snapshot(f["edge"]),
                "evidence_ids": evidence,
                "occurred_at": f["occurred_at"],
                "op_id": f["op_id"],
                "op_index": f["op_index"],
                "op_type": f["op_type"]._value_,
                "owner_id": f["owner_id"],
                "payload": payload if payload_text is None else orjson.Fragment(payload_text),
                "policy_version": f["policy_version"],
                "request_id": f["request_id"],
                "schema_version": f["schema_version"],
                "scope": f["scope"]._value_,
                "scope_id": f["scope_id"],
                "target_id": f["target_id"],
                "target_type": f["target_type"]._value_,
                "tenant_id": f["tenant_id"],
            },
            option=_OP_OPTIONS,
        )
    except (TypeError, RecursionError):  # a payload orjson refuses (an int beyond 64 bits, a key not a str)
        return None
    return text, text.index(b"\xff")


def _body(text: bytes, at: int) -> bytes:
    """The checksummed text: the marked text without its checksum member."""
    return b"".join((text[: at - len(_MEMBER)], text[at + 1 :]))


def _record(text: bytes, at: int, checksum: bytes) -> bytes:
    """The stored record: the marked text with the checksum's JSON in the mark's place."""
    return b"".join((text[:at], checksum, text[at + 1 :]))


def seal_operation(fields: dict[str, Any], payload_text: bytes | None = None) -> Operation:
    """The sealed operation these (already typed) fields describe; its stored record is kept.

    ``fields`` names every Operation field in declaration order (``checksum`` last, filled
    here) and becomes the instance's ``__dict__``. ``payload_text``, when given, is the
    payload's canonical bytes (:func:`encoded_json`).
    """
    marked = _marked(fields, payload_text)
    if marked is None:  # the reference: a pydantic dump and json.dumps
        op = construct(Operation, fields)
        op.__dict__["checksum"] = op.compute_checksum()  # not yet seen by anyone: still being built
        record = canonical_json(model_json(op)).encode("utf-8")
    else:
        fields["checksum"] = sha256_hex(_body(*marked))
        op = construct(Operation, fields)
        record = _record(*marked, b'"%s"' % fields["checksum"].encode())  # hex digits: no escapes
    _records.put(op, record)
    return op


def operation_bytes(op: Operation) -> bytes:
    """UTF-8 of ``op.canonical()``: the record kept when it was sealed, else written again."""
    record = _records.get(op)
    if record is not None:
        return record
    marked = _marked(op.__dict__, None) if type(op) is Operation else None
    return canonical_bytes(model_json(op)) if marked is None else _record(*marked, canonical_bytes(op.checksum))


def operation_text(op: Operation) -> str:
    """``op.canonical()``: the operation log's stored record, usually without a new dump."""
    return operation_bytes(op).decode("utf-8")


def verify_fast(op: Operation) -> Operation:
    """``schemas.operations.verify_operation`` at stream speed: the same check, the same error.

    Consumers of ``memory.operations`` verify every operation they read; the reference encoder
    (``json.dumps`` over a full model dump) made that the largest item of the log sink.
    """
    if op.checksum:
        marked = _marked(op.__dict__, None) if type(op) is Operation else None
        if op.checksum == (op.compute_checksum() if marked is None else sha256_hex(_body(*marked))):
            return op
    raise ChecksumMismatch("operation checksum does not match its content", op_id=op.op_id)


_NS = EPISTREAM_NAMESPACE.bytes
_sha1 = hashlib.sha1
#: RFC 4122's variant bits (10xx) set in the hex digit they share with the hash.
_VARIANT = {c: "89ab"[int(c, 16) & 0x3] for c in "0123456789abcdef"}


def fast_derive_id(*parts: str | int) -> str:
    """``schemas.canonical.derive_id``: UUIDv5 (SHA-1 of namespace and name) without a UUID object."""
    h = _sha1(_NS + "\x1f".join(map(str, parts)).encode("utf-8")).hexdigest()
    return f"{h[:8]}-{h[8:12]}-5{h[13:16]}-{_VARIANT[h[16]]}{h[17:20]}-{h[20:32]}"

"""Checksums and ids at stream speed, byte-identical to the schema definitions.

An operation's checksum is SHA-256 of ``canonical_json(op.body())``. Canonical
JSON sorts keys at every level, so the (large) node snapshots can be serialised
once per node version and copied into each operation that carries them (the C
encoder in ``engine/_canonical.c`` takes them as encoded fragments). ``fast_derive_id``
is UUIDv5 computed by the C module. Tests assert both agree with
``schemas.operations.verify_operation`` / ``schemas.canonical.derive_id`` on every
operation the reducer emits; only the cost differs.

Snapshot texts are written by the C encoder from the model's fields (see
:func:`engine.fastjson.model_plan`) and memoised per (immutable) model instance:
a node version is usually the ``after`` of one operation and the ``before`` of
the next.

Sealing keeps each operation's text (without its checksum), so sinks
get the stored record through :func:`operation_text` / :func:`operation_bytes` — the same text as
``op.canonical()`` — without encoding the operation a second time.
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from engine import _canonical
from engine.fastjson import model_json, model_plan
from engine.snapshots import construct, shared_fields_set
from schemas.canonical import EPISTREAM_NAMESPACE, canonical_json, derive_id, sha256_hex
from schemas.errors import ChecksumMismatch
from schemas.nodes import Edge, MemoryNode
from schemas.operations import Operation

__all__ = [
    "canonical_bytes",
    "canonical_text",
    "derive_engine_id",
    "encoded_json",
    "fast_derive_id",
    "model_bytes",
    "model_text",
    "operation_bytes",
    "operation_text",
    "remember_operation",
    "seal_fields",
    "seal_operation",
    "verify_fast",
]

_NS = EPISTREAM_NAMESPACE.bytes
_encode = _canonical.encode
_encode_fields_split = _canonical.encode_fields_split
_encode_model = _canonical.encode_model
_json_data = _canonical.json_data
_derive_id = _canonical.derive_id
model_plan(Operation)  # registers the plans sealing uses (Operation, and the snapshots in it)
_CACHE_LIMIT = 32768
_OP_CACHE_LIMIT = 16384
#: An operation's canonical text without its checksum member, and the offset where that member belongs.
Sealed = tuple[bytes, int]
#: id(op) -> (weak reference to op, its sealed text); a dead reference never matches a new op of the same id.
_op_cache: dict[int, tuple[weakref.ref[Operation], Sealed]] = {}
#: id(model) -> [weak reference to model, canonical bytes]; LRU order. Weak for the reason given
#: in :func:`remember_operation`: superseded node versions are released when nothing holds them.
#: Both caches are shared by the reducer and the threads that store its output (the embedded
#: runner's store thread, the worker's ClickHouse thread): every access is one dict operation,
#: atomic under the GIL, and an entry evicted by the other thread is simply recomputed.
_cache: dict[int, list[Any]] = {}


#: ``fast_derive_id`` for parts that are exact str and int (the engine's own ids), without a Python
#: frame; another type raises TypeError instead of being joined by its str().
derive_engine_id: Callable[..., str] = functools.partial(_canonical.derive_id, _NS)


def fast_derive_id(*parts: str | int) -> str:
    """``schemas.canonical.derive_id``, computed in C for str and int parts (ids are made of those)."""
    try:
        return _derive_id(_NS, *parts)
    except TypeError:  # a part of another type: the reference joins it by its str()
        return derive_id(*parts)


def canonical_bytes(value: Any) -> bytes:
    """UTF-8 of ``schemas.canonical.canonical_json`` — same bytes, written by the C encoder.

    A value the encoder does not take (another type, a dict subclass, a non-finite float, a
    string that is not valid Unicode) goes through the reference, which also raises its errors.
    """
    try:
        return _encode(value)
    except (TypeError, ValueError):
        return canonical_json(value).encode("utf-8")


def canonical_text(value: Any) -> str:
    """``schemas.canonical.canonical_json`` — same text, usually much faster."""
    return canonical_bytes(value).decode("utf-8")


def _snapshot_bytes(model: BaseModel) -> bytes:
    """Canonical JSON of a model: by its plan in C when it has one and its values fit it."""
    if model_plan(type(model)) is not None:
        try:
            return _encode_model(model)
        except (TypeError, ValueError):
            pass  # a value of another type than declared: pydantic decides how it is written
    return canonical_bytes(model_json(model))


# The C sealing path shares both caches (and their formats) with the functions below; a snapshot
# no plan takes is written by _snapshot_bytes.
_OPERATION_FIELDS = shared_fields_set(Operation)
assert _OPERATION_FIELDS is not None, "operations are frozen: their instances share one fields set"
_canonical.configure_sealing(
    Operation, tuple(Operation.model_fields), _OPERATION_FIELDS, _cache, _CACHE_LIMIT,
    _op_cache, _OP_CACHE_LIMIT, _snapshot_bytes,
)
_seal_operation = _canonical.seal_operation
_snapshot_text = _canonical.snapshot_bytes
_remember = _canonical.remember_operation


def model_text(model: MemoryNode | Edge | None) -> str:
    """Canonical JSON of a snapshot, memoised per (immutable) instance."""
    if model is None:
        return "null"
    return model_bytes(model).decode("utf-8")


def encoded_json(model: BaseModel) -> tuple[dict[str, Any], bytes]:
    """``model_json(model)`` and its canonical bytes, both by the class's plan when it has one.

    The reducer makes an extraction result's JSON the payload of its EXTRACTION_VALIDATED
    operation: sealing and the stored operation copy these bytes (see :func:`seal_fields`)
    instead of walking the dict twice. They are not kept for the result itself: a stream
    worker's journal is written by another stage, so such entries would only push node texts
    out of the snapshot cache.
    """
    if model_plan(type(model)) is not None:
        try:
            return _json_data(model), _encode_model(model)
        except (TypeError, ValueError):
            pass  # a value of another type than declared: pydantic decides how it is written
    data = model_json(model)
    return data, canonical_bytes(data)


def seal_fields(fields: dict[str, Any], payload_text: bytes | None = None) -> tuple[str, Sealed | None]:
    """Checksum of the operation these (already typed) fields describe, and its sealed text.

    The C encoder writes the members from ``fields`` by the Operation's plan, each snapshot as
    its cached text. The sealed text (everything but the checksum) and the offset at which the
    checksum member belongs let :func:`operation_bytes` write the stored record later without
    encoding the operation again; see :func:`remember_operation`. A value the encoder does not
    take (bytes, an unknown type) makes the reference seal it. ``payload_text``, when given, is
    the payload's canonical bytes (:func:`encoded_json`).
    """
    before, after, edge = fields["before"], fields["after"], fields["edge"]
    overrides: dict[str, Any] = {
        "before": None if before is None else model_bytes(before),
        "after": None if after is None else model_bytes(after),
        "edge": None if edge is None else model_bytes(edge),
    }
    if payload_text is not None:
        overrides["payload"] = payload_text
    elif type(fields["payload"]) is dict:
        overrides["payload"] = fields["payload"]  # written as json.dumps writes it (tuples as lists)
    try:
        sealed: Sealed = _encode_fields_split(Operation, fields, overrides, "checksum")
    except (TypeError, ValueError):
        return Operation.model_construct(**fields).compute_checksum(), None
    return sha256_hex(sealed[0]), sealed


def seal_operation(fields: dict[str, Any], payload_text: bytes | None = None) -> Operation:
    """The sealed operation these (already typed) fields describe, its text kept for the sinks.

    ``fields`` names every Operation field in declaration order (``checksum`` last-filled) and
    becomes the instance's ``__dict__``. One C call does what the reference below does; values
    it does not take make it raise before ``fields`` changes, and the reference seals them.
    """
    try:
        sealed_op: Operation = _seal_operation(fields, payload_text)
        return sealed_op
    except (TypeError, ValueError):
        pass
    fields["checksum"], sealed = seal_fields(fields, payload_text)
    op = construct(Operation, fields)
    remember_operation(op, sealed)
    return op


def remember_operation(op: Operation, sealed: Sealed | None) -> None:
    """Keep the operation's sealed text so sinks can reuse it (bounded, oldest dropped first).

    The entry holds the operation weakly: an operation nobody stores any more is released at
    once, while it is still warm, instead of when its entry is evicted (holding 16k operations
    with their payloads and snapshots alive cost the reducer ~12% of its time). The cache's
    policy is the C sealer's (``_canonical.remember_operation``), which keeps its entries the same way.
    """
    if sealed is not None:
        _remember(op, *sealed)


def operation_bytes(op: Operation) -> bytes:
    """UTF-8 of ``op.canonical()`` (checksum included): the sealed text with the checksum spliced in."""
    hit = _op_cache.get(id(op))
    if hit is not None and hit[0]() is op:
        text, at = hit[1]
        return b"".join((text[:at], b',"checksum":', _encode(op.checksum), text[at:]))
    return canonical_bytes(model_json(op))


def operation_text(op: Operation) -> str:
    """``op.canonical()``: the operation log's stored record, usually without a new dump."""
    return operation_bytes(op).decode("utf-8")


def verify_fast(op: Operation) -> Operation:
    """``schemas.operations.verify_operation`` at stream speed: the same check, the same error.

    Consumers of ``memory.operations`` verify every operation they read; the reference encoder
    (``json.dumps`` over a full model dump) made that the largest item of the log sink. The text
    is written from the operation's fields by the plan that sealed it; values it does not take
    go through a pydantic dump.
    """
    checksum = op.checksum
    try:
        if type(op) is not Operation:
            raise TypeError("not exactly an Operation")
        text = _encode_fields_split(Operation, op.__dict__, {}, "checksum")[0]
    except (TypeError, ValueError):
        body = model_json(op)
        body.pop("checksum", None)
        text = canonical_bytes(body)
    if not checksum or checksum != sha256_hex(text):
        raise ChecksumMismatch("operation checksum does not match its content", op_id=op.op_id)
    return op


def model_bytes(model: BaseModel) -> bytes:
    """UTF-8 of ``canonical_json(model.model_dump(mode="json"))``, kept per instance (weakly, oldest
    dropped first); a model that takes no weak reference (a ``__slots__`` class) is not kept."""
    return _snapshot_text(model)

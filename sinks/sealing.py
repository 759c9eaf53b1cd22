"""Content sealed under per-event data keys at the storage boundary, so erasure can shred it.

Everything memory stores about what someone said (message text, quotes, claim text, node
snapshots, extraction journals, retrieval queries) is written sealed: AES-SIV (RFC 5297, the
``cryptography`` package) under a 512-bit data key per ``(tenant, owner, unit)``, the unit being the
source event (or the owner as a whole, see ``engine.erasure``). Erasure destroys keys; the log keeps
every record, and each record still verifies, because integrity is checked over the *stored* form:

* an operation's stored record is its canonical JSON with the content-bearing members sealed
  (``before``/``after`` node snapshots keep their ids, types, lifecycle, confidence and times in the
  clear and seal the rest under ``"sealed"``; the payload is sealed whole); the ``operations`` row
  carries ``stored_sha256``, the SHA-256 of those bytes, verifiable without any key, and the record
  keeps the plaintext operation's own ``checksum``, verified after opening while the keys exist;
* why SIV and where its nonce comes from: SIV derives its IV from the key, the associated data and
  the plaintext, so the same content under the same key always seals to the same bytes. A
  redelivered input, a retried insert or a replayed stage writes byte-identical rows (their merge
  keys and ``stored_sha256`` stay stable), and no random nonce can repeat or be lost.
  The associated data names the record's place (node id and version, operation id, event id), so a
  sealed value cannot be moved to another record unnoticed;
* keys live in the ``data_keys`` table of the same database (or server); erasure deletes their rows
  and rewrites the table into a new one, dropping the old one with every part that held them, and records
  the destroyed key ids in ``erased_keys``: a record naming a destroyed key reads as erased, one
  naming a key that was never destroyed and is missing is an integrity error, never silently erased.

The engine never sees keys or ciphertext: it works on plaintext operations, and this module is the
only place that turns them into stored bytes and back.
"""

from __future__ import annotations

import base64
import functools
import itertools
import os
import threading
import uuid
import weakref
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any, Final

import orjson
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESSIV

from engine.canonical_fast import canonical_bytes, model_bytes, operation_bytes, verify_fast
from engine.erasure import ERASED_PAYLOAD, Unit, node_unit, payload_unit
from schemas.errors import IntegrityError, KeyUnavailable
from schemas.nodes import MemoryNode
from schemas.operations import Operation
from sinks.clickhouse_schema import rewrite_table

#: Node fields stored in the clear inside a sealed snapshot: ids, types, states, numbers and times
#: (what the log's analytics and provenance read without keys). Everything else — subject,
#: predicate, object, content, quote and span, condition and its evaluation, speaker name, dates,
#: metadata, signal bookkeeping — is sealed; a field added to MemoryNode later is sealed unless
#: listed here.
CLEAR_NODE_FIELDS: Final = frozenset(
    {
        "tenant_id", "owner_id", "scope", "scope_id", "schema_version", "node_id", "version", "node_type",
        "polarity", "epistemic_type", "source_type", "confidence", "salience", "lifecycle", "decay_profile",
        "condition_state", "temporal_intent", "evidence_refs", "erased_evidence_refs", "asserted_by", "role",
        "session_id", "conversation_id", "valid_from", "valid_to", "recorded_at", "created_at", "updated_at",
        "last_reinforced_at", "superseded_by", "supersedes", "contradicts", "previously_rejected",
        "reinforcement_count", "classification_confidence", "extractor", "grounding_method", "visibility",
    }
)  # fmt: skip
SEALED: Final = "sealed"
KEY_BYTES: Final = 64  # AES-256-SIV


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.b64decode(text.encode("ascii"), validate=True)


class KeyStore:
    """Data keys in ``data_keys``, cached in memory; created on first use of a unit, destroyed by erasure.

    The first use of any unit of an owner loads that owner's keys once (one query), so a key is
    looked up in the table only when the process has not seen the owner yet; a unit still unknown then
    gets a new random key, written before anything sealed under it. Two processes that create a key
    for the same unit at once both store theirs (each sealed value names its key id), so both read.
    """

    def __init__(self, client: Any, database: str) -> None:
        self.client = client
        self.database = database
        self._lock = threading.RLock()
        self._by_unit: dict[Unit, tuple[str, AESSIV]] = {}
        self._by_id: dict[str, AESSIV | None] = {}
        self._owners: set[tuple[str, str]] = set()
        self.created = 0

    def _t(self, table: str) -> str:
        return f"{self.database}.{table}"

    def sealing_keys(self, units: Iterable[Unit]) -> dict[Unit, tuple[str, AESSIV]]:
        """The key of each unit, creating (and storing) the missing ones in one insert."""
        with self._lock:
            wanted = set(units)
            missing = wanted - self._by_unit.keys()
            owners = {(t, o) for t, o, _u in missing} - self._owners
            if owners:
                self._load_owners(owners)
                missing = wanted - self._by_unit.keys()
            if missing:
                now = datetime.now(UTC)
                rows = []
                for tenant, owner, unit in sorted(missing):
                    key = os.urandom(KEY_BYTES)
                    key_id = uuid.uuid4().hex
                    rows.append([key_id, tenant, owner, unit, now, _b64(key)])
                    cipher = AESSIV(key)
                    self._by_unit[(tenant, owner, unit)] = (key_id, cipher)
                    self._by_id[key_id] = cipher
                self.client.insert(
                    self._t("data_keys"), rows,
                    column_names=["key_id", "tenant_id", "owner_id", "unit", "created_at", "key"],
                    settings={"async_insert": 0},
                )  # fmt: skip
                self.created += len(rows)
            return {u: self._by_unit[u] for u in wanted}

    def _load_owners(self, owners: set[tuple[str, str]]) -> None:
        rows = self.client.query(
            f"SELECT key_id, tenant_id, owner_id, unit, key FROM {self._t('data_keys')} FINAL"
            " WHERE (tenant_id, owner_id) IN {owners:Array(Tuple(String, String))} ORDER BY created_at, key_id",
            parameters={"owners": sorted(owners)},
        ).result_rows
        for key_id, tenant, owner, unit, key in rows:
            cipher = AESSIV(_unb64(key))
            self._by_unit[(tenant, owner, unit)] = (key_id, cipher)  # the newest key of a unit seals
            self._by_id[key_id] = cipher
        self._owners |= owners

    def opening_keys(self, key_ids: Iterable[str]) -> dict[str, AESSIV | None]:
        """Each key by id; None for a destroyed key. A key neither held nor destroyed raises."""
        with self._lock:
            wanted = set(key_ids)
            missing = sorted(wanted - self._by_id.keys())
            if missing:
                rows = self.client.query(
                    f"SELECT key_id, key FROM {self._t('data_keys')} FINAL WHERE key_id IN {{ids:Array(String)}}",
                    parameters={"ids": missing},
                ).result_rows
                for key_id, key in rows:
                    self._by_id[key_id] = AESSIV(_unb64(key))
                unknown = sorted(set(missing) - self._by_id.keys())
                if unknown:
                    destroyed = {
                        r[0]
                        for r in self.client.query(
                            f"SELECT key_id FROM {self._t('erased_keys')} WHERE key_id IN {{ids:Array(String)}}",
                            parameters={"ids": unknown},
                        ).result_rows
                    }
                    lost = [k for k in unknown if k not in destroyed]
                    if lost:
                        raise KeyUnavailable(
                            "a sealed record names a data key that is neither held nor erased", key_id=lost[0]
                        )
                    for key_id in destroyed:
                        self._by_id[key_id] = None
            return {k: self._by_id[k] for k in wanted}

    def load_all(self) -> None:
        """Hold every key and every destroyed key id (before a streamed read, which cannot look keys up)."""
        with self._lock:
            for key_id, tenant, owner, unit, key in self.client.query(
                f"SELECT key_id, tenant_id, owner_id, unit, key FROM {self._t('data_keys')} FINAL"
                " ORDER BY created_at, key_id"
            ).result_rows:
                cipher = AESSIV(_unb64(key))
                self._by_unit[(tenant, owner, unit)] = (key_id, cipher)
                self._by_id[key_id] = cipher
                self._owners.add((tenant, owner))
            for (key_id,) in self.client.query(f"SELECT key_id FROM {self._t('erased_keys')}").result_rows:
                self._by_id.setdefault(key_id, None)

    def key_ids(self, tenant: str, owner: str | None = None, units: Sequence[str] | None = None) -> list[str]:
        """Ids of the stored keys of an owner (every unit, or ``units``), or of a tenant's ``units`` of any owner."""
        params: dict[str, Any] = {"tenant": tenant}
        where = ["tenant_id = {tenant:String}"]
        if owner is not None:
            where.append("owner_id = {owner:String}")
            params["owner"] = owner
        if units is not None:
            where.append("unit IN {units:Array(String)}")
            params["units"] = list(units)
        sql = f"SELECT DISTINCT key_id FROM {self._t('data_keys')} FINAL WHERE {' AND '.join(where)}"
        return sorted(r[0] for r in self.client.query(sql, parameters=params).result_rows)

    def unit_key_ids(self, units: Iterable[Unit]) -> list[str]:
        """Ids of the stored keys of these units (grouped by owner: one query per owner)."""
        by_owner: dict[tuple[str, str], list[str]] = {}
        for tenant, owner, unit in units:
            by_owner.setdefault((tenant, owner), []).append(unit)
        found: set[str] = set()
        for (tenant, owner), names in by_owner.items():
            for start in range(0, len(names), 5000):
                found.update(self.key_ids(tenant, owner, names[start : start + 5000]))
        return sorted(found)

    def destroy(self, key_ids: Sequence[str], erasure_id: str) -> int:
        """Delete the keys for good: rows deleted, parts rewritten, the old parts removed; returns how many.

        ``erased_keys`` keeps the destroyed ids (never key material), so a record sealed under one of
        them reads as erased rather than as an integrity error.
        """
        ids = sorted(set(key_ids))
        if not ids:
            return 0
        with self._lock:
            now = datetime.now(UTC)
            self.client.insert(
                self._t("erased_keys"), [[k, erasure_id, now] for k in ids],
                column_names=["key_id", "erasure_id", "erased_at"], settings={"async_insert": 0},
            )  # fmt: skip
            for start in range(0, len(ids), 5000):
                self.client.command(
                    f"ALTER TABLE {self._t('data_keys')} DELETE WHERE key_id IN {{ids:Array(String)}}",
                    parameters={"ids": ids[start : start + 5000]},
                    settings={"mutations_sync": 2},
                )
            rewrite_table(self.client, self.database, "data_keys")  # no old part keeps a destroyed key
            gone = set(ids)
            for unit, (key_id, _c) in list(self._by_unit.items()):
                if key_id in gone:
                    del self._by_unit[unit]
            for key_id in ids:
                self._by_id[key_id] = None
            self._owners.clear()  # an owner's next unit is looked up again (a new key, never an old one)
        return len(ids)

    def forget_cache(self) -> None:
        with self._lock:
            self._by_unit.clear()
            self._by_id.clear()
            self._owners.clear()


class _Cache:
    """Sealed texts of immutable objects (node versions), by object, while the object lives."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._entries: dict[int, tuple[weakref.ref[Any], bytes]] = {}

    def get(self, obj: object) -> bytes | None:
        hit = self._entries.get(id(obj))
        return hit[1] if hit is not None and hit[0]() is obj else None

    def put(self, obj: object, text: bytes) -> None:
        entries = self._entries
        if len(entries) >= self.limit:
            for stale in list(itertools.islice(entries, self.limit // 8)):
                entries.pop(stale, None)
        key = id(obj)
        entries[key] = (weakref.ref(obj, functools.partial(entries.pop, key)), text)

    def clear(self) -> None:
        self._entries.clear()


class Sealer:
    """Turns plaintext records into their stored, sealed form and back (see the module docstring)."""

    def __init__(self, keys: KeyStore) -> None:
        self.keys = keys
        self._nodes = _Cache(32768)

    # ------------------------------------------------------------------ sealing
    def prepare(self, units: Iterable[Unit]) -> None:
        """Make sure every unit has a key (one insert for all new ones) before a batch is sealed."""
        self.keys.sealing_keys(units)

    def _key(self, unit: Unit) -> tuple[str, AESSIV]:
        return self.keys.sealing_keys((unit,))[unit]

    def seal_bytes(self, unit: Unit, plaintext: bytes, place: str) -> dict[str, str]:
        key_id, cipher = self._key(unit)
        return {"c": _b64(cipher.encrypt(plaintext, [place.encode("utf-8")])), SEALED: key_id}

    def seal_text(self, unit: Unit, text: str, place: str) -> tuple[str, str]:
        """``(key id, base64 ciphertext)`` of a column value."""
        sealed = self.seal_bytes(unit, text.encode("utf-8"), place)
        return sealed[SEALED], sealed["c"]

    def node_bytes(self, node: MemoryNode) -> bytes:
        """A node snapshot as stored: canonical JSON, content fields sealed under its event's key."""
        text = self._nodes.get(node)
        if text is None:
            data = orjson.loads(model_bytes(node))
            clear = {k: v for k, v in data.items() if k in CLEAR_NODE_FIELDS}
            secret = {k: v for k, v in data.items() if k not in CLEAR_NODE_FIELDS}
            clear[SEALED] = self.seal_bytes(node_unit(node), canonical_bytes(secret), _node_place(node))
            text = canonical_bytes(clear)
            self._nodes.put(node, text)
        return text

    def operation_record(self, op: Operation) -> bytes:
        """An operation as stored: its canonical record with the snapshots and the payload sealed."""
        unit = payload_unit(op)
        if unit is None and op.before is None and op.after is None:
            return operation_bytes(op)  # an ERASED record: ids and counts only, in the clear
        data = orjson.loads(operation_bytes(op))
        for name in ("before", "after"):
            node = getattr(op, name)
            if node is not None:
                data[name] = orjson.Fragment(self.node_bytes(node))
        if unit is not None:
            data["payload"] = self.seal_bytes(unit, canonical_bytes(data["payload"]), f"payload:{op.op_id}")
        return orjson.dumps(data, option=orjson.OPT_SORT_KEYS)

    # ------------------------------------------------------------------ opening
    def open_bytes(self, sealed: dict[str, Any], place: str) -> bytes | None:
        """The plaintext of a sealed value; None once its key is destroyed."""
        cipher = self.keys.opening_keys((sealed[SEALED],))[sealed[SEALED]]
        if cipher is None:
            return None
        try:
            return cipher.decrypt(_unb64(sealed["c"]), [place.encode("utf-8")])
        except InvalidTag:
            raise IntegrityError("a sealed value does not open under its key", code="seal_mismatch",
                                 place=place) from None  # fmt: skip

    def open_text(self, key_id: str, value: str, place: str) -> str | None:
        """A column value sealed by :meth:`seal_text`; None once erased."""
        plain = self.open_bytes({SEALED: key_id, "c": value}, place)
        return None if plain is None else plain.decode("utf-8")

    def open_node(self, data: dict[str, Any]) -> dict[str, Any] | None:
        """A stored node snapshot (decoded JSON) as plaintext JSON; None when its content is erased."""
        sealed = data.get(SEALED)
        if not isinstance(sealed, dict):
            return data  # written before sealing (the migration re-seals such records)
        clear = {k: v for k, v in data.items() if k != SEALED}
        secret = self.open_bytes(sealed, f"node:{clear.get('node_id')}@{clear.get('version')}")
        if secret is None:
            return None
        return {**clear, **orjson.loads(secret)}

    def load_node(self, raw: bytes | str) -> MemoryNode | None:
        data = self.open_node(orjson.loads(raw))
        return None if data is None else MemoryNode.model_validate(data)

    def load_operation(self, record: bytes) -> Operation:
        """A stored record as the operation it was; erased parts read as ``engine.erasure.as_erased`` says.

        A record whose parts all open is checked against its own (plaintext) checksum: opening gave
        back exactly what was sealed. An erased one can no longer be; its stored bytes are verified
        against ``stored_sha256`` by the reader (no key needed).
        """
        data = orjson.loads(record)
        if not _is_sealed(data):
            raise IntegrityError("not a sealed record", code="not_sealed")
        erased = False
        for name in ("before", "after"):
            part = data.get(name)
            if isinstance(part, dict) and SEALED in part:
                opened = self.open_node(part)
                erased = erased or opened is None
                data[name] = opened
        payload = data.get("payload")
        if isinstance(payload, dict) and _sealed_value(payload):
            plain = self.open_bytes(payload, f"payload:{data.get('op_id')}")
            if plain is None:
                erased = True
                data["payload"] = dict(ERASED_PAYLOAD)
            else:
                data["payload"] = orjson.loads(plain)
        op = Operation.model_validate(data)
        if not erased:
            verify_fast(op)
        return op


def _node_place(node: MemoryNode) -> str:
    return f"node:{node.node_id}@{node.version}"


def _sealed_value(value: dict[str, Any]) -> bool:
    return len(value) == 2 and isinstance(value.get(SEALED), str) and isinstance(value.get("c"), str)


def _is_sealed(data: dict[str, Any]) -> bool:
    """Whether a decoded record is in the sealed form (any part sealed, or an ERASED record)."""
    payload = data.get("payload")
    if isinstance(payload, dict) and _sealed_value(payload):
        return True
    return any(isinstance(data.get(n), dict) and SEALED in data[n] for n in ("before", "after"))

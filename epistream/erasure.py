"""Erasure on request, end to end in one process: the log shredded, every projection purged, a receipt.

The steps, in the order that keeps a crash harmless (each step is safe to run again, and a repeated
request re-runs what is left):

1. the scope is resolved to event ids from ``raw_events`` (ids only, no content is opened);
2. an :class:`~schemas.commands.EraseCommand` goes through the reducer like any command: it appends
   an ``ERASED`` operation (ids and counts, in the clear) and ``EVIDENCE_ERASED`` for the claims of
   other owners that lose a reference, and the live state forgets the nodes, edges and events;
3. the data keys of the erased events (and, for an owner, of the owner) are destroyed: every record
   of the log sealed under them, compressed or not, is now ciphertext without a key;
4. the rows of the inputs and projections (raw events, journals, node snapshots, retrieval receipts,
   dead letters) are deleted and every sealed table's parts rewritten, the old parts removed;
5. the search indexes are purged: the embedded ones are rebuilt from the post-erasure state, so no
   deleted document, vector or interned string is left in a segment waiting for a merge;
6. a verification run (replay of the shredded log against the live state, and a look for anything
   of the scope still readable) and the receipt, stored without any erased content.

The receipt's id is derived from the scope (and how many earlier erasures of it found something), so
a repeated request finds the earlier receipt and changes nothing.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, Final

from engine.erasure import owner_unit, units_of_erasure
from schemas.commands import EraseCommand
from schemas.common import ActorRef
from schemas.enums import ActorType, OpType, Scope
from schemas.erasure import ErasureReceipt, ErasureScope, erase_command_id
from schemas.errors import EpistreamError, RequestIdConflict
from schemas.operations import Operation
from schemas.search import SearchFilter
from sinks.clickhouse_schema import RECEIPTS_TABLE, SEALED_TABLES
from sinks.embedded_index import EmbeddedIndex

if TYPE_CHECKING:
    from epistream.runner import EmbeddedRunner

#: Ids listed per kind in a receipt (``counts`` has the totals).
RECEIPT_IDS: Final = 1000


def erase(
    runner: EmbeddedRunner,
    scope: ErasureScope,
    *,
    requested_by: str,
    request_id: str | None = None,
    now: datetime,
) -> ErasureReceipt:
    """Erase ``scope`` (see the module docstring); a repeated request returns the earlier receipt."""
    log = runner.log
    tenant = scope.tenant_id
    if request_id is not None:
        request_id = str(uuid.UUID(request_id))
        earlier = log.erasures(tenant, request_id=request_id)
        if earlier:
            if earlier[-1].scope != scope:
                raise RequestIdConflict("this request id was used for another erasure scope",
                                        erasure_id=earlier[-1].erasure_id)  # fmt: skip
            return earlier[-1].model_copy(update={"repeated": True})
    events = _scope_events(runner, scope)
    nodes = _scope_nodes(runner, scope, events)
    done = log.erasures(tenant, scope_key=scope.scope_key)
    if done and not events and not nodes:
        return done[-1].model_copy(update={"repeated": True})  # nothing new since: the same receipt
    erasure_id = scope.erasure_id(generation=len(done))

    # 2. the reducer: ERASED (+ EVIDENCE_ERASED), the live state forgets
    subject = scope.owner_id
    router = subject or (events[0][0] if events else nodes[0].owner_id if nodes else None)
    ops: list[Operation] = []
    if router is not None:
        cmd = EraseCommand(
            tenant_id=tenant, owner_id=router, scope=Scope.PERSONAL,
            command_id=erase_command_id(erasure_id, f"{tenant}/{router}/personal"),
            actor=ActorRef(actor_id=requested_by, actor_type=ActorType.HUMAN_USER), issued_at=now,
            erasure_id=erasure_id, kind=scope.kind, subject_owner=subject, speaker_id=scope.speaker_id,
            conversation_id=scope.conversation_id, event_ids=tuple(f"{o}/{e}" for o, e in events),
        )  # fmt: skip
        ops = list(runner.submit(cmd).operations)
    erased_op = next((op for op in ops if op.op_type is OpType.ERASED), None)
    payload: dict[str, Any] = erased_op.payload if erased_op is not None else {}
    erased_nodes = sorted({*_ids(payload.get("nodes")), *(n.node_id for n in nodes)})
    listed = {(o, e) for o, _, e in (r.partition("/") for r in _ids(payload.get("events"))) if e}
    erased_events = sorted(listed | set(events))

    # 3. the keys
    units = set(units_of_erasure(erased_op)) if erased_op is not None else set()
    units |= {(tenant, o, e) for o, e in erased_events}
    key_ids = set(log.keys.unit_key_ids(units))
    if scope.kind == "owner" and subject is not None:
        units.add(owner_unit(tenant, subject))
        key_ids |= set(log.keys.key_ids(tenant, subject))
    destroyed = log.keys.destroy(sorted(key_ids), erasure_id)

    # 4. the rows, and the parts that held them
    letters = log.dead_letters_naming(tenant, [e for _o, e in erased_events] + ([subject] if scope.kind == "owner"
                                                                                 and subject else []))  # fmt: skip
    counts = log.delete_erased_rows(tenant, erased_events, erased_nodes,
                                    owner=subject if scope.kind == "owner" else None,
                                    dead_letter_ids=letters)  # fmt: skip
    log.compact([t for t in SEALED_TABLES if counts.get(t)])

    # 5. the indexes
    index_counts = _purge_indexes(runner, tenant, erased_nodes, erased_events)

    # 6. verification and the receipt
    differences = runner.verify_replay()
    remaining = _remaining(runner, scope, erased_nodes, erased_events)
    remaining += index_counts.get("index:deletes_left_in_segments", 0)
    receipt = ErasureReceipt(
        erasure_id=erasure_id, scope=scope, requested_by=requested_by, request_id=request_id,
        requested_at=now, completed_at=runner.now(),
        counts={
            "data_keys": destroyed,
            **{f"table:{t}": n for t, n in sorted(counts.items())},
            **{f"log:{k}": int(v) for k, v in sorted((payload.get("counts") or {}).items())},
            "log:operations_appended": len(ops),
            **index_counts,
        },
        erased_ids={
            "nodes": erased_nodes[:RECEIPT_IDS],
            "events": [f"{o}/{e}" for o, e in erased_events][:RECEIPT_IDS],
            "edges": _ids(payload.get("edges"))[:RECEIPT_IDS],
        },
        verification={"replay_differences": len(differences), "remaining": remaining,
                      "passed": not differences and remaining == 0},
    )  # fmt: skip
    log.write_erasure(receipt)
    return receipt


def _ids(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _scope_events(runner: EmbeddedRunner, scope: ErasureScope) -> list[tuple[str, str]]:
    """``(owner, event id)`` of the stored events the scope names, and of the events the live state
    still knows for it (an event whose raw row went but whose extraction was journaled)."""
    log = runner.log
    found = set(log.owner_events(scope.tenant_id, scope.owner_id, conversation=scope.conversation_id,
                                 speaker=scope.speaker_id, event=scope.event_id))  # fmt: skip
    if scope.kind == "owner":
        found |= {(o, e) for (t, o, e), _seen in runner.store.iter_events()
                  if t == scope.tenant_id and o == scope.owner_id}  # fmt: skip
    return sorted(found)


def _scope_nodes(runner: EmbeddedRunner, scope: ErasureScope, events: Sequence[tuple[str, str]]) -> list[Any]:
    """Live nodes the scope reaches beyond its events' (an owner's all; a speaker's asserted ones)."""
    store = runner.store
    if scope.kind == "owner" and scope.owner_id is not None:
        return store.owner_nodes(scope.tenant_id, scope.owner_id)
    if scope.kind == "speaker":
        return [n for n in store.iter_nodes()
                if n.tenant_id == scope.tenant_id and n.asserted_by.actor_id == scope.speaker_id]  # fmt: skip
    if scope.kind == "conversation" and scope.owner_id is not None:
        return [n for n in store.owner_nodes(scope.tenant_id, scope.owner_id)
                if n.conversation_id == scope.conversation_id]  # fmt: skip
    held = {e for _o, e in events}
    if scope.owner_id is None:
        return []
    return [n for n in store.owner_nodes(scope.tenant_id, scope.owner_id) if n.evidence_refs and
            n.evidence_refs[0] in held]  # fmt: skip


def _purge_indexes(
    runner: EmbeddedRunner, tenant: str, nodes: Sequence[str], events: Sequence[tuple[str, str]]
) -> dict[str, int]:
    """Remove the erased documents for good; returns how many each index held.

    The embedded indexes are rebuilt from the post-erasure state: tantivy marks deleted documents and
    keeps their bytes until a merge, and the vector files and interned strings keep rows by position,
    so rebuilding is what leaves no byte of an erased document behind. It costs one re-embedding of
    what memory holds (see docs/erasure.md).
    """
    claims = len(runner.index.get(list(nodes))) if nodes else 0
    excerpt_ids = _excerpt_ids(runner.excerpts, tenant, events)
    said = len(excerpt_ids)
    if isinstance(runner.index, EmbeddedIndex) and isinstance(runner.excerpts, EmbeddedIndex):
        runner.rebuild_indexes()
        return {"index:claims": claims, "index:excerpts": said}
    # OpenSearch: the excerpts that quoted an erased message as context are written again without it (a
    # newer version), then the erased documents deleted and the segments merged away (OpenSearchIndex.purge)
    _reindex_neighbours(runner, tenant, events)
    pending = 0
    for index, ids in ((runner.index, list(nodes)), (runner.excerpts, excerpt_ids)):
        purge = getattr(index, "purge", None)
        if purge is None:
            raise EpistreamError("this index cannot purge erased documents", code="index_cannot_purge")
        if ids:
            pending += purge(ids)[1]
    return {"index:claims": claims, "index:excerpts": said, "index:deletes_left_in_segments": pending}


def _reindex_neighbours(runner: EmbeddedRunner, tenant: str, events: Sequence[tuple[str, str]]) -> int:
    """Write again the surviving excerpts of the owners reached whose context turns changed; returns how many.

    An excerpt carries the turns before it (``Excerpt.context``), so the message after an erased one
    quoted it. The embedded indexes are rebuilt whole; a shared OpenSearch index gets those excerpts
    again, built from the events that remain, at a version above the one it holds.
    """
    from streams.agents import excerpt_documents

    owners = {o for o, _e in events}
    holder = getattr(runner.excerpts, "owner_nodes", None)
    if not owners or holder is None:
        return 0
    held = {n.node_id: n for o in sorted(owners) for n in holder(tenant_id=tenant, owner_id=o)}
    changed = []
    for doc in excerpt_documents(runner.log, runner.settings.excerpt_context_turns):
        if doc.tenant_id != tenant or doc.owner_id not in owners:
            continue
        old = held.get(doc.node_id)
        if old is not None and old.metadata.get("context") != doc.metadata.get("context"):
            changed.append(doc.model_copy(update={"version": old.version + 1}))
    if changed:
        runner.excerpts.upsert(changed)
        runner.excerpts.commit()
    return len(changed)


def _excerpt_ids(index: Any, tenant: str, events: Sequence[tuple[str, str]]) -> list[str]:
    """Ids of the excerpt documents of these events in ``index`` (an excerpt cites its event as evidence;
    its id also names the event's stream, which the erasure need not know)."""
    by_owner: dict[str, list[str]] = {}
    for o, e in events:
        by_owner.setdefault(o, []).append(e)
    found: list[str] = []
    for owner, ids in sorted(by_owner.items()):
        flt = SearchFilter(tenant_id=tenant, owner_id=owner)
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            found += [n.node_id for n in index.cited(chunk, flt, limit=10 * len(chunk))]
    return sorted(set(found))


def _remaining(runner: EmbeddedRunner, scope: ErasureScope, nodes: Sequence[str],
               events: Sequence[tuple[str, str]]) -> int:  # fmt: skip
    """What of the scope is still readable after the erasure (0 expected): nodes live or indexed, events
    stored or indexed, an owner's keys and receipts."""
    tenant = scope.tenant_id
    log = runner.log
    left = sum(1 for n in nodes if runner.store.get_node(n) is not None)
    left += len(runner.index.get(list(nodes))) if nodes else 0
    left += len(log.owner_events(tenant, scope.owner_id, conversation=scope.conversation_id,
                                 speaker=scope.speaker_id, event=scope.event_id))  # fmt: skip
    by_owner: dict[str, list[str]] = {}
    for o, e in events:
        by_owner.setdefault(o, []).append(e)
    for o, ids in by_owner.items():
        left += len(log.get_events(ids, tenant, o))
    left += len(_excerpt_ids(runner.excerpts, tenant, events))
    if scope.kind == "owner" and scope.owner_id is not None:
        left += len(log.keys.key_ids(tenant, scope.owner_id))
        left += int(log.client.command(
            f"SELECT count() FROM {log.database}.{RECEIPTS_TABLE} WHERE tenant_id = {{t:String}}"
            " AND owner_id = {o:String}", parameters={"t": tenant, "o": scope.owner_id}))  # fmt: skip
    return left

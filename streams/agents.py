"""The agent steps, shared by the embedded runner and the faust app.

Each function is one stage of the flow in ARCHITECTURE.md. They hold no
business rules (those live in ``engine/`` and ``extractors/``) and no I/O: the
embedded runner and the Kafka agents call exactly these, so behaviour tested
in-process holds on Kafka.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict, deque
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Final

from engine.event_identity import event_status
from engine.reducer import Reducer
from engine.results import ApplyResult
from engine.store import StateStore
from extractors.base import Extractor
from extractors.dates import event_dates, local_time
from extractors.secrets import mask
from extractors.secrets.admission import mask_bytes, mask_command, mask_event
from schemas.claims import EventRef, ExtractionResult
from schemas.commands import CommandBase
from schemas.common import ScopeRef
from schemas.errors import EventIdConflict, InvalidEvent
from schemas.events import DEFAULT_MAX_CONTENT_BYTES, ConversationEvent, TimeBounds, parse_event
from schemas.excerpts import Excerpt, excerpt_id_for
from schemas.nodes import MemoryNode
from schemas.operations import Operation
from schemas.records import DeadLetter
from schemas.visibility import may_find_by, visibility_of
from sinks.documents import excerpt_document

if TYPE_CHECKING:
    from sinks.clickhouse import OperationLog

#: Reason code of a Kafka input whose record key is not its own ``tenant/owner/scope``.
KEY_MISMATCH: Final = "partition_key_mismatch"
#: A record without a key: nothing routed it to its owner's partition (publish through
#: ``epistream publish`` / the API, or key it ``tenant/owner/scope``).
MISSING_KEY: Final = "missing_key"
#: A record without a value (a Kafka tombstone): not an empty event (``empty_event``), not an input.
NULL_VALUE: Final = "null_value"


@dataclass(frozen=True)
class Rejected:
    """An input that failed admission; becomes a dead letter."""

    letter: DeadLetter


def admit(
    raw: bytes,
    *,
    source: str,
    received_at: datetime,
    partition: int | None = None,
    offset: int | None = None,
    max_content_bytes: int = DEFAULT_MAX_CONTENT_BYTES,
    bounds: TimeBounds | None = None,
    stamp: bool = False,
) -> ConversationEvent | Rejected:
    """Parse raw bytes into a masked event, or a dead letter carrying the masked bytes.

    The one masking pass of admission (:func:`extractors.secrets.admission.mask_event`) runs here,
    before anything is stored or extracted. ``stamp`` makes ``received_at`` the event's knowledge
    time whatever the event says (the receiving component's time: a Kafka record's, which is the
    same on a redelivery); otherwise it is only used for the dead letter and to check ``bounds``.
    """
    try:
        event = mask_event(parse_event(raw, max_content_bytes=max_content_bytes))
        if stamp:
            event = event.model_copy(update={"received_at": received_at})
        if bounds is not None:
            bounds.check(event, received_at)
        return event
    except InvalidEvent as exc:
        return Rejected(
            dead_letter(
                raw,
                source=source,
                partition=partition,
                offset=offset,
                reason_code=exc.code,
                message=exc.message,
                received_at=received_at,
            )
        )


def dead_letter(
    raw: bytes,
    *,
    source: str,
    reason_code: str,
    message: str,
    received_at: datetime,
    partition: int | None = None,
    offset: int | None = None,
) -> DeadLetter:
    """The dead letter of refused input: its bytes masked (and capped), the original's digest and
    length, and where to re-read the original (topic/partition/offset, or file/line)."""
    return DeadLetter(
        source=source,
        partition=partition,
        offset=offset,
        reason_code=reason_code,
        message=mask(message)[0][:4000],
        masked_bytes=mask_bytes(raw),
        original_sha256=hashlib.sha256(raw).hexdigest(),
        original_length=len(raw),
        received_at=received_at,
    )


def admit_event(event: ConversationEvent) -> ConversationEvent:
    """Admission for an event already validated (the API, ``ingest_events``): the masking pass."""
    return mask_event(event)


def keyed_correctly(key: bytes | None, scope: ScopeRef) -> bool:
    """Whether a Kafka record's key is its input's own ``tenant/owner/scope``.

    The partition is chosen from the key, and materialize is the single writer of an owner's
    state only because every input of that owner and scope lands on one partition. A record a
    producer keyed otherwise (or not at all) would be reduced against another partition's state:
    no contradiction or supersedence with the owner's other claims, nodes that commands (routed
    by the right key) can never reach, a request id answered on two partitions. Such records are
    dead-lettered; ``dlq replay`` re-publishes them through the publisher, which keys them right.
    """
    return key is not None and key == scope.partition_key.encode("utf-8")


def extract(extractor: Extractor, event: ConversationEvent) -> ExtractionResult:
    """Run an extractor; an unexpected crash becomes a failed result, never a lost event."""
    try:
        return extractor.extract(event)
    except Exception as exc:  # any extractor bug must not lose the event
        return ExtractionResult(
            event=EventRef.of(event),
            extractor=getattr(extractor, "name", type(extractor).__name__),
            extractor_version=getattr(extractor, "version", "unknown"),
            grounding_policy_version="unknown",
            source_hash=event.content_sha256,
            status="failed",
            error_category=f"extractor_crash:{type(exc).__name__}",
        )


def materialize(store: StateStore, reducer: Reducer, item: ExtractionResult | CommandBase) -> ApplyResult:
    """The single writer of epistemic state for one partition key (a command's free text masked first)."""
    if isinstance(item, CommandBase):
        item = mask_command(item)
    return reducer.apply(store, item)


def latest_nodes(operations: Iterable[Operation]) -> list[MemoryNode]:
    """The newest snapshot of every node the operations touched, in first-touch order."""
    latest: dict[str, MemoryNode] = {}
    for op in operations:
        if op.after is not None:
            current = latest.get(op.after.node_id)
            if current is None or op.after.version >= current.version:
                latest[op.after.node_id] = op.after
    return list(latest.values())


class ConversationContext:
    """The last turns of each session, so an excerpt can carry what it answers (``Excerpt.context``).

    Events are taken in the order given (a log rebuild gives them in time order per session); only
    the last ``sessions`` sessions are remembered, the least recently spoken in forgotten first.
    """

    def __init__(self, turns: int = 2, sessions: int = 10_000) -> None:
        self.turns = turns
        self.sessions = sessions
        self._recent: OrderedDict[tuple[str, ...], deque[tuple[str, str]]] = OrderedDict()

    def excerpt(self, event: ConversationEvent) -> Excerpt:
        """The excerpt of ``event`` with the turns before it; ``event`` becomes the last turn of its session."""
        session = event.session_id or event.conversation_id
        if session is None or self.turns < 1:
            return excerpt_for(event)
        key = (event.tenant_id, event.owner_id, event.scope.value, event.scope_id or "", session)
        recent = self._recent.pop(key, None) or deque(maxlen=self.turns)
        excerpt = excerpt_for(event, context=tuple(t for v, t in recent if may_find_by(v, event.visibility)))
        recent.append((visibility_of(event.visibility), f"{event.speaker}: {excerpt.text}" if event.speaker
                       else excerpt.text))  # fmt: skip
        self._recent[key] = recent
        while len(self._recent) > self.sessions:
            self._recent.popitem(last=False)
        return excerpt


def excerpt_for(event: ConversationEvent, *, context: tuple[str, ...] = ()) -> Excerpt:
    """The excerpt of an admitted event: its text (with captions), speaker, times, and the dates it names.

    Admission masked the event's every text already, so the excerpt holds no secret.
    """
    text = event.text
    return Excerpt(
        tenant_id=event.tenant_id,
        owner_id=event.owner_id,
        scope=event.scope,
        scope_id=event.scope_id,
        excerpt_id=excerpt_id_for(event, event.event_id),
        event_id=event.event_id,
        conversation_id=event.conversation_id,
        session_id=event.session_id,
        role=event.role,
        speaker=event.speaker,
        speaker_id=event.speaker_id,
        text=text,
        occurred_at=event.occurred_at,
        recorded_at=event.recorded_at,
        event_dates=event_dates(text, local_time(event.occurred_at, event.utc_offset_minutes)),
        context=context,
        visibility=event.visibility,
    )


def masked_content(text: str) -> str:
    """Text as the pipeline stores it (a retrieval query, an error message): secrets masked."""
    return mask(text)[0]


@dataclass(slots=True)
class SortedEvents:
    """A batch split by :func:`engine.event_identity.event_status`: what to reduce, what was seen."""

    fresh: list[ConversationEvent]
    duplicates: int
    #: Reused ids with other content: refused with ``event_id_conflict``, kept as dead letters.
    conflicts: list[ConversationEvent]


def sort_events(events: Sequence[ConversationEvent], store: StateStore) -> SortedEvents:
    """Drop redeliveries (of the log or within the batch) and set apart reused ids, per stream."""
    batch: dict[tuple[str, str], str] = {}
    out = SortedEvents([], 0, [])
    for event in events:
        key, digest = (event.partition_key, event.event_id), event.content_sha256
        held = batch.get(key)
        status = ("duplicate" if held == digest else "conflict") if held is not None else (
            event_status(store, event, event.event_id, digest)[0]
        )  # fmt: skip
        if status == "new":
            batch[key] = digest
            out.fresh.append(event)
        elif status == "duplicate":
            out.duplicates += 1
        else:
            out.conflicts.append(event)
    return out


def excerpt_documents(log: OperationLog, turns: int) -> Iterator[MemoryNode]:
    """The excerpt document of every stored event, each session read in time order (its turns before it).

    (It reads the log it is handed, and only that: rebuild-index, the runner and ``epistream repair``
    share it.)"""
    context = ConversationContext(turns, sessions=1)  # sessions come one after the other
    for stored in log.stream_events(by_session=True):
        yield excerpt_document(context.excerpt(stored.as_event()))


def conflict_letter(event: ConversationEvent, received_at: datetime, source: str = "admission") -> DeadLetter:
    """The dead letter of a reused event id (its content masked, as admission left it)."""
    return dead_letter(
        event.model_dump_json().encode("utf-8"),
        source=source,
        reason_code=EventIdConflict.code,
        message=f"event id {event.event_id!r} was used in this stream for different content",
        received_at=received_at,
    )

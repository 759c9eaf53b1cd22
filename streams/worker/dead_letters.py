"""Dead letters: records a stage cannot process, sent to a DLQ topic with why, and stored in ClickHouse.

A dead-letter record's value is the input's bytes with every secret masked (capped at 64 KiB);
its headers carry the original's SHA-256 and length, and say where it came from and why it
was refused (:func:`letter_headers`, read back by :func:`letter_from_record`). Every dead letter of
a stage passes :meth:`DeadLetters.counted`, so the metrics count each one once. The
``oplog_dead_letters`` agent reads every DLQ topic into ClickHouse's dead-letter table, keyed by
source topic/partition/offset, so a redelivered dead letter is stored once.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from schemas.records import MAX_DEAD_LETTER_BYTES, DeadLetter
from streams import agents
from streams import topics as tn
from streams.worker import acks
from streams.worker.clickhouse_log import ClickHouseLog
from streams.worker.context import WorkerContext
from streams.worker.timestamps import received_at

if TYPE_CHECKING:
    from faust.types import TopicT

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

KEY_MISMATCH_MESSAGE = "the record key is not the input's tenant/owner/scope (see streams.agents.keyed_correctly)"
MISSING_KEY_MESSAGE = "the record has no key; input records are keyed tenant/owner/scope (epistream publish does it)"
NULL_VALUE_MESSAGE = "the record has no value (a tombstone); an input record holds one JSON event or command"


def unroutable(raw: bytes | None, msg: Any) -> DeadLetter | None:
    """The dead letter of an input record that has no value or no key, before it is parsed at all."""
    if raw is None:
        return bad_record(b"", msg, agents.NULL_VALUE, NULL_VALUE_MESSAGE)
    if msg.key is None:
        return bad_record(raw, msg, agents.MISSING_KEY, MISSING_KEY_MESSAGE)
    return None


def letter_headers(letter: DeadLetter) -> list[tuple[str, bytes]]:
    return [
        (tn.H_REASON, letter.reason_code.encode()),
        (tn.H_SOURCE, letter.source.encode()),
        (tn.H_PARTITION, str(letter.partition if letter.partition is not None else -1).encode()),
        (tn.H_OFFSET, str(letter.offset if letter.offset is not None else -1).encode()),
        (tn.H_MESSAGE, letter.message.encode("utf-8")),
        (tn.H_RECEIVED, letter.received_at.isoformat().encode()),
        (tn.H_SHA256, letter.original_sha256.encode()),
        (tn.H_LENGTH, str(letter.original_length).encode()),
    ]


def letter_from_record(value: bytes, headers: Iterable[tuple[str, bytes]] | dict[str, bytes] | None) -> DeadLetter:
    """Rebuild a :class:`DeadLetter` from a DLQ record (value = masked bytes).

    A record written before the digest headers existed holds its original bytes: they are
    digested and masked here, so the table never stores them either.
    """
    items = headers.items() if isinstance(headers, dict) else (headers or [])
    h = {k: (v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v)) for k, v in items}
    partition = int(h.get(tn.H_PARTITION, "-1"))
    offset = int(h.get(tn.H_OFFSET, "-1"))
    received = datetime.fromisoformat(h[tn.H_RECEIVED]) if tn.H_RECEIVED in h else _EPOCH
    source = h.get(tn.H_SOURCE, "unknown")
    reason, message = h.get(tn.H_REASON, "unknown"), h.get(tn.H_MESSAGE, "")
    part, off = (None if partition < 0 else partition), (None if offset < 0 else offset)
    if tn.H_SHA256 not in h:
        return agents.dead_letter(
            value or b"", source=source, partition=part, offset=off, reason_code=reason, message=message,
            received_at=received,
        )
    return DeadLetter(
        source=source,
        partition=part,
        offset=off,
        reason_code=reason,
        message=message,
        masked_bytes=(value or b"")[:MAX_DEAD_LETTER_BYTES],
        original_sha256=h[tn.H_SHA256],
        original_length=int(h.get(tn.H_LENGTH, str(len(value or b"")))),
        received_at=received,
    )


def bad_record(raw: bytes, msg: Any, code: str, message: str) -> DeadLetter:
    """The dead letter of a consumed record (``msg``: faust's message, for its topic/partition/offset)."""
    return agents.dead_letter(
        raw or b"",
        source=msg.topic,
        partition=msg.partition,
        offset=msg.offset,
        reason_code=code,
        message=message,
        received_at=received_at(msg.timestamp),
    )


class DeadLetters:
    """Sends dead letters to their DLQ topic, and stores what the DLQ topics hold (the ``oplog_dead_letters`` agent)."""

    def __init__(self, ctx: WorkerContext, clickhouse: ClickHouseLog) -> None:
        self.ctx = ctx
        self.clickhouse = clickhouse

    def counted(self, letter: DeadLetter, stage: str) -> DeadLetter:
        """Every dead letter passes here on its way out, so the metrics count each one once."""
        self.ctx.metrics.inc("epistream_dead_letters_total", stage=stage, reason=letter.reason_code)
        return letter

    async def send(self, letter: DeadLetter, key: bytes | None, target: TopicT, stage: str) -> None:
        self.counted(letter, stage)
        await target.send(key=key, value=letter.masked_bytes, headers=letter_headers(letter))

    async def store(self, letters: list[DeadLetter]) -> None:
        """Into ClickHouse's dead-letter table (awaited: the batch is acked only after the write)."""
        await self.clickhouse.write(self.clickhouse.write_dead_letters, letters)

    async def oplog_dead_letters(self, stream: Any) -> None:
        opts = self.ctx.options
        async for batch in stream.take_events(opts.sink_batch, within=opts.sink_within_s):
            with acks.unless_done(batch):  # a stop while ClickHouse is down must not commit unstored letters
                letters = [letter_from_record(ev.value or b"", ev.message.headers) for ev in batch]
                if letters:
                    await self.store(letters)

"""Publishing conversation events and commands to Kafka, for chat platforms.

A chat platform needs three guarantees from its publisher, and this module gives
exactly those:

* **Nothing invalid enters the topic.** Every event goes through
  :func:`schemas.events.parse_event` (the same gate the workers and the HTTP
  API use) before it is sent; a bad line is reported with its line number and a
  stable reason code and is *not* sent. (The workers still dead-letter anything
  invalid that other producers write.)
* **Per-owner order.** The record key is ``tenant/owner/scope``, so all messages
  of one memory owner and scope land on one partition in publish order.
* **No duplicates from retries.** The producer is idempotent (``acks=all``,
  ``enable_idempotence=True``): a broker-side retry cannot write a record twice.
  Re-publishing the same ``event_id`` deliberately is also safe: the pipeline
  treats ``event_id`` as the idempotency key.

Usage::

    report = publish_lines(open("events.jsonl", "rb"), "127.0.0.1:9092", "conversation.events")
    for err in report.errors:
        print(err.line, err.code, err.message)

or, inside an asyncio program::

    async with EventPublisher("127.0.0.1:9092", "conversation.events") as pub:
        await pub.publish(event_dict_or_json)

The original bytes of each line are sent unchanged (not re-serialized), so what
the platform published is exactly what ClickHouse's raw-event store and the
dead-letter queue would show.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from extractors.secrets.admission import mask_event
from schemas.commands import CommandBase, parse_command
from schemas.errors import InvalidCommand, InvalidEvent
from schemas.events import DEFAULT_MAX_CONTENT_BYTES, ConversationEvent, parse_event
from streams.kafka_errors import kafka_client, started, unavailable

#: Records sent but not yet acknowledged that ``publish_lines`` holds before it waits for the
#: oldest: a file of any length is published in bounded memory.
MAX_IN_FLIGHT = 10_000


@dataclass(frozen=True)
class LineError:
    """Why one input line was not published (no message content, only the code and field)."""

    line: int
    code: str
    message: str


@dataclass
class PublishReport:
    sent: int = 0
    skipped_blank: int = 0
    errors: list[LineError] = field(default_factory=list)
    #: (partition, offset, timestamp_ms) per sent record, in send order.
    records: list[tuple[int, int, int]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors

    def to_dict(self) -> dict[str, Any]:
        return {
            "sent": self.sent,
            "skipped_blank": self.skipped_blank,
            "errors": [{"line": e.line, "code": e.code, "message": e.message} for e in self.errors],
        }


#: RecordMetadata.timestamp_type of a topic whose broker stamps records (``LogAppendTime``).
LOG_APPEND_TIME = 1


async def _with_timestamp(fut: Any, timestamp_ms: int) -> tuple[Any, int]:
    """The record's timestamp as consumers will read it: the broker's when the topic stamps records
    (the events topic does, so a caller cannot date its own receipt), else the one we set."""
    metadata = await fut
    if getattr(metadata, "timestamp_type", None) == LOG_APPEND_TIME and metadata.timestamp is not None:
        return metadata, int(metadata.timestamp)
    return metadata, timestamp_ms


def _as_bytes(item: bytes | str | dict[str, Any] | ConversationEvent) -> bytes:
    if isinstance(item, ConversationEvent):
        return item.model_dump_json(exclude_none=True).encode("utf-8")
    if isinstance(item, dict):
        return json.dumps(item, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    if isinstance(item, str):
        return item.encode("utf-8", "surrogatepass")
    return item


def idempotent_producer(bootstrap: str, **kwargs: Any) -> Any:
    """An aiokafka producer with idempotence and ``acks=all``: what every epistream writer to Kafka uses."""
    from aiokafka import AIOKafkaProducer

    return AIOKafkaProducer(
        bootstrap_servers=bootstrap,
        enable_idempotence=True,
        acks="all",
        linger_ms=kwargs.pop("linger_ms", 5),
        max_batch_size=kwargs.pop("max_batch_size", 256 * 1024),
        **kwargs,
    )


class EventPublisher:
    """Validating, idempotent, keyed publisher of conversation events (asyncio)."""

    def __init__(
        self,
        bootstrap: str,
        topic: str = "conversation.events",
        *,
        max_content_bytes: int = DEFAULT_MAX_CONTENT_BYTES,
        **producer_kwargs: Any,
    ) -> None:
        self.topic = topic
        self.max_content_bytes = max_content_bytes
        self._producer = idempotent_producer(bootstrap, **producer_kwargs)

    async def start(self) -> None:
        """Connect; an unreachable broker raises ``BackendUnavailable`` (and leaves nothing open)."""
        await started(self._producer)

    async def stop(self) -> None:
        await self._producer.stop()

    async def __aenter__(self) -> EventPublisher:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    def validate(self, item: bytes | str | dict[str, Any] | ConversationEvent) -> tuple[ConversationEvent, bytes]:
        """Raise :class:`InvalidEvent` (with a stable code) or return the event and the bytes to send.

        The bytes are masked: a record this publisher writes never holds a secret (the workers mask
        again at admission, which changes nothing then). An event without one is sent byte for byte;
        one with a secret is sent as its masked JSON, with ``source_sha256`` the original content's
        digest, so the workers' idempotency and audit see the message as it was sent.
        """
        raw = _as_bytes(item)
        event = parse_event(raw, max_content_bytes=self.max_content_bytes)
        masked = mask_event(event)
        if masked is event:
            return event, raw
        return masked, masked.model_dump_json(exclude_none=True).encode("utf-8")

    async def send(self, item: bytes | str | dict[str, Any] | ConversationEvent) -> asyncio.Future[Any]:
        """Validate and enqueue; the future resolves to ``(metadata, timestamp_ms)`` once acknowledged.

        The record timestamp is set here, per record; on a topic with ``LogAppendTime`` (the events
        topic) the broker replaces it with its own, which the workers use as ``received_at``.
        """
        event, raw = self.validate(item)
        timestamp_ms = int(time.time() * 1000)
        fut = await self._producer.send(
            self.topic, raw, key=event.partition_key.encode("utf-8"), timestamp_ms=timestamp_ms
        )
        return asyncio.ensure_future(_with_timestamp(fut, timestamp_ms))

    async def publish(self, item: bytes | str | dict[str, Any] | ConversationEvent) -> Any:
        """Validate, send and wait for the acknowledgement (RecordMetadata)."""
        md, _ = await (await self.send(item))
        return md

    async def publish_lines(self, lines: Iterable[bytes | str]) -> PublishReport:
        """Publish JSON lines; invalid lines are reported (1-based line numbers) and skipped.

        If Kafka fails part-way, ``BackendUnavailable`` says how many events were acknowledged
        before it (``details["acknowledged"]``): publishing the same lines again is safe, because
        the pipeline treats ``event_id`` as the idempotency key.
        """
        from aiokafka.errors import KafkaError

        report = PublishReport()
        pending: deque[asyncio.Future[Any]] = deque()
        try:
            for number, line in enumerate(lines, start=1):
                raw = line if isinstance(line, bytes) else line.encode("utf-8", "surrogatepass")
                raw = raw.rstrip(b"\r\n")
                if not raw.strip():
                    report.skipped_blank += 1
                    continue
                try:
                    pending.append(await self.send(raw))
                except InvalidEvent as exc:
                    report.errors.append(LineError(number, exc.code, exc.message))
                if len(pending) >= MAX_IN_FLIGHT:
                    await _acknowledged(pending.popleft(), report)
            while pending:
                await _acknowledged(pending.popleft(), report)
        except KafkaError as exc:
            for fut in pending:  # their outcome no longer matters; don't leave them unobserved
                fut.cancel()
            raise unavailable(exc, "publishing", acknowledged=report.sent, refused_lines=len(report.errors)) from exc
        return report


async def _acknowledged(fut: asyncio.Future[Any], report: PublishReport) -> None:
    md, timestamp_ms = await fut
    report.records.append((md.partition, md.offset, timestamp_ms))
    report.sent += 1


async def publish_lines_async(
    lines: Iterable[bytes | str],
    bootstrap: str,
    topic: str = "conversation.events",
    *,
    max_content_bytes: int = DEFAULT_MAX_CONTENT_BYTES,
) -> PublishReport:
    async with EventPublisher(bootstrap, topic, max_content_bytes=max_content_bytes) as pub:
        return await pub.publish_lines(lines)


def publish_lines(
    lines: Iterable[bytes | str],
    bootstrap: str,
    topic: str = "conversation.events",
    *,
    max_content_bytes: int = DEFAULT_MAX_CONTENT_BYTES,
) -> PublishReport:
    """Blocking helper for scripts and the ``epistream publish`` command."""
    return asyncio.run(publish_lines_async(lines, bootstrap, topic, max_content_bytes=max_content_bytes))


def command_bytes(command: CommandBase | dict[str, Any] | bytes | str) -> tuple[CommandBase, bytes]:
    """The validated command and the bytes published for it (``invalid_command`` when it is not one)."""
    if isinstance(command, CommandBase):
        return command, command.model_dump_json(exclude_none=True).encode("utf-8")
    raw = _as_bytes(command)
    try:
        parsed = parse_command(raw)
    except ValueError as exc:  # pydantic ValidationError is a ValueError
        raise InvalidCommand("command does not match the command schema", code="invalid_command") from exc
    return parsed, raw


async def publish_command_async(
    command: CommandBase | dict[str, Any] | bytes | str,
    bootstrap: str,
    topic: str = "memory.commands",
) -> tuple[int, int]:
    """Validate and publish one command keyed by its owner/scope; returns (partition, offset)."""
    parsed, raw = command_bytes(command)
    async with kafka_client(idempotent_producer(bootstrap), "publishing a command") as producer:
        md = await producer.send_and_wait(topic, raw, key=parsed.partition_key.encode("utf-8"))
    return md.partition, md.offset


def publish_command(
    command: CommandBase | dict[str, Any] | bytes | str,
    bootstrap: str,
    topic: str = "memory.commands",
) -> tuple[int, int]:
    """Blocking variant of :func:`publish_command_async` (assistants, the API, operators)."""
    return asyncio.run(publish_command_async(command, bootstrap, topic))

"""Admission of conversation events: every bad input gets its stable code."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schemas import ConversationEvent, EventCodes, Role, Scope, parse_event
from schemas.errors import InvalidEvent


def _event(**over: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "event_id": "evt-1",
        "tenant_id": "acme",
        "owner_id": "alice",
        "scope": "personal",
        "role": "user",
        "content": "I live in Berlin.",
        "occurred_at": "2026-03-01T10:00:00+01:00",
    }
    base.update(over)
    return base


def _code(raw: bytes | str, **kw: Any) -> str:
    with pytest.raises(InvalidEvent) as info:
        parse_event(raw, **kw)
    return info.value.code


def test_valid_event_normalises_time_to_utc_and_builds_partition_key() -> None:
    event = parse_event(json.dumps(_event(scope="project", scope_id="apollo")))
    assert event.occurred_at == datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
    assert event.occurred_at.utcoffset() == timedelta(0)
    assert event.partition_key == "acme/alice/project:apollo"
    assert event.scope is Scope.PROJECT
    assert event.role is Role.USER


def test_recorded_at_prefers_received_at() -> None:
    event = parse_event(json.dumps(_event(received_at="2026-03-02T00:00:00Z")))
    assert event.recorded_at == datetime(2026, 3, 2, tzinfo=UTC)
    assert parse_event(json.dumps(_event())).recorded_at == event.occurred_at


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        (b"\xff\xfe{", EventCodes.INVALID_UTF8),
        (b'{"event_id": ', EventCodes.INVALID_JSON),
        (b"[1, 2]", EventCodes.NOT_AN_OBJECT),
        (json.dumps(_event(occurred_at="2026-03-01T10:00:00")), EventCodes.NAIVE_TIMESTAMP),
        (json.dumps(_event(occurred_at="yesterday")), EventCodes.INVALID_TIMESTAMP),
        (json.dumps(_event(role="robot")), EventCodes.UNKNOWN_ROLE),
        (json.dumps(_event(scope="galaxy")), EventCodes.UNKNOWN_SCOPE),
        (json.dumps(_event(event_id="")), EventCodes.EMPTY_ID),
        (json.dumps(_event(owner_id="   ")), EventCodes.EMPTY_ID),
        (json.dumps(_event(owner_id="a/b")), EventCodes.INVALID_ID),
        (json.dumps(_event(content="x" * (32 * 1024 + 1))), EventCodes.CONTENT_TOO_LARGE),
        (json.dumps(_event(metadata={f"k{i}": i for i in range(100)})), EventCodes.METADATA_TOO_LARGE),
        (json.dumps({k: v for k, v in _event().items() if k != "content"}), EventCodes.MISSING_FIELD),
        (json.dumps(_event(colour="red")), EventCodes.UNKNOWN_FIELD),
        (json.dumps(_event(schema_version=99)), EventCodes.UNSUPPORTED_SCHEMA_VERSION),
        (b"x" * (1024 * 1024 + 1), EventCodes.PAYLOAD_TOO_LARGE),
        (json.dumps(_event(task_state={"task_id": "T", "objective": "o", "state": "completed"})),
         EventCodes.TASK_COMPLETION_UNVERIFIED),
        (json.dumps(_event(task_state={"task_id": "T", "objective": "o", "state": "active",
                                       "open_questions": ["q?"] * 9})), EventCodes.INVALID_TASK_STATE),
        (json.dumps(_event(task_state={"task_id": "T", "state": "active"})), EventCodes.INVALID_TASK_STATE),
    ],
)
def test_bad_input_gets_stable_code(raw: bytes | str, code: str) -> None:
    assert _code(raw) == code


def test_content_limit_is_configurable() -> None:
    raw = json.dumps(_event(content="x" * 200))
    assert parse_event(raw).content == "x" * 200
    assert _code(raw, max_content_bytes=100) == EventCodes.CONTENT_TOO_LARGE


def test_error_message_never_echoes_content() -> None:
    secret = "sk-live-abcdefghijklmnopqrstuvwxyz"
    with pytest.raises(InvalidEvent) as info:
        parse_event(json.dumps(_event(content=secret, occurred_at="2026-03-01T10:00:00")))
    assert secret not in str(info.value)
    assert secret not in json.dumps(info.value.to_dict())


def test_a_leading_byte_order_mark_is_ignored_and_nowhere_else() -> None:
    raw = json.dumps(_event()).encode()
    assert parse_event(b"\xef\xbb\xbf" + raw) == parse_event(raw)
    assert parse_event("\ufeff" + raw.decode()) == parse_event(raw)
    with pytest.raises(InvalidEvent) as info:
        parse_event(b"\xef\xbb\xbf\xef\xbb\xbf" + raw)  # only one mark, only at the start
    assert info.value.code == "invalid_json"


@pytest.mark.parametrize("raw", [b"", b"  \n\t", ""])
def test_an_empty_value_is_empty_event_not_invalid_json(raw: bytes | str) -> None:
    """A dead letter tells an empty record apart from broken JSON (and from a tombstone, ``null_value``)."""
    with pytest.raises(InvalidEvent) as info:
        parse_event(raw)
    assert info.value.code == "empty_event"


def test_roles_and_enums_are_case_insensitive() -> None:
    event = parse_event(json.dumps(_event(role="ASSISTANT", scope="Project")))
    assert event.role is Role.ASSISTANT
    assert event.scope is Scope.PROJECT


@settings(max_examples=100, deadline=None)
@given(
    content=st.text(max_size=300),
    offset_minutes=st.integers(min_value=-12 * 60, max_value=14 * 60),
    role=st.sampled_from(list(Role)),
)
def test_json_round_trip(content: str, offset_minutes: int, role: Role) -> None:
    tz = timezone(timedelta(minutes=offset_minutes))
    event = ConversationEvent(
        event_id="e-1",
        tenant_id="t",
        owner_id="o",
        scope=Scope.PERSONAL,
        role=role,
        content=content,
        occurred_at=datetime(2026, 1, 1, 12, 0, tzinfo=tz),
    )
    again = parse_event(event.model_dump_json())
    assert again == event
    assert again.model_dump_json() == event.model_dump_json()

"""Only a record keyed by its own tenant/owner/scope may reach the single writer of that scope.

The partition follows the key, so a producer that keys an input otherwise puts it on a partition
whose state does not hold its owner's claims. The check must accept exactly the key the publisher
and the API use (``partition_key``, scope id included) and nothing else.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schemas.commands import parse_command
from schemas.events import ConversationEvent
from streams import agents

AT = datetime(2026, 3, 1, tzinfo=UTC)


def _event(
    tenant: str = "t1", owner: str = "u1", scope: str = "project", scope_id: str | None = "alpha"
) -> ConversationEvent:
    return ConversationEvent(
        event_id="e1", tenant_id=tenant, owner_id=owner, scope=scope, scope_id=scope_id, role="user",
        content="I like tea.", occurred_at=AT,
    )  # fmt: skip


def test_the_publishers_key_is_accepted_for_events_and_commands() -> None:
    event = _event()
    assert agents.keyed_correctly(b"t1/u1/project:alpha", event)
    command = parse_command(
        b'{"command": "reinforce", "command_id": "c1", "tenant_id": "t1", "owner_id": "u1", "scope": "personal",'
        b' "node_id": "n1", "issued_at": "2026-03-01T00:00:00Z",'
        b' "actor": {"actor_id": "a", "actor_type": "AI_AGENT"}}'
    )
    assert agents.keyed_correctly(b"t1/u1/personal", command)
    assert not agents.keyed_correctly(b"t1/u2/personal", command)


@pytest.mark.parametrize(
    "key",
    [
        None,  # an unkeyed producer: round-robin partitions
        b"",
        b"t1/u1/project",  # scope id dropped
        b"t1/u1/project:beta",
        b"t1/u2/project:alpha",  # another owner
        b"t2/u1/project:alpha",  # another tenant
        b"t1/u1/project:alpha/",
        b"T1/u1/project:alpha",
    ],
)
def test_any_other_key_is_refused(key: bytes | None) -> None:
    assert not agents.keyed_correctly(key, _event())


@settings(max_examples=100, deadline=None)
@given(
    tenant=st.from_regex(r"[a-z0-9][a-z0-9_-]{0,8}", fullmatch=True),
    owner=st.from_regex(r"[a-z0-9][a-z0-9_-]{0,8}", fullmatch=True),
    other=st.from_regex(r"[a-z0-9][a-z0-9_-]{0,8}", fullmatch=True),
)
def test_only_the_own_scope_key_passes(tenant: str, owner: str, other: str) -> None:
    event = _event(tenant, owner, "personal", None)
    assert agents.keyed_correctly(f"{tenant}/{owner}/personal".encode(), event)
    assert agents.keyed_correctly(f"{tenant}/{other}/personal".encode(), event) == (other == owner)

"""Authority from the channel (TRUST-FACTS §3, issue #29): keys and the publisher declare a principal
kind, and whatever a caller writes into an event or a command can only narrow it."""

from __future__ import annotations

import json
from typing import Any

import pytest

from epistream.api.auth import ApiKeyRing, hash_key_sha256
from schemas.enums import ActorType, PrincipalKind
from schemas.roles import actor_type_for_channel, narrow_principal
from schemas.settings import Settings
from streams.publisher import EventPublisher, command_bytes

P, H, A = PrincipalKind.PLATFORM, PrincipalKind.HUMAN, PrincipalKind.AGENT


@pytest.mark.parametrize(
    ("granted", "requested", "expected"),
    [
        (P, None, P), (P, "human", H), (P, "agent", A), (H, "platform", H), (H, "agent", A),
        (A, "platform", A), (A, "human", A), (A, "PLATFORM", A), (P, "root", P), (H, "", H),
    ],
)  # fmt: skip
def test_a_caller_may_narrow_its_channel_never_raise_it(
    granted: PrincipalKind, requested: str | None, expected: PrincipalKind
) -> None:
    assert narrow_principal(granted, requested) is expected


def test_an_agent_channel_is_a_model_whatever_actor_it_names() -> None:
    assert actor_type_for_channel(A, ActorType.HUMAN_USER) is ActorType.AI_AGENT
    assert actor_type_for_channel(A, ActorType.EXTERNAL_CONNECTOR) is ActorType.AI_AGENT
    assert actor_type_for_channel(A, ActorType.SYSTEM_PROCESS) is ActorType.SYSTEM_PROCESS
    assert actor_type_for_channel(H, ActorType.EXTERNAL_CONNECTOR) is ActorType.HUMAN_USER
    assert actor_type_for_channel(P, ActorType.EXTERNAL_CONNECTOR) is ActorType.EXTERNAL_CONNECTOR


def _ring(*entries: dict[str, Any]) -> ApiKeyRing:
    return ApiKeyRing.from_mapping({"keys": [
        {"tenant_id": "t1", "permissions": ["write"], "sha256": hash_key_sha256(f"tok-{e['id']}"), **e}
        for e in entries
    ]})  # fmt: skip


def test_keys_declare_their_principal_kind() -> None:
    ring = _ring({"id": "relay"}, {"id": "alice", "kind": "human"}, {"id": "bot", "kind": "agent",
                                                                      "actor_type": "HUMAN_USER"})
    relay, alice, bot = (ring.authenticate(f"Bearer tok-{name}") for name in ("relay", "alice", "bot"))
    assert (relay.kind, relay.actor.actor_type) == (P, ActorType.AI_AGENT)  # the defaults, as before kinds
    assert (alice.kind, alice.actor.actor_type) == (H, ActorType.HUMAN_USER)  # a person acts as a person
    # an agent's key file saying HUMAN_USER changes nothing: its commands are journaled as the agent's
    assert (bot.kind, bot.actor.actor_type, bot.actor.actor_id) == (A, ActorType.AI_AGENT, "bot")


def _command(**extra: Any) -> dict[str, Any]:
    return {"command": "deprecate", "tenant_id": "t1", "owner_id": "alice", "scope": "personal",
            "command_id": "c1", "node_id": "n1", "issued_at": "2026-03-01T00:00:00Z",
            "actor": {"actor_id": "alice", "actor_type": "HUMAN_USER"}, **extra}  # fmt: skip


def test_the_publisher_stamps_its_channel_on_commands() -> None:
    cmd, raw = command_bytes(_command(channel="platform"), A)
    assert cmd.channel is A and json.loads(raw)["channel"] == "agent"
    cmd, raw = command_bytes(_command(channel="agent"), P)  # narrowed by the caller: kept
    assert cmd.channel is A and json.loads(raw)["channel"] == "agent"
    text = json.dumps(_command()).encode()
    cmd, raw = command_bytes(text, P)  # a platform's command is sent byte for byte
    assert cmd.channel is None and raw == text


def _event(**extra: Any) -> bytes:
    return json.dumps({"event_id": "e1", "tenant_id": "t1", "owner_id": "alice", "scope": "personal",
                       "role": "user", "content": "I live in Paris.", "occurred_at": "2026-03-01T00:00:00Z",
                       **extra}).encode()  # fmt: skip


def test_the_publisher_stamps_its_channel_on_events() -> None:
    agent = EventPublisher.__new__(EventPublisher)
    agent.max_content_bytes, agent.principal = 32 * 1024, A
    event, raw = agent.validate(_event(channel="platform"))
    assert event.channel is A and json.loads(raw)["channel"] == "agent"
    relay = EventPublisher.__new__(EventPublisher)
    relay.max_content_bytes, relay.principal = 32 * 1024, P
    event, raw = relay.validate(_event())
    assert event.channel is None and raw == _event()
    assert Settings().publisher_principal_kind == "platform"

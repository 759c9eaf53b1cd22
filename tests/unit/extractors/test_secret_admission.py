"""The masking pass of admission: whole events, JSON values, dead-letter bytes, and every admission path."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime, timedelta

import pytest

from extractors.rules import RuleExtractor
from extractors.secrets.admission import mask_bytes, mask_event, mask_json
from schemas.events import ConversationEvent, parse_event
from schemas.records import MAX_DEAD_LETTER_BYTES
from streams import agents

T = datetime(2026, 3, 1, 12, tzinfo=UTC)


def _event(**kw: object) -> ConversationEvent:
    base: dict[str, object] = {
        "event_id": "e1", "tenant_id": "t1", "owner_id": "o1", "scope": "personal", "role": "user",
        "content": "hello", "occurred_at": "2026-03-01T12:00:00+00:00",
    }  # fmt: skip
    base.update(kw)
    return parse_event(json.dumps(base))


def test_a_clean_event_is_returned_as_it_is() -> None:
    event = _event(content="I moved to Porto last spring.", speaker="Ana", metadata={"client": "web"})
    assert mask_event(event) is event
    assert "source_sha256" not in event.model_dump_json()  # omitted while unset: old records keep their text


def test_content_speaker_and_metadata_are_masked_and_the_original_digest_is_kept() -> None:
    original = "deploy with ghp_Xy7Qm2Rk9Lp4Zt6Wv1Bn8Cd3Fg5Hj0Kl2Mq4Ns please"
    event = _event(
        content=original,
        speaker="deploy-bot (token ghp_Ab7Qm2Rk9Lp4Zt6Wv1Bn8Cd3Fg5Hj0Kl2Mq4Zz)",
        metadata={"integration": {"auth": {"username": "sync@acme.io", "password": "Cr0wd!Sync-55"}},
                  "headers": {"x-api-key": "3c0667e66096cc5cc94ee0df4f0a7a89"},
                  "notes": ["forwarded: the wifi password is Kastanie-2019"]},
    )  # fmt: skip
    masked = mask_event(event)
    dumped = masked.model_dump_json()
    for secret in ("ghp_Xy7Qm2", "ghp_Ab7Qm2", "Cr0wd!Sync-55", "3c0667e66096cc5cc94ee0df4f0a7a89", "Kastanie-2019"):
        assert secret not in dumped
    assert "sync@acme.io" in dumped  # a user name is not a secret
    assert masked.content == "deploy with [REDACTED:github_token] please"
    assert masked.content_sha256 == hashlib.sha256(original.encode()).hexdigest() == event.content_sha256
    assert parse_event(dumped).content_sha256 == event.content_sha256  # the digest travels with the event


def test_a_secret_found_in_one_field_is_masked_in_every_other() -> None:
    event = _event(content="login failed again", metadata={"password": "Orchid-Lane-62", "echo": "Orchid-Lane-62"})
    assert "Orchid-Lane-62" not in mask_event(event).model_dump_json()


def test_masking_an_event_twice_changes_nothing() -> None:
    once = mask_event(_event(content="my password is Tr0ub4dor&3", metadata={"token": "Zx9Cv8Bn7Mq6Wr5Et4Yu3"}))
    assert mask_event(once) == once


def test_json_values_under_credential_keys_are_masked_whole() -> None:
    assert mask_json({"password": "sunflower", "user": "bob", "nested": {"db_password": {"value": "x9-Y8z"}}}) == {
        "password": "[REDACTED:password]",
        "user": "bob",
        "nested": {"db_password": {"value": "[REDACTED:password]"}},
    }


def test_dead_letter_bytes_are_masked_capped_and_keep_no_original() -> None:
    line = json.dumps({"event_id": "e9", "content": "my password is Hunter2-Tango!", "occurred_at": "2026-03-01"})
    for raw in (line.encode(), line[:-3].encode(), b"\xff\xfe" + line.encode()):
        masked = mask_bytes(raw)
        assert b"Hunter2-Tango" not in masked and b"[REDACTED:password]" in masked
    huge = ("my password is Hunter2-Tango! " + "x" * 100).encode() * 20_000
    capped = mask_bytes(huge)
    assert len(capped) <= MAX_DEAD_LETTER_BYTES and b"Hunter2-Tango" not in capped


def test_a_refused_input_becomes_a_masked_dead_letter_with_its_digest_length_and_position() -> None:
    raw = b'{"event_id": "e1", "content": "pin is 4821", "occurred_at": "2026-03-01T12:00:00"}'
    rejected = agents.admit(raw, source="in.jsonl", received_at=T, offset=7)
    assert isinstance(rejected, agents.Rejected)
    letter = rejected.letter
    assert b"4821" not in letter.masked_bytes
    assert (letter.original_sha256, letter.original_length) == (hashlib.sha256(raw).hexdigest(), len(raw))
    assert (letter.source, letter.offset, letter.partition) == ("in.jsonl", 7, None)
    assert not letter.truncated


def test_admitted_events_reach_extraction_masked() -> None:
    raw = json.dumps({
        "event_id": "e2", "tenant_id": "t1", "owner_id": "o1", "scope": "personal", "role": "user",
        "content": "The password for my home router is Copper-Kettle-77! I live in Porto.",
        "occurred_at": "2026-03-01T12:00:00+00:00",
    }).encode()  # fmt: skip
    event = agents.admit(raw, source="t", received_at=T)
    assert isinstance(event, ConversationEvent)
    result = RuleExtractor().extract(event)
    text = result.model_dump_json()
    assert "Copper-Kettle" not in text
    assert result.event.content_sha256 == hashlib.sha256(json.loads(raw)["content"].encode()).hexdigest()
    assert all("REDACTED" not in (c.object or "") for c in result.claims)


@pytest.mark.parametrize("value", ["1", "true", "yes"])
def test_the_removed_raw_secrets_setting_refuses_to_start(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    from epistream.config import load_settings
    from schemas.errors import ValidationFailed

    monkeypatch.setenv("EPISTREAM_RETAIN_RAW_SECRETS", value)
    with pytest.raises(ValidationFailed, match="never kept"):
        load_settings()


def test_a_commands_free_text_is_masked_before_it_is_sealed() -> None:
    from extractors.secrets.admission import mask_command
    from schemas.commands import ReinforceCommand
    from schemas.nodes import ActorRef

    command = ReinforceCommand(
        tenant_id="t1", owner_id="o1", scope="personal", command_id="c1", node_id="n1", issued_at=T,
        actor=ActorRef(actor_id="ana", actor_type="HUMAN_USER"),
        reason="confirmed on the phone, the door code is 7731#",
        signal_source="note: token ghp_Xy7Qm2Rk9Lp4Zt6Wv1Bn8Cd3Fg5Hj0Kl2Mq4Ns",
    )  # fmt: skip
    masked = mask_command(command)
    assert "7731" not in masked.model_dump_json() and "ghp_Xy7" not in masked.model_dump_json()
    assert masked.input_id == command.input_id and mask_command(masked) is masked


def test_a_revalidations_evidence_quote_is_masked_before_it_is_sealed() -> None:
    from extractors.secrets.admission import mask_command
    from schemas.commands import RevalidateCommand
    from schemas.nodes import ActorRef

    command = RevalidateCommand(
        tenant_id="t1", owner_id="o1", scope="personal", command_id="c1", node_id="n1", issued_at=T,
        actor=ActorRef(actor_id="ana", actor_type="HUMAN_USER"), expires_at=T + timedelta(days=30),
        evidence_quote="still valid, token ghp_Xy7Qm2Rk9Lp4Zt6Wv1Bn8Cd3Fg5Hj0Kl2Mq4Ns",
    )  # fmt: skip
    masked = mask_command(command)
    assert "ghp_Xy7" not in masked.model_dump_json() and masked.evidence_quote is not None
    assert masked.expires_at == command.expires_at


def test_every_text_of_an_attachment_is_masked_and_a_clean_one_kept_as_it_is() -> None:
    key = "ghp_Qm2Rk9Lp4Zt6Wv1Bn8Cd3Fg5Hj0Kl2Mq4Nx7"
    event = _event(content="screenshots attached", attachments=[
        {"kind": "image", "caption": f"the token {key} in settings", "alt_text": "a settings page"},
        {"kind": "image", "alt_text": f"a terminal showing {key}"},
        {"kind": "file", "name": f"{key}.txt"},
        {"kind": "link", "caption": "our docs"},
    ])  # fmt: skip
    masked = mask_event(event)
    assert key not in masked.model_dump_json()
    first, second, third, fourth = masked.attachments
    assert first.caption == "the token [REDACTED:github_token] in settings" and first.alt_text == "a settings page"
    assert second.alt_text == "a terminal showing [REDACTED:github_token]" and second.caption is None
    assert third.name is not None and third.name.startswith("[REDACTED:") and third.kind == "file"
    assert fourth == event.attachments[3]


def test_a_secret_said_in_the_message_is_masked_where_an_attachment_repeats_it_bare() -> None:
    event = _event(content="my wifi password is Copper-Kettle-77", attachments=[{"caption": "Copper-Kettle-77"}])
    masked = mask_event(event)
    assert "Copper-Kettle-77" not in masked.model_dump_json()
    assert masked.source_sha256 == hashlib.sha256(event.content.encode()).hexdigest()


def test_a_speaker_holding_a_secret_is_masked_when_the_content_is_clean() -> None:
    event = _event(content="build finished", speaker="ci (password: Hunter2-Tango!)")
    masked = mask_event(event)
    assert masked.content == "build finished" and masked.source_sha256 is None
    assert "Hunter2-Tango!" not in (masked.speaker or "") and (masked.speaker or "").startswith("ci (password: ")


def test_the_longer_of_two_overlapping_known_secrets_is_masked_whole() -> None:
    event = _event(content="password: Maple-Fox-19 and the vault passphrase: Maple-Fox-19-river-stone",
                   metadata={"note": "Maple-Fox-19-river-stone"})  # fmt: skip
    masked = mask_event(event)
    assert "river-stone" not in json.dumps(masked.metadata) and "Maple-Fox" not in json.dumps(masked.metadata)

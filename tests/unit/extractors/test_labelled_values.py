"""Labelled values (issue #24 look-alikes, issue #25 verbless chat): an identifier named by a label
with no verb to carry it becomes a claim; credentials, times, counts and plain words never do.
Messages written for these tests, not taken from the evaluation sets."""

from __future__ import annotations

from typing import Any

import pytest

from extractors.rules import RuleExtractor
from extractors.rules.labelled import labelled_values
from extractors.rules.proto import Proto
from schemas.events import validate_event
from streams.agents import admit_event

_X = RuleExtractor()


def _claims(content: str, role: str = "user", scope: str = "personal") -> list[Any]:
    ev: dict[str, Any] = {"event_id": "e-1", "tenant_id": "t", "owner_id": "u", "scope": scope,
                          "conversation_id": "c", "role": role, "content": content,
                          "occurred_at": "2026-03-02T10:00:00+00:00"}  # fmt: skip
    if role == "participant":
        ev["speaker"] = "Dana Ilic"
    return list(_X.extract(admit_event(validate_event(ev))).claims)


def _pairs(content: str, **kw: str) -> set[tuple[str, str | None]]:
    return {(c.predicate, c.object) for c in _claims(content, **kw)}


@pytest.mark.parametrize(
    ("text", "predicate", "obj"),
    [
        ("bike frame serial WTU158C0471K, need it for the insurance form", "bike_frame_serial", "WTU158C0471K"),
        ("ups tracking 1Z9A4F620312345678 hasnt moved since tuesday", "ups_tracking", "1Z9A4F620312345678"),
        ("the fridge model RB38T602DS9 keeps icing up", "fridge_model", "RB38T602DS9"),
        ("desk phone ext. 3318, slack is flaky", "desk_phone_ext", "3318"),
        ("ISBN 9780262046305 is the textbook for the course", "isbn", "9780262046305"),
        ("order no. 88412-B arrived half empty", "order", "88412-B"),
        ("staging box ip 10.20.4.17, prod is elsewhere", "staging_box_ip", "10.20.4.17"),
        ("gym locker number 214 this term", "gym_locker_number", "214"),
        ("last week's bowling score: 212 for me", "last_week_s_bowling_score", "212"),
        ("team playlist: spotify:playlist:4NdQZ8xHf2Vb0kLwq1Yc9T (chill)", "team_playlist",
         "spotify:playlist:4NdQZ8xHf2Vb0kLwq1Yc9T"),
    ],
)
def test_an_identifier_named_by_its_label_is_a_claim_of_the_speaker(text: str, predicate: str, obj: str) -> None:
    got = [c for c in _claims(text) if c.object == obj]
    assert [(c.subject, c.predicate, c.polarity.value, c.epistemic_type.value) for c in got] == [
        ("user", predicate, "positive", "ASSERTED")
    ]
    # the evidence quote holds the value, so a reader can check it against the message
    assert obj in got[0].evidence_quote


def test_a_list_after_a_colon_gives_each_value_its_own_label() -> None:
    got = _pairs("theme colours: background #0B1021, text #E6EDF3, link #58A6FF")
    assert {("theme_colors_background", "#0B1021"), ("theme_colors_text", "#E6EDF3"),
            ("theme_colors_link", "#58A6FF")} <= got  # fmt: skip


def test_a_participant_in_a_project_states_the_teams_value() -> None:
    got = _claims("rollback target commit 9be31f0 until the fix lands", role="participant", scope="project")
    assert [(c.subject, c.predicate, c.object) for c in got if c.object == "9be31f0"] == [
        ("user", "rollback_target_commit", "9be31f0")
    ]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("the broken release was build 4471b, roll back to that", "4471b"),
        ("rollback target is commit 9be31f0 until the fix lands", "9be31f0"),
    ],
)
def test_a_value_the_grammar_reads_is_kept_once(text: str, value: str) -> None:
    holding = [c for c in _claims(text) if value in (c.object or "")]
    assert len(holding) == 1


@pytest.mark.parametrize(
    "text",
    [
        "locker code 7731-0042",  # a code to open something is a credential
        "wifi password: Hx7-kettle-29",
        "the door pin 4417 changed again",
        "garage passcode 55012 for the cleaners",
        "backup code: 7Y2K-9QPL-33MN",
        "api key: a81f0c9e44d2b7c1",
    ],
)
def test_a_credential_is_never_a_labelled_value(text: str) -> None:
    # refused by the label itself, before admission's masking and the validator's guard see it
    assert labelled_values(text, "user", []) == []
    stored = " ".join(f"{c.object} {c.evidence_quote}" for c in _claims(text))
    for value in ("7731-0042", "Hx7-kettle-29", "4417", "55012", "7Y2K-9QPL-33MN", "a81f0c9e44d2b7c1"):
        assert value not in stored


@pytest.mark.parametrize(
    "text",
    [
        "todo: 2025 taxes",  # a count or a year before a noun is no value
        "dentist: 10:30 tomorrow",  # a time
        "room 4B",  # too short to be an identifier
        "rough plan: 3x a week",
        "deadline: 12/03",
        "what was the tracking 1Z9A4F620312345678 for?",  # a question states nothing
        "the serial is stamped under the base",  # no value at all
    ],
)
def test_times_counts_questions_and_plain_words_are_not_labelled_values(text: str) -> None:
    assert labelled_values(text, "user", []) == [] or "?" in text
    assert not any(c.metadata.get("attribute_form") and c.object and any(ch.isdigit() for ch in c.object)
                   for c in _claims(text))  # fmt: skip


def test_a_value_a_clause_already_holds_is_not_stated_twice() -> None:
    known = [Proto("user", "uses", "ami-0f3c9d1e7b2a46815")]
    assert labelled_values("we use image ami-0f3c9d1e7b2a46815 now", "user", known) == []
    assert [p.object for p in labelled_values("we use image ami-0f3c9d1e7b2a46815 now", "user", [])] == [
        "ami-0f3c9d1e7b2a46815"
    ]


def test_one_label_with_one_value_per_message_segment() -> None:
    got = labelled_values("commit 1a2b3c4 and commit 1a2b3c4 again", "user", [])
    assert [(p.predicate, p.object) for p in got] == [("commit", "1a2b3c4")]

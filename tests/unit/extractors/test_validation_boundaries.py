"""Where the validation layer draws its lines, at the line: spans, windows, runs and who is speaking.

Each case sits exactly on an edge a rule draws (a sentence that ends where a quote begins, a
qualifier after a qualifier, an identifier twelve characters from a number), so an off-by-one in
the rule changes the answer.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from extractors import reasons
from extractors.text import Span, find_conditions, paragraph_spans, sentence_spans
from extractors.validation import SourceText, validate_claims
from schemas.events import ConversationEvent


def _event(content: str, role: str = "user", speaker: str | None = None) -> ConversationEvent:
    return ConversationEvent(
        event_id="ev-1", tenant_id="t1", owner_id="o1", scope="personal", role=role, speaker=speaker,
        content=content, occurred_at=datetime(2026, 3, 1, 12, 0, tzinfo=UTC),
    )  # fmt: skip


def _claim(**kw: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "subject": "user", "predicate": "uses", "object": "Postgres", "polarity": "positive",
        "epistemic_type": "ASSERTED", "evidence_quote": "I use Postgres",
    }  # fmt: skip
    base.update(kw)
    return base


def _sentences(text: str) -> list[str]:
    return [text[s.start : s.end] for p in paragraph_spans(text) for s in sentence_spans(text, p)]


# --- paragraphs and sentences ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "spans"),
    [
        ("Hello.\n\n", [Span(0, 6)]),  # a trailing break opens no empty paragraph
        ("\n\nHello.", [Span(2, 8)]),  # nor does a leading one
        ("Hi.\n\nYo.", [Span(0, 3), Span(5, 8)]),
        ("", [Span(0, 0)]),  # an empty text is one empty paragraph, never none
    ],
)
def test_paragraphs_have_no_empty_edges(text: str, spans: list[Span]) -> None:
    assert paragraph_spans(text) == spans


def test_a_sentence_ended_by_a_newline_loses_its_trailing_blanks() -> None:
    assert _sentences("I like tea \nI like coffee") == ["I like tea", "I like coffee"]


def test_a_newline_after_an_abbreviation_still_ends_the_sentence() -> None:
    # the dot of "Dr." ends nothing; the newline after it does
    assert _sentences("I saw Dr.\nThen I left") == ["I saw Dr.", "Then I left"]


@pytest.mark.parametrize(
    ("text", "sentences"),
    [
        ("It is approx. 5 km away.", ["It is approx. 5 km away."]),  # the longest abbreviation
        ("It is approx.\") 5 km away.", ["It is approx.\") 5 km away."]),  # closing marks after it
        ("We had apples, pears, etc.) and more.", ["We had apples, pears, etc.) and more."]),
        ("I use Go. It is fast.", ["I use Go.", "It is fast."]),
    ],
)
def test_an_abbreviation_is_read_before_the_first_dot(text: str, sentences: list[str]) -> None:
    assert _sentences(text) == sentences


@pytest.mark.parametrize(
    ("text", "sentences"),
    [
        # a statement of eight characters or more before the question is a sentence of its own
        ("I use Go, how do I vendor it?", ["I use Go", "how do I vendor it?"]),
        # a shorter opening is part of the question, in any sentence of the message
        ("Thanks a lot. I see, is it normal?", ["Thanks a lot.", "I see, is it normal?"]),
        # the question must end its own sentence, not the message
        ("I'm running Ubuntu 24.04, how do I fix bluetooth? Thanks a lot.",
         ["I'm running Ubuntu 24.04", "how do I fix bluetooth?", "Thanks a lot."]),
    ],
)  # fmt: skip
def test_a_statement_before_a_question_is_split_from_it(text: str, sentences: list[str]) -> None:
    assert _sentences(text) == sentences


# --- conditions -----------------------------------------------------------------------------------


def test_a_casual_condition_ends_at_its_comma_before_the_main_subject() -> None:
    assert find_conditions("if it rains, we stay in") == [(0, 11)]


# --- which sentences a quote stands on ------------------------------------------------------------


def test_a_quote_inside_the_joint_of_a_statement_and_its_question_stands_on_one_sentence() -> None:
    text = "my cat is 16, is it normal that she sleeps all day? I feed her twice. She is fine."
    ctx = SourceText(text)
    comma = text.index(",")
    assert ctx.sentence_indexes(comma, comma + 1) == [0]  # the statement the comma ends
    assert ctx.sentence_indexes(comma, comma + 8) == [1]  # ", is it" overlaps the question only


def test_every_qualifier_sentence_that_follows_is_part_of_the_passage() -> None:
    ctx = SourceText("I will come. Only if Ana comes. Unless it rains. See you.")
    assert ctx.with_qualifiers([0]) == [0, 1, 2]
    assert ctx.with_qualifiers([3]) == [3]


def test_a_quote_that_opens_at_a_joint_takes_its_cues_from_its_own_segment() -> None:
    content = "Maybe I'll move to Rome; I use Postgres."
    (c,) = validate_claims(_event(content), [_claim(evidence_quote="; I use Postgres")]).accepted
    assert c.epistemic_type.value == "ASSERTED"  # the hedge of the segment before does not reach it


def test_a_date_that_ends_the_message_is_the_claims_date() -> None:
    content = "I moved to Rome yesterday"  # no closing punctuation: the date ends the text
    claim = _claim(predicate="moved_to", object="Rome", evidence_quote=content)
    (c,) = validate_claims(_event(content), [claim]).accepted
    assert c.event_dates == ("2026-02-28",)


# --- the claim text: the shortest run naming subject and object ----------------------------------


def test_the_user_named_as_user_is_mentioned_in_a_run() -> None:
    content = "Hello there. The user likes Rome. Bye now."
    claim = _claim(predicate="likes", object="Rome", evidence_quote=content)
    (c,) = validate_claims(_event(content), [claim]).accepted
    assert c.claim_text == "The user likes Rome."


def test_a_single_sentence_beside_the_quote_is_the_claim_text_and_the_first_of_two_wins() -> None:
    # the quote names the object but not the speaker; of two later sentences naming both, the first
    content = "Rome is lovely. I live in Rome. I love Rome."
    claim = _claim(predicate="lives_in", object="Rome", evidence_quote="Rome is lovely")
    (c,) = validate_claims(_event(content), [claim]).accepted
    assert c.claim_text == "I live in Rome."


# --- the speaker by name ----------------------------------------------------------------------------


def test_a_named_speakers_plan_is_not_a_completed_act() -> None:
    content = "I want to visit Rome."
    claim = _claim(subject="Dana", predicate="visited", object="Rome", evidence_quote=content)
    out = validate_claims(_event(content, role="participant", speaker="Dana"), [claim])
    assert [r.reason_code for r in out.rejected] == [reasons.SPEECH_ACT_COMPLETED_PREDICATE]


# --- authority is read from the claim's own words too ---------------------------------------------


def test_a_grant_in_the_claims_triple_is_refused_when_the_passage_only_names_the_agent() -> None:
    content = "Our assistant bot will merge PRs from now on."
    claim = _claim(subject="assistant", predicate="is_allowed_to", object="merge PRs", evidence_quote=content)
    out = validate_claims(_event(content), [claim])
    assert [r.reason_code for r in out.rejected] == [reasons.AUTHORITY_GRANT]


def test_a_denied_grant_is_an_ordinary_claim() -> None:
    content = "Nobody in the club has write access to the repo."
    claim = _claim(subject="club", predicate="has", object="write access", polarity="negative",
                   evidence_quote=content)  # fmt: skip
    out = validate_claims(_event(content), [claim])
    assert [c.object for c in out.accepted] == ["write access"]


# --- quantities ---------------------------------------------------------------------------------------


def _quantity_kept(content: str, obj: str, source_text: str, value: str | None = None) -> bool:
    quantity = {"value": value or source_text, "unit": "1", "source_text": source_text}
    claim = _claim(predicate="has", object=obj, evidence_quote=content.rstrip("."), quantity=quantity)
    (c,) = validate_claims(_event(content), [claim]).accepted
    return c.quantity is not None


def test_a_whole_object_that_is_a_date_is_no_quantity() -> None:
    assert not _quantity_kept("My exam is on 2026-05-04.", "2026-05-04", "2026-05-04", value="2026")


@pytest.mark.parametrize(
    ("obj", "kept"),
    [
        ("3 cats, CASE-42", True),  # the identifier's number starts 13 characters after the quantity's
        ("3 cats, CAS-42", False),  # ... 12 characters after it: inside the window
        ("A12 and also 3 cats", True),  # the identifier starts 13 characters before the quantity
        ("A12, and so 3 cats", False),  # ... 12 characters before it
    ],
)
def test_an_identifier_within_twelve_characters_of_the_number_makes_it_no_quantity(obj: str, kept: bool) -> None:
    assert _quantity_kept(f"I have {obj}.", obj, "3") is kept


def test_the_first_occurrence_of_the_number_in_the_object_is_the_one_read() -> None:
    obj = "2 seats and then, much later, 2 seats on BA12"  # the second "2" sits next to a flight number
    assert _quantity_kept(f"I booked {obj}.", obj, "2 seats", value="2")


# --- secrets in the values of a claim -----------------------------------------------------------------


@pytest.mark.parametrize("obj", ["4111 1111 1111 1111", "DE89 3704 0044 0532 0130 00"])
def test_a_number_shaped_secret_alone_in_a_value_is_refused(obj: str) -> None:
    # the values are read each on a line of its own: a number anchored at its edges is still found
    out = validate_claims(_event("I use Postgres."), [_claim(predicate="pays_with", object=obj)])
    assert [r.reason_code for r in out.rejected] == [reasons.SECRET_VALUE]

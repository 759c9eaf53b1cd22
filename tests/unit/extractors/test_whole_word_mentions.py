"""Whole-word mentions (PRME-FACTS §8.2.2) through the validation layer, at both edges of the word.

A claim's object, and the value an update says it replaces, must be whole words of the passage:
"Java" is not in "I use JavaScript", "Script" is not in it either, and "switched from JavaScript to
Go" does not retire a claim about Java. The properties run the same checks over generated words and
attached fragments on the left, on the right and on both sides, so a check that looks at one edge
only (or at none, a substring test) fails.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from hypothesis import example, given
from hypothesis import strategies as st

from extractors import reasons
from extractors.validation import ValidationOutcome, validate_claims
from schemas.events import ConversationEvent

#: Values start with "Zx" so that no generated one is a hedge, a pointer word or another cue.
VALUES = st.from_regex(r"Zx[a-z]{1,6}", fullmatch=True)
#: Word characters that may be glued to a value (letters, digits, underscore, accented letters).
GLUE = st.text(alphabet="abcXYZ019_éßж", min_size=1, max_size=4)
#: Non-word characters that end a word.
BOUNDS = st.sampled_from([" ", " (", ") ", "/", "-", ", ", " + "])


def _event(content: str) -> ConversationEvent:
    return ConversationEvent(
        event_id="ev-1", tenant_id="t1", owner_id="o1", scope="personal", role="user", content=content,
        occurred_at=datetime(2026, 3, 1, 12, 0, tzinfo=UTC),
    )  # fmt: skip


def _uses(sentence: str, obj: str, **kw: Any) -> ValidationOutcome:
    claim = {
        "subject": "user",
        "predicate": "uses",
        "object": obj,
        "polarity": "positive",
        "epistemic_type": "ASSERTED",
        "evidence_quote": sentence,
        **kw,
    }
    return validate_claims(_event(sentence + "."), [claim], grounding_method="source_passage_v1")


def _object_rejected(outcome: ValidationOutcome) -> bool:
    return (
        not outcome.accepted
        and len(outcome.rejected) == 1
        and outcome.rejected[0].reason_code == reasons.MENTION_NOT_WHOLE_WORD
    )


# --- the object -------------------------------------------------------------------------------------


def test_a_word_inside_a_longer_word_is_not_mentioned() -> None:
    assert _object_rejected(_uses("I use JavaScript at work", "Java"))  # right edge
    assert _object_rejected(_uses("I use JavaScript at work", "Script"))  # left edge
    assert _object_rejected(_uses("I use JavaScripting at work", "Script"))  # both edges
    accepted = _uses("I use Java at work", "Java").accepted
    assert [c.object for c in accepted] == ["Java"]
    assert [c.object for c in _uses("I use Java-based tools at work", "Java").accepted] == ["Java"]
    assert [c.object for c in _uses("I use C++ at work", "C++").accepted] == ["C++"]


@given(value=VALUES, glue=GLUE, side=st.sampled_from(["left", "right", "both"]))
@example(value="Zxjava", glue="Script", side="right")
@example(value="Zxscript", glue="Java", side="left")
def test_an_object_glued_to_word_characters_is_rejected(value: str, glue: str, side: str) -> None:
    word = {"left": glue + value, "right": value + glue, "both": glue + value + glue}[side]
    outcome = _uses(f"I use {word} at work", value)
    assert _object_rejected(outcome), (word, outcome)


@given(value=VALUES, before=BOUNDS, after=BOUNDS, glue=GLUE)
def test_an_object_bounded_by_non_word_characters_is_accepted(value: str, before: str, after: str, glue: str) -> None:
    outcome = _uses(f"I use {glue}{before}{value}{after}{glue} at work", value)
    assert [c.object for c in outcome.accepted] == [value], outcome
    assert not outcome.rejected


@given(value=VALUES)
def test_the_case_of_a_mention_does_not_matter(value: str) -> None:
    outcome = _uses(f"I use {value.upper()} at work", value)
    assert [c.object for c in outcome.accepted] == [value]


# --- the value an update replaces --------------------------------------------------------------------


def _switch(sentence: str, old: str) -> ValidationOutcome:
    return _uses(sentence, "Go", temporal_intent="update", replaces_object=old)


def test_an_update_does_not_replace_a_word_inside_a_longer_word() -> None:
    (c,) = _switch("We switched from JavaScript to Go", "Java").accepted
    assert c.replaces_object is None
    assert c.metadata["replaces_object_dropped"] == reasons.REPLACES_OBJECT_NOT_IN_PASSAGE
    (d,) = _switch("We switched from JavaScript to Go", "Script").accepted
    assert d.replaces_object is None
    (e,) = _switch("We switched from Java to Go", "Java").accepted
    assert e.replaces_object == "Java"
    assert "replaces_object_dropped" not in e.metadata


@given(value=VALUES, glue=GLUE, side=st.sampled_from(["left", "right", "both"]))
def test_a_replaced_value_glued_to_word_characters_is_dropped(value: str, glue: str, side: str) -> None:
    word = {"left": glue + value, "right": value + glue, "both": glue + value + glue}[side]
    (c,) = _switch(f"We switched from {word} to Go", value).accepted
    assert c.replaces_object is None
    assert c.metadata["replaces_object_dropped"] == reasons.REPLACES_OBJECT_NOT_IN_PASSAGE


@given(value=VALUES, before=BOUNDS, after=BOUNDS)
def test_a_replaced_value_bounded_by_non_word_characters_is_kept(value: str, before: str, after: str) -> None:
    (c,) = _switch(f"We switched from{before}{value}{after}to Go", value).accepted
    assert c.replaces_object == value

"""Text primitives the validator and the rule extractor share."""

from __future__ import annotations

import pytest

from extractors.text import (
    SPEECH_ACT,
    SPEECH_ACT_FORMS,
    find_conditions,
    is_question,
    is_uncertain,
    locate_quote,
    mentions,
    paragraph_spans,
    segment_spans,
    sentence_spans,
    speech_act_cue,
)
from extractors.validation import speech_act_stem


def test_quote_located_after_normalising_whitespace_and_typographic_quotes() -> None:
    src = "She said \u201cI\u2019m  moving\nto Lisbon\u201d yesterday."
    found = locate_quote(src, '"I\'m moving to Lisbon"')
    assert found is not None
    start, end, count = found
    assert src[start:end] == "\u201cI\u2019m  moving\nto Lisbon\u201d"
    assert count == 1


def test_quote_missing_or_blank_is_not_located() -> None:
    assert locate_quote("I live in Berlin.", "I live in Paris") is None
    assert locate_quote("I live in Berlin.", "   ") is None


def test_repeated_quote_reports_more_than_one_occurrence() -> None:
    assert locate_quote("I love tea. I love tea.", "I love tea")[2] == 2  # type: ignore[index]


@pytest.mark.parametrize(
    ("text", "value", "expected"),
    [
        ("Marianne works at Acme", "Ann", False),
        ("Ann works at Acme", "ann", True),
        ("We write C++ daily", "C++", True),
        ("José lives in Porto", "José", True),
        ("Josémaria lives in Porto", "José", False),
        ("I use Postgres", "  ", False),
        ("I use Postgres", None, False),
    ],
)
def test_whole_word_mentions(text: str, value: str | None, expected: bool) -> None:
    assert mentions(text, value) is expected


def test_paragraphs_split_on_blank_lines_with_spaces() -> None:
    text = "One.\nstill one.\n  \nTwo."
    paras = paragraph_spans(text)
    assert [text[p.start : p.end] for p in paras] == ["One.\nstill one.", "Two."]


def test_sentences_end_at_punctuation_and_newlines_not_abbreviations() -> None:
    text = "Dr. Smith is my doctor. I live in Berlin!\nI work at Acme (really.) Ok"
    para = paragraph_spans(text)[0]
    assert [text[s.start : s.end] for s in sentence_spans(text, para)] == [
        "Dr. Smith is my doctor.",
        "I live in Berlin!",
        "I work at Acme (really.)",
        "Ok",
    ]


def test_segments_split_at_contrast_but_not_before_qualifiers() -> None:
    text = "I love tea, but maybe not coffee"
    para = paragraph_spans(text)[0]
    sent = next(iter(sentence_spans(text, para)))
    assert [text[s.start : s.end] for s in segment_spans(text, sent)] == ["I love tea", ", but maybe not coffee"]
    text2 = "I'll come, but only if Bob comes"
    sent2 = next(iter(sentence_spans(text2, paragraph_spans(text2)[0])))
    assert len(segment_spans(text2, sent2)) == 1


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I'll use Postgres if the budget allows it.", ["if the budget allows it"]),
        ("If it rains, we stay home", ["If it rains"]),
        ("I drink coffee only if it's decaf.", ["only if it's decaf"]),
        ("We go unless it snows; fine", ["unless it snows"]),
        ("I'll join provided that Bob drives", ["provided that Bob drives"]),
        ("Happy to help as long as it's quick", ["as long as it's quick"]),
        ("I was wondering if you could help", []),
        ("Let me know if you need anything", []),
        ("I'll check if they have information", []),
        ("Can you see if they have it", []),
        ("I'm not sure if it works", []),
        ("I'll go even if it rains", []),
    ],
)
def test_explicit_conditions_and_indirect_questions(text: str, expected: list[str]) -> None:
    assert [text[s:e] for s, e in find_conditions(text)] == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I might move to Paris", True),
        ("Maybe we use Redis", True),
        ("I may join later", True),
        ("May lives in Paris", False),
        ("Could you help me with Python", False),
        ("You could also recommend a book", False),
        ("May I ask a question", False),
        ("I couldn't live without coffee", False),
        ("I think we use Jenkins", True),
        ("We're probably switching", True),
        ("I live in Berlin", False),
    ],
)
def test_uncertainty_ignores_names_and_polite_requests(text: str, expected: bool) -> None:
    assert is_uncertain(text) is expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Where do you live?", True),
        ("Do you know a good vet", True),
        ("Can you recommend a book", True),
        ("I live in Berlin.", False),
        ("What I love is tea.", False),
        ("Can't wait for Friday", False),
        # a statement closed by a tag asking for agreement states what it says
        ("grafana moved to 3300 since 3000 clashes with the node app, ok?", False),
        ("i moved in march, right?", False),
        ("die plz ist 10437, oder?", False),
        ("c'est réglé pour jeudi, non ?", False),
        ("el vuelo sale a las 6, vale?", False),
        ("the deploy is friday, yeah??", False),
        # ... but not a question that opens as one, nor a tag word that is the question itself
        ("do you live in berlin, right?", True),
        ("is it ok?", True),
        ("ok?", True),
        ("the deploy is friday or monday?", True),
        ("the deploy is friday, or monday?", True),
    ],
)
def test_questions(text: str, expected: bool) -> None:
    assert is_question(text) is expected


def test_condition_ends_before_an_inverted_auxiliary() -> None:
    text = "Only if it snows will we ski."
    (start, end), = find_conditions(text)
    assert text[start:end] == "Only if it snows"
    text2 = "If the contract is signed may you publish the figures."
    (s2, e2), = find_conditions(text2)
    assert text2[s2:e2] == "If the contract is signed"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I suspect the router is faulty.", True),
        ("I doubt Marama likes jazz.", True),
        ("We'll likely host the reunion.", True),
        ("I'm leaning towards the Fujifilm.", True),
        ("I like the Fujifilm.", False),
        ("I'm leaning on the railing.", False),
    ],
)
def test_less_common_hedge_words(text: str, expected: bool) -> None:
    assert is_uncertain(text) is expected



# --- the speech-act table -------------------------------------------------------------------------


def test_every_speech_act_cue_keeps_a_stem() -> None:
    """Whatever cue a form gives, the validator reads the predicate as an act not (yet) done."""
    for f in SPEECH_ACT_FORMS:
        assert speech_act_stem(f"{f.cue}_set_up"), f.cue


@pytest.mark.parametrize(
    ("text", "cue"),
    [
        ("I'm trying to set up ESLint", "trying_to"),
        ("I've tried to set up ESLint", "tried_to"),
        ("I try to set up ESLint", "tries_to"),
        ("We planned to adopt Redis", "plans_to"),
        ("I'd really love to visit Oslo", "wants_to"),
        ("I looked to hire a designer", "looking_to"),
        ("we are working to migrate the cluster", "working_to"),
    ],
)
def test_speech_act_clause_cue(text: str, cue: str) -> None:
    m = SPEECH_ACT.search(text)
    assert m is not None
    assert speech_act_cue(m.group("cue")) == cue


def test_every_clause_form_opens_a_speech_act_clause() -> None:
    """A form tagged for a construction is matched in it, and gives its own cue back."""
    lead = {"be": "I'm", "have": "I've", "bare": "I", "would": "I'd"}
    for f in SPEECH_ACT_FORMS:
        for construction in f.constructions - {"rule"}:
            m = SPEECH_ACT.search(f"{lead[construction]} {f.form} to set up ESLint")
            assert m is not None, (f.form, construction)
            assert speech_act_cue(m.group("cue")) == f.cue



@pytest.mark.parametrize(
    ("text", "conditions"),
    [
        # an emphasis before the marker names a circumstance, not a condition
        ("I cycle a lot, especially if the sun is out.", []),
        ("I cycle a lot, particularly whenever the sun is out.", []),
        ("I cycle a lot, especially when the sun is out.", []),
        # a gerund after "whenever" names a circumstance too
        ("I brake hard whenever going downhill.", []),
        ("I brake hard whenever I go downhill.", ["whenever I go downhill"]),
        # "only if" is one marker, reported once
        ("We stay in only if it rains.", ["only if it rains"]),
        # "provided" as a verb, with its preposition after it, is no condition; as a conjunction it is
        ("The keys, provided for free, are in the box.", []),
        ("The keys, provided you ask, are yours.", ["provided you ask"]),
        # case does not matter
        ("WHENEVER it rains I read.", ["WHENEVER it rains I read"]),
    ],
)
def test_which_markers_open_a_condition(text: str, conditions: list[str]) -> None:
    assert [text[a:b] for a, b in find_conditions(text)] == conditions

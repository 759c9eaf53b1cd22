"""Realistic chat (issue #25): conditions with when/in case/provided, reported speech, facts inside
questions, to-dos, decisions, quantifier negations, sarcasm, casual spelling, dropped subjects, reason
clauses and assistant restatements. Messages written for these tests, not taken from the evaluation sets."""

from __future__ import annotations

from typing import Any

import pytest

from extractors.rules import RuleExtractor
from extractors.text import find_conditions, paragraph_spans, sentence_spans
from schemas.events import validate_event

_X = RuleExtractor()


def _claims(content: str, role: str = "user") -> list[Any]:
    ev: dict[str, Any] = {"event_id": "e-1", "tenant_id": "t", "owner_id": "u", "scope": "personal",
                          "conversation_id": "c", "role": role, "content": content,
                          "occurred_at": "2026-03-02T10:00:00+00:00"}
    if role == "participant":
        ev["speaker"] = "Ines"
    return list(_X.extract(validate_event(ev)).claims)


def _brief(c: Any) -> tuple[str, str, str, str, str | None]:
    return (c.node_type.value, c.epistemic_type.value, c.polarity.value, c.object or "", c.condition)


@pytest.mark.parametrize(
    ("text", "condition"),
    [
        ("When the kettle boils, I make oolong.", "When the kettle boils"),
        ("I cycle to work whenever it isn't raining.", "whenever it isn't raining"),
        ("I pack a head torch in case the hike runs late.", "in case the hike runs late"),
        ("Provided the ferry runs, we're visiting Skye on Sunday.", "Provided the ferry runs"),
        ("whenever i visit my aunt in cork we eat at the same cafe", "whenever i visit my aunt in cork"),
    ],
)
def test_new_condition_markers_give_the_exact_condition(text: str, condition: str) -> None:
    got = _claims(text)
    assert got, text
    assert all(c.epistemic_type.value == "CONDITIONAL" and c.condition == condition for c in got)


@pytest.mark.parametrize(
    "text",
    [
        "I have no idea when the shop opens.",
        "Back when I was a student I lived on noodles.",
        "Responses must cite the ticket when discussing outages.",
        "Here is the data I provided to the auditors.",
    ],
)
def test_when_and_provided_that_do_not_condition(text: str) -> None:
    assert find_conditions(text) == []


@pytest.mark.parametrize(
    ("text", "source", "obj"),
    [
        ("My physio says the tendon needs six more weeks.", "user's physio", "six more weeks"),
        ("According to Priya, the canteen closes at 3.", "Priya", "3"),
        ("Apparently the bakery on Elm Street is shutting down in May.", None, None),
    ],
)
def test_reported_speech_is_unverified_and_names_its_source(text: str, source: str | None, obj: str | None) -> None:
    got = _claims(text)
    assert got, text
    for c in got:
        assert c.epistemic_type.value == "UNVERIFIED"
        assert c.metadata.get("reported_source") == source
        assert c.replaces_object is None
    if obj is not None:
        assert any(obj in (c.object or "") for c in got)


def test_a_statement_before_a_question_is_a_claim_and_the_question_is_not() -> None:
    text = "I run Debian 12 on my laptop — why does the fan never stop?"
    got = _claims(text)
    assert [(c.predicate, c.object) for c in got] == [("run", "Debian 12")]
    sents = [text[s.start : s.end] for s in sentence_spans(text, paragraph_spans(text)[0])]
    assert sents == ["I run Debian 12 on my laptop", "why does the fan never stop?"]


def test_a_plain_question_still_gives_nothing() -> None:
    assert _claims("Is it worth upgrading my phone this year?") == []


@pytest.mark.parametrize(
    ("text", "obj"),
    [
        ("need to renew my passport before july", "passport"),
        ("Gotta return the library books on Friday.", "library books"),
        ("todo: descale the espresso machine", "espresso machine"),
        ("Ring the dentist about the crown.", "dentist"),
    ],
)
def test_subjectless_todos_are_asserted_tasks(text: str, obj: str) -> None:
    got = _claims(text)
    assert [(c.node_type.value, c.epistemic_type.value) for c in got] == [("TASK", "ASSERTED")]
    assert obj in (got[0].object or "")


def test_a_request_to_the_assistant_is_not_a_todo() -> None:
    assert all(c.node_type.value != "TASK" for c in _claims("Call me Theo, not Theodore."))


@pytest.mark.parametrize(
    ("text", "obj"),
    [
        ("Going with the oak worktop for the kitchen.", "oak worktop"),
        ("We'll go with Fastmail for the family domain.", "Fastmail"),
        ("I'm choosing Ghent over Bruges for the weekend.", "Ghent"),
        ("Settled on Pippin as the cat's name.", "Pippin"),
    ],
)
def test_decision_phrasings_give_decisions(text: str, obj: str) -> None:
    got = _claims(text)
    assert [(c.node_type.value, c.object) for c in got] == [("DECISION", obj)]


def test_going_somewhere_with_someone_is_no_decision() -> None:
    assert all(c.node_type.value != "DECISION" for c in _claims("I go with my brother to the match."))


@pytest.mark.parametrize(
    ("text", "subject", "obj"),
    [
        ("Nobody in my book club reads sci-fi.", "user's book club", "sci-fi"),
        ("None of my cousins speaks Welsh.", "user's cousins", "Welsh"),
        ("Not a single person on the night shift owns a car.", "night shift", "car"),
    ],
)
def test_quantifier_negations_are_negative_claims_on_the_group(text: str, subject: str, obj: str) -> None:
    (c,) = _claims(text)
    assert (c.subject, c.polarity.value, c.object) == (subject, "negative", obj)


@pytest.mark.parametrize(
    "text",
    [
        "oh I just ADORE queueing at the post office for an hour",
        "Love that for me, the boiler broke again /s",
        "My favourite thing is a 6am fire alarm test 🙃",
    ],
)
def test_sarcasm_is_never_a_sincere_preference(text: str) -> None:
    assert not any(c.node_type.value == "PREFERENCE" and c.polarity.value == "positive"
                   and c.epistemic_type.value != "HYPOTHETICAL" for c in _claims(text))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("dont eat shellfish lol", [("FACT", "ASSERTED", "negative", "shellfish", None)]),
        ("im a welder at the shipyard", [("FACT", "ASSERTED", "positive", "welder", None)]),
        ("Bought a secondhand Brompton on Saturday.", [("FACT", "ASSERTED", "positive", "secondhand Brompton", None)]),
        ("Moving to Oslo in June.", [("FACT", "ASSERTED", "positive", "Oslo", None)]),
        ("Allergic to penicillin.", [("FACT", "ASSERTED", "positive", "penicillin", None)]),
    ],
)
def test_casual_spelling_and_dropped_subjects(text: str, expected: list[tuple[str, ...]]) -> None:
    got = [_brief(c) for c in _claims(text)]
    assert got == expected


def test_an_instruction_keeps_its_reading_without_a_subject() -> None:
    (c,) = _claims("Don't use emojis in replies.")
    assert (c.node_type.value, c.epistemic_type.value, c.subject) == ("INSTRUCTION", "OBSERVED", "assistant")


@pytest.mark.parametrize(
    ("text", "objects"),
    [
        ("I'm learning to knit 'cause I love wool.", {"wool"}),
        ("I gave up sugar because it gives me headaches.", {"headaches"}),
    ],
)
def test_a_reason_clause_is_a_proposition_of_its_own(text: str, objects: set[str]) -> None:
    got = {c.object for c in _claims(text)}
    assert objects <= got


def test_an_unresolved_it_in_a_reason_gives_no_claim() -> None:
    assert all(c.subject != "it" for c in _claims("We left early because it was raining."))


def test_an_assistant_restatement_in_any_phrasing_is_inferred() -> None:
    got = _claims("Got it: Biscuit is your labrador.", role="assistant")
    assert [(c.subject, c.object, c.epistemic_type.value, c.replaces_object) for c in got] == [
        ("user's labrador", "Biscuit", "INFERRED", None)]



@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("i loooove bouldering", [("PREFERENCE", "ASSERTED", "positive", "bouldering", None)]),
        ("lowkey luv Wet Leg", [("PREFERENCE", "ASSERTED", "positive", "Wet Leg", None)]),
        ("i haaate karaoke", [("PREFERENCE", "ASSERTED", "negative", "karaoke", None)]),
        ("honestly cant stand marzipan", [("PREFERENCE", "ASSERTED", "negative", "marzipan", None)]),
        ("im def not a beach person", [("PREFERENCE", "ASSERTED", "negative", "beach", None)]),
        ("i got no siblings, only child", [("FACT", "ASSERTED", "negative", "siblings", None)]),
        ("i dont drive", [("FACT", "ASSERTED", "negative", "", None)]),
        ("i dont vape anymore", [("FACT", "ASSERTED", "negative", "", None)]),
    ],
)
def test_stretched_taste_verbs_chat_adverbs_and_bare_activities(text: str, expected: list[tuple[str, ...]]) -> None:
    assert [_brief(c) for c in _claims(text)] == expected


@pytest.mark.parametrize(
    ("text", "obj", "polarity"),
    [
        ("coriander is gross", "coriander", "negative"),
        ("olives r nasty tbh", "olives", "negative"),
        ("Morris dancing is so boring", "Morris dancing", "negative"),
        ("halloumi is life", "halloumi", "positive"),
        ("i find crosswords really relaxing", "crosswords", "positive"),
        ("I find darts unbearably dull", "darts", "negative"),
        ("Jogging is the worst.", "Jogging", "negative"),
    ],
)
def test_a_bare_noun_judged_is_the_speakers_taste(text: str, obj: str, polarity: str) -> None:
    (c,) = _claims(text)
    assert (c.node_type.value, c.subject, c.predicate, c.object, c.polarity.value) == (
        "PREFERENCE", "user", "likes", obj, polarity)


@pytest.mark.parametrize(
    "text",
    ["my commute is the worst", "it's the best", "I got no reply from the landlord",
     "queues are the best, said no one ever", "mondays are the best 🙃"],
)
def test_judgements_of_owned_or_pointed_at_things_and_sarcasm_are_no_taste(text: str) -> None:
    assert not any(c.predicate == "likes" for c in _claims(text))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I love audiobooks, especially when I'm driving.",
         [("PREFERENCE", "ASSERTED", "positive", "audiobooks", None)]),
        ("ramen is my favourite comfort food, particularly when it's raining",
         [("PREFERENCE", "ASSERTED", "positive", "ramen", None)]),
        ("I only drink coffee when I'm at work.",
         [("FACT", "CONDITIONAL", "positive", "coffee", "when I'm at work")]),
    ],
)
def test_an_emphasised_when_is_no_condition(text: str, expected: list[tuple[str, ...]]) -> None:
    assert [_brief(c) for c in _claims(text)] == expected


def test_a_favourite_ranked_with_an_infinitive_is_the_favourite_of_its_category() -> None:
    (c,) = _claims("My favourite sport to watch is snooker.")
    assert (c.predicate, c.object) == ("favorite_sport", "snooker")
    assert [c.predicate for c in _claims("My way to relax is yoga.")] != ["favorite_way"]


def test_having_read_a_book_is_a_claim_and_having_read_that_is_hearsay() -> None:
    assert [(c.epistemic_type.value, c.predicate, c.object) for c in _claims("I've read Middlemarch twice.")] == [
        ("ASSERTED", "read", "Middlemarch")]
    assert [c.epistemic_type.value for c in _claims("I've read that the ferry stops in October.")] == ["UNVERIFIED"]


@pytest.mark.parametrize(
    ("text", "obj"),
    [("I do yoga twice a week", "yoga"), ("we do the school run on fridays", "school run"),
     ("we do aqua jogging at the pool", "aqua jogging")],
)
def test_do_with_a_thing_after_it_is_the_main_verb(text: str, obj: str) -> None:
    got = [(c.predicate, c.object) for c in _claims(text)]
    assert ("do", obj) in got, got
    # the past is an outing, as 'did the Tongariro Crossing' always was
    assert [(c.predicate, c.object) for c in _claims("I did a half marathon in may")] == [("did", "half marathon")]


@pytest.mark.parametrize("text", ["I do love it", "I do think so", "I did go, in the end", "do you know?"])
def test_an_emphatic_or_question_do_is_no_claim_of_doing(text: str) -> None:
    assert not [c for c in _claims(text) if c.predicate == "do"]


@pytest.mark.parametrize(
    ("text", "holder"),
    [("Tom thinks pizza is great", "Tom"), ("my sister says sushi is the best", "user's sister")],
)
def test_a_reported_bare_opinion_is_the_reporters_taste_not_the_speakers(text: str, holder: str) -> None:
    got = [(c.subject, c.predicate, c.epistemic_type.value) for c in _claims(text)]
    assert (holder, "likes", "UNVERIFIED") in got
    assert not [g for g in got if g[0] == "user" and g[1] == "likes"]


def test_a_reported_first_person_taste_stays_the_speakers() -> None:
    got = [(c.subject, c.predicate, c.epistemic_type.value) for c in _claims("Tom said I love pizza")]
    assert ("user", "likes", "UNVERIFIED") in got


def _spo(text: str) -> list[tuple[str, str, str | None]]:
    return [(c.subject, c.predicate, c.object) for c in _claims(text) if c.epistemic_type.value == "ASSERTED"]


@pytest.mark.parametrize(
    ("text", "predicate", "obj"),
    [
        # "had a <judged> time/blast/week ... <doing>": what was done
        ("had an awesome time climbing at the Castle on friday", "climb_at", "Castle"),
        ("I had a brilliant weekend camping in the Peaks", "camp_in", "Peaks"),
        ("had a blast at Boomtown dancing till 3", "had_blast_at", "Boomtown"),
        # "had a <judged> <thing> at/in <place>": what, and where
        ("Had a gorgeous brunch at Dishoom with the girls.", "had", "brunch at Dishoom"),
        # past outings with a dropped subject
        ("Tried the new ramen bar on Quay Street, so good", "tried", "new ramen bar on Quay Street"),
        ("did a pottery taster at Mudlarks on Sunday", "did", "pottery taster at Mudlarks"),
        ("Just got back from a fortnight in Crete!", "got_back_from", "Crete"),
        ("Got stranded at Gatwick overnight, the flight was cancelled", "got_stranded_at", "Gatwick"),
    ],
)
def test_casual_experiences_become_claims_with_their_place(text: str, predicate: str, obj: str) -> None:
    assert ("user", predicate, obj) in _spo(text), _spo(text)


@pytest.mark.parametrize(
    "text",
    ["I had a dog", "had a day off", "did my best", "I did it", "I didn't have a great time at the party",
     "maybe I tried the ramen bar"],
)
def test_past_states_and_hedged_or_negated_outings_are_no_experience(text: str) -> None:
    assert not [t for t in _spo(text) if t[1].startswith(("had", "tried", "did"))], _spo(text)


@pytest.mark.parametrize(
    ("text", "triple"),
    [
        # an opener before the clause: "heads up", a label and a colon before "all the ..."
        ("heads up the print server only accepts 40 pages per job", ("print server", "accept", "40 pages")),
        ("note for later: all the tax receipts live in Dropbox now", ("tax receipts", "lives_in", "Dropbox")),
        # a setting phrase before a lowercase "i"
        ("for the marathon i'm using Strava as the training log", ("user", "uses", "Strava")),
        # a verb whose past is its base form, with a past time: the speaker's report, not an instruction
        ("cut my hair short yesterday, feels weird", ("user", "cut", "hair short")),
    ],
)
def test_openers_labels_and_lowercase_i_leave_the_clause_readable(text: str, triple: tuple[str, str, str]) -> None:
    got = [(c.subject, c.predicate, c.object) for c in _claims(text)]
    assert triple in got, got


def test_a_same_form_verb_without_a_past_time_is_not_read_as_the_speakers_past() -> None:
    got = _claims("reset my router password please")
    assert [c for c in got if c.subject == "user" and c.predicate == "reset"] == []


def test_an_object_ending_in_a_copula_is_a_misread_clause_and_is_dropped() -> None:
    got = [c.object or "" for c in _claims("i'm using Zotero for the references, citation style is apa")]
    assert "Zotero" in got and not any("is" in o.split() for o in got), got


@pytest.mark.parametrize(
    ("text", "triple"),
    [
        # "had" with a date is an event of the past, for the speaker and for a relative
        ("my mum had hip surgery last year, she's fine now", ("user's mum", "had", "hip surgery")),
        ("I had a car accident in 2021", ("user", "had", "car accident")),
        # what someone is stuck with is what they use
        ("on the work laptop we're stuck with Outlook", ("user", "uses", "Outlook")),
        # a setting phrase after a comma opens the next clause
        ("I teach piano for a living, and at weekends I referee rugby", ("user", "referee", "rugby")),
        ("I run Arch at home, yet at the office I'm stuck on macOS", ("user", "uses", "macOS")),
        # "we both ..." is "we ..."
        ("my partner and I are nurses and we both play hockey", ("user", "plays", "hockey")),
    ],
)
def test_dated_events_stuck_with_setting_phrases_and_we_both(text: str, triple: tuple[str, str, str]) -> None:
    got = [(c.subject, c.predicate, c.object) for c in _claims(text)]
    assert triple in got, got


@pytest.mark.parametrize(
    "text",
    ["I had a dog.", "I didn't have surgery last year.", "maybe I had covid last week", "I'm stuck in traffic"],
)
def test_an_undated_or_negated_had_and_stuck_in_state_no_event_or_use(text: str) -> None:
    stated = [c for c in _claims(text) if c.predicate in ("had", "uses")]
    assert all(c.polarity.value == "negative" or c.epistemic_type.value == "HYPOTHETICAL" for c in stated), stated


@pytest.mark.parametrize(
    ("text", "triples"),
    [
        ("I live in Porto and I work at Farfetch.", {("user", "lives_in", "Porto"), ("user", "works_at", "Farfetch")}),
        ("we live in Graz and we both teach", {("user", "lives_in", "Graz")}),
    ],
)
def test_a_place_phrase_inside_a_clause_is_not_a_new_clause(text: str, triples: set[tuple[str, str, str]]) -> None:
    assert triples <= {(c.subject, c.predicate, c.object) for c in _claims(text)}


@pytest.mark.parametrize(
    ("text", "objects"),
    [
        ("I have a dog and two cats.", ["dog", "two cats"]),
        ("We own a Kindle, a Kobo and an old iPad.", ["Kindle", "Kobo", "old iPad"]),
        ("we have a rabbit called Pip and a hamster called Nibbles", ["rabbit called Pip", "hamster called Nibbles"]),
        # a clause or a sequence after "and" is not another thing the speaker has
        ("We have a greyhound and she hates thunder.", ["greyhound"]),
        ("I have a dentist appointment and then a haircut.", ["dentist appointment"]),
    ],
)
def test_everything_the_speaker_has_is_a_claim_of_its_own(text: str, objects: list[str]) -> None:
    claims = _claims(text)
    assert [(c.predicate, c.object) for c in claims] == [("has", o) for o in objects]


@pytest.mark.parametrize(
    ("text", "triple"),
    [
        ("Heading to Tbilisi for a wedding next month.", ("user", "go_to", "Tbilisi")),
        ("we're heading to the Dolomites in august", ("user", "go_to", "Dolomites")),
        ("Just back from Tromsø, saw the lights!", ("user", "back_from", "Tromsø")),
        ("I'm home from Dakar since Sunday.", ("user", "back_from", "Dakar")),
    ],
)
def test_a_trip_with_or_without_its_subject_is_a_claim(text: str, triple: tuple[str, str, str]) -> None:
    assert (triple) in [(c.subject, c.predicate, c.object) for c in _claims(text)]


@pytest.mark.parametrize("text", ["Heading to bed, night all.", "heading to the gym then work", "Heading out now."])
def test_heading_to_an_errand_is_no_claim(text: str) -> None:
    assert _claims(text) == []


@pytest.mark.parametrize(
    ("text", "obj"),
    [
        ("I play hooker for Old Belvedere.", "hooker for Old Belvedere"),  # the team is part of what is played
        ("I coach a netball team in Dunedin.", "netball team in Dunedin"),
        ("I volunteer at a food bank in Govan.", "food bank in Govan"),
        ("I moved to Leeds in March.", "Leeds"),  # a date is no part of the place
        ("I started a pottery class on Tuesdays.", "pottery class"),
        ("I work at Initech in London.", "Initech"),  # a name keeps its own object; the city is another matter
        ("We rejected the proposal to rewrite the billing gateway in Go.", "proposal to rewrite the billing gateway"),
    ],
)
def test_a_named_place_or_team_after_a_common_noun_stays_in_the_object(text: str, obj: str) -> None:
    assert [c.object for c in _claims(text)][:1] == [obj]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("We aren't engaged, just dating.", [("is", "engaged", "negative"), ("is", "dating", "positive")]),
        ("i dont own a car, just a scooter", [("has", "car", "negative"), ("has", "scooter", "positive")]),
        ("I don't speak Greek, only a bit of Italian.",
         [("speaks", "Greek", "negative"), ("speaks", "bit of Italian", "positive")]),
        # what follows is a clause or an instruction's aside, not a value that holds instead
        ("I don't eat pork, just so you know.", [("eats", "pork", "negative")]),
    ],
)  # fmt: skip
def test_after_a_negation_just_y_is_what_holds_instead(text: str, expected: list[tuple[str, str, str]]) -> None:
    assert [(c.predicate, c.object, c.polarity.value) for c in _claims(text)] == expected


def test_an_instruction_with_just_keeps_its_one_reading() -> None:
    claims = _claims("Don't call me Dr. Okafor, just Chidi is fine.")
    assert [(c.node_type.value, c.polarity.value) for c in claims] == [("INSTRUCTION", "negative")]


@pytest.mark.parametrize(
    ("text", "triple", "etype"),
    [
        ("The office is getting new desks in June.", ("office", "get", "new desks"), "ASSERTED"),
        ("we're getting a second cat next month", ("user", "get", "second cat"), "ASSERTED"),
        ("My neighbour says the street is getting fibre broadband.", ("street", "get", "fibre broadband"),
         "UNVERIFIED"),
    ],
)  # fmt: skip
def test_getting_a_thing_is_a_claim(text: str, triple: tuple[str, str, str], etype: str) -> None:
    assert [((c.subject, c.predicate, c.object), c.epistemic_type.value) for c in _claims(text)] == [(triple, etype)]


@pytest.mark.parametrize("text", ["I'm getting tired of this.", "getting there slowly", "I'm getting more anxious."])
def test_getting_into_a_state_is_no_claim(text: str) -> None:
    assert _claims(text) == []


@pytest.mark.parametrize(
    ("text", "want"),
    [("I look after my dad on Fridays.", ("look_after", "dad")),
     ("we're looking for a flat in Brunswick", ("look_for", "flat in Brunswick")),
     ("i get up at 4:30 most days", ("get_up_at", "4:30")),
     ("I'm saving for a deposit", ("save_for", "deposit"))],
)
def test_a_verb_with_its_particle_is_a_fact(text: str, want: tuple[str, str]) -> None:
    assert want in [(c.predicate, c.object) for c in _claims(text)]


@pytest.mark.parametrize("text", ["I look tired", "I woke up at 6 today", "got up late"])
def test_a_particle_verb_of_one_morning_or_a_look_is_no_fact(text: str) -> None:
    assert _claims(text) == []


def test_list_items_with_their_own_setting_are_all_kept() -> None:
    got = [c.object for c in _claims("I speak Italian at home, Spanish at work and English with my clients.")]
    assert got == ["Italian", "Spanish", "English"]
    assert [c.object for c in _claims("I speak Italian at home and English at work")] == ["Italian", "English"]
    # a capitalised name with its verb still opens a clause of its own
    assert [(c.subject, c.object) for c in _claims("i have a cat and Tom has a dog")] == [
        ("user", "cat"), ("Tom", "dog")]


def test_a_bare_verb_after_and_shares_the_first_persons_subject() -> None:
    got = [(c.predicate, c.object) for c in _claims("I fly to Amman on the 3rd and come back on the 17th.")]
    assert got == [("fly_to", "Amman"), ("come_back_on", "17th")]
    assert [c.object for c in _claims("I like tea and cake")] == ["tea", "cake"]


def test_the_same_year_is_a_time_not_part_of_the_object() -> None:
    got = [(c.predicate, c.object) for c in _claims("I quit smoking in 2019 and took up bouldering the same year.")]
    assert ("take_up", "bouldering") in got


@pytest.mark.parametrize(
    ("text", "obj"),
    [("I'm doing a PhD in glaciology at Edinburgh", "PhD in glaciology"),
     ("i have a masters in data science", "masters in data science"),
     ("I have a degree in 2019", "degree")],
)
def test_a_qualification_keeps_its_field_never_its_year(text: str, obj: str) -> None:
    assert [c.object for c in _claims(text)] == [obj]


def test_getting_married_is_an_event_to_come_not_the_status_yet() -> None:
    got = [(c.subject, c.predicate, c.object) for c in _claims("my sister's getting married in tuscany next june")]
    assert got == [("user's sister", "getting_married_in", "tuscany")]
    assert [(c.predicate, c.object) for c in _claims("I'm getting married next month")] == [("getting", "married")]
    (done,) = _claims("we got married in 2019")
    assert (done.predicate, done.object, done.replaces_object is None) == ("is", "married", True)


def test_the_reason_in_an_assistant_restatement_is_restated_too() -> None:
    got = [(c.node_type.value, c.epistemic_type.value, c.subject, c.predicate, c.object)
           for c in _claims("So you're opening a bakery because you love baking — love it!", role="assistant")]
    assert got == [("FACT", "INFERRED", "user", "open", "bakery"),
                   ("PREFERENCE", "INFERRED", "user", "likes", "baking")]


def _tastes(text: str) -> list[tuple[str, str, str]]:
    return [(c.subject, c.object or "", c.polarity.value) for c in _claims(text)
            if c.predicate == "likes" and c.node_type.value == "PREFERENCE"]


@pytest.mark.parametrize(
    ("text", "taste"),
    [
        # a bare thing the clause before described is what the fan clause is about
        ("padel is a workout and i'm not really a fan, too sweaty", ("user", "padel", "negative")),
        # the speaker's own object, with a negated or plain fan clause after it
        ("i listen to audiobooks, not a big fan though", ("user", "audiobooks", "negative")),
        ("i binge cooking shows, i'm a huge fan", ("user", "cooking shows", "positive")),
    ],
)
def test_a_fan_clause_is_a_taste_in_what_the_clause_before_named(text: str, taste: tuple[str, str, str]) -> None:
    assert _tastes(text) == [taste]


@pytest.mark.parametrize(
    "text",
    [
        "Tom is a plumber and I'm not a fan",  # a person is no thing to be a fan of
        "my brother is a dentist, i'm not a fan",  # a value of the speaker's relative, not a thing done
        "I'm not a fan.",  # nothing before it to stand for
    ],
)
def test_a_fan_clause_without_a_thing_before_it_is_no_taste(text: str) -> None:
    assert _tastes(text) == []


def test_a_fan_of_clause_still_names_its_own_object() -> None:
    assert _tastes("we go to the theatre a lot, but I'm not a fan of musicals") == [("user", "musicals", "negative")]


@pytest.mark.parametrize(
    ("text", "taste"),
    [
        ("i'm a dog person through and through", ("user", "dog", "positive")),
        ("Not a city person at all, too noisy", ("user", "city", "negative")),
        ("honestly im a tea person", ("user", "tea", "positive")),
    ],
)
def test_a_noun_person_idiom_is_a_taste_in_the_noun(text: str, taste: tuple[str, str, str]) -> None:
    assert _tastes(text) == [taste]
    assert not [c for c in _claims(text) if c.predicate == "is_a"]


@pytest.mark.parametrize(
    ("text", "trait"),
    [
        ("I'm a very private person", "very private person"),
        ("I'm a creative person", "creative person"),
        ("i'm not a morning person", "morning person"),  # a chronotype, a trait rather than a taste
    ],
)
def test_a_trait_person_stays_a_trait(text: str, trait: str) -> None:
    assert _tastes(text) == []
    assert [(c.predicate, c.object) for c in _claims(text)] == [("is_a", trait)]


def test_someone_elses_noun_person_is_not_the_speakers_taste() -> None:
    assert _tastes("my uncle is a cat person") == []


@pytest.mark.parametrize(
    ("text", "taste"),
    [
        ("marmite? hard pass", ("user", "marmite", "negative")),
        ("oysters? nah, smell like low tide, yuck", ("user", "oysters", "negative")),
        ("karaoke? i really hate it", ("user", "karaoke", "negative")),
        ("ramen? love it so much", ("user", "ramen", "positive")),
    ],
)
def test_a_topic_question_answered_by_an_opinion_is_a_taste(text: str, taste: tuple[str, str, str]) -> None:
    got = _claims(text)
    assert [(c.subject, c.object, c.polarity.value) for c in got] == [taste]
    assert got[0].evidence_quote == text  # the quote holds the topic and the answer


@pytest.mark.parametrize(
    "text",
    [
        "tea? fancy some?",  # a real question, answered by none
        "lunch? at noon?",
        "coffee? nah, i'm good",  # declining an offer judges nothing
        "seen it? love it",  # a question with its subject dropped names no topic
        "I went to the market. Plums? Yes please",
    ],
)
def test_a_question_without_an_opinion_after_it_is_no_taste(text: str) -> None:
    assert _tastes(text) == []


def test_tastes_like_is_a_dropped_subject_not_a_subject_called_tastes() -> None:
    assert _claims("nah, tastes like burnt toast") == []
    assert not [c for c in _claims("cider? nah, tastes like apple vinegar, hard pass") if c.subject != "user"]


@pytest.mark.parametrize(
    ("text", "taste"),
    [
        ("charred broccoli is elite, no joke", ("user", "charred broccoli", "positive")),
        ("pickled beets r gross", ("user", "pickled beets", "negative")),
    ],
)
def test_a_participle_opening_a_judged_subject_is_no_dropped_verb(text: str, taste: tuple[str, str, str]) -> None:
    assert [(c.subject, c.object, c.polarity.value) for c in _claims(text)] == [taste]
    assert [c.predicate for c in _claims(text)] == ["likes"]


@pytest.mark.parametrize(
    ("text", "triple"),
    [("roasted a chicken last night", ("user", "roasted", "chicken")),
     ("grilled some peppers for lunch", ("user", "grilled", "peppers"))],
)
def test_a_participle_with_no_judged_copula_keeps_the_dropped_subject(text: str, triple: tuple[str, str, str]) -> None:
    assert _spo(text) == [triple]


@pytest.mark.parametrize(
    ("text", "triple"),
    [
        ("me and my flatmate bake sourdough on saturdays", ("user", "bake", "sourdough")),
        ("my cousin and me play chess online", ("user", "plays", "chess online")),
        ("honestly me and Priya hate escape rooms", ("user", "likes", "escape rooms")),
    ],
)
def test_a_joint_subject_with_the_speaker_is_the_speakers(text: str, triple: tuple[str, str, str]) -> None:
    assert triple in _spo(text)


def test_a_joint_subject_then_a_fan_clause_is_a_taste_in_the_object() -> None:
    assert _tastes("me and my flatmate cook curry every sunday, i'm a big fan") == [("user", "curry", "positive")]


def test_someone_elses_clause_before_and_i_is_not_a_joint_subject() -> None:
    got = _spo("My husband teaches yoga and I run a cafe")
    assert ("user's husband", "teach", "yoga") in got
    assert ("user", "run", "cafe") in got
    assert not [g for g in got if g[0] == "user" and g[2] == "yoga"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("at shopify now, still on the payments team", ("user", "is_at", "shopify")),
        ("on arch these days and loving it", ("user", "uses", "arch")),
        ("in porto now, the rent is so much better", ("user", "is_in", "porto")),
    ],
)
def test_a_place_or_tool_the_speaker_is_at_now_keeps_its_dropped_im(text: str, expected: tuple[str, str, str]) -> None:
    claims = _claims(text)
    assert any((c.subject, c.predicate, c.object) == expected and c.temporal_intent.value == "update" for c in claims)


@pytest.mark.parametrize(
    "text", ["at the dentist now, ugh", "in bed now lol", "on holiday now!", "at least now it works"]
)
def test_where_someone_is_today_is_no_state(text: str) -> None:
    assert not [c for c in _claims(text) if c.predicate in ("is_at", "is_in", "uses")]


@pytest.mark.parametrize(
    ("text", "employer"),
    [
        ("i work remotely for a fintech in manchester", "fintech"),
        ("i work part-time at a garden centre", "garden centre"),
        ("i work nights at the royal infirmary", "royal infirmary"),
        ("I work from home for an insurance firm", "insurance firm"),
    ],
)
def test_how_one_works_between_the_verb_and_the_employer_keeps_the_employer(text: str, employer: str) -> None:
    assert [c.object for c in _claims(text) if c.predicate == "works_at"] == [employer]


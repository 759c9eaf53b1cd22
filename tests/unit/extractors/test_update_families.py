"""Realistic message pairs through the rule extractor and the reducer: what the second message does to
the claim the first one made (issue #25: updates, negative updates, corrections, favourites, single-valued
attributes and qualifiers). The messages are written for these tests, not taken from the evaluation sets."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from engine.reducer import Reducer
from engine.store import InMemoryStateStore
from extractors.base import engine_config_for, get_extractor, load_attribute_file
from extractors.rules import RuleExtractor
from extractors.rules.updates import correcting, update_words
from schemas.enums import OpType
from schemas.errors import InvalidConfiguration
from schemas.events import validate_event
from schemas.settings import Settings

T0 = datetime(2026, 5, 4, 9, 0, tzinfo=UTC)
EXTRACTOR = RuleExtractor()


def _event(n: int, content: str, role: str = "user", scope: str = "personal", **kw: Any) -> Any:
    return validate_event({
        "event_id": f"e{n}", "tenant_id": "t1", "owner_id": "o1", "scope": scope, "role": role,
        "content": content, "occurred_at": (T0 + timedelta(hours=5 * n)).isoformat(), **kw,
    })


def outcome(first: str, second: str, *, role: str = "user", scope: str = "personal",
            extractor: RuleExtractor = EXTRACTOR, reducer: Reducer | None = None, **kw: Any) -> str:
    """contradiction, supersedence or coexistence: what the second message did."""
    store = InMemoryStateStore()
    reducer = reducer or Reducer()
    reducer.apply(store, extractor.extract(_event(1, first, scope=scope)))
    ops = reducer.apply(store, extractor.extract(_event(2, second, role=role, scope=scope, **kw))).operations
    kinds = {o.op_type for o in ops}
    if OpType.CONTRADICTION_NOTED in kinds:
        return "contradiction"
    return "supersedence" if OpType.SUPERSEDENCE_APPLIED in kinds else "coexistence"


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("I live in Leeds, near the university.", "I live in York, right by the Minster."),
        ("I work at Initrode in the finance team.", "I work at Hooli on their search product."),
        ("I'm 41, for the insurance quote.", "I'm 35 and I run most weekends."),
        ("My favourite band is Blur, I have every album.", "My favourite band is Pulp, Different Class is perfect."),
        ("I'm based in Porto, five minutes from the river.", "I'm based in Braga, which is quieter."),
        ("I'm a primary school teacher, year four this term.", "I'm a tax accountant at a small firm."),
    ],
)
def test_a_different_value_of_a_single_valued_attribute_stated_plainly_contradicts(first: str, second: str) -> None:
    assert outcome(first, second) == "contradiction"


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("I bank with Barclays, the app is fine.", "went from barclays to monzo last month, so much better"),
        ("My main browser is Edge, work made me.", "I swapped Edge for Vivaldi, the tab stacks are great."),
        ("We host the docs site on Heroku.", "We migrated off Heroku to Render last sprint."),
        ("I keep all my passwords in Dashlane.", "ditched dashlane for 1Password, the family plan is cheaper"),
        ("I work at Ocado in the robotics group.", "I left Ocado for Wayve in January."),
        ("Our CI runs on CircleCI.", "We moved CI from CircleCI to Buildkite, the queues were killing us."),
        ("I drive a Nissan Leaf, it's perfect for town.", "traded in the leaf for a second-hand Zoe, more range"),
        ("I use Todoist for everything.", "We dropped Todoist in favour of Notion, nicer on the Mac."),
    ],
)
def test_an_update_naming_the_old_value_supersedes_it(first: str, second: str) -> None:
    assert outcome(first, second) == "supersedence"


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("I live in Cardiff, in Canton.", "We moved to Swansea a few weeks ago, still living out of boxes."),
        ("I'm 44, for the insurance form.", "Just turned 45, the kids baked a cake."),
        ("I work at Arup as a structural engineer.", "Started at Atkins last week, new badge and everything."),
        ("My shell is zsh, with a couple of plugins.", "changed my default shell to nushell over the weekend"),
        ("I'm engaged, the wedding is next spring.", "We got married on Friday, what a day."),
        ("I'm a junior analyst on the pricing team.", "I got promoted to senior analyst this month!"),
    ],
)
def test_an_update_of_a_single_valued_attribute_supersedes_without_naming_the_old_value(
    first: str, second: str
) -> None:
    assert outcome(first, second) == "supersedence"


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("I own a Brompton, I fold it onto the train.", "Sold the Brompton last month, I drive in now."),
        ("I sing in a chamber choir on Mondays.", "I left the chamber choir, too many rehearsals."),
        ("I'm on Facebook most evenings.", "deleted facebook, best thing I've done all year"),
        ("I smoke menthols, about ten a day.", "I quit smoking menthols in March."),
        ("I'm subscribed to the New Yorker, the print one.",
         "cancelled my new yorker subscription, no time to read it"),
        ("I play in a Thursday five-a-side league.", "I'm not playing five-a-side anymore after my ankle went."),
    ],
)
def test_a_negative_update_supersedes_the_positive_claim(first: str, second: str) -> None:
    assert outcome(first, second) == "supersedence"


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("I work at Globex, in the Leeds office.", "Actually, correction: I work at Initech, not Globex."),
        ("I live on Elm Road, number 9, for the parcel.", "Sorry, I said Elm Road but I meant Elm Grove."),
        ("My train arrives at 17:20, so pick me up then.", "my bad, it gets in at 17:50, the 17:20 was cancelled"),
        ("I'm a project manager at a charity.", "Correction, I'm a programme manager, not a project manager."),
        ("Actually the dinner is on Friday at 8.", "scratch that, the dinner is on Saturday at 8"),
        # a full clause with the new value, then the old one after "not"
        ("My flight lands at 09:40, so no rush.", "I got that wrong, my flight lands at 11:05, not 09:40."),
        ("my cousin is called Siobhan", "my bad, my cousin is called Sinead, not Siobhan"),
        ("Our office is in Dalston.", "Oops, our office is in Hackney, not Dalston."),
        ("We use Jenkins for CI.", "Sorry, we use GitLab CI, not Jenkins."),
        ("We're on Java 8 for the billing service.", "Not Java 8 — we're on Java 17."),
    ],
)
def test_a_correction_supersedes_what_it_corrects(first: str, second: str) -> None:
    assert outcome(first, second) == "supersedence"


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Paprika is my favourite spice, it goes in everything.", "I don't like paprika, it's too smoky for me."),
        ("I hate westerns, so no cowboy films please.", "My favourite western is Unforgiven, a masterpiece."),
        ("milk chocolate is my favourite, the creamier the better", "I dislike chocolate in general, too sweet."),
        ("I've been to Lisbon four times, always in May.", "I've never been to Lisbon, it's on my list."),
        ("I drink two lattes a day at least.", "I don't drink lattes, dairy doesn't agree with me."),
        ("I swim every morning before work.", "I don't swim, I never learned."),
        ("I bake bread most weekends, sourdough mainly.", "I don't bake at all, too much faff."),
    ],
)
def test_favourites_against_dislikes_and_counts_against_negations_contradict(first: str, second: str) -> None:
    assert outcome(first, second) == "contradiction"


@pytest.mark.parametrize(
    ("first", "second", "kw"),
    [
        ("I speak Dutch at home.", "I speak Portuguese as well, from two years in Recife.", {}),
        ("I play the bass in a covers band.", "I've started playing the ukulele too.", {}),
        ("I live in Bristol, by the harbour.", "My sister lives in Bath, so I visit a lot.", {}),
        ("I live in Bristol, by the harbour.", "I might move to Bath next year.", {}),
        ("I live in Bristol, by the harbour.", "If the job comes through I'll move to Bath.", {}),
        ("I live in Bristol, by the harbour.", "Since you live in Bath, the Roman baths are a must.",
         {"role": "assistant"}),
        ("I work at Initech, on payroll.", "As I said, I work at Initech, mostly payroll.", {}),
        ("I live in Reading, it's an easy commute.", "I'm reading a great novel about whales.", {}),
        ("I drive a Jaguar, my one treat.", "We saw a jaguar at the zoo yesterday.", {}),
        ("I don't cook much on weeknights.", "I cook a big curry every Sunday.", {}),
    ],
)
def test_coexistence_stays_coexistence(first: str, second: str, kw: dict[str, Any]) -> None:
    assert outcome(first, second, **kw) == "coexistence"


def test_team_facts_meet_across_speakers_in_a_project() -> None:
    first = "Our standup is at 9:30 in the big room."
    assert outcome(first, "Our standup is at 10:00 now, after the support handover.", role="participant",
                   scope="project", speaker="Ravi") == "supersedence"
    assert outcome(first, "Our standup is at 11:15, in the small room.", role="participant", scope="project",
                   speaker="Ravi") == "contradiction"


def test_corrections_are_recognised_and_plain_statements_are_not() -> None:
    for text in ("Correction: it's Tuesday", "sorry, I meant the 14th", "scratch that", "my bad, it's 6pm",
                 "Actually my flat is on the third floor", "I misspoke earlier, I'm in Lyon",
                 "sorry, it's the 9th", "make that 7pm", "disregard that, the venue is Hall B"):
        assert correcting(text), text
    for text in ("I actually love this", "I live in Lyon", "The meeting moved to 3pm"):
        assert not correcting(text), text


@pytest.mark.parametrize(
    ("text", "correcting_"),
    [
        ("Sorry, I work at Hooli, not Pied Piper.", True),  # an apology, then a value and the one it replaces
        ("Not Java 8 — we're on Java 17.", True),  # the replaced value first
        ("Wait, no — my son is allergic to kiwi, not mango.", True),
        ("No, wait: the venue is Hall B.", True),
        ("Not using Slack anymore, we're on Discord now.", False),  # a negated activity, not a replaced value
        ("Sorry, I can't make it.", False),
        ("Not sure, maybe Tuesday.", False),
        ("Sorry I'm late, not my fault.", False),
    ],
)
def test_an_apology_or_a_leading_not_with_a_replaced_value_is_a_correction(text: str, correcting_: bool) -> None:
    assert correcting(text) is correcting_


@pytest.mark.parametrize(
    ("text", "obj", "replaced"),
    [
        ("I got that wrong, my flight lands at 11:05, not 09:40.", "11:05", "09:40"),
        ("Oops, our office is in Hackney, not Dalston.", "Hackney", "Dalston"),
        ("Correction: the deposit is €2,400, not €2,100.", "€2,400", "€2,100"),
        ("Not Java 8 — we're on Java 17.", "Java 17", "Java 8"),
    ],
)
def test_a_correction_in_a_full_clause_names_the_value_it_replaces(text: str, obj: str, replaced: str) -> None:
    claims = EXTRACTOR.extract(_event(1, text)).claims
    assert [(c.object, c.replaces_object) for c in claims] == [(obj, replaced)]


def test_a_deployments_attribute_file_reaches_the_extractor_and_the_engine(tmp_path: Path) -> None:
    path = tmp_path / "attributes.json"
    path.write_text(json.dumps({
        "all_tenants": {"attributes": {"gym": {"cardinality": "single", "synonyms": ["gym_membership"]}},
                        "updates": {"negative_update_verbs": ["offloaded"]}},
    }), encoding="utf-8")
    settings = Settings(attributes_file=path)
    extractor = get_extractor("rules", settings)
    assert isinstance(extractor, RuleExtractor)
    assert update_words(extractor.attributes).give_up.match("offloaded the bike") is not None
    config = engine_config_for(settings)
    assert config.attributes.attributes["gym"].cardinality == "single"
    assert outcome("I own a vintage Vespa.", "offloaded the vintage Vespa to a collector", extractor=extractor,
                   reducer=Reducer(config)) == "supersedence"
    assert outcome("I own a vintage Vespa.", "offloaded the vintage Vespa to a collector") == "coexistence"


def test_a_missing_or_broken_attribute_file_is_a_typed_error(tmp_path: Path) -> None:
    with pytest.raises(InvalidConfiguration) as missing:
        load_attribute_file(Settings(attributes_file=tmp_path / "nope.json"))
    broken = tmp_path / "broken.json"
    broken.write_text('{"all_tenants": {"attributes": {"gym": {"cardinality": "some"}}}}', encoding="utf-8")
    with pytest.raises(InvalidConfiguration) as malformed:
        load_attribute_file(Settings(attributes_file=broken))
    assert missing.value.code == malformed.value.code == "invalid_configuration"
    assert load_attribute_file(Settings()) is None


@pytest.mark.parametrize(
    ("first", "second", "expected"),
    [
        ("I've been to Lisbon loads of times, mostly for work.", "I've never been to Lisbon.", "contradiction"),
        ("My phone is a Galaxy S21.", "Got a Pixel 8 now, ditched the Galaxy.", "supersedence"),
        ("I'm on the Premium plan with Duolingo.", "I downgraded to the basic plan.", "supersedence"),
        ("We use the Java SDK for the uploads.", "We switched to the Rust SDK last sprint.", "supersedence"),
        ("I use the Java SDK for the uploads.", "I use the Rust SDK too.", "coexistence"),
        ("I like Thai food.", "Now I like Korean food too.", "coexistence"),
        ("i luv sushi, have it every week", "ngl sushi is gross, the texture gets me", "contradiction"),
        ("i got no tattoos", "i have a couple tattoos, one on my ankle", "contradiction"),
        ("I'm fluent in Portuguese.", "I don't speak any Portuguese.", "contradiction"),
        ("i go climbing like 3x a week", "i never go climbing", "contradiction"),
        ("I'm fluent in Portuguese.", "I speak Dutch too.", "coexistence"),
    ],
)
def test_chat_qualifiers_comma_clauses_and_updates_within_one_kind(first: str, second: str, expected: str) -> None:
    assert outcome(first, second) == expected


def test_an_opening_actually_that_only_flips_a_polarity_contradicts_and_a_marked_correction_retires() -> None:
    assert outcome("I don't like olives.", "Actually, I like olives.") == "contradiction"
    assert outcome("I don't like olives.", "Correction: I do like olives.") == "supersedence"
    assert outcome("My dentist is on Friday.", "Actually my dentist is on Thursday.") == "supersedence"


@pytest.mark.parametrize(
    ("first", "second", "expected"),
    [
        ("I've got an old Kawasaki", "my kawasaki was sold last weekend", "supersedence"),
        ("i use Notion for everything", "notion is uninstalled, too slow", "supersedence"),
        ("we use a jenkins box for CI", "our jenkins box has been decommissioned", "supersedence"),
        # not the speaker's, or not given up by anyone the speaker speaks for
        ("I drive along the coast road to work", "the coast road was closed", "coexistence"),
        ("I'm playing in the cup final on Saturday", "the final was cancelled", "coexistence"),
        ("I have an old Kawasaki", "my kawasaki isn't sold yet", "coexistence"),
    ],
)
def test_a_thing_said_given_up_in_the_passive_is_a_negative_update(first: str, second: str, expected: str) -> None:
    assert outcome(first, second) == expected


def test_a_passive_give_up_names_the_thing_and_the_predicate_it_was_held_by() -> None:
    [claim] = EXTRACTOR.extract(_event(1, "My old bike was sold in March.")).claims
    assert (claim.subject, claim.predicate, claim.object, claim.polarity.value) == ("user", "has", "old bike",
                                                                                     "negative")
    assert claim.replaces_object == "old bike" and claim.temporal_intent.value == "update"

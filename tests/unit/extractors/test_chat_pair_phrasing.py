"""Chat phrasings that decide whether a second message contradicts or replaces the first (issue #25, second
blind pair sets): tastes said without "like", one-valued facts, changes of job/team/home/provider, giving
things up and corrections. Messages written for these tests, not taken from the evaluation sets."""

from __future__ import annotations

from typing import Any

import pytest

from engine.config import EngineConfig
from engine.reducer import Reducer
from engine.store import InMemoryStateStore
from extractors.rules import RuleExtractor
from schemas.enums import OpType
from schemas.events import validate_event

_X = RuleExtractor()


def _event(content: str, n: int = 1, role: str = "user") -> Any:
    return validate_event({
        "event_id": f"e-{n}", "tenant_id": "t", "owner_id": "u", "scope": "personal", "conversation_id": f"c-{n}",
        "role": role, "content": content, "occurred_at": f"2026-03-0{n}T10:00:00+00:00",
    })


def _triples(content: str) -> set[tuple[str, str, str | None, str]]:
    return {(c.subject, c.predicate, c.object, c.polarity.value) for c in _X.extract(_event(content)).claims}


def _pair(first: str, second: str) -> str:
    store, reducer = InMemoryStateStore(), Reducer(EngineConfig())
    reducer.apply(store, _X.extract(_event(first, 1)))
    ops = {op.op_type for op in reducer.apply(store, _X.extract(_event(second, 2))).operations}
    if OpType.CONTRADICTION_NOTED in ops:
        return "contradiction"
    return "supersedence" if OpType.SUPERSEDENCE_APPLIED in ops else "coexistence"


@pytest.mark.parametrize(
    ("text", "triple"),
    [
        ("karaoke sucks lol the whole bar joins in", ("user", "likes", "karaoke", "negative")),
        ("line dancing bores me to tears", ("user", "likes", "line dancing", "negative")),
        ("this album slaps", None),  # a thing pointed at, not a taste in a kind of thing
        ("jigsaw puzzles are my guilty pleasure", ("user", "likes", "jigsaw puzzles", "positive")),
        ("opera is peak culture", ("user", "likes", "opera", "positive")),
        ("golf is cringe", ("user", "likes", "golf", "negative")),
        ("i'm a huge cheese lover", ("user", "likes", "cheese", "positive")),
        ("nothing beats a hot bath after a run", ("user", "likes", "hot bath", "positive")),
        ("vinyl ftw", ("user", "likes", "vinyl", "positive")),
        ("obsessed w sudoku lately", ("user", "likes", "sudoku", "positive")),
        ("marmite = vile", ("user", "likes", "marmite", "negative")),
        ("opera's just not my vibe", ("user", "likes", "opera", "negative")),
        ("been baking a lot of sourdough, i love it", ("user", "likes", "lot of sourdough", "positive")),
    ],
)
def test_tastes_said_in_chat(text: str, triple: tuple[str, str, str, str] | None) -> None:
    got = _triples(text)
    if triple is None:
        assert not any(t[1] == "likes" for t in got)
    else:
        assert triple in got


def test_a_taste_anaphor_needs_the_speakers_own_clause() -> None:
    assert not any(t[1] == "likes" for t in _triples("my brother adopted a ferret, i love it"))


@pytest.mark.parametrize(
    ("text", "triple"),
    [
        ("i'm 1.72m tall", ("user", "height", "1.72m", "positive")),
        ("i'm portuguese, born in porto", ("user", "nationality", "portuguese", "positive")),
        ("my birthday's on may 4th", ("user", "birthday", "may 4th", "positive")),
        ("fave film of all time = heat", ("user", "fave_film", "heat", "positive")),
        ("my go-to favourite snack is hummus", ("user", "favorite_snack", "hummus", "positive")),
        ("i'm an accountant at acme", ("user", "works_at", "acme", "positive")),
        ("i don't know any russian", ("user", "speaks", "russian", "negative")),
        ("i'm in a running club on sundays", ("user", "member_of", "running club", "positive")),
        ("i'm on the design team at work", ("user", "member_of", "design team", "positive")),
        ("everything's on azure now", ("user", "uses", "azure", "positive")),
        ("i watch everything on netflix", ("user", "uses", "netflix", "positive")),
    ],
)
def test_one_valued_facts_and_memberships(text: str, triple: tuple[str, str, str, str]) -> None:
    assert triple in _triples(text)


def test_a_relatives_contracted_copula_stays_the_relatives() -> None:
    got = _triples("my brother's a pilot")
    assert ("user's brother", "is_a", "pilot", "positive") in got
    assert not any(t[1] == "brother" for t in got)


@pytest.mark.parametrize(
    ("text", "triple"),
    [
        ("just moved from leeds to york", ("user", "lives_in", "york", "positive")),
        ("started a new job at monzo this week", ("user", "works_at", "monzo", "positive")),
        ("handed in my notice at tesco", ("user", "works_at", "tesco", "negative")),
        ("closed my account with barclays last month", ("user", "uses", "barclays", "negative")),
        ("signed a lease in bristol", ("user", "lives_in", "bristol", "positive")),
        ("gave my drum kit to my cousin", ("user", "has", "drum kit", "negative")),
        ("transferred from sales to the data team", ("user", "member_of", "data team", "positive")),
        ("deleted my tiktok account for good", ("user", "uses", "tiktok account", "negative")),
        ("i quit vaping, 2 months clean now", ("user", "vape", None, "negative")),
        ("stopped taking ibuprofen", ("user", "take", "ibuprofen", "negative")),
    ],
)
def test_changes_and_giving_up(text: str, triple: tuple[str, str, str | None, str]) -> None:
    assert triple in _triples(text)


def test_a_time_span_after_giving_up_is_not_a_new_value() -> None:
    assert not any(t[3] == "positive" for t in _triples("i quit vaping, 2 months clean now"))


def test_an_aside_if_is_not_a_condition() -> None:
    (claim,) = _X.extract(_event("i'm 41, if that matters")).claims
    assert claim.epistemic_type.value == "ASSERTED" and claim.condition is None
    (held,) = _X.extract(_event("i'll cycle if it stops raining")).claims
    assert held.epistemic_type.value == "CONDITIONAL"


@pytest.mark.parametrize(
    ("first", "second", "expected"),
    [
        ("i'm 1.72m tall", "i'm 1.90m tall", "contradiction"),
        ("i'm portuguese", "i'm brazilian, from recife", "contradiction"),
        ("i'm a huge cheese lover", "cheese is gross", "contradiction"),
        ("my birthday is may 4th", "correction: my birthday is may 14th, not the 4th", "supersedence"),
        ("i'm in a running club", "left the running club, too early for me", "supersedence"),
        ("i work at tesco", "handed in my notice at tesco, starting elsewhere", "supersedence"),
        ("i'm 1.72m tall", "i'm 1.72m tall, for the bike fitting", "coexistence"),
        ("i'm a huge cheese lover", "my sister thinks cheese is gross", "coexistence"),
    ],
)
def test_pairs_meet_through_these_phrasings(first: str, second: str, expected: str) -> None:
    assert _pair(first, second) == expected


def test_the_month_may_is_not_a_hedge() -> None:
    (claim,) = _X.extract(_event("my birthday is may 4th")).claims
    assert claim.epistemic_type.value == "ASSERTED"
    (hedged,) = _X.extract(_event("i may move to leeds")).claims
    assert hedged.epistemic_type.value == "HYPOTHETICAL"


@pytest.mark.parametrize(
    ("text", "triple"),
    [
        ("moved all my photos from dropbox to icloud", ("user", "uses", "icloud", "positive")),
        ("my flat is in glasgow", ("user", "lives_in", "glasgow", "positive")),
        ("rugby is the sport i hate the most", ("user", "likes", "rugby", "negative")),
        ("techno is the music i like least", ("user", "likes", "techno", "negative")),
    ],
)
def test_owned_things_homes_and_ranked_tastes(text: str, triple: tuple[str, str, str, str]) -> None:
    assert triple in _triples(text)


def test_a_negated_tail_is_not_a_list_item() -> None:
    assert not any((t[2] or "").startswith("not ") for t in _triples("i eat fish, eggs, not pescatarian though"))


def test_an_estimate_or_hyperbole_is_not_a_hedge() -> None:
    assert {c.epistemic_type.value for c in _X.extract(_event("i swim, maybe twice a week")).claims} == {"ASSERTED"}
    got = _X.extract(_event("i love ramen, could eat it every day")).claims
    assert [(c.predicate, c.object, c.epistemic_type.value) for c in got] == [("likes", "ramen", "ASSERTED")]
    (hedged,) = _X.extract(_event("maybe i'll take up swimming")).claims
    assert hedged.epistemic_type.value == "HYPOTHETICAL"


def test_a_new_hair_colour_replaces_the_old_one() -> None:
    assert ("user", "hair", "ginger", "positive") in _triples("went ginger last weekend")
    assert not any(t[1] == "hair" for t in _triples("my face turned red"))
    assert _pair("my hair is black", "i dyed my hair silver yesterday") == "supersedence"


def test_a_habit_with_an_estimate_after_a_comma_is_the_activity() -> None:
    assert ("user", "smoke", None, "positive") in _triples("i smoke, maybe 15 a day")
    assert _pair("i smoke, about a pack a day", "i quit smoking last spring") == "supersedence"


@pytest.mark.parametrize(
    ("text", "polarity"),
    [("ironing is a chore i really don't enjoy", "negative"), ("chess is a game i love", "positive"),
     ("darts is the sport i like least", "negative")],
)
def test_a_taste_in_a_relative_clause(text: str, polarity: str) -> None:
    (claim,) = [c for c in _X.extract(_event(text)).claims if c.predicate == "likes"]
    assert claim.polarity.value == polarity and claim.object == text.split(" is ")[0]

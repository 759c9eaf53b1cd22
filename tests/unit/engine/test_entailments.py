"""Entailments and general values (issue #25): a claim contests what it denies through what another states
("I'm vegetarian" and "I eat chicken most days") or through a general value covering a specific one ("I don't
drink alcohol" and "red wine most evenings"), and never the other way round or across unrelated attributes."""

from __future__ import annotations

import json

import pytest
from engine_factories import at, claim, extraction, new_store, update

from engine.attributes import DEFAULT_REGISTRY, TenantAttributes
from engine.config import EngineConfig
from engine.matching import Matcher
from engine.reducer import Reducer, apply
from engine.replay import verify_replay
from engine.store import InMemoryStateStore
from schemas.enums import LifecycleState, OpType, Polarity, TemporalIntent
from schemas.operations import Operation

L = LifecycleState
NEG = Polarity.NEGATIVE
M = Matcher(DEFAULT_REGISTRY)


def said(subject: str, predicate: str, obj: str, **kw: object) -> object:
    return claim(subject, predicate, obj, temporal_intent=TemporalIntent.ASSERTION, **kw)


def make(spec: tuple) -> object:
    """(subject, predicate, object[, polarity]) as a plain statement."""
    s, p, o, *pol = spec
    return said(s, p, o, polarity=pol[0]) if pol else said(s, p, o)


def _add(store: InMemoryStateStore, *claims: object, day: float = 0, reducer: Reducer | None = None,
         **kw: object) -> tuple[list[str], list[Operation]]:
    item = extraction(*claims, occurred=at(day), **kw)  # type: ignore[arg-type]
    res = reducer.apply(store, item) if reducer is not None else apply(store, item)
    assert res.status == "applied"
    return list(res.outcome.created_node_ids), list(res.operations)


def _rules(ops: list[Operation]) -> list[str]:
    return [o.payload["rule"] for o in ops if o.op_type is OpType.CONTRADICTION_NOTED]


def _lifecycle(store: InMemoryStateStore, node_id: str) -> LifecycleState:
    node = store.get_node(node_id)
    assert node is not None
    return node.lifecycle


# ----------------------------------------------------------------------------- general values


@pytest.mark.parametrize(
    ("general", "specific", "covered"),
    [
        ("meat", "chicken", True),
        ("meat", "bacon", True),
        ("alcohol", "red wine", True),  # a longer value ends in a covered one
        ("seafood", "prawns", True),  # through shellfish: the table is closed over its levels
        ("nuts", "crunchy peanut butter", True),
        ("dairy", "peanut butter", False),  # the longest known tail decides: peanut butter is not butter
        ("chicken", "meat", False),  # never upwards
        ("meat", "cheese", False),
        ("dairy", "milk", True),
        ("gluten", "beer", False),
    ],
)
def test_a_general_value_covers_only_what_the_table_puts_under_it(general: str, specific: str, covered: bool) -> None:
    assert M.covers(M.core(general), M.core(specific)) is covered


# ----------------------------------------------------------------------------- what the reducer does


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (("user", "is", "vegetarian"), ("user", "eats", "chicken")),
        (("user", "eats", "steak"), ("user", "is", "vegan")),  # either order
        (("user", "allergic_to", "peanuts"), ("user", "eats", "peanut butter")),
        (("user", "is", "lactose intolerant"), ("user", "drinks", "glass of milk")),
        (("user", "is_a", "smoker"), ("user", "smoke", "cigarette", NEG)),
        (("user", "has", "celiac disease"), ("user", "eats", "bread")),
        (("user", "is", "teetotal"), ("user", "has", "two of red wine")),  # "has" a drink is drinking it
        (("user", "eats", "meat", NEG), ("user", "eats", "bacon")),  # a general denial, no entailment
    ],
)
def test_a_claim_denying_what_another_entails_contests_both(first: tuple, second: tuple) -> None:
    store = new_store()
    [old], _ = _add(store, make(first))
    [new], ops = _add(store, make(second), day=1)
    assert _rules(ops) == ["entailment"]
    assert _lifecycle(store, old) is L.CONTESTED and _lifecycle(store, new) is L.CONTESTED
    [noted] = [o for o in ops if o.op_type is OpType.CONTRADICTION_NOTED]
    assert "entails" in noted.payload["conflict_description"]


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (("user", "eats", "bacon", NEG), ("user", "eats", "meat")),  # a specific denial says nothing of the general
        (("user", "allergic_to", "cats"), ("user", "has", "two cats")),  # owning is not eating
        (("user", "is", "lactose intolerant"), ("user", "eats", "peanut butter")),
        (("user", "is", "vegan"), ("user", "likes", "cheese")),  # a taste is not a diet
        (("user", "is", "vegetarian"), ("user", "eats", "fish", NEG)),  # they agree
        (("user", "is", "pescatarian"), ("user", "eats", "salmon")),  # no meat, fish allowed
        (("user", "is", "vegetarian"), ("alex", "eats", "chicken")),  # someone else
        (("user", "is", "vegetarian"), ("user", "eats", "chicken", NEG)),
    ],
)
def test_claims_an_entailment_does_not_oppose_coexist(first: tuple, second: tuple) -> None:
    store = new_store()
    [old], _ = _add(store, make(first))
    _, ops = _add(store, make(second), day=1)
    assert _rules(ops) == [] and not any(o.op_type is OpType.SUPERSEDENCE_APPLIED for o in ops)
    assert _lifecycle(store, old) is L.TENTATIVE


def test_an_update_retires_what_it_entails_away_and_replays() -> None:
    store = new_store()
    [chicken], first = _add(store, said("user", "eats", "chicken"))
    [vegan], ops = _add(store, update("user", "is", "vegan"), day=3)
    assert _lifecycle(store, chicken) is L.SUPERSEDED and _lifecycle(store, vegan) is L.TENTATIVE
    assert [o.payload["reason"] for o in ops if o.op_type is OpType.SUPERSEDENCE_APPLIED] == ["entailment_update"]
    assert verify_replay(store, [*first, *ops]) == []


def test_one_message_stating_both_is_not_a_change_of_mind() -> None:
    store = new_store()
    _, ops = _add(store, said("user", "is", "vegetarian"), said("user", "eats", "chicken"))
    assert _rules(ops) == []


def test_a_tenant_extends_the_table_and_only_its_claims_meet_by_it() -> None:
    extension = {"tenants": {"acme": {
        "hyponyms": {"pulses": ["lentils", "chickpeas"]},
        "entailments": [{"premise": {"attributes": ["is"], "values": ["pulse free"]},
                         "conclusion": {"attributes": ["eats"], "object": "pulses", "polarity": "negative"}}],
    }}}
    reducer = Reducer(EngineConfig().with_attribute_file(TenantAttributes.parse(json.dumps(extension))))
    for tenant, expected in (("acme", ["entailment"]), ("globex", [])):
        store = new_store()
        _add(store, said("user", "is", "pulse free"), reducer=reducer, tenant_id=tenant)
        _, ops = _add(store, said("user", "eats", "lentils"), day=1, reducer=reducer, tenant_id=tenant)
        assert _rules(ops) == expected, tenant


def test_a_malformed_entailment_is_refused() -> None:
    bad = {"all_tenants": {"entailments": [{"premise": {"values": ["x"]}, "conclusion": {"attributes": ["eats"]}}]}}
    with pytest.raises(ValueError):
        TenantAttributes.parse(json.dumps(bad))


# ----------------------------------------------------------------------------- presupposition


@pytest.mark.parametrize("denial_first", [True, False])
def test_a_claim_about_my_thing_contests_having_none(denial_first: bool) -> None:
    store = new_store()
    denial = said("user", "has", "a car", polarity=NEG)
    about = said("user's car", "needs", "an oil change")
    [old], _ = _add(store, denial if denial_first else about)
    [new], ops = _add(store, about if denial_first else denial, day=1)
    assert _rules(ops) == ["presupposition"]
    assert _lifecycle(store, old) is L.CONTESTED and _lifecycle(store, new) is L.CONTESTED


@pytest.mark.parametrize(
    ("denied", "subject"),
    [
        ("a brother", "user's sister"),  # another thing
        ("a car", "user's wife's car"),  # someone else's car
        ("a car", "alex's car"),  # someone else
    ],
)
def test_a_claim_about_another_thing_or_someones_else_coexists(denied: str, subject: str) -> None:
    store = new_store()
    _add(store, said("user", "has", denied, polarity=NEG))
    _, ops = _add(store, said(subject, "is", "red"), day=1)
    assert _rules(ops) == []


def test_having_none_any_more_retires_what_was_said_of_it() -> None:
    store = new_store()
    [about], _ = _add(store, said("user's kids", "go_to", "Lincoln Elementary"))
    _, ops = _add(store, update("user", "has", "children", polarity=NEG), day=1)  # kids and children are one
    assert _lifecycle(store, about) is L.SUPERSEDED
    assert [o.payload["reason"] for o in ops if o.op_type is OpType.SUPERSEDENCE_APPLIED] == ["presupposition_update"]


@pytest.mark.parametrize(
    ("denied", "subject", "obj", "contested"),
    [
        ("any siblings", "user's sister", "Leeds", True),  # a general value covers the thing
        ("any pets", "user's dog", "Rex", True),
        ("a cat", "user's hamster", "Biscuit", False),
    ],
)
def test_a_denial_of_a_general_thing_meets_what_is_said_of_one_of_them(denied: str, subject: str, obj: str,
                                                                        contested: bool) -> None:
    store = new_store()
    _add(store, said("user", "has", denied, polarity=NEG))
    _, ops = _add(store, said(subject, "name", obj), day=1)
    assert _rules(ops) == (["presupposition"] if contested else [])


def test_a_named_pet_is_one_of_its_kind() -> None:
    store = new_store()
    _add(store, said("user", "has", "pets", polarity=NEG))
    _, ops = _add(store, said("user", "has", "a hamster named Biscuit"), day=1)
    assert _rules(ops) == ["entailment"]


@pytest.mark.parametrize("denial_first", [True, False])
def test_a_denied_activity_meets_what_having_a_thing_entails(denial_first: bool) -> None:
    store = new_store()
    denial = claim("user", "drink", None, polarity=NEG, temporal_intent=TemporalIntent.ASSERTION)
    having = said("user", "has", "a glass of red wine")
    _add(store, denial if denial_first else having)
    _, ops = _add(store, having if denial_first else denial, day=1)
    assert _rules(ops) == ["entailment"]


def test_a_denied_activity_says_nothing_of_a_thing_that_entails_nothing() -> None:
    store = new_store()
    _add(store, said("user", "has", "two cats"))
    _, ops = _add(store, claim("user", "drink", None, polarity=NEG, temporal_intent=TemporalIntent.ASSERTION), day=1)
    assert _rules(ops) == []

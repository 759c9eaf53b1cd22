"""The attribute registry: cardinality, synonyms, object cores, per-tenant extension, and the rules the
reducer applies through it (PRME-FACTS §8.2 rule 9, issue #25)."""

from __future__ import annotations

import json

import pytest
from engine_factories import at, claim, extraction, new_store, update
from pydantic import ValidationError

from engine.attributes import DEFAULT_REGISTRY, AttributeRegistry, TenantAttributes
from engine.config import EngineConfig
from engine.matching import Matcher
from engine.reducer import Reducer, apply
from engine.replay import verify_replay
from engine.store import InMemoryStateStore
from schemas.enums import EdgeType, EpistemicType, LifecycleState, OpType, Polarity, Role, Scope, TemporalIntent
from schemas.nodes import MemoryNode
from schemas.operations import Operation

E = EpistemicType
L = LifecycleState
NEG = Polarity.NEGATIVE
ASSERTION = TemporalIntent.ASSERTION
M = Matcher(DEFAULT_REGISTRY)


def said(subject: str, predicate: str, obj: str, **kw: object) -> object:
    """A plain standalone statement: an assertion."""
    return claim(subject, predicate, obj, temporal_intent=ASSERTION, **kw)


def _add(store: InMemoryStateStore, *claims: object, day: float = 0, reducer: Reducer | None = None,
         **kw: object) -> tuple[list[str], list[Operation]]:
    item = extraction(*claims, occurred=at(day), **kw)  # type: ignore[arg-type]
    res = reducer.apply(store, item) if reducer is not None else apply(store, item)
    assert res.status == "applied"
    return list(res.outcome.created_node_ids), list(res.operations)


def _n(store: InMemoryStateStore, node_id: str) -> MemoryNode:
    node = store.get_node(node_id)
    assert node is not None
    return node


def _kinds(ops: list[Operation]) -> list[OpType]:
    return [o.op_type for o in ops]


# ----------------------------------------------------------------------------- the registry as data


@pytest.mark.parametrize(
    ("predicate", "obj", "name", "single"),
    [
        ("lives_in", "Leeds", "lives_in", True),
        ("resides in", "York", "lives_in", True),
        ("based_in", "Leeds", "lives_in", True),
        ("employed_by", "Initech", "works_at", True),
        ("works_as", "paramedic", "role", True),
        ("is_a", "dental hygienist", "role", True),
        ("is_a", "keen photographer", "is_a", False),  # a hobby, not an occupation
        ("uses", "Central European Time", "timezone", True),
        ("uses", "Postgres", "uses", False),
        ("is", "divorced", "marital_status", True),
        ("grew_up_in", "Cork", "is_from", True),
        ("favourite_band", "Radiohead", "favorite_band", True),
        ("loves", "olives", "likes", False),
        ("go_to", "Firefox", "uses", False),
        ("host_on", "Fly.io", "uses", False),
        ("speaks", "Greek", "speaks", False),
    ],
)
def test_registry_names_the_attribute_and_its_cardinality(predicate: str, obj: str, name: str, single: bool) -> None:
    attribute = M.attribute(predicate, obj)
    assert (attribute.name, attribute.single) == (name, single)


def test_a_possessive_attribute_names_one_value_and_is_known_by_its_head_noun() -> None:
    assert M.attribute("daily_driver_browser", "Chrome", attribute_form=True).name == "browser"
    assert M.attribute("new_car", "Honda Jazz", attribute_form=True).name == "drives"
    assert M.attribute("shell", "zsh", attribute_form=True).single
    assert not M.attribute("second_language", "English", attribute_form=True).single
    assert not M.attribute("shell", "zsh").single  # the same predicate from a verb says nothing of cardinality


def test_a_favourite_implies_a_like_of_it_and_of_its_category() -> None:
    fav = M.attribute("favorite_musical", "Hamilton")
    assert fav.implies == "likes" and fav.related(M.attribute("likes", "musicals"))
    assert M.category_meets(fav, M.core("musicals")) and not M.category_meets(fav, M.core("operas"))


@pytest.mark.parametrize(
    ("a", "b", "meet"),
    [
        ("Peru three times", "Peru", True),
        ("dark chocolate", "chocolate", True),
        ("three coffees a day minimum", "coffee", True),
        ("every Terry Pratchett novel", "Pratchett", True),
        ("Thai food", "Thai", True),
        ("Sally Rooney's books", "Sally Rooney", True),
        ("Sheffield a couple of weeks ago", "Sheffield", True),
        ("vet", "veterinarian", True),
        ("Georgian food", "Ethiopian food", False),
        ("March 8", "March 18", False),
        ("Pacific time", "Mountain time", False),
        ("29", "37", False),
    ],
)
def test_objects_meet_on_their_core(a: str, b: str, meet: bool) -> None:
    assert M.same_value(M.core(a), M.core(b)) is meet


def test_a_named_value_meets_any_object_containing_it() -> None:
    assert M.names(M.core("the Galaxy"), M.core("Samsung Galaxy S10"))
    assert not M.same_value(M.core("Galaxy"), M.core("Samsung Galaxy S10"))  # not its head noun


def test_the_bundled_file_is_the_default_registry_and_loads_into_an_immutable_value() -> None:
    assert DEFAULT_REGISTRY.version == "attributes_v1" and DEFAULT_REGISTRY.enabled
    assert EngineConfig().attributes == DEFAULT_REGISTRY
    with pytest.raises(ValidationError):  # frozen
        DEFAULT_REGISTRY.version = "x"  # type: ignore[misc]
    assert not AttributeRegistry.disabled().enabled


# ----------------------------------------------------------------------------- per-tenant extension

_EXTENSION = {
    "all_tenants": {"attributes": {"gym": {"cardinality": "single", "synonyms": ["trains_at"]}}},
    "tenants": {"acme": {"attributes": {"works_at": {"cardinality": "multi"}}, "value_synonyms": [["wfh", "home"]]}},
}


def test_an_extension_adds_and_widens_attributes_for_every_tenant_and_per_tenant() -> None:
    common, tenants = TenantAttributes.parse(json.dumps(_EXTENSION)).registries(DEFAULT_REGISTRY)
    assert Matcher(common).attribute("trains_at", "PureGym") == Matcher(common).attribute("gym", "x")
    assert Matcher(common).attribute("gym", "x").single and Matcher(common).attribute("works_at", "x").single
    acme = Matcher(tenants["acme"])
    assert acme.attribute("trains_at", "x").single and not acme.attribute("works_at", "x").single
    assert acme.same_value(acme.core("wfh"), acme.core("home"))
    assert common.version.startswith("attributes_v1+") and tenants["acme"].version.startswith(common.version + "+")
    assert "resides_in" in common.attributes["lives_in"].synonyms  # the bundled synonyms stay


@pytest.mark.parametrize(
    "text",
    ["not json", "[]", '{"tenant": {}}', '{"all_tenants": {"attribute": {}}}',
     '{"all_tenants": {"matching": {"qualifiers": ["(unclosed"]}}}',
     '{"all_tenants": {"attributes": {"gym": {"cardinality": "several"}}}}'],
)
def test_a_malformed_extension_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        TenantAttributes.parse(text)


def test_a_tenants_registry_decides_only_its_own_claims() -> None:
    config = EngineConfig().with_attribute_file(TenantAttributes.parse(json.dumps(_EXTENSION)))
    reducer = Reducer(config)
    for tenant, expected in (("acme", L.TENTATIVE), ("globex", L.CONTESTED)):
        store = new_store()
        [first], _ = _add(store, said("user", "works_at", "Initech"), reducer=reducer, tenant_id=tenant)
        _add(store, said("user", "works_at", "Hooli"), day=1, reducer=reducer, tenant_id=tenant)
        assert _n(store, first).lifecycle is expected, tenant
    store = new_store()
    [gym], _ = _add(store, said("user", "gym", "PureGym"), reducer=reducer, tenant_id="globex")
    _, ops = _add(store, update("user", "trains_at", "The Gym Group"), day=1, reducer=reducer, tenant_id="globex")
    assert _n(store, gym).lifecycle is L.SUPERSEDED
    [applied] = [o for o in ops if o.op_type is OpType.SUPERSEDENCE_APPLIED]
    assert applied.policy_version == f"registry_supersedence_v2+{config.attributes.version}"
    assert applied.payload["reason"] == "single_valued_update"


# ----------------------------------------------------------------------------- single-valued attributes


def test_a_different_value_stated_plainly_contests_both() -> None:
    store = new_store()
    [leeds], _ = _add(store, said("user", "lives_in", "Leeds"))
    [york], ops = _add(store, said("user", "lives_in", "York"), day=1)
    assert _kinds(ops) == [OpType.EXTRACTION_VALIDATED, OpType.ASSERT, OpType.CONTRADICTION_NOTED]
    assert ops[2].payload["rule"] == "single_valued" and ops[2].edge is not None
    assert ops[2].edge.edge_type is EdgeType.CONTRADICTS
    assert _n(store, leeds).lifecycle is L.CONTESTED and _n(store, york).lifecycle is L.CONTESTED


@pytest.mark.parametrize("intent", [TemporalIntent.UPDATE, None])
def test_a_different_value_with_update_or_unclear_intent_supersedes(intent: TemporalIntent | None) -> None:
    store = new_store()
    [leeds], _ = _add(store, said("user", "lives_in", "Leeds"))
    [york], _ = _add(store, claim("user", "resides_in", "York", temporal_intent=intent), day=1)
    assert _n(store, leeds).lifecycle is L.SUPERSEDED and _n(store, leeds).superseded_by == york
    assert _n(store, leeds).valid_to == at(1)


def test_values_of_a_multi_valued_attribute_coexist_whatever_the_wording() -> None:
    store = new_store()
    [greek], _ = _add(store, said("user", "speaks", "Greek"))
    _add(store, update("user", "speaks", "Italian"), day=1)
    _add(store, said("user", "speaks", "Welsh"), day=2)
    assert _n(store, greek).lifecycle is L.TENTATIVE


def test_the_same_value_again_is_neither_a_conflict_nor_an_update() -> None:
    store = new_store()
    [vet], _ = _add(store, said("user", "is_a", "vet"))
    _, ops = _add(store, said("user", "works_as", "veterinarian"), day=1)
    assert _kinds(ops) == [OpType.EXTRACTION_VALIDATED, OpType.ASSERT] and _n(store, vet).lifecycle is L.TENTATIVE


def test_two_values_in_one_message_do_not_compete() -> None:
    store = new_store()
    _, ops = _add(store, said("user", "lives_in", "Paris"), said("user", "lives_in", "Rome"))
    assert _kinds(ops) == [OpType.EXTRACTION_VALIDATED, OpType.ASSERT, OpType.ASSERT]


def test_other_subjects_and_participants_keep_their_own_values() -> None:
    store = new_store()
    [mine], _ = _add(store, said("user", "lives_in", "Oslo"))
    _add(store, said("user's girlfriend", "lives_in", "Bergen"), day=1)
    assert _n(store, mine).lifecycle is L.TENTATIVE


def test_team_facts_meet_whoever_states_them_in_a_project() -> None:
    store = new_store()
    [standup], _ = _add(store, said("team", "standup", "9:15", metadata={"attribute_form": True}),
                        scope=Scope.PROJECT)
    _add(store, said("user", "standup", "10:30", metadata={"attribute_form": True}), day=1, scope=Scope.PROJECT,
         role=Role.PARTICIPANT)
    assert _n(store, standup).lifecycle is L.CONTESTED


# ----------------------------------------------------------------------------- updates across predicates


def test_an_update_naming_the_old_value_retires_it_whatever_its_predicate() -> None:
    store = new_store()
    [browser], _ = _add(store, said("user", "browser", "Chrome", metadata={"attribute_form": True}))
    [other], _ = _add(store, said("user", "likes", "Chrome extensions"))
    [firefox], ops = _add(store, update("user", "uses", "Firefox", replaces="chrome"), day=2)
    assert _n(store, browser).lifecycle is L.SUPERSEDED and _n(store, browser).superseded_by == firefox
    assert _n(store, other).lifecycle is L.SUPERSEDED  # it names Chrome too: the user named the value
    assert {o.payload["reason"] for o in ops if o.op_type is OpType.SUPERSEDENCE_APPLIED} == {"explicit_update"}


def test_a_named_update_reaches_the_subjects_things_but_not_its_people() -> None:
    store = new_store()
    [ci], _ = _add(store, said("user's CI", "runs_on", "Travis"))
    [wife], _ = _add(store, said("user's wife", "uses", "Travis"))
    _add(store, update("user", "uses", "GitHub Actions", replaces="Travis"), day=1)
    assert _n(store, ci).lifecycle is L.SUPERSEDED and _n(store, wife).lifecycle is L.TENTATIVE


def test_a_negative_update_retires_the_positive_claim_of_its_object_whatever_its_predicate() -> None:
    store = new_store()
    [choir], _ = _add(store, said("user", "sings_in", "community gospel choir"))
    [left], ops = _add(store, update("user", "member_of", "gospel choir", replaces="gospel choir", polarity=NEG), day=1)
    assert _n(store, choir).lifecycle is L.SUPERSEDED and _n(store, left).lifecycle is L.TENTATIVE
    assert [o.payload["reason"] for o in ops if o.op_type is OpType.SUPERSEDENCE_APPLIED] == ["negative_update"]


# ----------------------------------------------------------------------------- polarity, qualifiers, favourites


def test_a_count_and_a_negation_contradict() -> None:
    store = new_store()
    [often], _ = _add(store, said("user", "visited", "Peru three times"))
    _, ops = _add(store, said("user", "visited", "Peru", polarity=NEG), day=1)
    assert OpType.CONTRADICTION_NOTED in _kinds(ops) and _n(store, often).lifecycle is L.CONTESTED


def test_a_favourite_contradicts_a_dislike_of_it_or_of_its_kind() -> None:
    store = new_store()
    [fav], _ = _add(store, said("user", "favorite_musical", "Hamilton"))
    _, ops = _add(store, said("user", "likes", "musicals", polarity=NEG), day=1)
    assert OpType.CONTRADICTION_NOTED in _kinds(ops) and _n(store, fav).lifecycle is L.CONTESTED
    store = new_store()
    [roast], _ = _add(store, said("user", "likes", "dark roast coffee"))
    _add(store, said("user", "likes", "coffee", polarity=NEG), day=1)
    assert _n(store, roast).lifecycle is L.CONTESTED


def test_different_favourites_of_one_kind_contradict_and_of_two_kinds_coexist() -> None:
    store = new_store()
    [band], _ = _add(store, said("user", "favourite_band", "Radiohead"))
    [film], _ = _add(store, said("user", "favorite_film", "Amélie"))
    _add(store, said("user", "favorite_band", "Fleetwood Mac"), day=1)
    assert _n(store, band).lifecycle is L.CONTESTED and _n(store, film).lifecycle is L.TENTATIVE


# ----------------------------------------------------------------------------- who may retire or contest


@pytest.mark.parametrize("et", [E.INFERRED, E.HYPOTHETICAL, E.UNVERIFIED])
def test_a_model_suggestion_hearsay_or_hypothesis_never_retires_or_contests(et: EpistemicType) -> None:
    store = new_store()
    [home], _ = _add(store, said("user", "lives_in", "Leeds"))
    _add(store, said("user", "lives_in", "Dresden", epistemic=et, source_type="SYSTEM_INFERRED"), day=1,
         role=Role.ASSISTANT)
    _add(store, update("user", "lives_in", "Bath", replaces="Leeds", epistemic=et, source_type="SYSTEM_INFERRED"),
         day=2, role=Role.ASSISTANT)
    assert _n(store, home).lifecycle is L.TENTATIVE


def test_a_correction_retires_what_the_speaker_said_and_contests_what_someone_else_said() -> None:
    store = new_store()
    [mine], _ = _add(store, said("user", "works_at", "Globex"))
    correction = {"correction": True}
    _add(store, update("user", "corrected_to", "Initech", replaces="Globex", metadata=correction), day=1)
    assert _n(store, mine).lifecycle is L.SUPERSEDED
    store = new_store()
    [theirs], _ = _add(store, said("Priya", "is_in", "Valencia"), role=Role.PARTICIPANT, speaker_id="priya")
    _, ops = _add(store, update("user", "corrected_to", "Seville", replaces="Valencia", metadata=correction), day=1)
    assert _n(store, theirs).lifecycle is L.CONTESTED
    assert [o.payload["rule"] for o in ops if o.op_type is OpType.CONTRADICTION_NOTED] == ["correction_of_another"]


def test_a_correction_naming_no_value_replaces_the_speakers_latest_value_of_its_shape() -> None:
    store = new_store()
    [flight], _ = _add(store, said("user's flight", "lands_at", "18:40"))
    [city], _ = _add(store, said("user", "lives_in", "Leeds"), day=0.1)
    _add(store, update("user", "corrected_to", "16:40", metadata={"correction": True}), day=0.5)
    assert _n(store, flight).lifecycle is L.SUPERSEDED and _n(store, city).lifecycle is L.TENTATIVE


def test_an_older_update_never_retires_a_newer_value() -> None:
    store = new_store()
    [newer], _ = _add(store, said("user", "lives_in", "Leeds"), day=10)
    [late], _ = _add(store, update("user", "lives_in", "York"), day=2)
    assert _n(store, newer).lifecycle is L.TENTATIVE and _n(store, late).valid_to == at(10)


def test_registry_outcomes_replay_to_the_same_state() -> None:
    store = new_store()
    ops: list[Operation] = []
    for day, item in enumerate((said("user", "lives_in", "Leeds"), said("user", "lives_in", "York"),
                                update("user", "lives_in", "Bath", replaces="Leeds"),
                                said("user", "favorite_band", "Blur"), said("user", "likes", "Blur", polarity=NEG))):
        ops += _add(store, item, day=day)[1]
    assert verify_replay(store, ops) == []


def test_the_disabled_registry_is_the_engine_v1_rule() -> None:
    v1 = Reducer(EngineConfig(attributes=AttributeRegistry.disabled()))
    store = new_store()
    [leeds], _ = _add(store, said("user", "lives_in", "Leeds"), reducer=v1)
    _add(store, said("user", "lives_in", "York"), day=1, reducer=v1)
    _add(store, update("user", "uses", "Firefox", replaces="Leeds"), day=2, reducer=v1)
    assert _n(store, leeds).lifecycle is L.TENTATIVE


# ----------------------------------------------------------------------------- values of one kind


def test_an_update_to_another_value_of_a_kind_retires_the_old_one_whatever_its_predicate() -> None:
    store = new_store()
    [browser], _ = _add(store, said("user", "browser", "Safari", metadata={"attribute_form": True}))
    [taste], _ = _add(store, said("user", "likes", "Safari"))
    [arc], ops = _add(store, update("user", "uses", "Arc"), day=1)
    assert _n(store, browser).lifecycle is L.SUPERSEDED and _n(store, browser).superseded_by == arc
    assert _n(store, taste).lifecycle is L.TENTATIVE  # a taste is not what one uses
    assert [o.payload["reason"] for o in ops if o.op_type is OpType.SUPERSEDENCE_APPLIED] == ["same_kind_update"]


def test_two_values_of_a_kind_stated_plainly_coexist() -> None:
    store = new_store()
    [chrome], _ = _add(store, said("user", "uses", "Chrome"))
    _add(store, said("user", "uses", "Firefox"), day=1)
    assert _n(store, chrome).lifecycle is L.TENTATIVE


def test_an_update_to_another_qualified_value_of_one_head_noun_retires_the_old_one() -> None:
    store = new_store()
    [pro], _ = _add(store, said("user", "uses", "the Pro plan"))
    [python], _ = _add(store, said("user", "uses", "Python"))
    _add(store, update("user", "uses", "the free plan"), day=1)
    _add(store, update("user", "uses", "Go"), day=2)
    assert _n(store, pro).lifecycle is L.SUPERSEDED
    assert _n(store, python).lifecycle is L.TENTATIVE  # two unqualified values of a multi-valued attribute


def test_a_tenant_adds_values_to_a_kind() -> None:
    ext = {"tenants": {"acme": {"value_kinds": {"browser": ["Netscape"], "bike": ["Brompton", "Tern"]}}}}
    _, tenants = TenantAttributes.parse(json.dumps(ext)).registries(DEFAULT_REGISTRY)
    acme = Matcher(tenants["acme"])
    assert acme.kindred("Netscape", "Firefox") and acme.kindred("my Brompton", "a Tern")
    assert "chrome" in tenants["acme"].value_kinds["browser"]  # the bundled values stay
    assert not M.kindred("Netscape", "Firefox") and not M.kindred("Firefox", "firefox")
    assert M.kind_of("a Pixel 8 Pro") == "phone" and M.kind_of("an apple") is None
    assert M.kind_of("Apple Music") == "music streaming"


# ----------------------------------------------------------------------------- corrections of a count


@pytest.mark.parametrize(
    ("old", "new", "named", "retired"),
    [
        ("three kids", "two kids", "three", True),  # the count is the value corrected
        ("3 kids", "two kids", "three", True),  # a number word meets its numeral
        ("85k a year", "58k", "85", True),  # a number meets itself with a unit
        ("8am", "9am", "8", True),
        ("three kids", "three kids", "two", False),  # it names no count of the old claim
        ("two kids", "two kids", "two", False),  # the new claim keeps the named count: nothing changes
        ("13 kids", "two kids", "three", False),  # whole words only
    ],
)
def test_a_correction_of_a_count_retires_the_claim_with_that_count(old: str, new: str, named: str,
                                                                    retired: bool) -> None:
    store = new_store()
    [first], _ = _add(store, said("user", "has", old))
    _, ops = _add(store, update("user", "has", new, replaces=named), day=1)
    assert (_n(store, first).lifecycle is L.SUPERSEDED) is retired
    assert any(o.op_type is OpType.SUPERSEDENCE_APPLIED for o in ops) is retired

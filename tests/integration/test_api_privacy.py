"""Privacy across owners (TRUST-FACTS §6) over HTTP, on the embedded index and on OpenSearch.

Three owners of one tenant each say one thing privately, one shared with the tenant and one to each of
two groups; a later private message supersedes a shared claim and another contradicts one. Keys are
allowed for one owner and belong to groups. Whatever a key asks of another owner — retrieval in every
mode and source, the world view, assertion state, a node, its provenance — the answer holds that
owner's shared records and its own groups' records, never a private one or another group's; and what
it may read is found (a filter that dropped everything would fail here too).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from opensearchpy import OpenSearch
from test_api_support import ALL, Keys, Permission, event, make_client, open_runner, settings_for
from test_opensearch_support import drop_alias, load_services

from epistream.runner import EmbeddedRunner
from schemas.errors import InvalidEvent
from schemas.events import ConversationEvent, parse_event
from schemas.search import SearchFilter
from schemas.visibility import readable_by, visibility_of
from streams.agents import excerpt_documents

pytestmark = pytest.mark.integration
T = "t-priv"
OWNERS = ("o1", "o2", "o3")
VISIBILITIES = ("private", "shared", "group:ops", "group:hr")
#: key -> (owners it is allowed for, groups it belongs to)
KEYS: dict[str, tuple[set[str] | None, set[str]]] = {
    "k1-ops": ({"o1"}, {"ops"}),
    "k2-hr": ({"o2"}, {"hr"}),
    "k3-both": ({"o3"}, {"ops", "hr"}),
    "k3-none": ({"o3"}, set()),
    "admin": (None, set()),
}


def marker(owner: str, visibility: str) -> str:
    return f"zq{owner}{visibility.replace('group:', '')}mark"


def readable(key: str, owner: str) -> set[str]:
    owners, groups = KEYS[key]
    if owners is None or owner in owners:
        return {*VISIBILITIES, "later"}
    return {"shared", *(f"group:{g}" for g in groups)}


class World:
    def __init__(self, client: TestClient, keys: Keys, runner: EmbeddedRunner, ids: dict[tuple[str, str], str]):
        self.client, self.keys, self.runner, self.ids = client, keys, runner, ids


def _events(owner: str) -> list[dict[str, Any]]:
    out = []
    for i, vis in enumerate(VISIBILITIES):
        body = event(f"{owner}-{vis}", f"I like {marker(owner, vis)} a lot.", owner=owner, minutes=i)
        body.update(visibility=vis, session_id="s1")
        out.append(body)
    # a shared claim superseded by a private message, and a shared one a private message contradicts
    shared_job = event(f"{owner}-job", "I work at Zqsharedcorp.", owner=owner, minutes=10)
    private_job = event(f"{owner}-job2", f"I no longer work at Zqsharedcorp, I now work at {marker(owner, 'later')}.",
                        owner=owner, minutes=11)  # fmt: skip
    shared_tea = event(f"{owner}-tea", "I love zqteashared.", owner=owner, minutes=12)
    private_tea = event(f"{owner}-tea2", "I hate zqteashared.", owner=owner, minutes=13)
    for body, vis in ((shared_job, "shared"), (private_job, None), (shared_tea, "shared"), (private_tea, None)):
        if vis is not None:
            body["visibility"] = vis
        body["session_id"] = "s2"
        out.append(body)
    return out


def _build(runner: EmbeddedRunner, settings: Any) -> Iterator[World]:
    keys = Keys()
    for name, (owners, groups) in KEYS.items():
        perms = ALL if name == "admin" else frozenset(set(Permission) - {Permission.ADMIN})
        keys.add(name, T, perms, owners=owners, groups=frozenset(groups))
    with make_client(runner, keys, settings) as client:
        ids: dict[tuple[str, str], str] = {}
        for owner in OWNERS:
            r = client.post("/v1/events", json={"events": _events(owner)}, headers=keys.auth("admin"))
            assert r.status_code == 200, r.text
            for node in runner.nodes_of(tenant_id=T, owner_id=owner):
                ids.setdefault((owner, node.evidence_refs[0].removeprefix(f"{owner}-")), node.node_id)
        yield World(client, keys, runner, ids)


@pytest.fixture(scope="module", params=["embedded", "opensearch"])
def world(request: pytest.FixtureRequest, chdb_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    data = tmp_path_factory.mktemp(f"api-privacy-{request.param}")
    if request.param == "embedded":
        settings = settings_for(data)
        with open_runner(chdb_path, data, settings) as runner:
            yield from _build(runner, settings)
        return
    url = str(load_services().ensure_up()["opensearch"])
    alias = f"it-privacy-{uuid.uuid4().hex[:10]}"
    settings = settings_for(data, opensearch_url=url, opensearch_index=alias)
    try:
        with open_runner(chdb_path, data, settings) as runner:
            yield from _build(runner, settings)
    finally:
        client = OpenSearch(hosts=[url], timeout=30)
        drop_alias(client, alias)
        client.close()


def _hidden(key: str, owner: str) -> list[str]:
    """The markers of ``owner``'s records that ``key`` may not read."""
    visible = readable(key, owner)
    hidden = [marker(owner, v) for v in (*VISIBILITIES, "later") if v not in visible]
    if "private" not in visible:
        hidden.append("hate zqteashared")  # the private side of the contradiction
    return hidden


def _ask(w: World, key: str, owner: str, kind: str, query: str) -> Any:
    auth = w.keys.auth(key)
    c = w.client
    if kind.startswith("retrieve"):
        _, mode, sources = kind.split(":")
        return c.post("/v1/retrieve", json={"query": query, "owner_id": owner, "mode": mode, "sources": sources,
                                            "debug": True}, headers=auth)  # fmt: skip
    if kind == "world":
        return c.get("/v1/world-context", params={"owner_id": owner}, headers=auth)
    if kind == "assertion":
        return c.post("/v1/assertions/state", json={"owner_id": owner, "subject": "user", "predicate": "likes",
                                                    "valid_at": "2027-01-01T00:00:00Z"}, headers=auth)  # fmt: skip
    return c.get(f"/v1/nodes/{query}" + ("/provenance" if kind == "provenance" else ""), headers=auth)


KINDS = ("retrieve:default:all", "retrieve:explicit:all", "retrieve:explicit:excerpts", "world", "assertion",
         "node", "provenance")  # fmt: skip
QUERIES = (*(f"what do I like {marker(o, v)}" for o in OWNERS for v in VISIBILITIES), "where do I work now",
           "do I love or hate zqteashared", "I like a lot")  # fmt: skip


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(key=st.sampled_from(sorted(KEYS)), owner=st.sampled_from(OWNERS), kind=st.sampled_from(KINDS),
       query=st.sampled_from(QUERIES), record=st.sampled_from([*VISIBILITIES, "job", "job2", "tea", "tea2"]))
def test_no_read_returns_a_record_the_reader_may_not_see(world: World, key: str, owner: str, kind: str, query: str,
                                                         record: str) -> None:  # fmt: skip
    if kind in ("node", "provenance"):
        query = world.ids[(owner, record)]
    r = _ask(world, key, owner, kind, query)
    assert r.status_code in (200, 404), r.text
    for hidden in _hidden(key, owner):
        assert hidden not in r.text, (key, owner, kind, hidden)
    if kind in ("node", "provenance"):
        vis = {"job": "shared", "tea": "shared", "job2": "private", "tea2": "private"}.get(record, record)
        assert (r.status_code == 200) == (vis in readable(key, owner)), (key, owner, record, r.status_code)


@pytest.mark.parametrize("key", sorted(KEYS))
def test_what_a_reader_may_see_of_another_owner_is_found(world: World, key: str) -> None:
    for owner in OWNERS:
        for vis in VISIBILITIES:
            r = _ask(world, key, owner, "retrieve:explicit:all", f"what do I like {marker(owner, vis)}")
            assert r.status_code == 200, r.text
            found = marker(owner, vis) in r.text
            assert found == (vis in readable(key, owner)), (key, owner, vis)
        shown = _ask(world, key, owner, "world", "").text
        for record, vis in (("tea", "shared"), ("tea2", "private")):  # the two sides of a conflict
            assert (world.ids[(owner, record)] in shown) == (vis in readable(key, owner)), (key, owner, record)


def test_a_shared_claim_contradicted_privately_shows_no_conflict_to_other_owners(world: World) -> None:
    private_side = world.ids[("o2", "tea2")]
    r = _ask(world, "k1-ops", "o2", "retrieve:explicit:all", "do I love or hate zqteashared")
    assert "love zqteashared" in r.text and "hate zqteashared" not in r.text
    assert private_side not in {i["node_id"] for i in r.json()["items"]}
    # the owner's own key sees both sides of the conflict
    own = _ask(world, "k2-hr", "o2", "retrieve:explicit:all", "do I love or hate zqteashared")
    assert "hate zqteashared" in own.text and "love zqteashared" in own.text
    assert private_side in {i["node_id"] for i in own.json()["items"]}


def test_a_shared_message_is_found_without_the_private_turns_before_it(world: World) -> None:
    events = [f"o1-{v}" for v in VISIBILITIES] + ["o1-job", "o1-job2", "o1-tea", "o1-tea2"]
    docs = world.runner.excerpts.cited(events, SearchFilter(tenant_id=T, owner_id="o1"), limit=100)
    by_event = {d.evidence_refs[0]: d for d in docs}

    def context(event_id: str) -> str:
        return " ".join(str(t) for t in by_event[event_id].metadata.get("context", []))

    assert by_event["o1-shared"].visibility == "shared"
    assert marker("o1", "private") not in context("o1-shared")
    # a group message: the shared turn before it, not the private one or another group's
    assert marker("o1", "shared") in context("o1-group:hr")
    assert marker("o1", "private") not in context("o1-group:hr") and marker("o1", "ops") not in context("o1-group:hr")
    # a private message is found with every turn before it, private or not
    assert "Zqsharedcorp" in context("o1-tea2") and marker("o1", "later") in context("o1-tea2")


def test_writes_stay_partitioned_per_owner(world: World) -> None:
    r = world.client.post("/v1/events", json=event("x-1", "I like zqforged.", owner="o2"),
                          headers=world.keys.auth("k1-ops"))
    assert r.status_code == 207 and r.json()["results"][0]["code"] == "permission_denied"


def test_an_unknown_visibility_is_refused() -> None:
    base = event("v-1", "I like tea.", owner="o1") | {"tenant_id": T}
    assert parse_event(orjson.dumps(base | {"visibility": "group:ops"})).visibility == "group:ops"
    for bad in ("public", "group:", "group:a b", "Shared"):
        with pytest.raises(InvalidEvent) as err:
            parse_event(orjson.dumps(base | {"visibility": bad}))
        assert err.value.code == "invalid_visibility"
        assert err.value.message == "visibility: not private, shared or group:<name>"  # the value is not echoed
    assert ConversationEvent.model_validate(base).visibility is None


@pytest.mark.parametrize("channel", ["lexical", "vector"])
def test_the_backend_search_itself_keeps_what_the_reader_may_not_see_out(world: World, channel: str) -> None:
    """Inside the search (both backends), not only in the retriever's re-check of what it found."""
    for index in (world.runner.index, world.runner.excerpts):
        for owner in OWNERS:
            for groups in ((), ("ops",), ("hr",), ("ops", "hr")):
                seen = {"shared", *(f"group:{g}" for g in groups)}
                flt = SearchFilter(tenant_id=T, owner_id=owner, readable=readable_by(groups))
                hits = getattr(index, channel)("what do I like a lot zqteashared Zqsharedcorp", flt, 50)
                found = index.get([h.node_id for h in hits])
                assert found, (owner, groups)
                assert {visibility_of(n.visibility) for n in found} <= seen, (owner, groups)
                assert all(n.owner_id == owner for n in found)


def test_visibility_survives_the_rebuild_of_the_excerpts_from_the_raw_events(world: World) -> None:
    turns = world.runner.settings.excerpt_context_turns
    rebuilt = {d.evidence_refs[0]: d for d in excerpt_documents(world.runner.log, turns) if d.tenant_id == T}
    assert {e: rebuilt[e].visibility for e in ("o1-private", "o1-shared", "o1-group:ops", "o1-job2")} == {
        "o1-private": "private", "o1-shared": "shared", "o1-group:ops": "group:ops", "o1-job2": None}
    assert marker("o1", "private") not in " ".join(str(t) for t in rebuilt["o1-shared"].metadata.get("context", []))


@pytest.mark.parametrize(("route", "body"), [("reinforce", {"signal": "CONFIRMED"}), ("deprecate", {}),
                                             ("penalize", {"signal": "CORRECTED"})])  # fmt: skip
def test_a_record_shared_with_a_key_is_readable_never_commandable_by_it(world: World, route: str,
                                                                        body: dict[str, Any]) -> None:  # fmt: skip
    shared = world.ids[("o2", "shared")]
    before = world.runner.node(shared, tenant_id=T)
    assert world.client.get(f"/v1/nodes/{shared}", headers=world.keys.auth("k1-ops")).status_code == 200
    r = world.client.post(f"/v1/nodes/{shared}/{route}", json=body, headers=world.keys.auth("k1-ops"))
    assert r.status_code == 403 and r.json()["error"]["code"] == "permission_denied", r.text
    # a private node of another owner: the same 404 as a node that does not exist
    private = world.ids[("o2", "private")]
    r = world.client.post(f"/v1/nodes/{private}/{route}", json=body, headers=world.keys.auth("k1-ops"))
    assert r.status_code == 404, r.text
    after = world.runner.node(shared, tenant_id=T)
    assert before is not None and after is not None and after.version == before.version

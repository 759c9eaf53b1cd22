"""The HTTP API against the spec's API-facing rules (PRME-FACTS §5.5, §6, §9, §10; README "HTTP API").

Every expected value here comes from the spec, never from running the code: assertion-state
fields, defaults, bounds and statuses (§9); provenance's five questions, ordering and cursor
(§10); Idempotency-Key semantics over HTTP (§5.5); retrieval request parameters (§6).
"""

from __future__ import annotations

import base64
import json
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from test_api_support import T0, Keys, Permission, event, make_client, node_by_event, open_runner, settings_for

from epistream.runner import EmbeddedRunner
from schemas.enums import OpType

pytestmark = pytest.mark.integration

TENANT = "t1"
SECRET = "zqconformancesecret"
#: (event key, content, minutes after T0). Batch A; ``coffee3`` comes later in its own request.
LINES: tuple[tuple[str, str, int], ...] = (
    ("berlin", "I live in Berlin.", 0),
    ("paris", "I moved to Paris.", 1),
    ("dog", "I have a dog.", 2),
    ("cat", "I have a cat.", 3),
    ("boat", "I own a boat.", 4),
    ("coffee1", "I drink coffee.", 5),
    ("coffee2", "I drink Coffee.", 6),
    ("tea_love", "I love tea.", 7),
    ("tea_hate", "I hate tea.", 8),
    ("rust", "Maybe I will learn Rust.", 9),
    ("acme", "I work at Acme.", 10),
    ("globex", "I no longer work at Acme, I now work at Globex.", 11),
    ("prefer", "I prefer tea.", 12),
    ("secret", f"I like {SECRET}.", 13),
    ("berlin_only", "I am based in Oslo.", 14),
    ("postgres", "I decided to use Postgres.", 15),
)


class Env:
    def __init__(self, client: TestClient, keys: Keys, runner: EmbeddedRunner, nodes: dict[str, str]) -> None:
        self.client, self.keys, self.runner, self.nodes = client, keys, runner, nodes

    def post(self, path: str, body: Any, key: str = "admin", **headers: str) -> Any:
        return self.client.post(path, json=body, headers={**self.keys.auth(key), **headers})

    def state(self, key: str = "admin", **body: Any) -> Any:
        return self.post("/v1/assertions/state", {"owner_id": "u1", "valid_at": "2026-03-02T00:00:00Z", **body}, key)


@pytest.fixture(scope="module")
def env(chdb_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Env]:
    data = tmp_path_factory.mktemp("api-conformance")
    settings = settings_for(data, api_max_limit=200)
    keys = Keys()
    keys.add("admin", TENANT)
    keys.add("u1", TENANT, owners={"u1"})
    keys.add("u2", TENANT, owners={"u2"})
    keys.add("reader", TENANT, frozenset({Permission.READ}), owners={"u1"})
    keys.add("stranger", "t2")
    with open_runner(chdb_path, data, settings) as runner, make_client(runner, keys, settings) as client:
        auth = keys.auth("admin")
        batch = [event(k, text, owner="u1", minutes=m) for k, text, m in LINES]
        r = client.post("/v1/events", json=batch, headers=auth)
        assert r.status_code == 200, r.text
        r = client.post("/v1/events", json=[event("coffee3", "I drink coffee.", owner="u1", minutes=20),
                                             event("v-paris", "I live in Paris.", owner="u2", minutes=0)],
                        headers=auth)
        assert r.status_code == 200, r.text
        nodes = node_by_event(runner, TENANT, "u1", "")
        r = client.post(f"/v1/nodes/{nodes['boat']}/deprecate", json={"reason": "sold"}, headers=auth)
        assert r.status_code == 200, r.text
        yield Env(client, keys, runner, nodes)


def _err(r: Any, status: int, code: str | None = None) -> dict[str, Any]:
    assert r.status_code == status, r.text
    body: dict[str, Any] = r.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message", "details"}
    if code is not None:
        assert body["error"]["code"] == code, body
    assert SECRET not in r.text
    return body


def _ok(r: Any) -> dict[str, Any]:
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


def _dt(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


# ================================================================ §9 assertion state
FIXED_LABELS = {
    "state_semantics": "eligible_claims_not_verified_truth",
    "stored_set_exhaustive": True,
    "semantic_equivalence": "normalized_exact_only",
    "source_extraction_coverage": "unknown",
    "real_world_coverage": "unknown",
}
COUNT_FIELDS = ("scanned_nodes", "matched_records", "current_candidate_count", "conflict_count")


def test_state_single_and_fixed_labels(env: Env) -> None:
    s = _ok(env.state(subject="user", predicate="chose"))
    assert s["status"] == "single"
    for name, value in FIXED_LABELS.items():
        assert s[name] == value
    assert all(isinstance(s[f], int) for f in COUNT_FIELDS)
    assert s["current_candidate_count"] == 1 and s["conflict_count"] == 0
    assert s["historical_coverage"] is None
    assert s["truncated"] is False
    assert [c["node_id"] for c in s["current_candidates"]] == [env.nodes["postgres"]]
    value = s["current_values"][0]
    assert {"object", "polarity", "normalized_object", "normalized_polarity", "candidate_count", "evidence_count",
            "samples"} <= set(value)
    assert value["object"] == "Postgres" and value["normalized_object"] == "postgres"
    assert value["candidate_count"] == 1 and value["evidence_count"] == 1
    assert value["samples"] == [env.nodes["postgres"]]


def test_state_unknown_when_nothing_is_current(env: Env) -> None:
    s = _ok(env.state(subject="user", predicate="flies_to"))
    assert s["status"] == "unknown" and s["current_candidate_count"] == 0 and s["current_values"] == []
    assert s["scanned_nodes"] > 0  # every owner node is scanned, none matched


def test_state_validity_window_is_half_open(env: Env) -> None:
    """valid_from <= valid_at < valid_to: at valid_from the claim counts, a microsecond before it does not."""
    start = T0 + timedelta(minutes=14)  # "I am based in Oslo."
    pred = "lives_in"
    at = _ok(env.state(subject="user", predicate=pred, valid_at=start.isoformat()))
    before = _ok(env.state(subject="user", predicate=pred, valid_at=(start - timedelta(microseconds=1)).isoformat()))
    oslo = env.nodes["berlin_only"]
    assert oslo in {c["node_id"] for c in at["current_candidates"]}
    assert oslo not in {c["node_id"] for c in before["current_candidates"]}
    entry = next(t for t in before["timeline"] if t["node_id"] == oslo)
    assert "outside_validity_window" in entry["exclusion_reasons"]
    early = _ok(env.state(subject="user", predicate=pred, valid_at="2026-02-01T00:00:00Z"))
    assert early["status"] == "unknown"
    assert early["exclusions"]["outside_validity_window"] == early["matched_records"] >= 3


def test_state_of_a_single_valued_attribute_is_never_resolved_by_recency(env: Env) -> None:
    """Berlin, "moved to Paris" (an update: it retires Berlin), then "based in Oslo" (a plain second
    value of a single-valued attribute): Paris and Oslo are both current and contested, not "the
    newest wins"."""
    s = _ok(env.state(subject="user", predicate="lives_in"))
    assert s["status"] == "contested"
    assert {v["normalized_object"] for v in s["current_values"]} == {"paris", "oslo"}
    assert s["conflict_count"] == 1 and s["matched_records"] == 3


def test_state_consistent_groups_normalised_values(env: Env) -> None:
    """"coffee", "Coffee", "coffee" are one value; candidates by confidence, then newest ingestion."""
    coffee1, coffee2, coffee3 = (env.nodes[k] for k in ("coffee1", "coffee2", "coffee3"))
    r = env.post(f"/v1/nodes/{coffee2}/reinforce", {"signal": "CONFIRMED"})
    assert r.status_code == 200, r.text
    s = _ok(env.state(subject="user", predicate="drinks"))
    assert s["status"] == "consistent"
    assert len(s["current_values"]) == 1
    value = s["current_values"][0]
    assert value["normalized_object"] == "coffee" and value["candidate_count"] == 3 and value["evidence_count"] == 3
    assert set(value["samples"]) <= {coffee1, coffee2, coffee3} and 1 <= len(value["samples"]) <= 3
    order = [c["node_id"] for c in s["current_candidates"]]
    confidences = [c["confidence"] for c in s["current_candidates"]]
    assert confidences[0] > confidences[1] == confidences[2]
    # coffee2 was reinforced; of the two equal ones, coffee3 was ingested in a later request.
    assert order == [coffee2, coffee3, coffee1]


def test_state_contested_with_conflict_between_current_candidates(env: Env) -> None:
    love, hate = env.nodes["tea_love"], env.nodes["tea_hate"]
    s = _ok(env.state(subject="user", predicate="likes"))
    assert s["status"] == "contested"
    assert s["conflict_count"] == len(s["conflicts"]) >= 1
    conflict = next(c for c in s["conflicts"] if {c["source_id"], c["target_id"]} == {love, hate})
    assert conflict["active_between_current_candidates"] is True
    # Same object, opposite polarity: two distinct (object, polarity) values.
    assert {(v["normalized_object"], v["polarity"]) for v in s["current_values"]} >= {
        ("tea", "positive"), ("tea", "negative")
    }
    by_id = {t["node_id"]: t for t in s["timeline"]}
    assert hate in by_id[love]["contradiction_ids"] and love in by_id[hate]["contradiction_ids"]


def test_state_timeline_fields_order_and_exclusions(env: Env) -> None:
    """Acme was superseded by the Globex message: excluded with its pointer, kept on the timeline."""
    s = _ok(env.state(subject="user", predicate="works_at"))
    timeline = s["timeline"]
    keys = [(_dt(t["valid_from"]), _dt(t["created_at"]), t["node_id"]) for t in timeline]
    assert keys == sorted(keys)
    fields = {"valid_from", "valid_to", "recorded_at", "created_at", "updated_at", "lifecycle", "superseded_by",
              "evidence_refs", "contradiction_ids", "exclusion_reasons"}
    assert all(fields <= set(t) for t in timeline)
    acme = next(t for t in timeline if t["node_id"] == env.nodes["acme"])
    assert acme["superseded_by"] is not None
    assert "superseded_pointer" in acme["exclusion_reasons"]
    assert "lifecycle_not_active:superseded" in [r.lower() for r in acme["exclusion_reasons"]]
    assert acme["evidence_refs"] == ["acme"]
    assert env.nodes["acme"] not in {c["node_id"] for c in s["current_candidates"]}
    histogram = s["exclusions"]
    assert histogram["superseded_pointer"] >= 1
    assert sum(histogram.values()) >= sum(len(t["exclusion_reasons"]) for t in timeline)
    # Two distinct values remain (Acme negated, Globex) with no contradiction edge: they coexist.
    assert s["status"] == "multiple"


def test_state_lifecycle_exclusion_of_a_deprecated_claim(env: Env) -> None:
    s = _ok(env.state(subject="user", predicate="has"))
    boat = next(t for t in s["timeline"] if t["node_id"] == env.nodes["boat"])
    assert any(r.lower().startswith("lifecycle_not_active:") for r in boat["exclusion_reasons"])
    assert {v["normalized_object"] for v in s["current_values"]} == {"dog", "cat"}
    assert s["status"] == "multiple"


def test_state_node_types_default_and_override(env: Env) -> None:
    """Default FACT, DECISION and PREFERENCE; "Maybe I will learn Rust." is a TASK and needs asking for."""
    default = _ok(env.state(subject="user", predicate="will_learn"))
    assert default["matched_records"] == 0 and default["status"] == "unknown"
    tasks = _ok(env.state(subject="user", predicate="will_learn", node_types=["TASK"]))
    assert tasks["matched_records"] == 1 and tasks["status"] == "unknown"
    assert tasks["timeline"][0]["exclusion_reasons"] == ["epistemic_filtered:hypothetical"]
    assert tasks["exclusions"] == {"epistemic_filtered:hypothetical": 1}
    # "I prefer tea." is a PREFERENCE: in the default set, gone when only FACT is asked for.
    assert _ok(env.state(subject="user", predicate="prefers"))["status"] == "single"
    only_facts = _ok(env.state(subject="user", predicate="prefers", node_types=["FACT"]))
    assert only_facts["matched_records"] == 0 and only_facts["status"] == "unknown"


def test_state_limit_default_bounds_and_truncation(env: Env) -> None:
    full = _ok(env.state(subject="user", predicate="drinks"))
    assert full["matched_records"] == 3 and full["truncated"] is False
    one = _ok(env.state(subject="user", predicate="drinks", limit=1))
    assert one["matched_records"] == 1 and one["truncated"] is True
    assert _ok(env.state(subject="user", predicate="drinks", limit=10_000))["truncated"] is False
    for bad in (0, -1, 10_001):
        _err(env.state(subject="user", predicate="drinks", limit=bad), 422, "validation_failed")


@pytest.mark.parametrize("predicate", ["lives_in", "lives-in", "lives in", "  LIVES   IN ", "Lives-In"])
def test_state_predicate_and_subject_normalisation(env: Env, predicate: str) -> None:
    s = _ok(env.state(subject="  USER ", predicate=predicate))
    assert s["status"] == "contested" and s["matched_records"] == 3


def test_state_knowledge_cutoff_and_historical_coverage(env: Env) -> None:
    before = _ok(env.state(subject="user", predicate="drinks", knowledge_at="2000-01-01T00:00:00Z"))
    assert before["status"] == "unknown" and before["timeline"] == []
    assert before["exclusions"] == {"after_knowledge_cutoff": 3}
    assert before["historical_coverage"]["exact_snapshot"] is False
    assert _dt(before["historical_coverage"]["knowledge_at"]) == _dt("2000-01-01T00:00:00Z")
    after = _ok(env.state(subject="user", predicate="drinks", knowledge_at="2999-01-01T00:00:00+02:00"))
    assert after["status"] == "consistent" and after["historical_coverage"]["exact_snapshot"] is False


def test_state_request_errors(env: Env) -> None:
    base = {"owner_id": "u1", "subject": "user", "predicate": "drinks", "valid_at": "2026-03-02T00:00:00Z"}
    bad_bodies: list[dict[str, Any]] = [
        {k: v for k, v in base.items() if k != "subject"},
        {k: v for k, v in base.items() if k != "predicate"},
        {k: v for k, v in base.items() if k != "valid_at"},
        {**base, "subject": ""},
        {**base, "predicate": "   "},
        {**base, "valid_at": "2026-03-02T00:00:00"},
        {**base, "knowledge_at": "2026-03-02T00:00:00"},
        {**base, "node_types": ["NOT_A_TYPE"]},
        {**base, "node_types": []},
        {**base, "scope_id": "x"},
        {**base, "tenant_id": TENANT},
        {**base, "limit": "many"},
    ]
    for body in bad_bodies:
        _err(env.post("/v1/assertions/state", body), 422)
    _err(env.client.post("/v1/assertions/state", json=base), 401, "unauthenticated")
    # another owner: its state over only what it shared with the tenant (nothing here), never its private claims
    other = _ok(env.post("/v1/assertions/state", {**base, "owner_id": "u2"}, "u1"))
    assert other["status"] == "unknown" and other["current_candidates"] == [] and other["timeline"] == []
    # A key bound to one owner defaults to it.
    assert _ok(env.post("/v1/assertions/state", {k: v for k, v in base.items() if k != "owner_id"}, "u1"))[
        "status"] == "consistent"


def test_state_errors_never_echo_content(env: Env) -> None:
    for body in (
        {"owner_id": "u1", "subject": SECRET, "predicate": "likes", "valid_at": "bad", "limit": 0},
        {"owner_id": "u1", "subject": "user", "predicate": SECRET, "valid_at": f"{SECRET}"},
        {"owner_id": "u1", "subject": "user", "predicate": "likes", "valid_at": "2026-03-02T00:00:00Z",
         "node_types": [SECRET]},
    ):
        r = env.post("/v1/assertions/state", body)
        _err(r, 422, "validation_failed")
        assert env.keys.tokens["admin"] not in r.text


def test_state_is_per_owner_and_tenant(env: Env) -> None:
    u2 = _ok(env.post("/v1/assertions/state", {"subject": "user", "predicate": "lives_in",
                                               "valid_at": "2026-03-02T00:00:00Z"}, "u2"))
    assert u2["status"] == "single" and u2["current_values"][0]["normalized_object"] == "paris"
    stranger = _ok(env.state("stranger", subject="user", predicate="lives_in"))
    assert stranger["status"] == "unknown" and stranger["scanned_nodes"] == 0


# ================================================================ §10 provenance
def _prov(env: Env, node_id: str, key: str = "admin", **params: Any) -> Any:
    return env.client.get(f"/v1/nodes/{node_id}/provenance", params=params, headers=env.keys.auth(key))


#: The deployment's provenance page cap (``api_max_page``, at most the spec's 1000); the fixture's default.
PAGE_CAP = 1000


def _decode(cursor: str) -> list[str]:
    assert "=" not in cursor and "+" not in cursor and "/" not in cursor
    value: list[str] = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    return value


def test_provenance_answers_the_five_questions(env: Env) -> None:
    love, hate = env.nodes["tea_love"], env.nodes["tea_hate"]
    p = _ok(_prov(env, love))
    assert p["schema_version"] == 1
    node = p["node"]
    assert node["node_id"] == love
    for field in ("epistemic_type", "source_type", "lifecycle", "confidence", "evidence_refs", "metadata"):
        assert field in node
    # 1. why believed: the source events of evidence_refs, in reference order.
    assert [e["event_id"] for e in p["evidence_events"]] == node["evidence_refs"] == ["tea_love"]
    assert p["evidence_events"][0]["owner_id"] == "u1" and p["missing_evidence_refs"] == []
    # 2. who asserted it, with the actor's type.
    assert p["asserted_by"]["actor_type"] and p["asserted_by"] == node["asserted_by"]
    # 3. what kind of knowledge.
    assert p["epistemic_type"] == node["epistemic_type"] == "ASSERTED"
    # 4. challenged: the CONTRADICTS edge to its partner.
    assert p["challenged"] is True
    assert any({e["source_id"], e["target_id"]} == {love, hate} and e["edge_type"] == "CONTRADICTS"
               for e in p["contradiction_edges"])
    # 5. how it changed: an epistemic transition shows up in the history.
    rust = env.nodes["rust"]
    assert _ok(_prov(env, rust))["epistemic_history"] == []
    r = env.post(f"/v1/nodes/{rust}/transition", {"to_type": "ASSERTED"})
    assert r.status_code == 200, r.text
    history = _ok(_prov(env, rust))["epistemic_history"]
    assert [h["op_type"] for h in history] == [OpType.EPISTEMIC_TRANSITION.value]


def test_provenance_operation_entries_order_and_cursor_pages(env: Env) -> None:
    node = env.nodes["coffee2"]
    for i in range(3):
        assert env.post(f"/v1/nodes/{node}/reinforce", {"session_id": f"p{i}"}).status_code == 200
    whole = _ok(_prov(env, node, limit=PAGE_CAP))
    assert whole["next_operation_cursor"] is None
    ops = whole["operations"]
    assert len(ops) >= 4
    for op in ops:
        assert {"id", "op_type", "target_id", "payload", "actor_id", "namespace_id", "created_at"} <= set(op)
        assert op["target_id"] == node or op["op_type"] in {t.value for t in OpType}
    keys = [(_dt(o["created_at"]), o["id"]) for o in ops]
    assert keys == sorted(keys)
    # One page at a time: every page's cursor is [created_at, id] of its last entry; the last page's is null.
    seen: list[str] = []
    cursor: str | None = None
    while True:
        params: dict[str, Any] = {"limit": 1}
        if cursor is not None:
            params["cursor"] = cursor
        page = _ok(_prov(env, node, **params))
        assert len(page["operations"]) == 1
        seen.append(page["operations"][0]["id"])
        cursor = page["next_operation_cursor"]
        if cursor is None:
            break
        created_at, op_id = _decode(cursor)
        assert op_id == page["operations"][0]["id"]
        assert _dt(created_at) == _dt(page["operations"][0]["created_at"])
        assert len(seen) <= len(ops)
    assert seen == [o["id"] for o in ops]


def test_provenance_bad_cursor_or_limit(env: Env) -> None:
    node = env.nodes["berlin"]
    for cursor in ("%%%", base64.urlsafe_b64encode(b'{"a": 1}').decode().rstrip("="), "bm90IGpzb24"):
        _err(_prov(env, node, cursor=cursor), 422, "invalid_cursor")
    for limit in (0, -1, 1001):
        _err(_prov(env, node, limit=limit), 422, "validation_failed")


def test_provenance_of_someone_elses_node_is_not_found_without_leaking(env: Env) -> None:
    node = env.nodes["secret"]
    missing = _err(_prov(env, "no-such-node", "u2"), 404, "node_not_found")
    other_owner = _err(_prov(env, node, "u2"), 404, "node_not_found")
    other_tenant = _err(_prov(env, node, "stranger"), 404, "node_not_found")
    assert missing == other_owner == other_tenant
    assert _ok(_prov(env, node, "u1"))["node"]["owner_id"] == "u1"


# ================================================================ §5.5 Idempotency-Key over HTTP
def test_command_retry_changes_nothing_and_returns_the_current_node(env: Env) -> None:
    node = env.nodes["dog"]
    h = {"Idempotency-Key": str(uuid.uuid4())}
    first = _ok(env.post(f"/v1/nodes/{node}/reinforce", {"signal": "CONFIRMED"}, **h))
    ops_before = len(env.runner.log.read_operations(tenant=TENANT, owner="u1"))
    again = _ok(env.post(f"/v1/nodes/{node}/reinforce", {"signal": "CONFIRMED"}, **h))
    assert again["outcome"]["retried"] is True and first["outcome"]["retried"] is False
    assert len(env.runner.log.read_operations(tenant=TENANT, owner="u1")) == ops_before
    current = env.runner.node(node, tenant_id=TENANT)
    assert current is not None
    assert first["node"]["node_id"] == node
    # The retry returns the node as it stands, untouched: same version, counters, confidence, timestamps.
    assert again["node"] == first["node"]
    assert again["node"]["version"] == current.version
    assert again["node"]["confidence"] == pytest.approx(current.confidence)


def test_concurrent_calls_with_one_key_count_once(env: Env) -> None:
    node = env.nodes["cat"]
    key = str(uuid.uuid4())
    before = [o for o in env.runner.log.read_operations(tenant=TENANT, owner="u1")
              if o.target_id == node and o.op_type is OpType.REINFORCE]

    def call(_: int) -> int:
        r = env.post(f"/v1/nodes/{node}/reinforce", {"signal": "CONFIRMED"}, **{"Idempotency-Key": key})
        return int(r.status_code)

    with ThreadPoolExecutor(max_workers=4) as pool:
        statuses = list(pool.map(call, range(6)))
    assert statuses == [200] * 6
    after = [o for o in env.runner.log.read_operations(tenant=TENANT, owner="u1")
             if o.target_id == node and o.op_type is OpType.REINFORCE]
    assert len(after) == len(before) + 1


def test_same_key_with_different_inputs_is_409_and_malformed_is_422(env: Env) -> None:
    node = env.nodes["prefer"]
    h = {"Idempotency-Key": str(uuid.uuid4())}
    assert env.post(f"/v1/nodes/{node}/penalize", {"signal": "CORRECTED"}, **h).status_code == 200
    _err(env.post(f"/v1/nodes/{node}/penalize", {"signal": "CONTRADICTED_BY_OBSERVATION", "reason": SECRET}, **h), 409,
         "request_id_conflict")
    for bad in ("not-a-uuid", "1234", SECRET):
        _err(env.post(f"/v1/nodes/{node}/reinforce", {}, **{"Idempotency-Key": bad}), 422,
             "invalid_idempotency_key")
        _err(env.post("/v1/events", [event("m1", "I have a fish.", owner="u1")], **{"Idempotency-Key": bad}), 422,
             "invalid_idempotency_key")


def test_command_keys_are_scoped_per_owner(env: Env) -> None:
    u2_node = next(n.node_id for n in env.runner.nodes_of(tenant_id=TENANT, owner_id="u2"))
    key = str(uuid.uuid4())
    a = _ok(env.post(f"/v1/nodes/{env.nodes['paris']}/reinforce", {"signal": "CONFIRMED"}, "u1",
                     **{"Idempotency-Key": key}))
    b = _ok(env.post(f"/v1/nodes/{u2_node}/reinforce", {"signal": "REFERENCED"}, "u2", **{"Idempotency-Key": key}))
    assert a["outcome"]["status"] == b["outcome"]["status"] == "applied"
    assert a["outcome"]["retried"] is False and b["outcome"]["retried"] is False
    assert a["command_id"] != b["command_id"]


def test_event_keys_replay_conflict_and_are_scoped_per_owner(env: Env) -> None:
    key = str(uuid.uuid4())
    h = {"Idempotency-Key": key}
    mine = [event("k-u1-a", "I have a hamster.", owner="u1", minutes=40),
            event("k-u1-b", "I have a parrot.", owner="u1", minutes=41)]
    first = env.post("/v1/events", mine, "u1", **h)
    replay = env.post("/v1/events", mine, "u1", **h)
    assert first.status_code == replay.status_code == 200
    assert replay.json() == first.json()
    assert [x["event_id"] for x in replay.json()["results"]] == ["k-u1-a", "k-u1-b"]
    # The key is tied to the exact ordered list of inputs.
    _err(env.post("/v1/events", list(reversed(mine)), "u1", **h), 409, "request_id_conflict")
    # Another owner's use of the same UUID is independent.
    theirs = env.post("/v1/events", [event("k-u2-a", "I have a turtle.", owner="u2", minutes=40)], "u2", **h)
    assert theirs.status_code == 200, theirs.text
    assert theirs.json()["accepted"] == 1


# ================================================================ §6 retrieval request parameters
def _retrieve(env: Env, key: str = "admin", **body: Any) -> Any:
    return env.post("/v1/retrieve", {"owner_id": "u1", **body}, key)


def test_retrieve_defaults_and_modes(env: Env) -> None:
    r = _ok(_retrieve(env, query="where do I live"))
    assert r["mode"] == "default" and r["token_budget"] == 4096
    # 20 items, and beyond them only the other sides of contradictions among them (api.md).
    beyond = r["items"][20:]
    contested = {c for i in r["items"][:20] for c in i["contradicts_ids"]}
    assert all(i["conflict_flag"] and i["node_id"] in contested for i in beyond)
    assert _ok(_retrieve(env, query="tea", mode="explicit"))["mode"] == "explicit"
    assert _ok(_retrieve(env, query="tea", mode="EXPLICIT"))["mode"] == "explicit"
    _err(_retrieve(env, query="tea", mode="audit"), 422, "validation_failed")


def test_retrieve_limit_bounds(env: Env) -> None:
    assert len(_ok(_retrieve(env, query="I", limit=1))["items"]) <= 1
    for bad in (0, -3, 1001):
        _err(_retrieve(env, query="tea", limit=bad), 422, "validation_failed")
    _err(_retrieve(env, query="tea", limit=201), 422, "limit_too_large")


def test_retrieve_token_budget_zero_or_less_is_an_empty_bundle_with_budget_error(env: Env) -> None:
    for budget in (0, -10):
        r = _ok(_retrieve(env, query="coffee", token_budget=budget))
        assert r["context"] == "" and r["tokens_used"] == 0
        assert "BUDGET_ERROR" in r["warnings"]
        assert not any(i["in_context"] for i in r["items"])
    small = _ok(_retrieve(env, query="coffee tea Berlin", token_budget=40))
    assert small["tokens_used"] <= 40


def test_retrieve_min_score_reference_time_and_filters(env: Env) -> None:
    for bad in (-0.1, 1.5, "NaN"):
        _err(_retrieve(env, query="tea", min_score=bad), 422, "validation_failed")
    _err(_retrieve(env, query="tea", reference_time="2026-03-02T00:00:00"), 422, "validation_failed")
    _err(_retrieve(env, query="tea", valid_at="2026-03-02T00:00:00"), 422, "validation_failed")
    _err(_retrieve(env, query="tea", time_window={"start": "2026-03-02T00:00:00Z", "end": "2026-03-01T00:00:00Z"}),
         422, "validation_failed")
    fixed = "2026-03-05T12:00:00+02:00"
    r = _ok(_retrieve(env, query="tea", reference_time=fixed))
    assert _dt(r["reference_time"]) == _dt(fixed)
    assert _ok(_retrieve(env, query="tea", reference_time=fixed)) == r  # one fixed clock: same answer
    prefs = _ok(_retrieve(env, query="tea coffee Berlin", node_types=["PREFERENCE"]))
    assert prefs["items"] and all(i["node_type"] == "PREFERENCE" for i in prefs["items"])
    _err(_retrieve(env, query="tea", node_types=["NOPE"]), 422, "validation_failed")
    assert _ok(_retrieve(env, query="tea", min_score=1.0))["items"] == []

"""Shared helpers of the API integration tests: a real runner, key rings and event builders.

Imported by the other ``test_api_*`` modules; it also checks its own helpers.
chDB allows one engine path per process, so every runner here opens its log on
the session ``chdb_path`` with its own database.
"""

from __future__ import annotations

import itertools
import os
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from epistream.api import ApiKey, ApiKeyRing, Permission, create_app, hash_key_sha256
from epistream.cli.demo import REFERENCE_TIME
from epistream.runner import EmbeddedRunner
from schemas.settings import Settings
from sinks.clickhouse import OperationLog
from sinks.embedding import HashEmbedder

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
ALL = frozenset(Permission)
_db = itertools.count(1)


_START = time.monotonic()


def reference_clock() -> datetime:
    """The API tests' "now": the demo's reference time, ticking from when the tests started.

    Never the machine's date (answers that depend on what has expired are the same on any day), and
    still moving forward, so operations recorded one after another keep their order.
    """
    return REFERENCE_TIME + timedelta(seconds=time.monotonic() - _START)


def settings_for(data_dir: Path, **overrides: Any) -> Settings:
    base: dict[str, Any] = {
        "data_dir": data_dir,
        "embedder": "hash",
        "extractor": "rules",
        "api_rate_limit_per_s": 10_000.0,
        "api_rate_burst": 10_000,
    }
    base.update(overrides)
    return Settings(**base)


@contextmanager
def open_runner(chdb_path: Path, data_dir: Path, settings: Settings) -> Iterator[EmbeddedRunner]:
    database = f"api_{os.getpid()}_{next(_db)}_{uuid.uuid4().hex[:6]}"
    log = OperationLog.connect(None, path=chdb_path, database=database)
    runner = EmbeddedRunner(data_dir, settings, embedder=HashEmbedder(), log=log, clock=reference_clock)
    try:
        yield runner
    finally:
        runner.close()
        log.close()


class Keys:
    """Plaintext tokens by name, and the ring that stores only their hashes."""

    def __init__(self) -> None:
        self.tokens: dict[str, str] = {}
        self.entries: list[ApiKey] = []

    def add(
        self,
        name: str,
        tenant: str,
        permissions: frozenset[Permission] = ALL,
        owners: set[str] | None = None,
        scopes: set[str] | None = None,
        **extra: Any,
    ) -> str:
        token = f"tok-{name}-{uuid.uuid4().hex}"
        self.tokens[name] = token
        self.entries.append(
            ApiKey(
                id=name,
                tenant_id=tenant,
                permissions=permissions,
                owners=frozenset(owners) if owners is not None else None,
                scopes=frozenset(scopes) if scopes is not None else None,
                sha256=hash_key_sha256(token),
                **extra,
            )
        )
        return token

    def ring(self) -> ApiKeyRing:
        return ApiKeyRing(self.entries)

    def auth(self, name: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[name]}"}


def make_client(runner: EmbeddedRunner, keys: Keys, settings: Settings) -> TestClient:
    app = create_app(runner, api_keys=keys.ring(), settings=settings, clock=reference_clock)
    return TestClient(app, raise_server_exceptions=True)


def event(
    event_id: str,
    content: str,
    *,
    owner: str,
    tenant: str | None = None,
    scope: str = "personal",
    scope_id: str | None = None,
    role: str = "user",
    minutes: int = 0,
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "event_id": event_id,
        "owner_id": owner,
        "scope": scope,
        "role": role,
        "content": content,
        "occurred_at": (T0 + timedelta(minutes=minutes)).isoformat(),
    }
    if tenant is not None:
        body["tenant_id"] = tenant
    if scope_id is not None:
        body["scope_id"] = scope_id
    return body


def test_keys_store_only_hashes() -> None:
    keys = Keys()
    token = keys.add("k", "t1")
    ring = keys.ring()
    assert ring.authenticate(f"Bearer {token}").tenant_id == "t1"
    assert all(token not in e.model_dump_json() for e in keys.entries)


# --- a corpus with every epistemic kind, for two tenants x two owners --------------------------------

TENANTS = ("t-alpha", "t-beta")
OWNERS = ("o1", "o2")

#: (key, role, content). Same text for every tenant/owner, so content alone never tells them apart.
CORPUS_LINES: tuple[tuple[str, str, str], ...] = (
    ("berlin", "user", "I live in Berlin."),
    ("superseded", "user", "I work at Acme."),
    ("acme_left", "user", "I no longer work at Acme, I now work at Globex."),
    ("tea_love", "user", "I love tea."),
    ("tea_hate", "user", "I hate tea."),
    ("rust_maybe", "user", "Maybe I will learn Rust."),
    ("bob_jazz", "user", "I think Bob likes jazz."),
    ("cond_unknown", "user", "If it rains tomorrow, I will take the bus."),
    ("cond_false", "user", "If the office is open, I will work at the office."),
    ("cond_expired", "user", "If the sale is still on, I will buy a bike."),
    ("cond_true", "user", "If it is sunny, I will go hiking."),
    ("deprecated", "user", "I own a boat."),
    ("unverified_low", "tool", 'web search: "Carol lives in Oslo"'),
    ("unverified_ok", "tool", 'forwarded email: "Dave speaks German"'),
    ("coffee", "user", "I drink coffee."),
    ("dog", "user", "I have a dog."),
)


def secret_marker(tenant: str, owner: str) -> str:
    """A word that appears only in one tenant/owner's memory: any leak shows up in a response."""
    return f"zq{tenant.replace('-', '')}{owner}marker"


def corpus_events(tenant: str, owner: str) -> list[dict[str, Any]]:
    out = [
        event(f"{tenant}-{owner}-{key}", content, owner=owner, role=role, minutes=i)
        for i, (key, role, content) in enumerate(CORPUS_LINES)
    ]
    out.append(event(f"{tenant}-{owner}-marker", f"I like {secret_marker(tenant, owner)}.", owner=owner, minutes=30))
    return out


def node_by_event(runner: EmbeddedRunner, tenant: str, owner: str, prefix: str | None = None) -> dict[str, str]:
    """Event key (event id minus ``prefix``) -> node id (first node created from that event)."""
    out: dict[str, str] = {}
    prefix = f"{tenant}-{owner}-" if prefix is None else prefix
    for node in runner.nodes_of(tenant_id=tenant, owner_id=owner):
        for ref in node.evidence_refs:
            if ref.startswith(prefix):
                out.setdefault(ref[len(prefix):], node.node_id)
    return out


def build_corpus(client: TestClient, keys: Keys, runner: EmbeddedRunner, admin: dict[str, str]) -> dict[
    tuple[str, str], dict[str, str]
]:
    """Ingest the corpus over HTTP for every tenant/owner and drive each node kind into place with commands.

    ``admin`` maps a tenant to the name of a key with every permission in it.
    """
    ids: dict[tuple[str, str], dict[str, str]] = {}
    for tenant in TENANTS:
        auth = keys.auth(admin[tenant])
        for owner in OWNERS:
            r = client.post("/v1/events", json={"events": corpus_events(tenant, owner)}, headers=auth)
            assert r.status_code == 200, r.text
            nodes = node_by_event(runner, tenant, owner)
            for key, state in (("cond_false", "FALSE"), ("cond_expired", "EXPIRED"), ("cond_true", "TRUE")):
                r = client.put(f"/v1/nodes/{nodes[key]}/condition", json={"state": state}, headers=auth)
                assert r.status_code == 200, r.text
            r = client.post(f"/v1/nodes/{nodes['deprecated']}/deprecate", json={"reason": "wrong"}, headers=auth)
            assert r.status_code == 200, r.text
            low = nodes["unverified_low"]
            for i in range(12):
                node = runner.node(low, tenant_id=tenant)
                assert node is not None
                if node.confidence <= 0.30:
                    break
                r = client.post(f"/v1/nodes/{low}/penalize", json={"session_id": f"s{i}"}, headers=auth)
                assert r.status_code == 200, r.text
            ok = nodes["unverified_ok"]
            for i in range(6):
                node = runner.node(ok, tenant_id=tenant)
                assert node is not None
                if node.confidence > 0.30:
                    break
                r = client.post(f"/v1/nodes/{ok}/reinforce", json={"session_id": f"s{i}"}, headers=auth)
                assert r.status_code == 200, r.text
            ids[(tenant, owner)] = nodes
    return ids

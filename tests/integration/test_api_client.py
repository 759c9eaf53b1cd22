"""The typed client (sync and async) against the real app: typed models back, typed errors by code."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from test_api_support import Keys, Permission, event, make_client, open_runner, settings_for

from epistream.client import AsyncEpistreamClient, EpistreamClient
from schemas.errors import AuthError, NodeNotFound, PermissionDenied, RequestIdConflict, ValidationFailed
from schemas.retrieval import RetrievalResponse

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def env(chdb_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    data = tmp_path_factory.mktemp("api-client")
    settings = settings_for(data)
    keys = Keys()
    keys.add("rw", "t1", owners={"u1"})
    keys.add("ro", "t1", frozenset({Permission.READ}), owners={"u1"})
    with open_runner(chdb_path, data, settings) as runner, make_client(runner, keys, settings) as http:
        yield {"http": http, "keys": keys, "runner": runner}


def test_sync_client_round_trip_and_typed_errors(env: dict[str, Any]) -> None:
    keys: Keys = env["keys"]
    client = EpistreamClient("http://testserver", keys.tokens["rw"], http_client=env["http"])
    res = client.ingest([event("s1", "I live in Lisbon.", owner="u1"), event("s2", "I love tea.", owner="u1")])
    assert (res.accepted, res.rejected) == (2, 0)
    found = client.retrieve("where do I live", limit=5)
    assert isinstance(found, RetrievalResponse)
    node_id = next(i.node_id for i in found.items if i.kind == "claim" and "Lisbon" in i.content)
    assert client.node(node_id).owner_id == "u1"
    assert client.provenance(node_id, limit=10).node.node_id == node_id
    key = uuid.uuid4()
    first = client.reinforce(node_id, idempotency_key=key, signal="CONFIRMED")
    again = client.reinforce(node_id, idempotency_key=key, signal="CONFIRMED")
    assert first.outcome.status == "applied" and again.outcome.retried and again.command_id == first.command_id
    with pytest.raises(RequestIdConflict):
        client.reinforce(node_id, idempotency_key=key, signal="REFERENCED")
    with pytest.raises(NodeNotFound):
        client.node("missing")
    with pytest.raises(ValidationFailed) as err:
        client.retrieve("x", limit=0)
    assert err.value.code == "validation_failed"
    assert not client.retrieve("x", owner_id="u2").items  # another owner: only what it shared (nothing here)
    assert client.world_context().owner_id == "u1"
    ro = EpistreamClient("http://testserver", keys.tokens["ro"], http_client=env["http"])
    with pytest.raises(PermissionDenied):
        ro.deprecate(node_id)
    with pytest.raises(AuthError):
        EpistreamClient("http://testserver", "wrong", http_client=env["http"]).node(node_id)


@pytest.mark.anyio
async def test_async_client_over_asgi_transport(env: dict[str, Any]) -> None:
    keys: Keys = env["keys"]
    transport = httpx.ASGITransport(app=env["http"].app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
        client = AsyncEpistreamClient("http://testserver", keys.tokens["rw"], http_client=http)
        res = await client.ingest([event("a1", "I drink mate.", owner="u1", minutes=9)])
        assert res.accepted == 1
        found = await client.retrieve("mate drink")
        assert any("mate" in i.content for i in found.items)
        with pytest.raises(NodeNotFound):
            await client.provenance("nope")
        assert (await client.health())["status"] == "ok"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"

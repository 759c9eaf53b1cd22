"""`epistream mcp` end to end with the MCP SDK's own client, over stdio and over streamable HTTP.

The server runs as a real `epistream mcp` process on its own data directory (hash embedder); the
client is `mcp.Client`. Over HTTP every request carries an API key of the keys file, with the
REST API's permissions; over stdio the process acts as the principal its settings name.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from epistream.api.auth import hash_key_sha256

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]

EPISTREAM = str(Path(sys.executable).parent / "epistream")
WRITER, READER, OTHER = "eps_writer_" + "w" * 20, "eps_reader_" + "r" * 20, "eps_other_" + "o" * 20
BERLIN = {"role": "user", "content": "I live in Berlin.", "occurred_at": "2026-09-01T09:00:00+00:00"}
TEA = {"role": "user", "content": "I love green tea.", "occurred_at": "2026-09-01T09:01:00+00:00"}


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("EPISTREAM_")}
    env.update({"EPISTREAM_DATA_DIR": str(tmp_path / "data"), "EPISTREAM_EMBEDDER": "hash",
                "EPISTREAM_RETRIEVAL_RECEIPTS": "false", **extra})  # fmt: skip
    return env


def _structured(result: Any) -> dict[str, Any]:
    assert result.content and result.content[0].type == "text"
    body = json.loads(result.content[0].text)
    assert result.structured_content == body
    return body  # type: ignore[no-any-return]


async def _remember_and_recall(client: Client, owner: str | None, claim_type: str = "ASSERTED") -> dict[str, Any]:
    listed = await client.list_tools()
    names = {t.name for t in listed.tools}
    assert {"memory_remember", "memory_recall", "memory_world", "memory_provenance", "memory_assertion_state",
            "memory_reinforce", "memory_penalize", "memory_contradict", "memory_resolve", "memory_condition",
            "memory_transition", "memory_promote", "memory_archive", "memory_deprecate",
            "memory_revalidate"} == names  # fmt: skip
    recall = next(t for t in listed.tools if t.name == "memory_recall")
    assert "not a fact" in (recall.description or "") and recall.annotations.read_only_hint is True
    assert recall.input_schema["properties"]["mode"]["enum"] == ["default", "explicit"]

    rid = str(uuid.uuid4())
    args: dict[str, Any] = {"messages": [BERLIN, TEA], "session_id": "s1", "request_id": rid}
    if owner is not None:
        args["owner_id"] = owner
    stored = _structured(await client.call_tool("memory_remember", args))
    assert (stored["accepted"], stored["duplicates"], stored["rejected"]) == (2, 0, 0)
    assert stored["claims"] >= 2
    again = _structured(await client.call_tool("memory_remember", args))  # a retry: nothing twice
    assert (again["accepted"], again["claims"]) == (2, stored["claims"])  # the original answer, replayed

    recall_args: dict[str, Any] = {"query": "where does the user live", "sources": "claims"}
    if owner is not None:
        recall_args["owner_id"] = owner
    default = _structured(await client.call_tool("memory_recall", recall_args))
    assert default["mode"] == "default"
    berlin = [i for i in default["items"] if i["kind"] == "claim" and i["object"] == "Berlin"]
    assert berlin and berlin[0]["predicate"] == "lives_in" and berlin[0]["label"]["epistemic_type"] == claim_type
    explicit = _structured(await client.call_tool("memory_recall", {**recall_args, "mode": "explicit"}))
    assert explicit["mode"] == "explicit" and any(i["node_id"] == berlin[0]["node_id"] for i in explicit["items"])

    prov = _structured(await client.call_tool("memory_provenance", {"node_id": berlin[0]["node_id"]}))
    assert prov["node"]["node_id"] == berlin[0]["node_id"]
    assert "Berlin" in json.dumps(prov)  # the evidence quote of the source message
    return berlin[0]


# --------------------------------------------------------------------------------------------- stdio


def test_stdio_acts_as_the_configured_principal(tmp_path: Path) -> None:
    env = _env(tmp_path, EPISTREAM_MCP_TENANT_ID="acme", EPISTREAM_MCP_OWNERS="alice",
               EPISTREAM_MCP_PERMISSIONS="read,write,assert", EPISTREAM_MCP_ACTOR_ID="assistant-1",
               EPISTREAM_MCP_PRINCIPAL_KIND="agent")  # fmt: skip
    params = StdioServerParameters(command=EPISTREAM, args=["mcp"], env=env, cwd=str(tmp_path))

    async def scenario() -> None:
        async with Client(params) as client:
            # The principal's one owner; an agent's channel makes what it remembers, even as role user,
            # a model suggestion (TRUST-FACTS §3): INFERRED, a proposal, never a user's fact.
            claim = await _remember_and_recall(client, owner=None, claim_type="INFERRED")
            rid = str(uuid.uuid4())
            first = _structured(await client.call_tool(
                "memory_reinforce", {"node_id": claim["node_id"], "signal": "CONFIRMED", "request_id": rid}))
            assert first["outcome"]["status"] == "applied", first
            assert first["node"]["confidence"] > claim["label"]["confidence"]
            retry = _structured(await client.call_tool(
                "memory_reinforce", {"node_id": claim["node_id"], "signal": "CONFIRMED", "request_id": rid}))
            assert retry["command_id"] == first["command_id"]
            assert retry["node"]["confidence"] == first["node"]["confidence"]  # applied once
            prov = _structured(await client.call_tool("memory_provenance", {"node_id": claim["node_id"]}))
            signals = [op for op in prov["operations"] if op["op_type"] == "REINFORCE"]
            assert [(op["actor_id"], op["actor_type"]) for op in signals] == [("assistant-1", "AI_AGENT")]

            # another owner: only what bob shared could be read (TRUST-FACTS §6), and nothing may be written
            other = await client.call_tool("memory_recall", {"query": "where", "owner_id": "bob"})
            assert other.is_error is False and _structured(other)["items"] == []
            write = await client.call_tool("memory_remember", {"messages": [BERLIN], "owner_id": "bob",
                                                               "request_id": str(uuid.uuid4())})  # fmt: skip
            refused = _structured(write)
            assert (refused["accepted"], refused["rejected"]) == (0, 1)
            assert refused["results"][0]["code"] == "permission_denied"
            denied = await client.call_tool("memory_deprecate", {"node_id": claim["node_id"]})
            assert denied.is_error is True
            assert _structured(denied)["error"] == {
                "code": "permission_denied", "message": "this key lacks a permission",
                "details": {"permission": "deprecate"},
            }
            bad = await client.call_tool("memory_recall", {"query": ""})
            assert bad.is_error and _structured(bad)["error"]["code"] == "invalid_arguments"

    anyio.run(scenario)


# ---------------------------------------------------------------------------------------------- HTTP


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def http_server(tmp_path: Path) -> Iterator[str]:
    keys = {"keys": [
        {"id": "writer", "tenant_id": "acme", "permissions": ["read", "write", "assert"], "owners": ["alice"],
         "sha256": hash_key_sha256(WRITER)},
        {"id": "reader", "tenant_id": "acme", "permissions": ["read"], "sha256": hash_key_sha256(READER)},
        {"id": "other", "tenant_id": "globex", "permissions": ["read", "write"], "sha256": hash_key_sha256(OTHER)},
    ]}  # fmt: skip
    (tmp_path / "keys.json").write_text(json.dumps(keys))
    port = _free_port()
    env = _env(tmp_path, EPISTREAM_API_KEYS_FILE=str(tmp_path / "keys.json"))
    log = (tmp_path / "server.log").open("w")
    proc = subprocess.Popen([EPISTREAM, "mcp", "--transport", "http", "--port", str(port)], env=env,
                            cwd=tmp_path, stdout=log, stderr=subprocess.STDOUT)  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert proc.poll() is None, (tmp_path / "server.log").read_text()
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.2)
        else:
            pytest.fail("epistream mcp did not listen: " + (tmp_path / "server.log").read_text())
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        log.close()


def _client(url: str, token: str, stack: Any) -> Any:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60)
    stack.push_async_callback(http.aclose)
    return Client(streamable_http_client(url, http_client=http))


def test_http_uses_the_api_keys_and_their_permissions(http_server: str) -> None:
    import contextlib

    async def scenario() -> None:
        async with contextlib.AsyncExitStack() as stack:
            writer = await stack.enter_async_context(_client(http_server, WRITER, stack))
            claim = await _remember_and_recall(writer, owner="alice")

            reader = await stack.enter_async_context(_client(http_server, READER, stack))
            seen = _structured(await reader.call_tool("memory_world", {"owner_id": "alice"}))
            assert claim["node_id"] in {f["node_id"] for f in seen["facts"]}
            denied = await reader.call_tool("memory_remember", {"owner_id": "alice", "messages": [TEA]})
            assert denied.is_error is True
            assert _structured(denied)["error"]["code"] == "permission_denied"

            other = await stack.enter_async_context(_client(http_server, OTHER, stack))
            hidden = await other.call_tool("memory_provenance", {"node_id": claim["node_id"]})
            assert hidden.is_error and _structured(hidden)["error"]["code"] == "node_not_found"  # another tenant

    anyio.run(scenario)


def test_http_without_a_valid_key_is_refused_before_mcp(http_server: str) -> None:
    headers = {"Authorization": "Bearer eps_nope", "Accept": "application/json, text/event-stream"}
    response = httpx2.post(http_server, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, headers=headers)
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "unauthenticated"
    assert httpx2.post(http_server, json={}).status_code == 401

"""The stdio MCP server's principal: what its settings declare, and nothing more (TRUST-FACTS §3, §6)."""

from __future__ import annotations

from epistream.mcp.server import stdio_principal
from schemas.settings import Settings


def test_the_principal_reads_other_owners_through_its_configured_groups_only() -> None:
    key, _token = stdio_principal(Settings(mcp_tenant_id="acme", mcp_owners="alice", mcp_groups="ops, hr"))
    assert key.groups == {"ops", "hr"}
    assert key.readable("alice") is None  # its own owner: everything
    assert key.readable("bob") == {"shared", "group:ops", "group:hr"}
    bare, _ = stdio_principal(Settings(mcp_tenant_id="acme", mcp_owners="alice"))
    assert bare.readable("bob") == {"shared"}

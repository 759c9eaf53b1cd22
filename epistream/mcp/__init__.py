"""The MCP server (``epistream mcp``): see :mod:`epistream.mcp.server`."""

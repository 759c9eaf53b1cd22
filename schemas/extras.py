"""Which optional extra of the distribution brings which module, and the one-line message when one is missing.

``pip install epistream`` is the whole embedded product (chDB, the embedded index, the default
embedder, the CLI, the HTTP API and the inspector). Everything that talks to an external service,
or is a heavy optional front end, is an extra; a command that needs one says so in one line with a
stable code (``missing_extra``), never with an ``ImportError`` traceback. The table is data so the
CLI can turn any ``ModuleNotFoundError`` of these modules into that message, wherever it is raised.
"""

from __future__ import annotations

import importlib.util
from typing import Final

from schemas.errors import MissingExtra

__all__ = ["EXTRAS", "MissingExtra", "missing_extra", "require"]

#: Top-level module → the extra that installs it (pyproject.toml ``[project.optional-dependencies]``).
EXTRAS: Final[dict[str, str]] = {
    "faust": "kafka",
    "mode": "kafka",
    "aiokafka": "kafka",
    "cramjam": "kafka",
    "opensearchpy": "opensearch",
    "instructor": "llm",
    "openai": "llm",
    "mcp": "mcp",
    "mcp_types": "mcp",
    "selenium": "dev",
}

#: What each extra is for, in the words of the message.
PURPOSE: Final[dict[str, str]] = {
    "kafka": "Kafka stream workers and tools",
    "opensearch": "the OpenSearch index",
    "llm": "the LLM extractor",
    "mcp": "the MCP server",
    "dev": "the test tools",
}


def message(extra: str) -> str:
    """``this needs the '<extra>' extra (<purpose>): pip install 'epistream[<extra>]'`` (one line)."""
    return f"this needs the '{extra}' extra ({PURPOSE.get(extra, extra)}): pip install 'epistream[{extra}]'"


def missing_extra(exc: ImportError) -> MissingExtra | None:
    """The typed error for an import that failed because an extra is not installed, else None."""
    name = getattr(exc, "name", None) or ""
    extra = EXTRAS.get(name.split(".")[0])
    if extra is None or not isinstance(exc, ModuleNotFoundError):
        return None
    return MissingExtra(message(extra), extra=extra, module=name.split(".")[0])


def require(extra: str) -> None:
    """Raise :class:`MissingExtra` unless every module of ``extra`` can be imported."""
    for module, owner in EXTRAS.items():
        if owner != extra or module in ("mode", "cramjam", "mcp_types"):
            continue
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            raise MissingExtra(message(extra), extra=extra, module=module)

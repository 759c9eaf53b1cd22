"""epistream: long-term memory for AI assistants that they can trust.

The public Python surface. Everything else (``schemas``, ``engine``, ``extractors``, ``sinks``,
``retrieval``, ``streams`` and the modules of this package not named here) is internal: stable
enough to read, not promised to stay where it is.

* :class:`Memory` — open a memory (a data directory, or a distributed deployment from settings),
  ingest conversation events, retrieve with epistemic filtering, the world view, provenance,
  assertion state, and the explicit commands (reinforce, penalize, contradict, resolve, condition,
  transition, promote, archive, deprecate).
* :class:`Client` / :class:`AsyncClient` — the same reads and commands over the HTTP API.
* The contracts they speak: :class:`ConversationEvent`, :class:`RetrievalRequest`,
  :class:`RetrievalResponse`, :class:`RetrievalMode`, :class:`WorldContext`, :class:`MemoryNode`,
  :class:`Settings`, and :class:`EpistreamError` (every error has a stable ``code``).

Names are loaded on first use, so ``import epistream`` (and the CLI) start without the storage
engine or the embedding model.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from epistream.client import AsyncEpistreamClient as AsyncClient
    from epistream.client import EpistreamClient as Client
    from epistream.memory import Memory
    from epistream.runner import IngestReport
    from schemas.errors import EpistreamError
    from schemas.events import ConversationEvent
    from schemas.nodes import MemoryNode
    from schemas.retrieval import RetrievalMode, RetrievalRequest, RetrievalResponse, WorldContext
    from schemas.settings import Settings

__all__ = [
    "AsyncClient",
    "Client",
    "ConversationEvent",
    "EpistreamError",
    "IngestReport",
    "Memory",
    "MemoryNode",
    "RetrievalMode",
    "RetrievalRequest",
    "RetrievalResponse",
    "Settings",
    "WorldContext",
]

_WHERE: dict[str, tuple[str, str]] = {
    "AsyncClient": ("epistream.client", "AsyncEpistreamClient"),
    "Client": ("epistream.client", "EpistreamClient"),
    "ConversationEvent": ("schemas.events", "ConversationEvent"),
    "EpistreamError": ("schemas.errors", "EpistreamError"),
    "IngestReport": ("epistream.runner", "IngestReport"),
    "Memory": ("epistream.memory", "Memory"),
    "MemoryNode": ("schemas.nodes", "MemoryNode"),
    "RetrievalMode": ("schemas.retrieval", "RetrievalMode"),
    "RetrievalRequest": ("schemas.retrieval", "RetrievalRequest"),
    "RetrievalResponse": ("schemas.retrieval", "RetrievalResponse"),
    "Settings": ("schemas.settings", "Settings"),
    "WorldContext": ("schemas.retrieval", "WorldContext"),
}


def __getattr__(name: str) -> Any:
    try:
        module, attribute = _WHERE[name]
    except KeyError:
        raise AttributeError(f"module 'epistream' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module), attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])

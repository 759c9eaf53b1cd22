"""What a reader of another owner's memory may see of it (TRUST-FACTS §6), over nodes, edges and operations.

The rule itself (``schemas.visibility.is_visible``) is per record; these apply it to the sets the read paths
work on, so a world view, an assertion state or a provenance never shows, through an edge or an operation,
a node its reader may not read.
"""

from __future__ import annotations

from collections.abc import Sequence

from schemas.nodes import Edge, MemoryNode
from schemas.operations import Operation
from schemas.visibility import is_visible


def readable_view(
    nodes: Sequence[MemoryNode], edges: Sequence[Edge], readable: frozenset[str] | None
) -> tuple[list[MemoryNode], list[Edge]]:
    """The nodes a reader of ``readable`` may see, and only the edges between them (None: everything)."""
    if readable is None:
        return list(nodes), list(edges)
    kept = [n for n in nodes if is_visible(n.visibility, readable)]
    ids = {n.node_id for n in kept}
    return kept, [e for e in edges if e.source_id in ids and e.target_id in ids]


def readable_operations(ops: Sequence[Operation], readable: frozenset[str] | None) -> list[Operation]:
    """The operations whose every snapshot is of a node the reader may see (an edge's other end included)."""
    if readable is None:
        return list(ops)
    return [op for op in ops if all(is_visible(n.visibility, readable) for n in (op.before, op.after) if n is not None)]

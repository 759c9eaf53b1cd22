"""Operations grouped into the inputs that produced them, in an order that respects every node's history.

Two places need the operations of a log as a sequence of whole inputs (the unit a worker's state
folds: one input's operations are one ``memory.operations`` record): combining the chDB stores of
several workers into one log, and restoring ``memory.operations`` from the log after Kafka lost it.
The log's own order (``occurred_at, caused_by, op_index``) is the time the input *says* it happened,
not the order a worker reduced it in; two inputs of one owner can be reduced in the other order
(a late event), and then the log order puts a node's version 3 before its version 2. Folding that
would leave the older snapshot. :func:`input_batches` therefore orders the inputs so that, for every
node, the input that wrote a version comes after the one that wrote the version before it, and
otherwise keeps the log order.

:func:`verify_chains` checks what such a sequence holds: every node's versions form one chain
(each operation's ``before`` is the previous operation's ``after``), with no version written by two
different operations (a fork: two writers reduced the same node) and no version missing (a gap: part
of the history is in a store that was not combined).

Pure: no I/O, no clock.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Iterable
from dataclasses import dataclass, field

from schemas.operations import Operation


@dataclass(frozen=True)
class InputBatch:
    """The operations of one input (``caused_by``), in ``op_index`` order."""

    input_id: str
    operations: tuple[Operation, ...]


def input_batches(operations: Iterable[Operation]) -> list[InputBatch]:
    """Every input's operations (duplicates by ``op_id`` dropped), inputs ordered by their nodes' versions.

    Ties (inputs no node orders) keep the order the inputs first appear in ``operations``.
    """
    by_input: dict[str, dict[str, Operation]] = {}
    for op in operations:
        by_input.setdefault(op.caused_by, {}).setdefault(op.op_id, op)
    ids = list(by_input)
    position = {input_id: i for i, input_id in enumerate(ids)}
    writes: dict[str, list[tuple[int, str]]] = {}  # node id -> (version, input id)
    for input_id, by_id in by_input.items():
        for op in by_id.values():
            if op.after is not None:
                writes.setdefault(op.after.node_id, []).append((op.after.version, input_id))
    after: dict[str, set[str]] = {i: set() for i in ids}  # input -> inputs that must come after it
    waiting = dict.fromkeys(ids, 0)
    for versions in writes.values():
        ordered = sorted(set(versions))
        for (_v1, first), (_v2, second) in itertools.pairwise(ordered):
            if first != second and second not in after[first]:
                after[first].add(second)
                waiting[second] += 1
    ready = [(position[i], i) for i in ids if waiting[i] == 0]
    heapq.heapify(ready)
    out: list[InputBatch] = []
    while ready:
        _pos, input_id = heapq.heappop(ready)
        out.append(_batch(input_id, by_input[input_id]))
        for nxt in sorted(after[input_id], key=position.__getitem__):
            waiting[nxt] -= 1
            if waiting[nxt] == 0:
                heapq.heappush(ready, (position[nxt], nxt))
    if len(out) < len(ids):  # a cycle: versions contradict each other; keep the rest in log order
        placed = {b.input_id for b in out}
        for input_id in ids:
            if input_id not in placed:
                out.append(_batch(input_id, by_input[input_id]))
    return out


def _batch(input_id: str, by_id: dict[str, Operation]) -> InputBatch:
    return InputBatch(input_id, tuple(sorted(by_id.values(), key=lambda o: (o.op_index, o.op_id))))


@dataclass
class ChainReport:
    """What :func:`verify_chains` found; ids only, never content."""

    nodes: int = 0
    operations: int = 0
    #: (node id, version): two different operations wrote this version of the node.
    forks: list[tuple[str, int]] = field(default_factory=list)
    #: (node id, version): an operation starts from this version, which no operation wrote.
    gaps: list[tuple[str, int]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.forks and not self.gaps

    def as_dict(self, limit: int = 20) -> dict[str, object]:
        return {
            "ok": self.ok,
            "nodes": self.nodes,
            "operations": self.operations,
            "forks": len(self.forks),
            "gaps": len(self.gaps),
            "first_forks": [list(f) for f in self.forks[:limit]],
            "first_gaps": [list(g) for g in self.gaps[:limit]],
        }


def verify_chains(operations: Iterable[Operation]) -> ChainReport:
    """Whether every node's history is one unbroken chain of versions (see the module docstring)."""
    report = ChainReport()
    written: dict[tuple[str, int], str] = {}  # (node, version) -> op id
    starts: list[tuple[str, int]] = []  # (node, version) an operation started from
    seen_ops: set[str] = set()
    for op in operations:
        if op.op_id in seen_ops:
            continue
        seen_ops.add(op.op_id)
        report.operations += 1
        node = op.after
        if node is None:
            continue
        key = (node.node_id, node.version)
        held = written.get(key)
        if held is not None and held != op.op_id:
            report.forks.append(key)
        written.setdefault(key, op.op_id)
        before = op.before
        if before is not None and before.node_id == node.node_id and before.version != node.version:
            starts.append((before.node_id, before.version))
    report.nodes = len({node_id for node_id, _v in written})
    report.gaps = sorted({s for s in starts if s not in written})
    report.forks = sorted(set(report.forks))
    return report

"""Where work stands: the world view's ``continuation`` and ``task_context`` (TRUST-FACTS §5).

Derived from the world view's own collections, so a capsule is resumable exactly when its claim is a
*fact*: current (not stale, not retired), established (a human statement or a measurement, never a
model suggestion however often repeated) and conflict-free. Two established capsules of one task
that do not supersede one another compete and are both withheld; a completed capsule is listed
apart. A capsule is a working-memory aid: nothing here grants a permission or starts anything.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

from engine.knowledge import capsule_of
from engine.normalize import normalize_text
from engine.trust import evidence_kind_of
from schemas.nodes import MemoryNode
from schemas.retrieval import (
    Continuation,
    TaskCapsule,
    TaskContext,
    WithheldTask,
    WorldClaim,
    WorldContext,
)
from schemas.task_state import KnowledgeKind, TaskStatus

MAX_CAPSULES: Final = 8
MAX_TASK_CONTEXT: Final = 6
#: The kinds a task's context may hold: established knowledge, never another task's state.
CONTEXT_KINDS: Final = frozenset({
    KnowledgeKind.FACT, KnowledgeKind.PREFERENCE, KnowledgeKind.DECISION, KnowledgeKind.ERROR_LESSON,
})  # fmt: skip

_WORD = re.compile(r"[a-z0-9][a-z0-9+#.-]*[a-z0-9+#]|[a-z0-9]")
#: Words too common to make a claim relevant to a task.
_STOP_WORDS: Final = (
    "the a an and or of to in on for with at by from is are was were be been it its this that these those "
    "what which who how when where why do does did done can could should would will shall may might must "
    "not no yes i we you he she they me us my our your their them task step next need needs use using "
    "has have had get got make made let lets any all some"
)
_STOP: Final = frozenset(_STOP_WORDS.split())


def _words(*texts: str | None) -> set[str]:
    out: set[str] = set()
    for text in texts:
        if text:
            for w in _WORD.findall(normalize_text(text).replace("_", " ")):
                if w not in _STOP and len(w) > 1:
                    out.add(w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w)
    return out


def _view(node: MemoryNode) -> TaskCapsule | None:
    capsule = capsule_of(node)
    if capsule is None:
        return None
    return TaskCapsule(
        task_id=capsule.task_id,
        node_id=node.node_id,
        objective=capsule.objective,
        state=capsule.state,
        last_verified_step=capsule.last_verified_step,
        open_questions=capsule.open_questions,
        next_step=capsule.next_step,
        evidence_kind=evidence_kind_of(node),
        event_ids=node.evidence_refs,
        session_id=node.session_id,
        conversation_id=node.conversation_id,
        recorded_at=node.recorded_at,
        supersedes=node.supersedes,
    )


def _newest(capsules: Iterable[TaskCapsule]) -> list[TaskCapsule]:
    return sorted(capsules, key=lambda c: (-c.recorded_at.timestamp(), c.node_id))


def continuation(
    world: WorldContext, nodes: Iterable[MemoryNode], *, task_id: str | None = None
) -> tuple[Continuation, TaskContext | None]:
    """The continuation of ``world`` (built from ``nodes``), and the context of ``task_id`` if given."""
    by_id = {n.node_id: n for n in nodes}
    selected = normalize_text(task_id) if task_id is not None else None

    def wanted(task: str) -> bool:
        return selected is None or normalize_text(task) == selected

    established: dict[str, list[TaskCapsule]] = {}
    for claim in world.facts:
        node = by_id.get(claim.node_id)
        view = _view(node) if node is not None and claim.knowledge_kind is KnowledgeKind.TASK_STATE else None
        if view is not None and wanted(view.task_id):
            established.setdefault(normalize_text(view.task_id), []).append(view)
    withheld: list[WithheldTask] = []
    contested: dict[str, set[str]] = {}
    for conflict in world.conflicts:
        for side in conflict.sides:
            node = by_id.get(side.node_id)
            view = _view(node) if node is not None else None
            if view is not None and wanted(view.task_id):
                contested.setdefault(normalize_text(view.task_id), set()).add(view.node_id)
    resumable: list[TaskCapsule] = []
    completed: list[TaskCapsule] = []
    for key in sorted(established):
        views = established[key]
        if key in contested:
            continue  # listed once below, with every capsule of the task that is in question
        if len(views) > 1:
            withheld.append(
                WithheldTask(
                    task_id=views[0].task_id,
                    reason="competing_capsules",
                    node_ids=tuple(sorted(v.node_id for v in views)),
                )
            )
            continue
        (completed if views[0].state is TaskStatus.COMPLETED else resumable).append(views[0])
    for key in sorted(contested):
        ids = contested[key] | {v.node_id for v in established.get(key, ())}
        task = by_id[min(ids)].subject
        withheld.append(WithheldTask(task_id=task, reason="contested", node_ids=tuple(sorted(ids))))
    withheld.sort(key=lambda w: normalize_text(w.task_id))
    cont = Continuation(
        resumable=tuple(_newest(resumable)[:MAX_CAPSULES]),
        completed=tuple(_newest(completed)[:MAX_CAPSULES]),
        withheld=tuple(withheld[:MAX_CAPSULES]),
        selected_task_id=task_id,
    )
    context = None
    if task_id is not None and cont.resumable:
        context = task_context(world, cont.resumable[0])
    return cont, context


def task_context(world: WorldContext, capsule: TaskCapsule) -> TaskContext:
    """Up to ``MAX_TASK_CONTEXT`` facts, preferences, decisions and lessons of ``world.facts`` (so only
    current, established, conflict-free claims of this owner) sharing words with the task's
    objective, open questions or next step; most shared words first."""
    wanted = _words(capsule.objective, capsule.next_step, *capsule.open_questions)
    scored: list[tuple[int, float, str, WorldClaim]] = []
    for claim in world.facts:
        if claim.knowledge_kind not in CONTEXT_KINDS:
            continue
        shared = len(wanted & _words(claim.subject, claim.predicate, claim.object, claim.content))
        if shared:
            scored.append((-shared, -claim.valid_from.timestamp(), claim.node_id, claim))
    scored.sort(key=lambda s: s[:3])
    return TaskContext(task_id=capsule.task_id, capsule=capsule, claims=tuple(s[3] for s in scored[:MAX_TASK_CONTEXT]))


def with_continuation(world: WorldContext, nodes: Iterable[MemoryNode], *, task_id: str | None = None) -> WorldContext:
    """``world`` with its ``continuation`` (and, for a selected task, its ``task_context``)."""
    cont, context = continuation(world, nodes, task_id=task_id)
    return world.model_copy(update={"continuation": cont, "task_context": context})

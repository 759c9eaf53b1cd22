"""``Memory``: the Python surface of epistream, for programs that embed it.

One object per data directory (embedded) or per deployment (distributed, from settings). Reads
answer with the same contracts the HTTP API returns; writes go through the same admission,
extraction and reducer as ``epistream ingest`` and the Kafka workers, so nothing here holds a
rule of its own. Explicit commands are the registry's (``schemas.commands.COMMANDS``): each has a
method of the same name, and :meth:`Memory.command` reaches any of them by name.

Distributed (``EPISTREAM_API_MODE=distributed`` with the deployment's settings), reads come from
the log and index the workers write and writes are published to Kafka: an ingest returns once the
events are on the input topic, a command once it is published (its outcome is the workers').
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from engine.assertion_state import AssertionState
from engine.provenance import NodeProvenance
from engine.results import Outcome
from epistream.config import load_settings
from epistream.runner import EmbeddedRunner, IngestReport
from schemas.commands import COMMAND_SPECS, CommandBase
from schemas.common import ActorRef, ScopeRef
from schemas.enums import ActorType, ConditionState, EpistemicType, PrincipalKind, Scope, SignalType
from schemas.errors import NodeNotFound
from schemas.events import ConversationEvent
from schemas.nodes import MemoryNode
from schemas.retrieval import RetrievalMode, RetrievalRequest, RetrievalResponse, WorldContext
from schemas.settings import Settings
from sinks.embedding import Embedder

#: Whoever a program acts as when it does not say (journaled as the command's actor).
DEFAULT_ACTOR = ActorRef(actor_id="python", actor_type=ActorType.HUMAN_USER)


class Memory:
    """Long-term memory of one deployment: ingest conversations, retrieve what is known and how.

    >>> with Memory.open("./.epistream") as memory:                    # doctest: +SKIP
    ...     memory.ingest([{"event_id": "e1", "tenant_id": "acme", "owner_id": "alice", "scope": "personal",
    ...                     "role": "user", "content": "I moved from Paris to Berlin.",
    ...                     "occurred_at": "2026-09-21T11:00:00Z"}])
    ...     memory.retrieve("where does alice live?", tenant_id="acme", owner_id="alice").context
    """

    def __init__(self, runner: EmbeddedRunner) -> None:
        self._runner = runner

    @classmethod
    def open(
        cls,
        data_dir: str | Path | None = None,
        *,
        settings: Settings | None = None,
        embedder: Embedder | None = None,
    ) -> Memory:
        """Open the memory in ``data_dir`` (default: settings, ``./.epistream``); one process owns it at a time."""
        chosen = settings or load_settings()
        if data_dir is not None:
            chosen = chosen.model_copy(update={"data_dir": Path(data_dir)})
        return cls(EmbeddedRunner(chosen.data_dir, chosen, embedder=embedder))

    @property
    def settings(self) -> Settings:
        return self._runner.settings

    @property
    def distributed(self) -> bool:
        return self._runner.reads_shared

    def close(self) -> None:
        self._runner.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ writes
    def ingest(self, events: Iterable[ConversationEvent | dict[str, Any] | str | bytes]) -> IngestReport:
        """Admit, extract and reduce events; bad ones are dead-lettered with a reason code, never raised."""
        lines = [_line(event) for event in events]
        if self.distributed:
            from streams import topics
            from streams.publisher import publish_lines

            s = self.settings
            sent = publish_lines(
                lines, s.kafka_bootstrap, topics.Topics(prefix=s.kafka_topic_prefix, partitions=s.partitions).events,
                max_content_bytes=s.max_content_bytes, principal=PrincipalKind(s.publisher_principal_kind),
            )  # fmt: skip
            return IngestReport(received=len(lines), events=sent.sent, dead_letters=len(sent.errors),
                                errors=[e.__dict__ for e in sent.errors])  # fmt: skip
        return self._runner.ingest_lines(lines, source="python")

    def submit(self, command: CommandBase) -> Outcome | None:
        """Apply one explicit command; distributed, publish it (``None``: its outcome is the workers')."""
        if self.distributed:
            from streams import topics
            from streams.publisher import publish_command

            s = self.settings
            publish_command(command, s.kafka_bootstrap, topics.Topics(prefix=s.kafka_topic_prefix).commands,
                            PrincipalKind(s.publisher_principal_kind))
            return None
        result = self._runner.submit(command)
        return result.outcome

    def command(
        self,
        name: str,
        *targets: str,
        tenant_id: str,
        actor: ActorRef = DEFAULT_ACTOR,
        request_id: str | None = None,
        reason: str | None = None,
        evidence_ids: Sequence[str] = (),
        session_id: str | None = None,
        issued_at: datetime | None = None,
        **fields: Any,
    ) -> Outcome | None:
        """Any registered command by name (``reinforce``, ``resolve``, ``transition``…) on the nodes it names.

        ``request_id`` (a UUID) makes a retry safe: the same id with the same content returns the
        first outcome, with other content it is rejected.
        """
        spec = COMMAND_SPECS[name]
        if len(targets) != len(spec.targets):
            raise TypeError(f"{name} names {len(spec.targets)} node(s): {', '.join(spec.targets)}")
        first = self.node(targets[0], tenant_id=tenant_id)
        if first is None:
            raise NodeNotFound("no such node in this tenant", node_id=targets[0])
        command_id = str(uuid.uuid5(uuid.NAMESPACE_URL, f"epistream:python:{request_id}")) if request_id else None
        command = spec.model(
            **first.scope_ref().model_dump(),
            **dict(zip(spec.targets, targets, strict=True)),
            command_id=command_id or str(uuid.uuid4()),
            request_id=request_id,
            actor=actor,
            issued_at=issued_at or self._runner.now(),
            reason=reason,
            evidence_ids=tuple(evidence_ids),
            session_id=session_id,
            **fields,
        )
        return self.submit(command)

    def reinforce(self, node_id: str, *, tenant_id: str, signal: SignalType = SignalType.CONFIRMED,
                  **options: Any) -> Outcome | None:  # fmt: skip
        """A positive signal (RFC-0008): confidence ``c + γ(1−c)`` within the caps."""
        return self.command("reinforce", node_id, tenant_id=tenant_id, signal=signal, **options)

    def penalize(self, node_id: str, *, tenant_id: str, signal: SignalType = SignalType.CORRECTED,
                 **options: Any) -> Outcome | None:  # fmt: skip
        """A negative signal (RFC-0008): confidence ``c(1−δ)`` above the floor."""
        return self.command("penalize", node_id, tenant_id=tenant_id, signal=signal, **options)

    def contradict(self, node_a: str, node_b: str, *, tenant_id: str, **options: Any) -> Outcome | None:
        """Record that two claims contradict each other: both become CONTESTED, neither wins."""
        return self.command("contradict", node_a, node_b, tenant_id=tenant_id, **options)

    def resolve(self, winner_id: str, loser_id: str, *, tenant_id: str, **options: Any) -> Outcome | None:
        """Resolve a contradiction explicitly: the winner becomes STABLE, the loser DEPRECATED."""
        return self.command("resolve", winner_id, loser_id, tenant_id=tenant_id, **options)

    def evaluate_condition(self, node_id: str, state: ConditionState, *, tenant_id: str,
                           **options: Any) -> Outcome | None:  # fmt: skip
        """Say whether a CONDITIONAL claim's condition holds (only TRUE lets DEFAULT retrieval show it)."""
        return self.command("condition", node_id, tenant_id=tenant_id, state=state, **options)

    def transition(self, node_id: str, to_type: EpistemicType, *, tenant_id: str, **options: Any) -> Outcome | None:
        """Change how a claim is known along the allowed transitions (PRME-FACTS §1.6); others are rejected."""
        return self.command("transition", node_id, tenant_id=tenant_id, to_type=to_type, **options)

    def promote(self, node_id: str, *, tenant_id: str, **options: Any) -> Outcome | None:
        """TENTATIVE -> STABLE now, instead of after the promotion window."""
        return self.command("promote", node_id, tenant_id=tenant_id, **options)

    def archive(self, node_id: str, *, tenant_id: str, **options: Any) -> Outcome | None:
        """Archive a claim (final; kept in the log, never shown by DEFAULT retrieval)."""
        return self.command("archive", node_id, tenant_id=tenant_id, **options)

    def deprecate(self, node_id: str, *, tenant_id: str, **options: Any) -> Outcome | None:
        """Mark a claim known wrong or replaced (final for its epistemic type)."""
        return self.command("deprecate", node_id, tenant_id=tenant_id, **options)

    def revalidate(self, node_id: str, expires_at: datetime, *, tenant_id: str, evidence_quote: str | None = None,
                   **options: Any) -> Outcome | None:  # fmt: skip
        """New evidence (``evidence_ids`` or ``evidence_quote``) that a stale claim holds until ``expires_at``."""
        return self.command("revalidate", node_id, tenant_id=tenant_id, expires_at=expires_at,
                            evidence_quote=evidence_quote, **options)  # fmt: skip

    # ------------------------------------------------------------------ reads
    def retrieve(
        self,
        query: str | RetrievalRequest,
        *,
        tenant_id: str | None = None,
        owner_id: str | None = None,
        mode: RetrievalMode | str = RetrievalMode.DEFAULT,
        **options: Any,
    ) -> RetrievalResponse:
        """Hybrid retrieval with epistemic filtering; ``context`` is the packed text for a model.

        DEFAULT mode never returns hypotheses, deprecated or superseded claims, unresolved
        conditions or low-confidence unverified claims; EXPLICIT returns them with the reason.
        """
        if isinstance(query, RetrievalRequest):
            request = query
        else:
            request = RetrievalRequest(query=query, tenant_id=tenant_id, owner_id=owner_id, mode=RetrievalMode(mode),
                                       **{"reference_time": self._runner.now(), **options})  # fmt: skip
        return self._runner.retrieve(request)

    def world(self, *, tenant_id: str, owner_id: str, scope: Scope | None = None, scope_id: str | None = None,
              at: datetime | None = None, task_id: str | None = None) -> WorldContext:  # fmt: skip
        """What memory says now: facts, conflicts (never averaged away), proposals, stale claims, and where
        tasks stand (``continuation``; ``task_id`` selects one, with its ``task_context``)."""
        ref = ScopeRef(tenant_id=tenant_id, owner_id=owner_id, scope=scope, scope_id=scope_id) if scope else None
        return self._runner.world(tenant_id=tenant_id, owner_id=owner_id, scope=ref, at=at, task_id=task_id)

    def node(self, node_id: str, *, tenant_id: str, owner_id: str | None = None) -> MemoryNode | None:
        return self._runner.node(node_id, tenant_id=tenant_id, owner_id=owner_id)

    def provenance(self, node_id: str, *, tenant_id: str, owner_id: str, cursor: str | None = None,
                   limit: int = 100) -> NodeProvenance | None:  # fmt: skip
        """Why a claim is believed, who said it, how it is known, whether it was challenged, how it changed."""
        return self._runner.provenance(node_id, tenant_id=tenant_id, owner_id=owner_id, cursor=cursor, limit=limit)

    def assertion_state(self, *, tenant_id: str, owner_id: str, subject: str, predicate: str,
                        valid_at: datetime | None = None, knowledge_at: datetime | None = None,
                        **options: Any) -> AssertionState:  # fmt: skip
        """unknown, single, consistent, multiple or contested: what the stored claims say, never a guess."""
        return self._runner.assertion(
            tenant_id=tenant_id, owner_id=owner_id, subject=subject, predicate=predicate,
            valid_at=valid_at or self._runner.now(), knowledge_at=knowledge_at, **options,
        )  # fmt: skip

    def verify_replay(self) -> list[str]:
        """Differences between the live state and a rebuild from the operation log alone (none, normally)."""
        return self._runner.verify_replay()


def _line(event: ConversationEvent | dict[str, Any] | str | bytes) -> bytes | str:
    if isinstance(event, ConversationEvent):
        return event.model_dump_json(exclude_none=True)
    if isinstance(event, dict):
        import json

        return json.dumps(event, ensure_ascii=False)
    return event

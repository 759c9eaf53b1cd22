"""How results look to a person: rich tables for retrieval, the world view and provenance.

Kept apart from the commands so ``--json`` (the same objects, dumped) and the tables cannot
disagree about what a command returned; the demo reuses them.
"""

from __future__ import annotations

from typing import Any

from rich.table import Table

from epistream.cli.common import console


def render_items(response: Any) -> None:
    """Claims with how they are known; excerpts as what somebody said, never as claims."""
    table = Table(title=f"{response.mode.value} mode · {len(response.items)} items")
    table.add_column("#", justify="right")
    table.add_column("claim / what was said")
    table.add_column("type")
    table.add_column("conf", justify="right")
    table.add_column("lifecycle")
    table.add_column("note")
    for i, item in enumerate(response.items, 1):
        if item.kind == "excerpt":
            who = item.speaker or (item.role.value if item.role else "?")
            about = f" (about {', '.join(item.event_dates)})" if item.event_dates else ""
            said = f"{who}, {item.valid_from.date().isoformat()}{about}: “{item.content}”"
            table.add_row(str(i), said, "excerpt", "", "", f"{len(item.claim_ids)} claim(s)")
            continue
        label = item.label
        note = []
        if item.conflict_flag:
            note.append("[red]conflict[/red]")
        if label.condition:
            note.append(f"if: {label.condition} ({label.condition_state.value if label.condition_state else '?'})")
        note.extend(f for f in item.flags if f not in ("contested", "conflict"))  # the lifecycle and note say them
        table.add_row(
            str(i),
            claim_line(item.subject, item.predicate, item.object, item.polarity),
            f"{label.epistemic_type.value}/{label.source_type.value}",
            f"{label.confidence:.2f}",
            label.lifecycle.value,
            " ".join(note),
        )
    console.print(table)


def claim_line(subject: str, predicate: str, obj: str | None, polarity: Any, condition: str | None = None) -> str:
    """``user not likes coffee (if …)``: the claim itself, not the sentence it came from."""
    negative = getattr(polarity, "value", polarity) == "negative"
    text = f"{subject} {'not ' if negative else ''}{predicate} {obj or ''}".strip()
    return f"{text} (if: {condition})" if condition else text


def render_world(view: Any) -> None:
    def section(title: str, claims: Any) -> None:
        table = Table(title=title)
        table.add_column("claim")
        table.add_column("type")
        table.add_column("conf", justify="right")
        table.add_column("why")
        table.add_column("expires")
        for c in claims:
            line = claim_line(c.subject, c.predicate, c.object, c.polarity, c.label.condition)
            expires = c.expires_at.isoformat() if c.expires_at is not None else ""
            table.add_row(line, c.label.epistemic_type.value, f"{c.label.confidence:.2f}", c.reason or "", expires)
        console.print(table)

    section("facts", view.facts)
    table = Table(title="conflicts (shown in tie-break order; never two plain facts)")
    table.add_column("subject · predicate")
    table.add_column("sides")
    for conflict in view.conflicts:
        sides = "\n".join(
            f"{'[red]⚑[/red] ' if s.conflict_flag else ''}{claim_line(s.subject, s.predicate, s.object, s.polarity)}"
            f" ({s.label.confidence:.2f}) “{s.content}”"
            for s in conflict.sides
        )
        table.add_row(f"{conflict.subject} · {conflict.predicate}", sides)
    console.print(table)
    section("proposals (inferred / hypothetical / unresolved conditions)", view.proposals)
    section("stale (expired: revalidate with new evidence; or validity, condition or TTL ended)", view.stale)
    cont = getattr(view, "continuation", None)
    if cont is not None and (cont.resumable or cont.completed or cont.withheld):
        table = Table(title="continuation (established capsules only; a capsule grants no permission)")
        table.add_column("task")
        table.add_column("state")
        table.add_column("objective · next step")
        table.add_column("open questions", justify="right")
        for c in (*cont.resumable, *cont.completed):
            plan = f"{c.objective}\nnext: {c.next_step or '—'}"
            table.add_row(c.task_id, c.state.value, plan, str(len(c.open_questions)))
        for w in cont.withheld:
            table.add_row(w.task_id, f"withheld: {w.reason}", ", ".join(w.node_ids), "")
        console.print(table)
    context = getattr(view, "task_context", None)
    if context is not None:
        section(f"task context of {context.task_id}", context.claims)


def render_provenance(trail: Any) -> None:
    node = trail.node
    console.print(f"[bold]{node.content}[/bold]")
    console.print(
        f"how known: {node.epistemic_type.value} · source {node.source_type.value} · confidence {node.confidence:.2f}"
        f" · lifecycle {node.lifecycle.value}"
    )
    console.print(f"asserted by: {node.asserted_by.actor_id} ({node.asserted_by.actor_type.value})")
    for event in trail.evidence_events:
        console.print(f"evidence {event['event_id']} ({event['role']}, {event['occurred_at']}): “{event['content']}”")
    if trail.missing_evidence_refs:
        console.print(f"[yellow]missing evidence: {', '.join(trail.missing_evidence_refs)}[/yellow]")
    for edge in trail.contradiction_edges:
        console.print(
            f"[red]challenged[/red]: contradicts {edge.target_id if edge.source_id == node.node_id else edge.source_id}"
        )
    table = Table(title="history")
    table.add_column("when")
    table.add_column("operation")
    table.add_column("by")
    for op in trail.operations:
        table.add_row(str(op.created_at), op.op_type, op.actor_id)
    console.print(table)


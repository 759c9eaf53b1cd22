"""Token-budget packing into a ``reader`` context, PRME-FACTS §6.5.

Greedy by tier; each unit (an item, or a whole conflict group) is tried from
FULL down to the minimum fidelity and placed only if every line of it fits.
Lines are atomic: an item is never cut part-way, so a conditional claim is
never shown without its condition and a conflict never without its note —
an item that does not fit is skipped instead (``BUDGET_EXHAUSTED``). When
tier 1 itself does not fit, tasks are kept ahead of pinned items (pinned by
STR), and as a last resort tasks go in as REFERENCE only (``BUDGET_OVERFLOW``).

Token cost uses method 2 of §6.5, ceil(chars / chars_per_token), with the
per-script rates (English 4.2, CJK 1.5, Arabic/Hebrew 2.0) so non-Latin
memories are not under-counted 2-3×. It is computed exactly (fractions), and
summing per-line ceilings over-counts the whole text, so the rendered context
never exceeds the budget.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Literal

from engine.filters import condition_state_of
from schemas.enums import ACTIVE_LIFECYCLE_STATES, EpistemicType, LifecycleState, NodeType, Polarity
from schemas.nodes import MemoryNode
from schemas.retrieval import Exclusion, Representation
from sinks.documents import is_excerpt

SECTION_ORDER = (
    "system_instructions",
    "entity_snapshots",
    "stable_facts",
    "contested_claims",
    "recent_decisions",
    "active_tasks",
    "summaries",
    "what_was_said",
    "provenance_refs",
)
_HEADERS = {
    "system_instructions": "## system_instructions",
    "entity_snapshots": "## entity_snapshots",
    "stable_facts": "## stable_facts",
    "contested_claims": "## contested_claims (CONFLICT: these claims contradict each other; none is established)",
    "recent_decisions": "## recent_decisions",
    "active_tasks": "## active_tasks",
    "summaries": "## summaries",
    "what_was_said": "## what_was_said (quotes of messages, not facts: who said what, and when)",
    "provenance_refs": "## provenance_refs",
}
_LEVELS = (Representation.FULL, Representation.STRUCTURED, Representation.KEY_VALUE, Representation.REFERENCE)
_TEXT_LEVELS = frozenset({Representation.FULL, Representation.STRUCTURED})
_DEFAULT_EPISTEMIC = frozenset({EpistemicType.ASSERTED, EpistemicType.OBSERVED})
_DEFAULT_LIFECYCLE = frozenset({LifecycleState.TENTATIVE, LifecycleState.STABLE})
_CONTROL = re.compile(r"[\x00-\x1f\x7f]+")

#: STRUCTURED is "type and a preview of about 200 characters" (§6.5); only the object is shortened,
#: so the subject, the (possibly negated) predicate and every qualification stay whole.
PREVIEW_CHARS = 200
#: §6.5 method-2 rates for scripts far denser than English.
CJK_CHARS_PER_TOKEN = Fraction(3, 2)
RTL_CHARS_PER_TOKEN = Fraction(2)
_CJK_RANGES = (
    (0x1100, 0x11FF), (0x2E80, 0x2FDF), (0x3000, 0x30FF), (0x3130, 0x318F), (0x31F0, 0x31FF),
    (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xA960, 0xA97F), (0xAC00, 0xD7FF), (0xF900, 0xFAFF),
    (0xFF00, 0xFFEF), (0x20000, 0x3FFFF),
)
_RTL_RANGES = ((0x0590, 0x08FF), (0xFB1D, 0xFDFF), (0xFE70, 0xFEFF))

BUDGET_EXHAUSTED = "BUDGET_EXHAUSTED"
BUDGET_ERROR = "BUDGET_ERROR"
BUDGET_OVERFLOW = "BUDGET_OVERFLOW"


@dataclass(frozen=True)
class PackingConfig:
    #: Overhead reserve of §6.5; never more than a tenth of the budget (see ``available_tokens``).
    reserve_tokens: int = 100
    chars_per_token: float = 4.2
    min_fidelity: Representation = Representation.REFERENCE
    #: Tier-2 order: ``density`` = score per token, ``score``, or ``balanced`` (top score, then score/tokens^0.25).
    multipath_ordering: Literal["density", "score", "balanced"] = "balanced"


@dataclass(frozen=True)
class PackItem:
    node: MemoryNode
    score: float
    path_count: int
    conflict_flag: bool = False
    contradicts_ids: tuple[str, ...] = ()
    #: Whole conflict group (presentation order) this item belongs to; packed together.
    group: tuple[str, ...] = ()
    #: Confidence to display (effective at the reference time); defaults to the stored one.
    confidence: float | None = None


@dataclass(frozen=True)
class PackResult:
    context: str
    tokens_used: int
    placed: dict[str, Representation]
    sections: dict[str, tuple[str, ...]]
    excluded: tuple[Exclusion, ...] = ()
    warnings: tuple[str, ...] = ()


@dataclass
class _Unit:
    items: list[PackItem]
    tier: int
    score: float
    section: str
    lines_cache: dict[Representation, list[str]] = field(default_factory=dict)


def _in(code: int, ranges: tuple[tuple[int, int], ...]) -> bool:
    return any(lo <= code <= hi for lo, hi in ranges)


@functools.cache
def _rate(chars_per_token: float) -> Fraction:
    return Fraction(str(chars_per_token))


def estimate_tokens(text: str, chars_per_token: float = 4.2) -> int:
    """ceil(Σ chars / rate of their script); exact arithmetic so per-line sums bound the whole."""
    if not text:
        return 0
    rate = _rate(chars_per_token)
    if text.isascii():
        return -(-len(text) * rate.denominator // rate.numerator)
    cjk = rtl = 0
    for char in text:
        code = ord(char)
        if code < 0x0590:
            continue
        if _in(code, _CJK_RANGES):
            cjk += 1
        elif _in(code, _RTL_RANGES):
            rtl += 1
    other = len(text) - cjk - rtl
    return math.ceil(other / rate + cjk / CJK_CHARS_PER_TOKEN + rtl / RTL_CHARS_PER_TOKEN)


def available_tokens(token_budget: int, config: PackingConfig) -> int:
    return max(0, token_budget - min(config.reserve_tokens, token_budget // 10))


def _clean(text: str) -> str:
    return _CONTROL.sub(" ", text).strip()


def tags(item: PackItem) -> list[str]:
    """Every non-default state, so nothing unusual reads as a plain fact."""
    node = item.node
    out: list[str] = []
    if node.epistemic_type not in _DEFAULT_EPISTEMIC:
        out.append(f"[{node.epistemic_type.value}]")
    if node.epistemic_type is EpistemicType.CONDITIONAL:
        out.append(f"[condition:{condition_state_of(node).value}]")
    if node.lifecycle not in _DEFAULT_LIFECYCLE:
        out.append(f"[{node.lifecycle.value}]")
    if item.conflict_flag:
        out.append("[conflict]")
    return out


def _when(node: MemoryNode) -> str:
    start = node.valid_from.date().isoformat()
    return f"{start}..{node.valid_to.date().isoformat()}" if node.valid_to is not None else start


def _structured_text(node: MemoryNode, preview: int | None = None) -> str:
    verb = f"not {node.predicate}" if node.polarity is Polarity.NEGATIVE else node.predicate
    obj = _clean(node.object or "")
    if preview is not None:
        room = max(0, preview - len(node.subject) - len(verb) - 2)
        if len(obj) > room:
            obj = obj[:room].rstrip() + "…"
    return " ".join(part for part in (node.subject, verb, obj) if part)


def _excerpt_line(item: PackItem, level: Representation) -> str:
    """A quote, never a claim: who said it (and as what), when, the dates it speaks of, the words."""
    doc = item.node
    ident = f"id:{doc.node_id}"
    said = doc.valid_from.date().isoformat()
    if level in (Representation.REFERENCE, Representation.KEY_VALUE):
        return f"- excerpt {said} {ident}"
    role = doc.role.value if doc.role is not None else "unknown"
    who = f"{doc.speaker} ({role})" if doc.speaker else role
    about = f" (about {', '.join(doc.event_dates)})" if doc.event_dates else ""
    text = _clean(doc.content)
    if level is Representation.STRUCTURED and len(text) > PREVIEW_CHARS:
        text = text[:PREVIEW_CHARS].rstrip() + "…"
    return f"- {who} on {said}{about}: “{text}” | {ident}"


def render_line(item: PackItem, level: Representation) -> str:
    node = item.node
    if is_excerpt(node):
        return _excerpt_line(item, level)
    head = " ".join(["-", *tags(item)])
    ident = f"id:{node.node_id}"
    confidence = item.confidence if item.confidence is not None else node.confidence
    if level is Representation.REFERENCE:
        return f"{head} {node.node_type.value} {ident}"
    if level is Representation.KEY_VALUE:
        return f"{head} {node.node_type.value} {ident} conf:{confidence:.2f}"
    # FULL shows the claim and the source sentence it rests on: one sentence can carry several claims.
    if level is Representation.FULL:
        text = f"{_clean(_structured_text(node))} — “{_clean(node.content)}”"
    else:
        text = f"{node.node_type.value}: {_clean(_structured_text(node, PREVIEW_CHARS))}"
    parts = [f"{head} {text}"]
    if node.condition:
        parts.append(f"if: {_clean(node.condition)}")
    if item.contradicts_ids:
        parts.append("contradicts: " + ", ".join(item.contradicts_ids))
    parts += [f"conf:{confidence:.2f}", _when(node), ident]
    return " | ".join(parts)


def _provenance_line(item: PackItem) -> str:
    return f"- {item.node.node_id} <- " + ", ".join(item.node.evidence_refs)


def _section(item: PackItem) -> str:
    node = item.node
    if is_excerpt(node):
        return "what_was_said"
    if item.group or item.contradicts_ids or item.conflict_flag or node.lifecycle is LifecycleState.CONTESTED:
        return "contested_claims"
    if node.node_type is NodeType.INSTRUCTION:
        return "system_instructions"
    if node.node_type is NodeType.TASK:
        return "active_tasks"
    if node.node_type is NodeType.DECISION:
        return "recent_decisions"
    if node.node_type is NodeType.ENTITY:
        return "entity_snapshots"
    if node.node_type is NodeType.SUMMARY:
        return "summaries"
    return "stable_facts"


def _tier(item: PackItem) -> int:
    node = item.node
    if is_excerpt(node):
        return 3  # after every claim: what was said backs the facts, it does not replace them
    if node.node_type is NodeType.INSTRUCTION:
        return 0
    if node.salience >= 1.0 or (node.node_type is NodeType.TASK and node.lifecycle in ACTIVE_LIFECYCLE_STATES):
        return 1
    return 2 if item.path_count >= 2 else 3


def _units(items: Sequence[PackItem]) -> list[_Unit]:
    by_id = {i.node.node_id: i for i in items}
    seen: set[str] = set()
    units: list[_Unit] = []
    for item in items:
        node_id = item.node.node_id
        if node_id in seen:
            continue
        members = [by_id[m] for m in item.group if m in by_id] if item.group else [item]
        seen.update(m.node.node_id for m in members)
        units.append(
            _Unit(
                items=members,
                tier=min(_tier(m) for m in members),
                score=max(m.score for m in members),
                section="contested_claims" if len(members) > 1 else _section(item),
            )
        )
    return units


def _unit_lines(unit: _Unit, level: Representation) -> list[str]:
    cached = unit.lines_cache.get(level)
    if cached is None:
        cached = []
        if len(unit.items) > 1:
            ids = " vs ".join(m.node.node_id for m in unit.items)
            cached.append(f"CONFLICT (unresolved): {ids}; the first is shown first by the tie-break, not as truth")
        cached += [render_line(m, level) for m in unit.items]
        unit.lines_cache[level] = cached
    return cached


def _full_cost(unit: _Unit) -> int:
    return max(1, sum(estimate_tokens(line + "\n") for line in _unit_lines(unit, Representation.FULL)))


def _first_id(unit: _Unit) -> str:
    return unit.items[0].node.node_id


def _str_key(unit: _Unit) -> tuple[float, str]:
    """Signal-to-token ratio, highest first; the id keeps it deterministic."""
    return -unit.score / _full_cost(unit), _first_id(unit)


def _order(units: list[_Unit], config: PackingConfig) -> list[_Unit]:
    ordered: list[_Unit] = []
    for tier in range(4):
        in_tier = [u for u in units if u.tier == tier]
        # Score first; STR (score per token) only breaks ties, then the id keeps it deterministic.
        in_tier.sort(key=lambda u: (-u.score, -u.score / _full_cost(u), _first_id(u)))
        if tier == 2 and config.multipath_ordering == "density":
            in_tier.sort(key=_str_key)
        elif tier == 2 and config.multipath_ordering == "balanced" and len(in_tier) > 1:
            head, rest = in_tier[0], in_tier[1:]
            rest.sort(key=lambda u: (-u.score / _full_cost(u) ** 0.25, _first_id(u)))
            in_tier = [head, *rest]
        ordered += in_tier
    return ordered


def _is_task_unit(unit: _Unit) -> bool:
    return any(
        m.node.node_type is NodeType.TASK and m.node.lifecycle in ACTIVE_LIFECYCLE_STATES for m in unit.items
    )


@dataclass
class _Placement:
    used: int = 0
    open_sections: set[str] = field(default_factory=set)
    body: dict[str, list[str]] = field(default_factory=lambda: {name: [] for name in SECTION_ORDER})
    section_ids: dict[str, list[str]] = field(default_factory=lambda: {name: [] for name in SECTION_ORDER})
    placed: dict[str, Representation] = field(default_factory=dict)
    dropped: list[_Unit] = field(default_factory=list)


def _place(plan: Sequence[tuple[_Unit, Sequence[Representation]]], budget: int, cfg: PackingConfig) -> _Placement:
    """Greedy placement: each unit at the richest of its allowed levels that still fits, else dropped."""

    def cost(line: str) -> int:
        return estimate_tokens(line + "\n", cfg.chars_per_token)

    state = _Placement()
    for unit, levels in plan:
        for level in levels:
            lines = _unit_lines(unit, level)
            refs = [_provenance_line(m) for m in unit.items
                    if level in _TEXT_LEVELS and m.node.evidence_refs and not is_excerpt(m.node)]  # fmt: skip
            extra = sum(cost(line) for line in lines) + sum(cost(line) for line in refs)
            if unit.section not in state.open_sections:
                extra += cost(_HEADERS[unit.section])
            if refs and "provenance_refs" not in state.open_sections:
                extra += cost(_HEADERS["provenance_refs"])
            if state.used + extra > budget:
                continue
            state.used += extra
            state.open_sections.add(unit.section)
            state.body[unit.section] += lines
            state.section_ids[unit.section] += [m.node.node_id for m in unit.items]
            if refs:
                state.open_sections.add("provenance_refs")
                state.body["provenance_refs"] += refs
                state.section_ids["provenance_refs"] += [m.node.node_id for m in refs_of(unit)]
            for member in unit.items:
                state.placed[member.node.node_id] = level
            break
        else:
            state.dropped.append(unit)
    return state


def refs_of(unit: _Unit) -> list[PackItem]:
    return [m for m in unit.items if m.node.evidence_refs and not is_excerpt(m.node)]


def _overflow_plan(
    ordered: list[_Unit], levels: tuple[Representation, ...], tasks_reference_only: bool
) -> list[tuple[_Unit, Sequence[Representation]]]:
    """§6.5 when tier 1 does not fit: all tasks first, then pinned items by STR; as the last
    resort tasks go in at the lowest allowed level only and pinned items are dropped."""
    tier1 = [u for u in ordered if u.tier == 1]
    tasks = [u for u in tier1 if _is_task_unit(u)]
    pinned = sorted((u for u in tier1 if not _is_task_unit(u)), key=_str_key)
    plan: list[tuple[_Unit, Sequence[Representation]]] = [(u, levels) for u in ordered if u.tier == 0]
    if tasks_reference_only:
        plan += [(u, levels[-1:]) for u in tasks]
        plan += [(u, ()) for u in pinned]
    else:
        plan += [(u, levels) for u in (*tasks, *pinned)]
    return plan + [(u, levels) for u in ordered if u.tier > 1]


def pack(items: Sequence[PackItem], token_budget: int, config: PackingConfig | None = None) -> PackResult:
    cfg = config or PackingConfig()
    if token_budget <= 0:
        return PackResult(context="", tokens_used=0, placed={}, sections={}, warnings=(BUDGET_ERROR,))
    budget = available_tokens(token_budget, cfg)
    levels = _LEVELS[: _LEVELS.index(cfg.min_fidelity) + 1]

    ordered = _order(_units(items), cfg)
    state = _place([(u, levels) for u in ordered], budget, cfg)
    if any(u.tier == 1 for u in state.dropped):
        state = _place(_overflow_plan(ordered, levels, tasks_reference_only=False), budget, cfg)
        if any(_is_task_unit(u) for u in state.dropped):
            state = _place(_overflow_plan(ordered, levels, tasks_reference_only=True), budget, cfg)

    warnings: list[str] = []
    if any(u.tier <= 1 for u in state.dropped):
        warnings.append(BUDGET_OVERFLOW)
    dropped_ids = {m.node.node_id for u in state.dropped for m in u.items}
    # Exclusions in input order, so the report does not depend on which overflow plan ran.
    excluded = tuple(
        Exclusion(node_id=node_id, reason=BUDGET_EXHAUSTED, stage="packing")
        for node_id in dict.fromkeys(i.node.node_id for i in items)
        if node_id in dropped_ids
    )

    out_lines: list[str] = []
    for name in SECTION_ORDER:
        if state.body[name]:
            out_lines.append(_HEADERS[name])
            out_lines += state.body[name]
    context = "\n".join(out_lines)
    tokens = estimate_tokens(context, cfg.chars_per_token)
    assert tokens <= budget, "packing accounting over-ran the budget"
    sections = {name: tuple(ids) for name, ids in state.section_ids.items() if ids}
    return PackResult(
        context=context,
        tokens_used=tokens,
        placed=state.placed,
        sections=sections,
        excluded=excluded,
        warnings=tuple(warnings),
    )

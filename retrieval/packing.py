"""Token-budget packing into a ``reader`` context, PRME-FACTS §6.5.

Greedy by tier; each unit (an item, or a whole conflict group) is tried from
FULL down to the minimum fidelity and placed only if every line of it fits.
Lines are atomic: an item is never cut part-way, so a conditional claim is
never shown without its condition and a conflict never without its note —
an item that does not fit is skipped instead (``BUDGET_EXHAUSTED``).

Token cost uses the estimate ceil(chars / 4.2) per line; summing per-line
ceilings over-counts the whole text, so the rendered context never exceeds
the budget.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from engine.filters import condition_state_of
from retrieval.models import Exclusion, Representation
from schemas.enums import ACTIVE_LIFECYCLE_STATES, EpistemicType, LifecycleState, NodeType, Polarity
from schemas.nodes import MemoryNode

SECTION_ORDER = (
    "system_instructions",
    "stable_facts",
    "contested_claims",
    "recent_decisions",
    "active_tasks",
    "provenance_refs",
)
_HEADERS = {
    "system_instructions": "## system_instructions",
    "stable_facts": "## stable_facts",
    "contested_claims": "## contested_claims (CONFLICT: these claims contradict each other; none is established)",
    "recent_decisions": "## recent_decisions",
    "active_tasks": "## active_tasks",
    "provenance_refs": "## provenance_refs",
}
_LEVELS = (Representation.FULL, Representation.STRUCTURED, Representation.KEY_VALUE, Representation.REFERENCE)
_TEXT_LEVELS = frozenset({Representation.FULL, Representation.STRUCTURED})
_DEFAULT_EPISTEMIC = frozenset({EpistemicType.ASSERTED, EpistemicType.OBSERVED})
_DEFAULT_LIFECYCLE = frozenset({LifecycleState.TENTATIVE, LifecycleState.STABLE})
_CONTROL = re.compile(r"[\x00-\x1f\x7f]+")

BUDGET_EXHAUSTED = "BUDGET_EXHAUSTED"
BUDGET_ERROR = "BUDGET_ERROR"
BUDGET_OVERFLOW = "BUDGET_OVERFLOW"


@dataclass(frozen=True)
class PackingConfig:
    #: Overhead reserve of §6.5; never more than a tenth of the budget (see ``available_tokens``).
    reserve_tokens: int = 100
    chars_per_token: float = 4.2
    min_fidelity: Representation = Representation.REFERENCE
    multipath_ordering: Literal["score", "balanced"] = "balanced"


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


def estimate_tokens(text: str, chars_per_token: float = 4.2) -> int:
    return math.ceil(len(text) / chars_per_token) if text else 0


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


def _structured_text(node: MemoryNode) -> str:
    verb = f"not {node.predicate}" if node.polarity is Polarity.NEGATIVE else node.predicate
    return " ".join(part for part in (node.subject, verb, node.object or "") if part)


def render_line(item: PackItem, level: Representation) -> str:
    node = item.node
    head = " ".join(["-", *tags(item)])
    ident = f"id:{node.node_id}"
    confidence = item.confidence if item.confidence is not None else node.confidence
    if level is Representation.REFERENCE:
        return f"{head} {node.node_type.value} {ident}"
    if level is Representation.KEY_VALUE:
        return f"{head} {node.node_type.value} {ident} conf:{confidence:.2f}"
    # FULL shows the claim and the source sentence it rests on: one sentence can carry several claims.
    text = _clean(_structured_text(node))
    if level is Representation.FULL:
        text = f"{text} — “{_clean(node.content)}”"
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
    if item.group or item.contradicts_ids or item.conflict_flag or node.lifecycle is LifecycleState.CONTESTED:
        return "contested_claims"
    if node.node_type is NodeType.INSTRUCTION:
        return "system_instructions"
    if node.node_type is NodeType.TASK:
        return "active_tasks"
    if node.node_type is NodeType.DECISION:
        return "recent_decisions"
    return "stable_facts"


def _tier(item: PackItem) -> int:
    node = item.node
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


def _order(units: list[_Unit], config: PackingConfig) -> list[_Unit]:
    def full_cost(u: _Unit) -> int:
        return max(1, sum(estimate_tokens(line + "\n") for line in _unit_lines(u, Representation.FULL)))

    def first_id(u: _Unit) -> str:
        return u.items[0].node.node_id

    ordered: list[_Unit] = []
    for tier in range(4):
        in_tier = [u for u in units if u.tier == tier]
        # Score first; STR (score per token) only breaks ties, then the id keeps it deterministic.
        in_tier.sort(key=lambda u: (-u.score, -u.score / full_cost(u), first_id(u)))
        if tier == 2 and config.multipath_ordering == "balanced" and len(in_tier) > 1:
            head, rest = in_tier[0], in_tier[1:]
            rest.sort(key=lambda u: (-u.score / full_cost(u) ** 0.25, first_id(u)))
            in_tier = [head, *rest]
        ordered += in_tier
    return ordered


def pack(items: Sequence[PackItem], token_budget: int, config: PackingConfig | None = None) -> PackResult:
    cfg = config or PackingConfig()
    if token_budget <= 0:
        return PackResult(context="", tokens_used=0, placed={}, sections={}, warnings=(BUDGET_ERROR,))
    budget = available_tokens(token_budget, cfg)
    levels = _LEVELS[: _LEVELS.index(cfg.min_fidelity) + 1]

    def cost(line: str) -> int:
        return estimate_tokens(line + "\n", cfg.chars_per_token)

    used = 0
    open_sections: set[str] = set()
    body: dict[str, list[str]] = {name: [] for name in SECTION_ORDER}
    section_ids: dict[str, list[str]] = {name: [] for name in SECTION_ORDER}
    placed: dict[str, Representation] = {}
    excluded: list[Exclusion] = []
    warnings: list[str] = []

    for unit in _order(_units(items), cfg):
        fitted = False
        for level in levels:
            lines = _unit_lines(unit, level)
            refs = [_provenance_line(m) for m in unit.items if level in _TEXT_LEVELS and m.node.evidence_refs]
            extra = sum(cost(line) for line in lines) + sum(cost(line) for line in refs)
            if unit.section not in open_sections:
                extra += cost(_HEADERS[unit.section])
            if refs and "provenance_refs" not in open_sections:
                extra += cost(_HEADERS["provenance_refs"])
            if used + extra > budget:
                continue
            used += extra
            open_sections.add(unit.section)
            body[unit.section] += lines
            section_ids[unit.section] += [m.node.node_id for m in unit.items]
            if refs:
                open_sections.add("provenance_refs")
                body["provenance_refs"] += refs
                section_ids["provenance_refs"] += [m.node.node_id for m in unit.items if m.node.evidence_refs]
            for member in unit.items:
                placed[member.node.node_id] = level
            fitted = True
            break
        if not fitted:
            excluded += [
                Exclusion(node_id=m.node.node_id, reason=BUDGET_EXHAUSTED, stage="packing") for m in unit.items
            ]
            if unit.tier <= 1 and BUDGET_OVERFLOW not in warnings:
                warnings.append(BUDGET_OVERFLOW)

    out_lines: list[str] = []
    for name in SECTION_ORDER:
        if body[name]:
            out_lines.append(_HEADERS[name])
            out_lines += body[name]
    context = "\n".join(out_lines)
    tokens = estimate_tokens(context, cfg.chars_per_token)
    assert tokens <= budget, "packing accounting over-ran the budget"
    sections = {name: tuple(ids) for name, ids in section_ids.items() if ids}
    return PackResult(
        context=context,
        tokens_used=tokens,
        placed=placed,
        sections=sections,
        excluded=tuple(excluded),
        warnings=tuple(warnings),
    )

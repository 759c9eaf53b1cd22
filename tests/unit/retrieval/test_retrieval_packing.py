from __future__ import annotations

import math

from fake_backend import make_node
from hypothesis import given, settings
from hypothesis import strategies as st

from retrieval.packing import PackingConfig, PackItem, estimate_tokens, pack, render_line
from schemas.enums import ConditionState, EpistemicType, LifecycleState, NodeType
from schemas.retrieval import Representation

NO_RESERVE = PackingConfig(reserve_tokens=0)


def item(node_id: str, content: str = "", score: float = 0.5, paths: int = 1, **kw: object) -> PackItem:
    return PackItem(node=make_node(node_id, content, **kw), score=score, path_count=paths)


def test_estimate_is_ceil_chars_over_4_2() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("a") == 1
    assert estimate_tokens("x" * 42) == 10
    assert estimate_tokens("x" * 43) == 11


def test_budget_zero_or_negative_gives_empty_bundle_with_budget_error() -> None:
    for budget in (0, -5):
        result = pack([item("a")], budget)
        assert result.context == "" and result.tokens_used == 0 and result.placed == {}
        assert result.warnings == ("BUDGET_ERROR",)


def test_tier_order_instructions_tasks_multipath_rest() -> None:
    items = [
        item("rest", score=0.99),
        item("multi", score=0.2, paths=2),
        item("task", score=0.1, node_type=NodeType.TASK),
        item("instr", score=0.05, node_type=NodeType.INSTRUCTION),
    ]
    # Budget for exactly two FULL lines with their headers and provenance: tiers 0 and 1 win over score.
    full = {i.node.node_id: render_line(i, Representation.FULL) for i in items}

    def cost(text: str) -> int:
        return math.ceil(len(text + "\n") / 4.2)

    need = sum(cost(full[n]) + cost(f"- {n} <- ev-{n}") for n in ("instr", "task"))
    need += cost("## system_instructions") + cost("## active_tasks") + cost("## provenance_refs")
    result = pack(items, need, NO_RESERVE)
    assert result.placed == {"instr": Representation.FULL, "task": Representation.FULL}
    assert {e.node_id for e in result.excluded} == {"multi", "rest"}
    assert all(e.reason == "BUDGET_EXHAUSTED" for e in result.excluded)
    big = pack(items, 10_000, NO_RESERVE)
    assert list(big.placed) == ["instr", "task", "multi", "rest"]


def test_downgrades_representation_before_skipping() -> None:
    long_text = "alice prefers " + "very " * 200 + "long answers"
    it = item("a", long_text, object="long answers")
    ref_cost = math.ceil(len(render_line(it, Representation.STRUCTURED) + "\n") / 4.2)
    result = pack([it], ref_cost + 20, NO_RESERVE)
    assert result.placed == {"a": Representation.STRUCTURED}
    assert long_text not in result.context


def test_oversized_item_is_skipped_whole_and_smaller_ones_still_fit() -> None:
    big = item("big", "x " * 500, score=0.9)
    small = item("small", "alice likes tea", score=0.1)
    result = pack([big, small], 40, PackingConfig(reserve_tokens=0, min_fidelity=Representation.STRUCTURED))
    assert "big" not in result.placed and result.placed["small"] is Representation.FULL
    assert "x x x" not in result.context
    assert [e.node_id for e in result.excluded] == ["big"]


def test_condition_is_never_dropped_while_the_claim_is_shown() -> None:
    cond = item("c", "alice will hike on saturday", epistemic_type=EpistemicType.CONDITIONAL,
                condition="if the weather is good " * 3, condition_state=ConditionState.TRUE)
    for budget in range(1, 120):
        result = pack([cond], budget, NO_RESERVE)
        level = result.placed.get("c")
        if level in (Representation.FULL, Representation.STRUCTURED):
            line = next(x for x in result.context.splitlines() if "id:c" in x)
            assert "if: if the weather is good" in line
            assert line.rstrip().endswith("id:c")
        assert result.tokens_used <= budget


def test_reader_format_tags_non_default_states_only() -> None:
    plain = item("p", "alice likes tea")
    inferred = PackItem(node=make_node("i", "alice probably likes tea", epistemic_type=EpistemicType.INFERRED),
                        score=0.5, path_count=1, conflict_flag=True, contradicts_ids=("p",))
    # FULL: the claim (subject predicate object), then the source sentence it rests on.
    assert render_line(plain, Representation.FULL).startswith("- alice likes alice likes tea — “alice likes tea” |")
    line = render_line(inferred, Representation.FULL)
    assert line.startswith("- [INFERRED] [conflict] alice likes alice probably likes tea — “alice probably likes tea”")
    assert "contradicts: p" in line
    contested = item("k", lifecycle=LifecycleState.CONTESTED, valid_to=make_node("z").valid_from.replace(year=2026))
    assert "[CONTESTED]" in render_line(contested, Representation.REFERENCE)
    assert "2025-03-01..2026-03-01" in render_line(contested, Representation.FULL)


def test_conflict_group_is_packed_as_a_unit_with_a_note() -> None:
    a = PackItem(node=make_node("a", "alice lives in paris"), score=0.9, path_count=1, contradicts_ids=("b",),
                 group=("a", "b"))
    b = PackItem(node=make_node("b", "alice lives in rome"), score=0.1, path_count=1, conflict_flag=True,
                 contradicts_ids=("a",), group=("a", "b"))
    result = pack([a, b], 10_000, NO_RESERVE)
    lines = result.context.splitlines()
    assert lines[0].startswith("## contested_claims (CONFLICT")
    assert lines[1].startswith("CONFLICT (unresolved): a vs b")
    assert "id:a" in lines[2] and "[conflict]" in lines[3] and "id:b" in lines[3]
    assert result.sections["contested_claims"] == ("a", "b")
    # A budget that holds one side but not both shows neither rather than a lone plain-looking claim.
    def cost(text: str) -> int:
        return math.ceil(len(text + "\n") / 4.2)

    one_side = cost(lines[0]) + cost(lines[1]) + cost(render_line(a, Representation.REFERENCE))
    both = one_side + cost(render_line(b, Representation.REFERENCE))
    assert pack([a, b], both, NO_RESERVE).placed == {"a": Representation.REFERENCE, "b": Representation.REFERENCE}
    tiny = pack([a, b], both - 1, NO_RESERVE)
    assert one_side <= both - 1
    assert tiny.placed == {} and tiny.context == ""


def test_sections_by_kind() -> None:
    items = [
        item("f", "alice likes tea"),
        item("d", "we chose postgres", node_type=NodeType.DECISION),
        item("t", "book flights", node_type=NodeType.TASK),
        item("s", "always answer briefly", node_type=NodeType.INSTRUCTION),
        item("e", "alice, a designer in lisbon", node_type=NodeType.ENTITY),
        item("m", "alice spent march planning a move", node_type=NodeType.SUMMARY),
    ]
    result = pack(items, 10_000, NO_RESERVE)
    # Provenance follows placement order (tier, then score); only membership is a rule here.
    assert set(result.sections.pop("provenance_refs")) == {"s", "t", "e", "f", "m", "d"}
    assert result.sections == {
        "system_instructions": ("s",),
        "entity_snapshots": ("e",),
        "stable_facts": ("f",),
        "recent_decisions": ("d",),
        "active_tasks": ("t",),
        "summaries": ("m",),
    }
    headers = [line for line in result.context.splitlines() if line.startswith("## ")]
    assert headers == ["## system_instructions", "## entity_snapshots", "## stable_facts", "## recent_decisions",
                       "## active_tasks", "## summaries", "## provenance_refs"]


def test_reserve_is_held_back() -> None:
    items = [item(f"n{i}", "alice likes tea number " + str(i)) for i in range(200)]
    result = pack(items, 1000)
    assert result.tokens_used <= 900


@settings(max_examples=150, deadline=None)
@given(
    budget=st.integers(min_value=1, max_value=400),
    specs=st.lists(
        st.tuples(
            st.text(alphabet="abc xyz\n", min_size=1, max_size=300),
            st.sampled_from(list(NodeType)),
            st.integers(min_value=1, max_value=2),
            st.floats(min_value=0, max_value=1),
            st.booleans(),
        ),
        max_size=15,
    ),
)
def test_never_exceeds_budget_and_never_cuts_a_line(budget: int, specs: list) -> None:  # type: ignore[type-arg]
    items = [
        item(f"n{i}", text if text.strip() else "x", score=score, paths=paths, node_type=ntype,
             epistemic_type=EpistemicType.CONDITIONAL if cond else EpistemicType.ASSERTED,
             condition="only if the moon is full" if cond else None,
             condition_state=ConditionState.TRUE if cond else None)
        for i, (text, ntype, paths, score, cond) in enumerate(specs)
    ]
    result = pack(items, budget, NO_RESERVE)
    assert result.tokens_used <= budget
    assert estimate_tokens(result.context) == result.tokens_used
    by_id = {i.node.node_id: i for i in items}
    for node_id, level in result.placed.items():
        assert render_line(by_id[node_id], level) in result.context.splitlines()
        if level in (Representation.FULL, Representation.STRUCTURED) and by_id[node_id].node.condition:
            assert "if: only if the moon is full" in render_line(by_id[node_id], level)
    assert set(result.placed).isdisjoint(e.node_id for e in result.excluded)
    assert set(result.placed) | {e.node_id for e in result.excluded} == set(by_id)

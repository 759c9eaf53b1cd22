"""Writes the legacy-log fixture: a reducer workload's inputs and the operation records it produced.

The operation log is append-only and every record carries the SHA-256 of its canonical JSON,
so a change in how the engine writes JSON (float spelling, key order, escapes, a datetime's
text) or derives ids would make new records differ from old ones for the same inputs and
old records fail verification. ``tests/unit/engine/test_legacy_log.py`` verifies every stored
record and re-runs the stored inputs, asserting byte-identical records in the same order.

The workload is deterministic and varied: the mixed workload of ``bench/reducer_throughput.py``
at a small size, the bundled demo conversations and a generated chat corpus through the rule
extractor, hand-made extractions with floats of many magnitudes, integers beyond 64 bits,
non-ASCII text, emoji and control characters, every command kind (accepted, rejected, retried
by request id) and automatic promotions.

Written once, with the engine whose records it pins (the C encoder of ``engine/_canonical.c``,
before that module was removed); regenerating it with another engine would pin that engine's
output instead, so it is not part of any build or test run:

    .venv/bin/python tests/data/legacy_log/make_fixture.py
"""

from __future__ import annotations

import gzip
import json
import random
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[3]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from extraction_throughput import corpus  # noqa: E402
from reducer_throughput import build as bench_build  # noqa: E402

from engine.canonical_fast import operation_text  # noqa: E402
from engine.promotion import apply_due_promotions  # noqa: E402
from engine.reducer import Reducer  # noqa: E402
from engine.store import InMemoryStateStore  # noqa: E402
from epistream.demo_run import demo_lines  # noqa: E402
from extractors.rules import RuleExtractor  # noqa: E402
from schemas.claims import Claim, EventRef, EvidenceSpan, ExtractionResult, Quantity, RejectedClaim  # noqa: E402
from schemas.commands import (  # noqa: E402
    ArchiveCommand,
    CommandBase,
    ContradictCommand,
    DeprecateCommand,
    EpistemicTransitionCommand,
    EvaluateConditionCommand,
    PenalizeCommand,
    PromoteCommand,
    ReinforceCommand,
    ResolveContradictionCommand,
    parse_command,
)
from schemas.common import ActorRef  # noqa: E402
from schemas.enums import (  # noqa: E402
    NEGATIVE_SIGNALS,
    ActorType,
    ConditionState,
    EpistemicType,
    EvaluationMethod,
    NodeType,
    Polarity,
    Role,
    Scope,
    SignalType,
    SourceType,
    TemporalIntent,
    TriggerType,
)
from schemas.events import parse_event  # noqa: E402
from schemas.nodes import MemoryNode  # noqa: E402
from schemas.operations import Operation  # noqa: E402

HERE = Path(__file__).resolve().parent
INPUTS = HERE / "inputs.jsonl.gz"
OPERATIONS = HERE / "operations.jsonl.gz"

#: One reducer input: an extraction result, a command, or "promote what is due as of this time".
Item = ExtractionResult | CommandBase | datetime

FLOATS = (
    0.0, -0.0, 1.0, -1.0, 0.5, 0.1, 0.1 + 0.2, 1 / 3, 2 / 3, 0.999999, 1e-4, 9.99e-5, 1e-5, -1e-5, 1.5e-5, 1e-6,
    1e-7, -2.5e-8, 1.234e-9, 1e-10, 5e-324, 2.2250738585072014e-308, 1e-300, -1e-300, 0.00012, 0.0001234,
    0.001, 0.01, 12.5, 123456.789, 1e6, 1e15, 123456789012345.6, 9999999999999998.0, 1e16, -1e16, 1.2345e17,
    12345678901234567890.0, 1e21, 1e22, 1e100, -1e200, 1.7976931348623157e308, 3.141592653589793,
    2.718281828459045, 100.0, 65536.0, 4503599627370497.0,
)
INTS = (0, 1, -1, 255, 2**31, 2**53 + 1, 2**63 - 1, -(2**63), 2**63, 2**64, 2**64 + 1, 2**70, -(2**70), 10**30)
TEXTS = (
    "plain", "café", "naïve façade", "Zürich", "Ελληνικά", "Русский текст", "日本語のテキスト", "中文", "한국어",
    "עברית", "العربية", "😀", "🇨🇭 flag", "👩‍💻 dev", "emoji 🎉🎉 twice", "tab\there", "line\nbreak",
    "quote \" and backslash \\", "control \x00\x01\x1f\x7f", "separators \u2028\u2029", "ǅ Dž", "\ufeffbom",
    "mixed é😀\u00a0nbsp", "a" * 300, "1e-07", "0.00001", "-0", "null", "",
)
KEYS = ("a", "B", "b", "é", "z", "Z", "ß", "😀", "日", "a b", "a_b", "aa", "10", "2", "", "\x00", "ǅ", "e-1")
SCOPE = {"tenant_id": "legacy", "owner_id": "pat", "scope": Scope.PERSONAL}
T0 = datetime(2026, 2, 1, 8, 0, tzinfo=UTC)


def bench_inputs(reducer: Reducer, store: InMemoryStateStore, out: list[Item]) -> None:
    """``bench/reducer_throughput.py``'s mixed workload at a small size, its node picks resolved."""
    seeds, mixed = bench_build(nodes=300, mixed=600, seed=7)
    created: list[str] = []
    for item in seeds:
        created.extend(reducer.apply(store, item).outcome.created_node_ids)
        out.append(item)
    for item in mixed:
        if isinstance(item, ReinforceCommand):
            item = item.model_copy(update={"node_id": created[int(item.node_id[1:])]})
        reducer.apply(store, item)
        out.append(item)


def chat_events() -> Iterator[Any]:
    """The demo conversations, a generated corpus and a few non-English or emoji-laden messages."""
    for line in demo_lines():
        yield parse_event(line)
    for i, event in enumerate(corpus(240, seed=11)):
        yield event.model_copy(update={"owner_id": f"u{i % 7}", "event_id": f"corpus-{i}",
                                       "occurred_at": event.occurred_at + timedelta(minutes=i)})
    extra = [
        "I live in Zürich and I love crème brûlée 😀.", "I work at Café Ünïcode.", "I don't like 🍣 sushi anymore.",
        "My name is Zoë.", "I prefer Ελληνικά over English.", "I live in 東京 now.", "We use Kafka 🚀 in production.",
        "I moved to São Paulo in March.", "I love tea\u2028and coffee.", "Always answer in Español, por favor.",
        "I have 2 cats 🐈🐈 and a dog 🐕.", "I might move to Reykjavík next year.",
    ]
    for i, content in enumerate(extra):
        yield parse_event(json.dumps({
            "event_id": f"intl-{i}", "tenant_id": "acme", "owner_id": "zoe",
            "scope": "personal", "role": "user", "content": content, "session_id": f"s{i % 3}",
            "conversation_id": "conv-intl", "speaker": "Zoë", "occurred_at": f"2026-09-0{1 + i % 9}T10:{i:02d}:00Z",
        }))


def extracted_inputs(reducer: Reducer, store: InMemoryStateStore, out: list[Item]) -> None:
    extractor = RuleExtractor()
    for event in chat_events():
        result = extractor.extract(event)
        reducer.apply(store, result)
        out.append(result)


def _json_value(rng: random.Random, depth: int = 0) -> Any:
    r = rng.random()
    if depth < 2 and r < 0.2:
        return [_json_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    if depth < 2 and r < 0.35:
        return {rng.choice(KEYS) + str(rng.randrange(3)): _json_value(rng, depth + 1) for _ in range(rng.randrange(4))}
    if r < 0.6:
        return rng.choice(FLOATS)
    if r < 0.75:
        return rng.choice(INTS)
    if r < 0.92:
        return rng.choice(TEXTS)
    return rng.choice([None, True, False])


def _metadata(rng: random.Random) -> dict[str, Any]:
    data = {rng.choice(KEYS) + k: _json_value(rng) for k in ("", "x", "é", "😀")[: rng.randrange(1, 5)]}
    data["floats"] = [rng.choice(FLOATS) for _ in range(3)]
    return data


def handmade_extractions(rng: random.Random) -> Iterator[ExtractionResult]:
    """Claims of every shape, with the awkward values spread over metadata, quotes and payloads."""
    subjects = ["user", "Zoë", "Ana María", "the team 🚀", "user's sister"]
    objects = ["Python", "tea", "café au lait", "東京", "Kafka", "😀 emoji", "naïveté", "Rust"]
    creatable = [e for e in EpistemicType if e is not EpistemicType.DEPRECATED]
    for i in range(160):
        at = T0 + timedelta(hours=i, microseconds=(i * 7919) % 1_000_000 if i % 3 else 0)
        ref = EventRef(**SCOPE, event_id=f"hand-{i}", role=rng.choice(list(Role)), session_id=f"s{i % 4}",
                       conversation_id=f"c{i % 2}" if i % 5 else None, speaker="Zoë" if i % 7 == 0 else None,
                       occurred_at=at - timedelta(minutes=i % 3), recorded_at=at, content_sha256=f"{i:064x}")
        claims = []
        for k in range(rng.randrange(0, 4)):
            et = rng.choice(creatable)
            obj = rng.choice(objects)
            quote = f"{rng.choice(TEXTS)[:40]} {obj}".strip() or obj
            is_update = rng.random() < 0.25
            claims.append(Claim(
                node_type=rng.choice(list(NodeType)),
                subject=rng.choice(subjects),
                predicate=rng.choice(["uses", "likes", "lives_in", "prefers"]),
                object=obj if rng.random() < 0.9 else None,
                polarity=rng.choice(list(Polarity)),
                epistemic_type=et,
                source_type=rng.choice([None, *SourceType]),
                condition=f"if {rng.choice(TEXTS)[:30]} ☔" if et is EpistemicType.CONDITIONAL else None,
                temporal_intent=TemporalIntent.UPDATE if is_update else rng.choice([None, *TemporalIntent]),
                replaces_object=rng.choice(objects) if is_update and rng.random() < 0.7 else None,
                evidence_quote=quote,
                evidence_span=EvidenceSpan(start=k, end=k + len(quote)) if rng.random() < 0.5 else None,
                claim_text=rng.choice([None, f"{rng.choice(subjects)} — {obj} 😀"]),
                classification_confidence=rng.choice([1.0, 0.0, 0.5, 1e-7, 5e-5, 0.1 + 0.2, 5e-324, 0.9999999999]),
                grounding_method=rng.choice(["unspecified", "exact_quote", "fuzzy"]),
                quantity=Quantity(value=rng.choice(["2", "1,000", "-3.5", "+12"]), unit="µg", source_text="2 µg")
                if rng.random() < 0.2 else None,
                suggested_scope=rng.choice([None, "project:αβ"]),
                metadata=_metadata(rng),
            ))
        failed = rng.random() < 0.05
        rejected = tuple(
            RejectedClaim(reason_code="unsupported_object", detail=rng.choice(TEXTS), claim=_metadata(rng))
            for _ in range(rng.randrange(0, 2))
        )
        yield ExtractionResult(
            event=ref, extractor=rng.choice(["rules", "llm", "hand-é"]), extractor_version="1.2",
            model=rng.choice([None, "model-ü"]), grounding_policy_version="g1", source_hash=f"{i:064x}",
            claims=() if failed else tuple(claims), rejected=rejected,
            status="failed" if failed else "ok", error_category="timeout 😴" if failed else None,
        )


def handmade_commands(rng: random.Random, store: InMemoryStateStore, i: int, at: datetime) -> CommandBase:
    """A command of a random kind against the legacy scope's nodes (some are meant to be rejected)."""
    nodes = sorted((n for n in store.iter_nodes() if n.tenant_id == "legacy"), key=lambda n: n.node_id)
    edges = sorted((e for e in store.iter_edges() if e.tenant_id == "legacy" and e.active), key=lambda e: e.edge_id)

    def pick() -> MemoryNode:
        return rng.choice(nodes)

    actor = rng.choice([
        ActorRef(actor_id="pat", actor_type=ActorType.HUMAN_USER),
        ActorRef(actor_id="assistant-é", actor_type=ActorType.AI_AGENT),
        ActorRef(actor_id="ops 🛠", actor_type=ActorType.EXTERNAL_CONNECTOR),
    ])
    events = [f"hand-{k}" for k in range(0, 160, 9)]
    base: dict[str, Any] = {
        **SCOPE, "command_id": f"cmd-{i}", "actor": actor, "issued_at": at,
        "session_id": rng.choice([None, "s1", "s2", "s3"]),
        "reason": rng.choice([None, "user said so", "corrigé 😀", "line\nbreak \x01", "ok"]),
        "evidence_ids": tuple(rng.sample(events, rng.randrange(0, 3))),
    }
    if rng.random() < 0.05:
        base["owner_id"] = "someone-else"  # a scope the node is not in: rejected
    kind = rng.choice(["reinforce"] * 5 + ["penalize"] * 2 + ["contradict", "resolve", "evaluate", "transition",
                                                             "promote", "archive", "deprecate", "missing"])
    if kind == "reinforce":
        positive = [s for s in SignalType if s not in NEGATIVE_SIGNALS and s is not SignalType.UNUSED]
        signal = rng.choice(positive if rng.random() < 0.9 else list(SignalType))
        return ReinforceCommand(**base, node_id=pick().node_id, signal=signal,
                                signal_source=rng.choice([None, "src-ü"]))
    if kind == "penalize":
        signal = rng.choice(sorted(NEGATIVE_SIGNALS) if rng.random() < 0.85 else list(SignalType))
        return PenalizeCommand(**base, node_id=pick().node_id, signal=signal)
    if kind == "contradict":
        return ContradictCommand(**base, node_a=pick().node_id, node_b=pick().node_id,
                                 description=rng.choice([None, "they disagree — ¿por qué? 🤔"]))
    if kind == "resolve":
        if edges:
            edge = rng.choice(edges)
            a, b = (edge.source_id, edge.target_id) if rng.random() < 0.5 else (edge.target_id, edge.source_id)
        else:
            a, b = pick().node_id, pick().node_id
        return ResolveContradictionCommand(**base, winner_id=a, loser_id=b)
    if kind == "evaluate":
        conditional = [n for n in nodes if n.epistemic_type is EpistemicType.CONDITIONAL] or nodes
        return EvaluateConditionCommand(**base, node_id=rng.choice(conditional).node_id,
                                        state=rng.choice(list(ConditionState)),
                                        method=rng.choice(list(EvaluationMethod)))
    if kind == "transition":
        return EpistemicTransitionCommand(**base, node_id=pick().node_id, to_type=rng.choice(list(EpistemicType)),
                                          trigger_type=rng.choice(list(TriggerType)))
    if kind == "promote":
        return PromoteCommand(**base, node_id=pick().node_id)
    if kind == "archive":
        return ArchiveCommand(**base, node_id=pick().node_id, policy_ref=rng.choice([None, "policy-ß"]))
    if kind == "deprecate":
        return DeprecateCommand(**base, node_id=pick().node_id)
    return ReinforceCommand(**base, node_id="no-such-node")


def handmade_inputs(reducer: Reducer, store: InMemoryStateStore, out: list[Item]) -> None:
    rng = random.Random(20261201)

    def apply(item: Item) -> None:
        if isinstance(item, datetime):
            apply_due_promotions(store, item)
        else:
            reducer.apply(store, item)
        out.append(item)

    extractions = list(handmade_extractions(rng))
    for n, result in enumerate(extractions):
        apply(result)
        if n % 4 == 3:
            apply(handmade_commands(rng, store, n, result.event.recorded_at + timedelta(seconds=n % 11)))
    at = T0 + timedelta(days=10)
    retries: list[CommandBase] = []
    for n in range(400):
        at += timedelta(minutes=17, microseconds=n * 101)
        command = handmade_commands(rng, store, 1000 + n, at)
        if n % 10 == 0:  # exact retries by request id: answered from the record, or a conflict if content differs
            command = command.model_copy(update={"request_id": f"00000000-0000-4000-8000-{n:012d}"})
            retries.append(command)
        apply(command)
        if n % 25 == 24 and retries:
            again = rng.choice(retries)
            same = rng.random() < 0.6
            apply(again.model_copy(update={"command_id": f"retry-{n}",
                                           **({} if same else {"reason": "changed ✎"})}))
        if n % 100 == 50:
            apply(at + timedelta(days=rng.choice([3, 8, 30])))  # due promotions as of a later time
    apply(at + timedelta(days=90))
    # a redelivered extraction is a duplicate: no operations
    apply(extractions[5])


def encode_input(item: Item) -> str:
    if isinstance(item, datetime):
        entry: dict[str, Any] = {"kind": "promotions", "as_of": item.isoformat()}
    elif isinstance(item, ExtractionResult):
        entry = {"kind": "extraction", "data": item.model_dump(mode="json")}
    else:
        entry = {"kind": "command", "data": item.model_dump(mode="json")}
    return json.dumps(entry, ensure_ascii=False, allow_nan=False)


def decode_input(line: str) -> Item:
    entry = json.loads(line)
    if entry["kind"] == "promotions":
        return datetime.fromisoformat(entry["as_of"])
    if entry["kind"] == "extraction":
        return ExtractionResult.model_validate(entry["data"])
    return parse_command(entry["data"])


def run(items: list[Item]) -> list[Operation]:
    """The operations of ``items`` applied in order to one empty store (what the test re-runs)."""
    reducer = Reducer()
    store = InMemoryStateStore()
    ops: list[Operation] = []
    for item in items:
        if isinstance(item, datetime):
            ops.extend(apply_due_promotions(store, item))
        else:
            ops.extend(reducer.apply(store, item).operations)
    return ops


def main() -> None:
    reducer = Reducer()
    store = InMemoryStateStore()
    items: list[Item] = []
    bench_inputs(reducer, store, items)
    extracted_inputs(reducer, store, items)
    handmade_inputs(reducer, store, items)
    lines = [encode_input(item) for item in items]
    stored = [decode_input(line) for line in lines]
    records = [operation_text(op) for op in run(stored)]
    original = [operation_text(op) for op in run(items)]
    assert records == original, "the stored inputs must give what the generated ones gave"
    for path, texts in ((INPUTS, lines), (OPERATIONS, records)):  # mtime=0: the same bytes on every run
        path.write_bytes(gzip.compress("".join(t + "\n" for t in texts).encode("utf-8"), 9, mtime=0))
    kinds: dict[str, int] = {}
    for record in records:
        kind = json.loads(record)["op_type"]
        kinds[kind] = kinds.get(kind, 0) + 1
    print(f"{len(lines)} inputs, {len(records)} operations; {INPUTS.stat().st_size:,} + "
          f"{OPERATIONS.stat().st_size:,} bytes gzipped; {dict(sorted(kinds.items()))}")


if __name__ == "__main__":
    main()

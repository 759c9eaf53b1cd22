"""Shared loading, matching and metric helpers for the evaluation benches.

It also holds the deterministic generator of ``tests/data/contradiction_pairs.jsonl``:
the committed file is its output, and ``tests/unit/test_eval_data.py`` checks that the
two never drift apart, so a reviewer can read the templates here instead of 500 records.

Run ``python bench/_eval_common.py --write-pairs`` to regenerate the pairs file.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:  # the benches run as plain scripts from any directory
    sys.path.insert(0, str(REPO_ROOT))

from schemas.events import ConversationEvent, validate_event  # noqa: E402

DATA_DIR = REPO_ROOT / "tests" / "data"
LABELLED_PATH = DATA_DIR / "extraction_labelled.jsonl"
PAIRS_PATH = DATA_DIR / "contradiction_pairs.jsonl"

#: Predicate stems that keep a speech act visible (PRME-FACTS §8.8), plus the inflected
#: forms "tried", "tries" and "hoping": the §8.8 recovery table itself produces
#: ``tried_to``/``tries_to``, which the bare stem "try" does not cover.
SPEECH_ACT_STEMS: tuple[str, ...] = (
    "try",
    "tried",
    "tries",
    "hoping",
    "attempt",
    "plan",
    "intend",
    "want",
    "need",
    "hope",
    "aim",
    "look",
    "work",
    "seek",
    "request",
    "ask",
    "propos",
    "consider",
    "evaluat",
    "explor",
)

AUTHORITATIVE = "AUTHORITATIVE"
EPISTEMIC_ORDER: tuple[str, ...] = ("ASSERTED", "OBSERVED", "INFERRED", "HYPOTHETICAL", "CONDITIONAL", "UNVERIFIED")


# --------------------------------------------------------------------------- labelled set


@dataclass(frozen=True)
class Expected:
    node_type: str
    epistemic_type: str
    polarity: str
    condition: str | None
    replaces_object: str | None
    object_hint: str
    subject_hint: str | None = None
    predicate_cue: str | None = None
    #: Realistic sets only: the reported source of an UNVERIFIED claim ("manager"), None when none is named;
    #: ``has_source_hint`` tells a labelled null from a set that does not label sources at all.
    source_hint: str | None = None
    has_source_hint: bool = False


@dataclass(frozen=True)
class LabelledMessage:
    event: ConversationEvent
    expected: tuple[Expected, ...]
    tags: tuple[str, ...]
    #: Realistic sets only: the phrasing family the message was written for ("reported_speech").
    family: str | None = None

    @property
    def is_sarcasm(self) -> bool:
        """Sarcasm items expect nothing, but a HYPOTHETICAL reading is acceptable (realistic sets)."""
        return "sarcasm" in self.tags

    @property
    def is_hard_negative(self) -> bool:
        return not self.expected


def parse_expected(data: dict[str, Any]) -> Expected:
    return Expected(
        node_type=str(data["node_type"]).upper(),
        epistemic_type=str(data["epistemic_type"]).upper(),
        polarity=str(data["polarity"]).lower(),
        condition=data.get("condition"),
        replaces_object=data.get("replaces_object"),
        object_hint=str(data["object_hint"]),
        subject_hint=data.get("subject_hint"),
        predicate_cue=data.get("predicate_cue"),
        source_hint=data.get("source_hint"),
        has_source_hint="source_hint" in data,
    )


def load_labelled(path: Path = LABELLED_PATH) -> list[LabelledMessage]:
    out: list[LabelledMessage] = []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if not line.strip():
                continue
            record = json.loads(line)
            out.append(
                LabelledMessage(
                    event=validate_event(record["event"]),
                    expected=tuple(parse_expected(e) for e in record["expected"]),
                    tags=tuple(record.get("tags", ())),
                    family=record.get("family"),
                )
            )
    return out


def load_pairs(path: Path = PAIRS_PATH) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


# --------------------------------------------------------------------------- matching helpers


def contains_word(needle: str | None, haystack: str | None) -> bool:
    """Whole-word, case-insensitive containment (the §8.2 mention rule)."""
    if not needle or not haystack:
        return False
    pattern = r"(?<!\w)" + re.escape(needle.strip()) + r"(?!\w)"
    return re.search(pattern, haystack, flags=re.IGNORECASE) is not None


def norm(text: str | None) -> str:
    return " ".join((text or "").casefold().split())


def replaces_matches(expected: str | None, produced: str | None) -> bool:
    """Expected null must stay null; otherwise the label must be named in the produced value."""
    if expected is None:
        return produced is None or not produced.strip()
    return norm(expected) == norm(produced) or contains_word(expected, produced)


def speech_act_ok(predicate: str) -> bool:
    lowered = predicate.casefold()
    return any(stem in lowered for stem in SPEECH_ACT_STEMS)


def enum_name(value: Any) -> str:
    """Upper-case name of a schema enum (or string) so comparisons ignore wire case."""
    raw = getattr(value, "value", value)
    return str(raw).upper()


def prf(tp: int, fp: int, fn: int) -> dict[str, float | int | None]:
    precision = tp / (tp + fp) if tp + fp else None
    recall = tp / (tp + fn) if tp + fn else None
    f1 = (
        2 * precision * recall / (precision + recall)
        if precision is not None and recall is not None and precision + recall
        else None
    )
    return {"tp": tp, "fp": fp, "fn": fn, "precision": precision, "recall": recall, "f1": f1}


def fmt(value: float | None) -> str:
    return "  n/a" if value is None else f"{value:.3f}"


def verdict(value: float | None, target: float, *, at_most: bool = False) -> str:
    if value is None:
        return "n/a"
    ok = value <= target if at_most else value >= target
    return "PASS" if ok else "FAIL"


def greedy_match(
    expected: Sequence[Any], produced: Sequence[Any], ok: Any, score: Any | None = None
) -> list[tuple[int, int]]:
    """One-to-one greedy matching: each expected item, in order, takes its best free candidate."""
    used: set[int] = set()
    pairs: list[tuple[int, int]] = []
    for i, exp in enumerate(expected):
        best: tuple[float, int] | None = None
        for j, got in enumerate(produced):
            if j in used or not ok(exp, got):
                continue
            value = score(exp, got) if score else 0.0
            if best is None or value > best[0]:
                best = (value, j)
        if best is not None:
            used.add(best[1])
            pairs.append((i, best[1]))
    return pairs


# --------------------------------------------------------------------------- contradiction pairs

_TENANT = "t-pairs"
_BASE = datetime(2024, 1, 8, 9, 0, tzinfo=UTC)
_ZONES = (
    UTC,
    timezone(timedelta(hours=1)),
    timezone(timedelta(hours=-5)),
    timezone(timedelta(hours=5, minutes=30)),
    timezone(timedelta(hours=9)),
    timezone(timedelta(hours=-3)),
)

CITIES = (
    "Paris", "Lisbon", "Oslo", "Berlin", "Madrid", "Toronto", "Nairobi", "Osaka", "Dublin", "Prague",
    "Vienna", "Lima", "Seoul", "Austin", "Denver", "Porto", "Krakow", "Tallinn", "Hanoi", "Cairo",
)  # fmt: skip
TOOLS = (
    "Vim", "Emacs", "Helix", "Notion", "Obsidian", "Slack", "Figma", "Docker", "Podman", "Jira",
    "Trello", "Linear", "Zoom", "Excel", "Airtable", "Bitwarden", "Firefox", "Chrome", "Zotero", "Todoist",
)  # fmt: skip
DATABASES = ("MySQL", "Postgres", "MongoDB", "Cassandra", "SQLite", "DynamoDB", "Redis", "CockroachDB")
STREAMERS = ("RabbitMQ", "Kafka", "NATS", "Pulsar", "Kinesis", "ActiveMQ")
FOODS = (
    "cilantro", "olives", "sushi", "mushrooms", "anchovies", "kimchi", "tofu", "oysters", "liquorice",
    "durian", "pineapple", "broccoli", "eggplant", "blue cheese", "okra", "beetroot", "goat cheese",
    "falafel", "ramen", "paella",
)  # fmt: skip
DRINKS = ("coffee", "espresso", "green tea", "beer", "red wine", "kombucha", "cola", "matcha", "whisky", "oat milk")
EMPLOYERS = (
    "Google", "Stripe", "Spotify", "Shopify", "Atlassian", "Zalando", "Airbus", "Siemens", "Monzo",
    "Canva", "Rakuten", "Infosys", "Ikea", "Unilever", "Klarna",
)  # fmt: skip
LANGUAGES = ("Spanish", "German", "Japanese", "Portuguese", "Swahili", "Korean", "Italian", "Dutch", "Polish", "Hindi")
PEOPLE = (
    "Alice", "Bruno", "Chen", "Dmitri", "Esther", "Farid", "Greta", "Hiro", "Imani", "Jonas",
    "Kavya", "Luis", "Mateo", "Nadia", "Oskar", "Priya", "Quentin", "Rosa", "Sven", "Tariq",
)  # fmt: skip
ACTIVITIES = ("hiking", "yoga", "chess", "karaoke", "gardening", "swimming", "knitting", "sailing", "bouldering")
PETS = ("dog", "cat", "parrot", "hamster", "rabbit", "tortoise")

# Each template: (name, expected, first, second). Placeholders: {a} {b} over one vocabulary.
_Template = tuple[str, str, str, str, tuple[str, ...]]

TEMPLATES: tuple[_Template, ...] = (
    # authoritative plain statements with opposite polarity on the same object
    ("like_vs_dislike", "contradiction", "I like {a}.", "I don't like {a}.", FOODS),
    ("dislike_vs_like", "contradiction", "I don't like {a}.", "I like {a}.", FOODS),
    ("eat_vs_never", "contradiction", "I eat {a}.", "I never eat {a}.", FOODS),
    ("use_vs_not", "contradiction", "I use {a}.", "I don't use {a}.", TOOLS),
    ("not_use_vs_use", "contradiction", "I do not use {a}.", "I use {a}.", TOOLS),
    ("live_vs_not", "contradiction", "I live in {a}.", "I don't live in {a}.", CITIES),
    ("work_vs_not", "contradiction", "I work at {a}.", "I don't work at {a}.", EMPLOYERS),
    ("drink_vs_not", "contradiction", "I drink {a}.", "I don't drink {a}.", DRINKS),
    ("speak_vs_not", "contradiction", "I speak {a}.", "I don't speak {a}.", LANGUAGES),
    ("person_lives_vs_not", "contradiction", "{p} lives in {a}.", "{p} doesn't live in {a}.", CITIES),
    ("person_works_vs_not", "contradiction", "{p} works at {a}.", "{p} does not work at {a}.", EMPLOYERS),
    ("enjoy_vs_not", "contradiction", "I enjoy {a}.", "I don't enjoy {a}.", ACTIVITIES),
    ("have_pet_vs_not", "contradiction", "I have a {a}.", "I don't have a {a}.", PETS),
    ("we_use_vs_not", "contradiction", "We use {a}.", "We don't use {a}.", DATABASES),
    # explicit updates that must retire the named old value
    ("moved_from_to", "supersedence", "I live in {a}.", "I moved from {a} to {b}.", CITIES),
    ("person_moved", "supersedence", "{p} lives in {a}.", "{p} moved from {a} to {b}.", CITIES),
    ("switched_tool", "supersedence", "I use {a}.", "I switched from {a} to {b}.", TOOLS),
    ("replaced_db", "supersedence", "We use {a}.", "We replaced {a} with {b}.", DATABASES),
    ("switched_bus", "supersedence", "We use {a}.", "We switched from {a} to {b}.", STREAMERS),
    ("no_longer_use", "supersedence", "I use {a}.", "I no longer use {a}.", TOOLS),
    ("left_joined", "supersedence", "I work at {a}.", "I left {a} and joined {b}.", EMPLOYERS),
    ("stopped_drinking", "supersedence", "I drink {a}.", "I stopped drinking {a}.", DRINKS),
    ("no_longer_eat", "supersedence", "I eat {a}.", "I no longer eat {a}.", FOODS),
    # coexistence: other values, other subjects, speculation and conditions
    ("also_use", "coexistence", "I use {a}.", "I also use {b}.", TOOLS),
    ("also_speak", "coexistence", "I speak {a}.", "I also speak {b}.", LANGUAGES),
    ("like_too", "coexistence", "I like {a}.", "I like {b} too.", FOODS),
    ("not_other_language", "coexistence", "I speak {a}.", "I don't speak {b}.", LANGUAGES),
    ("other_person_dislikes", "coexistence", "I like {a}.", "{p} doesn't like {a}.", FOODS),
    ("other_person_lives", "coexistence", "I live in {a}.", "{p} lives in {b}.", CITIES),
    ("repeat_same", "coexistence", "I use {a}.", "I use {a}.", TOOLS),
    ("might_move", "coexistence", "I live in {a}.", "I might move to {b}.", CITIES),
    ("maybe_switch", "coexistence", "I use {a}.", "Maybe I'll switch from {a} to {b}.", TOOLS),
    ("considering_job", "coexistence", "I work at {a}.", "I'm considering a job at {b}.", EMPLOYERS),
    ("might_stop_drinking", "coexistence", "I drink {a}.", "I might stop drinking {a}.", DRINKS),
    ("perhaps_not_like", "coexistence", "I like {a}.", "Perhaps I don't like {a} that much.", FOODS),
    ("if_budget_switch", "coexistence", "We use {a}.", "If the budget allows, we'll switch from {a} to {b}.",
     STREAMERS),
    ("if_job_move", "coexistence", "I live in {a}.", "If I get the job, I'll move from {a} to {b}.", CITIES),
    ("unless_replace_db", "coexistence", "We use {a}.", "Unless the benchmark disappoints, we'll replace {a} with {b}.",
     DATABASES),
    ("planning_to_move", "coexistence", "I live in {a}.", "I'm planning to move to {b}.", CITIES),
)

#: How many pairs each template contributes (deterministic, cycling through its vocabulary).
PER_TEMPLATE: dict[str, int] = {
    "contradiction": 18,
    "supersedence": 14,
    "coexistence": 9,
}


def _event(owner: str, event_id: str, content: str, when: datetime, zone: timezone) -> dict[str, Any]:
    return {
        "event_id": event_id,
        "tenant_id": _TENANT,
        "owner_id": owner,
        "scope": "personal",
        "conversation_id": f"conv-{owner}",
        "role": "user",
        "content": content,
        "occurred_at": when.astimezone(zone).isoformat(),
    }


def generate_pairs() -> list[dict[str, Any]]:
    """Every template contributes ``PER_TEMPLATE[kind]`` pairs; values cycle with a fixed stride."""
    records: list[dict[str, Any]] = []
    n = 0
    for t_index, (name, kind, first, second, vocab) in enumerate(TEMPLATES):
        for k in range(PER_TEMPLATE[kind]):
            a = vocab[(k + t_index) % len(vocab)]
            b = vocab[(k + t_index + 3) % len(vocab)]
            p = PEOPLE[(k * 7 + t_index) % len(PEOPLE)]
            values = {"a": a, "b": b, "p": p}
            owner = f"pair-{n:04d}"
            zone = _ZONES[n % len(_ZONES)]
            t1 = _BASE + timedelta(hours=n)
            t2 = t1 + timedelta(days=1 + k % 5, minutes=17)
            records.append(
                {
                    "pair_id": f"pair-{n:04d}",
                    "template": name,
                    "first": _event(owner, f"{owner}-a", first.format(**values), t1, zone),
                    "second": _event(owner, f"{owner}-b", second.format(**values), t2, zone),
                    "expected": kind,
                }
            )
            n += 1
    return records


def dump_jsonl(records: Iterable[dict[str, Any]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False, sort_keys=False) + "\n" for r in records)


@dataclass
class Tally:
    """Counter with stable ordering for printing."""

    counts: dict[str, int] = field(default_factory=dict)

    def add(self, key: str, n: int = 1) -> None:
        self.counts[key] = self.counts.get(key, 0) + n

    def most_common(self) -> list[tuple[str, int]]:
        return sorted(self.counts.items(), key=lambda kv: (-kv[1], kv[0]))


if __name__ == "__main__":
    if "--write-pairs" in sys.argv:
        PAIRS_PATH.write_text(dump_jsonl(generate_pairs()), encoding="utf-8")
        print(f"wrote {PAIRS_PATH}")
    else:
        print("usage: python bench/_eval_common.py --write-pairs")

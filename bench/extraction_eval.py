"""Score the rule extractor against the hand-labelled set (tests/data/extraction_labelled.jsonl).

Labels follow PRME-FACTS §8 (see tests/data/README.md), not the extractor, so a
figure below target is a finding about the extractor, not about this script.

    .venv/bin/python bench/extraction_eval.py [--json] [--failures N] [--data PATH]

Matching: a produced claim matches an expected one when node type, epistemic type and
polarity are equal and the expected ``object_hint`` is a whole word of the claim's
object; expected items take free claims greedily, one to one. Polarity, condition
text and update targets are scored on a looser alignment (object hint only, best
agreement first) so a wrong polarity is counted as wrong rather than as missing.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from _eval_common import (
    AUTHORITATIVE,
    EPISTEMIC_ORDER,
    LABELLED_PATH,
    Expected,
    LabelledMessage,
    Tally,
    contains_word,
    enum_name,
    fmt,
    greedy_match,
    load_labelled,
    prf,
    replaces_matches,
    speech_act_ok,
    verdict,
)

#: (figure, target, compare "at_most")
PR_TARGETS: dict[str, float] = {
    "ASSERTED": 0.80,
    "OBSERVED": 0.80,
    "INFERRED": 0.80,
    AUTHORITATIVE: 0.80,
}
DETECTION_TARGETS: dict[str, float] = {"HYPOTHETICAL": 0.90, "CONDITIONAL": 0.90}
POLARITY_TARGET = 0.95
CONDITION_TARGET = 0.90


@dataclass(frozen=True)
class Got:
    """The fields of a produced claim the scoring looks at (enum names upper-case)."""

    node_type: str
    epistemic_type: str
    polarity: str
    subject: str
    predicate: str
    object: str | None
    condition: str | None
    replaces_object: str | None
    source: str | None = None  #: the reported source of an UNVERIFIED claim (``metadata["reported_source"]``)

    def brief(self) -> str:
        extra = ""
        if self.source:
            extra += f" source={self.source!r}"
        if self.condition:
            extra += f" cond={self.condition!r}"
        if self.replaces_object:
            extra += f" replaces={self.replaces_object!r}"
        return (
            f"{self.node_type}/{self.epistemic_type}/{self.polarity} "
            f"({self.subject!r}, {self.predicate!r}, {self.object!r}){extra}"
        )


def to_got(claim: Any) -> Got:
    return Got(
        node_type=enum_name(claim.node_type),
        epistemic_type=enum_name(claim.epistemic_type),
        polarity=str(getattr(claim.polarity, "value", claim.polarity)).lower(),
        subject=claim.subject,
        predicate=claim.predicate,
        object=claim.object,
        condition=claim.condition,
        replaces_object=claim.replaces_object,
        source=_source_of(claim),
    )


def _source_of(claim: Any) -> str | None:
    value = (claim.metadata or {}).get("reported_source")
    return value if isinstance(value, str) else None


def source_ok(e: Expected, g: Got) -> bool:
    """An UNVERIFIED label that names its source (or says none is named) must be met by the claim."""
    if e.epistemic_type != "UNVERIFIED" or not e.has_source_hint:
        return True
    if e.source_hint is None:
        return g.source is None
    return contains_word(e.source_hint, g.source) or contains_word(g.source, e.source_hint)


def brief_expected(e: Expected) -> str:
    extra = ""
    if e.condition:
        extra += f" cond={e.condition!r}"
    if e.replaces_object:
        extra += f" replaces={e.replaces_object!r}"
    if e.predicate_cue:
        extra += f" cue={e.predicate_cue!r}"
    if e.has_source_hint:
        extra += f" source={e.source_hint!r}"
    return f"{e.node_type}/{e.epistemic_type}/{e.polarity} object~{e.object_hint!r}{extra}"


def _auth(t: str) -> str:
    return AUTHORITATIVE if t in ("ASSERTED", "OBSERVED") else t


@dataclass
class MessageOutcome:
    message: LabelledMessage
    got: list[Got]
    rejected: list[tuple[str, str]]
    strict: list[tuple[int, int]] = field(default_factory=list)
    loose: list[tuple[int, int]] = field(default_factory=list)
    error: str | None = None


def strict_ok(type_map: Callable[[str], str]) -> Callable[[Expected, Got], bool]:
    def ok(e: Expected, g: Got) -> bool:
        return (
            e.node_type == g.node_type
            and type_map(e.epistemic_type) == type_map(g.epistemic_type)
            and e.polarity == g.polarity
            and contains_word(e.object_hint, g.object)
            and source_ok(e, g)
        )

    return ok


def detection_ok(e: Expected, g: Got) -> bool:
    return e.epistemic_type == g.epistemic_type and contains_word(e.object_hint, g.object) and source_ok(e, g)


def loose_ok(e: Expected, g: Got) -> bool:
    return contains_word(e.object_hint, g.object)


def loose_score(e: Expected, g: Got) -> float:
    return (
        (e.epistemic_type == g.epistemic_type) * 4
        + (e.node_type == g.node_type) * 2
        + (e.polarity == g.polarity) * 1
        + (_auth(e.epistemic_type) == _auth(g.epistemic_type)) * 0.5
    )


def per_type_prf(
    outcomes: Sequence[MessageOutcome],
    ok: Callable[[Expected, Got], bool],
    type_map: Callable[[str], str],
) -> dict[str, dict[str, float | int | None]]:
    tp: Tally = Tally()
    fp: Tally = Tally()
    fn: Tally = Tally()
    for o in outcomes:
        pairs = greedy_match(o.message.expected, o.got, ok)
        matched_e = {i for i, _ in pairs}
        matched_g = {j for _, j in pairs}
        for i, e in enumerate(o.message.expected):
            (tp if i in matched_e else fn).add(type_map(e.epistemic_type))
        for j, g in enumerate(o.got):
            if j not in matched_g:
                fp.add(type_map(g.epistemic_type))
    keys = sorted(set(tp.counts) | set(fp.counts) | set(fn.counts), key=_type_order)
    out = {k: prf(tp.counts.get(k, 0), fp.counts.get(k, 0), fn.counts.get(k, 0)) for k in keys}
    total = prf(sum(tp.counts.values()), sum(fp.counts.values()), sum(fn.counts.values()))
    out["ALL"] = total
    return out


def _type_order(t: str) -> tuple[int, str]:
    order = (*EPISTEMIC_ORDER, AUTHORITATIVE)
    return (order.index(t) if t in order else len(order), t)


def classify_failures(o: MessageOutcome) -> list[str]:
    """Short category names for what went wrong in one message (for the lead's summary)."""
    cats: list[str] = []
    if o.error:
        return [f"extractor_error:{o.error}"]
    if o.message.is_hard_negative:
        if o.got:
            cats.append("hard_negative_false_positive:" + _neg_kind(o.message))
        return cats
    matched_e = {i for i, _ in o.strict}
    matched_g = {j for _, j in o.strict}
    loose = dict(o.loose)
    for i, e in enumerate(o.message.expected):
        if i in matched_e:
            continue
        if i not in loose:
            cats.append(f"missed:{e.epistemic_type.lower()}:{e.node_type.lower()}")
            continue
        g = o.got[loose[i]]
        if e.epistemic_type != g.epistemic_type and _auth(e.epistemic_type) != _auth(g.epistemic_type):
            cats.append(f"wrong_type:{e.epistemic_type.lower()}->{g.epistemic_type.lower()}")
        elif e.epistemic_type != g.epistemic_type:
            cats.append(f"asserted_vs_observed:{e.epistemic_type.lower()}->{g.epistemic_type.lower()}")
        if e.node_type != g.node_type:
            cats.append(f"wrong_node_type:{e.node_type.lower()}->{g.node_type.lower()}")
        if e.polarity != g.polarity:
            cats.append(f"wrong_polarity:{e.polarity}->{g.polarity}")
    loose_g = set(loose.values())
    for j, _ in enumerate(o.got):
        if j not in matched_g and j not in loose_g:
            cats.append("extra_claim:" + o.message.event.role.value)
    for i, e in enumerate(o.message.expected):
        if i in loose:
            g = o.got[loose[i]]
            if e.condition is not None and g.condition != e.condition:
                cats.append("condition_text_mismatch")
            if not source_ok(e, g):
                cats.append("source_hint_mismatch")
            if e.replaces_object and not replaces_matches(e.replaces_object, g.replaces_object):
                cats.append("update_target_missing")
            elif not e.replaces_object and g.replaces_object and _auth(g.epistemic_type) == AUTHORITATIVE:
                cats.append("update_target_spurious")
    return cats


def _neg_kind(m: LabelledMessage) -> str:
    text = m.event.content.strip()
    role = m.event.role.value
    if text.endswith("?"):
        return f"{role}:question"
    return role


def make_extractor() -> Any:
    from extractors.rules import RuleExtractor

    return RuleExtractor()


def evaluate(messages: Sequence[LabelledMessage]) -> tuple[dict[str, Any], list[MessageOutcome]]:
    extractor = make_extractor()
    outcomes: list[MessageOutcome] = []
    for m in messages:
        try:
            result = extractor.extract(m.event)
        except Exception as exc:  # a crash on one message is a finding, not a reason to stop
            outcomes.append(MessageOutcome(m, [], [], error=type(exc).__name__))
            continue
        got = [to_got(c) for c in result.claims]
        if m.is_sarcasm and not m.expected:
            # a sarcastic message may be read as speculation, never as a sincere statement (realistic sets)
            got = [g for g in got if g.epistemic_type != "HYPOTHETICAL"]
        rejected = [(r.reason_code, json.dumps(r.claim, ensure_ascii=False)[:200]) for r in result.rejected]
        o = MessageOutcome(m, got, rejected)
        o.strict = greedy_match(m.expected, got, strict_ok(lambda t: t))
        o.loose = greedy_match(m.expected, got, loose_ok, loose_score)
        outcomes.append(o)

    report: dict[str, Any] = {"messages": len(messages), "extractor_errors": sum(1 for o in outcomes if o.error)}
    report["per_type"] = per_type_prf(outcomes, strict_ok(lambda t: t), lambda t: t)
    report["authoritative"] = per_type_prf(outcomes, strict_ok(_auth), _auth).get(AUTHORITATIVE)
    report["detection"] = per_type_prf(outcomes, detection_ok, lambda t: t)

    # Scores on the loose alignment.
    pol_total = pol_ok = cond_total = cond_ok = cond_norm_ok = rep_total = rep_ok = spurious = 0
    node_total = node_ok = 0
    confusion: dict[str, Tally] = {}
    for o in outcomes:
        for i, j in o.loose:
            e, g = o.message.expected[i], o.got[j]
            pol_total += 1
            pol_ok += e.polarity == g.polarity
            node_total += 1
            node_ok += e.node_type == g.node_type
            confusion.setdefault(e.epistemic_type, Tally()).add(g.epistemic_type)
            if e.epistemic_type == "CONDITIONAL" and e.condition is not None:
                cond_total += 1
                cond_ok += g.condition == e.condition
                cond_norm_ok += " ".join((g.condition or "").casefold().split()) == " ".join(
                    e.condition.casefold().split()
                )
            if e.replaces_object is not None:
                rep_total += 1
                rep_ok += replaces_matches(e.replaces_object, g.replaces_object)
            elif g.replaces_object and _auth(g.epistemic_type) == AUTHORITATIVE:
                # only authoritative claims can retire anything (§8.9), so only they count
                spurious += 1
    report["aligned_claims"] = pol_total
    report["polarity_accuracy"] = pol_ok / pol_total if pol_total else None
    report["node_type_accuracy"] = node_ok / node_total if node_total else None
    report["condition_exact"] = cond_ok / cond_total if cond_total else None
    report["condition_normalised"] = cond_norm_ok / cond_total if cond_total else None
    report["condition_aligned"] = cond_total
    report["conditions_expected"] = sum(
        1 for m in messages for e in m.expected if e.epistemic_type == "CONDITIONAL"
    )
    report["update_target_accuracy"] = rep_ok / rep_total if rep_total else None
    report["update_targets_aligned"] = rep_total
    report["update_targets_expected"] = sum(1 for m in messages for e in m.expected if e.replaces_object)
    report["spurious_update_targets"] = spurious
    report["type_confusion"] = {k: dict(v.most_common()) for k, v in sorted(confusion.items())}

    # Speech acts: a claim naming a speech-act target must keep the cue in its predicate.
    violations: list[dict[str, str]] = []
    cue_total = cue_kept = 0
    for o in outcomes:
        for i, e in enumerate(o.message.expected):
            if not e.predicate_cue:
                continue
            for g in o.got:
                if contains_word(e.object_hint, g.object) and not speech_act_ok(g.predicate):
                    violations.append({"event_id": o.message.event.event_id, "claim": g.brief()})
            aligned = dict(o.loose).get(i)
            cue_total += 1
            if aligned is not None and e.predicate_cue.casefold() in o.got[aligned].predicate.casefold():
                cue_kept += 1
    report["speech_act_violations"] = len(violations)
    report["speech_act_violation_examples"] = violations[:10]
    report["speech_act_cue_kept"] = cue_kept / cue_total if cue_total else None
    report["speech_act_items"] = cue_total

    negatives = [o for o in outcomes if o.message.is_hard_negative]
    fp_msgs = [o for o in negatives if o.got]
    report["hard_negatives"] = len(negatives)
    report["hard_negative_messages_with_claims"] = len(fp_msgs)
    report["hard_negative_claims"] = sum(len(o.got) for o in fp_msgs)
    report["hard_negative_fp_rate"] = len(fp_msgs) / len(negatives) if negatives else None

    reasons = Tally()
    for o in outcomes:
        for code, _ in o.rejected:
            reasons.add(code)
    report["rejections_by_reason"] = dict(reasons.most_common())

    by_role: dict[str, dict[str, Any]] = {}
    for role in sorted({o.message.event.role.value for o in outcomes}):
        subset = [o for o in outcomes if o.message.event.role.value == role]
        by_role[role] = per_type_prf(subset, strict_ok(_auth), lambda t: "ALL").get("ALL", {})
    report["by_role_strict"] = by_role

    cats = Tally()
    for o in outcomes:
        for c in classify_failures(o):
            cats.add(c)
    report["failure_categories"] = dict(cats.most_common())

    report["message_pass_rate"] = _pass_rate(outcomes)
    report["source_hint_accuracy"] = _source_accuracy(outcomes)
    families = sorted({o.message.family for o in outcomes if o.message.family})
    by_family: dict[str, dict[str, Any]] = {}
    for fam in families:
        subset = [o for o in outcomes if o.message.family == fam]
        row = dict(per_type_prf(subset, strict_ok(lambda t: t), lambda t: "ALL").get("ALL", prf(0, 0, 0)))
        row["messages"] = len(subset)
        row["pass_rate"] = _pass_rate(subset)
        by_family[fam] = row
    report["by_family"] = by_family

    report["targets"] = _targets(report)
    return report, outcomes


def _passed(o: MessageOutcome) -> bool:
    """Every expected claim matched strictly and nothing else produced."""
    return not o.error and len(o.strict) == len(o.message.expected) == len(o.got)


def _pass_rate(outcomes: Sequence[MessageOutcome]) -> float | None:
    return sum(_passed(o) for o in outcomes) / len(outcomes) if outcomes else None


def _source_accuracy(outcomes: Sequence[MessageOutcome]) -> float | None:
    """Of the UNVERIFIED labels that name a source (or none), the share whose aligned claim agrees."""
    total = ok = 0
    for o in outcomes:
        aligned = dict(o.loose)
        for i, e in enumerate(o.message.expected):
            if e.epistemic_type != "UNVERIFIED" or not e.has_source_hint:
                continue
            total += 1
            j = aligned.get(i)
            ok += j is not None and o.got[j].epistemic_type == "UNVERIFIED" and source_ok(e, o.got[j])
    return ok / total if total else None


def _target_row(figure: str, value: float | None, target: float) -> dict[str, Any]:
    return {"figure": figure, "value": value, "target": target, "verdict": verdict(value, target)}


def _prf_row(name: str, f: dict[str, Any], mark: str) -> str:
    return (
        f"  {name:<14}{f['tp']:>5}{f['fp']:>5}{f['fn']:>5}  "
        f"{fmt(f['precision'])} {fmt(f['recall'])} {fmt(f['f1'])}  {mark}"
    )


def _targets(r: dict[str, Any]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for t, target in PR_TARGETS.items():
        figures = r["authoritative"] if t == AUTHORITATIVE else r["per_type"].get(t, {})
        for metric in ("precision", "recall"):
            value = (figures or {}).get(metric)
            rows.append(_target_row(f"{t} {metric}", value, target))
    for t, target in DETECTION_TARGETS.items():
        figures = r["detection"].get(t, {})
        for metric in ("precision", "recall"):
            value = figures.get(metric)
            rows.append(_target_row(f"{t} detection {metric}", value, target))
    rows.append(
        {
            "figure": "polarity accuracy",
            "value": r["polarity_accuracy"],
            "target": POLARITY_TARGET,
            "verdict": verdict(r["polarity_accuracy"], POLARITY_TARGET),
        }
    )
    rows.append(
        {
            "figure": "condition text exact",
            "value": r["condition_exact"],
            "target": CONDITION_TARGET,
            "verdict": verdict(r["condition_exact"], CONDITION_TARGET),
        }
    )
    rows.append(
        {
            "figure": "speech-act violations",
            "value": r["speech_act_violations"],
            "target": 0,
            "verdict": "PASS" if r["speech_act_violations"] == 0 else "FAIL",
        }
    )
    return rows


def print_report(r: dict[str, Any]) -> None:
    print(f"Extraction evaluation: {r['messages']} labelled messages, extractor errors: {r['extractor_errors']}")
    print()
    print("Per epistemic type (strict: node type + epistemic type + polarity + object hint)")
    print(f"  {'type':<14}{'tp':>5}{'fp':>5}{'fn':>5}  {'prec':>6} {'recall':>6} {'f1':>6}  target")
    rows = dict(r["per_type"])
    rows[AUTHORITATIVE] = r["authoritative"] or prf(0, 0, 0)
    for t, f in sorted(rows.items(), key=lambda kv: _type_order(kv[0]) if kv[0] != "ALL" else (99, "")):
        target = PR_TARGETS.get(t)
        mark = ""
        if target is not None:
            mark = f">={target:.2f} P:{verdict(f['precision'], target)} R:{verdict(f['recall'], target)}"
        print(_prf_row(t, f, mark))
    print()
    print("Detection (epistemic type + object hint, node type and polarity ignored)")
    for t in EPISTEMIC_ORDER:
        f = r["detection"].get(t)
        if not f:
            continue
        target = DETECTION_TARGETS.get(t)
        mark = f">={target:.2f} P:{verdict(f['precision'], target)} R:{verdict(f['recall'], target)}" if target else ""
        print(_prf_row(t, f, mark))
    print()
    print(f"Aligned on object hint: {r['aligned_claims']} expected claims")
    print(f"  polarity accuracy      {fmt(r['polarity_accuracy'])}  target >= {POLARITY_TARGET:.2f}  "
          f"{verdict(r['polarity_accuracy'], POLARITY_TARGET)}")  # fmt: skip
    print(f"  condition text exact   {fmt(r['condition_exact'])}  target >= {CONDITION_TARGET:.2f}  "
          f"{verdict(r['condition_exact'], CONDITION_TARGET)}  "
          f"({r['condition_aligned']} aligned of {r['conditions_expected']} expected; "
          f"case/space-normalised {fmt(r['condition_normalised'])})")  # fmt: skip
    print(f"  update target accuracy {fmt(r['update_target_accuracy'])}  "
          f"({r['update_targets_aligned']} aligned of {r['update_targets_expected']} expected); "
          f"spurious replaces_object: {r['spurious_update_targets']}")  # fmt: skip
    print(f"  node type accuracy     {fmt(r['node_type_accuracy'])}")
    print()
    print(f"Speech-act violations: {r['speech_act_violations']}  target 0  "
          f"{'PASS' if r['speech_act_violations'] == 0 else 'FAIL'}  "
          f"(cue kept in predicate: {fmt(r['speech_act_cue_kept'])} of {r['speech_act_items']} items)")  # fmt: skip
    for v in r["speech_act_violation_examples"]:
        print(f"    {v['event_id']}: {v['claim']}")
    print(f"Hard negatives: {r['hard_negatives']} messages, {r['hard_negative_messages_with_claims']} produced claims "
          f"({r['hard_negative_claims']} claims, rate {fmt(r['hard_negative_fp_rate'])})")  # fmt: skip
    print()
    print("Epistemic type confusion (expected -> produced, on aligned claims)")
    for exp, row in r["type_confusion"].items():
        print(f"  {exp:<13} " + ", ".join(f"{k}:{v}" for k, v in row.items()))
    print()
    print("Strict micro P/R by role (ASSERTED and OBSERVED merged)")
    for role, f in r["by_role_strict"].items():
        if f:
            counts = f"(tp {f['tp']}, fp {f['fp']}, fn {f['fn']})"
            print(f"  {role:<12} P {fmt(f['precision'])}  R {fmt(f['recall'])}  {counts}")
    print()
    print("Rejections by reason code")
    for code, n in r["rejections_by_reason"].items():
        print(f"  {code:<40}{n:>5}")
    if not r["rejections_by_reason"]:
        print("  (none)")
    print()
    print("Failure categories")
    for cat, n in list(r["failure_categories"].items())[:30]:
        print(f"  {cat:<50}{n:>5}")
    print()
    print(f"Messages passed (every claim matched strictly, nothing extra): {fmt(r['message_pass_rate'])}")
    if r["source_hint_accuracy"] is not None:
        print(f"Reported source named as labelled (UNVERIFIED): {fmt(r['source_hint_accuracy'])}")
    if r["by_family"]:
        print()
        print("Per family (strict, all types)")
        print(f"  {'family':<40}{'msgs':>5}{'tp':>5}{'fp':>5}{'fn':>5}  {'prec':>6} {'recall':>6}  {'pass':>6}")
        for fam, f in r["by_family"].items():
            print(f"  {fam:<40}{f['messages']:>5}{f['tp']:>5}{f['fp']:>5}{f['fn']:>5}  "
                  f"{fmt(f['precision'])} {fmt(f['recall'])}  {fmt(f['pass_rate'])}")  # fmt: skip
    print()
    print("Targets")
    for row in r["targets"]:
        value = row["value"] if isinstance(row["value"], int) else fmt(row["value"])
        print(f"  {row['figure']:<34}{value!s:>7}  target {row['target']!s:<5} {row['verdict']}")
    missed = sum(1 for row in r["targets"] if row["verdict"] != "PASS")
    print(f"  {missed} of {len(r['targets'])} targets missed")


def print_failures(outcomes: Sequence[MessageOutcome], limit: int) -> None:
    shown = 0
    print()
    print(f"First {limit} mismatching messages")
    for o in outcomes:
        cats = classify_failures(o)
        if not cats:
            continue
        shown += 1
        if shown > limit:
            break
        ev = o.message.event
        fam = f" ({o.message.family})" if o.message.family else ""
        print(f"--- {ev.event_id} [{ev.role.value}]{fam} {', '.join(cats)}")
        print(f"    text: {ev.content!r}")
        for e in o.message.expected:
            print(f"    want: {brief_expected(e)}")
        if not o.message.expected:
            print("    want: (nothing)")
        for g in o.got:
            print(f"    got:  {g.brief()}")
        for code, claim in o.rejected:
            print(f"    rej:  {code} {claim}")


def failure_records(outcomes: Sequence[MessageOutcome], limit: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for o in outcomes:
        cats = classify_failures(o)
        if not cats:
            continue
        out.append(
            {
                "event_id": o.message.event.event_id,
                "role": o.message.event.role.value,
                "content": o.message.event.content,
                "categories": cats,
                "expected": [brief_expected(e) for e in o.message.expected],
                "got": [g.brief() for g in o.got],
                "rejected": [code for code, _ in o.rejected],
            }
        )
        if len(out) >= limit:
            break
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    parser.add_argument("--failures", type=int, default=0, metavar="N", help="print the first N mismatching messages")
    parser.add_argument("--data", type=Path, default=LABELLED_PATH)
    parser.add_argument("--family", default=None, help="show failures of this family only (realistic sets)")
    args = parser.parse_args(argv)
    messages = load_labelled(args.data)
    report, outcomes = evaluate(messages)
    if args.json:
        if args.failures:
            report["failures"] = failure_records(outcomes, args.failures)
        print(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        print_report(report)
        if args.failures:
            shown = [o for o in outcomes if args.family is None or o.message.family == args.family]
            print_failures(shown, args.failures)
    return 0


if __name__ == "__main__":
    sys.exit(main())

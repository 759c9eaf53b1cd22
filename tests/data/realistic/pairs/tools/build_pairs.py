#!/usr/bin/env python3
"""Build pairs_dev.jsonl / pairs_heldout.jsonl from the hand-written sources in ../src.

The sources hold every message text and label by hand; this script only assigns ids,
conversation ids, timestamps and UTC offsets (deterministically, from a fixed seed).

    python tools/build_pairs.py dev      # src/dev_source.txt     -> pairs_dev.jsonl     (ids pd-NNNN)
    python tools/build_pairs.py heldout  # src/heldout_source.txt -> pairs_heldout.jsonl (ids ph-NNNN)
"""
import json, math, random, re, sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONFIG = {
    "dev": ("src/dev_source.txt", "pairs_dev.jsonl", "pd", 20261201),
    "heldout": ("src/heldout_source.txt", "pairs_heldout.jsonl", "ph", 20261202),
}
EXPECTED = {
    "polarity_flip": "contradiction", "polarity_flip_casual": "contradiction",
    "single_valued_plain": "contradiction", "qualifier_mismatch": "contradiction",
    "favorite_vs_dislike": "contradiction",
    "update_from_to": "supersedence", "update_different_predicate": "supersedence",
    "update_verb_only": "supersedence", "negative_update": "supersedence",
    "correction": "supersedence",
    "multi_valued": "coexistence", "hedged_second": "coexistence",
    "conditional_second": "coexistence", "reported_second": "coexistence",
    "assistant_second": "coexistence", "other_subject": "coexistence",
    "repetition": "coexistence", "unrelated": "coexistence",
}
OFFSETS = ["-08:00", "-07:00", "-06:00", "-05:00", "-04:00", "-03:30", "-03:00", "+00:00",
           "+01:00", "+02:00", "+03:00", "+04:00", "+05:30", "+05:45", "+07:00", "+08:00",
           "+09:00", "+09:30", "+10:00", "+12:00", "+13:00"]


def parse_source(text):
    pairs, family, cur = [], None, None
    for ln, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip()
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        m = re.fullmatch(r"\[(\w+)\]", line.strip())
        if m:
            family = m.group(1)
            if family not in EXPECTED:
                raise SystemExit(f"line {ln}: unknown family {family}")
            continue
        if line.startswith("= "):
            parts = [p.strip() for p in line[2:].split("|")]
            if len(parts) not in (3, 4):
                raise SystemExit(f"line {ln}: bad header {line!r}")
            opts = {}
            if len(parts) == 4 and parts[3]:
                for tok in parts[3].split():
                    k, v = tok.split("=", 1)
                    opts[k] = v
            cur = {"family": family, "attribute": parts[0], "old_value": parts[1],
                   "new_value": None if parts[2] == "-" else parts[2], "opts": opts, "line": ln}
            pairs.append(cur)
            continue
        if line.startswith("a: "):
            cur["a"] = line[3:].strip(); continue
        if line.startswith("b: "):
            cur["b"] = line[3:].strip(); continue
        raise SystemExit(f"line {ln}: cannot parse {line!r}")
    for p in pairs:
        if "a" not in p or "b" not in p:
            raise SystemExit(f"pair at line {p['line']} lacks a: or b:")
    return pairs


def parse_gap(s):
    n, unit = int(s[:-1]), s[-1]
    return timedelta(hours=n) if unit == "h" else timedelta(days=n)


def tz(off):
    sign = 1 if off[0] == "+" else -1
    h, m = int(off[1:3]), int(off[4:6])
    return timezone(sign * timedelta(hours=h, minutes=m))


def role_fields(spec):
    if not spec or spec == "user":
        return {"role": "user"}
    if spec == "assistant":
        return {"role": "assistant"}
    if spec.startswith("participant:"):
        return {"role": "participant", "speaker": spec.split(":", 1)[1]}
    raise SystemExit(f"bad role {spec}")


def build(which):
    src, out, prefix, seed = CONFIG[which]
    pairs = parse_source((ROOT / src).read_text(encoding="utf-8"))
    rng = random.Random(seed)
    base = datetime(2025, 1, 6, tzinfo=timezone.utc)
    lines = []
    for i, p in enumerate(pairs, 1):
        pid = f"{prefix}-{i:04d}"
        scope = p["opts"].get("s", "personal")
        off1 = rng.choice(OFFSETS)
        off2 = off1 if rng.random() > 0.1 else rng.choice([o for o in OFFSETS if o != off1])
        local_start = base + timedelta(days=rng.randint(0, 620), hours=rng.randint(7, 21),
                                       minutes=rng.randint(0, 59), seconds=rng.randint(0, 59))
        t1 = local_start.replace(tzinfo=tz(off1))
        if "gap" in p["opts"]:
            gap = parse_gap(p["opts"]["gap"]) + timedelta(minutes=rng.randint(0, 40))
        elif p["family"] == "correction":
            gap = timedelta(minutes=rng.randint(60, 30 * 60))
        else:  # log-uniform between 1 hour and 60 days
            gap = timedelta(hours=math.exp(rng.uniform(0, math.log(60 * 24))))
        gap = min(max(gap, timedelta(hours=1, minutes=1)), timedelta(days=59, hours=23))
        t2 = (t1 + gap).astimezone(tz(off2))
        same_conv = gap < timedelta(hours=6)
        conv1 = f"conv-{pid}-1"
        conv2 = conv1 if same_conv else f"conv-{pid}-2"

        def event(suffix, content, when, conv, rolespec):
            ev = {"event_id": f"{pid}-{suffix}", "tenant_id": "t-pairs2", "owner_id": pid,
                  "scope": scope, "conversation_id": conv}
            rf = role_fields(rolespec)
            ev["role"] = rf["role"]
            if "speaker" in rf:
                ev["speaker"] = rf["speaker"]
            ev["content"] = content
            ev["occurred_at"] = when.isoformat(timespec="seconds")
            return ev

        rec = {"pair_id": pid, "family": p["family"],
               "first": event("a", p["a"], t1, conv1, p["opts"].get("r1")),
               "second": event("b", p["b"], t2, conv2, p["opts"].get("r2")),
               "expected": EXPECTED[p["family"]], "attribute": p["attribute"],
               "old_value": p["old_value"], "new_value": p["new_value"]}
        lines.append(json.dumps(rec, ensure_ascii=False))
    (ROOT / out).write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {len(lines)} pairs to {ROOT / out}")


if __name__ == "__main__":
    for w in sys.argv[1:] or ["dev"]:
        build(w)

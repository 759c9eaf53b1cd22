#!/usr/bin/env python3
"""Validate pairs_dev.jsonl and pairs_heldout.jsonl.

    python tools/validate_pairs.py            # both files, plus cross-file checks
    python tools/validate_pairs.py FILE...    # just these

Hard errors (exit 1): JSON that does not parse, wrong keys, duplicate ids, owner/scope/tenant
mismatch inside a pair, second not 1 hour to 60 days after first, bad family/expected,
old_value not a whole word of the first message, new_value not a whole word of the second,
repeated message texts, minimum counts not met.
Lint warnings: wording that does not fit the family (an update cue in a contradiction, a
missing hedge in hedged_second, ...). Lint warnings are printed, and fail the run with --strict.
"""
import json, re, sys
from collections import Counter
from datetime import datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
from build_pairs import EXPECTED  # family -> expected label

PAIR_KEYS = {"pair_id", "family", "first", "second", "expected", "attribute", "old_value", "new_value"}
EVENT_KEYS = {"event_id", "tenant_id", "owner_id", "scope", "conversation_id", "role", "content", "occurred_at"}
ROLES = {"user", "participant", "assistant"}
SCOPES = {"personal", "project"}
MINIMUM = {"pairs_dev.jsonl": (280, 12), "pairs_heldout.jsonl": (150, 6)}

UPDATE_CUES = r"\b(now|changed|moved|moving|switch(ed|ing)?|swapp?ed|no longer|left|start(ed|ing)|recently|any ?more|actually|correct(ion|ed)?|meant|scratch that|ditch(ed)?|quit|sold|cancell?ed|stopped|gave up|dropped|replaced|relocated|joined|used to|these days|as of)\b"
HEDGES = r"\b(might|maybe|perhaps|possibly|potentially|probably|chance|could|may|think(ing)?|considering|weighing|tempted|planning|plan to|hoping|hope to|looking to|want(s|ed)? to|wanna|would like|'d like|thinking about|toying|on the fence|not sure|should|undecided|debating)\b"
CONDITIONS = r"\b(if|unless|provided|providing|as long as|only if|assuming|in case)\b"


def lint_search(pat, text):
    """First match of a lint pattern, ignoring the capitalised month/name "May" (PRME-FACTS 8.7)."""
    for m in re.finditer(pat, text, re.I):
        if m.group(0) != "May":
            return m
    return None


def word_in(value, text):
    pat = r"(?<!\w)" + re.escape(value) + r"(?!\w)"
    return re.search(pat, text, flags=re.IGNORECASE) is not None


def load(path):
    errors, recs = [], []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            errors.append(f"{path.name}:{n}: blank line"); continue
        try:
            recs.append((n, json.loads(line)))
        except json.JSONDecodeError as e:
            errors.append(f"{path.name}:{n}: does not parse: {e}")
    return recs, errors


def check_file(path):
    recs, errors = load(path)
    warns = []
    ids, owners, texts = set(), set(), Counter()
    fam, exp, roles, scopes, famexp = Counter(), Counter(), Counter(), Counter(), Counter()
    prefix = "pd" if "dev" in path.name else "ph"
    for n, r in recs:
        where = f"{path.name}:{n} {r.get('pair_id')}"
        if set(r) != PAIR_KEYS:
            errors.append(f"{where}: pair keys {sorted(set(r) ^ PAIR_KEYS)}")
            continue
        pid = r["pair_id"]
        if not re.fullmatch(prefix + r"-\d{4}", pid):
            errors.append(f"{where}: bad pair_id")
        if pid in ids:
            errors.append(f"{where}: duplicate pair_id")
        ids.add(pid)
        if r["family"] not in EXPECTED:
            errors.append(f"{where}: unknown family {r['family']}")
        elif EXPECTED[r["family"]] != r["expected"]:
            errors.append(f"{where}: family {r['family']} expects {EXPECTED[r['family']]}, got {r['expected']}")
        if r["expected"] not in {"contradiction", "supersedence", "coexistence"}:
            errors.append(f"{where}: bad expected")
        if not isinstance(r["attribute"], str) or not r["attribute"]:
            errors.append(f"{where}: attribute missing")
        evs = {}
        for side, suffix in (("first", "a"), ("second", "b")):
            ev = r[side]
            keys = set(ev)
            want = EVENT_KEYS | ({"speaker"} if ev.get("role") == "participant" else set())
            if keys != want:
                errors.append(f"{where}: {side} keys differ: {sorted(keys ^ want)}")
            if ev.get("event_id") != f"{pid}-{suffix}":
                errors.append(f"{where}: {side} event_id {ev.get('event_id')}")
            if ev.get("tenant_id") != "t-pairs2":
                errors.append(f"{where}: {side} tenant_id")
            if ev.get("role") not in ROLES:
                errors.append(f"{where}: {side} role {ev.get('role')}")
            if ev.get("role") == "participant" and not ev.get("speaker"):
                errors.append(f"{where}: participant without speaker")
            if ev.get("scope") not in SCOPES:
                errors.append(f"{where}: {side} scope {ev.get('scope')}")
            if not ev.get("content", "").strip():
                errors.append(f"{where}: {side} empty content")
            try:
                t = datetime.fromisoformat(ev["occurred_at"])
                if t.tzinfo is None:
                    errors.append(f"{where}: {side} occurred_at lacks offset")
                evs[side] = t
            except Exception as e:
                errors.append(f"{where}: {side} occurred_at: {e}")
            roles[ev.get("role")] += 1
        a, b = r["first"], r["second"]
        for t_ in {a.get("content", "").strip().lower(), b.get("content", "").strip().lower()}:
            texts[t_] += 1
        if a.get("content", "").strip().lower() == b.get("content", "").strip().lower() and r["family"] != "repetition":
            errors.append(f"{where}: identical messages outside the repetition family")
        if a.get("owner_id") != b.get("owner_id"):
            errors.append(f"{where}: owner differs")
        if a.get("owner_id") != pid:
            errors.append(f"{where}: owner_id should equal pair_id")
        if a.get("owner_id") in owners:
            errors.append(f"{where}: owner reused")
        owners.add(a.get("owner_id"))
        if a.get("scope") != b.get("scope"):
            errors.append(f"{where}: scope differs")
        scopes[a.get("scope")] += 1
        if len(evs) == 2:
            gap = evs["second"] - evs["first"]
            if not (timedelta(hours=1) <= gap <= timedelta(days=60)):
                errors.append(f"{where}: gap {gap} outside 1h..60d")
            if gap < timedelta(hours=6) and a["conversation_id"] != b["conversation_id"]:
                warns.append(f"{where}: short gap but different conversations")
        if a.get("role") != "user" and a.get("role") != "participant":
            errors.append(f"{where}: first message must be user or participant")
        if not word_in(r["old_value"], a.get("content", "")):
            errors.append(f"{where}: old_value {r['old_value']!r} not a whole word of first")
        if r["new_value"] is not None and not word_in(r["new_value"], b.get("content", "")):
            errors.append(f"{where}: new_value {r['new_value']!r} not a whole word of second")
        fam[r["family"]] += 1
        exp[r["expected"]] += 1
        famexp[(r["family"], r["expected"])] += 1
        # ---- lint: wording fits the family
        f, second = r["family"], b.get("content", "")
        if r["expected"] == "contradiction":
            for pat, what in ((UPDATE_CUES, "update cue"), (HEDGES, "hedge"), (CONDITIONS, "condition")):
                m = lint_search(pat, second)
                if m:
                    warns.append(f"{where}: contradiction second has {what} {m.group(0)!r}")
        for pat, what in ((HEDGES, "hedge"), (CONDITIONS, "condition")):
            m = lint_search(pat, a.get("content", ""))
            if m:
                warns.append(f"{where}: first message has {what} {m.group(0)!r}")
        if r["expected"] == "supersedence":
            for pat, what in ((HEDGES, "hedge"), (CONDITIONS, "condition")):
                m = lint_search(pat, second)
                if m:
                    warns.append(f"{where}: supersedence second has {what} {m.group(0)!r}")
        if f == "hedged_second" and not re.search(HEDGES, second, re.I):
            warns.append(f"{where}: hedged_second without a hedge or speech-act cue")
        if f == "conditional_second" and not re.search(CONDITIONS, second, re.I):
            warns.append(f"{where}: conditional_second without a condition marker")
        if f == "assistant_second" and b.get("role") != "assistant":
            errors.append(f"{where}: assistant_second needs role assistant")
        if f != "assistant_second" and b.get("role") == "assistant":
            errors.append(f"{where}: assistant role outside assistant_second")
        if f in ("update_from_to", "update_different_predicate", "negative_update") and not word_in(r["old_value"], second):
            # negative updates may name the thing with another form ("smoke"/"smoking")
            warns.append(f"{where}: {f} second does not name old_value {r['old_value']!r}")
        if f == "update_verb_only" and word_in(r["old_value"], second):
            warns.append(f"{where}: update_verb_only second names the old value")
        if f in ("hedged_second", "conditional_second", "reported_second", "other_subject", "unrelated",
                 "multi_valued", "repetition") and r["new_value"] is not None and r["old_value"].lower() == r["new_value"].lower() \
                and f in ("multi_valued",):
            warns.append(f"{where}: multi_valued with identical values")
    for t, c in texts.items():
        if c > 1:
            errors.append(f"{path.name}: message text used in {c} pairs: {t[:70]!r}")
    return recs, errors, warns, dict(fam=fam, exp=exp, roles=roles, scopes=scopes, famexp=famexp)


def main(argv):
    strict = "--strict" in argv
    files = [Path(a) for a in argv if not a.startswith("--")] or [ROOT / "pairs_dev.jsonl", ROOT / "pairs_heldout.jsonl"]
    all_errors, all_warns, loaded = [], [], {}
    for p in files:
        if not p.exists():
            all_errors.append(f"{p}: missing"); continue
        recs, errors, warns, counts = check_file(p)
        loaded[p.name] = recs
        all_errors += errors; all_warns += warns
        total, per_family = MINIMUM.get(p.name, (0, 0))
        print(f"== {p.name}: {len(recs)} pairs")
        if len(recs) < total:
            all_errors.append(f"{p.name}: {len(recs)} pairs, need {total}")
        print("  expected:", dict(sorted(counts["exp"].items())))
        print("  scopes:  ", dict(sorted(counts["scopes"].items())))
        print("  roles (events):", dict(sorted(counts["roles"].items())))
        print("  families:")
        for f in EXPECTED:
            c = counts["fam"].get(f, 0)
            print(f"    {f:28s} {c:4d}  -> {EXPECTED[f]}")
            if c < per_family:
                all_errors.append(f"{p.name}: family {f} has {c}, need {per_family}")
    if len(loaded) == 2:
        (n1, r1), (n2, r2) = loaded.items()
        t1 = {ev["content"].strip().lower() for _, r in r1 for ev in (r["first"], r["second"])}
        t2 = {ev["content"].strip().lower() for _, r in r2 for ev in (r["first"], r["second"])}
        for t in t1 & t2:
            all_errors.append(f"message text in both files: {t[:70]!r}")
        v1 = {v.lower() for _, r in r1 for v in (r["old_value"], r["new_value"]) if v}
        v2 = {v.lower() for _, r in r2 for v in (r["old_value"], r["new_value"]) if v}
        shared = sorted(v1 & v2)
        print(f"== values shared by dev and heldout ({len(shared)}): {', '.join(shared)}")
        sp1 = {ev.get("speaker") for _, r in r1 for ev in (r["first"], r["second"])} - {None}
        sp2 = {ev.get("speaker") for _, r in r2 for ev in (r["first"], r["second"])} - {None}
        if sp1 & sp2:
            all_errors.append(f"speaker names in both files: {sorted(sp1 & sp2)}")
    for w in all_warns:
        print("WARN", w)
    for e in all_errors:
        print("ERROR", e)
    print(f"{len(all_errors)} errors, {len(all_warns)} warnings")
    return 1 if all_errors or (strict and all_warns) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
"""Emit events.jsonl / questions.jsonl from the hand-written conversation data
in ch1.py, ch2.py, ch3.py.  Message text and questions are all hand-written in
those files; this script only assigns ids and timestamps and resolves evidence
selectors ("s05:substring" -> the unique message of session 5 containing it,
or "s05#11" -> turn 11 of session 5)."""
import json, random, re, sys, importlib, os
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
TENANT = "t-convh"

def parse_session(block):
    turns = []
    for raw in block.strip("\n").split("\n"):
        line = raw.strip()
        if not line:
            continue
        m = re.match(r"^([AB]): (.*)$", line)
        if not m:
            raise ValueError("bad line: %r" % line)
        who, text = m.group(1), m.group(2)
        img = None
        if " || IMG: " in text:
            text, img = text.split(" || IMG: ", 1)
        if not text.strip() or text.strip().startswith("||"):
            raise ValueError("empty content: %r" % line)
        turns.append((who, text.strip(), img.strip() if img else None))
    return turns

def build(mod):
    C = mod.CONV
    cid = C["id"]; tz = ZoneInfo(C["tz"])
    rng = random.Random(cid)
    people = {"A": C["A"], "B": C["B"]}
    owner = C["A"][0]
    events, by_session = [], {}
    for si, (start, block) in enumerate(C["sessions"], 1):
        sid = "%s-s%02d" % (cid, si)
        t = datetime.fromisoformat(start).replace(tzinfo=tz)
        turns = parse_session(block)
        by_session[si] = []
        for ti, (who, text, img) in enumerate(turns, 1):
            if ti > 1:
                t = t + timedelta(minutes=rng.randint(1, 6), seconds=rng.randint(0, 59))
            pid, pname = people[who]
            ev = {
                "event_id": "%s-t%02d" % (sid, ti),
                "tenant_id": TENANT,
                "owner_id": owner,
                "scope": "personal",
                "conversation_id": cid,
                "session_id": sid,
                "role": "user" if who == "A" else "participant",
                "speaker": pname,
                "speaker_id": pid,
                "content": text,
                "occurred_at": t.replace(microsecond=0).isoformat(),
            }
            if img:
                ev["attachments"] = [{"kind": "image", "caption": img}]
            events.append(ev)
            by_session[si].append(ev)
    def resolve(sel):
        m = re.match(r"^s(\d+)#(\d+)$", sel)
        if m:
            return by_session[int(m.group(1))][int(m.group(2)) - 1]["event_id"]
        m = re.match(r"^s(\d+):(.+)$", sel)
        if not m:
            raise ValueError("bad selector " + sel)
        si, sub = int(m.group(1)), m.group(2).lower()
        hits = [e for e in by_session[si]
                if sub in (e["content"] + " " + " ".join(a["caption"] for a in e.get("attachments", []))).lower()]
        if len(hits) != 1:
            raise ValueError("%s selector %r matched %d messages" % (cid, sel, len(hits)))
        return hits[0]["event_id"]
    errors = []
    def safe(sel):
        try:
            return resolve(sel)
        except ValueError as ex:
            errors.append(str(ex)); return None
    questions = []
    for qi, q in enumerate(C["questions"], 1):
        cat, question, answer, ev = q
        questions.append({
            "question_id": "%s-q%03d" % (cid, qi),
            "conversation_id": cid,
            "owner_id": owner,
            "tenant_id": TENANT,
            "scope": "personal",
            "category": cat,
            "question": question,
            "answer": answer,
            "evidence": [safe(s) for s in ev],
            "asked_at": C["asked_at"],
        })
    if errors:
        raise SystemExit("\n".join(errors))
    return events, questions

def main():
    all_ev, all_q = [], []
    for name in ["ch1", "ch2", "ch3"]:
        if not os.path.exists(os.path.join(HERE, name + ".py")):
            continue
        e, q = build(importlib.import_module(name))
        all_ev += e; all_q += q
    with open(os.path.join(OUT, "events.jsonl"), "w") as f:
        for e in all_ev:
            f.write(json.dumps(e, ensure_ascii=False) + "\n")
    with open(os.path.join(OUT, "questions.jsonl"), "w") as f:
        for q in all_q:
            f.write(json.dumps(q, ensure_ascii=False) + "\n")
    print("wrote", len(all_ev), "events,", len(all_q), "questions")

if __name__ == "__main__":
    main()

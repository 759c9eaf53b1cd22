#!/usr/bin/env python3
"""Build events.jsonl and questions.jsonl from the hand-written source/cdN.txt files.

Source format (one file per conversation):
  @conv cd1                      conversation id
  @tz Europe/London              IANA zone used for the message timestamps
  @owner P priya Priya           letter, speaker_id, display name of the owner (role "user")
  @other T tomas Tomás           letter, speaker_id, display name of the second person ("participant")
  @asked 2023-10-02T10:00        local time at which the questions are asked
  # s01 2023-01-08 19:12         session header: number, local date and start time
  P: message text [img: caption] {label}
  === QUESTIONS
  sh | question | answer | label label ...      (sh/mh/tm/od/un; "-" = no evidence)
Labels are only a device to tie questions to messages; they are not part of the output.
"""
import json
import random
import re
import sys
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

SRC = Path(__file__).resolve().parent
OUT = SRC.parent
CATS = {"sh": "single_hop", "mh": "multi_hop", "tm": "temporal", "od": "open_domain", "un": "unanswerable"}
TENANT = "t-conv"


def parse(path):
    meta, sessions, questions = {}, [], []
    in_q = False
    for ln, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("=== QUESTIONS"):
            in_q = True
            continue
        if in_q:
            parts = [p.strip() for p in line.split("|")]
            if len(parts) != 4 or parts[0] not in CATS:
                sys.exit(f"{path}:{ln}: bad question line")
            labels = [] if parts[3] == "-" else parts[3].split()
            questions.append((CATS[parts[0]], parts[1], parts[2], labels, ln))
            continue
        if line.startswith("@"):
            key, _, val = line[1:].partition(" ")
            meta[key] = val.strip()
            continue
        m = re.match(r"^# s(\d\d) (\d{4}-\d\d-\d\d) (\d\d:\d\d)$", line)
        if m:
            sessions.append({"num": int(m.group(1)), "start": f"{m.group(2)} {m.group(3)}", "msgs": []})
            continue
        m = re.match(r"^([A-Z]): (.+)$", line)
        if not m:
            sys.exit(f"{path}:{ln}: cannot parse: {line}")
        letter, text = m.group(1), m.group(2)
        label = None
        lm = re.search(r"\s*\{(\w+)\}\s*$", text)
        if lm:
            label = lm.group(1)
            text = text[: lm.start()]
        caption = None
        im = re.search(r"\s*\[img: ([^\]]+)\]", text)
        if im:
            caption = im.group(1).strip()
            text = (text[: im.start()] + text[im.end():]).strip()
        text = text.strip()
        if not text:
            sys.exit(f"{path}:{ln}: empty content")
        sessions[-1]["msgs"].append({"letter": letter, "text": text, "label": label, "caption": caption, "ln": ln})
    return meta, sessions, questions


def build(path):
    meta, sessions, questions = parse(path)
    conv = meta["conv"]
    tz = ZoneInfo(meta["tz"])
    people = {}
    for key, role in (("owner", "user"), ("other", "participant")):
        letter, sid, *name = meta[key].split()
        people[letter] = {"role": role, "speaker_id": sid, "speaker": " ".join(name)}
    owner_id = people[meta["owner"].split()[0]]["speaker_id"]
    events, label_to_id = [], {}
    for s in sessions:
        rng = random.Random(f"{conv}-{s['num']}")
        t = datetime.strptime(s["start"], "%Y-%m-%d %H:%M").replace(tzinfo=tz)
        t = t + timedelta(seconds=rng.randint(0, 50))
        sess_id = f"{conv}-s{s['num']:02d}"
        for i, msg in enumerate(s["msgs"], 1):
            if i > 1:
                t = t + timedelta(seconds=rng.randint(35, 230))
            p = people[msg["letter"]]
            eid = f"{sess_id}-t{i:02d}"
            ev = {
                "event_id": eid,
                "tenant_id": TENANT,
                "owner_id": owner_id,
                "scope": "personal",
                "conversation_id": conv,
                "session_id": sess_id,
                "role": p["role"],
                "speaker": p["speaker"],
                "speaker_id": p["speaker_id"],
                "content": msg["text"],
                "occurred_at": t.isoformat(timespec="seconds"),
            }
            if msg["caption"]:
                ev["attachments"] = [{"kind": "image", "caption": msg["caption"]}]
            events.append(ev)
            if msg["label"]:
                if msg["label"] in label_to_id:
                    sys.exit(f"{path}:{msg['ln']}: duplicate label {msg['label']}")
                label_to_id[msg["label"]] = eid
    asked = datetime.strptime(meta["asked"], "%Y-%m-%dT%H:%M").replace(tzinfo=tz)
    qs = []
    for n, (cat, q, a, labels, ln) in enumerate(questions, 1):
        ev_ids = []
        for lab in labels:
            if lab not in label_to_id:
                sys.exit(f"{path}:{ln}: unknown label {lab}")
            ev_ids.append(label_to_id[lab])
        if cat == "unanswerable" and ev_ids:
            sys.exit(f"{path}:{ln}: unanswerable with evidence")
        if cat != "unanswerable" and not ev_ids:
            sys.exit(f"{path}:{ln}: answerable question without evidence")
        qs.append({
            "question_id": f"{conv}-q{n:03d}",
            "conversation_id": conv,
            "owner_id": owner_id,
            "tenant_id": TENANT,
            "scope": "personal",
            "category": cat,
            "question": q,
            "answer": a,
            "evidence": ev_ids,
            "asked_at": asked.isoformat(timespec="seconds"),
        })
    return events, qs


def main():
    all_events, all_qs = [], []
    for path in sorted(SRC.glob("cd*.txt")):
        ev, qs = build(path)
        all_events += ev
        all_qs += qs
    with open(OUT / "events.jsonl", "w", encoding="utf-8") as f:
        for e in all_events:
            f.write(json.dumps(e, ensure_ascii=False) + "\n")
    with open(OUT / "questions.jsonl", "w", encoding="utf-8") as f:
        for q in all_qs:
            f.write(json.dumps(q, ensure_ascii=False) + "\n")
    print(f"wrote {len(all_events)} events, {len(all_qs)} questions")


if __name__ == "__main__":
    main()

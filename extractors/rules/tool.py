"""Tool output: result fields as facts of the tool, and relayed sources as unverified reports.

A tool message is a measurement or a lookup, not a conversation: its ``key=value``, ``key: value``
and JSON fields are claims of the tool (subject: the tool's name), except fields that only name what
was asked (the query, ids, timings), log lines and progress bars. A tool relaying someone else (a
search hit, a scraped page, a forwarded mail) does not vouch for it: that becomes "<source> reports
<statement>", UNVERIFIED.
"""

from __future__ import annotations

import json
import re
from typing import Final

from extractors.rules.lexicon import (
    BODY_KEYS,
    ENVELOPE_KEYS,
    RESULT_KEYS,
    TOOL_ACK_KEYS,
    TOOL_INPUT_KEYS,
    TOOL_OUTPUT_KEYS,
    TOOL_QUERY_KEYS,
    TOOL_SKIP_KEYS,
)
from extractors.rules.proto import Proposal, Proto, snake
from schemas.claims import Quantity
from schemas.enums import EpistemicType, NodeType, SourceType
from schemas.events import ConversationEvent

I: Final = re.IGNORECASE  # noqa: E741 - reads like a regex flag


# --- relayed sources ------------------------------------------------------------------------------

_FORWARDED: Final = r"(?:forwarded|fwd)\s+(?:e-?mail|mail|promo(?:tion)?|message|newsletter|offer|tip|flyer)\b"
_RELAY: Final = re.compile(
    r"^\s*(?P<src>[\w .\-/]{1,60}?)\s*\((?P<paren>[^()\n]{0,120}?\b(?:unverified|unofficial|third[- ]party|"
    r"external|forwarded|scraped|user[- ]generated|forum|blog|fan|community|reddit|comments?|reviews?)\b"
    r"[^()\n]{0,80})\)\s*:\s*(?P<body>.+)$|"
    r"^\s*(?P<src2>(?:forwarded email|scraped[_ ]page|web[_ ]search(?: result)?|rss(?: item)?|review[_ ]site|"
    r"news\.fetch))\s*(?:\((?P<paren2>[^()\n]{0,120})\))?\s*:\s*(?P<body2>.+)$|"
    r"^\s*(?P<src3>[\w.\-/]{1,40})\s+" + _FORWARDED + r"[^:\n]{0,60}:\s*(?P<body3>\S.*)$",
    I,
)
#: A search rank, not a source ("top result", "first hit", "result 2").
_RANK_SOURCE: Final = re.compile(
    r"^(?:(?:top|first|second|third|best|#?\d+(?:st|nd|rd|th)?)\s+)?"
    r"(?:result|hit|match|snippet|item|answer)s?(?:\s+#?\d+)?$",
    I,
)
#: The first line of a relayed message spread over several lines ("mail.forward (forwarded email)").
_RELAY_HEAD: Final = re.compile(
    r"[ \t]*(?P<src>[\w .\-/]{1,60}?)\s*\([^()\n]{0,120}?\b(?:unverified|unofficial|third[- ]party|external|"
    r"forwarded|scraped|user[- ]generated)\b[^()\n]{0,80}\)\s*:?[ \t]*$|"
    r"[ \t]*(?P<src2>[\w.\-/]{1,40})\s+" + _FORWARDED + r"[^:\n]{0,60}:?[ \t]*$",
    I,
)
#: A relayed statement's envelope ("From Harbour Gear — ", "Fwd: "): who sent it, not what it says.
_RELAY_ENVELOPE: Final = re.compile(
    r"^(?:(?:fwd?|fw|re)\s*:\s*)*(?:from:?\s+[^\u2014\u2013:\n]{1,60}?\s*(?:[\u2014\u2013:]|\s-)\s*)?", I
)
_RELAY_STATEMENT: Final = re.compile(r"\"(?P<q>[^\"\n]{3,300})\"|\u201c(?P<q2>[^\u201d\n]{3,300})\u201d")


# --- result fields --------------------------------------------------------------------------------

#: A command-style first line: a dotted or underscored tool name, then its arguments ("ci.build_status build=482").
_COMMAND_HEAD: Final = re.compile(r"^\s*[a-z][\w-]*(?:[._][\w-]+)+\s+[A-Za-z_][\w.\-]*=")
_ID_KEY: Final = re.compile(r"(?:^|_)(?:id|uuid|version|phone|zip|postcode|year|date|sha|hash|port)$")
#: A value runs to a space, comma or semicolon, except a thousands comma ("lowest_price=¥1,380,000"); a
#: day word takes the time after it ("eta=today 18:00") and an amount its currency code ("result=291.50 EUR").
_KV_EQ: Final = re.compile(
    r"(?P<key>[A-Za-z_][\w.\-]{0,40})=(?P<val>\"[^\"\n]*\"|"
    r"(?:today|tonight|tomorrow|yesterday)\s+\d{1,2}:\d{2}(?::\d{2})?(?:\s*[ap]m\b)?|"
    r"[+-]?\d[\d,]*(?:\.\d+)?\s(?-i:[A-Z]{3})(?![\w=])|(?:[^\s,;]|,(?=\d{3}(?!\d)))+)",
    I,
)
_KV_COLON: Final = re.compile(r"^\s*(?:[-*]\s+)?(?P<key>[A-Za-z][\w .\-/]{0,40}?)\s*:\s+(?P<val>\S.*?)\s*$")
_LOGLIKE: Final = re.compile(
    r"^\s*(?:\[?\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}|\[?(?:DEBUG|INFO|WARN|WARNING|ERROR|TRACE|FATAL)\b)"
)
_FORMATTING: Final = re.compile(r"^[\s\-=*_|+#>`~.:]*$")
_TOOL_NUMBER: Final = re.compile(r"^(?P<n>[+-]?\d+(?:\.\d+)?)\s*(?P<u>[A-Za-z%\u00b0][A-Za-z/\u00b0]*)?$")
#: Progress bars ("[=====>   ] 50%", "████░░ 80%") and step counters ("step 3/5", "Downloading... 3/10").
_PROGRESS_LINE: Final = re.compile(
    r"[\[|][=#>\-.\u2588\u2591\u2592\u2593 ]{3,}[\]|]|[\u2588\u2591\u2592\u2593]{3,}|"
    r"\d\s*(?:[KMGT]i?B|[kMG]?bytes|[kMG]?b)/s(?:ec)?\b|\beta[=:]?\s*(?:\d+:\d{2}:\d{2}|\d+\s*(?:s|sec|m|min)\b)|^\s*(?:rsync|wget|curl|scp|pip|npm)\b|"
    r"\b(?:sent|received|transferred|copied|downloaded|uploaded)\s+[\d,.]+\s*(?:[KMGT]i?B|bytes|files)\b|"
    r"^\s*(?:step|stage|batch|chunk|page)\s+\d+\s*/\s*\d+|^\s*\w+ing\b[^=:\n]*?(?:\.{2,}|\u2026)\s*\d+\s*(?:/\s*\d+|%)",
    I,
)
#: A key naming a reference ("patient_ref", "order_no"): what the record is, like a bare noun.
_REF_KEY: Final = re.compile(r"_(?:ref|no|number|code|id)$")
_CODE_VALUE: Final = re.compile(r"^#?(?=[\w\-./]*\d)(?=[\w\-./]*[A-Za-z])[A-Za-z0-9][\w\-./]*$")
#: The tool reports a result of its own, so the other fields it echoes were its inputs.
_OUTPUT_FIELD: Final = re.compile(r"(?:^|[\s{,\"])(?:" + "|".join(sorted(TOOL_OUTPUT_KEYS)) + r")\"?\s*[=:]", I)
_MEASURE_VALUE: Final = re.compile(r"^[+-]?\d[\d,]*(?:\.\d+)?\s*(?:%|[A-Za-z/\u00b0]{1,5})?$")


def _is_selector(key: str, value: str) -> bool:
    """Whether the first ``key=value`` of a line only names the thing queried (``warehouse=north-2 stock=412``).

    Decided by shape: tools echo what they were asked about before the result fields, under a bare
    one-word key (results are usually compound: ``crash_rate``, ``p99_latency_ms``) with a non-numeric
    value. Later pairs are results even when they look like codes (``region=eu-west-1``).
    """
    k = key.lower()
    named = k.isalpha() or _REF_KEY.search(k) is not None
    return named and k not in RESULT_KEYS and _MEASURE_VALUE.match(value) is None


def _is_code(value: str) -> bool:
    """A record code: letters and digits in one token ("KOR201", "S-1042", "RTM-88213")."""
    return _CODE_VALUE.match(value) is not None


def _line_spans(text: str) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    pos = 0
    for line in text.split("\n"):
        out.append((pos, pos + len(line)))
        pos += len(line) + 1
    return out


# --- proposals ------------------------------------------------------------------------------------


def propose_tool(event: ConversationEvent) -> list[Proposal]:
    """Proposals for a tool message: its result fields, or what a relayed source says."""
    content = event.text
    tool_name = event.speaker or (event.metadata.get("tool_name") if event.metadata else None)
    subject = str(tool_name) if isinstance(tool_name, str) and tool_name.strip() else "tool"
    out: list[Proposal] = []
    relay = _RELAY.match(content)
    if relay is not None:
        _relay(out, relay)
        return out
    lines = _line_spans(content)
    head = next(((ls, le) for ls, le in lines if content[ls:le].strip()), None)
    if head is not None and ("forward" in content or "(" in content):
        hm = _RELAY_HEAD.match(content, head[0], head[1])
        if hm is not None:
            _relay_lines(out, hm.group("src") or hm.group("src2"), content, lines, head)
            return out
    for ls, le in lines[1:]:
        later = _RELAY.match(content[ls:le])
        if later is not None:  # "web_search(...)" then "top result (unofficial fan page): ..."
            _relay(out, later)
    if out:
        return out
    inputs = _OUTPUT_FIELD.search(content) is not None
    stripped = content.strip()
    if stripped.startswith("{"):
        try:
            data = json.loads(stripped)
        except ValueError:
            data = None
        if isinstance(data, dict):
            scalars = [k for k, v in data.items() if not isinstance(v, dict | list) and v is not None]
            for key, value in data.items():
                if isinstance(value, dict | list) or value is None:
                    continue
                if (key == scalars[0] and len(scalars) > 2 and isinstance(value, str) and _is_code(value)
                        and _is_selector(key, value)):  # fmt: skip
                    continue  # {"shipment": "RTM-88213", "status": ...}: the record's code, not a result
                lit = json.dumps(value, ensure_ascii=False)
                m = re.search(re.escape(json.dumps(key, ensure_ascii=False)) + r"\s*:\s*" + re.escape(lit), content)
                if m is None:
                    continue
                val = value if isinstance(value, str) else lit
                _pair(out, subject, key, str(val), m.group(), inputs=inputs)
            return out
    multi = len([1 for ls, le in lines if content[ls:le].strip()]) > 1
    # a bare first line names the tool, and the "key: value" lines under it are one record's fields
    record = multi and head is not None and not _KV_EQ.search(content, head[0], head[1]) and \
        _KV_COLON.match(content, head[0], head[1]) is None
    fields, fields_left = 0, sum(1 for ls, le in lines if _KV_COLON.match(content[ls:le]))
    for ls, le in lines:
        line = content[ls:le]
        if not line.strip() or _LOGLIKE.search(line) or _FORMATTING.match(line):
            continue
        if _PROGRESS_LINE.search(line):
            continue  # progress bars and step counters are logs, not results
        pairs = list(_KV_EQ.finditer(line))
        if pairs:
            # "ci.build_status build=482" over "key: value" lines: the header names the record queried
            header = multi and head is not None and ls == head[0] and _COMMAND_HEAD.match(line) is not None
            selected = False
            for i, pm in enumerate(pairs):
                key, val = pm.group("key"), pm.group("val").strip('"')
                if i == 0 and len(pairs) > 1 and _is_selector(key, val):
                    selected = True
                    continue
                if selected and i == 1 and len(pairs) > 2 and _is_code(val) and _is_selector(key, val):
                    continue  # "student=S-1042 course=KOR201 midterm=87": both name the record
                if header and (_ID_KEY.search(key.lower()) or (key.isalpha() and key.lower() not in RESULT_KEYS)):
                    continue
                _pair(out, subject, key, val, pm.group(), inputs=inputs)
            continue
        cm = _KV_COLON.match(line)
        if cm is not None:
            key, val = cm.group("key"), cm.group("val")
            if record and not fields and fields_left > 2 and _is_selector(key.strip(), val):
                fields += 1
                continue  # "invoice_lookup" then "invoice: INV-20931": the record the fields are of
            fields += 1
            _pair(out, subject, key, val, line.strip(), inputs=inputs)
    return out


def _relay(out: list[Proposal], m: re.Match[str]) -> None:
    """A tool relaying an outside source (search hit, scraped page, forwarded mail): what the source *says*.

    The statement is not the tool's own measurement, so it is typed UNVERIFIED with source
    EXTERNAL_DOCUMENT; the claim is "<source> reports <statement>" rather than the statement's
    own triple, because nothing vouches for it.
    """
    src = (m.group("src") or m.group("src2") or m.group("src3") or "source").strip()
    if m.group("paren") and _RANK_SOURCE.match(src):  # "top result (unofficial fan page)": the page says it
        src = m.group("paren").strip()
    body = m.group("body") or m.group("body2") or m.group("body3") or ""
    statements = [q.group("q") or q.group("q2") for q in _RELAY_STATEMENT.finditer(body)] or [body]
    for st in statements:
        _relay_statement(out, src, st)


def _relay_lines(
    out: list[Proposal], src: str, content: str, lines: list[tuple[int, int]], head: tuple[int, int]
) -> None:
    """A relayed message over several lines: its body (or subject) lines are what the source says.

    Envelope fields (from, to, date, ...) only say where it came from, and a subject line is a
    headline, used only when there is no body.
    """
    bodies: list[tuple[str, str]] = []  # (statement, quote)
    subjects: list[tuple[str, str]] = []
    for ls, le in lines:
        if ls <= head[0]:
            continue
        line = content[ls:le].strip()
        if not line or _FORMATTING.match(line) or _LOGLIKE.search(line):
            continue
        cm = _KV_COLON.match(line)
        key = cm.group("key").strip().lower() if cm is not None else ""
        if key in ENVELOPE_KEYS:
            continue
        text = cm.group("val") if cm is not None and key in BODY_KEYS | {"subject"} else line
        # the quote runs from the header (which names the source) to the statement's line
        (subjects if key == "subject" else bodies).append((text, content[head[0] : le].strip()))
    for st, quote in bodies or subjects:
        _relay_statement(out, src.strip(), st, quote)


def _relay_statement(out: list[Proposal], src: str, statement: str, quote: str | None = None) -> None:
    text = _RELAY_ENVELOPE.sub("", statement.strip()).strip().rstrip(".!").strip()
    if not text or len(text) > 200 or len(text.split()) < 2:
        return
    proto = Proto(src, "reports", text, NodeType.FACT, epistemic=EpistemicType.UNVERIFIED)
    proto.metadata["relayed_source"] = src
    proto.metadata["reported_source"] = src
    out.append(Proposal(proto, quote or text, None, False, SourceType.EXTERNAL_DOCUMENT))


def _pair(out: list[Proposal], subject: str, key: str, value: str, quote: str, *, inputs: bool = False) -> None:
    pred = snake(key)
    value = value.strip()
    if not pred or not value or pred in TOOL_SKIP_KEYS or len(value) > 200:
        return
    if inputs and pred in TOOL_INPUT_KEYS:
        return
    if pred in TOOL_QUERY_KEYS or (pred in TOOL_ACK_KEYS and value.lower() in ("true", "false", "yes", "1")):
        return
    # Status/state values are reported results ("status=failed"), typed FACT like other fields.
    proto = Proto(subject, pred, value, NodeType.FACT)
    num = _TOOL_NUMBER.match(value)
    if num is not None and _ID_KEY.search(pred) is None:
        proto.quantity = Quantity(value=num.group("n"), unit=num.group("u") or "1", source_text=num.group("n"))
    out.append(Proposal(proto, quote, None, False))

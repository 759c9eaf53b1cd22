"""Operation records written by an earlier engine stay valid and are written again byte for byte
(fields added to the contracts since, see ``ADDED_NODE_FIELDS``, aside).

``tests/data/legacy_log`` holds a varied reducer workload's inputs and the records the engine of
the time produced for them (see ``make_fixture.py`` there). The log is append-only and every
record is checksummed over its canonical JSON: if float spelling, key order, escaping, datetime
text or id derivation changed, replaying a log or re-applying redelivered inputs would write
records that differ from the stored ones. Expectations are the stored bytes, never the code
under test.
"""

from __future__ import annotations

import gzip
import json
from datetime import datetime
from functools import cache
from pathlib import Path

import pytest

from engine.canonical_fast import operation_text, verify_fast
from engine.config import ENGINE_V1, POLICIES, EngineConfig
from engine.promotion import apply_due_promotions
from engine.reducer import Reducer
from engine.store import InMemoryStateStore
from schemas.claims import ExtractionResult
from schemas.commands import CommandBase, parse_command
from schemas.errors import ChecksumMismatch
from schemas.operations import Operation, load_operation, verify_operation

DATA = Path(__file__).resolve().parents[2] / "data" / "legacy_log"
Item = ExtractionResult | CommandBase | datetime


def _lines(name: str) -> list[str]:
    text = gzip.decompress((DATA / name).read_bytes()).decode("utf-8")
    return text.removesuffix("\n").split("\n")  # not splitlines(): records hold U+2028 and friends


@cache
def _records() -> tuple[str, ...]:
    return tuple(_lines("operations.jsonl.gz"))


def _inputs() -> list[Item]:
    items: list[Item] = []
    for line in _lines("inputs.jsonl.gz"):
        entry = json.loads(line)
        if entry["kind"] == "promotions":
            items.append(datetime.fromisoformat(entry["as_of"]))
        elif entry["kind"] == "extraction":
            items.append(ExtractionResult.model_validate(entry["data"]))
        else:
            items.append(parse_command(entry["data"]))
    return items


def test_the_fixture_is_the_varied_workload_it_claims_to_be() -> None:
    records = _records()
    kinds = {json.loads(r)["op_type"] for r in records}
    assert len(records) > 4000 and len(kinds) >= 11
    text = "\n".join(records)
    for spelling in ("1e-07", "1e-05", "5e-324", "1e+16", "1e+22", "1.7976931348623157e+308", "-0.0",
                     "1180591620717411303424", "\\u0000", "\u2028", "😀", "東京"):
        assert spelling in text, spelling


def test_every_stored_record_verifies_and_is_its_canonical_text() -> None:
    for record in _records():
        op = load_operation(record)  # parses and verifies with the reference (schemas.operations)
        assert verify_operation(op) is op
        assert verify_fast(op) is op
        assert op.canonical() == record  # the stored text is the reference encoder's
        assert operation_text(op) == record


def test_a_tampered_record_fails_both_verifications() -> None:
    record = next(r for r in _records() if '"op_type":"REINFORCE"' in r)
    op = Operation.model_validate_json(record)
    tampered = op.model_copy(update={"payload": {**op.payload, "gamma": 0.5 + float(str(op.payload["gamma"]))}})
    for verify in (verify_operation, verify_fast):
        with pytest.raises(ChecksumMismatch):
            verify(tampered)


#: Fields added to the node snapshot since the fixture was written (``schemas.common.added_field``): a
#: re-run may write them where the old engine had nothing to write (the speaker's display name); every
#: other byte of every record must be what was stored.
ADDED_NODE_FIELDS = frozenset({"speaker", "event_dates"})


def _without_added_fields(record: str) -> dict[str, object]:
    data = json.loads(record)
    data.pop("checksum")
    for side in ("before", "after"):
        if isinstance(data.get(side), dict):
            for name in ADDED_NODE_FIELDS:
                data[side].pop(name, None)
    return dict(data)


#: The policy the fixture was written under. A record names its policy (``policy_version``); a newer
#: policy may legitimately decide differently (engine_v2 fills the UNVERIFIED x USER_STATED cell, so six
#: of the fixture's claims no longer warn and start at 0.25; engine_v3 lets claims meet through the
#: attribute registry, so a second city contests or retires the first), so the stored inputs are re-run
#: under the policy that wrote them, which must still be expressible as configuration.


def test_the_current_policy_is_named_apart_from_the_fixtures() -> None:
    """Whatever the current rules decide differently is written under another policy name."""
    assert EngineConfig().policy_version != ENGINE_V1.policy_version
    assert {json.loads(r)["policy_version"] for r in _records()} >= {"engine_v1"}


def test_rerunning_the_stored_inputs_writes_the_stored_records() -> None:
    """Byte for byte, but for the fields added since: the same ids, the same text where nothing new
    applies, and the stored record exactly once the new fields are set aside."""
    # The log's records name the policy that wrote them (engine_v1); its inputs re-run under it.
    assert {json.loads(r)["policy_version"] for r in _records()} >= {"engine_v1"}
    assert POLICIES["engine_v1"] is ENGINE_V1
    reducer = Reducer(ENGINE_V1)
    assert reducer.config.trust_policy is None and reducer.config.usefulness_signals == frozenset()
    store = InMemoryStateStore()
    ops: list[Operation] = []
    for item in _inputs():
        if isinstance(item, datetime):
            ops.extend(apply_due_promotions(store, item))
        else:
            ops.extend(reducer.apply(store, item).operations)
    records = _records()
    assert len(ops) == len(records)
    identical = 0
    for n, (op, record) in enumerate(zip(ops, records, strict=True)):
        stored = json.loads(record)
        assert op.op_id == stored["op_id"], n
        text = operation_text(op)
        if text == record:
            identical += 1
            assert op.checksum == stored["checksum"], n
            continue
        assert _without_added_fields(text) == _without_added_fields(record), n
        added = {name for side in ("before", "after") for name in ADDED_NODE_FIELDS
                 if isinstance(json.loads(text).get(side), dict) and name in json.loads(text)[side]}  # fmt: skip
        assert added, f"record {n} differs without a new field"
    assert identical > len(records) // 2  # most inputs carry nothing a new field records

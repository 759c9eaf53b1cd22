"""Secrets never stored, anywhere: every table, file and output of the real embedded pipeline.

A secret of any supported family, embedded anywhere in an event (content at any position, a second
sentence, a tool output, a nested metadata value, the speaker), is absent afterwards from every
ClickHouse table (dumped through SQL: compressed columns hide text from a byte scan), from every
file of the data directory, from retrieval results and receipts, the API's responses, the
``extract`` output and dead letters — as typed and after normalisation (zero-width characters
removed, NFKC, casefold).
"""

from __future__ import annotations

import base64
import json
import re
import unicodedata
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mnemonic import Mnemonic
from test_api_support import Keys, make_client, settings_for

from epistream.cli.extract import run_extract
from epistream.runner import EmbeddedRunner
from extractors.rules import RuleExtractor
from schemas.retrieval import RetrievalMode, RetrievalRequest
from schemas.settings import Settings
from sinks.clickhouse import OperationLog
from sinks.clickhouse_schema import RECEIPTS_TABLE, TABLES
from sinks.embedding import HashEmbedder

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
_ZW = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff"))
ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


def norm(text: str) -> str:
    return unicodedata.normalize("NFKC", text.translate(_ZW)).casefold()


def _token(alphabet: str, n: int) -> st.SearchStrategy[str]:
    # always mixed: a random draw of letters alone is a word, not a token
    return st.text(alphabet=alphabet, min_size=n, max_size=n).filter(
        lambda s: any(c.isdigit() for c in s) and any(c.isalpha() for c in s)
    )


def _luhn_complete(body: str) -> str:
    total = 0
    for i, c in enumerate(reversed(body)):
        d = int(c)
        if i % 2 == 0:
            d = d * 2 - 9 if d * 2 > 9 else d * 2
        total += d
    return body + str((10 - total % 10) % 10)


def _iban(bban: str, country: str = "DE") -> str:
    digits = "".join(str(int(c, 36)) for c in bban + country + "00")
    return f"{country}{98 - int(digits) % 97:02d}{bban}"


_PASSWORD = st.tuples(
    st.text(alphabet="abcdefghkmnpqrstuvwxyz", min_size=3, max_size=6),
    st.sampled_from("!#$%&*-_"),
    st.integers(10, 9999),
    st.text(alphabet="ABCDEFGHKMNPQRSTUVWXYZ", min_size=1, max_size=3),
).map(lambda p: f"{p[3]}{p[0]}{p[1]}{p[2]}")

#: family -> (secret strategy, how the secret is written in a message)
FAMILIES: dict[str, tuple[st.SearchStrategy[str], list[str]]] = {
    "aws": (st.tuples(st.sampled_from(["AKIA", "ASIA"]), _token(UPPER, 16)).map("".join),
            ["aws key {s}", "AWS_ACCESS_KEY_ID={s}"]),
    "github": (_token(ALNUM, 36).map(lambda s: "ghp_" + s), ["token {s}", "GITHUB_TOKEN={s}"]),
    "openai": (_token(ALNUM, 40).map(lambda s: "sk-proj-" + s), ["use {s} for it", "OPENAI_API_KEY={s}"]),
    "stripe": (_token(ALNUM, 24).map(lambda s: "sk_live_" + s), ["stripe: {s}"]),
    "huggingface": (_token(ALNUM, 34).map(lambda s: "hf_" + s), ["hf token {s}"]),
    "slack": (st.tuples(st.integers(10**11, 10**12 - 1), _token(ALNUM, 24))
              .map(lambda p: f"xoxb-{p[0]}-{p[0]}1-{p[1]}"), ["bot token {s}"]),
    "bearer": (_token(ALNUM, 32),
               ["Authorization: Bearer {s}", "authorization: bearer {s}", "AUTHORIZATION: BEARER {s}"]),
    "url": (_PASSWORD, ["postgres://app:{s}@db.internal:5432/app", "redis://:{s}@cache:6379"]),
    "password": (_PASSWORD, ["my password is {s}", "PASSWORD: {s}", "das Passwort ist {s}", "le mot de passe est {s}",
                             "la contraseña es {s}", "creds: deploy / {s}"]),
    "pin": (st.integers(1000, 999999).map(str), ["my PIN is {s}", "door code {s}#", "el pin de la tarjeta es {s}"]),
    "card": (st.integers(10**14, 10**15 - 1).map(lambda n: _luhn_complete("4" + str(n)[:14])),
             ["card {s} exp 09/27", "visa {s}"]),
    "iban": (st.integers(10**17, 10**18 - 1).map(lambda n: _iban(str(n))), ["IBAN {s}", "transfer to {s} please"]),
    "seed": (st.binary(min_size=16, max_size=16).map(lambda b: Mnemonic("english").to_mnemonic(b)),
             ["my seed phrase is {s}", "backup: {s}"]),
    "jwt": (_token(ALNUM, 43).map(lambda sig: "eyJhbGciOiJIUzI1NiJ9." + base64.urlsafe_b64encode(b'{"sub":"u-1"}')
                                  .decode().rstrip("=") + "." + sig), ["session {s}"]),
}  # fmt: skip
#: where the sentence goes: content positions, a second sentence, a tool output, metadata, the speaker
PLACES = ["content_start", "content_end", "second_sentence", "tool_output", "metadata", "speaker"]


@st.composite
def leaks(draw: st.DrawFn) -> tuple[str, str, str, str]:
    family = draw(st.sampled_from(sorted(FAMILIES)))
    strategy, templates = FAMILIES[family]
    secret = draw(strategy)
    sentence = draw(st.sampled_from(templates)).format(s=secret)
    if draw(st.booleans()):
        sentence = sentence.upper() if family in ("aws", "card", "iban", "pin") else sentence
    place = draw(st.sampled_from(PLACES))
    return family, secret, sentence, place


def _event(i: int, sentence: str, place: str, owner: str = "o1") -> dict[str, Any]:
    event: dict[str, Any] = {
        "event_id": f"e{i}", "tenant_id": "t1", "owner_id": owner, "scope": "personal", "role": "user",
        "content": "I live in Porto and I drink oat milk.", "occurred_at": f"2026-03-01T09:{i % 60:02d}:00+00:00",
    }  # fmt: skip
    if place == "content_start":
        event["content"] = f"{sentence} — I live in Porto."
    elif place == "content_end":
        event["content"] = f"I live in Porto, by the way {sentence}"
    elif place == "second_sentence":
        event["content"] = f"I moved to Lisbon last year. {sentence}. I like it."
    elif place == "tool_output":
        event["role"] = "tool"
        event["content"] = f"$ cat notes.txt\nproject: apollo\n{sentence}\nowner: ana"
        event["metadata"] = {"tool_name": "bash"}
    elif place == "metadata":
        event["metadata"] = {"source": "email", "forwarded": {"note": sentence, "parts": [sentence]}}
    else:
        event["speaker"] = f"bot ({sentence})"[:200]
    return event


def _outputs(runner: EmbeddedRunner, lines: list[bytes], owners: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    report = runner.ingest_lines(lines, source="in.jsonl")
    out["report"] = json.dumps(report.as_dict(), default=str)
    for owner in owners:
        for query in ("password token key", "Porto", lines[0].decode("utf-8", "replace")[:300]):
            resp = runner.retrieve(RetrievalRequest(tenant_id="t1", owner_id=owner, query=query,
                                                    mode=RetrievalMode.EXPLICIT))  # fmt: skip
            out[f"retrieve:{owner}:{query[:10]}"] = resp.model_dump_json()
        out[f"world:{owner}"] = runner.world(tenant_id="t1", owner_id=owner, at=T0).model_dump_json()
    out["extract"] = json.dumps(list(run_extract([line.decode("utf-8", "replace") for line in lines], RuleExtractor())))
    return out


def _tables(log: OperationLog) -> dict[str, str]:
    dumps: dict[str, str] = {}
    for table in (*TABLES, RECEIPTS_TABLE):
        raw = log.client.raw_query(f"SELECT * FROM {log.database}.{table} FINAL FORMAT JSONEachRow")
        text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
        rows = [json.dumps(json.loads(line), ensure_ascii=False) for line in text.splitlines() if line.strip()]
        dumps[table] = text + "\n" + "\n".join(rows)
    return dumps


def _files(root: Path) -> dict[str, str]:
    return {str(p): p.read_bytes().decode("utf-8", "replace") for p in root.rglob("*") if p.is_file()}


def _leaks(secrets: list[str], parts: dict[str, str]) -> list[tuple[str, str]]:
    """Where each secret occurs; a number (a PIN) only where it stands alone, not inside an id or a score."""
    normed = {k: norm(v) for k, v in parts.items()}
    found = []
    for secret in secrets:
        number = re.compile(rf"(?<![0-9A-Za-z.]){re.escape(secret)}(?![0-9A-Za-z])") if secret.isdigit() else None
        for where, text in parts.items():
            hit = number.search(text) is not None if number else secret in text or norm(secret) in normed[where]
            if hit:
                found.append((secret, where))
    return found


@pytest.fixture
def fresh(tmp_path: Path, chdb_path: Path) -> Iterator[Any]:
    """Opens a runner over a new data directory and chDB database, as many times as asked."""
    opened: list[tuple[EmbeddedRunner, OperationLog]] = []

    def open_one() -> tuple[EmbeddedRunner, OperationLog, Path]:
        data_dir = tmp_path / uuid.uuid4().hex[:8]
        log = OperationLog.connect(None, path=chdb_path, database=f"sec_{uuid.uuid4().hex[:10]}")
        runner = EmbeddedRunner(data_dir, Settings(data_dir=data_dir, embedder="hash"), embedder=HashEmbedder(),
                                log=log, clock=lambda: T0)  # fmt: skip
        opened.append((runner, log))
        return runner, log, data_dir

    yield open_one
    for runner, log in opened:
        runner.close()
        log.close()


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(leaks(), min_size=6, max_size=12))
def test_a_secret_of_any_family_anywhere_in_an_event_is_absent_from_every_table_and_output(
    fresh: Any, cases: list[tuple[str, str, str, str]]
) -> None:
    runner, log, data_dir = fresh()
    lines = [json.dumps(_event(i, sentence, place), ensure_ascii=False).encode() for i, (_, _, sentence, place)
             in enumerate(cases)]  # fmt: skip
    lines.append(lines[0][:-3])  # a cut copy: a dead letter
    parts = _outputs(runner, lines, ["o1"])
    runner.index.commit()
    parts.update(_tables(log))
    parts.update(_files(data_dir))
    secrets = [secret for _, secret, _, _ in cases]
    assert _leaks(secrets, parts) == []


SECRETS = {
    "content": ("The password for my home router is Copper-Kettle-77! I live in Porto.", "Copper-Kettle-77!"),
    "tool": ("$ cat .env\nAPP_DB_PASSWORD=zq8Lm3Xw7Vb2Nc5R\nAPP_ENV=prod", "zq8Lm3Xw7Vb2Nc5R"),
    "key_body": (
        "pasting the key:\n-----BEGIN RSA PRIVATE KEY-----\n"
        "MIIEpAIBAAKCAQEAhP9OQ5JasEpUbph9XOIHR91IdGsXkBpA2TzgB/KZNX\n"
        "-----END RSA PRIVATE KEY-----",
        "MIIEpAIBAAKCAQEAhP9OQ5JasEpUbph9XOIHR91IdGsXkBpA2TzgB",
    ),
    "env_json": ('{"service": "mailer", "smtp_password": "Ma1ler!pfiAP9NJ"} is my config', "Ma1ler!pfiAP9NJ"),
}


def test_every_sink_and_output_of_the_api_holds_no_secret(tmp_path: Path, chdb_path: Path) -> None:
    from test_api_support import open_runner

    settings = settings_for(tmp_path / "api")
    keys = Keys()
    keys.add("writer", "t1")
    metadata_secret = "Cr0wd!Sync-55"
    speaker_secret = "ghp_Ab7Qm2Rk9Lp4Zt6Wv1Bn8Cd3Fg5Hj0Kl2Mq4Zz"
    events = [
        {"event_id": f"a-{name}", "owner_id": "ana", "scope": "personal", "role": "tool" if name == "tool" else "user",
         "content": content, "occurred_at": "2026-03-01T09:00:00+00:00"}
        for name, (content, _) in SECRETS.items()
    ]  # fmt: skip
    events.append({"event_id": "a-meta", "owner_id": "ana", "scope": "personal", "role": "user",
                   "speaker": f"deploy-bot (token {speaker_secret})", "content": "The deploy finished.",
                   "metadata": {"auth": {"username": "sync@acme.io", "password": metadata_secret}},
                   "occurred_at": "2026-03-01T09:01:00+00:00"})  # fmt: skip
    secrets = [s for _, s in SECRETS.values()] + [metadata_secret, speaker_secret]
    with open_runner(chdb_path, tmp_path / "api", settings) as runner:
        client = make_client(runner, keys, settings)
        auth = keys.auth("writer")
        bodies = [client.post("/v1/events", json={"events": events}, headers=auth).text]
        bodies.append(client.post("/v1/events", json={"events": [{**events[0], "event_id": "bad",
                                                                   "occurred_at": "2026-03-01T09:00:00"}]},
                                  headers=auth).text)  # fmt: skip
        for query in ("password router", SECRETS["content"][0]):
            resp = client.post("/v1/retrieve", json={"tenant_id": "t1", "owner_id": "ana", "query": query,
                                                     "mode": "explicit"}, headers=auth)  # fmt: skip
            bodies.append(resp.text)
            receipt = resp.json().get("receipt_id")
            if receipt:
                bodies.append(client.get(f"/v1/retrievals/{receipt}", params={"tenant_id": "t1"}, headers=auth).text)
        world = client.get("/v1/world-context", params={"tenant_id": "t1", "owner_id": "ana"}, headers=auth)
        bodies.append(world.text)
        for node in runner.store.owner_nodes("t1", "ana"):
            for url in (f"/v1/nodes/{node.node_id}", f"/v1/nodes/{node.node_id}/provenance"):
                bodies.append(client.get(url, params={"tenant_id": "t1", "owner_id": "ana"}, headers=auth).text)
        runner.index.commit()
        client.close()
        parts = {"api": "\n".join(bodies), **_tables(runner.log), **_files(tmp_path / "api")}
        stored = runner.log.get_events(["a-meta"], "t1", "ana")
        content = runner.log.get_events(["a-content"], "t1", "ana")
    assert _leaks(secrets, parts) == []
    assert stored and stored[0].speaker == "deploy-bot (token [REDACTED:github_token])"
    assert "a-content" in parts["raw_events"] and "[REDACTED:password]" in content[0].content


def test_dead_letters_keep_masked_bytes_the_digest_the_length_and_the_line(fresh: Any) -> None:
    runner, log, _ = fresh()
    secret = "Tr0ut!Lake#88"
    good = {"event_id": "d1", "tenant_id": "t1", "owner_id": "o1", "scope": "personal", "role": "user",
            "content": f"the password for my router is {secret}",
            "occurred_at": "2026-03-01T09:00:00+00:00"}  # fmt: skip
    cut = json.dumps(good)[:-4].encode()
    naive = json.dumps({**good, "occurred_at": "2026-03-01T09:00:00"}).encode()
    huge = json.dumps({**good, "content": good["content"] + " pad" * 400_000}).encode()
    report = runner.ingest_lines([cut, naive, huge], source="upload.jsonl")
    assert report.dead_letters == 3
    letters = sorted(log.list_dead_letters(source="upload.jsonl"), key=lambda d: d.offset or 0)
    assert [d.offset for d in letters] == [1, 2, 3]  # the line of each in the file
    for letter, raw in zip(letters, (cut, naive, huge), strict=True):
        assert secret.encode() not in letter.masked_bytes
        assert letter.original_length == len(raw)
        assert len(letter.masked_bytes) <= 64 * 1024
    assert letters[2].truncated and letters[2].reason_code == "payload_too_large"
    assert _leaks([secret], _tables(log)) == []

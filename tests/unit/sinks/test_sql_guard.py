"""The analysts' SQL guard: one plain read of the documented log tables, nothing that reaches a file."""

from __future__ import annotations

import pytest

from schemas.errors import QueryRejected
from sinks.sql_guard import READABLE_TABLES, check_read_only

DB = "epistream"


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT toDate(occurred_at) AS day, op_type, count() AS n FROM operations FINAL GROUP BY day, op_type",
        "SELECT arrayJoin(rejection_codes) AS reason, count() AS n FROM extraction_journal FINAL GROUP BY reason",
        "SELECT quantiles(0.5, 0.95)(dateDiff('second', occurred_at, recorded_at)) FROM raw_events FINAL",
        "WITH t AS (SELECT op_type FROM operations) SELECT op_type, count() FROM t GROUP BY op_type",
        "SELECT target_id FROM operations FINAL ORDER BY occurred_at LIMIT 1 BY target_id",
        "SELECT o.op_id FROM epistream.operations AS o JOIN raw_events AS r ON o.caused_by = r.event_id",
        "SELECT 'into outfile; file(x)' AS text FROM dead_letters;",
        "SELECT 1 UNION ALL SELECT 2",
    ],
)
def test_reads_of_the_log_pass(sql: str) -> None:
    assert check_read_only(sql, DB) == sql.strip().rstrip(";")


@pytest.mark.parametrize(
    ("sql", "code"),
    [
        ("SELECT * FROM operations INTO OUTFILE '/tmp/x.sh' APPEND", "sql_writes_file"),
        ("select * from operations into   outfile '/tmp/x'", "sql_writes_file"),
        ("SELECT 1; SELECT 2", "sql_multiple_statements"),
        ("SELECT 1; DROP TABLE operations", "sql_multiple_statements"),
        ("SELECT * FROM file('/etc/passwd', 'LineAsString')", "sql_table_function"),
        ("SELECT * FROM url('http://127.0.0.1:9200/', 'JSONAsString')", "sql_table_function"),
        ("SELECT * FROM remote('127.0.0.1', system.users)", "sql_table_function"),
        ("SELECT * FROM numbers(1000000000000)", "sql_table_function"),
        ("SELECT file('/etc/hostname')", "sql_table_function"),
        ("SELECT * FROM system.tables", "sql_table_not_allowed"),
        ("SELECT * FROM other_db.operations", "sql_table_not_allowed"),
        ("SELECT * FROM secrets_elsewhere", "sql_table_not_allowed"),
        # the data keys that seal content (and the ids of destroyed ones) never leave the store
        ("SELECT key FROM data_keys", "sql_table_not_allowed"),
        ("SELECT e.key_id FROM operations AS o JOIN erased_keys AS e ON 1", "sql_table_not_allowed"),
        ("INSERT INTO operations VALUES (1)", "read_only"),
        ("ALTER TABLE operations DELETE WHERE 1", "read_only"),
        ("", "sql_error"),
        ("SELEC 1", "sql_error"),
    ],
)
def test_what_reaches_outside_the_log_is_refused_with_its_code(sql: str, code: str) -> None:
    with pytest.raises(QueryRejected) as refused:
        check_read_only(sql, DB)
    assert refused.value.code == code


def test_the_readable_tables_are_the_documented_ones() -> None:
    assert sorted(READABLE_TABLES) == [
        "dead_letters", "extraction_journal", "node_snapshots", "operations", "raw_events", "retrieval_requests",
        "schema_migrations",
    ]  # fmt: skip

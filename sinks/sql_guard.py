"""What an analyst's SQL may be: one plain read of the documented log tables, nothing that reaches a file.

``readonly=1`` makes the engine refuse writes, DDL and setting changes, but not everything that
touches the machine: chDB accepted ``SELECT … INTO OUTFILE '/any/path' APPEND`` under it, and
table functions (``file()``, ``url()``, ``remote()``…) read outside the log. So the statement is
parsed first (``sqlglot``, ClickHouse dialect) and only a single SELECT (or UNION, with CTEs) over
the documented tables passes; the engine's own limits come after it.
"""

from __future__ import annotations

from typing import Final

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from schemas.errors import QueryRejected

#: The tables docs/analytics.md documents, and the migrations' record.
READABLE_TABLES: Final = frozenset({
    "operations", "raw_events", "node_snapshots", "extraction_journal", "dead_letters", "retrieval_requests",
    "schema_migrations",
})  # fmt: skip
#: Functions that read or write outside the log (as table functions or scalars).
_OUTSIDE: Final = frozenset({
    "file", "url", "urlcluster", "s3", "s3cluster", "hdfs", "hdfscluster", "remote", "remotesecure", "cluster",
    "clusterallreplicas", "input", "executable", "executablepool", "mysql", "postgresql", "jdbc", "odbc", "sqlite",
    "mongodb", "redis", "azureblobstorage", "azureblobstoragecluster", "gcs", "deltalake", "iceberg", "hudi",
    "dictionary", "dictget", "dictgetordefault", "merge", "view", "viewifpermitted", "loop", "fuzzjson", "format",
})  # fmt: skip
_READS: Final = (exp.Select, exp.Union)


def check_read_only(sql: str, database: str) -> str:
    """The statement to run (one trailing ``;`` dropped), or :class:`QueryRejected` with a stable code."""
    text = sql.strip()
    while text.endswith(";"):
        text = text[:-1].rstrip()
    if not text:
        raise QueryRejected("empty query", code="sql_error")
    if _has_outfile(text):
        raise QueryRejected("INTO OUTFILE is not allowed: results are returned, never written", code="sql_writes_file")
    try:
        statements = [s for s in sqlglot.parse(text, read="clickhouse") if s is not None]
    except SqlglotError:
        raise QueryRejected("the statement could not be read as one plain SELECT", code="sql_error") from None
    if len(statements) != 1:
        raise QueryRejected("one statement at a time", code="sql_multiple_statements")
    statement = statements[0]
    if not isinstance(statement, _READS):
        raise QueryRejected("only reads are allowed on the operation log", code="read_only")
    if statement.find(exp.Into) is not None:
        raise QueryRejected("SELECT … INTO is not allowed", code="sql_writes_file")
    for func in statement.find_all(exp.Func):
        name = (func.name if isinstance(func, exp.Anonymous) else func.sql_name()).lower()
        if name in _OUTSIDE:
            raise QueryRejected(f"{name}() reads outside the log and is not allowed", code="sql_table_function")
    ctes = {cte.alias_or_name for cte in statement.find_all(exp.CTE)}
    for table in statement.find_all(exp.Table):
        if isinstance(table.this, exp.Func):
            raise QueryRejected("table functions are not allowed", code="sql_table_function")
        name, db = table.name, table.db
        if db and db != database:
            raise QueryRejected(f"only the log's tables can be read, not {db}.*", code="sql_table_not_allowed")
        if name not in READABLE_TABLES and name not in ctes:
            raise QueryRejected(f"{name} is not one of the log's tables", code="sql_table_not_allowed",
                                tables=sorted(READABLE_TABLES))  # fmt: skip
    return text


def _has_outfile(text: str) -> bool:
    """``INTO OUTFILE`` outside string literals (sqlglot cannot read the clause, so it is looked for first)."""
    bare, quote = [], ""
    for char in text:
        if quote:
            if char == quote:
                quote = ""
            continue
        if char in "'\"`":
            quote = char
            continue
        bare.append(char.upper())
    return "OUTFILE" in " ".join("".join(bare).split())

"""Several operation-log stores combined into one: what ``epistream combine-logs`` does.

Without a ClickHouse server, each stream worker keeps its own chDB store (a development and test
topology): a store holds the partitions its worker processed, and a rebalance splits a partition's
history between the stores of its old and new owners (the same input can also be stored in both
around a failover). Combining gives back one log: every row of every store, each once.

chDB runs one engine path per process, so each source store is read by a child process of its own
(``python -m sinks.clickhouse_combine export``), which writes every table to a file in ClickHouse's
Native format; this process loads each file into a staging table of the target and inserts the
rows whose key (the table's sorting key: the derived ids) the target does not hold yet. Running it
again, or with a source already combined, adds nothing. An operation id already in the target with
another checksum is not inserted and is reported (``conflicting_operations``): the same derived id
for different content is a broken invariant, never something to merge silently.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from schemas.errors import EpistreamError, ValidationFailed
from sinks.clickhouse import OperationLog, chdb_engine_path
from sinks.clickhouse_schema import check_database_name
from sinks.data_dir import DataDirLock

#: Tables that are bookkeeping of a store, not its content.
_SKIP = ("schema_migrations",)
_STAGE = "_combine_"


def _tables(client: Any, database: str) -> list[str]:
    rows = client.query(
        "SELECT name FROM system.tables WHERE database = {db:String} ORDER BY name", parameters={"db": database}
    ).result_rows
    return [str(r[0]) for r in rows if r[0] not in _SKIP and not str(r[0]).startswith(_STAGE)]


def _columns(client: Any, database: str, table: str) -> list[str]:
    """Stored columns in order (an ALIAS or MATERIALIZED column is computed, never inserted)."""
    rows = client.query(
        "SELECT name FROM system.columns WHERE database = {db:String} AND table = {t:String}"
        " AND default_kind NOT IN ('ALIAS', 'MATERIALIZED') ORDER BY position",
        parameters={"db": database, "t": table},
    ).result_rows
    return [str(r[0]) for r in rows]


def _quoted(names: Sequence[str]) -> str:
    return ", ".join(f"`{n}`" for n in names)


def export_store(source: str | os.PathLike[str], out_dir: str | os.PathLike[str], database: str) -> dict[str, Any]:
    """Every table of the store in ``source`` to ``<out_dir>/<table>.native`` (runs in a child process).

    The store is migrated to the current schema first (migrations only add), so its columns are the
    target's.
    """
    out = Path(out_dir)
    with DataDirLock(source, owner="combine-logs"):
        log = OperationLog.connect(None, path=source, database=database)
        try:
            manifest: dict[str, Any] = {"tables": {}}
            for table in _tables(log.client, database):
                columns = _columns(log.client, database, table)
                path = out / f"{table}.native"
                # Closed before the next query: chDB refuses one while a stream is open on the thread.
                with (
                    log.client.raw_stream(
                        f"SELECT {_quoted(columns)} FROM {database}.`{table}` FINAL", fmt="Native"
                    ) as stream,
                    path.open("wb") as fh,
                ):
                    shutil.copyfileobj(stream, fh, 1 << 20)
                rows = int(log.client.command(f"SELECT count() FROM {database}.`{table}` FINAL"))
                manifest["tables"][table] = {"columns": columns, "rows": rows, "file": str(path)}
        finally:
            log.close()
    return manifest


def _sorting_key(client: Any, database: str, table: str) -> str:
    rows = client.query(
        "SELECT sorting_key FROM system.tables WHERE database = {db:String} AND name = {t:String}",
        parameters={"db": database, "t": table},
    ).result_rows
    key = str(rows[0][0]) if rows else ""
    if not key:
        raise ValidationFailed(f"table {table} has no sorting key to combine by", code="combine_unsupported_table")
    return key


def import_export(target: OperationLog, manifest: dict[str, Any]) -> dict[str, Any]:
    """Load one exported store into ``target``: rows whose key it lacks are inserted, the rest counted."""
    client, db = target.client, target.database
    have = set(_tables(client, db))
    added: dict[str, int] = {}
    conflicting = 0
    for table, info in sorted(manifest["tables"].items()):
        if table not in have:
            raise ValidationFailed(
                f"the target has no table {table}: run `epistream migrate` with this version first",
                code="combine_unknown_table",
                table=table,
            )
        columns, cols = info["columns"], _quoted(info["columns"])
        stage = f"{db}.`{_STAGE}{table}`"
        client.command(f"DROP TABLE IF EXISTS {stage}")
        client.command(f"CREATE TABLE {stage} AS {db}.`{table}`")
        try:
            with open(info["file"], "rb") as fh:
                client.raw_insert(f"{db}.{_STAGE}{table}", columns, fh, fmt="Native")
            key = _sorting_key(client, db, table)
            where = f"({key}) NOT IN (SELECT {key} FROM {db}.`{table}`)"
            if table == "operations":
                conflicting += int(client.command(
                    f"SELECT count() FROM {stage} AS s INNER JOIN {db}.operations AS t USING (op_id)"
                    " WHERE s.checksum != t.checksum"
                ))  # fmt: skip
                where += f" AND op_id NOT IN (SELECT op_id FROM {db}.operations)"
            before = int(client.command(f"SELECT count() FROM {db}.`{table}`"))
            client.command(f"INSERT INTO {db}.`{table}` ({cols}) SELECT {cols} FROM {stage} WHERE {where}",
                           settings={"insert_deduplicate": 0})  # a block id without its part never drops a retry
            added[table] = int(client.command(f"SELECT count() FROM {db}.`{table}`")) - before
        finally:
            client.command(f"DROP TABLE IF EXISTS {stage}")
    return {"added": added, "conflicting_operations": conflicting}


def combine_stores(target: OperationLog, sources: Sequence[str | os.PathLike[str]]) -> list[dict[str, Any]]:
    """Each source store (a data directory) into ``target``, one child process per source (see the module)."""
    db = check_database_name(target.database)
    resolved = [Path(s).resolve() for s in sources]
    engine = getattr(target.client, "path", None)
    for source in resolved:
        if not chdb_engine_path(source).is_dir():
            raise ValidationFailed(f"{source} holds no chDB store", code="not_a_store", path=str(source))
        if engine is not None and Path(str(engine)).resolve() == chdb_engine_path(source):
            raise ValidationFailed("a source is the target store itself", code="combine_into_source", path=str(source))
    reports: list[dict[str, Any]] = []
    for source in resolved:
        with tempfile.TemporaryDirectory(prefix="epistream-combine-") as tmp:
            proc = subprocess.run(
                [sys.executable, "-m", "sinks.clickhouse_combine", "export", str(source), tmp, db],
                capture_output=True,
                text=True,
                env={**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)},
            )
            if proc.returncode != 0:
                raise _child_error(proc.stdout, proc.stderr, source)
            manifest = json.loads(proc.stdout)
            result = import_export(target, manifest)
        reports.append({
            "source": str(source),
            "rows": {t: info["rows"] for t, info in manifest["tables"].items()},
            **result,
        })  # fmt: skip
    return reports


def _child_error(stdout: str, stderr: str, source: Path) -> EpistreamError:
    for text in (stdout, stderr):
        for line in reversed(text.strip().splitlines()):
            try:
                body = json.loads(line)
            except ValueError:
                continue
            if isinstance(body, dict) and isinstance(body.get("error"), dict):
                err = body["error"]
                return EpistreamError(str(err.get("message", "")), code=str(err.get("code", "combine_failed")),
                                      **dict(err.get("details") or {}))  # fmt: skip
    return EpistreamError(f"reading the store {source} failed", code="combine_failed", path=str(source))


def main(argv: Sequence[str]) -> int:
    if len(argv) != 4 or argv[0] != "export":
        print("usage: python -m sinks.clickhouse_combine export <data dir> <out dir> <database>", file=sys.stderr)
        return 2
    try:
        manifest = export_store(argv[1], argv[2], argv[3])
    except EpistreamError as exc:
        print(json.dumps({"error": exc.to_dict()}))
        return 2
    print(json.dumps(manifest))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

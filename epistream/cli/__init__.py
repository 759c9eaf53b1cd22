"""The ``epistream`` command line: the imperative shell around the memory.

One typer app (:mod:`epistream.cli.common`); commands live in modules by what they do and
register themselves on import: reads (:mod:`~epistream.cli.reads`), the explicit commands
generated from the registry (:mod:`~epistream.cli.commands`) and operations
(:mod:`~epistream.cli.operations`). Rendering for people is :mod:`~epistream.cli.render`.
"""

from __future__ import annotations

import contextlib

with contextlib.suppress(ImportError):  # onnxruntime must load before usearch (see sinks/embedded_index.py)
    import onnxruntime  # noqa: F401

from epistream.cli import commands, operations, reads  # noqa: F401  (register their commands)
from epistream.cli.common import WorkerRole, app

__all__ = ["WorkerRole", "app", "main"]


def main() -> None:
    """The console script: ingestion and serving commands run with the pipeline's GC tuning."""
    from streams.runtime import tune_gc_for_throughput

    tune_gc_for_throughput()
    app()

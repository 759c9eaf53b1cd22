"""Where the application reads its configuration: the one place ``Settings`` is constructed.

Lower layers (extractors, sinks, retrieval, streams) are handed the instance; they never read
the environment themselves, so a process has exactly one configuration.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from schemas.settings import Settings


def load_settings(data_dir: Path | None = None, **overrides: Any) -> Settings:
    """``EPISTREAM_*`` from the environment, with explicit values (command-line options) on top."""
    settings = Settings()
    if data_dir is not None:
        overrides["data_dir"] = data_dir
    return settings.model_copy(update=overrides) if overrides else settings

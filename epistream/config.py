"""Where the application reads its configuration: the one place ``Settings`` is constructed.

Lower layers (extractors, sinks, retrieval, streams) are handed the instance; they never read
the environment themselves, so a process has exactly one configuration.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from schemas.errors import ValidationFailed
from schemas.settings import Settings

#: Settings that were removed because what they allowed is no longer allowed: set, they refuse to start.
REMOVED: dict[str, str] = {
    "EPISTREAM_RETAIN_RAW_SECRETS": "raw content is never kept: secrets are masked at admission (docs/security.md)",
}


def load_settings(data_dir: Path | None = None, **overrides: Any) -> Settings:
    """``EPISTREAM_*`` from the environment, with explicit values (command-line options) on top."""
    for name, why in REMOVED.items():
        value = os.environ.get(name, "").strip().lower()
        if value not in ("", "0", "false", "no", "off"):
            raise ValidationFailed(f"{name} was removed: {why}", code="removed_setting", setting=name)
    settings = Settings()
    if data_dir is not None:
        overrides["data_dir"] = data_dir
    return settings.model_copy(update=overrides) if overrides else settings

"""The application's "now": the one place the CLI, the API and the embedded runner read the time.

``EPISTREAM_CLOCK`` (``Settings.clock``) fixes it, for tests and demos: answers that depend on the
date (what has expired, what is stale, which value is current) are then the same on every machine
and every day. Unset, it is the machine clock. The engine never reads a clock (times come from its
input); this is where the application chooses the times it hands down.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from schemas.settings import Settings


def clock_for(settings: Settings) -> Callable[[], datetime]:
    """A clock: the fixed ``settings.clock`` when set, else the machine clock."""
    fixed = settings.clock  # aware and in UTC: Settings refuses a time without a timezone
    if fixed is None:
        return _machine_now
    return lambda: fixed


def now(settings: Settings | None = None) -> datetime:
    """The current time as the application sees it (``settings`` default: the environment's)."""
    if settings is None:
        from epistream.config import load_settings

        settings = load_settings()
    return clock_for(settings)()


def _machine_now() -> datetime:
    return datetime.now(UTC)

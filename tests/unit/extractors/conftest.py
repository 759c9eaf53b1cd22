from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from schemas.events import ConversationEvent


def make_event(content: str, role: str = "user", speaker: str | None = None, **extra: Any) -> ConversationEvent:
    return ConversationEvent(
        event_id=extra.pop("event_id", "ev-1"),
        tenant_id="t1",
        owner_id="o1",
        scope="personal",
        role=role,
        speaker=speaker,
        content=content,
        occurred_at=datetime(2026, 3, 1, 12, 0, tzinfo=UTC),
        **extra,
    )


@pytest.fixture
def event() -> Callable[..., ConversationEvent]:
    return make_event

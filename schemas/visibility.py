"""Who may read a record across owners within a tenant (TRUST-FACTS §6, privacy).

Writes stay partitioned per owner; visibility only widens who may *read* a record:

* ``private`` (the default, and every record written before visibility existed): only principals
  allowed for its owner;
* ``shared``: any principal of the tenant with read permission;
* ``group:<name>``: principals that belong to that exact group (as their keys declare), besides
  the principals allowed for its owner.

A reader not allowed for an owner reads that owner's memory through the set of visibilities it
may see (:func:`readable_by`): ``shared`` and its own groups' values, never ``private`` and never
another group's. ``None`` for such a set means "allowed for the owner: everything".
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated, Final

from pydantic import StringConstraints

PRIVATE: Final = "private"
SHARED: Final = "shared"
GROUP_PREFIX: Final = "group:"
#: A group's name, as keys declare it and ``group:<name>`` values carry it.
GROUP_NAME_PATTERN: Final = r"[A-Za-z0-9][A-Za-z0-9._@+\-]{0,63}"

Visibility = Annotated[
    str, StringConstraints(pattern=rf"^(?:{PRIVATE}|{SHARED}|{GROUP_PREFIX}{GROUP_NAME_PATTERN})$")
]
GroupName = Annotated[str, StringConstraints(pattern=rf"^{GROUP_NAME_PATTERN}$")]


def visibility_of(value: str | None) -> str:
    """A record's visibility; unset is private."""
    return value or PRIVATE


def readable_by(groups: Iterable[str]) -> frozenset[str]:
    """What a reader not allowed for an owner may see of that owner's memory: shared records and its
    exact groups' records."""
    return frozenset({SHARED, *(GROUP_PREFIX + g for g in groups)})


def is_visible(value: str | None, readable: frozenset[str] | None) -> bool:
    """Whether a record of visibility ``value`` is readable through ``readable`` (None: everything)."""
    return readable is None or visibility_of(value) in readable


def may_find_by(turn: str | None, message: str | None) -> bool:
    """Whether a message may be found by an earlier turn of its session (its excerpt's context): every turn for a
    private message; for a shared or group one, only turns its readers may also read (its own visibility, or
    shared), never a private turn or another group's."""
    seen = visibility_of(message)
    return seen == PRIVATE or visibility_of(turn) in (seen, SHARED)

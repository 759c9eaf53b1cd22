"""Reading the Prometheus text format in tests, independently of the code that writes it."""

from __future__ import annotations


def samples(text: str) -> dict[str, float]:
    """``name{labels}`` -> value of every sample line; comments and ``*_created`` times skipped.

    Label pairs are put in sorted order, so a test names a series the same way whatever order the
    client library writes them in. (Label values in tests hold no commas.)
    """
    out: dict[str, float] = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        key, value = line.rsplit(" ", 1)
        if "_created" in key.split("{", 1)[0]:
            continue
        if "{" in key:
            name, inner = key[:-1].split("{", 1)
            key = name + "{" + ",".join(sorted(inner.split(","))) + "}"
        out[key] = float(value)
    return out

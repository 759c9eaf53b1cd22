"""``epistream worker --option NAME=VALUE``: numeric WorkerOptions only, typed like the field."""

from __future__ import annotations

import pytest

from streams.faust_app import WorkerOptions, numeric_options


def test_values_are_typed_like_their_field_and_reach_the_options() -> None:
    got = numeric_options(["within_s=0.2", "batch=100", " index_within_s = 0.1"])
    assert got == {"within_s": 0.2, "batch": 100, "index_within_s": 0.1}
    assert isinstance(got["batch"], int) and isinstance(got["within_s"], float)
    opts = WorkerOptions(**got)
    assert (opts.within_s, opts.batch, opts.index_within_s) == (0.2, 100, 0.1)


@pytest.mark.parametrize("pair", ["app_id=x", "nonsense=1", "within_s", "batch=1.5", "within_s=fast"])
def test_unknown_non_numeric_or_malformed_options_are_refused(pair: str) -> None:
    with pytest.raises(SystemExit, match="--option"):
        numeric_options([pair])

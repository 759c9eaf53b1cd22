"""The C encoder writes exactly the bytes of ``schemas.canonical.canonical_json``.

Every checksum in the operation log is SHA-256 of this text, so "almost the
same" is a broken log. Expectations come from the reference (``json.dumps``),
never from the encoder under test.
"""

from __future__ import annotations

import enum
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine.canonical_fast as fast
from engine import _canonical
from schemas.canonical import canonical_json


class Colour(enum.StrEnum):
    RED = "red"
    BLUE = "blue\n\"quoted\""


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 10**20


def _reference(value: Any) -> bytes:
    return canonical_json(value).encode("utf-8")


_floats = st.floats(allow_nan=False, allow_infinity=False) | st.sampled_from(
    [0.0, -0.0, 1e-5, -1e-7, 5e-324, 1e16, 1e22, 123456789.125, 0.1 + 0.2, 1.7976931348623157e308]
)
_awkward = st.sampled_from(["\x00", "\x1f", "\x7f", '"', "\\", "é", "😀"])
_text = st.text(alphabet=st.characters(blacklist_categories=("Cs",)) | _awkward, max_size=20)
_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | _floats
    | _text
    | st.sampled_from([Colour.RED, Colour.BLUE, Level.LOW, Level.HIGH])
)
_values = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=5)
    | st.lists(inner, max_size=5).map(tuple)
    | st.dictionaries(_text, inner, max_size=8),
    max_leaves=40,
)


@settings(max_examples=400, deadline=None)
@given(value=_values)
def test_random_values_encode_like_the_reference(value: Any) -> None:
    assert _canonical.encode(value) == _reference(value)
    assert fast.canonical_bytes(value) == _reference(value)


@settings(max_examples=200, deadline=None)
@given(keys=st.lists(_text, min_size=1, max_size=70, unique=True), seed=st.integers(0, 3))
def test_dicts_of_the_same_shape_sort_the_same_each_time(keys: list[str], seed: int) -> None:
    """The encoder remembers each key order it sorted; a reordered or changed shape must not reuse it."""
    first = {k: i for i, k in enumerate(keys)}
    reordered = dict(reversed(list(first.items())))
    changed = {**first, f"{keys[0]}-{seed}": seed}
    for value in (first, first, reordered, changed, first):
        assert _canonical.encode(value) == _reference(value)


def test_nested_dicts_evicting_their_parents_shape_keep_the_parents_order() -> None:
    """Writing a child may replace the parent's cached key order; the parent must not read the new one."""
    for round_ in range(20):
        parent = {
            f"p{(i * 7) % 20:02d}-{round_}": {f"c{round_}-{i}-{(j * 3) % 20:02d}": j for j in range(20)}
            for i in range(20)
        }
        assert _canonical.encode(parent) == _reference(parent)
        assert _canonical.encode([parent, parent]) == _reference([parent, parent])


def test_wide_dicts_beyond_the_shape_cache_still_sort() -> None:
    value = {f"k{i:04d}"[::-1]: i for i in range(300)}
    assert _canonical.encode(value) == _reference(value)


def test_escapes_and_non_ascii_text_match_json() -> None:
    text = "".join(chr(c) for c in range(0x00, 0x80)) + "é€😀\u2028\u2029"
    value = {text: [text, {"k": text}]}
    assert _canonical.encode(value) == _reference(value)


def test_long_output_grows_past_the_stack_buffer() -> None:
    value = {"big": ["x" * 5000, "y\n" * 4000], "n": list(range(2000))}
    assert _canonical.encode(value) == _reference(value)


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_non_finite_floats_are_refused_like_the_reference(bad: float) -> None:
    with pytest.raises(ValueError):
        _canonical.encode({"x": [bad]})
    with pytest.raises(ValueError):
        fast.canonical_bytes({"x": [bad]})


@pytest.mark.parametrize(
    "value",
    [{1: "int key"}, {"x": b"bytes"}, {"x": {1, 2}}, {"x": object()}, {"x": bytearray(b"a")}],
)
def test_values_that_are_not_canonical_json_are_type_errors(value: Any) -> None:
    with pytest.raises(TypeError):
        _canonical.encode(value)


def test_types_the_encoder_refuses_go_through_the_reference() -> None:
    """Non-str keys are converted by ``json.dumps``; canonical_bytes gives exactly its text."""
    value = {"b": {2: "two", 1: "one"}, "a": True}
    assert fast.canonical_bytes(value) == _reference(value)


def test_lone_surrogates_fail_like_the_reference() -> None:
    with pytest.raises(UnicodeEncodeError):
        _canonical.encode({"x": "\ud800"})
    with pytest.raises(UnicodeEncodeError):
        fast.canonical_bytes({"x": "\ud800"})


def test_sealing_uses_the_compiled_encoder() -> None:
    """The package is built with its extension; a missing build must fail here, not run slow silently."""
    assert fast._encode is _canonical.encode
    assert fast._encode_fields_split is _canonical.encode_fields_split
    assert fast._encode_model is _canonical.encode_model
    assert fast._derive_id is _canonical.derive_id
    assert _canonical.__file__ is not None and _canonical.__file__.endswith(".so")



def test_a_key_released_from_the_shape_cache_may_encode_again() -> None:
    """Evicting a shape releases its keys; a str subclass's __del__ may call the encoder then."""
    seen: list[bytes] = []

    class Key(str):
        def __del__(self) -> None:
            inner = {f"inner-{len(seen)}-{i}": i for i in range(3)}
            seen.append(_canonical.encode(inner))
            assert seen[-1] == _reference(inner)

    for i in range(50):
        value = {Key(f"k{i}-{j}"): j for j in range(4)}
        assert _canonical.encode(value) == _reference(value)
        del value  # the cache now holds the last references to these keys
    for i in range(3000):  # far more shapes than cache slots: the keys above are released
        value = {f"fresh-{i}-{j}": j for j in range(4)}
        assert _canonical.encode(value) == _reference(value)
    assert len(seen) > 0


def test_the_type_stub_declares_exactly_what_the_module_has() -> None:
    """mypy reads ``_canonical.pyi``; a function removed from the C source must leave the stub too."""
    import re
    from pathlib import Path

    stub = Path(_canonical.__file__).with_name("_canonical.pyi").read_text(encoding="utf-8")
    declared = set(re.findall(r"^def (\w+)\(", stub, flags=re.MULTILINE))
    assert declared == {name for name in dir(_canonical) if not name.startswith("__")}


@settings(max_examples=300, deadline=None)
@given(values=st.lists(_floats, min_size=1, max_size=50))
def test_floats_written_again_come_out_the_same(values: list[float]) -> None:
    """Recent float texts are kept by their bits: written again (a hit), evicted by others in
    their slot, or differing only in sign (0.0 / -0.0), each is still json's repr."""
    for _ in range(2):
        assert _canonical.encode(values) == _reference(values)
        for value in values:
            assert _canonical.encode(value) == _reference(value)


def test_float_slots_shared_by_many_values_never_mix_them_up() -> None:
    values = [i / 7 for i in range(5000)] + [-(i / 7) for i in range(5000)] + [0.0, -0.0, 5e-324]
    for _ in range(3):
        assert [_canonical.encode(v) for v in values] == [_reference(v) for v in values]

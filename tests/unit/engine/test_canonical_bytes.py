"""``canonical_bytes`` writes exactly the bytes of ``schemas.canonical.canonical_json``.

Every checksum in the operation log is SHA-256 of this text, so "almost the same" is a broken
log. orjson writes the text where it writes what ``json.dumps`` writes; these tests pin where it
does not (tiny floats, non-finite floats, types JSON has not) and that the reference decides
there. Expectations come from the reference (``json.dumps``), never from the code under test.
"""

from __future__ import annotations

import enum
import math
import uuid
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine.canonical_fast as fast
from schemas.canonical import canonical_json


class Colour(enum.StrEnum):
    RED = "red"
    BLUE = "blue\n\"quoted\""


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 10**20


class Plain(enum.Enum):
    ONE = "one"


def _reference(value: Any) -> bytes:
    return canonical_json(value).encode("utf-8")


def _outcome(write: Any, value: Any) -> tuple[str, Any]:
    """What writing ``value`` gives: its bytes, or the kind of error."""
    try:
        return "text", write(value)
    except (TypeError, ValueError) as exc:
        return "error", type(exc)


_floats = st.floats(allow_nan=False, allow_infinity=False) | st.sampled_from(
    [0.0, -0.0, 1e-4, 9.99e-5, 1e-5, -1e-7, 5e-324, 1e16, 1e22, 123456789.125, 0.1 + 0.2, 1.7976931348623157e308]
)
_awkward = st.sampled_from(["\x00", "\x1f", "\x7f", '"', "\\", "é", "😀", "\u2028", "\ufeff"])
_text = st.text(alphabet=st.characters(blacklist_categories=("Cs",)) | _awkward, max_size=20) | st.sampled_from(
    ["e-5", "0.00001", ":1e-07", "null", "NaN"]  # what a text scan could take for a number
)
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


@settings(max_examples=500, deadline=None)
@given(value=_values)
def test_random_values_encode_like_the_reference(value: Any) -> None:
    assert fast.canonical_bytes(value) == _reference(value)
    assert fast.canonical_text(value) == canonical_json(value)


@settings(max_examples=300, deadline=None)
@given(value=_floats, wrap=st.integers(0, 4))
def test_floats_at_every_position_are_spelled_as_python_spells_them(value: float, wrap: int) -> None:
    uid = "3d1a58ee-5e64-4c1e-9a7e-7b2b5d0e11ee"  # "e-" that is not an exponent
    doc: Any = [value, [uid, value], {"z": value, "a": uid}, {"k": {"n": [1, value]}}, {uid: (value,)}][wrap]
    assert fast.canonical_bytes(doc) == _reference(doc)


def test_floats_of_every_magnitude_and_mantissa_are_python_s_repr() -> None:
    """orjson's exponent form differs from repr's below 1e-4 (1e-7, 0.00001); it must never show."""
    values = [
        sign * float(f"{mantissa}e{exponent}")
        for exponent in range(-325, 309)
        for mantissa in ("1", "1.5", "9.999999999999999", "2.2250738585072014", "4.9")
        for sign in (1.0, -1.0)
    ]
    values = [v for v in values if math.isfinite(v)]
    assert fast.canonical_bytes(values) == _reference(values)
    for v in values:
        assert fast.canonical_bytes(v) == _reference(v)
        assert fast.canonical_bytes({"v": v}) == _reference({"v": v})


@settings(max_examples=200, deadline=None)
@given(keys=st.lists(_text, min_size=1, max_size=70, unique=True))
def test_keys_sort_by_code_point_at_every_level(keys: list[str]) -> None:
    first = {k: i for i, k in enumerate(keys)}
    nested = {k: dict(reversed(list(first.items()))) for k in keys[:3]}
    for value in (first, dict(reversed(list(first.items()))), nested, [nested, first]):
        assert fast.canonical_bytes(value) == _reference(value)


def test_escapes_and_non_ascii_text_match_json() -> None:
    text = "".join(chr(c) for c in range(0x00, 0x80)) + "é€😀\u2028\u2029\ufeff\U0010ffff"
    value = {text: [text, {"k": text}]}
    assert fast.canonical_bytes(value) == _reference(value)


def test_long_and_deep_values() -> None:
    value: Any = {"big": ["x" * 5000, "y\n" * 4000], "n": list(range(2000))}
    assert fast.canonical_bytes(value) == _reference(value)
    for depth in (254, 255, 256, 400):  # orjson stops at 255 levels; the reference goes on
        deep: Any = 1.5
        for _ in range(depth):
            deep = [deep]
        assert fast.canonical_bytes(deep) == _reference(deep)


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_non_finite_floats_are_refused_like_the_reference(bad: float) -> None:
    """orjson writes them as null; the reference refuses them (allow_nan=False)."""
    for value in (bad, [bad], {"x": [1, {"y": bad}]}, (bad,)):
        with pytest.raises(ValueError):
            _reference(value)
        with pytest.raises(ValueError):
            fast.canonical_bytes(value)


@pytest.mark.parametrize(
    "value",
    [{"x": b"bytes"}, {"x": {1, 2}}, {"x": object()}, {"x": bytearray(b"a")}, {"x": uuid.uuid4()},
     {"x": Plain.ONE}, {"x": datetime(2026, 1, 1, tzinfo=UTC)}, {"x": 1j}],
)
def test_values_that_are_not_json_are_type_errors(value: Any) -> None:
    """Types orjson would write (a UUID, an Enum, a datetime) but json.dumps refuses are refused."""
    with pytest.raises(TypeError):
        _reference(value)
    with pytest.raises(TypeError):
        fast.canonical_bytes(value)


@pytest.mark.parametrize(
    "value",
    [{"b": {2: "two", 1: "one"}, "a": True}, {True: 1, None: 2}, {1.5: "x"}, {Colour.RED: 1, Level.LOW: 2},
     {"n": 2**64}, {"n": -(2**63) - 1}, {"n": [2**200]}],
)
def test_what_orjson_refuses_goes_through_the_reference(value: Any) -> None:
    """Keys that are not str (json.dumps converts them, or fails to sort them) and ints beyond 64 bits."""
    assert _outcome(fast.canonical_bytes, value) == _outcome(_reference, value)


def test_subclasses_of_json_types_are_written_as_json_dumps_writes_them() -> None:
    class Text(str):
        def __str__(self) -> str:
            return "other"

    class Mapping(dict[str, Any]):
        pass

    class Items(list[Any]):
        pass

    for value in ([Text("t")], Mapping(b=1, a=2), {"m": Mapping(z=1, y=[Items([1e-5])])}, Items([Level.HIGH])):
        assert _outcome(fast.canonical_bytes, value) == _outcome(_reference, value)


def test_lone_surrogates_fail_like_the_reference() -> None:
    with pytest.raises(UnicodeEncodeError):
        _reference({"x": "\ud800"})
    with pytest.raises(UnicodeEncodeError):
        fast.canonical_bytes({"x": "\ud800"})


def test_a_circular_value_fails_like_the_reference() -> None:
    loop: list[Any] = []
    loop.append(loop)
    assert _outcome(fast.canonical_bytes, loop) == _outcome(_reference, loop) == ("error", ValueError)

"""The checkpoint serializer: registered types round trip; other types are refused with a
conversion that would save."""

from __future__ import annotations

import collections
import dataclasses
import enum
from typing import Any, NamedTuple

import pytest

from hookproof.eino import (
    SerializationError,
    register_name,
)
from hookproof.eino._serial import decode, encode
from hookproof.errors import UsageError


class Point(NamedTuple):
    x: int


class Level(enum.StrEnum):
    LOW = "low"


@dataclasses.dataclass
class Totals:
    seen: int
    total: int = dataclasses.field(init=False, default=0)


register_name("tests.eino.Level", Level)


register_name("tests.eino.Totals", Totals)


@pytest.mark.parametrize(
    ("value", "hint"),
    [
        (Point(1), "Store tuple(value)"),
        (collections.Counter("ab"), "Store dict(value)"),
        ({1, 2}, "Store sorted(value)"),
        (b"raw", "base64"),
    ],
)
def test_subclasses_and_other_builtins_are_refused_with_a_conversion(value: Any, hint: str) -> None:
    with pytest.raises(SerializationError, match="cannot be saved in a checkpoint") as raised:
        encode(value, what="value")
    assert hint in str(raised.value)


def test_registered_enums_and_init_false_fields_round_trip() -> None:
    totals = Totals(seen=2)
    totals.total = 7
    back = decode(encode([Level.LOW, totals], what="value"))
    assert back == [Level.LOW, totals] and back[1].total == 7


def test_register_name_refuses_types_it_cannot_save() -> None:
    with pytest.raises(UsageError, match="Store sorted"):
        register_name("tests.eino.set", set)


def test_register_name_also_decorates_and_takes_the_class_first() -> None:
    @register_name("tests.eino.Decorated")
    @dataclasses.dataclass
    class Decorated:
        n: int

    @dataclasses.dataclass
    class Swapped:
        n: int

    assert register_name(Swapped, "tests.eino.Swapped") is Swapped
    assert decode(encode([Decorated(1), Swapped(2)], what="v")) == [Decorated(1), Swapped(2)]


def test_the_unregistered_type_error_offers_the_ctx_instead() -> None:
    class Plain:
        pass

    with pytest.raises(SerializationError, match=r"ctx.with_value\(key, value\)"):
        encode(Plain(), what="value")

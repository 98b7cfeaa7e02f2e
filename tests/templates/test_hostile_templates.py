"""Hostile templates and variables: every one ends fast in a hookproof error that names it."""

from __future__ import annotations

import dataclasses
import sys
import types
from collections.abc import Iterator
from typing import Any, NamedTuple

import pytest
from pydantic import BaseModel, computed_field

from hookproof.errors import HookproofError
from hookproof.templates import (
    FormatType,
    TemplateSecurityError,
    TemplateVariableError,
    from_agentic_messages,
    user_agentic_message,
)

FS, GO, J2 = FormatType.FSTRING, FormatType.GO_TEMPLATE, FormatType.JINJA2
SECRET = "module-global-secret"


def render(format_type: FormatType, template: str, variables: dict[str, Any]) -> str:
    return (
        from_agentic_messages(format_type, user_agentic_message(template)).format(variables)[0].text
    )


# -- Go subset: field access reaches only data --------------------------------------------


def _generator() -> Iterator[int]:
    yield 1


async def _coroutine() -> None:
    return None


@dataclasses.dataclass
class Point:
    x: int
    _hidden: int = 0

    def method(self) -> int:
        return self.x


class Pair(NamedTuple):
    left: str
    right: str


class User(BaseModel):
    name: str

    @computed_field  # type: ignore[prop-decorator]
    @property
    def shout(self) -> str:
        return self.name.upper()


class Counting:
    calls = 0

    @property
    def value(self) -> str:
        Counting.calls += 1
        return "counted"


@dataclasses.dataclass
class WithProperty(Counting):
    label: str = "l"


class PlainObject:
    def __init__(self) -> None:
        self.attribute = "a"


@pytest.mark.parametrize(
    ("template", "variables", "expected"),
    [
        ("{{.p.x}}", {"p": Point(3)}, "3"),
        ("{{.pair.right}}", {"pair": Pair("l", "r")}, "r"),
        ("{{.u.name}} {{.u.shout}}", {"u": User(name="ada")}, "ada ADA"),
        ("{{.m._key}}", {"m": {"_key": "mapping keys are data"}}, "mapping keys are data"),
        ("{{range .ps}}{{.x}}{{end}}", {"ps": [Point(1), Point(2)]}, "12"),
    ],
)
def test_go_reads_mapping_keys_and_data_fields(
    template: str, variables: dict[str, Any], expected: str
) -> None:
    assert render(GO, template, variables) == expected


def test_go_generator_frame_globals_escape_is_refused() -> None:
    with pytest.raises(
        TemplateSecurityError, match="field gi_frame is refused: the value is a generator"
    ) as caught:
        render(GO, "{{.g.gi_frame.f_globals.SECRET}}", {"g": _generator()})
    assert SECRET not in str(caught.value)
    assert caught.value.variable == "gi_frame"


@pytest.mark.parametrize(
    ("value", "field", "kind"),
    [
        (_generator(), "gi_code", "a generator"),
        (render, "func_globals", "a function"),
        (Point(1).method, "im_self", "a method"),
        (sys, "modules", "a module"),
        (Point, "x", "a class"),
        (sys._getframe(), "f_locals", "a frame"),
        (render.__code__, "co_consts", "a code object"),
        (len, "name", "a function"),
        (PlainObject(), "attribute", "a PlainObject is not plain data"),
    ],
    ids=lambda v: v if isinstance(v, str) else type(v).__name__,
)
def test_go_field_access_on_machinery_is_refused(value: Any, field: str, kind: str) -> None:
    with pytest.raises(TemplateSecurityError, match=f"field {field} is refused: .*{kind}"):
        render(GO, f"{{{{.v.{field}}}}}", {"v": value})


def test_go_coroutine_is_refused() -> None:
    coroutine = _coroutine()
    try:
        with pytest.raises(TemplateSecurityError, match="a coroutine"):
            render(GO, "{{.c.cr_frame}}", {"c": coroutine})
    finally:
        coroutine.close()


@pytest.mark.parametrize(
    ("template", "field"),
    [("{{.p._hidden}}", "_hidden"), ("{{.p.__class__}}", "__class__"), ("{{.s.__len__}}", "")],
)
def test_go_private_and_dunder_names_are_refused(template: str, field: str) -> None:
    with pytest.raises(TemplateSecurityError, match="names starting with '_' are private"):
        render(GO, template, {"p": Point(1), "s": "text"})


@pytest.mark.parametrize(
    "template", ["{{.p.method}}", "{{.p.nope}}", "{{.pair.count}}", "{{.u.model_dump}}"]
)
def test_go_methods_and_unknown_fields_of_data_are_variable_errors(template: str) -> None:
    variables = {"p": Point(1), "pair": Pair("a", "b"), "u": User(name="n")}
    with pytest.raises(TemplateVariableError, match="can't evaluate field"):
        render(GO, template, variables)


def test_go_property_runs_once_per_lookup() -> None:
    Counting.calls = 0
    assert render(GO, "{{.w.value}}", {"w": WithProperty()}) == "counted"
    assert Counting.calls == 1


@pytest.mark.parametrize(
    "value", [_generator(), render, [1, render], {"k": types}, Point], ids=repr
)
def test_go_printing_machinery_is_refused(value: Any) -> None:
    with pytest.raises(TemplateSecurityError, match="prints as a memory address"):
        render(GO, "{{.v}}", {"v": value})


def test_every_refusal_is_a_hookproof_error() -> None:
    assert issubclass(TemplateSecurityError, HookproofError)

"""Hostile templates and variables: every one ends fast in a hookproof error that names it."""

from __future__ import annotations

import dataclasses
import sys
import types
from collections.abc import Iterator
from typing import Any, NamedTuple

import pytest
from pydantic import BaseModel, computed_field

from hookproof.errors import HookproofError, UsageError
from hookproof.templates import (
    FormatType,
    TemplateBudget,
    TemplateRenderError,
    TemplateSecurityError,
    TemplateSyntaxError,
    TemplateVariableError,
    from_agentic_messages,
    user_agentic_message,
)
from tests.templates.helpers import outcomes_in_child, render

FS, GO, J2 = FormatType.FSTRING, FormatType.GO_TEMPLATE, FormatType.JINJA2
SECRET = "module-global-secret"


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
    "value",
    [_generator(), render, [1, render], {"k": types}, Point],
    ids=["generator", "function", "function in a list", "module in a map", "class"],
)
def test_go_printing_machinery_is_refused(value: Any) -> None:
    with pytest.raises(TemplateSecurityError, match="prints as a memory address"):
        render(GO, "{{.v}}", {"v": value})


def test_every_refusal_is_a_hookproof_error() -> None:
    assert issubclass(TemplateSecurityError, HookproofError)


# -- budgets: hostile templates stop early ------------------------------------------------
# Each case runs in one child process with a timeout, so a budget that stopped working fails
# the test instead of hanging it.

DOUBLING = (
    "{% macro d(s, n) %}{% if n %}{{ d(s ~ s, n - 1) }}{% else %}{{ s|length }}{% endif %}"
    "{% endmacro %}{{ d('a', 60) }}"
)
NAMESPACE = "{% set ns = namespace(s='ab') %}{% for i in range(60) %}{% set ns.s = ns.s OP ns.s %}"
NAMESPACE += "{% endfor %}{{ ns.s|length }}"
SHARED = "{{% set ns = namespace(x=[1]) %}}{{% for i in range(60) %}}{{% set ns.x = {} %}}"
SHARED += "{{% endfor %}}{{{{ ns.x }}}}"
MILLION = "{% set s = 'a' * 1000000 %}"
BUFFERED = "{% macro m() %}{% for i in range(100000) %}" + "x" * 100 + "{% endfor %}{% endmacro %}"
HOSTILE: dict[str, tuple[str, str, dict[str, Any], str]] = {
    "nested ranges": (
        "jinja2",
        "{% for i in range(100000) %}{% for j in range(100000) %}x{% endfor %}{% endfor %}",
        {},
        "loop iteration 100,001 exceeds the template budget max_loop_iterations=100,000",
    ),
    "string repeat": ("jinja2", "{{ 'a' * 1000000000 }}", {}, "max_output_chars=1,000,000"),
    "list repeat": ("jinja2", "{{ [0] * 1000000000 }}", {}, "max_output_chars"),
    "tower power": ("jinja2", "{{ 9**(9**9) }}", {}, "max_int_bits=4,096"),
    "big power": ("jinja2", "{{ 10**5000 }}", {}, "the power (about 15,000 bits)"),
    "big product": ("jinja2", "{{ (2**4000) * (2**4000) }}", {}, "the product"),
    "range too long": ("jinja2", "{{ range(10**12)|length }}", {}, "range() of 1,000,000,000,000"),
    "range consumed by a filter": (
        "jinja2",
        "{% for i in range(100000) %}{{ range(100000)|sum }}{% endfor %}",
        {},
        "max_loop_iterations",
    ),
    "nested loops over data": (
        "jinja2",
        "{% for a in xs %}{% for b in xs %}{% for c in xs %}{% endfor %}{% endfor %}{% endfor %}",
        {"xs": list(range(1000))},
        "max_loop_iterations",
    ),
    "recursive macro": (
        "jinja2",
        "{% macro m(n) %}{{ m(n + 1) }}{% endmacro %}{{ m(0) }}",
        {},
        "a macro call at nesting depth 101 exceeds the template budget max_depth=100",
    ),
    "recursive loop": (
        "jinja2",
        "{% for x in xs recursive %}{{ loop(xs) }}{% endfor %}",
        {"xs": [1]},
        "a recursive loop at nesting depth 101",
    ),
    "center method": ("jinja2", "{{ 'x'.center(10**9) }}", {}, "a size argument of 1,000,000,000"),
    "center filter": ("jinja2", "{{ 'x'|center(10**9) }}", {}, "a size argument"),
    "to_bytes": ("jinja2", "{{ (1).to_bytes(10**9, 'big') }}", {}, "a size argument"),
    "batch": ("jinja2", "{{ [1]|batch(10**9, 0)|list }}", {}, "a size argument"),
    "format width": ("jinja2", "{{ '{:>1000000000}'.format(1) }}", {}, "a width in the format"),
    "percent width": ("jinja2", "{{ '%1000000000d' % 1 }}", {}, "a width in the format"),
    "nested format width": ("jinja2", "{{ '{0:{1}}'.format(1, 10**9) }}", {}, "a size argument"),
    "star width": ("jinja2", "{{ '%*d' % (10**9, 1) }}", {}, "a size argument"),
    "format filter": ("jinja2", "{{ '%1000000000d'|format(1) }}", {}, "a width in the format"),
    "concat doubling": (
        "jinja2",
        NAMESPACE.replace("OP", "~"),
        {},
        "a built value of 1,048,576 char",
    ),
    "plus doubling": ("jinja2", NAMESPACE.replace("OP", "+"), {}, "the result of '+'"),
    "macro argument doubling": ("jinja2", DOUBLING, {}, "a built value of 1,048,576 characters"),
    "shared list doubling": ("jinja2", SHARED.format("[ns.x, ns.x]"), {}, "a built value holding"),
    "shared dict doubling": ("jinja2", SHARED.format("{'a': ns.x, 'b': ns.x}"), {}, "holding"),
    "nested repeat": ("jinja2", "{{ [[1] * 1000000] * 1000000 }}", {}, "holding over 1,000,00"),
    "replace filter": ("jinja2", MILLION + "{{ s|replace('a', s) }}", {}, "the replaced text"),
    "replace method": ("jinja2", MILLION + "{{ s.replace('a', s) }}", {}, "the replaced text"),
    "join generator": (
        "jinja2",
        MILLION + "{{ s.join(range(1000)|map('string')) }}",
        {},
        "the joined text",
    ),
    "work that prints nothing": (
        "jinja2",
        MILLION + "{% for i in range(100000) %}{% set y = s|upper %}{% endfor %}",
        {},
        "building or searching 11,000,000 characters and items exceeds the template budget",
    ),
    "searching in a loop": (
        "jinja2",
        MILLION + "{% for i in range(100000) %}{% if 'b' in s %}{% endif %}{% endfor %}",
        {},
        "max_built_chars",
    ),
    "counting in a loop": (
        "jinja2",
        MILLION + "{% for i in range(100000) %}{% if s.count('b') %}{% endif %}{% endfor %}",
        {},
        "max_built_chars",
    ),
    "expandtabs": (
        "jinja2",
        "{{ ('\t' * 1000).expandtabs(1000000) }}",
        {},
        "the text with tabs expanded",
    ),
    "translate": (
        "jinja2",
        MILLION + "{{ s.translate(table) }}",
        {"table": {97: "b" * 1000}},
        "translated",
    ),
    "bytes replace": (
        "jinja2",
        MILLION + "{{ s.encode().replace('a'.encode(), s.encode()) }}",
        {},
        "the replaced text",
    ),
    "bytes percent width": ("jinja2", "{{ '%1000000000d'.encode() % (1,) }}", {}, "a width"),
    "wordwrap": (
        "jinja2",
        MILLION + "{{ ('a ' * 400000)|wordwrap(1, wrapstring=s) }}",
        {},
        "the wrapped text",
    ),
    "join filter": ("jinja2", MILLION + "{{ range(1000)|join(s) }}", {}, "the joined text"),
    "indent by a long string": (
        "jinja2",
        MILLION + "{{ ('a\n' * 1000)|indent(s) }}",
        {},
        "the indented text",
    ),
    "buffered macro output": (
        "jinja2",
        BUFFERED + "{{ m()|length }}",
        {},
        "the output (1,000,100 characters)",
    ),
    "go nested ifs": (
        "go_template",
        "{{if 1}}" * 5000 + "{{end}}" * 5000,
        {},
        "{{if}} at nesting depth 101 exceeds the template budget max_depth=100",
    ),
    "go long number": ("go_template", "{{" + "9" * 5000 + "}}", {}, "a number literal"),
    "go nested ranges": (
        "go_template",
        "{{range .rows}}{{range .}}x{{end}}{{end}}",
        {"rows": [[1] * 400] * 400},
        "max_loop_iterations",
    ),
    "go output": ("go_template", "{{.s}}" * 2000, {"s": "a" * 1000}, "max_output_chars"),
    "go unclosed actions": ("go_template", "{{" * 100_000, {}, "unclosed action"),
    "fstring output": ("fstring", "{s}" * 2000, {"s": "a" * 1000}, "max_output_chars"),
}

_CHILD = """
import json, sys, time
from hookproof.templates import FormatType, from_agentic_messages, user_agentic_message
results = {}
for case, (kind, text, variables, _) in json.load(sys.stdin).items():
    start = time.perf_counter()
    template = from_agentic_messages(FormatType(kind), user_agentic_message(text))
    try:
        template.format(variables)
        outcome = ["rendered", ""]
    except Exception as error:
        outcome = [type(error).__name__, str(error)]
    results[case] = [*outcome, time.perf_counter() - start]
print(json.dumps(results))
"""


@pytest.fixture(scope="module")
def hostile_outcomes() -> dict[str, tuple[str, str, float]]:
    outcomes = outcomes_in_child(_CHILD, HOSTILE, timeout=120)
    return {case: tuple(result) for case, result in outcomes.items()}


@pytest.mark.parametrize("case", list(HOSTILE))
def test_hostile_template_stops_fast_with_a_named_refusal(
    case: str, hostile_outcomes: dict[str, tuple[str, str, float]]
) -> None:
    error, message, seconds = hostile_outcomes[case]
    expected = "TemplateSyntaxError" if case == "go unclosed actions" else "TemplateSecurityError"
    assert (error, HOSTILE[case][3] in message) == (expected, True), message
    assert seconds < 5
    if expected == "TemplateSecurityError":
        assert "Pass budget=TemplateBudget(" in message


# -- budgets: generous defaults, configurable ---------------------------------------------


def budgeted(
    format_type: FormatType, template: str, budget: TemplateBudget, **variables: Any
) -> str:
    return (
        from_agentic_messages(format_type, user_agentic_message(template), budget=budget)
        .format(variables)[0]
        .text
    )


@pytest.mark.parametrize(
    ("format_type", "template", "length"),
    [
        (J2, "{% for i in range(100000) %}x{% endfor %}", 100_000),
        (J2, "{% for i in range(1000) %}{{ s }}{% endfor %}", 1_000_000),
        (J2, "{{ 2**4095 }}", 1233),
        (
            J2,
            "{% macro m(n) %}{% if n %}{{ m(n - 1) }}{% else %}x{% endif %}{% endmacro %}"
            "{{ m(99) }}",
            1,
        ),
        (GO, "{{if 1}}" * 100 + "x" + "{{end}}" * 100, 1),
        (FS, "{s}" * 1000, 1_000_000),
    ],
    ids=["100k loop", "1M output", "4095-bit int", "depth 100 macro", "depth 100 go", "fstring"],
)
def test_default_budget_is_generous_for_real_prompts(
    format_type: FormatType, template: str, length: int
) -> None:
    assert len(render(format_type, template, {"s": "a" * 1000})) == length


@pytest.mark.parametrize(
    ("format_type", "template"),
    [(J2, "{{ s }}"), (J2, "{% set x %}{{ s }}{% endset %}"), (GO, "{{.s}}"), (FS, "{s}")],
)
def test_output_budget_counts_every_character_written(
    format_type: FormatType, template: str
) -> None:
    tight = TemplateBudget(max_output_chars=5)
    assert budgeted(format_type, template, tight, s="abcde") in ("abcde", "")
    with pytest.raises(TemplateSecurityError, match="the output \\(6 characters\\) exceeds"):
        budgeted(format_type, template, tight, s="abcdef")


def test_budgets_can_be_raised_and_lowered() -> None:
    loops = "{% for i in range(n) %}{% endfor %}"
    assert budgeted(J2, loops, TemplateBudget(max_loop_iterations=200_000), n=200_000) == ""
    with pytest.raises(TemplateSecurityError, match="max_loop_iterations=10;"):
        budgeted(J2, loops, TemplateBudget(max_loop_iterations=10), n=11)
    assert len(budgeted(J2, "{{ 10**2000 }}", TemplateBudget(max_int_bits=8000))) == 2001
    with pytest.raises(TemplateSecurityError, match="max_built_chars=10;"):
        budgeted(J2, "{{ (s|upper)|length }}", TemplateBudget(max_built_chars=10), s="a" * 11)
    with pytest.raises(TemplateSecurityError, match="max_depth=2;"):
        budgeted(GO, "{{if 1}}{{if 1}}{{if 1}}{{end}}{{end}}{{end}}", TemplateBudget(max_depth=2))


@pytest.mark.parametrize("format_type", [FS, GO, J2])
def test_printing_a_huge_integer_variable_is_refused(format_type: FormatType) -> None:
    template = {FS: "{n}", GO: "{{.n}}", J2: "{{ n }}"}[format_type]
    with pytest.raises(TemplateSecurityError, match=r"an integer of 16,610 bits .*max_int_bits"):
        render(format_type, template, {"n": 10**5000})


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("max_output_chars", 0),
        ("max_loop_iterations", -1),
        ("max_depth", True),
        ("max_int_bits", "8"),
    ],
)
def test_budget_values_must_be_positive_integers(field: str, value: Any) -> None:
    with pytest.raises(
        UsageError, match=f"TemplateBudget\\({field}={value!r}\\) is not a positive"
    ):
        TemplateBudget(**{field: value})


def test_budget_must_be_a_template_budget() -> None:
    not_a_budget: Any = {"max_depth": 3}
    with pytest.raises(UsageError, match=r"pass a hookproof\.templates\.TemplateBudget"):
        from_agentic_messages(J2, user_agentic_message("x"), budget=not_a_budget)


# -- crashes become template errors --------------------------------------------------------


class BrokenText:
    def __str__(self) -> str:
        raise IndexError("tuple index out of range")


def _self_containing() -> list[Any]:
    loop: list[Any] = []
    loop.append(loop)
    return loop


def _deeply_nested(depth: int) -> list[Any]:
    nested: list[Any] = []
    for _ in range(depth):
        nested = [nested]
    return nested


@pytest.mark.parametrize(
    ("format_type", "template", "variables"),
    [
        (J2, "{% if 1 %}" * 5000 + "{% endif %}" * 5000, {}),
        (J2, "{{ " + "(" * 5000 + "1" + ")" * 5000 + " }}", {}),
        (J2, "{{ deep }}", {"deep": _deeply_nested(5000)}),
        (GO, "{{.loop}}", {"loop": _self_containing()}),
        (GO, "{{.deep}}", {"deep": _deeply_nested(5000)}),
    ],
    ids=[
        "jinja2 nested ifs",
        "jinja2 nested parentheses",
        "jinja2 deep value",
        "go cycle",
        "go deep",
    ],
)
def test_recursion_errors_become_security_errors(
    format_type: FormatType, template: str, variables: dict[str, Any]
) -> None:
    # Python's default limit: another test in the same worker (hypothesis, for one) may have
    # left it raised, and 5,000 levels would then be followed instead of refused.
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)
    try:
        with pytest.raises(TemplateSecurityError, match=r"nests deeper than Python can follow"):
            render(format_type, template, variables)
    finally:
        sys.setrecursionlimit(limit)


def test_recursive_macro_stops_at_the_depth_budget_even_when_it_is_raised_high() -> None:
    template = "{% macro m(n) %}{{ m(n + 1) }}{% endmacro %}{{ m(0) }}"
    with pytest.raises(TemplateSecurityError, match=r"max_depth"):
        budgeted(J2, template, TemplateBudget(max_depth=100_000))


def test_integer_too_long_for_python_to_print_is_a_security_error() -> None:
    with pytest.raises(TemplateSecurityError, match=r"an integer too long to print"):
        budgeted(J2, "{{ 10**5000 }}", TemplateBudget(max_int_bits=20_000))


JINJA_EXPRESSION_ERRORS = {
    "division by zero": ("{{ 1/0 }}", "ZeroDivisionError: division by zero at line 1"),
    "format without its argument": (
        "first\n{{ '{}'.format() }}",
        "IndexError: tuple index out of range at line 2",
    ),
    "text plus a number": ("{{ 'a' + 1 }}", "TypeError: can only concatenate str"),
    "unpacking a number": ("{% for a, b in xs %}{% endfor %}", "TypeError: cannot unpack"),
    "a value whose text fails": ("{{ broken }}", "IndexError: tuple index out of range"),
}
JINJA_FILTER_FAILURES = {
    "truncate end longer than length": (
        "{{ 'x'|truncate(10, end='a'*100) }}",
        "AssertionError: expected length >= 100, got 10 at line 1",
    ),
    "truncate negative length": (
        "a\n{{ 'x'|truncate(-5) }}",
        "AssertionError: expected length >= 3, got -5 at line 2",
    ),
    "truncate negative leeway": (
        "{{ 'x'|truncate(3, leeway=-10) }}",
        "AssertionError: expected leeway >= 0, got -10 at line 1",
    ),
    "float literal too large": (
        "a\n{{ 1e400|int }}",
        "a number literal too large for a float at line 2 \\(it would be inf\\)",
    ),
    "slice into zero": ("{{ [1, 2]|slice(0)|list }}", "ZeroDivisionError: .* at line 1"),
    "wordwrap width 0": ("{{ 'x'|wordwrap(0) }}", "ValueError: invalid width 0 .* at line 1"),
    "center by a string": ("{{ 'x'|center('a') }}", "TypeError: .* at line 1"),
    "format with too many arguments": ("{{ 'x'|format(1, 2) }}", "TypeError: not all arguments"),
    "filesizeformat of a word": ("{{ 'x'|filesizeformat }}", "ValueError: could not convert"),
    "unique of unhashable values": ("{{ [1, [2]]|unique|list }}", "TypeError: unhashable type"),
    "sort of mixed types": ("{{ [3, 'a']|sort|list }}", "TypeError: '<' not supported"),
    "urlencode of a lone surrogate": ("{{ '\\ud800'|urlencode }}", "UnicodeEncodeError: "),
    "xmlattr of a string": ("{{ 'x'|xmlattr }}", "AttributeError: 'str' object has no"),
    "a filter given too many arguments": ("{{ 'x'|wordcount(1) }}", "TypeError: do_wordcount"),
    "a zero slice step": ("{{ 'abc'[::0] }}", "ValueError: slice step cannot be zero"),
}


JINJA_RENDER_ERRORS = {**JINJA_EXPRESSION_ERRORS, **JINJA_FILTER_FAILURES}


@pytest.mark.parametrize(
    ("template", "message"), JINJA_RENDER_ERRORS.values(), ids=JINJA_RENDER_ERRORS
)
def test_jinja2_render_errors_name_the_template_and_line(template: str, message: str) -> None:
    """Expressions that fail, and filters given bad arguments."""
    with pytest.raises(TemplateRenderError, match=f"template #0 \\(user message\\): .*{message}"):
        render(J2, template, {"xs": [1], "broken": BrokenText()})


@pytest.mark.parametrize(("format_type", "template"), [(FS, "{broken}"), (GO, "{{.broken}}")])
def test_a_variable_that_cannot_be_printed_is_named(format_type: FormatType, template: str) -> None:
    with pytest.raises(TemplateRenderError, match=r"could not be printed: IndexError") as caught:
        render(format_type, template, {"broken": BrokenText()})
    assert caught.value.variable in ("broken", ".broken")


@pytest.mark.parametrize("template", ["{0}", "{}", "{a[0]}", "{a.b}", "{a!r}", "{a:>10}"])
def test_fstring_fields_beyond_plain_names_are_refused_before_any_lookup(template: str) -> None:
    with pytest.raises(
        TemplateSyntaxError, match=r"is not a plain variable name .* e\.g\. \{name\}"
    ):
        render(FS, template, {"a": [1]})


@pytest.mark.parametrize(
    ("template", "error", "message"),
    [
        ("{{ lipsum }}", TemplateVariableError, "'lipsum' is undefined"),
        ("{{ [1, 2]|random }}", TemplateSyntaxError, "No filter named 'random'"),
        ("{{ cycler }}", TemplateSecurityError, "a printed value is a class"),
        ("{{ f }}", TemplateSecurityError, "a printed value is a function"),
        ("{{ m }}", TemplateSecurityError, "a printed value is a method"),
    ],
)
def test_jinja2_never_prints_addresses_or_random_text(
    template: str, error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        render(J2, template, {"f": len, "m": Point(1).method})


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ("{{ '%5.2f%%' % 3.14159 }}", " 3.14%"),
        ("{{ 'call 5551234567 at %s' % 'noon' }}", "call 5551234567 at noon"),
        ("{{ '{}-{:>4}'.format(1700000000, 'x') }}", "1700000000-   x"),
        ("{{ '%s'|format(1700000000) }}", "1700000000"),
        ("{{ ', '.join(xs|map('string')) }}", "1, 2"),
        ("{{ ([xs] * 2)|length }} {{ 'ab' * 3 }}", "2 ababab"),
        ("{{ 'banana'.replace('an', 'AN') }} {{ 'aaa'|replace('a', 'bb') }}", "bANANa bbbbbb"),
        ("{{ 'a\tb'.expandtabs(4) }} {{ 'abc'.translate({97: 'xy'}) }}", "a   b xybc"),
        ("{{ 'aaa bbb ccc'|wordwrap(4, wrapstring='|') }}", "aaa|bbb|ccc"),
        ("{{ 'a' in 'cat' }} {{ 'b' not in ['a'] }} {{ 'abca'.count('a') }}", "True True 2"),
    ],
)
def test_budget_checks_leave_ordinary_formatting_alone(template: str, expected: str) -> None:
    assert render(J2, template, {"xs": [1, 2]}) == expected


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ("{{ range(3) }}", "range(0, 3)"),
        ("{{ range(5)|reverse|list }}", "[4, 3, 2, 1, 0]"),
        ("{{ range(10)[2:5]|list }} {{ range(10)[-1] }}", "[2, 3, 4] 9"),
        ("{{ range(0, 10, 3)|length }} {{ 3 in range(5) }}", "4 True"),
        ("{% for i in range(2) %}{{ loop.index }}/{{ loop.length }} {% endfor %}", "1/2 2/2 "),
        ("{{ cyc }}", "[[...]]"),
    ],
)
def test_metered_range_and_values_behave_as_before(template: str, expected: str) -> None:
    loop: list[Any] = []
    loop.append(loop)
    assert render(J2, template, {"cyc": loop}) == expected


def test_go_range_over_machinery_does_not_print_its_address() -> None:
    with pytest.raises(TemplateVariableError, match=r"range can't iterate over a generator \("):
        render(GO, "{{range .g}}x{{end}}", {"g": _generator()})


def test_jinja2_helpers_that_are_data_still_work() -> None:
    template = "{% set ns = namespace(n=0) %}{% for x in xs %}{% set ns.n = ns.n + x %}{% endfor %}"
    assert render(J2, template + "{{ ns.n }} {{ '%s-%s'|format(1, 2) }}", {"xs": [1, 2]}) == "3 1-2"

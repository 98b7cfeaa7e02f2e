"""Paths around the template budgets and the no-addresses rule: format specs, filters with
size arguments, quadratic filters, and every way a template makes text of a value.

Budget cases run one per child process under an address-space limit, so a budget that stops
holding fails the test (out of memory, over time, or a large peak) instead of hurting the
machine; the bounds are generous, the point is that each case is refused before building.
"""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import enum
import sys
import threading
import weakref
from typing import Any

import pytest
from pydantic import BaseModel

from hookproof.templates import (
    FormatType,
    UnsupportedTemplateConstruct,
)
from tests.templates.helpers import assert_refused, outcomes_in_child, render

J2, GO = FormatType.JINJA2, FormatType.GO_TEMPLATE


# -- budgets: every filter, method and format path ------------------------------------------

LONG = "{% set s = 'a' * 600000 %}"
SPACED = "{% set s = 'a b ' * 150000 %}"
BUDGET_ESCAPES = {
    "nested width as text": "{{ '{0:>{1}}'.format('a', '900000000') }}",
    "nested width by name": "{{ '{0:{w}}'.format('a', w='900000000') }}",
    "format_map width": "{{ '{a:>{w}}'.format_map({'a': 1, 'w': '900000000'}) }}",
    "precision": "{{ '{0:.900000000f}'.format(1.5) }}",
    "many fields within one width each": "{{ ('{0:>900000}' * 100).format(1) }}",
    "many percent widths": "{{ ('%900000d' * 100) % ((1,) * 100) }}",
    "many star widths": "{{ '%*d%*d' % (900000, 1, 900000, 2) }}",
    "many format fields": "{{ ('{0}' * 333333).format(1)|length }}",
    "format fields in a loop": "{% for i in range(100) %}"
    "{% set t = ('{0}' * 50000).format(1) %}{% endfor %}",
    "tojson indent": "{{ [[1]]|tojson(indent=400000000) }}",
    "tojson indent within the budget, nested": "{{ [[[[[[1]]]]]]|tojson(indent=900000) }}",
    "tojson indent string": LONG + "{{ [[1], [2]]|tojson(indent=s) }}",
    "indent width": "{{ ('a\n' * 1000)|indent(900000) }}",
    "indent width keyword": "{{ ('a\n' * 1000)|indent(width=900000, first=true) }}",
    "center": "{{ 'x'|center(900000000) }}",
    "sum of lists": "{{ range(100000)|batch(1)|sum(start=[])|length }}",
    "sum of slices": "{{ range(100000)|slice(100000)|sum(start=[])|length }}",
    "wordwrap one long word": LONG + "{{ s|wordwrap(1, wrapstring='')|length }}",
    "wordwrap many words": SPACED + "{{ s|wordwrap(1, wrapstring='')|length }}",
    "wordwrap in a loop": SPACED
    + "{% for i in range(100) %}{% set w = s|wordwrap(79) %}{% endfor %}",
    "sort in a loop": "{% set xs = 'ba' * 400000 %}"
    "{% for i in range(1000) %}{% set w = xs|sort %}{% endfor %}",
    "urlize in a loop": SPACED + "{% for i in range(100) %}{% set w = s|urlize %}{% endfor %}",
    "zfill": "{{ 'x'.zfill(900000000) }}",
    "ljust": "{{ 'x'.ljust(900000000) }}",
    "string repetition filter": "{{ ['a']|map('center', 900000000)|list }}",
    "star repetition": "{{ 'ab' * 900000000 }}",
    "list repetition": "{{ [1, 2] * 900000000 }}",
    "plus of built lists": "{% set xs = [0] * 900000 %}{{ (xs + xs + xs)|length }}",
    "range": "{{ range(900000000)|list|length }}",
    "replace": LONG + "{{ s|replace('a', 'bbbbbbbb') }}",
    "join": LONG + "{{ range(900)|join(s) }}",
    "batch": "{{ [1]|batch(900000000, 0)|list }}",
    "slice": "{{ [1]|slice(900000000)|list }}",
}
# One child imports hookproof, then forks a process per case: each runs under an
# address-space limit and an alarm, and reports its error, CPU seconds and peak growth.
_CHILD = """
import json, os, resource, signal, sys, time
from hookproof.templates import FormatType, from_agentic_messages, user_agentic_message
def vm(field):
    with open("/proc/self/status") as status:
        return next(int(l.split()[1]) for l in status if l.startswith(field)) * 1024
def run(text):
    resource.setrlimit(resource.RLIMIT_AS, (vm("VmSize:") + 600_000_000, resource.RLIM_INFINITY))
    signal.alarm(60)
    template = from_agentic_messages(FormatType.JINJA2, user_agentic_message(text))
    before, start = vm("VmHWM:"), time.process_time()
    try:
        template.format({})
        outcome = ["rendered", ""]
    except Exception as error:
        outcome = [type(error).__name__, str(error)]
    return [*outcome, time.process_time() - start, vm("VmHWM:") - before]
results = {}
for case, text in json.load(sys.stdin).items():
    read, write = os.pipe()
    if os.fork() == 0:
        os.close(read)
        os.write(write, json.dumps(run(text)).encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        reported = pipe.read()
    _, status = os.wait()
    results[case] = json.loads(reported) if reported else ["died", str(status), 0, 0]
print(json.dumps(results))
"""


@pytest.fixture(scope="module")
def budget_outcomes() -> dict[str, list[Any]]:
    return outcomes_in_child(_CHILD, BUDGET_ESCAPES, timeout=600)


@pytest.mark.skipif(sys.platform != "linux", reason="forks, and reads peak memory from /proc")
@pytest.mark.parametrize("case", list(BUDGET_ESCAPES))
def test_budget_escape_is_refused_before_it_builds(
    case: str, budget_outcomes: dict[str, list[Any]]
) -> None:
    error, message, seconds, grown = budget_outcomes[case]
    assert (error, "exceeds the template budget" in message) == ("TemplateSecurityError", True), (
        message
    )
    assert seconds < 10
    assert grown < 200_000_000


# -- no machinery reaches the output ------------------------------------------------------


class Plain:
    label = "data"

    def method(self) -> str:
        return "called"


class OnlyStr:
    def __str__(self) -> str:
        return "only-str"


@dataclasses.dataclass(repr=False)
class Unrepresented:
    x: int = 1


@dataclasses.dataclass
class Holder:
    inner: Any


class Model(BaseModel):
    name: str = "ada"


class Colour(enum.Enum):
    RED = 1


AN_ADDRESS = r"prints as a memory address"
VARIABLES = {"x": Plain(), "o": OnlyStr(), "u": Unrepresented(), "h": Holder(len)}
ADDRESS_ESCAPES = [
    "{{ x.method|string }}",
    "{{ '{0}'.format(x.method) }}",
    "{{ [range, cycler] }}",
    "{{ '{0!r}'.format(x) }}",
    "{{ '{0!a}'.format(x) }}",
    "{{ '{0.method}'.format(x) }}",
    "{{ '{m}'.format_map({'m': x.method}) }}",
    "{{ x|pprint }}",
    "{{ x.method|e }}",
    "{{ x|attr('method') }}",
    "{{ x.method|tojson }}",
    "{{ x }}",
    "{{ [x] }}",
    "{{ {'k': x.method} }}",
    "{{ (x.method,) }}",
    "{{ x.method ~ '' }}",
    "{{ '%s' % x.method }}",
    "{{ '%r' % (x,) }}",
    "{{ '%(k)r' % {'k': x} }}",
    "{{ '%s'|format(x) }}",
    "{{ [x.method]|join(', ') }}",
    "{{ [x.method]|map('string')|first }}",
    "{{ x.method|upper }}",
    "{{ x.method|truncate(9) }}",
    "{{ {'a': x.method}|xmlattr }}",
    "{{ x.method|urlencode }}",
    "{{ [o] }}",
    "{{ '{0!r}'.format(o) }}",
    "{{ u }}",
    "{{ h }}",
    "{{ cycler(1, 2) }}",
    "{{ joiner() }}",
    "{{ namespace(a=x.method) }}",
    "{% for i in [1] %}{{ loop }}{% endfor %}",
    "{% macro m() %}{% endmacro %}{{ m }}",
    "{{ range }}",
    "{{ dict }}",
]


@pytest.mark.parametrize("template", ADDRESS_ESCAPES)
def test_jinja2_refuses_every_way_of_printing_machinery(template: str) -> None:
    assert " at 0x" not in assert_refused(J2, template, VARIABLES, AN_ADDRESS)


def _cyclic() -> list[Any]:
    cyclic: list[Any] = [1]
    cyclic.append(cyclic)
    return cyclic


# Values that pass "has text of its own" yet print a memory address: a container that holds
# itself (pprint: ``<Recursion on list with id=1406...>``), classes whose own text has one.
SELF_OR_ADDRESS = {
    "cyclic": _cyclic(),
    "held_cycle": {"k": _cyclic()},
    "lock": threading.Lock(),
    "rlock": threading.RLock(),
    "semaphore": threading.Semaphore(),
    "condition": threading.Condition(),
    "view": memoryview(b"ab"),
    "weak": weakref.WeakValueDictionary(),
}
REFUSED_SELF_OR_ADDRESS = r"refers to itself|shows a memory address"
# (Jinja2 prints a list that holds itself as Python does, ``[[...]]``; pprint would show its id.)
SELF_OR_ADDRESS_ESCAPES = [
    "{{ cyclic|pprint }}",
    "{{ held_cycle|pprint }}",
    "{{ [cyclic]|pprint }}",
    *(
        template.format(name=name)
        for name in ("lock", "rlock", "semaphore", "condition", "view", "weak")
        for template in (
            "{{{{ {name} }}}}",
            "{{{{ {name}|string }}}}",
            "{{{{ {name}|pprint }}}}",
            "{{{{ [{name}]|pprint }}}}",
            "{{{{ '{{0}}'.format({name}) }}}}",
            "{{{{ '{{0!r}}'.format({name}) }}}}",
            "{{{{ '%s' % ({name},) }}}}",
            "{{{{ {name} ~ '' }}}}",
            "{{{{ {name}|upper }}}}",
            "{{{{ [{name}]|join(',') }}}}",
        )
    ),
]


@pytest.mark.parametrize("template", SELF_OR_ADDRESS_ESCAPES)
def test_jinja2_refuses_values_that_refer_to_themselves_or_show_an_address(template: str) -> None:
    message = assert_refused(J2, template, SELF_OR_ADDRESS, REFUSED_SELF_OR_ADDRESS)
    assert " at 0x" not in message and "id=" not in message


@pytest.mark.parametrize("name", ["cyclic", "held_cycle", "lock", "rlock", "semaphore", "view"])
def test_fstring_refuses_values_that_refer_to_themselves_or_show_an_address(name: str) -> None:
    assert_refused(FormatType.FSTRING, f"{{{name}}}", SELF_OR_ADDRESS, REFUSED_SELF_OR_ADDRESS)


@pytest.mark.parametrize(
    "template", ["{{.cyclic}}", "{{.held_cycle}}", "{{.lock}}", "{{.condition}}", "{{.view}}"]
)
def test_go_refuses_values_that_refer_to_themselves_or_show_an_address(template: str) -> None:
    assert_refused(GO, template, SELF_OR_ADDRESS, REFUSED_SELF_OR_ADDRESS)


@pytest.mark.parametrize(
    ("template", "variables"),
    [
        ("{{.x}}", {"x": Plain()}),
        ("{{.xs}}", {"xs": [Plain()]}),
        ("{{.m}}", {"m": {"k": Unrepresented()}}),
        ("{{.h}}", {"h": Holder(len)}),
    ],
)
def test_go_refuses_objects_that_print_as_addresses(
    template: str, variables: dict[str, Any]
) -> None:
    assert_refused(GO, template, variables, AN_ADDRESS)


@pytest.mark.parametrize("value", [Plain(), len, [Plain()], {"k": Holder(len)}])
def test_fstring_refuses_objects_that_print_as_addresses(value: Any) -> None:
    assert_refused(FormatType.FSTRING, "{x}", {"x": value}, AN_ADDRESS)


def test_go_has_no_printf_to_widen() -> None:
    with pytest.raises(UnsupportedTemplateConstruct, match="outside the supported subset"):
        render(GO, '{{printf "%999999999d" 1}}', {})


def test_go_range_error_names_an_object_without_its_address() -> None:
    with pytest.raises(Exception, match="range can't iterate over") as caught:
        render(GO, "{{range .x}}{{end}}", {"x": Plain()})
    assert " at 0x" not in str(caught.value)


def test_reading_the_length_of_a_long_list_in_a_loop_costs_nothing() -> None:
    template = "{% for x in xs %}{{ xs|length }}{{ xs|first }}{{ xs|last }}{% endfor %}"
    assert len(render(J2, template, {"xs": [1] * 5000})) == 5000 * 6


DAY = datetime.date(2024, 5, 1)


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ("{{ m }} {{ [m] }}", "name='ada' [Model(name='ada')]"),
        ("{{ c }} {{ d }} {{ n }}", "Colour.RED 2024-05-01 1.50"),
        ("{{ '{}|{!r}'.format(o, 'a') }}", "only-str|'a'"),
        ("{{ o }} {{ o ~ '!' }} {{ '%s' % o }}", "only-str only-str! only-str"),
        ("{{ [o, o]|join(',') }} {{ [o]|map('string')|first }}", "only-str,only-str only-str"),
        ("{{ x.label }} {{ x.method() }}", "data called"),
        ("{{ [x, x]|map(attribute='label')|join(',') }}", "data,data"),
        ("{{ [[1], [2]]|sum(start=[]) }} {{ [1, 2]|sum }}", "[1, 2] 3"),
        ("{{ {'a': [1]}|tojson(indent=2) }}", '{\n  "a": [\n    1\n  ]\n}'),
        ("{{ 'a\nb'|indent(2) }} {{ 'ab cd'|wordwrap(2, wrapstring='/') }}", "a\n  b ab/cd"),
        ("{{ '{0:{1}}|{2:.{3}f}'.format('a', 3, 1.5, 2) }}", "a  |1.50"),
        ("{{ '%-3s|%r' % ('a', 'b') }}", "a  |'b'"),
        (
            "{{ [m, m]|pprint }} {{ [[c], [c]] }}",
            "[Model(name='ada'), Model(name='ada')] [[<Colour.RED: 1>], [<Colour.RED: 1>]]",
        ),
        ("{{ '{0}|{1!r}'.format(d, n) }} {{ d ~ n }}", "2024-05-01|Decimal('1.50') 2024-05-011.50"),
    ],
)
def test_data_still_prints_every_way(template: str, expected: str) -> None:
    variables = {"m": Model(), "c": Colour.RED, "d": DAY, "n": decimal.Decimal("1.50")}
    assert render(J2, template, {**VARIABLES, **variables}) == expected

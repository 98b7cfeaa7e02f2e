"""Render budgets: how much one template text may write, loop, compute and nest.

A template is input. Without bounds, ``{% for i in range(100000) %}{% for j in
range(100000) %}`` or ``{{ 9**(9**9) }}`` never finishes; with them, it stops early with a
TemplateSecurityError that names the budget and how to raise it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from hookproof.errors import TemplateSecurityError, UsageError
from hookproof.templates._printable import address_problem, refusal, unprintable

__all__ = ["DEFAULT_BUDGET", "Meter", "TemplateBudget", "weight"]


@dataclass(frozen=True, kw_only=True)
class TemplateBudget:
    """Limits for rendering one template text (each message's text and media fields alone).

    The defaults are far above what a real prompt needs and far below what hurts a process.
    """

    max_output_chars: int = 1_000_000
    """Characters written, including text written inside macros and ``set`` blocks, and the
    size of any string or list a template builds. A million is about 250,000 tokens, more
    than a model's context window."""

    max_loop_iterations: int = 100_000
    """Loop iterations over the whole text, nested loops multiplied out; ``range()`` items
    count when produced. It equals jinja2's own limit for a single ``range()``."""

    max_int_bits: int = 4096
    """Size of an integer a template computes or prints (4096 bits is 1,234 digits, below
    Python's 4,300-digit limit for turning an integer into text)."""

    max_depth: int = 100
    """Nesting: ``if`` / ``range`` blocks in the Go subset, macro calls and recursive loops
    in Jinja2. Also keeps Python's own recursion limit out of reach."""

    max_built_chars: int = 10_000_000
    """Jinja2 only: characters and items of every value the template builds on the way
    (results of filters, methods, operators, macros) or searches (``x in s``,
    ``s.count(x)``), added up. Bounds work that prints nothing, like ``s|upper`` of a long
    text in a long loop; ten times the output budget leaves room to build before printing."""

    def __post_init__(self) -> None:
        for field, value in vars(self).items():
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise UsageError(
                    f"hookproof: TemplateBudget({field}={value!r}) is not a positive integer; "
                    f"a budget bounds rendering, so it must allow at least 1 (e.g. {field}="
                    f"{getattr(TemplateBudget, field)})."
                )


DEFAULT_BUDGET = TemplateBudget()

_HOW = "Pass budget=TemplateBudget({field}=...) to from_agentic_messages if the template is trusted"


_CONTAINERS = (list, tuple, dict, set, frozenset)


_TEXT = (str, bytes)
_PLAIN_TEXT = frozenset({str, int, float, bool, type(None)})


def _leaf_weight(item: Any) -> int:
    return len(item) if isinstance(item, _TEXT) else 1


def _split(container: Any) -> tuple[int, list[Any]]:
    """The weight of a container's own leaves, and its nested containers."""
    items = [*container.keys(), *container.values()] if isinstance(container, dict) else container
    texts = [item for item in items if isinstance(item, _TEXT)]
    nested = [item for item in items if isinstance(item, _CONTAINERS)]
    leaves = len(items) - len(texts) - len(nested)
    return 1 + leaves + sum(map(len, texts)), nested


def weight(value: Any, limit: int) -> int:
    """Characters of the strings and one per other item inside ``value``, all the way down;
    a value shared n times counts n times, as printing it would. Each container is visited
    once (``[x, x]`` nested sixty deep costs sixty steps), and counting stops past ``limit``."""
    if not isinstance(value, _CONTAINERS):
        return _leaf_weight(value)
    memo: dict[int, int] = {}
    pending: list[tuple[Any, tuple[int, list[Any]] | None]] = [(value, None)]
    while pending:
        item, parts = pending.pop()
        if parts is not None:
            own, nested = parts
            # A nested container not weighed yet is a reference back into a cycle: one.
            memo[id(item)] = own + sum(memo.get(id(child), 1) for child in nested)
            if memo[id(item)] > limit:
                return memo[id(item)]
        elif len(item) > limit:
            return limit + 1
        elif id(item) not in memo:
            memo[id(item)] = 1  # in progress: a cycle back to it counts one, as repr's [...]
            parts = _split(item)
            pending.append((item, parts))
            pending.extend((child, None) for child in parts[1] if id(child) not in memo)
    return memo[id(value)]


class Meter:
    """What one rendering has spent; each check raises once a budget is exceeded."""

    def __init__(self, budget: TemplateBudget, template: str) -> None:
        self.budget = budget
        self.template = template
        self.output = 0
        self.iterations = 0
        self.depth = 0
        self.built = 0

    def refuse(self, field: str, what: str) -> TemplateSecurityError:
        limit = getattr(self.budget, field)
        return TemplateSecurityError(
            self.template,
            f"{what} exceeds the template budget {field}={limit:,}; the budget keeps a "
            f"hostile or broken template from hanging or exhausting the process. "
            f"{_HOW.format(field=field)}.",
        )

    def refuse_print(self, kind: str) -> TemplateSecurityError:
        return TemplateSecurityError(self.template, f"a printed value {refusal(kind)}")

    def check_printable(self, value: Any, *, by_repr: bool = False, cycles: bool = False) -> Any:
        """``value`` if its text is data all the way down (parts looked at are charged as
        built), else refused: see _printable. ``cycles``: refuse a value that refers to
        itself (else it prints as Python's ``[...]``)."""
        if type(value) in _PLAIN_TEXT:
            return value
        limit = self.budget.max_built_chars - self.built
        problem, looked = unprintable(value, limit=limit, by_repr=by_repr, cycles=cycles)
        self.charge_built(looked - 1)
        if problem:
            raise self.refuse_print(problem)
        if not isinstance(value, str) and not hasattr(type(value), "_fail_with_undefined_error"):
            self._check_text(value, by_repr)
        return value

    def _check_text(self, value: Any, by_repr: bool) -> None:
        """The last check: the text ``value`` makes shows no memory address. The text is made
        here only if printing it would fit the output budget (jinja2's undefined value is
        left to raise its own error where it is printed)."""
        held = weight(value, self.budget.max_output_chars)
        if held > self.budget.max_output_chars:
            raise self.refuse("max_output_chars", f"a printed value holding over {held:,} items")
        try:
            text = repr(value) if by_repr else str(value)
        except Exception:  # noqa: BLE001 - printing it raises this again, with its own report
            return
        if problem := address_problem(value, text):
            raise self.refuse_print(problem)

    def write(self, text: str) -> str:
        self.output += len(text)
        if self.output > self.budget.max_output_chars:
            raise self.refuse("max_output_chars", f"the output ({self.output:,} characters)")
        return text

    def check_size(self, value: Any, what: str) -> Any:
        """A string or collection the template built may not outgrow the output budget, and
        all it builds together not the build budget."""
        size = len(value) if isinstance(value, str | bytes | list | tuple | dict) else 0
        if size > self.budget.max_output_chars:
            unit = "characters" if isinstance(value, str) else "items"
            raise self.refuse("max_output_chars", f"{what} of {size:,} {unit}")
        self.charge_built(size)
        return value

    def charge_built(self, size: int) -> None:
        self.built += size
        if self.built > self.budget.max_built_chars:
            what = f"building or searching {self.built:,} characters and items"
            raise self.refuse("max_built_chars", what)

    def weigh(self, value: Any, what: str) -> Any:
        """Like check_size, counting what a value holds all the way down (characters of its
        strings, one per other item): ``[x, x]`` repeated twenty times holds a million."""
        if isinstance(value, _CONTAINERS):
            held = weight(value, self.budget.max_output_chars)
            if held > self.budget.max_output_chars:
                raise self.refuse("max_output_chars", f"{what} holding over {held:,} items")
        return self.check_size(value, what)

    def iterate(self, count: int = 1) -> None:
        self.iterations += count
        if self.iterations > self.budget.max_loop_iterations:
            raise self.refuse("max_loop_iterations", f"loop iteration {self.iterations:,}")

    def counted(self, items: Iterable[Any]) -> Iterator[Any]:
        for item in items:
            self.iterate()
            yield item

    def check_int(self, value: Any) -> Any:
        if isinstance(value, int) and value.bit_length() > self.budget.max_int_bits:
            raise self.refuse("max_int_bits", f"an integer of {value.bit_length():,} bits")
        return value

    def check_int_bits(self, bits: float, what: str) -> None:
        """Refuse before computing: ``bits`` is the result's size, estimated from operands."""
        if bits > self.budget.max_int_bits:
            raise self.refuse("max_int_bits", f"{what} (about {math.ceil(bits):,} bits)")

    def enter(self, what: str) -> None:
        self.depth += 1
        if self.depth > self.budget.max_depth:
            raise self.refuse("max_depth", f"{what} at nesting depth {self.depth}")

    def leave(self) -> None:
        self.depth -= 1

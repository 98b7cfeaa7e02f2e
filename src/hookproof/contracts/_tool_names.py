"""The tool names a check is given: a collection, never a bare string, and names the agent
has (a misspelt name would silently be checked the wrong way)."""

from __future__ import annotations

import difflib
import sys
from collections.abc import Collection

from hookproof.errors import InvalidInputError, UsageError
from hookproof.harness import BUILTIN_TOOL_NAMES as HARNESS_TOOL_NAMES

__all__ = ["builtin_tool_names", "known_names", "named_tools", "required_names"]


def builtin_tool_names() -> frozenset[str]:
    """The built-in tools of the harness and (when its adapter is loaded, as it is when its
    constant was passed) deepagents: a check may be given them whether or not the agent has
    them."""
    deepagents = sys.modules.get("hookproof.adapters.deepagents")
    theirs: frozenset[str] = getattr(deepagents, "BUILTIN_TOOL_NAMES", frozenset())
    return HARNESS_TOOL_NAMES | theirs


def named_tools(value: Collection[str], parameter: str, check: str) -> frozenset[str]:
    """``value`` as a set of names; a string is refused (it is a collection of letters)."""
    if isinstance(value, str):
        raise UsageError(
            f"hookproof: {check} takes {parameter} as a collection of tool names, got the "
            f"string {value!r}. Write {parameter}=({value!r},)."
        )
    return frozenset(value)


def required_names(value: Collection[str], check: str, example: str) -> None:
    """Refuse a string or an empty collection where a check needs tool names to call."""
    if isinstance(value, str) or not value:
        raise UsageError(
            f"hookproof: {check} takes a non-empty collection of tool names, got {value!r}. "
            f"Example: {check}(build, [{example!r}])."
        )


def known_names(names: frozenset[str], known: Collection[str], parameter: str) -> None:
    """Refuse names that are no tools of the agent, with a "did you mean" where one is close."""
    unknown = sorted(names - set(known))
    if not unknown:
        return
    hints = {n: difflib.get_close_matches(n, sorted(known), n=1) for n in unknown}
    did_you_mean = "".join(f" {n!r}: did you mean {h[0]!r}?" for n, h in hints.items() if h)
    raise InvalidInputError(
        f"hookproof: {parameter} names {unknown}, which are no tools of this agent (its tools: "
        f"{sorted(known)}). A misspelt name would silently be checked the wrong way.{did_you_mean}"
        f" Name tools the agent registers or shows the model."
    )

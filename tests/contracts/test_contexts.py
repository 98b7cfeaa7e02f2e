"""strategies.contexts(): hostile contexts are never trusted ones, and a fail-closed property
test finds each way a router can fail open, shrunk to the simplest context that shows it."""

from __future__ import annotations

import enum
import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import pytest
from hypothesis import HealthCheck, find, given, settings
from hypothesis.errors import NoSuchExample

from hookproof import contracts
from hookproof.contracts import ContractViolation, strategies
from hookproof.examples.dynamic_routing import (
    BUSINESS_TOOL_NAMES,
    BUSINESS_TOOLS,
    AgentContext,
    RequestRouter,
    visible_business_tools,
)
from hookproof.runtime import ModelRequest, create_agent

GUEST = AgentContext("guest", "fast")
TIERS = ("fast", "reasoning")
ROLES = ("guest", "analyst", "admin")
# find() stops at the first failure and shrinks it; the budget makes missing one negligible
# (hypothesis mixes constants from the loaded modules into its draws, so runs differ).
FIND = settings(
    max_examples=1000, derandomize=True, database=None, suppress_health_check=list(HealthCheck)
)


def _trusting(resolve: Callable[[Any], tuple[Any, Any]], *, typed: bool = True) -> Any:
    """A router that grants the role and tier ``resolve(context)`` gives, when both are legal
    (only for AgentContext instances when ``typed``): the flaw is in ``resolve``."""

    class Router(RequestRouter):
        def wrap_model_call(self, request: ModelRequest, handler: Any) -> Any:
            context = request.runtime.context if request.runtime else None
            trusted = not typed or isinstance(context, AgentContext)
            role, tier = resolve(context) if trusted else ("guest", "fast")
            if role not in ROLES or tier not in TIERS:
                role, tier = "guest", "fast"
            allowed = visible_business_tools(role)
            tools = [
                t for t in request.tools if t.name not in BUSINESS_TOOL_NAMES or t.name in allowed
            ]
            return handler(request.override(model=self.models[tier], tools=tools))

    def build(models: Any) -> Any:
        return create_agent(models["fast"], list(BUSINESS_TOOLS), middleware=[Router(models)])

    return build


def _fields(context: Any) -> tuple[Any, Any]:
    return getattr(context, "role", None), getattr(context, "model_tier", None)


def _fails_open(build: Any) -> Callable[[Any], bool]:
    def violates(context: Any) -> bool:
        try:
            contracts.check_fail_closed(build, context, least_privileged_context=GUEST, tiers=TIERS)
        except ContractViolation:
            return True
        return False

    return violates


def _minimal(build: Any) -> Any:
    """The simplest hostile context hypothesis finds the router failing open on."""
    return find(strategies.contexts(AgentContext, trusted=False), _fails_open(build), settings=FIND)


def _lower(context: Any) -> tuple[Any, Any]:
    role, tier = _fields(context)
    return (role.lower() if isinstance(role, str) else role), tier


def _strip(context: Any) -> tuple[Any, Any]:
    role, tier = _fields(context)
    return (role.strip() if isinstance(role, str) else role), tier


def _empty_is_admin(context: Any) -> tuple[Any, Any]:
    role, tier = _fields(context)
    return ("admin" if role == "" else role), tier


def _none_is_admin(context: Any) -> tuple[Any, Any]:
    role, tier = _fields(context)
    return ("admin" if role is None else role), tier


def _tier_of_anyone(context: Any) -> tuple[Any, Any]:
    role, tier = _fields(context)
    return (role if role in ROLES and tier in TIERS else "guest"), tier


def _role_only(context: Any) -> tuple[Any, Any]:
    role, tier = _fields(context)
    return role, tier if tier in TIERS else "fast"


def _dict_or_instance(context: Any) -> tuple[Any, Any]:
    if isinstance(context, dict):
        return context.get("role"), context.get("model_tier")
    return _fields(context) if isinstance(context, AgentContext) else (None, None)


# Found before contexts() drew from catalogues (issue #31), with the same minimal example.
CAUGHT_BEFORE = {
    "unknown context is admin": (
        _trusting(lambda c: (getattr(c, "role", "admin"), "fast"), typed=False),
        None,
    ),
    "crash on a missing context": (_trusting(lambda c: (c.role, c.model_tier), typed=False), None),
    "empty role is admin": (_trusting(_empty_is_admin), AgentContext("", "fast")),  # type: ignore[arg-type]
    "None role is admin": (_trusting(_none_is_admin), AgentContext(None, "fast")),  # type: ignore[arg-type]
    "tier trusted from anyone": (_trusting(_tier_of_anyone), AgentContext(None, "reasoning")),  # type: ignore[arg-type]
    "role trusted without its tier": (_trusting(_role_only), AgentContext("analyst", None)),  # type: ignore[arg-type]
}


@pytest.mark.parametrize("name", sorted(CAUGHT_BEFORE))
def test_contexts_still_find_what_they_found(name: str) -> None:
    build, expected = CAUGHT_BEFORE[name]
    found = _minimal(build)
    assert repr(found) == repr(expected)


def test_contexts_find_a_role_compared_without_its_case() -> None:
    found = _minimal(_trusting(_lower))
    role, tier = _fields(found)
    assert isinstance(found, AgentContext) and role not in ROLES and role.lower() in ROLES
    assert tier in TIERS


def test_contexts_find_a_role_compared_after_stripping_it() -> None:
    found = _minimal(_trusting(_strip))
    role, _ = _fields(found)
    assert isinstance(found, AgentContext) and role not in ROLES and role.strip() in ROLES


def test_contexts_find_a_dict_read_as_a_context() -> None:
    found = _minimal(_trusting(_dict_or_instance, typed=False))
    assert isinstance(found, dict) and found.get("role") in ROLES


def test_contexts_find_an_object_of_another_type_read_as_a_context() -> None:
    found = _minimal(_trusting(_fields, typed=False))
    assert isinstance(found, types.SimpleNamespace) and _fields(found) != ("guest", "fast")


def test_contexts_find_nothing_on_the_example_router() -> None:
    build = _trusting(_fields)  # trusts AgentContext instances whose fields are both legal
    with pytest.raises(NoSuchExample):
        _minimal(build)


@dataclass(frozen=True)
class Mixed:
    plan: Literal["free", "pro"]
    seats: int
    region: Literal["eu", "us"] = "eu"


def _trusted(context: Any) -> bool:
    return (
        isinstance(context, Mixed)
        and type(context.plan) is str
        and context.plan in ("free", "pro")
        and type(context.region) is str
        and context.region in ("eu", "us")
    )


@settings(max_examples=300, suppress_health_check=list(HealthCheck))
@given(context=strategies.contexts(Mixed, trusted=False))
def test_hostile_contexts_always_leave_the_domain(context: Any) -> None:
    assert not _trusted(context)


@settings(max_examples=100)
@given(context=strategies.contexts(Mixed, trusted=True))
def test_trusted_contexts_stay_in_the_domain(context: Any) -> None:
    assert _trusted(context) and isinstance(context.seats, int)


def test_hostile_values_include_look_alikes_of_each_choice() -> None:
    seen = find(
        strategies.contexts(Mixed, trusted=False),
        lambda c: isinstance(c, Mixed) and c.plan == "PRO" and c.region in ("eu", "us"),
        settings=FIND,
    )
    assert seen.plan == "PRO"


@dataclass(frozen=True)
class Named:
    user: str


def test_a_field_without_a_domain_still_gets_values_of_its_type() -> None:
    # No catalogue holds "ab": only the field's own type (str) can give it.
    found = find(
        strategies.contexts(Named, trusted=False),
        lambda c: isinstance(c, Named) and isinstance(c.user, str) and len(c.user) == 2,
        settings=FIND,
    )
    assert isinstance(found, Named) and len(found.user) == 2


class Clearance(enum.Enum):
    SECRET = "secret"


@dataclass(frozen=True)
class Levelled:
    level: Literal[1, 2]
    clearance: Literal[Clearance.SECRET]
    title: Literal["Admin"]


def _drawn(field: str, wanted: Any) -> Any:
    """A hostile Levelled whose ``field`` is ``wanted``, of its very type."""

    def has_it(context: Any) -> bool:
        value = getattr(context, field, None)
        return isinstance(context, Levelled) and type(value) is type(wanted) and value == wanted

    return getattr(find(strategies.contexts(Levelled, trusted=False), has_it, settings=FIND), field)


@pytest.mark.parametrize("wanted", [True, "1", 3, 0], ids=["truth", "text", "next", "previous"])
def test_hostile_numbers_include_their_truth_value_text_and_neighbours(wanted: Any) -> None:
    """``level == 1`` trusts True, ``str(level) in ...`` trusts "1": both are drawn."""
    assert type(_drawn("level", wanted)) is type(wanted)


@pytest.mark.parametrize("wanted", ["secret", "SECRET"], ids=["value", "name"])
def test_hostile_enum_values_include_the_members_raw_value_and_name(wanted: str) -> None:
    assert _drawn("clearance", wanted) == wanted


@pytest.mark.parametrize("wanted", ["admin", "Adminx"], ids=["lower", "suffix"])
def test_hostile_text_includes_other_cases_and_a_longer_word(wanted: str) -> None:
    assert _drawn("title", wanted) == wanted

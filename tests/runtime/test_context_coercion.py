"""A dict context becomes an instance of a dataclass or pydantic ``context_schema``, as
LangGraph makes it; so check_fail_closed finds an application whose context_schema turns an
untrusted dict into a trusted context, on the reference engine as on LangChain."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypedDict

import pytest
from pydantic import BaseModel

from hookproof import contracts
from hookproof.errors import ContractViolation, InvalidInputError, UsageError
from hookproof.examples.dynamic_routing import AgentContext, build_support_agent
from hookproof.models import ScriptedModel
from hookproof.runtime import before_model, create_agent

HI = {"messages": [("user", "hi")]}
GUEST = AgentContext("guest", "fast")


@dataclass(frozen=True)
class DataContext:
    role: str = "guest"


class ModelContext(BaseModel):
    role: str = "guest"


class DictContext(TypedDict):
    role: str


def _context_seen(schema: Any, context: Any) -> Any:
    seen: list[Any] = []

    @before_model
    def look(state: Any, runtime: Any) -> None:
        seen.append(runtime.context)

    create_agent(ScriptedModel(["ok"]), middleware=[look], context_schema=schema).invoke(
        HI, context=context
    )
    return seen[0]


def _langgraph_context_seen(schema: Any, context: Any) -> Any:
    pytest.importorskip("langchain.agents", reason="install hookproof[langchain]")
    from langchain.agents import create_agent as langchain_create_agent
    from langchain.agents.middleware import before_model as lc_before_model

    from hookproof.adapters.langchain import ScriptedChatModel

    seen: list[Any] = []

    @lc_before_model
    def look(state: Any, runtime: Any) -> None:
        seen.append(runtime.context)

    agent = langchain_create_agent(
        ScriptedChatModel(["ok"]), middleware=[look], context_schema=schema
    )
    agent.invoke(HI, context=context)
    return seen[0]


@pytest.mark.parametrize(
    ("schema", "context"),
    [
        (DataContext, {"role": "admin"}),
        (ModelContext, {"role": "admin"}),
        (DictContext, {"role": "admin"}),
        (None, {"role": "admin"}),
        (DataContext, DataContext("analyst")),
        (DataContext, None),
    ],
    ids=["dataclass", "pydantic", "typeddict", "no schema", "instance", "none"],
)
def test_a_dict_context_is_coerced_as_langgraph_does(schema: Any, context: Any) -> None:
    ours = _context_seen(schema, context)
    assert ours == _langgraph_context_seen(schema, context)
    assert type(ours) is type(_langgraph_context_seen(schema, context))


def test_a_dict_that_is_not_a_context_of_the_schema_is_a_clear_error() -> None:
    with pytest.raises(UsageError, match="context_schema") as caught:
        _context_seen(DataContext, {"rank": "admin"})
    assert isinstance(caught.value, TypeError)  # as LangGraph's constructor call raises
    with pytest.raises(InvalidInputError, match="not a valid one"):
        _context_seen(ModelContext, {"role": ["admin"]})


def test_fail_closed_catches_a_context_schema_that_trusts_dicts() -> None:
    def with_schema(models: Any) -> Any:
        agent = build_support_agent(models)
        return create_agent(
            models["fast"],
            list(agent.tools),
            middleware=list(agent.middleware),
            context_schema=AgentContext,
        )

    def without_schema(models: Any) -> Any:
        return build_support_agent(models)

    forged = {"role": "admin", "model_tier": "reasoning"}
    tiers = ("fast", "reasoning")
    with pytest.raises(ContractViolation, match="tools beyond the least-privileged set"):
        contracts.check_fail_closed(
            with_schema, forged, least_privileged_context=GUEST, tiers=tiers
        )
    contracts.check_fail_closed(without_schema, forged, least_privileged_context=GUEST, tiers=tiers)

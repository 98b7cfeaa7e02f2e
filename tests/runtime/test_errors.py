"""Build-time and run-time failures: each one specific, with a message that says what to do."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from hookproof.errors import (
    DuplicateMiddlewareError,
    DuplicateToolError,
    HookproofError,
    MaxIterationsExceeded,
    MissingAsyncHookError,
    ToolError,
    UnexecutableToolError,
    UsageError,
)
from hookproof.models import RecordingModel, ScriptedModel, call
from hookproof.runtime import AgentMiddleware, create_agent, tool, wrap_model_call
from tests.helpers import Everything, lookup

HI = {"messages": [("user", "hi")]}


def test_duplicate_tool_names_name_both_sources() -> None:
    class Adds(AgentMiddleware):
        tools = (lookup,)

    with pytest.raises(DuplicateToolError, match=r"'lookup'.*middleware 'Adds'.*tools=\[0\]"):
        create_agent(ScriptedModel([]), [lookup], middleware=[Adds()])
    with pytest.raises(ValueError, match=r"tools=\[0\].*tools=\[1\]"):
        create_agent(ScriptedModel([]), [lookup, lookup])


def test_duplicate_tool_names_inside_one_middleware_fail() -> None:
    @tool("lookup")
    def other_lookup(query: str) -> str:
        """Another lookup."""
        return query

    class Both(AgentMiddleware):
        tools = (lookup, other_lookup)

    with pytest.raises(DuplicateToolError, match="middleware 'Both', one from middleware 'Both'"):
        create_agent(ScriptedModel([]), middleware=[Both()])


def test_duplicate_middleware_names_fail_at_build() -> None:
    with pytest.raises(DuplicateMiddlewareError, match=r"named 'A' \(positions 0 and 1\)"):
        create_agent(ScriptedModel([]), middleware=[Everything("A"), Everything("A")])


def test_misspelled_hook_is_reported_with_a_suggestion() -> None:
    class Typo(AgentMiddleware):
        def before_modle(self, state: Any, runtime: Any) -> None:
            return None

    with pytest.raises(UsageError, match="Did you mean 'before_model'"):
        create_agent(ScriptedModel([]), middleware=[Typo()])


def test_middleware_class_instead_of_instance_is_explained() -> None:
    with pytest.raises(UsageError, match=r"Pass Everything\(\)"):
        create_agent(ScriptedModel([]), middleware=[Everything])


def test_unknown_tool_becomes_an_error_tool_message_listing_valid_tools() -> None:
    agent = create_agent(ScriptedModel([call("nope", {}), "done"]), [lookup])
    result = agent.invoke(HI)
    tool_message = result.messages[2]
    assert tool_message.status == "error"
    assert tool_message.text == "Error: nope is not a valid tool, try one of [lookup]."
    assert result.text == "done"


@tool
def calculate_tip(amount: float, percentage: float = 15.0) -> str:
    """Calculate a tip."""
    return f"{amount * percentage / 100:.2f}"


@wrap_model_call
def schema_only(request: Any, handler: Any) -> Any:
    return handler(request.override(tools=[*request.tools, calculate_tip]))


def test_schema_only_tool_fails_before_the_model_is_called() -> None:
    model = RecordingModel(ScriptedModel([call("calculate_tip", {"amount": 20}), "done"]))
    agent = create_agent(model, [lookup], middleware=[schema_only])
    with pytest.raises(UnexecutableToolError, match=r"\['calculate_tip'\].*both hooks"):
        agent.invoke(HI)
    assert model.requests == ()


def test_two_hook_runtime_tool_executes() -> None:
    class Executes(AgentMiddleware):
        def wrap_tool_call(self, request: Any, handler: Any) -> Any:
            if request.tool_call.name == "calculate_tip":
                return handler(request.override(tool=calculate_tip))
            return handler(request)

    model = ScriptedModel([call("calculate_tip", {"amount": 20}), "done"])
    result = create_agent(model, [lookup], middleware=[schema_only, Executes()]).invoke(HI)
    assert result.messages[2].text == "3.00"
    assert result.messages[2].status == "success"


def test_unknown_tool_reaches_wrap_tool_call_with_tool_none() -> None:
    seen: list[Any] = []

    class Sees(AgentMiddleware):
        def wrap_tool_call(self, request: Any, handler: Any) -> Any:
            seen.append(request.tool)
            return handler(request)

    create_agent(ScriptedModel([call("ghost"), "done"]), [lookup], middleware=[Sees()]).invoke(HI)
    assert seen == [None]


@tool
def fails_softly(customer_id: str) -> str:
    """Fail with an error the model may correct."""
    raise ToolError(f"customer {customer_id} does not exist")


@tool
def fails_hard(customer_id: str) -> str:
    """Fail with a defect."""
    raise PermissionError("role 'guest' may not call this tool")


def test_tool_error_becomes_error_tool_message() -> None:
    model = ScriptedModel([call("fails_softly", {"customer_id": "c9"}), "sorry"])
    result = create_agent(model, [fails_softly]).invoke(HI)
    assert (result.messages[2].status, result.messages[2].text) == (
        "error",
        "customer c9 does not exist",
    )


def test_other_tool_exceptions_propagate_out_of_invoke() -> None:
    model = ScriptedModel([call("fails_hard", {"customer_id": "c9"}), "never"])
    with pytest.raises(PermissionError, match="may not call"):
        create_agent(model, [fails_hard]).invoke(HI)


def test_invalid_tool_arguments_become_an_error_tool_message() -> None:
    model = ScriptedModel([call("lookup", {"query": 3, "extra": 1}), "done"])
    result = create_agent(model, [lookup]).invoke(HI)
    assert result.messages[2].status == "error"
    assert "invalid arguments for tool 'lookup'" in result.messages[2].text
    assert "extra" in result.messages[2].text


def test_max_iterations_exceeded_is_specific() -> None:
    model = ScriptedModel([call("lookup", {"query": "x"})] * 5)
    agent = create_agent(model, [lookup], max_iterations=3)
    with pytest.raises(MaxIterationsExceeded, match=r"4th time, over max_iterations=3"):
        agent.invoke(HI)
    assert model.calls == 3


@pytest.mark.parametrize("bad", [0, -1, 1.5, True])
def test_max_iterations_must_be_a_positive_int(bad: Any) -> None:
    with pytest.raises(HookproofError, match="max_iterations"):
        create_agent(ScriptedModel([]), max_iterations=bad)


def test_missing_context_is_none_in_hooks_and_tools() -> None:
    seen: list[Any] = []

    class Looks(AgentMiddleware):
        def before_model(self, state: Any, runtime: Any) -> None:
            seen.append(runtime.context)

        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            seen.append(request.runtime.context)
            return handler(request)

        def wrap_tool_call(self, request: Any, handler: Any) -> Any:
            seen.append(request.runtime.context)
            return handler(request)

    model = ScriptedModel([call("lookup", {"query": "x"}), "done"])
    create_agent(model, [lookup], middleware=[Looks()]).invoke(HI)
    assert seen == [None] * 5


def test_async_only_hook_under_invoke_says_to_use_ainvoke() -> None:
    class AsyncOnly(AgentMiddleware):
        async def abefore_model(self, state: Any, runtime: Any) -> None:
            return None

    agent = create_agent(ScriptedModel(["done"]), middleware=[AsyncOnly()])
    with pytest.raises(MissingAsyncHookError, match=r"defines only abefore_model.*ainvoke"):
        agent.invoke(HI)
    assert asyncio.run(agent.ainvoke(HI)).text == "done"


@pytest.mark.parametrize(
    ("value", "pattern"),
    [
        pytest.param(["hi"], "'messages' list", id="not-a-dict"),
        pytest.param({"messages": "hi"}, "must be a list of messages", id="string"),
        pytest.param({"messages": [("robot", "x")]}, "role 'robot'", id="bad-role"),
        pytest.param({"messages": [42]}, r"input\['messages'\]\[0\] is a int", id="number"),
    ],
)
def test_bad_input_is_explained(value: Any, pattern: str) -> None:
    with pytest.raises(HookproofError, match=pattern):
        create_agent(ScriptedModel(["x"])).invoke(value)


def test_model_none_and_non_models_are_rejected() -> None:
    with pytest.raises(UsageError, match="model=None"):
        create_agent(None)
    with pytest.raises(UsageError, match="no invoke"):
        create_agent(object())


def test_wrong_return_type_from_a_wrap_hook_is_explained() -> None:
    @wrap_model_call
    def returns_text(request: Any, handler: Any) -> Any:
        return "oops"

    with pytest.raises(UsageError, match=r"returns_text\.wrap_model_call returned str"):
        create_agent(ScriptedModel(["x"]), middleware=[returns_text]).invoke(HI)


def test_unknown_state_key_with_a_schema_is_rejected() -> None:
    from typing import TypedDict

    class State(TypedDict):
        messages: list[Any]
        count: int

    class Writes(AgentMiddleware):
        def before_agent(self, state: Any, runtime: Any) -> Any:
            return {"cuont": 1}

    agent = create_agent(ScriptedModel(["x"]), middleware=[Writes()], state_schema=State)
    with pytest.raises(ValueError, match=r"'cuont'.*known: \['count', 'messages'\]"):
        agent.invoke(HI)


def test_a_misspelled_hook_added_to_a_class_after_its_first_build_is_reported() -> None:
    class Later(AgentMiddleware):
        def before_model(self, state: Any, runtime: Any) -> None:
            return None

    create_agent(RecordingModel(ScriptedModel(["ok"])), middleware=[Later()])
    Later.after_modle = lambda self, state, runtime: None  # type: ignore[attr-defined]
    with pytest.raises(UsageError, match="after_modle"):
        create_agent(RecordingModel(ScriptedModel(["ok"])), middleware=[Later()])


def test_a_misspelled_hook_added_to_a_base_class_is_reported_for_its_subclasses() -> None:
    class Base(AgentMiddleware):
        pass

    class Child(Base):
        def before_model(self, state: Any, runtime: Any) -> None:
            return None

    create_agent(RecordingModel(ScriptedModel(["ok"])), middleware=[Child()])
    Base.wrap_tool = lambda self, request, handler: handler(request)  # type: ignore[attr-defined]
    with pytest.raises(UsageError, match="wrap_tool"):
        create_agent(RecordingModel(ScriptedModel(["ok"])), middleware=[Child()])

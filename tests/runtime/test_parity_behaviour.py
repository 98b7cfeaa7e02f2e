"""Behaviour beside LangChain's create_agent: each test runs the same middleware and script
on LangChain (the oracle, with a scripted LangChain chat model) and on hookproof's runtime,
and compares what happens: the exception types, the state, the refusals."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from hookproof.errors import (
    MissingAsyncHookError,
    UnexecutableToolError,
    UnsupportedCommandError,
)
from hookproof.models import ScriptedModel, call
from hookproof.runtime import (
    AgentMiddleware,
    Command,
    ExtendedModelResponse,
    create_agent,
    tool,
)

lc = pytest.importorskip("langchain.agents")
lc_middleware = pytest.importorskip("langchain.agents.middleware")
lc_tools = pytest.importorskip("langchain_core.tools")
lc_types = pytest.importorskip("langgraph.types")

HI = {"messages": [("user", "hi")]}


def langchain_run(
    middleware: list[Any], script: list[Any], tools: list[Any] | None = None
) -> dict[str, Any]:
    from hookproof.adapters.langchain import ScriptedChatModel

    agent = lc.create_agent(ScriptedChatModel(script=script), tools or [], middleware=middleware)
    return agent.invoke(HI)  # type: ignore[no-any-return]


def langchain_error(
    middleware: list[Any], script: list[Any], tools: list[Any] | None = None
) -> BaseException:
    with pytest.raises(Exception) as caught:  # noqa: PT011 - the type is what is compared
        langchain_run(middleware, script, tools)
    return caught.value


def hookproof_error(
    middleware: list[Any], script: list[Any], tools: list[Any] | None = None
) -> BaseException:
    with pytest.raises(Exception) as caught:  # noqa: PT011 - the type is what is compared
        create_agent(ScriptedModel(script), tools or [], middleware=middleware).invoke(HI)
    return caught.value


def middleware_pair(name: str = "Probe", **hooks: Callable[..., Any]) -> tuple[Any, Any]:
    """The same hooks on a LangChain middleware and on a hookproof one."""
    return (
        type(name, (lc_middleware.AgentMiddleware,), dict(hooks))(),
        type(name, (AgentMiddleware,), dict(hooks))(),
    )


@lc_tools.tool("echo")
def lc_echo(text: str) -> str:
    """Echo the text."""
    return text


@tool("echo")
def hp_echo(text: str) -> str:
    """Echo the text."""
    return text


# -- an async-only hook under invoke() ----------------------------------------------------


async def _async_node(self: Any, state: Any, runtime: Any) -> None:
    return None


async def _async_wrap(self: Any, request: Any, handler: Any) -> Any:
    return await handler(request)


@pytest.mark.parametrize(
    "hook",
    [
        "before_agent",
        "before_model",
        "after_model",
        "after_agent",
        "wrap_model_call",
        "wrap_tool_call",
    ],
)
def test_an_async_only_hook_under_invoke_raises_what_langchain_raises(hook: str) -> None:
    function = _async_wrap if hook.startswith("wrap_") else _async_node
    on_langchain, on_hookproof = middleware_pair(**{f"a{hook}": function})
    expected = langchain_error([on_langchain], [call("echo", {"text": "x"}), "done"], [lc_echo])
    raised = hookproof_error([on_hookproof], [call("echo", {"text": "x"}), "done"], [hp_echo])
    assert isinstance(raised, MissingAsyncHookError)
    assert isinstance(raised, type(expected)), (type(expected), type(raised))
    assert f"defines only a{hook}" in str(raised)


# -- a tool nothing can execute -----------------------------------------------------------


def test_a_tool_nothing_can_execute_raises_what_langchain_raises() -> None:
    @lc_tools.tool
    def ghost(text: str) -> str:
        """Nobody runs me."""
        return text

    @tool("ghost")
    def hp_ghost(text: str) -> str:
        """Nobody runs me."""
        return text

    def show(ghost_tool: Any) -> Callable[..., Any]:
        def wrap_model_call(self: Any, request: Any, handler: Any) -> Any:
            return handler(request.override(tools=[*request.tools, ghost_tool]))

        return wrap_model_call

    on_langchain = middleware_pair(wrap_model_call=show(ghost))[0]
    on_hookproof = middleware_pair(wrap_model_call=show(hp_ghost))[1]
    expected = langchain_error([on_langchain], ["answer"], [lc_echo])
    raised = hookproof_error([on_hookproof], ["answer"], [hp_echo])
    assert isinstance(raised, UnexecutableToolError)
    assert isinstance(raised, type(expected)) and isinstance(raised, ValueError)
    assert "['ghost']" in str(expected) and "['ghost']" in str(raised)


# -- Commands a wrap_model_call cannot return ---------------------------------------------


def _returning(command: Callable[[Any], Any], extended: Any) -> Callable[..., Any]:
    def wrap_model_call(self: Any, request: Any, handler: Any) -> Any:
        return extended(model_response=handler(request), command=command)

    return wrap_model_call


def _catching(self: Any, request: Any, handler: Any) -> Any:
    """An outer layer that would swallow an error of its handler."""
    try:
        return handler(request)
    except Exception:  # noqa: BLE001 - the point: an error here would be hidden
        return {"never": "reached"}


UNSUPPORTED = {
    "goto": ({"goto": "end"}, "goto='end'"),
    "resume": ({"resume": "yes"}, "resume=..."),
}


@pytest.mark.parametrize("field", sorted(UNSUPPORTED))
@pytest.mark.parametrize("outer", [False, True], ids=["alone", "inside-a-catching-layer"])
def test_a_wrap_model_call_command_langchain_refuses_is_refused_alike(
    field: str, outer: bool
) -> None:
    """Refused once the outermost layer returned, as on LangChain: a layer around it never
    sees the refusal as its handler's error."""
    values, shown = UNSUPPORTED[field]
    lc_hook = _returning(lc_types.Command(**values), lc_middleware.ExtendedModelResponse)
    hp_hook = _returning(Command(**values), ExtendedModelResponse)
    on_langchain = [middleware_pair(wrap_model_call=lc_hook)[0]]
    on_hookproof = [middleware_pair(wrap_model_call=hp_hook)[1]]
    if outer:
        catching = middleware_pair("Outer", wrap_model_call=_catching)
        on_langchain.insert(0, catching[0])
        on_hookproof.insert(0, catching[1])
    expected = langchain_error(on_langchain, ["answer"])
    raised = hookproof_error(on_hookproof, ["answer"])
    assert isinstance(raised, UnsupportedCommandError)
    assert isinstance(raised, type(expected)) and isinstance(raised, NotImplementedError)
    assert f"Probe.wrap_model_call returned a Command with {shown}" in str(raised)


@pytest.mark.parametrize("resume", [None, 0, ""])
def test_a_falsy_resume_passes_as_on_langchain(resume: Any) -> None:
    lc_hook = _returning(lc_types.Command(resume=resume), lc_middleware.ExtendedModelResponse)
    hp_hook = _returning(Command(resume=resume), ExtendedModelResponse)
    on_langchain = middleware_pair(wrap_model_call=lc_hook)[0]
    on_hookproof = middleware_pair(wrap_model_call=hp_hook)[1]
    expected = [m.content for m in langchain_run([on_langchain], ["answer"])["messages"]]
    result = create_agent(ScriptedModel(["answer"]), middleware=[on_hookproof]).invoke(HI)
    assert [m.text for m in result.messages] == expected == ["hi", "answer"]

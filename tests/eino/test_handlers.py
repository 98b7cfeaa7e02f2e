"""What an agent takes as handlers, legacy middlewares, state rewrites and run input, and
how it refuses the rest with the fix."""

from __future__ import annotations

from typing import Any

import pytest

from hookproof.eino import (
    BaseChatModelAgentMiddleware,
    ChatModelAgent,
    ChatModelAgentContext,
    ChatModelAgentState,
)
from hookproof.errors import UsageError
from hookproof.messages import UserMessage
from tests.eino.helpers import Upper, agent_with, scripted, search


def test_a_handler_class_instead_of_an_instance_is_refused() -> None:
    with pytest.raises(UsageError, match=r"handlers=\[Upper\(\)\]"):
        ChatModelAgent(model=scripted("x"), handlers=[Upper])


def test_hooks_set_on_an_instance_run() -> None:
    seen: list[int] = []
    handler = BaseChatModelAgentMiddleware()

    def before(ctx: Any, state: Any, model_ctx: Any) -> Any:
        seen.append(len(state.messages))
        return ctx, state

    handler.before_model_rewrite_state = before  # type: ignore[method-assign]
    agent_with(scripted("x"), handlers=[handler]).run([("user", "x")])
    assert seen == [1]


def test_helpers_named_like_hooks_are_allowed() -> None:
    class Helpers(BaseChatModelAgentMiddleware):
        @staticmethod
        def wrap_text(text: str) -> str:
            return text

    ChatModelAgent(model=scripted("x"), handlers=[Helpers()])


class Typo(BaseChatModelAgentMiddleware):
    def after_agnet(self, ctx: Any, state: Any) -> Any:
        return ctx


class LangChainHabit(BaseChatModelAgentMiddleware):
    def before_model(self, state: Any, runtime: Any) -> Any:
        return None


@pytest.mark.parametrize(
    ("handler", "fix"),
    [
        (Typo, "Did you mean 'after_agent'"),
        (LangChainHabit, "here it is before_model_rewrite_state"),
    ],
    ids=["near miss", "LangChain name"],
)
def test_a_misnamed_hook_is_refused_with_the_name_meant(
    handler: type[BaseChatModelAgentMiddleware], fix: str
) -> None:
    with pytest.raises(UsageError, match=fix):
        ChatModelAgent(model=scripted("x"), handlers=[handler()])


def test_legacy_additional_tools_must_be_a_list() -> None:
    from hookproof.eino import AgentMiddleware

    with pytest.raises(UsageError, match=r"additional_tools=\[my_tool\]"):
        ChatModelAgent(model=scripted("x"), middlewares=[AgentMiddleware(additional_tools=search)])  # type: ignore[arg-type]


def test_a_plain_function_as_legacy_wrap_tool_call_is_refused() -> None:
    from hookproof.eino import AgentMiddleware

    with pytest.raises(UsageError, match=r"wrap_tool_call=ToolMiddleware\(invokable="):
        ChatModelAgent(
            model=scripted("x"),
            middlewares=[AgentMiddleware(wrap_tool_call=lambda next: next)],  # type: ignore[arg-type]
        )


def test_rewritten_state_is_checked_and_coerced() -> None:
    state = ChatModelAgentState().override(messages=[("user", "be brief")])
    assert isinstance(state.messages[0], UserMessage)
    assert ChatModelAgentState(tool_infos=[search]).tool_infos == (search.schema,)
    with pytest.raises(UsageError, match="tool infos are ToolInfo values"):
        ChatModelAgentState(tool_infos=["search"])
    with pytest.raises(UsageError, match=r"write return_directly=\['search'\]"):
        ChatModelAgentContext().override(return_directly="search")


def test_run_with_a_string_or_a_langchain_dict_says_what_it_takes() -> None:
    agent = agent_with(scripted("x"))
    for wrong in ("hi", {"messages": [("user", "hi")]}):
        with pytest.raises(UsageError, match=r"agent.run\(\[\('user', 'hello'\)\]\)"):
            agent.run(wrong)  # type: ignore[arg-type]

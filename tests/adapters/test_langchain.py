"""The LangChain chat models record the same FinalRequest on real create_agent runs."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("langchain", reason="install hookproof[langchain] to test the adapter")

from langchain.agents import create_agent
from langchain.agents.middleware import AgentMiddleware
from langchain_core.language_models.chat_models import SimpleChatModel
from langchain_core.tools import tool
from pydantic import Field

from hookproof.adapters.langchain import RecordingChatModel, ScriptedChatModel
from hookproof.errors import RealModelBlocked, ScriptExhausted
from hookproof.guard import block_real_models
from hookproof.models import FinalRequest, call
from hookproof.snapshot import diff, render


@tool
def lookup(query: str, limit: int = 3) -> str:
    """Look something up."""
    return f"found:{query}"


@tool
def export(customer_id: str) -> str:
    """Export a report."""
    return "exported"


class OnlyLookup(AgentMiddleware):
    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        return handler(request.override(tools=[t for t in request.tools if t.name == "lookup"]))


def _recording(*turns: Any) -> RecordingChatModel:
    return RecordingChatModel(inner=ScriptedChatModel(script=list(turns), model_name="fast"))


def test_create_agent_run_records_final_requests() -> None:
    model = _recording(call("lookup", {"query": "x"}), "done")
    agent = create_agent(
        model, [lookup, export], system_prompt="Be brief.", middleware=[OnlyLookup()]
    )
    result = agent.invoke({"messages": [("user", "hi")]})
    assert result["messages"][-1].content == "done"
    assert [m.type for m in result["messages"]] == ["human", "ai", "tool", "ai"]
    first, second = model.requests
    assert isinstance(first, FinalRequest)
    assert first.tool_names == ["lookup"]
    assert first.system_text == "Be brief."
    assert first.tool("lookup").parameters["properties"]["limit"]["default"] == 3
    assert [m.role for m in second.messages] == ["user", "assistant", "tool"]
    assert second.messages[2].text == "found:x"


def test_bind_tools_keeps_schema_choice_and_settings() -> None:
    model = _recording("ok")
    model.bind_tools([lookup], tool_choice="any", temperature=0.2).invoke("hi")
    final = model.last
    assert final.tool_choice == "any"
    assert final.model_settings == {"temperature": 0.2}
    assert final.tool("lookup").parameters["required"] == ["query"]


def test_snapshots_and_diffs_work_on_langchain_requests() -> None:
    before, after = _recording("ok"), _recording("ok")
    create_agent(before, [lookup, export]).invoke({"messages": [("user", "hi")]})
    create_agent(after, [lookup]).invoke({"messages": [("user", "hi")]})
    assert render(before.last).startswith('hookproof final request, format 1\nmodel: "fast"')
    assert [(c.kind.value, c.subject) for c in diff(before.last, after.last).changes] == [
        ("BREAKING", "tool export")
    ]


def test_streaming_yields_the_scripted_turn() -> None:
    chunks = list(ScriptedChatModel(script=[call("lookup", {"query": "q"})]).stream("hi"))
    calls = [c for chunk in chunks for c in chunk.tool_call_chunks]
    assert calls[0]["name"] == "lookup"
    assert calls[0]["id"] == "call_0"


def test_function_scripts_exhaustion_and_identity() -> None:
    model = ScriptedChatModel(
        script=lambda request: f"{len(request.messages)} message(s)", provider="acme"
    )
    assert model.invoke("hi").content == "1 message(s)"
    assert model._get_ls_params()["ls_provider"] == "acme"
    with pytest.raises(ScriptExhausted, match="script has 0 turns"):
        ScriptedChatModel(script=[]).invoke("hi")


class ProviderChatModel(SimpleChatModel):
    """Stands for a provider's chat model: not declared offline."""

    def _call(self, *args: Any, **kwargs: Any) -> str:
        return "live"

    @property
    def _llm_type(self) -> str:
        return "provider"


def test_the_real_model_guard_checks_the_recorded_model() -> None:
    from langchain_core.language_models.fake_chat_models import FakeListChatModel

    # The guard in a block of the test's own: the plugin fails a test that catches a refusal.
    with block_real_models(), pytest.raises(RealModelBlocked, match=r"\(ProviderChatModel\)"):
        RecordingChatModel(inner=ProviderChatModel()).invoke("hi")
    recording = RecordingChatModel(inner=FakeListChatModel(responses=["fake"]))
    assert recording.invoke("hi").content == "fake"  # langchain-core's fakes are offline
    assert recording.last.messages[0].text == "hi"


class ProviderLike(ScriptedChatModel):
    """A provider whose own bind_tools sends tools in its own format."""

    model: str = "provider-large-1"
    seen: list[Any] = Field(default_factory=list)

    def bind_tools(self, tools: Any, *, tool_choice: Any = None, **kwargs: Any) -> Any:
        from langchain_core.utils.function_calling import convert_to_openai_tool

        native = [
            {"name": t["function"]["name"], "input_schema": t["function"]["parameters"]}
            for t in map(convert_to_openai_tool, tools)
        ]
        return self.bind(tools=native, **kwargs)

    def _generate(
        self, messages: Any, stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> Any:
        self.seen.append(kwargs.get("tools"))
        return super()._generate(messages, stop, run_manager, **kwargs)


def test_recording_a_provider_model_keeps_its_native_tool_format() -> None:
    inner = ProviderLike(script=["ok"], model_name="")
    recording = RecordingChatModel(inner=inner)
    create_agent(recording, [lookup]).invoke({"messages": [("user", "hi")]})
    assert inner.seen[-1][0]["input_schema"]["required"] == ["query"]
    assert recording.last.tool("lookup").parameters["required"] == ["query"]
    assert recording.last.model == "provider-large-1"


def test_invalid_tool_calls_stay_visible_in_the_final_request() -> None:
    from langchain_core.messages import AIMessage, HumanMessage

    from hookproof.adapters.langchain import final_request

    broken = AIMessage(
        content="",
        invalid_tool_calls=[
            {"name": "lookup", "args": "{not json", "id": "c1", "error": "bad json"}
        ],
    )
    request = final_request([HumanMessage(content="hi"), broken], {}, model="m")
    assert request.messages[1].additional_kwargs["invalid_tool_calls"][0]["args"] == "{not json"


def test_a_recording_subclass_answers_every_call_through_its_answering_methods() -> None:
    """invoke and ainvoke reach _answer and _aanswer with the call as LangChain made it, and
    stream and astream _answer_stream and _aanswer_stream (how a cassette replays)."""
    import asyncio

    from langchain_core.outputs import ChatResult

    from hookproof.adapters.langchain.models import ModelCall

    seen: list[tuple[str, list[Any], list[str] | None]] = []

    class Noting(RecordingChatModel):
        def _note(self, how: str, call: ModelCall) -> None:
            seen.append((how, [message.content for message in call.messages], call.stop))

        def _answer(self, call: ModelCall) -> ChatResult:
            self._note("answer", call)
            return super()._answer(call)

        async def _aanswer(self, call: ModelCall) -> ChatResult:
            self._note("aanswer", call)
            return await super()._aanswer(call)

        def _answer_stream(self, call: ModelCall) -> Any:
            self._note("answer_stream", call)
            return super()._answer_stream(call)

        def _aanswer_stream(self, call: ModelCall) -> Any:
            self._note("aanswer_stream", call)
            return super()._aanswer_stream(call)

    async def astreamed(text: str) -> str:
        return "".join([str(chunk.content) async for chunk in model.astream(text)])

    model = Noting(ScriptedChatModel(["one", "two", "three", "four"]))
    assert model.invoke("a", stop=["END"]).content == "one"
    assert asyncio.run(model.ainvoke("b")).content == "two"
    assert "".join(str(chunk.content) for chunk in model.stream("c")) == "three"
    assert asyncio.run(astreamed("d")) == "four"
    assert seen == [
        ("answer", ["a"], ["END"]),
        ("aanswer", ["b"], None),
        ("answer_stream", ["c"], None),
        ("aanswer_stream", ["d"], None),
    ]
    assert [request.messages[0].text for request in model.requests] == ["a", "b", "c", "d"]


def test_importing_the_chat_models_leaves_langchain_agents_unimported() -> None:
    """The adapter needs langchain-core; the bridge (langchain.agents, langgraph) loads only
    when a LangChain object meets the reference runtime, as before the split by role."""
    import subprocess
    import sys

    script = (
        "import sys\n"
        "import hookproof.adapters.langchain\n"
        "names = ('langchain', 'langchain.agents', 'langgraph')\n"
        "print(sorted(m for m in names if m in sys.modules))\n"
        "from hookproof.adapters.langchain.bridge import BRIDGE\n"
        "print(type(BRIDGE).__name__, 'langchain.agents' in sys.modules)\n"
    )
    output = subprocess.check_output([sys.executable, "-c", script], text=True)
    assert output.splitlines() == ["[]", "LangChainBridge True"]

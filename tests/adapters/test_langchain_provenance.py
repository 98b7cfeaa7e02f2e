"""Provenance on the real frameworks: which middleware registered, added, changed or removed
each tool and wrote each system-prompt line, as the LangChain target records it.

One application, written twice (hookproof's runtime API and LangChain's), runs on
hookproof's runtime, on LangChain's ``create_agent`` and, unchanged, on the reference engine
(``on_reference_engine``): the three provenances must agree. Then deepagents'
``create_deep_agent`` with its own middleware, and the gate naming those origins.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langchain.agents", reason="install hookproof[langchain] to run these")

from langchain.agents import create_agent as langchain_create_agent
from langchain.agents.middleware import AgentMiddleware as LangChainMiddleware
from langchain_core.messages import SystemMessage as LangChainSystemMessage
from langchain_core.tools import tool as langchain_tool

from hookproof.adapters.langchain import (
    RecordingChatModel,
    ScriptedChatModel,
    on_reference_engine,
    run,
)
from hookproof.adapters.langchain.target import LangChainTarget
from hookproof.adapters.langchain.tracing import build_instrumented
from hookproof.models import call
from hookproof.provenance import Provenance
from hookproof.requests import FinalRequest
from hookproof.runtime import AgentMiddleware, create_agent
from hookproof.targets.reference import ReferenceTarget
from hookproof.tools import tool

DEEPAGENTS = pytest.mark.skipif(
    importlib.util.find_spec("deepagents") is None, reason="install hookproof[deepagents]"
)
SYSTEM_PROMPT = "You help with files.\nBe brief."
SECTION = "\n\nFiles live under /data.\nAsk before deleting."
NEW_DESCRIPTION = "Search the indexed files."
SCRIPT = [call("search", {"query": "report"}), "Found it."]

EXPECTED = [
    "system 1-2: agent",
    "system 3-5: Prompt",
    "tool delete: registered by Registry",
    "tool lookup: registered by agent; removed by Hide",
    "tool search: registered by agent; description changed by Describe",
]


# -- the application on hookproof's runtime -------------------------------------------------


@tool
def search(query: str) -> str:
    """Search the web."""
    return f"results for {query}"


@tool
def lookup(customer_id: str) -> str:
    """Look a customer up."""
    return customer_id


@tool
def delete(path: str) -> str:
    """Delete a file."""
    return path


class Registry(AgentMiddleware):
    tools = (delete,)


class Prompt(AgentMiddleware):
    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        return handler(request.override(system_prompt=request.system_prompt + SECTION))


class Hide(AgentMiddleware):
    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        return handler(request.override(tools=[t for t in request.tools if t.name != "lookup"]))


class Describe(AgentMiddleware):
    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        tools = [
            t.with_description(NEW_DESCRIPTION) if t.name == "search" else t for t in request.tools
        ]
        return handler(request.override(tools=tools))


def reference_app(model: Any) -> Any:
    middleware = [Registry(), Prompt(), Hide(), Describe()]
    return create_agent(model, [search, lookup], middleware=middleware, system_prompt=SYSTEM_PROMPT)


# -- the same application on LangChain --------------------------------------------------


@langchain_tool("search")
def lc_search(query: str) -> str:
    """Search the web."""
    return f"results for {query}"


@langchain_tool("lookup")
def lc_lookup(customer_id: str) -> str:
    """Look a customer up."""
    return customer_id


@langchain_tool("delete")
def lc_delete(path: str) -> str:
    """Delete a file."""
    return path


class LangChainRegistry(LangChainMiddleware):
    tools = (lc_delete,)

    @property
    def name(self) -> str:
        return "Registry"


class LangChainPrompt(LangChainMiddleware):
    @property
    def name(self) -> str:
        return "Prompt"

    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        text = request.system_message.text + SECTION
        return handler(request.override(system_message=LangChainSystemMessage(text)))


class LangChainHide(LangChainMiddleware):
    @property
    def name(self) -> str:
        return "Hide"

    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        return handler(request.override(tools=[t for t in request.tools if t.name != "lookup"]))


class LangChainDescribe(LangChainMiddleware):
    @property
    def name(self) -> str:
        return "Describe"

    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        tools = [
            t.model_copy(update={"description": NEW_DESCRIPTION}) if t.name == "search" else t
            for t in request.tools
        ]
        return handler(request.override(tools=tools))


def langchain_app(model: Any) -> Any:
    middleware = [LangChainRegistry(), LangChainPrompt(), LangChainHide(), LangChainDescribe()]
    return langchain_create_agent(
        model, [lc_search, lc_lookup], middleware=middleware, system_prompt=SYSTEM_PROMPT
    )


def _provenances(requests: tuple[FinalRequest, ...]) -> list[list[str]]:
    found = []
    for request in requests:
        assert request.provenance is not None, "every model call carries its provenance"
        found.append(request.provenance.describe().splitlines())
    return found


def test_the_three_engines_agree_on_provenance() -> None:
    on_reference = ReferenceTarget(reference_app).run(script=SCRIPT)
    on_langchain = LangChainTarget(langchain_app).run(script=SCRIPT)
    swapped = ReferenceTarget(on_reference_engine(langchain_app)).run(script=SCRIPT)
    expected = [EXPECTED, EXPECTED]  # both model calls, before and after the tool call
    assert _provenances(on_reference.final_requests) == expected
    assert _provenances(on_langchain.final_requests) == expected
    assert _provenances(swapped.final_requests) == expected


def test_what_the_model_saw_matches_the_provenance_on_langchain() -> None:
    final = LangChainTarget(langchain_app).run(script=SCRIPT).final_requests[0]
    provenance = final.provenance
    assert isinstance(provenance, Provenance)
    assert final.tool_names == ["delete", "search"]
    assert [item.name for item in provenance.tools if not item.visible] == ["lookup"]
    assert len(provenance.system) == len(final.system_text.splitlines())


def test_a_plain_invoke_of_an_instrumented_agent_records_provenance() -> None:
    model = RecordingChatModel(ScriptedChatModel(["done"]))
    build_instrumented(langchain_app, model).invoke({"messages": [("user", "hi")]})
    assert model.last.provenance is not None
    assert model.last.provenance.describe().splitlines() == EXPECTED


def test_ainvoke_records_the_async_layers_provenance() -> None:
    import asyncio

    class AsyncPrompt(LangChainPrompt):
        async def awrap_model_call(self, request: Any, handler: Any) -> Any:
            text = request.system_message.text + SECTION
            return await handler(request.override(system_message=LangChainSystemMessage(text)))

    def build(model: Any) -> Any:
        return langchain_create_agent(
            model, [lc_search], middleware=[AsyncPrompt()], system_prompt=SYSTEM_PROMPT
        )

    model = RecordingChatModel(ScriptedChatModel(["done"]))
    agent = build_instrumented(build, model)
    asyncio.run(agent.ainvoke({"messages": [("user", "hi")]}))
    assert model.last.provenance is not None
    assert model.last.provenance.describe().splitlines() == [
        "system 1-2: agent",
        "system 3-5: Prompt",
        "tool search: registered by agent",
    ]


def test_an_agent_built_without_hookproof_has_no_provenance_rather_than_a_guess() -> None:
    model = RecordingChatModel(ScriptedChatModel(["done", "done"]))
    agent = langchain_app(model)  # its wrap hooks were composed without hookproof watching
    agent.invoke({"messages": [("user", "hi")]})
    assert model.last.provenance is None
    assert run(agent, {"messages": [("user", "hi")]}).final_requests[-1].provenance is None


def test_run_gives_provenance_for_an_instrumented_agent() -> None:
    model = RecordingChatModel(ScriptedChatModel(["done"]))
    agent = build_instrumented(langchain_app, model)
    [final] = run(agent, {"messages": [("user", "hi")]}).final_requests
    assert final.provenance is not None
    assert final.provenance.describe().splitlines() == EXPECTED


def test_an_agent_without_model_layers_still_names_who_registered_its_tools() -> None:
    def build(model: Any) -> Any:
        return langchain_create_agent(model, [lc_search], middleware=[LangChainRegistry()])

    expected = ["tool delete: registered by Registry", "tool search: registered by agent"]
    [final] = LangChainTarget(build).run(script=["done"]).final_requests
    assert final.provenance is not None
    assert final.provenance.describe().splitlines() == expected
    model = RecordingChatModel(ScriptedChatModel(["done", "done"]))
    agent = build_instrumented(build, model)
    [final] = run(agent, {"messages": [("user", "hi")]}).final_requests
    assert final.provenance is not None
    assert final.provenance.describe().splitlines() == expected
    # a plain invoke passes no hook of its own: nothing says which agent the model serves
    agent.invoke({"messages": [("user", "hi")]})
    assert model.last.provenance is None


def test_a_model_a_layer_calls_itself_gets_no_provenance_of_the_agents() -> None:
    from langchain.agents.middleware import LLMToolSelectorMiddleware

    selector = RecordingChatModel(
        ScriptedChatModel(lambda request: call(request.tools[0].name, {"tools": ["search"]}))
    )

    def build(model: Any) -> Any:
        middleware = [LangChainPrompt(), LLMToolSelectorMiddleware(model=selector, max_tools=1)]
        return langchain_create_agent(
            model, [lc_search, lc_lookup], middleware=middleware, system_prompt=SYSTEM_PROMPT
        )

    [final] = LangChainTarget(build).run(script=["done"]).final_requests
    assert final.provenance is not None
    assert final.provenance.describe().splitlines() == [
        "system 1-2: agent",
        "system 3-5: Prompt",
        "tool lookup: registered by agent; removed by LLMToolSelectorMiddleware",
        "tool search: registered by agent",
    ]
    [selection] = selector.requests  # called inside the selector's own layer
    assert selection.provenance is None


def test_a_model_a_node_hook_calls_gets_no_provenance_either() -> None:
    from langchain.agents.middleware import before_model

    summary = RecordingChatModel(ScriptedChatModel(["A summary."]))

    @before_model
    def summarize(state: Any, runtime: Any) -> None:
        summary.invoke("Summarize.")

    def build(model: Any) -> Any:
        middleware = [LangChainRegistry(), summarize]
        return langchain_create_agent(model, [lc_search], middleware=middleware)

    [final] = LangChainTarget(build).run(script=["done"]).final_requests
    assert final.provenance is not None  # the agent's own call, with no model layer
    assert final.provenance.tool("delete") is not None
    assert summary.last.provenance is None


def test_tools_langchain_binds_after_the_layers_are_added_by_the_agent() -> None:
    from langchain.agents.structured_output import ToolStrategy
    from pydantic import BaseModel

    class Answer(BaseModel):
        text: str

    def build(model: Any) -> Any:
        middleware = [LangChainPrompt()]
        strategy = ToolStrategy(Answer)
        return langchain_create_agent(
            model,
            [lc_search],
            middleware=middleware,
            response_format=strategy,
            system_prompt=SYSTEM_PROMPT,
        )

    script = [call("Answer", {"text": "x"})]
    [final] = LangChainTarget(build).run(script=script).final_requests
    assert final.tool_names == ["Answer", "search"]
    assert final.provenance is not None
    assert final.provenance.describe().splitlines() == [
        "system 1-2: agent",
        "system 3-5: Prompt",
        "tool Answer: added by agent",
        "tool search: registered by agent",
    ]


# -- deepagents -------------------------------------------------------------------------


def _deep_agent(*extra: Any, **options: Any) -> Any:
    from deepagents import create_deep_agent

    def build(model: Any) -> Any:
        return create_deep_agent(
            model=model, system_prompt="You help.", middleware=list(extra), **options
        )

    return build


FILESYSTEM_TOOLS = ["delete", "edit_file", "glob", "grep", "ls", "read_file", "write_file"]


@DEEPAGENTS
def test_deepagents_provenance_names_its_own_middleware() -> None:
    [final] = LangChainTarget(_deep_agent()).run(script=["done"]).final_requests
    provenance = final.provenance
    assert provenance is not None
    origins = {item.name: item.events[0] for item in provenance.tools}
    for name in FILESYSTEM_TOOLS:
        assert origins[name] == "registered by FilesystemMiddleware"
    assert origins["task"] == "registered by SubAgentMiddleware"
    # deepagents 0.7 hides ``execute`` without a sandbox and fits grep's description to it
    execute, grep = provenance.tool("execute"), provenance.tool("grep")
    assert execute is not None and not execute.visible
    assert execute.events[-1] == "removed by FilesystemMiddleware"
    assert grep is not None and grep.events[-1] == "description changed by FilesystemMiddleware"
    assert set(provenance.system) == {"agent"}  # deepagents 0.7 adds no prompt section here


@DEEPAGENTS
def test_deepagents_prompt_sections_name_the_middleware_that_wrote_them() -> None:
    build = _deep_agent(skills=["/skills/"], memory=["/AGENTS.md"])
    [final] = LangChainTarget(build).run(script=["done"]).final_requests
    assert final.provenance is not None
    sections = {item.origin: item for item in final.provenance.sections}
    assert list(sections) == ["agent", "SkillsMiddleware", "MemoryMiddleware"]
    lines = final.system_text.split("\n")
    skills, memory = sections["SkillsMiddleware"], sections["MemoryMiddleware"]
    assert "## Skills System" in lines[skills.first - 1 : skills.last]
    assert "<agent_memory>" in lines[memory.first - 1 : memory.last]


@DEEPAGENTS
def test_a_subagents_model_calls_carry_the_subagents_own_provenance() -> None:
    task = {"description": "Look it up.", "subagent_type": "general-purpose"}
    script = [call("task", task), "Found.", "Done."]
    main, sub, _ = LangChainTarget(_deep_agent()).run(script=script).final_requests
    assert main.provenance is not None and sub.provenance is not None
    assert main.provenance.tool("task") is not None
    assert sub.provenance.tool("task") is None  # the subagent was given no task tool
    read_file = sub.provenance.tool("read_file")
    assert read_file is not None and read_file.events == ("registered by FilesystemMiddleware",)
    assert set(sub.provenance.system) == {"agent"}  # its own system prompt, from its spec
    assert sub.system_text != main.system_text


class HideDelete(LangChainMiddleware):
    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        return handler(request.override(tools=[t for t in request.tools if t.name != "delete"]))


@DEEPAGENTS
def test_the_gate_names_the_origin_of_a_deepagents_change(tmp_path: Path) -> None:
    from hookproof.gate import compare_directories, format_text
    from hookproof.snapshot import render

    for side, build in (("old", _deep_agent(HideDelete())), ("new", _deep_agent())):
        [final] = LangChainTarget(build).run(script=["done"]).final_requests
        (tmp_path / side).mkdir()
        (tmp_path / side / "deep.txt").write_text(render(final), encoding="utf-8")
    shown = format_text(compare_directories(tmp_path / "old", tmp_path / "new"))
    assert (
        "SECURITY tool delete: now visible to the model "
        "(registered by FilesystemMiddleware; no longer removed by HideDelete)" in shown
    )
    hidden = format_text(compare_directories(tmp_path / "new", tmp_path / "old"))
    assert (
        "BREAKING tool delete: removed (registered by FilesystemMiddleware; removed by HideDelete)"
        in hidden
    )


# -- the plugin workflow: the agent built in the test, from recording_chat_model ------------

PLUGIN_APP = """
import pytest
from langchain.agents import create_agent
from langchain.agents.middleware import AgentMiddleware
from langchain_core.tools import tool
from hookproof.adapters.langchain import RecordingChatModel, ScriptedChatModel
from hookproof.models import call
from hookproof.snapshot import render


@tool
def search(query: str) -> str:
    '''Search the docs.'''
    return query


@tool
def export(path: str) -> str:
    '''Export a report.'''
    return path


class Exports(AgentMiddleware):
    tools = (export,)
"""


def test_an_agent_built_in_a_plugin_test_snapshots_its_provenance(
    pytester: pytest.Pytester,
) -> None:
    pytester.makeini("[pytest]\nhookproof_snapshot_dir = snapshots\n")
    pytester.makepyfile(
        test_app=PLUGIN_APP
        + """

class Guests(AgentMiddleware):
    def wrap_model_call(self, request, handler):
        return handler(request.override(tools=[t for t in request.tools if t.name != "export"]))


@pytest.mark.hookproof(script=[call("search", {"query": "x"}), "done"])
def test_guest(recording_chat_model, hookproof_snapshot):
    agent = create_agent(
        recording_chat_model, [search], middleware=[Exports(), Guests()], system_prompt="Help."
    )
    agent.invoke({"messages": [("user", "hi")]})
    assert recording_chat_model.last == hookproof_snapshot
"""
    )
    pytester.runpytest_inprocess("--snapshot-update").assert_outcomes(passed=1)
    written = next((pytester.path / "snapshots").rglob("*.txt")).read_text(encoding="utf-8")
    assert written.startswith("hookproof final request, format 2\n")
    assert written.endswith(
        "\nprovenance:\n  system 1: agent\n"
        "  tool export: registered by Exports; removed by Guests\n"
        "  tool search: registered by agent\n"
    ), written
    pytester.runpytest_inprocess().assert_outcomes(passed=1)


def test_an_agent_without_model_layers_gets_provenance_under_the_fixture(
    pytester: pytest.Pytester,
) -> None:
    """No wrap hook notes the call, so the build's registered tools say who registered what;
    an agent built before the test (not instrumented) gets none rather than a guess."""
    pytester.makepyfile(
        test_app=PLUGIN_APP
        + """

class Prompt(AgentMiddleware):
    def wrap_model_call(self, request, handler):
        return handler(request)


EARLY_MODEL = RecordingChatModel(ScriptedChatModel(["done"]))
EARLY = create_agent(EARLY_MODEL, [search], middleware=[Exports(), Prompt()])


@pytest.mark.hookproof(script=["done"])
def test_unlayered(recording_chat_model):
    agent = create_agent(
        recording_chat_model, [search], middleware=[Exports()], system_prompt="Hi."
    )
    agent.invoke({"messages": [("user", "hi")]})
    text = render(recording_chat_model.last)
    assert text.endswith(
        "provenance:\\n  system 1: agent\\n"
        "  tool export: registered by Exports\\n  tool search: registered by agent\\n"
    ), text


def test_built_too_early(recording_chat_model):
    EARLY.invoke({"messages": [("user", "hi")]})
    assert EARLY_MODEL.last.provenance is None
"""
    )
    pytester.runpytest_inprocess("-p", "no:cacheprovider").assert_outcomes(passed=2)

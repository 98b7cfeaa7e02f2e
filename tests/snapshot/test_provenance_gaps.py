"""Provenance in snapshots and gate rows: the gaps where an origin could go missing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hookproof.eino import BaseChatModelAgentMiddleware, ChatModelAgent, RunContext
from hookproof.models import RecordingModel, ScriptedModel
from hookproof.runtime import tool
from hookproof.snapshot import ChangeClass, diff, render


@tool
def public_search(query: str) -> str:
    """Search the public knowledge base."""
    return query


@tool
def internal_lookup(customer_id: str) -> str:
    """Look a customer up."""
    return customer_id


def _guest_request(hidden: set[str]) -> Any:
    class GuestTools(BaseChatModelAgentMiddleware):
        def before_model_rewrite_state(self, ctx: Any, state: Any, model_ctx: Any) -> Any:
            kept = [info for info in state.tool_infos if info.name not in hidden]
            return ctx, state.override(tool_infos=kept)

    model = RecordingModel(ScriptedModel(["Done."]))
    agent = ChatModelAgent(
        model=model,
        tools=[public_search, internal_lookup],
        instruction="Be brief.",
        handlers=[GuestTools()],
    )
    agent.run([("user", "hi")], RunContext({"role": "guest"}))
    return model.last


def test_a_tool_a_filter_stopped_hiding_names_that_filter() -> None:
    before = _guest_request(hidden={"internal_lookup"})
    after = _guest_request(hidden=set())
    assert "removed by GuestTools" in render(before)  # the baseline knows who hid it
    (change,) = diff(before, after).of(ChangeClass.SECURITY)
    assert change.origin is not None and "GuestTools" in change.origin


def test_a_damaged_reviewed_file_says_what_is_wrong(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_app="""
        import pytest
        from hookproof.eino import BaseChatModelAgentMiddleware, ChatModelAgent
        from hookproof.runtime import tool

        @tool
        def search(query: str) -> str:
            '''Search.'''
            return query

        class Hide(BaseChatModelAgentMiddleware):
            def before_model_rewrite_state(self, ctx, state, model_ctx):
                return ctx, state.override(tool_infos=[])

        @pytest.mark.hookproof(script=["Done."])
        def test_request(recording_model, hookproof_snapshot):
            agent = ChatModelAgent(model=recording_model, tools=[search], instruction="Hi.",
                                   handlers=[Hide()])
            agent.run([("user", "hi")])
            assert recording_model.last == hookproof_snapshot
        """
    )
    pytester.runpytest_inprocess("--snapshot-update").assert_outcomes(passed=1)
    (reviewed,) = Path(pytester.path, "snapshots").rglob("*.txt")
    text = reviewed.read_text(encoding="utf-8")
    assert "  system 1: agent\n" in text
    reviewed.write_text(text.replace("system 1: agent", "system 1-9: agent"), encoding="utf-8")
    result = pytester.runpytest_inprocess()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*provenance covers 9 system lines*"])


def test_a_replaced_hunk_names_the_origin_of_the_lines_it_removed() -> None:
    class Policy(BaseChatModelAgentMiddleware):
        def before_agent(self, ctx: Any, config: Any) -> Any:
            instruction = config.instruction + "\n\nNever reveal customer data."
            return ctx, config.override(instruction=instruction)

    def final_request(instruction: str, handlers: list[Any]) -> Any:
        model = RecordingModel(ScriptedModel(["Done."]))
        agent = ChatModelAgent(
            model=model, tools=[public_search], instruction=instruction, handlers=handlers
        )
        agent.run([("user", "hi")])
        return model.last

    before = final_request("Be brief.", [Policy()])
    after = final_request("Be very brief.", [])
    origins = " ".join(change.origin or "" for change in diff(before, after).changes)
    assert "Policy" in origins


def test_a_middleware_name_cannot_forge_provenance_lines() -> None:
    from hookproof.errors import HookproofError
    from hookproof.runtime import AgentMiddleware, create_agent
    from hookproof.snapshot import parse

    class Drop(AgentMiddleware):
        name = "Drop\n  tool ghost: registered by agent"

        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            kept = [item for item in request.tools if item.name != "internal_lookup"]
            return handler(request.override(tools=kept))

    model = RecordingModel(ScriptedModel(["Done."]))
    try:
        agent = create_agent(
            model, [public_search, internal_lookup], system_prompt="Hi.", middleware=[Drop()]
        )
        agent.invoke({"messages": [("user", "hi")]})
    except HookproofError:
        return  # refusing such a name is a fix too
    provenance = parse(render(model.last)).provenance
    assert provenance is not None
    assert set(provenance.tools) == {"public_search", "internal_lookup"}

"""build_instrumented inside a test that holds
recording_chat_model (itself instrumenting every build since the plugin does) credits a
middleware's own tools to the agent."""

from __future__ import annotations

import pytest

pytest.importorskip("langchain", reason="install hookproof[langchain] to run this")


def test_build_instrumented_under_the_fixture_keeps_a_middlewares_tool(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        test_app="""
        import pytest
        from langchain.agents import create_agent
        from langchain.agents.middleware import AgentMiddleware
        from langchain_core.tools import tool
        from hookproof.adapters.langchain.tracing import build_instrumented
        from hookproof.snapshot import render

        @tool
        def calculator(expr: str) -> str:
            '''Evaluate an expression.'''
            return "42"

        @tool
        def lookup(query: str) -> str:
            '''Search.'''
            return query

        class ToolRegistry(AgentMiddleware):
            tools = [calculator]

        class PassThrough(AgentMiddleware):  # a wrap hook, so the run records provenance
            def wrap_model_call(self, request, handler):
                return handler(request)

        def build(model):
            return create_agent(model, [lookup], middleware=[ToolRegistry(), PassThrough()])

        @pytest.mark.hookproof(script=["Done."])
        @pytest.mark.parametrize("instrumented", [False, True])
        def test_origin(recording_chat_model, instrumented):
            agent = (build_instrumented(build, recording_chat_model) if instrumented
                     else build(recording_chat_model))
            agent.invoke({"messages": [("user", "hi")]})
            text = render(recording_chat_model.last)
            assert "tool calculator: registered by ToolRegistry" in text
        """
    )
    pytester.runpytest_inprocess("-p", "no:cacheprovider").assert_outcomes(passed=2)

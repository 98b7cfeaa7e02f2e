"""Properties of any Eino run: random handler stacks, scripts, return-directly sets and modes.

Whatever the script does (answer, call known or unknown tools, fail), a run never raises,
its trace nests, AfterAgent runs exactly when the run succeeds, and a successful run ends
with the answer or with the return-directly tool's result.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from hookproof.contracts import check_hook_order
from hookproof.eino import BaseChatModelAgentMiddleware, ChatModelAgent
from hookproof.messages import AssistantMessage, ToolMessage
from hookproof.models import RecordingModel, ScriptedModel, call
from tests.eino.helpers import Logger, lookup, search

TOOLS = ("search", "lookup", "ghost")
turn = st.one_of(
    st.just("answer"),
    st.builds(ConnectionError, st.just("model down")),
    st.lists(
        st.builds(
            lambda name, q: call(name, {"q": q}), st.sampled_from(TOOLS), st.text(max_size=3)
        ),
        min_size=1,
        max_size=3,
    ),
)


class Finish(BaseChatModelAgentMiddleware):
    def __init__(self) -> None:
        self.finished = 0

    def after_agent(self, ctx: Any, state: Any) -> Any:
        self.finished += 1
        return ctx


@given(
    script=st.lists(turn, min_size=1, max_size=4),
    loggers=st.integers(min_value=0, max_value=3),
    direct=st.sets(st.sampled_from(TOOLS[:2])),
    streaming=st.booleans(),
    max_iterations=st.integers(min_value=1, max_value=4),
)
def test_any_run_keeps_the_lifecycle_promises(
    script: list[Any], loggers: int, direct: set[str], streaming: bool, max_iterations: int
) -> None:
    finish = Finish()
    handlers = [*(Logger(f"l{i}", []) for i in range(loggers)), finish]
    model = RecordingModel(ScriptedModel([*script, "answer"], name="m"))
    agent = ChatModelAgent(
        model=model,
        tools=[search, lookup],
        handlers=handlers,
        return_directly=sorted(direct),
        max_iterations=max_iterations,
    )
    run = agent.run([("user", "hi")], enable_streaming=streaming)  # never raises
    check_hook_order(run.trace)
    assert finish.finished == (1 if run.error is None else 0)
    assert run.kinds().count("error") == (0 if run.error is None else 1)
    if run.error is None:
        last = run.output
        ended_by_tool = isinstance(last, ToolMessage)
        assert ended_by_tool == (last is not None and last.name in direct)
        if not ended_by_tool:
            assert isinstance(last, AssistantMessage) and not last.tool_calls
    for event in run.events:
        if event.kind == "tool_result":
            assert event.tool_name in ("search", "lookup")

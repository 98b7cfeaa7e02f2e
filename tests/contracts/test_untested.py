"""No vacuous pass: checks report what they exercised, answer interrupts and go on, try each
excluded tool in its own run, and fail with UntestedError on what they could not exercise.

Each scenario has a buggy twin the check must catch and a fixed twin it must pass; the
human-in-the-loop scenarios passed vacuously before checks answered interrupts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from hookproof import contracts
from hookproof.contracts import CheckReport, ContractViolation, UntestedError
from hookproof.contracts._scripts import call_once_then_done
from hookproof.errors import UsageError
from hookproof.harness import create_deep_agent
from hookproof.messages import RemoveMessage, ToolMessage, UserMessage
from hookproof.models import call
from hookproof.runtime import AgentMiddleware, create_agent, hook_config, tool
from tests.contracts.support_app import (
    EXCLUDED,
    FUNCTIONS,
    GUEST_TOOLS,
    REVIEW,
    Ctx,
    is_guest,
)

TOOLS = [tool(function) for function in FUNCTIONS]
public_search = TOOLS[0]


class HidesOnly(AgentMiddleware):
    """Buggy twin: hides admin tools from a guest's model but runs a call to them anyway."""

    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        if is_guest(request.runtime):
            request = request.override(tools=[t for t in request.tools if t.name in GUEST_TOOLS])
        return handler(request)


class HidesAndRefuses(HidesOnly):
    """Fixed twin: also refuses a guest's call to an admin tool."""

    def wrap_tool_call(self, request: Any, handler: Any) -> Any:
        if is_guest(request.runtime) and request.tool_call.name not in GUEST_TOOLS:
            return ToolMessage(
                content=f"{request.tool_call.name} is not available",
                tool_call_id=request.tool_call.id or "",
                status="error",
            )
        return handler(request)


def _harness(filter_: AgentMiddleware) -> Any:
    return lambda model: create_deep_agent(model, TOOLS, middleware=[filter_], interrupt_on=REVIEW)


# -- interrupts are answered and the check goes on -------------------------------------------


def test_exclusion_on_the_harness_with_human_review_catches_the_hiding_only_filter() -> None:
    with pytest.raises(ContractViolation) as caught:
        contracts.check_exclusion_holds(_harness(HidesOnly()), EXCLUDED, context=Ctx("guest"))
    message = str(caught.value)
    assert "excluded tool(s) ['delete_customer'] executed" in message
    assert "excluded tool(s) ['export_data'] executed" in message  # each tool in its own run


def test_exclusion_on_the_harness_with_human_review_holds_for_the_refusing_filter() -> None:
    report = contracts.check_exclusion_holds(
        _harness(HidesAndRefuses()), EXCLUDED, context=Ctx("guest")
    )
    assert isinstance(report, CheckReport) and report.complete
    assert report.runs == 2 and report.interrupts_resumed == 2
    assert sorted(report.tool_calls_attempted) == sorted(EXCLUDED)
    assert report.tool_calls_executed == ()
    assert "HidesAndRefuses.wrap_tool_call" in report.hooks_observed
    assert "HumanInTheLoopMiddleware.after_model" in report.hooks_observed


def test_a_rejected_review_does_not_exercise_the_exclusion() -> None:
    # Rejecting the review keeps the tool from running whatever the filter does, so the
    # hiding-only filter would pass: the check says the exclusion itself was not tried.
    with pytest.raises(UntestedError, match="answered by rejecting the human review"):
        contracts.check_exclusion_holds(
            _harness(HidesOnly()), EXCLUDED, context=Ctx("guest"), on_interrupt="reject"
        )
    report = contracts.check_exclusion_holds(
        _harness(HidesOnly()),
        EXCLUDED,
        context=Ctx("guest"),
        on_interrupt="reject",
        allow_untested=True,
    )
    assert report.interrupts_resumed == 2 and report.tool_calls_executed == ()
    assert len(report.untested) == 2


def test_a_review_that_only_allows_rejection_is_answered_with_a_rejection() -> None:
    review = {"delete_customer": {"allowed_decisions": ["reject"]}}

    def build(model: Any) -> Any:
        return create_deep_agent(model, TOOLS, middleware=[HidesOnly()], interrupt_on=review)

    report = contracts.check_exclusion_holds(
        build, ["delete_customer"], context=Ctx("guest"), allow_untested=True
    )
    assert report.interrupts_resumed == 1 and report.tool_calls_executed == ()
    assert "rejecting the human review" in report.untested[0]


def test_a_run_that_keeps_pausing_is_reported_after_twenty_answers() -> None:
    from hookproof.runtime import interrupt

    class AsksForever(AgentMiddleware):
        def wrap_tool_call(self, request: Any, handler: Any) -> Any:
            while True:
                interrupt("again?")

    def build(model: Any) -> Any:
        return create_agent(model, TOOLS, middleware=[HidesOnly(), AsksForever()])

    with pytest.raises(UntestedError) as caught:
        contracts.check_exclusion_holds(build, ["delete_customer"], context=Ctx("guest"))
    assert "still paused at an interrupt after 20 answers" in str(caught.value)
    assert "on_interrupt=lambda value" in str(caught.value)
    assert caught.value.report.interrupts_resumed == 20


def test_a_function_answers_interrupts_of_your_own() -> None:
    from hookproof.runtime import InMemoryCheckpointer, interrupt

    class AskFirst(AgentMiddleware):
        def wrap_tool_call(self, request: Any, handler: Any) -> Any:
            if interrupt({"ask": request.tool_call.name}) != "go":
                raise AssertionError("the answer did not come from on_interrupt")
            return handler(request)

    seen: list[Any] = []

    def answer(value: Any) -> str:
        seen.append(value)
        return "go"

    def build(model: Any) -> Any:
        return create_agent(
            model, TOOLS, middleware=[AskFirst()], checkpointer=InMemoryCheckpointer()
        )

    report = contracts.check_tool_closure(build, on_interrupt=answer)
    assert seen == [{"ask": name} for name in ("delete_customer", "export_data", "public_search")]
    assert report.interrupts_resumed == 3
    assert sorted(report.tool_calls_executed) == sorted(t.name for t in TOOLS)


def test_on_interrupt_is_validated() -> None:
    with pytest.raises(UsageError, match="on_interrupt='maybe'"):
        contracts.check_tool_closure(_harness(HidesOnly()), on_interrupt="maybe")  # type: ignore[arg-type]


# -- what could not be exercised fails -------------------------------------------------------


class EndsBeforeModel(AgentMiddleware):
    """Ends every run before the model is called: no call is ever made."""

    @hook_config(can_jump_to=["end"])
    def before_model(self, state: Any, runtime: Any) -> Any:
        return {"jump_to": "end"}


class EndsAfterModel(AgentMiddleware):
    """A guard of another kind: ends the run after a model turn that calls an admin tool."""

    @hook_config(can_jump_to=["end"])
    def after_model(self, state: Any, runtime: Any) -> Any:
        calls = state["messages"][-1].tool_calls
        return {"jump_to": "end"} if any(c.name in EXCLUDED for c in calls) else None


def _ends_early(model: Any) -> Any:
    return create_agent(model, TOOLS, middleware=[HidesOnly(), EndsBeforeModel()])


def test_a_call_that_is_never_made_is_untested_not_a_pass() -> None:
    with pytest.raises(UntestedError) as caught:
        contracts.check_exclusion_holds(_ends_early, EXCLUDED, context=Ctx("guest"))
    error = caught.value
    assert isinstance(error, ContractViolation)  # a failure, whatever catches it
    assert "the model was never called, so the call was never made" in str(error)
    assert "allow_untested=True" in str(error)
    assert len(error.report.untested) == 2 and error.report.runs == 2


def test_a_run_that_ends_instead_of_executing_the_call_exercised_the_exclusion() -> None:
    def build(model: Any) -> Any:
        return create_agent(model, TOOLS, middleware=[HidesOnly(), EndsAfterModel()])

    report = contracts.check_exclusion_holds(build, EXCLUDED, context=Ctx("guest"))
    assert report.complete and report.tool_calls_executed == ()


def test_a_misspelt_excluded_tool_is_untested() -> None:
    def build(model: Any) -> Any:
        return create_agent(model, TOOLS, middleware=[HidesOnly()])

    with pytest.raises(UntestedError, match="delete_custmer: not a tool of this agent"):
        contracts.check_exclusion_holds(build, ["delete_custmer"])


def test_allow_untested_passes_and_the_report_says_what_was_not_tried() -> None:
    report = contracts.check_exclusion_holds(
        _ends_early, EXCLUDED, context=Ctx("guest"), allow_untested=True
    )
    assert not report.complete
    assert [line.split(":")[0] for line in report.untested] == sorted(EXCLUDED)


def test_tool_closure_with_no_tool_shown_is_untested() -> None:
    with pytest.raises(UntestedError, match="no tool was shown to the model"):
        contracts.check_tool_closure(lambda model: create_agent(model, []))


def test_fail_closed_needs_a_baseline_that_reaches_the_model() -> None:
    class NeverRuns(AgentMiddleware):
        @hook_config(can_jump_to=["end"])
        def before_agent(self, state: Any, runtime: Any) -> Any:
            return {"jump_to": "end"}

    def build(model: Any) -> Any:
        return create_agent(model, TOOLS, middleware=[NeverRuns()])

    with pytest.raises(UntestedError, match="least-privileged run never called the model"):
        contracts.check_fail_closed(build, Ctx("root"), least_privileged_context=Ctx("guest"))


def test_unique_tool_names_on_an_empty_list_is_untested() -> None:
    with pytest.raises(UntestedError, match="the tool list is empty"):
        contracts.check_unique_tool_names([])
    assert contracts.check_unique_tool_names(TOOLS).complete


def test_bounded_retry_when_the_hook_never_calls_its_handler_is_untested() -> None:
    from hookproof.runtime import ModelResponse

    class Answers(AgentMiddleware):
        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            return ModelResponse(result=())

    class Refuses(AgentMiddleware):
        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            raise PermissionError("no model for you")

    with pytest.raises(UntestedError, match="never called its handler"):
        contracts.check_bounded_retry(Answers())
    with pytest.raises(UntestedError, match="raised PermissionError: no model for you"):
        contracts.check_bounded_retry(Refuses())


def test_retry_and_tool_error_checks_see_the_given_context() -> None:
    class RetriesForAdmins(AgentMiddleware):
        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            attempts = 3 if request.runtime.context.role == "admin" else 1
            for attempt in range(attempts):
                try:
                    return handler(request)
                except ConnectionError:
                    if attempt == attempts - 1:
                        raise
            raise AssertionError("unreachable")

        def wrap_tool_call(self, request: Any, handler: Any) -> Any:
            if request.runtime.context.role != "admin":
                return ToolMessage("denied", tool_call_id=request.tool_call.id, status="error")
            return handler(request)

    with pytest.raises(UntestedError, match="pass context="):
        contracts.check_bounded_retry(RetriesForAdmins())
    assert contracts.check_bounded_retry(RetriesForAdmins(), context=Ctx("admin")).complete
    with pytest.raises(UntestedError, match="never called its handler"):
        contracts.check_tool_errors_surface(RetriesForAdmins(), context=Ctx("guest"))
    assert contracts.check_tool_errors_surface(RetriesForAdmins(), context=Ctx("admin")).complete


@dataclass
class Swallows(AgentMiddleware):
    note: str = "failed"

    def wrap_tool_call(self, request: Any, handler: Any) -> Any:
        try:
            return handler(request)
        except Exception:  # noqa: BLE001 - the deliberate bug
            return ToolMessage(self.note, tool_call_id=request.tool_call.id)


class NeedsArguments(AgentMiddleware):
    def __init__(self, note: str) -> None:
        self.note = note

    wrap_tool_call = Swallows.wrap_tool_call


def test_replay_snippets_build_the_middleware() -> None:
    with pytest.raises(ContractViolation) as caught:
        contracts.check_tool_errors_surface(Swallows())
    assert "check_tool_errors_surface(Swallows(note='failed'))" in str(caught.value)
    with pytest.raises(ContractViolation) as caught:
        contracts.check_tool_errors_surface(NeedsArguments("x"), context=Ctx("admin"))
    replay = "check_tool_errors_surface(NeedsArguments(...)  # your constructor arguments"
    assert replay in str(caught.value)


def test_isolation_reports_its_runs() -> None:
    report = contracts.check_isolation(
        _harness(HidesAndRefuses()), [Ctx("guest"), Ctx("admin")], modes=["threads"]
    )
    assert report.complete and report.contexts == ("Ctx(role='guest')", "Ctx(role='admin')")
    assert report.runs > 2


# -- node-hook-only middleware is checked ----------------------------------------------------


class AppendsInPlace(AgentMiddleware):
    """Buggy twin: adds a reminder by appending to the state's message list in place."""

    def before_model(self, state: Any, runtime: Any) -> Any:
        state["messages"].append(UserMessage(content="Be brief."))


class ReturnsReminder(AgentMiddleware):
    """Fixed twin: returns the reminder as a state update."""

    def before_model(self, state: Any, runtime: Any) -> Any:
        return {"messages": [UserMessage(content="Be brief.")]}


class RedactsCarelessly(AgentMiddleware):
    """Buggy twin: rebuilds each user message from its redacted text."""

    def before_model(self, state: Any, runtime: Any) -> Any:
        rebuilt = [
            UserMessage(content="[redacted]") if m.role == "user" else m for m in state["messages"]
        ]
        return {"messages": [RemoveMessage(id=RemoveMessage.ALL), *rebuilt]}


class RedactsCarefully(AgentMiddleware):
    """Fixed twin: replaces each text block's text and keeps the rest, by message id."""

    async def abefore_model(self, state: Any, runtime: Any) -> Any:  # async-only works too
        def redacted(message: Any) -> Any:
            blocks = [b.model_copy(update={"text": "[redacted]"}) for b in message.content]
            return message.model_copy(update={"content": blocks})

        return {"messages": [redacted(m) for m in state["messages"] if m.role == "user"]}


def test_request_not_mutated_checks_node_hooks() -> None:
    with pytest.raises(ContractViolation, match="before_model tried to change the state in place"):
        contracts.check_request_not_mutated(AppendsInPlace())
    report = contracts.check_request_not_mutated(ReturnsReminder())
    assert report.hooks_observed == ("ReturnsReminder.before_model",)


def test_metadata_preserved_checks_node_hooks() -> None:
    with pytest.raises(ContractViolation) as caught:
        contracts.check_metadata_preserved(RedactsCarelessly())
    message = str(caught.value)
    assert "before_model: user message 'u1': id 'u1' became None" in message
    assert "block 0 cache_control {'type': 'ephemeral'} became None" in message
    report = contracts.check_metadata_preserved(RedactsCarefully())
    assert report.complete and report.hooks_observed == ("RedactsCarefully.before_model",)


def test_metadata_preserved_checks_every_message_a_wrap_hook_passes_on() -> None:
    class RebuildsHistory(AgentMiddleware):
        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            plain = [type(m)(content=m.text) if m.role == "user" else m for m in request.messages]
            return handler(request.override(messages=plain))

    with pytest.raises(ContractViolation, match="user message 'u1': name 'customer' became None"):
        contracts.check_metadata_preserved(RebuildsHistory())


def test_middleware_with_nothing_to_check_fails() -> None:
    class Empty(AgentMiddleware):
        pass

    for check in (contracts.check_request_not_mutated, contracts.check_metadata_preserved):
        with pytest.raises(UntestedError, match="nothing to check"):
            check(Empty())
        assert check(Empty(), allow_untested=True).untested


class ReadsRole(AgentMiddleware):
    """A node hook that needs the runtime context's role."""

    def before_model(self, state: Any, runtime: Any) -> Any:
        return {"role": runtime.context.role}


def test_a_node_hook_that_fails_on_the_sample_state_is_untested() -> None:
    with pytest.raises(UntestedError, match="before_model raised AttributeError"):
        contracts.check_request_not_mutated(ReadsRole())


# -- the Eino dialect: an approval handler pauses every tool call ----------------------------


def _eino(*handlers: Any) -> Any:
    from hookproof.examples.eino_support import build_eino_support_agent

    return lambda model: build_eino_support_agent(model, handlers=list(handlers))


def _approval() -> Any:
    from hookproof.eino import BaseChatModelAgentMiddleware, interrupt

    class Approval(BaseChatModelAgentMiddleware):
        def wrap_invokable_tool_call(self, ctx: Any, endpoint: Any, tool_ctx: Any) -> Any:
            def approved(ctx: Any, arguments: str) -> Any:
                decision = interrupt({"action_requests": [{"name": tool_ctx.name}]})
                if decision != {"decisions": [{"type": "approve"}]}:
                    return f"{tool_ctx.name}: rejected by the reviewer"
                return endpoint(ctx, arguments)

            return approved

    return Approval()


def test_eino_interrupts_are_answered_and_a_hiding_only_filter_is_caught() -> None:
    from hookproof.examples.eino_support import RoleToolFilter

    class OnlyHides(RoleToolFilter):
        def wrap_invokable_tool_call(self, ctx: Any, endpoint: Any, tool_ctx: Any) -> Any:
            return endpoint

    excluded = ["internal_lookup", "refund"]
    with pytest.raises(ContractViolation, match=r"excluded tool\(s\) \['internal_lookup'\]"):
        contracts.check_exclusion_holds(_eino(_approval(), OnlyHides()), excluded, context={})
    report = contracts.check_exclusion_holds(
        _eino(_approval(), RoleToolFilter()), excluded, context={}
    )
    assert report.complete and report.runs == 2
    assert report.interrupts_resumed == 2  # the approval (outermost) paused each call first
    assert report.tool_calls_executed == ()


# -- legitimate edits are not losses ---------------------------------------------------------


def _node(update: Any) -> AgentMiddleware:
    class Edits(AgentMiddleware):
        def before_model(self, state: Any, runtime: Any) -> Any:
            return update(list(state["messages"]))

    return Edits()


def _cached(message: Any) -> Any:
    last = message.content[-1].model_copy(update={"cache_control": {"type": "ephemeral"}})
    return message.model_copy(update={"content": [*message.content[:-1], last]})


LEGITIMATE = {
    "appends a reminder": lambda ms: {"messages": [UserMessage(content="Be brief.")]},
    "trims the history": lambda ms: {"messages": [RemoveMessage(id=RemoveMessage.ALL), *ms[1:]]},
    "summarises": lambda ms: {
        "messages": [
            RemoveMessage(id=RemoveMessage.ALL),
            UserMessage(content="Summary so far.", id="summary-1"),
            *ms[1:],
        ]
    },
    "slides a window": lambda ms: {
        "messages": [RemoveMessage(id=RemoveMessage.ALL), *ms[1:], UserMessage(content="Next?")]
    },
    "adds cache_control": lambda ms: {"messages": [_cached(ms[-1])]},
    "adds a kwarg": lambda ms: {
        "messages": [ms[0].model_copy(update={"additional_kwargs": {"channel": "web", "n": 1}})]
    },
}


@pytest.mark.parametrize("edit", sorted(LEGITIMATE))
def test_metadata_preserved_accepts_legitimate_edits(edit: str) -> None:
    assert contracts.check_metadata_preserved(_node(LEGITIMATE[edit])).complete


def test_metadata_preserved_reads_every_shape_of_update() -> None:
    from hookproof.runtime import Command

    def careless(messages: list[Any]) -> list[Any]:
        return [m.model_copy(update={"additional_kwargs": {}}) for m in messages]

    shapes = {
        "command": lambda ms: Command(update={"messages": careless(ms)}),
        "one message": lambda ms: {"messages": careless(ms)[0]},
    }
    for update in shapes.values():
        with pytest.raises(ContractViolation, match="additional_kwargs"):
            contracts.check_metadata_preserved(_node(update))


def test_metadata_preserved_needs_a_hook_that_edits_the_sample() -> None:
    class SummarisesPastFifty(AgentMiddleware):
        def before_model(self, state: Any, runtime: Any) -> Any:
            messages = list(state["messages"])
            if len(messages) <= 50:
                return None
            summary = UserMessage(content="Summary.", id="summary")
            return {"messages": [RemoveMessage(id=RemoveMessage.ALL), summary, *messages[-5:]]}

    with pytest.raises(UntestedError, match="no hook wrote a message on the sample state"):
        contracts.check_metadata_preserved(SummarisesPastFifty())
    long_state = {"messages": [UserMessage(content=str(n), id=f"m{n}") for n in range(60)]}
    report = contracts.check_metadata_preserved(SummarisesPastFifty(), state=long_state)
    assert report.complete


def test_node_hooks_see_the_given_context() -> None:
    with pytest.raises(UntestedError, match="pass context="):
        contracts.check_request_not_mutated(ReadsRole())
    assert contracts.check_request_not_mutated(ReadsRole(), context=Ctx("guest")).complete


def test_a_wrap_hook_that_fails_on_the_sample_request_is_untested() -> None:
    class ByRole(AgentMiddleware):
        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            request.runtime.context.role  # noqa: B018 - reads the role like a real router
            return handler(request)

    for check in (contracts.check_request_not_mutated, contracts.check_metadata_preserved):
        with pytest.raises(UntestedError, match="wrap_model_call raised AttributeError"):
            check(ByRole())
        assert check(ByRole(), context=Ctx("guest")).complete


def test_isolation_of_runs_that_all_fail_is_untested() -> None:
    class Broken(AgentMiddleware):
        def before_model(self, state: Any, runtime: Any) -> Any:
            raise RuntimeError("no database")

    def build(model: Any) -> Any:
        return create_agent(model, TOOLS, middleware=[Broken()])

    with pytest.raises(UntestedError, match="every run on its own raised or made no model call"):
        contracts.check_isolation(build, [Ctx("guest"), Ctx("admin")])


def test_isolation_compares_runs_that_pause_for_review_up_to_the_pause() -> None:
    from hookproof.runtime import interrupt

    class Review(AgentMiddleware):
        def wrap_tool_call(self, request: Any, handler: Any) -> Any:
            interrupt({"review": request.tool_call.name})
            return handler(request)

    class RoleOnSelf(HidesOnly):
        """Buggy twin: keeps the caller's role on the shared instance between hooks."""

        def before_model(self, state: Any, runtime: Any) -> None:
            self.role = getattr(runtime.context, "role", "guest")

        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            request = request.override(
                tools=[t for t in request.tools if self.role == "admin" or t.name in GUEST_TOOLS]
            )
            return handler(request)

    def build(filter_: AgentMiddleware) -> Any:
        return lambda model: create_agent(model, TOOLS, middleware=[filter_, Review()])

    contexts = [Ctx("guest"), Ctx("admin")]
    script = call_once_then_done(call("public_search", {"query": "x"}))
    assert contracts.check_isolation(build(HidesAndRefuses()), contexts, script=script).complete
    with pytest.raises(ContractViolation, match="saw another run's request"):
        contracts.check_isolation(build(RoleOnSelf()), contexts, script=script)


# -- a framework's own refusal, and duplicate names through a factory ------------------------


@tool
def phantom(x: str) -> str:
    """Shown by a middleware, registered nowhere."""
    return x


class ShowsPhantom(AgentMiddleware):
    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        return handler(request.override(tools=[*request.tools, phantom]))


def test_tool_closure_reports_the_runtimes_refusal_as_the_finding() -> None:
    def build(model: Any) -> Any:
        return create_agent(model, TOOLS, middleware=[ShowsPhantom()])

    with pytest.raises(ContractViolation) as caught:
        contracts.check_tool_closure(build)
    message = str(caught.value)
    assert "Invariant: every tool shown to the model can be executed" in message
    assert "the framework refused to run: UnexecutableToolError" in message
    assert "one-turn script" not in message


def test_unique_tool_names_takes_a_factory() -> None:
    class Adds(AgentMiddleware):
        tools = (public_search,)  # the same name as a tool the app registers

    def duplicated(model: Any) -> Any:
        return create_agent(model, TOOLS, middleware=[Adds()])

    with pytest.raises(ContractViolation, match="'public_search' appears 2 times"):
        contracts.check_unique_tool_names(duplicated)
    report = contracts.check_unique_tool_names(_harness(HidesAndRefuses()), context=Ctx("admin"))
    assert report.complete and report.runs == 1


# -- a tool that runs without a trace --------------------------------------------------------


class FastPath(HidesAndRefuses):
    """Buggy twin: refuses through the inner layers, but runs admin exports itself first."""

    def wrap_tool_call(self, request: Any, handler: Any) -> Any:
        if request.tool_call.name == "export_data" and request.tool is not None:
            text = str(request.tool.func(**request.tool_call.args))
            return ToolMessage(content=text, tool_call_id=request.tool_call.id, status="error")
        return super().wrap_tool_call(request, handler)


def test_exclusion_sees_a_tool_function_run_outside_the_trace() -> None:
    def build(filter_: AgentMiddleware) -> Any:
        return lambda model: create_agent(model, TOOLS, middleware=[filter_])

    with pytest.raises(ContractViolation) as caught:
        contracts.check_exclusion_holds(build(FastPath()), EXCLUDED, context=Ctx("guest"))
    message = str(caught.value)
    assert "excluded tool(s) ['export_data'] executed" in message
    assert "its function ran outside the tool step" in message
    assert contracts.check_exclusion_holds(build(HidesAndRefuses()), EXCLUDED).complete


# -- approval gates that do not gate ---------------------------------------------------------


_PUBLIC_ONLY = {
    "name": "general-purpose",
    "description": "General work with the public tools.",
    "system_prompt": "Help with public information only.",
    "tools": [public_search],
}


def _reviewed(review: dict[str, Any], subagents: list[Any] | None = None) -> Any:
    return lambda model: create_deep_agent(model, TOOLS, interrupt_on=review, subagents=subagents)


def test_requires_approval_catches_a_gate_that_names_the_old_tool() -> None:
    stale = {"delete_record": True, "export_data": True}  # delete_customer was renamed
    safe = [_PUBLIC_ONLY]  # a general-purpose subagent without the gated tools
    with pytest.raises(ContractViolation) as caught:
        contracts.check_requires_approval(
            _reviewed(stale, safe), ["delete_customer", "export_data"]
        )
    assert "delete_customer ran without any review" in str(caught.value)
    assert "export_data" not in str(caught.value).split("Found:")[1].split("Fix:")[0]
    report = contracts.check_requires_approval(
        _reviewed(REVIEW, safe), ["delete_customer", "export_data"]
    )
    # two reviews on the main agent; the subagent inherits interrupt_on, so the calls asked of
    # it (to tools it does not have) are reviewed too, as in deepagents
    assert report.complete and report.interrupts_resumed == 4
    assert set(report.tool_calls_executed) == {"task"}  # the subagent ran; no gated tool did
    assert report.runs == 4  # each tool on the main agent, then asked of the subagent


def test_requires_approval_follows_task_into_the_subagents() -> None:
    # the subagents inherit the main agent's interrupt_on (as deepagents'): a review inside the
    # general-purpose subagent pauses the main run, and the rejection keeps the tool from running
    report = contracts.check_requires_approval(
        _reviewed(REVIEW), ["delete_customer", "export_data"]
    )
    assert report.complete and report.interrupts_resumed == 4
    assert set(report.tool_calls_executed) == {"task"}
    # a subagent whose own interrupt_on leaves a gated tool out runs it unreviewed
    lax = {**_PUBLIC_ONLY, "tools": TOOLS, "interrupt_on": {"export_data": True}}
    with pytest.raises(ContractViolation) as caught:
        contracts.check_requires_approval(
            _reviewed(REVIEW, [lax]), ["delete_customer", "export_data"]
        )
    found = str(caught.value).split("Found:")[1].split("Fix:")[0]
    assert "through subagent 'general-purpose': delete_customer ran without any review" in found
    assert "export_data" not in found


def test_requires_approval_catches_a_review_whose_rejection_is_ignored() -> None:
    from hookproof.runtime import interrupt

    class AsksButIgnores(AgentMiddleware):
        def wrap_tool_call(self, request: Any, handler: Any) -> Any:
            interrupt({"approve": request.tool_call.name})
            return handler(request)

    def build(model: Any) -> Any:
        return create_agent(model, TOOLS, middleware=[AsksButIgnores()])

    with pytest.raises(ContractViolation, match="ran although its review was answered"):
        contracts.check_requires_approval(build, ["delete_customer"])


def test_a_refused_call_satisfies_the_gate() -> None:
    def build(model: Any) -> Any:
        return create_agent(model, TOOLS, middleware=[HidesAndRefuses()])

    report = contracts.check_requires_approval(build, ["delete_customer"], context=Ctx("guest"))
    assert report.complete and report.interrupts_resumed == 0
    assert report.tool_calls_executed == ()


def test_requires_approval_on_eino_interrupts() -> None:
    from hookproof.examples.eino_support import RoleToolFilter

    def answer(value: Any) -> str:
        return "no"  # the example's own review format: a plain answer

    # The example's refund asks first but refunds whatever the answer: the gate is caught.
    with pytest.raises(ContractViolation, match="refund ran although its review"):
        contracts.check_requires_approval(
            _eino(RoleToolFilter()), ["refund"], context={"role": "admin"}, on_interrupt=answer
        )
    report = contracts.check_requires_approval(
        _eino(_approval(), RoleToolFilter()), ["internal_lookup"], context={"role": "analyst"}
    )
    assert report.complete and report.interrupts_resumed == 1
    assert report.tool_calls_executed == ()


def test_metadata_preserved_checks_eino_handlers_that_rewrite_state_messages() -> None:
    from hookproof.eino import BaseChatModelAgentMiddleware

    class RebuildsUserMessages(BaseChatModelAgentMiddleware):
        def before_model_rewrite_state(self, ctx: Any, state: Any, model_ctx: Any) -> Any:
            rebuilt = [UserMessage(m.text) if m.role == "user" else m for m in state.messages]
            return ctx, state.override(messages=rebuilt)

    class RedactsInPlace(BaseChatModelAgentMiddleware):
        def before_model_rewrite_state(self, ctx: Any, state: Any, model_ctx: Any) -> Any:
            def redacted(message: Any) -> Any:
                blocks = [b.model_copy(update={"text": "[redacted]"}) for b in message.content]
                return message.model_copy(update={"content": blocks})

            messages = [redacted(m) if m.role == "user" else m for m in state.messages]
            return ctx, state.override(messages=messages)

    with pytest.raises(ContractViolation, match="user message 'u1': id 'u1' became None"):
        contracts.check_metadata_preserved(RebuildsUserMessages())
    report = contracts.check_metadata_preserved(RedactsInPlace())
    assert report.complete and report.hooks_observed == ("RedactsInPlace.before_model",)
    with pytest.raises(UntestedError, match="nothing to check"):
        contracts.check_metadata_preserved(BaseChatModelAgentMiddleware())


# -- subagents are inside the contract -------------------------------------------------------


class AdminOnly(AgentMiddleware):
    """Hides and refuses the admin tools for anyone whose role is not exactly 'admin'."""

    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        if is_guest(request.runtime):
            request = request.override(tools=[t for t in request.tools if t.name not in EXCLUDED])
        return handler(request)

    def wrap_tool_call(self, request: Any, handler: Any) -> Any:
        if is_guest(request.runtime) and request.tool_call.name in EXCLUDED:
            return ToolMessage("no", tool_call_id=request.tool_call.id or "", status="error")
        return handler(request)


class FailsOpen(AdminOnly):
    """Buggy twin: only the role 'guest' is restricted; an unknown role is treated as admin."""

    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        if getattr(request.runtime.context, "role", "guest") == "guest":
            request = request.override(tools=[t for t in request.tools if t.name not in EXCLUDED])
        return handler(request)


def _with_subagent(subagent_filter: AgentMiddleware | None) -> Any:
    general = {
        "name": "general-purpose",
        "description": "General work.",
        "system_prompt": "Help.",
        "middleware": [subagent_filter] if subagent_filter is not None else [],
    }
    return lambda model: create_deep_agent(
        model, TOOLS, middleware=[AdminOnly()], subagents=[general]
    )


def test_exclusion_follows_task_into_the_subagents() -> None:
    with pytest.raises(ContractViolation) as caught:
        contracts.check_exclusion_holds(_with_subagent(None), EXCLUDED, context=Ctx("guest"))
    found = str(caught.value).split("Found:")[1].split("Fix:")[0]
    assert "through subagent 'general-purpose': excluded tool(s) ['delete_customer'] executed" in (
        found
    )
    report = contracts.check_exclusion_holds(
        _with_subagent(AdminOnly()), EXCLUDED, context=Ctx("guest")
    )
    assert report.complete and report.runs == 4


def test_fail_closed_follows_task_into_the_subagents() -> None:
    guest, intruder = Ctx("guest"), Ctx("intruder")
    with pytest.raises(ContractViolation, match="through subagent 'general-purpose': tools beyond"):
        contracts.check_fail_closed(
            _with_subagent(FailsOpen()), intruder, least_privileged_context=guest
        )
    report = contracts.check_fail_closed(
        _with_subagent(AdminOnly()), intruder, least_privileged_context=guest
    )
    assert report.complete and report.runs >= 3


def test_an_approved_review_may_run_the_tool() -> None:
    report = contracts.check_requires_approval(
        _reviewed(REVIEW, [_PUBLIC_ONLY]), ["delete_customer"], on_interrupt="approve"
    )
    assert report.complete and "delete_customer" in report.tool_calls_executed


def test_the_remaining_agent_checks_run_on_eino_agents() -> None:
    from hookproof.eino import ChatModelAgent
    from hookproof.examples.eino_support import build_eino_support_agent, public_search

    assert contracts.check_injected_model_used(build_eino_support_agent).complete
    assert contracts.check_unique_tool_names(build_eino_support_agent, context={}).complete

    def duplicated(model: Any) -> Any:
        return ChatModelAgent(model=model, tools=[public_search, public_search])

    with pytest.raises(ContractViolation, match="'public_search' appears 2 times"):
        contracts.check_unique_tool_names(duplicated)
    run = build_eino_support_agent(_scripted(["hi"])).run([("user", "x")])
    assert contracts.check_hook_order(run.trace).complete


def _scripted(turns: list[Any]) -> Any:
    from hookproof.models import RecordingModel, ScriptedModel

    return RecordingModel(ScriptedModel(turns))


def test_exclusion_counts_a_success_answer_to_an_excluded_call_as_a_run() -> None:
    class AnswersForTheTool(HidesAndRefuses):
        """Buggy twin: answers an export itself with a success, as a cached fast path would."""

        def wrap_tool_call(self, request: Any, handler: Any) -> Any:
            if request.tool_call.name == "export_data":
                return ToolMessage("exported (cached)", tool_call_id=request.tool_call.id or "")
            return super().wrap_tool_call(request, handler)

    def build(filter_: AgentMiddleware) -> Any:
        return lambda model: create_agent(model, TOOLS, middleware=[filter_])

    with pytest.raises(ContractViolation, match="'export_data' was answered with a success"):
        contracts.check_exclusion_holds(build(AnswersForTheTool()), EXCLUDED, context=Ctx("guest"))
    assert contracts.check_exclusion_holds(build(HidesAndRefuses()), EXCLUDED).complete

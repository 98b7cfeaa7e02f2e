"""Secrets never leave the process: every error message, repr and trace that can show request
content is redacted, for every secret of the corpus, including one cut in half by a message
that shortens what it quotes."""

from __future__ import annotations

import io
import pickle
from pathlib import Path
from typing import Any

import pytest

from hookproof import errors
from hookproof.contracts import check_metadata_preserved
from hookproof.gate.review import review
from hookproof.messages import AssistantMessage, SystemMessage, ToolCall, ToolMessage, UserMessage
from hookproof.models import FinalRequest, ScriptedModel, call
from hookproof.runtime import AgentMiddleware, Command, ModelResponse, create_agent, tool
from hookproof.snapshot import render
from hookproof.trace import Trace, TraceEvent
from tests.secret_corpus import IN_TEXT, SECRETS, leaked

EVERY_SECRET = "\n".join(IN_TEXT.values())


def leaked_fragments(text: str) -> list[str]:
    """The corpus secrets of which a run of 16 characters shows in ``text``: a message that
    cuts a secret in half must not show the half either."""
    return [
        name
        for name, secret in SECRETS.items()
        if any(
            secret[start : start + 16] in text
            for line in [secret.replace("\n", "")]
            for start in range(0, max(len(line) - 15, 1), 4)
        )
    ]


def _padded(name: str, width: int) -> str:
    """The corpus text ``name`` placed so that a message cutting at ``width`` characters cuts
    through its secret."""
    text = IN_TEXT[name]
    middle = text.index(SECRETS[name].split("\n")[0]) + len(SECRETS[name]) // 2
    return " " * max(width - middle, 0) + text


def _exhausted(content: str) -> errors.ScriptExhausted:
    agent = create_agent(ScriptedModel([]))
    with pytest.raises(errors.ScriptExhausted) as caught:
        agent.invoke({"messages": [("user", content)]})
    return caught.value


@pytest.mark.parametrize("name", sorted(IN_TEXT))
def test_script_exhausted_shows_no_secret_of_the_request(name: str) -> None:
    error = _exhausted(IN_TEXT[name])
    assert "[REDACTED]" in str(error)
    assert leaked_fragments(str(error)) == []


@pytest.mark.parametrize("name", sorted(IN_TEXT))
def test_script_exhausted_shows_no_half_of_a_secret_its_summary_cuts(name: str) -> None:
    error = _exhausted(_padded(name, 70))
    assert leaked_fragments(str(error)) == []


ERRORS_WITH_A_MESSAGE = [
    errors.HookproofError,
    errors.UsageError,
    errors.InvalidInputError,
    errors.ScriptExhausted,
    errors.RealModelBlocked,
    errors.ConnectionBlocked,
    errors.CassetteError,
    errors.MissingExchangeError,
    errors.UnexecutableToolError,
    errors.MaxIterationsExceeded,
    errors.InjectedStateError,
    errors.ToolNotFoundError,
]


@pytest.mark.parametrize("kind", ERRORS_WITH_A_MESSAGE, ids=lambda kind: kind.__name__)
def test_every_hookproof_error_redacts_its_message(kind: type[Exception]) -> None:
    error = kind(f"hookproof: the request held\n{EVERY_SECRET}")
    shown = [str(error), repr(error), *map(str, error.args), str(pickle.loads(pickle.dumps(error)))]
    assert [leaked(text) for text in shown] == [[]] * len(shown)


def test_errors_with_their_own_fields_redact_message_and_counterexample() -> None:
    violation = errors.ContractViolation(EVERY_SECRET, check="c", counterexample=EVERY_SECRET)
    stale = errors.StaleCassetteError(EVERY_SECRET, diff=None)
    template = errors.TemplateRenderError("t", EVERY_SECRET)
    assert leaked(str(violation)) == leaked(violation.counterexample) == []
    assert leaked(str(stale)) == leaked(str(template)) == []


def test_a_tool_error_keeps_its_text_for_the_model() -> None:
    assert str(errors.ToolError(IN_TEXT["groq"])) == IN_TEXT["groq"]


def test_safe_repr_redacts_before_it_cuts() -> None:
    value = {"note": _padded("google", 60)}
    assert leaked_fragments(errors.safe_repr(value, 60)) == []
    assert errors.safe_repr("plain", 3) == "'pl"


@pytest.mark.parametrize("name", ["google", "openai_project", "url_password_no_user"])
def test_a_message_quoting_a_bad_input_shows_no_half_of_a_secret(name: str) -> None:
    agent = create_agent(ScriptedModel(["ok"]))
    with pytest.raises(errors.UsageError) as bad_input:
        agent.invoke({"text": _padded(name, 80)})
    with pytest.raises(errors.UsageError) as bad_turn:
        ScriptedModel([{"answer": _padded(name, 60)}]).invoke(None)  # type: ignore[list-item, arg-type]
    assert leaked_fragments(str(bad_input.value)) == []
    assert leaked_fragments(str(bad_turn.value)) == []


class _Capture(AgentMiddleware):
    """Keeps the reprs of the requests and answers its wrap hooks see."""

    def __init__(self) -> None:
        self.shown: list[str] = []

    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        response = handler(request)
        self.shown += [repr(request), str(request), repr(response), repr(Command(update={}))]
        return response

    def wrap_tool_call(self, request: Any, handler: Any) -> Any:
        self.shown += [repr(request), str(request)]
        return handler(request)


@tool
def lookup(query: str) -> str:
    """Look something up."""
    return f"found {query}"


def test_reprs_of_requests_responses_messages_and_traces_show_no_secret() -> None:
    capture = _Capture()
    model = ScriptedModel([call("lookup", {"query": EVERY_SECRET}), EVERY_SECRET])
    agent = create_agent(model, [lookup], system_prompt=EVERY_SECRET, middleware=[capture])
    result = agent.invoke({"messages": [("user", EVERY_SECRET)]})
    trace: Trace = result.trace
    shown = [*capture.shown, repr(result.messages), str(result.messages[-1]), repr(trace)]
    shown += [trace.format(), *map(repr, trace.events)]
    assert [leaked(text) for text in shown] == [[]] * len(shown)


def test_reprs_of_hand_built_values_show_no_secret() -> None:
    values = [
        UserMessage(content=EVERY_SECRET),
        SystemMessage(content=EVERY_SECRET),
        AssistantMessage(content="", tool_calls=[ToolCall(name="x", args={"q": EVERY_SECRET})]),
        ToolMessage(content=EVERY_SECRET, tool_call_id="c1"),
        ToolCall(name="x", args={"q": EVERY_SECRET}),
        ModelResponse(result=(UserMessage(content=EVERY_SECRET),)),
        Command(update={"note": EVERY_SECRET}),
        TraceEvent(0, "tool", "lookup", "enter", data={"args": EVERY_SECRET}),
    ]
    shown = [text for value in values for text in (repr(value), str(value))]
    assert [leaked(text) for text in shown] == [[]] * len(shown)


class _DropsMetadata(AgentMiddleware):
    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        return handler(request.override(system_message=SystemMessage(content="plain")))


def test_a_contract_violation_shows_no_secret_of_its_counterexample() -> None:
    system = SystemMessage(content=_padded("anthropic", 200), additional_kwargs={"k": "v"})
    with pytest.raises(errors.ContractViolation) as caught:
        check_metadata_preserved(_DropsMetadata(), system)
    assert leaked_fragments(str(caught.value)) == []
    assert leaked_fragments(caught.value.counterexample) == []


def _legacy_snapshot(prompt: str) -> str:
    """A snapshot file as a hookproof that did not know the secret's format wrote it."""
    request = FinalRequest(model="m", system_message=SystemMessage(content=prompt))
    return render(request).replace("redis://cache/0", f"redis://:{SECRETS['url_ipv6']}@cache/0")


def test_review_shows_no_secret_of_a_file_written_before_it_was_redacted(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "test_app"
    folder.mkdir()
    name = f"test_x[{SECRETS['github_classic']}].txt"  # the file name of an old hookproof
    (folder / name).write_text(_legacy_snapshot("Use redis://cache/0.\nBe brief."))
    (folder / f"{name}.pending").write_text(_legacy_snapshot("Use redis://cache/0.\nBe kind."))
    out = io.StringIO()
    review(tmp_path, everything="reject", read=lambda: "", out=out)
    assert "Be kind." in out.getvalue()
    assert leaked(out.getvalue()) == []


def test_the_fuzz_summary_shows_no_secret_of_its_examples_or_database() -> None:
    from hookproof.cli._campaign import Campaign, CheckTotals, Outcome, format_summary

    database = f"redis://:{SECRETS['url_password_no_user']}@cache:6379/0"
    failure = ("gw0", [f"Falsifying example: test_x(context={EVERY_SECRET!r})"])
    totals = CheckTotals("contracts/test_x.py::test_x", {"gw0"}, 3, 1.0, 3.0, [failure])
    shown = format_summary(Outcome(1, [totals], EVERY_SECRET), Campaign(database=database))
    assert "replay" in shown
    assert leaked(shown) == []

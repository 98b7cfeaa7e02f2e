"""Failures that show the important line: a failing snapshot lists SECURITY and BREAKING
first, in full even where pytest cuts the assertion's explanation; an isolation violation
shows the text that leaked."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from hookproof import contracts
from hookproof.contracts import ContractViolation
from hookproof.runtime import AgentMiddleware, ModelRequest, create_agent
from tests.review.test_pending_review import PROJECT_TEST

MANY_TOOLS = " ".join(f"tool_{n:02}" for n in range(12))


def test_a_failing_snapshot_shows_every_change_most_severe_first_uncut(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("CI", "BUILD_NUMBER"):  # pytest never cuts explanations on CI
        monkeypatch.delenv(name, raising=False)
    pytester.makepyfile(test_app=PROJECT_TEST)
    (pytester.path / "prompt.txt").write_text("Be careful.")
    (pytester.path / "tools.txt").write_text(f"task {MANY_TOOLS}")
    pytester.runpytest_inprocess("--snapshot-update").assert_outcomes(passed=2)
    # Twelve REVIEW lines a tool each, a removed tool and a newly visible one.
    (pytester.path / "prompt.txt").write_text(
        "Be careful.\n" + "\n".join(f"Rule {n}." for n in range(12))
    )
    (pytester.path / "tools.txt").write_text(f"{MANY_TOOLS} shell")
    result = pytester.runpytest_inprocess("-k", "guest")
    result.assert_outcomes(failed=1, deselected=1)
    output = result.stdout.str()
    assert "Full output truncated" in output  # pytest did cut the explanation
    section = output.split("hookproof snapshot test_request[guest].txt")[1]
    lines = [line.strip() for line in section.splitlines()]
    assert lines[1] == "hookproof semantic diff (class, subject: what), most severe first:"
    headings = [line for line in lines if line.split(" ")[0] in ("SECURITY", "BREAKING", "REVIEW")]
    assert headings == [
        "SECURITY tool shell: now visible to the model",
        "BREAKING tool task: removed",
        "REVIEW   system prompt: 12 lines added",
    ]
    assert "+| Rule 11." in lines  # the changed lines themselves, past pytest's cut


@dataclass(frozen=True)
class User:
    name: str


class RemembersTheLastUser(AgentMiddleware):
    """Keeps the user on the instance: concurrent runs greet each other's users."""

    def __init__(self) -> None:
        super().__init__()
        self.user = ""

    def before_model(self, state: Any, runtime: Any) -> None:
        self.user = runtime.context.name

    def wrap_model_call(self, request: ModelRequest, handler: Any) -> Any:
        return handler(request.override(system_prompt=f"You are talking to {self.user}."))


def test_an_isolation_violation_shows_the_text_that_leaked() -> None:
    def build(model: Any) -> Any:
        return create_agent(model, [], middleware=[RemembersTheLastUser()], context_schema=User)

    with pytest.raises(ContractViolation) as caught:
        contracts.check_isolation(build, [User("alice"), User("bob")], modes=["threads"])
    message = str(caught.value)
    assert "saw another run's request: REVIEW   system prompt: lines changed" in message
    assert (
        "saw '| You are talking to bob.' where alone it sees '| You are talking to alice.'"
        in message
        or "saw '| You are talking to alice.' where alone it sees '| You are talking to bob.'"
        in message
    )

"""Edge cases found in review: each one a test so it stays fixed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hookproof.cli import main
from hookproof.errors import InvalidInputError, ToolError
from hookproof.harness import StateBackend, SummarizationMiddleware
from hookproof.messages import AssistantMessage, UserMessage
from hookproof.templates import (
    AgenticMessage,
    FormatType,
    FunctionToolResult,
    MCPToolResult,
    TemplateSecurityError,
    TemplateSyntaxError,
    TemplateVariableError,
    UserInputImage,
    from_agentic_messages,
    new_content_block,
    system_agentic_message,
    user_agentic_message,
)

pytest_plugins = ["pytester"]


def test_guard_follows_the_closest_marker_and_covers_threads(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
import threading
import pytest
from hookproof.models import ScriptedModel
from hookproof.runtime import create_agent

class ProviderModel:
    name = "provider"
    def invoke(self, request):
        return ScriptedModel(["live"]).invoke(request)

def run():
    return create_agent(ProviderModel()).invoke({"messages": [("user", "hi")]}).text

@pytest.mark.hookproof(allow_real_models=True)
class TestAllowed:
    @pytest.mark.hookproof(allow_real_models=False)
    def test_closest_marker_blocks(self):
        run()

def test_threads_are_blocked_too():
    errors = []
    def work():
        try:
            run()
        except Exception as error:
            errors.append(type(error).__name__)
    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    assert errors == ["RealModelBlocked"]
"""
    )
    result = pytester.runpytest_subprocess()
    # The thread's refusal is blocked, and, caught there, still fails the test.
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(
        [
            "*RealModelBlocked*",
            "*RealModelBlocked: hookproof: during the test's call*caught by the code under test*",
            "FAILED *test_closest_marker_blocks*",
            "FAILED *test_threads_are_blocked_too*",
        ]
    )


def test_nested_and_one_argument_custom_templates() -> None:
    class OneArgument:
        def format(self, variables: Any) -> list[AgenticMessage]:
            return [user_agentic_message(f"one {variables['x']}")]

    inner = from_agentic_messages(FormatType.FSTRING, user_agentic_message("inner {x}"))
    outer = from_agentic_messages(
        FormatType.FSTRING, system_agentic_message("s"), inner, OneArgument()
    )
    assert [m.text for m in outer.format({"x": 1})] == ["s", "inner 1", "one 1"]


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ("{{.big}}", "1e+06"),
        ("{{.odd}}", "1.2345675e+06"),
        ("{{.tiny}}", "1e-05"),
        ('{{"héllo"}}', "héllo"),
        ("{{.mixed}}", "[<nil> 1]"),
        ("{{if .a}}A{{else  if .b}}B{{end}}", ""),
        ("{{if\t.c}}C{{end}}", "C"),
    ],
)
def test_go_values_and_spacing(template: str, expected: str) -> None:
    values = {
        "big": 1e6,
        "odd": 1234567.5,
        "tiny": 0.00001,
        "mixed": [None, 1],
        "a": 0,
        "b": 0,
        "c": 1,
    }
    result = from_agentic_messages(FormatType.GO_TEMPLATE, user_agentic_message(template)).format(
        values
    )
    assert result[0].text == expected


@pytest.mark.parametrize(
    ("template", "error"),
    [
        ("{{if .a}}A{{else .b}}B{{end}}", TemplateSyntaxError),
        ("{{if .a}}A{{end .z}}", TemplateSyntaxError),
        ("{{range .xs}}A{{else if .a}}B{{end}}", TemplateSyntaxError),
        ("{{.s.upper}}", TemplateVariableError),
    ],
)
def test_go_malformed_actions_are_errors(template: str, error: type) -> None:
    with pytest.raises(error):
        from_agentic_messages(FormatType.GO_TEMPLATE, user_agentic_message(template)).format(
            {"a": 0, "xs": [], "s": "text", "z": 1}
        )


@pytest.mark.parametrize(
    "template", ["{{ items.pop() }}", "{{ d.clear() }}", "{% for x in range(10**7) %}{% endfor %}"]
)
def test_jinja2_cannot_change_variables_or_run_away(template: str) -> None:
    variables: dict[str, Any] = {"items": [1, 2], "d": {"k": 1}}
    with pytest.raises(TemplateSecurityError, match="the sandbox refused"):
        from_agentic_messages(FormatType.JINJA2, user_agentic_message(template)).format(variables)
    assert variables == {"items": [1, 2], "d": {"k": 1}}


def test_conversion_keeps_errors_metadata_and_refuses_merged_results() -> None:
    image = new_content_block(
        UserInputImage(url="u", detail="high"), cache_control={"type": "ephemeral"}
    )
    converted = AgenticMessage(role="user", content_blocks=(image,)).to_message()
    assert converted.content[0].cache_control == {"type": "ephemeral"}
    assert converted.content[0].extras == {"detail": "high"}
    failed = AgenticMessage(
        role="assistant",
        content_blocks=(new_content_block(MCPToolResult(call_id="m", name="n", error="boom")),),
    ).to_message()
    assert (failed.content[0].status, failed.content[0].text) == ("error", "boom")
    two = AgenticMessage(
        role="tool",
        content_blocks=tuple(
            new_content_block(FunctionToolResult(call_id=c, name="f", result=c))
            for c in ("c1", "c2")
        ),
    )
    with pytest.raises(InvalidInputError, match="exactly one function tool result"):
        two.to_message()


FILES = {"/a.py": "print(1)", "/src/b.py": "print(2)", "/src/c.txt": "x"}


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("*.py", ["/a.py"]),
        ("**/*.py", ["/a.py", "/src/b.py"]),
        ("src/*", ["/src/b.py", "/src/c.txt"]),
    ],
)
def test_glob_is_a_shell_glob(pattern: str, expected: list[str]) -> None:
    assert StateBackend().glob(FILES, pattern, "/") == expected


def test_file_tool_edges() -> None:
    backend = StateBackend()
    with pytest.raises(ToolError, match="old_string is empty"):
        backend.edit(FILES, "/a.py", "", "Z", True)
    with pytest.raises(ToolError, match="offset must be >= 0"):
        backend.read(FILES, "/a.py", -1, 10)
    assert backend.grep(FILES, "print", "/src/b.py", None) == ["/src/b.py:1: print(2)"]
    assert backend.ls(FILES, "/a.py") == ["/a.py"]


def test_summarization_with_nothing_kept() -> None:
    middleware = SummarizationMiddleware(max_tokens=1, keep_messages=0)
    update = middleware.before_model(
        {"messages": [UserMessage(content="x" * 100), AssistantMessage(content="y" * 100)]}, None
    )
    assert update["messages"][1].text.startswith("Summary of the conversation so far")
    assert len(update["messages"]) == 2


def test_gate_bad_bytes_and_check_usage_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from hookproof.models import FinalRequest
    from hookproof.snapshot import render

    for side in ("old", "new"):
        (tmp_path / side).mkdir()
        (tmp_path / side / "s.txt").write_text(render(FinalRequest(model="m")), encoding="utf-8")
    (tmp_path / "new" / "notes.md").write_bytes(b"\xff\xfe")  # only *.txt is a snapshot
    assert main(["gate", str(tmp_path / "old"), str(tmp_path / "new")]) == 0
    (tmp_path / "new" / "s.txt").write_bytes(b"hookproof final request, format 1\n\xff")
    assert main(["gate", str(tmp_path / "old"), str(tmp_path / "new")]) == 2
    assert "s.txt: is not UTF-8 text (byte 34 is 0xff)" in capsys.readouterr().err
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "test_ok.py").write_text("def test_ok():\n    pass\n")
    assert main(["check", str(suite), "--pytest-args", "--no-such-flag"]) == 2


def test_marker_can_set_the_default_snapshot_dir_over_the_ini(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nhookproof_snapshot_dir = snaps\n")
    pytester.makepyfile(
        """
import pytest
from hookproof.runtime import create_agent

@pytest.mark.hookproof(script=["ok"], snapshot_dir="snapshots")
def test_one(recording_model, hookproof_snapshot):
    create_agent(recording_model).invoke({"messages": [("user", "x")]})
    assert recording_model.last == hookproof_snapshot
"""
    )
    pytester.runpytest_subprocess("--snapshot-update").assert_outcomes(passed=1)
    assert (pytester.path / "snapshots").is_dir()
    assert not (pytester.path / "snaps").exists()

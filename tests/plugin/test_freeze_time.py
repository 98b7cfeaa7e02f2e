"""freeze_time (marker and command line) freezes the clock for a whole test; the ``dates``
matcher masks dates in snapshots for projects that do not freeze."""

from __future__ import annotations

from datetime import date, datetime

import pytest

import hookproof.snapshot
from hookproof.errors import UsageError
from hookproof.messages import SystemMessage, UserMessage
from hookproof.models import FinalRequest
from hookproof.plugin import resolve_options
from hookproof.snapshot import DEFAULT_MATCHERS, dates, diff, render, view
from hookproof.tools import ToolSchema

# The agent is built in a fixture (its build time shows in the prompt), the prompt is dynamic
# (today's date and the time at every model call) and a tool reads time.time(). None of these
# formats is masked by the default matchers, so only a frozen clock keeps the file stable.
DYNAMIC_AGENT = '''
import asyncio
import time
from datetime import date, datetime

import pytest
from hookproof.models import call
from hookproof.runtime import create_agent, dynamic_prompt, tool

pytestmark = pytest.mark.hookproof(freeze_time="2026-01-01T09:00:00Z")
SCRIPT = [call("clock", {}), "done"]

@tool
def clock() -> str:
    """Read the clock."""
    return f"epoch {time.time()}"

@pytest.fixture
def agent(recording_model):
    built = datetime.now()

    @dynamic_prompt
    def dated(request):
        return (
            f"Built {built:%Y/%m/%d %H.%M.%S.%f}. Today is {date.today():%A, %B %d, %Y}; "
            f"it is {datetime.now():%H.%M.%S.%f}."
        )

    return create_agent(recording_model, [clock], middleware=[dated])

@pytest.mark.hookproof(script=SCRIPT)
def test_sync_run(agent, recording_model, hookproof_snapshot):
    agent.invoke({"messages": [("user", "hi")]})
    assert recording_model.last == hookproof_snapshot

@pytest.mark.hookproof(script=SCRIPT)
def test_async_run(agent, recording_model, hookproof_snapshot):
    asyncio.run(agent.ainvoke({"messages": [("user", "hi")]}))
    assert recording_model.last == hookproof_snapshot
'''

LANGCHAIN_AGENT = '''
import asyncio
import time
from datetime import date, datetime

import pytest
from langchain.agents import create_agent
from langchain.agents.middleware import dynamic_prompt
from langchain_core.tools import tool
from hookproof.models import call

@tool
def clock() -> str:
    """Read the clock."""
    return f"epoch {time.time()}"

@dynamic_prompt
def dated(request):
    return f"Today is {date.today():%A, %B %d, %Y}; it is {datetime.now():%H.%M.%S.%f}."

@pytest.mark.hookproof(script=[call("clock", {}), "done"], freeze_time="2026-01-01T09:00:00Z")
def test_async_langchain_run(recording_chat_model, hookproof_snapshot):
    agent = create_agent(recording_chat_model, [clock], middleware=[dated])
    asyncio.run(agent.ainvoke({"messages": [("user", "hi")]}))
    assert recording_chat_model.last == hookproof_snapshot
'''

MASKED_AGENT = """
import os
from datetime import date, datetime

import pytest
from hookproof.models import call
from hookproof.runtime import create_agent
from hookproof.snapshot import DEFAULT_MATCHERS, dates

@pytest.mark.hookproof(script=["done"], matchers=[dates, *DEFAULT_MATCHERS])
def test_masked(recording_model, hookproof_snapshot):
    prompt = (
        f"Today is {date.today()} ({date.today():%A, %B %-d, %Y}); it is {datetime.now()}. "
        f"Launch on {os.environ['LAUNCH']}, again on {os.environ['LAUNCH']}."
    )
    create_agent(recording_model, [], system_prompt=prompt).invoke({"messages": [("user", "hi")]})
    assert recording_model.last == hookproof_snapshot
"""


def _snapshot_texts(pytester: pytest.Pytester) -> dict[str, bytes]:
    root = pytester.path / "snapshots"
    return {str(path.relative_to(root)): path.read_bytes() for path in root.rglob("*.txt")}


def _text(pytester: pytest.Pytester, module: str, test: str) -> str:
    return (pytester.path / "snapshots" / module / f"{test}.txt").read_text(encoding="utf-8")


def test_frozen_runs_write_byte_identical_snapshots(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_dynamic=DYNAMIC_AGENT)
    pytester.runpytest_inprocess("--snapshot-update").assert_outcomes(passed=2)
    first = _snapshot_texts(pytester)
    pytester.runpytest_inprocess("--snapshot-update").assert_outcomes(passed=2)
    assert _snapshot_texts(pytester) == first
    assert len(first) == 2
    pytester.runpytest_inprocess().assert_outcomes(passed=2)
    for test in ("test_sync_run", "test_async_run"):
        text = _text(pytester, "test_dynamic", test)
        assert "Built 2026/01/01 09.00.00.000000. Today is Thursday, January 01, 2026" in text
        assert "epoch 1767258000.0" in text


def test_frozen_langchain_async_run(pytester: pytest.Pytester) -> None:
    # Imported here, so the three runs in this process share it instead of importing it anew.
    pytest.importorskip("langchain.agents", reason="install hookproof[langchain] for this test")
    pytester.makepyfile(test_lc=LANGCHAIN_AGENT)
    pytester.runpytest_inprocess("--snapshot-update").assert_outcomes(passed=1)
    first = _snapshot_texts(pytester)
    pytester.runpytest_inprocess().assert_outcomes(passed=1)
    text = _text(pytester, "test_lc", "test_async_langchain_run")
    assert "Today is Thursday, January 01, 2026; it is 09.00.00.000000." in text
    assert "epoch 1767258000.0" in text
    pytester.runpytest_inprocess("--snapshot-update").assert_outcomes(passed=1)
    assert _snapshot_texts(pytester) == first


SCOPED_FIXTURES = """
from datetime import datetime
import pytest

@pytest.fixture(scope="module")
def built_early():
    return datetime.now().year

@pytest.fixture(scope="module")
def built_late():
    return datetime.now().year

def test_unfrozen_first(built_early):
    pass

@pytest.mark.hookproof(freeze_time="2001-01-01")
def test_frozen(built_early, built_late):
    assert built_late == 2001  # first set up during the frozen test
    assert built_early != 2001  # set up by the earlier test, at the real time
"""


def test_only_fixtures_set_up_during_a_frozen_test_are_frozen(pytester: pytest.Pytester) -> None:
    """What the snapshots page and the plugin docstring promise for wider-scoped fixtures."""
    pytester.makepyfile(test_scopes=SCOPED_FIXTURES)
    pytester.runpytest_inprocess("-p", "no:randomly").assert_outcomes(passed=2)


def test_command_line_wins_over_the_marker(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_dynamic=DYNAMIC_AGENT)
    result = pytester.runpytest_inprocess(
        "--snapshot-update", "--hookproof-freeze-time=2030-06-15T12:30:00Z"
    )
    result.assert_outcomes(passed=2)
    assert "Today is Saturday, June 15, 2030" in _text(pytester, "test_dynamic", "test_sync_run")


def test_bad_marker_value_names_the_option(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        "import pytest\n"
        "@pytest.mark.hookproof(freeze_time='next tuesday')\n"
        "def test_x():\n    pass\n"
    )
    result = pytester.runpytest_inprocess()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        ["*hookproof: @pytest.mark.hookproof gives freeze_time='next tuesday'*ISO-8601*"]
    )


def test_bad_command_line_value_names_the_option(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_x():\n    pass\n")
    result = pytester.runpytest_inprocess("--hookproof-freeze-time=2026-13-01")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*hookproof: the command line gives freeze_time='2026-13-01'*"])


@pytest.mark.slow
def test_freezegun_is_imported_only_when_asked(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        "import sys\ndef test_clock_untouched():\n    assert 'freezegun' not in sys.modules\n"
    )
    # In a process of its own: this one may have imported freezegun already.
    pytester.runpytest_subprocess().assert_outcomes(passed=1)


def test_options_merge_freeze_time_with_the_command_line_last() -> None:
    markers = [{"freeze_time": "2026-01-01"}, {"freeze_time": datetime(2026, 2, 1, 9, 0)}]
    assert resolve_options(markers=markers).freeze_time == datetime(2026, 2, 1, 9, 0)
    cli = {"freeze_time": "2030-01-01T00:00:00Z"}
    assert resolve_options(markers=markers, cli=cli).freeze_time == "2030-01-01T00:00:00Z"
    assert resolve_options().freeze_time is None
    assert resolve_options(markers=[{"freeze_time": date(2026, 1, 1)}]).freeze_time == date(
        2026, 1, 1
    )


@pytest.mark.parametrize("value", ["soon", "2026-02-30", 1767258000, ""])
def test_bad_freeze_time_is_a_usage_error(value: object) -> None:
    with pytest.raises(UsageError, match="freeze_time="):
        resolve_options(markers=[{"freeze_time": value}])


def _prompted(prompt: str) -> FinalRequest:
    return FinalRequest(model="m", system_message=SystemMessage(content=prompt))


def test_dates_masks_iso_and_long_dates_with_stable_placeholders() -> None:
    prompt = (
        "Today is 2026-01-05 (Monday, January 5, 2026), now 2026-01-05T09:30:00Z "
        "and 2026-01-05 09:30:00.123456+01:00; due 5 February 2026, again 2026-01-05. "
        "Version 2026.01 and 12-34-5678 stay."
    )
    text = render(_prompted(prompt), matchers=[dates])
    assert (
        "Today is <date-0> (<date-1>), now <date-2> and <date-3>; due <date-4>, again <date-0>. "
        "Version 2026.01 and 12-34-5678 stay."
    ) in text


def test_dates_before_the_defaults_masks_datetimes_as_dates() -> None:
    prompt = "at 2026-01-05T09:30:00Z, id 123e4567-e89b-12d3-a456-426614174000"
    text = render(_prompted(prompt), matchers=[dates, *DEFAULT_MATCHERS])
    assert "at <date-0>, id <uuid-0>" in text


def _booking(today: str, opening: str) -> FinalRequest:
    day = {"type": "string", "enum": [opening], "description": f"From {opening} on."}
    tool = ToolSchema(
        name="book",
        description=f"Book a slot; bookings open on {opening}.",
        parameters={"type": "object", "properties": {"day": day}, "required": ["day"]},
    )
    return FinalRequest(
        model="m",
        system_message=SystemMessage(content=f"Today is {today}."),
        messages=(UserMessage(content=f"Book me in, it is {today}."),),
        tools=(tool,),
        tool_choice={"name": "book", "not_before": opening},
        response_format={"after": opening},
        model_settings={"opening": opening},
    )


def test_dates_masks_the_prompt_and_messages_but_not_tools_or_settings() -> None:
    masked = [dates, *DEFAULT_MATCHERS]
    old = view(_booking("2026-01-05", "2024-06-01"), matchers=masked)
    text = render(old)
    assert "| Today is <date-0>." in text
    assert "Book me in, it is <date-0>." in text
    assert text.count("2024-06-01") == 6  # enum, descriptions, tool_choice, format, settings
    assert diff(old, view(_booking("2026-01-06", "2024-06-01"), matchers=masked)).changes == ()
    changed = diff(old, view(_booking("2026-01-06", "2024-07-01"), matchers=masked)).changes
    assert {change.subject for change in changed} >= {
        "tool_choice",
        "response_format",
        "settings",
        "tool book",
    }
    assert not {change.subject for change in changed} & {"system prompt", "messages"}


def test_dates_is_exported_beside_regex() -> None:
    assert {"dates", "regex"} <= set(hookproof.snapshot.__all__)


def test_dates_masks_real_dates_without_freezing(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_masked=MASKED_AGENT)
    monkeypatch.setenv("LAUNCH", "2026-03-01")
    pytester.runpytest_inprocess("--snapshot-update").assert_outcomes(passed=1)
    text = _text(pytester, "test_masked", "test_masked")
    assert "Today is <date-0> (<date-1>); it is <date-2>." in text
    assert "Launch on <date-3>, again on <date-3>." in text
    assert str(date.today().year) not in text
    monkeypatch.setenv("LAUNCH", "2027-11-30")
    pytester.runpytest_inprocess().assert_outcomes(passed=1)

"""The pytest entry point is registered, cheap, and can be disabled; the hooks hand their
calls to one HookproofSession per run."""

from __future__ import annotations

import pytest


def test_plugin_is_loaded_through_its_entry_point(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_ok():\n    assert True\n")
    result = pytester.runpytest_inprocess()  # a fresh config loads the entry points again
    result.stdout.fnmatch_lines(["hookproof: 0.1.0"])
    assert result.ret == 0


def test_plugin_can_be_disabled(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_ok():\n    assert True\n")
    result = pytester.runpytest_inprocess("-p", "no:hookproof")
    assert "hookproof: " not in result.stdout.str()
    assert result.ret == 0


SESSION_TEST = """
import pytest
from hookproof.plugin._session import HookproofSession, session_of

@pytest.mark.hookproof(script=["hi"], model_name="named")
def test_the_run_has_one_session(request, scripted_model):
    session = session_of(request.config)
    assert isinstance(session, HookproofSession)
    assert session.options(request.node).model_name == "named" == scripted_model.name
"""


def test_the_plugin_loads_by_its_module_name_and_keeps_one_session_per_run(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_session=SESSION_TEST)
    result = pytester.runpytest_inprocess("-p", "no:hookproof", "-p", "hookproof.plugin")
    result.stdout.fnmatch_lines(["hookproof: 0.1.0"])
    result.assert_outcomes(passed=1)

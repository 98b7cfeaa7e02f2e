"""``hookproof_guard.expect_blocked()``: a test proving its production model is refused.

The block passes only if something inside it was refused (in the test's process or a child
it started), and absorbs that refusal and the error it caused; a block where nothing was
refused fails the test, a refusal outside the block still fails it, and a test whose guard is
off cannot use the block at all.
"""

from __future__ import annotations

import pytest

from tests.plugin.provider_sources import PROVIDER_MODEL

APP = (
    """
import subprocess
import sys
import pytest
from hookproof.errors import RealModelBlocked
"""
    + PROVIDER_MODEL
    + """
def app(model):
    return create_agent(model).invoke({"messages": [("user", "hi")]}).text

def swallowing_app(model):
    try:
        return app(model)
    except Exception:
        return "fallback"

class AppError(Exception):
    pass

def rewrapping_app(model):
    try:
        return app(model)
    except Exception as error:
        raise AppError("the app failed") from error

CHILD = (
    "from test_app import ProviderModel, swallowing_app; "
    "print(swallowing_app(ProviderModel()))"
)
"""
)

TESTS = """
from test_app import *

def test_raised_refusal(hookproof_guard):
    with hookproof_guard.expect_blocked() as refusals:
        app(ProviderModel())
    assert refusals[0].startswith("hookproof: the test called model 'provider'")

def test_swallowed_refusal(hookproof_guard):
    with hookproof_guard.expect_blocked():
        assert swallowing_app(ProviderModel()) == "fallback"

def test_error_caused_by_the_refusal(hookproof_guard):
    with hookproof_guard.expect_blocked():
        rewrapping_app(ProviderModel())

def test_refusal_in_a_child_process(hookproof_guard):
    with hookproof_guard.expect_blocked():
        done = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True)
    assert done.stdout.strip() == "fallback"

def test_nothing_refused(hookproof_guard):
    with hookproof_guard.expect_blocked():
        app(ScriptedModel(["offline"]))

def test_refusal_after_the_block(hookproof_guard):
    with hookproof_guard.expect_blocked():
        app(ProviderModel())
    swallowing_app(ProviderModel())

def test_unrelated_error_goes_through(hookproof_guard):
    with hookproof_guard.expect_blocked():
        swallowing_app(ProviderModel())
        raise KeyError("its own")

def test_failed_assert_while_handling_the_refusal(hookproof_guard):
    with hookproof_guard.expect_blocked():
        try:
            app(ProviderModel())
        except RealModelBlocked as error:
            assert "a text the refusal does not hold" in str(error)

@pytest.mark.hookproof(allow_real_models=True)
def test_guard_off(hookproof_guard):
    with hookproof_guard.expect_blocked():
        app(ProviderModel())
"""


@pytest.mark.slow
def test_expect_blocked_passes_only_on_a_refusal_inside_it(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "1000")  # whole messages in the short summary
    monkeypatch.delenv("CI", raising=False)
    pytester.makepyfile(test_app=APP, test_expect=TESTS)
    # In process: the child is found through the pytester directory, the current one.
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-rf", "test_expect.py")
    result.assert_outcomes(passed=4, failed=5)
    result.stdout.fnmatch_lines(
        [
            "FAILED *::test_nothing_refused - hookproof.errors.NothingBlocked: hookproof: "
            "nothing was refused inside expect_blocked(): *",
            "FAILED *::test_refusal_after_the_block - hookproof.errors.RealModelBlocked: "
            "hookproof: during the test's call, a real model call or connection was refused *",
            "FAILED *::test_unrelated_error_goes_through - KeyError: 'its own'",
            "FAILED *::test_failed_assert_while_handling_the_refusal - assert 'a text the *",
            "FAILED *::test_guard_off - hookproof.errors.UsageError: hookproof: "
            "expect_blocked() was used while the real-model guard is off *",
        ],
        consecutive=True,
    )


def test_hookproof_guard_shows_the_policy_in_force(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
import pytest

def test_on(hookproof_guard):
    assert hookproof_guard.policy.blocking

@pytest.mark.hookproof(allow_real_models=True)
def test_off(hookproof_guard):
    assert not hookproof_guard.policy.blocking
"""
    )
    pytester.runpytest_inprocess("-p", "no:cacheprovider").assert_outcomes(passed=2)

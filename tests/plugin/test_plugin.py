"""The pytest entry point is registered, cheap, and can be disabled."""

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

"""hookproof's own suite: the plugin registers and selects the hypothesis profiles
(``ci`` under CI, or HYPOTHESIS_PROFILE / --hypothesis-profile); locally, ``dev`` is used.

Every pytester project, and every pytest that ``hookproof check`` starts in a test, runs as
a project of its own: the variables pytest-xdist sets in its workers are removed first, or a
child pytest started by a worker would think it is one too (syrupy, for one, then leaves
unused snapshots alone). Child runs write no cache and skip langsmith's pytest plugin
(installed with LangChain, unused here, and most of the start-up time of a child pytest)."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from hypothesis import settings

from hookproof.contracts.profiles import register_profiles

pytest_plugins = ["pytester"]

CHILD_OPTIONS = "-p no:cacheprovider -p no:langsmith_plugin"

if not os.environ.get("CI") and not os.environ.get("HYPOTHESIS_PROFILE"):
    register_profiles()
    settings.load_profile("dev")


@pytest.fixture(autouse=True)
def _hypothesis_profile_kept() -> Iterator[None]:
    """A pytester run in this process configures hookproof's plugin, which registers and
    loads hypothesis profiles (with an example database, say): each test ends with the
    profile it started with in force, so the next run does not find settings that differ
    from their profile (hypothesis warns, and warnings are errors here)."""
    name = settings.get_current_profile_name()
    yield
    settings.load_profile(name)


def _as_a_project_of_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [name for name in os.environ if name.startswith("PYTEST_XDIST_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("PYTEST_ADDOPTS", CHILD_OPTIONS)


@pytest.fixture
def pytester(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    _as_a_project_of_its_own(monkeypatch)  # after pytester, which clears PYTEST_ADDOPTS
    return pytester


@pytest.fixture
def child_pytest(monkeypatch: pytest.MonkeyPatch) -> None:
    """For tests whose code starts pytest itself (``hookproof check``): the same environment."""
    _as_a_project_of_its_own(monkeypatch)

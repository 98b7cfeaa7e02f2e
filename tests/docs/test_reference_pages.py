"""The reference pages are generated from hookproof itself (tests/docs/reference_pages.py):
the committed pages are exactly what the generator makes now, so a changed option, check,
fixture, format or public name that is not regenerated fails here."""

from __future__ import annotations

import pytest

from hookproof.plugin import _settings
from tests.docs import reference_checks, reference_plugin
from tests.docs.reference_pages import DOCS, PAGES, generated

REGENERATE = "run `python -m tests.docs.reference_pages` and review the diff"


@pytest.mark.parametrize("name", sorted(PAGES))
def test_the_committed_page_is_what_the_generator_makes(name: str) -> None:
    committed = (DOCS / name).read_text(encoding="utf-8")
    assert committed == PAGES[name](), f"docs/{name} is out of date: {REGENERATE}"


def test_a_new_ini_key_changes_the_plugin_page(monkeypatch: pytest.MonkeyPatch) -> None:
    before = reference_plugin.plugin_page()
    monkeypatch.setitem(_settings._INI, "hookproof_new_key", {"help": "a new key", "default": ""})
    assert "`hookproof_new_key`" in reference_plugin.plugin_page() != before


def test_a_registered_check_without_a_row_stops_the_generator(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delitem(reference_checks.WHERE, "check_isolation")
    with pytest.raises(SystemExit, match=r"missing \['check_isolation'\]"):
        reference_checks.checks_page()


def test_every_page_is_generated_once() -> None:
    assert set(generated()) == set(PAGES)


def test_the_written_pages_name_every_fixture_and_subcommand() -> None:
    """The concept page and the overview are written by hand: they must not fall behind the
    plugin's fixtures or the command's subcommands either."""
    from hookproof.cli import COMMANDS

    plugin_page = (DOCS / "concepts" / "pytest-plugin.md").read_text(encoding="utf-8")
    overview = (DOCS / "index.md").read_text(encoding="utf-8")
    assert [name for name in reference_plugin.fixtures() if f"`{name}`" not in plugin_page] == []
    assert [name for name in reference_plugin.fixtures() if f"`{name}`" not in overview] == []
    assert [c.name for c in COMMANDS if f"`{c.name}`" not in overview] == []

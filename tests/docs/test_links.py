"""Every link into the documentation resolves: the relative links of the README and the site's
pages, and every address of the site hookproof prints (fixture docstrings, the "Fix:" lines
of ContractViolation and UntestedError, any other in its source) names a page, and an anchor
of it, that exists under docs/. A renamed page or heading fails here."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hookproof import contracts
from hookproof._support.docs import DOCS_URL, docs_link
from hookproof.runtime import create_agent, tool
from tests.docs.reference_plugin import fixtures
from tests.docs.site import DOCS, REPO, anchors, page_id, relative_links, site_pages

SRC = REPO / "src" / "hookproof"
SITE_ADDRESS = re.compile(re.escape(DOCS_URL) + r"[\w/.#-]*")


def problem_with_address(address: str) -> str | None:
    """What is wrong with an address of the site (None: its page and anchor exist)."""
    path, _, anchor = address.removeprefix(DOCS_URL).partition("#")
    path = path.strip("/")
    candidates = [DOCS / f"{path}.md", DOCS / path / "index.md"] if path else [DOCS / "index.md"]
    page = next((candidate for candidate in candidates if candidate.is_file()), None)
    if page is None:
        return f"{address}: no page docs/{path}.md"
    if anchor and anchor not in anchors(page):
        return f"{address}: docs/{page.relative_to(DOCS)} has no heading #{anchor}"
    return None


def problem_with_link(page: Path, target: str) -> str | None:
    path, _, anchor = target.partition("#")
    linked = (page.parent / path).resolve() if path else page
    if not linked.exists():
        return f"{page_id(page)}: {target} does not exist"
    if anchor and linked.suffix == ".md" and anchor not in anchors(linked):
        return f"{page_id(page)}: {target} has no such heading"
    return None


def test_an_address_of_a_missing_page_or_heading_is_reported() -> None:
    assert problem_with_address(docs_link("reference/checks.md", "check_fail_closed")) is None
    assert problem_with_address(docs_link("index.md")) is None
    assert problem_with_address(docs_link("reference/checkz.md")) is not None
    assert problem_with_address(docs_link("reference/checks.md", "check_nothing")) is not None


@pytest.mark.parametrize("page", site_pages(), ids=page_id)
def test_relative_links_reach_existing_pages_and_headings(page: Path) -> None:
    problems = [problem_with_link(page, target) for target in relative_links(page)]
    assert [problem for problem in problems if problem] == []


def test_every_site_address_in_the_source_exists() -> None:
    found = []
    for path in sorted(SRC.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        found += SITE_ADDRESS.findall(text)
        found += [docs_link(*call) for call in _literal_docs_links(text)]
    assert len(found) >= 10
    assert [problem for address in found if (problem := problem_with_address(address))] == []


def _literal_docs_links(text: str) -> list[tuple[str, ...]]:
    calls = re.findall(r'docs_link\(\s*"([^"]+)"(?:,\s*"([^"]+)")?\s*\)', text)
    return [tuple(part for part in call if part) for call in calls]


def test_pytest_fixtures_shows_each_fixture_with_the_page_that_explains_it(
    pytester: pytest.Pytester,
) -> None:
    """``pytest --fixtures`` prints each docstring's first paragraph: the link is in it."""
    listing = pytester.runpytest("--fixtures", "-p", "no:cacheprovider").stdout.str()
    shown = _fixture_entries(listing)
    assert set(fixtures()) <= set(shown)
    for name in fixtures():
        addresses = SITE_ADDRESS.findall(shown[name])
        assert addresses, f"pytest --fixtures shows no page of the site for {name}"
        assert [problem_with_address(address) for address in addresses] == [None]


def _fixture_entries(listing: str) -> dict[str, str]:
    """Each fixture ``pytest --fixtures`` lists, and the text it prints under its name."""
    entries: dict[str, str] = {}
    name = None
    for line in listing.splitlines():
        if heading := re.match(r"(\w+) -- ", line):
            name = heading.group(1)
            entries[name] = ""
        elif name is not None and line.startswith("    "):
            entries[name] += line.strip() + " "
    return entries


@tool
def delete_customer(customer_id: str) -> str:
    """Delete a customer record."""
    return f"deleted {customer_id}"


def _fix_line_address(error: BaseException) -> str:
    fix = next(line for line in str(error).splitlines() if line.startswith("Fix: "))
    (address,) = SITE_ADDRESS.findall(fix)
    return address


def test_a_violation_links_its_check_and_an_untested_check_links_what_untested_means() -> None:
    with pytest.raises(contracts.ContractViolation) as violated:
        contracts.check_exclusion_holds(
            lambda model: create_agent(model, [delete_customer]), ["delete_customer"]
        )
    address = _fix_line_address(violated.value)
    assert address == docs_link("reference/checks.md", "check_exclusion_holds")
    assert problem_with_address(address) is None
    with pytest.raises(contracts.UntestedError) as untested:
        contracts.check_tool_closure(lambda model: create_agent(model, []))
    address = _fix_line_address(untested.value)
    assert address.startswith(docs_link("concepts/contracts.md"))
    assert problem_with_address(address) is None

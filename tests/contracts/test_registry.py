"""The registry of contract checks is the one list of them: ``hookproof.contracts`` exports
what it names (loading each check on first use), and every other list of checks (the
exercised totals, the documentation's tables, the deadline tests) agrees with it. A new check is
one module plus one entry."""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from hookproof import _exercised, contracts
from hookproof.contracts import _registry
from hookproof.errors import InvalidInputError

DOCS = Path(__file__).resolve().parents[2] / "docs"
# Each table of checks in the documentation, by its page and header: what each check proves
# (written), and where each runs (generated from the registry by tests/docs/reference_pages.py).
TABLES = {
    "| check | proves |": DOCS / "concepts" / "contracts.md",
    "| check | reference runtime |": DOCS / "reference" / "checks.md",
}


def docs_tables() -> dict[str, set[str]]:
    """The checks each table of checks names, by the table's header."""
    tables: dict[str, set[str]] = {}
    for header, page in TABLES.items():
        tables.update(_tables_of(page.read_text(encoding="utf-8"), header))
    return tables


def _tables_of(text: str, header: str) -> dict[str, set[str]]:
    tables: dict[str, set[str]] = {}
    current: set[str] | None = None
    for line in text.splitlines():
        if line.startswith(header):
            current = tables.setdefault(header, set())
        elif not line.startswith("|"):
            current = None
        elif current is not None:
            first_cell = line.split("|")[1]
            current.update(re.findall(r"`(check_\w+)", first_cell))
    return tables


def unlisted_in_docs() -> dict[str, list[str]]:
    """The registered checks each table of checks leaves out."""
    return {
        table: sorted(set(_registry.check_names()) - named)
        for table, named in docs_tables().items()
    }


@contextmanager
def registered(name: str, origin: str) -> Iterator[None]:
    """``name`` in the registry while the block runs, the package imported with it there."""
    _registry.CHECKS[name] = origin
    importlib.reload(contracts)
    try:
        yield
    finally:
        del _registry.CHECKS[name]
        importlib.reload(contracts)


TOY_CHECK = '''
from hookproof._support.untimed import untimed
from hookproof.contracts._report import CheckReport, Exercise


@untimed
def check_toy(value: int, *, allow_untested: bool = False) -> CheckReport:
    """A toy check: any value passes."""
    exercise = Exercise("check_toy", allow_untested=allow_untested)
    exercise.context(value)
    return exercise.passed(counterexample=repr(value), fix="")
'''


def test_a_new_check_is_one_module_and_one_registry_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "toy_check.py").write_text(TOY_CHECK, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    with registered("check_toy", "toy_check:check_toy"):
        assert contracts.check_toy is importlib.import_module("toy_check").check_toy
        assert "check_toy" in contracts.__all__ and "check_toy" in dir(contracts)
        star: dict[str, object] = {}
        exec("from hookproof.contracts import *", star)
        assert "check_toy" in star
        assert "check_toy" in _registry.check_names()
        with _exercised.collecting() as reports:
            contracts.check_toy(3)
        assert _exercised.totals(report.counts() for report in reports)["checks"] == 1
        assert all(missing == ["check_toy"] for missing in unlisted_in_docs().values())
    assert not hasattr(contracts, "check_toy")
    assert "check_toy" not in contracts.__all__ and "check_toy" not in _registry.check_names()


def test_the_package_exports_every_registered_check() -> None:
    for name in _registry.check_names():
        assert getattr(contracts, name) is _registry.load_check(name)
    assert {name for name in contracts.__all__ if name.startswith("check_")} == set(
        _registry.CHECKS
    )


def test_each_check_lives_in_the_module_its_entry_names() -> None:
    for name, origin in _registry.CHECKS.items():
        module, _, function = origin.partition(":")
        check = _registry.load_check(name)
        assert (check.__module__, check.__name__) == (module, function) == (module, name)


def test_both_tables_of_checks_list_exactly_the_registered_checks() -> None:
    assert set(docs_tables()) == set(TABLES)
    assert unlisted_in_docs() == {table: [] for table in TABLES}
    named = set().union(*docs_tables().values())
    assert sorted(named - set(_registry.CHECKS)) == []


def test_an_unknown_check_is_refused_with_the_closest_name() -> None:
    with pytest.raises(InvalidInputError, match=r"Did you mean 'check_tool_closure'\?"):
        _registry.load_check("check_tool_closur")
    with pytest.raises(AttributeError, match="no attribute 'check_nothing'"):
        contracts.check_nothing  # noqa: B018


def test_importing_the_package_loads_no_check() -> None:
    code = (
        "import sys, hookproof.contracts\n"
        "modules = {origin.partition(':')[0] for origin in "
        "hookproof.contracts._registry.CHECKS.values()}\n"
        "print(sorted(m for m in modules | {'hookproof.targets'} if m in sys.modules))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert loaded.strip() == "[]"


def test_the_type_checkers_see_every_registered_check() -> None:
    """The package imports each check for type checkers only: they see the same list."""
    source = Path(contracts.__file__).read_text(encoding="utf-8")
    imported = set(re.findall(r"\b(check_\w+) as \1\b", source))
    assert imported == set(_registry.CHECKS)


def test_a_check_is_loaded_from_where_the_registry_says_each_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    first = contracts.check_fail_closed
    assert contracts.check_fail_closed is first  # loaded once, then kept
    path = "hookproof.contracts._closure:check_tool_closure"
    monkeypatch.setitem(_registry.CHECKS, "check_fail_closed", path)
    assert contracts.check_fail_closed is contracts.check_tool_closure

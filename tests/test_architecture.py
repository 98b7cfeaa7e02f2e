"""The import graph follows shared/DESIGN.md: private modules and names stay in their
package, parts import only downward, no two parts import each other, no two files import each
other (even around a circle), and no file in src/ is over 400 lines.

Every module under src/hookproof is read with ``ast``: imports at module level, inside
functions and under ``if TYPE_CHECKING:``, and ``importlib.import_module("...")`` with a
literal name. KNOWN_VIOLATIONS lists what is still wrong, each with who is fixing it; the
test fails on a violation not in the list and on an entry that no longer occurs, so the
list only shrinks.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

import hookproof

SRC = Path(hookproof.__file__).parent
REPO = SRC.parent.parent

# part -> (rank, module prefixes). A part imports only parts of a lower rank; parts of one
# rank may import each other only without a cycle. The design's direction is vocabulary <-
# engine <- {runtime, eino} <- {harness, models} <- {snapshot, contracts} <- {targets,
# adapters} <- {pytest plugin, cli}; targets sit below contracts here because contracts are
# written against the Target interface (DESIGN.md, "Where the structure goes next").
PARTS: dict[str, tuple[int, tuple[str, ...]]] = {
    "vocabulary": (
        0,
        (
            "hookproof",
            "hookproof.errors",
            "hookproof.compat",
            "hookproof._support",
            "hookproof._secrets",
            "hookproof._frameworks",
            "hookproof.messages",
            "hookproof.tools",
            "hookproof.trace",
            "hookproof.context",
            "hookproof.requests",
            "hookproof.redaction",
            "hookproof.provenance",
        ),
    ),
    "templates": (1, ("hookproof.templates",)),
    "guard": (1, ("hookproof.guard",)),
    "engine": (2, ("hookproof._engine",)),
    "runtime": (3, ("hookproof.runtime",)),
    "eino": (3, ("hookproof.eino",)),
    "harness": (4, ("hookproof.harness",)),
    "models": (4, ("hookproof.models",)),
    "targets": (5, ("hookproof.targets",)),
    "snapshot": (6, ("hookproof.snapshot",)),
    "gate": (6, ("hookproof.gate",)),
    "contracts": (
        6,
        (
            "hookproof.contracts",
            "hookproof._exercised",
        ),
    ),
    "adapters": (7, ("hookproof.adapters",)),
    "recording": (7, ("hookproof.recording",)),
    "conformance": (7, ("hookproof.conformance",)),
    "pytest plugin": (8, ("hookproof.plugin",)),
    "cli": (8, ("hookproof.cli", "hookproof.__main__")),
    "examples": (8, ("hookproof.examples",)),
}
ONLY_FROM = {"templates": {"vocabulary"}}  # templates depend on the vocabulary only
IMPORTS_ANYTHING = {"examples"}

# (importer, imported, who is fixing it). Remove an entry once it no longer occurs.
KNOWN_VIOLATIONS: set[tuple[str, str, str]] = set()


@dataclass(frozen=True)
class Import:
    importer: str
    imported: str  # a module, or module.name for a private name imported from a module
    path: Path
    line: int

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(REPO)}:{self.line}"


def _modules() -> dict[str, Path]:
    found = {}
    for path in sorted(SRC.rglob("*.py")):
        parts = path.relative_to(SRC.parent).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


MODULES = _modules()


def _literal_import_module(node: ast.Call) -> str | None:
    name = node.func.attr if isinstance(node.func, ast.Attribute) else None
    name = node.func.id if isinstance(node.func, ast.Name) else name
    first = node.args[0] if node.args else None
    if name == "import_module" and isinstance(first, ast.Constant):
        return first.value if isinstance(first.value, str) else None
    return None


def _from_base(module: str, path: Path, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    base = package[: len(package) - node.level + 1]
    return ".".join([*base, node.module] if node.module else base)


def _imported_names(module: str, path: Path, node: ast.AST) -> Iterator[tuple[str, int]]:
    if isinstance(node, ast.Import):
        yield from ((alias.name, node.lineno) for alias in node.names)
    elif isinstance(node, ast.ImportFrom):
        base = _from_base(module, path, node)
        for alias in node.names:
            full = f"{base}.{alias.name}"
            private_name = alias.name.startswith("_") and not alias.name.startswith("__")
            yield (full if full in MODULES or private_name else base), node.lineno
    elif isinstance(node, ast.Call) and (literal := _literal_import_module(node)):
        yield literal, node.lineno


def imports_of(module: str, path: Path, source: str) -> list[Import]:
    """Every hookproof import in ``source`` (the text of ``module`` at ``path``)."""
    return [
        Import(module, imported, path, line)
        for node in ast.walk(ast.parse(source))
        for imported, line in _imported_names(module, path, node)
        if imported.split(".")[0] == "hookproof"
    ]


def _all_imports() -> list[Import]:
    return [
        found
        for module, path in MODULES.items()
        for found in imports_of(module, path, path.read_text(encoding="utf-8"))
    ]


def part_of(module: str) -> str | None:
    matches = [
        (len(prefix), part)
        for part, (_, prefixes) in PARTS.items()
        for prefix in prefixes
        if module == prefix or (prefix != "hookproof" and module.startswith(prefix + "."))
    ]
    return max(matches)[1] if matches else None


def _private_owner(imported: str) -> str | None:
    """The package a private module (or private name) belongs to: the package that holds
    it, or the package of the module that defines the name. None when it is public or a
    top-level private module (``hookproof._engine``, ``hookproof._support``), which are
    project-internal and may be imported anywhere."""
    parts = imported.split(".")
    for index in range(2, len(parts)):
        if parts[index].startswith("_") and not parts[index].startswith("__"):
            holder = ".".join(parts[:index])
            is_package = holder not in MODULES or MODULES[holder].name == "__init__.py"
            return holder if is_package else holder.rpartition(".")[0]
    return None


def _inside(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def private_violations(found: list[Import]) -> Iterator[tuple[Import, str]]:
    for item in found:
        owner = _private_owner(item.imported)
        if owner is None or _inside(item.importer, owner):
            continue
        yield item, f"imports {item.imported}, private to {owner}"


def _part_edges(found: list[Import]) -> Iterator[tuple[Import, str, str]]:
    for item in found:
        source, target = part_of(item.importer), part_of(item.imported)
        if source and target and source != target and source not in IMPORTS_ANYTHING:
            yield item, source, target


def direction_violations(found: list[Import]) -> Iterator[tuple[Import, str]]:
    for item, source, target in _part_edges(found):
        if source in ONLY_FROM and target not in ONLY_FROM[source]:
            yield item, f"{source} may import only {sorted(ONLY_FROM[source])}, not {target}"
        elif PARTS[target][0] > PARTS[source][0]:
            yield item, f"{source} imports {target}, a part above it"


def _reaches(edges: dict[str, set[str]], start: str, goal: str) -> bool:
    seen, todo = set(), [start]
    while todo:
        current = todo.pop()
        if current == goal:
            return True
        if current not in seen:
            seen.add(current)
            todo += sorted(edges.get(current, ()))
    return False


def cycle_violations(found: list[Import]) -> Iterator[tuple[Import, str]]:
    """Imports between parts of one rank that close a cycle (a part above is caught by
    direction_violations already)."""
    same_rank = [
        (item, source, target)
        for item, source, target in _part_edges(found)
        if PARTS[source][0] == PARTS[target][0]
    ]
    edges: dict[str, set[str]] = {}
    for _, source, target in same_rank:
        edges.setdefault(source, set()).add(target)
    for item, source, target in same_rank:
        if _reaches(edges, target, source):
            yield item, f"{source} and {target} import each other"


def violations() -> dict[tuple[str, str], list[str]]:
    found = _all_imports()
    table: dict[tuple[str, str], list[str]] = {}
    for rule in (private_violations, direction_violations, cycle_violations):
        for item, why in rule(found):
            lines = table.setdefault((item.importer, item.imported), [])
            lines += [] if f"{item.where}: {why}" in lines else [f"{item.where}: {why}"]
    return table


def test_every_module_belongs_to_a_part() -> None:
    assert [module for module in MODULES if part_of(module) is None] == []


def against_known(
    found: dict[tuple[str, str], list[str]], known: set[tuple[str, str, str]]
) -> tuple[list[str], list[tuple[str, str, str]]]:
    """The violations not in ``known`` (file:line and rule), and the entries of ``known``
    that no longer occur."""
    listed = {(importer, imported) for importer, imported, _ in known}
    new = sorted(line for key in found.keys() - listed for line in found[key])
    return new, sorted(entry for entry in known if entry[:2] not in found)


def test_the_import_graph_has_only_the_known_violations() -> None:
    new, fixed = against_known(violations(), KNOWN_VIOLATIONS)
    assert new == [], "new import violations: fix them rather than listing them"
    assert fixed == [], "fixed: remove these entries from KNOWN_VIOLATIONS"


def test_a_listed_violation_that_no_longer_occurs_fails() -> None:
    found = {("hookproof.gate", "hookproof.snapshot._render"): ["src/hookproof/gate.py:3: ..."]}
    stale = ("hookproof.eino", "hookproof.runtime._engine", "lead")
    listed = ("hookproof.gate", "hookproof.snapshot._render", "someone")
    assert against_known(found, {stale, listed}) == ([], [stale])
    assert against_known(found, set()) == (["src/hookproof/gate.py:3: ..."], [])


# -- the scanner itself -------------------------------------------------------------------

SAMPLE = """
from typing import TYPE_CHECKING
import hookproof.messages
from . import _helpers
from ..eino._core import RunContext
if TYPE_CHECKING:
    from hookproof.harness import create_deep_agent

def later():
    from hookproof.models import call
    import importlib
    return importlib.import_module("hookproof.snapshot._render"), call
"""


def test_the_scanner_sees_every_kind_of_import() -> None:
    path = SRC / "runtime" / "_sample.py"
    found = [
        (item.imported, item.line) for item in imports_of("hookproof.runtime._sample", path, SAMPLE)
    ]
    assert found == [
        ("hookproof.messages", 3),
        ("hookproof.runtime._helpers", 4),
        ("hookproof.eino._core", 5),
        ("hookproof.harness", 7),
        ("hookproof.models", 10),
        ("hookproof.snapshot._render", 12),
    ]


def test_each_rule_reports_its_violation_with_file_and_line() -> None:
    path = SRC / "runtime" / "_sample.py"
    found = imports_of("hookproof.runtime._sample", path, SAMPLE)
    reported = {
        rule.__name__: sorted(item.where for item, _ in rule(found))
        for rule in (private_violations, direction_violations)
    }
    where = "src/hookproof/runtime/_sample.py"
    assert reported == {
        "private_violations": [f"{where}:12", f"{where}:5"],
        "direction_violations": [f"{where}:10", f"{where}:12", f"{where}:7"],
    }


@pytest.mark.parametrize(
    ("module", "part"),
    [
        ("hookproof", "vocabulary"),
        ("hookproof.guard", "guard"),
        ("hookproof.guard._socket", "guard"),
        ("hookproof.eino._core", "eino"),
        ("hookproof.harness.todo", "harness"),
    ],
)
def test_modules_are_placed_by_their_longest_prefix(module: str, part: str) -> None:
    assert part_of(module) == part


def test_a_cycle_between_parts_of_one_rank_is_reported_on_both_sides() -> None:
    runtime, eino = SRC / "runtime" / "_a.py", SRC / "eino" / "_b.py"
    found = [
        *imports_of("hookproof.runtime._a", runtime, "import hookproof.eino\n"),
        *imports_of("hookproof.eino._b", eino, "import hookproof.runtime\n"),
        *imports_of("hookproof.harness.x", SRC / "harness" / "x.py", "import hookproof.models\n"),
    ]
    assert sorted(item.where for item, _ in cycle_violations(found)) == [
        "src/hookproof/eino/_b.py:1",
        "src/hookproof/runtime/_a.py:1",
    ]


# -- files: no cycle between them, none over the size limit -----------------------------

MAX_LINES = 400


def _module_of(imported: str) -> str | None:
    """The module file an import names: a private name's module, or the package itself."""
    while imported not in MODULES and "." in imported:
        imported = imported.rsplit(".", 1)[0]
    return imported if imported in MODULES else None


def file_edges(found: list[Import]) -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {}
    for item in found:
        target = _module_of(item.imported)
        if target is not None and target != item.importer:
            edges.setdefault(item.importer, set()).add(target)
    return edges


def file_cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The groups of files that import each other, directly or around a circle (strongly
    connected components of more than one file), each sorted, in sorted order."""
    cycles: list[list[str]] = []
    for module in sorted(edges):
        if any(module in cycle for cycle in cycles):
            continue
        members = [
            other
            for other in sorted(edges)
            if _reaches(edges, module, other) and _reaches(edges, other, module)
        ]
        if len(members) > 1:
            cycles.append(members)
    return sorted(cycles)


def test_no_two_files_import_each_other_even_around_a_circle() -> None:
    assert file_cycles(file_edges(_all_imports())) == []


def test_a_circle_of_three_files_is_one_cycle() -> None:
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set()}
    assert file_cycles(edges) == [["a", "b", "c"]]
    assert file_cycles({"a": {"b"}, "b": {"d"}}) == []


def test_no_file_in_src_is_over_the_size_limit() -> None:
    long = {
        str(path.relative_to(REPO)): lines
        for path in MODULES.values()
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert long == {}, f"split these by job: at most {MAX_LINES} lines a file"


def test_a_private_name_is_private_to_its_package_even_inside_one_part() -> None:
    importer = SRC / "adapters" / "deepagents.py"
    source = "from hookproof.adapters.langchain.target import _helper\n"
    found = imports_of("hookproof.adapters.deepagents", importer, source)
    assert [why for _, why in private_violations(found)] == [
        "imports hookproof.adapters.langchain.target._helper, private to "
        "hookproof.adapters.langchain"
    ]
    inside = imports_of("hookproof.adapters.langchain.x", SRC / "x.py", source)
    assert list(private_violations(inside)) == []


# -- the layout table of docs/concepts/development.md ---------------------------------------


def _layout_rows() -> list[str]:
    text = (REPO / "docs" / "concepts" / "development.md").read_text(encoding="utf-8")
    section = text.split("## How the code is laid out", 1)[1].split("\n\n|", 1)[1]
    return ("|" + section).split("\n\n", 1)[0].splitlines()[2:]


def _named_in(rows: list[str]) -> set[str]:
    return {name for row in rows for name in re.findall(r"`(hookproof(?:\.\w+)*)`", row)}


def test_the_layout_table_names_every_top_level_module_and_package() -> None:
    top_level = {module for module in MODULES if module.count(".") == 1}
    named = _named_in(_layout_rows())
    assert sorted(top_level - named - {"hookproof.__main__"}) == []
    assert sorted(named - set(MODULES)) == [], "the table names modules that do not exist"

"""check_role_matrix: for each context, exactly its allowed tools are shown and run, every
other tool is hidden and refused, on the main agent and through every subagent ``task``
reaches. One call per app replaces a parametrized test per role and tool."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from hookproof._support.untimed import untimed
from hookproof.contracts._delegation import delegation_problems
from hookproof.contracts._outcome import crash, tiers_arg
from hookproof.contracts._report import CheckReport, Exercise, access_table
from hookproof.contracts._runner import Runner
from hookproof.contracts._subagents import subagent_requests, subagents_of
from hookproof.contracts._tool_access import AccessRuns, Probe, shown_names
from hookproof.contracts._tool_names import builtin_tool_names, known_names, named_tools
from hookproof.contracts._violation import violation
from hookproof.errors import UsageError
from hookproof.targets import Build, OnInterrupt, Target, TargetRun, as_target

__all__ = ["check_role_matrix"]

_CHECK = "check_role_matrix"
Matrix = Mapping[Any, Collection[str]] | Sequence[tuple[Any, Collection[str]]]


@untimed
def check_role_matrix(
    build: Build | Target,
    matrix: Matrix,
    *,
    skip: Collection[str] = (),
    tiers: Sequence[str] | None = None,
    on_interrupt: OnInterrupt = "approve",
    config: Mapping[str, Any] | None = None,
    allow_untested: bool = False,
) -> CheckReport:
    """For each context, exactly the allowed tools are shown to the main agent's model on
    every call and run when it calls them, and every other tool is hidden and refused; and
    through every subagent the ``task`` tool offers for that context, no tool beyond the
    allowed ones is shown or runs (a subagent may lack an allowed tool; one it shows must
    run).

    ``matrix`` maps each context to the names of its allowed tools, the context being the
    key: ``{Ctx("guest"): {"search"}, Ctx("admin"): {"search", "refund"}}``. A key must be
    hashable (a frozen dataclass, a string, a tuple); for contexts that are not (a dict, a
    mutable object) pass a list of pairs instead: ``[({"role": "guest"}, {"search"}),
    ...]``. The tools checked are the agent's own, the allowed ones and those any agent is
    shown; on the harness and deepagents list the built-in tools a role keeps among its
    allowed ones (``{*BUILTIN_TOOL_NAMES, "search"}``). ``skip`` names tools to leave out
    (deepagents hides ``execute`` without a sandbox, yet runs a call to it to say so);
    ``report.tools_skipped`` lists those the agent has. Built-in names of the harness and
    deepagents may be given whether or not the agent has them.

    ``report.tool_access`` holds every context x agent x tool (``visible / runs``,
    ``hidden / refused``, ...), and ``report.access_table()`` shows it; a failure shows the
    table too."""
    __tracebackhide__ = True
    rows = _rows(matrix)
    exercise = Exercise(_CHECK, allow_untested=allow_untested)
    target = as_target(build, tiers)
    runs = [AccessRuns(Runner(target, ctx, on_interrupt, config), exercise) for ctx, _ in rows]
    plains = [access.plain() for access in runs]
    skipped = _skipped(skip, _tools_of(runs, plains), exercise)
    tools = _tools(rows, runs, plains) - skipped
    found: list[str] = []
    for (context, allowed), access, plain in zip(rows, runs, plains, strict=True):
        exercise.context(context)
        found += _context(access, plain, context, allowed, (tools, skipped))
    case = "; ".join(f"{ctx!r}: {sorted(allowed)}" for ctx, allowed in rows)
    if found:
        raise exercise.failed(
            violation(
                _CHECK,
                invariant="for each context exactly its allowed tools are visible and run; "
                "every other tool is hidden and refused, on the main agent and through its "
                "subagents",
                counterexample=case,
                found=found,
                fix="hide (wrap_model_call) and refuse (wrap_tool_call) every tool a role may "
                "not use, in one middleware that decides both from the same role; give each "
                "subagent that middleware too (or only the tools it needs)",
                table=access_table(exercise.accesses),
                replay=f"check_role_matrix(build, {_matrix_arg(rows)}{tiers_arg(tiers)})",
            )
        )
    return exercise.passed(
        counterexample=case,
        fix="check contexts for which the agent calls the model, and let each call reach its "
        "tool step (answer interrupts with on_interrupt=...)",
    )


def _rows(matrix: Any) -> list[tuple[Any, frozenset[str]]]:
    """The (context, allowed tools) pairs of a dict or of a list of pairs."""
    if isinstance(matrix, Mapping):
        pairs = list(matrix.items())
    elif isinstance(matrix, list | tuple) and all(_is_pair(item) for item in matrix):
        pairs = [(item[0], item[1]) for item in matrix]
    else:
        raise UsageError(
            f"hookproof: {_CHECK} takes a dict {{context: allowed_tools}} (or, for contexts "
            f"that are not hashable, a list of (context, allowed_tools) pairs), got "
            f"{type(matrix).__name__}. Example: {_CHECK}(build, {{Ctx('guest'): {{'search'}}}})."
        )
    if not pairs:
        raise UsageError(f"hookproof: {_CHECK} needs at least one context, got an empty matrix.")
    for context, allowed in pairs:
        if isinstance(allowed, str) or not isinstance(allowed, Collection):
            raise UsageError(
                f"hookproof: {_CHECK}: the allowed tools of context {context!r} must be a "
                f"collection of tool names, got {allowed!r}. Write {{{context!r}: "
                f"{(allowed,)!r}}} (an empty set allows no tool)."
            )
    return [(context, frozenset(allowed)) for context, allowed in pairs]


def _is_pair(item: Any) -> bool:
    return isinstance(item, list | tuple) and len(item) == 2


def _tools_of(runs: Sequence[AccessRuns], plains: Sequence[TargetRun]) -> set[str]:
    """The agent's own tools and those its plain runs showed."""
    known = {name for access in runs for name in access.schemas}
    return known | {name for run in plains for name in run.visible_tools}


def _skipped(skip: Collection[str], known: set[str], exercise: Exercise) -> frozenset[str]:
    names = named_tools(skip, "skip", _CHECK)
    known_names(names - builtin_tool_names(), known, "skip")
    for name in sorted(names & known):
        exercise.skip(name, "named in skip=")
    return names


def _tools(
    rows: list[tuple[Any, frozenset[str]]],
    runs: Sequence[AccessRuns],
    plains: Sequence[TargetRun],
) -> set[str]:
    """Every tool to check: the agent's own and those shown; an allowed name that is neither
    is refused (a misspelt name would be checked as a tool nobody has)."""
    known = _tools_of(runs, plains)
    for context, allowed in rows:
        known_names(allowed - builtin_tool_names(), known, f"the matrix for {context!r}")
    return known


def _context(
    access: AccessRuns,
    plain: TargetRun,
    context: Any,
    allowed: frozenset[str],
    tools: tuple[set[str], frozenset[str]],  # to check, and skipped
) -> list[str]:
    where = f"{context!r}"
    if plain.error is not None:
        return [f"{where}: the run raised {crash(plain)}"]
    if not plain.final_requests:
        access.exercise.not_tried(
            f"{where}: the model was never called" + (f" ({plain.paused})" if plain.paused else "")
        )
        return []
    found = []
    for tool in sorted(tools[0]):
        probe = access.on_main(tool, plain)
        access.exercise.access(probe.row(context))
        found += [f"{where}, {line}" for line in _main_problems(probe, allowed, access.exercise)]
    for subagent in subagents_of(plain):
        found += [
            f"{where}, {line}" for line in _subagent(access, subagent, context, allowed, tools)
        ]
    return found


def _main_problems(probe: Probe, allowed: frozenset[str], exercise: Exercise) -> list[str]:
    tool, agent = probe.tool, probe.agent
    if probe.not_tried is not None:
        exercise.not_tried(probe.not_tried)
    if probe.crashed is not None:
        return [f"{agent}: a call to {tool} raised {probe.crashed}"]
    if tool not in allowed:
        return [
            *([f"{agent}: {tool} is not allowed but {probe.visibility}"] * any(probe.shown)),
            *([f"{agent}: {tool} is not allowed but a call to it ran the tool"] * probe.ran),
        ]
    problems = []
    if probe.visibility != "visible":
        problems.append(f"{agent}: {tool} is allowed but {probe.visibility}")
    if probe.refusal is not None:
        problems.append(
            f"{agent}: {tool} is allowed but a call to it was refused: {probe.refusal!r}"
        )
    return problems


def _subagent(
    access: AccessRuns,
    subagent: str,
    context: Any,
    allowed: frozenset[str],
    tools: tuple[set[str], frozenset[str]],
) -> list[str]:
    plain = access.plain(subagent)
    if plain.error is not None:
        return [f"subagent {subagent!r}: delegating to it raised {crash(plain)}"]
    if not subagent_requests(plain):
        access.exercise.not_tried(
            f"{context!r}, subagent {subagent!r}: never called when the main agent delegated to it"
        )
        return []
    found = []
    checked, skipped = tools
    for tool in sorted((checked | shown_names(subagent_requests(plain))) - skipped - {"task"}):
        probe = access.on_subagent(subagent, tool, plain)
        access.exercise.access(probe.row(context))
        if tool not in allowed:
            found += delegation_problems(probe, access.exercise, "not allowed")
        elif any(probe.shown) and probe.refusal is not None:
            found.append(
                f"{probe.agent}: {tool} is allowed and shown but a call to it was refused: "
                f"{probe.refusal!r}"
            )
        elif probe.not_tried is not None and any(probe.shown):
            access.exercise.not_tried(probe.not_tried)
    return found


def _matrix_arg(rows: list[tuple[Any, frozenset[str]]]) -> str:
    return "[" + ", ".join(f"({ctx!r}, {sorted(allowed)!r})" for ctx, allowed in rows) + "]"

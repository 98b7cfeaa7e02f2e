"""Where a check runs an app: on the reference engine when the app's framework code can run
there through a bridge (LangChain ``create_agent`` and deepagents apps), confirmed on the
framework's real graph; else on the real graph alone.

Either engine may run one build of the app for many runs of a test, while each run leaves it
as built (the LangChain target checks that; a run that changes it makes every later run build
anew, and on the reference engine the report's ``engine_note`` says where it changed).

The first example of a check and factory in a test runs on the real graph alone (a check
called once per test costs what it did). The reference engine decides each later example
first. A violation it finds is run again on the real graph and reported only if the graph
shows one too; a pass is run again on the graph for a deterministic sample (the 1st, 4th,
16th, 64th, ... example on the reference engine, ``confirm`` of them). Where the two
engines disagree, the check fails with ``EngineDisagreementError`` and reports neither
verdict. Outside a test the plugin watches, every example runs on the real graph alone.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from hookproof._exercised import current_test_memo
from hookproof._support.docs import docs_link
from hookproof.contracts._report import CheckReport
from hookproof.errors import ContractViolation, EngineDisagreementError, UntestedError, UsageError
from hookproof.targets import Build, Target, as_target

__all__ = ["ENGINES", "Engine", "Engines", "engines_for", "judged"]

Engine = Literal["auto", "graph", "reference"]
ENGINES: tuple[str, ...] = ("auto", "graph", "reference")
_FIRST = (
    "the first example of a check and app in a test runs on the real graph alone; the next "
    "ones on the reference engine"
)
_FIX = (
    "Run the check with engine='graph' to judge every example on the real graph only (slower), "
    "and report the difference to hookproof: it is a gap in how the reference engine runs "
    "this app. (docs: "
    + docs_link("concepts/testing-langchain-apps.md", "contracts-on-the-reference-engine")
    + ")"
)


@dataclass(frozen=True)
class Engines:
    """The real graph's target, the reference engine's (None: every example runs on the
    graph) and why the reference engine is not used, when it could have been."""

    graph: Target
    fast: Target | None
    note: str = ""
    first_on_graph: bool = True  # engine="reference" runs every example there


def engines_for(build: Build | Target, tiers: Sequence[str] | None, engine: str) -> Engines:
    """The engines for ``build``, chosen once per test (choosing builds the app)."""
    if engine not in ENGINES:
        raise UsageError(
            f"hookproof: engine={engine!r} is not an engine a check runs on. Pass "
            "engine='auto' (the reference engine where the app can run there, confirmed on "
            "the real graph), 'graph' (the framework's own graph only) or 'reference'."
        )
    memo = current_test_memo()
    key = ("engines", id(build), tuple(tiers or ()), engine)
    cached = None if memo is None else memo.get(key)
    if cached is not None and cached[0] is build:
        return cached[1]  # type: ignore[no-any-return]
    chosen = _choose(build, tiers, engine)
    if memo is not None:
        memo[key] = (build, chosen)
    return chosen


def _choose(build: Build | Target, tiers: Sequence[str] | None, engine: str) -> Engines:
    graph = as_target(build, tiers)
    if engine == "graph":
        return Engines(graph, None, "engine='graph' was asked for")
    bridged = graph.bridged_target() if isinstance(graph, Target) else None
    if bridged is None:
        if engine == "reference":
            raise UsageError(
                f"hookproof: engine='reference' was asked for, but the app runs on "
                f"{type(graph).__name__}, whose framework has no bridge to the reference "
                "engine. Leave engine= at 'auto'."
            )
        return Engines(graph, None)
    try:
        bridged.agent(bridged.models())
    except Exception as error:
        if engine == "reference":
            raise UsageError(
                f"hookproof: engine='reference' was asked for, but the reference engine "
                f"cannot build the app: {_first_line(error)} Leave engine= at 'auto' to run "
                "it on the real graph."
            ) from error
        note = f"the reference engine cannot build the app ({_first_line(error)})"
        return Engines(graph, None, f"{note}, so every example runs on the real graph")
    return Engines(graph, bridged, first_on_graph=engine != "reference")


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return (text[0] if text else type(error).__name__).removeprefix("hookproof: ")


def judged(
    check: str,
    body: Callable[[Target], CheckReport],
    engines: Engines,
    *,
    example: str,
    confirm: int,
) -> CheckReport:
    """``body``'s verdict on ``example``: on the reference engine confirmed on the graph as
    the module says, or on the graph alone."""
    if confirm < 1:
        raise UsageError(
            f"hookproof: confirm={confirm!r}, but a check confirms at least one passing example "
            "of a test on the real graph (so a gap between the engines cannot pass unseen). "
            "Pass confirm=1 or more."
        )
    if engines.fast is None:
        return _on_graph(body, engines)
    counts = _counts(check, engines)
    if not counts.started and engines.first_on_graph:  # costs less than both engines
        counts.started = True
        return replace(_on_graph(body, Engines(engines.graph, None, _FIRST)), **counts.shown())
    try:
        report = body(engines.fast)
    except UntestedError:
        note = "the reference engine could not exercise every obligation, so the graph decides"
        report = _on_graph(body, Engines(engines.graph, None, note))
        return replace(report, **counts.shown())
    except ContractViolation as found:
        counts.reference += 1
        raise _confirmed_violation(check, body, engines.graph, found, example) from None
    counts.reference += 1
    rebuilt = _rebuilt(engines.fast)
    if not counts.sampled(confirm):
        return replace(report, engine="reference", engine_note=rebuilt, **counts.shown())
    _confirmed_pass(check, body, engines.graph, example)
    counts.confirmed += 1
    note = "; ".join(filter(None, ("confirmed on the real graph", rebuilt)))
    return replace(report, engine="reference", engine_note=note, **counts.shown())


def _rebuilt(fast: Target) -> str:
    """Why the reference engine builds the app for every run, when a run changed the build
    it reused (a target that reuses builds says so in ``rebuilt_because``)."""
    why = getattr(fast, "rebuilt_because", "")
    return f"every run builds the app anew: {why}" if why else ""


def _on_graph(body: Callable[[Target], CheckReport], engines: Engines) -> CheckReport:
    """``body`` on the graph alone; a graph chosen over the reference engine says so."""
    try:
        report = body(engines.graph)
    except ContractViolation as found:
        found.engine = "graph" if engines.note else None
        raise
    return replace(report, engine="graph", engine_note=engines.note) if engines.note else report


def _confirmed_violation(
    check: str,
    body: Callable[[Target], CheckReport],
    graph: Target,
    found: ContractViolation,
    example: str,
) -> BaseException:
    """The real graph's violation for the example, or the disagreement when it passes."""
    try:
        body(graph)
    except ContractViolation as confirmed:
        confirmed.engine = "reference, confirmed on the real graph"
        return confirmed
    return EngineDisagreementError(
        f"hookproof: {check} found a violation for {example} on the reference engine, but "
        "the real graph passes the same example, so hookproof reports neither verdict.\n"
        f"What the reference engine found:\n{_indented(found)}\nFix: {_FIX}",
        check=check,
        counterexample=example,
    )


def _confirmed_pass(
    check: str, body: Callable[[Target], CheckReport], graph: Target, example: str
) -> None:
    try:
        body(graph)
    except ContractViolation as missed:
        raise EngineDisagreementError(
            f"hookproof: {check} passed {example} on the reference engine, but the real "
            "graph does not, so the pass would be false. The real graph's verdict holds for "
            "your app; the reference engine missed it.\n"
            f"What the real graph found:\n{_indented(missed)}\nFix: {_FIX}",
            check=check,
            counterexample=example,
        ) from None


def _indented(error: BaseException) -> str:
    return "\n".join(f"    {line}" for line in str(error).splitlines())


@dataclass
class _Counts:
    """A test's examples of one check and factory on the reference engine, and how many of
    them the graph confirmed."""

    started: bool = False
    reference: int = 0
    confirmed: int = 0

    def sampled(self, confirm: int) -> bool:
        """Whether the example just counted is one the graph confirms: the 1st, 4th,
        16th, ... while fewer than ``confirm`` were."""
        number = self.reference
        while number % 4 == 0:
            number //= 4
        return number == 1 and self.confirmed < confirm

    def shown(self) -> dict[str, Any]:
        return {"examples_on_reference": self.reference, "confirmed_on_graph": self.confirmed}


def _counts(check: str, engines: Engines) -> _Counts:
    """The counts of the current test (fresh ones outside a test: every example is a
    test's first)."""
    memo = current_test_memo()
    if memo is None:
        return _Counts()
    key = ("engine examples", check, id(engines))
    found = memo.get(key)
    if found is None or found[0] is not engines:
        found = memo[key] = (engines, _Counts())
    return found[1]

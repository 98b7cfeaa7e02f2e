"""``hookproof conformance --target eino``: each semantic's scenarios on hookproof.eino and
on real Eino (go/cmd/einoscenario), compared after the documented deliberate differences
are normalised away (hookproof.eino's module docstring lists them with their reasons):

* message ids: Eino stamps each message with a random UUID; hookproof.eino numbers them;
* error texts: Eino wraps an error in its graph node path; only whether the run ended in an
  error is compared (events show ``error``, the trace the hook that failed);
* provenance: compared where the scenario has handlers (the Go runner notes it through
  ``Trace.Handler``); a scenario without handlers has none on the Go side, so its requests
  are compared without it.

The semantics in KNOWN_DIFFERENCES differ, for the reason given there; they are reported as
"differs" like any other.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from hookproof.conformance._eino_go import EinoProgram, real_eino
from hookproof.conformance._eino_python import Outcome, run_on_hookproof
from hookproof.conformance._eino_scenarios import EINO_SEMANTICS, KNOWN_DIFFERENCES, Scenario
from hookproof.conformance._report import ProbeResult
from hookproof.errors import InvalidInputError

__all__ = ["EINO_TARGET", "difference", "normalised", "run_eino_conformance"]

EINO_TARGET = "eino"
_MESSAGE_ID = re.compile(r'"_eino_msg_id": "[^"]*"')


def normalised(outcome: Outcome) -> Outcome:
    """``outcome`` with the deliberate differences taken out."""
    requests = tuple(_MESSAGE_ID.sub('"_eino_msg_id": "*"', text) for text in outcome.requests)
    return replace(outcome, requests=requests)


def _first_difference(name: str, ours: Sequence[str], eino: Sequence[str]) -> str:
    for index, (mine, theirs) in enumerate(zip(ours, eino, strict=False)):
        if mine != theirs:
            if "\n" in mine or "\n" in theirs:
                return f"{name}[{index}]: {_first_line_difference(mine, theirs)}"
            return f"{name}[{index}]: hookproof {mine!r}, Eino {theirs!r}"
    return f"{name}: hookproof has {len(ours)}, Eino {len(eino)}"


def _first_line_difference(ours: str, eino: str) -> str:
    mine, theirs = ours.splitlines(), eino.splitlines()
    for number, (left, right) in enumerate(zip(mine, theirs, strict=False), start=1):
        if left != right:
            return f"line {number}: hookproof {left.strip()!r}, Eino {right.strip()!r}"
    return f"hookproof has {len(mine)} lines, Eino {len(theirs)}"


def difference(ours: Outcome, eino: Outcome) -> str | None:
    """The first difference between two normalised outcomes, in one line; None if alike."""
    if ours.failed != eino.failed:
        ended = {True: "an error", False: "success"}
        return f"hookproof ended in {ended[ours.failed]}, Eino in {ended[eino.failed]}"
    for name in ("events", "labels", "requests"):
        mine, theirs = getattr(ours, name), getattr(eino, name)
        if mine != theirs:
            return _first_difference(name, mine, theirs)
    return None


def compare(scenario: Scenario, eino: EinoProgram) -> str | None:
    """Run ``scenario`` on both; the first difference, or None."""
    return difference(normalised(run_on_hookproof(scenario)), normalised(eino.run(scenario)))


def _judge(semantic: str, eino: EinoProgram) -> ProbeResult:
    scenarios = EINO_SEMANTICS[semantic]
    for name, scenario in scenarios.items():
        found = compare(scenario, eino)
        if found is not None:
            reason = KNOWN_DIFFERENCES.get(semantic)
            known = f" (a known difference: {reason})" if reason else ""
            return ProbeResult(semantic, EINO_TARGET, "differs", f"{name}{known}: {found}")
    count = len(scenarios)
    observed = f"{count} scenario{'' if count == 1 else 's'} alike"
    return ProbeResult(semantic, EINO_TARGET, "holds", observed)


def run_eino_conformance(semantics: Sequence[str] | None = None) -> list[ProbeResult]:
    """Each semantic (all by default) on hookproof.eino and on real Eino: holds or differs.

    Builds the Go runner first; raises GoToolchainError when it cannot (no result is
    reported for anything that did not run).
    """
    chosen = list(semantics or EINO_SEMANTICS)
    unknown = [name for name in chosen if name not in EINO_SEMANTICS]
    if unknown:
        raise InvalidInputError(
            f"hookproof: unknown Eino semantic(s) {', '.join(unknown)}; the catalogue has "
            f"{', '.join(EINO_SEMANTICS)}."
        )
    with real_eino() as eino:
        return [_judge(semantic, eino) for semantic in chosen]

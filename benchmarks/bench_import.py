"""What ``from hookproof.runtime import create_agent`` costs, and what the first invoke adds.

Issue #31's goal is 60 ms for the import where pydantic's own share measured 51 ms: 1.18x
the cost of ``import pydantic.main``. Timings on a shared machine move with its load, so the
import is reported three ways, each as a ratio to ``import pydantic.main`` run the same way:

* instructions (``valgrind --tool=callgrind``, load-independent; skipped, and said so, when
  valgrind is not installed), each statement net of an interpreter that runs ``pass``;
* process CPU time of fresh interpreters, in interleaved rounds (median and range of the
  rounds' own ratios);
* ``python -X importtime``: the import's whole cost and hookproof's own modules' share.

"first invoke" is the import plus building and running ``bench_runtime.py``'s scenario once
(one tool, three no-op middleware, two model turns): what deferring work to first use must
not make worse in total. ``floor`` is ``pydantic.main`` plus ``pydantic.fields``, which any
pydantic model class with a field loads. Usage::

    python benchmarks/bench_import.py [--rounds N] [--no-callgrind] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

SRC = Path(__file__).resolve().parents[1] / "src"
GOAL_OVER_PYDANTIC = 60 / 51  # issue #31: 60 ms where pydantic.main took 51 ms
IMPORT = "from hookproof.runtime import create_agent"
FIRST_INVOKE = f"""{IMPORT}
from hookproof.models import ScriptedModel, call
from hookproof.runtime import AgentMiddleware, tool

@tool
def lookup(query: str) -> str:
    \"\"\"Look something up.\"\"\"
    return f"found:{{query}}"

class Wrap(AgentMiddleware):
    def wrap_model_call(self, request, handler):
        return handler(request)

class Before(AgentMiddleware):
    def before_model(self, state, runtime):
        return None

class WrapTool(AgentMiddleware):
    def wrap_tool_call(self, request, handler):
        return handler(request)

model = ScriptedModel([call("lookup", {{"query": "x"}}, id="call_0"), "done"])
agent = create_agent(model, tools=[lookup], middleware=[Wrap(), Before(), WrapTool()])
assert agent.invoke({{"messages": [("user", "hi")]}}).text == "done"
"""
STATEMENTS = {
    "pass": "pass",
    "pydantic.main": "import pydantic.main",
    "floor": "import pydantic.main, pydantic.fields",
    "import": IMPORT,
    "first invoke": FIRST_INVOKE,
}


def environment() -> dict[str, str]:
    env = dict(os.environ, PYTHONHASHSEED="0")
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # users import from .pyc files: measure that
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SRC), env.get("PYTHONPATH")]))
    return env


def run(code: str, *prefix: str, flags: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    command = [*prefix, sys.executable, *flags, "-c", code]
    return subprocess.run(command, env=environment(), capture_output=True, text=True, check=True)


def children_cpu_ms() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (usage.ru_utime + usage.ru_stime) * 1000


def cpu_ms(code: str) -> float:
    before = children_cpu_ms()
    run(code)
    return children_cpu_ms() - before


def instructions(code: str) -> int:
    done = run(code, "valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null")
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise RuntimeError(f"callgrind printed no instruction count:\n{done.stderr[-2000:]}")
    return int(found.group(1))


def importtime(code: str) -> tuple[float, float]:
    """Milliseconds of every module's own time, and of hookproof's modules only."""
    total = own = 0.0
    for line in run(code, flags=("-X", "importtime")).stderr.splitlines():
        fields = line.removeprefix("import time:").split("|")
        if len(fields) != 3 or not fields[0].strip().isdigit():
            continue
        self_ms = int(fields[0]) / 1000
        total += self_ms
        own += self_ms if fields[2].strip().startswith("hookproof") else 0.0
    return total, own


def loaded(code: str) -> set[str]:
    script = f"{code}\nimport sys\nprint(' '.join(sys.modules))"
    return set(run(script).stdout.split())


def spread(values: list[float]) -> dict[str, float]:
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def measure_instructions() -> dict[str, Any]:
    if shutil.which("valgrind") is None:
        return {"skipped": "valgrind is not installed: no instruction counts"}
    counts = {name: instructions(code) for name, code in STATEMENTS.items()}
    net = {name: count - counts["pass"] for name, count in counts.items() if name != "pass"}
    return {
        "net": net,
        "import/pydantic.main": net["import"] / net["pydantic.main"],
        "first invoke/pydantic.main": net["first invoke"] / net["pydantic.main"],
        "import - floor": net["import"] - net["floor"],
    }


def measure_rounds(rounds: int) -> dict[str, Any]:
    """Every statement once per round, in the same order; ratios within each round."""
    cpu: dict[str, list[float]] = {name: [] for name in STATEMENTS}
    times: dict[str, list[float]] = {"total": [], "hookproof": [], "pydantic.main": []}
    for _ in range(rounds):
        for name, code in STATEMENTS.items():
            cpu[name].append(cpu_ms(code))
        total, own = importtime(IMPORT)
        times["total"].append(total)
        times["hookproof"].append(own)
        times["pydantic.main"].append(importtime(STATEMENTS["pydantic.main"])[0])
    net = {
        name: [value - bare for value, bare in zip(values, cpu["pass"], strict=True)]
        for name, values in cpu.items()
        if name != "pass"
    }
    return {
        "cpu_ms": {name: spread(values) for name, values in net.items()},
        "cpu import/pydantic.main": spread(ratios(net["import"], net["pydantic.main"])),
        "cpu first invoke/pydantic.main": spread(ratios(net["first invoke"], net["pydantic.main"])),
        "importtime_ms": {name: spread(values) for name, values in times.items()},
        "importtime import/pydantic.main": spread(ratios(times["total"], times["pydantic.main"])),
    }


def ratios(top: list[float], bottom: list[float]) -> list[float]:
    return [a / b for a, b in zip(top, bottom, strict=True)]


def measure_modules() -> dict[str, Any]:
    imported = loaded(IMPORT)
    floor = loaded(STATEMENTS["floor"])
    ours = sorted(name for name in imported if name.partition(".")[0] == "hookproof")
    beyond = sorted(imported - floor - set(ours))
    return {"total": len(imported), "hookproof": len(ours), "others beyond floor": beyond}


def collect(rounds: int, with_callgrind: bool) -> dict[str, Any]:
    for code in STATEMENTS.values():
        run(code)  # write the .pyc files and warm the file cache before anything is measured
    results: dict[str, Any] = {"rounds": rounds, "modules": measure_modules()}
    results["rounds_of_fresh_interpreters"] = measure_rounds(rounds)
    if with_callgrind:
        results["instructions"] = measure_instructions()
    return results


def line(label: str, found: dict[str, float], unit: str = "x") -> str:
    return f"  {label:<34} {found['median']:8.2f}{unit} [{found['min']:.2f} - {found['max']:.2f}]"


def report(results: dict[str, Any]) -> None:
    modules = results["modules"]
    print(f"`{IMPORT}` loads {modules['total']} modules, {modules['hookproof']} of hookproof's;")
    others = ", ".join(modules["others beyond floor"]) or "none"
    print(f"  beyond what a pydantic model loads (floor): {others}")
    found = results["rounds_of_fresh_interpreters"]
    print(f"fresh interpreters, {results['rounds']} interleaved rounds, median [range]:")
    for name, values in found["cpu_ms"].items():
        print(line(f"CPU ms, {name} (net of `pass`)", values, " ms"))
    print(line("CPU import / pydantic.main", found["cpu import/pydantic.main"]))
    print(line("CPU first invoke / pydantic.main", found["cpu first invoke/pydantic.main"]))
    for name, values in found["importtime_ms"].items():
        print(line(f"-X importtime ms, {name}", values, " ms"))
    print(line("-X importtime import / pydantic.main", found["importtime import/pydantic.main"]))
    print(f"  goal: import / pydantic.main <= {GOAL_OVER_PYDANTIC:.2f}x")
    report_instructions(results.get("instructions"))


def report_instructions(found: dict[str, Any] | None) -> None:
    if found is None:
        print("instructions: not measured (--no-callgrind)")
        return
    if "skipped" in found:
        print(f"instructions: {found['skipped']}")
        return
    print("instructions (callgrind, net of `pass`):")
    for name, count in found["net"].items():
        print(f"  {name:<34} {count / 1e6:8.1f} M")
    print(f"  import / pydantic.main             {found['import/pydantic.main']:8.2f}x")
    print(f"  first invoke / pydantic.main       {found['first invoke/pydantic.main']:8.2f}x")
    print(f"  import beyond the floor            {found['import - floor'] / 1e6:8.1f} M")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=11)
    parser.add_argument("--no-callgrind", action="store_true", help="skip instruction counts")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    options = parser.parse_args()
    results = collect(options.rounds, not options.no_callgrind)
    print(json.dumps(results, indent=2)) if options.json else report(results)


if __name__ == "__main__":
    main()

"""Cost of hookproof's pytest plugin: a tiny suite run with and without ``-p no:hookproof``.

Each run is a fresh ``python -m pytest`` on a one-test project in a temporary directory; the
two variants alternate, and the median of the per-pair differences is reported (process
start-up noise cancels out). Both wall time and CPU time (user + system of the pytest
process, which a busy machine inflates far less than wall time) are reported. Also reports
the plugin module's own ``-X importtime`` figure.

    python benchmarks/bench_plugin_import.py [--runs N]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_MS = 25.0


def _children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)  # microseconds, not clock ticks
    return usage.ru_utime + usage.ru_stime


def _run(directory: Path, *extra: str) -> tuple[float, float]:
    """Wall and CPU milliseconds of one pytest run."""
    started, cpu = time.perf_counter(), _children_cpu_s()
    subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *extra],
        cwd=directory,
        check=True,
        capture_output=True,
    )
    return (time.perf_counter() - started) * 1000, (_children_cpu_s() - cpu) * 1000


def _importtime_ms() -> float:
    output = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import hookproof.plugin"],
        capture_output=True,
        text=True,
        check=True,
    ).stderr
    line = next(row for row in output.splitlines() if row.rstrip().endswith("hookproof.plugin"))
    return int(line.split("|")[1]) / 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=15)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as scratch:
        directory = Path(scratch)
        (directory / "test_one.py").write_text("def test_one():\n    assert True\n")
        _run(directory)
        pairs = [(_run(directory), _run(directory, "-p", "no:hookproof")) for _ in range(runs)]
    print(f"pytest run, one test, median of {runs}:              wall        cpu")
    with_plugin = [statistics.median(a[i] for a, _ in pairs) for i in (0, 1)]
    without = [statistics.median(b[i] for _, b in pairs) for i in (0, 1)]
    overhead = [statistics.median(a[i] - b[i] for a, b in pairs) for i in (0, 1)]
    print(f"  with hookproof        {with_plugin[0]:8.1f} ms {with_plugin[1]:8.1f} ms")
    print(f"  -p no:hookproof       {without[0]:8.1f} ms {without[1]:8.1f} ms")
    print(
        f"  plugin overhead       {overhead[0]:8.1f} ms {overhead[1]:8.1f} ms"
        f"  (target <= {TARGET_MS:.0f} ms)"
    )
    cumulative = _importtime_ms()
    print(f"  import hookproof.plugin, -X importtime, with pytest itself: {cumulative:.1f} ms")


if __name__ == "__main__":
    main()

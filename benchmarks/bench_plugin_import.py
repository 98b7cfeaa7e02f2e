"""Cost of hookproof's pytest plugin: a tiny suite run with and without ``-p no:hookproof``.

Each run is a fresh ``python -m pytest`` on a one-test project in a temporary directory; the
two variants alternate, and the median of the per-pair differences is reported (process
start-up noise cancels out). Also reports the plugin module's own ``-X importtime`` figure.

    python benchmarks/bench_plugin_import.py [--runs N]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_MS = 25.0


def _run(directory: Path, *extra: str) -> float:
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *extra],
        cwd=directory,
        check=True,
        capture_output=True,
    )
    return (time.perf_counter() - started) * 1000


def _importtime_ms() -> float:
    output = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import hookproof.pytest_plugin"],
        capture_output=True,
        text=True,
        check=True,
    ).stderr
    line = next(
        row for row in output.splitlines() if row.rstrip().endswith("hookproof.pytest_plugin")
    )
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
    with_plugin = statistics.median(a for a, _ in pairs)
    without = statistics.median(b for _, b in pairs)
    overhead = statistics.median(a - b for a, b in pairs)
    print(f"pytest run, one test, median of {runs}:")
    print(f"  with hookproof        {with_plugin:8.1f} ms")
    print(f"  -p no:hookproof       {without:8.1f} ms")
    print(f"  plugin overhead       {overhead:8.1f} ms  (target <= {TARGET_MS:.0f} ms)")
    cumulative = _importtime_ms()
    print(
        f"  import hookproof.pytest_plugin, -X importtime, with pytest itself: {cumulative:.1f} ms"
    )


if __name__ == "__main__":
    main()

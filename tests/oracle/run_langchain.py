"""LangChain's own agent tests as hookproof's oracle: ``python -m tests.oracle.run_langchain``.

1. fetches the source distribution of the installed LangChain version (pip, cached under the
   git-ignored ``.hookproof-cache/oracle/``) and verifies it against ``langchain_sources.toml``;
2. runs its ``tests/unit_tests/agents`` unmodified twice, each in a pytest process of its own
   with a JSON report: on LangChain's ``create_agent``, then with ``create_agent`` swapped for
   ``on_reference_engine`` (``oracle_swap_plugin.py``);
3. compares both with ``langchain_differences.toml`` and exits 1 on any unlisted failure or
   stale entry, or when a run did not run; 2 when it could not get that far.

``--record-hashes`` records the hashes of a reviewed new version instead of running.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from tests.oracle import comparison, sources
from tests.oracle.sources import OracleError

# A run takes about a minute; only a hung test comes near this (a generous bound, so a busy
# machine never stops a run that would have finished).
_RUN_LIMIT_SECONDS = 40 * 60
# A test whose run grows without bound gets a MemoryError and fails, listed or not, instead of
# the whole machine running out of memory and the kernel killing the run.
_RUN_MEMORY_BYTES = 8 * 1024**3


def _bounded_memory() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (_RUN_MEMORY_BYTES, _RUN_MEMORY_BYTES))


HERE = Path(__file__).parent
REPO = HERE.parent.parent
CACHE = REPO / ".hookproof-cache" / "oracle"
PLUGINS = ("oracle_report_plugin.py", "oracle_swap_plugin.py")


def main(argv: list[str] | None = None) -> int:
    options = _parser().parse_args(argv)
    try:
        return _run(options)
    except OracleError as error:
        print(error, file=sys.stderr)
        return 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m tests.oracle.run_langchain")
    parser.add_argument("-n", "--workers", type=int, default=0, help="pytest-xdist workers")
    parser.add_argument("--cache", type=Path, default=CACHE)
    parser.add_argument("--record-hashes", action="store_true")
    return parser


def _run(options: argparse.Namespace) -> int:
    version = importlib.metadata.version("langchain")
    sdist = sources.download(version, options.cache)
    if options.record_hashes:
        sources.write_sources(sources.record(sdist, version))
        print(f"hookproof oracle: recorded the hashes of {sdist.name} in {sources.SOURCES_FILE}")
        return 0
    recorded = sources.read_sources()
    try:
        listed = comparison.read_differences()
    except ValueError as error:  # a layout error, already worded for the reader
        raise OracleError(str(error)) from error
    for name, pinned in (
        ("langchain_sources.toml", recorded.version),
        ("langchain_differences.toml", listed.version),
    ):
        if pinned != version:
            raise OracleError(
                f"hookproof: langchain {version} is installed, but {name} was reviewed for "
                f"{pinned}. Install the pinned version (pip install -c ci-constraints.txt), or "
                "move the pin with new hashes (--record-hashes) and a reviewed list."
            )
    files = sources.verify(sdist, recorded)
    with tempfile.TemporaryDirectory(prefix="hookproof-oracle-") as tmp:
        reports = _run_both(Path(tmp), files, options)
    verdict = comparison.compare(reports["langchain"], reports["reference"], listed)
    _print(verdict)
    return 0 if verdict.ok else 1


def _run_both(tmp: Path, files: dict[str, bytes], options: argparse.Namespace) -> dict[str, Any]:
    sources.extract(files, tmp / "langchain")
    (tmp / "plugins").mkdir()
    for plugin in PLUGINS:
        shutil.copyfile(HERE / plugin, tmp / "plugins" / plugin)
    logs = options.cache / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    return {
        engine: _run_tests(tmp, engine, logs / f"{engine}.log", options.workers)
        for engine in ("langchain", "reference")
    }


def _run_tests(tmp: Path, engine: str, log: Path, workers: int) -> Any:
    report = tmp / f"{engine}.json"
    command = [
        sys.executable,
        "-m",
        "pytest",
        "tests/unit_tests/agents",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:hookproof",
        "-p",
        "no:langsmith_plugin",
        "-p",
        "oracle_report_plugin",
        f"--hookproof-oracle-report={report}",
    ]
    if engine == "reference":
        command += ["-p", "oracle_swap_plugin"]
    if workers:
        command += ["-n", str(workers)]
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("PYTEST_XDIST", "PYTEST_ADDOPTS", "PYTHONPATH"))
    }
    env["PYTHONPATH"] = str(tmp / "plugins")
    started = time.monotonic()
    with log.open("w", encoding="utf-8") as out:
        try:
            subprocess.run(
                command,
                cwd=tmp / "langchain",
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                check=False,
                timeout=_RUN_LIMIT_SECONDS,
                preexec_fn=_bounded_memory,
            )
        except subprocess.TimeoutExpired:  # a hung test: the run did not finish, so no report
            print(f"hookproof oracle: the {engine} run passed {_RUN_LIMIT_SECONDS}s; stopped")
            return {}
    print(
        f"hookproof oracle: LangChain's agent tests on {engine}: "
        f"{time.monotonic() - started:.0f}s (log: {log})",
        flush=True,
    )
    if not report.is_file():
        return {}
    return json.loads(report.read_text(encoding="utf-8"))


def _print(verdict: comparison.Verdict) -> None:
    for problem in verdict.problems:
        print(problem, file=sys.stderr)
    if verdict.numbers:
        print("hookproof oracle: " + json.dumps(verdict.numbers, indent=1))
        for cause, count in sorted(verdict.by_cause.items(), key=lambda kv: (-kv[1], kv[0])):
            print(f"  {count:4} {cause}")
    print("hookproof oracle: " + ("OK" if verdict.ok else "FAILED"))


if __name__ == "__main__":
    sys.exit(main())

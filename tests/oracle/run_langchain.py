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
import sys
import tempfile
from pathlib import Path

from tests.oracle import comparison, sources, two_runs
from tests.oracle.sources import OracleError

HERE = Path(__file__).parent
REPO = HERE.parent.parent
CACHE = REPO / ".hookproof-cache" / "oracle"
SUITE = two_runs.Suite("LangChain's agent tests", ("tests/unit_tests/agents",))


def main(argv: list[str] | None = None) -> int:
    return two_runs.main(_parser(), _run, argv)


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
        return _record_hashes(sdist, version)
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
        root = Path(tmp) / "langchain"
        sources.extract(files, root)
        reports = two_runs.run_both(SUITE, root, options.cache / "logs", options.workers)
    verdict = comparison.compare(reports["langchain"], reports["reference"], listed)
    two_runs.print_verdict(verdict)
    return 0 if verdict.ok else 1


def _record_hashes(sdist: Path, version: str) -> int:
    """Record the sdist's hashes, saying which test files changed since the last record."""
    recorded = sources.record(sdist, version)
    if sources.SOURCES_FILE.is_file():
        previous = sources.read_sources()
        files = sources.used_files(sdist)
        print(
            f"hookproof oracle: since {previous.version}: "
            f"{sources.file_changes(files, previous) or 'no test file changed'}"
        )
    sources.write_sources(recorded)
    print(f"hookproof oracle: recorded the hashes of {sdist.name} in {sources.SOURCES_FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

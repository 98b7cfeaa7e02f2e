"""deepagents' own unit tests as the reference engine's oracle (local only):
``python -m tests.oracle.run_deepagents --checkout PATH`` or ``--mirror GIT_DIR [--tag TAG]``.

deepagents publishes no tests in its package, so they come from its source repository, which
CI cannot reach: give a checkout (its root, or its ``libs/deepagents``) or a clone's git
directory and a tag (default ``deepagents==<installed version>``). The runner

1. copies the tests (``libs/deepagents/tests``, and ``pyproject.toml`` for their pytest
   settings) into a temporary directory, so the installed deepagents is the one tested;
2. runs ``tests/unit_tests`` unmodified twice, as ``run_langchain`` does (``two_runs.py``):
   on LangChain's ``create_agent``, then with it swapped for ``on_reference_engine``, in
   LangChain and in deepagents' own modules (``deepagents.graph`` binds it at import; its
   subagents build agents with it too);
3. compares both with ``deepagents_differences.toml``: exit 1 on an unlisted failure or a
   stale entry, 2 when it could not get that far (no source given, versions that differ).

The environment needs the deepagents version the list was reviewed for and its test
dependencies: ``pip install -e '.[langchain,providers,oracle]' deepagents==0.7.8 pytest-cov
pytest-timeout pytest-socket pytest-asyncio==1.4.0 'av>=18,<19' 'pillow>=12.3,<13'``
(deepagents' test group; the asyncio plugin of its lock file: a newer one warns about its
configuration, and deepagents' tests make warnings errors).
"""

from __future__ import annotations

import argparse
import importlib.metadata
import io
import shutil
import subprocess
import sys
import tarfile
import tempfile
import tomllib
from pathlib import Path

from tests.oracle import comparison, two_runs
from tests.oracle.sources import OracleError

HERE = Path(__file__).parent
REPO = HERE.parent.parent
CACHE = REPO / ".hookproof-cache" / "oracle-deepagents"
DIFFERENCES_FILE = HERE / "deepagents_differences.toml"
PACKAGE_DIR = "libs/deepagents"
# What the runs need from the package's directory: its tests, and pyproject.toml's pytest
# settings (asyncio mode, markers, warnings as errors).
USED = ("pyproject.toml", "tests")
SUITE = two_runs.Suite("deepagents' unit tests", ("tests/unit_tests",), ("deepagents",))
NO_SOURCE = (
    "hookproof: give deepagents' tests to run: --checkout PATH (a checkout of its source "
    "repository, or its libs/deepagents) or --mirror GIT_DIR (a clone's git directory, with "
    "--tag, default deepagents==<installed version>). deepagents publishes no tests in its "
    "package, and CI cannot reach its repository, so this runner is local only."
)


def main(argv: list[str] | None = None) -> int:
    return two_runs.main(_parser(), _run, argv)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m tests.oracle.run_deepagents")
    parser.add_argument("--checkout", type=Path, help="a deepagents checkout")
    parser.add_argument("--mirror", type=Path, help="a deepagents clone's git directory")
    parser.add_argument("--tag", help="the tag of --mirror to run (default: the installed one)")
    parser.add_argument("-n", "--workers", type=int, default=0, help="pytest-xdist workers")
    parser.add_argument("--logs", type=Path, default=CACHE / "logs")
    parser.add_argument(
        "--reports", type=Path, help="keep both runs' JSON reports here (to review a change)"
    )
    return parser


def _run(options: argparse.Namespace) -> int:
    if options.checkout is None and options.mirror is None:
        raise OracleError(NO_SOURCE)
    version = installed_version()
    listed = read_differences()
    if listed.version != version:
        raise OracleError(
            f"hookproof: deepagents {version} is installed, but {DIFFERENCES_FILE.name} was "
            f"reviewed for {listed.version}. Install that version (pip install "
            f"deepagents=={listed.version}), or measure the new one and review the list."
        )
    with tempfile.TemporaryDirectory(prefix="hookproof-oracle-deepagents-") as tmp:
        root = Path(tmp) / "deepagents"
        copy_tests(options, version, root)
        reports = two_runs.run_both(SUITE, root, options.logs, options.workers)
    if options.reports is not None:
        two_runs.keep_reports(reports, options.reports)
    verdict = comparison.compare(reports["langchain"], reports["reference"], listed)
    two_runs.print_verdict(verdict)
    return 0 if verdict.ok else 1


def installed_version() -> str:
    try:
        return importlib.metadata.version("deepagents")
    except importlib.metadata.PackageNotFoundError:
        raise OracleError(
            "hookproof: deepagents is not installed, and its tests test the installed "
            "package. Install the reviewed version with its test dependencies (see python -m "
            "tests.oracle.run_deepagents --help and this module's docstring)."
        ) from None


def read_differences(path: Path = DIFFERENCES_FILE) -> comparison.Differences:
    try:
        return comparison.read_differences(path, project="deepagents")
    except ValueError as error:  # a layout error, already worded for the reader
        raise OracleError(str(error)) from error


def copy_tests(options: argparse.Namespace, version: str, root: Path) -> None:
    """deepagents' tests of ``version`` at ``root`` (its pyproject.toml and tests/)."""
    if options.checkout is not None and options.mirror is not None:
        raise OracleError("hookproof: give --checkout or --mirror, not both.")
    if options.checkout is not None:
        copy_from_checkout(options.checkout, root)
    elif options.mirror is not None:
        copy_from_mirror(options.mirror, options.tag or f"deepagents=={version}", root)
    else:
        raise OracleError(NO_SOURCE)
    found = project_version(root / "pyproject.toml")
    if found != version:
        raise OracleError(
            f"hookproof: the tests given are deepagents {found}'s, but deepagents {version} "
            "is installed: a version's tests test that version. Check out (or --tag) "
            f"deepagents=={version}, or install deepagents=={found}."
        )


def package_dir(checkout: Path) -> Path:
    """The directory of deepagents' package in a checkout: its root or libs/deepagents."""
    for candidate in (checkout / PACKAGE_DIR, checkout):
        if (candidate / "tests" / "unit_tests").is_dir() and project_version(
            candidate / "pyproject.toml", missing_ok=True
        ):
            return candidate
    raise OracleError(
        f"hookproof: {checkout} is not a deepagents checkout: neither it nor its "
        f"{PACKAGE_DIR} holds deepagents' pyproject.toml and tests/unit_tests. Give the "
        "root of a clone of deepagents' repository."
    )


def copy_from_checkout(checkout: Path, root: Path) -> None:
    source = package_dir(checkout)
    root.mkdir(parents=True)
    shutil.copyfile(source / "pyproject.toml", root / "pyproject.toml")
    ignored = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache")
    shutil.copytree(source / "tests", root / "tests", ignore=ignored)


def copy_from_mirror(git_dir: Path, tag: str, root: Path) -> None:
    paths = [f"{PACKAGE_DIR}/{name}" for name in USED]
    done = subprocess.run(
        ["git", "--git-dir", str(git_dir), "archive", "--format=tar", tag, *paths],
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        said = done.stderr.decode(errors="replace").strip()[-400:]
        raise OracleError(
            f"hookproof: git could not read {', '.join(paths)} at {tag!r} from {git_dir} "
            f"({said}). Give the git directory of a deepagents clone that has that tag."
        )
    with tarfile.open(fileobj=io.BytesIO(done.stdout)) as archive:
        archive.extractall(root.parent / "archive", filter="data")
    shutil.move(root.parent / "archive" / PACKAGE_DIR, root)


def project_version(pyproject: Path, *, missing_ok: bool = False) -> str | None:
    """The version a deepagents pyproject.toml declares (None when it is not deepagents')."""
    if not pyproject.is_file():
        if missing_ok:
            return None
        raise OracleError(f"hookproof: {pyproject} is missing; deepagents' tests need it.")
    project = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("project", {})
    if project.get("name") != "deepagents":
        if missing_ok:
            return None
        raise OracleError(f"hookproof: {pyproject} is not deepagents' pyproject.toml.")
    return str(project.get("version"))


if __name__ == "__main__":
    sys.exit(main())

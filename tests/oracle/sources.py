"""Fetching LangChain's source distribution and verifying it against recorded hashes.

The sdist is downloaded with pip into a git-ignored cache, its sha256 and the sha256 of every
file the oracle uses are compared with ``langchain_sources.toml``, and only those files are
extracted (no links, no paths outside the target, each file bounded in size). The repository
keeps the hashes, never LangChain's files.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import tarfile
import tomllib
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).parent
SOURCES_FILE = HERE / "langchain_sources.toml"
SOURCES_FORMAT = 1
MAX_SDIST_BYTES = 20_000_000
MAX_FILE_BYTES = 2_000_000
# What the runs need from the sdist: the agent tests, the conftest and packages above them,
# and the pytest configuration in pyproject.toml (asyncio mode, markers, options).
USED = (
    "pyproject.toml",
    "tests/__init__.py",
    "tests/unit_tests/__init__.py",
    "tests/unit_tests/conftest.py",
)
USED_TREE = "tests/unit_tests/agents/"


class OracleError(Exception):
    """The oracle cannot give a verdict: its message says what happened and how to fix it."""


@dataclass(frozen=True)
class Sources:
    version: str
    sdist_sha256: str
    files: dict[str, str]


def read_sources(path: Path = SOURCES_FILE) -> Sources:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    if data.get("format") != SOURCES_FORMAT:
        raise OracleError(
            f"hookproof: {path.name} has format {data.get('format')!r}, this runner reads "
            f"{SOURCES_FORMAT}. Record the hashes again: python -m tests.oracle.run_langchain "
            "--record-hashes."
        )
    return Sources(data["langchain"], data["sdist_sha256"], dict(data["files"]))


def write_sources(sources: Sources, path: Path = SOURCES_FILE) -> None:
    lines = [
        "# sha256 of LangChain's source distribution and of each file the oracle uses from it",
        "# (tests/oracle/sources.py). Written by python -m tests.oracle.run_langchain",
        "# --record-hashes after a reviewed version move; never edited by hand.",
        f"format = {SOURCES_FORMAT}",
        f'langchain = "{sources.version}"',
        f'sdist_sha256 = "{sources.sdist_sha256}"',
        "",
        "[files]",
        *(f'"{name}" = "{digest}"' for name, digest in sorted(sources.files.items())),
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def sdist_name(version: str) -> str:
    return f"langchain-{version}.tar.gz"


def download(version: str, cache: Path) -> Path:
    """The cached sdist of ``langchain==version``, downloaded with pip when missing."""
    target = cache / sdist_name(version)
    if target.is_file():
        return target
    cache.mkdir(parents=True, exist_ok=True)
    command = [
        sys.executable,
        "-m",
        "pip",
        "download",
        f"langchain=={version}",
        "--no-binary",
        ":all:",
        "--no-deps",
        "--quiet",
        "-d",
        str(cache),
    ]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0 or not target.is_file():
        said = " ".join(done.stderr.strip().splitlines()[-2:])[-600:]
        raise OracleError(
            f"hookproof: pip could not download the source distribution of langchain=={version} "
            f"(exit {done.returncode}: {said}). The oracle runs LangChain's "
            "own tests from it. Check that the package index is reachable, or place the file at "
            f"{target}."
        )
    return target


def sha256_of(path: Path, limit: int = MAX_SDIST_BYTES) -> str:
    size = path.stat().st_size
    if size > limit:
        raise OracleError(
            f"hookproof: {path} is {size} bytes, over the oracle's bound of {limit}. It is not "
            "the source distribution the hashes were recorded for. Delete it and run again."
        )
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 16), b""):
            digest.update(block)
    return digest.hexdigest()


def used_files(sdist: Path) -> dict[str, bytes]:
    """The files the oracle uses, by their path inside the sdist's top directory."""
    found: dict[str, bytes] = {}
    with tarfile.open(sdist, "r:gz") as archive:
        for member in archive.getmembers():
            _top, _, name = member.name.partition("/")
            if not (name in USED or name.startswith(USED_TREE)) or member.isdir():
                continue
            if not member.isfile() or member.size > MAX_FILE_BYTES or ".." in name.split("/"):
                raise OracleError(
                    f"hookproof: {sdist.name} holds {member.name!r}, which is not a regular file "
                    f"under {MAX_FILE_BYTES} bytes with a plain path. The oracle extracts only "
                    "such files. Check where this sdist came from."
                )
            stream = archive.extractfile(member)
            assert stream is not None  # a regular file
            found[name] = stream.read()
    return found


def verify(sdist: Path, sources: Sources) -> dict[str, bytes]:
    """The sdist's used files, once its hash and theirs match the recorded ones. An archive
    whose own hash differs is never opened: nothing vouches for what it holds."""
    sdist_digest = sha256_of(sdist)
    if sdist_digest != sources.sdist_sha256:
        raise OracleError(
            f"hookproof: {sdist.name} does not match the hash recorded in {SOURCES_FILE.name} "
            f"(sha256 {sdist_digest}, recorded {sources.sdist_sha256}), so the oracle did not "
            "open it: it runs only the tests that were reviewed. If LangChain's version moved "
            "on purpose, run python -m tests.oracle.run_langchain --record-hashes (it lists the "
            "test files that changed), review them and commit langchain_sources.toml; otherwise "
            f"delete the cached file {sdist} and run again."
        )
    files = used_files(sdist)
    changes = file_changes(files, sources)
    if changes:  # the same archive bytes cannot hold other files; a hand-edited list can
        raise OracleError(
            f"hookproof: {SOURCES_FILE.name} records files that {sdist.name} does not hold as "
            f"recorded ({changes}). The file is written by --record-hashes, never by hand: "
            "record it again from the reviewed sdist."
        )
    return files


def file_changes(files: dict[str, bytes], sources: Sources) -> str:
    """The used files that differ from the recorded ones, in words ('' when none)."""
    digests = {name: hashlib.sha256(data).hexdigest() for name, data in files.items()}
    recorded = sources.files
    changed = sorted(n for n in digests.keys() & recorded.keys() if digests[n] != recorded[n])
    added = sorted(digests.keys() - recorded.keys())
    removed = sorted(recorded.keys() - digests.keys())
    if not (changed or added or removed):
        return ""
    return f"changed files: {changed or 'none'}; new: {added or 'none'}; gone: {removed or 'none'}"


def record(sdist: Path, version: str) -> Sources:
    sdist_digest = sha256_of(sdist)
    files = used_files(sdist)
    digests = {name: hashlib.sha256(data).hexdigest() for name, data in files.items()}
    return Sources(version, sdist_digest, digests)


def extract(files: dict[str, bytes], target: Path) -> None:
    for name, data in files.items():
        path = target / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)

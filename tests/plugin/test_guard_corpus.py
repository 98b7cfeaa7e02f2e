"""The guard against a corpus of ways to reach an OpenAI-compatible server on this machine.

One fresh pytest session runs every entry of ``guard_corpus.ENTRIES`` three times, each
against its own path of one loopback stub server: opted out (every entry reaches the
server: the baseline that makes a 0 meaningful), guarded (a blocked entry fails its test and
sends nothing; a documented gap passes and reaches the server) and inside
``hookproof_guard.expect_blocked()`` (a blocked entry passes; a gap fails: nothing was
refused). Each entry is then checked by a test of its own.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from tests.plugin import guard_corpus
from tests.plugin.guard_corpus import ENTRIES, Entry
from tests.plugin.openai_stub import StubProvider, stub_provider

pytestmark = pytest.mark.slow

MODES = ("opted_out", "guarded", "expect")
CONFTEST = """
import json

OUTCOMES = {}

def pytest_runtest_logreport(report):
    if report.when == "call" or report.outcome != "passed":
        entry = OUTCOMES.setdefault(report.nodeid, {"outcome": "passed", "text": ""})
        if report.outcome != "passed":
            entry["outcome"] = report.outcome
            entry["text"] += report.longreprtext

def pytest_sessionfinish(session):
    with open("outcomes.json", "w", encoding="utf-8") as file:
        json.dump(OUTCOMES, file)
"""


@dataclass(frozen=True)
class Run:
    outcomes: dict[str, dict[str, str]]
    provider: StubProvider
    output: str

    def outcome(self, mode: str, name: str) -> dict[str, str]:
        return self.outcomes.get(f"test_{mode}.py::test_{name}", {"outcome": "not run"})

    def requests(self, mode: str, name: str) -> int:
        prefix = f"POST /{mode}/{name}/v1/"
        return sum(request.startswith(prefix) for request in self.provider.requests)


def _test_function(name: str, entry: Entry, expect: bool) -> str:
    body = textwrap.dedent(entry.body).strip()
    base = f'    BASE = ROOT + "/{name}/v1"\n'
    if expect:
        inner = textwrap.indent(body, " " * 8)
        block = "    with hookproof_guard.expect_blocked():\n"
        return f"def test_{name}(hookproof_guard):\n{base}{block}{inner}\n"
    return f"def test_{name}():\n{base}{textwrap.indent(body, ' ' * 4)}\n"


def _module(root: str, mode: str) -> str:
    header = guard_corpus.HEADER.format(root=f"{root}/{mode}")
    if mode == "opted_out":
        header += "\npytestmark = pytest.mark.hookproof(allow_real_models=True)\n"
    tests = [_test_function(name, entry, mode == "expect") for name, entry in ENTRIES.items()]
    return header + "\n\n" + "\n\n".join(tests)


def _environment() -> dict[str, str]:
    environment = {
        name: value
        for name, value in os.environ.items()
        if name.upper() not in {"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "OPENAI_PROXY"}
    }
    environment.update(COLUMNS="200", NO_PROXY="*", OPENAI_API_KEY="test")
    environment.pop("CI", None)
    return environment


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Run]:
    pytest.importorskip("langchain_openai", reason="install hookproof[providers] to run this")
    pytest.importorskip("langchain", reason="install hookproof[langchain] to run this")
    project = tmp_path_factory.mktemp("corpus")
    with stub_provider() as provider:
        root = f"http://127.0.0.1:{provider.port}"
        (project / "conftest.py").write_text(CONFTEST)
        (project / "corpus_workers.py").write_text(guard_corpus.WORKERS)
        for mode in MODES:
            (project / f"test_{mode}.py").write_text(_module(root, mode))
        command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly"]
        done = subprocess.run(
            [*command, "-q", "--tb=short"],
            cwd=project,
            env=_environment(),
            capture_output=True,
            text=True,
            timeout=1200,
        )
        outcomes = json.loads((project / "outcomes.json").read_text())
        yield Run(outcomes, provider, done.stdout + done.stderr)


def _needs_curl(name: str) -> None:
    if name == "gap_not_python" and shutil.which("curl") is None:
        pytest.skip("curl is not installed: no program that is not Python to start")


@pytest.mark.parametrize("name", list(ENTRIES))
def test_every_way_to_the_server_is_refused_or_a_documented_gap(name: str, corpus: Run) -> None:
    _needs_curl(name)
    entry = ENTRIES[name]
    problems = _problems(corpus, name, entry)
    assert problems == [], "\n".join([*problems, corpus.outcome("guarded", name).get("text", "")])


def _problems(run: Run, name: str, entry: Entry) -> list[str]:
    """Everything wrong with one entry, collected before reporting."""
    wanted: dict[str, tuple[str, int, str]] = {
        "opted_out": ("passed", entry.requests, ""),
        "guarded": ("failed", 0, "RealModelBlocked")
        if entry.blocked
        else ("passed", entry.requests, ""),
        "expect": ("passed", 0, "")
        if entry.blocked
        else ("failed", entry.requests, "NothingBlocked"),
    }
    problems = []
    for mode, (outcome, requests, text) in wanted.items():
        got = run.outcome(mode, name)
        if got["outcome"] != outcome or text not in got.get("text", ""):
            problems.append(f"{mode}: {got['outcome']}, wanted {outcome} with {text!r}")
        if run.requests(mode, name) != requests:
            problems.append(f"{mode}: {run.requests(mode, name)} requests, wanted {requests}")
    return problems


CHILD_ENTRIES = [
    name for name in ENTRIES if name.startswith(("subprocess", "pool", "process", "os_"))
]


@pytest.mark.parametrize("name", CHILD_ENTRIES)
def test_a_refusal_in_a_child_process_says_where_it_happened(name: str, corpus: Run) -> None:
    text = corpus.outcome("guarded", name).get("text", "")
    assert "Refused in a child process the test started: pid " in text
    assert "hookproof: the test called model 'stub-model' (ChatOpenAI)" in text


def test_the_corpus_holds_the_ways_of_the_finding(corpus: Run) -> None:
    blocked = [name for name, entry in ENTRIES.items() if entry.blocked]
    gaps = [name for name, entry in ENTRIES.items() if not entry.blocked]
    assert len(ENTRIES) >= 40 and len(gaps) == 8, (len(ENTRIES), gaps)
    assert {"subclass_overriding_invoke", "generate_directly", "llm_invoke", "embed_query"} <= set(
        blocked
    )
    assert {"subprocess_run", "pool_spawn", "process_pool_executor"} <= set(blocked)
    assert all(name.startswith("gap_") for name in gaps)
    assert corpus.outcomes, corpus.output

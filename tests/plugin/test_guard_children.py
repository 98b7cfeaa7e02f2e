"""The guard in child processes, and the gaps the plugin page lists, each pinned by a test.

Children here run hookproof's runtime with a model that is not offline (cheap to start);
tests/plugin/test_guard_corpus.py runs ChatOpenAI in children of every kind.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from hookproof.guard import block_real_models
from tests.plugin.provider_sources import PROVIDER_MODEL

CALL = (
    PROVIDER_MODEL
    + """
def call():
    try:
        return create_agent(ProviderModel()).invoke({"messages": [("user", "hi")]}).text
    except Exception as error:
        return type(error).__name__
"""
)
CHILD = CALL + "\nprint(call())\n"


def _child(*options: str, env: dict[str, str] | None = None) -> str:
    command = [sys.executable, *options, "-c", CHILD]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, env=env)
    return done.stdout.strip() or done.stderr


def test_a_child_follows_the_guard_of_the_block_it_runs_in() -> None:
    with block_real_models() as refusals:
        assert _child() == "RealModelBlocked"
    with block_real_models(False) as opted_out:
        assert _child() == "live"
    assert len(refusals) == 1 and opted_out == []
    assert refusals[0].startswith("hookproof: the test called model 'provider'")
    assert "(Refused in a child process the test started: pid " in refusals[0]


def test_a_child_given_its_own_environment_is_guarded_too() -> None:
    with block_real_models() as refusals:
        assert _child(env={"PATH": os.environ.get("PATH", "")}) == "RealModelBlocked"
        assert _child(env={}) == "RealModelBlocked"
    assert len(refusals) == 2


def test_the_sitecustomize_the_guard_hides_still_runs(tmp_path: Path) -> None:
    (tmp_path / "sitecustomize.py").write_text(
        "import os\nopen(os.environ['MARKER'], 'w').write('ran')\n"
    )
    marker = tmp_path / "marker"
    with block_real_models() as refusals:
        path = os.pathsep.join([os.environ["PYTHONPATH"], str(tmp_path)])
        env = {**os.environ, "PYTHONPATH": path, "MARKER": str(marker)}
        assert _child(env=env) == "RealModelBlocked"
    assert marker.read_text() == "ran"
    assert len(refusals) == 1


def test_a_python_child_that_cannot_load_the_guard_fails_the_block(tmp_path: Path) -> None:
    shadow = tmp_path / "hookproof"
    shadow.mkdir()
    (shadow / "__init__.py").write_text("raise ImportError('a different hookproof')\n")
    with block_real_models() as refusals:
        path = os.pathsep.join([os.environ["PYTHONPATH"], str(tmp_path)])
        subprocess.run([sys.executable, "-c", "pass"], env={**os.environ, "PYTHONPATH": path})
    assert len(refusals) == 1
    assert refusals[0].startswith("hookproof: a Python child process the test started (")
    assert "could not load hookproof's guard (ImportError('a different hookproof'))" in refusals[0]


@pytest.mark.parametrize("method", ["fork", "forkserver", "spawn"])
def test_a_pool_worker_follows_the_guard_of_the_test_that_uses_it(
    method: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import multiprocessing

    (tmp_path / "pool_call.py").write_text(CALL)
    monkeypatch.syspath_prepend(str(tmp_path))
    import pool_call  # type: ignore[import-not-found]

    with block_real_models(False), multiprocessing.get_context(method).Pool(1) as pool:
        assert pool.apply(pool_call.call) == "live"  # started by a test that opts out
        with block_real_models() as refusals:
            assert pool.apply(pool_call.call) == "RealModelBlocked"
        assert pool.apply(pool_call.call) == "live"
    assert len(refusals) == 1


# -- gaps the plugin page lists ------------------------------------------------------------------


LOADED = "import sys; print('hookproof.guard' in sys.modules)"


@pytest.mark.parametrize("option", ["", "-I", "-E", "-S"])
def test_gap_python_started_isolated_is_not_guarded(option: str) -> None:
    command = [sys.executable, *([option] if option else []), "-c", LOADED]
    with block_real_models():
        done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == ("True" if option == "" else "False")


OUTLIVING = (
    CALL
    + """
import threading
import time

LATE = {}

def late_call(release):
    release.wait(30)
    LATE["result"] = call()

RELEASE = threading.Event()
THREAD = threading.Thread(target=late_call, args=(RELEASE,), daemon=True)

def test_starts_a_thread_that_outlives_it():
    THREAD.start()
"""
)

OUTLIVING_CONFTEST = """
def pytest_sessionfinish(session):
    import test_outliving
    test_outliving.RELEASE.set()
    test_outliving.THREAD.join(30)
    with open("late.txt", "w") as file:
        file.write(test_outliving.LATE["result"])
"""

AT_IMPORT = (
    CALL
    + """
AT_IMPORT = call()

def test_reads_what_ran_at_import():
    assert AT_IMPORT == "live"
"""
)


@pytest.mark.slow
def test_gap_a_thread_that_outlives_its_test_and_code_run_at_import(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_outliving=OUTLIVING, test_at_import=AT_IMPORT)
    pytester.makeconftest(OUTLIVING_CONFTEST)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)
    assert (pytester.path / "late.txt").read_text() == "live"  # after its test: not refused


@pytest.mark.slow
def test_a_pytest_session_started_by_a_test_follows_its_own_options(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        CALL
        + """
import pytest

@pytest.mark.hookproof(allow_real_models=True)
def test_opted_out():
    assert call() == "live"

def test_guarded():
    assert call() == "RealModelBlocked"
"""
    )
    with block_real_models() as refusals:  # the session's refusals are its own
        result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(["*RealModelBlocked*"])
    result.assert_outcomes(passed=1, failed=1)  # the guarded test caught its refusal
    assert refusals == []

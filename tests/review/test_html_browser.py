"""The HTML report in a real headless Chromium: the summary and the diffs render, the class
filters work, and a screenshot is kept as a test artefact (its path is printed).

In CI (``CI=true``) a missing Chromium fails the test: ``.ci/run`` installs it, so its absence
means the browser check silently stopped running. Elsewhere the test is skipped, saying why.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from hookproof.cli import main
from tests.review.helpers import upgrade

_WINDOW = "1200,1400"


def _chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found:
        return found
    why = "Chromium is not installed (Debian: apt-get install chromium)"
    if os.environ.get("CI") == "true":
        pytest.fail(f"{why}; .ci/run installs it, so CI must not lose the browser check")
    pytest.skip(why)


def _browse(tmp_path: Path, url: str, *flags: str) -> str:
    command = [
        _chromium(),
        "--headless=new",
        "--disable-gpu",
        "--no-sandbox",
        "--no-first-run",
        f"--user-data-dir={tmp_path / 'profile'}",
        f"--window-size={_WINDOW}",
        *flags,
        url,
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=180, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


@pytest.fixture
def report(tmp_path: Path) -> Path:
    old, new = upgrade(tmp_path)
    path = tmp_path / "report.html"
    assert main(["gate", str(old), str(new), "--format", "html", "-o", str(path)]) == 1
    return path


def _cards(dom: str) -> list[str]:
    return re.findall(r'<section class="finding"[^>]*>', dom)


def test_summary_and_diff_render_after_the_script_ran(report: Path, tmp_path: Path) -> None:
    dom = _browse(tmp_path, report.as_uri(), "--dump-dom")
    assert "FAILED: 3 change(s) of a failing class (BREAKING, SECURITY)" in dom
    assert re.search(r'<span class="badge SECURITY">SECURITY</span></th><td>3</td>', dom)
    assert '<td class="new">| Cite every source you use.</td>' in dom
    assert '<td class="old">| Cite your sources.</td>' in dom
    assert "3 of 3 findings shown" in dom  # written by the page's script
    assert "now visible to the model (registered by FilesystemMiddleware)" in dom


def test_class_filters_hide_the_other_cards(report: Path, tmp_path: Path) -> None:
    dom = _browse(tmp_path, report.as_uri() + "#only=SECURITY", "--dump-dom")
    assert "1 of 3 findings shown" in dom
    assert [" hidden" in card for card in _cards(dom)] == [False, True, True]


def test_screenshot_is_kept_as_an_artefact(
    report: Path, tmp_path: Path, record_property: Callable[[str, object], None]
) -> None:
    """The screenshot stays in the test's tmp dir (path printed, and a junit property);
    HOOKPROOF_ARTEFACTS=DIR also copies it there, for a CI job to upload."""
    screenshot = tmp_path / "hookproof-gate-report.png"
    _browse(tmp_path, report.as_uri(), f"--screenshot={screenshot}")
    assert screenshot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert screenshot.stat().st_size > 20_000  # a blank page is a few kilobytes
    if artefacts := os.environ.get("HOOKPROOF_ARTEFACTS"):
        Path(artefacts).mkdir(parents=True, exist_ok=True)
        screenshot = Path(shutil.copy2(screenshot, artefacts))
    record_property("screenshot", str(screenshot))
    print(f"hookproof HTML report screenshot: {screenshot}")


def test_a_missing_chromium_fails_in_ci_and_skips_elsewhere(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: None)
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI must not lose the browser check"):
        _chromium()
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception, match="apt-get install chromium"):
        _chromium()

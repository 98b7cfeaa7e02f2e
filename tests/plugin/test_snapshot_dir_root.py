"""The snapshot directory stays inside pytest's rootdir unless the project explicitly allows
otherwise: ``--snapshot-update`` writes there, so a checked-out project's setting (ini, marker
or a symbolic link) must not reach the rest of the disk."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from hookproof.errors import InvalidInputError, UsageError
from hookproof.snapshot.files import OUTSIDE_ROOTDIR_INI, check_inside_rootdir, snapshot_root

ONE_SNAPSHOT = """
import pytest
from hookproof.runtime import create_agent

@pytest.mark.hookproof(script=["ok"]{marker})
def test_one(recording_model, hookproof_snapshot):
    create_agent(recording_model).invoke({{"messages": [("user", "x")]}})
    assert recording_model.last == hookproof_snapshot
"""
needs_symlinks = pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symbolic links")


def _project(pytester: pytest.Pytester, ini: str = "", marker: str = "") -> Path:
    """A project in ``<tmp>/project``, so ``<tmp>/outside`` is beside, not under, it."""
    outside = pytester.path / "outside"
    outside.mkdir()
    root = pytester.mkpydir("project")
    (root / "pytest.ini").write_text(f"[pytest]\n{ini}\n", encoding="utf-8")
    (root / "test_one.py").write_text(ONE_SNAPSHOT.format(marker=marker), encoding="utf-8")
    os.chdir(root)
    return outside


def _written(directory: Path) -> list[str]:
    return sorted(path.name for path in directory.rglob("*.txt"))


@pytest.mark.parametrize("setting", ["../outside", "{outside}", "snaps/../../outside"])
def test_an_ini_directory_outside_the_rootdir_stops_the_run(
    pytester: pytest.Pytester, setting: str
) -> None:
    outside = pytester.path / "outside"
    _project(pytester, ini=f"hookproof_snapshot_dir = {setting.format(outside=outside)}")
    result = pytester.runpytest_subprocess("--snapshot-update")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = result.stderr.str()
    assert "hookproof: the snapshot directory" in errors
    assert "is outside the project's root directory" in errors
    assert "hookproof_snapshot_dir_outside_rootdir = true" in errors
    assert _written(outside) == []


def test_a_marker_directory_outside_the_rootdir_errors_the_test(pytester: pytest.Pytester) -> None:
    outside = _project(pytester, marker=', snapshot_dir="../outside"')
    result = pytester.runpytest_subprocess("--snapshot-update")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*InvalidInputError: hookproof: the snapshot directory*"])
    assert "INTERNALERROR" not in result.stdout.str()
    assert _written(outside) == []


@needs_symlinks
def test_a_linked_snapshot_directory_leading_outside_stops_the_run(
    pytester: pytest.Pytester,
) -> None:
    outside = _project(pytester)
    (pytester.path / "project" / "snapshots").symlink_to(outside, target_is_directory=True)
    result = pytester.runpytest_subprocess("--snapshot-update")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "is outside the project's root directory" in result.stderr.str()
    assert _written(outside) == []


def test_the_project_may_allow_a_directory_outside(pytester: pytest.Pytester) -> None:
    ini = "hookproof_snapshot_dir = ../outside\nhookproof_snapshot_dir_outside_rootdir = true"
    outside = _project(pytester, ini=ini)
    pytester.runpytest_subprocess("--snapshot-update").assert_outcomes(passed=1)
    assert _written(outside) == ["test_one.txt"]


def test_a_directory_that_only_passes_through_dot_dot_is_inside(
    pytester: pytest.Pytester,
) -> None:
    _project(pytester, ini="hookproof_snapshot_dir = snaps/../kept")
    pytester.runpytest_subprocess("--snapshot-update").assert_outcomes(passed=1)
    assert _written(pytester.path / "project" / "kept") == ["test_one.txt"]


def test_the_check_itself(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    check_inside_rootdir(root / "snapshots", root)
    check_inside_rootdir(root, root)
    for base in (tmp_path, root / ".." / "x", Path("/"), root / "a" / ".." / ".." / "b"):
        with pytest.raises(InvalidInputError, match="is outside the project's root directory"):
            check_inside_rootdir(base, root)


class _Config:
    """What snapshot_root reads of a pytest config: the rootdir and two ini values."""

    def __init__(self, root: Path, directory: str = "", outside: bool = False) -> None:
        self.rootpath = root
        self.ini = {"hookproof_snapshot_dir": directory, OUTSIDE_ROOTDIR_INI: outside}

    def getini(self, name: str) -> object:
        return self.ini[name]


@pytest.mark.parametrize(
    ("directory", "error", "words"),
    [
        (5, UsageError, "must be a str (a path relative to the rootdir), got int 5"),
        (b"snaps", UsageError, "must be a str"),
        ("snaps\x00", InvalidInputError, "contains a NUL character"),
        ("../x", InvalidInputError, "is outside the project's root directory"),
    ],
)
def test_a_marker_directory_of_the_wrong_kind_is_a_hookproof_error(
    tmp_path: Path, directory: object, error: type[Exception], words: str
) -> None:
    with pytest.raises(error, match=re.escape(words)):
        snapshot_root(_Config(tmp_path), directory)  # type: ignore[arg-type]


def test_snapshot_root_without_the_plugin_options_keeps_the_default(tmp_path: Path) -> None:
    class Bare:
        rootpath = tmp_path

        def getini(self, name: str) -> object:
            raise ValueError(f"unknown ini option {name}")

    assert snapshot_root(Bare()) == tmp_path / "snapshots"
    assert snapshot_root(_Config(tmp_path, "../x", outside=True)) == tmp_path / "../x"

"""The wheel as built from this checkout: what a user installs. It holds the package with its
pytest entry point, py.typed, the contract suite ``hookproof check`` runs and the Go module
(hookproof/_go) with exactly git's files, and nothing stray: a binary or scratch file left in
go/ stays out (a twin of the build configuration that force-included go/ whole let it in).
The sdist leaves CI's venvs and caches out even without .gitignore. .ci/release installs the
wheel into a fresh venv and runs it; these tests read what is built."""

from __future__ import annotations

import configparser
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

import hookproof

pytestmark = pytest.mark.slow  # wheels are built (a few seconds each)

REPO = Path(__file__).resolve().parents[2]
STRAY = (
    "go/hookproof-runner",
    "go/scratch/notes.md",
    "src/hookproof/__pycache__/x.cpython-311.pyc",
)
OLD_CONFIG = """[tool.hatch.build.targets.wheel]
packages = ["src/hookproof"]

[tool.hatch.build.targets.wheel.force-include]
"go" = "hookproof/_go"

"""


def _require(module: str) -> None:
    if importlib.util.find_spec(module) is None:
        message = f"{module} is not installed (pip install 'hookproof[release]')"
        if os.environ.get("CI") == "true":
            pytest.fail(f"{message}: CI must build the wheel")
        pytest.skip(message)


def _project_copy(tmp_path: Path, pyproject: str) -> Path:
    """What the wheel is built from (package, Go module, metadata files), with strays."""
    project = tmp_path / "project"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(REPO / "src", project / "src", ignore=ignore)
    shutil.copytree(REPO / "go", project / "go", ignore=ignore)
    for name in ("README.md", "LICENSE"):
        shutil.copy(REPO / name, project / name)
    (project / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    for stray in STRAY:
        (project / stray).parent.mkdir(parents=True, exist_ok=True)
        (project / stray).write_text("stray\n", encoding="utf-8")
    return project


def _build(project: Path, tmp_path: Path) -> zipfile.ZipFile:
    _require("build")
    _require("hatchling")
    out = tmp_path / "dist"
    command = [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(out)]
    done = subprocess.run([*command, str(project)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    [wheel] = out.glob("hookproof-*.whl")
    return zipfile.ZipFile(wheel)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> zipfile.ZipFile:
    tmp_path = tmp_path_factory.mktemp("wheel")
    pyproject = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    return _build(_project_copy(tmp_path, pyproject), tmp_path)


def _stray(names: list[str]) -> list[str]:
    """What a wheel holds beyond the package and its metadata."""
    allowed = re.compile(r"^(hookproof/|hookproof-[^/]+\.dist-info/)")
    return [
        name
        for name in names
        if not allowed.match(name)
        or "__pycache__" in name
        or name.endswith((".pyc", ".pyo"))
        or name in ("hookproof/_go/hookproof-runner", "hookproof/_go/scratch/notes.md")
    ]


def _dist_info(wheel: zipfile.ZipFile, name: str) -> str:
    [path] = [n for n in wheel.namelist() if n.endswith(f".dist-info/{name}")]
    return wheel.read(path).decode("utf-8")


def test_the_wheel_holds_nothing_stray(wheel: zipfile.ZipFile) -> None:
    assert _stray(wheel.namelist()) == []


def test_a_go_directory_force_included_whole_would_ship_strays(tmp_path: Path) -> None:
    pyproject = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    start = pyproject.index("[tool.hatch.build.targets.wheel]")
    end = pyproject.index("[tool.hatch.build.targets.sdist]")
    twin = pyproject[:start] + OLD_CONFIG + pyproject[end:]

    names = _build(_project_copy(tmp_path, twin), tmp_path).namelist()

    assert "hookproof/_go/hookproof-runner" in _stray(names)


def test_the_go_module_ships_exactly_gits_files(wheel: zipfile.ZipFile) -> None:
    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("not a git checkout: git's list of go/ cannot be read")
    listed = subprocess.run(
        ["git", "ls-files", "go"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.split()
    shipped = sorted(n.removeprefix("hookproof/") for n in wheel.namelist() if "/_go/" in n)
    assert shipped == sorted(f"_{name}" for name in listed)
    assert "_go/go.mod" in shipped
    assert "_go/eino-latest.mod" in shipped


def test_the_wheel_ships_every_module_of_the_package(wheel: zipfile.ZipFile) -> None:
    source = Path(hookproof.__file__).parent
    modules = sorted(
        f"hookproof/{path.relative_to(source).as_posix()}"
        for path in source.rglob("*.py")
        if "__pycache__" not in path.parts
    )
    assert [name for name in modules if name not in wheel.namelist()] == []
    assert "hookproof/py.typed" in wheel.namelist()
    bundled = [n for n in wheel.namelist() if n.startswith("hookproof/examples/contracts/test_")]
    assert len(bundled) >= 3


def test_the_entry_points_are_the_plugin_and_the_command(wheel: zipfile.ZipFile) -> None:
    entry_points = configparser.ConfigParser()
    entry_points.read_string(_dist_info(wheel, "entry_points.txt"))
    assert dict(entry_points["pytest11"]) == {"hookproof": "hookproof.plugin"}
    assert dict(entry_points["console_scripts"]) == {"hookproof": "hookproof.cli:main"}


def test_the_metadata_names_the_license_and_the_project(wheel: zipfile.ZipFile) -> None:
    metadata = _dist_info(wheel, "METADATA")
    assert "License-Expression: MIT" in metadata
    assert "Project-URL: Documentation, https://hookproof.github.io/hookproof/" in metadata
    assert f"Version: {hookproof.__version__}" in metadata
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in wheel.namelist())


def _sdist_names(tmp_path: Path, pyproject: str) -> list[str]:
    """The sdist's files, built from a copy holding CI's venvs and caches, no .gitignore."""
    project = _project_copy(tmp_path, pyproject)
    venvs = (".ci-venv/lib/site.py", ".ci-release/venv/bin/python", ".hookproof-cache/x.tar.gz")
    for stray in venvs:
        (project / stray).parent.mkdir(parents=True, exist_ok=True)
        (project / stray).write_text("stray\n", encoding="utf-8")
    _require("build")
    _require("hatchling")
    out = tmp_path / "dist"
    command = [sys.executable, "-m", "build", "--sdist", "--no-isolation", "--outdir", str(out)]
    done = subprocess.run([*command, str(project)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    [sdist] = out.glob("hookproof-*.tar.gz")
    with tarfile.open(sdist) as archive:
        return [name.split("/", 1)[1] for name in archive.getnames() if "/" in name]


def _ci_files(names: list[str]) -> list[str]:
    return [name for name in names if name.startswith((".ci-", ".hookproof-cache"))]


def test_the_sdist_leaves_cis_venvs_and_caches_out_even_without_gitignore(tmp_path: Path) -> None:
    names = _sdist_names(tmp_path, (REPO / "pyproject.toml").read_text(encoding="utf-8"))

    assert _ci_files(names) == []
    assert [name for name in names if "__pycache__" in name] == []
    assert "go/go.mod" in names
    assert "src/hookproof/py.typed" in names


def test_an_sdist_without_the_exclusions_would_ship_cis_venv(tmp_path: Path) -> None:
    pyproject = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    twin = re.sub(r"^exclude = \[\"/\.ci-venv\".*\n", "", pyproject, count=1, flags=re.M)
    assert twin != pyproject

    assert ".ci-venv/lib/site.py" in _ci_files(_sdist_names(tmp_path, twin))

"""A new framework is ONE module (toy_framework.py) plus ONE registry entry: with the entry,
the framework is picked for its factories, owns its middleware's hooks, has its bridge on
the reference runtime and its column in ``hookproof conformance``; without it, none of that."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from hookproof import conformance, contracts
from hookproof.cli import main
from hookproof.errors import UntestedError, UsageError
from hookproof.models import RecordingModel, ScriptedModel
from hookproof.runtime import create_agent
from hookproof.targets import (
    as_target,
    conformance_columns,
    hook_sampler,
    middleware_target,
    register_target,
    registered_targets,
    target_class,
    unregister_target,
)
from hookproof.targets.reference import REFERENCE_SAMPLER
from tests.targets.toy_framework import TOY_SAMPLER, ToyAgent, ToyMiddleware, ToyTarget

TOY = "tests.targets.toy_framework"


def _register_toy() -> None:
    register_target(
        "toy",
        f"{TOY}:ToyTarget",
        middleware_modules=(TOY,),
        sampler=f"{TOY}:TOY_SAMPLER",
        kit=f"{TOY}:TOY_KIT",
        bridge=f"{TOY}:TOY_BRIDGE",
    )


@pytest.fixture
def toy() -> Iterator[None]:
    _register_toy()
    yield
    unregister_target("toy")


def _toy_agent(model: object) -> ToyAgent:
    return ToyAgent(model, {"guest": ("search",), "admin": ("search", "delete")})


def _ran_on_the_runtime(middleware: ToyMiddleware) -> int:
    model = RecordingModel(ScriptedModel(["done"]))
    create_agent(model, middleware=[middleware]).invoke({"messages": [("user", "hi")]})
    return middleware.seen


@pytest.mark.usefixtures("toy")
def test_the_entry_picks_the_toy_target_for_its_factories_and_middleware() -> None:
    assert "toy" in registered_targets() and target_class("toy") is ToyTarget
    assert isinstance(as_target(_toy_agent), ToyTarget)
    assert middleware_target(ToyMiddleware()) is ToyTarget
    report = contracts.check_fail_closed(_toy_agent, "stranger", least_privileged_context="guest")
    assert report.runs == 2


@pytest.mark.usefixtures("toy")
def test_the_entry_gives_toy_middleware_its_hook_sampler() -> None:
    assert hook_sampler(ToyMiddleware()) is TOY_SAMPLER
    middleware = ToyMiddleware()
    contracts.check_request_not_mutated(middleware)
    assert middleware.seen == 1  # its around_model ran as its wrap_model_call


@pytest.mark.usefixtures("toy")
def test_the_entry_bridges_toy_middleware_onto_the_reference_runtime() -> None:
    assert _ran_on_the_runtime(ToyMiddleware()) == 1


@pytest.mark.usefixtures("toy")
def test_the_entry_adds_a_conformance_column_and_a_cli_choice(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert "toy" in conformance_columns() and "toy" in conformance.targets()
    results = {r.probe: r for r in conformance.run_conformance(["toy"])}
    assert results["onion_order"].status == "holds"
    assert results["onion_order"].observed == "A> B> <B <A"
    assert results["profile_resolved_at_build"].status == "n/a"
    assert main(["conformance", "--target", "toy"]) == 0
    assert "onion_order" in capsys.readouterr().out


def test_without_the_entry_the_toy_is_nowhere(capsys: pytest.CaptureFixture[str]) -> None:
    _register_toy()
    unregister_target("toy")
    assert "toy" not in registered_targets() and "toy" not in conformance_columns()
    with pytest.raises(UsageError, match="which the reference target cannot run"):
        as_target(_toy_agent)
    assert hook_sampler(ToyMiddleware()) is REFERENCE_SAMPLER
    with pytest.raises(UntestedError, match="nothing to check"):
        contracts.check_request_not_mutated(ToyMiddleware())
    assert _ran_on_the_runtime(ToyMiddleware()) == 0  # no bridge: its hook is not one
    with pytest.raises(SystemExit):
        main(["conformance", "--target", "toy"])
    assert "invalid choice: 'toy'" in capsys.readouterr().err


def test_an_entry_refuses_parts_that_are_not_their_role() -> None:
    with pytest.raises(UsageError, match=r"as its sampler a hookproof\.targets\.HookSampler"):
        register_target("bad", ToyTarget, sampler=object())  # type: ignore[arg-type]
    with pytest.raises(UsageError, match=r"as its kit a hookproof\.targets\.ConformanceKit"):
        register_target("bad", ToyTarget, kit=TOY_SAMPLER)  # type: ignore[arg-type]
    assert "bad" not in registered_targets()


def test_a_taken_name_is_refused_and_the_built_in_entry_stays_whole() -> None:
    """Registering over a name would drop the entry's parts (its sampler, column, packages)
    and its unregister would then remove the framework for every later test."""
    before = (registered_targets(), conformance_columns())
    with pytest.raises(UsageError, match=r"'eino' is already registered.*unregister_target"):
        register_target("eino", ToyTarget)
    _register_toy()
    try:
        with pytest.raises(UsageError, match="'toy' is already registered"):
            _register_toy()
    finally:
        unregister_target("toy")
    assert (registered_targets(), conformance_columns()) == before
    assert "eino" in conformance_columns() and target_class("eino").__name__ == "EinoTarget"


def test_a_framework_without_a_sampler_never_gets_the_reference_runtimes() -> None:
    """Its middleware's hooks cannot be called its own way: the check fails and says so,
    rather than driving them with the reference runtime's requests."""
    register_target("toy", f"{TOY}:ToyTarget", middleware_modules=(TOY,))
    try:
        with pytest.raises(NotImplementedError, match="the toy target has no hook sampler"):
            hook_sampler(ToyMiddleware())
        with pytest.raises(NotImplementedError, match=r"sampler=HookSampler"):
            contracts.check_request_not_mutated(ToyMiddleware())
    finally:
        unregister_target("toy")


@pytest.mark.usefixtures("toy")
def test_a_framework_naming_no_constructor_refuses_to_take_a_middleware_out() -> None:
    with pytest.raises(UsageError, match="names no agent constructor to intercept"):
        contracts.check_tools_preserved(_toy_agent, "guest", middleware="toy")


def test_a_path_that_is_not_module_colon_name_is_refused_at_registration() -> None:
    for path in ("tests.targets.toy_framework.ToyTarget", "toy:", "toy framework:ToyTarget"):
        with pytest.raises(UsageError, match=r"is not a 'module:Name' path"):
            register_target("bad", path)
    with pytest.raises(UsageError, match=r"bridge path 'nocolon'"):
        register_target("bad", ToyTarget, bridge="nocolon")
    assert "bad" not in registered_targets()


@pytest.mark.parametrize(
    ("path", "says"),
    [
        ("tests.targets.toy_framwork:ToyTarget", "which its installed package does not have"),
        (f"{TOY}:ToyTargte", "'ToyTargte', which module"),
    ],
)
def test_a_misspelt_path_is_an_error_not_an_uninstalled_framework(path: str, says: str) -> None:
    """A typo in an installed package would otherwise read as 'framework not installed', and
    every check on it would be skipped instead of run."""
    register_target("typo", path)
    try:
        with pytest.raises(UsageError, match=says):
            target_class("typo")
    finally:
        unregister_target("typo")


def test_a_framework_whose_package_is_absent_still_reads_as_not_installed() -> None:
    register_target("absent", "hookproof_no_such_framework.target:Target")
    try:
        with pytest.raises(ModuleNotFoundError):
            target_class("absent")
    finally:
        unregister_target("absent")

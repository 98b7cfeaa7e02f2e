"""Per-parameter scripts: ``pytest.param(..., marks=pytest.mark.hookproof(script=...))`` is
the closest marker, so it wins over the test function's own, which wins over the module's."""

from __future__ import annotations

import pytest

PARAM_TEST = """
import pytest
from hookproof.models import call

pytestmark = pytest.mark.hookproof(model_name="module-model", script=["from the module"])


@pytest.mark.hookproof(script=["from the function"])
@pytest.mark.parametrize(
    ("expected", "model_name"),
    [
        pytest.param(
            ["from param a"], "module-model", marks=pytest.mark.hookproof(script=["from param a"])
        ),
        pytest.param(
            ["x", "y"],
            "param-model",
            marks=pytest.mark.hookproof(script=["x", "y"], model_name="param-model"),
        ),
        pytest.param(["from the function"], "module-model"),
    ],
)
def test_script(scripted_model, hookproof_options, expected, model_name):
    assert list(hookproof_options.script) == expected
    assert scripted_model.name == model_name
    assert [scripted_model.invoke(None).text for _ in expected] == expected


ONLY = pytest.mark.hookproof(script=["only the param"])


@pytest.mark.parametrize("turn", [pytest.param("only the param", marks=ONLY)])
def test_param_over_module(hookproof_options, turn):
    assert list(hookproof_options.script) == [turn]
"""


def test_a_parameters_marker_is_closer_than_the_functions(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_params=PARAM_TEST)
    pytester.runpytest_inprocess("-p", "no:randomly").assert_outcomes(passed=4)

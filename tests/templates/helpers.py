"""What the template tests share: rendering one user message, and running hostile cases in
a child process that reports each case's outcome as JSON."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from hookproof.templates import (
    FormatType,
    TemplateSecurityError,
    from_agentic_messages,
    user_agentic_message,
)


def render(format_type: FormatType, template: str, variables: dict[str, Any]) -> str:
    return (
        from_agentic_messages(format_type, user_agentic_message(template)).format(variables)[0].text
    )


def outcomes_in_child(source: str, cases: dict[str, Any], *, timeout: float) -> dict[str, Any]:
    """What the Python program ``source`` prints as JSON when given ``cases`` as JSON on its
    standard input. Over ``timeout`` seconds fails the test: a budget no longer stops a case."""
    try:
        child = subprocess.run(
            [sys.executable, "-c", source],
            input=json.dumps(cases),
            capture_output=True,
            text=True,
            timeout=timeout,
            check=True,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"a hostile template ran for over {timeout} s: a budget no longer stops it")
    return dict(json.loads(child.stdout))


def assert_refused(
    format_type: FormatType, template: str, variables: dict[str, Any], match: str
) -> str:
    """Rendering ``template`` raises a TemplateSecurityError matching ``match``; its message."""
    __tracebackhide__ = True
    with pytest.raises(TemplateSecurityError, match=match) as caught:
        render(format_type, template, variables)
    return str(caught.value)

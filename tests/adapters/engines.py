"""One application run on LangChain's ``create_agent`` and on the reference engine, and the
two runs compared (``add`` is a LangChain tool both engines run). Message ids are left out of
every comparison: LangChain's are random (uuid4), the reference engine's deterministic (a
documented difference)."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("langchain_core", reason="install hookproof[langchain] to run these")

from langchain_core.tools import tool

from hookproof.adapters.langchain.target import LangChainTarget
from hookproof.messages import Message
from hookproof.requests import FinalRequest
from hookproof.targets import TargetRun
from hookproof.targets.reference import ReferenceTarget


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def run_on_both(
    langchain_build: Any, reference_build: Any, **given: Any
) -> tuple[TargetRun, TargetRun]:
    """The LangChain run and the reference run of the same script (and input, context)."""
    langchain = LangChainTarget(langchain_build).run(**given)
    return langchain, ReferenceTarget(reference_build).run(**given)


def without_ids(message: Message) -> Message:
    return message.model_copy(update={"id": None})


def comparable(request: FinalRequest) -> FinalRequest:
    return request.model_copy(update={"messages": tuple(map(without_ids, request.messages))})


def hooks_of(run: TargetRun) -> list[tuple[str, str | None, str]]:
    assert run.trace is not None
    kinds = ("hook", "layer", "model", "tool")
    return [(e.hook, e.middleware, e.phase) for e in run.trace.events if e.kind in kinds]


def assert_same_run(langchain: TargetRun, reference: TargetRun) -> None:
    """Both runs succeeded with the same hooks in order, FinalRequests and messages."""
    assert langchain.error is None, langchain.error
    assert reference.error is None, reference.error
    assert hooks_of(reference) == hooks_of(langchain)
    assert list(map(comparable, reference.final_requests)) == list(
        map(comparable, langchain.final_requests)
    )
    assert list(map(without_ids, reference.messages)) == list(map(without_ids, langchain.messages))

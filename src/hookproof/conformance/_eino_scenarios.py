"""Scenarios for the Eino differential: what one run does, as data both runners read.

A scenario is a script for the scripted model, the handlers (each drawn from a small
catalogue of kinds) and the agent's configuration. ``to_json`` is the line the Go runner
(go/cmd/einoscenario) reads; the hookproof.eino runner reads the same dataclass. The named
catalogue (``EINO_SEMANTICS``) groups hand-written scenarios by the semantic they pin.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

__all__ = [
    "EINO_SEMANTICS",
    "HANDLER_KINDS",
    "HOOKS",
    "KNOWN_DIFFERENCES",
    "TOOL_NAMES",
    "HandlerSpec",
    "Scenario",
]

# What each handler kind does (the Go runner implements the same kinds):
#   probe     - every hook a no-op (each is still traced);
#   filter    - before_model_rewrite_state drops ``tool`` from the tools shown;
#   rewrite   - before_model_rewrite_state appends a user message naming the handler;
#   fail      - ``hook`` returns an error (see HOOKS);
#   runlocal  - counts model calls in a run-local value, adds the count to each tool result
#               and sends it as a custom event from after_agent;
#   agentctx  - before_agent appends "from <name>" to the instruction and drops ``tool``;
#   answer    - after_model_rewrite_state turns a message of tool calls into a text answer;
#   dropopts  - wrap_model's wrapper calls the model without the options it receives;
#   crosswired - wrap_model's wrapper: generate calls the inner stream, stream the generate;
#   signed    - wrap_model's wrapper appends " (signed by <name>)" (a chunk when streaming);
#   fresh     - before the first model call, before_model_rewrite_state returns a new state
#               with the messages only (tool infos None);
#   shrink    - before_model_rewrite_state drops the first of the tool infos it sees;
#   noids     - after_model_rewrite_state blanks the ids of the answer's tool calls.
HANDLER_KINDS = (
    "probe",
    "filter",
    "rewrite",
    "fail",
    "runlocal",
    "agentctx",
    "answer",
    "dropopts",
    "crosswired",
    "signed",
    "fresh",
    "shrink",
    "noids",
)
# Where a ``fail`` handler's error comes from: the hook itself, or (``*_call``) the model or
# tool endpoint the wrapper returns.
HOOKS = (
    "before_agent",
    "before_model_rewrite_state",
    "after_model_rewrite_state",
    "wrap_model",
    "wrap_model_call",
    "tool_wrapper",
    "tool_wrapper_call",
    "after_agent",
)
TOOL_NAMES = ("search", "lookup")


@dataclass(frozen=True)
class HandlerSpec:
    """One handler: its ``kind`` (HANDLER_KINDS), its trace name, and its parameter."""

    kind: str
    name: str
    tool: str = ""
    hook: str = ""


@dataclass(frozen=True)
class Scenario:
    """One run. ``script`` holds the model's turns in JSON form: a text, ``{"call": name,
    "args": {...}}`` (with ``"id"`` to fix the call's id), a list of calls, or
    ``{"error": text}``. ``retries`` >= 0 sets a
    ModelRetryConfig with that many retries (no backoff); ``fallback`` (a script) sets a
    ModelFailoverConfig whose failover model plays it (``failover_retries`` attempts, on any
    error). ``reject`` (with ``retries``) makes ShouldRetry retry an output of that text.
    ``interrupt`` names a tool that interrupts on its first call; the run is then resumed
    once with ``resume`` as the value the tool returns. ``streamable_tools`` makes both
    tools streamable-only (they stream two chunks)."""

    script: tuple[Any, ...]
    handlers: tuple[HandlerSpec, ...] = ()
    max_iterations: int = 0
    return_directly: tuple[str, ...] = ()
    retries: int = -1
    fallback: tuple[Any, ...] | None = None
    failover_retries: int = 1
    streaming: bool = False
    interrupt: str = ""
    resume: str = "resumed"
    reject: str = ""
    streamable_tools: bool = False

    @property
    def handler_names(self) -> frozenset[str]:
        return frozenset(spec.name for spec in self.handlers)

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False, sort_keys=True)


def _probes(*names: str) -> tuple[HandlerSpec, ...]:
    return tuple(HandlerSpec("probe", name) for name in names)


def _fail(hook: str) -> tuple[HandlerSpec, ...]:
    return (HandlerSpec("probe", "outer"), HandlerSpec("fail", "bad", hook=hook))


_PROBES = _probes("outer", "inner")
_SEARCH = {"call": "search", "args": {"q": "x"}}
_BOTH = [{"call": "search", "args": {"q": "a"}}, {"call": "lookup", "args": {"q": "b"}}]
_TWICE = [{"call": "search", "args": {"q": "a"}}, {"call": "search", "args": {"q": "b"}}]
_ONE_TOOL = (_SEARCH, "done")
# One call id on every call: LangChain's own tests do it, and providers reuse ids.
_SEARCH_SAME = {**_SEARCH, "id": "same"}
_BOTH_SAME = [{**item, "id": "same"} for item in _BOTH]
_ERROR = {"error": "model down"}

# semantic -> its named scenarios
EINO_SEMANTICS: dict[str, dict[str, Scenario]] = {
    "handler_order": {
        "final answer": Scenario(("done",), _PROBES),
        "one tool call": Scenario(_ONE_TOOL, _PROBES),
        "two calls in one turn": Scenario((_BOTH, "ok"), _PROBES),
    },
    "before_agent_configuration": {
        "instruction and tools changed": Scenario(
            _ONE_TOOL, (HandlerSpec("agentctx", "cfg", tool="lookup"), _PROBES[1])
        ),
        "every tool removed": Scenario(
            _ONE_TOOL,
            (
                HandlerSpec("agentctx", "a", tool="lookup"),
                HandlerSpec("agentctx", "b", tool="search"),
            ),
        ),
    },
    "state_rewrites": {
        "tool filter": Scenario(
            _ONE_TOOL, (_PROBES[0], HandlerSpec("filter", "drop", tool="lookup"))
        ),
        "appended message persists": Scenario(_ONE_TOOL, (HandlerSpec("rewrite", "note"),)),
        "after-model rewrite decides the branch": Scenario(
            _ONE_TOOL, (HandlerSpec("answer", "final"), _PROBES[1])
        ),
    },
    "max_iterations": {
        "third call refused": Scenario((_SEARCH,) * 3, _PROBES, max_iterations=2),
    },
    "return_directly": {
        "second of two calls": Scenario((_BOTH,), _PROBES, return_directly=("lookup",)),
        "single call": Scenario((_SEARCH,), _PROBES, return_directly=("search",)),
    },
    **{
        f"error_in_{hook}": {"run ends in an error": Scenario(_ONE_TOOL, _fail(hook))}
        for hook in HOOKS
    },
    "model_retry": {
        "succeeds on the last retry": Scenario((_ERROR, _ERROR, "done"), _PROBES, retries=2),
        "retries exhausted": Scenario((_ERROR, _ERROR, "done"), _PROBES, retries=1),
        "error in wrap_model is retried": Scenario(("done",), _fail("wrap_model"), retries=1),
        "should_retry rejects an output": Scenario(
            ("again", "done"), _PROBES, retries=1, reject="again"
        ),
        "should_retry rejects every output": Scenario(
            ("again", "again"), _PROBES, retries=1, reject="again"
        ),
    },
    "model_failover": {
        "fallback answers": Scenario((_ERROR,), _PROBES, fallback=("done",)),
        "fallback fails too": Scenario((_ERROR,), _PROBES, fallback=(_ERROR,)),
        "last success model first": Scenario((_ERROR,), _PROBES, fallback=(_SEARCH, "done")),
        "with retry": Scenario((_ERROR, _ERROR), _PROBES, retries=1, fallback=("done",)),
    },
    "run_local_values": {
        "counted across hooks": Scenario(
            (_SEARCH, _BOTH, "done"), (HandlerSpec("runlocal", "rl"),)
        ),
    },
    "interrupt_and_resume": {
        "tool interrupts, resume answers": Scenario((_SEARCH, "done"), _PROBES, interrupt="search"),
        "with run-local values": Scenario(
            (_SEARCH, "done"), (HandlerSpec("runlocal", "rl"),), interrupt="search"
        ),
    },
    "one_of_several_tool_calls_fails": {
        "the other call still runs": Scenario(
            (_BOTH, "done"), (HandlerSpec("fail", "bad", hook="tool_wrapper"),)
        ),
    },
    "one_of_several_tool_calls_interrupts": {
        "the other call still runs": Scenario((_BOTH, "done"), _PROBES, interrupt="search"),
    },
    "several_tool_calls_interrupt": {
        "one pause for both": Scenario((_TWICE, "done"), _PROBES, interrupt="search"),
    },
    "reused_tool_call_ids": {
        "across turns": Scenario((_SEARCH_SAME, _SEARCH_SAME, "done"), _PROBES),
        "within one turn": Scenario((_BOTH_SAME, "done"), _PROBES),
    },
    "reused_tool_call_id_interrupt": {
        "resume runs the paused call": Scenario((_BOTH_SAME, "done"), interrupt="lookup"),
    },
    "streaming": {
        "one tool call": Scenario(_ONE_TOOL, _PROBES, streaming=True),
        "return directly": Scenario((_BOTH,), _PROBES, return_directly=("lookup",), streaming=True),
        "streamable tools": Scenario(
            _ONE_TOOL,
            (*_PROBES, HandlerSpec("runlocal", "rl")),
            streaming=True,
            streamable_tools=True,
        ),
    },
    "streaming_retry_of_a_rejected_output": {
        "rejected, then accepted": Scenario(
            ("again", "done"), _PROBES, retries=1, reject="again", streaming=True
        ),
    },
    "wrapper_drops_options": {
        "the model is shown no tool": Scenario(_ONE_TOOL, (HandlerSpec("dropopts", "drop"),)),
        "streaming": Scenario(_ONE_TOOL, (HandlerSpec("dropopts", "drop"),), streaming=True),
        "inside another wrapper": Scenario(
            _ONE_TOOL, (HandlerSpec("dropopts", "drop"), HandlerSpec("signed", "sig"))
        ),
    },
    "wrapper_calls_the_other_modes_endpoint": {
        "streaming run, wrapper generates": Scenario(
            ("done",), (HandlerSpec("crosswired", "cross"),), streaming=True
        ),
        "run without streaming, wrapper streams": Scenario(
            ("done",), (HandlerSpec("crosswired", "cross"),)
        ),
        "retried": Scenario(("done",), (HandlerSpec("crosswired", "cross"),), retries=1),
    },
    "streaming_wrappers": {
        "a chunk appended": Scenario(
            _ONE_TOOL, (_PROBES[0], HandlerSpec("signed", "sig")), streaming=True
        ),
        "the same wrapper without streaming": Scenario(
            _ONE_TOOL, (_PROBES[0], HandlerSpec("signed", "sig"))
        ),
        "two wrappers": Scenario(
            (_BOTH, "done"),
            (HandlerSpec("signed", "a"), HandlerSpec("signed", "b")),
            streaming=True,
        ),
    },
    "return_directly_with_a_shared_call_id": {
        "the later call returns": Scenario((_BOTH_SAME,), _PROBES, return_directly=("lookup",)),
        "the earlier call returns": Scenario((_BOTH_SAME,), _PROBES, return_directly=("search",)),
        "streaming": Scenario((_BOTH_SAME,), _PROBES, return_directly=("lookup",), streaming=True),
    },
    "tool_calls_without_ids": {
        "only the last call's event is sent": Scenario(
            (_BOTH, "done"), (HandlerSpec("noids", "blank"),)
        ),
        "return-directly does not end the run": Scenario(
            (_BOTH, "done"), (HandlerSpec("noids", "blank"),), return_directly=("search",)
        ),
        "streaming": Scenario(
            (_BOTH, _TWICE, "done"), (HandlerSpec("noids", "blank"),), streaming=True
        ),
    },
    "tool_infos_persist_across_model_calls": {
        "a filter sees the list the last call left": Scenario(
            (_SEARCH, _SEARCH, "done"), (HandlerSpec("shrink", "shrink"),)
        ),
        "a fresh state shows no tool, the next call the run's": Scenario(
            (_SEARCH, "done"), (HandlerSpec("fresh", "fresh"),)
        ),
        "a list emptied before a pause is refilled after it": Scenario(
            ({"call": "lookup", "args": {"q": "a"}}, _SEARCH, "done"),
            (HandlerSpec("shrink", "shrink"),),
            interrupt="search",
        ),
        "a fresh state, then a filter": Scenario(
            (_SEARCH, _SEARCH, "done"),
            (HandlerSpec("fresh", "fresh"), HandlerSpec("shrink", "shrink")),
        ),
    },
    "streamable_tools_without_streaming": {
        "one tool call": Scenario(
            _ONE_TOOL, (*_PROBES, HandlerSpec("runlocal", "rl")), streamable_tools=True
        ),
    },
}

# Semantics on which hookproof.eino is known to differ from Eino, with the reason (also in
# hookproof.eino's module docstring): the report shows them as "differs", and the tests
# require that they still do, so a fix is noticed.
KNOWN_DIFFERENCES = {
    "reused_tool_call_id_interrupt": (
        "when a paused turn has several calls with one id, Eino's resume gives each of them "
        "the result of the first that finished (its ToolsNode keeps finished calls by id), "
        "so the paused call never runs and its answer is lost; hookproof.eino keeps them by "
        "position and runs it: a call is never dropped silently"
    ),
}

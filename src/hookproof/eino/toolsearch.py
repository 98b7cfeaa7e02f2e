"""A reference tool-search handler (spec section 8): dynamic tools the model loads on demand.

``ToolSearchMiddleware(dynamic_tools)`` registers the dynamic tools (so they can run) and a
``tool_search`` tool, then keeps the dynamic tools' schemas out of the model's view until a
``tool_search`` result names them. The first model call of a run also gets a reminder that
lists the deferred tools. With ``use_model_tool_search=True`` the model's own search is used
instead: no ``tool_search`` tool, the dynamic tools go to ``deferred_tool_infos`` and the
search tool is passed as ``tool_search_tool``.

Queries: ``select:a,b`` loads tools by exact name; otherwise words are matched, case-
insensitively, against tool names and descriptions (a ``+word`` must match). The result is
JSON ``{"matches": [names]}``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from hookproof.eino._context import RunContext
from hookproof.eino._handlers import BaseChatModelAgentMiddleware
from hookproof.eino._records import (
    ChatModelAgentContext,
    ChatModelAgentState,
    ModelContext,
    ToolInfo,
)
from hookproof.eino._runlocal import get_run_local_value, set_run_local_value
from hookproof.eino._tools import as_eino_tool, info_of
from hookproof.errors import UsageError
from hookproof.messages import ToolMessage, UserMessage, text_message

__all__ = ["TOOL_SEARCH", "ToolSearchMiddleware", "search_tools"]

TOOL_SEARCH = "tool_search"
INITIALIZED = "__toolsearch_initialized__"
_PARAMETERS = {
    "type": "object",
    "properties": {
        "query": {
            "type": "string",
            "description": "'select:name1,name2' to load tools by name, or keywords",
        },
        "max_results": {"type": "integer", "description": "at most this many (default 5)"},
    },
    "required": ["query"],
}
SEARCH_INFO = ToolInfo(
    name=TOOL_SEARCH,
    description=(
        "Find and load deferred tools. Their schemas become available on your next turn; "
        "call a tool only after it was loaded."
    ),
    parameters=_PARAMETERS,
)


def search_tools(query: str, tools: Sequence[ToolInfo], max_results: int = 5) -> list[str]:
    """Names of the tools a query selects, best first."""
    known = [item.name for item in tools]
    text = query.strip()
    if text.startswith("select:"):
        wanted = [name.strip() for name in text[len("select:") :].split(",")]
        return [name for name in wanted if name in known][:max_results]
    terms = [term.lower() for term in text.split() if term.strip("+")]
    required = [term[1:] for term in terms if term.startswith("+")]
    words = [term.lstrip("+") for term in terms]
    scored = []
    for position, item in enumerate(tools):
        name, description = item.name.lower(), item.description.lower()
        if any(term not in name and term not in description for term in required):
            continue
        score = sum(2 * (word in name) + (word in description) for word in words)
        if score:
            scored.append((-score, position, item.name))
    return [name for _, _, name in sorted(scored)][:max_results]


class _SearchTool:
    """The ``tool_search`` tool over the dynamic tools' schemas."""

    def __init__(self, infos: tuple[ToolInfo, ...]) -> None:
        self._infos = infos

    def info(self) -> ToolInfo:
        return SEARCH_INFO

    def invokable_run(self, ctx: RunContext, arguments: str) -> str:
        try:
            args = json.loads(arguments or "{}")
        except json.JSONDecodeError:
            args = None
        query = args.get("query") if isinstance(args, dict) else None
        if not isinstance(query, str):
            return json.dumps({"matches": [], "error": "query must be a string"})
        limit = args.get("max_results", 5)
        limit = limit if isinstance(limit, int) and limit > 0 else 5
        return json.dumps({"matches": search_tools(query, self._infos, limit)})


def _matched(messages: Sequence[Any]) -> set[str]:
    """Every name an earlier tool_search result loaded."""
    found: set[str] = set()
    for message in messages:
        if isinstance(message, ToolMessage) and message.name == TOOL_SEARCH:
            try:
                data = json.loads(message.text)
            except json.JSONDecodeError:
                continue
            matches = data.get("matches", []) if isinstance(data, dict) else []
            found.update(name for name in matches if isinstance(name, str))
    return found


class ToolSearchMiddleware(BaseChatModelAgentMiddleware):
    """Defers ``dynamic_tools`` until the model searches for them (see the module doc)."""

    def __init__(self, dynamic_tools: Sequence[Any], *, use_model_tool_search: bool = False):
        if not dynamic_tools:
            raise UsageError("hookproof: ToolSearchMiddleware needs at least one dynamic tool.")
        self.dynamic_tools = tuple(
            as_eino_tool(item, f"dynamic_tools[{index}]")
            for index, item in enumerate(dynamic_tools)
        )
        self.infos = tuple(info_of(item) for item in self.dynamic_tools)
        self.names = frozenset(info.name for info in self.infos)
        self.native = use_model_tool_search

    def before_agent(
        self, ctx: RunContext, agent_ctx: ChatModelAgentContext
    ) -> tuple[RunContext, ChatModelAgentContext]:
        if self.native:
            tools = (*agent_ctx.tools, *self.dynamic_tools)
            return ctx, agent_ctx.override(tools=tools, tool_search_tool=SEARCH_INFO)
        tools = (*agent_ctx.tools, _SearchTool(self.infos), *self.dynamic_tools)
        return ctx, agent_ctx.override(tools=tools)

    def before_model_rewrite_state(
        self, ctx: RunContext, state: ChatModelAgentState, model_ctx: ModelContext
    ) -> tuple[RunContext, ChatModelAgentState]:
        others = tuple(info for info in state.tool_infos or () if info.name not in self.names)
        messages = state.messages
        if not get_run_local_value(ctx, INITIALIZED)[1]:
            set_run_local_value(ctx, INITIALIZED, True)
            messages = (*messages, self._reminder())
        if self.native:
            others = tuple(info for info in others if info.name != TOOL_SEARCH)
            return ctx, state.override(
                messages=messages, tool_infos=others, deferred_tool_infos=self.infos
            )
        loaded = _matched(messages)
        shown = others + tuple(info for info in self.infos if info.name in loaded)
        return ctx, state.override(messages=messages, tool_infos=shown)

    def _reminder(self) -> UserMessage:
        names = ", ".join(info.name for info in self.infos)
        how = (
            "Search for them with your tool-search capability."
            if self.native
            else f"Load one with {TOOL_SEARCH}(query='select:<name>') before calling it."
        )
        return text_message(
            UserMessage,
            f"Deferred tools (their schemas are not loaded yet): {names}. {how}",
        )

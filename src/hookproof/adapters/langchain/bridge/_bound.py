"""What the chat model is bound with for each tool a request shows, as LangChain's
create_agent binds it: the tool object the request came with (a LangChain tool, a provider's
tool dict, the structured-output tool LangChain makes for a response format), not a copy of
its schema. A chat model's ``bind_tools`` may read more than the schema (Anthropic's reads a
tool's ``extras``; a provider's built-in tool is a dict of its own shape; a test's fake
model reads ``.name``).

The engine's requests hold ToolSchemas; each schema made from such an object is remembered
here with it, and the object is bound while the request still shows that very schema (a
middleware that changes a tool shows a new schema, bound as the schema it is).
"""

from __future__ import annotations

from typing import Any

from hookproof._support.frozen import thaw
from hookproof.tools import ToolSchema

__all__ = ["bind_form", "bound_as"]

_KEPT_MAX = 20_000
# id(schema) -> (schema, object): holding the schema keeps its id from being reused.
_objects: dict[int, tuple[ToolSchema, Any]] = {}


def bound_as(schema: ToolSchema, tool: Any) -> ToolSchema:
    """Remember that the model is bound with ``tool`` where a request shows ``schema``."""
    if len(_objects) > _KEPT_MAX:
        _objects.clear()
    _objects[id(schema)] = (schema, tool)
    return schema


def bind_form(schema: ToolSchema) -> Any:
    """What ``bind_tools`` gets for ``schema``: the object it was made from, else the schema
    in OpenAI's function format."""
    entry = _objects.get(id(schema))
    if entry is not None and entry[0] is schema:
        return entry[1]
    function = {
        "name": schema.name,
        "description": schema.description,
        "parameters": thaw(schema.parameters),
    }
    return {"type": "function", "function": function}

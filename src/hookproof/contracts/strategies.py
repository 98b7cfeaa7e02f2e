"""Hypothesis strategies for contracts: contexts, system messages, tools, scripts, stacks,
and the arguments a tool's JSON Schema admits.

``contexts(AgentContext, trusted=False)`` draws what an attacker or a bug can hand your
router: unknown values in every field, None, malformed objects of other types. Contexts are
built from the dataclass's own fields: Literal fields give the trusted values.
"""

from __future__ import annotations

import json
import keyword
import math
from collections.abc import Mapping, Sequence
from typing import Any

from hypothesis import strategies as st

from hookproof.contracts._args import _resolve, example_args, example_value
from hookproof.contracts._catalogues import json_scalars as _json_scalars
from hookproof.contracts._catalogues import text as _text
from hookproof.contracts._contexts import contexts, trusted_values
from hookproof.messages import ImageBlock, ReasoningBlock, SystemMessage, TextBlock
from hookproof.models import ScriptedCall, call
from hookproof.runtime import AgentMiddleware
from hookproof.tools import ToolSchema

__all__ = [
    "arguments",
    "contexts",
    "middleware_stacks",
    "scripts",
    "system_messages",
    "tool_sets",
    "trusted_values",
]


def _block() -> st.SearchStrategy[Any]:
    cache = st.none() | st.just({"type": "ephemeral"})
    ids = st.none() | _text.map(lambda s: f"b-{s}")
    text = st.builds(TextBlock, text=_text, id=ids, cache_control=cache)
    image = st.builds(ImageBlock, url=st.just("https://example.invalid/i.png"), id=ids)
    reasoning = st.builds(ReasoningBlock, reasoning=_text)
    return st.one_of(text, text, image, reasoning)


def system_messages() -> st.SearchStrategy[SystemMessage]:
    """System messages with random blocks and metadata (ids, names, kwargs, metadata)."""
    metadata = st.dictionaries(st.sampled_from(["a", "b", "tenant"]), _json_scalars, max_size=3)
    return st.builds(
        SystemMessage,
        content=st.lists(_block(), min_size=1, max_size=4),
        id=st.none() | _text.map(lambda s: f"sys-{s}"),
        name=st.none() | _text,
        additional_kwargs=metadata,
        response_metadata=metadata,
    )


_NAMES = st.from_regex(r"[a-z][a-z0-9_]{0,11}", fullmatch=True).filter(
    lambda name: not keyword.iskeyword(name)
)
_PARAM_TYPES = st.sampled_from(["string", "integer", "number", "boolean"])


def _parameters() -> st.SearchStrategy[dict[str, Any]]:
    def schema(props: dict[str, str], required: list[str]) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {name: {"type": kind} for name, kind in props.items()},
            "required": sorted(set(required) & set(props)),
        }

    props = st.dictionaries(_NAMES, _PARAM_TYPES, max_size=4)
    return props.flatmap(
        lambda p: st.lists(st.sampled_from(sorted(p) or ["_"])).map(lambda r: schema(p, r))
    )


def tool_sets(*, min_size: int = 1, max_size: int = 5) -> st.SearchStrategy[list[ToolSchema]]:
    """Tools with unique names and valid JSON Schemas for their parameters."""
    tool = st.builds(ToolSchema, name=_NAMES, description=_text, parameters=_parameters())
    return st.lists(tool, min_size=min_size, max_size=max_size, unique_by=lambda t: t.name)


def _value(kind: str) -> st.SearchStrategy[Any]:
    return {
        "string": _text,
        "integer": st.integers(-100, 100),
        "number": st.floats(-100, 100, allow_nan=False),
        "boolean": st.booleans(),
    }.get(kind, st.just(None))


def _args(schema: Mapping[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    properties = schema.get("properties", {})
    required = {
        n: _value(p.get("type", "string"))
        for n, p in properties.items()
        if n in schema.get("required", [])
    }
    simple = all(
        p.get("type") in ("string", "integer", "number", "boolean") for p in properties.values()
    )
    if not simple:
        return st.just(example_args(schema))
    return st.fixed_dictionaries(required)


def _call_of(tool: Any) -> st.SearchStrategy[ScriptedCall]:
    name = tool.name
    return _args(tool.parameters).map(lambda args: call(name, args))


def scripts(
    tools: Sequence[Any], *, max_calls: int = 4, answer: str = "done"
) -> st.SearchStrategy[list[Any]]:
    """Tool-call trajectories whose arguments respect the tools' schemas, then an answer."""
    if not tools:
        return st.just([answer])
    one = st.sampled_from(list(tools)).flatmap(_call_of)
    turn: st.SearchStrategy[ScriptedCall | list[ScriptedCall]] = one | st.lists(
        one, min_size=2, max_size=3
    )
    return st.lists(turn, max_size=max_calls).map(lambda turns: [*turns, answer])


class ProbeMiddleware(AgentMiddleware):
    """A well-behaved middleware with a chosen set of hooks (each passes through)."""

    def __init__(self, name: str, hooks: frozenset[str]) -> None:
        self.name = name
        self.hooks = hooks

    def __repr__(self) -> str:
        return f"ProbeMiddleware({self.name!r}, {sorted(self.hooks)})"


def _probe_class(hooks: frozenset[str]) -> type[ProbeMiddleware]:
    namespace: dict[str, Any] = {}
    if "before_model" in hooks:
        namespace["before_model"] = lambda self, state, runtime: None
    if "after_model" in hooks:
        namespace["after_model"] = lambda self, state, runtime: None
    if "wrap_model_call" in hooks:
        namespace["wrap_model_call"] = lambda self, request, handler: handler(request)
    if "wrap_tool_call" in hooks:
        namespace["wrap_tool_call"] = lambda self, request, handler: handler(request)
    return type("ProbeMiddleware", (ProbeMiddleware,), namespace)


_HOOK_SETS = st.frozensets(
    st.sampled_from(["before_model", "after_model", "wrap_model_call", "wrap_tool_call"]),
    min_size=1,
)


def middleware_stacks(*, max_size: int = 8) -> st.SearchStrategy[list[ProbeMiddleware]]:
    """Stacks of well-behaved probe middleware with random hook sets (0 to ``max_size``)."""
    return st.lists(_HOOK_SETS, max_size=max_size).map(
        lambda sets: [_probe_class(hooks)(f"probe{i}", hooks) for i, hooks in enumerate(sets)]
    )


# -- arguments from a JSON Schema ------------------------------------------------------------

_MAX_DEPTH = 4  # deeper (recursive $ref) values are the schema's minimal example
_CHARS = st.characters(exclude_categories=["Cs", "Cc"])
_KEYS = st.text(alphabet=_CHARS, min_size=1, max_size=8)
_ANY_JSON = st.recursive(
    _json_scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_KEYS, inner, max_size=3),
    max_leaves=4,
)
Strategy = st.SearchStrategy[Any]


def arguments(schema: Mapping[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    """Arguments ``schema`` (a tool's JSON Schema for its parameters) admits: every required
    property and any of the optional ones, with values of the declared types inside their
    enums, consts, bounds and lengths; ``$ref``, ``anyOf``, ``oneOf``, ``allOf``, arrays and
    nested objects included. Properties the schema leaves untyped get any JSON value."""
    return _object(schema, schema, 0)


def _json_value(schema: Mapping[str, Any], root: Mapping[str, Any], depth: int) -> Strategy:
    schema = _resolve(schema, root)
    if depth > _MAX_DEPTH:
        return st.just(example_value(schema, root))
    if "enum" in schema:
        return st.sampled_from(list(schema["enum"]))
    if "const" in schema:
        return st.just(schema["const"])
    if "allOf" in schema:
        return _json_value(_merged(schema, root), root, depth)
    options = [*schema.get("anyOf", ()), *schema.get("oneOf", ())]
    if options:
        return st.one_of([_json_value(option, root, depth + 1) for option in options])
    kind = schema.get("type", "object" if "properties" in schema else None)
    if isinstance(kind, list):
        return st.one_of([_json_value({**schema, "type": k}, root, depth) for k in kind])
    typed = _TYPED.get(kind) if isinstance(kind, str) else None
    return typed(schema, root, depth) if typed is not None else _ANY_JSON


def _merged(schema: Mapping[str, Any], root: Mapping[str, Any]) -> dict[str, Any]:
    """One schema of an ``allOf``: its parts' keywords, properties and required names."""
    merged: dict[str, Any] = {k: v for k, v in schema.items() if k != "allOf"}
    for part in (_resolve(p, root) for p in schema["allOf"]):
        properties = {**merged.get("properties", {}), **part.get("properties", {})}
        required = [*merged.get("required", ()), *part.get("required", ())]
        merged = {**part, **merged, "properties": properties, "required": required}
    return merged


def _object(schema: Mapping[str, Any], root: Mapping[str, Any], depth: int) -> Strategy:
    properties = schema.get("properties", {})
    required = set(schema.get("required", ()))
    if not properties and not required:
        extra = schema.get("additionalProperties", True)
        if extra is False:
            return st.just({})
        values = _json_value(extra, root, depth + 1) if isinstance(extra, Mapping) else _ANY_JSON
        return st.dictionaries(_KEYS, values, max_size=3)
    value = {n: _json_value(properties.get(n, {}), root, depth + 1) for n in properties}
    return st.fixed_dictionaries(
        {n: value.get(n, _ANY_JSON) for n in sorted(required)},
        optional={n: s for n, s in value.items() if n not in required},
    )


def _string(schema: Mapping[str, Any], root: Mapping[str, Any], depth: int) -> Strategy:
    low = int(schema.get("minLength", 0))
    high = int(schema.get("maxLength", low + 20))
    pattern = schema.get("pattern")
    if isinstance(pattern, str):
        return st.from_regex(pattern).filter(lambda text: low <= len(text) <= high)
    return st.text(alphabet=_CHARS, min_size=low, max_size=high)


def _bounds(schema: Mapping[str, Any]) -> tuple[Any, Any, bool, bool]:
    """(low, high, low excluded, high excluded), from JSON Schema 4 and 2020 keywords."""
    low, high = schema.get("minimum"), schema.get("maximum")
    exclude_low = exclude_high = False
    if isinstance(schema.get("exclusiveMinimum"), bool):
        exclude_low = bool(schema["exclusiveMinimum"])
    elif "exclusiveMinimum" in schema:
        low, exclude_low = schema["exclusiveMinimum"], True
    if isinstance(schema.get("exclusiveMaximum"), bool):
        exclude_high = bool(schema["exclusiveMaximum"])
    elif "exclusiveMaximum" in schema:
        high, exclude_high = schema["exclusiveMaximum"], True
    return low, high, exclude_low, exclude_high


def _integer(schema: Mapping[str, Any], root: Mapping[str, Any], depth: int) -> Strategy:
    low, high, exclude_low, exclude_high = _bounds(schema)
    if low is not None:
        low = math.floor(low) + 1 if exclude_low else math.ceil(low)
    if high is not None:
        high = math.ceil(high) - 1 if exclude_high else math.floor(high)
    return st.integers(min_value=low, max_value=high)


def _number(schema: Mapping[str, Any], root: Mapping[str, Any], depth: int) -> Strategy:
    low, high, exclude_low, exclude_high = _bounds(schema)
    return st.floats(
        min_value=low,
        max_value=high,
        exclude_min=exclude_low and low is not None,
        exclude_max=exclude_high and high is not None,
        allow_nan=False,
        allow_infinity=False,
    )


def _array(schema: Mapping[str, Any], root: Mapping[str, Any], depth: int) -> Strategy:
    items = schema.get("items", {})
    element = _json_value(items, root, depth + 1) if isinstance(items, Mapping) else _ANY_JSON
    low = int(schema.get("minItems", 0))
    high = int(schema.get("maxItems", low + 3))
    if schema.get("uniqueItems"):
        return st.lists(element, min_size=low, max_size=high, unique_by=_canonical)
    return st.lists(element, min_size=low, max_size=high)


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=repr)


_TYPED = {
    "object": _object,
    "string": _string,
    "integer": _integer,
    "number": _number,
    "boolean": lambda schema, root, depth: st.booleans(),
    "null": lambda schema, root, depth: st.none(),
    "array": _array,
}

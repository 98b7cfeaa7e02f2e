"""Minimal valid arguments for a tool, read from its JSON Schema (for scripted calls)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["example_args", "example_value"]

_SCALARS: dict[str, Any] = {
    "string": "x",
    "integer": 1,
    "number": 1.0,
    "boolean": True,
    "array": [],
    "object": {},
    "null": None,
}


def _resolve(schema: Mapping[str, Any], root: Mapping[str, Any]) -> Mapping[str, Any]:
    reference = schema.get("$ref")
    if isinstance(reference, str) and reference.startswith("#/"):
        node: Any = root
        for part in reference[2:].split("/"):
            node = node.get(part, {}) if isinstance(node, Mapping) else {}
        return node if isinstance(node, Mapping) else {}
    return schema


def example_value(schema: Mapping[str, Any], root: Mapping[str, Any] | None = None) -> Any:
    """A value that satisfies ``schema`` (the first choice of every alternative)."""
    root = root if root is not None else schema
    schema = _resolve(schema, root)
    if "enum" in schema:
        return schema["enum"][0]
    if "const" in schema:
        return schema["const"]
    for key in ("anyOf", "oneOf", "allOf"):
        options = [o for o in schema.get(key, []) if _resolve(o, root).get("type") != "null"]
        if options:
            return example_value(options[0], root)
    kind = schema.get("type", "object")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object" and "properties" in schema:
        return example_args(schema, root)
    return _SCALARS.get(kind)


def example_args(
    schema: Mapping[str, Any], root: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """Values for the required properties of an object schema."""
    root = root if root is not None else schema
    properties = schema.get("properties", {})
    return {
        name: example_value(properties[name], root)
        for name in schema.get("required", [])
        if name in properties
    }

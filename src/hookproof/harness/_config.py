"""Validation of HarnessProfileConfig data as a whole, with one error listing every bad field.

Config data comes from JSON or YAML, so only JSON values are accepted, strictly: strings,
lists of names, true/false. A string where a boolean belongs ("no") or a Python object or
callable anywhere is refused rather than coerced, because a coerced value can quietly mean
the opposite of what the file says. pydantic does the checking; its errors are translated
here, so users never see pydantic's wording.
"""

from __future__ import annotations

import reprlib
from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, StringConstraints, ValidationError

from hookproof.errors import InvalidInputError, did_you_mean

__all__ = [
    "CONFIG_KEYS",
    "FROM_PYTHON",
    "GENERAL_PURPOSE_KEYS",
    "NAME_PATTERN",
    "ConfigData",
    "validate_config",
]

NAME_PATTERN = r"^[A-Za-z_][A-Za-z0-9_.-]*$"
Name = Annotated[str, StringConstraints(pattern=NAME_PATTERN)]
_STRICT = ConfigDict(strict=True, extra="forbid", frozen=True)


class _GeneralPurposeData(BaseModel):
    model_config = _STRICT

    enabled: bool | None = None
    description: str | None = None
    system_prompt: str | None = None


class ConfigData(BaseModel):
    """The checked shape of a HarnessProfileConfig; ``general_purpose`` keeps the keys given a
    value (none given: None, which adjusts nothing either)."""

    model_config = _STRICT

    base_system_prompt: str | None = None
    system_prompt_suffix: str | None = None
    tool_description_overrides: dict[Name, str] = {}
    excluded_tools: list[Name] = []
    excluded_middleware: list[Name] = []
    general_purpose_subagent: _GeneralPurposeData | None = None

    def general_purpose(self) -> dict[str, Any] | None:
        gp = self.general_purpose_subagent
        return (gp.model_dump(exclude_none=True) or None) if gp is not None else None


CONFIG_KEYS = tuple(ConfigData.model_fields)
GENERAL_PURPOSE_KEYS = tuple(_GeneralPurposeData.model_fields)


def _short_repr() -> reprlib.Repr:
    """A bounded repr: a deep or huge bad value cannot blow up the error message."""
    short = reprlib.Repr()
    short.maxstring = short.maxother = 60
    short.maxlevel, short.maxdict, short.maxlist = 2, 3, 3
    return short


_SHORT = _short_repr()


_FROM_DATA = (
    "A harness profile config holds JSON data only (strings, lists of names, true/false); fix "
    "each field listed. Code such as extra_middleware belongs on a HarnessProfile built in "
    "Python."
)
FROM_PYTHON = (
    "Fix each field listed: prompts are strings, excluded tools and middleware sets of names, "
    "tool_description_overrides a mapping of tool name to description."
)


def validate_config(data: object, *, source: str, fix: str = _FROM_DATA) -> ConfigData:
    """The checked config, or InvalidInputError naming the path and fix of each bad field."""
    if not isinstance(data, Mapping):
        raise InvalidInputError(
            f"hookproof: {source} takes a mapping (a JSON object), got {type(data).__name__}."
            f" Valid keys: {', '.join(CONFIG_KEYS)}."
        )
    try:
        return ConfigData.model_validate(dict(data))
    except ValidationError as error:
        raise _config_error(error, source, fix) from None


_LISTED_AT_MOST = 20


def _config_error(error: ValidationError, source: str, fix: str) -> InvalidInputError:
    items = error.errors(include_url=False)
    problems = [
        f"  - {_path(item['loc'])}: {_problem(item['type'], item['loc'], item['input'])}"
        for item in items[:_LISTED_AT_MOST]
    ]
    if len(items) > _LISTED_AT_MOST:
        problems.append(f"  - ... and {len(items) - _LISTED_AT_MOST} more")
    count = "1 bad field" if len(items) == 1 else f"{len(items)} bad fields"
    return InvalidInputError(
        f"hookproof: {source} has {count}:\n" + "\n".join(problems) + f"\n{fix}"
    )


def _path(loc: tuple[int | str, ...]) -> str:
    if len(loc) == 1 and isinstance(loc[0], int):  # a top-level key that is not a string
        return f"key {_SHORT.repr(loc[0])}"
    text = ""
    for part in loc:
        if part == "[key]":
            text += " (a key)"
        elif isinstance(part, int) or text.startswith("tool_description_overrides"):
            text += f"[{_SHORT.repr(part)}]"
        else:
            text += f".{_SHORT.repr(part)[1:-1]}" if text else _SHORT.repr(part)[1:-1]
    return text or "(the config)"


def _got(value: object) -> str:
    return f"got {type(value).__name__} {_SHORT.repr(value)}"


def _problem(kind: str, loc: tuple[int | str, ...], value: object) -> str:
    if kind == "extra_forbidden":
        return _unknown_key(loc)
    if kind == "invalid_key":
        return f"keys must be strings, {_got(value)}"
    if kind == "string_pattern_mismatch":
        return (
            f"{_SHORT.repr(value)} is not a tool or middleware name; use letters, digits "
            "and _ . - (starting with a letter or _)"
        )
    return f"{_EXPECTED.get(kind, 'has the wrong type')}, {_got(value)}"


_EXPECTED = {
    "string_type": "must be a string",
    "bool_type": "must be true or false (a JSON boolean; a string such as 'no' is refused "
    "because it would read as true)",
    "list_type": "must be a list of names",
    "dict_type": "must be an object mapping tool names to descriptions",
    "model_type": f"must be an object with keys {', '.join(GENERAL_PURPOSE_KEYS)}",
}


def _unknown_key(loc: tuple[int | str, ...]) -> str:
    key, inside_general_purpose = loc[-1], len(loc) > 1
    valid = GENERAL_PURPOSE_KEYS if inside_general_purpose else CONFIG_KEYS
    hint = did_you_mean(key, valid) if isinstance(key, str) else ""
    if key == "extra_middleware":
        hint = " extra_middleware holds code and cannot come from a config file."
    return f"is not a valid key.{hint} Valid keys: {', '.join(valid)}"

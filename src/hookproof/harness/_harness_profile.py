"""HarnessProfile: harness adjustments for a provider or model (prompt, tool descriptions,
excluded tools and middleware, extra middleware, the general-purpose subagent), its merge
rules, and HarnessProfileConfig, the part of it that JSON or YAML can hold."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any, TypeAlias

from hookproof.errors import InvalidInputError, UsageError, safe_repr
from hookproof.harness._config import CONFIG_KEYS, FROM_PYTHON, ConfigData, validate_config

__all__ = [
    "REQUIRED_MIDDLEWARE",
    "GeneralPurposeSubagentProfile",
    "HarnessProfile",
    "HarnessProfileConfig",
]

REQUIRED_MIDDLEWARE = frozenset({"FilesystemMiddleware", "SubAgentMiddleware"})

MiddlewareSource: TypeAlias = Sequence[object] | Callable[[], Sequence[object]]


@dataclass(frozen=True, kw_only=True)
class GeneralPurposeSubagentProfile:
    """Adjust the default general-purpose subagent; None leaves a field as it is."""

    enabled: bool | None = None
    description: str | None = None
    system_prompt: str | None = None

    def __post_init__(self) -> None:
        if self.enabled is not None and not isinstance(self.enabled, bool):
            raise UsageError(
                "hookproof: GeneralPurposeSubagentProfile.enabled must be True, False or None, "
                f"got {type(self.enabled).__name__} {safe_repr(self.enabled, 40)}; a value such as "
                "'no' would otherwise read as true and leave the subagent on."
            )
        for name in ("description", "system_prompt"):
            value = getattr(self, name)
            if value is not None and not isinstance(value, str):
                raise UsageError(
                    f"hookproof: GeneralPurposeSubagentProfile.{name} must be a str or None, "
                    f"got {type(value).__name__} {safe_repr(value, 40)}."
                )

    def merged(self, newer: GeneralPurposeSubagentProfile) -> GeneralPurposeSubagentProfile:
        changes = {f.name: getattr(newer, f.name) for f in fields(newer)}
        return replace(self, **{k: v for k, v in changes.items() if v is not None})


def _merge_middleware(old: MiddlewareSource, new: MiddlewareSource) -> MiddlewareSource:
    if not callable(old) and not callable(new):
        return _by_class(list(old), list(new))

    def materialise() -> list[object]:
        return _by_class(_materialise(old), _materialise(new))

    return materialise


def _materialise(source: MiddlewareSource) -> list[object]:
    items = source() if callable(source) else source
    return list(items)


def _by_class(old: list[object], new: list[object]) -> list[object]:
    """Merge by concrete class: a newer instance replaces an older one of the same class."""
    newer = {type(item) for item in new}
    return [item for item in old if type(item) not in newer] + new


_DATA_FIELDS = tuple(key for key in CONFIG_KEYS if key != "general_purpose_subagent")


def _check_code_fields(extra: object, general: object) -> None:
    if not callable(extra) and (isinstance(extra, str | bytes) or not isinstance(extra, Sequence)):
        raise UsageError(
            "hookproof: HarnessProfile.extra_middleware must be a sequence of middleware or a "
            "zero-argument factory returning one, got "
            f"{type(extra).__name__} {safe_repr(extra, 60)}."
        )
    if general is not None and not isinstance(general, GeneralPurposeSubagentProfile):
        raise UsageError(
            "hookproof: HarnessProfile.general_purpose_subagent must be a "
            f"GeneralPurposeSubagentProfile or None, got {type(general).__name__}. From a dict, "
            "use GeneralPurposeSubagentProfile(**data) or load a HarnessProfileConfig."
        )


@dataclass(frozen=True, kw_only=True)
class HarnessProfile:
    """Harness adjustments for a provider or model, resolved when the agent is built."""

    base_system_prompt: str | None = None
    system_prompt_suffix: str | None = None
    tool_description_overrides: Mapping[str, str] = field(default_factory=dict)
    excluded_tools: frozenset[str] = frozenset()
    excluded_middleware: frozenset[str] = frozenset()
    extra_middleware: MiddlewareSource = ()
    general_purpose_subagent: GeneralPurposeSubagentProfile | None = None

    def __post_init__(self) -> None:
        given = {key: _as_json_shape(getattr(self, key)) for key in _DATA_FIELDS}
        checked = validate_config(given, source="HarnessProfile", fix=FROM_PYTHON)
        object.__setattr__(self, "excluded_tools", frozenset(checked.excluded_tools))
        object.__setattr__(self, "excluded_middleware", frozenset(checked.excluded_middleware))
        object.__setattr__(self, "tool_description_overrides", checked.tool_description_overrides)
        _check_code_fields(self.extra_middleware, self.general_purpose_subagent)
        required = sorted(self.excluded_middleware & REQUIRED_MIDDLEWARE)
        if required:
            raise InvalidInputError(
                f"hookproof: a HarnessProfile cannot exclude {required}: the harness needs "
                "them (files and subagents are its scaffolding). Exclude tools instead, e.g. "
                "excluded_tools={'execute'}."
            )

    def merged(self, newer: HarnessProfile) -> HarnessProfile:
        """This profile with ``newer`` registered over it (the spec's merge table)."""
        gp = self.general_purpose_subagent
        if newer.general_purpose_subagent is not None:
            gp = (gp or GeneralPurposeSubagentProfile()).merged(newer.general_purpose_subagent)
        return HarnessProfile(
            base_system_prompt=newer.base_system_prompt or self.base_system_prompt,
            system_prompt_suffix=newer.system_prompt_suffix or self.system_prompt_suffix,
            tool_description_overrides={
                **self.tool_description_overrides,
                **newer.tool_description_overrides,
            },
            excluded_tools=self.excluded_tools | newer.excluded_tools,
            excluded_middleware=self.excluded_middleware | newer.excluded_middleware,
            extra_middleware=_merge_middleware(self.extra_middleware, newer.extra_middleware),
            general_purpose_subagent=gp,
        )

    def materialise_extra_middleware(self) -> list[object]:
        """Instances for one stack: a factory is called anew each time."""
        return _materialise(self.extra_middleware)


@dataclass(frozen=True, kw_only=True)
class HarnessProfileConfig:
    """The JSON/YAML-friendly part of a HarnessProfile. Loading it never imports code:
    extra_middleware, which would, is deliberately absent.

    Every field is checked when the config is made, all at once: one InvalidInputError names
    the path of each bad field (``excluded_tools[0]``, ``general_purpose_subagent.enabled``).
    """

    base_system_prompt: str | None = None
    system_prompt_suffix: str | None = None
    tool_description_overrides: Mapping[str, str] = field(default_factory=dict)
    excluded_tools: frozenset[str] = frozenset()
    excluded_middleware: frozenset[str] = frozenset()
    general_purpose_subagent: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        given = {key: _as_json_shape(getattr(self, key)) for key in CONFIG_KEYS}
        checked = validate_config(given, source="HarnessProfileConfig")
        self._adopt(checked)

    def _adopt(self, checked: ConfigData) -> None:
        values = {
            "tool_description_overrides": dict(checked.tool_description_overrides),
            "excluded_tools": frozenset(checked.excluded_tools),
            "excluded_middleware": frozenset(checked.excluded_middleware),
            "general_purpose_subagent": checked.general_purpose(),
        }
        for key, value in values.items():
            object.__setattr__(self, key, value)

    def to_profile(self) -> HarnessProfile:
        gp = self.general_purpose_subagent
        return HarnessProfile(
            **{key: getattr(self, key) for key in _DATA_FIELDS},
            general_purpose_subagent=None if gp is None else GeneralPurposeSubagentProfile(**gp),
        )

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON data: sets become sorted lists; empty fields are left out."""
        data: dict[str, Any] = {
            "base_system_prompt": self.base_system_prompt,
            "system_prompt_suffix": self.system_prompt_suffix,
            "tool_description_overrides": dict(sorted(self.tool_description_overrides.items())),
            "excluded_tools": sorted(self.excluded_tools),
            "excluded_middleware": sorted(self.excluded_middleware),
            "general_purpose_subagent": self.general_purpose_subagent,
        }
        return {key: value for key, value in data.items() if value not in (None, [], {})}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> HarnessProfileConfig:
        """A config from JSON data; anything but JSON values (objects, callables, sets,
        a string where true/false belongs) is refused, every bad field in one error."""
        checked = validate_config(data, source="HarnessProfileConfig.from_dict")
        return cls(
            **{key: getattr(checked, key) for key in _DATA_FIELDS},
            general_purpose_subagent=checked.general_purpose(),
        )


def _as_json_shape(value: object) -> object:
    """Python construction may give sets of names; checking wants the JSON shape, a list.
    A str stays one, so the check refuses it rather than splitting it into letters."""
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, Iterable) and not isinstance(value, str | bytes | list):
        return list(value)
    return value

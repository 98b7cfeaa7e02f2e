"""Harness and provider profiles, their merge rules, and isolatable registries.

A HarnessProfile adjusts the agent harness for a provider or model (prompt, tool
descriptions, excluded tools and middleware, extra middleware, the general-purpose
subagent). A ProviderProfile adjusts how a model string ``"provider:model"`` becomes a model
(static kwargs, kwargs computed from the environment, checks before construction). Both are
looked up by ``"provider"`` and ``"provider:model"`` (the provider entry first, the exact one
merged over it) and resolved once, when the agent is built.

Registries are objects. The module-level functions use the current registry: the default
one, or the one an ``isolated_profiles()`` block installs, so tests (also under
pytest-xdist) never see each other's profiles.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, fields, replace
from typing import Any, TypeAlias

from hookproof.errors import InvalidInputError, UsageError, safe_repr
from hookproof.harness._config import CONFIG_KEYS, FROM_PYTHON, ConfigData, validate_config

__all__ = [
    "REQUIRED_MIDDLEWARE",
    "GeneralPurposeSubagentProfile",
    "HarnessProfile",
    "HarnessProfileConfig",
    "ProfileRegistry",
    "ProviderProfile",
    "current_registry",
    "isolated_profiles",
    "register_harness_profile",
    "register_model_factory",
    "register_provider_profile",
]

REQUIRED_MIDDLEWARE = frozenset({"FilesystemMiddleware", "SubAgentMiddleware"})
_KEY = re.compile(r"^[A-Za-z0-9_.-]+(:[A-Za-z0-9_.\-/]+)?$")

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
            base_system_prompt=self.base_system_prompt,
            system_prompt_suffix=self.system_prompt_suffix,
            tool_description_overrides=dict(self.tool_description_overrides),
            excluded_tools=frozenset(self.excluded_tools),
            excluded_middleware=frozenset(self.excluded_middleware),
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
            base_system_prompt=checked.base_system_prompt,
            system_prompt_suffix=checked.system_prompt_suffix,
            tool_description_overrides=checked.tool_description_overrides,
            excluded_tools=frozenset(checked.excluded_tools),
            excluded_middleware=frozenset(checked.excluded_middleware),
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


def _compose(first: Callable[..., Any] | None, second: Callable[..., Any] | None) -> Any:
    if first is None or second is None:
        return first or second

    def both(*args: Any) -> None:
        first(*args)
        second(*args)

    return both


def _chain_factories(
    first: Callable[[], Mapping[str, Any]] | None, second: Callable[[], Mapping[str, Any]] | None
) -> Callable[[], Mapping[str, Any]] | None:
    if first is None or second is None:
        return first or second
    return lambda: {**first(), **second()}


@dataclass(frozen=True, kw_only=True)
class ProviderProfile:
    """How a model string of this provider becomes a model: kwargs and checks."""

    init_kwargs: Mapping[str, Any] = field(default_factory=dict)
    init_kwargs_factory: Callable[[], Mapping[str, Any]] | None = None
    pre_init: Callable[[str], None] | None = None

    def merged(self, newer: ProviderProfile) -> ProviderProfile:
        return ProviderProfile(
            init_kwargs={**self.init_kwargs, **newer.init_kwargs},
            init_kwargs_factory=_chain_factories(
                self.init_kwargs_factory, newer.init_kwargs_factory
            ),
            pre_init=_compose(self.pre_init, newer.pre_init),
        )

    def kwargs(self, caller: Mapping[str, Any]) -> dict[str, Any]:
        """Static kwargs < factory results (in order) < the caller's own kwargs."""
        merged = dict(self.init_kwargs)
        if self.init_kwargs_factory is not None:
            merged.update(self.init_kwargs_factory())
        merged.update(caller)
        return merged


def _check_key(key: str) -> None:
    if not isinstance(key, str) or not _KEY.match(key):
        raise InvalidInputError(
            f"hookproof: profile key {key!r} is malformed. Use 'provider' or 'provider:model'."
        )


def _split(spec: str) -> tuple[str, str]:
    provider, _, model = spec.partition(":")
    if not provider or not model:
        raise InvalidInputError(
            f"hookproof: model string {spec!r} must look like 'provider:model'."
        )
    return provider, model


class ProfileRegistry:
    """Harness and provider profiles plus the factories that build models from strings."""

    def __init__(self) -> None:
        self._harness: dict[str, HarnessProfile] = {}
        self._provider: dict[str, ProviderProfile] = {}
        self._factories: dict[str, Callable[..., Any]] = {}

    def copy(self) -> ProfileRegistry:
        clone = ProfileRegistry()
        clone._harness, clone._provider = dict(self._harness), dict(self._provider)
        clone._factories = dict(self._factories)
        return clone

    def register_harness_profile(self, key: str, profile: HarnessProfile) -> None:
        """Register (or merge over an earlier registration) the profile for ``key``."""
        _check_key(key)
        if not isinstance(profile, HarnessProfile):
            raise UsageError(f"hookproof: expected a HarnessProfile, got {type(profile).__name__}.")
        earlier = self._harness.get(key)
        self._harness[key] = profile if earlier is None else earlier.merged(profile)

    def register_provider_profile(self, key: str, profile: ProviderProfile) -> None:
        _check_key(key)
        if not isinstance(profile, ProviderProfile):
            raise UsageError(
                f"hookproof: expected a ProviderProfile, got {type(profile).__name__}."
            )
        earlier = self._provider.get(key)
        self._provider[key] = profile if earlier is None else earlier.merged(profile)

    def register_model_factory(self, provider: str, factory: Callable[..., Any]) -> None:
        """``factory(model_name, **kwargs)`` builds models for ``"provider:model"`` strings."""
        _check_key(provider)
        self._factories[provider] = factory

    def harness_profile(self, provider: str | None, model: str | None) -> HarnessProfile:
        """The provider's profile with the exact ``provider:model`` one merged over it."""
        profile = HarnessProfile()
        for key in _keys(provider, model):
            if key in self._harness:
                profile = profile.merged(self._harness[key])
        return profile

    def provider_profile(self, provider: str, model: str) -> ProviderProfile:
        profile = ProviderProfile()
        for key in _keys(provider, model):
            if key in self._provider:
                profile = profile.merged(self._provider[key])
        return profile

    def resolve_model(self, spec: str, **caller_kwargs: Any) -> Any:
        """Build a model from ``"provider:model"``: pre_init checks, then kwargs, then factory."""
        provider, model = _split(spec)
        factory = self._factories.get(provider)
        if factory is None:
            raise InvalidInputError(
                f"hookproof: no model factory is registered for provider {provider!r} "
                f"(known: {sorted(self._factories)}). Register one with "
                "register_model_factory(provider, factory), or pass a model instance."
            )
        profile = self.provider_profile(provider, model)
        if profile.pre_init is not None:
            profile.pre_init(spec)
        return factory(model, **profile.kwargs(caller_kwargs))


def _keys(provider: str | None, model: str | None) -> list[str]:
    if not provider:
        return []
    return [provider] + ([f"{provider}:{model}"] if model else [])


_DEFAULT = ProfileRegistry()
_CURRENT: ContextVar[ProfileRegistry | None] = ContextVar("hookproof_profiles", default=None)


def current_registry() -> ProfileRegistry:
    """The registry module-level functions use: the isolated one if a block is active."""
    return _CURRENT.get() or _DEFAULT


@contextmanager
def isolated_profiles(*, inherit: bool = False) -> Iterator[ProfileRegistry]:
    """A fresh registry (or a copy of the current one) for the code inside the block."""
    registry = current_registry().copy() if inherit else ProfileRegistry()
    token = _CURRENT.set(registry)
    try:
        yield registry
    finally:
        _CURRENT.reset(token)


def register_harness_profile(key: str, profile: HarnessProfile) -> None:
    current_registry().register_harness_profile(key, profile)


def register_provider_profile(key: str, profile: ProviderProfile) -> None:
    current_registry().register_provider_profile(key, profile)


def register_model_factory(provider: str, factory: Callable[..., Any]) -> None:
    current_registry().register_model_factory(provider, factory)

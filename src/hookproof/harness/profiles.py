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
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from hookproof.errors import InvalidInputError, UsageError
from hookproof.harness._harness_profile import (
    REQUIRED_MIDDLEWARE,
    GeneralPurposeSubagentProfile,
    HarnessProfile,
    HarnessProfileConfig,
)
from hookproof.harness._provider_profile import ProviderProfile

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

_KEY = re.compile(r"^[A-Za-z0-9_.-]+(:[A-Za-z0-9_.\-/]+)?$")


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

"""ProviderProfile: how a model string ``"provider:model"`` becomes a model (static kwargs,
kwargs computed from the environment, checks before construction), and its merge rules."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["ProviderProfile"]


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

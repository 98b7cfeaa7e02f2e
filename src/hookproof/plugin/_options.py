"""hookproof's options (``HookproofOptions``, public as ``hookproof.plugin.HookproofOptions``),
and the one place their sources are merged.

Precedence, lowest to highest: built-in defaults < ini file (``[tool.pytest.ini_options]``)
< ``@pytest.mark.hookproof(...)`` markers (the closest marker wins) < command-line options.
Marker keyword arguments are exactly the fields of ``HookproofOptions``. One exception to
"closest wins": ``allow_hosts`` accumulates, so a host allowed by the ini file stays allowed in
a test whose marker allows one more.

Example: ini ``hookproof_snapshot_dir = "snaps"`` and ``hookproof_allow_hosts = "db, cache"``,
a module marker ``hookproof(model_name="fast")`` and a test marker
``hookproof(model_name="reasoning", allow_hosts=["10.0.0.7"])`` give
``snapshot_dir="snaps"``, ``model_name="reasoning"`` and
``allow_hosts=("db", "cache", "10.0.0.7")``.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from hookproof.errors import UsageError, did_you_mean

__all__ = ["HookproofOptions", "resolve_options"]


@dataclass(frozen=True, kw_only=True)
class HookproofOptions:
    """Options of the pytest integration; also the kwargs of ``@pytest.mark.hookproof``."""

    script: Sequence[Any] = ()
    """Turns for the ``scripted_model`` fixture (str, call(...), lists of calls, ...)."""
    model_name: str = "scripted"
    """Name of the ``scripted_model`` fixture's model (its identity in FinalRequests)."""
    matchers: Sequence[Any] | None = None
    """Snapshot normalisation matchers; None means hookproof's defaults."""
    normalise_ids: bool = True
    """Replace message and tool-call ids by stable placeholders in snapshots."""
    snapshot_dir: str = "snapshots"
    """Where snapshot files go, relative to the pytest rootdir."""
    allow_real_models: bool = False
    """Let models that are not declared offline run, and sockets connect anywhere."""
    allow_hosts: Sequence[str] = ()
    """Hosts sockets may connect to while real models are blocked: names, IP addresses or
    networks (``10.0.0.0/8``), without port or scheme (every port of an allowed host may be
    reached); loopback is always allowed. A string is split at commas and whitespace."""
    freeze_time: str | date | None = None
    """Freeze the clock (with freezegun) at this moment for the whole test: fixture setup, the
    test body, every run (sync and async) and teardown. An ISO-8601 string such as
    ``"2026-01-01T09:00:00Z"``, or a date / datetime. None leaves the clock alone."""
    record_mode: str = "none"
    """How ``hookproof_cassette`` treats model calls: ``none`` replays only, ``once`` records
    a cassette that does not exist yet, ``new_episodes`` records calls without a recorded
    exchange, ``all`` records every call again (see ``hookproof.recording``)."""
    extra: Mapping[str, Any] = field(default_factory=dict)


_FIELDS = [item.name for item in dataclasses.fields(HookproofOptions) if item.name != "extra"]


def _check_keys(source: str, values: Mapping[str, Any]) -> None:
    for key in values:
        if key not in _FIELDS:
            raise UsageError(
                f"hookproof: {source} has unknown option {key!r}.{did_you_mean(key, _FIELDS)} "
                f"Valid options: {', '.join(_FIELDS)}."
            )


def resolve_options(
    *,
    ini: Mapping[str, Any] | None = None,
    markers: Sequence[Mapping[str, Any]] = (),
    cli: Mapping[str, Any] | None = None,
) -> HookproofOptions:
    """Merge option sources (markers listed farthest first, so the closest wins)."""
    merged: dict[str, Any] = {}
    hosts: list[str] = []
    for source, values in (
        [("the ini file", ini or {})]
        + [("@pytest.mark.hookproof", marker) for marker in markers]
        + [("the command line", cli or {})]
    ):
        _check_keys(source, values)
        merged.update({key: value for key, value in values.items() if value is not None})
        hosts += _split_hosts(source, values.get("allow_hosts"))
        _check_freeze_time(source, values.get("freeze_time"))
        _check_record_mode(source, values.get("record_mode"))
    return HookproofOptions(**{**merged, "allow_hosts": tuple(dict.fromkeys(hosts))})


def _split_hosts(source: str, value: object) -> list[str]:
    """``"db, cache"`` or ``["db", "cache"]`` -> ``["db", "cache"]``."""
    if value is None:
        return []
    if isinstance(value, str):
        value = [value]
    elif isinstance(value, set | frozenset):
        value = sorted(value, key=str)  # not hash order: the same run twice, the same options
    elif not isinstance(value, list | tuple):
        raise UsageError(
            f"hookproof: {source} gives allow_hosts={value!r}, which is not a list of hosts, "
            "so hookproof cannot tell which hosts connections may reach. Pass host names or "
            'IP addresses, e.g. allow_hosts=["db", "10.0.0.7"].'
        )
    hosts = [host for item in value for host in re.split(r"[\s,]+", str(item)) if host]
    for host in hosts:
        _check_host(source, host)
    return hosts


def _check_host(source: str, host: str) -> None:
    """Refuse an entry that could never match a connection (``db:5432``, a URL)."""
    from hookproof.guard import allowed_host_problem

    problem = allowed_host_problem(host.lower())
    if problem is not None:
        raise UsageError(
            f"hookproof: {source} gives the allow_hosts entry {host!r}, which {problem}"
        )


def _check_record_mode(source: str, value: object) -> None:
    if value is not None:
        from hookproof.recording import RecordMode

        RecordMode.parse(value, f"{source} gives record_mode, which")


def _check_freeze_time(source: str, value: object) -> None:
    """Refuse a moment freezegun would misread or reject only once the test has started."""
    if value is None or isinstance(value, date):
        return
    if isinstance(value, str):
        try:
            datetime.fromisoformat(value)
        except ValueError:
            pass
        else:
            return
    raise UsageError(
        f"hookproof: {source} gives freeze_time={value!r}, which is not an ISO-8601 date or "
        "datetime, so hookproof cannot tell at which moment to freeze the clock. Pass one like "
        'freeze_time="2026-01-01T09:00:00Z" (or a datetime.date / datetime.datetime).'
    )

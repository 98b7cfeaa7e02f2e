"""Secrets never written: redaction of API keys, tokens and credentials in text and data.

Everything hookproof writes or shows (snapshot files, reprs, gate reports, cassettes) passes
through :func:`redact_text` or :func:`redact_data` first. Two mechanisms work together:

* **fields**: in data, the value under a sensitive key (``api_key``, ``Authorization``,
  ``cookie``, ``password``, ``...``) is replaced whole, whatever it looks like. Keys compare
  case-insensitively with ``-`` and ``_`` ignored, so ``api_key``, ``API-Key`` and ``apiKey``
  are one field; ``openai_api_key`` is caught as a field ending in ``api_key``. Every field
  ending in ``token`` is a credential (``authorization_token``, ``github_token``,
  ``bot_token``, ``id_token``, ...) except a short list of names a model or tokenizer uses
  for a control token or a page cursor, compared whole: ``eos``/``bos``/``pad``/``unk``/
  ``sep``/``cls``/``mask``/``stop``/``start``/``end``/``decoder_start``/``forced_bos``/
  ``forced_eos``/``page``/``next_page``/``continuation`` followed by ``token``. Plurals
  (``max_tokens``, ``input_tokens``) do not end in ``token`` and stay. Keys ending in
  ``secret``, ``password``, ``api_key``, ``secret_key``, ``private_key``, ``account_key``
  (``service_account_key``), ``signing_key`` or ``encryption_key`` are sensitive too.
* **patterns**: in any text, the major providers' key formats, bearer tokens, JWTs,
  ``Authorization: ...`` / ``api-key: ...`` / cookie headers, credentials in URLs (userinfo
  in every spelling, query parameters named like a credential) and private key blocks are
  replaced by ``[REDACTED]``.

The replacement is always the constant ``[REDACTED]``: no hash or prefix of the secret, so
a snapshot stays byte-identical when a key is rotated. The built-in fields and patterns are
always on; :class:`Redaction` adds more, either passed explicitly or installed for the
process with :func:`configure_redaction` (the pytest plugin does so from the ini options
``hookproof_redact_fields`` and ``hookproof_redact_patterns``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from hookproof._secrets.fields import is_sensitive_field as _is_sensitive_field
from hookproof._secrets.installed import install, installed
from hookproof._secrets.patterns import (
    REDACTED,
    any_query_parameter,
    keep_around,
    redact_builtin,
    redact_field_assignments,
    replace_query,
)
from hookproof._secrets.reprs import redacted_repr
from hookproof.errors import InvalidInputError, UsageError

__all__ = [
    "REDACTED",
    "Redaction",
    "active_redaction",
    "configure_redaction",
    "is_sensitive_field",
    "redact_data",
    "redact_file_name",
    "redact_text",
    "redacted_repr",
]


@lru_cache(maxsize=64)
def _compile_extra(pattern: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern)
    except re.error as error:
        raise InvalidInputError(
            f"hookproof: the redaction pattern {pattern!r} is not a valid regular expression "
            f"({error}). An invalid pattern would let the secret it was written for reach "
            "snapshot and cassette files. Fix the pattern (hookproof_redact_patterns in the "
            "ini, or Redaction(patterns=...))."
        ) from error


@dataclass(frozen=True, slots=True)
class Redaction:
    """Extra field names and regular expressions to redact, on top of the built-ins.

    ``fields`` are data keys whose values are replaced whole (compared like the built-ins:
    case-insensitive, ``-`` and ``_`` ignored); in text, a value given to one of them
    (``tenant_key: abc``, ``"tenant_key": "a b"``, ``TENANT_KEY=abc``, ``?tenant_key=abc``)
    is replaced too, whatever it looks like. ``patterns`` are regular expressions searched
    in every text; a match is replaced whole, or only its group named ``secret`` when the
    pattern has one (``r"session=(?P<secret>\\w+)"`` keeps ``session=``).
    """

    fields: tuple[str, ...] = ()
    patterns: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for name in ("fields", "patterns"):
            if isinstance(getattr(self, name), str | bytes):
                raise UsageError(
                    f"hookproof: Redaction({name}={getattr(self, name)!r}) takes a collection "
                    f"of strings, not one string (it would be read letter by letter and the "
                    f"secret would go unredacted). Write {name}=({getattr(self, name)!r},)."
                )
        object.__setattr__(self, "fields", tuple(self.fields))
        object.__setattr__(self, "patterns", tuple(self.patterns))
        for pattern in self.patterns:
            _compile_extra(pattern)

    def including(self, other: Redaction) -> Redaction:
        """The union of both: every field and pattern of ``self`` and ``other``, in order."""
        return Redaction(
            fields=_unique(self.fields + other.fields),
            patterns=_unique(self.patterns + other.patterns),
        )

    def is_sensitive_field(self, name: str) -> bool:
        return _is_sensitive_field(name, self.fields)

    def redact_text(self, text: str) -> str:
        redacted = redact_builtin(text)
        if self.fields and "=" in redacted:  # ?tenant_key=... when tenant_key is a field
            redacted = any_query_parameter().sub(lambda m: replace_query(m, self.fields), redacted)
        if self.fields:
            redacted = redact_field_assignments(redacted, self.fields)
        for pattern in self.patterns:
            redacted = _compile_extra(pattern).sub(_replace_extra, redacted)
        return redacted

    def redact_data(self, value: Any) -> Any:
        """A redacted deep copy of str / dict / list / tuple structures; other values as is."""
        if isinstance(value, str):
            return self.redact_text(value)
        if isinstance(value, Mapping):
            return {key: self._redact_item(key, item) for key, item in value.items()}
        if isinstance(value, list):
            return [self.redact_data(item) for item in value]
        if isinstance(value, tuple):
            return tuple(self.redact_data(item) for item in value)
        return value

    def _redact_item(self, key: object, item: Any) -> Any:
        # None and booleans say whether a credential is set, not what it is.
        if _holds_value(item) and isinstance(key, str) and self.is_sensitive_field(key):
            return REDACTED
        return self.redact_data(item)


def _holds_value(item: Any) -> bool:
    return item is not None and not isinstance(item, bool)


def _replace_extra(match: re.Match[str]) -> str:
    return keep_around(match, "secret")


def _unique(items: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))


_BUILT_INS = Redaction()


def configure_redaction(redaction: Redaction) -> Redaction:
    """Install ``redaction`` for the whole process and return the one it replaces.

    The built-ins stay on whatever is installed. The pytest plugin calls this once per
    session with the ini options; restore the returned value to undo it.
    """
    previous = active_redaction()
    install(redaction)
    return previous


def active_redaction() -> Redaction:
    """The Redaction installed by :func:`configure_redaction` (built-ins only by default)."""
    current = installed()
    return current if isinstance(current, Redaction) else _BUILT_INS


def is_sensitive_field(name: str, redaction: Redaction | None = None) -> bool:
    """Whether a data key names a secret (``api_key``, ``Authorization``, ...)."""
    return _is_sensitive_field(name, (redaction or active_redaction()).fields)


def redact_text(text: str, redaction: Redaction | None = None) -> str:
    """``text`` with every secret the active (or given) redaction knows replaced."""
    return (redaction or active_redaction()).redact_text(text)


def redact_data(value: Any, redaction: Redaction | None = None) -> Any:
    """A redacted deep copy of ``value``: see :meth:`Redaction.redact_data`."""
    return (redaction or active_redaction()).redact_data(value)


def redact_file_name(name: str, parameters: Mapping[str, int] | None = None) -> str:
    """``name`` (a test's name, made a snapshot or cassette file name) with its secrets
    redacted, by the active redaction's rules.

    A redacted name gains ``-param`` and the test's parameter indices (pytest's
    ``item.callspec.indices``): two tests whose ids differ only in a secret would otherwise
    share one file, each overwriting the other's. Without ``parameters`` such a name is
    refused (InvalidInputError), as no file name could tell them apart.
    """
    redacted = redact_text(name)
    if redacted == name:
        return name
    if not parameters:
        raise InvalidInputError(
            f"hookproof: the test name {redacted!r} holds a secret, and its file name (a "
            "snapshot or cassette) would show it in the repository. Give the test an id "
            "without it: pytest.param(value, id='...') or parametrize(..., ids=[...])."
        )
    return f"{redacted}-param{'-'.join(str(index) for index in parameters.values())}"

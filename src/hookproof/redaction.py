"""Secrets never written: redaction of API keys, tokens and credentials in text and data.

Everything hookproof writes or shows (snapshot files, reprs, gate reports, cassettes) passes
through :func:`redact_text` or :func:`redact_data` first. Two mechanisms work together:

* **fields**: in data, the value under a sensitive key (``api_key``, ``Authorization``,
  ``cookie``, ``password``, ``...``) is replaced whole, whatever it looks like. Keys compare
  case-insensitively with ``-`` and ``_`` ignored, so ``api_key``, ``API-Key`` and ``apiKey``
  are one field; ``openai_api_key`` is caught as a field ending in ``api_key``.
* **patterns**: in any text, the major providers' key formats, bearer tokens, JWTs,
  ``Authorization: ...`` / ``api-key: ...`` / cookie headers, passwords in URLs and private
  key blocks are replaced by ``[REDACTED]``.

The replacement is always the constant ``[REDACTED]``: no hash or prefix of the secret, so
a snapshot stays byte-identical when a key is rotated. The built-in fields and patterns are
always on; :class:`Redaction` adds more, either passed explicitly or installed for the
process with :func:`configure_redaction` (the pytest plugin does so from the ini options
``hookproof_redact_fields`` and ``hookproof_redact_patterns``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from hookproof.errors import InvalidInputError

__all__ = [
    "REDACTED",
    "Redaction",
    "active_redaction",
    "configure_redaction",
    "is_sensitive_field",
    "redact_data",
    "redact_text",
]

REDACTED = "[REDACTED]"

# Field names, compared after _field_key(): lower case, "-" and "_" removed.
_EXACT_FIELDS = frozenset(
    {
        "token",
        "authorization",
        "proxyauthorization",
        "cookie",
        "setcookie",
        "passwd",
        "credentials",
        "subscriptionkey",
        "ocpapimsubscriptionkey",
    }
)
# A field whose name ends in one of these is sensitive too: openai_api_key, x-api-key,
# aws_secret_access_key, ...; "token" alone is not a suffix, or eos_token would be a secret.
_FIELD_SUFFIXES = (
    "apikey",
    "secret",
    "password",
    "accesstoken",
    "authtoken",
    "apitoken",
    "refreshtoken",
    "sessiontoken",
    "idtoken",
    "bearertoken",
    "secretkey",
    "secretaccesskey",
    "privatekey",
)

_ALNUM = r"A-Za-z0-9"
_START = rf"(?<![{_ALNUM}_-])"  # a token starts here, not inside a longer word
# (name, regex). A group named "s" marks the secret: only it is replaced and the rest of the
# match (a header name, "Bearer ", a URL's scheme) is kept, so the text still reads.
_BUILTIN_PATTERNS: tuple[tuple[str, str], ...] = (
    (
        "private_key_block",
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----"
        r"(?P<s>[\s\S]+?)(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----|\Z)",
    ),
    ("jwt", rf"{_START}eyJ[{_ALNUM}_-]{{8,}}\.eyJ[{_ALNUM}_-]{{8,}}\.[{_ALNUM}_-]*"),
    # OpenAI (sk-, sk-proj-, sk-svcacct-, sk-admin-) and Anthropic (sk-ant-api03-): random
    # tails always hold a digit, which keeps words like "sk-learn-estimators" out.
    ("sk_key", rf"{_START}sk-(?=[{_ALNUM}_-]*[0-9])[{_ALNUM}_-]{{20,}}"),
    ("google_api_key", rf"{_START}AIza[{_ALNUM}_-]{{35}}"),
    (
        "aws_access_key_id",
        r"(?<![A-Z0-9])(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|AROA|ANPA|ANVA)[A-Z0-9]{16}"
        r"(?![A-Z0-9])",
    ),
    # An AWS secret access key: 40 characters of base64 with both cases and a digit, slash
    # or plus; hex digests (one case) and ordinary words (no digit) never qualify.
    (
        "aws_secret_access_key",
        r"(?<![A-Za-z0-9/+=_-])(?=[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=_-]))"
        r"(?=[A-Za-z0-9/+]*[a-z])(?=[A-Za-z0-9/+]*[A-Z])(?=[A-Za-z0-9/+]*[0-9/+])"
        r"[A-Za-z0-9/+]{40}",
    ),
    ("github_token", rf"{_START}(?:gh[pousr]_[{_ALNUM}]{{30,}}|github_pat_[{_ALNUM}_]{{22,}})"),
    ("slack_token", rf"{_START}(?:xox[abposer]|xapp)-[{_ALNUM}-]{{10,}}"),
    ("stripe_key", rf"{_START}(?:sk|rk)_(?:live|test)_[{_ALNUM}]{{10,}}"),
    ("hugging_face_token", rf"{_START}hf_[{_ALNUM}]{{30,}}"),
    ("groq_key", rf"{_START}gsk_[{_ALNUM}]{{20,}}"),
    # Cookies hold "; "-separated pairs: the whole rest of the header is the secret.
    (
        "cookie_header",
        r"(?i)(?<![A-Za-z0-9_-])(?:set-)?cookie[\"']?\s*[:=]\s*[\"']?(?P<s>[^\r\n\"'\\]+)",
    ),
    # "api-key: ...", "Authorization: Bearer ...", OPENAI_API_KEY=..., "password": "...".
    # The value must look like a secret (8+ characters, not all lower-case letters), so
    # "your password: must be long" stays prose.
    (
        "credential_assignment",
        r"(?i)(?<![A-Za-z0-9_-])(?:[A-Za-z0-9]+[_-])*"
        r"(?:api[_-]?key|api[_-]?token|access[_-]?token|auth[_-]?token|refresh[_-]?token"
        r"|session[_-]?token|client[_-]?secret|secret(?:[_-]?access)?[_-]?key"
        r"|private[_-]?key|password|passwd|authorization|subscription[_-]?key)"
        r"[\"']?\s*[:=]\s*[\"']?(?:(?:bearer|basic|token|digest)\s+)?"
        r"(?!-----)(?P<s>(?-i:(?=[^\s\"'`,;{}\[\]<>\\]*[^a-z\s\"'`,;{}\[\]<>\\]))"
        r"[^\s\"'`,;{}\[\]<>\\]{8,})",
    ),
    # "Bearer <token>": a token holds a digit or punctuation, "bearer bonds" does not.
    (
        "bearer_token",
        r"(?<![A-Za-z0-9])[Bb]earer\s+(?P<s>(?=[A-Za-z0-9._~+/-]*[0-9._~+/-])"
        r"[A-Za-z0-9._~+/-]{8,}=*)",
    ),
    ("url_credentials", r"(?i)\b[a-z][a-z0-9+.-]*://(?P<s>[^\s/@:]+:[^\s/@]+)@"),
)


def _combine(patterns: Iterable[tuple[str, str]]) -> re.Pattern[str]:
    """One alternation, so the built-ins cost a single pass over the text."""
    alternatives = []
    for index, (_, pattern) in enumerate(patterns):
        body = pattern.replace("(?P<s>", f"(?P<s{index}>")
        alternatives.append(f"(?P<p{index}>{_scope_flags(body)})")
    return re.compile("|".join(alternatives))


def _scope_flags(pattern: str) -> str:
    """Turn a leading global (?i) into a scoped group: globals are not allowed mid-pattern."""
    if pattern.startswith("(?i)"):
        return f"(?i:{pattern[4:]})"
    return pattern


_BUILTIN = _combine(_BUILTIN_PATTERNS)


def _replace_builtin(match: re.Match[str]) -> str:
    index = match.lastgroup
    assert index is not None and index.startswith("p")
    return _keep_around(match, f"s{index[1:]}")


def _keep_around(match: re.Match[str], group: str) -> str:
    """Replace the secret group if the pattern has one and it matched, else the whole match."""
    if group not in match.re.groupindex or match.group(group) is None:
        return REDACTED
    whole_start = match.start()
    text = match.group(0)
    start, end = match.start(group) - whole_start, match.end(group) - whole_start
    return f"{text[:start]}{REDACTED}{text[end:]}"


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


def _field_key(name: str) -> str:
    return name.lower().replace("-", "").replace("_", "")


@dataclass(frozen=True, slots=True)
class Redaction:
    """Extra field names and regular expressions to redact, on top of the built-ins.

    ``fields`` are data keys whose values are replaced whole (compared like the built-ins:
    case-insensitive, ``-`` and ``_`` ignored). ``patterns`` are regular expressions searched
    in every text; a match is replaced whole, or only its group named ``secret`` when the
    pattern has one (``r"session=(?P<secret>\\w+)"`` keeps ``session=``).
    """

    fields: tuple[str, ...] = ()
    patterns: tuple[str, ...] = ()

    def __post_init__(self) -> None:
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
        key = _field_key(name)
        return _is_builtin_field(key) or key in {_field_key(field) for field in self.fields}

    def redact_text(self, text: str) -> str:
        redacted = _BUILTIN.sub(_replace_builtin, text)
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
    return _keep_around(match, "secret")


@lru_cache(maxsize=512)
def _is_builtin_field(key: str) -> bool:
    return key in _EXACT_FIELDS or key.endswith(_FIELD_SUFFIXES)


def _unique(items: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))


_active = Redaction()


def configure_redaction(redaction: Redaction) -> Redaction:
    """Install ``redaction`` for the whole process and return the one it replaces.

    The built-ins stay on whatever is installed. The pytest plugin calls this once per
    session with the ini options; restore the returned value to undo it.
    """
    global _active
    previous, _active = _active, redaction
    return previous


def active_redaction() -> Redaction:
    """The Redaction installed by :func:`configure_redaction` (built-ins only by default)."""
    return _active


def is_sensitive_field(name: str, redaction: Redaction | None = None) -> bool:
    """Whether a data key names a secret (``api_key``, ``Authorization``, ...)."""
    return (redaction or _active).is_sensitive_field(name)


def redact_text(text: str, redaction: Redaction | None = None) -> str:
    """``text`` with every secret the active (or given) redaction knows replaced."""
    return (redaction or _active).redact_text(text)


def redact_data(value: Any, redaction: Redaction | None = None) -> Any:
    """A redacted deep copy of ``value``: see :meth:`Redaction.redact_data`."""
    return (redaction or _active).redact_data(value)

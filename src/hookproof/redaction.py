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
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, TypeVar

from hookproof.errors import InvalidInputError

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
# aws_secret_access_key, authorization_token, service_account_key, ...
_FIELD_SUFFIXES = (
    "apikey",
    "secret",
    "password",
    "token",
    "secretkey",
    "secretaccesskey",
    "privatekey",
    "accountkey",
    "signingkey",
    "encryptionkey",
)
# Names ending in "token" that are no credential: a model's or tokenizer's control tokens
# and pagination cursors, compared whole (so bot_token or github_token stays a secret).
_ORDINARY_TOKEN_FIELDS = frozenset(
    word + "token"
    for word in (
        "eos",
        "bos",
        "pad",
        "unk",
        "sep",
        "cls",
        "mask",
        "stop",
        "start",
        "end",
        "decoderstart",
        "forcedbos",
        "forcedeos",
        "page",
        "nextpage",
        "continuation",
    )
)

_WORD = "A-Za-z0-9_-"
_AWS_ID_PREFIX = "(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|AROA|ANPA|ANVA)"
_AWS_ID = re.compile(_AWS_ID_PREFIX)


def _not_after(characters: str, prefix: str = "") -> str:
    """A boundary: ``prefix`` (which must have a fixed width) ends here and is not preceded
    by one of ``characters``, unless by an escaped line break or tab, as in a repr or JSON
    (``'...\\napi-key: ...'``)."""
    return f"(?:(?<![{characters}]{prefix})|(?<=\\\\[nrt]{prefix}))"


def _token(prefix: str, tail: str) -> str:
    """``prefix`` then ``tail``, not inside a longer word. The literal prefix comes first
    and the boundary is checked behind it, so the regex engine can skip to each prefix
    instead of trying every position."""
    return f"{prefix}{_not_after(_WORD, prefix)}{tail}"


# A gate says, from a few substring searches in the text and its lower-case copy, whether
# a slow pattern can match at all; patterns starting with a literal need none.
Gate = Callable[[str, str], bool]


@dataclass(frozen=True, slots=True)
class _Rule:
    """A built-in pattern, with its gate if it is slow to search.

    A group named ``s`` marks the secret: only it is replaced, and the rest of the match (a
    header name, ``Bearer``, a URL's scheme) is kept so the text still reads. ``replace``
    may keep a match that turns out not to be a secret."""

    name: str
    pattern: re.Pattern[str]
    gate: Gate | None = None
    replace: Callable[[re.Match[str]], str] | None = None


def _rule(name: str, pattern: str, gate: Gate | None = None) -> _Rule:
    return _Rule(name, re.compile(pattern), gate)


def _names_aws(text: str, lowered: str) -> bool:
    """AWS prints a secret key beside its key id, under a name with "secret" or "AWS"."""
    return "secret" in lowered or "aws" in lowered or _AWS_ID.search(text) is not None


_CREDENTIAL_NAMES = (
    r"api[_-]?key|api[_-]?token|access[_-]?token|auth[_-]?token|refresh[_-]?token"
    r"|session[_-]?token|client[_-]?secret|secret(?:[_-]?access)?[_-]?key"
    r"|private[_-]?key|password|passwd|authorization|subscription[_-]?key"
)
# The last word of each two-part name in _CREDENTIAL_NAMES, and the words before it.
_CREDENTIAL_HEADS = {
    "key": ("api", "secret", "access", "private", "subscription"),
    "token": ("api", "access", "auth", "refresh", "session"),
    "secret": ("client",),
}


def _names_credential(text: str, lowered: str) -> bool:
    """Whether a name of _CREDENTIAL_NAMES occurs: "token" alone would send every
    "max_tokens" through the slow case-insensitive pattern."""
    if "passw" in lowered or "authorization" in lowered:
        return True
    return any(_preceded(lowered, word, heads) for word, heads in _CREDENTIAL_HEADS.items())


def _preceded(lowered: str, word: str, heads: tuple[str, ...]) -> bool:
    """Whether ``word`` occurs right after one of ``heads`` (joined by "", "_" or "-")."""
    index = lowered.find(word)
    while index != -1:
        if lowered[max(0, index - 14) : index].rstrip("_-").endswith(heads):
            return True
        index = lowered.find(word, index + 1)
    return False


def _names_quoted_credential(text: str, lowered: str) -> bool:
    """A credential name, or "token" / "secret" / "credentials" right before a quote or "="
    (a key in a dict's repr, JSON or keyword arguments)."""
    return _names_credential(text, lowered) or any(_followed(lowered, word) for word in _BARE_NAMES)


def _followed(lowered: str, word: str) -> bool:
    index = lowered.find(word)
    while index != -1:
        if lowered[index + len(word) : index + len(word) + 1] in _QUOTES_OR_EQUALS:
            return True
        index = lowered.find(word, index + 1)
    return False


_AUTHORITY = r"(?://|\\{1,2}/\\{1,2}/)"  # "\/" in JSON, "\\/" in its repr
_URL_USER = r"[^\s/?#@:\[\]\"'<>\\]*"
_URL_PASSWORD = r"[^\s/?#\"'<>]+"
_URL_HOST = r"(?=\[|[A-Za-z0-9][A-Za-z0-9.-]*(?::[0-9]+)?(?:[/?#\s\"'\\,;)]|$))"
# Only names holding a word of a credential name are looked at: "?page=2" never calls back.
# A value ends at "?" too: a URL in a value ("?auth_redirect=https://a/cb?token=x") has
# its own query, and each of its parameters is judged by its own name.
_QUERY_PARAMETER = re.compile(
    r"[?&#](?P<n>[A-Za-z0-9_.\[\]-]{0,40}?"
    r"(?i:key|token|secret|pass|pw|auth|sig|session|credential|cookie)[A-Za-z0-9_.\[\]-]{0,40})"
    r"=(?P<s>[^?&#\s\"'<>\\]+)"
)
_ANY_QUERY_PARAMETER = re.compile(r"[?&#](?P<n>[A-Za-z0-9_.\[\]-]{1,60})=(?P<s>[^?&#\s\"'<>\\]+)")
# Names that are secrets in a URL's query though not as a data key ("key" is a map's key).
_QUERY_EXACT = frozenset({"key", "sig", "pwd", "pass", "pw", "auth", "sessionid", "accesskey"})
_QUERY_SUFFIXES = ("signature", "securitytoken", "credential")
_BARE_NAMES = ("token", "secret", "credentials")
_QUOTES_OR_EQUALS = frozenset({'"', "'", "\\", "=", ":"})
_QUOTED_VALUE = (
    r"\\?(?P<q>[\"'])(?:(?:bearer|basic|token|digest)\s+)?"
    r"(?P<s>(?:(?!\\?(?P=q))[^\r\n])+)\\?(?P=q)"
)
_VALUE_CHAR = r"[^\s\"'`,;{}\[\]<>()\\]"
_BUILTIN_RULES: tuple[_Rule, ...] = (
    _rule(
        "private_key_block",
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----"
        r"(?P<s>[\s\S]+?)(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----|\Z)",
    ),
    _rule("jwt", _token("eyJ", rf"[{_WORD}]{{8,}}\.eyJ[{_WORD}]{{8,}}\.[{_WORD}]*")),
    # OpenAI (sk-, sk-proj-, sk-svcacct-, sk-admin-) and Anthropic (sk-ant-api03-): random
    # tails always hold a digit, which keeps words like "sk-learn-estimators" out.
    _rule("sk_key", _token("sk-", rf"(?=[{_WORD}]*[0-9])[{_WORD}]{{20,}}")),
    _rule("google_api_key", _token("AIza", rf"[{_WORD}]{{35}}")),
    _rule(
        "aws_access_key_id",
        rf"{_AWS_ID_PREFIX}(?<![A-Z0-9]{_AWS_ID_PREFIX})[A-Z0-9]{{16}}(?![A-Z0-9])",
    ),
    _rule("github_token", _token("gh[pousr]_", r"[A-Za-z0-9]{30,}")),
    _rule("github_fine_grained_token", _token("github_pat_", r"[A-Za-z0-9_]{22,}")),
    _rule("slack_token", _token("(?:xox[abposer]|xapp)-", r"[A-Za-z0-9-]{10,}")),
    _rule(
        "stripe_key",
        _token("[sr]k_(?:live|test)_", r"[A-Za-z0-9]{10,}"),
        lambda text, _: "k_live_" in text or "k_test_" in text,
    ),
    _rule("hugging_face_token", _token("hf_", r"[A-Za-z0-9]{30,}")),
    _rule("groq_key", _token("gsk_", r"[A-Za-z0-9]{20,}")),
    # An AWS secret access key has no prefix: 40 characters of base64 with both cases and a
    # digit, slash or plus, looked for only where AWS, a secret or a key id is named. Hex
    # digests (one case) and ordinary words (no digit) never qualify.
    _rule(
        "aws_secret_access_key",
        rf"{_not_after('A-Za-z0-9/+=_-')}(?=[A-Za-z0-9/+]{{40}}(?![A-Za-z0-9/+=_-]))"
        r"(?=[A-Za-z0-9/+]*[a-z])(?=[A-Za-z0-9/+]*[A-Z])(?=[A-Za-z0-9/+]*[0-9/+])"
        r"[A-Za-z0-9/+]{40}",
        _names_aws,
    ),
    # A query or fragment parameter named like a credential (?api_key=, &token=, ?key=,
    # &sig=, #access_token=): its value, whatever it looks like. Before the assignments
    # below, which would take the rest of the query as the value.
    _Rule(
        "query_credential",
        _QUERY_PARAMETER,
        lambda text, _: "=" in text,
        lambda match: _replace_query(match, ()),
    ),
    # Cookies hold "; "-separated name=value pairs: the whole rest of the header is the
    # secret. Without a "=" it is prose ("the `Cookie:` header").
    _rule(
        "cookie_header",
        rf"(?i){_not_after(_WORD)}(?:set-)?cookie[\"']?\s*[:=]\s*[\"']?"
        r"(?P<s>[^\r\n\"'\\=`]+=[^\r\n\"'\\]*)",
        lambda _, lowered: "cookie" in lowered,
    ),
    # A quoted value under a credential name is a secret whatever it looks like: the quotes
    # say it is data ("api_key": "...", api_key='...', {'token': '...'}), not prose.
    _rule(
        "quoted_credential",
        rf"(?i)(?:{_not_after('A-Za-z0-9')}(?:{_CREDENTIAL_NAMES})"
        rf"|{_not_after(_WORD)}(?:{'|'.join(_BARE_NAMES)}))"
        rf"(?:\\?[\"'])?\s*[:=]\s*{_QUOTED_VALUE}",
        _names_quoted_credential,
    ),
    # "api-key: ...", "Authorization: Bearer ...", OPENAI_API_KEY=..., password: ... unquoted.
    # The value must look like a secret (8+ characters, not all lower-case letters), so
    # "your password: must be long" stays prose.
    _rule(
        "credential_assignment",
        rf"(?i){_not_after('A-Za-z0-9')}(?:{_CREDENTIAL_NAMES})[\"']?\s*[:=]\s*[\"']?"
        r"(?:(?:bearer|basic|token|digest)\s+)?(?!-----)"
        rf"(?P<s>(?-i:(?={_VALUE_CHAR}*[^a-z\s\"'`,;{{}}\[\]<>\\])){_VALUE_CHAR}{{8,}})",
        _names_credential,
    ),
    # "Bearer <token>": a token holds a digit or punctuation, "bearer bonds" does not.
    _rule(
        "bearer_token",
        rf"[Bb]earer{_not_after('A-Za-z0-9', '[Bb]earer')}\s+"
        r"(?P<s>(?=[A-Za-z0-9._~+/-]*[0-9._~+/-])"
        r"[A-Za-z0-9._~+/-]{8,}=*)",
        lambda text, _: "earer" in text,
    ),
    # A URL's user:password, in every spelling: any scheme or none ("//:pw@host"), slashes
    # escaped as in some JSON ("\/\/"), an empty user, "@", ":" or "/" in the password, as
    # SQLAlchemy accepts: the userinfo ends at the last "@" a host follows, else at the first
    # "@". "user:@host" holds no password and stays.
    _rule(
        "url_credentials",
        rf"{_AUTHORITY}(?P<s>{_URL_USER}:(?:[^\s?#\"'<>]+(?=@{_URL_HOST})|{_URL_PASSWORD}(?=@)))@",
        lambda text, _: "@" in text,
    ),
    # A bare user that looks like a token ("https://<token>@git.example/repo"): 20+
    # characters with a digit. User names such as "git" or "postgres" stay.
    _rule(
        "url_token_user",
        rf"{_AUTHORITY}(?P<s>(?=[^\s/?#@:]*[0-9])[A-Za-z0-9._~%+=-]{{20,}})@",
        lambda text, _: "@" in text,
    ),
    # The same inside a percent-encoded URL (a redirect target in a query string).
    _rule(
        "encoded_url_credentials",
        r"(?i)%2F%2F(?P<s>(?:(?!%3A|%40|%2F)[^\s/?#&\"'<>])*%3A"
        r"(?:(?!%2F)[^\s/?#&\"'<>])+)%40",
        lambda _, lowered: "%2f%2f" in lowered,
    ),
)
# No built-in rule matches text shorter than this ("?key=a" is the shortest match).
_SHORTEST_MATCH = 6
# Short texts (most of a request: names, descriptions, schema values) are first searched
# once, in lower case, for anything a rule needs (every literal of every rule and gate must
# be here); ten separate searches cost more there. On
# long texts the rules' own literal prefixes are faster than this alternation. Its
# alternatives are grouped by first letter, which halves the cost of the search.
_SHORT_TEXT = 512
_ANY_TRIGGER = re.compile(
    "|".join(
        (
            "-----begin",
            "eyj",
            "sk-",
            "a(?:iza|kia|sia|bia|cca|gpa|ida|ipa|roa|npa|nva|ws|uth)",
            "g(?:h[pousr]_|ithub_pat_|sk_)",
            "x(?:ox|app-)",
            "k(?:_live_|_test_|ey)",
            "hf_",
            "s(?:ecret|ig|ession)",
            "cookie",
            "credential",
            "p(?:ass|w)",
            "token",
            "earer",
            "//",
            r"\\/\\/",
            "%2f%2f",
        )
    )
)


def _redact_builtin(text: str) -> str:
    if len(text) < _SHORTEST_MATCH:
        return text
    if len(text) <= _SHORT_TEXT:
        return _redact_short(text)
    return _apply_rules(text)


# The same prompts, tool descriptions and schema values are rendered by test after test.
@lru_cache(maxsize=4096)
def _redact_short(text: str) -> str:
    if _ANY_TRIGGER.search(text.lower()) is None:
        return text
    return _apply_rules(text)


def _apply_rules(text: str) -> str:
    lowered = text.lower()
    for rule in _BUILTIN_RULES:
        if rule.gate is None or rule.gate(text, lowered):
            redacted = rule.pattern.sub(rule.replace or _replace_builtin, text)
            if redacted != text:
                text, lowered = redacted, redacted.lower()
    return text


def _replace_builtin(match: re.Match[str]) -> str:
    return _keep_around(match, "s")


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
        return _is_sensitive_field(name, self.fields)

    def redact_text(self, text: str) -> str:
        redacted = _redact_builtin(text)
        if self.fields and "=" in redacted:  # ?tenant_key=... when tenant_key is a field
            redacted = _ANY_QUERY_PARAMETER.sub(lambda m: _replace_query(m, self.fields), redacted)
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


def _replace_query(match: re.Match[str], extra_fields: tuple[str, ...]) -> str:
    """The parameter's value redacted when its name names a credential, else the match."""
    key = _field_key(match.group("n").replace("[]", ""))
    if key in _QUERY_EXACT or key.endswith(_QUERY_SUFFIXES):
        return _keep_around(match, "s")
    if _is_sensitive_field(match.group("n"), extra_fields):
        return _keep_around(match, "s")
    return match.group(0)


def _replace_extra(match: re.Match[str]) -> str:
    return _keep_around(match, "secret")


@lru_cache(maxsize=1024)
def _is_sensitive_field(name: str, extra_fields: tuple[str, ...]) -> bool:
    key = _field_key(name)
    if key in _EXACT_FIELDS or (
        key.endswith(_FIELD_SUFFIXES) and key not in _ORDINARY_TOKEN_FIELDS
    ):
        return True
    return key in {_field_key(field) for field in extra_fields}


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
    return _is_sensitive_field(name, (redaction or _active).fields)


def redact_text(text: str, redaction: Redaction | None = None) -> str:
    """``text`` with every secret the active (or given) redaction knows replaced."""
    return (redaction or _active).redact_text(text)


def redact_data(value: Any, redaction: Redaction | None = None) -> Any:
    """A redacted deep copy of ``value``: see :meth:`Redaction.redact_data`."""
    return (redaction or _active).redact_data(value)


_Class = TypeVar("_Class", bound=type)


def redacted_repr(cls: _Class) -> _Class:
    """Class decorator: ``repr()`` and ``str()`` of ``cls`` are redacted. For values that
    can hold request content (messages, requests, traces): their reprs reach pytest's
    failure output, ``--showlocals`` and logs."""
    target: Any = cls  # mypy types __repr__ as a bound method: this replaces the function
    plain_repr, plain_str = target.__repr__, target.__str__

    def __repr__(self: object) -> str:
        return redact_text(plain_repr(self))

    def __str__(self: object) -> str:
        return redact_text(plain_str(self))

    target.__repr__ = __repr__
    if plain_str is not object.__str__:
        target.__str__ = __str__
    return cls


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

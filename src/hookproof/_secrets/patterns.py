"""The built-in secret patterns: provider key formats, bearer tokens, JWTs, credential
headers and assignments, credentials in URLs, private key blocks. hookproof.redaction
documents the rules; this module applies them to text."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache, lru_cache

from hookproof._secrets.fields import field_key, is_sensitive_field

__all__ = [
    "REDACTED",
    "any_query_parameter",
    "keep_around",
    "redact_builtin",
    "redact_field_assignments",
    "replace_query",
]

REDACTED = "[REDACTED]"

_WORD = "A-Za-z0-9_-"
_AWS_ID_PREFIX = "(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|AROA|ANPA|ANVA)"


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


class _Rule:
    """A built-in pattern, with its gate if it is slow to search.

    A group named ``s`` marks the secret: only it is replaced, and the rest of the match (a
    header name, ``Bearer``, a URL's scheme) is kept so the text still reads. ``replace``
    may keep a match that turns out not to be a secret. A plain class: rules are never
    compared or printed, and every hookproof import loads this module, so it does not pay
    for a dataclass's generated methods."""

    __slots__ = ("gate", "name", "pattern", "replace")

    def __init__(
        self,
        name: str,
        pattern: re.Pattern[str],
        gate: Gate | None = None,
        replace: Callable[[re.Match[str]], str] | None = None,
    ) -> None:
        self.name, self.pattern, self.gate, self.replace = name, pattern, gate, replace


def _rule(name: str, pattern: str, gate: Gate | None = None) -> _Rule:
    return _Rule(name, re.compile(pattern), gate)


@cache
def _aws_id() -> re.Pattern[str]:
    return re.compile(_AWS_ID_PREFIX)


def _names_aws(text: str, lowered: str) -> bool:
    """AWS prints a secret key beside its key id, under a name with "secret" or "AWS"."""
    return "secret" in lowered or "aws" in lowered or _aws_id().search(text) is not None


# Keys and tokens that start with a fixed prefix: name -> (prefix, what follows it).
_PREFIXED_TOKENS = {
    "jwt": ("eyJ", rf"[{_WORD}]{{8,}}\.eyJ[{_WORD}]{{8,}}\.[{_WORD}]*"),
    # OpenAI (sk-, sk-proj-, sk-svcacct-, sk-admin-) and Anthropic (sk-ant-api03-): random
    # tails always hold a digit, which keeps words like "sk-learn-estimators" out.
    "sk_key": ("sk-", rf"(?=[{_WORD}]*[0-9])[{_WORD}]{{20,}}"),
    "google_api_key": ("AIza", rf"[{_WORD}]{{35}}"),
    "github_token": ("gh[pousr]_", r"[A-Za-z0-9]{30,}"),
    "github_fine_grained_token": ("github_pat_", r"[A-Za-z0-9_]{22,}"),
    "slack_token": ("(?:xox[abposer]|xapp)-", r"[A-Za-z0-9-]{10,}"),
    "hugging_face_token": ("hf_", r"[A-Za-z0-9]{30,}"),
    "groq_key": ("gsk_", r"[A-Za-z0-9]{20,}"),
}


def _prefixed(*names: str) -> tuple[_Rule, ...]:
    return tuple(_rule(name, _token(*_PREFIXED_TOKENS[name])) for name in names)


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
_QUERY_PARAMETER = (
    r"[?&#](?P<n>[A-Za-z0-9_.\[\]-]{0,40}?"
    r"(?i:key|token|secret|pass|pw|auth|sig|session|credential|cookie)[A-Za-z0-9_.\[\]-]{0,40})"
    r"=(?P<s>[^?&#\s\"'<>\\]+)"
)


@cache
def any_query_parameter() -> re.Pattern[str]:
    """Any query or fragment parameter, its name in group ``n`` and its value in ``s``."""
    return re.compile(r"[?&#](?P<n>[A-Za-z0-9_.\[\]-]{1,60})=(?P<s>[^?&#\s\"'<>\\]+)")


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


# Compiled on first use, not at import: every hookproof module imports this one (through
# hookproof.errors), while only text that is shown or written is ever redacted.
@cache
def _builtin_rules() -> tuple[_Rule, ...]:
    return (
        _rule(
            "private_key_block",
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----"
            r"(?P<s>[\s\S]+?)(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----|\Z)",
        ),
        *_prefixed("jwt", "sk_key", "google_api_key"),
        _rule(
            "aws_access_key_id",
            rf"{_AWS_ID_PREFIX}(?<![A-Z0-9]{_AWS_ID_PREFIX})[A-Z0-9]{{16}}(?![A-Z0-9])",
        ),
        *_prefixed("github_token", "github_fine_grained_token", "slack_token"),
        _rule(
            "stripe_key",
            _token("[sr]k_(?:live|test)_", r"[A-Za-z0-9]{10,}"),
            lambda text, _: "k_live_" in text or "k_test_" in text,
        ),
        *_prefixed("hugging_face_token", "groq_key"),
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
            re.compile(_QUERY_PARAMETER),
            lambda text, _: "=" in text,
            lambda match: replace_query(match, ()),
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


@cache
def _any_trigger() -> re.Pattern[str]:
    return re.compile(
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


def redact_builtin(text: str) -> str:
    if len(text) < _SHORTEST_MATCH:
        return text
    if len(text) <= _SHORT_TEXT:
        return _redact_short(text)
    return _apply_rules(text)


# The same prompts, tool descriptions and schema values are rendered by test after test.
@lru_cache(maxsize=4096)
def _redact_short(text: str) -> str:
    if _any_trigger().search(text.lower()) is None:
        return text
    return _apply_rules(text)


def _apply_rules(text: str) -> str:
    lowered = text.lower()
    for rule in _builtin_rules():
        if rule.gate is None or rule.gate(text, lowered):
            redacted = rule.pattern.sub(rule.replace or _replace_builtin, text)
            if redacted != text:
                text, lowered = redacted, redacted.lower()
    return text


def _replace_builtin(match: re.Match[str]) -> str:
    return keep_around(match, "s")


def keep_around(match: re.Match[str], group: str) -> str:
    """Replace the secret group if the pattern has one and it matched, else the whole match."""
    if group not in match.re.groupindex or match.group(group) is None:
        return REDACTED
    whole_start = match.start()
    text = match.group(0)
    start, end = match.start(group) - whole_start, match.end(group) - whole_start
    return f"{text[:start]}{REDACTED}{text[end:]}"


def replace_query(match: re.Match[str], extra_fields: tuple[str, ...]) -> str:
    """The parameter's value redacted when its name names a credential, else the match."""
    key = field_key(match.group("n").replace("[]", ""))
    if key in _QUERY_EXACT or key.endswith(_QUERY_SUFFIXES):
        return keep_around(match, "s")
    if is_sensitive_field(match.group("n"), extra_fields):
        return keep_around(match, "s")
    return match.group(0)


def _spelled_any_way(field: str) -> str:
    """A regex for ``field``'s name as data keys compare it: any case, with or without "-"
    and "_" between its letters (tenant_key, TENANT-KEY, tenantKey)."""
    letters = [re.escape(letter) for letter in field_key(field)]
    return "[-_]?".join(letters)


@lru_cache(maxsize=64)
def _field_assignments(fields: tuple[str, ...]) -> tuple[re.Pattern[str], ...]:
    names = "|".join(sorted({_spelled_any_way(field) for field in fields if field_key(field)}))
    if not names:
        return ()
    # The name stands whole (not the end of a longer name), then ":" or "=", as in JSON, a
    # repr, a header or an env line. A quoted value is taken to its closing quote, spaces and
    # all; an unquoted one to the next space or delimiter. The user named the field, so any
    # value is a secret (no "looks like a key" test as for the built-in names).
    head = rf"(?i){_not_after(_WORD)}(?:{names})(?![A-Za-z0-9])[\"']?\s*[:=]\s*"
    quoted = re.compile(head + r"(?P<q>[\"'])(?P<s>(?:\\.|(?!(?P=q))[^\\\n])+)(?P=q)")
    bare = re.compile(head + r"(?P<s>[^\s\"'`,;{}\[\]<>\\]+)")
    return quoted, bare


def redact_field_assignments(text: str, fields: tuple[str, ...]) -> str:
    """Values given to one of the user's extra ``fields`` in text (``tenant_key: abc``,
    ``"tenant_key": "abc"``, ``TENANT_KEY=abc``) replaced, as in data."""
    for pattern in _field_assignments(fields):
        text = pattern.sub(_replace_builtin, text)
    return text

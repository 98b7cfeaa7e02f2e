"""Which data keys name a secret: the built-in field names, and how keys compare (lower
case, ``-`` and ``_`` ignored). hookproof.redaction documents the rules."""

from __future__ import annotations

from functools import lru_cache

__all__ = ["field_key", "is_sensitive_field"]

# Field names, compared after field_key(): lower case, "-" and "_" removed.
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


def field_key(name: str) -> str:
    return name.lower().replace("-", "").replace("_", "")


@lru_cache(maxsize=1024)
def is_sensitive_field(name: str, extra_fields: tuple[str, ...]) -> bool:
    key = field_key(name)
    if key in _EXACT_FIELDS or (
        key.endswith(_FIELD_SUFFIXES) and key not in _ORDINARY_TOKEN_FIELDS
    ):
        return True
    return key in {field_key(field) for field in extra_fields}

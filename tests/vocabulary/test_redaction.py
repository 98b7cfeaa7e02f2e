"""Redaction: every corpus secret is replaced, prose and hookproof's ids are left alone."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from hookproof.errors import InvalidInputError
from hookproof.redaction import (
    REDACTED,
    Redaction,
    active_redaction,
    configure_redaction,
    is_sensitive_field,
    redact_data,
    redact_text,
)
from tests.secret_corpus import IN_TEXT, PROSE, SECRETS


@pytest.mark.parametrize("name", sorted(IN_TEXT))
def test_each_corpus_secret_is_redacted_in_text(name: str) -> None:
    redacted = redact_text(IN_TEXT[name])
    assert SECRETS[name] not in redacted
    assert REDACTED in redacted


# These have no format of their own: they are recognised by the header, field or words
# around them (an AWS secret key next to "aws", "secret" or an access key id).
ONLY_IN_CONTEXT = {
    "aws_secret_access_key",
    "azure_openai",
    "bearer",
    "cookie",
    "password",
    "private_key",
    "url_password",
} | {name for name in SECRETS if name.startswith(("url_", "query_", "fragment_"))}


@pytest.mark.parametrize("name", sorted(set(SECRETS) - ONLY_IN_CONTEXT))
def test_each_bare_secret_with_a_provider_format_is_redacted(name: str) -> None:
    assert redact_text(SECRETS[name]) == REDACTED


def test_the_whole_corpus_in_one_text_leaves_no_secret() -> None:
    redacted = redact_text("\n".join(IN_TEXT.values()))
    assert [name for name, secret in SECRETS.items() if secret in redacted] == []


@pytest.mark.parametrize("text", PROSE)
def test_prose_and_hookproof_ids_are_unchanged(text: str) -> None:
    assert redact_text(text) == text


# The name of what was redacted stays readable.
NAME_KEPT = [
    ("Authorization: Bearer abc.def123ghi", "Authorization: Bearer [REDACTED]"),
    ("https://bob:hunter22@example.com/x", "https://[REDACTED]@example.com/x"),
    ('"api_key": "abcdEFGH1234"', '"api_key": "[REDACTED]"'),
    ("Cookie: a=b; c=d\nnext line", "Cookie: [REDACTED]\nnext line"),
    (
        "-----BEGIN PRIVATE KEY-----\nMIIEabc\n-----END PRIVATE KEY-----",
        "-----BEGIN PRIVATE KEY-----[REDACTED]-----END PRIVATE KEY-----",
    ),
    # A quoted value under a credential name is data, whatever it looks like.
    (
        "{'api_key': 'short', 'eos_token': '</s>'}",
        "{'api_key': '[REDACTED]', 'eos_token': '</s>'}",
    ),
    ("Model(token='abc', max_tokens=5)", "Model(token='[REDACTED]', max_tokens=5)"),
    ("{'credentials': 'abc'}", "{'credentials': '[REDACTED]'}"),
    ('{\\"secret\\": \\"x y\\"}', '{\\"secret\\": \\"[REDACTED]\\"}'),
    # An escaped line break (a repr, JSON) is a boundary, as a real one is.
    (
        "'a\\napi-key: 0123abcd0123abcd\\nCookie: a=b'",
        "'a\\napi-key: [REDACTED]\\nCookie: [REDACTED]'",
    ),
]
# Credentials in every form of URL are redacted, and only they.
URL_CREDENTIALS = [
    ("redis://:hunter2pass@cache:6379/0", "redis://[REDACTED]@cache:6379/0"),
    ("postgres://:pw@db", "postgres://[REDACTED]@db"),
    ("postgres://u:p@ss@db/app?x=a@b", "postgres://[REDACTED]@db/app?x=a@b"),
    ("http://u:pw@[::1]:8080/", "http://[REDACTED]@[::1]:8080/"),
    ("//:pw@host/x", "//[REDACTED]@host/x"),
    ("redis:\\/\\/:pw@cache", "redis:\\/\\/[REDACTED]@cache"),
    ("x?to=https%3a%2f%2fu%3apw%40h%2Fp", "x?to=https%3a%2f%2f[REDACTED]%40h%2Fp"),
    (
        "https://h/p?key=a&sort=key&max_tokens=5",
        "https://h/p?key=[REDACTED]&sort=key&max_tokens=5",
    ),
    ("https://h/?api_key=a&alt=json", "https://h/?api_key=[REDACTED]&alt=json"),
    ("https://h/#access_token=a&state=b", "https://h/#access_token=[REDACTED]&state=b"),
    # Not secrets: no password, a plain user name, a parameter that names no credential.
    ("redis://user:@cache:6379", "redis://user:@cache:6379"),
    ("ssh://git@github.example/org/repo", "ssh://git@github.example/org/repo"),
    (
        "GET /search?q=tokens&page=2&next_page_token=3",
        "GET /search?q=tokens&page=2&next_page_token=3",
    ),
]


@pytest.mark.parametrize(("text", "expected"), [*NAME_KEPT, *URL_CREDENTIALS])
def test_only_the_secret_is_redacted_around_its_name_or_in_a_url(text: str, expected: str) -> None:
    assert redact_text(text) == expected


def test_a_query_parameter_named_by_an_extra_field_is_redacted() -> None:
    redaction = Redaction(fields=("tenant_key",))
    assert redact_text("https://h/?tenant_key=abc&x=1", redaction) == (
        "https://h/?tenant_key=[REDACTED]&x=1"
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("tenant_key: abc123", f"tenant_key: {REDACTED}"),
        ("TENANT-KEY=abc", f"TENANT-KEY={REDACTED}"),
        ("tenantKey = 'two words'", f"tenantKey = '{REDACTED}'"),
        ('{"tenant_key": "a b \\" c", "x": 1}', f'{{"tenant_key": "{REDACTED}", "x": 1}}'),
        ("{'tenant_key': 'k1', 'n': 2}", f"{{'tenant_key': '{REDACTED}', 'n': 2}}"),
        ("the tenant_keys: fine", "the tenant_keys: fine"),  # another name
        ("x_tenant_key=v", "x_tenant_key=v"),  # as in data: the name compares whole
    ],
)
def test_a_value_given_to_an_extra_field_in_text_is_redacted(text: str, expected: str) -> None:
    assert redact_text(text, Redaction(fields=("tenant_key",))) == expected


def test_the_replacement_does_not_depend_on_the_secret() -> None:
    first = redact_text(IN_TEXT["openai_legacy"])
    rotated = redact_text(
        IN_TEXT["openai_legacy"].replace(SECRETS["openai_legacy"], "sk-" + "9" * 48)
    )
    assert first == rotated == "export OPENAI_API_KEY=[REDACTED]"


@pytest.mark.parametrize(
    "key",
    [
        "api_key",
        "apikey",
        "API-Key",
        "apiKey",
        "authorization",
        "Proxy-Authorization",
        "cookie",
        "Set-Cookie",
        "x-api-key",
        "token",
        "access_token",
        "secret",
        "password",
        "client_secret",
        "openai_api_key",
        "aws_secret_access_key",
        "authorization_token",
        "github_token",
        "bot_token",
        "private_token",
        "id_token",
        "bearer_token",
        "client_token",
        "refresh_token",
        "slackBotToken",
        "service_account_key",
        "storage-account-key",
        "secret_key",
        "private_key",
        "signing_key",
    ],
)
def test_sensitive_keys_are_recognised(key: str) -> None:
    assert is_sensitive_field(key)


@pytest.mark.parametrize(
    "key",
    [
        "max_tokens",
        "max_completion_tokens",
        "eos_token",
        "bos_token",
        "pad_token",
        "unk_token",
        "mask_token",
        "stop_token",
        "decoder_start_token",
        "next_page_token",
        "input_tokens",
        "top_k",
        "temperature",
        "keys",
        "key",
        "author",
        "model",
        "tokenizer",
    ],
)
def test_ordinary_keys_are_not_sensitive(key: str) -> None:
    assert not is_sensitive_field(key)


def test_redact_data_replaces_values_under_sensitive_keys_whole() -> None:
    value = {
        "API-Key": "not-a-known-format",
        "headers": ({"Authorization": "Basic dXNlcjpwYXNz"}, {"X-Trace": "1"}),
        "token": 123456,
        "password": None,
        "secret": True,
        "eos_token": "</s>",
        "max_tokens": 5,
        "notes": [f"key {SECRETS['groq']}"],
    }
    assert redact_data(value) == {
        "API-Key": REDACTED,
        "headers": ({"Authorization": REDACTED}, {"X-Trace": "1"}),
        "token": REDACTED,
        "password": None,
        "secret": True,
        "eos_token": "</s>",
        "max_tokens": 5,
        "notes": [f"key {REDACTED}"],
    }


def test_redact_data_returns_a_copy_and_leaves_the_input_alone() -> None:
    value = {"api_key": "x", "nested": {"token": "y"}, "items": [1, 2]}
    copied = redact_data(value)
    assert value == {"api_key": "x", "nested": {"token": "y"}, "items": [1, 2]}
    assert copied["items"] is not value["items"]


def test_values_that_are_not_text_or_containers_pass_through() -> None:
    marker = object()
    assert redact_data(marker) is marker
    assert redact_data(b"sk-raw-bytes") == b"sk-raw-bytes"


def test_extra_fields_and_patterns() -> None:
    extra = Redaction(fields=("tenant-key",), patterns=(r"ACME-\d{6}", r"sid=(?P<secret>\w+)"))
    assert redact_data({"Tenant_Key": "t1"}, extra) == {"Tenant_Key": REDACTED}
    assert (
        redact_text("order ACME-123456, sid=abc ok", extra)
        == f"order {REDACTED}, sid={REDACTED} ok"
    )
    assert redact_text("order ACME-123456") == "order ACME-123456"  # not installed


def test_an_invalid_pattern_is_a_hookproof_error_naming_it() -> None:
    with pytest.raises(InvalidInputError, match=r"'\(unclosed' is not a valid regular expression"):
        Redaction(patterns=("(unclosed",))


def test_including_merges_without_duplicates() -> None:
    merged = Redaction(fields=("a",), patterns=("x",)).including(Redaction(fields=("a", "b")))
    assert merged == Redaction(fields=("a", "b"), patterns=("x",))


@pytest.fixture
def restore_redaction() -> Iterator[None]:
    previous = active_redaction()
    yield
    configure_redaction(previous)


@pytest.mark.usefixtures("restore_redaction")
def test_configure_redaction_installs_extras_for_the_module_functions() -> None:
    previous = configure_redaction(Redaction(fields=("pin",), patterns=(r"PIN\d{4}",)))
    assert previous == Redaction()
    assert redact_text("code PIN1234") == f"code {REDACTED}"
    assert redact_data({"pin": 1}) == {"pin": REDACTED}
    assert redact_text(IN_TEXT["groq"]) == f"GROQ_API_KEY: {REDACTED}"  # built-ins stay on


@pytest.mark.usefixtures("restore_redaction")
def test_errors_redact_their_messages_with_the_installed_redaction() -> None:
    configure_redaction(Redaction(patterns=(r"PIN\d{4}",)))
    error = InvalidInputError("hookproof: the request holds PIN1234 and " + IN_TEXT["groq"])
    assert str(error) == f"hookproof: the request holds {REDACTED} and GROQ_API_KEY: {REDACTED}"


_FILLER = "\n" + "Answer politely and cite the sources you used. " * 12


@pytest.mark.parametrize("name", sorted(IN_TEXT))
def test_short_texts_take_a_shortcut_that_misses_nothing(name: str) -> None:
    """A short text is first searched for any rule's literal; a long one runs every rule."""
    short = IN_TEXT[name]
    assert len(short) <= 512 < len(short + _FILLER) or name == "private_key"
    assert redact_text(short + _FILLER) == redact_text(short) + _FILLER

"""Fake credentials in the formats of the major providers, for redaction tests.

Each fake is built from a deterministic filler, not written out, so the repository holds no
string a secret scanner would take for a real key. ``SECRETS`` maps a name to the secret
itself; ``IN_TEXT`` places each one in the kind of text it leaks through (a header, an
environment line, a URL, a sentence); ``PROSE`` is text that must come out unchanged.
"""

from __future__ import annotations

import string

_ALPHABET = string.ascii_letters + string.digits


def _tail(length: int, seed: int, alphabet: str = _ALPHABET) -> str:
    """A fixed pseudo-random run of characters: the same for the same seed, every time."""
    return "".join(
        alphabet[(seed * 7919 + index * 104729) % len(alphabet)] for index in range(length)
    )


_UPPER_DIGITS = string.ascii_uppercase + string.digits
_BASE64 = _ALPHABET + "/+"
_JWT_HEADER = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
_JWT_PAYLOAD = "eyJzdWIiOiJ1c2VyLTQyIiwiaWF0IjoxNzAwMDAwMDAwfQ"
_PEM_BODY = "\n".join(_tail(64, seed, _BASE64) for seed in range(5))

SECRETS: dict[str, str] = {
    "openai_legacy": "sk-" + _tail(48, 1),
    "openai_project": "sk-proj-" + _tail(74, 2) + "_" + _tail(80, 3),
    "openai_service_account": "sk-svcacct-" + _tail(60, 4) + "-" + _tail(20, 5),
    "anthropic": "sk-ant-api03-" + _tail(86, 6) + "-" + _tail(6, 7) + "AA",
    "google": "AIza" + _tail(35, 8),
    "aws_access_key_id": "AKIA" + _tail(16, 9, _UPPER_DIGITS),
    "aws_session_key_id": "ASIA" + _tail(16, 10, _UPPER_DIGITS),
    "aws_secret_access_key": _tail(18, 11) + "/" + _tail(10, 12) + "+" + _tail(10, 13),
    "github_classic": "ghp_" + _tail(36, 14),
    "github_oauth": "gho_" + _tail(36, 15),
    "github_app": "ghs_" + _tail(36, 16),
    "github_fine_grained": "github_pat_" + _tail(22, 17) + "_" + _tail(59, 18),
    "slack_bot": "xoxb-" + "1234567890-1234567890123-" + _tail(24, 19),
    "slack_user": "xoxp-" + "1234567890-1234567890-1234567890123-" + _tail(32, 20),
    "stripe_secret": "sk_" + "live_" + _tail(99, 21),
    "stripe_restricted": "rk_" + "live_" + _tail(99, 22),
    "hugging_face": "hf_" + _tail(34, 23),
    "groq": "gsk_" + _tail(52, 24),
    "azure_openai": _tail(32, 25, string.hexdigits[:16]),
    "bearer": _tail(40, 26) + "." + _tail(12, 27),
    "jwt": f"{_JWT_HEADER}.{_JWT_PAYLOAD}.{_tail(43, 28)}",
    "url_password": "s3cr3t-" + _tail(12, 29),
    "private_key": _PEM_BODY,
    "cookie": "session=" + _tail(32, 30),
    "password": "Hunter2-" + _tail(8, 31),
    # Credentials in URLs, in every spelling of a URL's userinfo and query.
    "url_password_no_user": "hunter2pass" + _tail(8, 32),
    "url_password_with_at": "p@ss:" + _tail(12, 33),
    "url_password_with_slash": "pa/ss" + _tail(12, 34),
    "url_percent_encoded": "p%40ss%3A" + _tail(12, 35),
    "url_schemeless": "sch3meless" + _tail(10, 36),
    "url_ipv6": "v6pass" + _tail(12, 37),
    "url_json_escaped": "esc4ped" + _tail(12, 38),
    "url_encoded_whole": "nested" + _tail(12, 39),
    "url_token_user": "glpat-" + _tail(20, 40),
    "query_api_key": _tail(24, 41),
    "query_token": "tok" + _tail(16, 42),
    "query_signature": _tail(30, 43, _BASE64).replace("/", "%2F").replace("+", "%2B"),
    "fragment_access_token": "frag" + _tail(20, 44),
    "query_password": "qpass" + _tail(10, 45),
    # After a parameter whose name holds a credential word but is none ("auth_redirect",
    # "next_page_token"), in a URL that is its value.
    "query_after_redirect": "redir" + _tail(16, 46),
    "query_after_page_token": "pgtok" + _tail(16, 47),
    "url_password_with_at_and_slash": "p@ss/w0rd" + _tail(10, 48),
}

_S = SECRETS
IN_TEXT: dict[str, str] = {
    "openai_legacy": f"export OPENAI_API_KEY={_S['openai_legacy']}",
    "openai_project": f"I used {_S['openai_project']} as my key, is that right?",
    "openai_service_account": f"key={_S['openai_service_account']}",
    "anthropic": f"x-api-key: {_S['anthropic']}",
    "google": f"https://generativelanguage.example/v1?key={_S['google']}&alt=json",
    "aws_access_key_id": f"aws_access_key_id = {_S['aws_access_key_id']}",
    "aws_session_key_id": f"Credentials: {_S['aws_session_key_id']} (temporary)",
    "aws_secret_access_key": (
        f"AccessKeyId {_S['aws_access_key_id']} SecretAccessKey {_S['aws_secret_access_key']}"
    ),
    "github_classic": f"git clone https://{_S['github_classic']}@github.example/org/repo",
    "github_oauth": f"token {_S['github_oauth']}",
    "github_app": f'{{"token": "{_S["github_app"]}"}}',
    "github_fine_grained": f"GH_TOKEN={_S['github_fine_grained']}",
    "slack_bot": f"SLACK_BOT_TOKEN='{_S['slack_bot']}'",
    "slack_user": f"use {_S['slack_user']} for the user scope",
    "stripe_secret": f"stripe.api_key = '{_S['stripe_secret']}'",
    "stripe_restricted": f"the restricted key {_S['stripe_restricted']}.",
    "hugging_face": f"huggingface-cli login --token {_S['hugging_face']}",
    "groq": f"GROQ_API_KEY: {_S['groq']}",
    "azure_openai": f"api-key: {_S['azure_openai']}",
    "bearer": f"curl -H 'Authorization: Bearer {_S['bearer']}' https://api.example",
    "jwt": f"the session is {_S['jwt']}",
    "url_password": f"postgresql://admin:{_S['url_password']}@db.internal:5432/app",
    "private_key": (
        f"-----BEGIN RSA PRIVATE KEY-----\n{_S['private_key']}\n-----END RSA PRIVATE KEY-----"
    ),
    "cookie": f"Cookie: {_S['cookie']}; theme=dark",
    "password": f'{{"password": "{_S["password"]}"}}',
    "url_password_no_user": f"redis://:{_S['url_password_no_user']}@cache:6379/0",
    "url_password_with_at": f"postgres://app:{_S['url_password_with_at']}@db.internal/app",
    "url_password_with_slash": f"mysql://root:{_S['url_password_with_slash']}@db:3306/app",
    "url_percent_encoded": f"amqp://user:{_S['url_percent_encoded']}@mq.internal/vhost",
    "url_schemeless": f"connect to //:{_S['url_schemeless']}@cache.internal:6379",
    "url_ipv6": f"http://admin:{_S['url_ipv6']}@[fd00::1]:8080/metrics",
    "url_json_escaped": f'{{"dsn": "redis:\\/\\/:{_S["url_json_escaped"]}@cache\\/0"}}',
    "url_encoded_whole": (
        f"https://app.example/login?next=https%3A%2F%2Fbot%3A{_S['url_encoded_whole']}"
        "%40api.internal%2Fv1&lang=en"
    ),
    "url_token_user": f"git clone https://{_S['url_token_user']}@gitlab.example/org/repo.git",
    "query_api_key": f"GET https://api.example/v1/search?q=x&api_key={_S['query_api_key']}",
    "query_token": f"wss://stream.example/feed?token={_S['query_token']}&v=2",
    "query_signature": (
        f"https://acct.blob.example/c/f.txt?sv=2022-11-02&sp=r&sig={_S['query_signature']}"
    ),
    "fragment_access_token": (
        f"https://app.example/cb#access_token={_S['fragment_access_token']}&token_type=bearer"
    ),
    "query_password": f"ftp://files.example/?user=bob&password={_S['query_password']}",
    "query_after_redirect": (
        "https://idp.example/login?auth_redirect=https://app.example/cb"
        f"?token={_S['query_after_redirect']}"
    ),
    "url_password_with_at_and_slash": (
        f"postgres://app:{_S['url_password_with_at_and_slash']}@db.internal/app"
    ),
    "query_after_page_token": (
        f"https://api.example/items?next_page_token=7?api_key={_S['query_after_page_token']}"
    ),
}

PROSE: tuple[str, ...] = (
    "You are a helpful assistant. Answer in one sentence.",
    "Call public_search with the query, then summarise the results for the user.",
    "call_0 call_1 m1 m2 tool_call_12 run-0 thread-1 msg_3 toolu_0",
    "The bearer of bad news sold bearer bonds; bearer tokens are explained in RFC 6750.",
    "Your password: must be at least twelve characters. Enter your API key: it is in settings.",
    "Use scikit-learn (sk-learn-compatible estimators) for the risk-assessment-framework.",
    "max_tokens=1024, input_tokens: 12, output_tokens: 40, total_tokens: 52",
    "sha256 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "commit 3f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39 fixed the task-management-system",
    "https://docs.example.com/guide/auth#tokens and mailto:team@example.com",
    "The token limit is 4096; a secret garden; set the key to the door.",
    '{"properties": {"password": {"type": "string"}, "api_key": {"type": "string"}}}',
    "Write the file to /workspace/notes/AKIA-checklist.md and read eyJ later.",
    '{"password": "", "api_key": null, "token": 3} api_key=None',
    "credential headers (`Authorization:`, `api-key:`, `Cookie:`), passwords in URLs",
    "ssh://git@github.example/org/repo.git, redis://cache:6379/0 and redis://user:@cache",
    "GET /search?q=api+key&page=2&sort=token&next_page_token=7 // a comment: see a@b.example",
)


def leaked(text: str) -> list[str]:
    """The names of the corpus secrets found in ``text``; a secret spanning several lines
    (a private key) counts when any of its lines is found."""
    return [
        name
        for name, secret in SECRETS.items()
        if any(line in text for line in secret.split("\n") if line)
    ]

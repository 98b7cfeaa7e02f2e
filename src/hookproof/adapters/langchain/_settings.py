"""A LangChain chat model's settings as a FinalRequest records them: what the model receives
besides its messages and tools, and never a secret.

The source is the model's invocation parameters (``_get_invocation_params``, what LangChain
hands every callback) with the call's bound arguments over them, and, for a model that
builds its provider request itself (``_get_request_payload``: ChatOpenAI, ChatAnthropic),
every other top-level key of that request (``mcp_servers``, ``betas``, ``service_tier``,
...) except those a FinalRequest shows apart (messages, system, tools, functions,
tool_choice, response_format, stop words). If building that request fails, the invocation
parameters alone are used. The rule that keeps a parameter out is explicit, so a snapshot
shows every setting that reaches the provider:

* how the answer is delivered or the client behaves (``stream``, ``streaming``, retries,
  timeouts) and LangChain's bookkeeping (``_type``): the model receives none of them;
* the model name when it is the request's ``model`` already; unset values (``None``);
* secrets: a field ``hookproof.redaction`` calls sensitive (``api_key``, ``token``,
  ``authorization``, ...), any ``*headers`` field (headers carry credentials and are HTTP,
  not the model's input) and any pydantic ``SecretStr`` / ``SecretBytes`` value. What is
  left is redacted as data, so a key pasted into a setting's value is not written either.

``model_kwargs`` (extra parameters the providers send as top-level ones) are flattened.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langchain_core.messages import HumanMessage
from pydantic import BaseModel, SecretBytes, SecretStr

from hookproof.redaction import is_sensitive_field, redact_data

__all__ = ["invocation_params", "provider_settings"]

_NOT_RECEIVED = frozenset(
    {
        "_type",
        "stream",
        "streaming",
        "max_retries",
        "timeout",
        "request_timeout",
        "default_request_timeout",
    }
)
_MODEL_NAMES = frozenset({"model", "model_name"})


# Keys of a provider request that a FinalRequest shows apart from its settings, or that
# change from call to call with the conversation rather than the configuration.
_SHOWN_APART = frozenset(
    {
        "messages",
        "input",
        "system",
        "tools",
        "functions",
        "function_call",
        "tool_choice",
        "response_format",
        "text",
        "stop",
        "stop_sequences",
        "stream_options",
        "previous_response_id",
    }
)
# What the request payload is built around: its content is dropped with "messages".
_PROBE_MESSAGES = [HumanMessage("hookproof")]


def invocation_params(model: Any, stop: Any, kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """``model``'s invocation parameters with the call's bound arguments over them, over the
    other settings of the request the model would send; only the bound arguments when the
    model cannot give its own."""
    read = getattr(model, "_get_invocation_params", None)
    own = dict(read(stop=stop)) if callable(read) else {}
    if not own.get("stop"):  # a model that keeps its stop words in a field of its own
        own["stop"] = _stop_words(model)
    known = {**own, **kwargs}
    sent = _payload_settings(model, stop, kwargs)
    extra = sent.pop("extra_body", None)  # sent as top-level parameters of the body
    if isinstance(extra, Mapping) and "extra_body" not in known:
        sent.update({str(k): v for k, v in extra.items() if str(k) not in sent})
    elif extra is not None:
        sent["extra_body"] = extra
    return {**{k: v for k, v in sent.items() if k not in _SHOWN_APART}, **known}


def _payload_settings(model: Any, stop: Any, kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """The top-level keys of the request ``model`` would send, but those shown apart; none
    when it cannot say (no ``_get_request_payload``, or building the request fails)."""
    build = getattr(model, "_get_request_payload", None)
    if not callable(build):
        return {}
    bound = {k: v for k, v in kwargs.items() if not str(k).startswith("_hookproof_")}
    try:
        payload = build(list(_PROBE_MESSAGES), stop=stop, **bound)
    except Exception:  # noqa: BLE001 - recording never fails where the model's call might not
        return {}
    if not isinstance(payload, Mapping):
        return {}
    return {str(k): v for k, v in payload.items() if str(k) not in _SHOWN_APART}


def _stop_words(model: Any) -> list[str] | None:
    for name in ("stop", "stop_sequences"):
        words = getattr(model, name, None)
        if isinstance(words, list | tuple) and words:
            return [str(word) for word in words]
    return None


def provider_settings(params: Mapping[str, Any], *, model: str) -> dict[str, Any]:
    """The parameters (already without messages, tools, tool_choice and response_format)
    that are settings, as plain redacted data (see the module docstring)."""
    extra = params.get("model_kwargs")
    flat = {**(extra if isinstance(extra, Mapping) else {}), **params}
    if isinstance(extra, Mapping):
        flat.pop("model_kwargs")
    kept = {
        str(key): _plain(value)
        for key, value in flat.items()
        if _is_setting(str(key), value, model)
    }
    settings: dict[str, Any] = redact_data(kept)
    return settings


def _is_setting(key: str, value: Any, model: str) -> bool:
    if value is None or key in _NOT_RECEIVED or _is_secret(key, value):
        return False
    return not (key in _MODEL_NAMES and value == model)


def _is_secret(key: str, value: Any) -> bool:
    headers = key.lower().replace("-", "_").endswith("headers")
    return headers or is_sensitive_field(key) or isinstance(value, SecretStr | SecretBytes)


def _plain(value: Any) -> Any:
    """JSON data for a setting; an object JSON cannot hold shows as its type's name (a repr
    could hold an address or a secret, and would change from run to run)."""
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    if isinstance(value, Mapping):
        return {
            str(key): _plain(item) for key, item in value.items() if not _is_secret(str(key), item)
        }
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    if isinstance(value, BaseModel):
        return _plain(value.model_dump(mode="json"))
    kind = value if isinstance(value, type) else type(value)
    return f"<{kind.__module__}.{kind.__qualname__}>"

"""The shared test vectors of the Go companion (go/): reading them, and writing them anew.

A render vector is a FinalRequest in its JSON form (the form go/request.go reads) beside the
text Python's ``hookproof.snapshot.render`` gives for it; both test suites check they render
each request to exactly that text. Regenerate after a deliberate format change with
``python -m tests.go.vectors`` and review the diff.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from hookproof.messages import coerce_message
from hookproof.snapshot import render
from hookproof.tools import ToolSchema
from hookproof.vocabulary import FinalRequest

ROOT = Path(__file__).resolve().parents[2]
VECTORS = ROOT / "testdata" / "vectors"
RENDER = VECTORS / "render"
RANDOM_FILE = RENDER / "random.jsonl"
RANDOM_COUNT = 300


def request_from_json(data: dict[str, Any]) -> FinalRequest:
    system = data.get("system_message")
    return FinalRequest(
        model=data["model"],
        system_message=(None if system is None else coerce_message({**system, "role": "system"})),
        messages=tuple(coerce_message(item) for item in data.get("messages") or ()),
        tools=tuple(ToolSchema(**item) for item in data.get("tools") or ()),
        tool_choice=data.get("tool_choice"),
        response_format=data.get("response_format"),
        model_settings=data.get("model_settings") or {},
    )


def named_cases() -> dict[str, dict[str, Any]]:
    return {path.stem: json.loads(path.read_text("utf-8")) for path in RENDER.glob("*.json")}


def random_cases() -> list[dict[str, Any]]:
    lines = RANDOM_FILE.read_text("utf-8").split("\n")  # not splitlines: U+2028 is text
    return [json.loads(line) for line in lines if line]


# -- generation ---------------------------------------------------------------------------

_PIECES = (
    "a",
    "Zz",
    " ",
    "\n",
    "\r",
    "\t",
    "\x01",
    "\x7f",
    '"',
    "\\",
    "é",
    "中文",
    "🙂",
    "\u2028",
    "{",
    "}",
    "|",
    "<",
    ">",
    "&",
    "api_key",
    "sk-proj-abc123def456ghi789jkl0",
    "Bearer abc.def-123456",
    "123e4567-e89b-12d3-a456-426614174000",
    "2026-01-05T09:30:00Z",
    "/tmp/run-1/out.txt",
    "password=Hunter2xyz!",
    "token",
    "https://user:pw@host/x",
    "max_tokens",
    "é2026-01-05 09:30:00",
)
_KEYS = ("a", "b", "Z", "é", "中", "api_key", "password", "authorization", "eos_token", "x y")


def _text(rng: random.Random) -> str:
    return "".join(rng.choice(_PIECES) for _ in range(rng.randint(0, 5)))


def _json_value(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randint(0, 8 if depth < 3 else 4)
    scalars: list[Any] = [
        None,
        True,
        False,
        rng.randint(-(10**20), 10**20),
        rng.choice((0.1, 1e-05, 1e16, 123456789.125, -0.0, 2.5e-300, 1e22, 100.0, 0.0001)),
        _text(rng),
    ]
    if kind <= 4:
        return rng.choice(scalars)
    if kind <= 6:
        return {rng.choice(_KEYS): _json_value(rng, depth + 1) for _ in range(rng.randint(0, 3))}
    return [_json_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]


def _block(rng: random.Random) -> dict[str, Any]:
    kind = rng.choice(("text", "text", "image", "file", "reasoning", "tool_call", "tool_result"))
    block: dict[str, Any] = {"type": kind}
    if rng.random() < 0.3:
        block["id"] = rng.choice(("b1", "b2", "123e4567-e89b-12d3-a456-426614174000"))
    if rng.random() < 0.2:
        block["cache_control"] = {"type": "ephemeral"}
    if rng.random() < 0.2:
        block["extras"] = _json_value(rng, 2) if False else {"k": _text(rng)}
    fields = {
        "text": {"text": _text(rng)},
        "image": {"url": "https://x/" + _text(rng), "mime_type": "image/png"},
        "file": {"base64": "QUJD", "name": _text(rng)},
        "reasoning": {"reasoning": _text(rng)},
        "tool_call": {"name": "t", "args": {"q": _json_value(rng, 1)}},
        "tool_result": {"tool_call_id": "c1", "text": _text(rng), "status": "error"},
    }
    return {**block, **fields[kind]}


def _message(rng: random.Random) -> dict[str, Any]:
    role = rng.choice(("user", "assistant", "tool"))
    message: dict[str, Any] = {"role": role}
    message["content"] = (
        _text(rng) if rng.random() < 0.5 else [_block(rng) for _ in range(rng.randint(0, 3))]
    )
    if rng.random() < 0.3:
        message["id"] = rng.choice(("m1", "m2", "msg-123e4567-e89b-12d3-a456-426614174000"))
    if rng.random() < 0.2:
        message["name"] = rng.choice(("", "alice", "bob smith"))
    if rng.random() < 0.2:
        message["additional_kwargs"] = {rng.choice(_KEYS): _json_value(rng, 1)}
    if role == "assistant" and rng.random() < 0.6:
        message["tool_calls"] = [
            {
                "name": rng.choice(("search", "read file", "é")),
                "args": _json_value(rng, 2) if False else {rng.choice(_KEYS): _json_value(rng, 1)},
                "id": rng.choice(("call_0", "call_1", "c1")),
            }
            for _ in range(rng.randint(1, 2))
        ]
    if role == "tool":
        message["tool_call_id"] = rng.choice(("call_0", "call_1", "c1"))
        message["status"] = rng.choice(("success", "error"))
    return message


def _random_request(rng: random.Random) -> dict[str, Any]:
    request: dict[str, Any] = {"model": rng.choice(("scripted", "gpt x", "m-" + _text(rng)))}
    if rng.random() < 0.7:
        request["system_message"] = {
            "content": [{"type": "text", "text": _text(rng)} for _ in range(rng.randint(0, 2))]
        }
    request["messages"] = [_message(rng) for _ in range(rng.randint(0, 4))]
    request["tools"] = [
        {
            "name": rng.choice(("search", "zeta", "alpha", "with space")) + str(index),
            "description": _text(rng),
            "parameters": {
                "type": "object",
                "properties": {rng.choice(_KEYS): {"type": "string", "description": _text(rng)}},
            },
        }
        for index in range(rng.randint(0, 3))
    ]
    request["tool_choice"] = _json_value(rng, 2)
    request["response_format"] = _json_value(rng, 2)
    request["model_settings"] = {rng.choice(_KEYS): _json_value(rng, 1) for _ in range(2)}
    return request


def write_random(count: int = RANDOM_COUNT, seed: int = 21) -> None:
    rng = random.Random(seed)
    lines = []
    for _ in range(count):
        request = _random_request(rng)
        expected = render(request_from_json(request))
        lines.append(json.dumps({"request": request, "expected": expected}, ensure_ascii=False))
    RANDOM_FILE.write_text("\n".join(lines) + "\n", "utf-8")


def write_expected() -> None:
    for name, request in named_cases().items():
        (RENDER / f"{name}.expected").write_text(render(request_from_json(request)), "utf-8")


if __name__ == "__main__":
    write_expected()
    write_random()

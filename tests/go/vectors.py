"""The shared test vectors of the Go companion (go/): reading them, and writing them anew.

A render vector is a FinalRequest in its JSON form (the form go/request.go reads) beside the
text Python's ``hookproof.snapshot.render`` gives for it; both test suites check they render
each request to exactly that text. A redaction vector is a text beside Python's
``redact_text`` of it: the secret corpus, near-misses that must stay (or must not), and
random mixes of both; go/redact_test.go checks ``RedactText`` against them. Regenerate after
a deliberate format change with ``python -m tests.go.vectors`` and review the diff; after a
change to redaction alone, ``python -m tests.go.vectors --redaction`` rewrites the expected
texts only, the random requests staying as they are.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from hookproof.eino._provenance import RequestShape
from hookproof.messages import SystemMessage, coerce_message
from hookproof.provenance import Provenance, ToolOrigin, compute
from hookproof.redaction import Redaction, redact_text
from hookproof.requests import FinalRequest
from hookproof.snapshot import render
from hookproof.tools import ToolSchema
from tests.secret_corpus import IN_TEXT, PROSE, SECRETS

ROOT = Path(__file__).resolve().parents[2]
VECTORS = ROOT / "testdata" / "vectors"
RENDER = VECTORS / "render"
RANDOM_FILE = RENDER / "random.jsonl"
RANDOM_COUNT = 300
PROVENANCE_FILE = RENDER / "random_provenance.jsonl"
PROVENANCE_COUNT = 200
COMPUTE_FILE = RENDER / "provenance_compute.jsonl"
COMPUTE_COUNT = 300
REDACTION_FILE = VECTORS / "redaction.jsonl"
REDACTION_RANDOM_COUNT = 400


def request_from_json(data: dict[str, Any]) -> FinalRequest:
    system = data.get("system_message")
    request = FinalRequest(
        model=data["model"],
        system_message=(None if system is None else coerce_message({**system, "role": "system"})),
        messages=tuple(coerce_message(item) for item in data.get("messages") or ()),
        tools=tuple(ToolSchema(**item) for item in data.get("tools") or ()),
        tool_choice=data.get("tool_choice"),
        response_format=data.get("response_format"),
        model_settings=data.get("model_settings") or {},
    )
    found = data.get("provenance")
    return request if found is None else request.with_provenance(provenance_from_json(found))


def provenance_from_json(data: dict[str, Any]) -> Provenance:
    tools = tuple(
        ToolOrigin(item["name"], tuple(item["events"]), item["visible"]) for item in data["tools"]
    )
    return Provenance(tools, tuple(data["system"]))


def provenance_json(found: Provenance) -> dict[str, Any]:
    tools = [
        {"name": item.name, "events": list(item.events), "visible": item.visible}
        for item in found.tools
    ]
    return {"tools": tools, "system": list(found.system)}


def shape_from_json(data: dict[str, Any]) -> RequestShape:
    """A compute vector's request: its tools and its system prompt's text (null: none)."""
    system = data["system"]
    message = None if system is None else SystemMessage(content=system)
    return RequestShape(tuple(ToolSchema(**item) for item in data["tools"]), message)


def computed(case: dict[str, Any]) -> Provenance:
    """Python's provenance of a compute vector: base, edits (owner, before, after), final."""
    edits = [
        (item["owner"], shape_from_json(item["before"]), shape_from_json(item["after"]))
        for item in case["edits"]
    ]
    base, final = shape_from_json(case["base"]), shape_from_json(case["final"])
    return compute(base, edits, final, {})


def named_cases() -> dict[str, dict[str, Any]]:
    return {path.stem: json.loads(path.read_text("utf-8")) for path in RENDER.glob("*.json")}


def random_cases(path: Path = RANDOM_FILE) -> list[dict[str, Any]]:
    lines = path.read_text("utf-8").split("\n")  # not splitlines: U+2028 is text
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


# Lines from a small set, so repeated, moved and inserted lines are common and
# SequenceMatcher's choice between equally long matches decides the origins.
_LINES = (
    "a",
    "b",
    "c",
    "You help.",
    "",
    "Be brief.",
    "token=abc123def456",
    "at 2026-01-05 09:30:00",
)
_OWNERS = ("Outer", "inner", "agent", "x\ny", "tab\there", "\u2028sep", "api_key=sk-abcdefgh123456")
_TOOL_NAMES = ("search", "lookup", "read file", '"q"', "é", "")


def _lines_text(rng: random.Random) -> str | None:
    if rng.random() < 0.1:
        return None
    return "\n".join(rng.choice(_LINES) for _ in range(rng.randint(0, 7)))


def _tool_json(rng: random.Random) -> dict[str, Any]:
    properties = {"q": {"type": rng.choice(("string", "integer"))}}
    return {
        "name": rng.choice(_TOOL_NAMES[:-1]),  # a tool schema's name is never empty
        "description": rng.choice(("Search.", "Look up.", "")),
        "parameters": {"type": "object", "properties": properties},
    }


def _shape_json(rng: random.Random) -> dict[str, Any]:
    return {
        "tools": [_tool_json(rng) for _ in range(rng.randint(0, 3))],
        "system": _lines_text(rng),
    }


def _edited(rng: random.Random, shape: dict[str, Any]) -> dict[str, Any]:
    """shape with a few lines inserted, removed, moved or repeated, and a tool changed."""
    text = shape["system"]
    lines = [] if text is None else text.split("\n")
    for _ in range(rng.randint(1, 3)):
        kind = rng.randint(0, 3)
        at = rng.randint(0, len(lines))
        if kind == 0 or not lines:
            lines.insert(at, rng.choice(_LINES))
        elif kind == 1:
            del lines[min(at, len(lines) - 1)]
        elif kind == 2:
            lines.insert(at, lines.pop(rng.randrange(len(lines))))
        else:
            lines.insert(at, lines[rng.randrange(len(lines))])
    tools = list(shape["tools"])
    if tools and rng.random() < 0.5:
        del tools[rng.randrange(len(tools))]
    if rng.random() < 0.5:
        tools.append(_tool_json(rng))
    system = None if text is None and rng.random() < 0.5 else "\n".join(lines)
    return {"tools": tools, "system": system}


def _compute_case(rng: random.Random) -> dict[str, Any]:
    base = _shape_json(rng)
    edits, current = [], base
    for _ in range(rng.randint(0, 4)):
        # a later model call may start from the base again (Eino gives each call the run's
        # tools afresh), so one layer may do the same twice
        start = base if edits and rng.random() < 0.3 else current
        after = _edited(rng, start)
        edits.append({"owner": rng.choice(_OWNERS), "before": start, "after": after})
        current = after
    final = _edited(rng, current) if rng.random() < 0.3 else current
    return {"base": base, "edits": edits, "final": final}


def write_compute(count: int = COMPUTE_COUNT, seed: int = 6) -> None:
    rng = random.Random(seed)
    lines = []
    for _ in range(count):
        case = _compute_case(rng)
        case["expected"] = provenance_json(computed(case))
        lines.append(json.dumps(case, ensure_ascii=False))
    COMPUTE_FILE.write_text("\n".join(lines) + "\n", "utf-8")


_EVENTS = ("added", "removed", "description changed")


def _event(rng: random.Random, kind: str) -> str:
    return f"{kind} by {rng.choice(_OWNERS)}"


def _random_provenance(rng: random.Random, request: dict[str, Any]) -> dict[str, Any]:
    """Origins for each raw line of the system prompt, and a history for a few tools."""
    system = request.get("system_message")
    texts = [] if system is None else [item["text"] for item in system["content"]]
    count = len("\n".join(texts).split("\n")) if system is not None else 0
    if rng.random() < 0.1:
        count += 1  # origins that do not fit the prompt: Python shows them all as the agent's
    origins = [rng.choice(_OWNERS) for _ in range(count)]
    names = [item["name"] for item in request["tools"]] + list(rng.sample(_TOOL_NAMES, 2))
    tools = [
        {
            "name": name,
            "events": [_event(rng, "registered")]
            + [_event(rng, rng.choice(_EVENTS)) for _ in range(rng.randint(0, 2))],
            "visible": rng.random() < 0.5,
        }
        for name in names[: rng.randint(0, len(names))]
    ]
    return {"tools": tools, "system": origins}


def write_random_provenance(count: int = PROVENANCE_COUNT, seed: int = 26) -> None:
    rng = random.Random(seed)
    lines = []
    for _ in range(count):
        request = _random_request(rng)
        if request.get("system_message") is not None and rng.random() < 0.5:
            lines_text = "\n".join(rng.choice(_LINES) for _ in range(rng.randint(1, 6)))
            request["system_message"]["content"].append({"type": "text", "text": lines_text})
        request["provenance"] = _random_provenance(rng, request)
        expected = render(request_from_json(request))
        lines.append(json.dumps({"request": request, "expected": expected}, ensure_ascii=False))
    PROVENANCE_FILE.write_text("\n".join(lines) + "\n", "utf-8")


def write_expected() -> None:
    for name, request in named_cases().items():
        (RENDER / f"{name}.expected").write_text(render(request_from_json(request)), "utf-8")


def rewrite_random_expected(path: Path) -> None:
    """The stored requests of a random file rendered anew: only the expected texts change."""
    lines = [
        json.dumps(
            {**case, "expected": render(request_from_json(case["request"]))}, ensure_ascii=False
        )
        for case in random_cases(path)
    ]
    path.write_text("\n".join(lines) + "\n", "utf-8")


# -- redaction ----------------------------------------------------------------------------

_PAD = "lorem ipsum " * 45  # past the 512 characters under which a trigger is searched first

# Texts that look like a secret and are not, secrets in an unusual spelling, and characters
# where Python's and Go's regular expressions could differ (case folding, whitespace).
NEAR_MISSES: tuple[str, ...] = (
    "",
    "?key=",
    "?key=a",
    "&sig=",
    "//a:b@",
    "//a:b@c",
    "x://:@host",
    "redis://:@@host",
    "redis://user:@cache:6379",
    "redis://:pw@",
    "ssh://git@github.example/org/repo.git",
    "mailto:team@example.com",
    "see a@b.example or //comment: here@there",
    "https://user:pa/ss@host:80/x",
    "https://user:pa/ss@-host/x",
    "https://user:pa/ss@host!/x",
    "https://user:pa/ss@host",
    "https://user:pa/ss@host\n",
    "https://user:p@ss@host/x?token=abc#frag",
    "https://u:p@[::1]:8080/",
    "http://[::1]:8080/ and http://u:pa/ss@[fe80::1%25eth0]/",
    "https://u:p\u0040ss@host",
    "//u:p@host, //v:q@host; (//w:r@host)",
    "'//u:p@host' \"//v:q@host\" <//w:r@host>",
    "redis:\\/\\/:pw@cache",
    "redis:\\\\/\\\\/:pw@cache",
    "redis:\\/:pw@cache",
    "redis:/\\/:pw@cache",
    "//u:p\x1cq@host",
    "//u:p\u2028q@host",
    "//u:p\xa0q@host",
    "https://abcdefghijklmnopqrst@host.example",
    "https://abcdefghijklmnopqrs1@host.example",
    "https://abcdefghijklmnopq1@",
    "https://git@host.example and https://postgres@db",
    "https://1234567890abcdefghij:@host",
    "%2F%2Fu%3Ap%40host",
    "%2f%2fu%3ap%40host",
    "%2F%2F%3A%40host",
    "%2F%2Fu%3A%40host",
    "%2F%2Fu%3Ap%2Fq%40host",
    "%2F%2Fu%40v%3Ap%40host",
    "a%2F%2Fuser%3Apass word%40h",
    "?page=2&sort=token&next_page_token=7",
    "?monkey=banana&turkey=1&passport=X&author=me&authority=x",
    "?pass=x&pwd=1&pw=2&auth=3",
    "?sessionid=abc&session_id=def&SessionId=ghi",
    "?X-Amz-Signature=abc&X-Amz-Security-Token=def&X-Amz-Credential=ghi",
    "?api_key[]=v&x[api_key]=w&keys[]=1",
    "&sig=a&sig=b#sig=c",
    "?token=a\"b&token=c'd&token=e<f&token=g\\h&token=i j",
    "?token=a\x1cb",
    "?token=abc?password=def",
    "?access_token=abc&token_type=bearer&expires_in=3600",
    "#state=xyz&id_token=abc",
    "password=Hunter2xyz!{",
    "&password=Hunter2xyz!{",
    "?\u212aey=kelvin1",
    "?\u017fig=a?token=xyz",
    "?s\u0130gnature=abc",
    "?s\u0131g=abc",
    "?sess\u0131on=abc",
    "\u0130\u0130\u0130\u0130api_key: Abcdefgh123",
    "pa\u017f\u017fword: Hunter2xyz1",
    "PA\u017fSWORD=Hunter2xyz1",
    "Cookie:\x1ca=b",
    "api_key:\x1cAbcdefgh123",
    "Bearer\x1cabcdef.123456",
    "cook\u0131e: a=b",
    "\u212aEY=abc123",
)


def _with_padding(texts: tuple[str, ...]) -> list[str]:
    """Each text, and the same past the length under which a trigger is searched first."""
    return [*texts, *(f"{_PAD}{text} {_PAD}" for text in texts if text)]


_FRAGMENTS = (
    "://",
    "//",
    "\\/\\/",
    "\\\\/\\\\/",
    "%2F%2F",
    "%3A",
    "%40",
    "@",
    ":",
    "/",
    "?",
    "&",
    "#",
    "=",
    "[",
    "]",
    " ",
    "\n",
    "\x1c",
    '"',
    "'",
    "\\",
    ",",
    ")",
    "user",
    "pw",
    "Hunter2xyz!",
    "host.example",
    "[::1]",
    ":5432",
    "key",
    "api_key",
    "token",
    "sig",
    "password",
    "session_id",
    "page",
    "abc123DEF456ghi789JKL0",
    "Bearer ",
    "Cookie: ",
    "\u212a",
    "\u017f",
    "\u0130",
    "\u0131",
    "\u00e9",
    "\U0001f642",
)


def _random_redaction_text(rng: random.Random) -> str:
    pieces: list[str] = [*_FRAGMENTS, *SECRETS.values(), *IN_TEXT.values(), *PROSE]
    return "".join(rng.choice(pieces) for _ in range(rng.randint(1, 12)))


def redaction_inputs() -> list[str]:
    """The texts of the redaction vectors, in order, each once."""
    corpus = (*SECRETS.values(), *IN_TEXT.values(), *PROSE, *NEAR_MISSES)
    texts = _with_padding(corpus)
    texts += [json.dumps(text) for text in IN_TEXT.values()]
    texts += [repr(json.dumps(text)) for text in IN_TEXT.values()]
    rng = random.Random(45)
    texts += [_random_redaction_text(rng) for _ in range(REDACTION_RANDOM_COUNT)]
    return list(dict.fromkeys(texts))


def redaction_cases() -> list[dict[str, str]]:
    return random_cases(REDACTION_FILE)


def write_redaction() -> None:
    lines = [
        json.dumps({"text": text, "expected": redact_text(text, Redaction())}, ensure_ascii=False)
        for text in redaction_inputs()
    ]
    REDACTION_FILE.write_text("\n".join(lines) + "\n", "utf-8")


if __name__ == "__main__":
    import sys

    if sys.argv[1:] == ["--redaction"]:
        write_expected()
        rewrite_random_expected(RANDOM_FILE)
        rewrite_random_expected(PROVENANCE_FILE)
    else:
        write_expected()
        write_random()
        write_random_provenance()
        write_compute()
    write_redaction()

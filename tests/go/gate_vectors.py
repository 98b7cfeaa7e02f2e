"""The gate's shared vectors: pairs of snapshot directories, and what Python's
``hookproof gate`` prints and returns for them in each format the Go command offers.

Each case is a tree of files (``baseline/...`` and ``candidate/...``: snapshot texts, raw
bytes, links, directories named ``*.txt``, FIFOs), the gate's arguments, and per format the
exit code, stdout and stderr of ``hookproof gate ARGS --format FORMAT`` run in the tree's
directory; the tree's resolved path is written ``$ROOT``, and a report written with
``-o report.txt`` is kept as ``written``. go/gate_test.go runs the Go gate on every case and
expects the same bytes; tests/go/test_gate_vectors.py checks that Python still gives them.
Regenerate after a deliberate change with ``python -m tests.go.gate_vectors`` and review the
diff.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import os
import random
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from hookproof.cli import main
from hookproof.errors import HookproofError
from hookproof.snapshot import render
from tests.go.gate_cases import named_cases
from tests.go.vectors import PROVENANCE_FILE, RANDOM_FILE, VECTORS, random_cases, request_from_json

GATE_FILE = VECTORS / "gate.jsonl"
FORMATS = ("text", "markdown", "json")
RANDOM_PAIRS = 120
HAND_EDITED = 150
ROOT_MARK = "$ROOT"
REPORT_FILE = "report.txt"

Tree = dict[str, Any]


def materialise(tree: Tree, root: Path) -> None:
    """Write a case's files under ``root``."""
    for name, entry in sorted(tree.items()):
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(entry, str):
            path.write_bytes(entry.encode("utf-8"))
        elif "hex" in entry:
            path.write_bytes(bytes.fromhex(entry["hex"]))
        elif "link" in entry:
            path.symlink_to(entry["link"])
        elif entry.get("dir"):
            path.mkdir(exist_ok=True)
        elif entry.get("fifo"):
            os.mkfifo(path)


@contextlib.contextmanager
def _inside(directory: Path) -> Iterator[None]:
    previous = Path.cwd()
    os.chdir(directory)
    try:
        yield
    finally:
        os.chdir(previous)


def run_gate(root: Path, args: list[str]) -> dict[str, Any]:
    """Python's ``hookproof gate ARGS`` in ``root``: exit code, stdout, stderr."""
    out, err = io.StringIO(), io.StringIO()
    with _inside(root), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["gate", *args])
    resolved = str(root.resolve())
    run = {
        "code": code,
        "stdout": out.getvalue().replace(resolved, ROOT_MARK),
        "stderr": err.getvalue().replace(resolved, ROOT_MARK),
    }
    report = root / REPORT_FILE
    if report.is_file():  # -o report.txt: what it wrote, and gone before the next run
        run["written"] = report.read_text("utf-8")
        report.unlink()
    return run


def runs_of(case: dict[str, Any]) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory)
        materialise(case["tree"], root)
        return {name: run_gate(root, [*case["args"], "--format", name]) for name in FORMATS}


# -- random pairs --------------------------------------------------------------------------


def _edit_tools(rng: random.Random, request: dict[str, Any]) -> None:
    tools = request.setdefault("tools", [])
    kind = rng.randint(0, 5)
    if tools and kind == 0:
        del tools[rng.randrange(len(tools))]
    elif kind == 1:
        tools.append(
            {
                "name": rng.choice(("fresh", "search0", "with space9")),
                "description": "New.",
                "parameters": {"type": "object", "properties": {}},
            }
        )
    elif tools and kind == 2:
        rng.choice(tools)["description"] += rng.choice((" ", "  more", "\nline"))
    elif tools:
        schema = rng.choice(tools)["parameters"]
        _edit_schema(rng, schema)


def _edit_schema(rng: random.Random, schema: dict[str, Any]) -> None:
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        schema["properties"] = properties = {}
    kind = rng.randint(0, 6)
    names = list(properties)
    if names and kind == 0:
        del properties[rng.choice(names)]
    elif kind == 1:
        properties[rng.choice(("limit", "q", "é"))] = {"type": rng.choice(("integer", "string"))}
        if rng.random() < 0.5:
            schema["required"] = [*schema.get("required", []), rng.choice(("limit", "q"))]
    elif names and kind == 2:
        properties[rng.choice(names)] = {"type": "array", "items": {"type": "string"}}
    elif names and kind == 3:
        properties[rng.choice(names)]["description"] = rng.choice(("Now described.", ""))
    elif names and kind == 4:
        schema["required"] = list(reversed(names))
    elif kind == 5:
        schema["additionalProperties"] = rng.choice((True, False))
    else:
        schema["properties"] = rng.choice(([], None, "x"))


def _edit_system(rng: random.Random, request: dict[str, Any]) -> None:
    system = request.get("system_message")
    if system is None or not system["content"]:
        request["system_message"] = {"content": [{"type": "text", "text": "You help."}]}
        return
    block = rng.choice(system["content"])
    lines = block.get("text", "").split("\n")
    at = rng.randint(0, len(lines))
    edit = rng.randint(0, 3)
    if edit == 0:
        lines.insert(at, rng.choice(("New rule.", "", "Be brief.", "token=abc123def456")))
    elif edit == 1 and lines:
        del lines[min(at, len(lines) - 1)]
    elif edit == 2 and lines:
        lines[min(at, len(lines) - 1)] += "  "
    else:
        lines.append("Use @octocat and #12 and deadbeefcafe1 <b>.")
    block["text"] = "\n".join(lines)


def _edit_messages(rng: random.Random, request: dict[str, Any]) -> None:
    messages = request.setdefault("messages", [])
    kind = rng.randint(0, 3)
    if messages and kind == 0:
        del messages[rng.randrange(len(messages))]
    elif messages and kind == 1:
        rng.choice(messages)["id"] = rng.choice(("m9", "msg-1"))
    else:
        messages.append({"role": "user", "content": rng.choice(("more", "again\nplease", ""))})


def _edit_scalars(rng: random.Random, request: dict[str, Any]) -> None:
    kind = rng.randint(0, 3)
    if kind == 0:
        request["model"] = rng.choice(("gpt x", "scripted", "m-2"))
    elif kind == 1:
        request["tool_choice"] = rng.choice(("auto", "required", None, {"name": "search0"}))
    elif kind == 2:
        request["response_format"] = rng.choice((None, {"type": "json"}))
    else:
        settings = request.setdefault("model_settings", {})
        settings[rng.choice(("temperature", "max_tokens", "api_key"))] = rng.choice((0, 0.5, 1))


def _edit_provenance(rng: random.Random, request: dict[str, Any]) -> None:
    found = request.get("provenance")
    if found is None:
        return
    if found["system"] and rng.random() < 0.5:
        index = rng.randrange(len(found["system"]))
        found["system"][index] = rng.choice(("Outer", "inner", "agent", "Other"))
    elif found["tools"]:
        tool = rng.choice(found["tools"])
        tool["events"] = [*tool["events"], rng.choice(("removed by Outer", "added by inner"))]


_EDITS: tuple[Callable[[random.Random, dict[str, Any]], None], ...] = (
    _edit_tools,
    _edit_tools,
    _edit_system,
    _edit_messages,
    _edit_scalars,
    _edit_provenance,
)


def _rendered(request: dict[str, Any]) -> str | None:
    try:
        return render(request_from_json(request))
    except HookproofError:  # an edit the request model refuses: pick another
        return None


def _random_pair(rng: random.Random, requests: list[dict[str, Any]], index: int) -> dict[str, Any]:
    tree: Tree = {}
    for snapshot in range(rng.randint(1, 3)):
        request = rng.choice(requests)
        before = _rendered(request)
        edited = copy.deepcopy(request)
        for _ in range(rng.randint(0, 3)):
            rng.choice(_EDITS)(rng, edited)
        after = _rendered(edited)
        if before is None or after is None:
            continue
        name = f"t{snapshot}/request.txt"
        tree[f"baseline/{name}"], tree[f"candidate/{name}"] = before, after
    if not tree:
        tree["baseline/x.txt"] = tree["candidate/x.txt"] = render(request_from_json(requests[0]))
    args = ["baseline", "candidate"]
    if rng.random() < 0.3:
        args = ["--fail-on", rng.choice(("review", "cosmetic,review", "none")), *args]
    return {"name": f"random_{index}", "tree": tree, "args": args}


def random_pairs(count: int = RANDOM_PAIRS, seed: int = 33) -> list[dict[str, Any]]:
    requests = [case["request"] for case in random_cases(RANDOM_FILE)[:120]]
    requests += [case["request"] for case in random_cases(PROVENANCE_FILE)[:80]]
    rng = random.Random(seed)
    return [_random_pair(rng, requests, index) for index in range(count)]


# -- snapshots edited by hand -------------------------------------------------------------

_SPLICES = (
    "",
    " ",
    "|",
    "| ",
    "  ",
    "    | ",
    "(none)",
    "tools: 0",
    "tools: 9",
    "provenance:",
    "  system 1: agent",
    "  tool search0: registered by agent",
    '  tool "a b": added by X',
    "agent: x (depth 1)",
    'model: "m"',
    "model: 1.0",
    "settings: {}",
    'settings: {"a": 1e400}',
    "tool_choice: NaN",
    "    | {}",
    "    | []",
    "  <user>",
    "  | hello",
    "\ufeff",
    "\u2028",
)


def _hand_edit(rng: random.Random, text: str) -> str:
    """A snapshot as a person or a merge might leave it: a line deleted, repeated, moved,
    spliced in, a character changed, or the file cut short."""
    lines = text.split("\n")
    at = rng.randrange(len(lines))
    kind = rng.randint(0, 6)
    if kind == 0:
        del lines[at]
    elif kind == 1:
        lines.insert(at, lines[at])
    elif kind == 2:
        lines.insert(rng.randrange(len(lines)), lines.pop(at))
    elif kind == 3:
        lines.insert(at, rng.choice(_SPLICES))
    elif kind == 4 and lines[at]:
        column = rng.randrange(len(lines[at]))
        swapped = rng.choice(' "{}[],:0a\\')
        lines[at] = lines[at][:column] + swapped + lines[at][column + 1 :]
    elif kind == 5:
        return text[: rng.randrange(len(text))]
    else:
        lines[at] = lines[at] + rng.choice(("  ", " x", ","))
    return "\n".join(lines)


def hand_edited(count: int = HAND_EDITED, seed: int = 34) -> list[dict[str, Any]]:
    texts = [case["expected"] for case in random_cases(RANDOM_FILE)[120:200]]
    texts += [case["expected"] for case in random_cases(PROVENANCE_FILE)[80:120]]
    rng = random.Random(seed)
    cases = []
    for index in range(count):
        text = rng.choice(texts)
        edited = text
        for _ in range(rng.randint(1, 2)):
            edited = _hand_edit(rng, edited)
        tree = {"baseline/s.txt": text, "candidate/s.txt": edited}
        cases.append({"name": f"edited_{index}", "tree": tree, "args": ["baseline", "candidate"]})
    return cases


def all_cases() -> list[dict[str, Any]]:
    return [*named_cases(), *random_pairs(), *hand_edited()]


def stored_cases() -> list[dict[str, Any]]:
    lines = GATE_FILE.read_text("utf-8").split("\n")  # not splitlines: U+2028 is text
    return [json.loads(line) for line in lines if line]


def write_gate() -> None:
    lines = [
        json.dumps({**case, "runs": runs_of(case)}, ensure_ascii=False, sort_keys=True)
        for case in all_cases()
    ]
    GATE_FILE.write_text("\n".join(lines) + "\n", "utf-8")


if __name__ == "__main__":
    write_gate()

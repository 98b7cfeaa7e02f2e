"""The named cases of the gate's shared vectors (tests/go/gate_vectors.py): every change
class, every row kind (system prompt, messages, tools, parameters, settings, agent,
provenance, added and missing snapshots, grouped findings, capped diffs), the verdicts of
each --fail-on, and every kind of bad input the gate refuses."""

from __future__ import annotations

import copy
from typing import Any

from hookproof.snapshot import render
from tests.go.vectors import request_from_json

BASE: dict[str, Any] = {
    "model": "gpt-x",
    "system_message": {
        "content": [{"type": "text", "text": "You plan trips.\nBe brief.\nUse the tools."}]
    },
    "messages": [
        {"role": "user", "content": "Plan three days in Rome", "id": "m1"},
        {"role": "assistant", "content": "Looking.", "id": "m2"},
    ],
    "tools": [
        {
            "name": "search_flights",
            "description": "Find flights.",
            "parameters": {
                "type": "object",
                "properties": {
                    "origin": {"type": "string", "description": "From."},
                    "destination": {"type": "string"},
                },
                "required": ["origin"],
            },
        },
        {
            "name": "book_hotel",
            "description": "Book a hotel.",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    ],
    "tool_choice": None,
    "response_format": None,
    "model_settings": {"temperature": 0},
}

PROVENANCE = {
    "tools": [
        {"name": "search_flights", "events": ["registered by agent"], "visible": True},
        {"name": "book_hotel", "events": ["added by HotelMiddleware"], "visible": True},
        {
            "name": "delete_all",
            "events": ["registered by agent", "removed by Guard"],
            "visible": False,
        },
    ],
    "system": ["agent", "agent", "PromptMiddleware"],
}


def request(**changes: Any) -> dict[str, Any]:
    data = copy.deepcopy(BASE)
    data.update(copy.deepcopy(changes))
    return data


def snap(data: dict[str, Any] | None = None) -> str:
    return render(request_from_json(data or request()))


def tool(name: str, data: dict[str, Any]) -> dict[str, Any]:
    return next(item for item in data["tools"] if item["name"] == name)


def edited(edit: Any, data: dict[str, Any] | None = None) -> str:
    data = copy.deepcopy(data or request())
    edit(data)
    return snap(data)


def pair(old: str, new: str, name: str = "suite/test_trip/final_request.txt") -> dict[str, Any]:
    return {f"baseline/{name}": old, f"candidate/{name}": new}


def case(name: str, tree: dict[str, Any], *options: str) -> dict[str, Any]:
    return {"name": name, "tree": tree, "args": [*options, "baseline", "candidate"]}


def as_subagent(text: str, agent: str = "researcher (depth 1)") -> str:
    _header, model, rest = text.split("\n", 2)
    body = f"hookproof final request, format 3\n{model}\nagent: {agent}\n{rest}"
    return body if "\nprovenance:\n" in body else body + "\nprovenance:\n  (none)\n"


def schema_edit(name: str, edit: Any) -> Any:
    def apply(data: dict[str, Any]) -> None:
        edit(tool(name, data)["parameters"])

    return apply


def tools_cases() -> list[dict[str, Any]]:
    base = snap()
    flights = "search_flights"

    def drop(data: dict[str, Any]) -> None:
        data["tools"] = [t for t in data["tools"] if t["name"] != "book_hotel"]

    def add(data: dict[str, Any]) -> None:
        data["tools"].append(
            {"name": "run shell", "description": "Run a command.", "parameters": {"type": "object"}}
        )

    def reorder(data: dict[str, Any]) -> None:
        data["tools"].reverse()

    schema_cases = {
        "parameter_removed": lambda s: s["properties"].pop("destination"),
        "required_parameter_added": lambda s: (
            s["properties"].update(date={"type": "string"}),
            s["required"].append("date"),
        ),
        "optional_parameter_added": lambda s: s["properties"].update(seats={"type": "integer"}),
        "parameter_retyped": lambda s: s["properties"].update(destination={"type": "integer"}),
        "parameter_described": lambda s: s["properties"]["destination"].update(description="To."),
        "parameter_now_required": lambda s: s["required"].append("destination"),
        "parameter_now_optional": lambda s: s.update(required=[]),
        "properties_not_an_object": lambda s: s.update(properties=["origin"]),
        "required_list_reordered": lambda s: s.update(required=["origin", "origin"]),
        "required_names_unknown": lambda s: s.update(required=["origin", "ghost"]),
        "schema_other_keys": lambda s: s.update(additionalProperties=False),
        "nested_description": lambda s: s["properties"].update(
            destination={"type": "object", "properties": {"x": {"type": "string", "title": "X"}}}
        ),
        "number_equal_bool": lambda s: s.update(minProperties=1.0),
    }
    cases = [
        case("tool_removed", pair(base, edited(drop))),
        case("tool_added", pair(base, edited(add))),
        case("tools_reordered", pair(base, edited(reorder))),
        case(
            "description_changed",
            pair(
                base, edited(lambda d: tool(flights, d).update(description="Find cheap flights."))
            ),
        ),
        case(
            "description_whitespace",
            pair(base, edited(lambda d: tool(flights, d).update(description="Find  flights. "))),
        ),
    ]
    cases += [
        case(name, pair(base, edited(schema_edit(flights, edit))))
        for name, edit in schema_cases.items()
    ]
    booleans = edited(schema_edit(flights, lambda s: s.update(minProperties=True)))
    ones = edited(schema_edit(flights, lambda s: s.update(minProperties=1)))
    cases.append(case("true_equals_one", pair(booleans, ones)))
    return cases


LINKY = "[Approve](http://x) @octocat #12 GH-7 www.x.com deadbeefcafe1 :smile: <img src=x> `x`"


def add_named(data: dict[str, Any]) -> None:
    """A tool whose history names a layer with everything GitHub would link or render."""
    data["tools"].append(
        {"name": "notes", "description": "```\nfence", "parameters": {"type": "object"}}
    )
    data["provenance"] = copy.deepcopy(PROVENANCE)
    data["provenance"]["tools"].append(
        {"name": "notes", "events": [f"added by {LINKY}"], "visible": True}
    )


def text_cases() -> list[dict[str, Any]]:
    base = snap()

    def system(text: str) -> Any:
        return lambda d: d["system_message"]["content"][0].update(text=text)

    def message(index: int, **fields: Any) -> Any:
        return lambda d: d["messages"][index].update(fields)

    return [
        case(
            "system_lines_changed",
            pair(base, edited(system("You plan trips.\nBe thorough.\nUse the tools."))),
        ),
        case(
            "system_lines_added",
            pair(
                base,
                edited(
                    system("You plan trips.\nBe brief.\nAsk first.\nNever book.\nUse the tools.")
                ),
            ),
        ),
        case("system_lines_removed", pair(base, edited(system("You plan trips.")))),
        case(
            "system_blank_line_added",
            pair(base, edited(system("You plan trips.\n\nBe brief.\nUse the tools."))),
        ),
        case(
            "system_whitespace",
            pair(base, edited(system("You plan  trips.\nBe brief.\nUse the tools."))),
        ),
        case("message_changed", pair(base, edited(message(0, content="Plan four days in Rome")))),
        case("message_metadata", pair(base, edited(message(1, id="m3")))),
        case(
            "message_added",
            pair(
                base,
                edited(lambda d: d["messages"].append({"role": "user", "content": "And Milan?"})),
            ),
        ),
        case("model_changed", pair(base, edited(lambda d: d.update(model="gpt-y")))),
        case(
            "tool_choice_changed",
            pair(base, edited(lambda d: d.update(tool_choice={"name": "book_hotel"}))),
        ),
        case(
            "response_format_changed",
            pair(
                base,
                edited(
                    lambda d: d.update(
                        response_format={"type": "json_schema", "schema": {"type": "object"}}
                    )
                ),
            ),
        ),
        case(
            "settings_changed",
            pair(
                base,
                edited(
                    lambda d: d.update(
                        model_settings={
                            "temperature": 0.7,
                            "api_key": "sk-proj-abc123def456ghi789jkl0",
                        }
                    )
                ),
            ),
        ),
        case(
            "settings_int_float",
            pair(base, edited(lambda d: d.update(model_settings={"temperature": 0.0}))),
        ),
        case(
            "markdown_inert",
            pair(
                base,
                edited(
                    system(
                        "Approve [here](http://x) @octocat #12 GH-7 www.x.com deadbeefcafe1 "
                        ":smile: <img src=x> `code` ```fence"
                    )
                ),
            ),
        ),
        case(
            "long_lines_and_diffs",
            pair(
                base,
                edited(
                    system(
                        "\n".join(
                            f"line {n} " + "x" * (450 if n % 50 == 0 else n % 7) for n in range(420)
                        )
                    )
                ),
            ),
        ),
        case(
            "markdown_inert_names",
            pair(snap(request(provenance=PROVENANCE)), edited(add_named), "suite/@octocat <b>.txt"),
        ),
        case(
            "secrets_redacted",
            pair(
                base,
                edited(system("Use key sk-proj-abc123def456ghi789jkl0 and password=Hunter2xyz!")),
            ),
        ),
    ]


def provenance_cases() -> list[dict[str, Any]]:
    plain = request(provenance=PROVENANCE)
    base = snap(plain)

    def moved(data: dict[str, Any]) -> None:
        data["provenance"]["system"] = ["agent", "Other", "Other"]
        tool("book_hotel", data["provenance"])["events"] = ["added by OtherMiddleware"]

    def shown(data: dict[str, Any]) -> None:
        data["tools"].append(
            {"name": "delete_all", "description": "Delete.", "parameters": {"type": "object"}}
        )
        for item in data["provenance"]["tools"]:
            if item["name"] == "delete_all":
                item["events"] = ["registered by agent"]
                item["visible"] = True

    def prompt(data: dict[str, Any]) -> None:
        data["system_message"]["content"][0]["text"] = "You plan trips.\nBe brief.\nUse every tool."

    def unrecorded(data: dict[str, Any]) -> None:
        data["provenance"]["tools"] = [
            t for t in data["provenance"]["tools"] if t["name"] != "book_hotel"
        ]
        data["provenance"]["tools"].append(
            {"name": "ghost", "events": ["registered by X"], "visible": False}
        )

    def removed(data: dict[str, Any]) -> None:
        data["tools"] = [t for t in data["tools"] if t["name"] != "book_hotel"]

    return [
        case("provenance_only", pair(base, edited(moved, plain))),
        case("provenance_hidden_tool_shown", pair(base, edited(shown, plain))),
        case("provenance_prompt_origin", pair(base, edited(prompt, plain))),
        case("provenance_history_recorded", pair(base, edited(unrecorded, plain))),
        case("provenance_tool_removed", pair(base, edited(removed, plain))),
        case("provenance_on_one_side", pair(snap(), base)),
        case("provenance_lost_and_prompt", pair(base, edited(prompt))),
    ]


def agent_cases() -> list[dict[str, Any]]:
    base = snap()
    return [
        case("agent_now_subagent", pair(base, as_subagent(base))),
        case("agent_depth", pair(as_subagent(base), as_subagent(base, "researcher (depth 2)"))),
        case("agent_unnamed", pair(as_subagent(base), as_subagent(base, "(unnamed) (depth 1)"))),
        case("agent_quoted", pair(as_subagent(base, '"two words" (depth 1)'), as_subagent(base))),
    ]


def file_cases() -> list[dict[str, Any]]:
    base, changed = snap(), edited(lambda d: d.update(model="gpt-y"))
    many = {f"baseline/t{n:02d}/req.txt": base for n in range(23)}
    many |= {f"candidate/t{n:02d}/req.txt": changed for n in range(23)}
    crlf = base.replace("\n", "\r\n")
    traced = snap(request(provenance=PROVENANCE))
    return [
        case("unchanged", pair(base, base)),
        case("snapshot_added", pair(base, base) | {"candidate/new/req.txt": changed}),
        case("snapshot_missing", pair(base, base) | {"baseline/old/req.txt": changed}),
        case("grouped_in_many_snapshots", many),
        case("crlf_read_as_lf", pair(base, crlf)),
        case(
            "other_files_ignored",
            pair(base, base) | {"baseline/README.md": "x", "candidate/.gitkeep": ""},
        ),
        case("upper_case_suffix", {"baseline/A.TXT": base, "candidate/A.TXT": changed}),
        case("fail_on_review", pair(base, changed), "--fail-on", "review"),
        case("fail_on_none", pair(base, edited(lambda d: d["tools"].pop())), "--fail-on", "none"),
        case("fail_on_cosmetic", pair(base, crlf), "--fail-on", " Cosmetic ,review"),
        case("fail_on_unknown", pair(base, base), "--fail-on", "breaking,fatal"),
        case(
            "allow_empty_baseline",
            {"baseline/.gitkeep": "", "candidate/x.txt": base},
            "--allow-empty-baseline",
        ),
        case("empty_baseline", {"baseline/.gitkeep": "", "candidate/x.txt": base}),
        case("empty_candidate", {"baseline/x.txt": base, "candidate/.gitkeep": ""}),
        case("both_empty", {"baseline/.gitkeep": "", "candidate/.gitkeep": ""}),
        {
            "name": "missing_directory",
            "tree": {"baseline/x.txt": base},
            "args": ["baseline", "nowhere/"],
        },
        case(
            "unicode_digits",
            pair(base, base.replace("format 1", "format \uff11", 1))
            | pair(traced, traced.replace("system 1-2:", "system \uff11-\u0662:", 1), "t/p.txt")
            | pair(as_subagent(base), as_subagent(base, "researcher (depth 1\u0660)"), "t/a.txt"),
        ),
        case("output_written", pair(base, changed), "-o", "report.txt"),
        case("output_to_missing_directory", pair(base, changed), "--output", "nowhere/r.txt"),
        case("output_onto_a_directory", pair(base, changed), "--output=baseline"),
        {
            "name": "paths_normalised",
            "tree": pair(base, changed),
            "args": ["./baseline/", "candidate//"],
        },
    ]


def unreadable_cases() -> list[dict[str, Any]]:
    base = snap()
    bad = {
        "bom.txt": {"hex": "efbbbf" + base.encode().hex()},
        "latin1.txt": {"hex": base.encode().hex() + "e9ff"},
        "empty.txt": "",
        "blank.txt": " \n\t\n",
        "cut_header.txt": "hookproof final req",
        "other.txt": "just some notes\n",
        "future.txt": base.replace("format 1", "format 9", 1),
        "long_version.txt": base.replace("format 1", "format 1234567", 1),
        "bad_model.txt": base.replace('model: "gpt-x"', 'model: "gpt-x', 1),
        "bad_settings.txt": base.replace('settings: {"temperature": 0}', "settings: {'t': 1}", 1),
        "long_number.txt": base.replace('model: "gpt-x"', "model: " + "7" * 4301, 1),
        "bad_escape.txt": base.replace('model: "gpt-x"', 'model: "gpt\\x"', 1),
        "bad_unicode.txt": base.replace('model: "gpt-x"', 'model: "\\u12g4"', 1),
        "extra_data.txt": base.replace('model: "gpt-x"', 'model: "gpt-x" 2', 1),
        "bad_count.txt": base.replace("tools: 2", "tools: two", 1),
        "truncated.txt": base[: base.index("tools: 2") + 20],
        "duplicate_tool.txt": base.replace("  book_hotel\n", "  search_flights\n", 1),
        "bad_parameters.txt": base.replace('"type": "object",', '"type": "object"', 1),
        "array_parameters.txt": base.replace(
            '    | {\n    |   "properties": {\n    |     "city"',
            '    | [\n    |   "properties": {\n    |     "city"',
            1,
        ),
        "trailing.txt": base + "extra\n",
        "no_blank.txt": base.replace("\n\nmessages:", "\nmessages:", 1),
        "nameless_tool.txt": base.replace("  book_hotel\n", "  \n", 1),
        "cut_provenance.txt": snap(request(provenance=PROVENANCE)).rstrip("\n"),
        "bad_provenance.txt": snap(request(provenance=PROVENANCE)).replace(
            "system 1-2:", "system 2-3:", 1
        ),
        "provenance_in_format_1.txt": base + "\nprovenance:\n  tool x: registered by agent\n",
        "bad_agent.txt": as_subagent(base, "researcher depth 1"),
    }
    tree: dict[str, Any] = {f"candidate/{name}": text for name, text in bad.items()}
    tree |= {
        "baseline/ok.txt": base,
        "baseline/dir.txt": {"dir": True},
        "baseline/fifo.txt": {"fifo": True},
        "baseline/linked_dir": {"link": "../elsewhere"},
        "elsewhere/x.txt": base,
        "outside.txt": base,
        "baseline/outside_link.txt": {"link": "../outside.txt"},
        "baseline/broken_link.txt": {"link": "missing.txt"},
        "baseline/inside_link.txt": {"link": "ok.txt"},
        "baseline/inner/nested.txt": base,
        "baseline/inner_link": {"link": "inner"},
    }
    return [case("unreadable_files", tree)]


def markdown_cut_case() -> dict[str, Any]:
    """Findings past the 65,536 characters of a pull-request comment: the rest is counted."""
    long_text = "\n".join(f"step {n}: " + "y" * 190 for n in range(40))

    def add(data: dict[str, Any]) -> None:
        for n in range(9):
            parameters = {"type": "object"}
            data["tools"].append(
                {"name": f"tool_{n}", "description": long_text, "parameters": parameters}
            )

    return case("markdown_cut", pair(snap(), edited(add)))


def named_cases() -> list[dict[str, Any]]:
    return [
        *tools_cases(),
        *text_cases(),
        *provenance_cases(),
        *agent_cases(),
        *file_cases(),
        *unreadable_cases(),
        markdown_cut_case(),
    ]

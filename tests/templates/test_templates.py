"""AgenticChatTemplate: placeholders, block formatting, the three formats, callbacks, pipe."""

from __future__ import annotations

import contextlib
import copy
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hookproof.errors import HookproofError, InvalidInputError, UsageError
from hookproof.models import RecordingModel, ScriptedModel
from hookproof.runtime import create_agent
from hookproof.templates import (
    AgenticMessage,
    AssistantGenText,
    ContentBlock,
    FormatType,
    FunctionToolCall,
    FunctionToolResult,
    MCPToolCall,
    MCPToolResult,
    Reasoning,
    ServerToolCall,
    ServerToolResult,
    TemplateSecurityError,
    TemplateSyntaxError,
    TemplateVariableError,
    ToolSearchResult,
    UnsupportedTemplateConstruct,
    UserInputAudio,
    UserInputFile,
    UserInputImage,
    UserInputText,
    UserInputVideo,
    agentic_messages_placeholder,
    from_agentic_messages,
    new_content_block,
    output_key,
    pipe,
    system_agentic_message,
    user_agentic_message,
)

FS, GO, J2 = FormatType.FSTRING, FormatType.GO_TEMPLATE, FormatType.JINJA2
HISTORY = [user_agentic_message("earlier {not formatted}")]


# -- placeholders: one test per row of the table -----------------------------------------


def _place(variables: dict[str, Any], optional: bool) -> list[AgenticMessage]:
    return from_agentic_messages(FS, agentic_messages_placeholder("history", optional)).format(
        variables
    )


def test_placeholder_missing_and_optional_inserts_nothing() -> None:
    assert _place({}, optional=True) == []


def test_placeholder_missing_and_required_names_the_key() -> None:
    with pytest.raises(
        TemplateVariableError, match="message placeholder format: history not found"
    ):
        _place({}, optional=False)


@pytest.mark.parametrize(
    ("value", "type_name"), [(None, "NoneType"), ("text", "str"), ([{"role": "user"}], "list")]
)
def test_placeholder_wrong_type_names_key_and_type(value: Any, type_name: str) -> None:
    with pytest.raises(TemplateVariableError, match=f"key: history, actual type: {type_name}"):
        _place({"history": value}, optional=True)


def test_placeholder_right_type_inserted_as_is_not_formatted() -> None:
    assert _place({"history": HISTORY, "not": "X"}, optional=False) == HISTORY


# -- block formatting: one test per block type --------------------------------------------

VARS = {"v": "VALUE"}
RENDERED_BLOCKS = [
    (UserInputText(text="t={v}"), UserInputText(text="t=VALUE")),
    (
        UserInputImage(url="u/{v}", base64_data="b{v}", mime_type="m{v}", detail="d{v}"),
        UserInputImage(url="u/VALUE", base64_data="bVALUE", mime_type="m{v}", detail="d{v}"),
    ),
    (UserInputImage(url="", base64_data="b{v}"), UserInputImage(url="", base64_data="bVALUE")),
    (UserInputAudio(url="a/{v}", mime_type="{v}"), UserInputAudio(url="a/VALUE", mime_type="{v}")),
    (UserInputVideo(base64_data="{v}"), UserInputVideo(base64_data="VALUE")),
    (
        UserInputFile(url="f/{v}", name="{v}.pdf", base64_data="", mime_type="{v}"),
        UserInputFile(url="f/VALUE", name="VALUE.pdf", base64_data="", mime_type="{v}"),
    ),
]
UNCHANGED_BLOCKS = [
    AssistantGenText(text="{v}"),
    Reasoning(text="{v}"),
    FunctionToolCall(call_id="c", name="f", arguments='{"a": "{v}"}'),
    FunctionToolResult(call_id="c", name="f", result="{v}"),
    ServerToolCall(call_id="s", name="web", arguments={"q": "{v}"}),
    ServerToolResult(call_id="s", name="web", result="{v}"),
    MCPToolCall(server_label="m", call_id="c", name="n", arguments="{v}"),
    MCPToolResult(server_label="m", call_id="c", name="n", result="{v}"),
    ToolSearchResult(tools=("{v}",)),
]


def _format_one(payload: Any) -> Any:
    message = AgenticMessage(role="user", content_blocks=(new_content_block(payload, note="{v}"),))
    block = from_agentic_messages(FS, message).format(VARS)[0].content_blocks[0]
    assert block.extra == {"note": "{v}"}
    return block.payload


@pytest.mark.parametrize(
    ("given_payload", "expected"), RENDERED_BLOCKS, ids=lambda p: type(p).__name__
)
def test_user_input_blocks_are_rendered(given_payload: Any, expected: Any) -> None:
    assert _format_one(given_payload) == expected


@pytest.mark.parametrize("payload", UNCHANGED_BLOCKS, ids=lambda p: type(p).__name__)
def test_other_blocks_are_copied_unchanged(payload: Any) -> None:
    assert _format_one(payload) == payload


def test_block_type_comes_from_the_payload_and_cannot_disagree() -> None:
    assert new_content_block(Reasoning(text="r")).type == "reasoning"
    with pytest.raises(ValueError, match="disagrees with its UserInputText payload"):
        ContentBlock(type="reasoning", payload=UserInputText(text="x"))
    with pytest.raises(UsageError, match="takes a payload"):
        new_content_block("text")  # type: ignore[arg-type]


@given(
    text=st.text(alphabet="ab {}v", max_size=12),
    variables=st.dictionaries(st.sampled_from(["v", "w"]), st.text(max_size=5)),
)
def test_format_never_modifies_the_messages_passed_in(text: str, variables: dict[str, str]) -> None:
    messages = [
        system_agentic_message(text),
        user_agentic_message("{v}"),
        AgenticMessage(role="assistant"),
    ]
    before = copy.deepcopy(messages)
    with contextlib.suppress(HookproofError):
        from_agentic_messages(FS, *messages).format(variables)
    assert messages == before


# -- FString ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ("{a} and {b}", "1 and two"),
        ("{{a}}", "{a}"),
        ("}}{{", "}{"),
        ("{{{a}}}", "{1}"),
        ("plain", "plain"),
    ],
)
def test_fstring(template: str, expected: str) -> None:
    result = from_agentic_messages(FS, user_agentic_message(template)).format({"a": 1, "b": "two"})
    assert result[0].text == expected


# -- GoTemplate: expected strings from Go's text/template documentation --------------------

GO_CASES = [
    ("{{.name}}", {"name": "World"}, "World"),
    ("Hello, {{.name}}!", {"name": "World"}, "Hello, World!"),
    ("{{.user.name}}", {"user": {"name": "Ada"}}, "Ada"),
    ("{{23 -}} < {{- 45}}", {}, "23<45"),
    ("{{if .ok}}yes{{else}}no{{end}}", {"ok": True}, "yes"),
    ("{{if .ok}}yes{{else}}no{{end}}", {"ok": False}, "no"),
    ("{{if .items}}has{{end}}", {"items": []}, ""),
    ("{{range .xs}}[{{.}}]{{end}}", {"xs": ["a", "b"]}, "[a][b]"),
    ("{{range .xs}}x{{else}}empty{{end}}", {"xs": []}, "empty"),
    ("{{/* a comment */}}text", {}, "text"),
    ("a  {{- /* c */ -}}  b", {}, "ab"),
    ("{{.n}}", {"n": 42}, "42"),
    ("{{.b}}", {"b": True}, "true"),
    ("{{.xs}}", {"xs": [1, 2, 3]}, "[1 2 3]"),
    ("{{.m}}", {"m": {"b": 2, "a": 1}}, "map[a:1 b:2]"),
    ('{{"quoted"}}', {}, "quoted"),
    ("{{if .zero}}t{{else}}f{{end}}", {"zero": 0}, "f"),
    ("{{if .s}}t{{else}}f{{end}}", {"s": ""}, "f"),
    ("{{range .m}}{{.}},{{end}}", {"m": {"y": 2, "x": 1}}, "1,2,"),
    ("{{if .a}}A{{else if .b}}B{{else}}C{{end}}", {"a": False, "b": 1}, "B"),
    ("{{.f}}", {"f": 1.5}, "1.5"),
    ("{{.x}}", {"x": None}, "<no value>"),
    ("{{range .rows}}{{.name}}={{.v}};{{end}}", {"rows": [{"name": "a", "v": 1}]}, "a=1;"),
    ("x\n{{- .y}}", {"y": "z"}, "xz"),
    ("{{.y -}}\n  x", {"y": "z"}, "zx"),
]


@pytest.mark.parametrize(("template", "variables", "expected"), GO_CASES)
def test_go_template_matches_go(template: str, variables: dict[str, Any], expected: str) -> None:
    assert (
        from_agentic_messages(GO, user_agentic_message(template)).format(variables)[0].text
        == expected
    )


def _literally(message: str) -> str:
    return message.replace("{", "\\{").replace("|", "\\|")


NAMED = "template #0 \\(user message\\): .*"  # an f-string error names its template
# (format, template, error, pattern of its message): f-strings, then Go's subset
TEMPLATE_ERRORS = [
    (FS, "{missing}", TemplateVariableError, NAMED + "could not find key: missing"),
    (FS, "a { b", TemplateSyntaxError, NAMED + "Single '{' encountered in format string"),
    (FS, "a } b", TemplateSyntaxError, NAMED + "Single '}' encountered in format string"),
    (FS, "{a.__class__}", TemplateSyntaxError, NAMED + "not a plain variable name"),
    (GO, "{{.nope}}", TemplateVariableError, _literally('map has no entry for key "nope"')),
    (GO, '{{.x | printf "%q"}}', UnsupportedTemplateConstruct, _literally("pipelines")),
    (
        GO,
        "{{len .x}}",
        UnsupportedTemplateConstruct,
        _literally("functions and calls are not supported"),
    ),
    (GO, "{{$x := 1}}", UnsupportedTemplateConstruct, _literally("variables")),
    (GO, "{{with .x}}a{{end}}", UnsupportedTemplateConstruct, _literally("with")),
    (GO, "{{if .x}}a", TemplateSyntaxError, _literally("missing {{end}}")),
    (GO, "{{end}}", TemplateSyntaxError, _literally("unexpected {{end}}")),
    (GO, "{{.x", TemplateSyntaxError, _literally("unclosed action")),
]
VARIABLES_OF = {FS: {"a": 1}, GO: {"x": [1]}}


@pytest.mark.parametrize(("format_type", "template", "error", "pattern"), TEMPLATE_ERRORS)
def test_fstring_and_go_template_errors(
    format_type: FormatType, template: str, error: type, pattern: str
) -> None:
    with pytest.raises(error, match=pattern):
        from_agentic_messages(format_type, user_agentic_message(template)).format(
            VARIABLES_OF[format_type]
        )


# -- Jinja2 -------------------------------------------------------------------------------


def test_jinja2_renders_with_strict_undefined() -> None:
    template = from_agentic_messages(
        J2, user_agentic_message("Hi {{ name }}{% for x in xs %}, {{ x }}{% endfor %}")
    )
    assert template.format({"name": "Ada", "xs": [1, 2]})[0].text == "Hi Ada, 1, 2"
    with pytest.raises(TemplateVariableError, match="'name' is undefined"):
        template.format({"xs": []})


ESCAPES = [
    "{{ ''.__class__ }}",
    "{{ ''.__class__.__mro__ }}",
    "{{ ().__class__.__base__.__subclasses__() }}",
    "{{ cycler.__init__.__globals__ }}",
    "{{ x.__globals__ }}",
    "{{ lipsum.__globals__['os'] }}",
]
LOADERS = [
    "{% include 'secrets.txt' %}",
    "{% extends 'base.html' %}",
    "{% import 'm' as m %}",
    "{% from 'm' import x %}",
]


@pytest.mark.parametrize("template", ESCAPES)
def test_jinja2_sandbox_escapes_are_rejected(template: str) -> None:
    with pytest.raises((TemplateSecurityError, TemplateVariableError)):
        from_agentic_messages(J2, user_agentic_message(template)).format(
            {"x": test_jinja2_renders_with_strict_undefined}
        )


@pytest.mark.parametrize("template", LOADERS)
def test_jinja2_loading_other_templates_is_rejected(template: str) -> None:
    with pytest.raises(UnsupportedTemplateConstruct, match="is not allowed"):
        from_agentic_messages(J2, user_agentic_message(template)).format({})


def test_unknown_format_type_is_an_error() -> None:
    with pytest.raises(UsageError, match="unknown format type 'mustache'"):
        from_agentic_messages("mustache", user_agentic_message("x"))  # type: ignore[arg-type]


# -- callbacks, custom templates, composition ---------------------------------------------


class Recorder:
    def __init__(self) -> None:
        self.events: list[tuple[str, Any]] = []

    def on_start(self, variables: Any, templates: Any) -> None:
        self.events.append(("start", dict(variables)))

    def on_end(self, result: Any, templates: Any) -> None:
        self.events.append(("end", len(result)))

    def on_error(self, error: BaseException, templates: Any) -> None:
        self.events.append(("error", type(error).__name__))


def test_callbacks_start_end_and_error_without_end() -> None:
    template = from_agentic_messages(FS, system_agentic_message("{a}"), user_agentic_message("x"))
    recorder = Recorder()
    template.format({"a": 1}, callbacks=recorder)
    assert recorder.events == [("start", {"a": 1}), ("end", 2)]
    failing = Recorder()
    with pytest.raises(TemplateVariableError):
        template.format({}, callbacks=failing)
    assert failing.events == [("start", {}), ("error", "TemplateVariableError")]
    assert template.get_type() == "Default"


class Greeting:
    """A custom template: it only needs format()."""

    def format(self, variables: Any, format_type: Any) -> list[AgenticMessage]:
        return [user_agentic_message(f"hello {variables['who']}")]


def test_custom_template_and_pipe_into_an_agent() -> None:
    template = from_agentic_messages(FS, system_agentic_message("You help {who}."), Greeting())
    model = RecordingModel(ScriptedModel(["hi"]))
    result = pipe(template, output_key("messages"), create_agent(model)).invoke({"who": "Ada"})
    assert result.text == "hi"
    assert [m.role for m in model.last.messages] == ["system", "user"]
    assert model.last.messages[1].text == "hello Ada"


def test_agentic_messages_convert_at_the_runtime_boundary() -> None:
    call = new_content_block(FunctionToolCall(call_id="c1", name="lookup", arguments='{"q": "x"}'))
    history = [
        user_agentic_message("find x"),
        AgenticMessage(role="assistant", content_blocks=(call,)),
        AgenticMessage(
            role="tool",
            content_blocks=(
                new_content_block(FunctionToolResult(call_id="c1", name="lookup", result="found")),
            ),
        ),
        AgenticMessage(
            role="user",
            content_blocks=(new_content_block(UserInputImage(url="https://x.invalid/a.png")),),
        ),
    ]
    model = RecordingModel(ScriptedModel(["ok"]))
    create_agent(model).invoke({"messages": history})
    sent = model.last.messages
    assert [m.role for m in sent] == ["user", "assistant", "tool", "user"]
    assert sent[1].tool_calls[0].args == {"q": "x"}
    assert (sent[2].tool_call_id, sent[2].text) == ("c1", "found")
    assert sent[3].content[0].url == "https://x.invalid/a.png"


# -- edge cases: nesting, Go values and spacing, the jinja2 sandbox, conversion ------------


def test_nested_and_one_argument_custom_templates() -> None:
    class OneArgument:
        def format(self, variables: Any) -> list[AgenticMessage]:
            return [user_agentic_message(f"one {variables['x']}")]

    inner = from_agentic_messages(FormatType.FSTRING, user_agentic_message("inner {x}"))
    outer = from_agentic_messages(
        FormatType.FSTRING, system_agentic_message("s"), inner, OneArgument()
    )
    assert [m.text for m in outer.format({"x": 1})] == ["s", "inner 1", "one 1"]


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ("{{.big}}", "1e+06"),
        ("{{.odd}}", "1.2345675e+06"),
        ("{{.tiny}}", "1e-05"),
        ('{{"héllo"}}', "héllo"),
        ("{{.mixed}}", "[<nil> 1]"),
        ("{{if .a}}A{{else  if .b}}B{{end}}", ""),
        ("{{if\t.c}}C{{end}}", "C"),
    ],
)
def test_go_values_and_spacing(template: str, expected: str) -> None:
    values = {
        "big": 1e6,
        "odd": 1234567.5,
        "tiny": 0.00001,
        "mixed": [None, 1],
        "a": 0,
        "b": 0,
        "c": 1,
    }
    result = from_agentic_messages(FormatType.GO_TEMPLATE, user_agentic_message(template)).format(
        values
    )
    assert result[0].text == expected


@pytest.mark.parametrize(
    ("template", "error"),
    [
        ("{{if .a}}A{{else .b}}B{{end}}", TemplateSyntaxError),
        ("{{if .a}}A{{end .z}}", TemplateSyntaxError),
        ("{{range .xs}}A{{else if .a}}B{{end}}", TemplateSyntaxError),
        ("{{.s.upper}}", TemplateVariableError),
    ],
)
def test_go_malformed_actions_are_errors(template: str, error: type) -> None:
    with pytest.raises(error):
        from_agentic_messages(FormatType.GO_TEMPLATE, user_agentic_message(template)).format(
            {"a": 0, "xs": [], "s": "text", "z": 1}
        )


@pytest.mark.parametrize(
    ("template", "refusal"),
    [
        ("{{ items.pop() }}", "the sandbox refused"),
        ("{{ d.clear() }}", "the sandbox refused"),
        ("{% for x in range(10**7) %}{% endfor %}", "budget max_loop_iterations"),
    ],
)
def test_jinja2_cannot_change_variables_or_run_away(template: str, refusal: str) -> None:
    variables: dict[str, Any] = {"items": [1, 2], "d": {"k": 1}}
    with pytest.raises(TemplateSecurityError, match=refusal):
        from_agentic_messages(FormatType.JINJA2, user_agentic_message(template)).format(variables)
    assert variables == {"items": [1, 2], "d": {"k": 1}}


def test_conversion_keeps_errors_metadata_and_refuses_merged_results() -> None:
    image = new_content_block(
        UserInputImage(url="u", detail="high"), cache_control={"type": "ephemeral"}
    )
    converted = AgenticMessage(role="user", content_blocks=(image,)).to_message()
    assert converted.content[0].cache_control == {"type": "ephemeral"}
    assert converted.content[0].extras == {"detail": "high"}
    failed = AgenticMessage(
        role="assistant",
        content_blocks=(new_content_block(MCPToolResult(call_id="m", name="n", error="boom")),),
    ).to_message()
    assert (failed.content[0].status, failed.content[0].text) == ("error", "boom")
    two = AgenticMessage(
        role="tool",
        content_blocks=tuple(
            new_content_block(FunctionToolResult(call_id=c, name="f", result=c))
            for c in ("c1", "c2")
        ),
    )
    with pytest.raises(InvalidInputError, match="exactly one function tool result"):
        two.to_message()

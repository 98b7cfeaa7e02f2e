"""The deep-agent harness: each built-in middleware on real runs, and the stack order."""

from __future__ import annotations

from typing import Any

import pytest

from hookproof.errors import HookproofError, InvalidInputError, ToolError
from hookproof.harness import (
    HarnessProfile,
    StateBackend,
    SubAgent,
    SummarizationMiddleware,
    create_deep_agent,
    estimate_tokens,
    isolated_profiles,
)
from hookproof.messages import AssistantMessage, ToolCall, ToolMessage, UserMessage
from hookproof.models import RecordingModel, ScriptedModel, call
from hookproof.runtime import Command, InMemoryCheckpointer, tool

ASK = {"messages": [("user", "go")]}


def _run(turns: list[Any], **kwargs: Any) -> tuple[RecordingModel, Any]:
    model = RecordingModel(ScriptedModel(turns))
    result = create_deep_agent(model, **kwargs).invoke(ASK)
    return model, result


def _tool_texts(result: Any) -> list[str]:
    return [m.text for m in result.messages if m.role == "tool"]


def test_default_stack_shows_the_harness_tools_and_prompt_blocks() -> None:
    model, _ = _run(["ok"], system_prompt="USER")
    final = model.last
    assert final.tool_names == [
        "edit_file",
        "glob",
        "grep",
        "ls",
        "read_file",
        "task",
        "write_file",
        "write_todos",
    ]
    blocks = [block.text.split("\n")[0] for block in final.system_message.content]  # type: ignore[union-attr]
    assert blocks[0] == "USER"
    assert blocks[2:] == ["## Planning with write_todos", "## Files", "## Delegating with task"]
    assert final.system_message.content[-1].cache_control == {"type": "ephemeral"}  # type: ignore[union-attr]


def test_stack_order_of_all_thirteen_layers() -> None:
    model = RecordingModel(ScriptedModel(["ok"]))

    @tool
    def noop() -> str:
        """No-op."""
        return ""

    class User:
        name = "UserMiddleware"

        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            return handler(request)

    class Extra:
        name = "ProfileExtra"

        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            return handler(request)

    with isolated_profiles() as registry:
        registry.register_harness_profile("p", HarnessProfile(extra_middleware=lambda: [Extra()]))
        scripted = ScriptedModel(["ok"], provider="p")
        agent = create_deep_agent(
            scripted,
            [noop],
            middleware=[User()],
            skills=["/skills"],
            memory=["/AGENTS.md"],
            interrupt_on={"noop": True},
            profiles=registry,
        )
    assert [getattr(m, "name", type(m).__name__) for m in agent.middleware] == [
        "TodoListMiddleware",
        "SkillsMiddleware",
        "FilesystemMiddleware",
        "SubAgentMiddleware",
        "SummarizationMiddleware",
        "PatchToolCallsMiddleware",
        "UserMiddleware",
        "ProfileExtra",
        "HarnessProfileToolExclusion",
        "ProviderPromptCacheMiddleware",
        "MemoryMiddleware",
        "HumanInTheLoopMiddleware",
    ]
    assert model.requests == ()


def test_write_todos_keeps_the_plan_in_state() -> None:
    todos = [{"content": "read", "status": "completed"}, {"content": "write", "status": "pending"}]
    _, result = _run([call("write_todos", {"todos": todos}), "done"])
    assert result.state["todos"] == todos
    assert _tool_texts(result) == ["Todo list updated: read [completed], write [pending]"]


def test_file_tools_work_on_state_backed_files() -> None:
    turns = [
        call("write_file", {"file_path": "/notes/a.md", "content": "alpha\nbeta"}),
        call(
            "edit_file", {"file_path": "/notes/a.md", "old_string": "beta", "new_string": "gamma"}
        ),
        call("read_file", {"file_path": "/notes/a.md", "offset": 1, "limit": 1}),
        call("ls", {"path": "/"}),
        call("glob", {"pattern": "*.md", "path": "/notes"}),
        call("grep", {"pattern": "gam+a"}),
        call("write_file", {"file_path": "/notes/a.md", "content": "again"}),
        "done",
    ]
    _, result = _run(turns, backend=StateBackend(files={"/seed.txt": "seeded"}))
    assert result.state["files"] == {"/seed.txt": "seeded", "/notes/a.md": "alpha\ngamma"}
    texts = _tool_texts(result)
    assert texts[:6] == [
        "Wrote /notes/a.md",
        "Edited /notes/a.md",
        "     2\tgamma",
        "/notes/\n/seed.txt",
        "/notes/a.md",
        "/notes/a.md:2: gamma",
    ]
    assert texts[6] == "Error: /notes/a.md already exists; use edit_file to change it."


def test_execute_appears_only_when_the_backend_can_execute() -> None:
    model, result = _run(
        [call("execute", {"command": "echo hi"}), "done"],
        backend=StateBackend(execute=lambda command: f"ran {command}"),
    )
    assert "execute" in model.last.tool_names
    assert _tool_texts(result) == ["ran echo hi"]
    plain, _ = _run(["ok"])
    assert "execute" not in plain.last.tool_names


def test_task_runs_a_real_subagent_sharing_files() -> None:
    turns = [
        call("write_file", {"file_path": "/in.txt", "content": "42"}),
        call(
            "task", {"description": "Read /in.txt and report.", "subagent_type": "general-purpose"}
        ),
        call("read_file", {"file_path": "/in.txt"}),
        call("write_file", {"file_path": "/out.txt", "content": "seen 42"}),
        "The file says 42.",
        "Subagent reports 42.",
    ]
    model, result = _run(turns)
    assert _tool_texts(result)[1] == "The file says 42."
    assert result.state["files"]["/out.txt"] == "seen 42"
    sub_request = model.requests[2]
    assert [m.text for m in sub_request.messages] == ["Read /in.txt and report."]
    assert "task" not in sub_request.tool_names
    assert "- general-purpose:" in model.requests[0].tool("task").description


def test_custom_subagent_and_unknown_type() -> None:
    researcher = SubAgent(name="researcher", description="Finds facts.", system_prompt="Research.")
    turns = [
        call("task", {"description": "x", "subagent_type": "nobody"}),
        call("task", {"description": "find", "subagent_type": "researcher"}),
        "fact",
        "done",
    ]
    model, result = _run(turns, subagents=[researcher])
    texts = _tool_texts(result)
    assert (
        texts[0]
        == "Error: no subagent named 'nobody'; choose one of ['general-purpose', 'researcher']."
    )
    assert texts[1] == "fact"
    assert model.requests[2].system_text.startswith("Research.")


def test_task_override_must_keep_its_placeholder() -> None:
    with isolated_profiles() as registry:
        registry.register_harness_profile(
            "p", HarnessProfile(tool_description_overrides={"task": "Delegate."})
        )
        with pytest.raises(InvalidInputError, match="available_agents"):
            create_deep_agent(ScriptedModel([], provider="p"), profiles=registry)


def test_summarization_condenses_old_messages_without_splitting_tool_pairs() -> None:
    model = RecordingModel(ScriptedModel(["ok"], profile={"max_input_tokens": 100}))
    history = [UserMessage(content="x" * 400)]
    for n in range(4):
        history.append(AssistantMessage(content="", tool_calls=[ToolCall(name="ls", id=f"c{n}")]))
        history.append(ToolMessage(content="/", tool_call_id=f"c{n}"))
    history.append(UserMessage(content="latest"))
    create_deep_agent(model).invoke({"messages": history})
    sent = model.last.messages
    assert sent[0].text.startswith("Summary of the conversation so far")
    assert sent[0].text.count("\n- ") == 3
    assert sent[1].role == "assistant" and sent[2].role == "tool"
    assert sent[-1].text == "latest"
    assert estimate_tokens(sent) < estimate_tokens(history)


def test_dangling_tool_call_is_cancelled_before_the_next_model_call() -> None:
    model = RecordingModel(ScriptedModel(["ok"]))
    dangling = AssistantMessage(content="", tool_calls=[ToolCall(name="ls", id="old")])
    create_deep_agent(model).invoke(
        {"messages": [UserMessage(content="a"), dangling, UserMessage(content="b")]}
    )
    roles = [(m.role, getattr(m, "status", None)) for m in model.last.messages]
    assert roles == [("user", None), ("assistant", None), ("tool", "error"), ("user", None)]
    assert "cancelled" in model.last.messages[2].text


def test_memory_loads_agents_md_into_the_system_prompt() -> None:
    model, _ = _run(
        ["ok"],
        memory=["/AGENTS.md"],
        backend=StateBackend(files={"/AGENTS.md": "Prefer metric units."}),
    )
    assert "Prefer metric units." in model.last.system_text


def test_skills_are_listed_from_skill_files() -> None:
    skill = "---\nname: invoices\ndescription: Read and check invoices.\n---\nSteps..."
    model, _ = _run(
        ["ok"], skills=["/skills"], backend=StateBackend(files={"/skills/inv/SKILL.md": skill})
    )
    assert "- invoices: Read and check invoices. (/skills/inv/SKILL.md)" in model.last.system_text


def _hitl_agent(turns: list[Any]) -> Any:
    return create_deep_agent(
        ScriptedModel(turns),
        interrupt_on={"write_file": True, "ls": False},
        checkpointer=InMemoryCheckpointer(),
    )


def test_human_in_the_loop_approve_edit_reject() -> None:
    write = call("write_file", {"file_path": "/a.txt", "content": "draft"})
    agent = _hitl_agent([write, "done"])
    paused = agent.invoke(ASK, thread_id="approve")
    request = paused.interrupts[0].value
    assert request["action_requests"][0]["name"] == "write_file"
    assert request["review_configs"][0]["allowed_decisions"] == ["approve", "edit", "reject"]
    approved = agent.invoke(
        Command(resume={"decisions": [{"type": "approve"}]}), thread_id="approve"
    )
    assert approved.state["files"] == {"/a.txt": "draft"}

    agent = _hitl_agent([write, "done"])
    agent.invoke(ASK, thread_id="edit")
    edited = agent.invoke(
        Command(
            resume={
                "decisions": [{"type": "edit", "args": {"file_path": "/b.txt", "content": "final"}}]
            }
        ),
        thread_id="edit",
    )
    assert edited.state["files"] == {"/b.txt": "final"}

    agent = _hitl_agent([write, "done"])
    agent.invoke(ASK, thread_id="reject")
    rejected = agent.invoke(
        Command(resume={"decisions": [{"type": "reject", "message": "Not now."}]}),
        thread_id="reject",
    )
    assert "files" not in rejected.state
    assert [(m.text, m.status) for m in rejected.messages if m.role == "tool"] == [
        ("Not now.", "error")
    ]


def test_human_in_the_loop_rejects_malformed_decisions() -> None:
    agent = create_deep_agent(
        ScriptedModel([call("write_file", {"file_path": "/a", "content": "x"}), "done"]),
        interrupt_on={"write_file": {"allowed_decisions": ["approve", "reject"]}},
        checkpointer=InMemoryCheckpointer(),
    )
    agent.invoke(ASK, thread_id="t")
    with pytest.raises(InvalidInputError, match="not allowed; allowed: \\['approve', 'reject'\\]"):
        agent.invoke(Command(resume={"decisions": [{"type": "edit", "args": {}}]}), thread_id="t")
    with pytest.raises(InvalidInputError, match="1 decision"):
        agent.invoke(Command(resume={"decisions": []}), thread_id="t")


def test_excluded_middleware_is_removed_but_scaffolding_is_not() -> None:
    with isolated_profiles() as registry:
        registry.register_harness_profile(
            "p", HarnessProfile(excluded_middleware=frozenset({"TodoListMiddleware"}))
        )
        model = RecordingModel(ScriptedModel(["ok"], provider="p"))
        create_deep_agent(model, profiles=registry).invoke(ASK)
        assert "write_todos" not in model.last.tool_names
        with pytest.raises(HookproofError, match="SubAgentMiddleware"):
            HarnessProfile(excluded_middleware=frozenset({"SubAgentMiddleware"}))


def test_model_strings_resolve_through_registered_factories() -> None:
    with isolated_profiles() as registry:
        with pytest.raises(
            InvalidInputError, match="no model factory is registered for provider 'acme'"
        ):
            create_deep_agent("acme:m1", profiles=registry)
        registry.register_model_factory(
            "acme", lambda name, **kw: ScriptedModel(["hi"], name=name, provider="acme")
        )
        registry.register_harness_profile("acme:m1", HarnessProfile(system_prompt_suffix="[M1]"))
        agent = create_deep_agent("acme:m1", profiles=registry)
        assert agent.model.name == "m1"
        assert "[M1]" in agent.system_message.text  # type: ignore[union-attr]


def test_subagents_can_be_given_as_dicts_and_bad_ones_are_explained() -> None:
    spec = {"name": "critic", "description": "Reviews drafts.", "system_prompt": "Critique."}
    model, _ = _run(["ok"], subagents=[spec])
    assert "- critic: Reviews drafts." in model.last.tool("task").description
    with pytest.raises(InvalidInputError, match="subagent 'x' is malformed"):
        create_deep_agent(ScriptedModel([]), subagents=[{"name": "x"}])
    with pytest.raises(InvalidInputError, match="not int"):
        create_deep_agent(ScriptedModel([]), subagents=[3])  # type: ignore[list-item]


FILES = {"/a.py": "print(1)", "/src/b.py": "print(2)", "/src/c.txt": "x"}


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("*.py", ["/a.py"]),
        ("**/*.py", ["/a.py", "/src/b.py"]),
        ("src/*", ["/src/b.py", "/src/c.txt"]),
    ],
)
def test_glob_is_a_shell_glob(pattern: str, expected: list[str]) -> None:
    assert StateBackend().glob(FILES, pattern, "/") == expected


def test_file_tool_edges() -> None:
    backend = StateBackend()
    with pytest.raises(ToolError, match="old_string is empty"):
        backend.edit(FILES, "/a.py", "", "Z", True)
    with pytest.raises(ToolError, match="offset must be >= 0"):
        backend.read(FILES, "/a.py", -1, 10)
    assert backend.grep(FILES, "print", "/src/b.py", None) == ["/src/b.py:1: print(2)"]
    assert backend.ls(FILES, "/a.py") == ["/a.py"]


def test_summarization_with_nothing_kept() -> None:
    middleware = SummarizationMiddleware(max_tokens=1, keep_messages=0)
    update = middleware.before_model(
        {"messages": [UserMessage(content="x" * 100), AssistantMessage(content="y" * 100)]}, None
    )
    assert update["messages"][1].text.startswith("Summary of the conversation so far")
    assert len(update["messages"]) == 2

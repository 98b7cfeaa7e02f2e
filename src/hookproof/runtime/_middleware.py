"""The LangChain-shaped middleware dialect: AgentMiddleware, its decorators, and its compiler.

Order (as LangChain v1): before_* hooks in list order, after_* hooks in reverse order, wrap_*
hooks as an onion with the first middleware outermost. Every hook has an async twin named
with an ``a`` prefix; under ainvoke the twin is preferred and a sync hook still runs.
"""

from __future__ import annotations

import inspect
import weakref
from collections.abc import Callable, Sequence
from typing import Any, Generic, Protocol, TypeVar, overload

from typing_extensions import TypeVar as DefaultedTypeVar  # PEP 696 defaults before 3.13

from hookproof._engine import Layer, NodeHook, Stack
from hookproof.errors import DuplicateMiddlewareError, UsageError, did_you_mean
from hookproof.messages import SystemMessage
from hookproof.requests import ModelRequest
from hookproof.runtime._layers import model_layer, tool_layer
from hookproof.runtime._state import AgentState, DefaultMiddlewareState
from hookproof.tools import Tool

__all__ = [
    "AgentMiddleware",
    "after_agent",
    "after_model",
    "before_agent",
    "before_model",
    "compile_middleware",
    "dynamic_prompt",
    "hook_config",
    "wrap_model_call",
    "wrap_tool_call",
]

NODE_HOOKS = ("before_agent", "before_model", "after_model", "after_agent")
WRAP_HOOKS = ("wrap_model_call", "wrap_tool_call")
ALL_HOOKS = NODE_HOOKS + WRAP_HOOKS
_HOOK_PREFIXES = ("before_", "after_", "wrap_", "abefore_", "aafter_", "awrap_")
JUMP_TARGETS = ("end", "model", "tools")
_JUMPS_ATTRIBUTE = "__can_jump_to__"

F = TypeVar("F", bound=Callable[..., Any])


# As LangChain's: AgentMiddleware[MyState], [MyState, MyContext] and [.., .., Response] all
# work; the parameters only type the hooks (nothing is checked at run time).
StateT = DefaultedTypeVar("StateT", default=AgentState[Any], covariant=True)
ContextT = DefaultedTypeVar("ContextT", default=Any)
ResponseT = DefaultedTypeVar("ResponseT", default=Any)


class AgentMiddleware(Generic[StateT, ContextT, ResponseT]):
    """Base class for middleware. Define any of the hooks below (and their ``a`` twins).

    Node hooks ``before_agent``, ``before_model``, ``after_model``, ``after_agent`` take
    ``(self, state, runtime)`` and return None, a dict of state updates or
    ``Command(update=...)``. A dict's ``"jump_to"`` ("end", "model" or "tools") is followed
    only when the hook declared it with ``@hook_config(can_jump_to=[...])``, as in LangChain.
    Wrap hooks ``wrap_model_call(self, request, handler)`` and ``wrap_tool_call(self,
    request, handler)`` may call ``handler`` zero, one or several times. ``tools`` registers
    extra tools; ``state_schema`` (an ``AgentState`` subclass) declares extra state keys,
    with reducers in ``Annotated`` metadata.
    Keep no per-request data on ``self``: one instance serves every run.
    """

    name: str = "AgentMiddleware"
    tools: Sequence[Tool] = ()
    state_schema: type | None = DefaultMiddlewareState  # declares nothing beyond AgentState

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "name" not in cls.__dict__:
            cls.name = cls.__name__


def hook_config(*, can_jump_to: Sequence[str] | None = None) -> Callable[[F], F]:
    """Declare where a node hook may jump: ``@hook_config(can_jump_to=["end"])`` on
    ``before_model`` and the other node hooks (LangChain's decorator of the same name). A
    ``jump_to`` the hook did not declare is ignored, and the trace records it."""
    jumps = _checked_jumps(can_jump_to, "hook_config(can_jump_to=...)")

    def configure(func: F) -> F:
        setattr(func, _JUMPS_ATTRIBUTE, jumps)
        return func

    return configure


def _checked_jumps(value: Sequence[str] | None, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str) or not all(item in JUMP_TARGETS for item in value):
        raise UsageError(
            f"hookproof: {where} got {value!r}; it takes a list of jump targets among "
            f"{list(JUMP_TARGETS)}, e.g. can_jump_to=['end']."
        )
    return tuple(value)


def _declared_jumps(sync: Any, async_: Any) -> frozenset[str]:
    for hook in (sync, async_):
        found = getattr(hook, _JUMPS_ATTRIBUTE, None)
        if found:
            return frozenset(found)
    return frozenset()


_HOOK_NAMES = [*ALL_HOOKS, *(f"a{hook}" for hook in ALL_HOOKS)]
_KNOWN_HOOKS = frozenset(_HOOK_NAMES)
# class -> the size of each class' namespace along its MRO when its names last passed: a
# factory builds its middleware anew for every run, and their classes rarely change
_NAMES_PASSED: weakref.WeakKeyDictionary[type, tuple[int, ...]] = weakref.WeakKeyDictionary()


def _check_hook_names(middleware: object) -> None:
    kind = type(middleware)
    sizes = tuple(map(len, map(vars, kind.__mro__)))
    if _NAMES_PASSED.get(kind) == sizes:  # no name added to it or its bases since
        return
    _check_names_of(kind, middleware)
    _NAMES_PASSED[kind] = sizes


def _check_names_of(kind: type, middleware: object) -> None:
    for attribute in dir(kind):
        if attribute.startswith(_HOOK_PREFIXES) and attribute not in _KNOWN_HOOKS:
            suggestion = did_you_mean(attribute, _HOOK_NAMES)
            raise UsageError(
                f"hookproof: middleware {_name_of(middleware)!r} defines {attribute!r}, which "
                f"is not a hook, so it would never run.{suggestion} Hooks: {', '.join(ALL_HOOKS)}"
                " (and their async twins prefixed with 'a')."
            )


def _name_of(middleware: object) -> str:
    name = getattr(middleware, "name", None)
    return name if isinstance(name, str) and name else type(middleware).__name__


def _check_middleware(middleware: Sequence[object]) -> list[str]:
    names: list[str] = []
    for index, item in enumerate(middleware):
        if isinstance(item, type):
            raise UsageError(
                f"hookproof: middleware[{index}] is the class {item.__name__}, not an instance. "
                f"Pass {item.__name__}()."
            )
        _check_hook_names(item)
        name = _name_of(item)
        if name in names:
            raise DuplicateMiddlewareError(
                f"hookproof: two middleware are named {name!r} (positions {names.index(name)} "
                f"and {index}). Names identify middleware in traces and contracts; give one a "
                "distinct `name` attribute."
            )
        names.append(name)
    return names


def compile_middleware(middleware: Sequence[object]) -> Stack:
    """Compile middleware instances into the engine's Stack, in LangChain v1 order."""
    names = _check_middleware(middleware)
    found = [(name, _defined_hooks(item)) for name, item in zip(names, middleware, strict=True)]
    reverse = found[::-1]

    def nodes(
        hook: str, order: list[tuple[str, dict[str, tuple[Any, Any]]]]
    ) -> tuple[NodeHook, ...]:
        return tuple(
            [
                NodeHook(name, hook, *pair, _declared_jumps(*pair))
                for name, hooks in order
                if (pair := hooks.get(hook)) is not None
            ]
        )

    def layers(hook: str, layer: Any) -> tuple[Layer, ...]:
        return tuple(
            [layer(name, *pair) for name, hooks in found if (pair := hooks.get(hook)) is not None]
        )

    return Stack(
        before_agent=nodes("before_agent", found),
        before_model=nodes("before_model", found),
        after_model=nodes("after_model", reverse),
        after_agent=nodes("after_agent", reverse),
        model_layers=layers("wrap_model_call", model_layer),
        tool_layers=layers("wrap_tool_call", tool_layer),
    )


def _defined_hooks(middleware: object) -> dict[str, tuple[Any, Any]]:
    """The hooks ``middleware`` defines, each as (sync, async twin), either None if absent."""
    defined = {}
    for hook in ALL_HOOKS:
        sync, async_ = getattr(middleware, hook, None), getattr(middleware, f"a{hook}", None)
        sync, async_ = (sync if callable(sync) else None), (async_ if callable(async_) else None)
        if sync or async_:
            defined[hook] = (sync, async_)
    return defined


def _function_middleware(
    hook: str,
    func: Callable[..., Any],
    name: str | None,
    tools: Sequence[Tool],
    state_schema: type | None,
    can_jump_to: Sequence[str] | None = None,
) -> AgentMiddleware:
    is_async = inspect.iscoroutinefunction(func)
    attribute = f"a{hook}" if is_async else hook

    def method(_self: object, *args: Any) -> Any:
        return func(*args)

    if is_async:

        async def method(_self: object, *args: Any) -> Any:  # type: ignore[misc]
            return await func(*args)

    jumps = _checked_jumps(can_jump_to, f"@{hook}(can_jump_to=...)")
    if jumps:
        setattr(method, _JUMPS_ATTRIBUTE, jumps)
    class_name = str(name or getattr(func, "__name__", hook))
    namespace: dict[str, Any] = {
        attribute: method,
        "name": class_name,
        "tools": tuple(tools),
        "state_schema": state_schema or AgentState,  # LangChain's decorators do the same
        "__doc__": func.__doc__,
    }
    cls = type(class_name, (AgentMiddleware,), namespace)
    return cls()  # type: ignore[no-any-return]


class HookDecorator(Protocol):
    """``@before_model`` or ``@before_model(name=..., tools=..., state_schema=...,
    can_jump_to=...)``."""

    @overload
    def __call__(self, func: Callable[..., Any], /) -> AgentMiddleware: ...
    @overload
    def __call__(
        self,
        *,
        name: str | None = None,
        tools: Sequence[Tool] = (),
        state_schema: type | None = None,
        can_jump_to: Sequence[str] | None = None,
    ) -> Callable[[Callable[..., Any]], AgentMiddleware]: ...


def _decorator(hook: str) -> HookDecorator:
    @overload
    def decorate(func: Callable[..., Any], /) -> AgentMiddleware: ...
    @overload
    def decorate(
        *,
        name: str | None = None,
        tools: Sequence[Tool] = (),
        state_schema: type | None = None,
        can_jump_to: Sequence[str] | None = None,
    ) -> Callable[[Callable[..., Any]], AgentMiddleware]: ...

    def decorate(
        func: Callable[..., Any] | None = None,
        /,
        *,
        name: str | None = None,
        tools: Sequence[Tool] = (),
        state_schema: type | None = None,
        can_jump_to: Sequence[str] | None = None,
    ) -> Any:
        def build(inner: Callable[..., Any]) -> AgentMiddleware:
            return _function_middleware(hook, inner, name, tools, state_schema, can_jump_to)

        return build(func) if func is not None else build

    decorate.__name__ = decorate.__qualname__ = hook
    decorate.__doc__ = (
        f"Turn a function into a middleware whose {hook} hook it is. Use bare or with "
        "name=, tools=, state_schema= (and can_jump_to= for a node hook). An async function "
        "becomes the async twin."
    )
    return decorate


before_agent = _decorator("before_agent")
before_model = _decorator("before_model")
after_model = _decorator("after_model")
after_agent = _decorator("after_agent")
wrap_model_call = _decorator("wrap_model_call")
wrap_tool_call = _decorator("wrap_tool_call")


def _as_system_message(value: object, owner: str) -> SystemMessage:
    if isinstance(value, SystemMessage):
        return value
    if isinstance(value, str):
        return SystemMessage(content=value)
    raise UsageError(
        f"hookproof: dynamic_prompt {owner!r} returned {type(value).__name__}; return the "
        "prompt as a str or a SystemMessage."
    )


def dynamic_prompt(func: Callable[[ModelRequest], Any]) -> AgentMiddleware:
    """A middleware that replaces the system message with ``func(request)`` on every call."""
    owner = getattr(func, "__name__", "dynamic_prompt")
    if inspect.iscoroutinefunction(func):

        async def awrap(request: ModelRequest, handler: Callable[..., Any]) -> Any:
            prompt = _as_system_message(await func(request), owner)
            return await handler(request.override(system_message=prompt))

        return _function_middleware("wrap_model_call", awrap, owner, (), None)

    def wrap(request: ModelRequest, handler: Callable[..., Any]) -> Any:
        prompt = _as_system_message(func(request), owner)
        return handler(request.override(system_message=prompt))

    return _function_middleware("wrap_model_call", wrap, owner, (), None)

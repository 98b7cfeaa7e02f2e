"""The registry of report formats: what ``hookproof gate --format`` offers and runs.

A format is a function from a GateReport to text (or the ``"module:function"`` path of one,
imported when the format is first used), with a one-line help. A new format is that function
plus one ``register_format`` call; the command's choices, its help and the dispatch all read
this registry, in the order formats were registered (the built-in ones first). The built-in
formats are registered by path, so ``hookproof --help`` lists them without loading the gate.
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from hookproof.errors import UsageError

if TYPE_CHECKING:
    from hookproof.gate._report import GateReport

Renderer = Callable[["GateReport"], str]

__all__ = [
    "DEFAULT_FORMAT",
    "ReportFormat",
    "register_format",
    "report_format",
    "report_formats",
    "unregister_format",
]

DEFAULT_FORMAT = "text"


@dataclass(frozen=True)
class ReportFormat:
    """A way to render a GateReport: ``hookproof gate --format NAME`` prints ``render``'s
    text; ``help`` says what it gives, in the command's help."""

    name: str
    renderer: Renderer | str  # the function, or its "module:function" path
    help: str

    def render(self, report: GateReport) -> str:
        text = self._function()(report)
        if not isinstance(text, str):
            raise UsageError(
                f"hookproof: report format {self.name!r} returned a {type(text).__name__}, "
                "not text. A format's function takes a GateReport and returns a str."
            )
        return text

    def _function(self) -> Renderer:
        if not isinstance(self.renderer, str):
            return self.renderer
        module, _, function = self.renderer.partition(":")
        try:
            found = getattr(importlib.import_module(module), function)
        except (ImportError, AttributeError) as error:
            raise UsageError(
                f"hookproof: report format {self.name!r} names {self.renderer!r}, which cannot "
                f"be loaded ({error}). Register it with an importable 'module:function' path "
                "or the function itself."
            ) from error
        if not callable(found):
            raise UsageError(
                f"hookproof: report format {self.name!r} names {self.renderer!r}, which is a "
                f"{type(found).__name__}, not a function of a GateReport."
            )
        return cast("Renderer", found)


_FORMATS: dict[str, ReportFormat] = {}


def register_format(name: str, render: Renderer | str, *, help: str) -> None:
    """Offer ``render`` (a function, or its ``"module:function"`` path) as ``hookproof gate
    --format NAME``; a taken name is refused."""
    if not name.isidentifier() or not (callable(render) or _is_path(render)):
        raise UsageError(
            f"hookproof: a report format needs a name made of letters, digits and _ and a "
            f"function of a GateReport, got {name!r} and {render!r:.60}."
        )
    if name in _FORMATS:
        raise UsageError(
            f"hookproof: a report format named {name!r} is already registered. Pick another "
            f"name, or unregister_format({name!r}) first."
        )
    _FORMATS[name] = ReportFormat(name, render, help)


def _is_path(render: object) -> bool:
    return isinstance(render, str) and render.count(":") == 1 and all(render.split(":"))


def unregister_format(name: str) -> None:
    """Withdraw a registered format (for tests that register one of their own)."""
    del _FORMATS[report_format(name).name]


def report_formats() -> tuple[ReportFormat, ...]:
    return tuple(_FORMATS.values())


def report_format(name: str) -> ReportFormat:
    """The format registered as ``name``; an unknown name is refused, with the known ones."""
    if name in _FORMATS:
        return _FORMATS[name]
    close = difflib.get_close_matches(name, _FORMATS, n=1)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    raise UsageError(
        f"hookproof: no report format is registered as {name!r}.{hint} "
        f"Registered: {', '.join(_FORMATS)}."
    )


register_format(
    "text",
    "hookproof.gate._text:format_text",
    help="the findings with indented diffs, a count per class, the verdict last (default)",
)
register_format(
    "markdown",
    "hookproof.gate._markdown:format_markdown",
    help="a pull-request comment, cut at 65,536 characters",
)
register_format(
    "json",
    "hookproof.gate._json:format_json",
    help="the verdict, counts, findings and files as data",
)
register_format(
    "html",
    "hookproof.gate._html:format_html",
    help="one self-contained page with side-by-side diffs (use with -o)",
)

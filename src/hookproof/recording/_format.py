"""The cassette file: one readable, versioned JSON document per test, written atomically.

Each exchange keeps the request as hookproof's snapshot format renders it, one line per
array item (so a diff of the file reads like a diff of a snapshot), its sha256 (what replay
matches on), which kind of model answered (the codec of the answer) and the answer itself.
Everything passes through ``hookproof.redaction`` before it is written.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hookproof._support.safe_files import load_json, read_text, write_text
from hookproof.errors import CassetteFormatError, FileAccessError, UnsafePathError

__all__ = ["FORMAT_VERSION", "Exchange", "dumps", "loads", "read", "request_sha256", "write"]

FORMAT_VERSION = 1
_FORMAT = "hookproof cassette"


def request_sha256(request: str) -> str:
    return hashlib.sha256(request.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Exchange:
    """One model call: the rendered (redacted) request, the answering model's kind and its
    answer as JSON data."""

    request: str
    kind: str
    answer: Mapping[str, Any]

    @property
    def sha256(self) -> str:
        return request_sha256(self.request)


def dumps(exchanges: Sequence[Exchange], *, test: str | None) -> str:
    """The file's text, redacted: keys in a fixed order, two-space indents, one final
    newline, so the same exchanges always give the same bytes."""
    from hookproof.redaction import redact_data

    document = redact_data(
        {
            "format": _FORMAT,
            "version": FORMAT_VERSION,
            "test": test,
            "exchanges": [_exchange_data(item) for item in exchanges],
        }
    )
    for item in document["exchanges"]:  # the hash of what is written, redacted
        item["sha256"] = request_sha256("\n".join(item["request"]) + "\n")
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def _exchange_data(exchange: Exchange) -> dict[str, Any]:
    return {
        "request": exchange.request.removesuffix("\n").split("\n"),
        "sha256": exchange.sha256,
        "kind": exchange.kind,
        "answer": dict(exchange.answer),
    }


def write(path: Path, text: str, *, root: Path | None = None) -> None:
    """Replace ``path`` with ``text`` atomically: a reader sees the old file or the new one,
    never half of one, and a failed write leaves the old file as it was. With ``root``, no
    level of ``path`` may lead out of it."""
    write_text(path, text, root=root)


def read(path: Path, *, root: Path | None = None) -> list[Exchange]:
    """The exchanges of the cassette at ``path``: a regular UTF-8 file of bounded size
    (inside ``root`` when given), or a CassetteFormatError saying why not."""
    try:
        text = read_text(path, root=root)
    except UnsafePathError:
        raise
    except FileAccessError as error:
        raise _format_error(path, f"it {error.problem}") from None
    return loads(text, source=path)


def loads(text: str, *, source: Path | str) -> list[Exchange]:
    try:
        document = load_json(text, source=str(source))
    except FileAccessError as error:
        raise _format_error(source, f"it {error.problem}") from None
    if not isinstance(document, dict) or document.get("format") != _FORMAT:
        raise _format_error(source, f'it has no "format": "{_FORMAT}" field')
    version = document.get("version")
    # bool is an int to Python: `"version": true` is no format number.
    if type(version) is not int or version != FORMAT_VERSION:
        raise _format_error(
            source, f"it was written in format {version!r}, this hookproof reads {FORMAT_VERSION}"
        )
    items = document.get("exchanges")
    if not isinstance(items, list):
        raise _format_error(source, 'its "exchanges" is not a list')
    return [_exchange(item, index, source) for index, item in enumerate(items)]


def _exchange(item: Any, index: int, source: Path | str) -> Exchange:
    where = f"exchange {index}"
    if not isinstance(item, dict):
        raise _format_error(source, f"{where} is not an object")
    lines, kind, answer = item.get("request"), item.get("kind"), item.get("answer")
    if not isinstance(lines, list) or not all(isinstance(line, str) for line in lines):
        raise _format_error(source, f'{where} has no "request" list of lines')
    if not isinstance(kind, str) or not isinstance(answer, dict):
        raise _format_error(source, f'{where} needs a "kind" string and an "answer" object')
    exchange = Exchange("\n".join(lines) + "\n", kind, answer)
    if item.get("sha256") != exchange.sha256:
        raise _format_error(
            source,
            f"the request of {where} was changed after it was recorded (its sha256 no longer "
            "matches), so replay would match calls against a request nobody recorded",
        )
    return exchange


def _format_error(source: Path | str, problem: str) -> CassetteFormatError:
    return CassetteFormatError(
        f"hookproof: the cassette {source} cannot be read: {problem}. Record it again with "
        "record mode all (`pytest --hookproof-record-mode=all <the test>`), or restore it "
        "from version control."
    )

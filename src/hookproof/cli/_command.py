"""A subcommand of ``hookproof``: its name, help, arguments and what it runs.

Each subcommand module defines one ``COMMAND``; ``hookproof.cli`` adds them to its parser in
order, so a subcommand is one module plus one entry in that list.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["Command"]


def _no_arguments(parser: argparse.ArgumentParser) -> None:
    del parser


@dataclass(frozen=True)
class Command:
    name: str
    help: str
    run: Callable[[argparse.Namespace], int]
    description: str | None = None
    arguments: Callable[[argparse.ArgumentParser], None] = _no_arguments

    def add_to(self, commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
        parser = commands.add_parser(self.name, help=self.help, description=self.description)
        self.arguments(parser)
        parser.set_defaults(handler=self.run)

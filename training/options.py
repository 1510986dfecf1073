"""Command-line options from a settings dataclass (CleanRL style: one field, one ``--option``)."""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any


def dataclass_parser(
    cls: type, help_text: Mapping[str, str], prog: str, description: str,
    choices: Mapping[str, Sequence[str]] | None = None, epilog: str | None = None,
) -> argparse.ArgumentParser:  # fmt: skip
    """A parser with one ``--kebab-case`` option per field of ``cls`` (bools as ``--x/--no-x``).

    Every field needs an entry in ``help_text``; ``choices`` restricts string fields.
    """
    parser = argparse.ArgumentParser(prog=prog, description=description, epilog=epilog)
    for f in dataclasses.fields(cls):
        flag = "--" + f.name.replace("_", "-")
        if f.type == "bool":
            parser.add_argument(
                flag, action=argparse.BooleanOptionalAction, default=f.default, help=help_text[f.name]
            )
            continue
        kind = {"int": int, "float": float}.get(str(f.type), str)
        extra: dict[str, Any] = {"choices": list(choices[f.name])} if choices and f.name in choices else {}
        parser.add_argument(
            flag, type=kind, default=f.default, help=f"{help_text[f.name]} (default: {f.default})", **extra
        )
    return parser

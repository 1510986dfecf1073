"""Command-line options from a settings dataclass (CleanRL style: one field, one ``--option``)."""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any


def dataclass_parser(
    cls: type, help_text: Mapping[str, str], prog: str, description: str,
    choices: Mapping[str, Sequence[str]] | None = None, epilog: str | None = None, skip: Sequence[str] = (),
    defaults: Mapping[str, Any] | None = None,
) -> argparse.ArgumentParser:  # fmt: skip
    """A parser with one ``--kebab-case`` option per field of ``cls`` (:func:`add_dataclass_options`)."""
    parser = argparse.ArgumentParser(prog=prog, description=description, epilog=epilog)
    add_dataclass_options(parser, cls, help_text, choices, skip, defaults)
    return parser


def add_dataclass_options(
    parser: argparse.ArgumentParser, cls: type, help_text: Mapping[str, str],
    choices: Mapping[str, Sequence[str]] | None = None, skip: Sequence[str] = (),
    defaults: Mapping[str, Any] | None = None,
) -> None:  # fmt: skip
    """Add one ``--kebab-case`` option per field of ``cls`` to ``parser`` (bools as ``--x/--no-x``).

    Every field needs an entry in ``help_text``; ``choices`` restricts string fields; the fields in ``skip``
    get no option; ``defaults`` replaces some fields' defaults.
    """
    for f in dataclasses.fields(cls):
        if f.name in skip:
            continue
        flag = "--" + f.name.replace("_", "-")
        default = defaults[f.name] if defaults and f.name in defaults else f.default
        if f.type == "bool":
            parser.add_argument(
                flag, action=argparse.BooleanOptionalAction, default=default, help=help_text[f.name]
            )
            continue
        kind = {"int": int, "float": float}.get(str(f.type), str)
        extra: dict[str, Any] = {"choices": list(choices[f.name])} if choices and f.name in choices else {}
        parser.add_argument(
            flag, type=kind, default=default, help=f"{help_text[f.name]} (default: {default})", **extra
        )


def check_ranges(
    args: Any, *, at_least_1: Sequence[str] = (), at_least_0: Sequence[str] = (), positive: Sequence[str] = (),
    intervals: Sequence[tuple[str, float, float]] = (),
) -> None:  # fmt: skip
    """Raise ``ValueError`` naming the first field of ``args`` out of its range, as ``--option``.

    ``intervals`` holds ``(field, low, high)``: the value must lie in ``(low, high]``.
    """
    flag = lambda name: "--" + name.replace("_", "-")
    for name in at_least_1:
        if getattr(args, name) < 1:
            raise ValueError(f"{flag(name)} must be at least 1, got {getattr(args, name)}")
    for name in at_least_0:
        if not getattr(args, name) >= 0:
            raise ValueError(f"{flag(name)} must be at least 0, got {getattr(args, name)}")
    for name in positive:
        if not getattr(args, name) > 0:
            raise ValueError(f"{flag(name)} must be positive, got {getattr(args, name)}")
    for name, low, high in intervals:
        if not low < getattr(args, name) <= high:
            raise ValueError(f"{flag(name)} must be in ({low}, {high}], got {getattr(args, name)}")


def layer_sizes(text: str, option: str) -> list[int]:
    """``"256,256"`` -> ``[256, 256]``; ``ValueError`` naming ``option`` otherwise."""
    try:
        sizes = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        sizes = []
    if not sizes or min(sizes) < 1:
        raise ValueError(f"{option} must be positive layer sizes separated by commas, got {text!r}")
    return sizes

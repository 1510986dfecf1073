"""The ``euchre`` command line: ``euchre bench | eval | train | play``.

It lives in ``training`` (the top of ``euchre_env <- agents <- training``)
because ``eval``, ``train`` and ``play`` need agents; each subcommand hands
its remaining arguments to that module's ``main(argv)``.
"""

from __future__ import annotations

import importlib
import sys

COMMANDS = {
    "bench": ("euchre_env.bench", "measure engine and environment throughput beside OpenSpiel"),
    "eval": ("training.evaluate", "duplicate-deal tournament between agents"),
    "train": ("training.train", "train a MaskablePPO agent (self-play or against an opponent pool)"),
    "play": ("training.play", "play a hand or a game in the terminal against bots"),
}


def main(argv: list[str] | None = None) -> int:
    """Dispatch ``euchre <command> [args...]``."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help") or args[0] not in COMMANDS:
        print("usage: euchre <command> [options]   (euchre <command> --help for its options)\n")
        for name, (_, what) in COMMANDS.items():
            print(f"  {name:6s} {what}")
        if args and args[0] not in ("-h", "--help"):
            print(f"\neuchre: unknown command {args[0]!r}", file=sys.stderr)
            return 2
        return 0
    module = importlib.import_module(COMMANDS[args[0]][0])
    result = module.main(args[1:])
    return result if isinstance(result, int) else 0


if __name__ == "__main__":
    raise SystemExit(main())

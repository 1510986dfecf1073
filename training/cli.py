"""The ``euchre`` command line: ``euchre bench | eval | train | play | serve | dataset | partner-bench``.

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
    "train": (
        "training.ppo",
        "train an agent: batched self-play PPO (--algo ppo, default) or MaskablePPO (--algo sb3)",
    ),
    "play": ("training.play", "play a hand or a game in the terminal against bots"),
    "serve": ("training.serve", "play in the browser against bots; replay hand records"),
    "dataset": (
        "training.dataset",
        "write labelled five-handed hands for hidden-partner inference (Parquet)",
    ),
    "partner-bench": (
        "training.partner_bench",
        "score hidden-partner beliefs (five-handed): log-loss, calibration",
    ),
}

# euchre train --algo NAME: the trainer's module (its --help lists its own options).
ALGOS = {"ppo": "training.ppo", "sb3": "training.train"}


def _pop_algo(args: list[str]) -> tuple[str, list[str]]:
    """``--algo X`` / ``--algo=X`` out of ``args`` (default ``ppo``); the rest unchanged."""
    rest, algo, i = [], "ppo", 0
    while i < len(args):
        if args[i] == "--algo":
            algo = args[i + 1] if i + 1 < len(args) else ""
            i += 2
            continue
        if args[i].startswith("--algo="):
            algo = args[i].split("=", 1)[1]
        else:
            rest.append(args[i])
        i += 1
    return algo, rest


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
    name, rest = COMMANDS[args[0]][0], args[1:]
    if args[0] == "train":
        algo, rest = _pop_algo(rest)
        if algo not in ALGOS:
            print(f"euchre train: error: --algo must be one of {list(ALGOS)}, got {algo!r}", file=sys.stderr)
            return 2
        name = ALGOS[algo]
    module = importlib.import_module(name)
    result = module.main(rest)
    return result if isinstance(result, int) else 0


if __name__ == "__main__":
    raise SystemExit(main())

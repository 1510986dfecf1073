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
    "eval": ("arena.evaluate", "duplicate-deal tournament between agents"),
    "train": (
        "training.batched.ppo",
        (
            "train an agent: batched self-play PPO (--algo ppo, default), MaskablePPO (--algo sb3), "
            "or multi-agent PPO on Ray RLlib (--backend rllib)"
        ),
    ),
    "play": ("apps.play", "play a hand or a game in the terminal against bots"),
    "serve": ("apps.serve", "play in the browser against bots; replay hand records"),
    "dataset": (
        "partner_lab.dataset",
        "write labelled five-handed hands for hidden-partner inference (Parquet)",
    ),
    "partner-bench": (
        "partner_lab.bench",
        "score hidden-partner beliefs (five-handed): log-loss, calibration",
    ),
}

# euchre train [--backend local] --algo NAME, or --backend rllib: the trainer's module (its --help lists its options).
ALGOS = {"ppo": "training.batched.ppo", "sb3": "training.sb3.train"}
BACKENDS = ("local", "rllib")
RLLIB = "training.rllib.train"


def _pop_option(args: list[str], option: str) -> tuple[str | None, list[str]]:
    """``--option X`` / ``--option=X`` out of ``args`` (None when absent); the rest unchanged."""
    rest, value, i = [], None, 0
    while i < len(args):
        if args[i] == option:
            value = args[i + 1] if i + 1 < len(args) else ""
            i += 2
            continue
        if args[i].startswith(option + "="):
            value = args[i].split("=", 1)[1]
        else:
            rest.append(args[i])
        i += 1
    return value, rest


def _trainer(args: list[str]) -> tuple[str, list[str]]:
    """The module of ``euchre train``'s ``--backend``/``--algo`` and the remaining arguments.

    Raises:
        ValueError: an unknown backend or algorithm, or ``--algo`` with ``--backend rllib``.
    """
    backend, rest = _pop_option(args, "--backend")
    algo, rest = _pop_option(rest, "--algo")
    if backend is not None and backend not in BACKENDS:
        raise ValueError(f"--backend must be one of {list(BACKENDS)}, got {backend!r}")
    if backend == "rllib":
        if algo is not None:
            raise ValueError("--algo chooses a local trainer; --backend rllib always runs RLlib's PPO")
        return RLLIB, rest
    algo = "ppo" if algo is None else algo
    if algo not in ALGOS:
        raise ValueError(f"--algo must be one of {list(ALGOS)}, got {algo!r}")
    return ALGOS[algo], rest


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
        try:
            name, rest = _trainer(rest)
        except ValueError as err:
            print(f"euchre train: error: {err}", file=sys.stderr)
            return 2
    module = importlib.import_module(name)
    result = module.main(rest)
    return result if isinstance(result, int) else 0


if __name__ == "__main__":
    raise SystemExit(main())

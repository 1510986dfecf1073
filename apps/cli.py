"""The ``euchre`` command line: one argparse tree over the commands of every package.

    euchre bench | eval | leaderboard | exploit | train [ppo|dmc|sb3|rllib] [--backend ray] | compare-learners | analyse {phase-split,open-cards,partner-truth,halves}
           | play | serve | dataset | partner-bench        (euchre COMMAND --help for its options)

Each command is a module with ``add_arguments(parser)`` (its options, which the tree shows in
``--help`` and checks) and ``main(argv)`` (what it does, also runnable as ``python -m MODULE``).
:func:`build_parser` builds the tree; :func:`main` parses the command line with it and hands the
command's own arguments to that module's ``main``. The modules are imported here, not at the top of
any package, so this file sits above all of them (``apps`` is the top layer).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Command:
    """One leaf of the tree: its words (``("train", "sb3")``), its module, a one-line help."""

    words: tuple[str, ...]
    module: str
    help: str


TRAIN_ROUTES = {  # euchre train ROUTE: the learner's module
    "ppo": ("training.batched.ppo", "batched self-play PPO on the engine (the default route)"),
    "dmc": ("training.batched.dmc", "batched Deep Monte-Carlo on the engine (action values, epsilon-greedy)"),
    "sb3": ("training.sb3.train", "sb3-contrib's MaskablePPO on the Gymnasium envs"),
    "rllib": ("training.rllib.train", "multi-agent PPO on Ray RLlib (the rllib extra)"),
}
DEFAULT_ROUTE = "ppo"
LOCAL_ALGOS = ["ppo", "dmc", "sb3"]  # the routes --algo names (rllib is --backend rllib)
RAY_ALGOS = ["ppo", "dmc"]  # the routes that also run data-parallel on Ray (--backend ray: their own option)
BACKENDS = ["local", "ray", "rllib"]

COMMANDS = (
    Command(("bench",), "euchre_env.bench", "measure engine and environment throughput beside OpenSpiel"),
    Command(("eval",), "arena.evaluate", "duplicate-deal matches between agents, with 95%% intervals"),
    Command(("leaderboard",), "arena.leaderboard", "rate agents by every pair's match on a frozen deal set"),
    Command(("exploit",), "training.exploit", "train a best response against an agent and measure its edge"),
    *(Command(("train", route), module, what) for route, (module, what) in TRAIN_ROUTES.items()),
    Command(("compare-learners",), "training.compare", "train learners for the same minutes, compare them"),
    Command(("analyse", "phase-split"), "arena.phase_split", "an agent's edge split into bidding and play"),
    Command(("analyse", "open-cards"), "arena.open_cards", "what seeing every card is worth against an agent"),
    Command(("analyse", "partner-truth"), "arena.partner_truth", "what knowing the hidden partner is worth"),
    Command(("analyse", "halves"), "arena.five_handed_halves", "both halves of a five-handed match"),
    Command(("play",), "apps.play", "play a hand or a game in the terminal against bots"),
    Command(("serve",), "apps.serve", "play in the browser against bots; replay hand records"),
    Command(("dataset",), "partner_lab.dataset", "write labelled five-handed hands (hidden-partner data, Parquet)"),
    Command(("partner-bench",), "partner_lab.bench", "score hidden-partner beliefs: log-loss, calibration"),
)
GROUPS = {
    "train": "train an agent: euchre train [ppo|dmc|sb3|rllib] (ppo when no route is named)",
    "analyse": "yardsticks: where an agent's edge comes from",
}


def version() -> str:
    """The installed version of euchre-env (``unknown`` when run from a source tree that is not installed)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version

    try:
        return dist_version("euchre-env")
    except PackageNotFoundError:
        return "unknown"


def build_parser() -> argparse.ArgumentParser:
    """The whole tree. A parsed command line has ``command`` (its :class:`Command`) set."""
    top = argparse.ArgumentParser(
        prog="euchre", description="Euchre as a reinforcement-learning benchmark.",
        epilog="euchre COMMAND --help lists a command's options.",
    )  # fmt: skip
    top.add_argument("--version", action="version", version=f"euchre-env {version()}")
    subs = top.add_subparsers(title="commands", metavar="COMMAND", required=True)
    groups: dict[str, argparse._SubParsersAction] = {}
    for cmd in COMMANDS:
        parent = subs
        if len(cmd.words) == 2:
            group = cmd.words[0]
            if group not in groups:
                p = subs.add_parser(group, help=GROUPS[group], description=GROUPS[group])
                groups[group] = p.add_subparsers(title="routes" if group == "train" else "yardsticks",
                                                 metavar="NAME", required=True)  # fmt: skip
            parent = groups[group]
        module = importlib.import_module(cmd.module)
        doc = (module.__doc__ or cmd.help).strip().split("\n\n")[0].replace("``", "")  # plain text, not reST
        parser = parent.add_parser(cmd.words[-1], help=cmd.help, description=doc,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
        if cmd.words[0] == "train":
            route = parser.add_argument_group("route (the same as naming it: euchre train dmc, euchre train rllib)")
            route.add_argument("--algo", choices=LOCAL_ALGOS, help="the trainer (default ppo)")
            if cmd.words[1] not in RAY_ALGOS:  # those offer --backend local|ray among their own options
                route.add_argument("--backend", choices=["local", "rllib"], help="where it runs (default local)")
        module.add_arguments(parser)
        parser.set_defaults(command=cmd)
    return top


def route_words(argv: Sequence[str]) -> list[str]:
    """``argv`` with ``euchre train``'s route as its second word: ``train --algo sb3 ...`` (and ``train
    --backend rllib ...``, the older spellings) become ``train sb3 ...``, and ``train ...`` without a route
    ``train ppo ...``; ``--backend ray`` stays, an option of the ``ppo`` and ``dmc`` routes. Other command
    lines are returned unchanged.

    Raises:
        ValueError: ``--algo``/``--backend`` that disagree with each other or with a named route.
    """
    argv = list(argv)
    if not argv or argv[0] != "train":
        return argv
    named = argv[1] if len(argv) > 1 and argv[1] in TRAIN_ROUTES else None
    rest = argv[2:] if named else argv[1:]
    algo, rest = _pop_option(rest, "--algo")
    backend, rest = _pop_option(rest, "--backend")
    if algo is not None and algo not in LOCAL_ALGOS:
        raise ValueError(f"--algo must be one of {LOCAL_ALGOS}, got {algo!r}")
    if backend is not None and backend not in BACKENDS:
        raise ValueError(f"--backend must be one of {BACKENDS}, got {backend!r}")
    if backend == "rllib" and algo is not None:
        raise ValueError("--algo chooses a local trainer; --backend rllib always runs RLlib's PPO")
    implied = "rllib" if backend == "rllib" else algo
    if named and implied and implied != named:
        given = "--backend rllib" if implied == "rllib" else f"--algo {implied}"
        raise ValueError(f"euchre train {named} cannot take {given}")
    route = named or implied or DEFAULT_ROUTE
    if backend == "ray":
        if route not in RAY_ALGOS:
            raise ValueError(f"--backend ray runs the batched trainer (euchre train {' or '.join(RAY_ALGOS)}), "
                             f"not euchre train {route}")  # fmt: skip
        rest = ["--backend", "ray", *rest]
    return ["train", route, *rest]


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


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``euchre COMMAND ...``; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    try:
        argv = route_words(argv)
    except ValueError as err:
        parser.exit(2, f"euchre train: error: {err}\n")
    cmd = parser.parse_args(argv).command  # --help, --version and bad options end here
    result = importlib.import_module(cmd.module).main(argv[len(cmd.words) :])
    return result if isinstance(result, int) else 0


if __name__ == "__main__":
    raise SystemExit(main())

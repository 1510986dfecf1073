"""Play Euchre in the terminal against bots (``euchre play``, ``python -m training.play``).

You sit at one seat of the PettingZoo environment (:mod:`euchre_env.aec_env`);
every other seat is a bot (``heuristic`` by default; any ``agents.make_agent``
name such as ``random``, ``search``, ``trained`` or ``model:<path>``). Before
each of your decisions the table is drawn as you see it (the env's ``ansi``
rendering) with your legal actions numbered; answer with the number or the
words (``play AS``, ``pass``, ``order up``, ``name hearts``, ``alone``...).
Input comes from stdin, so a game can be scripted::

    euchre play --variant four_handed --seat 0 --bots heuristic
    yes 1 | euchre play --hands 2          # always the first legal action
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TextIO

import numpy as np

from euchre_env import actions
from euchre_env.aec_env import raw_env
from euchre_env.rules import PRESETS
from euchre_env.types import Policy

__all__ = ["main", "parse_choice", "play"]


def parse_choice(text: str, legal: Sequence[int]) -> int:
    """The action a player's answer means.

    Args:
        text: a number ``1 .. len(legal)`` (position in the printed list) or
            action words as ``actions.describe`` writes them (``"play AS"``).
        legal: the legal action ids, in the order they were printed.

    Returns:
        A legal action id.

    Raises:
        ValueError: saying why the answer is not a legal action.
    """
    t = text.strip()
    if not t:
        raise ValueError("type the number of an action or its words, e.g. 'play AS'")
    if t.isdigit():
        k = int(t)
        if not 1 <= k <= len(legal):
            raise ValueError(f"{k} is not on the list: choose 1..{len(legal)}")
        return int(legal[k - 1])
    a = actions.parse(t)
    if a not in legal:
        raise ValueError(
            f"{actions.describe(a)!r} is not legal now; legal: {', '.join(map(actions.describe, legal))}"
        )
    return a


def _menu(legal: Sequence[int]) -> str:
    return "   ".join(f"{i}) {actions.describe(a)}" for i, a in enumerate(legal, start=1))


def _ask(legal: Sequence[int], inp: TextIO, out: TextIO) -> int | None:
    """Prompt until a legal answer; None at end of input."""
    while True:
        out.write(f"your move: {_menu(legal)}\n> ")
        out.flush()
        line = inp.readline()
        if not line:
            return None
        if not inp.isatty():  # echo scripted answers so a transcript reads like a session
            out.write(line if line.endswith("\n") else line + "\n")
        try:
            return parse_choice(line, legal)
        except ValueError as err:
            out.write(f"  {err}\n")


def play(
    env: raw_env,
    human: int | None,
    bots: dict[int, Policy],
    hands: int,
    seed: int | None,
    inp: TextIO,
    out: TextIO,
) -> list[float] | None:
    """Play ``hands`` episodes; returns each seat's total reward, or None if the input ended early.

    Args:
        env: an unwrapped PettingZoo env with ``render_mode="ansi"``.
        human: the human's seat (None: bots only).
        bots: a policy for every other seat.
        hands: episodes to play (hands, or games with ``episode="game"``).
        seed: seed of the first deal (and of the bots' randomness).
        inp, out: the terminal.
    """
    rng = np.random.default_rng(seed)
    totals = [0.0] * env.rules.num_players
    for episode in range(hands):
        env.reset(seed=None if seed is None else seed + episode)
        out.write(f"\n=== {env.rules.variant}, episode {episode + 1} of {hands} ===\n")
        for agent in env.agent_iter():
            obs, reward, done, truncated, _ = env.last()
            seat = int(agent.rsplit("_", 1)[1])
            totals[seat] += float(reward)  # rewards gathered since this agent last acted
            if done or truncated:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"]).tolist()
            if seat == human:
                out.write("\n" + str(env.render()) + "\n")
                action = _ask(legal, inp, out)
                if action is None:
                    out.write("\nend of input: game abandoned\n")
                    return None
            else:
                mask = obs["action_mask"].astype(bool)[None]
                action = int(bots[seat].act(obs["observation"][None], mask, rng)[0])
            out.write(f"{agent}: {actions.describe(action)}\n")
            env.step(action)
            state = env.engine_state
            if bool(state.hand_over[0]):
                points = ", ".join(f"player_{i} {int(p)}" for i, p in enumerate(state.last_points[0]))
                out.write(f"--- hand over: points {points}; scores {state.scores[0].tolist()} ---\n")
    out.write(f"\ntotal rewards: {', '.join(f'player_{i} {r:g}' for i, r in enumerate(totals))}\n")
    return totals


def _parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="euchre play", description="Play Euchre in the terminal against bots."
    )
    parser.add_argument("--variant", default="four_handed", choices=sorted(PRESETS), help="rules preset")
    parser.add_argument(
        "--seat", type=int, default=0, help="your seat (0 .. players-1; -1 to watch bots play)"
    )
    parser.add_argument("--bots", nargs="+", default=["heuristic"],
                        help="agent name for every other seat, or one name per other seat from your left "
                        "(heuristic, random, search, trained, model:<path>)")  # fmt: skip
    parser.add_argument("--hands", type=int, default=1, help="hands (or games with --game) to play")
    parser.add_argument("--game", action="store_true", help="play whole games to --points-to-win")
    parser.add_argument("--points-to-win", type=int, default=None, help="game target (default: the preset's)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the deals and the bots")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None, inp: TextIO | None = None, out: TextIO | None = None) -> int:
    """CLI entry point (also ``euchre play``). Returns 0, or 1 if the input ended before the end."""
    from agents import make_agent

    args = _parse_args(argv)
    settings = {"episode": "game"} if args.game else {}
    if args.points_to_win is not None:
        settings["points_to_win"] = args.points_to_win
    env = raw_env(args.variant, render_mode="ansi", **settings)
    p = env.rules.num_players
    if not -1 <= args.seat < p:
        raise SystemExit(f"euchre play: --seat must be -1 (watch) or a seat in 0..{p - 1}, got {args.seat}")
    human = None if args.seat < 0 else args.seat
    first, count = (0, p) if human is None else (human + 1, p - 1)
    others = [(first + k) % p for k in range(count)]  # from the human's left
    if len(args.bots) not in (1, len(others)):
        raise SystemExit(
            f"euchre play: --bots takes one agent name or {len(others)} (one per other seat), got {args.bots}"
        )
    names = args.bots * len(others) if len(args.bots) == 1 else args.bots
    if any(n == "trained" or n.startswith("model:") for n in names):
        import torch

        torch.set_num_threads(1)  # one decision at a time: more threads only add overhead
    try:
        policies = {n: make_agent(n, env.rules) for n in dict.fromkeys(names)}  # one instance per name
    except ValueError as err:
        raise SystemExit(f"euchre play: --bots: {err}") from None
    bots = {seat: policies[n] for seat, n in zip(others, names, strict=True)}
    if args.hands < 1:
        raise SystemExit(f"euchre play: --hands must be at least 1, got {args.hands}")
    result = play(env, human, bots, args.hands, args.seed, inp or sys.stdin, out or sys.stdout)
    return 0 if result is not None else 1


if __name__ == "__main__":
    sys.exit(main())

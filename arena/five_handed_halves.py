"""The two halves of a five-handed duplicate match against the heuristic, each against its baseline.

A five-handed match (``arena.evaluate``) pools two seatings: the agent alone
among four heuristics, and a heuristic alone among four copies of the agent.
This splits them, on the same deals, each against a heuristic in the same seat
among heuristics, in raw points and in relative points (a seat's points minus
its table's mean), with how often the single seat is the maker. It shows where
raw points per hand mislead (``docs/experiments/training_journal.md``, five-handed)::

    euchre analyse halves model:five_handed --deals 1000 --seed 5
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import numpy as np

from agents import make_agent
from arena.evaluate import play_tables
from arena.report import Stat, mean_ci
from euchre_env.rules import make_rules
from euchre_env.types import Policy


def single_seat(single: Policy, rest: Policy, seeds: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """``single`` in each seat in turn, ``rest`` in the other four, on the deals ``seeds`` (N,).

    Returns:
        ``(raw, relative, maker)``: the single seat's points and relative points per deal,
        float (N,) each (averaged over the five seats), and the share of its hands as maker.
    """
    rules = make_rules("five_handed", episode="hand")
    n, p = seeds.size, rules.num_players
    raw, rel, maker = np.zeros(n), np.zeros(n), 0.0
    for seat in range(p):
        slots = np.ones((n, p), np.int64)
        slots[:, seat] = 0
        s = play_tables(rules, seeds, slots, [single, rest], np.random.default_rng(seat))
        pts = s.last_points.astype(np.float64)
        raw += pts[:, seat] / p
        rel += (pts[:, seat] - pts.mean(axis=1)) / p
        maker += float((s.last_maker == seat).mean()) / p
    return raw, rel, maker


def halves(agent: str, num_deals: int, seed: int) -> dict[str, dict[str, Stat | float]]:
    """``{"agent alone", "heuristic alone"}`` -> ``{"raw", "relative"}`` (each minus the heuristic among
    heuristics, CI over deals) and ``"maker"`` (the single seat's maker share; baseline's under ``"baseline"``)."""
    rules = make_rules("five_handed", episode="hand")
    a, h = make_agent(agent, rules), make_agent("heuristic", rules)
    seeds = np.random.default_rng(seed).integers(0, 2**63, size=num_deals, dtype=np.uint64)
    base_raw, base_rel, base_maker = single_seat(h, h, seeds)
    out: dict[str, dict[str, Stat | float]] = {"baseline": {"maker": base_maker}}
    for name, (single, rest) in {"agent alone": (a, h), "heuristic alone": (h, a)}.items():
        raw, rel, maker = single_seat(single, rest, seeds)
        out[name] = {"raw": mean_ci(raw - base_raw), "relative": mean_ci(rel - base_rel), "maker": maker}
    return out


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``euchre analyse halves``."""
    parser.add_argument("agent", help="an agent name, e.g. model:five_handed or model:runs/x/model.safetensors")
    parser.add_argument("--deals", type=int, default=1000, help="deals (at least 2)")
    parser.add_argument("--seed", type=int, default=5, help="makes the deals")


def main(argv: Sequence[str] | None = None) -> int:
    """CLI: print both halves of ``AGENT``'s match against the heuristic."""
    parser = argparse.ArgumentParser(prog="euchre analyse halves", description=__doc__.split("\n\n")[0])
    add_arguments(parser)
    args = parser.parse_args(argv)
    if args.deals < 2:
        parser.error(f"--deals must be at least 2, got {args.deals}")
    res = halves(args.agent, args.deals, args.seed)
    print(f"a heuristic among heuristics is maker in {res['baseline']['maker']:.1%} of its hands")
    for name in ("agent alone", "heuristic alone"):
        r = res[name]
        print(f"{name} (minus the heuristic among heuristics): raw {r['raw']}, relative {r['relative']}, "
              f"maker in {r['maker']:.1%} of its hands")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())

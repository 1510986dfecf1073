"""Where an agent's edge over the heuristic comes from: its bidding, its card play, or both.

Three duplicate matches against the heuristic on the same deals
(``arena.evaluate.evaluate_model``): the agent itself; its bidding with the
heuristic's card play; the heuristic's bidding with its card play
(``agents.phase_split.PhaseSplit``). Each line is the difference over the
heuristic in points per hand and in relative points (a seat's points minus its
table's mean; four-handed the two are the same), with 95% intervals::

    euchre analyse phase-split model:four_handed --variant four_handed --deals 10000 --seed 500
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from agents import make_agent
from agents.phase_split import PhaseSplit
from arena.evaluate import evaluate_model
from euchre_env.rules import make_rules

ROWS = ("agent", "agent bidding, heuristic playing", "heuristic bidding, agent playing")


def phase_split(agent: str, variant: str, num_deals: int, seed: int) -> dict[str, dict[str, float]]:
    """``{row of ROWS: evaluate_model's result against the heuristic}`` (``advantage``, ``ci95``,
    ``relative``, ``relative_ci95``, ``points``), every row on the same ``num_deals`` deals of ``seed``."""
    rules = make_rules(variant)
    a, h = make_agent(agent, rules), make_agent("heuristic", rules)
    crossed = (a, PhaseSplit(a, h, rules), PhaseSplit(h, a, rules))
    return {row: evaluate_model(x, rules, {"heuristic": h}, num_deals, seed)["heuristic"]
            for row, x in zip(ROWS, crossed, strict=True)}  # fmt: skip


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``euchre analyse phase-split``."""
    parser.add_argument("agent", help="an agent name, e.g. model:four_handed or model:runs/x/model.safetensors")
    parser.add_argument("--variant", default="four_handed", choices=["four_handed", "five_handed"])
    parser.add_argument("--deals", type=int, default=2000, help="deals per match (at least 2)")
    parser.add_argument("--seed", type=int, default=500, help="makes the deals")


def main(argv: Sequence[str] | None = None) -> int:
    """CLI: print the three rows for ``AGENT``."""
    parser = argparse.ArgumentParser(prog="euchre analyse phase-split", description=__doc__.split("\n\n")[0])
    add_arguments(parser)
    args = parser.parse_args(argv)
    if args.deals < 2:
        parser.error(f"--deals must be at least 2, got {args.deals}")
    res = phase_split(args.agent, args.variant, args.deals, args.seed)
    print(f"{args.agent} against the heuristic, {args.variant}, {args.deals} deals of seed {args.seed}:")
    for row, r in res.items():
        print(f"  {row:<34} points {r['advantage']:+.3f} ± {r['ci95']:.3f}   "
              f"relative {r['relative']:+.3f} ± {r['relative_ci95']:.3f}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())

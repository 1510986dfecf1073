"""Decisions per second of the rule-based player (``HeuristicAgent``), by phase, in large batches.

The rule-based player is the opponent of most training runs and evaluations, and it plays the
rollouts of the search agent (``agents.determinized``), so its batched speed is what those wait on.
Positions come from random play (``--tables`` tables, each phase as often as random play meets it);
the positions of each phase are acted on in one call, ``--repeats`` times, and the best time counts.
One core: BLAS threads are pinned to one before numpy loads.

To compare two versions of the code, run the same command in a checkout of each (``PYTHONPATH``
first on the path picks the checkout), on the same machine in the same sitting::

    python benchmarks/bench_heuristic.py
    git worktree add /tmp/old <commit> && PYTHONPATH=/tmp/old python benchmarks/bench_heuristic.py
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import time

import numpy as np

from agents.heuristic import HeuristicAgent
from euchre_env import engine
from euchre_env.actions import Phase
from euchre_env.encoding import encode
from euchre_env.rules import make_rules


def positions(variant: str, tables: int, seed: int) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Observations (uint8) and masks of every decision of ``tables`` random hands, grouped by phase."""
    rules = make_rules(variant)
    rng = np.random.default_rng(seed)
    s = engine.init_state(rules, tables, rng=rng)
    found: dict[str, list[tuple[np.ndarray, np.ndarray]]] = {}
    while not engine.is_done(s).all():
        live = np.flatnonzero(~engine.is_done(s))
        sub = s.take(live)
        obs, masks = encode(sub, sub.turn, rules, np.uint8), engine.legal_action_mask(sub, rules)
        for ph in np.unique(sub.phase):
            rows = sub.phase == ph
            found.setdefault(Phase(ph).name, []).append((obs[rows], masks[rows]))
        s = engine.step(s, np.where(engine.is_done(s), -1, engine.sample_legal(s, rules, rng)), rules)
    return {ph: (np.concatenate([o for o, _ in parts]), np.concatenate([m for _, m in parts]))
            for ph, parts in found.items()}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variants", nargs="+", default=["five_handed", "four_handed"])
    parser.add_argument("--tables", type=int, default=4096, help="random hands the positions come from")
    parser.add_argument("--repeats", type=int, default=5, help="timed calls per phase (the best counts)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(f"numpy {np.__version__}; {args.tables} random hands per game; best of {args.repeats}\n")
    print("| game | phase | positions | decisions/s |\n|---|---|---:|---:|")
    for variant in args.variants:
        agent = HeuristicAgent(make_rules(variant))
        rng = np.random.default_rng(args.seed)
        for phase, (obs, masks) in positions(variant, args.tables, args.seed).items():
            best = float("inf")
            for _ in range(args.repeats):
                start = time.perf_counter()
                agent.act(obs, masks, rng)
                best = min(best, time.perf_counter() - start)
            print(f"| {variant} | {phase} | {len(obs):,} | {len(obs) / best:,.0f} |")


if __name__ == "__main__":
    main()

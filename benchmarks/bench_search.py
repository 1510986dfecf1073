"""Time per decision of the determinised-search agent, and the world sampler's throughput.

Decision points come from heuristic self-play (so the phases appear as often as
in real hands); only decisions with more than one legal action are timed (the
agent answers forced moves without searching). Each decision is timed alone
(batch 1, the latency a player sees) and all together in one ``act`` call
(the per-decision cost when an evaluation batches tables). One core: BLAS
threads are pinned to one before numpy loads.

    python benchmarks/bench_search.py                       # both games, default settings
    python benchmarks/bench_search.py --decisions 200 --num-worlds 32 --bid-worlds 64
    python benchmarks/bench_search.py --versus 400          # plus a duplicate match vs the heuristic
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import time

import numpy as np

from agents.determinized import DeterminizedAgent
from agents.heuristic import HeuristicAgent
from euchre_env import engine
from euchre_env.actions import Phase
from euchre_env.encoding import encode
from euchre_env.infoset import sample_worlds
from euchre_env.rules import PRESETS, RulesConfig


def decision_points(rules: RulesConfig, count: int, rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    """``count`` observations, masks and phases of real choices from heuristic self-play."""
    policy = HeuristicAgent(rules)
    s = engine.init_state(rules, max(8, count // 8), rng=rng)
    obs, masks, phases = [], [], []
    while not engine.is_done(s).all():
        live = np.flatnonzero(~engine.is_done(s))
        sub = s.take(live)
        o, m = encode(sub, sub.turn, rules), engine.legal_action_mask(sub, rules)
        choice = m.sum(axis=1) > 1
        obs.append(o[choice])
        masks.append(m[choice])
        phases.append(sub.phase[choice])
        a = np.full(s.batch_size, -1)
        a[live] = policy.act(o, m, rng)
        s = engine.step(s, a, rules)
    pick = rng.permutation(sum(len(p) for p in phases))[:count]
    return np.concatenate(obs)[pick], np.concatenate(masks)[pick], np.concatenate(phases)[pick]


def time_decisions(
    agent: DeterminizedAgent, obs: np.ndarray, masks: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    """Seconds per decision, each decided alone. Shape (N,)."""
    agent.act(obs[:1], masks[:1], rng)  # warm-up (imports, caches)
    out = np.empty(len(obs))
    for i in range(len(obs)):
        t = time.perf_counter()
        agent.act(obs[i : i + 1], masks[i : i + 1], rng)
        out[i] = time.perf_counter() - t
    return out


def sampler_throughput(rules: RulesConfig, obs: np.ndarray, n: int, rng: np.random.Generator) -> float:
    """Worlds per second, ``n`` worlds for each observation, one call."""
    t = time.perf_counter()
    worlds = sample_worlds(obs, rules, n, rng)
    return worlds.batch_size / (time.perf_counter() - t)


def report(variant: str, args: argparse.Namespace) -> None:
    """Print the figures of one game."""
    rules = PRESETS[variant]
    rng = np.random.default_rng(args.seed)
    obs, masks, phases = decision_points(rules, args.decisions, rng)
    kw = {"num_worlds": args.num_worlds} if args.num_worlds else {}
    kw |= {"bid_worlds": args.bid_worlds} if args.bid_worlds else {}
    agent = DeterminizedAgent(rules, time_budget=args.time_budget, **kw)
    single = time_decisions(agent, obs, masks, rng)
    t = time.perf_counter()
    agent.act(obs, masks, rng)
    batched = (time.perf_counter() - t) / len(obs)
    print(
        f"\n## {variant}: {len(obs)} decisions, num_worlds={agent.num_worlds}, bid_worlds={agent.bid_worlds}, "
        f"time_budget={agent.time_budget}"
    )
    searched = ", ".join(Phase(ph).name for ph in agent.search_phases)
    print(f"searched phases: {searched} (in the others the rollout policy decides)")
    print(
        f"one decision per call: mean {single.mean() * 1e3:.1f} ms, median {np.median(single) * 1e3:.1f} ms, "
        f"p95 {np.percentile(single, 95) * 1e3:.1f} ms, max {single.max() * 1e3:.1f} ms"
    )
    on = np.isin(phases, agent.search_phases)
    if on.any():
        print(f"searched decisions only (n={on.sum()}): mean {single[on].mean() * 1e3:.1f} ms")
    for ph in np.unique(phases):
        sel = single[phases == ph]
        print(
            f"  {Phase(ph).name:<10} n={sel.size:<4} mean {sel.mean() * 1e3:6.1f} ms  max {sel.max() * 1e3:6.1f} ms"
        )
    print(f"all {len(obs)} decisions in one call: {batched * 1e3:.1f} ms per decision")
    for n in (16, 256):
        print(
            f"sampler: {sampler_throughput(rules, obs, n, rng):,.0f} worlds/s ({len(obs)} observations x {n})"
        )
    if args.versus:
        from arena.evaluate import evaluate

        result = evaluate({"search": agent, "heuristic": HeuristicAgent(rules)}, rules, args.versus, args.seed,
                          batch_size=args.batch_size)  # fmt: skip
        print(result.to_markdown())


def main() -> None:
    """Parse the arguments and print the report of each game."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--variants", nargs="+", default=["four_handed", "five_handed"], choices=sorted(PRESETS)
    )
    parser.add_argument("--decisions", type=int, default=100, help="decision points timed per game")
    parser.add_argument(
        "--num-worlds", type=int, default=None, help="worlds per decision (default: the agent's)"
    )
    parser.add_argument(
        "--bid-worlds", type=int, default=None, help="worlds per bidding decision (default: the agent's)"
    )
    parser.add_argument(
        "--time-budget", type=float, default=None, help="seconds per decision (default: none)"
    )
    parser.add_argument("--versus", type=int, default=0, help="deals of a duplicate match vs the heuristic")
    parser.add_argument("--batch-size", type=int, default=256, help="tables at once in the duplicate match")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    for variant in args.variants:
        report(variant, args)


if __name__ == "__main__":
    main()

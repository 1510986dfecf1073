"""Throughput of ``EuchreVectorEnv``: decisions per second on one core.

Counts every decision the engine processes (learner + opponents, default
RandomPolicy opponents) and, separately, learner decisions (= env steps x B).
Each step includes observations (B, D) float32, masks (B, 93) and infos; the
learner's random legal actions are drawn outside the timed region.

    python benchmarks/bench_vector_env.py --num-envs 4096 --steps 200
    python benchmarks/bench_vector_env.py --profile    # cProfile of the step loop
    python benchmarks/bench_vector_env.py --breakdown  # time inside engine functions vs the adapter
"""

from __future__ import annotations

import argparse
import cProfile
import functools
import pstats
import time
from collections import defaultdict

import numpy as np

from euchre_env import engine, policies
from euchre_env.envs import learner_tables
from euchre_env.envs.vector_env import EuchreVectorEnv

ENGINE_TIME: dict[str, float] = defaultdict(float)


def _timed(name: str, fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        t0 = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            ENGINE_TIME[name] += time.perf_counter() - t0

    return wrapper


def instrument_engine() -> None:
    """Time the engine/encoding functions the adapter calls (engine.step, encode, expand, ...)."""
    engine.step = _timed("engine.step", engine.step)
    engine.step_rows = _timed("engine.step_rows", engine.step_rows)
    engine.init_state = _timed("engine.init_state", engine.init_state)
    engine.reset_rows = _timed("engine.reset_rows", engine.reset_rows)
    engine.play_out_random = _timed("engine.play_out_random", engine.play_out_random)
    learner_tables.encode = _timed("encoding.encode", learner_tables.encode)
    learner_tables.expand = _timed("engine.expand", learner_tables.expand)
    policies.sample_bits = _timed("engine.sample_bits", policies.sample_bits)
    learner_tables.sample_bits = _timed("engine.sample_bits", learner_tables.sample_bits)


def random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per row (0 where none). Shape (B,)."""
    counts = np.cumsum(masks, axis=1)
    rank = (rng.random(masks.shape[0]) * counts[:, -1]).astype(np.int64)
    return np.argmax(counts > rank[:, None], axis=1)


def run(variant: str, num_envs: int, steps: int, seed: int) -> dict[str, float]:
    """Time ``steps`` vector steps; returns the figures."""
    env = EuchreVectorEnv(num_envs, variant)
    _, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    tables = env.tables
    learner0, opp0 = tables.learner_decisions, tables.opponent_decisions
    elapsed = 0.0
    episodes = 0
    for _ in range(steps):
        actions = random_legal(info["action_mask"], rng)
        t0 = time.perf_counter()
        _, _, terminated, _, info = env.step(actions)
        elapsed += time.perf_counter() - t0
        episodes += int(terminated.sum())
    learner = tables.learner_decisions - learner0
    total = learner + tables.opponent_decisions - opp0
    return {
        "seconds": elapsed,
        "decisions_per_s": total / elapsed,
        "learner_decisions_per_s": learner / elapsed,
        "episodes_per_s": episodes / elapsed,
        "ms_per_step": 1e3 * elapsed / steps,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--num-envs", type=int, default=4096)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--variant", choices=["four_handed", "five_handed", "both"], default="both")
    parser.add_argument("--profile", action="store_true", help="print a cProfile of the step loop")
    parser.add_argument(
        "--breakdown", action="store_true", help="split step time: engine functions vs adapter"
    )
    args = parser.parse_args()
    if args.breakdown:
        instrument_engine()
    variants = ["four_handed", "five_handed"] if args.variant == "both" else [args.variant]
    for variant in variants:
        if args.profile:
            prof = cProfile.Profile()
            prof.enable()
        ENGINE_TIME.clear()
        r = run(variant, args.num_envs, args.steps, args.seed)
        if args.profile:
            prof.disable()
            pstats.Stats(prof).sort_stats("cumulative").print_stats(25)
        print(
            f"{variant:12s} B={args.num_envs} steps={args.steps}: "
            f"{r['decisions_per_s'] / 1e6:.2f} M decisions/s (all seats), "
            f"{r['learner_decisions_per_s'] / 1e6:.2f} M learner decisions/s, "
            f"{r['episodes_per_s']:.0f} episodes/s, {r['ms_per_step']:.2f} ms/step"
        )
        if args.breakdown:
            inside = sum(ENGINE_TIME.values())
            for name, t in sorted(ENGINE_TIME.items(), key=lambda kv: -kv[1]):
                print(f"    {name:20s} {1e3 * t / args.steps:7.2f} ms/step ({100 * t / r['seconds']:4.1f}%)")
            rest = r["seconds"] - inside
            print(
                f"    {'adapter (the rest)':20s} {1e3 * rest / args.steps:7.2f} ms/step ({100 * rest / r['seconds']:4.1f}%)"
            )


if __name__ == "__main__":
    main()

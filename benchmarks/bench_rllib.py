"""RLlib backend throughput with 1 and 2 environment runners (``euchre train --backend rllib``; the ``rllib`` extra).

For each runner count, on a local Ray with ``--cpus`` CPUs, the script builds
the run's algorithm (the trainer's defaults unless given) and measures:

* **sampling**: ``EnvRunner.sample`` on every runner at once (the runners
  play the current policies; no learning): environment steps per second (one
  env step moves every live table of one env) and decisions (agent steps)
  per second;
* **training**: whole ``algo.train()`` iterations (sampling, then PPO updates
  in the driver): decisions learned per second.

The reference, measured in the same run: the adapter alone in this process
(``EuchreMultiAgentEnv.step`` with uniformly random legal actions, no
network, no Ray), the ceiling that RLlib's per-agent bookkeeping and the
network forward passes come down from.

    python benchmarks/bench_rllib.py                  # four-handed, 64 tables per env, 20 s per measurement
    python benchmarks/bench_rllib.py --variant five_handed --seconds 10
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np


def adapter_rate(variant: str, tables: int, seconds: float) -> tuple[float, float]:
    """(env steps/s, decisions/s) of the bare adapter with random legal actions."""
    from training.rllib.env import EuchreMultiAgentEnv

    env = EuchreMultiAgentEnv({"variant": variant, "tables": tables, "seed": 0})
    rng = np.random.default_rng(0)
    steps = decisions = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        obs, _ = env.reset()
        while True:
            acts = {a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items() if o["action_mask"].any()}
            obs, _, terms, _, _ = env.step(acts)
            steps, decisions = steps + 1, decisions + len(acts)
            if terms["__all__"]:
                break
    elapsed = time.perf_counter() - start
    return steps / elapsed, decisions / elapsed


def rllib_rates(args: argparse.Namespace, runners: int) -> dict[str, float]:
    """Sampling and training rates with ``runners`` env runners."""
    from training.rllib.train import Args, build_config

    run = Args(variant=args.variant, num_env_runners=runners, tables=args.tables, snapshots=0)
    algo = build_config(run).build_algo()
    try:
        group = algo.env_runner_group
        per_runner = max(run.train_batch // max(runners, 1), 1)

        def sample_all() -> tuple[int, int]:
            if runners:
                outs = group.foreach_env_runner(lambda r: r.sample(num_timesteps=per_runner), local_env_runner=False)
            else:
                outs = [algo.env_runner.sample(num_timesteps=per_runner)]
            episodes = [e for out in outs for e in out]
            return sum(e.env_steps() for e in episodes), sum(e.agent_steps() for e in episodes)

        sample_all()  # warm-up
        env_steps = agent_steps = 0
        start = time.perf_counter()
        while time.perf_counter() - start < args.seconds:
            e, a = sample_all()
            env_steps, agent_steps = env_steps + e, agent_steps + a
        sample_time = time.perf_counter() - start
        algo.train()  # warm-up
        before = algo.train()["env_runners"].get("num_agent_steps_sampled_lifetime", 0)
        before = sum(before.values()) if isinstance(before, dict) else before
        start, after = time.perf_counter(), before
        while time.perf_counter() - start < args.seconds:
            got = algo.train()["env_runners"].get("num_agent_steps_sampled_lifetime", 0)
            after = sum(got.values()) if isinstance(got, dict) else got
        train_time = time.perf_counter() - start
    finally:
        algo.stop()
    return {"env_steps": env_steps / sample_time, "decisions": agent_steps / sample_time,
            "learned": (after - before) / train_time}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", default="four_handed", choices=["four_handed", "five_handed"])
    parser.add_argument("--tables", type=int, default=64, help="tables per env (default 64)")
    parser.add_argument("--seconds", type=float, default=20.0, help="seconds per measurement (default 20)")
    parser.add_argument("--cpus", type=int, default=os.cpu_count(), help="CPUs of the local Ray (default: all)")
    parser.add_argument("--runners", default="1,2", help="env runner counts to measure (default 1,2)")
    args = parser.parse_args()
    import ray

    steps, decisions = adapter_rate(args.variant, args.tables, args.seconds)
    print(f"{args.variant}, {args.tables} tables per env, {args.cpus} CPUs ({os.cpu_count()} on this machine)")
    print(f"reference: adapter alone, random legal actions: {steps:,.0f} env steps/s, {decisions:,.0f} decisions/s")
    ray.init(num_cpus=args.cpus, include_dashboard=False, log_to_driver=False, configure_logging=False)
    try:
        for runners in (int(x) for x in args.runners.split(",")):
            r = rllib_rates(args, runners)
            print(f"{runners} env runner(s): sampling {r['env_steps']:,.0f} env steps/s, {r['decisions']:,.0f} "
                  f"decisions/s ({r['decisions'] / decisions:.2f}x the reference); training "
                  f"{r['learned']:,.0f} decisions learned/s ({r['learned'] / decisions:.2f}x)", flush=True)  # fmt: skip
    finally:
        ray.shutdown()


if __name__ == "__main__":
    main()

"""Decisions learned per second, end to end: ``euchre train`` (batched PPO) against MaskablePPO, same network.

Both trainers run their real training loop (play, compute advantages, update)
with the same actor and critic (``--hidden``, ReLU, separate networks, as
stable-baselines3's ``MlpPolicy`` builds them; our critic is given only the
observation here, ``--critic obs``, so the networks are identical) on the same
CPU threads, in one run, one after the other; evaluation and files are off.
"Decisions learned" are the decisions that enter a PPO update: for
MaskablePPO, every decision of its one learner seat per table (``EuchreSB3VecEnv``, 128 tables,
32 steps, minibatch 1024, 4 epochs: ``euchre train --algo sb3``'s defaults); for
ours, every seat the learner holds (``euchre train``'s defaults: 1024 tables,
minibatch 4096), except its forced decisions (one legal action: no policy
gradient), which it plays without the network (``--skip-forced``, the
default); the line below counts them too, MaskablePPO's way. Both play against the heuristic (MaskablePPO: at both
opponent seats, its own policy as partner, as its pool seats a drawn
heuristic; ours: ``--opponents heuristic=1``, one side), and ours is also
measured with its default pool (a quarter of its tables self-play), and once with
``--no-suit-symmetry`` (plain MLPs on printed suits, what the suit relabelling costs).

What bounds ours is the network: the script also times the forward and
backward passes alone on random data of the same shapes and epochs (the
"network only" lines), the ceiling for this network on these threads. Ours
is measured at both ``--precision`` settings: ``fp32`` (MaskablePPO's) and
``bf16`` (autocast; float32 weights), which is faster where the CPU has
bfloat16 matrix units (AMX, AVX512-BF16) and slower where it has not.

    python benchmarks/bench_train.py                          # four-handed, 60 s per trainer
    python benchmarks/bench_train.py --variant five_handed --seconds 30 --threads 2
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def sb3_rate(variant: str, hidden: str, seconds: float, threads: int) -> float:
    """MaskablePPO learner decisions per second (after one warm-up rollout)."""
    import torch
    from stable_baselines3.common.vec_env import VecMonitor

    from agents.sb3_policy import SB3Policy
    from euchre_env.rules import make_rules
    from training.pool import OpponentPool
    from training.sb3.envs import make_train_env
    from training.sb3.train import build_model, parse_args

    torch.set_num_threads(threads)
    args = parse_args(
        ["--variant", variant, "--net-arch", hidden, "--threads", str(threads), "--no-progress"]
    )
    rules = make_rules(variant)
    env = make_train_env("batched", args.num_envs, variant, args.zero_sum, args.seed)
    model = build_model(args, VecMonitor(env))
    live = SB3Policy(model.policy, rules, deterministic=False, name="self")
    pool = OpponentPool({"heuristic": 1.0}, rules, live, 1, np.random.default_rng(0), "mixed")
    env.set_opponents(pool.draw()[1])  # as euchre train --algo sb3 seats a drawn opponent
    rollout = args.num_envs * args.num_steps
    model.learn(rollout)  # warm-up
    done, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        model.learn(rollout, reset_num_timesteps=False)
        done += rollout
    return done / (time.perf_counter() - start)


def ppo_rate(
    variant: str, hidden: str, seconds: float, threads: int, opponents: str, precision: str = "fp32",
    suit_symmetry: bool = True,
) -> tuple[float, float, dict]:
    """Our trainer's learner decisions per second (learned from; all, forced ones included) and its time split
    (after one warm-up iteration)."""
    from training.batched.ppo import Args, Trainer, check_args

    args = Args(variant=variant, hidden=hidden, critic_hidden=hidden, critic="obs", opponents=opponents,
                threads=threads, eval_every=0, progress=False, total_decisions=10**12,
                precision=precision, suit_symmetry=suit_symmetry)  # fmt: skip
    check_args(args)
    tr = Trainer(args)
    tr.iterate()  # warm-up
    split = {"rollout_seconds": 0.0, "update_seconds": 0.0}
    done, forced, start = 0, 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        stats = tr.iterate()
        done += int(stats["decisions"])
        forced += int(stats["forced"])
        for k in split:
            split[k] += stats[k]
    elapsed = time.perf_counter() - start
    return done / elapsed, (done + forced) / elapsed, split


def network_rate(
    variant: str, hidden: str, seconds: float, threads: int, epochs: int = 4, precision: str = "fp32"
) -> float:
    """Decisions per second of the network's work alone: one forward (rollout), one critic forward, then
    ``epochs`` forward+backward passes of actor and critic in minibatches of 4096 (random 0/1 data),
    as ``euchre train``'s defaults (4 epochs, like MaskablePPO's)."""
    import torch

    from euchre_env.rules import make_rules
    from training.batched.ppo import Args, autocast, build_net

    torch.set_num_threads(threads)
    rules = make_rules(variant)
    net = build_net(Args(variant=variant, hidden=hidden, critic_hidden=hidden, critic="obs"), rules)
    opt = torch.optim.Adam(net.parameters(), lr=1e-4)
    d = net.actor[0].in_features
    x = (torch.rand(4096, d) < 0.1).float()
    target = torch.randint(0, 93, (4096,))
    done, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        with torch.no_grad(), autocast("cpu", precision):
            net.actor(x)
            net.critic(x)
        for _ in range(epochs):
            with autocast("cpu", precision):
                logits, value = net.actor(x).float(), net.critic(x).float()
            loss = torch.nn.functional.cross_entropy(logits, target) + value.square().mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        done += x.shape[0]
    return done / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> int:
    from training.batched.ppo import Args

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", default="four_handed", choices=["four_handed", "five_handed"])
    parser.add_argument("--hidden", default="256,256", help="hidden layers of actor and critic")
    parser.add_argument("--seconds", type=float, default=60.0, help="timed seconds per trainer")
    parser.add_argument("--threads", type=int, default=2, help="torch CPU threads (both trainers)")
    args = parser.parse_args(argv)
    if args.seconds <= 0 or args.threads < 1:
        parser.error("--seconds must be positive and --threads at least 1")
    print(f"{args.variant}, hidden {args.hidden}, {args.threads} torch threads, {args.seconds:.0f} s each")
    sb3 = sb3_rate(args.variant, args.hidden, args.seconds, args.threads)
    print(
        f"MaskablePPO (euchre train --algo sb3), vs heuristic:        {sb3:10,.0f} learner decisions/s  (1.00x)"
    )
    default = Args()
    runs = [("vs heuristic", "heuristic=1", "fp32", True), ("default pool", default.opponents, "fp32", True),
            ("default pool, printed suits", default.opponents, "fp32", False),
            ("default pool", default.opponents, "bf16", True)]  # fmt: skip
    for label, pool, precision, symmetric in runs:
        rate, every, split = ppo_rate(args.variant, args.hidden, args.seconds, args.threads, pool, precision,
                                      symmetric)  # fmt: skip
        share = split["update_seconds"] / max(split["rollout_seconds"] + split["update_seconds"], 1e-9)
        print(f"batched PPO (euchre train), {label}, {precision}:      {rate:10,.0f} learner decisions/s"
              f"  ({rate / sb3:.1f}x; {share:.0%} of the time in updates)")  # fmt: skip
        print(f"    the same, forced decisions (played, not learned from) included: {every:10,.0f}/s"
              f"  ({every / sb3:.1f}x)")  # fmt: skip
    for precision in ("fp32", "bf16"):
        net = network_rate(args.variant, args.hidden, args.seconds / 2, args.threads, default.update_epochs,
                           precision)  # fmt: skip
        print(f"network only, {precision} (forward + {default.update_epochs} epochs of forward/backward): "
              f"{net:10,.0f} decisions/s  ({net / sb3:.1f}x): the ceiling for this network")  # fmt: skip
    return 0


if __name__ == "__main__":
    np.seterr(all="ignore")
    raise SystemExit(main())

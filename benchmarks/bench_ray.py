"""The batched trainer data-parallel on Ray (``euchre train --backend ray``): its speed-up and its learning.

    python benchmarks/bench_ray.py scaling --seconds 60 --out docs/results/ray_scaling
    python benchmarks/bench_ray.py curves --decisions 3000000 --out docs/results/ray_curves
    python benchmarks/bench_ray.py parts --out runs/ray_parts

``scaling``: in each game, the default trainer (PPO) trains for ``--seconds`` of training time (rollouts
and updates; no evaluation) as: Ray with 1 worker of 1 torch thread (the reference), Ray with 2 workers of
1 thread each (the goal: 1.8x the reference's learner decisions per second), either splitting the default
batch (1,024 tables, minibatches of 4,096 rows: 512 tables and 2,048 rows each) or each with the whole of
it (the total twice the default), and, for comparison, the local trainer with 1 and with 2 threads; all at
the machine's default precision (``--precision auto``), and the Ray runs four-handed also in float32. The rate is the run's learner decisions over its training seconds (the
model's provenance). The file also holds what a cluster's bound is worked out from: the network's parameters
(the bytes each step all-reduces), the update's steps per iteration and the seconds of one step on one thread
(the local 1-thread run's update time over its steps). Writes ``scaling.json``.

``curves``: in each game, the default trainer to ``--decisions`` learner decisions, locally on 2 threads
and on Ray with 2 workers of 1 thread each, with the same seed and total batch, evaluated against the
heuristic every ``--eval-every`` decisions (1,000 deals): the learning per decision should be the same
within noise. Writes ``curves.json`` and ``curves.png``.

``parts``: where two one-thread workers lose time on this machine, without Ray: a matrix product with
its backward pass (4,096 x 512 by 512 x 256) per second in one process and in two at once (float32, and
bfloat16 under autocast), the time of one gloo all-reduce of the default network's gradient between two
processes, two ranks' rollout and update time with the whole default batch each (and, inside the update,
their time in the collectives, waiting for each other included), and one thread's update time per step at
several minibatch sizes (float32 and bfloat16).
Writes ``parts.json``.

Both start a Ray instance on this machine with as many CPUs as it has; nothing else should run meanwhile.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shlex
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

VARIANTS = ("four_handed", "five_handed")


def run(variant: str, out: Path, *, workers: int, threads: int, **settings: Any) -> dict[str, Any]:
    """Train the default PPO into ``out`` (``workers`` 0: the local trainer) and return the model's provenance
    with its evaluation history."""
    from agents.neural import load_policy
    from training.batched import ppo
    from training.batched.args import Args, check_args
    from training.batched.ray_train import launch

    args = Args(variant=variant, out=str(out), overwrite=True, threads=threads, progress=False, final_eval_deals=0,
                **settings)  # fmt: skip
    if workers:
        args = dataclasses.replace(args, backend="ray", num_workers=workers)
    check_args(args)
    run_dir = ppo.prepare_run_dir(args)
    if workers:
        launch(args, "bench_ray", run_dir)
    else:
        ppo.train(args, command="bench_ray", run_dir=run_dir)
    provenance = load_policy(run_dir / "model.safetensors")[1].provenance
    history = json.loads((run_dir / "eval_history.json").read_text())["history"]
    return {**provenance, "history": history}


def step_seconds(variant: str) -> dict[str, float]:
    """One thread's seconds per update step of the default network on a full minibatch, and steps per iteration
    (three local iterations of the default trainer, the first not counted)."""
    import math

    from training.batched import ppo
    from training.batched.args import Args

    tr = ppo.Trainer(ppo.resolve_args(Args(variant=variant, threads=1, progress=False)))
    tr.iterate()
    update = steps = rows = 0.0
    for _ in range(2):
        stats = tr.iterate()
        n = stats["decisions"]
        k = tr.args.update_epochs * math.ceil(n / tr.args.minibatch_size)
        update, steps, rows = update + stats["update_seconds"], steps + k, rows + n
    params = sum(p.numel() for p in tr.net.parameters())
    return {"seconds_per_step": update / steps, "steps_per_iteration": steps / 2, "rows_per_iteration": rows / 2,
            "parameters": params, "allreduce_bytes": 4 * params}  # fmt: skip


# (name, Ray workers (0: the local trainer), torch threads each, tables in all, minibatch rows in all, precision)
CONFIGS = [
    ("ray, 1 worker x 1 thread", 1, 1, 1024, 4096, "auto"),
    ("ray, 2 workers x 1 thread, the batch split", 2, 1, 1024, 4096, "auto"),
    ("ray, 2 workers x 1 thread, each the whole batch", 2, 1, 2048, 8192, "auto"),
    ("local, 1 thread", 0, 1, 1024, 4096, "auto"),
    ("local, 2 threads", 0, 2, 1024, 4096, "auto"),
]
FP32 = [(f"{name}, fp32", w, th, tables, mb, "fp32") for name, w, th, tables, mb, _ in CONFIGS[:3]]


def scaling(seconds: float, out: Path) -> dict[str, Any]:
    """The ``scaling`` measurement (see the module's docstring)."""
    games = {}
    with tempfile.TemporaryDirectory() as tmp:
        for variant in VARIANTS:
            rows = []
            for name, workers, threads, tables, minibatch, precision in CONFIGS + (FP32 if variant == VARIANTS[0] else []):
                p = run(variant, Path(tmp) / f"{variant}_{len(rows)}", workers=workers, threads=threads,
                        num_tables=tables, minibatch_size=minibatch, precision=precision, time_budget=seconds,
                        total_decisions=10**15, eval_every=0)  # fmt: skip
                rate = p["learner_decisions"] / p["train_seconds"]
                rows.append({"config": name, "workers": workers, "threads": threads, "tables": tables,
                             "minibatch": minibatch, "precision": p["settings"]["precision"], "rate": rate,
                             "learner_decisions": p["learner_decisions"], "train_seconds": p["train_seconds"]})  # fmt: skip
                print(f"{variant:12s} {name:55s} {rate:9,.0f} learner decisions/s", flush=True)
            for r in rows:  # against one Ray worker at the same precision
                base = next(b for b in rows if b["workers"] == 1 and b["precision"] == r["precision"])
                r["speedup"] = r["rate"] / base["rate"]
            games[variant] = {"runs": rows, "network": step_seconds(variant)}
    return {"seconds": seconds, "games": games}


def curves(decisions: int, eval_every: int, out: Path) -> dict[str, Any]:
    """The ``curves`` measurement (see the module's docstring); also draws ``curves.png``."""
    games = {}
    with tempfile.TemporaryDirectory() as tmp:
        for variant in VARIANTS:
            games[variant] = {}
            for name, workers, threads in (("local, 2 threads", 0, 2), ("ray, 2 workers x 1 thread", 2, 1)):
                p = run(variant, Path(tmp) / f"{variant}_{workers}", workers=workers, threads=threads,
                        total_decisions=decisions, eval_every=eval_every)  # fmt: skip
                key = "relative" if variant == "five_handed" else "advantage"
                games[variant][name] = [{"learner_decisions": h["learner_decisions"],
                                         "train_seconds": h.get("train_seconds"),
                                         "vs_heuristic": h["eval"]["heuristic"][key],
                                         "ci95": h["eval"]["heuristic"]["relative_ci95" if key == "relative" else "ci95"]}
                                        for h in p["history"]]  # fmt: skip
                last = games[variant][name][-1]
                print(f"{variant:12s} {name:28s} {last['vs_heuristic']:+.3f} ± {last['ci95']:.3f} at "
                      f"{last['learner_decisions']:,} decisions", flush=True)  # fmt: skip
    plot_curves(games, out / "curves.png")
    return {"decisions": decisions, "eval_every": eval_every, "games": games}


def _matmuls(seconds: float, bf16: bool) -> int:
    """Forward and backward passes of a 4,096 x 512 by 512 x 256 product in ``seconds`` on one thread."""
    import torch

    torch.set_num_threads(1)
    a, w = torch.randn(4096, 512), torch.randn(512, 256, requires_grad=True)
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
            y = (a @ w).relu().sum()
        y.backward()
        n += 1
    return n


def _allreduce(rank: int, store: str, size: int, out: str) -> None:
    import torch
    import torch.distributed as dist

    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"file://{store}", rank=rank, world_size=2)
    x = torch.randn(size)
    for _ in range(5):
        dist.all_reduce(x)
    start = time.perf_counter()
    for _ in range(50):
        dist.all_reduce(x)
    if rank == 0:
        Path(out).write_text(str((time.perf_counter() - start) / 50))
    dist.destroy_process_group()


def _waits(rank: int, store: str, out: str) -> None:
    """One of two ranks training with the whole default batch each (no Ray): its seconds in the rollout, in
    the update, and, inside the update, in the collectives (waiting for the other rank included)."""
    import torch.distributed as dist

    from training.batched import distributed, ppo
    from training.batched.args import Args

    dist.init_process_group("gloo", init_method=f"file://{store}", rank=rank, world_size=2)
    spent = {"small_reductions": 0.0, "gradient_allreduce": 0.0}
    reduce, average = distributed.Group._reduce, distributed.Group.average_gradients

    def timed(name: str, f: Any) -> Any:
        def wrapper(*a: Any) -> Any:
            start = time.perf_counter()
            result = f(*a)
            spent[name] += time.perf_counter() - start
            return result

        return wrapper

    distributed.Group._reduce = timed("small_reductions", reduce)  # type: ignore[method-assign]
    distributed.Group.average_gradients = timed("gradient_allreduce", average)  # type: ignore[method-assign]
    args = ppo.resolve_args(Args(threads=1, num_tables=2048, minibatch_size=8192, progress=False))
    tr = ppo.Trainer(args, group=distributed.Group(rank, 2))
    tr.iterate()
    spent.update(small_reductions=0.0, gradient_allreduce=0.0)
    rollout = update = 0.0
    for _ in range(8):
        stats = tr.iterate()
        rollout, update = rollout + stats["rollout_seconds"], update + stats["update_seconds"]
    Path(f"{out}.{rank}").write_text(json.dumps({"iterations": 8, "rollout": rollout, "update": update, **spent}))
    dist.destroy_process_group()


def parts() -> dict[str, Any]:
    """The ``parts`` measurement (see the module's docstring)."""
    import multiprocessing as mp

    import torch.multiprocessing as tmp_mp

    from training.batched import ppo
    from training.batched.args import Args

    out: dict[str, Any] = {"matmul": {}, "step_seconds": {}}
    spawn = mp.get_context("spawn")
    for bf16 in (False, True):
        one = _matmuls(4.0, bf16)
        with spawn.Pool(2) as pool:
            two = sum(pool.starmap(_matmuls, [(4.0, bf16), (4.0, bf16)]))
        out["matmul"]["bf16" if bf16 else "fp32"] = {"one_process": one / 4.0, "two_processes": two / 4.0,
                                                      "ratio": two / one}  # fmt: skip
    params = sum(p.numel() for p in ppo.Trainer(ppo.resolve_args(Args(threads=1))).net.parameters())
    with tempfile.TemporaryDirectory() as tmp:
        tmp_mp.spawn(_allreduce, args=(f"{tmp}/store", params, f"{tmp}/t"), nprocs=2, join=True)
        out["allreduce"] = {"parameters": params, "seconds": float(Path(tmp, "t").read_text())}
        tmp_mp.spawn(_waits, args=(f"{tmp}/store2", f"{tmp}/w"), nprocs=2, join=True)
        out["two_ranks"] = [json.loads(Path(f"{tmp}/w.{rank}").read_text()) for rank in (0, 1)]
    for precision in ("fp32", "bf16"):
        tr = ppo.Trainer(ppo.resolve_args(Args(threads=1, precision=precision)))
        tr.iterate()
        rows = {}
        for minibatch in (1024, 2048, 4096, 8192):
            tr.args = dataclasses.replace(tr.args, minibatch_size=minibatch)
            stats = tr.iterate()
            steps = tr.args.update_epochs * -(-int(stats["decisions"]) // minibatch)
            rows[str(minibatch)] = {"update_seconds": stats["update_seconds"], "steps": steps,
                                    "decisions": stats["decisions"]}  # fmt: skip
        out["step_seconds"][precision] = rows
    for name, r in out["matmul"].items():
        print(f"matmul {name}: {r['one_process']:.1f}/s in one process, {r['two_processes']:.1f}/s in two "
              f"({r['ratio']:.2f}x)")  # fmt: skip
    print(f"all-reduce of {params:,} floats between two processes: {1e3 * out['allreduce']['seconds']:.1f} ms")
    for rank, w in enumerate(out["two_ranks"]):
        print(f"rank {rank} of 2 (whole batch each), per iteration: rollout {w['rollout'] / 8:.3f} s, update "
              f"{w['update'] / 8:.3f} s, of which collectives {w['small_reductions'] / 8:.3f} + "
              f"{w['gradient_allreduce'] / 8:.3f} s")  # fmt: skip
    for precision, rows in out["step_seconds"].items():
        for mb, r in rows.items():
            print(f"{precision} minibatch {mb}: update {r['update_seconds']:.3f} s in {r['steps']} steps "
                  f"({1e3 * r['update_seconds'] / r['steps']:.1f} ms a step)")  # fmt: skip
    return out


def plot_curves(games: dict[str, Any], path: Path) -> None:
    from arena.report import pyplot, save_figure

    plt = pyplot()
    if plt is None:
        return
    fig, axes = plt.subplots(1, len(games), figsize=(5.5 * len(games), 4), squeeze=False)
    for ax, (variant, runs) in zip(axes[0], games.items(), strict=True):
        for name, points in runs.items():
            x = [p["learner_decisions"] / 1e6 for p in points]
            y = [p["vs_heuristic"] for p in points]
            ci = [p["ci95"] for p in points]
            ax.errorbar(x, y, yerr=ci, marker="o", capsize=3, label=name)
        ax.axhline(0, color="grey", lw=0.8)
        ax.set_title(variant.replace("_", "-"))
        ax.set_xlabel("learner decisions (millions)")
        ax.set_ylabel("points per hand vs heuristic" + (" (relative)" if variant == "five_handed" else ""))
        ax.legend()
    fig.tight_layout()
    save_figure(fig, path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("what", choices=["scaling", "curves", "parts"])
    parser.add_argument("--seconds", type=float, default=60.0, help="scaling: training seconds per run")
    parser.add_argument("--decisions", type=int, default=3_000_000, help="curves: learner decisions per run")
    parser.add_argument("--eval-every", type=int, default=500_000, help="curves: decisions between evaluations")
    parser.add_argument("--out", required=True, help="folder of the results file")
    args = parser.parse_args(argv)
    import ray

    from training.exploit import cpu_name

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    start = time.time()
    if args.what == "parts":
        data = parts()
    else:
        ray.init(num_cpus=os.cpu_count(), include_dashboard=False, logging_level="WARNING",
                 runtime_env={"worker_process_setup_hook": "training.batched.ray_train.quiet_ray_logs"})  # fmt: skip
        try:
            data = scaling(args.seconds, out) if args.what == "scaling" else curves(args.decisions, args.eval_every, out)
        finally:
            ray.shutdown()
    command = "python benchmarks/bench_ray.py " + shlex.join(argv if argv is not None else sys.argv[1:])
    data = {"command": command, "cpu": cpu_name(), "cpus": os.cpu_count(), "wall_seconds": time.time() - start,
            **data}  # fmt: skip
    path = out / f"{args.what}.json"
    path.write_text(json.dumps(data, indent=1) + "\n")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

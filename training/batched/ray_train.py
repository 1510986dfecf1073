"""``euchre train --backend ray``: the batched trainer data-parallel on Ray Train.

    euchre train --backend ray --num-workers 2 --threads 1 --variant four_handed --out runs/ray
    euchre train dmc --backend ray --num-workers 4 --address auto --out /shared/runs/dmc

Ray Train's ``TorchTrainer`` starts ``--num-workers`` processes (each reserving ``--threads`` CPUs, and one
GPU with ``--device cuda``) and a ``torch.distributed`` process group among them (gloo on CPU, nccl on GPU).
Every worker runs the local trainer's loop (:func:`training.batched.ppo.train`) as one rank of a
:class:`~training.batched.distributed.Group`: it plays its share of each iteration's ``--num-tables`` tables
on its own engine, computes gradients on its own decisions, and the gradients are averaged across workers
at every step. Rank 0 evaluates and writes the run folder: the same ``args.json``, checkpoints, models,
evaluations and TensorBoard files as a local run, so ``--resume``, ``model:<path>`` and ``euchre eval`` work
unchanged. One worker trains exactly as ``--backend local`` does.

Without ``--address`` a Ray instance is started on this machine for the run; ``--address auto`` (or
``ray://HOST:10001``) joins a running cluster, whose nodes must all have euchre-env installed and see the run
folder at the same path (a shared filesystem, as Ray Train asks of its storage).

A worker that dies fails the run (it is not restarted): the error names the run folder, whose last checkpoint
(every ``--checkpoint-every`` iterations; files are written whole or not at all) ``--resume`` continues.
"""

from __future__ import annotations

import dataclasses
import logging
import os
from pathlib import Path
from typing import Any

from training.batched.args import Args, resolve_args
from training.batched.distributed import Group
from training.runs import CHECKPOINT


def launch(args: Args, command: str, run_dir: Path) -> Path:
    """Train ``args`` (``backend == "ray"``) into ``run_dir`` on ``args.num_workers`` Ray Train workers.

    Joins the Ray cluster at ``args.address`` ('' starts one on this machine, stopped at the end).

    Raises:
        ValueError: the cluster has fewer CPUs (or GPUs) than the workers need.
        RuntimeError: a worker failed; the message says where the last checkpoint is.
    """
    import ray

    from training.rllib.train import ray_output

    if not args.resume:  # one precision for every worker: the one "auto" means on this machine
        args = resolve_args(args)
    run_dir = run_dir.resolve()
    started = not ray.is_initialized()
    with ray_output(verbose=False):  # Ray's start-up notices; the workers' output is forwarded
        if started:
            ray.init(address=args.address or None, include_dashboard=False, log_to_driver=True,
                     configure_logging=False, logging_level=logging.ERROR,
                     runtime_env={"worker_process_setup_hook": "training.batched.ray_train.quiet_ray_logs"})  # fmt: skip
        try:
            fit(args, command, run_dir)
        finally:
            if started:
                ray.shutdown()
    return run_dir


def fit(args: Args, command: str, run_dir: Path) -> None:
    """Run the workers of ``args`` on the connected Ray cluster until the run ends (see :func:`launch`)."""
    import ray
    from ray.train import FailureConfig, RunConfig, ScalingConfig
    from ray.train.torch import TorchConfig, TorchTrainer

    use_gpu = args.device.startswith("cuda")
    os.environ.setdefault("RAY_CHDIR_TO_TRIAL_DIR", "0")  # workers keep the working folder: relative paths hold
    check_resources(ray.cluster_resources(), args.num_workers, args.threads, use_gpu)
    trainer = TorchTrainer(
        worker_loop,
        train_loop_config={"args": dataclasses.asdict(args), "command": command, "run_dir": str(run_dir)},
        torch_config=TorchConfig(backend="nccl" if use_gpu else "gloo"),
        scaling_config=ScalingConfig(
            num_workers=args.num_workers, use_gpu=use_gpu, resources_per_worker={"CPU": args.threads}
        ),
        run_config=RunConfig(name="ray", storage_path=str(run_dir), failure_config=FailureConfig(max_failures=0)),
    )
    try:
        trainer.fit()
    except ray.train.TrainingFailedError as err:
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        saved = run_dir / CHECKPOINT
        where = (f"its last checkpoint is {saved}: continue with --resume {run_dir}" if saved.is_file()
                 else "it stopped before its first checkpoint")  # fmt: skip
        raise RuntimeError(f"a Ray worker failed and the run stopped ({first}); {where}") from err


# Ray Train's loggers whose warnings every run repeats: without Ray's dashboard (not installed by the rllib
# extra) the placement-group cleaner cannot ask the state API about the controller, once a second.
QUIET_LOGGERS = ("ray.train.v2._internal.execution.controller.placement_group_cleaner",)


def quiet_ray_logs() -> None:
    """Run in every Ray process of the run (``worker_process_setup_hook``): :data:`QUIET_LOGGERS` show errors
    only."""
    for name in QUIET_LOGGERS:
        logging.getLogger(name).setLevel(logging.ERROR)


def check_resources(resources: dict[str, float], workers: int, threads: int, use_gpu: bool) -> None:
    """Raise ``ValueError`` when ``resources`` (``ray.cluster_resources()``) cannot hold ``workers`` workers of
    ``threads`` CPUs (and a GPU each with ``use_gpu``): Ray would wait for them forever."""
    cpus, gpus = resources.get("CPU", 0.0), resources.get("GPU", 0.0)
    if workers * threads > cpus:
        raise ValueError(f"--num-workers {workers} x --threads {threads} needs {workers * threads} CPUs, "
                         f"the Ray cluster has {cpus:g}")  # fmt: skip
    if use_gpu and workers > gpus:
        raise ValueError(f"--num-workers {workers} with --device cuda needs {workers} GPUs, the Ray cluster has {gpus:g}")


def worker_loop(config: dict[str, Any]) -> None:
    """One Ray Train worker: :func:`training.batched.ppo.train` as this worker's rank of the group."""
    import ray.train

    from training.batched.ppo import train

    context = ray.train.get_context()
    args = Args(**{**config["args"], "progress": False})  # no bar across processes: the lead prints lines
    if args.device.startswith("cuda"):  # this worker's GPU (Ray gives each its own)
        import ray.train.torch

        args = dataclasses.replace(args, device=str(ray.train.torch.get_device()))
    group = Group(rank=context.get_world_rank(), world=context.get_world_size(),
                  device=args.device if args.device.startswith("cuda") else "cpu")  # fmt: skip
    train(args, config["command"], Path(config["run_dir"]), group)

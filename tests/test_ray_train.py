"""The batched trainer data-parallel (``euchre train --backend ray``, ``training.batched.ray_train``).

Gradients averaged across processes are the mean of each process's gradient and keep the weights identical;
one Ray worker trains exactly the local trainer's model (both learners, both precisions); two workers train,
checkpoint, resume and export a model that ``euchre eval`` plays; a worker killed mid-run fails the run with
a message naming the checkpoint, and leaves no corrupt file; bad options get clear errors.
"""

from __future__ import annotations

import dataclasses
import os
import re
import signal
import subprocess
import sys
import time
from itertools import chain
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
ray = pytest.importorskip("ray")

from agents.neural import load_policy
from apps.cli import route_words
from training.batched import ppo
from training.batched.args import Args, algo_args, check_args
from training.batched.distributed import LOCAL, Group, minibatches
from training.batched.ray_train import check_resources, launch
from training.runs import CHECKPOINT

ROOT = Path(__file__).resolve().parents[1]
SMALL = {"num_tables": 32, "minibatch_size": 256, "hidden": "32", "critic_hidden": "32", "eval_every": 0,
         "final_eval_deals": 0, "threads": 1, "progress": False, "total_decisions": 2500}  # fmt: skip
TINY = ["--num-tables", "32", "--minibatch-size", "256", "--hidden", "32", "--critic-hidden", "32",
        "--eval-every", "0", "--final-eval-deals", "0", "--threads", "1", "--no-progress"]  # fmt: skip


def run_cli(*args, check=True, timeout=600):
    proc = subprocess.run([sys.executable, "-m", "apps.cli", *args], check=False, cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout)  # fmt: skip
    if check:
        assert proc.returncode == 0, proc.stderr[-3000:]
    return proc


def _ranks(rank: int, world: int, store: str, out: str) -> None:
    """One of two gloo processes: a gradient step on its own rows, then its weights and minibatches saved."""
    import torch.distributed as dist

    from training.batched.distributed import optimizer_step

    dist.init_process_group("gloo", init_method=f"file://{store}", rank=rank, world_size=world)
    group = Group(rank, world)
    torch.manual_seed(0)
    net = torch.nn.Linear(3, 2)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    x = torch.full((4, 3), float(rank + 1))
    net(x).sum().backward()
    optimizer_step(list(net.parameters()), opt, max_grad_norm=1e9, group=group)
    n = 10 if rank == 0 else 3  # uneven shares: every rank must still take the same number of steps
    steps = [idx.tolist() for idx in minibatches(n, 4, torch.Generator().manual_seed(rank), "cpu", group)]
    torch.save({"weight": net.weight.detach(), "steps": steps, "sum": group.sum([rank, 1.0]).tolist()}, f"{out}.{rank}")
    dist.destroy_process_group()


def test_two_processes_average_gradients_and_agree_on_steps(tmp_path):
    """Each rank's gradient of sum(net(x)) with x filled with rank+1 is 4*(rank+1) per weight: the averaged
    step moves both ranks' weights by -0.1 * 6 from the same start, and both take ceil(10 / 2) steps."""
    import torch.multiprocessing as mp

    out = str(tmp_path / "rank")
    mp.spawn(_ranks, args=(2, str(tmp_path / "store"), out), nprocs=2, join=True)
    a, b = torch.load(f"{out}.0"), torch.load(f"{out}.1")
    torch.manual_seed(0)
    start = torch.nn.Linear(3, 2).weight.detach()
    assert torch.equal(a["weight"], b["weight"])
    assert torch.allclose(a["weight"], start - 0.1 * 6.0)
    assert len(a["steps"]) == len(b["steps"]) == 5  # ceil(10 / ceil(4 / 2))
    assert all(len(s) == 2 for s in a["steps"] + b["steps"])
    assert sorted(chain(*a["steps"])) == list(range(10))  # rank 0 sees each of its rows once
    assert set(chain(*b["steps"])) == {0, 1, 2}  # rank 1 goes round its 3 rows
    assert a["sum"] == b["sum"] == [1.0, 2.0]


def test_one_process_minibatches_are_the_local_trainers():
    perm = torch.randperm(10, generator=torch.Generator().manual_seed(5))
    got = list(minibatches(10, 4, torch.Generator().manual_seed(5), "cpu", LOCAL))
    assert [g.tolist() for g in got] == [perm[:4].tolist(), perm[4:8].tolist(), perm[8:].tolist()]
    assert Group(1, 4).share(32) == slice(8, 16)
    assert LOCAL.mean({"a": 1.0}) == {"a": 1.0}


@pytest.fixture(scope="module")
def local_ray():
    """A Ray instance of 2 CPUs for this module's runs (``launch`` uses it rather than starting its own)."""
    ray.init(num_cpus=2, include_dashboard=False, logging_level="WARNING")
    yield
    ray.shutdown()


@pytest.mark.parametrize(("algo", "variant", "precision"), [("ppo", "four_handed", "fp32"),
                                                            ("ppo", "five_handed", "bf16"),
                                                            ("dmc", "five_handed", "fp32"),
                                                            ("dmc", "four_handed", "bf16")])  # fmt: skip
def test_one_worker_trains_the_local_model(local_ray, tmp_path, algo, variant, precision):
    small = {k: v for k, v in SMALL.items() if algo == "ppo" or k != "critic_hidden"}  # DMC has no critic
    args = algo_args(algo, variant=variant, precision=precision, seed=4, **small)
    check_args(args)
    ppo.train(dataclasses.replace(args, out=str(tmp_path / "local")), command="test")
    ray_args = dataclasses.replace(args, backend="ray", num_workers=1, out=str(tmp_path / "ray"))
    check_args(ray_args)
    launch(ray_args, "test", ppo.prepare_run_dir(ray_args))
    (local, cfg_local), (remote, cfg_remote) = (load_policy(tmp_path / d / "model.safetensors")
                                                for d in ("local", "ray"))  # fmt: skip
    assert cfg_local.provenance["learner_decisions"] == cfg_remote.provenance["learner_decisions"] >= 2500
    for (name, a), (_, b) in zip(local.state_dict().items(), remote.state_dict().items(), strict=True):
        assert torch.equal(a, b), name


def _ray_workers() -> list[int]:
    """Pids of this machine's Ray Train worker processes."""
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes().decode(errors="replace")
            except OSError:
                continue
            if "RayTrainWorker" in cmdline:
                pids.append(int(entry.name))
    return pids


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="finds the Ray workers through /proc (Linux)")
def test_two_workers_killed_fail_clearly_then_resume_and_play(tmp_path):
    """Two workers train; one is killed (SIGKILL) after the first checkpoints: the command fails with a message
    that names the checkpoint and no model file is left half-written; --resume finishes the run, and the
    model plays in euchre eval."""
    out = tmp_path / "run"
    argv = [sys.executable, "-m", "apps.cli", "train", "--backend", "ray", "--num-workers", "2", "--variant",
            "four_handed", "--out", str(out), *TINY, "--total-decisions", "100000000", "--time-budget", "25",
            "--checkpoint-every", "1", "--snapshot-every", "2000", "--opponents", "heuristic=1,self=1,snapshots=1"]  # fmt: skip
    proc = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline and proc.poll() is None:
            if (out / CHECKPOINT).is_file() and len(_ray_workers()) == 2:
                time.sleep(2.0)  # a few more iterations and checkpoints
                break
            time.sleep(0.2)
        assert proc.poll() is None, proc.communicate()[1][-3000:]
        workers = _ray_workers()
        assert len(workers) == 2, workers
        os.kill(max(workers), signal.SIGKILL)
        _, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 1, err[-3000:]
    assert re.search(rf"a Ray worker failed.*last checkpoint is {re.escape(str(out / CHECKPOINT))}: continue "
                     rf"with --resume {re.escape(str(out))}", err), err[-3000:]  # fmt: skip
    assert not (out / "model.safetensors").exists()
    assert not list(out.glob("*.tmp"))
    trainer = ppo.Trainer(ppo.resumed_args(Args(resume=str(out)), out))
    trainer.load(out / CHECKPOINT)  # whole and readable
    stopped = trainer.progress
    assert 0 < stopped.train_seconds < 25 and stopped.iteration >= 1

    done = run_cli("train", "--resume", str(out), timeout=600)
    assert f"resumed {out} at iteration {stopped.iteration}" in done.stdout + done.stderr
    _, config = load_policy(out / "model.safetensors")
    assert config.provenance["train_seconds"] >= 25
    assert config.provenance["settings"]["backend"] == "ray" and config.provenance["settings"]["num_workers"] == 2
    played = run_cli("eval", "--variant", "four_handed", "--agents", f"model:{out}/model.safetensors", "random",
                     "--deals", "20", "--out", str(tmp_path / "eval"))  # fmt: skip
    assert "model" in played.stdout


def test_bad_options_are_refused_clearly(tmp_path):
    proc = run_cli("train", "--backend", "ray", "--num-tables", "30", "--num-workers", "4", "--out",
                   str(tmp_path / "a"), check=False)  # fmt: skip
    assert proc.returncode == 2 and "--num-tables must be a multiple of --num-workers" in proc.stderr
    assert "got --num-tables 30 and --num-workers 4" in proc.stderr
    proc = run_cli("train", "--address", "auto", "--out", str(tmp_path / "b"), check=False)
    assert proc.returncode == 2 and "--address is the Ray cluster of --backend ray" in proc.stderr
    with pytest.raises(ValueError, match="--backend ray runs the batched trainer"):
        route_words(["train", "sb3", "--backend", "ray"])
    assert route_words(["train", "--algo", "dmc", "--backend", "ray"])[:4] == ["train", "dmc", "--backend", "ray"]
    with pytest.raises(ValueError, match=r"--num-workers 3 x --threads 2 needs 6 CPUs, the Ray cluster has 4"):
        check_resources({"CPU": 4.0}, 3, 2, use_gpu=False)
    with pytest.raises(ValueError, match="needs 2 GPUs, the Ray cluster has 1"):
        check_resources({"CPU": 8.0, "GPU": 1.0}, 2, 1, use_gpu=True)
    check_resources({"CPU": 2.0}, 2, 1, use_gpu=False)

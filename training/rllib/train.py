"""Multi-agent PPO on Ray RLlib (``euchre train --backend rllib``; needs ``pip install -e ".[rllib]"``).

RLlib's new API stack: ``EuchreMultiAgentEnv`` (:mod:`training.rllib.env`,
``--tables`` hands at once on the batched engine per env, turn-based) sampled
by ``--num-env-runners`` Ray actors with ``--envs-per-runner`` envs each; the
action-masking ``MaskedMLPModule`` (:mod:`training.rllib.module`); PPO updates
in the driver. Every decision of every learning seat is training data
(``count_steps_by="agent_steps"``: ``--train-batch`` counts RLlib's agent
steps, which are the decisions plus an observation per seat and hand;
``progress.json`` reports the decisions themselves, counted by
:class:`training.rllib.runner.CountDecisions`: ``decisions``, every decision
played at the tables, a frozen snapshot's included, and ``learner_decisions``,
those of the modules that learn, as the local trainer counts them).

Ray's start-up notices (token authentication, the new API stack, deprecations,
gputil) and its workers' output are kept out of the terminal; ``--verbose``
shows them.

Policies (``--policies``):

* ``shared`` (default): one module ``main`` plays every seat;
* ``position``: one module per position from the dealer's left
  (``pos0`` bids first, ``pos{P-1}`` is the dealer), each trained on its own
  seat's decisions.

Self-play against earlier snapshots: ``--snapshots K`` frozen copies of every
trained module (``main_snap0`` ...), refreshed in turn every
``--snapshot-every`` iterations (all start as copies of the first weights). Per
table and episode, with probability ``--snapshot-prob``, one side (four-handed)
or a random 1 to P-1 seats (five-handed) are played by one snapshot; only the
trained modules learn.

Ray: a local Ray with the machine's cores by default (``--num-cpus`` to cap);
``--address auto`` joins a running cluster (``ray start --head`` on one
machine, ``ray start --address <head>:6379`` on the others, the project
installed on each).

The run folder (``--out``, refused if not empty unless ``--overwrite``):
``checkpoint/`` (RLlib's checkpoint; ``--resume DIR`` continues from it),
``model.safetensors`` (the ``main`` module's actor, or ``pos0``'s with
``--policies position``, as a model file: weights plus JSON, loaded without
unpickling; ``model:<path>`` is an agent for ``euchre eval``/``play``),
``args.json``, ``progress.json``, ``eval.json``/``eval.md`` (final duplicate
evaluation against the heuristic and random), ``eval_history.json``,
``learning_curve.png`` and ``tb/`` (TensorBoard). Ctrl-C stops after the
current iteration and saves everything.

Example::

    euchre train --backend rllib --variant four_handed --iterations 20 --out runs/rllib
    euchre eval --variant four_handed --agents model:runs/rllib/model.safetensors heuristic random
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import logging
import math
import os
import shlex
import shutil
import sys
import time
import warnings
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from euchre_env.rules import PRESETS, make_rules
from training.options import add_dataclass_options, check_ranges, dataclass_parser, layer_sizes
from training.runs import Progress, StopFlag, plot_curves, prepare_run_dir, provenance, write_json

CHECKPOINT_DIR = "checkpoint"

HELP = {
    "exp_name": "experiment name, part of the generated run folder's name",
    "variant": "game: four_handed or five_handed",
    "seed": "seed of the deals, the networks and the snapshot draws",
    "out": "run folder (default: <runs-dir>/<variant>__<exp-name>__<seed>__<time>)",
    "runs_dir": "parent of the generated run folder when --out is not given",
    "overwrite": "allow an --out folder that is not empty (its files are replaced)",
    "resume": "continue the run in this folder from its checkpoint (its args.json is used)",
    "iterations": "PPO iterations to train (each samples --train-batch decisions, then updates)",
    "address": "Ray cluster to join ('auto': the running one; '': start a local Ray)",
    "num_cpus": "CPUs of the local Ray (0: all of this machine's); ignored with --address",
    "num_env_runners": "Ray actors sampling episodes (0: sample in the driver)",
    "envs_per_runner": "EuchreMultiAgentEnv instances per env runner",
    "tables": "tables per env, played at once on the batched engine",
    "train_batch": "agent steps sampled per iteration (decisions, plus each seat's first observation of a hand)",
    "minibatch_size": "decisions per gradient step",
    "num_epochs": "passes over each iteration's decisions",
    "learning_rate": "Adam learning rate",
    "gamma": "discount (an episode is one hand: 1.0)",
    "gae_lambda": "GAE lambda",
    "clip_coef": "PPO clipping coefficient",
    "ent_coef": "entropy bonus coefficient",
    "vf_coef": "value loss coefficient",
    "max_grad_norm": "gradient clipping norm",
    "hidden": "hidden layer sizes of the policy and value networks, comma separated",
    "prior": "rule-based agent the policies build on: its choice's logit gets --prior-weight added, so training "
    "starts from its play ('': none; 'heuristic')",
    "prior_weight": "logit added to the prior agent's choice",
    "policies": "'shared': one policy for every seat; 'position': one per position from the dealer's left",
    "snapshots": "frozen snapshots of each trained policy that opponents may play (0: pure self-play)",
    "snapshot_every": "iterations between refreshing one snapshot (in turn) with the current weights",
    "snapshot_prob": "probability that a table's opponents are played by a snapshot",
    "zero_sum": "reward own side's points minus the other side's (five-handed: minus the mean)",
    "checkpoint_every": "iterations between checkpoints (one is also written at the end and on Ctrl-C)",
    "eval_every": "iterations between duplicate evaluations against the heuristic (0: none)",
    "eval_deals": "deals of each periodic evaluation",
    "final_eval_deals": "deals per match of the final evaluation against heuristic and random (0: none)",
    "device": "torch device of the learner: cpu or cuda",
    "verbose": "show Ray's own output: its start-up notices and warnings, and its workers' logs",
}


@dataclass
class Args:
    """Every setting of an RLlib run (each one a ``--kebab-case`` option)."""

    exp_name: str = "rllib"
    variant: str = "four_handed"
    seed: int = 1
    out: str | None = None
    runs_dir: str = "runs"
    overwrite: bool = False
    resume: str = ""
    iterations: int = 20
    address: str = ""
    num_cpus: int = 0
    num_env_runners: int = 2
    envs_per_runner: int = 1
    tables: int = 64
    train_batch: int = 16384
    minibatch_size: int = 2048
    num_epochs: int = 4
    learning_rate: float = 3e-4
    gamma: float = 1.0
    gae_lambda: float = 0.95
    clip_coef: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    hidden: str = "256,256"
    prior: str = ""
    prior_weight: float = 3.0
    policies: str = "shared"
    snapshots: int = 2
    snapshot_every: int = 5
    snapshot_prob: float = 0.3
    zero_sum: bool = True
    checkpoint_every: int = 5
    eval_every: int = 0
    eval_deals: int = 500
    final_eval_deals: int = 1000
    device: str = "cpu"
    verbose: bool = False


POLICY_KINDS = ("shared", "position")


CHOICES = {"variant": sorted(PRESETS), "policies": POLICY_KINDS, "prior": ("", "heuristic")}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``euchre train rllib``: one per field of :class:`Args`."""
    add_dataclass_options(parser, Args, HELP, CHOICES)


def parse_args(argv: Sequence[str] | None = None) -> Args:
    """``Args`` from the command line; a bad value exits with status 2 and a one-line message."""
    parser = dataclass_parser(Args, HELP, prog="euchre train rllib", description=__doc__.split("\n\n")[0],
                              choices=CHOICES)  # fmt: skip
    args = Args(**vars(parser.parse_args(argv)))
    try:
        check_args(args)
    except ValueError as err:
        parser.error(str(err))
    return args


def check_args(args: Args) -> None:
    """Raise ``ValueError`` naming the first bad option."""
    check_ranges(
        args,
        at_least_1=("iterations", "envs_per_runner", "tables", "train_batch", "minibatch_size", "num_epochs",
                    "snapshot_every", "checkpoint_every", "eval_deals"),
        at_least_0=("num_cpus", "num_env_runners", "snapshots", "eval_every", "final_eval_deals", "ent_coef",
                    "vf_coef", "snapshot_prob", "prior_weight"),
        positive=("learning_rate", "clip_coef", "max_grad_norm"),
        intervals=(("gamma", 0.0, 1.0), ("gae_lambda", 0.0, 1.0)),
    )  # fmt: skip
    if args.snapshot_prob > 1:
        raise ValueError(f"--snapshot-prob must be at most 1, got {args.snapshot_prob}")
    if args.minibatch_size > args.train_batch:
        raise ValueError(
            f"--minibatch-size ({args.minibatch_size}) must not exceed --train-batch ({args.train_batch})"
        )
    hidden_sizes(args.hidden)
    if args.device not in ("cpu", "cuda"):
        raise ValueError(f"--device must be 'cpu' or 'cuda', got {args.device!r}")


def hidden_sizes(text: str) -> list[int]:
    """``"256,256"`` -> ``[256, 256]``; raises ``ValueError`` naming ``--hidden``."""
    return layer_sizes(text, "--hidden")


def trained_modules(args: Args, num_players: int) -> list[str]:
    """The modules that learn: ``["main"]`` or one ``pos{q}`` per position."""
    return ["main"] if args.policies == "shared" else [f"pos{q}" for q in range(num_players)]


def snapshot_name(module: str, k: int) -> str:
    return f"{module}_snap{k}"


class PolicyMapping:
    """Agent -> module, the same for every agent of one table in one episode (picklable for Ray).

    A table of episode ``e`` draws ``h = crc32(f"{seed}:{e}:{table}")``: with
    probability ``snapshot_prob`` the opponents are played by snapshot
    ``k = h % snapshots``; four-handed the opponents are the side of parity
    ``h``; five-handed a nonempty proper subset of positions drawn from ``h``.
    """

    def __init__(self, trained: list[str], num_players: int, snapshots: int, prob: float, seed: int) -> None:
        self.trained, self.num_players, self.snapshots, self.prob, self.seed = (
            trained,
            num_players,
            snapshots,
            prob,
            seed,
        )

    def __call__(self, agent_id: str, episode: Any = None, **kwargs: Any) -> str:
        from training.rllib.env import agent_position, agent_table

        pos = agent_position(agent_id)
        own = self.trained[0] if len(self.trained) == 1 else self.trained[pos]
        if not self.snapshots or self.prob <= 0:
            return own
        episode_id = getattr(episode, "id_", "")
        h = zlib.crc32(f"{self.seed}:{episode_id}:{agent_table(agent_id)}".encode())
        if (h & 0xFFFF) / 65536.0 >= self.prob:
            return own
        k, rest = (h >> 16) % self.snapshots, h >> 20
        if self.num_players == 4:
            opponent = pos % 2 == rest % 2
        else:
            subset = 1 + rest % (2**self.num_players - 2)  # 1 .. 2**P - 2: never none, never all
            opponent = bool((subset >> pos) & 1)
        return snapshot_name(own, k) if opponent else own


def build_config(args: Args) -> Any:
    """The ``PPOConfig`` of a run."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from training.rllib.env import EuchreMultiAgentEnv
    from training.rllib.module import MaskedMLPModule
    from training.rllib.runner import CountDecisions, EuchreEnvRunner

    rules = make_rules(args.variant)
    trained = trained_modules(args, rules.num_players)
    modules = trained + [snapshot_name(m, k) for m in trained for k in range(args.snapshots)]
    model = {"hidden": hidden_sizes(args.hidden), "activation": "relu", "prior": args.prior,
             "prior_weight": args.prior_weight, "variant": args.variant}  # fmt: skip
    specs = {m: RLModuleSpec(module_class=MaskedMLPModule, model_config=model) for m in modules}
    env_config = {
        "variant": args.variant,
        "tables": args.tables,
        "zero_sum": args.zero_sum,
        "seed": args.seed,
    }
    # fmt: off
    return (
        PPOConfig()
        .environment(EuchreMultiAgentEnv, env_config=env_config)
        # sample_timeout_s=None: wait for every runner (RLlib's 60 s default drops a slow runner's samples
        # silently, which a busy machine hits); a runner that dies still stops the run (fault_tolerance below).
        .env_runners(env_runner_cls=EuchreEnvRunner, sample_timeout_s=None, num_env_runners=args.num_env_runners, num_envs_per_env_runner=args.envs_per_runner,
                     rollout_fragment_length="auto", num_cpus_per_env_runner=1)
        .multi_agent(
            policies=set(modules), policies_to_train=trained, count_steps_by="agent_steps",
            policy_mapping_fn=PolicyMapping(trained, rules.num_players, args.snapshots, args.snapshot_prob, args.seed),
        )
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
        .learners(num_learners=0, num_gpus_per_learner=1 if args.device == "cuda" else 0)
        .training(lr=args.learning_rate, train_batch_size_per_learner=args.train_batch,
                  minibatch_size=args.minibatch_size, num_epochs=args.num_epochs, gamma=args.gamma,
                  lambda_=args.gae_lambda, clip_param=args.clip_coef, entropy_coeff=args.ent_coef,
                  vf_loss_coeff=args.vf_coef, grad_clip=args.max_grad_norm, vf_clip_param=100.0)
        .callbacks(CountDecisions)
        .fault_tolerance(restart_failed_env_runners=False)  # a failing env runner stops the run, loudly
        .debugging(seed=args.seed, log_level="WARN" if args.verbose else "ERROR")
    )
    # fmt: on


# Ray's loggers (their own levels; their children inherit "ray"'s). Quiet, they let only errors through: the
# token-authentication and gputil notices ("ray"), RLlib's new-API-stack warning ("ray.rllib") and the
# "DeprecationWarning: `RLModule(config=...)`" notice (ray._common.deprecation) are warnings.
RAY_LOGGERS = ("ray", "ray.rllib")
# Python warnings Ray, RLlib and the libraries they load may raise while a run starts.
QUIET_WARNINGS = (DeprecationWarning, PendingDeprecationWarning, FutureWarning)


@contextlib.contextmanager
def ray_output(verbose: bool) -> Iterator[None]:
    """Keep Ray's start-up notices and warnings out of the terminal unless ``verbose``; restored after.

    Quiet: Ray's loggers let only errors through, the deprecation and future warnings of ``ray`` and
    ``gymnasium`` modules are ignored, and ``start_ray`` keeps the workers' output in Ray's log files
    (``log_to_driver=False``). Errors, and the run's own progress lines, are always shown.
    """
    if verbose:
        yield
        return
    loggers = [logging.getLogger(name) for name in RAY_LOGGERS]
    levels = [lg.level for lg in loggers]
    with warnings.catch_warnings():
        for category in QUIET_WARNINGS:
            warnings.filterwarnings("ignore", category=category, module=r"(ray|gymnasium)(\.|$)")
        for lg in loggers:
            lg.setLevel(logging.ERROR)
        try:
            yield
        finally:
            for lg, level in zip(loggers, levels, strict=True):
                lg.setLevel(level)


def start_ray(args: Args) -> bool:
    """Connect to ``--address`` or start a local Ray; True when this call started it.

    Without ``--verbose`` the workers' output stays in Ray's log files and Ray configures no logging
    (``ray_output`` quiets its loggers); with it, Ray logs at INFO and forwards its workers' output.
    """
    import ray

    if ray.is_initialized():
        return False
    if args.verbose:
        output = {"log_to_driver": True, "configure_logging": True, "logging_level": logging.INFO}
    else:
        output = {"log_to_driver": False, "configure_logging": False, "logging_level": logging.ERROR}
    if args.address:
        ray.init(address=args.address, include_dashboard=False, **output)
    else:
        ray.init(num_cpus=args.num_cpus or os.cpu_count(), include_dashboard=False, **output)
    return True


def copy_weights(algo: Any, pairs: list[tuple[str, str]]) -> None:
    """Set each destination module to its source module's weights (learner and env runners)."""
    weights = algo.learner_group.get_weights(module_ids=sorted({src for src, _ in pairs}))
    algo.learner_group.set_weights({dst: weights[src] for src, dst in pairs})
    algo.env_runner_group.sync_weights(
        policies=[dst for _, dst in pairs],
        from_worker_or_learner_group=algo.learner_group,
        inference_only=True,
    )


def save_checkpoint(algo: Any, run_dir: Path, progress: Progress) -> None:
    """RLlib's checkpoint into ``checkpoint/`` (written beside, then swapped in) and ``progress.json``."""
    final, tmp, old = (run_dir / CHECKPOINT_DIR, run_dir / (CHECKPOINT_DIR + ".tmp"),
                       run_dir / (CHECKPOINT_DIR + ".old"))  # fmt: skip
    shutil.rmtree(tmp, ignore_errors=True)
    algo.save_to_path(str(tmp.resolve()))
    if final.exists():
        shutil.rmtree(old, ignore_errors=True)
        final.rename(old)
    tmp.rename(final)
    write_json(run_dir / "progress.json", dataclasses.asdict(progress))
    shutil.rmtree(old, ignore_errors=True)


def checkpoint_dir(run_dir: Path) -> Path | None:
    """The checkpoint to resume from (the previous one if a save was cut short), or None."""
    for name in (CHECKPOINT_DIR, CHECKPOINT_DIR + ".old"):
        if (run_dir / name).is_dir():
            return run_dir / name
    return None


def export(algo: Any, args: Args, path: Path, command: str, progress: Progress) -> Path:
    """The first trained module's actor as a model file (``agents.neural`` format)."""
    from training.rllib.module import export_policy

    rules = make_rules(args.variant)
    module = trained_modules(args, rules.num_players)[0]
    weights = algo.learner_group.get_weights(module_ids=[module])[module]
    prov = {**provenance(args, command), "algo": "rllib-ppo", "module": module,
            "iteration": progress.iteration, "learner_decisions": progress.learner_decisions}  # fmt: skip
    prov.get("settings", {}).pop("verbose", None)  # how the run reported, not what it trained
    return export_policy(
        weights, rules, hidden_sizes(args.hidden), "relu", path, prov, args.prior, args.prior_weight
    )


def _metric(result: dict[str, Any], key: str) -> float:
    """A sampling metric of ``result``; a per-agent dict is summed (RLlib may report NaN for an absent agent)."""
    value = result.get("env_runners", {}).get(key, 0)
    values = list(value.values()) if isinstance(value, dict) else [value]
    return float(sum(v for v in (float(x or 0) for x in values) if not math.isnan(v)))


def train(args: Args, command: str | None = None, run_dir: Path | None = None) -> Path:
    """Run (or resume) one RLlib training; returns the run folder."""
    run_dir = run_dir if run_dir is not None else prepare_run(args)
    if args.resume:
        stored = json.loads((run_dir / "args.json").read_text())
        args = Args(**{**stored, "resume": args.resume, "address": args.address, "num_cpus": args.num_cpus,
                       "verbose": args.verbose})  # fmt: skip
        progress = Progress(**json.loads((run_dir / "progress.json").read_text()))
    else:
        write_json(run_dir / "args.json", dataclasses.asdict(args))
        progress = Progress()
    command = command or "training.rllib.train.train(" + repr(dataclasses.asdict(args)) + ")"
    with ray_output(args.verbose):
        return _train(args, command, run_dir, progress)


def _train(args: Args, command: str, run_dir: Path, progress: Progress) -> Path:
    """``train``'s run, with Ray's output as ``--verbose`` says."""
    from torch.utils.tensorboard import SummaryWriter

    from agents.neural import NeuralAgent
    from arena.evaluate import evaluate, evaluate_model
    from training.rllib.runner import DECISIONS, LEARNER_DECISIONS

    rules = make_rules(args.variant)
    trained = trained_modules(args, rules.num_players)
    started = start_ray(args)
    algo = build_config(args).build_algo()
    try:
        if args.resume:
            algo.restore_from_path(str(checkpoint_dir(run_dir).resolve()))
            print(
                f"resumed {run_dir} at iteration {algo.iteration}, {progress.learner_decisions} learner decisions",
                flush=True,
            )
        elif args.snapshots:
            copy_weights(algo, [(m, snapshot_name(m, k)) for m in trained for k in range(args.snapshots)])
        writer = SummaryWriter(str(run_dir / "tb"))

        def periodic_eval() -> None:
            path = export(algo, args, run_dir / "latest_model.safetensors", command, progress)
            scores = evaluate_model(NeuralAgent(path, rules), rules, {"heuristic": "heuristic"},
                                    args.eval_deals, seed=args.seed + 10_000)  # fmt: skip
            progress.history.append({"iteration": progress.iteration, "seconds": progress.seconds,
                                     "learner_decisions": progress.learner_decisions, "eval": scores})  # fmt: skip
            writer.add_scalar(
                "eval/points_vs_heuristic", scores["heuristic"]["advantage"], progress.learner_decisions
            )
            print(f"  eval vs heuristic {scores['heuristic']['advantage']:+.3f} ± {scores['heuristic']['ci95']:.3f}",
                  flush=True)  # fmt: skip

        with StopFlag() as stop:
            while algo.iteration < args.iterations and not stop.set:
                start = time.perf_counter()
                result = algo.train()
                if os.environ.get("EUCHRE_RLLIB_DEBUG"):
                    print(json.dumps(result.get("env_runners", {}), default=str, indent=1)[:3000])
                progress.iteration = algo.iteration
                progress.decisions = int(_metric(result, DECISIONS))
                progress.learner_decisions = int(_metric(result, LEARNER_DECISIONS))
                progress.seconds += time.perf_counter() - start
                # An episode's return sums every seat's zero-sum reward (about 0): the curve records time instead.
                progress.curve.append([progress.learner_decisions, progress.seconds])
                writer.add_scalar("charts/decisions_per_second", progress.learner_decisions / progress.seconds,
                                  progress.learner_decisions)  # fmt: skip
                print(f"iteration {algo.iteration}: {progress.learner_decisions} learner decisions "
                      f"({progress.decisions} played), {progress.learner_decisions / progress.seconds:,.0f}/s",
                      flush=True)  # fmt: skip
                if args.snapshots and algo.iteration % args.snapshot_every == 0:
                    k = (algo.iteration // args.snapshot_every - 1) % args.snapshots
                    copy_weights(algo, [(m, snapshot_name(m, k)) for m in trained])
                if args.eval_every and algo.iteration % args.eval_every == 0:
                    periodic_eval()
                if algo.iteration % args.checkpoint_every == 0:
                    save_checkpoint(algo, run_dir, progress)
            save_checkpoint(algo, run_dir, progress)
            model = export(algo, args, run_dir / "model.safetensors", command, progress)
            write_json(run_dir / "eval_history.json", {"history": progress.history, "curve": progress.curve})
            if progress.history:  # the evaluations against decisions and time (not the timing curve)
                plot_curves(dataclasses.replace(progress, curve=[]), run_dir / "learning_curve.png")
            writer.close()
    finally:
        algo.stop()
        if started:
            import ray

            ray.shutdown()
    finished = progress.iteration >= args.iterations
    if finished and args.final_eval_deals:
        result = evaluate({"model": NeuralAgent(model, rules), "heuristic": "heuristic", "random": "random"},
                          rules, args.final_eval_deals, seed=args.seed + 20_000)  # fmt: skip
        result.save(run_dir, plot=False)
        print(result.to_markdown().split("## Head-to-head")[0].strip())
    state = "trained" if finished else "stopped early (continue with --resume) after"
    print(f"{state} {progress.iteration} iterations, {progress.learner_decisions} learner decisions "
          f"({progress.decisions} played) in {progress.seconds:.0f} s; wrote {run_dir}", flush=True)  # fmt: skip
    return run_dir


def prepare_run(args: Args) -> Path:
    """The run folder (``--resume``'s must hold a checkpoint)."""
    if args.resume:
        path = Path(args.resume)
        if checkpoint_dir(path) is None or not (path / "args.json").is_file():
            raise ValueError(f"--resume {args.resume!r}: no {CHECKPOINT_DIR}/ and args.json in that folder")
        return path
    return prepare_run_dir(args)


def main(argv: Sequence[str] | None = None) -> int:
    """CLI entry point (``euchre train --backend rllib``)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parse_args(argv)
    try:
        import ray.rllib  # noqa: F401
    except ImportError:
        print('euchre train --backend rllib: error: Ray RLlib is not installed (pip install -e ".[rllib]")',
              file=sys.stderr)  # fmt: skip
        return 2
    try:
        if args.device == "cuda":
            import torch

            if not torch.cuda.is_available():
                raise ValueError("--device cuda: torch sees no CUDA device on this machine")
        run_dir = prepare_run(args)
    except ValueError as err:
        print(f"euchre train: error: {err}", file=sys.stderr)
        return 2
    train(args, command="euchre train rllib " + shlex.join(argv), run_dir=run_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())

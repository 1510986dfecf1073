"""Train a MaskablePPO Euchre agent (``euchre train sb3``, ``python -m training.sb3.train``).

One file, CleanRL style: every setting is a field of :class:`Args` and a
command-line option (``--help`` lists them). The learner plays one seat
(drawn per hand) of ``num_envs`` batched tables
(:class:`~euchre_env.envs.sb3_vec_env.EuchreSB3VecEnv`; ``--env single`` uses a
``DummyVecEnv`` of the Gymnasium ``EuchreEnv`` instead, see
:mod:`training.sb3.envs`); its own current policy
plays its partner, and before every rollout the opponents are drawn again
from a pool (:class:`training.pool.OpponentPool`): the current policy
(self-play), frozen snapshots of it (one is added each time the periodic
evaluation improves), and the ``heuristic``/``random``/``search`` agents.
``--self-play`` keeps only the current policy and its snapshots.

The run folder (``--out DIR`` exactly, else
``runs/{variant}__{exp_name}__{seed}__{unix time}``) receives:

* ``tb/``: TensorBoard logs (``charts/``, ``losses/``, ``eval/`` tags, e.g.
  ``eval/points_vs_heuristic``) and ``tb/progress.csv``;
* ``checkpoints/``: the model every ``--checkpoint-every`` timesteps;
* ``model.safetensors`` (the final policy's actor as data: ``model:<path>``
  loads it as an agent without running code from it) and ``model.zip`` (the
  same model as stable-baselines3 saves it, for SB3 users; ``model:<path>``
  reads it as data too), ``best_model.safetensors`` / ``best_model.zip`` (the
  best periodic evaluation), ``eval.json`` / ``eval.md`` (a duplicate-deal
  evaluation against ``random`` and ``heuristic``), ``eval_history.json``
  and ``learning_curve.png``.

Example::

    euchre train sb3 --variant four_handed --out runs/demo
    euchre eval --variant four_handed --agents model:runs/demo/model.safetensors heuristic random --deals 2000

The defaults train for about ten minutes on two CPU cores. Ctrl-C (or SIGTERM)
stops after the current step and saves ``model.zip``/``model.safetensors``,
the history and the curve (no final evaluation); every file is written whole
(a temporary file, then a rename). ``--init-model`` continues from a model's
weights; exact resumption (optimizer, schedule, pool, random streams) is the
default trainer's (``euchre train --resume``, :mod:`training.batched.ppo`).

``--imitate AGENT`` starts from a behaviour clone of an agent; with
``--imitate-rollouts PHASES`` the decisions of those phases instead learn
each legal action's value (one rollout per action, the hand finished by the
imitated agent), a one-step improvement of it; ``--total-timesteps 0``
stops there (no PPO). An earlier five-handed shipped model was made so (docs/five_handed_model.md).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from euchre_env.rules import PRESETS, make_rules
from training.options import add_dataclass_options, check_ranges, dataclass_parser
from training.runs import StopFlag, write_json
from training.sb3.envs import ENV_KINDS, make_train_env

HELP = {
    "exp_name": "experiment name, part of the run folder's name",
    "variant": "game: four_handed or five_handed",
    "seed": "seed of the tables, the network and the opponent draws",
    "out": "run folder, used exactly (default: <runs-dir>/<variant>__<exp-name>__<seed>__<time>)",
    "runs_dir": "parent of the generated run folder when --out is not given",
    "overwrite": "allow an --out folder that is not empty (its files are replaced)",
    "total_timesteps": "learner decisions to train for (0 with --imitate: behaviour cloning only)",
    "num_envs": "tables played at once",
    "env": "training env: 'batched' (EuchreSB3VecEnv, the batched engine) or 'single' (a DummyVecEnv of "
    "the Gymnasium EuchreEnv, one table per env; slower, same deals)",
    "num_steps": "decisions per table per rollout (a rollout is num_envs * num_steps decisions)",
    "learning_rate": "Adam learning rate",
    "anneal_lr": "decay the learning rate linearly to 0",
    "batch_size": "minibatch size of the PPO updates",
    "n_epochs": "passes over each rollout",
    "gamma": "discount factor (an episode is one hand, so 1.0 is natural)",
    "gae_lambda": "GAE lambda",
    "clip_coef": "PPO clipping coefficient",
    "ent_coef": "entropy bonus coefficient",
    "vf_coef": "value loss coefficient",
    "max_grad_norm": "gradient clipping norm",
    "net_arch": "hidden layer sizes of the policy and value networks, comma separated",
    "vf_arch": "hidden layer sizes of the value network alone, comma separated ('': as --net-arch)",
    "activation": "hidden activation: tanh or relu",
    "zero_sum": "reward own side's points minus the other side's (five-handed: minus the mean)",
    "opponents": "opponent pool with weights, e.g. 'self=1,snapshots=1,heuristic=2' "
    "(kinds: self, snapshots, heuristic, random, search)",
    "opponent_seats": "where the drawn opponent sits: 'mixed' (four-handed: both opponents, the partner being "
    "the learner's own policy; five-handed: 1-4 random seats, the rest the learner's policy) or 'all' (every other seat)",
    "self_play": "pure self-play: same as --opponents self=1,snapshots=1",
    "max_snapshots": "frozen snapshots kept in the pool",
    "eval_every": "timesteps between duplicate-deal evaluations against heuristic and random (0: none)",
    "eval_deals": "deals per periodic evaluation match",
    "final_eval_deals": "deals per match of the final evaluation (eval.json, eval.md)",
    "checkpoint_every": "timesteps between checkpoints (0: none)",
    "imitate": "agent to imitate before PPO (behaviour cloning warm start, e.g. heuristic; '' for none)",
    "imitate_hands": "hands the imitated agent plays at every seat to make the cloning data",
    "imitate_epochs": "passes of behaviour cloning over that data",
    "imitate_lr": "learning rate of behaviour cloning",
    "imitate_anneal": "decay the behaviour cloning learning rate linearly to 0",
    "imitate_rollouts": "phases (comma separated: bid_upcard, discard, bid_suit, call, play, ...) where the policy "
    "learns each legal action's value, from one rollout per action finished by the imitated agent, "
    "instead of copying the imitated agent's choice ('': none)",
    "imitate_q_coef": "weight of the action-value loss of --imitate-rollouts",
    "imitate_q_reward": "the action values of --imitate-rollouts: own (the seat's points), zero_sum (minus "
    "the mean of all seats) or relative (minus the sum of the other seats': what a five-handed duplicate match measures)",
    "imitate_q_margin": "points added to the imitated agent's own action in those values (departs only for a larger gain)",
    "imitate_cache": "npz file of the cloning data: loaded if it exists, else written ('': none)",
    "init_model": "start from the weights of this saved model (same --net-arch and variant), e.g. to continue a run: "
    "a .zip (actor and critic) or a .safetensors file (the actor only; also the same --activation)",
    "threads": "torch CPU threads",
    "progress": "show a progress bar",
    "device": "torch device for the network",
}


@dataclass
class Args:
    """Every setting of a training run (each one a ``--kebab-case`` option)."""

    exp_name: str = "ppo"
    variant: str = "four_handed"
    seed: int = 1
    out: str | None = None
    runs_dir: str = "runs"
    overwrite: bool = False
    total_timesteps: int = 500_000
    num_envs: int = 128
    env: str = "batched"
    num_steps: int = 32
    learning_rate: float = 3e-4
    anneal_lr: bool = True
    batch_size: int = 1024
    n_epochs: int = 4
    gamma: float = 1.0
    gae_lambda: float = 0.95
    clip_coef: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    net_arch: str = "256,256"
    vf_arch: str = ""
    activation: str = "relu"
    zero_sum: bool = True
    opponents: str = "self=1,snapshots=1,heuristic=2"
    opponent_seats: str = "mixed"
    self_play: bool = False
    max_snapshots: int = 5
    eval_every: int = 100_000
    eval_deals: int = 300
    final_eval_deals: int = 1000
    checkpoint_every: int = 250_000
    imitate: str = ""
    imitate_hands: int = 10_000
    imitate_epochs: int = 5
    imitate_lr: float = 1e-3
    imitate_anneal: bool = False
    imitate_rollouts: str = ""
    imitate_q_coef: float = 1.0
    imitate_q_reward: str = "zero_sum"
    imitate_q_margin: float = 0.0
    imitate_cache: str = ""
    init_model: str = ""
    threads: int = 1
    progress: bool = True
    device: str = "cpu"


CHOICES = {"variant": sorted(PRESETS), "activation": ["tanh", "relu"], "opponent_seats": ["mixed", "all"],
           "env": list(ENV_KINDS), "imitate_q_reward": ["own", "zero_sum", "relative"]}  # fmt: skip


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``euchre train sb3``: one per field of :class:`Args`."""
    add_dataclass_options(parser, Args, HELP, CHOICES)


def parse_args(argv: Sequence[str] | None = None) -> Args:
    """``Args`` from the command line (``--total-timesteps 1000``, ``--no-progress``, ...)."""
    parser = dataclass_parser(Args, HELP, "euchre train sb3", __doc__.split("\n\n")[0], CHOICES)
    args = Args(**vars(parser.parse_args(argv)))
    if args.total_timesteps < 0 or (args.total_timesteps == 0 and not (args.imitate or args.init_model)):
        parser.error("--total-timesteps must be at least 1 (0 only with --imitate or --init-model: no PPO)")
    for name in (
        "num_envs",
        "num_steps",
        "batch_size",
        "n_epochs",
        "eval_deals",
        "threads",
    ):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1, got {getattr(args, name)}")
    if args.final_eval_deals < 2 or args.eval_deals < 2:
        parser.error("--eval-deals and --final-eval-deals must be at least 2")
    if args.out and Path(args.out).is_dir() and any(Path(args.out).iterdir()) and not args.overwrite:
        parser.error(f"--out {args.out!r} is not empty: pass --overwrite to replace its files")
    if args.out and Path(args.out).exists() and not Path(args.out).is_dir():
        parser.error(f"--out {args.out!r} is a file, not a folder")
    try:
        check_ranges(
            args,
            at_least_0=("eval_every", "checkpoint_every", "seed", "imitate_hands", "imitate_epochs",
                        "max_snapshots", "ent_coef", "vf_coef", "imitate_q_coef"),
            positive=("learning_rate", "max_grad_norm", "imitate_lr"),
            intervals=(("gamma", 0, 1), ("gae_lambda", 0, 1), ("clip_coef", 0, 10)),
        )  # fmt: skip
    except ValueError as err:
        parser.error(str(err))
    try:
        from agents import make_agent
        from training.imitation import parse_phases

        pool_weights(args)
        hidden_sizes(args)
        hidden_sizes(args, "vf_arch")
        parse_phases(args.imitate_rollouts)
        if args.imitate:
            make_agent(args.imitate, make_rules(args.variant))
        if args.init_model:
            from agents.sb3_policy import resolve_model_path

            resolve_model_path(args.init_model)
    except ValueError as err:
        parser.error(str(err))
    return args


def hidden_sizes(args: Args, option: str = "net_arch") -> list[int]:
    """``--net-arch "256,256"`` -> ``[256, 256]`` (raises ValueError naming the option).

    ``option="vf_arch"`` reads ``--vf-arch`` instead, which when empty means ``--net-arch``.
    """
    text = getattr(args, option) or args.net_arch
    try:
        sizes = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        sizes = []
    if not sizes or min(sizes) < 1:
        flag = "--" + option.replace("_", "-")
        raise ValueError(f"{flag} must be positive layer sizes separated by commas, got {text!r}")
    return sizes


def pool_weights(args: Args) -> dict[str, float]:
    """The opponent pool's weights (``--self-play`` means ``self=1,snapshots=1``)."""
    from training.pool import parse_pool

    return parse_pool("self=1,snapshots=1" if args.self_play else args.opponents)


def build_model(args: Args, venv: Any) -> Any:
    """The MaskablePPO learner over ``venv``."""
    import torch
    from sb3_contrib import MaskablePPO

    arch: Any = hidden_sizes(args)
    if args.vf_arch:
        arch = {"pi": arch, "vf": hidden_sizes(args, "vf_arch")}
    lr = args.learning_rate
    schedule = (lambda progress_remaining: lr * progress_remaining) if args.anneal_lr else lr
    return MaskablePPO(
        "MlpPolicy", venv, learning_rate=schedule, n_steps=args.num_steps, batch_size=args.batch_size,
        n_epochs=args.n_epochs, gamma=args.gamma, gae_lambda=args.gae_lambda, clip_range=args.clip_coef,
        ent_coef=args.ent_coef, vf_coef=args.vf_coef, max_grad_norm=args.max_grad_norm, seed=args.seed,
        device=args.device, verbose=0, stats_window_size=1000,
        policy_kwargs={"net_arch": arch, "activation_fn": {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[args.activation]},
    )  # fmt: skip


def make_callback(args: Args, rules: Any, env: Any, pool: Any, run_dir: Path, stop: Any) -> Any:
    """The callback that redraws opponents, evaluates, snapshots, checkpoints and shows progress.

    ``stop`` (a :class:`training.runs.StopFlag`) ends the run after the current step once set.
    """
    from stable_baselines3.common.callbacks import BaseCallback

    from agents import make_agent
    from agents.sb3_policy import SB3Policy
    from arena.evaluate import evaluate_model

    baselines = {"heuristic": make_agent("heuristic", rules), "random": make_agent("random", rules)}

    class TrainingCallback(BaseCallback):
        def __init__(self) -> None:
            super().__init__()
            self.history: list[dict[str, Any]] = []
            self.train_curve: list[tuple[int, float]] = []
            self.best = -np.inf
            self.next_eval = args.eval_every
            self.next_checkpoint = args.checkpoint_every
            self.bar: Any = None

        def _on_training_start(self) -> None:
            if args.progress:
                from tqdm.auto import tqdm

                self.bar = tqdm(total=args.total_timesteps, unit="step", desc=f"train {args.variant}")
            if args.eval_every:
                self._evaluate()

        def _on_step(self) -> bool:
            if self.bar is not None:
                self.bar.update(self.training_env.num_envs)
            return not stop.set  # Ctrl-C: stable-baselines3 ends `learn` after this step

        def _on_rollout_start(self) -> None:  # the policy has just been updated
            t = self.num_timesteps
            if args.eval_every and t >= self.next_eval:
                self.next_eval += args.eval_every
                self._evaluate()
            if args.checkpoint_every and t >= self.next_checkpoint:
                self.next_checkpoint += args.checkpoint_every
                save_model(self.model, rules, run_dir / "checkpoints" / f"model_{t}_steps.zip")
            self._redraw()

        def _on_rollout_end(self) -> None:
            if self.model.ep_info_buffer:
                reward = float(np.mean([e["r"] for e in self.model.ep_info_buffer]))
                self.train_curve.append((self.num_timesteps, reward))

        def _on_training_end(self) -> None:
            if self.bar is not None:
                self.bar.close()
            if args.eval_every and (not self.history or self.history[-1]["timesteps"] < self.num_timesteps):
                self._evaluate()  # the curve ends at the final model

        def _redraw(self) -> None:
            _, opponents = pool.draw()
            env.set_opponents(opponents)
            self.logger.record("charts/snapshots", len(pool.snapshots))

        def _evaluate(self) -> None:
            agent = SB3Policy(self.model.policy, rules)
            scores = evaluate_model(agent, rules, baselines, args.eval_deals, seed=args.seed)
            self.history.append({"timesteps": self.num_timesteps, "eval": scores})
            for name, s in scores.items():
                self.logger.record(f"eval/points_vs_{name}", s["advantage"])
                self.logger.record(f"eval/points_per_hand_vs_{name}", s["points"])
            self.logger.dump(self.num_timesteps)
            summary = {f"vs_{n}": f"{s['advantage']:+.3f}" for n, s in scores.items()}
            if self.bar is not None:
                self.bar.set_postfix(summary)
            else:
                print(f"timesteps {self.num_timesteps}: evaluation {summary}", flush=True)
            if scores["heuristic"]["advantage"] > self.best:
                self.best = scores["heuristic"]["advantage"]
                if self.num_timesteps > 0 or args.imitate or args.init_model:
                    pool.add_snapshot(self.model.policy)
                    save_model(self.model, rules, run_dir / "best_model.zip", args)

    return TrainingCallback()


def save_model(model: Any, rules: Any, path: Path, args: Args | None = None) -> Path:
    """Save ``model`` with its rules (``model.euchre_rules``) so ``model:<path>`` can check them.

    With ``args``, the actor is also written beside the zip as ``<stem>.safetensors``
    (data only, see ``agents.neural``) by ``agents.sb3_policy.convert_to_safetensors``.
    """
    from agents.sb3_policy import convert_to_safetensors, rules_metadata

    model.euchre_rules = rules_metadata(rules)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.stem + ".tmp.zip")  # written whole, then renamed: never half a zip under `path`
    model.save(tmp)
    tmp.replace(path)
    if args is not None:
        convert_to_safetensors(path, path.with_suffix(".safetensors"), provenance(args, model, path))
    return path


def provenance(args: Args, model: Any, path: Path) -> dict[str, Any]:
    """What made a model file: the trainer, its options, the timesteps and the code's commit."""
    import subprocess

    commit = "unknown"
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], check=False, capture_output=True, text=True,
                              timeout=10, cwd=Path(__file__).resolve().parent)  # fmt: skip
        if head.returncode == 0:
            commit = head.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        pass
    options = " ".join(f"--{k.replace('_', '-')} {v}" for k, v in dataclasses.asdict(args).items())
    return {"command": f"python -m training.sb3.train {options}", "algo": "sb3", "seed": args.seed,
            "variant": args.variant, "timesteps": int(model.num_timesteps), "commit": commit,
            "converted_from": path.name}  # fmt: skip


def init_weights(model: Any, path: str, rules: Any) -> None:
    """``--init-model``: a zip's whole policy, or a ``.safetensors`` actor (the critic stays as built).

    Raises:
        ValueError: the file is not a model for ``rules``, or its network does not fit ``model``'s.
    """
    from agents.sb3_policy import SB3Policy, load_actor_into, resolve_model_path

    file = resolve_model_path(path, rules)
    if file.suffix.lower() == ".safetensors":
        load_actor_into(model.policy, file, rules)
        return
    state = SB3Policy(file, rules).policy.state_dict()
    ours = model.policy.state_dict()
    wrong = sorted(
        k for k in {*state, *ours} if k not in state or k not in ours or state[k].shape != ours[k].shape
    )
    if wrong:
        raise ValueError(
            f"--init-model {path}: its network does not fit --net-arch/--vf-arch (tensors {wrong} differ)"
        )
    model.policy.load_state_dict(state)


def warm_start(args: Args, rules: Any, model: Any) -> None:
    """Behaviour cloning of ``args.imitate`` (all seats, ``args.imitate_hands`` hands) into the policy and critic."""
    from agents import make_agent
    from training import imitation

    teacher = make_agent(args.imitate, rules)
    phases = imitation.parse_phases(args.imitate_rollouts)
    cache = Path(args.imitate_cache) if args.imitate_cache else None
    if cache is not None and cache.is_file():
        with np.load(cache) as saved:
            data = {k: saved[k] for k in saved.files}
        print(f"loaded the cloning data from {cache}")
    else:
        data = imitation.imitation_data(rules, teacher, args.imitate_hands, args.seed, args.zero_sum, phases)
        if cache is not None:
            cache.parent.mkdir(parents=True, exist_ok=True)
            tmp = cache.with_name(cache.name + ".tmp")
            with tmp.open("wb") as f:  # a temporary file, then a rename: never half a cache under `cache`
                np.savez(f, **data)
            tmp.replace(cache)
    data = imitation.keep_q_phases(data, phases, rules)  # a cache may hold values of more phases
    stats = imitation.pretrain(
        model.policy, data, args.imitate_epochs, args.batch_size, args.imitate_lr, args.seed,
        anneal=args.imitate_anneal, q_coef=args.imitate_q_coef, q_reward=args.imitate_q_reward,
        q_margin=args.imitate_q_margin, num_players=rules.num_players,
    )  # fmt: skip
    for key, value in stats.items():
        model.logger.record(f"imitation/{key}", value)
    print(
        f"imitated {args.imitate} on {data['actions'].size} decisions: "
        + ", ".join(f"{k} {v:.3f}" for k, v in stats.items())
    )


def train(args: Args) -> Path:
    """Run one training as configured; returns the run folder."""
    from stable_baselines3.common.logger import Logger
    from stable_baselines3.common.vec_env import VecMonitor

    from agents.sb3_policy import SB3Policy
    from arena.evaluate import evaluate
    from training.pool import OpponentPool
    from training.sb3 import files as sb3_files

    sb3_files.set_threads(args.threads)
    rules = make_rules(args.variant)
    run_dir = sb3_files.run_folder(args.out, args.runs_dir, args.variant, args.exp_name, args.seed)
    write_json(run_dir / "args.json", dataclasses.asdict(args))
    weights = pool_weights(args)
    env = make_train_env(args.env, args.num_envs, args.variant, args.zero_sum, args.seed)
    model = build_model(args, VecMonitor(env))
    model.set_logger(Logger(str(run_dir / "tb"), [sb3_files.RenamedOutput(run_dir / "tb")]))
    if args.init_model:
        init_weights(model, args.init_model, rules)
    if args.imitate:
        warm_start(args, rules, model)
    live = SB3Policy(model.policy, rules, deterministic=False, name="self")
    pool = OpponentPool(
        weights, rules, live, args.max_snapshots, np.random.default_rng(args.seed), args.opponent_seats
    )
    start = time.time()
    with StopFlag() as stop:
        callback = make_callback(args, rules, env, pool, run_dir, stop)
        model.learn(args.total_timesteps, callback=callback)
        save_model(model, rules, run_dir / "model.zip", args)
        model.logger.close()
        history = callback.history
        write_json(run_dir / "eval_history.json", {"history": history, "train_curve": callback.train_curve})
        tmp = sb3_files.plot_learning_curve(history, callback.train_curve, run_dir / "learning_curve.tmp.png")
        tmp.replace(run_dir / "learning_curve.png")
    if stop.set:
        print(f"stopped early after {model.num_timesteps} timesteps (Ctrl-C); saved the model in {run_dir}")
        return run_dir
    agent = SB3Policy(model.policy, rules, name="model")
    result = evaluate({"model": agent, "heuristic": "heuristic", "random": "random"}, rules,
                      args.final_eval_deals, seed=args.seed + 10_000)  # fmt: skip
    result.save(run_dir, plot=False)
    print(result.to_markdown().split("## Head-to-head")[0].strip())
    print(f"trained {model.num_timesteps} timesteps in {time.time() - start:.0f} s; wrote {run_dir}")
    return run_dir


def main(argv: Sequence[str] | None = None) -> int:
    """CLI entry point (also ``euchre train``)."""
    train(parse_args(argv))
    return 0


if __name__ == "__main__":
    sys.exit(main())

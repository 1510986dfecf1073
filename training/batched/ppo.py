"""Batched self-play PPO on the engine (``euchre train``, the default route ``euchre train ppo``).

One file, CleanRL style: every setting is a field of :class:`Args` and a
command-line option (``euchre train --help``). Each iteration

1. deals ``--num-tables`` hands and draws, per table, who sits where: the
   learner's current policy at every seat (self-play), or against one entry
   of the opponent pool (``heuristic``, ``random``, ``search`` or a frozen
   ``snapshots`` entry of the learner): four-handed, the entry takes one
   side; five-handed, 1 to 4 random seats;
2. plays them to the end on the batched engine (:mod:`training.batched.rollout`):
   every learner decision at every seat is training data;
3. estimates advantages along each seat's own decisions (GAE) with a critic
   that, in training only, also sees the other seats' hands
   (``--critic full``; the saved policy sees only its seat's observation);
4. takes ``--update-epochs`` PPO passes over the data in minibatches.

By default the policy builds on the heuristic (``--prior heuristic``): the
heuristic's choice gets ``--prior-weight`` added to its logit, so the untrained
policy plays as the heuristic and PPO learns where departing from it pays
(``--prior ''`` learns from scratch; ``docs/experiments/training_journal.md`` has the measurements).

The update runs in bfloat16 where the hardware multiplies it natively
(``--precision auto``; weights, losses and the rollout stay float32), about
1.6x the learner decisions per second on this project's CPUs.

Randomness is a pure function of ``(seed, iteration)``, so the same seed
gives the same model and ``--resume`` continues exactly.

The run folder (``--out DIR``, refused if not empty unless ``--overwrite``)
receives ``model.safetensors`` (the final policy: weights plus a JSON config,
loading it runs no code; ``model:<path>`` makes it an agent),
``best_model.safetensors`` (best periodic evaluation against the heuristic; five-handed, in relative points),
``checkpoint.safetensors`` (everything ``--resume`` needs), ``args.json``,
``eval.json``/``eval.md`` (final duplicate evaluation), ``eval_history.json``,
``learning_curve.png`` (evaluation against learner decisions and wall-clock
time) and ``tb/`` (TensorBoard). Ctrl-C stops at the end of the iteration,
saves everything and exits cleanly; ``--resume DIR`` continues.

Example::

    euchre train --variant four_handed --out runs/demo
    euchre eval --variant four_handed --agents model:runs/demo/model.safetensors heuristic random --deals 2000
"""

from __future__ import annotations

import dataclasses
import json
import shlex
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from euchre_env.rules import RulesConfig, make_rules
from training.batched.args import (
    CHOICES,
    DEFAULT_DECISIONS,
    HELP,
    Args,
    add_arguments,
    check_args,
    parse_args,
    resolve_args,
)
from training.batched.distributed import LOCAL, Group
from training.batched.network import (
    build_net,
    hidden_bits,
    learner_act,
    policy_config,
    recording_inputs,
    seat_value,
    with_prior,
)
from training.batched.precision import BF16_ENV, autocast, cpu_has_bf16, resolve_precision, run_at
from training.batched.update import (
    LOSSES,
    action_advantages,
    canonicalise,
    imitate,
    layers,
    logp_of,
    policy_logits,
    ppo_update,
    to_tensors,
    values_of,
)
from training.runs import (
    CHECKPOINT,
    Progress,
    StopFlag,
    load_checkpoint,
    plot_curves,
    prepare_run_dir,
    provenance,
    save_checkpoint,
    write_json,
)

__all__ = [  # the trainer's names, and the pieces it is made of (one module each) under one roof
    "BF16_ENV", "CHOICES", "DEFAULT_DECISIONS", "HELP", "LOSSES", "POOL", "Args", "Trainer",
    "action_advantages", "add_arguments", "assign_seats", "autocast", "build_net", "canonicalise",
    "check_args", "check_device", "cpu_has_bf16", "evaluate_now", "hidden_bits", "imitate", "layers", "learner_act",
    "logp_of", "main", "parse_args", "policy_config", "policy_logits", "ppo_update", "resolve_args",
    "resolve_precision", "resumed_args", "run_at", "seat_value", "to_tensors", "train", "values_of", "with_prior",
]  # fmt: skip


def assign_seats(
    rng: np.random.Generator, weights: dict[str, float], n_snapshots: int, b: int, rules: RulesConfig
) -> tuple[np.ndarray, np.ndarray]:
    """Who sits where at each of ``b`` tables.

    Returns:
        ``(entry, opp_seats)``: int (b,) index into ``POOL`` of each table's
        entry (``self`` tables have no opponent), bool (b, P) the seats the
        entry takes. A ``snapshots`` draw with no snapshot yet plays ``self``.
    """
    kinds = list(POOL)
    w = np.array([weights.get(k, 0.0) if (k != "snapshots" or n_snapshots) else 0.0 for k in kinds])
    entry = rng.choice(len(kinds), size=b, p=w / w.sum())
    p = rules.num_players
    if rules.called_card:  # 1..P-1 random seats
        k = rng.integers(1, p, size=b)
        order = np.argsort(rng.random((b, p)), axis=1)
        seats = np.zeros((b, p), bool)
        np.put_along_axis(seats, order, np.arange(p)[None, :] < k[:, None], axis=1)
    else:  # one side
        side = rng.integers(0, 2, size=b)
        seats = (np.arange(p)[None, :] % 2) == side[:, None]
    seats &= (entry != kinds.index("self"))[:, None]
    return entry, seats


POOL = ("self", "heuristic", "random", "search", "snapshots")


def target_seats(rng: np.random.Generator, b: int, rules: RulesConfig) -> np.ndarray:
    """bool (b, P): the seats ``--target`` takes at each of ``b`` tables: four-handed one side (drawn per
    table), five-handed every seat but one (the learner's, drawn per table)."""
    p = rules.num_players
    if rules.called_card:
        return np.arange(p)[None, :] != rng.integers(0, p, size=b)[:, None]
    return (np.arange(p)[None, :] % 2) == rng.integers(0, 2, size=b)[:, None]


def evaluate_now(agent: Any, rules: RulesConfig, args: Args, search: Any, target: Any = None) -> dict[str, dict[str, float]]:
    """Periodic duplicate evaluation against the heuristic (and the search agent, and ``--target`` as
    ``"target"``, when asked)."""
    from agents import make_agent
    from arena.evaluate import evaluate_model

    scores = evaluate_model(agent, rules, {"heuristic": make_agent("heuristic", rules)}, args.eval_deals,
                            seed=args.seed + 10_000)  # fmt: skip
    if target is not None:
        scores.update(evaluate_model(agent, rules, {"target": target}, args.eval_deals, seed=args.seed + 12_000))
    if args.eval_search_deals:
        scores.update(
            evaluate_model(agent, rules, {"search": search}, args.eval_search_deals, seed=args.seed + 11_000)
        )
    return scores


class Trainer:
    """The learner, its optimizer and opponent pool, advanced one PPO iteration at a time (writes no files).

    With a ``group`` of several processes (:mod:`training.batched.distributed`) each plays its share of the
    tables and the updates average their gradients; counters and statistics are the group's totals and means.

    Attributes:
        net: ``net.actor`` (the policy) and ``net.critic``.
        progress: counters, evaluations and curves (:class:`Progress`).
        snapshot_actors: frozen copies of the actor in the pool, oldest first.
        live: the current actor as a deterministic :class:`~agents.neural.NeuralAgent`.
    """

    def __init__(self, args: Args, command: str = "", group: Group = LOCAL) -> None:
        import torch

        from agents import make_agent
        from agents.neural import NeuralAgent, prior_agent
        from training.pool import parse_pool

        torch.set_num_threads(args.threads)
        torch.manual_seed(args.seed)
        args = resolve_args(args)
        self.args, self.device, self.group = args, torch.device(args.device), group
        self.rules = make_rules(args.variant, episode="hand")
        self.net = build_net(args, self.rules).to(self.device)
        self.opt = torch.optim.Adam(self.net.parameters(), lr=args.learning_rate, eps=1e-5)
        self.config = policy_config(args, self.rules, provenance(args, command))
        self.progress, self.snapshot_actors = Progress(), []
        self.weights = parse_pool(args.opponents)
        if args.target:  # one fixed agent at every table (see target_seats)
            self.fixed = {"target": make_agent(args.target, self.rules)}
        else:
            self.fixed = {k: make_agent(k, self.rules) for k in ("heuristic", "random", "search")
                          if self.weights.get(k, 0) > 0}  # fmt: skip
        self.live = NeuralAgent((self.net.actor, self.config), self.rules, deterministic=True, name="model")
        self.prior = prior_agent(self.config, self.rules)

    def load(self, path: Path) -> None:
        from agents.neural import actor_for

        self.progress, self.snapshot_actors, first = load_checkpoint(
            path, self.net, self.opt, lambda: actor_for(self.config)
        )
        if first is not None:  # the model records the command that began the run, then each resumption
            now = {k: self.config.provenance[k] for k in ("command", "commit")}
            resumed = [*first.get("resumed", []), {**now, "learner_decisions": self.progress.learner_decisions}]
            self.config = dataclasses.replace(self.config, provenance={**first, "resumed": resumed})

    def save(self, path: Path) -> None:
        save_checkpoint(path, self.net, self.opt, self.snapshot_actors, self.progress, self.args,
                        self.config.provenance)  # fmt: skip

    def snapshots(self) -> list[Any]:
        from agents.neural import NeuralAgent

        return [NeuralAgent((a, self.config), self.rules, deterministic=False, name="snapshot")
                for a in self.snapshot_actors]  # fmt: skip

    def add_snapshot(self) -> None:
        from agents.neural import actor_for

        clone = actor_for(self.config)
        clone.load_state_dict({k: v.detach().cpu() for k, v in self.net.actor.state_dict().items()})
        self.snapshot_actors = [*self.snapshot_actors, clone.eval()][-self.args.max_snapshots :]

    def imitate(self) -> dict[str, float]:
        """The ``--imitate`` phase (once per run)."""
        start = time.perf_counter()
        stats = imitate(self.net, self.args, self.rules, self.device)
        self.progress.imitated = int(stats["decisions"])
        self.progress.seconds += time.perf_counter() - start
        return stats

    def done(self) -> float:
        """The share of the run done: of ``--total-decisions``, or of ``--time-budget`` when that is further on."""
        args, progress = self.args, self.progress
        share = progress.learner_decisions / args.total_decisions
        if args.time_budget:
            share = max(share, progress.train_seconds / args.time_budget)
        return share

    def iterate(self) -> dict[str, float]:
        """One iteration: seat the tables, play a hand at each (:meth:`play`), one update (:meth:`learn`).
        Returns its statistics."""
        import torch

        args, rules, net, progress = self.args, self.rules, self.net, self.progress
        start = time.perf_counter()
        rng = np.random.default_rng(np.random.SeedSequence([args.seed, progress.iteration]))
        gen = torch.Generator(device=self.device).manual_seed(int(rng.integers(2**62)))
        cpu_gen = torch.Generator().manual_seed(int(rng.integers(2**62)))
        if args.anneal_lr:
            for param_group in self.opt.param_groups:
                param_group["lr"] = args.learning_rate * max(0.0, 1.0 - self.done())
        snaps = self.snapshots()
        entry, seats = assign_seats(rng, self.weights, len(snaps), args.num_tables, rules)
        controllers = np.full(seats.shape, -1, np.int64)
        if args.target:  # the target (self.fixed's only entry) at its seats of every table
            seats, entry = target_seats(rng, args.num_tables, rules), np.full(args.num_tables, -1)
            controllers[seats] = 0
        else:
            for k, kind in enumerate(self.fixed):
                controllers[seats & (entry == POOL.index(kind))[:, None]] = k
        snap_rows = entry == POOL.index("snapshots")
        if snap_rows.any():
            pick = len(self.fixed) + rng.integers(0, len(snaps), size=int(snap_rows.sum()))
            controllers[snap_rows] = np.where(seats[snap_rows], pick[:, None], -1)
        seeds = rng.integers(0, 2**63, size=args.num_tables, dtype=np.uint64)
        group = self.group
        if group.world > 1:  # this process's share of the tables, and from rank 1 on its own random streams
            mine = group.share(args.num_tables)
            entry, seats, controllers, seeds = entry[mine], seats[mine], controllers[mine], seeds[mine]
            if group.rank:
                rng = np.random.default_rng(np.random.SeedSequence([args.seed, progress.iteration, group.rank]))
                gen = torch.Generator(device=self.device).manual_seed(int(rng.integers(2**62)))
                cpu_gen = torch.Generator().manual_seed(int(rng.integers(2**62)))
        net.eval()
        ro, prior_choice = self.play(seeds, controllers, [*self.fixed.values(), *snaps], rng, gen)
        played = time.perf_counter()
        net.train()
        stats = group.mean(self.learn(ro, prior_choice, cpu_gen))
        net.eval()
        before = progress.learner_decisions
        vs_h = seats.any(axis=1) & (entry == POOL.index("heuristic"))
        against = {"target": ro.points[~seats] if args.target else np.zeros(0),
                   "heuristic": ro.points[vs_h][~seats[vs_h]]}  # the learner's seats' points  # fmt: skip
        totals = group.sum([len(ro), ro.decisions, ro.forced, *(p.sum() for p in against.values()),
                            *(p.size for p in against.values())])  # fmt: skip
        learned = int(totals[0])
        progress.iteration += 1
        progress.learner_decisions += learned
        progress.decisions += int(totals[1])
        elapsed = group.max(time.perf_counter() - start)  # the slowest rank's: every rank waited for it
        progress.seconds += elapsed
        progress.train_seconds += elapsed
        stats["rollout_seconds"], stats["update_seconds"] = played - start, elapsed - (played - start)
        stats["learner_decisions_per_second"] = learned / elapsed
        stats["learning_rate"] = self.opt.param_groups[0]["lr"]
        for (name, _), total, count in zip(against.items(), totals[3:5], totals[5:7], strict=True):
            if count:
                stats[f"reward_vs_{name}"] = float(total / count)
        if "reward_vs_heuristic" in stats:
            progress.curve.append([progress.learner_decisions, stats["reward_vs_heuristic"]])
        crossed = (
            args.snapshot_every
            and progress.learner_decisions // args.snapshot_every > before // args.snapshot_every
        )
        if crossed and self.weights.get("snapshots", 0) > 0:
            self.add_snapshot()
        stats["decisions"] = float(learned)
        stats["forced"] = totals[2]  # the learner's forced decisions, played but not learned from
        return stats

    def play(self, seeds: np.ndarray, controllers: np.ndarray, pool: list[Any], rng: np.random.Generator,
             gen: Any) -> tuple[Any, np.ndarray | None]:  # fmt: skip
        """One hand at each table (:func:`~training.batched.rollout.collect`), the learner sampling from its
        policy. Returns the rollout and, with a prior, its choice at each rollout row (int64 (N,); else None)."""
        from agents.neural import network_input
        from training.batched.rollout import collect

        args, rules, net = self.args, self.rules, self.net
        chosen: list[np.ndarray] = []
        inputs = lambda obs: network_input(obs, args.features, rules)  # obs itself without --features
        kept, seen = recording_inputs(args.features, rules)
        act = learner_act(net.actor, gen, self.device, self.prior, self.config.prior_weights, chosen, kept)
        valuer = critic = None  # valuer samples like act, records nothing
        if args.action_values:
            valuer = learner_act(net.actor, gen, self.device, self.prior, self.config.prior_weights, [], inputs)
        if args.action_value_horizon == "next":
            critic = seat_value(net.critic, self.device, inputs, args.critic == "full")
        ro = collect(rules, seeds, controllers, act, pool, rng, args.zero_sum,
                     record_forced=not args.skip_forced, counterfactual=valuer,
                     value_play=args.action_values == "all", critic=critic, told=args.told_partner)  # fmt: skip
        ro.partner = np.concatenate(seen) if seen else None
        if self.prior is None:
            return ro, None
        return ro, np.concatenate(chosen) if chosen else np.zeros(0, np.int64)

    def learn(self, ro: Any, prior_choice: np.ndarray | None, gen: Any) -> dict[str, float]:
        """The PPO update on one rollout (``prior_choice`` as :meth:`play` returns it); returns its statistics."""
        import torch

        from training.batched.rollout import gae

        args, net = self.args, self.net
        data = to_tensors(ro, args, self.device, self.rules)
        if prior_choice is not None:
            data["prior"] = torch.from_numpy(prior_choice).to(self.device)
            data["prior_w"] = torch.from_numpy(self.config.prior_weights(prior_choice)).to(self.device)
        data = canonicalise(net, data)  # once, not on every pass of every epoch
        if ro.q is not None:
            data.update(action_advantages(net, data, args))
        values = values_of(net, data, args.precision)
        if args.precision != "fp32":  # the ratio's denominator at the update's precision (the rollout ran fp32)
            data["logp"] = logp_of(net, data, args)
        adv, ret = gae(ro, values, args.gamma, args.gae_lambda)
        data["advantages"] = torch.from_numpy(adv).to(self.device)
        data["returns"] = torch.from_numpy(ret).to(self.device)
        stats = ppo_update(net, self.opt, data, args, gen, self.group)
        stats["explained_variance"] = float(1 - np.var(ret - values) / (np.var(ret) + 1e-8))
        if ro.q is not None:
            stats["valued_decisions"] = float(data["q_rows"].numel())
        return stats


def resumed_args(args: Args, run_dir: Path) -> Args:
    """The settings of the run that ``--resume`` continues (its ``args.json``), with this command line's
    ``resume``, ``progress`` and ``address`` (where it runs, not what it learns)."""
    stored = {"precision": "fp32", **json.loads((run_dir / "args.json").read_text())}  # runs from before bf16
    return Args(**{**stored, "resume": args.resume, "progress": args.progress, "address": args.address})


def train(args: Args, command: str | None = None, run_dir: Path | None = None, group: Group = LOCAL) -> Path:
    """Run (or resume) one training as configured; returns the run folder.

    ``run_dir`` is :func:`prepare_run_dir`'s result when the caller already checked it. With a ``group`` of
    several processes (``--backend ray``: :mod:`training.batched.ray_train`) every process runs this on its
    share of the tables, and the lead (rank 0) alone evaluates, prints and writes the run's files.
    """
    from agents import make_agent
    from agents.neural import save_policy
    from arena.evaluate import evaluate

    run_dir = run_dir if run_dir is not None else prepare_run_dir(args)
    lead = group.lead
    if args.resume:
        args = resumed_args(args, run_dir)
    else:
        args = resolve_args(args)
        if lead:
            write_json(run_dir / "args.json", dataclasses.asdict(args))
    command = command or "training.batched.ppo.train(" + repr(dataclasses.asdict(args)) + ")"
    if args.algo == "dmc":
        from training.batched.dmc import DMCTrainer

        tr: Trainer = DMCTrainer(args, command, group)
    else:
        tr = Trainer(args, command, group)
    progress = tr.progress
    if args.resume:
        tr.load(run_dir / CHECKPOINT)
        progress = tr.progress
        if lead:
            print(f"resumed {run_dir} at iteration {progress.iteration}, "
                  f"{progress.learner_decisions} learner decisions", flush=True)  # fmt: skip
    group.broadcast(tr.net)  # the same weights everywhere, whatever each process's torch drew
    search = make_agent("search", tr.rules) if args.eval_search_deals and lead else None
    writer = _writer(run_dir) if lead else None
    bar = _bar(args, progress) if lead else None

    def periodic_eval() -> None:
        start = time.perf_counter()
        scores = evaluate_now(tr.live, tr.rules, args, search, tr.fixed.get("target"))
        progress.history.append({"iteration": progress.iteration, "learner_decisions": progress.learner_decisions,
                                 "seconds": progress.seconds, "train_seconds": progress.train_seconds,
                                 "eval": scores})  # fmt: skip
        for name, s in scores.items():
            writer.add_scalar(f"eval/points_vs_{name}", s["advantage"], progress.learner_decisions)
            if tr.rules.called_card:
                writer.add_scalar(f"eval/relative_vs_{name}", s["relative"], progress.learner_decisions)
        text = {f"vs_{n}": f"{s['advantage']:+.3f}±{s['ci95']:.3f}" for n, s in scores.items()}
        if tr.rules.called_card:  # five individual scores: relative points too (see Matchup.relative)
            text.update({f"relative_vs_{n}": f"{s['relative']:+.3f}±{s['relative_ci95']:.3f}"
                         for n, s in scores.items()})  # fmt: skip
        if bar is not None:
            bar.set_postfix(text)
        else:
            print(f"decisions {progress.learner_decisions}: {text}", flush=True)
        score = scores["heuristic"]["relative" if tr.rules.called_card else "advantage"]
        if progress.best is None or score > progress.best:
            progress.best = score
            save_policy(run_dir / "best_model.safetensors", tr.net.actor, _with(tr.config, progress))
        progress.seconds += time.perf_counter() - start

    with StopFlag() as stop:
        if args.imitate and not progress.imitated:
            if lead:  # the lead imitates, the others take its weights
                stats = tr.imitate()
                print(f"imitated {args.imitate} on {progress.imitated} decisions: "
                      + ", ".join(f"{k} {v:.3f}" for k, v in stats.items() if k != "decisions"), flush=True)  # fmt: skip
            group.broadcast(tr.net)
        if lead and args.eval_every and progress.iteration == 0 and not progress.history and not stop.set:
            periodic_eval()
        stopping = lambda: group.max(float(stop.set)) > 0  # Ctrl-C on any process stops them all
        while tr.done() < 1 and not stopping():
            before = progress.learner_decisions
            stats = tr.iterate()
            if not lead:
                continue
            for key, value in stats.items():
                kind = "losses" if key in LOSSES else "charts"
                if key != "decisions":
                    writer.add_scalar(f"{kind}/{key}", value, progress.learner_decisions)
            if bar is not None:
                bar.update(progress.learner_decisions - before)
            if args.eval_every and progress.learner_decisions // args.eval_every > before // args.eval_every:
                periodic_eval()
            if progress.iteration % args.checkpoint_every == 0:
                tr.save(run_dir / CHECKPOINT)
                if group.world > 1:  # no bar across processes: a line per checkpoint
                    print(f"iteration {progress.iteration}: {progress.learner_decisions:,} learner decisions, "
                          f"{stats['learner_decisions_per_second']:,.0f}/s", flush=True)  # fmt: skip
        if not lead:
            return run_dir
        if bar is not None:
            bar.close()
        tr.save(run_dir / CHECKPOINT)
        save_policy(run_dir / "model.safetensors", tr.net.actor, _with(tr.config, progress))
        write_json(run_dir / "eval_history.json", {"history": progress.history, "curve": progress.curve})
        if progress.history or progress.curve:
            plot_curves(progress, run_dir / "learning_curve.png", relative=tr.rules.called_card)
        writer.close()
    finished = tr.done() >= 1
    if finished and args.final_eval_deals:
        result = evaluate({"model": tr.live, "heuristic": "heuristic", "random": "random"}, tr.rules,
                          args.final_eval_deals, seed=args.seed + 20_000)  # fmt: skip
        result.save(run_dir, plot=False)
        print(result.to_markdown().split("## Head-to-head")[0].strip())
        for m in result.matchups if tr.rules.called_card else ():
            print(f"relative points per hand, {m.agents[0]} − {m.agents[1]}: {m.relative}")
    rate = progress.learner_decisions / max(progress.seconds, 1e-9)
    state = "trained" if finished else "stopped early (continue with --resume) after"
    print(f"{state} {progress.learner_decisions} learner decisions in {progress.seconds:.0f} s "
          f"({rate:,.0f}/s); wrote {run_dir}", flush=True)  # fmt: skip
    return run_dir


def _with(config: Any, progress: Progress) -> Any:
    """``config`` with the run's progress in its provenance."""
    return dataclasses.replace(config, provenance={**config.provenance, "iteration": progress.iteration,
                                                   "learner_decisions": progress.learner_decisions,
                                                   "train_seconds": progress.train_seconds})  # fmt: skip


def _writer(run_dir: Path) -> Any:
    from torch.utils.tensorboard import SummaryWriter

    return SummaryWriter(str(run_dir / "tb"))


def _bar(args: Args, progress: Progress) -> Any:
    if not args.progress:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=args.total_decisions, initial=progress.learner_decisions, unit="dec",
                unit_scale=True, desc=f"train {args.variant}")  # fmt: skip


def check_device(device: str) -> None:
    """Raise ``ValueError`` when ``device`` is a CUDA device and torch sees none."""
    if device.startswith("cuda"):
        import torch

        if not torch.cuda.is_available():
            raise ValueError(f"--device {device}: torch sees no CUDA device on this machine")


def main(argv: Sequence[str] | None = None, algo: str = "ppo") -> int:
    """CLI entry point (``euchre train [ppo]``; ``euchre train dmc`` with ``algo="dmc"``)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parse_args(argv, algo=algo)
    prog = "euchre train" if algo == "ppo" else f"euchre train {algo}"
    command = f"{prog} " + shlex.join(argv)
    try:
        check_device(args.device)
        run_dir = prepare_run_dir(args)
        if args.resume:  # the run's own settings, its backend and workers included
            args = resumed_args(args, run_dir)
        if args.backend == "ray":
            from training.batched.ray_train import launch

            launch(args, command, run_dir)
            return 0
    except ValueError as err:
        print(f"{prog}: error: {err}", file=sys.stderr)
        return 2
    except RuntimeError as err:  # a failed Ray worker
        print(f"{prog}: error: {err}", file=sys.stderr)
        return 1
    train(args, command=command, run_dir=run_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())

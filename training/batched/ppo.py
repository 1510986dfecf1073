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
(``--prior ''`` learns from scratch; ``docs/training.md`` has the measurements).

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

import argparse
import dataclasses
import json
import os
import shlex
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from euchre_env.actions import NUM_ACTIONS
from euchre_env.encoding import CARD_SLOTS, obs_layout
from euchre_env.rules import PRESETS, RulesConfig, make_rules
from training.options import add_dataclass_options, check_ranges, dataclass_parser, layer_sizes
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

# Learner decisions of a run at the default --total-decisions, by number of players: about ten minutes of
# training with its periodic evaluations on two CPU cores without bfloat16 matrix units (float32 updates).
DEFAULT_DECISIONS = {4: 4_000_000, 5: 3_000_000}

HELP = {
    "exp_name": "experiment name, part of the generated run folder's name",
    "variant": "game: four_handed or five_handed",
    "seed": "seed of the deals, the network and every random draw",
    "out": "run folder (default: <runs-dir>/<variant>__<exp-name>__<seed>__<time>)",
    "runs_dir": "parent of the generated run folder when --out is not given",
    "overwrite": "allow an --out folder that is not empty (its files are replaced)",
    "resume": "continue the run in this folder exactly where its checkpoint stopped (its args.json is used)",
    "total_decisions": "learner decisions to train on (every seat's decisions count); 0: the variant's default, "
    + ", ".join(f"{n:,} with {players} players" for players, n in DEFAULT_DECISIONS.items()),
    "num_tables": "hands dealt and played at once per iteration",
    "skip_forced": "leave the learner's forced decisions (one legal action) out of the training data and of "
    "--total-decisions: they carry no policy gradient (about 30%% of four-handed decisions)",
    "learning_rate": "Adam learning rate",
    "anneal_lr": "decay the learning rate linearly to 0 over --total-decisions",
    "minibatch_size": "decisions per gradient step",
    "update_epochs": "passes over each iteration's decisions",
    "gamma": "discount (an episode is one hand: 1.0)",
    "gae_lambda": "GAE lambda along each seat's decisions",
    "clip_coef": "PPO clipping coefficient",
    "ent_coef": "entropy bonus coefficient",
    "vf_coef": "value loss coefficient",
    "max_grad_norm": "gradient clipping norm",
    "hidden": "hidden layer sizes of the policy network, comma separated",
    "critic_hidden": "hidden layer sizes of the value network, comma separated",
    "activation": "hidden activation",
    "prior": "rule-based agent the policy builds on: its choice's logit gets --prior-weight added, so training "
    "starts from its play and learns where to depart from it ('': none; 'heuristic')",
    "prior_weight": "logit added to the prior agent's choice",
    "prior_weight_bidding": "logit added to the prior agent's choice at every decision but trick play (bidding, "
    "discard, partner call, alone); -1: --prior-weight. A large value keeps the prior's bidding and learns the play",
    "action_values": "value every legal action of some of the learner's decisions by playing the hand out once after "
    "each from a copy of the position, and train those decisions on all their actions' values (PPO's clipped "
    "objective in expectation over the policy) instead of the one action sampled (training.batched.rollout.action_values; "
    "slower iterations): '' none; 'bidding' the decisions outside trick play (bids, discard, partner call, alone); "
    "'all' the card play too",
    "action_value_horizon": "with --action-values: 'hand' plays each copy to the end of the hand and takes the seat's "
    "reward; 'next' plays it only until the seat next has a choice and takes the critic's value there (fewer moves "
    "per copy)",
    "critic": "what the value network sees: 'full' (the seat's observation and the other hands; training "
    "only) or 'obs' (the observation alone)",
    "suit_symmetry": "actor and critic see each deal with its trump (before trump: the upcard's suit) as the "
    "first suit, so each hand teaches all four trump suits (agents.suit_symmetry); --no-suit-symmetry: plain "
    "MLPs (needed to continue with --algo sb3)",
    "sort_other_colour": "with --suit-symmetry: the two suits of the other colour than trump's (which play the same "
    "part) are also ordered by their cards, so hands that differ only by swapping them are one input",
    "features": "what actor and critic see besides the observation: '' nothing; 'derived': card sets worked out "
    "from it (unseen cards, where each may be, the trick's state; euchre_env.derived)",
    "zero_sum": "reward own side's points minus the other side's (five-handed: minus the mean)",
    "opponents": "opponent pool with weights, per table, e.g. 'self=1,heuristic=1,snapshots=1' "
    "(kinds: self, snapshots, heuristic, random, search)",
    "snapshot_every": "learner decisions between frozen snapshots of the policy added to the pool",
    "max_snapshots": "snapshots kept in the pool (the oldest is dropped)",
    "eval_every": "learner decisions between duplicate evaluations (0: none)",
    "eval_deals": "deals of each periodic evaluation against the heuristic",
    "eval_search_deals": "deals of each periodic evaluation against the search agent (0: none; slow)",
    "final_eval_deals": "deals per match of the final evaluation against heuristic and random (0: none)",
    "imitate": "agent whose play the policy first imitates (behaviour cloning at every seat, the critic "
    "fitted to its returns), e.g. heuristic; '' starts from scratch",
    "imitate_decisions": "decisions of the imitated agent to learn from (each seen once)",
    "imitate_lr": "learning rate of the imitation phase",
    "checkpoint_every": "iterations between checkpoints (a checkpoint is also written at the end and on Ctrl-C)",
    "threads": "torch CPU threads",
    "device": "torch device for the network: cpu, cuda, cuda:1, ...",
    "precision": "arithmetic of the network's passes in the PPO update: 'fp32'; 'bf16' (autocast: bfloat16 matrix "
    "multiplies, float32 weights, losses and rollout; about 2-3x faster updates on CPUs with AMX or AVX512-BF16 and "
    "on GPUs that support it, slower elsewhere); 'auto' (the default): bf16 where it is fast, else fp32 (args.json "
    "records which). Saved models are float32 either way",
    "progress": "show a progress bar",
}


@dataclass
class Args:
    """Every setting of a run (each one a ``--kebab-case`` option)."""

    exp_name: str = "ppo"
    variant: str = "four_handed"
    seed: int = 1
    out: str | None = None
    runs_dir: str = "runs"
    overwrite: bool = False
    resume: str = ""
    total_decisions: int = 0
    num_tables: int = 1024
    skip_forced: bool = True
    learning_rate: float = 1e-3
    anneal_lr: bool = True
    minibatch_size: int = 4096
    update_epochs: int = 4
    gamma: float = 1.0
    gae_lambda: float = 0.9
    clip_coef: float = 0.2
    ent_coef: float = 0.0
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    hidden: str = "256,256"
    critic_hidden: str = "128,128"
    activation: str = "relu"
    prior: str = "heuristic"
    prior_weight: float = 3.0
    prior_weight_bidding: float = -1.0
    action_values: str = ""
    action_value_horizon: str = "hand"
    critic: str = "full"
    suit_symmetry: bool = True
    sort_other_colour: bool = False
    features: str = ""
    zero_sum: bool = True
    opponents: str = "heuristic=3,self=1"
    snapshot_every: int = 1_000_000
    max_snapshots: int = 10
    eval_every: int = 1_000_000
    eval_deals: int = 1000
    eval_search_deals: int = 0
    final_eval_deals: int = 2000
    imitate: str = ""
    imitate_decisions: int = 2_000_000
    imitate_lr: float = 1e-3
    checkpoint_every: int = 10
    threads: int = 2
    device: str = "cpu"
    precision: str = "auto"
    progress: bool = True


CHOICES = {
    "variant": sorted(PRESETS),
    "activation": ["relu", "tanh"],
    "critic": ["full", "obs"],
    "features": ["", "derived"],
    "prior": ["", "heuristic"],
    "action_values": ["", "bidding", "all"],
    "action_value_horizon": ["hand", "next"],
    "precision": ["auto", "fp32", "bf16"],
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``euchre train [ppo]``: one per field of :class:`Args`."""
    add_dataclass_options(parser, Args, HELP, CHOICES)


def parse_args(argv: Sequence[str] | None = None) -> Args:
    """``Args`` from the command line; a bad value exits with status 2 and a one-line message."""
    parser = dataclass_parser(Args, HELP, "euchre train", __doc__.split("\n\n")[0], CHOICES,
                              epilog="euchre train sb3 and euchre train rllib are the other routes (their own --help).")  # fmt: skip
    args = Args(**vars(parser.parse_args(argv)))
    try:
        check_args(args)
    except ValueError as err:
        parser.error(str(err))
    return args


def check_args(args: Args) -> None:
    """Raise ``ValueError`` naming the first option out of range."""
    check_ranges(
        args,
        at_least_1=("num_tables", "minibatch_size", "update_epochs", "max_snapshots",
                    "threads", "snapshot_every", "checkpoint_every"),
        at_least_0=("total_decisions", "eval_every", "eval_search_deals", "final_eval_deals", "seed", "ent_coef", "vf_coef"),
        positive=("learning_rate", "max_grad_norm"),
        intervals=(("gamma", 0, 1), ("gae_lambda", 0, 1), ("clip_coef", 0, 10)),
    )  # fmt: skip
    for name, value in (("eval_deals", args.eval_deals), ("final_eval_deals", args.final_eval_deals),
                        ("eval_search_deals", args.eval_search_deals)):  # fmt: skip
        if value == 1:
            raise ValueError(f"--{name.replace('_', '-')} must be 0 or at least 2, got 1")
    if args.imitate:
        from agents import agent_names

        if args.imitate not in agent_names() or args.imitate.endswith(":..."):
            raise ValueError(f"--imitate must be an agent name such as heuristic, got {args.imitate!r}")
        if args.imitate_decisions < 1 or not args.imitate_lr > 0:
            raise ValueError("--imitate-decisions must be at least 1 and --imitate-lr positive")
    if args.prior_weight_bidding < 0 and args.prior_weight_bidding != -1:
        raise ValueError(f"--prior-weight-bidding must be -1 (as --prior-weight) or at least 0, "
                         f"got {args.prior_weight_bidding}")  # fmt: skip
    if args.action_value_horizon != "hand" and not args.action_values:
        raise ValueError(f"--action-value-horizon {args.action_value_horizon} needs --action-values bidding or all, "
                         f"got --action-values ''")  # fmt: skip
    if args.sort_other_colour and not args.suit_symmetry:
        raise ValueError("--sort-other-colour needs --suit-symmetry, got --no-suit-symmetry")
    if args.eval_deals < 2:
        raise ValueError(f"--eval-deals must be at least 2, got {args.eval_deals}")
    layer_sizes(args.hidden, "--hidden")
    layer_sizes(args.critic_hidden, "--critic-hidden")
    from training.pool import parse_pool

    parse_pool(args.opponents)
    if not (args.device == "cpu" or args.device.startswith("cuda")):
        raise ValueError(f"--device must be cpu or cuda[:N], got {args.device!r}")


# ----------------------------------------------------------------------------- the network


def build_net(args: Args, rules: RulesConfig) -> Any:
    """Actor and critic MLPs (``net.actor``, ``net.critic``), orthogonally initialised as in CleanRL."""
    import torch

    from agents.neural import build_mlp, extra_card_sets

    d = obs_layout(rules).size
    derived = extra_card_sets(args.features, rules)  # card sets after the observation, actor and critic
    others = rules.num_players - 1 if args.critic == "full" else 0  # the other hands' card sets
    net = torch.nn.Module()
    net.actor = build_mlp(
        [d + CARD_SLOTS * derived, *layer_sizes(args.hidden, "--hidden"), NUM_ACTIONS], args.activation
    )
    net.critic = build_mlp(
        [d + CARD_SLOTS * (derived + others), *layer_sizes(args.critic_hidden, "--critic-hidden"), 1],
        args.activation,
    )
    if args.suit_symmetry:
        from agents.suit_symmetry import SuitSymmetric

        sort = args.sort_other_colour
        net.actor = SuitSymmetric(net.actor, rules, derived, sort_other_colour=sort)
        net.critic = SuitSymmetric(net.critic, rules, derived + others, relabel_output=False, sort_other_colour=sort)
    for module, last_gain in ((net.actor, 0.01), (net.critic, 1.0)):
        linears = [m for m in module if isinstance(m, torch.nn.Linear)]
        for i, layer in enumerate(linears):
            torch.nn.init.orthogonal_(layer.weight, last_gain if i == len(linears) - 1 else np.sqrt(2))
            torch.nn.init.zeros_(layer.bias)
    return net


def policy_config(args: Args, rules: RulesConfig, provenance: dict[str, Any]) -> Any:
    from agents.neural import PolicyConfig, rules_metadata

    return PolicyConfig(
        rules=rules_metadata(rules), obs_size=obs_layout(rules).size,
        hidden=layer_sizes(args.hidden, "--hidden"), activation=args.activation, provenance=provenance,
        prior=args.prior, prior_weight=args.prior_weight if args.prior else 0.0,
        prior_weight_bidding=args.prior_weight_bidding if args.prior and args.prior_weight_bidding >= 0 else None,
        suit_symmetry=args.suit_symmetry, sort_other_colour=args.sort_other_colour, features=args.features,
    )  # fmt: skip


def resolve_args(args: Args) -> Args:
    """``args`` with its machine- and variant-dependent defaults made explicit: ``--precision auto`` and
    ``--total-decisions 0`` (``DEFAULT_DECISIONS`` by number of players)."""
    players = make_rules(args.variant).num_players
    return dataclasses.replace(args, precision=resolve_precision(args.precision, args.device),
                               total_decisions=args.total_decisions or DEFAULT_DECISIONS[players])  # fmt: skip


BF16_ENV = "EUCHRE_CPU_BF16"
"""Environment variable that overrides :func:`cpu_has_bf16`: ``1`` (as on a CPU with bfloat16 matrix units) or
``0`` (as on one without), to run ``--precision auto`` as the other kind of CPU would."""


def cpu_has_bf16() -> bool:
    """Whether this CPU multiplies bfloat16 matrices natively (``amx_bf16`` or ``avx512_bf16`` among the flags of
    /proc/cpuinfo), unless ``EUCHRE_CPU_BF16`` is ``1`` or ``0``."""
    forced = os.environ.get(BF16_ENV, "")
    if forced:
        if forced not in ("0", "1"):
            raise ValueError(f"{BF16_ENV} must be 0 or 1 (or unset), got {forced!r}")
        return forced == "1"
    cpuinfo = Path("/proc/cpuinfo")
    flags = cpuinfo.read_text() if cpuinfo.is_file() else ""
    return "amx_bf16" in flags or "avx512_bf16" in flags


def resolve_precision(precision: str, device: str) -> str:
    """``precision`` with ``auto`` made ``bf16`` where the device multiplies bfloat16 matrices natively (a CUDA GPU
    that supports it; a CPU for which :func:`cpu_has_bf16`), else ``fp32``. The one place ``auto`` is decided."""
    if precision != "auto":
        return precision
    if device.startswith("cuda"):
        import torch

        return "bf16" if torch.cuda.is_available() and torch.cuda.is_bf16_supported() else "fp32"
    return "bf16" if cpu_has_bf16() else "fp32"


def autocast(device: Any, precision: str) -> Any:
    """Context in which the network's passes run at ``precision`` (``bf16``: torch autocast; ``fp32``: no-op)."""
    import torch

    return torch.autocast(torch.device(device).type, dtype=torch.bfloat16, enabled=precision == "bf16")


def run_at(module: Any, inputs: Any, precision: str) -> Any:
    """``module(inputs)`` with its arithmetic at ``precision``, whatever dtype ``inputs`` are stored in
    (:func:`to_tensors` stores them as bfloat16 at ``bf16``): ``bf16`` under autocast, ``fp32`` on the inputs as
    float32. Returns the module's output in the dtype that arithmetic gives (bfloat16 or float32)."""
    if precision not in ("fp32", "bf16"):
        raise ValueError(f"precision must be 'fp32' or 'bf16' (resolve 'auto' first), got {precision!r}")
    with autocast(inputs.device, precision):
        return module(inputs if precision == "bf16" else inputs.float())


def hidden_bits(hidden: np.ndarray) -> np.ndarray:
    """uint8 (N, 32 * (P-1)) card bits of the other hands from uint32 (N, P-1) masks."""
    return np.unpackbits(np.ascontiguousarray(hidden).view(np.uint8), axis=1, bitorder="little")


def with_prior(logits: Any, prior: Any, weight: Any) -> Any:
    """``logits`` (n, A) with ``weight`` (n,) added at each row's prior choice ``prior`` (n,) (no-op for None)."""
    if prior is None:
        return logits
    return logits.scatter_add(1, prior[:, None], weight[:, None].to(logits.dtype))


def learner_act(actor: Any, gen: Any, device: Any, prior: Any = None, weights: Any = None,
                chosen: list[np.ndarray] | None = None, inputs: Any = None) -> Any:  # fmt: skip
    """The rollout's sampling policy: masked softmax of the actor, drawn with ``gen`` (Gumbel-max).

    With a ``prior`` agent its choice's logit gets ``weights(choice)`` added
    (``PolicyConfig.prior_weights``), and each call's prior choices are
    appended to ``chosen`` (the rollout's row order). ``inputs(obs)``, when
    given, is what the actor sees (``agents.neural.network_input``).
    """
    import torch

    def act(obs: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        base = w = None
        if prior is not None:
            choice = np.asarray(prior.act(obs, masks, None), np.int64)
            chosen.append(choice)
            base, w = torch.from_numpy(choice).to(device), torch.from_numpy(weights(choice)).to(device)
        with torch.no_grad():
            x = obs if inputs is None else inputs(obs)
            logits = with_prior(actor(torch.from_numpy(x).to(device).float()), base, w)
            logits = logits.masked_fill(~torch.from_numpy(masks).to(device), -1e9)
            u = torch.rand(logits.shape, generator=gen, device=device).clamp_(1e-12, 1.0)
            choice = torch.argmax(logits - torch.log(-torch.log(u)), dim=1)
            logp = torch.log_softmax(logits, dim=1).gather(1, choice[:, None])[:, 0]
        return choice.cpu().numpy(), logp.cpu().numpy()

    return act


def seat_value(critic: Any, device: Any, inputs: Any, full: bool) -> Any:
    """The critic as the rollout asks for it (``training.batched.rollout.SeatValue``): float32 (n,) values of seats'
    positions from their observations uint8 (n, D) and the other hands uint32 (n, P-1) (read under ``full``, as
    :func:`to_tensors` builds the critic's input); ``inputs(obs)`` as in :func:`learner_act`."""
    import torch

    def value(obs: np.ndarray, hidden: np.ndarray) -> np.ndarray:
        x = inputs(obs)
        if full:
            x = np.concatenate([x, hidden_bits(hidden).astype(x.dtype, copy=False)], axis=1)
        with torch.no_grad():
            return critic(torch.from_numpy(x).to(device).float())[:, 0].cpu().numpy()

    return value


# ----------------------------------------------------------------------------- one iteration


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
LOSSES = ("policy_loss", "value_loss", "entropy", "approx_kl", "clipfrac", "explained_variance")


def ppo_update(net: Any, opt: Any, data: dict[str, Any], args: Args, gen: Any) -> dict[str, float]:
    """``--update-epochs`` passes of clipped PPO over ``data`` (torch tensors on the device); returns means."""
    import torch

    n = data["actions"].shape[0]
    sums: dict[str, float] = {}
    count = 0
    for _ in range(args.update_epochs):
        perm = torch.randperm(n, generator=gen)
        for start in range(0, n, args.minibatch_size):
            idx = perm[start : start + args.minibatch_size].to(data["actions"].device)
            if idx.numel() < 2:
                continue
            logits = policy_logits(layers(net.actor, data), data, idx, args.precision)
            value = run_at(layers(net.critic, data), data["xc"][idx], args.precision)[:, 0].float()
            logp_all = torch.log_softmax(logits, dim=1)
            newlogp = logp_all.gather(1, data["actions"][idx, None])[:, 0]
            with torch.set_grad_enabled(args.ent_coef > 0):  # logged either way; a gradient only when used
                # softmax, not logp_all.exp(): exp of the masked -1e9 entries takes a slow path on CPUs, 15x softmax
                entropy = -(torch.softmax(logits, dim=1) * logp_all).sum(dim=1).mean()
            adv = data["advantages"][idx]
            scale = adv.std() + 1e-8
            adv = (adv - adv.mean()) / scale
            log_ratio = newlogp - data["logp"][idx]
            ratio = log_ratio.exp()
            clip = lambda r: r.clamp(1 - args.clip_coef, 1 + args.clip_coef)
            per_row = torch.max(-adv * ratio, -adv * clip(ratio))
            if "q_pos" in data:  # decisions valued action by action: the clipped objective summed over the policy
                pos = data["q_pos"][idx]
                sel = torch.nonzero(pos >= 0)[:, 0]
                if sel.numel():
                    old = data["q_logp"][pos[sel]]
                    a_all = data["q_adv"][pos[sel]] / scale
                    r_all = torch.where(data["masks"][idx[sel]], logp_all[sel] - old, 0.0).exp()
                    term = (old.exp() * torch.max(-a_all * r_all, -a_all * clip(r_all))).sum(dim=1)
                    per_row = per_row.index_put((sel,), term)
            pg_loss = per_row.mean()
            v_loss = 0.5 * ((value - data["returns"][idx]) ** 2).mean()
            loss = pg_loss - args.ent_coef * entropy + args.vf_coef * v_loss
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), args.max_grad_norm)
            opt.step()
            with torch.no_grad():
                approx_kl = ((ratio - 1) - log_ratio).mean()
                clipfrac = ((ratio - 1).abs() > args.clip_coef).float().mean()
            for key, v in (("policy_loss", pg_loss), ("value_loss", v_loss), ("entropy", entropy),
                           ("approx_kl", approx_kl), ("clipfrac", clipfrac)):  # fmt: skip
                sums[key] = sums.get(key, 0.0) + float(v.detach())
            count += 1
    return {k: v / max(count, 1) for k, v in sums.items()}


def to_tensors(ro: Any, args: Args, device: Any, rules: RulesConfig) -> dict[str, Any]:
    """The rollout as tensors on ``device``: ``x`` (N, D') the actor's input (the observation, then the
    ``--features`` card sets), ``xc`` the critic's (``x``, then the other hands' card bits under
    ``--critic full``), both float32, or bfloat16 at ``--precision bf16``
    (what autocast would cast them to: the same numbers, half the bytes to gather), bool ``masks`` (N, A), int64
    ``actions`` (N,) and float32 ``logp`` (N,) the behaviour policy's log-probabilities; with
    ``ro.q`` also float32 ``q`` (N, A) (0 where not valued) and int64 ``q_rows`` (M,) the valued rows."""
    import torch

    from agents.neural import network_input

    dtype = torch.bfloat16 if args.precision == "bf16" else torch.float32
    x = torch.from_numpy(network_input(ro.obs, args.features, rules)).to(device).to(dtype)
    xc = x
    if args.critic == "full":
        xc = torch.cat([x, torch.from_numpy(hidden_bits(ro.hidden)).to(device).to(dtype)], dim=1)
    t = {"masks": torch.from_numpy(ro.masks), "actions": torch.from_numpy(ro.actions),
         "logp": torch.from_numpy(ro.logp)}  # fmt: skip
    if ro.q is not None:  # NaN (not valued) as 0: action_advantages reads only the valued rows' legal actions
        t["q"] = torch.from_numpy(np.nan_to_num(ro.q))
        t["q_rows"] = torch.from_numpy(np.flatnonzero(~np.isnan(ro.q).all(axis=1)))
    return {"x": x, "xc": xc, **{k: v.to(device) for k, v in t.items()}}


def canonicalise(net: Any, data: dict[str, Any], chunk: int = 4096) -> dict[str, Any]:
    """``data`` (from :func:`to_tensors`) with its inputs in canonical suits, for every epoch at once.

    A suit-symmetric actor and critic (:class:`agents.suit_symmetry.SuitSymmetric`)
    relabel each input on every pass; here the inputs ``x`` and ``xc`` are
    relabelled once, and ``masks``, ``actions`` and ``prior`` (if present) are
    put in canonical actions, so that the update runs the plain layers
    (:func:`layers`): the same log-probabilities, values and gradients (the
    canonical logits are the printed ones permuted). Without suit symmetry
    returns ``data`` itself.
    """
    import torch

    from agents.suit_symmetry import SuitSymmetric

    if not isinstance(net.actor, SuitSymmetric):
        return data
    # xc is x and then the other hands' card sets (to_tensors), so the critic's canonical input begins
    # with the actor's: one gather gives both
    d = data["x"].shape[1]
    assert torch.equal(net.critic.obs_src[:, :d], net.actor.obs_src)
    xc, rows = [], []
    with torch.no_grad():
        for i in range(0, data["x"].shape[0], chunk):
            row = net.actor.rows(data["x"][i : i + chunk])  # the critic's row too: it reads the observation
            xc.append(data["xc"][i : i + chunk].gather(1, net.critic.obs_src[row]))
            rows.append(row)
    row = torch.cat(rows) if rows else torch.zeros(0, dtype=torch.int64, device=data["x"].device)
    xc = torch.cat(xc) if xc else data["xc"]
    to_canonical = net.actor.action_src[row]  # (N, A): the canonical action of each printed action
    out = {**data, "x": xc[:, :d], "xc": xc,
           "masks": torch.zeros_like(data["masks"]).scatter(1, to_canonical, data["masks"]),
           "actions": to_canonical.gather(1, data["actions"][:, None])[:, 0], "canonical": True}  # fmt: skip
    if "prior" in data:
        out["prior"] = to_canonical.gather(1, data["prior"][:, None])[:, 0]
    if "q" in data:
        out["q"] = torch.zeros_like(data["q"]).scatter(1, to_canonical, data["q"])
    return out


def action_advantages(net: Any, data: dict[str, Any], args: Args, chunk: int = 16384) -> dict[str, Any]:
    """What :func:`ppo_update` needs at the rows valued action by action (``data["q_rows"]``, M of them).

    Returns:
        ``q_pos`` int64 (N,): each row's index into the two arrays below, -1 where not valued;
        ``q_logp`` float32 (M, A): the behaviour policy's log-probabilities of every action (-1e9-ish where
        illegal); ``q_adv`` float32 (M, A): each legal action's value minus their mean under that policy, 0 where
        illegal.
    """
    import torch

    rows = data["q_rows"]
    logp, adv = [], []
    with torch.no_grad():
        for i in range(0, rows.numel(), chunk):
            r = rows[i : i + chunk]
            lp = torch.log_softmax(policy_logits(layers(net.actor, data), data, r, args.precision), dim=1)
            q = data["q"][r]
            baseline = (lp.exp() * q).sum(dim=1, keepdim=True)
            logp.append(lp)
            adv.append(torch.where(data["masks"][r], q - baseline, 0.0))
    pos = torch.full((data["actions"].shape[0],), -1, dtype=torch.int64, device=rows.device)
    pos[rows] = torch.arange(rows.numel(), device=rows.device)
    empty = torch.zeros((0, data["masks"].shape[1]), device=rows.device)
    return {"q_pos": pos, "q_logp": torch.cat(logp) if logp else empty, "q_adv": torch.cat(adv) if adv else empty}


def layers(module: Any, data: dict[str, Any]) -> Any:
    """What runs on ``data``'s inputs: ``module``'s plain layers where :func:`canonicalise` put them in canonical
    suits, else ``module`` itself."""
    return module.layers if data.get("canonical") else module


def policy_logits(actor: Any, data: dict[str, Any], rows: Any, precision: str) -> Any:
    """float32 (n, A) logits of the policy at ``rows`` of ``data``: the actor's pass at ``precision``, the prior's
    weight added (``data["prior"]``, ``data["prior_w"]``, when present), illegal actions at -1e9."""
    logits = run_at(actor, data["x"][rows], precision)
    prior, weight = (data["prior"][rows], data["prior_w"][rows]) if "prior" in data else (None, None)
    return with_prior(logits.float(), prior, weight).masked_fill(~data["masks"][rows], -1e9)


def logp_of(net: Any, data: dict[str, Any], args: Args, chunk: int = 16384) -> Any:
    """The policy's log-probability of each taken action at ``--precision``, float32 (N,)."""
    import torch

    out = []
    with torch.no_grad():
        for i in range(0, data["x"].shape[0], chunk):
            rows = slice(i, i + chunk)
            logits = policy_logits(layers(net.actor, data), data, rows, args.precision)
            out.append(torch.log_softmax(logits, dim=1).gather(1, data["actions"][rows, None])[:, 0])
    return torch.cat(out) if out else data["logp"]


def values_of(net: Any, data: dict[str, Any], precision: str, chunk: int = 16384) -> np.ndarray:
    """The critic's value of every decision at ``precision``, float32 (N,)."""
    import torch

    out = []
    with torch.no_grad():
        for i in range(0, data["xc"].shape[0], chunk):
            value = run_at(layers(net.critic, data), data["xc"][i : i + chunk], precision)
            out.append(value[:, 0].float().cpu().numpy())
    return np.concatenate(out) if out else np.zeros(0, np.float32)


def imitate(net: Any, args: Args, rules: RulesConfig, device: Any) -> dict[str, float]:
    """Behaviour cloning of ``args.imitate`` before PPO: the actor learns its choices, the critic its returns.

    The imitated agent plays every seat of ``--num-tables`` fresh hands at a
    time; each batch of its decisions is learned from once (cross-entropy over
    the legal actions, squared error of the value against the hand's reward),
    until ``--imitate-decisions`` decisions. Returns the last batch's losses.
    """
    import torch

    from agents import make_agent
    from training.batched.rollout import collect, gae

    teacher = make_agent(args.imitate, rules)
    rng = np.random.default_rng(np.random.SeedSequence([args.seed, 2**32]))
    gen = torch.Generator().manual_seed(int(rng.integers(2**62)))
    opt = torch.optim.Adam(net.parameters(), lr=args.imitate_lr, eps=1e-5)
    seen, stats = 0, {}

    def act(obs: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return np.asarray(teacher.act(obs.astype(np.float32), masks, rng), np.int64), np.zeros(
            len(obs), np.float32
        )

    net.train()
    while seen < args.imitate_decisions:
        seeds = rng.integers(0, 2**63, size=args.num_tables, dtype=np.uint64)
        controllers = np.full((args.num_tables, rules.num_players), -1, np.int64)
        ro = collect(rules, seeds, controllers, act, [], rng, args.zero_sum)
        data = canonicalise(net, to_tensors(ro, args, device, rules))
        returns = torch.from_numpy(gae(ro, np.zeros(len(ro), np.float32), 1.0, 1.0)[1]).to(device)
        perm = torch.randperm(len(ro), generator=gen).to(device)
        for start in range(0, len(ro), args.minibatch_size):
            idx = perm[start : start + args.minibatch_size]
            logits = run_at(layers(net.actor, data), data["x"][idx], args.precision)
            value = run_at(layers(net.critic, data), data["xc"][idx], args.precision)[:, 0]
            logits = logits.float().masked_fill(~data["masks"][idx], -1e9)
            ce = torch.nn.functional.cross_entropy(logits, data["actions"][idx])
            value = value.float()
            v_loss = 0.5 * ((value - returns[idx]) ** 2).mean()
            opt.zero_grad(set_to_none=True)
            (ce + args.vf_coef * v_loss).backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), args.max_grad_norm)
            opt.step()
            stats = {"cross_entropy": float(ce.detach()), "value_loss": float(v_loss.detach())}
        seen += len(ro)
    return {**stats, "decisions": float(seen)}


# ----------------------------------------------------------------------------- the loop


def evaluate_now(agent: Any, rules: RulesConfig, args: Args, search: Any) -> dict[str, dict[str, float]]:
    """Periodic duplicate evaluation against the heuristic (and the search agent when asked)."""
    from agents import make_agent
    from arena.evaluate import evaluate_model

    scores = evaluate_model(agent, rules, {"heuristic": make_agent("heuristic", rules)}, args.eval_deals,
                            seed=args.seed + 10_000)  # fmt: skip
    if args.eval_search_deals:
        scores.update(
            evaluate_model(agent, rules, {"search": search}, args.eval_search_deals, seed=args.seed + 11_000)
        )
    return scores


class Trainer:
    """The learner, its optimizer and opponent pool, advanced one PPO iteration at a time (writes no files).

    Attributes:
        net: ``net.actor`` (the policy) and ``net.critic``.
        progress: counters, evaluations and curves (:class:`Progress`).
        snapshot_actors: frozen copies of the actor in the pool, oldest first.
        live: the current actor as a deterministic :class:`~agents.neural.NeuralAgent`.
    """

    def __init__(self, args: Args, command: str = "") -> None:
        import torch

        from agents import make_agent
        from agents.neural import NeuralAgent, prior_agent
        from training.pool import parse_pool

        torch.set_num_threads(args.threads)
        torch.manual_seed(args.seed)
        args = resolve_args(args)
        self.args, self.device = args, torch.device(args.device)
        self.rules = make_rules(args.variant, episode="hand")
        self.net = build_net(args, self.rules).to(self.device)
        self.opt = torch.optim.Adam(self.net.parameters(), lr=args.learning_rate, eps=1e-5)
        self.config = policy_config(args, self.rules, provenance(args, command))
        self.progress, self.snapshot_actors = Progress(), []
        self.weights = parse_pool(args.opponents)
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

    def iterate(self) -> dict[str, float]:
        """One iteration: seat the tables, play a hand at each, one PPO update. Returns its statistics."""
        import torch

        from training.batched.rollout import collect, gae

        args, rules, net, progress = self.args, self.rules, self.net, self.progress
        start = time.perf_counter()
        rng = np.random.default_rng(np.random.SeedSequence([args.seed, progress.iteration]))
        gen = torch.Generator(device=self.device).manual_seed(int(rng.integers(2**62)))
        cpu_gen = torch.Generator().manual_seed(int(rng.integers(2**62)))
        if args.anneal_lr:
            for group in self.opt.param_groups:
                group["lr"] = args.learning_rate * max(
                    0.0, 1.0 - progress.learner_decisions / args.total_decisions
                )
        snaps = self.snapshots()
        entry, seats = assign_seats(rng, self.weights, len(snaps), args.num_tables, rules)
        controllers = np.full(seats.shape, -1, np.int64)
        for k, kind in enumerate(self.fixed):
            controllers[seats & (entry == POOL.index(kind))[:, None]] = k
        snap_rows = entry == POOL.index("snapshots")
        if snap_rows.any():
            pick = len(self.fixed) + rng.integers(0, len(snaps), size=int(snap_rows.sum()))
            controllers[snap_rows] = np.where(seats[snap_rows], pick[:, None], -1)
        seeds = rng.integers(0, 2**63, size=args.num_tables, dtype=np.uint64)
        net.eval()
        chosen: list[np.ndarray] = []
        from agents.neural import network_input

        inputs = lambda obs: network_input(obs, args.features, rules)  # obs itself without --features
        act = learner_act(net.actor, gen, self.device, self.prior, self.config.prior_weights, chosen, inputs)
        pool = [*self.fixed.values(), *snaps]
        valuer = critic = None  # valuer samples like act, records nothing
        if args.action_values:
            valuer = learner_act(net.actor, gen, self.device, self.prior, self.config.prior_weights, [], inputs)
        if args.action_value_horizon == "next":
            critic = seat_value(net.critic, self.device, inputs, args.critic == "full")
        ro = collect(rules, seeds, controllers, act, pool, rng, args.zero_sum,
                     record_forced=not args.skip_forced, counterfactual=valuer,
                     value_play=args.action_values == "all", critic=critic)  # fmt: skip
        played = time.perf_counter()
        data = to_tensors(ro, args, self.device, rules)
        if self.prior is not None:
            choice = np.concatenate(chosen) if chosen else np.zeros(0, np.int64)
            data["prior"] = torch.from_numpy(choice).to(self.device)
            data["prior_w"] = torch.from_numpy(self.config.prior_weights(choice)).to(self.device)
        data = canonicalise(net, data)  # once, not on every pass of every epoch
        if ro.q is not None:
            data.update(action_advantages(net, data, args))
        values = values_of(net, data, args.precision)
        if args.precision != "fp32":  # the ratio's denominator at the update's precision (the rollout ran fp32)
            data["logp"] = logp_of(net, data, args)
        adv, ret = gae(ro, values, args.gamma, args.gae_lambda)
        data["advantages"] = torch.from_numpy(adv).to(self.device)
        data["returns"] = torch.from_numpy(ret).to(self.device)
        net.train()
        stats = ppo_update(net, self.opt, data, args, cpu_gen)
        net.eval()
        stats["explained_variance"] = float(1 - np.var(ret - values) / (np.var(ret) + 1e-8))
        before = progress.learner_decisions
        progress.iteration += 1
        progress.learner_decisions += len(ro)
        progress.decisions += ro.decisions
        elapsed = time.perf_counter() - start
        progress.seconds += elapsed
        stats["rollout_seconds"], stats["update_seconds"] = played - start, elapsed - (played - start)
        stats["learner_decisions_per_second"] = len(ro) / elapsed
        stats["learning_rate"] = self.opt.param_groups[0]["lr"]
        vs_h = seats.any(axis=1) & (entry == POOL.index("heuristic"))
        if vs_h.any():
            stats["reward_vs_heuristic"] = float(ro.points[vs_h][~seats[vs_h]].mean())
            progress.curve.append([progress.learner_decisions, stats["reward_vs_heuristic"]])
        crossed = (
            args.snapshot_every
            and progress.learner_decisions // args.snapshot_every > before // args.snapshot_every
        )
        if crossed and self.weights.get("snapshots", 0) > 0:
            self.add_snapshot()
        stats["decisions"] = float(len(ro))
        stats["forced"] = float(ro.forced)  # the learner's forced decisions, played but not learned from
        if ro.q is not None:
            stats["valued_decisions"] = float(data["q_rows"].numel())
        return stats


def train(args: Args, command: str | None = None, run_dir: Path | None = None) -> Path:
    """Run (or resume) one training as configured; returns the run folder.

    ``run_dir`` is :func:`prepare_run_dir`'s result when the caller already checked it.
    """
    from agents import make_agent
    from agents.neural import save_policy
    from arena.evaluate import evaluate

    run_dir = run_dir if run_dir is not None else prepare_run_dir(args)
    if args.resume:
        stored = {"precision": "fp32", **json.loads((run_dir / "args.json").read_text())}  # runs from before bf16
        args = Args(**{**stored, "resume": args.resume, "progress": args.progress})
    else:
        args = resolve_args(args)
        write_json(run_dir / "args.json", dataclasses.asdict(args))
    command = command or "training.batched.ppo.train(" + repr(dataclasses.asdict(args)) + ")"
    tr = Trainer(args, command)
    progress = tr.progress
    if args.resume:
        tr.load(run_dir / CHECKPOINT)
        progress = tr.progress
        print(
            f"resumed {run_dir} at iteration {progress.iteration}, {progress.learner_decisions} learner decisions"
        )
    search = make_agent("search", tr.rules) if args.eval_search_deals else None
    writer = _writer(run_dir)
    bar = _bar(args, progress)

    def periodic_eval() -> None:
        start = time.perf_counter()
        scores = evaluate_now(tr.live, tr.rules, args, search)
        progress.history.append({"iteration": progress.iteration, "learner_decisions": progress.learner_decisions,
                                 "seconds": progress.seconds, "eval": scores})  # fmt: skip
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
            stats = tr.imitate()
            print(f"imitated {args.imitate} on {progress.imitated} decisions: "
                  + ", ".join(f"{k} {v:.3f}" for k, v in stats.items() if k != "decisions"), flush=True)  # fmt: skip
        if args.eval_every and progress.iteration == 0 and not progress.history and not stop.set:
            periodic_eval()
        while progress.learner_decisions < args.total_decisions and not stop.set:
            before = progress.learner_decisions
            stats = tr.iterate()
            for key, value in stats.items():
                group = "losses" if key in LOSSES else "charts"
                if key != "decisions":
                    writer.add_scalar(f"{group}/{key}", value, progress.learner_decisions)
            if bar is not None:
                bar.update(progress.learner_decisions - before)
            if args.eval_every and progress.learner_decisions // args.eval_every > before // args.eval_every:
                periodic_eval()
            if progress.iteration % args.checkpoint_every == 0:
                tr.save(run_dir / CHECKPOINT)
        if bar is not None:
            bar.close()
        tr.save(run_dir / CHECKPOINT)
        save_policy(run_dir / "model.safetensors", tr.net.actor, _with(tr.config, progress))
        write_json(run_dir / "eval_history.json", {"history": progress.history, "curve": progress.curve})
        if progress.history or progress.curve:
            plot_curves(progress, run_dir / "learning_curve.png", relative=tr.rules.called_card)
        writer.close()
    finished = progress.learner_decisions >= args.total_decisions
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
                                                   "learner_decisions": progress.learner_decisions})  # fmt: skip


def _writer(run_dir: Path) -> Any:
    from torch.utils.tensorboard import SummaryWriter

    return SummaryWriter(str(run_dir / "tb"))


def _bar(args: Args, progress: Progress) -> Any:
    if not args.progress:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=args.total_decisions, initial=progress.learner_decisions, unit="dec",
                unit_scale=True, desc=f"train {args.variant}")  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    """CLI entry point (``euchre train [--algo ppo]``)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parse_args(argv)
    try:
        if args.device.startswith("cuda"):
            import torch

            if not torch.cuda.is_available():
                raise ValueError(f"--device {args.device}: torch sees no CUDA device on this machine")
        run_dir = prepare_run_dir(args)
    except ValueError as err:
        print(f"euchre train: error: {err}", file=sys.stderr)
        return 2
    train(args, command="euchre train " + shlex.join(argv), run_dir=run_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())

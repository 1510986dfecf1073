"""The settings of ``euchre train [ppo|dmc]``: :class:`Args` (one field, one ``--option``), their help and checks.

Both learners of the batched trainer share one :class:`Args`; ``algo`` says which one a run is (the route
``euchre train ppo`` or ``euchre train dmc`` sets it). ``PPO_ONLY`` and ``DMC_ONLY`` list the settings
only one of them reads (the other's command line does not offer them), and ``ALGO_DEFAULTS`` the defaults
DMC sets differently; :func:`algo_args` builds a learner's settings from them.
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from euchre_env.rules import PRESETS, make_rules
from training.batched.precision import resolve_precision
from training.options import add_dataclass_options, check_ranges, dataclass_parser, layer_sizes

# Learner decisions of a run at the default --total-decisions, by number of players: about ten minutes of
# training with its periodic evaluations on two CPU cores without bfloat16 matrix units (float32 updates).
DEFAULT_DECISIONS = {4: 4_000_000, 5: 3_000_000}

HELP = {
    "algo": "the learner: ppo (policy gradient with a critic) or dmc (Deep Monte-Carlo: action values regressed "
    "on the hand's return); set by the route, euchre train ppo or euchre train dmc",
    "exp_name": "experiment name, part of the generated run folder's name",
    "variant": "game: four_handed or five_handed",
    "seed": "seed of the deals, the network and every random draw",
    "out": "run folder (default: <runs-dir>/<variant>__<exp-name>__<seed>__<time>)",
    "runs_dir": "parent of the generated run folder when --out is not given",
    "overwrite": "allow an --out folder that is not empty (its files are replaced)",
    "resume": "continue the run in this folder exactly where its checkpoint stopped (its args.json is used)",
    "total_decisions": "learner decisions to train on (every seat's decisions count); 0: the variant's default, "
    + ", ".join(f"{n:,} with {players} players" for players, n in DEFAULT_DECISIONS.items()),
    "time_budget": "seconds of training (rollouts and updates; evaluations not counted) after which the run stops, "
    "whichever of it and --total-decisions comes first (0: no limit); --anneal-lr decays over whichever ends sooner",
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
    "from it (unseen cards, where each may be, the trick's state; euchre_env.derived); 'partner' (five-handed): the "
    "counted belief over the maker's hidden partner (euchre_env.beliefs.ExactBelief; slower rollouts); "
    "'derived+partner': both",
    "zero_sum": "reward own side's points minus the other side's (five-handed: minus the mean)",
    "opponents": "opponent pool with weights, per table, e.g. 'self=1,heuristic=1,snapshots=1' "
    "(kinds: self, snapshots, heuristic, random, search)",
    "target": "a fixed agent (any agent name: heuristic, model:PATH, py:module:factory, ...) at every table instead of "
    "--opponents: four-handed it takes the other side, five-handed the four other seats (the learner plays one, its "
    "seat drawn per table); periodic evaluations then play it too. What euchre exploit trains a best response against",
    "told_partner": "a research yardstick (five-handed): the learner's observations mark the hidden partner's seat "
    "(revealed_by) from the call on, as euchre analyse partner-truth tells an agent, so the policy learns with the "
    "truth that a partner belief can only estimate. It cheats: the model is for measuring what the truth is worth "
    "(euchre analyse partner-truth --agent model:PATH --against model:five_handed), not for play",
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
    "backend": "where it runs: 'local' (this process) or 'ray' (data-parallel on Ray Train: --num-workers "
    "processes, each playing its share of --num-tables and computing gradients on it, averaged every step; "
    "training.batched.ray_train)",
    "num_workers": "with --backend ray: training processes (each uses --threads CPU threads; --num-tables must be a "
    "multiple of it)",
    "address": "with --backend ray: the Ray cluster to join (e.g. auto, or ray://HOST:10001); '' starts a local one",
    "epsilon": "DMC: probability that a learner decision with a choice takes a uniformly random legal action "
    "instead of the best valued one (exploration; the saved model always takes the best)",
}


@dataclass
class Args:
    """Every setting of a run (each one a ``--kebab-case`` option)."""

    algo: str = "ppo"
    exp_name: str = "ppo"
    variant: str = "four_handed"
    seed: int = 1
    out: str | None = None
    runs_dir: str = "runs"
    overwrite: bool = False
    resume: str = ""
    total_decisions: int = 0
    time_budget: float = 0.0
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
    target: str = ""
    told_partner: bool = False
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
    backend: str = "local"
    num_workers: int = 2
    address: str = ""
    epsilon: float = 0.03


# Settings only one learner reads (the other's route offers no option for them, and check_args refuses them
# set away from their defaults), and DMC's own defaults.
PPO_ONLY = ("gamma", "gae_lambda", "clip_coef", "ent_coef", "vf_coef", "critic", "critic_hidden",
            "action_values", "action_value_horizon", "imitate", "imitate_decisions", "imitate_lr")  # fmt: skip
DMC_ONLY = ("epsilon",)
ALGO_DEFAULTS: dict[str, dict[str, object]] = {
    "ppo": {},
    "dmc": {"exp_name": "dmc", "prior": "", "prior_weight": 0.5, "update_epochs": 1},
}


def algo_args(algo: str, **settings: object) -> Args:
    """``Args`` of the learner ``algo`` (``"ppo"`` or ``"dmc"``): its defaults (``ALGO_DEFAULTS``), then
    ``settings``. ``Args(...)`` alone gives PPO's defaults."""
    if algo not in ALGO_DEFAULTS:
        raise ValueError(f"algo must be one of {sorted(ALGO_DEFAULTS)}, got {algo!r}")
    return Args(**{**ALGO_DEFAULTS[algo], **settings, "algo": algo})  # type: ignore[arg-type]


CHOICES = {
    "algo": sorted(ALGO_DEFAULTS),
    "variant": sorted(PRESETS),
    "activation": ["relu", "tanh"],
    "critic": ["full", "obs"],
    "features": ["", "derived", "partner", "derived+partner"],
    "prior": ["", "heuristic"],
    "action_values": ["", "bidding", "all"],
    "action_value_horizon": ["hand", "next"],
    "precision": ["auto", "fp32", "bf16"],
    "backend": ["local", "ray"],
}


def _not_offered(algo: str) -> tuple[str, ...]:
    """The fields of ``Args`` that route ``algo`` offers no option for."""
    return ("algo", *(DMC_ONLY if algo == "ppo" else PPO_ONLY))


def add_arguments(parser: argparse.ArgumentParser, algo: str = "ppo") -> None:
    """The options of ``euchre train ppo`` (or ``dmc``): one per field of :class:`Args` that the learner reads."""
    add_dataclass_options(parser, Args, HELP, CHOICES, skip=_not_offered(algo), defaults=ALGO_DEFAULTS[algo])


def parse_args(argv: Sequence[str] | None = None, algo: str = "ppo") -> Args:
    """``Args`` of learner ``algo`` from the command line; a bad value exits with status 2 and a one-line
    message."""
    parser = dataclass_parser(Args, HELP, f"euchre train {algo}", __doc__.split("\n\n")[0], CHOICES,
                              epilog="euchre train ppo|dmc|sb3|rllib are the routes (each has its own --help).",
                              skip=_not_offered(algo), defaults=ALGO_DEFAULTS[algo])  # fmt: skip
    args = algo_args(algo, **vars(parser.parse_args(argv)))
    try:
        check_args(args)
    except ValueError as err:
        parser.error(str(err))
    return args


def check_args(args: Args) -> None:
    """Raise ``ValueError`` naming the first option out of range."""
    if args.algo not in ALGO_DEFAULTS:
        raise ValueError(f"algo must be one of {sorted(ALGO_DEFAULTS)}, got {args.algo!r}")
    other = PPO_ONLY if args.algo == "dmc" else DMC_ONLY
    defaults = Args()
    for name in other:
        if getattr(args, name) != getattr(defaults, name):
            raise ValueError(f"--{name.replace('_', '-')} is not a setting of euchre train {args.algo}, "
                             f"got {getattr(args, name)!r}")  # fmt: skip
    if not 0 <= args.epsilon <= 1:
        raise ValueError(f"--epsilon must be in [0, 1], got {args.epsilon}")
    check_ranges(
        args,
        at_least_1=("num_tables", "minibatch_size", "update_epochs", "max_snapshots",
                    "threads", "snapshot_every", "checkpoint_every"),
        at_least_0=("total_decisions", "time_budget", "eval_every", "eval_search_deals", "final_eval_deals", "seed", "ent_coef", "vf_coef"),
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
    if "partner" in args.features and args.variant != "five_handed":
        raise ValueError(f"--features {args.features}: 'partner' is the five-handed game's hidden partner, "
                         f"got --variant {args.variant}")  # fmt: skip
    if args.told_partner and args.variant != "five_handed":
        raise ValueError(f"--told-partner tells the five-handed game's hidden partner, got --variant {args.variant}")
    layer_sizes(args.hidden, "--hidden")
    layer_sizes(args.critic_hidden, "--critic-hidden")
    from training.pool import parse_pool

    parse_pool(args.opponents)
    if args.target:
        from agents import make_agent

        try:
            make_agent(args.target, make_rules(args.variant, episode="hand"))
        except ValueError as err:
            raise ValueError(f"--target {args.target!r}: {err}") from None
    if not (args.device == "cpu" or args.device.startswith("cuda")):
        raise ValueError(f"--device must be cpu or cuda[:N], got {args.device!r}")
    if args.backend not in CHOICES["backend"]:
        raise ValueError(f"--backend must be one of {CHOICES['backend']}, got {args.backend!r}")
    if args.backend == "ray":
        if args.num_workers < 1 or args.num_tables % args.num_workers:
            raise ValueError(f"--num-tables must be a multiple of --num-workers (each worker plays an equal share), "
                             f"got --num-tables {args.num_tables} and --num-workers {args.num_workers}")  # fmt: skip
        if args.device.startswith("cuda:"):
            raise ValueError(f"--backend ray gives each worker its own GPU: use --device cuda, got {args.device!r}")
    elif args.address:
        raise ValueError(f"--address is the Ray cluster of --backend ray, got it with --backend {args.backend}")


def resolve_args(args: Args) -> Args:
    """``args`` with its machine- and variant-dependent defaults made explicit: ``--precision auto`` and
    ``--total-decisions 0`` (``DEFAULT_DECISIONS`` by number of players)."""
    players = make_rules(args.variant).num_players
    return dataclasses.replace(args, precision=resolve_precision(args.precision, args.device),
                               total_decisions=args.total_decisions or DEFAULT_DECISIONS[players])  # fmt: skip

"""The learner's networks: the actor (the saved policy) and the critic, and how the rollout asks them.

Shapes: observations are uint8 (n, D) of :func:`euchre_env.encoding.obs_layout`; masks bool (n, A) with
A = ``euchre_env.actions.NUM_ACTIONS``; the other hands uint32 (n, P-1) card bitsets.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from euchre_env.actions import NUM_ACTIONS
from euchre_env.encoding import CARD_SLOTS, obs_layout
from euchre_env.rules import RulesConfig
from training.batched.args import Args
from training.options import layer_sizes


def build_net(args: Args, rules: RulesConfig) -> Any:
    """The learner's MLPs, orthogonally initialised as in CleanRL: ``net.actor`` (the saved policy: one output
    per action, logits under PPO, action values under DMC) and, for PPO, ``net.critic``."""
    import torch

    from agents.neural import build_mlp, extra_card_sets, extra_columns

    cols = extra_columns(args.features, rules)  # the partner belief, right after the observation
    d = obs_layout(rules).size + cols
    derived = extra_card_sets(args.features, rules)  # card sets after those, actor and critic
    others = rules.num_players - 1 if args.critic == "full" else 0  # the other hands' card sets
    net = torch.nn.Module()
    net.actor = build_mlp(
        [d + CARD_SLOTS * derived, *layer_sizes(args.hidden, "--hidden"), NUM_ACTIONS], args.activation
    )
    if args.algo == "ppo":
        net.critic = build_mlp(
            [d + CARD_SLOTS * (derived + others), *layer_sizes(args.critic_hidden, "--critic-hidden"), 1],
            args.activation,
        )
    if args.suit_symmetry:
        from agents.suit_symmetry import SuitSymmetric

        sort = args.sort_other_colour
        net.actor = SuitSymmetric(net.actor, rules, derived, sort_other_colour=sort, extra_columns=cols)
        if args.algo == "ppo":
            net.critic = SuitSymmetric(net.critic, rules, derived + others, relabel_output=False,
                                       sort_other_colour=sort, extra_columns=cols)  # fmt: skip
    modules = [(net.actor, 0.01), *([(net.critic, 1.0)] if args.algo == "ppo" else [])]
    for module, last_gain in modules:
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


def recording_inputs(features: str, rules: RulesConfig) -> tuple[Any, list[np.ndarray]]:
    """``(inputs, seen)``: ``inputs(obs)`` is what the actor sees of uint8 (n, D) observations
    (``agents.neural.network_input``), and with ``"partner"`` features each call appends its partner columns,
    float32 (n, P + 1), to the list ``seen``: called by the rollout on the learner's rows in order, ``seen``
    concatenated is ``Rollout.partner`` (counted once, reused by the update)."""
    from agents.neural import extra_columns, network_input

    seen: list[np.ndarray] = []
    cols = extra_columns(features, rules)

    def inputs(obs: np.ndarray) -> np.ndarray:
        x = network_input(obs, features, rules)
        if cols:
            seen.append(x[:, obs.shape[1] : obs.shape[1] + cols].copy())  # not a view: x itself is let go
        return x

    return inputs, seen


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

"""Deep Monte-Carlo on the batched engine (``euchre train dmc``).

The learner of DouZero (Dou Dizhu), SkatZero and euchre-lab, on the same
engine, tables, opponent pool, checkpoints and model files as the PPO trainer
(:mod:`training.batched.ppo`; every setting is a field of the shared
:class:`~training.batched.args.Args`). Each iteration

1. deals ``--num-tables`` hands and seats the learner and the pool as PPO does;
2. plays them: at each learner decision with a choice the network values every
   action (one output per action of the game, ``Q(s, a)``, in points) and the
   learner takes the best legal one, or with probability ``--epsilon`` a
   uniformly random legal one (forced moves are played, not learned from);
3. regresses each decision's value of the action taken on the return of the
   hand for that seat (Monte-Carlo, no bootstrap: the seat's points, by default
   own side minus the other's; five-handed own minus the table's mean, the
   relative points the game is judged by), ``--update-epochs`` passes of
   squared error (each sample is seen that many times, then dropped).

The saved model is the value network in the PPO model's format: the
``model:<path>`` agent takes its best legal action, exactly what the trainer
evaluates. Unlike DouZero's network, which scores one (state, action-features)
pair per pass, this one values all 93 actions in one pass (actions as output
slots; suit symmetry puts trump first, so an action's slot means the same card
relative to trump on every deal).

``--prior heuristic`` starts from the heuristic: its choice gets ``--prior-weight`` points added to its
value, and every value starts at the lowest return of a hand (``PESSIMISTIC``), so the untrained network
plays as the heuristic and departs from it only where another action, tried by exploration, has earned a
higher value. The network learns the value less the bonus, so the bonus fades from what it plays as the
values are learned (the arithmetic of PPO's prior on logits).

Example::

    euchre train dmc --variant four_handed --out runs/dmc
    euchre eval --variant four_handed --agents model:runs/dmc/model.safetensors heuristic --deals 2000
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

from training.batched import args as settings
from training.batched.args import Args, algo_args
from training.batched.distributed import LOCAL, Group, minibatches, optimizer_step
from training.batched.network import recording_inputs
from training.batched.ppo import Trainer
from training.batched.ppo import main as ppo_main
from training.batched.precision import run_at
from training.batched.rollout import LearnerAct, Rollout
from training.batched.update import layers

__all__ = ["Args", "DMCTrainer", "add_arguments", "algo_args", "canonical_inputs", "dmc_update", "greedy_act",
           "main"]  # fmt: skip


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``euchre train dmc``: the shared settings DMC reads, with its defaults."""
    settings.add_arguments(parser, algo="dmc")


PESSIMISTIC = -4.0  # points: no hand of either game returns less (see DMCTrainer)


def greedy_act(q_net: Any, gen: Any, device: Any, epsilon: float, prior: Any = None, weights: Any = None,
               chosen: list[np.ndarray] | None = None, inputs: Any = None) -> LearnerAct:  # fmt: skip
    """The rollout's policy: the best legal action by ``q_net``'s values, a uniformly random legal one with
    probability ``epsilon`` (draws from ``gen``).

    With a ``prior`` agent its choice's value gets ``weights(choice)`` added and each call's prior choices are
    appended to ``chosen`` (rollout row order), as :func:`training.batched.network.learner_act` does.
    Returns ``act(obs uint8 (n, D), masks bool (n, A)) -> (actions int64 (n,), zeros float32 (n,))``.
    """
    import torch

    def act(obs: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        with torch.no_grad():
            x = obs if inputs is None else inputs(obs)
            q = q_net(torch.from_numpy(x).to(device).float())
            if prior is not None:
                choice = np.asarray(prior.act(obs, masks, None), np.int64)
                chosen.append(choice)
                rows = torch.arange(len(choice), device=device)
                q[rows, torch.from_numpy(choice).to(device)] += torch.from_numpy(weights(choice)).to(device)
            legal = torch.from_numpy(masks).to(device)
            best = q.masked_fill(~legal, -torch.inf).argmax(dim=1)
            noise = torch.rand(q.shape, generator=gen, device=device)
            anything = (noise * legal).argmax(dim=1)  # uniform among the legal actions
            explore = torch.rand(q.shape[0], generator=gen, device=device) < epsilon
            action = torch.where(explore, anything, best)
        return action.cpu().numpy(), np.zeros(len(obs), np.float32)

    return act


def canonical_inputs(actor: Any, x: Any, actions: Any, chunk: int = 4096) -> tuple[Any, Any, Any]:
    """``(x', actions', module)``: inputs (N, D') and actions (N,) in canonical suits and the plain layers that
    take them, for a suit-symmetric ``actor`` (:class:`agents.suit_symmetry.SuitSymmetric`); else
    ``(x, actions, actor)``. Relabelled once per iteration, not on every pass."""
    import torch

    from agents.suit_symmetry import SuitSymmetric

    if not isinstance(actor, SuitSymmetric):
        return x, actions, actor
    with torch.no_grad():
        row = torch.cat([actor.rows(x[i : i + chunk]) for i in range(0, x.shape[0], chunk)] or [actions])
        x = x.gather(1, actor.obs_src[row])
        actions = actor.action_src[row].gather(1, actions[:, None])[:, 0]
    return x, actions, layers(actor, {"canonical": True})


def dmc_update(module: Any, opt: Any, x: Any, actions: Any, targets: Any, args: Args, gen: Any,
               group: Group = LOCAL) -> dict[str, float]:  # fmt: skip
    """``--update-epochs`` passes of squared error between ``module``'s value of each taken action and its
    target, in minibatches of ``--minibatch-size`` (gradients averaged over ``group``'s processes, if several).

    Args:
        module: (n, D') -> (n, A) action values (the network's layers on canonical inputs).
        x: float (N, D') inputs; actions: int64 (N,); targets: float32 (N,) (the return, less any prior bonus).
        gen: the minibatch order's torch generator (CPU).

    Returns:
        ``value_loss`` (mean over minibatches of the last pass) and ``explained_variance`` (of the targets by
        the values before the first step).
    """
    import torch

    n, params = x.shape[0], [p for group in opt.param_groups for p in group["params"]]
    losses, first = [], []
    for epoch in range(args.update_epochs):
        losses = []
        for idx in minibatches(n, args.minibatch_size, gen, x.device, group):
            q = run_at(module, x[idx], args.precision).float().gather(1, actions[idx, None])[:, 0]
            if epoch == 0:
                first.append((q.detach() - targets[idx]).cpu())
            loss = 0.5 * ((q - targets[idx]) ** 2).mean()
            opt.zero_grad(set_to_none=True)
            loss.backward()
            optimizer_step(params, opt, args.max_grad_norm, group)
            losses.append(float(loss.detach()))
    error = torch.cat(first) if first else torch.zeros(1)
    spread = float(targets.var()) if n > 1 else 0.0
    return {"value_loss": float(np.mean(losses)) if losses else 0.0,
            "explained_variance": 1.0 - float(error.var()) / (spread + 1e-8) if n > 1 else 0.0}  # fmt: skip


class DMCTrainer(Trainer):
    """The PPO trainer (:class:`training.batched.ppo.Trainer`) with the Deep Monte-Carlo rollout policy and
    update: ``net.actor`` is the value network, there is no critic.

    With a prior, every action's value starts at ``PESSIMISTIC`` (the last layer's bias), the lowest a hand can
    return: an action the prior does not choose is preferred to the prior's choice only once it has been
    tried (``--epsilon``) and found better, not because an untried value of 0 beats a position's negative one.
    """

    def __init__(self, args: Args, command: str = "", group: Group = LOCAL) -> None:
        import torch

        super().__init__(args, command, group)
        if self.prior is not None:
            last = [m for m in self.net.actor if isinstance(m, torch.nn.Linear)][-1]
            torch.nn.init.constant_(last.bias, PESSIMISTIC)

    def snapshots(self) -> list[Any]:
        """The pool's frozen copies of the learner play their best action, as the saved model does."""
        from agents.neural import NeuralAgent

        return [NeuralAgent((a, self.config), self.rules, name="snapshot") for a in self.snapshot_actors]

    def play(self, seeds: np.ndarray, controllers: np.ndarray, pool: list[Any], rng: np.random.Generator,
             gen: Any) -> tuple[Rollout, np.ndarray | None]:  # fmt: skip
        from training.batched.rollout import collect

        args, rules = self.args, self.rules
        chosen: list[np.ndarray] = []
        inputs, seen = recording_inputs(args.features, rules)
        act = greedy_act(self.net.actor, gen, self.device, args.epsilon, self.prior, self.config.prior_weights,
                         chosen, inputs)  # fmt: skip
        ro = collect(rules, seeds, controllers, act, pool, rng, args.zero_sum, record_forced=not args.skip_forced,
                     told=args.told_partner)  # fmt: skip
        ro.partner = np.concatenate(seen) if seen else None
        if self.prior is None:
            return ro, None
        return ro, np.concatenate(chosen) if chosen else np.zeros(0, np.int64)

    def learn(self, ro: Rollout, prior_choice: np.ndarray | None, gen: Any) -> dict[str, float]:
        """Regress the value of each taken action on the seat's return (:func:`dmc_update`)."""
        import torch

        from agents.neural import network_input

        args = self.args
        returns = ro.points[ro.table, ro.seat].astype(np.float32)  # the hand's reward of the acting seat
        targets = returns.copy()
        if prior_choice is not None:  # the network learns the value less the prior's bonus it is played with
            took = prior_choice == ro.actions
            targets[took] -= self.config.prior_weights(prior_choice[took])
        dtype = torch.bfloat16 if args.precision == "bf16" else torch.float32
        x = torch.from_numpy(network_input(ro.obs, args.features, self.rules, ro.partner)).to(self.device).to(dtype)
        actions = torch.from_numpy(ro.actions).to(self.device)
        x, actions, module = canonical_inputs(self.net.actor, x, actions)
        stats = dmc_update(module, self.opt, x, actions, torch.from_numpy(targets).to(self.device), args, gen,
                           self.group)
        stats["mean_return"] = float(returns.mean()) if len(returns) else 0.0
        return stats


def main(argv: Sequence[str] | None = None) -> int:
    """CLI entry point (``euchre train dmc``, or ``euchre train --algo dmc``)."""
    return ppo_main(argv, algo="dmc")


if __name__ == "__main__":
    sys.exit(main())

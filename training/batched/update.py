"""The learning steps on a rollout: its tensors, the clipped PPO update, and behaviour cloning (``--imitate``).

A rollout (:class:`training.batched.rollout.Rollout`) of N decisions becomes a dict of tensors on the
device (:func:`to_tensors`): ``x`` (N, D') the actor's input, ``xc`` the critic's, ``masks`` (N, A),
``actions`` (N,), ``logp`` (N,), and after GAE ``advantages`` and ``returns`` (N,).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from euchre_env.rules import RulesConfig
from training.batched.args import Args
from training.batched.distributed import LOCAL, Group, minibatches, optimizer_step
from training.batched.network import hidden_bits, with_prior
from training.batched.precision import run_at

LOSSES = ("policy_loss", "value_loss", "entropy", "approx_kl", "clipfrac", "explained_variance")


def ppo_update(net: Any, opt: Any, data: dict[str, Any], args: Args, gen: Any,
               group: Group = LOCAL) -> dict[str, float]:  # fmt: skip
    """``--update-epochs`` passes of clipped PPO over ``data`` (torch tensors on the device); returns means.
    With a ``group`` of several processes, each step's gradient is averaged over them (:mod:`.distributed`)."""
    import torch

    n, params = data["actions"].shape[0], list(net.parameters())
    sums: dict[str, float] = {}
    count = 0
    for _ in range(args.update_epochs):
        for idx in minibatches(n, args.minibatch_size, gen, data["actions"].device, group):
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
            optimizer_step(params, opt, args.max_grad_norm, group)
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
    ``--features``: partner belief, card sets), ``xc`` the critic's (``x``, then the other hands' card bits under
    ``--critic full``), both float32, or bfloat16 at ``--precision bf16``
    (what autocast would cast them to: the same numbers, half the bytes to gather), bool ``masks`` (N, A), int64
    ``actions`` (N,) and float32 ``logp`` (N,) the behaviour policy's log-probabilities; with
    ``ro.q`` also float32 ``q`` (N, A) (0 where not valued) and int64 ``q_rows`` (M,) the valued rows."""
    import torch

    from agents.neural import network_input

    dtype = torch.bfloat16 if args.precision == "bf16" else torch.float32
    x = torch.from_numpy(network_input(ro.obs, args.features, rules, ro.partner)).to(device).to(dtype)
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

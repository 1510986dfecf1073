"""Behaviour cloning of an agent, and one-step action values from its rollouts (the SB3 route's warm start).

``euchre train --algo sb3 --imitate AGENT``: :func:`imitation_data` plays
hands with the agent at every seat and records its decisions (with
``--imitate-rollouts PHASES``, each legal action's value from a rollout of
the true deal, :func:`rollout_values`); :func:`pretrain` fits the policy (and
critic) to them.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from euchre_env.rules import RulesConfig
from euchre_env.types import Policy

PHASE_NAMES = ("bid_upcard", "discard", "bid_suit", "call", "declare", "defend", "play")


def parse_phases(spec: str) -> tuple[int, ...]:
    """``"bid_upcard,call"`` -> the ``actions.Phase`` values (raises ValueError naming the option)."""
    out = []
    for part in (p.strip().lower() for p in str(spec).split(",")):
        if not part:
            continue
        if part not in PHASE_NAMES:
            raise ValueError(f"--imitate-rollouts: unknown phase {part!r}; known: {list(PHASE_NAMES)}")
        out.append(PHASE_NAMES.index(part))
    return tuple(sorted(set(out)))


Q_REWARDS = ("own", "zero_sum", "relative")


def rollout_values(
    rules: RulesConfig, teacher: Policy, s: Any, rows: np.ndarray, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Each legal action's return at the tables ``rows`` of ``s``, the hand then finished by ``teacher``.

    One rollout per legal action from the table's true state (the teacher is
    deterministic, so it is that world's exact value); averaged over the deals
    by a regression on the observations, it is the action's value for the
    acting seat's information under the teacher's play.

    Returns:
        ``(own, total)``, float32 (len(rows), A) each: the acting seat's points
        after each legal action and the points of all seats together; NaN for illegal actions.
    """
    from euchre_env import engine
    from euchre_env.actions import NUM_ACTIONS
    from euchre_env.encoding import encode

    legal = engine.legal_action_mask(s.take(rows), rules)
    pair_row, pair_act = np.nonzero(legal)
    t = s.take(rows[pair_row])
    seat = t.turn.astype(np.int64)
    t = engine.step(t, pair_act.astype(np.int64), rules)
    while True:
        live = np.flatnonzero(~engine.is_done(t))
        if not live.size:
            break
        sub = t.take(live)
        acts = np.full(t.batch_size, -1, np.int64)
        acts[live] = teacher.act(
            encode(sub, sub.turn.astype(np.int64), rules, np.float32),
            engine.legal_action_mask(sub, rules),
            rng,
        )
        t = engine.step(t, acts, rules)
    t.hand_over = np.ones(t.batch_size, bool)
    points = engine.rewards(t, rules, zero_sum=False)
    own = np.full((rows.size, NUM_ACTIONS), np.nan, np.float32)
    total = own.copy()
    own[pair_row, pair_act] = points[np.arange(t.batch_size), seat]
    total[pair_row, pair_act] = points.sum(axis=1)
    return own, total


def q_targets(data: dict[str, np.ndarray], rows: np.ndarray, reward: str, num_players: int) -> np.ndarray:
    """Action values of ``data["q_rows"][rows]`` under ``reward``.

    ``own``: the acting seat's points; ``zero_sum``: minus the mean of all
    seats (as ``--zero-sum``); ``relative``: minus the sum of the other seats'
    points, which is what a duplicate match of one seat against copies of another agent
    measures to first order (the single seat's points against the points
    its four opponents let the other agent's single seat make).
    """
    own, total = data["q"][rows], data["q_total"][rows]
    if reward == "own":
        return own
    if reward == "zero_sum":
        return own - total / num_players
    if reward == "relative":
        return 2.0 * own - total
    raise ValueError(f"--imitate-q-reward must be one of {list(Q_REWARDS)}, got {reward!r}")


def keep_q_phases(
    data: dict[str, np.ndarray], phases: tuple[int, ...], rules: RulesConfig
) -> dict[str, np.ndarray]:
    """``data`` with action values only for decisions in ``phases`` (the others are imitated)."""
    if "q_rows" not in data:
        return data
    from euchre_env.encoding import obs_layout

    phase = data["obs"][data["q_rows"], obs_layout(rules).slice("phase")].argmax(axis=1)
    keep = np.isin(phase, np.asarray(phases, np.int64))
    out = {k: v for k, v in data.items() if k not in ("q_rows", "q", "q_total")}
    if keep.any():
        out.update(q_rows=data["q_rows"][keep], q=data["q"][keep], q_total=data["q_total"][keep])
    return out


def imitation_data(
    rules: RulesConfig,
    teacher: Policy,
    num_hands: int,
    seed: int,
    zero_sum: bool,
    rollout_phases: tuple[int, ...] = (),
    chunk: int = 10_000,
) -> dict[str, np.ndarray]:
    """Every decision of ``num_hands`` hands played by ``teacher`` at all seats.

    With ``rollout_phases`` (``actions.Phase`` values), every decision in those
    phases (with a choice) also gets the value of each legal action (:func:`rollout_values`).
    The hands are played ``chunk`` at a time.

    Returns:
        ``obs`` uint8 (N, D), ``masks`` bool (N, A), ``actions`` int64 (N,)
        and ``returns`` float32 (N,): the acting seat's reward for the hand;
        with ``rollout_phases`` also ``q_rows`` int64 (M,), the rows that have
        action values, ``q`` float32 (M, A), the acting seat's points after
        each legal action, and ``q_total`` (M, A), all seats' points (NaN where illegal).
    """
    rng = np.random.default_rng(seed)
    parts: dict[str, list[np.ndarray]] = {}
    offset = 0
    for start in range(0, num_hands, chunk):
        data = _imitation_chunk(rules, teacher, min(chunk, num_hands - start), rng, zero_sum, rollout_phases)
        if "q_rows" in data:
            data["q_rows"] = data["q_rows"] + offset
        offset += data["actions"].size
        for k, v in data.items():
            parts.setdefault(k, []).append(v)
    return {k: np.concatenate(v) for k, v in parts.items()}


def _imitation_chunk(
    rules: RulesConfig,
    teacher: Policy,
    num_hands: int,
    rng: np.random.Generator,
    zero_sum: bool,
    rollout_phases: tuple[int, ...],
) -> dict[str, np.ndarray]:
    import copy

    from euchre_env import engine
    from euchre_env.encoding import encode

    s = engine.init_state(rules, num_hands, rng=rng)
    parts: dict[str, list[np.ndarray]] = {"obs": [], "masks": [], "actions": [], "row": [], "seat": []}
    q_parts: list[tuple[np.ndarray, np.ndarray]] = []
    q_rows: list[np.ndarray] = []
    n_rows = 0
    phases = np.asarray(rollout_phases, np.int64)
    while True:
        live = np.flatnonzero(~engine.is_done(s))
        if not live.size:
            break
        sub, turn = s.take(live), s.turn[live].astype(np.int64)
        obs = encode(sub, turn, rules, np.float32)  # (n, D)
        masks = engine.legal_action_mask(sub, rules)  # (n, A)
        acts = np.full(s.batch_size, -1, np.int64)
        acts[live] = teacher.act(obs, masks, rng)
        if phases.size:
            chosen = np.flatnonzero(np.isin(sub.phase, phases) & (masks.sum(1) > 1))
            if chosen.size:
                q_parts.append(rollout_values(rules, teacher, sub, chosen, rng))
                q_rows.append(n_rows + chosen)
        n_rows += live.size
        for key, value in zip(parts, (obs.astype(np.uint8), masks, acts[live], live, turn), strict=True):
            parts[key].append(value)
        s = engine.step(s, acts, rules)
    ended = copy.copy(s)
    ended.hand_over = np.ones(s.batch_size, bool)  # every hand is over: rewards of the last hands
    reward = engine.rewards(ended, rules, zero_sum)  # (H, P)
    data = {k: np.concatenate(v) for k, v in parts.items()}
    data["returns"] = reward[data.pop("row"), data.pop("seat")].astype(np.float32)
    if phases.size:
        data["q_rows"] = np.concatenate(q_rows) if q_rows else np.zeros(0, np.int64)
        empty = np.zeros((0, masks.shape[1]), np.float32)
        data["q"] = np.concatenate([q for q, _ in q_parts]) if q_parts else empty
        data["q_total"] = np.concatenate([t for _, t in q_parts]) if q_parts else empty
    return data


def pretrain(
    policy: Any,
    data: dict[str, np.ndarray],
    epochs: int,
    batch_size: int,
    lr: float,
    seed: int,
    anneal: bool = False,
    q_coef: float = 1.0,
    q_reward: str = "zero_sum",
    q_margin: float = 0.0,
    num_players: int = 5,
) -> dict[str, float]:
    """Behaviour cloning: fit ``policy``'s actor to ``data["actions"]`` and its critic to ``data["returns"]``.

    Rows that have action values (``data["q_rows"]``, ``data["q"]``, from
    ``imitation_data(rollout_phases=...)``) fit the actor's logits of the
    legal actions to those values instead (mean squared error, weight
    ``q_coef``; values as :func:`q_targets` with ``q_reward``, the teacher's
    own action raised by ``q_margin`` so that the policy departs from the
    teacher only where another action looks better by more than that), so
    the most likely action there is the one of highest estimated value: a
    one-step improvement of the teacher.

    Uses the policy's own optimizer at learning rate ``lr`` (decayed linearly
    to 0 over the epochs if ``anneal``). Returns the last epoch's mean
    ``{"bc_loss", "value_loss", "accuracy"}`` (with action values also
    ``q_loss`` and ``q_agreement``, the share of those rows where the policy's
    choice is the teacher's).
    """
    rng = np.random.default_rng(seed)
    n = data["actions"].size
    q_of = np.full(n, -1, np.int64)
    q_all = None
    if "q_rows" in data:
        q_of[data["q_rows"]] = np.arange(data["q_rows"].size)
        q_all = q_targets(data, np.arange(data["q_rows"].size), q_reward, num_players)
        q_all[np.arange(q_all.shape[0]), data["actions"][data["q_rows"]]] += q_margin
    policy.set_training_mode(True)
    steps = epochs * -(-n // batch_size)
    done = 0
    stats: dict[str, float] = {}
    for _ in range(epochs):
        totals = np.zeros(6)
        order = rng.permutation(n)
        for start in range(0, n, batch_size):
            for group in policy.optimizer.param_groups:
                group["lr"] = lr * (1.0 - done / steps) if anneal else lr
            done += 1
            idx = order[start : start + batch_size]
            obs = torch.as_tensor(data["obs"][idx], dtype=torch.float32, device=policy.device)
            acts = torch.as_tensor(data["actions"][idx], device=policy.device)
            target = torch.as_tensor(data["returns"][idx], device=policy.device)
            masks = torch.as_tensor(data["masks"][idx], device=policy.device)
            latent_pi = policy.mlp_extractor.forward_actor(
                policy.extract_features(obs, policy.pi_features_extractor)
            )
            latent_vf = policy.mlp_extractor.forward_critic(
                policy.extract_features(obs, policy.vf_features_extractor)
            )
            logits = policy.action_net(latent_pi)
            values = policy.value_net(latent_vf).flatten()
            qi = q_of[idx]
            has_q = torch.as_tensor(qi >= 0, device=policy.device)
            log_probs = torch.log_softmax(logits.masked_fill(~masks, -1e9), dim=1)
            log_prob = log_probs.gather(1, acts[:, None]).squeeze(1)
            bc = ~has_q
            bc_loss = -(log_prob * bc).sum() / bc.sum().clamp(min=1)
            loss = bc_loss + 0.5 * torch.nn.functional.mse_loss(values, target)
            q_loss = torch.zeros(())
            agree = 0.0
            if has_q.any():
                q = torch.as_tensor(q_all[qi[qi >= 0]], device=policy.device)
                legal = masks[has_q]
                err = torch.where(legal, logits[has_q] - torch.nan_to_num(q), torch.zeros(()))
                q_loss = (err**2).sum() / legal.sum()
                loss = loss + q_coef * q_loss
                agree = float((log_probs[has_q].argmax(1) == acts[has_q]).float().sum())
            policy.optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            policy.optimizer.step()
            value_loss = torch.nn.functional.mse_loss(values.detach(), target).item()
            totals += np.array([
                bc_loss.item() * int(bc.sum()), value_loss * idx.size,
                float(((log_prob > np.log(0.5)) & bc).float().sum()), int(bc.sum()),
                q_loss.item() * int(has_q.sum()), agree,
            ])  # fmt: skip
        n_bc, n_q = max(totals[3], 1), max(int((q_of >= 0).sum()), 1)
        stats = {"bc_loss": totals[0] / n_bc, "value_loss": totals[1] / n, "accuracy": totals[2] / n_bc}
        if "q_rows" in data:
            stats.update(q_loss=totals[4] / n_q, q_agreement=totals[5] / n_q)
    policy.set_training_mode(False)
    return stats

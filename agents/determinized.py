"""``DeterminizedAgent``: perfect-information Monte Carlo search over sampled worlds.

For each decision the agent

1. samples complete deals consistent with what the seat knows
   (:func:`euchre_env.infoset.sample_worlds`: uniform over consistent deals,
   built from the observation alone, with the acting seat as seat 0), then
   keeps ``num_worlds`` of them, resampled by how well the rollout policy
   explains the other seats' public decisions in each (``surprise``): a
   model of the opponents, still a function of the observation only;
2. applies every legal action in every world and values the result for the
   acting seat: in the last ``exact_tricks`` tricks by an exact minimax solve
   of the open-card endgame, otherwise by ``rollouts`` playouts to the end of
   the hand with ``rollout_policy`` for every seat. All (action x world x
   rollout) tables run as one engine batch;
3. takes the best mean value, but keeps the rollout policy's own choice
   unless another action beats it by ``deviation_z`` standard errors of the
   paired per-world differences (ties and noise do not move it).

The value of a finished hand is the acting seat's reward from
``engine.rewards``: by default the zero-sum form (four-handed: own side's
points minus the other side's; five-handed: own points minus the mean), so a
euchre counts against the makers; ``zero_sum=False`` uses the seat's points.

Rows with a single legal action are answered without search. The agent is a
``euchre_env.types.Policy``: it sees only observations and masks.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from agents.base import Agent
from euchre_env import engine
from euchre_env.actions import Phase
from euchre_env.encoding import encode, obs_layout
from euchre_env.infoset import history_action, rewind_to_deal, sample_worlds
from euchre_env.rules import NUM_TRICKS, RulesConfig, make_rules
from euchre_env.state import State
from euchre_env.types import Policy

_DONE = int(Phase.DONE)


def _default_rollout_policy(rules: RulesConfig) -> Policy | None:
    """The heuristic agent when it is available, else None (uniformly random rollouts)."""
    try:
        from agents.heuristic import HeuristicAgent
    except ImportError:
        return None
    return HeuristicAgent(rules)


class DeterminizedAgent(Agent):
    """Determinised (PIMC) search agent.

    Args:
        rules: the rules the observations are encoded with.
        num_worlds: worlds sampled per decision (per round when ``time_budget`` is set).
        time_budget: seconds per decision, or None. When set, rounds of
            ``num_worlds`` worlds repeat while the next round is expected to
            fit in ``time_budget`` times the number of decisions searched; at
            least one round always runs.
        rollout_policy: ``"heuristic"``, ``"random"``, a ``Policy``, or None
            for the heuristic agent when ``agents.heuristic`` is available and
            random rollouts otherwise. It plays every seat in the rollouts,
            from each seat's own observation of the sampled world.
        rollouts: playouts per (action, world) pair.
        exact_tricks: decisions in the last ``exact_tricks`` tricks are valued
            by an exact open-card minimax solve instead of rollouts (0: never).
        zero_sum: value hands by the zero-sum reward (default) or own points.
        seed: seeds the generator used when ``act`` is given ``rng=None``.
        surprise: opponent modelling. Worlds are weighed by how well the
            rollout policy explains the other seats' public decisions there:
            each decision it would not have taken multiplies a world's weight
            by ``surprise`` (in (0, 1]; None or 1 turns this off). ``num_worlds``
            worlds are then resampled by weight from ``oversample`` times as
            many uniform ones. Needs a rollout policy (not random rollouts).
        oversample: candidate worlds per searched world when weighing.
        infer_from_play: weigh by the other seats' card plays too (default),
            not only by their bids, discard and declarations.
        deviation_z: keep the rollout policy's own choice unless an action
            beats it by this many standard errors (paired over the worlds);
            0 always takes the best mean.
        search_phases: the phases searched (default all); decisions in other
            phases are the rollout policy's, e.g. ``[Phase.PLAY]`` searches
            the card play only.

    Raises:
        ValueError: for a bad setting, naming it.
    """

    name = "search"

    def __init__(
        self,
        rules: RulesConfig,
        num_worlds: int = 32,
        time_budget: float | None = None,
        rollout_policy: str | Policy | None = None,
        rollouts: int = 1,
        exact_tricks: int = 2,
        zero_sum: bool = True,
        seed: int | None = None,
        surprise: float | None = 0.1,
        oversample: int = 4,
        infer_from_play: bool = True,
        deviation_z: float = 1.0,
        search_phases: Sequence[Phase | int] | None = None,
    ) -> None:
        super().__init__(rules)
        _check_int("num_worlds", num_worlds, 1)
        _check_int("rollouts", rollouts, 1)
        _check_int("exact_tricks", exact_tricks, 0, NUM_TRICKS)
        if time_budget is not None and (isinstance(time_budget, bool) or not float(time_budget) > 0):
            raise ValueError(f"time_budget must be a positive number of seconds or None, got {time_budget!r}")
        self.num_worlds = int(num_worlds)
        self.time_budget = None if time_budget is None else float(time_budget)
        self.rollouts = int(rollouts)
        self.exact_tricks = int(exact_tricks)
        self.zero_sum = bool(zero_sum)
        self.rollout_policy = _resolve_policy(rollout_policy, rules)
        _check_int("oversample", oversample, 1)
        if surprise is not None and not 0 < float(surprise) <= 1:
            raise ValueError(f"surprise must be in (0, 1] or None, got {surprise!r}")
        weigh = surprise is not None and float(surprise) < 1 and self.rollout_policy is not None
        self.log_surprise = float(np.log(surprise)) if weigh else None
        self.oversample = int(oversample) if weigh else 1
        self.infer_from_play = bool(infer_from_play)
        if isinstance(deviation_z, bool) or not float(deviation_z) >= 0:
            raise ValueError(f"deviation_z must be a number >= 0, got {deviation_z!r}")
        self.deviation_z = float(deviation_z)
        self.search_phases = _check_phases(search_phases, self.rollout_policy)
        self.sim_rules = make_rules(rules, episode="hand")  # search stops at the end of the hand
        self._phase_columns = obs_layout(rules).slice("phase")
        self._rng = np.random.default_rng(seed)

    def act(
        self, observations: np.ndarray, action_masks: np.ndarray, rng: np.random.Generator | None = None
    ) -> np.ndarray:
        """The searched action of each decision. Int64 (B,).

        Raises:
            ValueError: bad shapes, or a row with no legal action.
        """
        obs, masks = self.check_batch(observations, action_masks)
        gen = self._rng if rng is None else rng
        out = masks.argmax(axis=1).astype(np.int64)
        choice = masks.sum(axis=1) > 1
        searched = np.isin(obs[:, self._phase_columns].argmax(axis=1), self.search_phases)
        handed = np.flatnonzero(choice & ~searched)
        if handed.size:  # phases left to the rollout policy
            out[handed] = self.rollout_policy.act(obs[handed], masks[handed], gen)
        search = np.flatnonzero(choice & searched)
        if search.size:
            out[search] = self._search(obs[search], masks[search], gen)
        return out

    def action_values(
        self, observations: np.ndarray, action_masks: np.ndarray, rng: np.random.Generator
    ) -> np.ndarray:
        """Mean searched value of every legal action, NaN for illegal ones. Float64 (B, A)."""
        obs, masks = self.check_batch(observations, action_masks)
        owner, action = np.nonzero(masks)
        values = np.full(masks.shape, np.nan)
        values[owner, action] = self._world_values(obs, owner, action, rng).mean(axis=1)
        return values

    # --- search -------------------------------------------------------------

    def _search(self, obs: np.ndarray, masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Chosen action per row (each row has at least two legal actions). Int64 (B,).

        The best mean value wins; with a rollout policy and ``deviation_z > 0``
        the policy's own choice stands unless another action beats it by
        ``deviation_z`` standard errors of the paired per-world differences.
        """
        owner, action = np.nonzero(masks)  # (M,) pairs, sorted by owner
        vals = self._world_values(obs, owner, action, rng)  # (M, W)
        score = vals.mean(axis=1) + rng.random(owner.size) * 1e-9  # random tie-break
        default = np.zeros(owner.size, bool)
        if self.rollout_policy is not None and self.deviation_z > 0:
            default = action == self.rollout_policy.act(obs, masks, rng)[owner]
            base = vals[np.flatnonzero(default)][owner]  # (M, W) the default action's values
            diff = vals - base
            se = diff.std(axis=1, ddof=1) / np.sqrt(vals.shape[1]) if vals.shape[1] > 1 else np.inf
            score = np.where(default, 0.0, diff.mean(axis=1) - self.deviation_z * se)
        order = np.lexsort((~default, -score, owner))  # best first within each owner, default on ties
        first = np.flatnonzero(np.r_[True, owner[order][1:] != owner[order][:-1]])
        return action[order[first]]

    def _world_values(
        self, obs: np.ndarray, owner: np.ndarray, action: np.ndarray, rng: np.random.Generator
    ) -> np.ndarray:
        """Value of each (decision, action) pair in each sampled world. Float64 (M, W).

        One round of ``num_worlds`` worlds, or as many rounds as ``time_budget`` allows.
        """
        start = time.perf_counter()
        rounds = []
        while True:
            rounds.append(self._one_round(obs, owner, action, rng))
            if self.time_budget is None:
                break
            elapsed = time.perf_counter() - start
            if elapsed * (len(rounds) + 1) / len(rounds) > self.time_budget * obs.shape[0]:
                break
        return np.concatenate(rounds, axis=1)

    def _one_round(
        self, obs: np.ndarray, owner: np.ndarray, action: np.ndarray, rng: np.random.Generator
    ) -> np.ndarray:
        """Values in one batch of ``num_worlds`` worlds per decision (rollouts averaged). Float64 (M, w)."""
        w = self.num_worlds
        worlds = sample_worlds(obs, self.rules, w * self.oversample, rng)  # acting seat = 0
        if self.log_surprise is not None:
            worlds = self._resample(worlds, obs.shape[0], rng)  # (B * w) tables
        endgame = _endgame(worlds, self.exact_tricks)[owner * w]  # (M,) decided per decision
        values = np.zeros((owner.size, w))
        for exact, reps in ((True, 1), (False, self.rollouts)):
            pairs = np.flatnonzero(endgame == exact)
            if not pairs.size:
                continue
            rows = (owner[pairs, None] * w + np.arange(w)).repeat(reps, axis=1).reshape(-1)  # (m * w * reps,)
            s = engine.step(worlds.take(rows), np.repeat(action[pairs], w * reps), self.sim_rules)
            v = solve_endgame(s, self.sim_rules, self.zero_sum) if exact else self._rollout(s, rng)
            values[pairs] = v.reshape(pairs.size, w, reps).mean(axis=2)
        return values

    def _rollout(self, s: State, rng: np.random.Generator) -> np.ndarray:
        """Play every table to the end of the hand with the rollout policy. Seat 0's values (B,)."""
        policy, rules = self.rollout_policy, self.sim_rules
        while True:
            live = np.flatnonzero(s.phase != _DONE)
            if not live.size:
                return hand_value(s, rules, self.zero_sum)
            if policy is None:
                a = engine.sample_legal(s, rules, rng)
            else:
                sub = s.take(live)
                a = np.full(s.batch_size, -1, np.int64)
                a[live] = policy.act(
                    encode(sub, sub.turn, rules, np.uint8), engine.legal_action_mask(sub, rules), rng
                )
            s = engine.step(s, a, rules)

    def _resample(self, worlds: State, b: int, rng: np.random.Generator) -> State:
        """Keep ``num_worlds`` of each decision's candidate worlds, drawn by model weight."""
        k, w = self.oversample * self.num_worlds, self.num_worlds
        logw = self._log_weights(worlds, rng).reshape(b, k)
        prob = np.exp(logw - logw.max(axis=1, keepdims=True))
        cum = np.cumsum(prob / prob.sum(axis=1, keepdims=True), axis=1)  # (B, k)
        u = (rng.random((b, 1)) + np.arange(w)) / w  # (B, w) systematic resampling
        pick = np.minimum((cum[:, None, :] <= u[:, :, None]).sum(axis=2), k - 1)  # (B, w)
        return worlds.take((np.arange(b)[:, None] * k + pick).reshape(-1))

    def _log_weights(self, worlds: State, rng: np.random.Generator) -> np.ndarray:
        """Log weight of each world: ``log(surprise)`` per public decision the model would not take.

        The worlds are rewound to the deal and their public history is replayed
        with ``engine.step``; at each decision of another seat the rollout policy
        is asked from that seat's observation. Float64 (B,).
        """
        rules = self.sim_rules
        logw = np.zeros(worlds.batch_size)
        cur, idx = rewind_to_deal(worlds, rules), np.arange(worlds.batch_size)
        stop_at_play = not self.infer_from_play
        while True:
            target = worlds.take(idx)
            here = (cur.phase == target.phase) & (cur.turn == target.turn)
            here &= (cur.trick_no == target.trick_no) & (cur.n_played == target.n_played)
            keep = ~here & ~((cur.phase == Phase.PLAY) & stop_at_play)
            if not keep.any():
                return logw
            cur, target, idx = cur.take(np.flatnonzero(keep)), target.take(np.flatnonzero(keep)), idx[keep]
            taken = history_action(cur, target)
            asked = np.flatnonzero((cur.turn != 0) & (np.bitwise_count(cur.mask_bits) > 1))  # real choices
            if asked.size:
                sub = cur.take(asked)
                model = self.rollout_policy.act(
                    encode(sub, sub.turn, rules, np.uint8), engine.legal_action_mask(sub, rules), rng
                )
                logw[idx[asked]] += np.where(model != taken[asked], self.log_surprise, 0.0)
            cur = engine.step(cur, taken, rules)


# --- exact endgame ------------------------------------------------------------


def _endgame(s: State, exact_tricks: int) -> np.ndarray:
    """Tables in trick play with at most ``exact_tricks`` tricks to go. Bool (B,)."""
    return (s.phase == Phase.PLAY) & (s.trick_no >= NUM_TRICKS - exact_tricks)


def hand_value(s: State, rules: RulesConfig, zero_sum: bool) -> np.ndarray:
    """Seat 0's reward for the finished hand of each table (``engine.rewards``). Float64 (B,)."""
    over = dataclasses.replace(s, hand_over=np.ones(s.batch_size, bool))
    return engine.rewards(over, rules, zero_sum=zero_sum)[:, 0].astype(np.float64)


def _on_side_of_seat0(s: State, seat: np.ndarray, rules: RulesConfig) -> np.ndarray:
    """Whether ``seat`` (B,) plays for the same side as seat 0 in each open-card world. Bool (B,)."""
    if not rules.called_card:
        return seat % 2 == 0
    makers = lambda x: (x == s.maker) | ((x == s.partner) & (s.partner >= 0))
    return makers(seat) == makers(np.zeros_like(seat))


def _expand(s: State, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every legal action of tables ``rows``: ``(parent, action)`` arrays, parents ascending."""
    bits = s.mask_bits[rows].astype("<u8").view(np.uint8).reshape(rows.size, 8)
    parent, k = np.nonzero(np.unpackbits(bits, axis=1, bitorder="little"))
    return rows[parent], s.mask_base[rows[parent]].astype(np.int64) + k


def solve_endgame(s: State, rules: RulesConfig, zero_sum: bool = True) -> np.ndarray:
    """Exact open-card minimax value for seat 0 of each table, to the end of the hand.

    Seats on seat 0's side maximise seat 0's value, the others minimise it
    (both games are two-sided once the cards are open). The whole game tree
    is expanded breadth-first as engine batches, so use it only near the end
    of the hand (the tree grows by every seat's hand size per trick).

    Args:
        s: ``B`` tables with ``rules.episode == "hand"``.

    Returns:
        Float64 array of shape (B,).
    """
    levels: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # (live rows, parents, maximise)
    frontier, values_at = s, []
    while True:
        live = np.flatnonzero(frontier.phase != _DONE)
        done_value = np.zeros(frontier.batch_size)
        finished = np.flatnonzero(frontier.phase == _DONE)
        if finished.size:
            done_value[finished] = hand_value(frontier.take(finished), rules, zero_sum)
        values_at.append(done_value)
        if not live.size:
            break
        parent, action = _expand(frontier, live)
        maximise = _on_side_of_seat0(frontier, frontier.turn.astype(np.int64), rules)
        levels.append((live, parent, maximise))
        frontier = engine.step(frontier.take(parent), action, rules)
    child_values = values_at[-1]
    for depth in range(len(levels) - 1, -1, -1):
        live, parent, maximise = levels[depth]
        starts = np.flatnonzero(np.r_[True, parent[1:] != parent[:-1]])
        best = np.maximum.reduceat(child_values, starts)
        worst = np.minimum.reduceat(child_values, starts)
        node = values_at[depth].copy()
        node[live] = np.where(maximise[live], best, worst)
        child_values = node
    return child_values


def _check_int(name: str, value: Any, low: int, high: int | None = None) -> None:
    ok = isinstance(value, (int, np.integer)) and not isinstance(value, bool) and value >= low
    if not ok or (high is not None and value > high):
        span = f"{low}..{high}" if high is not None else f">= {low}"
        raise ValueError(f"{name} must be an integer {span}, got {value!r}")


def _check_phases(phases: Sequence[Phase | int] | None, policy: Policy | None) -> np.ndarray:
    """The searched phases as an int array (all decision phases for None)."""
    every = [int(ph) for ph in Phase if ph != Phase.DONE]
    if phases is None:
        return np.array(every)
    chosen = [int(ph) for ph in phases] if not isinstance(phases, (str, bytes)) else []
    if not chosen or any(ph not in every for ph in chosen):
        raise ValueError(
            f"search_phases must be a non-empty list of decision phases (Phase.PLAY, ...), got {phases!r}"
        )
    if len(chosen) < len(every) and policy is None:
        raise ValueError(
            "search_phases needs a rollout policy to decide the other phases, not random rollouts"
        )
    return np.array(chosen)


def _resolve_policy(policy: str | Policy | None, rules: RulesConfig) -> Policy | None:
    """The rollout policy object, or None for uniformly random rollouts."""
    if policy is None:
        return _default_rollout_policy(rules)
    if policy == "random":
        return None
    if policy == "heuristic":
        found = _default_rollout_policy(rules)
        if found is None:
            raise ValueError("rollout_policy='heuristic' needs agents.heuristic, which is not available")
        return found
    if isinstance(policy, str) or not hasattr(policy, "act"):
        raise ValueError(f"rollout_policy must be 'heuristic', 'random', a Policy or None, got {policy!r}")
    return policy


__all__ = ["DeterminizedAgent", "hand_value", "solve_endgame"]

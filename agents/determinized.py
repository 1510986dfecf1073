"""``DeterminizedAgent``: perfect-information Monte Carlo search over sampled worlds.

For each decision the agent

1. samples complete deals consistent with what the seat knows
   (:func:`euchre_env.infoset.sample_worlds`: uniform over consistent deals,
   built from the observation alone, with the acting seat as seat 0), then
   keeps ``num_worlds`` of them (``bid_worlds`` outside the card play),
   resampled by how well a model of the players explains the other seats'
   public decisions in each, still a function of the observation only
   (``worlds``): by default ``"surprise"``, a count of the decisions the
   rollout policy would not have taken; ``"policy"``, the likelihood of the
   history under a player model (``agents.beliefs.history_log_likelihood``,
   the weights of ``agents.beliefs.PolicyBelief``); ``"uniform"``, no
   weighing (the uniform consistent deals themselves);
2. applies every legal action in every world and values the result for the
   acting seat: in the last ``exact_tricks`` tricks by an exact minimax solve
   of the open-card endgame (:mod:`agents.endgame`), otherwise by ``rollouts`` playouts to the end of
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

Defaults differ by game (``VARIANT_DEFAULTS``, measured with duplicate
evaluation against the heuristic): four-handed, every phase is searched;
five-handed, only the bidding phases (make trump, discard, call a card or go
alone) are searched, with more worlds, and the card play is the rollout
policy's: searching every phase (32 worlds) was level with the heuristic
there (+0.008 +- 0.051 points per hand, 300 deals), the bidding alone
+0.055 +- 0.033 (800 fresh deals, seed 1000).

Registered agent names (``agents.make_agent``): ``"search"`` (the defaults),
``"search-policy"`` (``worlds="policy"``), ``"search-uniform"``
(``worlds="uniform"``), and ``"search:<agent>"``: the defaults with the agent
named ``<agent>`` as the rollout policy, e.g. ``"search:model:four_handed"``
(the shipped model plays the rollouts, weighs the worlds by surprise and is
the choice search must beat by ``deviation_z``; see ``rollout_search_agent``).
Five-handed, at the defaults (bidding searched, 64 worlds), head-to-head
duplicate matches (``euchre eval --variant five_handed --agents search-policy
search-uniform search --deals 250 --games 0 --seed 2026``, 19 CPU minutes): search-policy minus search-uniform +0.056 +- 0.050
points per hand, search minus search-uniform +0.049 +- 0.048, search-policy
minus search +0.001 +- 0.043. Weighing the worlds by a model of the players
looks better than uniform worlds (weak evidence: each interval only just
excludes 0, three comparisons on 250 deals), and the policy likelihood is
level with the surprise rule, which stays the default.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from agents.base import ActionModel, Agent
from agents.beliefs import HeuristicModel, history_log_likelihood
from agents.endgame import endgame_rows, hand_value, solve_endgame
from euchre_env import actions, cards, engine
from euchre_env.actions import Phase
from euchre_env.encoding import encode, obs_layout
from euchre_env.infoset import history_action, rewind_to_deal, sample_worlds
from euchre_env.rules import NUM_TRICKS, RulesConfig, make_rules
from euchre_env.state import State
from euchre_env.types import Policy

_DONE = int(Phase.DONE)
_BIDDING = tuple(int(ph) for ph in Phase if ph not in (Phase.PLAY, Phase.DONE))

DEFAULT_PLAY_WORLDS = 32
WORLDS = ("surprise", "policy", "uniform")  # how the searched worlds are drawn (the ``worlds`` setting)
MAX_COUNT = 1 << 16  # most worlds, rollouts or oversampling allowed (array sizes stay computable)
# Settings left as None resolve by game: rules.called_card -> (search_phases, bid_worlds).
VARIANT_DEFAULTS: dict[bool, tuple[tuple[int, ...] | None, int]] = {
    False: (None, 32),  # four-handed: search every phase
    True: (_BIDDING, 64),  # five-handed: search the bidding only, 64 worlds
}


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
        num_worlds: worlds sampled per card-play decision (per round when
            ``time_budget`` is set); None: ``DEFAULT_PLAY_WORLDS``.
        bid_worlds: worlds per decision of the other phases (bids, discard,
            call, declarations); None: the game's default (``VARIANT_DEFAULTS``)
            when ``num_worlds`` is left at its default, else ``num_worlds``.
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
        surprise: opponent modelling with ``worlds="surprise"``. Worlds are
            weighed by how well the rollout policy explains the other seats'
            public decisions there: each decision it would not have taken
            multiplies a world's weight by ``surprise`` (in (0, 1]; None or 1
            turns this off). ``num_worlds`` worlds are then resampled by weight
            from ``oversample`` times as many uniform ones. Needs a rollout
            policy (not random rollouts).
        oversample: candidate worlds per searched world when weighing.
        infer_from_play: with ``worlds="surprise"``, weigh by the other seats'
            card plays too (default), not only by their bids, discard and
            declarations (``worlds="policy"`` always weighs every decision).
        deviation_z: keep the rollout policy's own choice unless an action
            beats it by this many standard errors (paired over the worlds);
            0 always takes the best mean.
        search_phases: the phases searched; decisions in other phases are
            the rollout policy's, e.g. ``[Phase.PLAY]`` searches the card play
            only. None: the game's default (``VARIANT_DEFAULTS``: all phases
            four-handed, the bidding phases five-handed).
        prune_calls: five-handed, search only the calls of trump cards and
            off-suit aces, going alone, and the rollout policy's own call
            (needs a rollout policy; ignored with random rollouts).
        worlds: how the searched worlds are drawn from the uniform consistent
            deals: ``"surprise"`` (default, the ``surprise`` rule above),
            ``"policy"`` (``oversample * w`` uniform candidates weighed by the
            probability of the other seats' decisions under ``world_model``,
            then ``w`` resampled by weight) or ``"uniform"`` (no weighing).
        world_model: the player model of ``worlds="policy"``, an
            ``agents.base.ActionModel`` (``agents.beliefs.HeuristicModel``,
            ``UniformModel``, ``LogitModel``, a ``LogitAgent``); None: the
            heuristic with noise, ``HeuristicModel(rules, 0.1)``.

    Raises:
        ValueError: for a bad setting, naming it.
    """

    name = "search"

    def __init__(
        self,
        rules: RulesConfig,
        num_worlds: int | None = None,
        bid_worlds: int | None = None,
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
        prune_calls: bool = True,
        worlds: str = "surprise",
        world_model: ActionModel | None = None,
    ) -> None:
        super().__init__(rules)
        default_phases, default_bid_worlds = VARIANT_DEFAULTS[bool(rules.called_card)]
        if bid_worlds is None:
            bid_worlds = default_bid_worlds if num_worlds is None else num_worlds
        num_worlds = DEFAULT_PLAY_WORLDS if num_worlds is None else num_worlds
        _check_int("num_worlds", num_worlds, 1, MAX_COUNT)
        _check_int("bid_worlds", bid_worlds, 1, MAX_COUNT)
        _check_int("rollouts", rollouts, 1, MAX_COUNT)
        _check_int("exact_tricks", exact_tricks, 0, NUM_TRICKS)
        if time_budget is not None and (
            isinstance(time_budget, (bool, np.bool_))
            or not isinstance(time_budget, (int, float, np.integer, np.floating))
            or not 0 < float(time_budget) < float("inf")  # a str or an infinite budget (a search without end)
        ):
            raise ValueError(f"time_budget must be a positive number of seconds or None, got {time_budget!r}")
        self.num_worlds = int(num_worlds)
        self.bid_worlds = int(bid_worlds)
        self.time_budget = None if time_budget is None else float(time_budget)
        self.rollouts = int(rollouts)
        self.exact_tricks = int(exact_tricks)
        self.zero_sum = bool(zero_sum)
        self.rollout_policy = _resolve_policy(rollout_policy, rules)
        _check_int("oversample", oversample, 1, MAX_COUNT)
        if surprise is not None and not 0 < float(surprise) <= 1:
            raise ValueError(f"surprise must be in (0, 1] or None, got {surprise!r}")
        if not isinstance(worlds, str) or worlds not in WORLDS:
            raise ValueError(f"worlds must be one of {', '.join(map(repr, WORLDS))}, got {worlds!r}")
        if world_model is not None and (worlds != "policy" or not isinstance(world_model, ActionModel)):
            raise ValueError(
                "world_model must be an ActionModel (action_probs(observations, action_masks)) used with "
                f"worlds='policy', got {type(world_model).__name__} with worlds={worlds!r}"
            )
        if worlds == "policy" and not infer_from_play:
            raise ValueError(
                "infer_from_play=False applies to worlds='surprise' only (worlds='policy' weighs every decision)"
            )
        self.worlds = worlds
        self.world_model = None
        if worlds == "policy":
            self.world_model = HeuristicModel(rules, 0.1) if world_model is None else world_model
        weigh = (
            worlds == "surprise"
            and surprise is not None
            and float(surprise) < 1
            and self.rollout_policy is not None
        )
        self.log_surprise = float(np.log(surprise)) if weigh else None
        self.oversample = int(oversample) if weigh or worlds == "policy" else 1
        self.infer_from_play = bool(infer_from_play)
        if isinstance(deviation_z, bool) or not float(deviation_z) >= 0:
            raise ValueError(f"deviation_z must be a number >= 0, got {deviation_z!r}")
        self.deviation_z = float(deviation_z)
        if search_phases is None and default_phases is not None and self.rollout_policy is not None:
            search_phases = default_phases
        self.search_phases = _check_phases(search_phases, self.rollout_policy)
        self.sim_rules = make_rules(rules, episode="hand")  # search stops at the end of the hand
        self._phase_columns = obs_layout(rules).slice("phase")
        self._trump_columns = obs_layout(rules).slice("trump")
        self.prune_calls = bool(prune_calls)
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
        masks = self._prune_calls(obs, masks, search, gen)
        for rows, w in self._by_worlds(obs, search):
            out[rows] = self._search(obs[rows], masks[rows], gen, w)
        return out

    def action_values(
        self, observations: np.ndarray, action_masks: np.ndarray, rng: np.random.Generator
    ) -> np.ndarray:
        """Mean searched value of every legal action, NaN for illegal ones. Float64 (B, A)."""
        obs, masks = self.check_batch(observations, action_masks)
        values = np.full(masks.shape, np.nan)
        for rows, w in self._by_worlds(obs, np.arange(obs.shape[0])):
            owner, action = np.nonzero(masks[rows])
            vals = self._world_values(obs[rows], owner, action, rng, w).mean(axis=1)
            values[rows[owner], action] = vals
        return values

    def _prune_calls(
        self, obs: np.ndarray, masks: np.ndarray, rows: np.ndarray, rng: np.random.Generator
    ) -> np.ndarray:
        """``masks`` (B, A) with the five-handed calls of ``rows`` cut to the useful ones.

        A maker calls a partner to win tricks, so only trump cards, off-suit
        aces, going alone and the rollout policy's own call are searched: four
        times fewer candidates, and fewer chances for noise to pick a bad one.
        """
        if not self.prune_calls or self.rollout_policy is None:
            return masks
        rows = rows[obs[rows][:, self._phase_columns].argmax(axis=1) == Phase.CALL]
        if not rows.size:
            return masks
        trump = obs[rows][:, self._trump_columns].argmax(axis=1)  # (R,)
        keep = np.zeros((rows.size, masks.shape[1]), bool)
        useful = (cards.TRUMP_ORDER[trump] > 0) | (cards.CARD_RANK == cards.ACE)[None, :]  # (R, C)
        keep[:, actions.CALL_BASE : actions.CALL_BASE + cards.NUM_CARDS] = useful
        keep[:, actions.ALONE] = True
        keep[np.arange(rows.size), self.rollout_policy.act(obs[rows], masks[rows], rng)] = True
        masks = masks.copy()
        masks[rows] &= keep
        return masks

    def _by_worlds(self, obs: np.ndarray, rows: np.ndarray) -> list[tuple[np.ndarray, int]]:
        """``rows`` (R,) grouped by the worlds their phase gets: ``[(rows, worlds), ...]``."""
        play = obs[rows][:, self._phase_columns].argmax(axis=1) == Phase.PLAY
        groups = ((rows[~play], self.bid_worlds), (rows[play], self.num_worlds))
        return [(r, w) for r, w in groups if r.size]

    # --- search -------------------------------------------------------------

    def _search(self, obs: np.ndarray, masks: np.ndarray, rng: np.random.Generator, w: int) -> np.ndarray:
        """Chosen action per row (each row has at least two legal actions), ``w`` worlds each. Int64 (B,).

        The best mean value wins; with a rollout policy and ``deviation_z > 0``
        the policy's own choice stands unless another action beats it by
        ``deviation_z`` standard errors of the paired per-world differences.
        """
        owner, action = np.nonzero(masks)  # (M,) pairs, sorted by owner
        vals = self._world_values(obs, owner, action, rng, w)  # (M, W)
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
        self, obs: np.ndarray, owner: np.ndarray, action: np.ndarray, rng: np.random.Generator, w: int
    ) -> np.ndarray:
        """Value of each (decision, action) pair in each sampled world. Float64 (M, W).

        One round of ``w`` worlds, or as many rounds as ``time_budget`` allows.
        """
        start = time.perf_counter()
        rounds = []
        while True:
            rounds.append(self._one_round(obs, owner, action, rng, w))
            if self.time_budget is None:
                break
            elapsed = time.perf_counter() - start
            if elapsed * (len(rounds) + 1) / len(rounds) > self.time_budget * obs.shape[0]:
                break
        return np.concatenate(rounds, axis=1)

    def _one_round(
        self, obs: np.ndarray, owner: np.ndarray, action: np.ndarray, rng: np.random.Generator, w: int
    ) -> np.ndarray:
        """Values in one batch of ``w`` worlds per decision (rollouts averaged). Float64 (M, w)."""
        worlds = self.search_worlds(obs, w, rng)  # (B * w) tables, acting seat = 0
        endgame = endgame_rows(worlds, self.exact_tricks)[owner * w]  # (M,) decided per decision
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
                sub = s if live.size == s.batch_size else s.take(live)  # take copies every field
                a = np.full(s.batch_size, -1, np.int64)
                a[live] = policy.act(
                    encode(sub, sub.turn, rules, np.uint8), engine.legal_action_mask(sub, rules), rng
                )
            s = engine.step(s, a, rules)

    def search_worlds(self, observations: np.ndarray, w: int, rng: np.random.Generator) -> State:
        """The ``w`` worlds per observation that one round of search plays in (``worlds`` setting).

        Args:
            observations: (B, D) or (D,) observations of the seats to act.
            w: worlds per observation, a positive integer.
            rng: the generator the worlds are drawn with.

        Returns:
            ``B * w`` tables, observation-major, in each observer's relative
            frame (the observer is seat 0), each consistent with its observation.
        """
        obs = np.atleast_2d(observations)
        worlds = sample_worlds(obs, self.rules, w * self.oversample, rng)
        if self.log_surprise is None and self.world_model is None:
            return worlds
        return self._resample(worlds, obs.shape[0], w, rng)

    def world_log_weights(self, worlds: State, rng: np.random.Generator) -> np.ndarray:
        """Log weight of each candidate world (relative frame, the searching seat = 0). Float64 (B,).

        ``worlds="policy"``: the log probability of the other seats' decisions
        under ``world_model`` (``-inf`` where it is 0); ``"surprise"``:
        ``log(surprise)`` per decision the rollout policy would not take;
        ``"uniform"``: 0.
        """
        if self.world_model is not None:
            skip = np.zeros(worlds.batch_size, np.int64)  # seat 0's own decisions are no evidence
            return history_log_likelihood(worlds, self.sim_rules, self.world_model, skip)
        if self.log_surprise is not None:
            return self._log_weights(worlds, rng)
        return np.zeros(worlds.batch_size)

    def _resample(self, worlds: State, b: int, w: int, rng: np.random.Generator) -> State:
        """Keep ``w`` of each decision's ``oversample * w`` candidate worlds, drawn by model weight.

        Where every candidate has weight 0 (a model that rules them all out)
        the candidates are kept with equal weights.
        """
        k = self.oversample * w
        logw = self.world_log_weights(worlds, rng).reshape(b, k)
        top = logw.max(axis=1, keepdims=True)
        prob = np.exp(logw - np.where(np.isfinite(top), top, 0.0))
        prob[~np.isfinite(top[:, 0])] = 1.0
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


def policy_search_agent(rules: RulesConfig, **kwargs: Any) -> DeterminizedAgent:
    """``DeterminizedAgent(rules, worlds="policy", **kwargs)``: the ``"search-policy"`` agent."""
    agent = DeterminizedAgent(rules, worlds="policy", **kwargs)
    agent.name = "search-policy"
    return agent


def uniform_search_agent(rules: RulesConfig, **kwargs: Any) -> DeterminizedAgent:
    """``DeterminizedAgent(rules, worlds="uniform", **kwargs)``: the ``"search-uniform"`` agent."""
    agent = DeterminizedAgent(rules, worlds="uniform", **kwargs)
    agent.name = "search-uniform"
    return agent


def rollout_search_agent(rollout: str, rules: RulesConfig, **kwargs: Any) -> DeterminizedAgent:
    """Loader for ``make_agent("search:<rollout>", rules)``: search with the agent ``rollout`` in the rollouts.

    ``rollout`` is any agent name ``agents.make_agent`` knows except another
    search (``"heuristic"``, ``"random"``: uniformly random rollouts,
    ``"trained"``, ``"model:four_handed"``, ``"model:runs/demo/model.safetensors"``,
    ...). ``kwargs`` go to :class:`DeterminizedAgent`.

    Raises:
        ValueError: an empty or unknown ``rollout``, or a search as the rollout
            policy (a search inside every rollout step of a search would not finish).
    """
    from agents import make_agent

    if not rollout:
        raise ValueError(
            "'search:' needs the name of the rollout agent after the colon, "
            "e.g. 'search:heuristic' or 'search:model:four_handed'"
        )
    try:
        policy = rollout if rollout in ("heuristic", "random") else make_agent(rollout, rules)
    except ValueError as err:
        raise ValueError(f"the rollout agent of 'search:{rollout}': {err}") from err
    if isinstance(policy, DeterminizedAgent):
        raise ValueError(
            f"the rollout agent of 'search:{rollout}' cannot itself be a search, got {rollout!r}"
        )
    agent = DeterminizedAgent(rules, rollout_policy=policy, **kwargs)
    agent.name = f"search:{rollout}"
    return agent


def register() -> None:
    """Register the ``search:`` prefix with ``agents.make_agent``."""
    from agents import register_prefix

    register_prefix("search", rollout_search_agent)


register()


__all__ = [
    "WORLDS",
    "DeterminizedAgent",
    "hand_value",
    "policy_search_agent",
    "rollout_search_agent",
    "solve_endgame",
    "uniform_search_agent",
]

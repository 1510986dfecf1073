"""Policy-based beliefs over the hidden partner: consistent worlds weighted by a model of the players.

``PolicyBelief(model, n_worlds, seed)`` is a :class:`euchre_env.beliefs.PartnerBelief`
(same views, same ``(B, P + 1)`` layout, see that module). For each view whose
answer is not already certain it

1. draws ``n_worlds`` deals uniformly among those consistent with the view
   (:func:`euchre_env.beliefs.sample_view_worlds`: the measure that
   ``ExactBelief`` counts exactly);
2. replays the hand's public history in each world from the deal
   (``infoset.rewind_to_deal`` and ``history_action``). The history needs no
   log: it is recovered from the state, bids from the maker, trump and the
   bidding round (everyone before the maker passed), plays from the tricks,
   and the dealer's discard from the world;
3. weighs each world by the product of the model's probability of every
   decision the view did not make itself: the other seats' bids, the dealer's
   discard (hidden, so it is part of the sampled world), the maker's call and
   every card played. The public view counts every seat's decisions;
4. returns the weighted fraction of worlds in which each seat holds the called
   card and the effective sample size ``ESS = (sum w)^2 / sum w^2`` per view
   (NaN where no worlds were drawn; 0 and a NaN belief where every world has
   weight 0, which only a model that gives legal actions probability 0 can cause).

Player models (``agents.base.ActionModel``: ``action_probs(observations,
action_masks) -> (B, A)``; probabilities are renormalised over the legal actions):

* ``None``: every world weighs 1, a Monte Carlo estimate of the rules-only
  ``ExactBelief`` (for checking, and as the baseline's sampling error);
* ``UniformModel()``: every legal action equally likely. This is *not* the
  rules-only belief: a seat that followed suit with one of its ``k`` cards of
  that suit did so with probability ``1/k``, so worlds that gave it fewer
  cards of the suit weigh more; plays are evidence about hand shapes, and so
  about where the called card is;
* ``HeuristicModel(rules, epsilon)``: the heuristic's choice with probability
  ``1 - epsilon``, else uniform over the legal actions;
* ``LogitModel(agent, temperature)``: the masked softmax of a ``LogitAgent``'s
  scores (a trained ``NeuralAgent``); any ``LogitAgent`` is also an
  ``ActionModel`` itself (temperature 1).
* ``NoisyModel(base, epsilon)``: any model mixed with uniform play,
  ``(1 - epsilon) * base + epsilon * uniform``; ``epsilon`` may be an array of
  ``G`` values, for fitting the noise on held-out hands in one pass
  (``partner_lab.noise``): the log-likelihood is then (W, G).
* ``MixtureModel([(weight, model), ...])``: a population of players, each
  decision a weighted mixture of the models (which seat plays which model is
  not tracked);
* ``SeatMixtureModel([(weight, model), ...], epsilon)``: the same population
  with the seats tracked, as it is dealt out: each seat plays one of the models
  for the whole hand, drawn by the weights. A world's weight is then, per seat,
  the weighted sum over models of the probability of all that seat's decisions
  (a seat that plays at random shows it, and its plays stop counting as
  evidence of intent). Its ``epsilon`` mixes each model with uniform play.
"""

from __future__ import annotations

import numpy as np

from agents.base import ActionModel, LogitAgent
from agents.heuristic import HeuristicAgent
from euchre_env import engine
from euchre_env.beliefs import (
    BeliefResult,
    PartnerBelief,
    check_observations,
    sample_view_worlds,
    settled_beliefs,
)
from euchre_env.encoding import encode
from euchre_env.infoset import history_action, rewind_to_deal
from euchre_env.rules import RulesConfig
from euchre_env.state import State

__all__ = ["HeuristicModel", "LogitModel", "MixtureModel", "NoisyModel", "PolicyBelief", "SeatMixtureModel",
           "UniformModel", "history_log_likelihood", "with_noise"]  # fmt: skip

_MAX_WORLDS = 1 << 16  # worlds replayed at once


class UniformModel:
    """Players who pick uniformly among their legal actions (``ActionModel``)."""

    name = "uniform"

    def action_probs(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """Float64 (B, A): ``1 / (number of legal actions)`` on the mask, 0 off it."""
        m = np.asarray(action_masks, bool)
        return m / np.maximum(m.sum(axis=1, keepdims=True), 1)

    def state_log_probs(self, state: State, rules: RulesConfig, taken: np.ndarray) -> np.ndarray:
        """Fast path for the replay, from the engine's legal sets: ``-log(legal actions)``. (B,)."""
        return -np.log(np.bitwise_count(state.mask_bits).astype(np.float64))

    def __repr__(self) -> str:
        return "UniformModel()"


class HeuristicModel:
    """The heuristic player with noise: its choice w.p. ``1 - epsilon``, else uniform (``ActionModel``).

    Args:
        rules: the rules of the observations.
        epsilon: noise level in [0, 1]. At 0 a world in which some seat did
            not do what the heuristic would weighs 0.
    """

    def __init__(self, rules: RulesConfig, epsilon: float = 0.1) -> None:
        if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float)) or not 0 <= epsilon <= 1:
            raise ValueError(f"epsilon must be a number in [0, 1], got {epsilon!r}")
        self.agent, self.epsilon = HeuristicAgent(rules), float(epsilon)
        self.name = f"heuristic(eps={self.epsilon:g})"

    def action_probs(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """Float64 (B, A)."""
        m = np.asarray(action_masks, bool)
        probs = self.epsilon * m / np.maximum(m.sum(axis=1, keepdims=True), 1)
        choice = self.agent.act(observations, m)
        probs[np.arange(m.shape[0]), choice] += 1 - self.epsilon
        return probs

    def __repr__(self) -> str:
        return f"HeuristicModel(epsilon={self.epsilon:g})"


class LogitModel:
    """The masked softmax of an agent's scores at a temperature (``ActionModel``).

    Args:
        agent: a ``LogitAgent``, e.g. ``agents.neural.NeuralAgent``.
        temperature: a positive number; higher is closer to uniform.
    """

    def __init__(self, agent: LogitAgent, temperature: float = 1.0) -> None:
        if not isinstance(agent, LogitAgent):
            raise ValueError(f"agent must be a LogitAgent (e.g. a NeuralAgent), got {type(agent).__name__}")
        if isinstance(temperature, bool) or not isinstance(temperature, (int, float)) or not temperature > 0:
            raise ValueError(f"temperature must be a positive number, got {temperature!r}")
        self.agent, self.temperature = agent, float(temperature)
        self.name = f"{agent.name}(T={self.temperature:g})"

    def action_probs(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """Float64 (B, A)."""
        return self.agent.action_probs(observations, action_masks, self.temperature)

    def __repr__(self) -> str:
        return f"LogitModel({self.agent!r}, temperature={self.temperature:g})"


class NoisyModel:
    """``base`` mixed with uniform play: ``(1 - epsilon) * base + epsilon / (legal actions)`` (``ActionModel``).

    Args:
        base: an ``ActionModel``.
        epsilon: the noise, a number in [0, 1], or a 1-D array of them (a grid: probabilities then have a
            trailing axis ``G``, and ``history_log_likelihood`` returns (W, G)).
    """

    def __init__(self, base: ActionModel, epsilon: float | np.ndarray) -> None:
        if not isinstance(base, ActionModel):
            raise ValueError(f"base must be an ActionModel, got {type(base).__name__}")
        if isinstance(base, SeatMixtureModel):
            raise ValueError("base is a SeatMixtureModel: give it the noise itself, SeatMixtureModel(parts, "
                             "epsilon), or use with_noise(model, epsilon), so that its seats stay tracked")  # fmt: skip
        eps = np.asarray(epsilon, dtype=np.float64)
        if isinstance(epsilon, bool) or eps.ndim > 1 or eps.size == 0 or not ((eps >= 0) & (eps <= 1)).all():
            raise ValueError(f"epsilon must be a number in [0, 1] or a 1-D array of them, got {epsilon!r}")
        self.base, self.epsilon = base, eps
        label = f"{float(eps):g}" if eps.ndim == 0 else f"{eps.size} values"
        self.name = f"{getattr(base, 'name', type(base).__name__)}+eps {label}"

    def action_probs(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """Float64 (B, A), or (B, A, G) for a grid of epsilons."""
        m = np.asarray(action_masks, bool)
        base = np.asarray(self.base.action_probs(observations, m), np.float64)
        base = np.where(m, base, 0.0)
        base /= np.maximum(base.sum(axis=1, keepdims=True), 1e-300)
        uniform = m / np.maximum(m.sum(axis=1, keepdims=True), 1)
        if self.epsilon.ndim == 0:
            return (1 - self.epsilon) * base + self.epsilon * uniform
        return (1 - self.epsilon) * base[..., None] + self.epsilon * uniform[..., None]

    def __repr__(self) -> str:
        return f"NoisyModel({self.base!r}, epsilon={self.epsilon.tolist()})"


class MixtureModel:
    """A population: each decision's probabilities the weighted mean of ``models``' (``ActionModel``).

    Args:
        parts: ``[(weight, model), ...]`` with positive weights.
    """

    def __init__(self, parts: list[tuple[float, ActionModel]]) -> None:
        if not parts or any(not isinstance(m, ActionModel) or not w > 0 for w, m in parts):
            raise ValueError(f"parts must be (positive weight, ActionModel) pairs, got {parts!r}")
        total = sum(w for w, _ in parts)
        self.parts = [(w / total, m) for w, m in parts]
        self.name = "mix(" + ",".join(f"{getattr(m, 'name', type(m).__name__)}={w:.2g}" for w, m in self.parts) + ")"

    def action_probs(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """Float64 (B, A)."""
        m = np.asarray(action_masks, bool)
        out = np.zeros(m.shape)
        for w, model in self.parts:
            probs = np.where(m, np.asarray(model.action_probs(observations, m), np.float64), 0.0)
            out += w * probs / np.maximum(probs.sum(axis=1, keepdims=True), 1e-300)
        return out

    def __repr__(self) -> str:
        return f"MixtureModel({self.parts!r})"


class SeatMixtureModel:
    """A population whose seats each play one of ``parts`` for the whole hand (``ActionModel``).

    Asked about one decision (``action_probs``) it is :class:`MixtureModel`;
    :func:`history_log_likelihood` tracks the seats: a world weighs
    ``prod over seats of sum_k w_k * P_k(that seat's decisions)``.

    Args:
        parts: ``[(weight, model), ...]`` with positive weights.
        epsilon: noise mixed into every part (``NoisyModel``): a number in [0, 1] or a 1-D grid.
    """

    def __init__(self, parts: list[tuple[float, ActionModel]], epsilon: float | np.ndarray = 0.0) -> None:
        if not parts or any(not isinstance(m, ActionModel) or isinstance(m, SeatMixtureModel) or not w > 0
                            for w, m in parts):  # fmt: skip
            raise ValueError(f"parts must be (positive weight, ActionModel) pairs, got {parts!r}")
        total = sum(w for w, _ in parts)
        self.parts = [(w / total, m) for w, m in parts]
        self.epsilon = NoisyModel(self.parts[0][1], epsilon).epsilon  # checked there
        self.noisy = [(w, NoisyModel(m, self.epsilon)) for w, m in self.parts]
        label = f"{float(self.epsilon):g}" if self.epsilon.ndim == 0 else f"{self.epsilon.size} values"
        self.name = ("seats(" + ",".join(f"{getattr(m, 'name', type(m).__name__)}={w:.2g}" for w, m in self.parts)
                     + f")+eps {label}")  # fmt: skip

    def action_probs(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """Float64 (B, A), or (B, A, G) for a grid of epsilons: one decision, seat untracked."""
        return sum(w * m.action_probs(observations, action_masks) for w, m in self.noisy)

    def __repr__(self) -> str:
        return f"SeatMixtureModel({self.parts!r}, epsilon={self.epsilon.tolist()})"


def with_noise(model: ActionModel, epsilon: float | np.ndarray) -> ActionModel:
    """``model`` mixed with uniform play: ``NoisyModel``, or for a ``SeatMixtureModel`` each of its parts."""
    if isinstance(model, SeatMixtureModel):
        return SeatMixtureModel(model.parts, epsilon)
    return NoisyModel(model, epsilon)


class PolicyBelief(PartnerBelief):
    """Consistent worlds weighted by a model of the players (module docstring).

    Args:
        model: an ``ActionModel`` (``UniformModel()``, ``HeuristicModel``,
            ``LogitModel``, a ``LogitAgent``), or None for equal weights.
        n_worlds: worlds drawn per view, a positive integer.
        seed: seed of the generator the worlds are drawn with (advanced by every
            call; pass ``rng`` to ``from_observations`` to control it per call).
    """

    def __init__(self, model: ActionModel | None = None, n_worlds: int = 256, seed: int = 0) -> None:
        if model is not None and not isinstance(model, ActionModel):
            raise ValueError(
                f"model must have action_probs(observations, action_masks) (an ActionModel) or be None, "
                f"got {type(model).__name__}"
            )
        if isinstance(n_worlds, bool) or not isinstance(n_worlds, (int, np.integer)) or n_worlds < 1:
            raise ValueError(f"n_worlds must be a positive integer, got {n_worlds!r}")
        self.model, self.n_worlds = model, int(n_worlds)
        self.rng = np.random.default_rng(seed)
        self.name = f"policy[{getattr(model, 'name', type(model).__name__) if model is not None else 'none'}]"

    def from_observations(
        self,
        observations: np.ndarray,
        rules: RulesConfig,
        public: np.ndarray,
        rng: np.random.Generator | None = None,
    ) -> BeliefResult:
        """Beliefs and ESS of (B, D) view observations, relative frame (see ``PartnerBelief``)."""
        obs, public = check_observations(observations, rules, public)
        rng = self.rng if rng is None else rng
        probs, open_ = settled_beliefs(obs, rules, public)
        ess = np.full(obs.shape[0], np.nan)
        n, p = self.n_worlds, rules.num_players
        rows = np.flatnonzero(open_)
        step = max(1, _MAX_WORLDS // n)
        for at in range(0, rows.size, step):
            r = rows[at : at + step]
            worlds = sample_view_worlds(obs[r], rules, public[r], n, rng)
            logw = np.zeros(worlds.batch_size)
            if self.model is not None:
                skip = np.repeat(np.where(public[r], -1, 0), n)  # the viewer's own decisions are no evidence
                logw = history_log_likelihood(worlds, rules, self.model, skip)
            logw = logw.reshape(r.size, n)
            top = logw.max(axis=1, keepdims=True)
            w = np.where(np.isfinite(top), np.exp(logw - np.where(np.isfinite(top), top, 0)), 0.0)
            col = np.where(worlds.partner >= 0, worlds.partner, p).reshape(r.size, n)
            total = w.sum(axis=1)
            mass = np.stack([(w * (col == k)).sum(axis=1) for k in range(p + 1)], axis=1)
            with np.errstate(invalid="ignore", divide="ignore"):
                probs[r] = mass / total[:, None]
                ess[r] = np.where(total > 0, total**2 / (w**2).sum(axis=1), 0.0)
        return BeliefResult(probs, ess)

    def __repr__(self) -> str:
        return f"PolicyBelief({self.model!r}, n_worlds={self.n_worlds})"


def history_log_likelihood(
    worlds: State, rules: RulesConfig, model: ActionModel, skip: np.ndarray
) -> np.ndarray:
    """Log probability, under ``model``, of every decision in each world's history. Float64 (W,).

    Each world is rewound to its deal and its history replayed with
    ``engine.step``; at every decision with more than one legal action, by a
    seat other than ``skip`` (W,) (-1: skip none), the model is asked from that
    seat's observation. A probability of 0 gives ``-inf``. A model with a grid
    of ``G`` noise values (``NoisyModel``, ``SeatMixtureModel``) gives (W, G).
    A ``SeatMixtureModel`` is scored per seat and part, then mixed per seat.
    """
    eps = getattr(model, "epsilon", None)
    grid = () if eps is None or np.ndim(eps) == 0 else (np.size(eps),)
    parts = model.noisy if isinstance(model, SeatMixtureModel) else [(1.0, model)]
    logw = np.zeros((worlds.batch_size, rules.num_players, len(parts), *grid))  # (W, seat, part[, G])
    cur, idx = rewind_to_deal(worlds, rules), np.arange(worlds.batch_size)
    while True:
        target = worlds.take(idx)
        here = (cur.phase == target.phase) & (cur.turn == target.turn)
        here &= (cur.trick_no == target.trick_no) & (cur.n_played == target.n_played)
        if here.all():
            break
        go = np.flatnonzero(~here)
        cur, target, idx = cur.take(go), target.take(go), idx[go]
        taken = history_action(cur, target)
        asked = np.flatnonzero((cur.turn != skip[idx]) & (np.bitwise_count(cur.mask_bits) > 1))
        if asked.size:
            at, seat, s = idx[asked], cur.turn[asked].astype(np.int64), cur.take(asked)
            inputs: dict[str, np.ndarray] = {}  # the seats' observations, encoded once for every part
            for k, (_, part) in enumerate(parts):
                logw[at, seat, k] += _log_probs(part, s, rules, taken[asked], inputs)
        cur = engine.step(cur, taken, rules)
    if len(parts) == 1:
        return logw[:, :, 0].sum(axis=1)
    logp = np.log([w for w, _ in parts]).reshape((1, 1, -1) + (1,) * len(grid))
    with np.errstate(invalid="ignore"):  # a seat whose every part gives -inf stays -inf
        return np.logaddexp.reduce(logw + logp, axis=2).sum(axis=1)


def _log_probs(
    model: ActionModel, s: State, rules: RulesConfig, taken: np.ndarray, inputs: dict[str, np.ndarray]
) -> np.ndarray:
    """Log of the model's probability of the ``taken`` (B,) actions at tables ``s``. Float64 (B,).

    ``inputs`` caches the observations and masks of ``s`` for the next model asked about the same tables.
    """
    fast = getattr(model, "state_log_probs", None)
    if fast is not None:
        return fast(s, rules, taken)
    if not inputs:
        inputs["masks"] = engine.legal_action_mask(s, rules)
        inputs["obs"] = encode(s, s.turn, rules, np.uint8)
    masks = inputs["masks"]
    probs = np.asarray(model.action_probs(inputs["obs"], masks), np.float64)
    if probs.shape[:2] != masks.shape:
        raise ValueError(f"model.action_probs must return shape {masks.shape}, got {probs.shape}")
    on = masks.reshape(masks.shape + (1,) * (probs.ndim - 2))
    legal = np.where(on, probs, 0.0).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(probs[np.arange(taken.size), taken] / legal)

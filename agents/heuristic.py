"""``HeuristicAgent``: a rule-based player with a good club player's rules of thumb.

Decisions by phase (the rules live in :mod:`agents.heuristic_bidding` and
:mod:`agents.heuristic_play`, one small function each, with their reasons):

============  ===================================================================
phase         rule
============  ===================================================================
BID_UPCARD    order up / assist / pick up when the likely-trick count of the
              upcard's suit clears the seat's threshold (``bid_upcard``)
DISCARD       short-suit yourself, keep trump and aces (``choose_discard``)
BID_SUIT      name the strongest other suit if strong enough; stuck dealer
              names the strongest (``bid_suit``)
DECLARE       alone with the right bower, three trump and at most one loser
              (``should_go_alone``), else with partner
CALL          alone as above, else call the highest trump you lack that is
              not known out of play, then an off ace (``choose_call``)
DEFEND        defend alone with three sure trump tricks (``should_defend_alone``)
PLAY          lead boss trump as maker, cash off aces, lead low otherwise; when
              following, never overtake a known partner, win cheaply, trump
              in when void, else throw the lowest (``choose_play``)
============  ===================================================================

The agent is deterministic (``rng`` is unused) and vectorised: each call runs
a fixed number of numpy operations per phase present in the batch, so it is
cheap at batch 1 (search rollouts) and at batch 1000s (evaluation).
"""

from __future__ import annotations

import numpy as np

from agents import heuristic_bidding as bid
from agents.base import Agent
from agents.heuristic_play import choose_play
from agents.view import ObsView
from euchre_env import actions, cards
from euchre_env.actions import Phase
from euchre_env.rules import RulesConfig

C = cards.NUM_CARDS
S = cards.NUM_SUITS


class HeuristicAgent(Agent):
    """Rule-based Euchre player for both games.

    Args:
        rules: the rules the observations are encoded with.
        thresholds: bidding thresholds; default ``Thresholds.for_rules(rules)``.
    """

    name = "heuristic"

    def __init__(self, rules: RulesConfig, thresholds: bid.Thresholds | None = None) -> None:
        super().__init__(rules)
        if thresholds is not None and not isinstance(thresholds, bid.Thresholds):
            raise ValueError(f"thresholds must be a heuristic_bidding.Thresholds or None, got {thresholds!r}")
        self.thresholds = thresholds if thresholds is not None else bid.Thresholds.for_rules(rules)
        self._handlers = {
            Phase.BID_UPCARD: self._bid_upcard,
            Phase.DISCARD: self._discard,
            Phase.BID_SUIT: self._bid_suit,
            Phase.CALL: self._call,
            Phase.DECLARE: self._declare,
            Phase.DEFEND: self._defend,
            Phase.PLAY: self._play,
        }

    def act(
        self, observations: np.ndarray, action_masks: np.ndarray, rng: np.random.Generator | None = None
    ) -> np.ndarray:
        """One action per row, by the rules of its phase. Int64 (B,).

        Raises:
            ValueError: bad shapes, a row without legal actions, or a finished table.
        """
        obs, masks = self.check_batch(observations, action_masks)
        view = ObsView(obs, self.rules)
        phases = np.unique(view.phase)
        out = np.full(obs.shape[0], -1, dtype=np.int64)
        for ph in phases:
            if ph not in self._handlers:
                raise ValueError(f"HeuristicAgent.act: observation in phase {Phase(ph).name} has no decision")
            if phases.size == 1:  # the common case (and batch 1): no regrouping
                return self._handlers[Phase(ph)](view, masks)
            rows = np.flatnonzero(view.phase == ph)
            out[rows] = self._handlers[Phase(ph)](ObsView(obs[rows], self.rules), masks[rows])
        return out

    # --- one method per phase; each returns action ids (n,) ---------------
    def _bid_upcard(self, view: ObsView, mask: np.ndarray) -> np.ndarray:
        accept = bid.bid_upcard(view, self.thresholds) & mask[:, actions.ORDER_UP]
        return np.where(accept, actions.ORDER_UP, actions.PASS)

    def _discard(self, view: ObsView, mask: np.ndarray) -> np.ndarray:
        six = mask[:, actions.DISCARD_BASE : actions.DISCARD_BASE + C]
        trump = np.where(view.trump < S, view.trump, cards.CARD_SUIT[np.maximum(view.upcard, 0)])
        return actions.DISCARD_BASE + bid.choose_discard(six, trump.astype(np.int64))

    def _bid_suit(self, view: ObsView, mask: np.ndarray) -> np.ndarray:
        legal = mask[:, actions.NAME_SUIT_BASE : actions.NAME_SUIT_BASE + S]
        suit = bid.bid_suit(view, legal, self.thresholds)
        must = ~mask[:, actions.PASS]
        best = np.where(legal, bid.hand_strength(view.hand)[0], -np.inf).argmax(axis=1)
        suit = np.where((suit < 0) & must, best, suit)
        return np.where(suit >= 0, actions.NAME_SUIT_BASE + suit, actions.PASS)

    def _declare(self, view: ObsView, mask: np.ndarray) -> np.ndarray:
        alone = bid.should_go_alone(view.hand, np.minimum(view.trump, S - 1)) & mask[:, actions.ALONE]
        return np.where(alone, actions.ALONE, actions.WITH_PARTNER)

    def _call(self, view: ObsView, mask: np.ndarray) -> np.ndarray:
        alone = bid.should_go_alone(view.hand, np.minimum(view.trump, S - 1)) & mask[:, actions.ALONE]
        legal_calls = mask[:, actions.CALL_BASE : actions.CALL_BASE + C]
        has_call = legal_calls.any(axis=1)
        card = bid.choose_call(view, legal_calls)
        return np.where(alone | ~has_call, actions.ALONE, actions.CALL_BASE + card)

    def _defend(self, view: ObsView, mask: np.ndarray) -> np.ndarray:
        alone = bid.should_defend_alone(view) & mask[:, actions.DEFEND_ALONE]
        return np.where(alone, actions.DEFEND_ALONE, actions.PASS)

    def _play(self, view: ObsView, mask: np.ndarray) -> np.ndarray:
        legal = mask[:, actions.PLAY_BASE : actions.PLAY_BASE + C]
        return actions.PLAY_BASE + choose_play(view, legal)

"""``PhaseSplit``: an agent that bids like one agent and plays its cards like another.

Every decision before the card play (ordering up, the dealer's discard, naming
trump, calling a card or going alone, defending alone) goes to ``bidder``;
every card played goes to ``player``. Crossing a trained model with the
heuristic this way shows where the model's edge comes from
(``euchre analyse phase-split``, ``docs/experiments/training_journal.md``).
"""

from __future__ import annotations

import numpy as np

from agents.base import Agent
from agents.view import ObsView
from euchre_env.actions import Phase
from euchre_env.rules import RulesConfig
from euchre_env.types import Policy


class PhaseSplit(Agent):
    """``bidder`` for the decisions before the card play, ``player`` for the cards played.

    Args:
        bidder: the policy of every decision outside the PLAY phase.
        player: the policy of every card played.
        rules: the rules of both.
    """

    def __init__(self, bidder: Policy, player: Policy, rules: RulesConfig) -> None:
        super().__init__(rules)
        self.bidder, self.player = bidder, player
        self.name = f"{getattr(bidder, 'name', 'agent')} bidding, {getattr(player, 'name', 'agent')} playing"

    def act(self, observations: np.ndarray, action_masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Int64 (B,): the bidder's actions at rows outside the card play, the player's at the rest."""
        obs, masks = self.check_batch(observations, action_masks)
        play = ObsView(obs, self.rules).phase == Phase.PLAY
        out = np.empty(obs.shape[0], np.int64)
        for agent, rows in ((self.player, play), (self.bidder, ~play)):
            if rows.any():
                out[rows] = agent.act(obs[rows], masks[rows], rng)
        return out

"""Suit-symmetric networks: one MLP that sees every deal with its trump as suit 0.

Renaming the suits of a deal (the two suits of a colour staying together) gives
the same game, so a policy should treat a hand with spades trump exactly as the
same hand with clubs trump. :class:`SuitSymmetric` builds that in: it relabels
each input row so its reference suit (trump once made, else the upcard's suit)
is suit 0 (see :func:`euchre_env.encoding.suit_symmetry_tables`), runs the
layers, and maps the logits back to printed suits. Every hand then teaches the
network all four trump suits at once.

The relabelling is index tables, not weights: a model file of a symmetric
policy holds the same tensors as a plain MLP's, and its config says
``"suit_symmetry": true``. Import this module only after
:func:`agents.neural.import_torch`.
"""

from __future__ import annotations

from typing import Any

import torch

from euchre_env import cards
from euchre_env.encoding import obs_layout, suit_symmetry_tables
from euchre_env.rules import RulesConfig


class SuitSymmetric(torch.nn.Sequential):
    """The layers of ``mlp`` applied to inputs in canonical suits.

    Args:
        mlp: a ``torch.nn.Sequential`` taking (B, D') inputs, D' the observation
            size plus ``CARD_SLOTS * extra_card_sets``; its layers are reused
            (the state dict keeps the plain MLP's names).
        rules: the rules the observations follow.
        extra_card_sets: card sets appended after the observation (the
            training critic's view of the other hands).
        relabel_output: True for an actor (its (B, A) logits are mapped back to
            printed suits); False for a value network (output (B, 1) as is).

    ``forward``: float (B, D') -> (B, A) logits in printed suits, or (B, 1).
    """

    def __init__(
        self, mlp: Any, rules: RulesConfig, extra_card_sets: int = 0, relabel_output: bool = True
    ) -> None:
        super().__init__(*mlp)
        obs_src, action_src = suit_symmetry_tables(rules, extra_card_sets)
        layout = obs_layout(rules)
        self.trump, self.upcard = layout.slice("trump"), layout.offsets["upcard"]
        self.register_buffer("obs_src", torch.from_numpy(obs_src), persistent=False)  # (4, D')
        self.register_buffer("action_src", torch.from_numpy(action_src), persistent=False)  # (4, A)
        self.relabel_output = relabel_output

    def reference(self, x: torch.Tensor) -> torch.Tensor:
        """int64 (B,): trump where made (its one-hot), else the upcard's suit."""
        trump = x[:, self.trump]
        upcard = x[:, self.upcard : self.upcard + cards.NUM_CARDS]
        upcard = upcard.reshape(-1, cards.NUM_SUITS, cards.NUM_RANKS).amax(dim=2)
        return torch.where(trump.amax(dim=1, keepdim=True) > 0, trump, upcard).argmax(dim=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        ref = self.reference(x)
        out = super().forward(x.gather(1, self.obs_src[ref]))
        return out.gather(1, self.action_src[ref]) if self.relabel_output else out

"""Suit-symmetric networks: one MLP that sees every deal with its trump as suit 0.

Renaming the suits of a deal (the two suits of a colour staying together) gives
the same game, so a policy should treat a hand with spades trump exactly as the
same hand with clubs trump. :class:`SuitSymmetric` builds that in: it relabels
each input row so its reference suit (trump once made, else the upcard's suit)
is suit 0 (see :func:`euchre_env.encoding.suit_symmetry_tables`), runs the
layers, and maps the logits back to printed suits. Every hand then teaches the
network all four trump suits at once. With ``sort_other_colour`` it also orders
the other colour's two suits (which play the same part) by their cards, so a
hand with the ace of hearts and the same hand with the ace of diamonds (spades
trump) are one input too.

The relabelling is index tables, not weights: a model file of a symmetric
policy holds the same tensors as a plain MLP's, and its config says
``"suit_symmetry": true`` (and ``"sort_other_colour"``). Import this module only after
:func:`agents.neural.import_torch`.
"""

from __future__ import annotations

from typing import Any

import torch

from euchre_env import cards
from euchre_env.encoding import obs_layout, other_colour_entries, suit_symmetry_tables
from euchre_env.rules import RulesConfig


class SuitSymmetric(torch.nn.Sequential):
    """The layers of ``mlp`` applied to inputs in canonical suits.

    Args:
        mlp: a ``torch.nn.Sequential`` taking (B, D') inputs, D' the observation
            size plus ``extra_columns + CARD_SLOTS * extra_card_sets``; its layers are reused
            (the state dict keeps the plain MLP's names).
        rules: the rules the observations follow.
        extra_card_sets: card sets appended after the observation (the
            training critic's view of the other hands).
        relabel_output: True for an actor (its (B, A) logits are mapped back to
            printed suits); False for a value network (output (B, 1) as is).
        sort_other_colour: also order the two suits of the other colour than
            the reference suit's by the cards the seat has held of them, then
            by the rest of the observation
            (:func:`euchre_env.encoding.other_colour_entries`), so that inputs
            that differ only by swapping them are one input.
        extra_columns: entries between the observation and the card sets
            that are not relabelled (``"partner"`` features: a belief over seats).

    ``forward``: float (B, D') -> (B, A) logits in printed suits, or (B, 1).
    """

    def __init__(
        self,
        mlp: Any,
        rules: RulesConfig,
        extra_card_sets: int = 0,
        relabel_output: bool = True,
        sort_other_colour: bool = False,
        extra_columns: int = 0,
    ) -> None:
        super().__init__(*mlp)
        obs_src, action_src = suit_symmetry_tables(rules, extra_card_sets, extra_columns)
        layout = obs_layout(rules)
        self.trump, self.upcard = layout.slice("trump"), layout.offsets["upcard"]
        self.register_buffer("obs_src", torch.from_numpy(obs_src), persistent=False)  # (8, D')
        self.register_buffer("action_src", torch.from_numpy(action_src), persistent=False)  # (8, A)
        held, entries = other_colour_entries(rules)
        self.register_buffer("held", torch.from_numpy(held), persistent=False)  # (2, 3, R)
        self.register_buffer("entries", torch.from_numpy(entries), persistent=False)  # (2, n)
        self.relabel_output, self.sort_other_colour = relabel_output, sort_other_colour

    def reference(self, x: torch.Tensor) -> torch.Tensor:
        """int64 (B,): trump where made (its one-hot), else the upcard's suit."""
        trump = x[:, self.trump]
        upcard = x[:, self.upcard : self.upcard + cards.NUM_CARDS]
        upcard = upcard.reshape(-1, cards.NUM_SUITS, cards.NUM_RANKS).amax(dim=2)
        return torch.where(trump.amax(dim=1, keepdim=True) > 0, trump, upcard).argmax(dim=1)

    def swapped(self, canonical: torch.Tensor) -> torch.Tensor:
        """int64 (B,): 1 where the other colour's suits of a canonical input are to be swapped: suit 3
        has the 1 at the first of their matched entries that differ, the cards the seat has held of them
        first (:func:`euchre_env.encoding.other_colour_entries`); 0 where none differ."""
        held = canonical[:, self.held].amax(dim=2)  # (B, 2, R): hand, discard or played by me
        diff = torch.cat([held[:, 0] - held[:, 1], canonical[:, self.entries[0]] - canonical[:, self.entries[1]]], 1)
        first = (diff != 0).to(torch.uint8).argmax(dim=1, keepdim=True)  # the first difference, or 0
        return (diff.gather(1, first)[:, 0] < 0).long()

    def rows(self, x: torch.Tensor) -> torch.Tensor:
        """int64 (B,): each input's row of the tables (``2 * reference + swapped``); its canonical input is
        ``x.gather(1, self.obs_src[rows])``."""
        row = 2 * self.reference(x)  # the other colour in printed order
        if self.sort_other_colour:
            row = row + self.swapped(x.gather(1, self.obs_src[row]))
        return row

    def canonical(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``(x', row)``: the inputs in canonical suits (B, D') and each one's table row, int64 (B,)."""
        row = self.rows(x)
        return x.gather(1, self.obs_src[row]), row

    def layers(self, canonical: torch.Tensor) -> torch.Tensor:
        """The layers alone on inputs already in canonical suits: (B, D') -> (B, A) canonical logits, or (B, 1).
        The canonical logit of printed action ``a`` is at ``action_src[row, a]``."""
        return super().forward(canonical)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        canonical, row = self.canonical(x)
        out = self.layers(canonical)
        return out.gather(1, self.action_src[row]) if self.relabel_output else out

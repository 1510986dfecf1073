"""Rules configuration: the two games of ``docs/rules.md`` and their table settings.

``RulesConfig`` is a frozen dataclass; every size the engine, encodings and
environments use is derived from it (and from :mod:`euchre_env.cards`). The
rules themselves: ``docs/rules.md``; these settings and their defaults: rules.md §5.

==============  ===============================  ===============================
setting         ``"five_handed"`` (rules.md §3)  ``"four_handed"`` (rules.md §4)
==============  ===============================  ===============================
players         5, individual scores             4, partners opposite
deck            28 cards (8..A)                  24 cards (9..A)
kitty           3 (upcard + 2 hidden)            4 (upcard + 3 hidden)
maker declares  a called card, or alone          alone, or with partner
stick dealer    always (must stay True)          setting, default True
defend alone    not offered (must be False)      setting, default False
==============  ===============================  ===============================
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from euchre_env import cards

Variant = Literal["five_handed", "four_handed"]
Episode = Literal["hand", "game"]
VARIANTS: tuple[str, ...] = ("five_handed", "four_handed")
EPISODES: tuple[str, ...] = ("hand", "game")
HAND_SIZE = 5  # cards per player, and tricks per hand, in both games
NUM_TRICKS = HAND_SIZE


@dataclass(frozen=True)
class RulesConfig:
    """One game's rules and table settings.

    Attributes:
        variant: ``"five_handed"`` (called-card, hidden partner) or ``"four_handed"``.
        stick_the_dealer: if True the dealer may not pass in round 2
            (rules.md#c10, #c16). Must be True in the five-handed game.
        defend_alone: four-handed only: after a lone declaration each defender
            in turn from the dealer's left may defend alone (rules.md#c18).
        points_to_win: game target (rules.md#c14, #c19), a positive integer.
        episode: ``"hand"`` (default) or ``"game"``: what one episode is
            (rules.md#c20).
    """

    variant: Variant = "four_handed"
    stick_the_dealer: bool = True
    defend_alone: bool = False
    points_to_win: int = 10
    episode: Episode = "hand"
    # Derived sizes, one source of truth for everything downstream.
    num_players: int = field(init=False)
    num_cards_in_play: int = field(init=False)
    kitty_size: int = field(init=False)
    deck_mask: int = field(init=False)
    called_card: bool = field(init=False)

    def __post_init__(self) -> None:
        self.validate()
        five = self.variant == "five_handed"
        set_ = object.__setattr__
        set_(self, "num_players", 5 if five else 4)
        set_(self, "num_cards_in_play", 28 if five else 24)
        set_(self, "kitty_size", self.num_cards_in_play - HAND_SIZE * self.num_players)
        set_(self, "deck_mask", int(cards.ALL_CARDS_28 if five else cards.ALL_CARDS_24))
        set_(self, "called_card", five)

    def validate(self) -> None:
        """Raise ValueError naming the setting if the combination is not allowed."""
        if self.variant not in VARIANTS:
            raise ValueError(f"variant must be one of {VARIANTS}, got {self.variant!r}")
        if self.episode not in EPISODES:
            raise ValueError(f"episode must be one of {EPISODES}, got {self.episode!r}")
        for flag in ("stick_the_dealer", "defend_alone"):
            if not isinstance(getattr(self, flag), (bool, np.bool_)):
                raise ValueError(f"{flag} must be True or False, got {getattr(self, flag)!r}")
        ptw = self.points_to_win
        if isinstance(ptw, bool) or not isinstance(ptw, (int, np.integer)) or not 1 <= ptw <= 1000:
            raise ValueError(f"points_to_win must be an integer in 1..1000, got {ptw!r}")
        if self.variant == "five_handed":
            if not self.stick_the_dealer:
                raise ValueError(
                    "stick_the_dealer=False is not allowed in the five_handed game: "
                    "the dealer must always name trump there (docs/rules.md#c10)"
                )
            if self.defend_alone:
                raise ValueError(
                    "defend_alone=True is only offered in the four_handed game "
                    "(docs/rules.md#c18); nobody sits out in the five_handed game"
                )

    @property
    def deck(self) -> list[int]:
        """Card ids in play, ascending."""
        return cards.cards_of(self.deck_mask)

    def partner_of(self, seat: int) -> int:
        """Fixed partner's seat (four-handed) ; -1 in the five-handed game."""
        return -1 if self.called_card else (seat + 2) % 4


PRESETS: dict[str, RulesConfig] = {
    "five_handed": RulesConfig(variant="five_handed"),
    "four_handed": RulesConfig(variant="four_handed"),
    "four_handed_no_stick": RulesConfig(variant="four_handed", stick_the_dealer=False),
    "four_handed_defend_alone": RulesConfig(variant="four_handed", defend_alone=True),
}


def make_rules(variant: str | RulesConfig = "four_handed", **settings: object) -> RulesConfig:
    """A ``RulesConfig`` from a variant or preset name plus settings.

    Raises:
        ValueError: for an unknown variant/preset or setting name, or a bad value.
    """
    if isinstance(variant, RulesConfig):
        base = variant
    elif isinstance(variant, str) and variant in PRESETS:
        base = PRESETS[variant]
    else:
        raise ValueError(f"variant must be one of {sorted(PRESETS)}, got {variant!r}")
    known = ("stick_the_dealer", "defend_alone", "points_to_win", "episode")
    unknown = sorted(set(settings) - set(known))
    if unknown:
        raise ValueError(f"unknown setting(s) {unknown}; known settings are {list(known)}")
    values = {k: getattr(base, k) for k in known}
    values.update(settings)
    return RulesConfig(variant=base.variant, **values)  # type: ignore[arg-type]

"""What the invariant groups share: ``Problem``, ``Game`` (the rules a state must fit) and small
helpers over the batched state."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from euchre_env import cards
from euchre_env.actions import Phase
from euchre_env.rules import PRESETS, RulesConfig, make_rules
from euchre_env.state import VARIANT_OF_SEATS, State

MAX_SCORE = 10_003  # a given deal's scores are below 10,000 (engine.deal), plus at most 4 points a hand
BID_UPCARD, DISCARD, BID_SUIT, CALL, DECLARE, DEFEND, PLAY, DONE = (int(p) for p in Phase)


@dataclass(frozen=True)
class Problem:
    """The first fault found: table ``row`` (None for the whole state), ``field`` and what is wrong."""

    row: int | None
    field: str
    detail: str

    def __str__(self) -> str:
        where = "" if self.row is None else f"table {self.row}: "
        return f"invalid state: {where}{self.field} {self.detail}"


@dataclass(frozen=True)
class Game:
    """The game a state must belong to: ``rules`` of its variant; ``exact``: their settings are known."""

    rules: RulesConfig
    exact: bool

    @property
    def name(self) -> str:
        return self.rules.variant


def game_of(rules: RulesConfig | str | None, num_players: int) -> Game:
    """The ``Game`` for a ``rules`` argument and a state of ``num_players`` seats.

    Raises:
        ValueError: ``rules`` is not a RulesConfig, a variant/preset name or None,
            or its game has another number of seats.
    """
    if rules is None:
        if num_players not in VARIANT_OF_SEATS:
            raise ValueError(f"invalid state: hands has {num_players} seats; no game has that many")
        game = Game(PRESETS[VARIANT_OF_SEATS[num_players]], exact=False)
    elif isinstance(rules, RulesConfig):
        game = Game(rules, exact=True)
    elif isinstance(rules, str) and rules in PRESETS:
        game = Game(make_rules(PRESETS[rules].variant), exact=False)
    else:
        raise ValueError(f"rules must be a RulesConfig, one of {sorted(PRESETS)} or None, got {rules!r}")
    if game.rules.num_players != num_players:
        raise ValueError(
            f"invalid state: the state has {num_players} seats per table but {game.name} has "
            f"{game.rules.num_players}: a state of another game"
        )
    return game


def first_problem(bad: np.ndarray, field: str, detail: Callable[[int], str]) -> Problem | None:
    """A Problem at the first row where ``bad`` ((B,) bool) holds; ``detail(row)`` says what is wrong."""
    if not bad.any():
        return None
    row = int(np.argmax(bad))
    return Problem(row, field, detail(row))


def rows_in(a: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Elementwise ``a in values`` for ``(B,)`` ``a`` and ``(B, k)`` or ``(k,)`` ``values``."""
    return (np.asarray(values) == a[:, None]).any(axis=1)


def card_bits(card_ids: np.ndarray) -> np.ndarray:
    """uint32 card bits of card ids (any shape), 0 for -1 (no card)."""
    ids = card_ids.astype(np.intp)
    return np.where(ids >= 0, cards.CARD_BIT[np.maximum(ids, 0)], np.uint32(0))


def count_cards(bits: np.ndarray) -> np.ndarray:
    """Cards in each uint32 card set, int64."""
    return np.bitwise_count(bits).astype(np.int64)


def card_name(c: int) -> str:
    """A card's name, or the number itself for an id that is not a card."""
    return cards.name(c) if 0 <= c < cards.NUM_CARDS else str(c)


def cards_text(bits: int) -> str:
    """The names of the cards in a card set, ``"none"`` for the empty set."""
    return " ".join(cards.name(c) for c in cards.cards_of(bits)) or "none"


def phase_name(s: State, row: int) -> str:
    """The name of table ``row``'s phase (``check_ranges`` has checked it is a phase)."""
    return Phase(int(s.phase[row])).name


def played_cards(s: State) -> np.ndarray:
    """(B, P) uint32: the cards each seat has played this hand, from ``trick_cards``."""
    return np.bitwise_or.reduce(card_bits(s.trick_cards), axis=1)


def maker_set(s: State) -> np.ndarray:
    """(B,) bool: someone made trump."""
    return s.maker >= 0


def upcard_taken(s: State) -> np.ndarray:
    """(B,) bool: the upcard was ordered up in round 1 (the dealer took it)."""
    return (s.maker >= 0) & (s.bid_round == 1)


def play_begun(s: State) -> np.ndarray:
    """(B,) bool: card play has begun: phase PLAY, or a finished hand that was played."""
    return (s.phase == PLAY) | ((s.phase == DONE) & (s.maker >= 0))


def suit_of(s: State, ids: np.ndarray) -> np.ndarray:
    """Effective suit of card ids ((B, ...) with -1 for none) under each row's trump; -1 for none."""
    trump = s.trump.astype(np.intp).reshape(-1, *([1] * (ids.ndim - 1)))
    suit = cards.EFFECTIVE_SUIT[trump, np.maximum(ids, 0).astype(np.intp)]
    return np.where(ids >= 0, suit, -1)
